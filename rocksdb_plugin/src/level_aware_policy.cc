// sstfilter.LevelAware: per-level bits/key and filter kind (Monkey over the
// kinds of one of three choices; the allocation and its cost model are
// sstfilter/level_allocation.h, the choices level_cost_model.h). Levels
// that get RocksDB's FastLocalBloom or Ribbon are built by RocksDB's own
// policy of that size (RocksdbPolicyFor). The way a policy reads
// FilterBuildingContext follows RocksDB's own examples: RibbonFilterPolicy
// (filter_policy.cc) and LevelAndStyleCustomFilterPolicy
// (db/db_bloom_filter_test.cc).
//
// What it assumes about the tree: the populated levels, from the shallowest
// that compactions write (learned: L1 in the static layout, the base level
// in the dynamic one) to the deepest known to hold data (learned from
// is_bottommost and from non-bottommost outputs, which have data below),
// grow by the size ratio T per level, and L0 is one more level above them.
// A table's position is its distance from that deepest level, so the
// static and dynamic layouts (level_compaction_dynamic_level_bytes) are both
// read correctly, whatever num_levels says. The static layout's bottom
// level is often far from T times the one above (bench/README.md: filter
// memory then ends over budget). What is learned only grows, so one policy
// object should serve one column family.
#include <algorithm>
#include <array>
#include <atomic>
#include <climits>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "filter_bits.h"
#include "id_grammar.h"
#include "level_cost_model.h"
#include "policies.h"
#include "policy_base.h"
#include "rocksdb/table.h"
#include "sstfilter/level_allocation.h"
#include "sstfilter/usable_space.h"

namespace sstfilter::rocksdb_plugin {
namespace {

using ROCKSDB_NAMESPACE::FilterBitsBuilder;
using ROCKSDB_NAMESPACE::FilterBuildingContext;
using ROCKSDB_NAMESPACE::FilterPolicy;
using RocksStatus = ROCKSDB_NAMESPACE::Status;

constexpr int64_t kDefaultSizeRatioMillis = 10000;  // RocksDB's default T
// Trees deeper than this are allocated as this many levels: the levels
// above hold a vanishing share and get the top's filter.
constexpr int kMaxTreeLevels = 16;

// Raises (or lowers) `target` to `value` if that is higher (lower).
void StoreMax(std::atomic<int>& target, int value) {
  int seen = target.load(std::memory_order_relaxed);
  while (value > seen && !target.compare_exchange_weak(seen, value)) {
  }
}
void StoreMin(std::atomic<int>& target, int value) {
  int seen = target.load(std::memory_order_relaxed);
  while (value < seen && !target.compare_exchange_weak(seen, value)) {
  }
}

class LevelAwarePolicy : public PolicyBase {
 public:
  LevelAwarePolicy(int64_t millibits, int64_t ratio_millis,
                   LevelAwareChoice choice)
      : millibits_(millibits),
        ratio_millis_(ratio_millis),
        choice_(choice),
        uniform_(AllocationFor(1).levels[0]) {}

  const char* Name() const override { return kLevelAwareName; }
  // The default choice is left out, so that the ids of 0.1 stay canonical.
  std::string GetId() const override {
    std::string id = std::string(Name()) + ":" +
                     FormatDecimalMillis(millibits_) + ":" +
                     FormatDecimalMillis(ratio_millis_);
    if (choice_ != LevelAwareChoice::kDefault) {
      id += std::string(":") + LevelAwareChoiceName(choice_);
    }
    return id;
  }
  FilterBitsBuilder* GetBuilderWithContext(
      const FilterBuildingContext& context) const override {
    const FilterChoice choice = ChoiceFor(context);
    if (choice.kind == LevelFilterKind::kFastLocalBloom ||
        choice.kind == LevelFilterKind::kRibbon) {
      // RocksDB's own builder: its cache charging, its
      // optimize_filters_for_memory, and Ribbon's fallback to Bloom.
      return RocksdbPolicyFor(choice)->GetBuilderWithContext(context);
    }
    BuilderConfig config = BaseConfig(context);
    config.kind = choice.kind == LevelFilterKind::kCuckoo
                      ? FilterKind::kCuckoo
                      : FilterKind::kBlockedBloom;
    config.bits_per_key = choice.bits_per_key;
    config.fingerprint_bits = choice.fingerprint_bits;
    if (context.table_options.optimize_filters_for_memory) {
      config.memory_balance = &memory_balances_[BalanceIndex(context)];
    }
    return NewBitsBuilder(config);
  }

 private:
  double BitsPerKey() const { return static_cast<double>(millibits_) / 1000; }
  double SizeRatio() const { return static_cast<double>(ratio_millis_) / 1000; }

  // The table's level in a leveled tree, or -1 where it has no place in
  // one: universal and FIFO have no levels of T-fold sizes, and a table of
  // no level (SstFileWriter, or level -1 outside a flush) sits nowhere.
  static int TreeLevel(const FilterBuildingContext& context) {
    if (context.compaction_style != ROCKSDB_NAMESPACE::kCompactionStyleLevel) {
      return -1;
    }
    const bool flush =
        context.reason == ROCKSDB_NAMESPACE::TableFileCreationReason::kFlush;
    return flush ? 0 : std::max(context.level_at_creation, -1);
  }

