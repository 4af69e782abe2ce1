// sstfilter-db-bench: the DB-level runs that RocksDB's db_bench cannot make,
// because they read with a workload db_bench has no benchmark for, grow two
// DBs side by side, open and close DBs in one process, or scan with a
// table filter. One run per process: one policy, one seed, one "RESULT
// key=value ..." line per run or stage (bench/common/results.h).
// bench/db/db_bench_driver names the scenarios built on these runs and on
// db_bench itself (bench/README.md).
//
// usage: sstfilter-db-bench SCENARIO [flags]   (flags: see each usage)
#include "scenario.h"
#include "scenarios.h"

namespace {

using sstfilter::bench::Scenario;

constexpr Scenario kScenarios[] = {
    {"workload", sstfilter::bench::WorkloadMain,
     "one policy on a leveled DB compacting under a read workload"},
    {"memory-limit", sstfilter::bench::MemoryLimitMain,
     "a DB growing in stages past a filter memory limit"},
    {"open-close", sstfilter::bench::OpenCloseMain,
     "what a process keeps of the DBs it opened and closed"},
    {"range-scans", sstfilter::bench::RangeScansMain,
     "short range scans read four ways: range filter, none, prefix, min/max"},
};

}  // namespace

int main(int argc, char** argv) {
  return sstfilter::bench::RunScenario(kScenarios, argc, argv);
}
