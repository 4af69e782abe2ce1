// sstfilter/level_allocation.h: filter memory and kind per level of an LSM
// tree, from one cost model.
//
// Monkey (Dayan, Athanassoulis, Idreos, "Monkey: Optimal Navigable
// Key-Value Store", SIGMOD 2017): a lookup's wasted reads are the sum, over
// the filters it consults, of their FPRs, and for a given total memory the
// sum is smallest when each level's FPR is proportional to its entries over
// the absent-key probes that reach it. Here that optimum is found
// numerically over the measured bits/key -> FPR curves of several kinds of
// filter, and each level also gets its kind.
//
// The cost model. Per level i (share s_i of the filters' entries; a_i, the
// absent-key probes that reach its filters per lookup; build weight w_i,
// the times a key written to the tree is built into a filter of level i):
//
//   minimise  sum_i a_i * fpr_k(i)(b_i)               wasted reads per lookup
//   subject   sum_i s_i * b_i        <= average bits   filter memory
//             sum_i w_i * build_k(i)(b_i) <= max_build_ns  filter build CPU
//
// a_i is where the workload enters. Monkey's model, every lookup absent and
// consulting every level, is a_i = 1. A lookup that finds its key at level
// j consults the levels above j and stops, so with a fraction h of lookups
// finding their key (uniformly over the entries) a_i = (1 - h) + h * (share
// of entries below level i): the bottom level's filter serves only the
// absent lookups (Monkey's paper separates zero-result and non-zero-result
// lookups the same way). Measured a_i (sstfilter/workload.h) replace the
// model when the readers have seen enough probes.
//
// Memory is held for a filter's whole life, so it weighs by the share of
// entries a level holds; build CPU is paid each time a level is rewritten,
// so it weighs by how often, whatever the level's size. That is RocksDB's
// own reasoning for Ribbon (a filter that lives long enough repays its build
// CPU in memory; filter_policy.h, and the Ribbon blog post of 2021): the
// bottom levels hold most of the memory and are rewritten least often per
// key held, the levels above are small and rewritten all the time. The
// weights: a flush builds every key into L0 once (w = 1); a leveled
// compaction into level i rewrites, per key it brings, about half of the T
// overlapping keys already there, so w = (T + 1) / 2 for every level below
// L0. Both constraints are met through two Lagrange multipliers: per level,
// the (kind, bits) minimising a_i * fpr + lambda * s_i * b
// + mu * w_i * build(b).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "sstfilter/format.h"
#include "sstfilter/status.h"

