// What the allocation's tests compute around sstfilter/level_allocation.h,
// from its public functions only: the better of this library's two kinds
// at one size, the allocation over those two kinds alone, and the build CPU
// of a set of levels, each written apart from the allocator so that the
// tests check it rather than repeat it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sstfilter/cuckoo_filter.h"
#include "sstfilter/level_allocation.h"
#include "sstfilter/status.h"

namespace sstfilter::test_support {

// The filter with the lower model FPR that fits in `bits_per_key` (>= 1):
// BlockedBloom spending all of it, or Cuckoo with the widest fingerprint
// that fits. Cuckoo wins from CuckooCrossoverBitsPerKey() on, except just
// below each of its steps (the next fingerprint bit), where BlockedBloom
// uses the bits that the narrower fingerprint would leave unused.
inline FilterChoice BestFilterFor(double bits_per_key) {
  static const KindModel bloom =
      OwnKindModel(FilterKind::kBlockedBloom, BuildCost{});
  if (!(bits_per_key >= LevelAllocation::kMinBitsPerKey)) {
    bits_per_key = LevelAllocation::kMinBitsPerKey;  // also catches NaN
  }
  FilterChoice best = bloom.within(bits_per_key);
  // Only the widest fingerprint that fits can win.
  const uint32_t f = StaticCuckooFingerprintBits(bits_per_key);
  for (const FilterChoice& cuckoo : OwnKindPoints(FilterKind::kCuckoo)) {
    if (cuckoo.fingerprint_bits == f && cuckoo.fpr < best.fpr) best = cuckoo;
  }
  return best;
}

// The fewest bits/key, on a 1/64 grid, at which BestFilterFor picks Cuckoo.
inline double CuckooCrossoverBitsPerKey() {
  constexpr double kStep = 1.0 / 64;
  constexpr double kMax = LevelAllocationLimits::kMaxAverageBitsPerKey;
  static const double crossover = [] {
    for (double b = LevelAllocation::kMinBitsPerKey; b <= kMax; b += kStep) {
      if (BestFilterFor(b).kind == FilterKind::kCuckoo) return b;
    }
    return kMax;
  }();
  return crossover;
}

// This library's two kinds, with no build cost and so no CPU cap.
inline const LevelCostModel& OwnKindsModel() {
  static const LevelCostModel model = [] {
    LevelCostModel m;
    m.kinds.push_back(OwnKindModel(FilterKind::kBlockedBloom, BuildCost{}));
    m.kinds.push_back(OwnKindModel(FilterKind::kCuckoo, BuildCost{}));
    return m;
  }();
  return model;
}

// AllocateLevels over this library's two kinds, with no CPU cap.
inline Status AllocateLevelBits(double average_bits_per_key, double size_ratio,
                                uint32_t num_levels, LevelAllocation* out) {
  return AllocateLevels(OwnKindsModel(), average_bits_per_key, size_ratio,
                        num_levels, out);
}

// The build CPU of `levels` (index 0 = bottom) under `model`, ns per key
// written: sum of LevelBuildWeight * the level's kind's BuildCost. A level
// whose kind the model lacks counts 0.
inline double TreeBuildNs(const LevelCostModel& model,
                          const std::vector<FilterChoice>& levels,
                          double size_ratio) {
  const uint32_t n = static_cast<uint32_t>(levels.size());
  double ns = 0;
  for (uint32_t i = 0; i < n; ++i) {
    for (const KindModel& kind : model.kinds) {
      if (kind.kind != levels[i].kind) continue;
      ns += LevelBuildWeight(size_ratio, n, i) *
            kind.build.Ns(levels[i].bits_per_key);
      break;
    }
  }
  return ns;
}

}  // namespace sstfilter::test_support
