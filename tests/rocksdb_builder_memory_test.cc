// The builders' memory: at most about 8 bytes per key beyond the filter
// itself (the key hashes), whatever the filter kind, with
// optimize_filters_for_memory off and on. Measured by counting every heap
// allocation of this test binary with bench/alloc_meter, the meter that
// sstfilter-compare reports builder memory with.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <tuple>

#include "alloc_meter.h"
#include "rocksdb_test_support.h"

namespace sstfilter::rocksdb_testing {
namespace {

class BuilderMemoryTest
    : public ::testing::TestWithParam<std::tuple<const char*, bool>> {};

TEST_P(BuilderMemoryTest, PeakIsAboutEightBytesPerKeyBeyondTheFilter) {
  const auto [policy_id, optimize_for_memory] = GetParam();
  std::shared_ptr<const rdb::FilterPolicy> policy;
  ASSERT_TRUE(MakePolicy(policy_id, &policy).ok());
  rdb::BlockBasedTableOptions table_options;
  table_options.optimize_filters_for_memory = optimize_for_memory;
  std::unique_ptr<rdb::FilterBitsBuilder> builder(
      policy->GetBuilderWithContext(rdb::FilterBuildingContext(table_options)));
  constexpr size_t kKeys = 1'000'000;
  // Keys are made one at a time, so only the builder's own memory grows.
  const size_t baseline = bench::HeapBytesInUse();
  bench::ResetHeapPeak();
  std::string key;
  for (size_t i = 0; i < kKeys; ++i) {
    key = "key" + std::to_string(i);
    builder->AddKey(key);
  }
  std::unique_ptr<const char[]> buf;
  const rdb::Slice filter = builder->Finish(&buf);
  const double beyond_filter =
      static_cast<double>(bench::HeapPeakBytes() - baseline - filter.size()) /
      kKeys;
  RecordProperty("peak_bytes_per_key_beyond_filter",
                 std::to_string(beyond_filter));
  // 8 bytes per hash, plus one 32 KiB chunk and small fixed overheads.
  EXPECT_LE(beyond_filter, 8.0 + 0.1) << policy_id;
  EXPECT_GE(beyond_filter, 7.9) << "the hashes must be counted";
}

INSTANTIATE_TEST_SUITE_P(
    Policies, BuilderMemoryTest,
    ::testing::Combine(::testing::Values("sstfilter.BlockedBloom:10",
                                         "sstfilter.Cuckoo:12"),
                       ::testing::Bool()),
    [](const auto& info) {
      std::string name = std::get<0>(info.param) + 10;  // after "sstfilter."
      name = name.substr(0, name.find(':'));
      return name +
             (std::get<1>(info.param) ? "_OptimizeFiltersForMemory" : "");
    });

}  // namespace
}  // namespace sstfilter::rocksdb_testing
