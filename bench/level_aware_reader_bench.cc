// sstfilter-level-aware-reader-bench: what learning costs a LevelAware
// reader. The same blocks (each level's filter of a four-level tree,
// built through RocksDB's interfaces) are read by the reader of
// `sstfilter.LevelAware:10` (learn=true: its readers sample one probe in
// 256 for the tables its builders registered) and of
// `sstfilter.LevelAware:10:learn=false` (RocksDB's or our reader alone),
// single and batched (32 keys, as MultiGet), absent keys, one filter in
// cache and many filters out of it. Run it with --benchmark_repetitions
// and compare the medians of each pair (bench/README.md).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "rocksdb/convenience.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/object_registry.h"
#include "sstfilter/rocksdb_plugin.h"
#include "table/block_based/filter_policy_internal.h"

namespace {

namespace rdb = ROCKSDB_NAMESPACE;

std::shared_ptr<const rdb::FilterPolicy> Policy(const std::string& id) {
  static const bool registered = [] {
    rdb::ObjectRegistry::Default()->AddLibrary("sstfilter",
                                               RegisterSstfilterPolicies, "");
    return true;
  }();
  (void)registered;
  std::shared_ptr<const rdb::FilterPolicy> policy;
  const rdb::Status s =
      rdb::FilterPolicy::CreateFromString(rdb::ConfigOptions(), id, &policy);
  if (!s.ok()) {
    std::fprintf(stderr, "%s: %s\n", id.c_str(), s.ToString().c_str());
    std::exit(1);
  }
  return policy;
}

std::string Key(const char* prefix, uint64_t i) {
  return prefix + std::to_string(i);
}

// `num_filters` filters of `keys_per_filter` keys at `level` (0..3) of a
// four-level tree, and their readers by `policy`, which built them.
struct Filters {
  std::vector<std::unique_ptr<const char[]>> owners;
  std::vector<std::unique_ptr<rdb::FilterBitsReader>> readers;
};

Filters Build(const rdb::FilterPolicy& policy, int level, size_t num_filters,
              size_t keys_per_filter) {
  rdb::BlockBasedTableOptions table;
  auto make_context = [&table](int l) {
    rdb::FilterBuildingContext context(table);
    context.level_at_creation = l;
    context.is_bottommost = l == 3;
    context.reason = l == 0 ? rdb::TableFileCreationReason::kFlush
                            : rdb::TableFileCreationReason::kCompaction;
    context.num_levels = 4;
    context.column_family_name = "reader-bench";
    return context;
  };
  // The tree's shape first, so that `level` gets its allocation.
  for (int l = 3; l >= 1; --l) {
    std::unique_ptr<rdb::FilterBitsBuilder> b(
        policy.GetBuilderWithContext(make_context(l)));
    b->AddKey("shape");
    std::unique_ptr<const char[]> owner;
    b->Finish(&owner);
  }
  Filters filters;
  uint64_t next = 0;
  for (size_t f = 0; f < num_filters; ++f) {
    std::unique_ptr<rdb::FilterBitsBuilder> b(
        policy.GetBuilderWithContext(make_context(level)));
    for (size_t i = 0; i < keys_per_filter; ++i) b->AddKey(Key("k", next++));
    std::unique_ptr<const char[]> owner;
    rdb::Status status;
    const rdb::Slice bytes = b->Finish(&owner, &status);
    filters.readers.emplace_back(policy.GetFilterBitsReader(bytes));
    filters.owners.push_back(std::move(owner));
  }
  return filters;
}

// args: learn (0/1), level, number of filters (1: in cache), batched (0/1)
void BM_AbsentKeys(benchmark::State& state) {
  const bool learn = state.range(0) != 0;
  const int level = static_cast<int>(state.range(1));
  const size_t num_filters = static_cast<size_t>(state.range(2));
  const bool batched = state.range(3) != 0;
  const auto policy = Policy(learn ? "sstfilter.LevelAware:10"
                                   : "sstfilter.LevelAware:10:learn=false");
  Filters filters = Build(*policy, level, num_filters, 10000);
  constexpr size_t kKeys = 1 << 14;
  std::vector<std::string> keys;
  for (size_t i = 0; i < kKeys; ++i) keys.push_back(Key("absent", i));
  std::vector<rdb::Slice> slices(keys.begin(), keys.end());
  std::vector<rdb::Slice*> pointers;
  for (auto& s : slices) pointers.push_back(&s);
  bool may_match[32];
  size_t i = 0, passed = 0;
  uint64_t filter = 0x9e3779b97f4a7c15ull;
  for (auto _ : state) {
    filter = filter * 6364136223846793005ull + 1442695040888963407ull;
    rdb::FilterBitsReader& reader =
        *filters.readers[(filter >> 33) % num_filters];
    if (batched) {
      reader.MayMatch(32, pointers.data() + i, may_match);
      for (bool m : may_match) passed += m;
      i = (i + 32) % kKeys;
    } else {
      passed += reader.MayMatch(slices[i]);
      i = (i + 1) % kKeys;
    }
  }
  benchmark::DoNotOptimize(passed);
  state.SetItemsProcessed(state.iterations() * (batched ? 32 : 1));
}

// Bottom level (Ribbon) and L1 (RocksDB's or ours, by the allocation); one
// filter of 10^4 keys, and 2,000 of them (160 MB of 10^4-key filters would
// be too slow to build here; 2,000 x ~12 KiB is past a 2-cores' L2 and
// most L3s).
BENCHMARK(BM_AbsentKeys)
    ->ArgNames({"learn", "level", "filters", "batched"})
    ->ArgsProduct({{0, 1}, {1, 3}, {1, 2000}, {0, 1}});

}  // namespace

BENCHMARK_MAIN();
