// What LevelAware allocates, from what: its settings (the id's fields), a
// column family's tree as the listener shows it (level_aware_tree.h) or,
// without the listener, as the model assumes it, the absent-key probes
// learned or modelled, and the budget: one rule from these to a new file's
// filter (Average, Limited), with no state carried from job to job. The
// allocation itself is sstfilter/level_allocation.h; the kinds and their
// curves level_cost_model.h.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "block_cache_share.h"
#include "job_handoff.h"
#include "level_aware_tree.h"
#include "level_cost_model.h"
#include "memory_ledger.h"
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
  // size_for_cache: the average is chosen for the block cache the filters
  // share with data and index blocks, from kCacheFewestBitsPerKey
  // (block_cache_share.h) to kCacheMostShare x the one asked.
  bool size_for_cache = false;
  // size_for_cache chooses the average in [2, kCacheMostShare x the one
  // asked]: where the cache holds every block the Gets read, more bits
  // only cut wasted reads (ribbonfilter:20 of the block-cache sweep is 13.6
  // bits/key); the ceiling keeps a roomy cache from filters whose wasted
  // reads are already noise.
  static constexpr double kCacheMostShare = 2;
  double BitsPerKey() const { return static_cast<double>(millibits) / 1000; }
  double SizeRatio() const { return static_cast<double>(ratio_millis) / 1000; }
  double HitFraction() const { return static_cast<double>(hit_millis) / 1000; }
  // The most average bits/key the rule may allocate at.
  double MostBitsPerKey() const {
    return size_for_cache ? kCacheMostShare * BitsPerKey() : BitsPerKey();
  }
};

// The choice where a memory limit leaves a level no filter: no bits, every
// key "may match" (level_aware_builder.h writes a block saying so).
inline bool IsNoFilter(const FilterChoice& choice) {
  return !(choice.bits_per_key > 0);
}

class LevelAwareAllocator {
 public:
  explicit LevelAwareAllocator(const LevelAwareSettings& settings);
  ~LevelAwareAllocator();

  // The filter of a one-level tree: tables of no level.
  const FilterChoice& Uniform() const;
  // The choice's model of `kind` (its curve), or null.
  const KindModel* KindOf(FilterKind kind) const;
  // The most bits/key a table gets.
  double MaxBitsPerKey() const;

  // Without the listener: the model over levels T apart, from L1 to the
  // bottom of the context (the table's own level if it is bottommost, else
  // num_levels - 1, where the dynamic layout keeps it), and L0.
  FilterChoice ModelChoice(int level, int num_levels, bool bottommost) const;

  // With the listener: the filter of a new file at `level` of the job's
  // column family, by the rule over its tree as it stands (with the
  // compactions running). Under a memory
  // limit, allocated jointly over every column family of the DBs this
  // allocator builds for that no other policy builds for (they share the
  // limit), and possibly no filter (IsNoFilter).
  // With size_for_cache and `cache` holding the filters, the average is
  // the one at which a Get reads least from disk (CacheAverage).
  FilterChoice ChoiceFor(const JobView& job, int level,
                         const CacheView& cache = {},
                         ROCKSDB_NAMESPACE::Logger* log = nullptr) const;

  // What the rule gives a new file at each RocksDB level of `snapshot`
  // now (index: the level), with the model's absent probes (what is
  // learned lives in an open DB's listener): what sstfilter-inspect --db
  // prints beside what the files hold.
  std::vector<FilterChoice> RuleByLevel(const TreeSnapshot& snapshot) const;

  // Under a memory limit: `choice` for a new table of `job` (about
  // `table_keys` keys if a flush) as what the limit leaves allows
  // (MemoryLedger::FreeBitsPerKey) and, at a `level` of a leveled tree
  // (else -1), what the rule plans for the level less what the level
  // holds: itself, fewer bits of its kind, or no filter below
  // kFewestUsefulBitsPerKey.
  FilterChoice FitToLimit(const JobView& job, const FilterChoice& choice,
                          int64_t table_keys, int level) const;

