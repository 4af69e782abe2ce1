#include "level_cost_model.h"

#include <memory>
#include <vector>

#include "rocksdb/filter_policy.h"
#include "rocksdb/table.h"
#include "rocksdb_compat.h"

namespace sstfilter::rocksdb_plugin {
namespace {

using ROCKSDB_NAMESPACE::FilterBitsBuilder;
using ROCKSDB_NAMESPACE::FilterBuildingContext;
using ROCKSDB_NAMESPACE::FilterPolicy;

// Build CPU per key, ns = a + c * bits/key, of each kind through RocksDB's
// interfaces (GetBuilderWithContext, AddKey, Finish; 10^5 keys per filter,
// as a compaction output of 5-50 MiB holds), measured by
// `build/rocksdb-11.8.1/bench/sstfilter-level-costs` in the 11.8.1 build
// (PORTABLE=0) on this project's reference machine (bench/README.md,
// "LevelAware's cost model"). Only their ratios matter to the choices:
// each cap is a reference configuration's CPU under the same constants.
// The run behind these (medians of 7 builds of 10^5 keys, bits/key 4..24)
// is in bench/README.md.
constexpr BuildCost kBlockedBloomBuild{9.63, 0.491};
constexpr BuildCost kCuckooBuild{16.25, 1.062};
constexpr BuildCost kFastLocalBloomBuild{8.21, 0.421};
constexpr BuildCost kRibbonBuild{47.73, 1.071};

// The choices' caps, over the reference configuration at the same memory.
constexpr double kCpuLeanCapOverBloom = 1.2;

constexpr size_t kCurveKeys = size_t{1} << 20;

KindModel Model(FilterKind kind) {
  switch (kind) {
    case FilterKind::kBlockedBloom:
      return OwnKindModel(kind, kBlockedBloomBuild);
    case FilterKind::kCuckoo:
      return OwnKindModel(kind, kCuckooBuild);
    case FilterKind::kFastLocalBloom:
      return {kind, RocksdbKindPoints(kind), kFastLocalBloomBuild, {}};
    case FilterKind::kRibbon128:
      return {kind, RocksdbKindPoints(kind), kRibbonBuild, {}};
    default:  // a kind no level gets
      return {};
  }
}

// The bits/key of RocksDB's kind made with `millibits`, and its FPR, from
// its builder (in a bottommost leveled compaction's context).
FilterChoice Sample(FilterKind kind, int64_t millibits) {
  FilterChoice c{kind, 0, 0, 1, millibits};
  const double bits = static_cast<double>(millibits) / 1000;
  const std::unique_ptr<const FilterPolicy> policy(
      kind == FilterKind::kRibbon128
          ? ROCKSDB_NAMESPACE::NewRibbonFilterPolicy(bits, -1)
          : ROCKSDB_NAMESPACE::NewBloomFilterPolicy(bits));
  ROCKSDB_NAMESPACE::BlockBasedTableOptions table_options;
  FilterBuildingContext context(table_options);
  context.compaction_style = ROCKSDB_NAMESPACE::kCompactionStyleLevel;
  context.num_levels = 7;
  context.level_at_creation = 6;
  context.is_bottommost = true;
  context.reason = ROCKSDB_NAMESPACE::TableFileCreationReason::kCompaction;
  std::unique_ptr<FilterBitsBuilder> builder(
      policy->GetBuilderWithContext(context));
  const size_t bytes =
      rocksdb_compat::BuiltinCalculateSpace(builder.get(), kCurveKeys);
  c.bits_per_key = static_cast<double>(bytes) * 8 / kCurveKeys;
  c.fpr =
      rocksdb_compat::BuiltinEstimatedFpRate(builder.get(), kCurveKeys, bytes);
  return c;
}

}  // namespace

const char* LevelAwareChoiceName(LevelAwareChoice choice) {
  switch (choice) {
    case LevelAwareChoice::kDefault:
      return "default";
    case LevelAwareChoice::kCpuLean:
      return "cpu_lean";
    case LevelAwareChoice::kPortable:
      return "portable";
  }
  return "?";
}

bool ParseLevelAwareChoice(std::string_view text, LevelAwareChoice* choice) {
  for (LevelAwareChoice c :
       {LevelAwareChoice::kDefault, LevelAwareChoice::kCpuLean,
        LevelAwareChoice::kPortable}) {
    if (text == LevelAwareChoiceName(c)) {
      *choice = c;
      return true;
    }
  }
  return false;
}

const std::vector<FilterChoice>& RocksdbKindPoints(FilterKind kind) {
  // Bloom: 1..64 bits/key by 1/8. Ribbon: Bloom-equivalent 1..100 by 1/4
  // (its own bits/key then reach about 45).
  static const std::vector<FilterChoice> bloom = [] {
    std::vector<FilterChoice> v;
    for (int64_t m = 1000; m <= 64000; m += 125) {
      v.push_back(Sample(FilterKind::kFastLocalBloom, m));
    }
    return v;
  }();
  static const std::vector<FilterChoice> ribbon = [] {
    std::vector<FilterChoice> v;
    for (int64_t m = 1000; m <= 100000; m += 250) {
      v.push_back(Sample(FilterKind::kRibbon128, m));
    }
    return v;
  }();
  static const std::vector<FilterChoice> none;
  return kind == FilterKind::kFastLocalBloom ? bloom
         : kind == FilterKind::kRibbon128       ? ribbon
                                                  : none;
}

LevelCostModel CostModelFor(LevelAwareChoice choice,
                            double average_bits_per_key, double size_ratio,
                            uint32_t num_levels) {
  LevelCostModel model;
  std::vector<FilterKind> kinds;
  switch (choice) {
    case LevelAwareChoice::kDefault:
      kinds = {FilterKind::kBlockedBloom, FilterKind::kCuckoo,
               FilterKind::kFastLocalBloom, FilterKind::kRibbon128};
      break;
    case LevelAwareChoice::kCpuLean:
      kinds = {FilterKind::kBlockedBloom, FilterKind::kCuckoo,
               FilterKind::kFastLocalBloom};
      break;
    case LevelAwareChoice::kPortable:
      kinds = {FilterKind::kFastLocalBloom, FilterKind::kRibbon128};
      break;
  }
  for (FilterKind k : kinds) model.kinds.push_back(Model(k));

  // The reference: every level at the average bits/key. ribbonfilter
  // builds Bloom for flushes (the top level of a tree of two or more) and
  // Ribbon below; bloomfilter builds FastLocalBloom everywhere.
  const bool lean = choice == LevelAwareChoice::kCpuLean;
  double reference = 0;
  for (uint32_t i = 0; i < num_levels; ++i) {
    const bool top = num_levels >= 2 && i + 1 == num_levels;
    const BuildCost& build =
        lean || top ? kFastLocalBloomBuild : kRibbonBuild;
    reference += LevelBuildWeight(size_ratio, num_levels, i) *
                 build.Ns(average_bits_per_key);
  }
  model.max_build_ns = lean ? kCpuLeanCapOverBloom * reference : reference;
  return model;
}

}  // namespace sstfilter::rocksdb_plugin
