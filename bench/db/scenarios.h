// bench/db/scenarios.h: the scenarios of sstfilter-db-bench, one function
// each, called with argv[0] the scenario's name and its flags after it; each
// returns the process's exit status. One run each: one policy, one seed;
// bench/db/db_bench_driver runs them over policies and fills.
#pragma once

namespace sstfilter::bench {

// One policy on a leveled DB that compacts under a read workload (absent,
// hits, hot ranges, a shift) (workload.cc).
int WorkloadMain(int argc, char** argv);
// A DB that grows in stages past a filter memory limit (memory_limit.cc).
int MemoryLimitMain(int argc, char** argv);
// What one process keeps of the DBs it opened and closed (open_close.cc).
int OpenCloseMain(int argc, char** argv);
// Short range scans on one DB, with a range filter and without, beside a
// prefix Bloom filter and SstQueryFilter's min/max; or the range filter's
// compaction cost (range_scans.cc).
int RangeScansMain(int argc, char** argv);

}  // namespace sstfilter::bench
