// NewBitsReader picks one reader per kind, layout and SIMD path (the inline
// probes of sstfilter/detail/). Each must answer every key exactly as the
// filter's own view does, for both format versions.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "rocksdb_test_support.h"
#include "sstfilter/blocked_bloom.h"
#include "sstfilter/cuckoo_filter.h"
#include "sstfilter/filter_view.h"
#include "sstfilter/hash.h"
#include "sstfilter/simd.h"

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
                               const std::vector<std::string>& queries) {
  FilterView view;
  ASSERT_TRUE(FilterView::Parse(bytes, &view).ok());
  std::shared_ptr<const rdb::FilterPolicy> policy;
  ASSERT_TRUE(MakePolicy("sstfilter.BlockedBloom:10", &policy).ok());
  std::unique_ptr<rdb::FilterBitsReader> reader(
      policy->GetFilterBitsReader(rdb::Slice(bytes)));
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
    saved_ = ActiveSimdPath();
    if (!SetSimdPath(GetParam())) GTEST_SKIP() << "path not on this CPU";
  }
  void TearDown() override { SetSimdPath(saved_); }
  SimdPath saved_ = SimdPath::kScalar;
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
                                queries);
    }
  }
  // f <= 16 has the inline static reader; wider ones, chains and format v1
  // go through the view.
  for (uint32_t f : {4u, 8u, 12u, 16u, 17u, 32u}) {
    SCOPED_TRACE("Cuckoo f=" + std::to_string(f));
    ExpectReaderAnswersAsView(CuckooBytes(f, present), queries);
  }
  CuckooFilter chain;
  ASSERT_TRUE(CuckooFilter::Create(12, 500, &chain).ok());
  for (const auto& key : present) ASSERT_TRUE(chain.AddKey(key).ok());
  ExpectReaderAnswersAsView(chain.Serialize(), queries);
  for (const char* v1 :
       {"blocked_bloom_12345keys_145lines_4probes_2lpk.bin",
        "blocked_bloom_1000keys_20lines_7probes_1lpk.bin",
        "cuckoo_static_12345keys_f12.bin", "cuckoo_dynamic_2000keys_f12.bin"}) {
    SCOPED_TRACE(v1);
    ExpectReaderAnswersAsView(GoldenV1(v1), queries);
  }
}

INSTANTIATE_TEST_SUITE_P(SimdPaths, ReaderPathTest,
                         ::testing::Values(SimdPath::kScalar, SimdPath::kAvx2),
                         [](const auto& info) {
                           return std::string(SimdPathName(info.param));
                         });

}  // namespace
}  // namespace sstfilter::test_support
