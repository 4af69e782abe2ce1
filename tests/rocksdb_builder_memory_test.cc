// The builders' memory: at most about 8 bytes per key beyond the filter
// itself (the key hashes), whatever the filter kind, at 10^6 and 10^7 keys,
// with optimize_filters_for_memory off and (at 10^6) on. Measured by
// counting every heap allocation of this test binary with alloc_meter
// (rocksdb_plugin/support/), the meter that `sstfilter-filter-bench compare`
// reports builder memory with.
// (rocksdb_builder_scale_test, label "long", measures 10^8.)
#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "job_handoff.h"
#include "level_aware_tree.h"
#include "rocksdb/table.h"
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

namespace sstfilter::test_support {
namespace {

// The heap peak of building one filter of `num_keys` keys of 100 bytes with
// `policy` for a bottom table (level 6 of 7, a compaction), beyond the
// filter itself, in bytes per key.
double PeakBeyondFilterOf100ByteKeys(const rdb::FilterPolicy& policy,
                                     uint64_t num_keys) {
  rdb::BlockBasedTableOptions table_options;
  rdb::FilterBuildingContext context(table_options);
  context.compaction_style = rdb::kCompactionStyleLevel;
  context.num_levels = 7;
  context.level_at_creation = 6;
  context.is_bottommost = true;
  context.reason = rdb::TableFileCreationReason::kCompaction;
  std::unique_ptr<rdb::FilterBitsBuilder> builder(
      policy.GetBuilderWithContext(context));
  const size_t baseline = alloc_meter::HeapBytesInUse();
  alloc_meter::ResetHeapPeak();
  std::string key(100, 'k');
  for (uint64_t i = 0; i < num_keys; ++i) {
    std::snprintf(&key[0], 21, "%020" PRIu64, i);
    key[20] = 'k';
    builder->AddKey(key);
  }
  std::unique_ptr<const char[]> owner;
  const rdb::Slice filter = builder->Finish(&owner);
  return (static_cast<double>(alloc_meter::HeapPeakBytes()) -
          static_cast<double>(baseline) - static_cast<double>(filter.size())) /
         static_cast<double>(num_keys);
}

// LevelAware keeps no key while it builds: a learning build (the
// listener's job on this thread, the tree of a DB) of 10^6 keys of 100
// bytes peaks no higher than ribbonfilter:15's build of the same keys,
// whose builder keeps 8 bytes of hash per key.
TEST(LevelAwareBuildMemory, ALearningBuildKeepsNoKey) {
  constexpr uint64_t kKeys = 1'000'000;
  std::shared_ptr<const rdb::FilterPolicy> ribbon, level_aware;
  ASSERT_TRUE(MakePolicy("ribbonfilter:15", &ribbon).ok());
  ASSERT_TRUE(MakePolicy("sstfilter.LevelAware:10", &level_aware).ok());
  auto db = std::make_shared<rocksdb_plugin::DbState>(nullptr, "memory");
  std::vector<rocksdb_plugin::TreeFile> files;
  for (int level = 4; level <= 6; ++level) {
    files.push_back({static_cast<uint64_t>(level), level,
                     static_cast<int64_t>(kKeys), -1, -1});
  }
  db->ColumnFamily("")->Replace(files);
  rocksdb_plugin::BeginJob({{db}, -1, 6});
  const double learning = PeakBeyondFilterOf100ByteKeys(*level_aware, kKeys);
  rocksdb_plugin::EndJob();
  ASSERT_NE(rocksdb_plugin::TakeBuiltTable(), nullptr)
      << "not a learning build";
  const double reference = PeakBeyondFilterOf100ByteKeys(*ribbon, kKeys);
  RecordProperty("level_aware_bytes_per_key", std::to_string(learning));
  RecordProperty("ribbonfilter_bytes_per_key", std::to_string(reference));
  std::printf(
      "[ peak beyond the filter: LevelAware %.2f, ribbonfilter:15 "
      "%.2f bytes/key ]\n",
      learning, reference);
  EXPECT_LE(learning, reference + 0.1);
}

}  // namespace
}  // namespace sstfilter::test_support
