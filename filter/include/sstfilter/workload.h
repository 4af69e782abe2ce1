// sstfilter/workload.h: what LevelAware learns of one column family's
// lookups, from the probes its filters answer.
//
// The allocation (sstfilter/level_allocation.h) needs the absent-key probes
// that reach each filter. The readers sample one probe in kSampleEvery per
// thread and add, at the level the table was built for and the key's
// bucket of the key space, the probe's absent weight: 1 / (1 - FPR) if the
// filter said "no" (an absent key; a filter passes a fraction FPR of them),
// 0 if it said "may match" (a hit, or one of those FPR). Dividing by the
// keys added to the sampled tables there gives absent probes per key,
// which does not depend on how many of the level's tables are sampled
// (tables built before the process started are not). Hits enter by
// themselves: a key found at the bottom is a "may match" there, not an
// absent probe.
//
// Key buckets: kBuckets equal slices of the column family's key space,
// between the smallest and largest keys its tables were built with, by the
// 8 bytes after their common prefix read as a big-endian number (keys are
// taken in bytewise order). Per level, LevelAware gives a table whose key
// range draws more absent probes per key than its level's average more
// bits, and one that draws fewer, fewer, so that the level's memory stays
// the same: the table's bits/key move by log(its density / the level's)
// over the log of the FPR's fall per bit. For curves of constant FPR ratio
// per bit, that is Monkey's optimum over tables instead of levels (bits/key
// affine in the log of a table's access rate).
//
// Noise cannot move a table's bits: a bucket's own density counts only
// while its absent samples differ from what its level's rate predicts for
// its sampled keys by more than their sampling error (more than kDeviantZ
// standard deviations of a Poisson count, with at least
// kMinExpectedSamples expected), and, once it counts, until they differ
// by less than kSettledZ (hysteresis); and then at its count moved
// kSettledZ deviations toward the level's, so that a bucket past the test
// by chance moves its tables by a fraction of a bit. Every other bucket
// takes its level's density. On a workload that is uniform over the key
// space, every table of a level so gets the level's bits.
//
// Decay: every kRefreshSamples samples (about kSampleEvery * kRefreshSamples
// probes) the next table build folds them into the learned densities,
// which keep half their old weight; a changed workload carries 1/8 of the
// old after three refreshes. The state is memory only: a restart, or
// Forget(), costs nothing but memory efficiency until it is learned again,
// and until every level with keys has sampled tables the policy uses
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
#include <string>
#include <string_view>

#include "sstfilter/level_allocation.h"

namespace sstfilter {

// Per level of RocksDB's levels 0..kMaxLevels-1 (level_allocation.h; a
// deeper one shares the last).
class LevelWorkload {
 public:
  // Slices of the key space. With 1 MiB tables of a few GiB, a bucket
  // spans dozens of a bottom level's tables.
  static constexpr int kBuckets = 32;
  // Probes per sample, per thread: a sample costs two relaxed atomic adds,
  // so the readers' cost per probe stays a thread-local decrement. 256
  // probes per sample still gives a level thousands of samples per million
  // lookups.
  static constexpr uint32_t kSampleEvery = 256;
  // Samples per refresh: enough that a level holding 1% of the probes gets
  // about five per refresh.
  static constexpr uint64_t kRefreshSamples = 512;
  // A level's density is learned from at least this many sampled probes,
  // held over up to kMaxHeldPeriods refreshes (then from what there is: a
  // level the lookups stopped reaching is followed within that many).
  static constexpr double kCredibleSamples = 16;
  // A bucket's own density counts from this many standard deviations of
  // its absent samples away from what its level's rate predicts, and
  // until it is back within kSettledZ, with at least kMinExpectedSamples
  // expected (decayed). A Poisson count of 16 passes 5 deviations by
  // chance about once in 10^5 tests; decayed counts (sums of halves)
  // vary less than a Poisson count of their mean, rarer still.
  static constexpr double kDeviantZ = 5;
  static constexpr double kSettledZ = 3;
  static constexpr double kMinExpectedSamples = 16;
  static constexpr uint32_t kMaxHeldPeriods = 4;
  // A sample's absent weight is kept in 1/kWeightUnit.
  static constexpr uint32_t kWeightUnit = 1024;

  using PerLevel = std::array<double, kMaxLevels>;
  using PerBucket = std::array<double, kBuckets>;

  // The absent weight of a "no" from a filter of model FPR `fpr`, in
  // 1/kWeightUnit.
  static uint32_t AbsentWeight(double fpr);

  // One sampled probe of `key` at `level`: `absent_weight` if the filter
  // said "no", 0 if "may match".
  void RecordSample(int level, std::string_view key, uint32_t absent_weight) {
    Cell& cell = cells_[Clamp(level)][BucketOf(key)];
    if (absent_weight > 0) {
      cell.absent_weight.fetch_add(absent_weight, std::memory_order_relaxed);
      cell.absent_samples.fetch_add(1, std::memory_order_relaxed);
    }
    cell.samples.fetch_add(1, std::memory_order_relaxed);
    pending_.fetch_add(1, std::memory_order_relaxed);
  }

  // Keys added to a sampled table at `level` whose keys run from bucket
  // `first_bucket` to `last_bucket` (BucketOf its smallest and largest
  // keys): added while its file lives, taken back when it goes.
  void AddSampledKeys(int level, int first_bucket, int last_bucket,
                      int64_t delta);

  // Widens the key space to hold [smallest, largest] (a table's keys). A
  // key space that grows by more than a bucket on either side drops the
  // per-bucket densities learned over the old one.
  void ObserveKeyRange(std::string_view smallest, std::string_view largest);
  // The bucket of `key` in the key space (0 before any key range).
  int BucketOf(std::string_view key) const;

