// BlockBasedTableOptions::optimize_filters_for_memory inside real
// databases, for each policy: with it on, on leveled and partitioned
// databases, every present key is found by Get and MultiGet, every absent
// key is not, and the filters pass no more absent keys than with it off.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "rocksdb_db_support.h"

namespace sstfilter::test_support {
namespace {

struct MemoryOptionCase {
  const char* policy;
  bool partitioned;
};

class MemoryOptionDbTest : public ::testing::TestWithParam<MemoryOptionCase> {};

struct DbRun {
  LookupCounts present_get;
  LookupCounts present_multiget;
  LookupCounts absent_get;
  FilterStats absent;
  uint64_t filter_bytes = 0;
};

constexpr uint64_t kKeys = 100000;
constexpr uint64_t kAbsent = 100000;

DbRun BuildAndLookUp(const MemoryOptionCase& c, bool optimize_for_memory) {
  TempDir dir;
  DbConfig config;
  config.policy = c.policy;
  config.partitioned = c.partitioned;
  const rdb::Options options = MakeOptions(config);
  options.table_factory->GetOptions<rdb::BlockBasedTableOptions>()
      ->optimize_filters_for_memory = optimize_for_memory;
  DbRun run;
  auto db = Open(options, dir.path());
  if (db == nullptr) return run;
  BuildLeveledDb(db.get(), kKeys, 256 << 10);  // L0..L3, several files each
  for (const auto& file : SstFiles(db.get())) {
    EXPECT_EQ(file.properties->filter_policy_name,
              std::string(c.policy).substr(0, std::string(c.policy).find(':')))
        << file.path;
    run.filter_bytes += file.properties->filter_size;
  }
  run.present_get = GetAll(db.get(), Range(0, kKeys));
  run.present_multiget = MultiGetAll(db.get(), Range(0, kKeys));
  TakeStats(*options.statistics);
  run.absent_get = GetAll(db.get(), Range(kKeys, kAbsent));
  run.absent = TakeStats(*options.statistics);
  std::printf("[ %s%s, optimize_filters_for_memory=%d ] %" PRIu64
              " filter bytes, %" PRIu64 " of %" PRIu64
              " filter checks of absent keys passed\n",
              c.policy, c.partitioned ? " partitioned" : "",
              optimize_for_memory, run.filter_bytes, run.absent.positive,
              run.absent.consulted());
  return run;
}

TEST_P(MemoryOptionDbTest, EveryKeyFoundAndNoMoreFalsePositivesThanOff) {
  const DbRun off = BuildAndLookUp(GetParam(), false);
  const DbRun on = BuildAndLookUp(GetParam(), true);
  EXPECT_EQ(on.present_get.found, kKeys);
  EXPECT_EQ(on.present_get.errors, 0u);
  EXPECT_EQ(on.present_multiget.found, kKeys);
  EXPECT_EQ(on.present_multiget.errors, 0u);
  EXPECT_EQ(on.absent_get.found + on.absent_get.errors, 0u);
  EXPECT_EQ(on.absent.true_positive, 0u);
  // Of the filter checks, no larger share passes: within 4 standard
  // deviations of the share with it off.
  ASSERT_GT(off.absent.consulted(), 0u);
  ASSERT_GT(on.absent.consulted(), 0u);
  const double off_rate = static_cast<double>(off.absent.positive) /
                          static_cast<double>(off.absent.consulted());
  const double on_rate = static_cast<double>(on.absent.positive) /
                         static_cast<double>(on.absent.consulted());
  EXPECT_LE(on_rate, off_rate +
                         4 * std::sqrt(off_rate / on.absent.consulted()) +
                         4.0 / on.absent.consulted());
}

INSTANTIATE_TEST_SUITE_P(
    Policies, MemoryOptionDbTest,
    ::testing::Values(MemoryOptionCase{"sstfilter.BlockedBloom:10", false},
                      MemoryOptionCase{"sstfilter.BlockedBloom:10:1", false},
                      MemoryOptionCase{"sstfilter.Cuckoo:12", false},
                      MemoryOptionCase{"sstfilter.Hybrid:10:2", false},
                      MemoryOptionCase{"sstfilter.LevelAware:10", false},
                      MemoryOptionCase{"sstfilter.BlockedBloom:10", true},
                      MemoryOptionCase{"sstfilter.Cuckoo:12", true}),
    [](const ::testing::TestParamInfo<MemoryOptionCase>& info) {
      std::string name = std::string(info.param.policy).substr(10);
      for (char& c : name) {
        if (c == ':' || c == '.') c = '_';
      }
      return name + (info.param.partitioned ? "_Partitioned" : "");
    });

}  // namespace
}  // namespace sstfilter::test_support
