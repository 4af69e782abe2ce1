// sstfilter-filter-bench: the filter-level instrument, as RocksDB's
// filter_bench is for its filters: every policy, ours and RocksDB's, built
// and queried through RocksDB's FilterPolicy interfaces, one named scenario
// per question (bench/README.md has the question each answers).
//
// usage: sstfilter-filter-bench SCENARIO [flags]   (flags: see each usage)
#include "scenario.h"
#include "scenarios.h"

namespace {

using sstfilter::bench::Scenario;

constexpr Scenario kScenarios[] = {
    {"compare", sstfilter::bench::CompareMain,
     "every policy side by side: query paths, FPR, builds, sweeps"},
    {"build-check", sstfilter::bench::BuildCheckMain,
     "the cuckoo build against ribbonfilter's, held to a limit"},
    {"memory", sstfilter::bench::MemoryMain,
     "optimize_filters_for_memory off and on: memory and FPR"},
    {"costs", sstfilter::bench::CostsMain,
     "LevelAware's cost-model constants: build ns/key per kind"},
    {"views", sstfilter::bench::ViewsMain,
     "filter/'s views alone on each SIMD path (Google Benchmark)"},
    {"layout-table", sstfilter::bench::LayoutTableMain,
     "BlockedBloom's lines and probes per bits/key (minutes)"},
};

}  // namespace

int main(int argc, char** argv) {
  return sstfilter::bench::RunScenario(kScenarios, argc, argv);
}
