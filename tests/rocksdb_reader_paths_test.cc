// NewBitsReader picks one reader per kind, layout and SIMD path (the inline
// probes of sstfilter/detail/). Each must answer every key exactly as the
// filter's own view does, for both format versions; a reader is made for
// each path (NewBitsReaderOnPath). The readers and builders hash keys with
// HashKey's inline body (sstfilter/detail/key_hash.h); a reader
// given a ProbeSampler reports one probe in 256 to it and answers as
// without.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "filter_bits.h"
#include "probe_sampler.h"
#include "rocksdb_test_support.h"
#include "sstfilter/blocked_bloom.h"
#include "sstfilter/cuckoo_filter.h"
#include "sstfilter/detail/key_hash.h"
#include "sstfilter/filter_view.h"
#include "sstfilter/hash.h"
#include "sstfilter/simd.h"
#include "sstfilter/workload.h"

namespace sstfilter::test_support {
namespace {

std::string BloomBytes(uint64_t num_keys, double bits_per_key,
                       uint32_t lines_per_key,
                       const std::vector<std::string>& keys) {
  const auto params =
      BlockedBloomParams::ForBitsPerKey(num_keys, bits_per_key, lines_per_key);
  std::string bytes(params.SerializedSize(), '\0');
  BlockedBloomWriter writer(params, reinterpret_cast<uint8_t*>(bytes.data()));
  for (const auto& key : keys) {
    const uint64_t h = HashKey(key);
    writer.AddBatch(&h, 1);
  }
  return bytes;
}

std::string CuckooBytes(uint32_t fingerprint_bits,
                        const std::vector<std::string>& keys) {
  std::vector<uint64_t> hashes;
  for (const auto& key : keys) hashes.push_back(HashKey(key));
  std::string bytes;
  EXPECT_TRUE(
      BuildStaticCuckoo(hashes.data(), hashes.size(), fingerprint_bits, &bytes)
          .ok());
  return bytes;
}

std::string GoldenV1(const std::string& name) {
  std::ifstream in(std::string(SSTFILTER_GOLDEN_DIR) + "/v1/" + name,
                   std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// Every reader answer, single and in MultiGet batches of up to 32, equals
// the view's, for present and absent keys.
void ExpectReaderAnswersAsView(const std::string& bytes,
                               const std::vector<std::string>& queries,
                               SimdPath path) {
  FilterView view;
  ASSERT_TRUE(FilterView::Parse(bytes, &view).ok());
  std::unique_ptr<rdb::FilterBitsReader> reader(
      rocksdb_plugin::NewBitsReaderOnPath(rdb::Slice(bytes),
                                          BlockFamily::kRocksdbBuiltin, path));
  std::vector<rdb::Slice> slices(queries.begin(), queries.end());
  std::vector<rdb::Slice*> pointers;
  for (auto& slice : slices) pointers.push_back(&slice);
  size_t differ = 0;
  for (size_t start = 0; start < queries.size(); start += 32) {
    const int count =
        static_cast<int>(std::min<size_t>(32, queries.size() - start));
    bool batched[32];
    reader->MayMatch(count, pointers.data() + start, batched);
    for (int i = 0; i < count; ++i) {
      const bool expected = view.MayContain(HashKey(queries[start + i]));
      differ += reader->MayMatch(slices[start + i]) != expected;
      differ += batched[i] != expected;
    }
  }
  EXPECT_EQ(differ, 0u);
}

class ReaderPathTest : public ::testing::TestWithParam<SimdPath> {
 protected:
  void SetUp() override {
    if (!SimdPathSupported(GetParam())) GTEST_SKIP() << "path not on this CPU";
  }
};

TEST_P(ReaderPathTest, EveryReaderAnswersAsTheFiltersView) {
  const auto present = Keys("key", 20000);
  std::vector<std::string> queries = Keys("absent", 20000);
  queries.insert(queries.end(), present.begin(), present.end());
  for (uint32_t lines : {1u, 2u}) {
    for (double bits : {2.0, 10.0, 23.0}) {
      SCOPED_TRACE("BlockedBloom lines=" + std::to_string(lines) +
                   " bits=" + std::to_string(bits));
      ExpectReaderAnswersAsView(BloomBytes(20000, bits, lines, present),
                                queries, GetParam());
    }
  }
  // f <= 16 has the inline static reader; wider ones, chains and format v1
  // go through the view.
  for (uint32_t f : {4u, 8u, 12u, 16u, 17u, 32u}) {
    SCOPED_TRACE("Cuckoo f=" + std::to_string(f));
    ExpectReaderAnswersAsView(CuckooBytes(f, present), queries, GetParam());
  }
  CuckooFilter chain;
  ASSERT_TRUE(CuckooFilter::Create(12, 500, &chain).ok());
  for (const auto& key : present) ASSERT_TRUE(chain.AddKey(key).ok());
  ExpectReaderAnswersAsView(chain.Serialize(), queries, GetParam());
  for (const char* v1 :
       {"blocked_bloom_12345keys_145lines_4probes_2lpk.bin",
        "blocked_bloom_1000keys_20lines_7probes_1lpk.bin",
        "cuckoo_static_12345keys_f12.bin", "cuckoo_dynamic_2000keys_f12.bin"}) {
    SCOPED_TRACE(v1);
    ExpectReaderAnswersAsView(GoldenV1(v1), queries, GetParam());
  }
}

INSTANTIATE_TEST_SUITE_P(SimdPaths, ReaderPathTest,
                         ::testing::Values(SimdPath::kScalar, SimdPath::kAvx2),
                         [](const auto& info) {
                           return std::string(SimdPathName(info.param));
                         });

// Every length XXH3 treats apart (0, 1-3, 4-8, 9-16, 17-128, 129-240 and
// longer), random bytes.
TEST(KeyHashTest, PluginInlineHashIsHashKey) {
  std::mt19937_64 rng(34);
  size_t differ = 0;
  for (size_t length = 0; length <= 1100; ++length) {
    for (int copy = 0; copy < 8; ++copy) {
      std::string key(length, '\0');
      for (char& c : key) c = static_cast<char>(rng());
      differ += detail::HashKeyInline(key) != HashKey(key);
    }
  }
  EXPECT_EQ(differ, 0u);
}

// Counts what it is given; keeps the keys and answers.
class CountingSampler final : public rocksdb_plugin::ProbeSampler {
 public:
  void Record(std::string_view key, bool may_match) const override {
    recorded.emplace_back(std::string(key), may_match);
  }
  mutable std::vector<std::pair<std::string, bool>> recorded;
};

// One block of each reader: BlockedBloom of one line and of two, the
// static cuckoo filter, a cuckoo chain (through the view), RocksDB's
// FastLocalBloom, and a block that reads as "may match".
std::vector<std::string> OneBlockPerReader(
    const std::vector<std::string>& keys) {
  std::vector<std::string> blocks = {BloomBytes(keys.size(), 10, 1, keys),
                                     BloomBytes(keys.size(), 10, 2, keys),
                                     CuckooBytes(12, keys)};
  CuckooFilter chain;
  EXPECT_TRUE(CuckooFilter::Create(12, keys.size() / 4, &chain).ok());
  for (const auto& key : keys) EXPECT_TRUE(chain.AddKey(key).ok());
  blocks.push_back(chain.Serialize());
  std::shared_ptr<const rdb::FilterPolicy> bloom;
  EXPECT_TRUE(MakePolicy("bloomfilter:10", &bloom).ok());
  blocks.push_back(BuildFilter(*bloom, keys).bytes.ToString());
  blocks.push_back("not a filter block");
  return blocks;
}

TEST(SampledReaderTest, ReportsAboutOneProbeIn256AndAnswersAsUnsampled) {
  const auto present = Keys("key", 4000);
  std::vector<std::string> queries = Keys("absent", 40000);
  queries.insert(queries.end(), present.begin(), present.end());
  std::vector<rdb::Slice> slices(queries.begin(), queries.end());
  std::vector<rdb::Slice*> pointers;
  for (auto& slice : slices) pointers.push_back(&slice);
  const size_t expected = queries.size() / LevelWorkload::kSampleEvery;
  size_t block_index = 0;
  for (const std::string& block : OneBlockPerReader(present)) {
    SCOPED_TRACE("block " + std::to_string(block_index++));
    const rdb::Slice contents(block);
    std::unique_ptr<rdb::FilterBitsReader> unsampled(
        rocksdb_plugin::NewBitsReader(contents, BlockFamily::kRocksdbBuiltin));
    auto sampler = std::make_shared<CountingSampler>();
    std::unique_ptr<rdb::FilterBitsReader> sampled(
        rocksdb_plugin::NewBitsReader(contents, BlockFamily::kRocksdbBuiltin,
                                      sampler));
    std::map<std::string, bool> answer;
    size_t differ = 0;
    for (const rdb::Slice& key : slices) {
      const bool expected_answer = unsampled->MayMatch(key);
      answer[key.ToString()] = expected_answer;
      differ += sampled->MayMatch(key) != expected_answer;
    }
    EXPECT_EQ(differ, 0u);
    EXPECT_NEAR(sampler->recorded.size(), expected, 1.0) << "single probes";
    // Batches of MultiGet's 32 keys count a probe per key.
    const size_t single_records = sampler->recorded.size();
    for (size_t start = 0; start + 32 <= queries.size(); start += 32) {
      bool batched[32];
      sampled->MayMatch(32, pointers.data() + start, batched);
      for (size_t i = 0; i < 32; ++i) {
        differ += batched[i] != answer[queries[start + i]];
      }
    }
    EXPECT_EQ(differ, 0u);
    EXPECT_NEAR(sampler->recorded.size() - single_records,
                queries.size() / 32 * 32 / LevelWorkload::kSampleEvery, 1.0)
        << "batched probes";
    // What is recorded is the reader's answer for the key recorded.
    for (const auto& [key, may_match] : sampler->recorded) {
      EXPECT_EQ(may_match, answer.at(key)) << key;
    }
  }
}

// A MultiGet batch is sorted: the keys a batch reports are drawn from all
// of its positions, not its first (its smallest) nor any fixed one.
TEST(SampledReaderTest, BatchesReportKeysFromEveryPosition) {
  const auto keys = Keys("key", 64);
  std::vector<std::string> queries = Keys("absent", 256 * 32 * 8);
  std::vector<rdb::Slice> slices(queries.begin(), queries.end());
  std::vector<rdb::Slice*> pointers;
  for (auto& slice : slices) pointers.push_back(&slice);
  const std::string block = BloomBytes(keys.size(), 10, 2, keys);
  auto sampler = std::make_shared<CountingSampler>();
  std::unique_ptr<rdb::FilterBitsReader> sampled(rocksdb_plugin::NewBitsReader(
      rdb::Slice(block), BlockFamily::kRocksdbBuiltin, sampler));
  std::map<std::string, size_t> position;
  for (size_t start = 0; start + 32 <= queries.size(); start += 32) {
    for (size_t i = 0; i < 32; ++i) position[queries[start + i]] = i;
    bool answers[32];
    sampled->MayMatch(32, pointers.data() + start, answers);
  }
  // 256 samples over 32 positions.
  ASSERT_NEAR(sampler->recorded.size(), queries.size() / 256, 1.0);
  std::vector<size_t> per_position(32, 0);
  double sum = 0;
  for (const auto& [key, may_match] : sampler->recorded) {
    ++per_position[position.at(key)];
    sum += static_cast<double>(position.at(key));
  }
  size_t seen = 0;
  for (size_t count : per_position) seen += count > 0;
  EXPECT_GE(seen, 24u) << "positions a sample fell on, of 32";
  EXPECT_NEAR(sum / static_cast<double>(sampler->recorded.size()), 15.5, 3.0)
      << "mean position";
}

}  // namespace
}  // namespace sstfilter::test_support
