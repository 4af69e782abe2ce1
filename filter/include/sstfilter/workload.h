// sstfilter/workload.h: what LevelAware learns of one column family's
// lookups, from the probes its filters answer.
//
// The allocation (sstfilter/level_allocation.h) needs, per level, the
// absent-key probes that reach its filters. The readers sample one probe in
// kSampleEvery per thread and add, for the level the table was built for,
// the probe's absent-key weight: 1 / (1 - FPR) if the filter said "no" (an
// absent key; a filter passes a fraction FPR of them), 0 if it said "may
// match" (a hit, or one of those FPR). Dividing by the entries of that
// level's sampled tables gives absent probes per entry, which does not
// depend on how many of the level's tables are sampled (tables built before
// the process started are not). Hits enter by themselves: a key found at
// the bottom is a "may match" there, not an absent probe.
//
// Decay: every kRefreshSamples samples (about kSampleEvery * kRefreshSamples
// probes) the next table build folds them into the learned densities,
// which keep half their old weight; a changed workload carries 1/8 of the
// old after three refreshes. The state is memory only: a restart, or
// Forget(), costs nothing but memory efficiency until it is learned again,
// and until every level with entries has sampled tables the policy uses
// its model.
//
// Thread-safe: readers record lock-free (relaxed atomics, written on one
// probe in kSampleEvery); refreshing and reading the densities take a mutex
// (once per table build at most).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>

namespace sstfilter {

class LevelWorkload {
 public:
  // RocksDB's levels 0..kMaxLevels-1 (the deepest level RocksDB allows is
  // num_levels - 1, 6 by default; deeper ones share the last slot).
  static constexpr int kMaxLevels = 16;
  // Probes per sample, per thread: a sample costs two relaxed atomic adds,
  // so the readers' cost per probe stays a thread-local decrement. 256
  // probes per sample still gives a level thousands of samples per million
  // lookups.
  static constexpr uint32_t kSampleEvery = 256;
  // Samples per refresh: enough that a level holding 1% of the probes gets
  // about five per refresh.
  static constexpr uint64_t kRefreshSamples = 512;
  // A sample's absent weight is kept in 1/kWeightUnit.
  static constexpr uint32_t kWeightUnit = 1024;

  // The absent weight of a "no" from a filter of model FPR `fpr`, in
  // 1/kWeightUnit.
  static uint32_t AbsentWeight(double fpr);

  // One sampled probe at `level`: `absent_weight` if the filter said "no",
  // 0 if "may match".
  void RecordSample(int level, uint32_t absent_weight) {
    slots_[Clamp(level)].absent_weight.fetch_add(absent_weight,
                                                 std::memory_order_relaxed);
    pending_.fetch_add(1, std::memory_order_relaxed);
  }

  // Entries of sampled tables at `level` that have a reader now (a reader
  // adds its table's entries when made and takes them back when freed).
  void AddSampledEntries(int level, int64_t delta) {
    slots_[Clamp(level)].sampled_entries.fetch_add(delta,
                                                   std::memory_order_relaxed);
  }

  // Folds the samples since the last refresh into the densities if there
  // are kRefreshSamples of them; true if it did.
  bool MaybeRefresh();

  // The learned absent probes per entry of each level (any unit, the same
  // for every level), for the levels of `levels_with_entries`; false, and
  // nothing written, until each of them has had sampled tables and the
  // learned state has had a refresh.
  bool Densities(const std::array<bool, kMaxLevels>& levels_with_entries,
                 std::array<double, kMaxLevels>* densities) const;

  // Changes whenever the densities do.
  uint64_t version() const { return version_.load(std::memory_order_acquire); }

  // Drops everything learned (not the readers' sampled entries, which are
  // what is alive now).
  void Forget();

 private:
  struct Slot {
    std::atomic<uint64_t> absent_weight{0};
    std::atomic<int64_t> sampled_entries{0};
  };
  static int Clamp(int level) {
    return level < 0 ? 0 : level >= kMaxLevels ? kMaxLevels - 1 : level;
  }

  std::array<Slot, kMaxLevels> slots_;
  std::atomic<uint64_t> pending_{0};
  std::atomic<uint64_t> version_{0};
  mutable std::mutex mutex_;  // guards what follows
  std::array<double, kMaxLevels> density_{};
  std::array<bool, kMaxLevels> learned_{};
  uint32_t refreshes_ = 0;
};

}  // namespace sstfilter