namespace sstfilter {

// The levels of one LSM tree that LevelAware tells apart: RocksDB's levels
// 0..kMaxLevels-1 (num_levels is 7 by default; a deeper level counts as
// the last). LevelWorkload and the RocksDB plugin keep per-level state for
// that many.
inline constexpr int kMaxLevels = 16;

// The filter one level (or one table) gets. Its kind (format.h) is one of
// this library's two, or RocksDB's FastLocalBloom or Standard128Ribbon,
// which filter/ knows only through the curves and costs its caller
// measures (rocksdb_plugin/ does, with RocksDB's own builders).
struct FilterChoice {
  FilterKind kind = FilterKind::kBlockedBloom;
  // Memory per key the filter takes. For Cuckoo this is the cost of its
  // fingerprint at the static build's load, which may be below what it
  // was offered; for RocksDB's kinds, what its builder allocates.
  double bits_per_key = 0;
  uint32_t fingerprint_bits = 0;  // Cuckoo only; 0 otherwise
  double fpr = 1;                 // the model's FPR for a large filter
  // RocksDB's kinds: the bits/key, in thousandths, that RocksDB's policy
  // is made with (for Ribbon, its Bloom-equivalent bits/key). 0 otherwise.
  int64_t rocksdb_millibits = 0;
};

// The build CPU of a kind, per key, as an affine function of bits/key
// (measured by bench/level_cost_constants, whose run the caller cites).
struct BuildCost {
  double ns_per_key = 0;      // at 0 bits/key
  double ns_per_key_bit = 0;  // more per bit/key
  double Ns(double bits_per_key) const {
    return ns_per_key + ns_per_key_bit * bits_per_key;
  }
};

// One kind: what its filters cost in memory and FPR, and in build CPU.
struct KindModel {
  FilterKind kind = FilterKind::kBlockedBloom;
  // The sizes it can be built at, any order. Only the lower convex hull
  // of (bits/key, FPR) can minimise the Lagrangian; the rest serve the
  // final step that spends what the hull's steps leave over.
  std::vector<FilterChoice> points;
  BuildCost build;
  // Optional: the best filter of this kind within exactly `bits_per_key`,
  // for kinds that can be sized to any bits/key (BlockedBloom). The final
  // step uses it so that the budget is spent to rounding, not to the grid.
  std::function<FilterChoice(double bits_per_key)> within;
};

// The points of this library's kinds: BlockedBloom on a 1/64 bits/key grid
// (1..100) and Cuckoo at every fingerprint width, from their FPR models;
// none for another kind. Computed once per process.
const std::vector<FilterChoice>& OwnKindPoints(FilterKind kind);

// The model of one of this library's kinds (BlockedBloom or Cuckoo): its
// points, `within` for BlockedBloom, and the build cost the caller measured.
KindModel OwnKindModel(FilterKind kind, BuildCost build);

// What a tree's allocation chooses from.
struct LevelCostModel {
  std::vector<KindModel> kinds;
  // Build CPU cap: sum over levels of w_i * build(b_i), ns per key written
  // to the tree. Infinity: none. If no allocation meets it, the one with
  // the least build CPU found is returned.
  double max_build_ns = std::numeric_limits<double>::infinity();
  // The most bits/key any level gets; 0: LevelAllocation::MaxBitsPerKey
  // of the average.
  double max_bits_per_key = 0;
};

// One level of a tree as the allocation sees it.
struct LevelLoad {
  double entry_share = 0;    // s_i: share of all filter entries it holds
  double absent_probes = 1;  // a_i: absent-key probes reaching it, relative
  double build_weight = 1;   // w_i: LevelBuildWeight
};

// Per-level filters for a tree, minimising the sum of the levels' absent
// probes times their model FPRs at an average of `average_bits_per_key`
// over all entries.
struct LevelAllocation {
  // Per level, index 0 = the bottom (largest) level.
  std::vector<FilterChoice> levels;
  // The model's build CPU of this allocation (sum of w_i * build_i), ns per
  // key written to the tree.
  double build_ns = 0;
  // Every level's bits/key is in [kMinBitsPerKey, MaxBitsPerKey(average)].
  static constexpr double kMinBitsPerKey = 1.0;
  // A level never gets more than kMaxOverAverage times the average, nor
  // more than 64 (or the average, if that is more). In an LSM tree a file
  // built for an upper level that RocksDB later moves down whole (a trivial
  // move) keeps its filter, so every bit an upper level gets beyond need
  // may end up held by a lower one: measured (bench/README.md, "Trivial
  // moves"), such files held 1-3% of the keys at up to 4x the average, 1-4%
  // over budget. The levels that get the most bits are small, so the cap
  // costs the model little (at 10 bits/key on four levels, under 1% more
  // FPR).
  static constexpr double kMaxOverAverage = 2.5;
  static double MaxBitsPerKey(double average_bits_per_key);
};

// Limits of the arguments (InvalidArgument outside them).
struct LevelAllocationLimits {
  static constexpr double kMinAverageBitsPerKey = 1.0;
  static constexpr double kMaxAverageBitsPerKey = 100.0;
  static constexpr double kMinSizeRatio = 2.0;
  static constexpr double kMaxSizeRatio = 100.0;
  // The levels of one tree (AllocateLevels). AllocateTree takes any
  // number: LevelAware allocates every level of the column families under
  // one memory limit jointly. Past this many its final exchange of memory
  // between pairs of levels (quadratic in them) is left out: with a
  // hundred levels side by side, each level's step from the optimum is
  // small against the whole.
  static constexpr uint32_t kMaxLevelsExchanged = kMaxLevels;
};

// The allocation over `model`'s kinds. Memory: the sum of entries_i *
// bits_per_key_i over the levels is at most average_bits_per_key * total
// entries, and equals it (to rounding) when the bottom level's kind has
// points on a fine grid (BlockedBloom, and RocksDB's kinds as the plugin
// samples them); with Cuckoo at the bottom it may fall short by less than
// one fingerprint bit's cost per bottom key. A model with no kind is
// InvalidArgument.
Status AllocateLevels(const LevelCostModel& model, double average_bits_per_key,
                      double size_ratio, uint32_t num_levels,
                      LevelAllocation* out);

// The same over any tree: `levels_from_bottom[0]` is the bottom (largest)
// level, the last is L0; entry shares are normalised to sum to 1, and
// absent probes may be in any unit (only their ratios matter). A level no
// absent probe reaches gets the smallest filter. At least one level with a
// positive share and one with positive absent probes; O(levels) but for
// the exchange between pairs (kMaxLevelsExchanged).
Status AllocateTree(const LevelCostModel& model, double average_bits_per_key,
                    const std::vector<LevelLoad>& levels_from_bottom,
                    LevelAllocation* out);

// The loads of a tree of `num_levels` levels growing by `size_ratio`
// (LevelShare, LevelBuildWeight), each reached by
// ModelAbsentProbes(shares, hit_fraction).
std::vector<LevelLoad> TShapedLoads(double size_ratio, uint32_t num_levels,
                                    double hit_fraction);

// One table's filter within its level (sstfilter/workload.h): of the
// level's kind, its bits/key moved from the level's by log(density_factor)
// over the kind's log FPR fall per bit near the level's bits, so that a
// table drawing more absent probes per entry gets more bits (Monkey over
// tables; at the level's own density, the level's filter). The kind's point
// nearest that many bits (BlockedBloom: exactly), within [1,
// max_bits_per_key]; `level` itself if the move is under a quarter bit.
FilterChoice TableChoice(const KindModel& kind, const FilterChoice& level,
                         double density_factor, double max_bits_per_key);

// The model's absent-key probes per lookup at each level (index 0 =
// bottom) when a fraction `hit_fraction` of lookups find their key, spread
// over the entries as `entry_shares_from_bottom` says: (1 - h) + h * (share
// below the level).
std::vector<double> ModelAbsentProbes(
    const std::vector<double>& entry_shares_from_bottom, double hit_fraction);

// The share of all entries that level `level` (0 = bottom) holds in that
// tree shape.
double LevelShare(double size_ratio, uint32_t num_levels, uint32_t level);

// How many times a key written to the tree is built into a filter of level
// `level` (0 = bottom): 1 for the top level of a tree of two or more (L0,
// written by flushes), (size_ratio + 1) / 2 for every other level. A tree
// of one level is one level built by compactions or ingestion: weight 1.
double LevelBuildWeight(double size_ratio, uint32_t num_levels, uint32_t level);

// The account: what holds filter memory to what is asked.
//
// A budget (an average bits/key, or a limit in bits) is owed by the live
// filters it covers: `due` bits. They hold `held` bits. Filters are
// immutable, so only the ones built next can make up a difference: each
// new filter gets its level's allocation plus a correction in bits/key,
//
//   correction = integral - kGain * error per key,   error = held - due,
//
// and every key built moves the integral by -kIntegralGain * error per key
// * (keys built / keys covered). The proportional part pays an error over
// about 1/kGain of a rewrite of the covered keys; alone it would leave
// 1/(1 + kGain) of a steady bias in place (a tree whose levels hold other
// shares than the allocation assumed, sizes rounded to a kind's grid, files
// moved down whole), which the integral removes: at rest the error is 0
// and the integral equals minus the bias. The error is measured, never
// estimated, from the filters' own sizes, so what one job leaves the next
// pays.
//
// The gains, as a linear model over rewrites of the covered keys (new
// filters replace old ones at rate 1 per rewrite, so de/dt = c + bias - e,
// dI/dt = -kIntegralGain * e, c = I - kGain * e): the characteristic
// polynomial s^2 + (1 + kGain) s + kIntegralGain is critically damped at
// kIntegralGain = (1 + kGain)^2 / 4, which settles within about one
// rewrite. (Leveled compaction rewrites a key about T/2 times per level it
// passes, so a tree growing by a tenth is rewritten about once.)

// What a budget's filters hold and owe, as a caller sums them.
struct AccountTotals {
  double held_bits = 0;  // the covered filters' bits
  double due_bits = 0;   // what they owe: the average x keys, or the limit
  // Keys added to the filters a correction applies to (what filters are
  // sized by): all covered ones for an average; under a limit that leaves
  // some files without a filter, those with one.
  double keys = 0;
  // Every key ever built into a covered filter, a running count: the
  // integral moves by what was built since it last moved.
  double keys_built = 0;
};

class MemoryAccount {
 public:
  // Proportional gain: an error is paid over 1/kGain of a rewrite.
  static constexpr double kGain = 2;
  // Critically damped with kGain (above).
  static constexpr double kIntegralGain = (1 + kGain) * (1 + kGain) / 4;
  // The correction is at most this share of the average owed per key, or
  // kMinCorrectionBound bits/key if that is more, either way: a table is
  // never sized far from its level's allocation (FPR is convex in bits,
  // so spreading bits unevenly costs wasted reads), and the rest of an
  // error is paid by the tables after it.
  static constexpr double kMaxCorrectionShare = 0.25;
  static constexpr double kMinCorrectionBound = 1.0;

  // The bits/key to add to a new filter's allocation, from `now` (the
  // totals before it). Moves the integral by the keys built since the
  // last call.
  double Correction(const AccountTotals& now) {
    if (!(now.keys > 0)) return integral_;
    const double error_per_key = (now.held_bits - now.due_bits) / now.keys;
    const double bound = Bound(now);
    if (keys_built_seen_ >= 0 && now.keys_built > keys_built_seen_) {
      const double built = now.keys_built - keys_built_seen_;
      integral_ -=
          kIntegralGain * error_per_key * std::min(built / now.keys, 1.0);
      // No wind-up: the integral alone never asks for more than a
      // correction may give.
      integral_ = std::clamp(integral_, -bound, bound);
    }
    keys_built_seen_ = now.keys_built;
    return std::clamp(integral_ - kGain * error_per_key, -bound, bound);
  }

  // The learned bias (bits/key the allocation is corrected by at rest).
  double integral() const { return integral_; }

 private:
  static double Bound(const AccountTotals& now) {
    return std::max(kMinCorrectionBound,
                    kMaxCorrectionShare * now.due_bits / now.keys);
  }

  double integral_ = 0;
  double keys_built_seen_ = -1;  // none yet: the first call sets it
};

}  // namespace sstfilter
