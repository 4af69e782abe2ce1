// What LevelAware allocates, from what: its settings (the id's fields),
// the tree of a column family as the listener shows it (level_aware_state.h)
// or, without the listener, as the model assumes it, the absent-key probes
// learned or modelled, and the memory: the average asked, corrected for
// what the live filters take, and a memory limit over every column family
// the policy serves. The allocation itself is sstfilter/level_allocation.h;
// the choices' kinds and curves level_cost_model.h.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "level_aware_state.h"
#include "level_cost_model.h"
#include "sstfilter/level_allocation.h"

namespace sstfilter::rocksdb_plugin {

// LevelAware's parameters, as the id states them.
struct LevelAwareSettings {
  int64_t millibits = 10000;
  int64_t ratio_millis = 10000;  // RocksDB's default T
  LevelAwareChoice choice = LevelAwareChoice::kDefault;
  int64_t hit_millis = 0;  // the expected fraction of lookups that hit, /1000
  bool learn = true;
  // The most bytes the live filters of every column family served may take
  // (memory_limit); 0: no limit.
  uint64_t memory_limit_bytes = 0;
  double BitsPerKey() const { return static_cast<double>(millibits) / 1000; }
  double SizeRatio() const { return static_cast<double>(ratio_millis) / 1000; }
  double HitFraction() const { return static_cast<double>(hit_millis) / 1000; }
};

// The choice where a memory limit leaves a level no filter: no bits, every
// key "may match". (RocksDB builds no filter where the policy gives no
// builder, and reads such a table as "may match".)
inline bool IsNoFilter(const FilterChoice& choice) {
  return !(choice.bits_per_key > 0);
}

class LevelAwareAllocator {
 public:
  explicit LevelAwareAllocator(const LevelAwareSettings& settings);
  ~LevelAwareAllocator();

  // The filter of a one-level tree: tables of no level.
  const FilterChoice& Uniform() const;
  // The choice's model of `kind` for a table (its curve), or null.
  const KindModel* KindOf(FilterKind kind) const;

  // Without the listener: the model over levels T apart, from L1 to the
  // bottom of the context (the table's own level if it is bottommost, else
  // num_levels - 1, where the dynamic layout keeps it), and L0.
  FilterChoice ModelChoice(int level, int num_levels, bool bottommost) const;

  // With the listener: the filter of a table of `level` built by `job`
  // (its column family and tree; where the tree leaves out what the job
  // replaces, the live filters correct the memory). Under a memory limit,
  // allocated jointly over every column family this allocator has built
  // for (they share the limit), and possibly no filter (IsNoFilter).
  FilterChoice ChoiceFor(const JobView& job, int level) const;

 private:
  struct Tree;
  struct Served;
  const LevelCostModel& OneLevelModel() const;
  void Allocate(const Tree& tree, double budget, LevelAllocation* out) const;
  FilterChoice OneColumnFamily(const JobView& job, int level) const;
  FilterChoice Limited(const JobView& job, int level) const;
  double Budget(const JobView& job, const std::vector<int>& levels) const;

  const LevelAwareSettings settings_;
  // What a column family keeps this allocator's allocation under
  // (ColumnFamilyState::AllocationFor): one entry per id's settings.
  const std::string allocation_key_;
  mutable std::once_flag one_level_once_;
  mutable LevelCostModel one_level_;
  mutable FilterChoice uniform_;
  // The model's allocations without the listener, by number of levels.
  mutable std::mutex model_mutex_;
  mutable std::vector<LevelAllocation> model_allocations_ =
      std::vector<LevelAllocation>(kMaxLevels + 1);
  // Under a memory limit: the column families served, and their joint
  // allocation.
  mutable std::mutex limit_mutex_;
  mutable std::vector<Served> served_;
  mutable double budget_ = 0;  // the average of the last joint allocation
};

}  // namespace sstfilter::rocksdb_plugin