  // optimize_filters_for_memory keeps one FPR balance per level (and one
  // for tables of no level). The levels' filters have different targets
  // and a lookup weighs them differently, so FPR that a bottom-level
  // filter saves must not pay for an L0 filter's: per level, the average
  // FPR stays at or below the level's targets.
  static size_t BalanceIndex(const FilterBuildingContext& context) {
    const int level = TreeLevel(context);
    return level < 0 ? kMaxTreeLevels
                     : static_cast<size_t>(std::min(level, kMaxTreeLevels - 1));
  }

  FilterChoice ChoiceFor(const FilterBuildingContext& context) const {
    // Uniform bits/key for a table of no level.
    const int level = TreeLevel(context);
    if (level < 0) return uniform_;
    if (level > 0) Learn(context, level);
    const int deepest = deepest_.load(std::memory_order_relaxed);
    if (deepest == 0) return uniform_;  // only L0 so far: a one-level tree
    const int shallowest =
        std::min(shallowest_.load(std::memory_order_relaxed), deepest);
    // Levels shallowest..deepest, plus L0 above them.
    const int num_levels =
        std::min(deepest - shallowest + 2, kMaxTreeLevels);
    const int from_bottom =
        level == 0 ? num_levels - 1
                   : std::clamp(deepest - level, 0, num_levels - 2);
    return AllocationFor(num_levels).levels[from_bottom];
  }

  void Learn(const FilterBuildingContext& context, int level) const {
    StoreMin(shallowest_, level);
    // A table that is not bottommost has data below it.
    int deepest = context.is_bottommost ? level : level + 1;
    if (context.num_levels > 0)
      deepest = std::min(deepest, context.num_levels - 1);
    StoreMax(deepest_, deepest);
  }

  // The allocation for a tree of `num_levels` levels, made once.
  const LevelAllocation& AllocationFor(int num_levels) const {
    const int i = num_levels - 1;
    std::call_once(allocation_once_[i], [&] {
      // The arguments were checked when the policy was made.
      const uint32_t n = static_cast<uint32_t>(num_levels);
      AllocateLevels(CostModelFor(choice_, BitsPerKey(), SizeRatio(), n),
                     BitsPerKey(), SizeRatio(), n, &allocations_[i]);
    });
    return allocations_[i];
  }

  const int64_t millibits_;
  const int64_t ratio_millis_;
  const LevelAwareChoice choice_;
  // mutable members above uniform_: its initializer uses them.
  mutable std::array<std::once_flag, kMaxTreeLevels> allocation_once_;
  mutable std::array<LevelAllocation, kMaxTreeLevels> allocations_;
  const FilterChoice uniform_;
  // What builds have shown of the tree, shared by every table's builder.
  mutable std::atomic<int> shallowest_{INT_MAX};
  mutable std::atomic<int> deepest_{0};
  mutable std::array<FprBalance, kMaxTreeLevels + 1> memory_balances_;
};

}  // namespace

RocksStatus NewLevelAware(const std::vector<std::string_view>& fields,
                          std::unique_ptr<const FilterPolicy>* policy) {
  constexpr char kUsage[] =
      "<avg_bits_per_key>[:<size_ratio>][:default|cpu_lean|portable]";
  int64_t ratio_millis = kDefaultSizeRatioMillis;
  LevelAwareChoice choice = LevelAwareChoice::kDefault;
  int64_t millibits;
  RocksStatus s = ParseBloomSizedFields(fields, 3, kUsage, &millibits);
  if (!s.ok()) return s;
  // After the bits: a size ratio, a choice, or a ratio then a choice.
  size_t next = 1;
  if (next < fields.size() && !ParseLevelAwareChoice(fields[next], &choice)) {
    if (!ParseDecimalMillis(fields[next], &ratio_millis)) {
      return RocksStatus::InvalidArgument(
          "size ratio \"" + std::string(fields[next]) +
          "\" is not a decimal like 10 or 8.5, nor a choice (default, "
          "cpu_lean, portable)");
    }
    ++next;
    if (next < fields.size() &&
        !ParseLevelAwareChoice(fields[next], &choice)) {
      return RocksStatus::InvalidArgument(
          "choice \"" + std::string(fields[next]) +
          "\" is not one of default, cpu_lean, portable");
    }
  }
  if (next + 1 < fields.size()) {
    return RocksStatus::InvalidArgument(std::string("expected ") + kUsage);
  }
  // The allocation's own limits decide what is valid.
  LevelAllocation check;
  const Status valid =
      AllocateLevelBits(static_cast<double>(millibits) / 1000,
                        static_cast<double>(ratio_millis) / 1000, 1, &check);
  if (!valid.ok()) return RocksStatus::InvalidArgument(valid.message());
  policy->reset(new LevelAwarePolicy(millibits, ratio_millis, choice));
  return s;
}

}  // namespace sstfilter::rocksdb_plugin
