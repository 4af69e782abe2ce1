// The largest filter block: the builders never write one of 4 GiB or more
// (kMaxFilterBlockBytes), as RocksDB's own builders never do. Past it a
// BlockedBloom stays at the cap with a rising FPR, and a cuckoo filter is
// written as a BlockedBloom. Proven on the size functions at key counts
// that would need gigabytes, and by real builds under a small cap, which
// Finish treats exactly as it treats the 4 GiB one.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "filter_bits.h"
#include "rocksdb_test_support.h"
#include "sstfilter/blocked_bloom.h"
#include "sstfilter/cuckoo_filter.h"
#include "sstfilter/filter_view.h"

namespace sstfilter::test_support {
namespace {

using rocksdb_plugin::BuilderConfig;
using rocksdb_plugin::kMaxFilterBlockBytes;

BuilderConfig BloomConfig(size_t max_filter_bytes = kMaxFilterBlockBytes) {
  BuilderConfig config;
  config.kind = FilterKind::kBlockedBloom;
  config.bits_per_key = 10;
  config.max_filter_bytes = max_filter_bytes;
  return config;
}

// Cuckoo with 12-bit fingerprints; 12.5 bits/key sizes its fallback.
BuilderConfig CuckooConfig(size_t max_filter_bytes = kMaxFilterBlockBytes) {
  BuilderConfig config;
  config.kind = FilterKind::kCuckoo;
  config.fingerprint_bits = 12;
  config.bits_per_key = 12.5;
  config.max_filter_bytes = max_filter_bytes;
  return config;
}

std::unique_ptr<rocksdb_plugin::BitsBuilder> NewBuilder(
    const BuilderConfig& config) {
  return std::unique_ptr<rocksdb_plugin::BitsBuilder>(
      rocksdb_plugin::NewBitsBuilder(config));
}

// A filter finished from `keys`, its parsed view, and the reader over it.
struct Finished {
  std::unique_ptr<const char[]> owner;
  rdb::Slice bytes;
  size_t space = 0;  // CalculateSpace for the keys, asked before Finish
  FilterView view;
  std::unique_ptr<rdb::FilterBitsReader> reader;
};

Finished Finish(const BuilderConfig& config,
                const std::vector<std::string>& keys) {
  auto builder = NewBuilder(config);
  for (const auto& key : keys) builder->AddKey(key);
  Finished f;
  f.space = builder->CalculateSpace(keys.size());
  f.bytes = builder->Finish(&f.owner);
  EXPECT_TRUE(FilterView::Parse(f.bytes.ToStringView(), &f.view).ok());
  f.reader.reset(
      rocksdb_plugin::NewBitsReader(f.bytes, BlockFamily::kRocksdbBuiltin));
  return f;
}

size_t CountMayMatch(rdb::FilterBitsReader& reader,
                     const std::vector<std::string>& keys) {
  size_t hits = 0;
  for (const auto& key : keys) hits += reader.MayMatch(key) ? 1 : 0;
  return hits;
}

TEST(FilterLimitsTest, SizeFunctionsNeverPassTheLargestFilterBlock) {
  for (const BuilderConfig& config : {BloomConfig(), CuckooConfig()}) {
    SCOPED_TRACE(FilterKindName(config.kind));
    auto builder = NewBuilder(config);
    double previous_fpr = 0;
    for (size_t n : {size_t{1'000'000'000}, size_t{3'000'000'000},
                     size_t{10'000'000'000}, size_t{1} << 40, SIZE_MAX}) {
      SCOPED_TRACE(n);
      const size_t space = builder->CalculateSpace(n);
      EXPECT_LE(space, kMaxFilterBlockBytes);
      const double fpr = builder->EstimatedFpRate(n, space);
      EXPECT_GE(fpr, previous_fpr);
      EXPECT_LE(fpr, 1.0);
      previous_fpr = fpr;
    }
    // The most keys that fit at the configured bits/key: the same for any
    // byte count past the cap, and about 2^32 * 8 / bits_per_key.
    const size_t most = builder->ApproximateNumEntries(kMaxFilterBlockBytes);
    EXPECT_EQ(builder->ApproximateNumEntries(SIZE_MAX), most);
    const double bits_per_key = config.kind == FilterKind::kBlockedBloom
                                    ? config.bits_per_key
                                    : 4.0 * 12 * 25 / 96;  // 96% load
    EXPECT_NEAR(static_cast<double>(most), 4294967296.0 * 8 / bits_per_key,
                4294967296.0 * 8e-3);
    EXPECT_LE(builder->CalculateSpace(most), kMaxFilterBlockBytes);
  }
  // 2^26 - 1 lines and the metadata: the largest BlockedBloom block.
  const size_t largest = ((kMaxFilterBlockBytes - 28) / 64) * 64 + 28;
  EXPECT_EQ(NewBuilder(BloomConfig())->CalculateSpace(10'000'000'000), largest);
}

// A cuckoo filter fits the cap up to StaticCuckooCapacity of it; one key
// more and the builder writes (and describes) a BlockedBloom at the cap.
TEST(FilterLimitsTest, CuckooPastTheLargestBlockIsWrittenAsBlockedBloom) {
  auto builder = NewBuilder(CuckooConfig());
  const uint64_t most = StaticCuckooCapacity(kMaxFilterBlockBytes, 12);
  EXPECT_EQ(builder->CalculateSpace(most), StaticCuckooBytes(most, 12));
  EXPECT_LE(builder->CalculateSpace(most), kMaxFilterBlockBytes);
  EXPECT_EQ(builder->EstimatedFpRate(most, StaticCuckooBytes(most, 12)),
            StaticCuckooFpr(most, StaticCuckooBytes(most, 12), 12));
  const auto bloom = BlockedBloomParams::ForBitsPerKeyWithin(
      kMaxFilterBlockBytes, most + 1, 12.5);
  EXPECT_EQ(builder->CalculateSpace(most + 1), bloom.SerializedSize());
  EXPECT_EQ(builder->EstimatedFpRate(most + 1, bloom.SerializedSize()),
            bloom.EstimatedFpr(most + 1));
}

// Finish at a cap the keys pass: exactly the cap's lines, every key found,
// and the FPR its model gives (higher than the uncapped filter's).
TEST(FilterLimitsTest, BlockedBloomAtTheCapFindsEveryKeyAtItsModelFpr) {
  const size_t cap = size_t{64} * 100 + BlockedBloomParams::kMetadataBytes;
  const auto keys = Keys("key", 20000);  // 10 bits/key would take 391 lines
  const Finished f = Finish(BloomConfig(cap), keys);
  EXPECT_EQ(f.bytes.size(), cap);
  EXPECT_EQ(f.space, cap);
  ASSERT_NE(f.view.blocked_bloom(), nullptr);
  EXPECT_EQ(f.view.blocked_bloom()->params().num_lines, 100u);
  EXPECT_EQ(CountMayMatch(*f.reader, keys), keys.size());
  const auto absent = Keys("absent", 200000);
  const double measured =
      static_cast<double>(CountMayMatch(*f.reader, absent)) /
      static_cast<double>(absent.size());
  const double model = f.view.EstimatedFpr();
  EXPECT_NEAR(measured, model, 0.05 * model + 0.005);
  EXPECT_GT(model, Finish(BloomConfig(), keys).view.EstimatedFpr());
}

TEST(FilterLimitsTest, CuckooThatWouldPassTheCapIsWrittenAsBlockedBloom) {
  const auto keys = Keys("key", 10000);
  const size_t cuckoo_size = StaticCuckooBytes(keys.size(), 12);
  {
    // At the cap: still a cuckoo filter.
    const Finished f = Finish(CuckooConfig(cuckoo_size), keys);
    EXPECT_EQ(f.view.kind(), FilterKind::kCuckoo);
    EXPECT_EQ(f.bytes.size(), cuckoo_size);
    EXPECT_EQ(CountMayMatch(*f.reader, keys), keys.size());
  }
  {
    // One byte less: a BlockedBloom within the cap, as CalculateSpace says.
    const Finished f = Finish(CuckooConfig(cuckoo_size - 1), keys);
    EXPECT_EQ(f.view.kind(), FilterKind::kBlockedBloom);
    EXPECT_LE(f.bytes.size(), cuckoo_size - 1);
    EXPECT_EQ(f.bytes.size(), f.space);
    EXPECT_EQ(CountMayMatch(*f.reader, keys), keys.size());
  }
  {
    // A key set (found by search) whose cuckoo build fails at its first
    // size with every seed and grows, with the cap at that first size: the
    // grown table would pass it.
    const auto unlucky = Keys("k53539-", 84);
    const size_t first_size = StaticCuckooBytes(unlucky.size(), 12);
    ASSERT_GT(Finish(CuckooConfig(), unlucky).bytes.size(), first_size);
    const Finished f = Finish(CuckooConfig(first_size), unlucky);
    EXPECT_EQ(f.space, first_size);  // CalculateSpace cannot foresee it
    EXPECT_EQ(f.view.kind(), FilterKind::kBlockedBloom);
    EXPECT_LE(f.bytes.size(), first_size);
    EXPECT_EQ(CountMayMatch(*f.reader, unlucky), unlucky.size());
  }
}

}  // namespace
}  // namespace sstfilter::test_support
