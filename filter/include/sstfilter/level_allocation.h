// sstfilter/level_allocation.h: filter memory per level of an LSM tree.
//
// An absent-key lookup consults one filter per level, so its expected
// wasted reads are the sum of the levels' FPRs. Monkey (Dayan, Athanassoulis,
// Idreos, "Monkey: Optimal Navigable Key-Value Store", SIGMOD 2017) showed
// that the sum is smallest, for a given total memory, when each level's FPR
// is proportional to its number of entries: about 1.44 * log2(T) more bits
// per key for each level up. Here the same optimum is found numerically on
// our own FPR models (BlockedBloomParams::EstimatedFpr, StaticCuckooFpr)
// rather than on the standard-Bloom formula, and each level also gets the
// kind of filter (BlockedBloom or Cuckoo) that is better at its bits/key.
#pragma once

#include <cstdint>
#include <vector>

#include "sstfilter/format.h"
#include "sstfilter/status.h"

namespace sstfilter {

// The filter one level (or one table) gets.
struct FilterChoice {
  FilterKind kind = FilterKind::kBlockedBloom;
  // Memory per key the filter takes. For Cuckoo this is the cost of its
  // fingerprint at the static build's load, which may be below what it
  // was offered.
  double bits_per_key = 0;
  uint32_t fingerprint_bits = 0;  // Cuckoo only; 0 for BlockedBloom
  double fpr = 1;                 // the model's FPR for a large filter
};

// The filter with the lower model FPR that fits in `bits_per_key` (>= 1):
// BlockedBloom spending all of it, or Cuckoo with the widest fingerprint
// that fits. Cuckoo wins from CuckooCrossoverBitsPerKey() on, except just
// below each of its steps (the next fingerprint bit), where BlockedBloom
// uses the bits that the narrower fingerprint would leave unused.
FilterChoice BestFilterFor(double bits_per_key);

// The fewest bits/key at which BestFilterFor picks Cuckoo (about 11.5 with
// the models of this release; tests hold it to the measured tables).
double CuckooCrossoverBitsPerKey();

// Per-level filters for a tree of `num_levels` levels whose sizes grow by
// `size_ratio` per level (level i from the bottom holds a share
// proportional to size_ratio^-i), minimising the sum of the levels' model
// FPRs at an average of `average_bits_per_key` over all entries.
struct LevelAllocation {
  // Per level, index 0 = the bottom (largest) level.
  std::vector<FilterChoice> levels;
  // Every level's bits/key is in [kMinBitsPerKey, MaxBitsPerKey(average)].
  static constexpr double kMinBitsPerKey = 1.0;
  // A level never gets more than 4x the average, nor more than 64 (or the
  // average, if that is more), so a tree shaped unlike the model cannot
  // take more than 4x the memory.
  static double MaxBitsPerKey(double average_bits_per_key);
};

// Limits of the arguments (InvalidArgument outside them).
struct LevelAllocationLimits {
  static constexpr double kMinAverageBitsPerKey = 1.0;
  static constexpr double kMaxAverageBitsPerKey = 100.0;
  static constexpr double kMinSizeRatio = 2.0;
  static constexpr double kMaxSizeRatio = 100.0;
  static constexpr uint32_t kMaxLevels = 64;
};

// The sum of entries_i * bits_per_key_i over the levels equals
// average_bits_per_key * total entries (to rounding) whenever the bottom
// level's share is a BlockedBloom filter; if the bottom gets Cuckoo, the
// total is at most that, short by less than one fingerprint bit's cost
// per bottom key.
Status AllocateLevelBits(double average_bits_per_key, double size_ratio,
                         uint32_t num_levels, LevelAllocation* out);

// The share of all entries that level `level` (0 = bottom) holds in that
// tree shape.
double LevelShare(double size_ratio, uint32_t num_levels, uint32_t level);

}  // namespace sstfilter
