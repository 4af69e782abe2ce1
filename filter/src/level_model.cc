// The tree model and the kinds' curves behind the allocation
// (sstfilter/level_allocation.h): this library's kinds' points, the level
// shares and build weights of a tree growing by T, and the model's absent
// probes per level.
#include <algorithm>
#include <cmath>
#include <vector>

#include "sstfilter/blocked_bloom.h"
#include "sstfilter/cuckoo_filter.h"
#include "sstfilter/level_allocation.h"

namespace sstfilter {
namespace {
// The models are evaluated on filters of this many keys, large enough that
// headers and rounding to whole lines or buckets do not count.
constexpr uint64_t kModelKeys = uint64_t{1} << 20;
// The BlockedBloom sizes tried, in bits/key: fine enough that the step
// below the optimum costs a negligible share of FPR.
constexpr double kGridStep = 1.0 / 64;
constexpr double kGridMaxBitsPerKey =
    LevelAllocationLimits::kMaxAverageBitsPerKey;

double BlockedBloomFpr(double bits_per_key) {
  return BlockedBloomParams::ForBitsPerKey(kModelKeys, bits_per_key)
      .EstimatedFpr(kModelKeys);
}

double CuckooFpr(uint32_t fingerprint_bits) {
  return StaticCuckooFpr(kModelKeys,
                         StaticCuckooBytes(kModelKeys, fingerprint_bits),
                         fingerprint_bits);
}

FilterChoice BlockedBloomWithin(double bits_per_key) {
  return {FilterKind::kBlockedBloom, bits_per_key, 0,
          BlockedBloomFpr(bits_per_key)};
}

}  // namespace

const std::vector<FilterChoice>& OwnKindPoints(FilterKind kind) {
  // Computed once: every policy object's allocations use them.
  static const std::vector<FilterChoice> bloom = [] {
    std::vector<FilterChoice> points;
    for (double b = LevelAllocation::kMinBitsPerKey; b <= kGridMaxBitsPerKey;
         b += kGridStep) {
      points.push_back(BlockedBloomWithin(b));
    }
    return points;
  }();
  static const std::vector<FilterChoice> cuckoo = [] {
    std::vector<FilterChoice> points;
    for (uint32_t f = CuckooLimits::kMinFingerprintBits;
         f <= CuckooLimits::kMaxFingerprintBits; ++f) {
      points.push_back(
          {FilterKind::kCuckoo, StaticCuckooBitsPerKey(f), f, CuckooFpr(f)});
    }
    return points;
  }();
  static const std::vector<FilterChoice> none;
  return kind == FilterKind::kBlockedBloom ? bloom
         : kind == FilterKind::kCuckoo     ? cuckoo
                                           : none;
}

KindModel OwnKindModel(FilterKind kind, BuildCost build) {
  KindModel model{kind, OwnKindPoints(kind), build, {}};
  if (kind == FilterKind::kBlockedBloom) {
    model.within = [](double bits_per_key) {
      return BlockedBloomWithin(
          std::max(bits_per_key, LevelAllocation::kMinBitsPerKey));
    };
  }
  return model;
}

double LevelAllocation::MaxBitsPerKey(double average_bits_per_key) {
  return std::max(average_bits_per_key,
                  std::min(kMaxOverAverage * average_bits_per_key, 64.0));
}

double LevelShare(double size_ratio, uint32_t num_levels, uint32_t level) {
  // share_i = T^-i / sum_j T^-j
  double total = 0;
  for (uint32_t j = 0; j < num_levels; ++j)
    total += std::pow(size_ratio, -1.0 * j);
  return std::pow(size_ratio, -1.0 * level) / total;
}

double LevelBuildWeight(double size_ratio, uint32_t num_levels,
                        uint32_t level) {
  if (num_levels >= 2 && level + 1 == num_levels) return 1;  // L0: flushes
  return num_levels == 1 ? 1 : (size_ratio + 1) / 2;
}

std::vector<double> ModelAbsentProbes(
    const std::vector<double>& entry_shares_from_bottom, double hit_fraction) {
  const double h = std::clamp(hit_fraction, 0.0, 1.0);
  double total = 0;
  for (double share : entry_shares_from_bottom) total += share;
  std::vector<double> probes;
  double below = 0;  // share of entries in the levels below this one
  for (double share : entry_shares_from_bottom) {
    probes.push_back((1 - h) + h * (total > 0 ? below / total : 0));
    below += share;
  }
  return probes;
}

std::vector<LevelLoad> TShapedLoads(double size_ratio, uint32_t num_levels,
                                    double hit_fraction) {
  std::vector<double> shares;
  for (uint32_t i = 0; i < num_levels; ++i) {
    shares.push_back(LevelShare(size_ratio, num_levels, i));
  }
  const std::vector<double> probes = ModelAbsentProbes(shares, hit_fraction);
  std::vector<LevelLoad> loads;
  for (uint32_t i = 0; i < num_levels; ++i) {
    loads.push_back(
        {shares[i], probes[i], LevelBuildWeight(size_ratio, num_levels, i)});
  }
  return loads;
}

}  // namespace sstfilter