  // Folds the samples since the last refresh into the densities if there
  // are kRefreshSamples of them; true if it did. A level with fewer than
  // kCredibleSamples sampled probes (a table or two that came and went)
  // keeps them for a later refresh instead (kMaxHeldPeriods).
  // `level_keys`: the keys each level holds now, of which its sampled
  // files hold some (files built before the process started are not
  // sampled): a level's absent probes are its sampled files' scaled by
  // that; null: every file is sampled.
  bool MaybeRefresh(const PerLevel* level_keys = nullptr);

  // The learned absent probes per key of each level (any unit, the same
  // for every level), for the levels of `levels_with_keys`; false, and
  // nothing written, until each of them has had sampled tables and the
  // learned state has had a refresh.
  bool Densities(const std::array<bool, kMaxLevels>& levels_with_keys,
                 PerLevel* densities) const;

  // The learned absent probes reaching each level as a whole per refresh
  // period (any unit, the same for every level), for the levels of
  // `levels_with_keys`; false, and nothing written, as for Densities. A
  // level whose files tile the key space is probed by every absent Get,
  // however many keys it holds: unlike its density per key, this does not
  // move when compactions move keys between levels.
  bool LevelProbes(const std::array<bool, kMaxLevels>& levels_with_keys,
                   PerLevel* probes) const;

  // The learned probes of each level's files that found their key, in
  // LevelProbes's unit (a Get that finds its key is one such probe where
  // the key is); false, and nothing written, as for LevelProbes.
  bool LevelHits(const std::array<bool, kMaxLevels>& levels_with_keys,
                 PerLevel* hits) const;

  // How the learned probes spread over the key space's buckets, over all
  // levels: the shares of the probes that found their key and of the
  // absent ones (each summing to 1); false, and nothing learned, before a
  // refresh has seen any.
  bool BucketShares(PerBucket* hits, PerBucket* absent) const;

  // The levels whose density has been learned (false everywhere before the
  // first refresh).
  std::array<bool, kMaxLevels> LearnedLevels() const;

  // How many times its level's a table at `level` over buckets
  // first..last draws in absent probes per key: its density (the mean of
  // its buckets': probes add up) over the level's, taken as the
  // key-weighted geometric mean of the densities of every run of as many
  // buckets as the table spans, so that tables that tile the level keep
  // its memory (sum of keys x log factor = 0). Exactly 1 where no bucket
  // of the level counts on its own (the significance test above), and on
  // a uniform workload. Densities are floored at 1/64 of the level's, so
  // an unprobed range still gets a filter.
  double TableDensityFactor(int level, int first_bucket, int last_bucket) const;

  // Whether any sampled file's keys are counted now (a column family whose
  // files no learning builder made has none).
  bool HasSampledKeys() const;

  // How many of the level's buckets count on their own now (tests, tools).
  int DeviantBuckets(int level) const;

  // Changes whenever the densities do.
  uint64_t version() const { return version_.load(std::memory_order_acquire); }

  // Drops everything learned (not the sampled keys, which are
  // what is alive now).
  void Forget();

 private:
  struct Cell {
    std::atomic<uint64_t> absent_weight{0};
    std::atomic<uint32_t> absent_samples{0};
    std::atomic<uint32_t> samples{0};  // every sampled probe, "no" or not
    std::atomic<int64_t> sampled_keys{0};
  };
  static int Clamp(int level) {
    return level < 0 ? 0 : level >= kMaxLevels ? kMaxLevels - 1 : level;
  }
  // The key space: 8 bytes at `offset` of a key, big-endian, between low
  // and high. Read lock-free by the readers.
  struct KeySpace {
    std::atomic<uint32_t> offset{0};
    std::atomic<uint64_t> low{0};
    std::atomic<uint64_t> high{0};  // 0: no key range yet
  };
  static uint64_t Prefix8(std::string_view key, size_t offset);
  void ForgetBuckets();           // needs mutex_
  void UpdateDeviant(int level);  // needs mutex_
  bool LearnedLocked(const std::array<bool, kMaxLevels>& levels_with_keys,
                     const PerLevel& learned, PerLevel* out) const;

  std::array<std::array<Cell, kBuckets>, kMaxLevels> cells_;
  KeySpace key_space_;
  std::atomic<uint64_t> pending_{0};
  std::atomic<uint64_t> version_{0};
  mutable std::mutex mutex_;  // guards what follows
  std::string smallest_, largest_;
  // Per bucket, decayed by half at each refresh: absent weight, absent
  // samples and exposure (sampled keys x refresh periods); whether its own
  // density counts (the significance test, with hysteresis).
  std::array<PerBucket, kMaxLevels> bucket_weight_{};
  std::array<PerBucket, kMaxLevels> bucket_samples_{};
  std::array<PerBucket, kMaxLevels> bucket_exposure_{};
  std::array<PerBucket, kMaxLevels> bucket_hits_{};  // decayed alike
  std::array<std::array<bool, kBuckets>, kMaxLevels> bucket_learned_{};
  std::array<std::array<bool, kBuckets>, kMaxLevels> bucket_deviant_{};
  PerLevel density_{};
  PerLevel level_probes_{};
  PerLevel level_hits_{};
  std::array<bool, kMaxLevels> learned_{};
  // Refresh periods whose samples each level still holds, and the keys its
  // buckets had sampled in each, summed.
  std::array<uint32_t, kMaxLevels> held_periods_{};
  std::array<PerBucket, kMaxLevels> held_keys_{};
  uint32_t refreshes_ = 0;
};

}  // namespace sstfilter
