// The builders' memory: at most about 8 bytes per key beyond the filter
// itself (the key hashes), whatever the filter kind, at 10^6 and 10^7 keys,
// with optimize_filters_for_memory off and (at 10^6) on. Measured by
// counting every heap allocation of this test binary with alloc_meter
// (rocksdb_plugin/support/), the meter that sstfilter-compare reports
// builder memory with.
// (rocksdb_builder_scale_test, label "long", measures 10^8.)
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <tuple>

#include "rocksdb_builder_metering.h"

namespace sstfilter::test_support {
namespace {

class BuilderMemoryTest
    : public ::testing::TestWithParam<std::tuple<const char*, uint64_t, bool>> {
};

TEST_P(BuilderMemoryTest, PeakIsAboutEightBytesPerKeyBeyondTheFilter) {
  const auto [id, num_keys, optimize_for_memory] = GetParam();
  std::shared_ptr<const rdb::FilterPolicy> policy;
  ASSERT_TRUE(MakePolicy(id, &policy).ok());
  const MeteredBuild build =
      BuildMetered(*policy, num_keys, optimize_for_memory);
  ASSERT_EQ(build.entries_added, num_keys);
  const double beyond_filter = build.peak_bytes_per_key_beyond_filter;
  RecordProperty("peak_bytes_per_key_beyond_filter",
                 std::to_string(beyond_filter));
  // 8 bytes per hash, plus one 32 KiB chunk and small fixed overheads.
  EXPECT_LE(beyond_filter, 8.0 + 0.1) << id;
  EXPECT_GE(beyond_filter, 7.9) << "the hashes must be counted";
}

std::string ParamName(
    const ::testing::TestParamInfo<BuilderMemoryTest::ParamType>& info) {
  const std::string id = std::get<0>(info.param);
  return id.substr(id.find('.') + 1, id.find(':') - id.find('.') - 1) + "_" +
         std::to_string(std::get<1>(info.param)) + "_keys" +
         (std::get<2>(info.param) ? "_OptimizeFiltersForMemory" : "");
}

INSTANTIATE_TEST_SUITE_P(
    Policies, BuilderMemoryTest,
    ::testing::Combine(
        ::testing::Values("sstfilter.BlockedBloom:10", "sstfilter.Cuckoo:12"),
        ::testing::Values(uint64_t{1'000'000}, uint64_t{10'000'000}),
        ::testing::Values(false)),
    ParamName);

INSTANTIATE_TEST_SUITE_P(
    OptimizeFiltersForMemory, BuilderMemoryTest,
    ::testing::Combine(::testing::Values("sstfilter.BlockedBloom:10",
                                         "sstfilter.Cuckoo:12"),
                       ::testing::Values(uint64_t{1'000'000}),
                       ::testing::Values(true)),
    ParamName);

}  // namespace
}  // namespace sstfilter::test_support