  // Under a memory limit, its ledger (memory_ledger.h), which the
  // learning builder fits each filter block to; else null.
  const std::shared_ptr<MemoryLedger>& ledger() const { return ledger_; }

  // `choice` moved by `delta_bits` bits/key within its kind: exactly for
  // kinds of any size (BlockedBloom, and RocksDB's by their policy's
  // bits), to the nearest size for Cuckoo; within [1, MaxBitsPerKey()].
  FilterChoice Shifted(const FilterChoice& choice, double delta_bits) const;

 private:
  struct Tree;
  struct Served;
  const LevelCostModel& OneLevelModel() const;
  void Allocate(const std::vector<LevelLoad>& loads, double average,
                LevelAllocation* out) const;
  FilterChoice Average(const std::shared_ptr<ColumnFamilyTree>& cf,
                       const TreeSnapshot& snapshot, int level,
                       const CacheView& cache,
                       ROCKSDB_NAMESPACE::Logger* log) const;
  // The rule for an average: the filter of a new file at `level`, with the
  // allocation kept in `cache` (its mutex held by the caller).
  FilterChoice Rule(const TreeSnapshot& snapshot, bool no_bottom_filters,
                    const LevelWorkload* workload, int level,
                    PolicyState* cache, double average) const;
  // size_for_cache: the average (2 to twice the one asked) at which the
  // cache model (sstfilter/cache_model.h) has `cf`'s Gets read least from
  // disk, over its tree, its learned (or modelled) absent probes and hits,
  // and its share of the cache; kept in `state` (its mutex held) while the
  // inputs, rounded, stay the same. Told to the LOG when it moves.
  double CacheAverage(const std::shared_ptr<ColumnFamilyTree>& cf,
                      const TreeSnapshot& snapshot, const CacheView& cache,
                      ROCKSDB_NAMESPACE::Logger* log, PolicyState* state) const;
  // The rule under a limit; `corrected`: moved by the account's
  // correction (a new file's choice), else the allocation's alone (a
  // level's plan, PlanLeft: the correction moves a file within its
  // level's plan, not past it).
  FilterChoice Limited(const JobView& job, const TreeSnapshot& snapshot,
                       int level, bool corrected = true) const;
  double PlanLeft(const JobView& job, const TreeSnapshot& snapshot,
                  int level) const;
  std::vector<LevelLoad> LoadsOf(const Tree& tree) const;
  void AllocateJointly(std::vector<Tree>& trees,
                       const std::vector<Served*>& served_records,
                       double average) const;
  // The allocation of `tree` at `average`, kept in `state` (under its
  // mutex) while the rounded inputs stay the same.
  const LevelAllocation& AllocationOf(const Tree& tree, double average,
                                      PolicyState* state) const;

  const LevelAwareSettings settings_;
  // What a column family keeps this policy's state under
  // (ColumnFamilyTree::PolicyStateFor): one entry per id's settings.
  const std::string settings_key_;
  mutable std::once_flag one_level_once_;
  mutable LevelCostModel one_level_;
  mutable FilterChoice uniform_;
  // The model's allocations without the listener, by number of levels.
  mutable std::mutex model_mutex_;
  mutable std::vector<LevelAllocation> model_allocations_ =
      std::vector<LevelAllocation>(kMaxLevels + 1);
  // Under a memory limit: its ledger, and the column families served
  // with their joint allocation, by owner.
  const std::shared_ptr<MemoryLedger> ledger_;
  mutable std::mutex limit_mutex_;
  mutable std::map<std::weak_ptr<ColumnFamilyTree>, Served,
                   std::owner_less<std::weak_ptr<ColumnFamilyTree>>>
      served_;
  mutable MemoryAccount limit_account_;
  mutable double joint_average_ = -1;  // of the last joint allocation
};

}  // namespace sstfilter::rocksdb_plugin
