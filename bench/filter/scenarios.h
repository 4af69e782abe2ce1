// bench/filter/scenarios.h: the scenarios of sstfilter-filter-bench, one
// function each, called with argv[0] the scenario's name and its flags after
// it; each returns the process's exit status.
#pragma once

namespace sstfilter::bench {

// Every policy, ours and RocksDB's, on every query path, FPR, memory and
// sweeps (compare.cc); its build-time guard (compare.cc).
int CompareMain(int argc, char** argv);
int BuildCheckMain(int argc, char** argv);
// optimize_filters_for_memory off and on (memory.cc).
int MemoryMain(int argc, char** argv);
// The measurements behind LevelAware's cost-model constants (costs.cc).
int CostsMain(int argc, char** argv);
// filter/'s views alone, each SIMD path, up to 5e7 keys (views.cc).
int ViewsMain(int argc, char** argv);
// The BlockedBloom layout table: lines and probes per bits/key
// (layout_table.cc).
int LayoutTableMain(int argc, char** argv);

}  // namespace sstfilter::bench
