#include "sstfilter/level_allocation.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "sstfilter/blocked_bloom.h"
#include "sstfilter/cuckoo_filter.h"

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

// The filters worth having: the lower convex hull of (bits/key, FPR) over
// every BlockedBloom size on the grid and every cuckoo fingerprint width.
// Only hull points can minimise FPR + price * bits, which is what the
// allocation does per level. Computed once.
const std::vector<FilterChoice>& EfficientChoices() {
  static const std::vector<FilterChoice> hull = [] {
    std::vector<FilterChoice> all;
    for (double b = LevelAllocation::kMinBitsPerKey; b <= kGridMaxBitsPerKey;
         b += kGridStep) {
      all.push_back({FilterKind::kBlockedBloom, b, 0, BlockedBloomFpr(b)});
    }
    for (uint32_t f = CuckooLimits::kMinFingerprintBits;
         f <= CuckooLimits::kMaxFingerprintBits; ++f) {
      all.push_back(
          {FilterKind::kCuckoo, StaticCuckooBitsPerKey(f), f, CuckooFpr(f)});
    }
    std::sort(all.begin(), all.end(),
              [](const FilterChoice& a, const FilterChoice& b) {
                return a.bits_per_key < b.bits_per_key ||
                       (a.bits_per_key == b.bits_per_key && a.fpr < b.fpr);
              });
    std::vector<FilterChoice> lower;  // monotone chain, lower hull
    for (const FilterChoice& c : all) {
      if (!lower.empty() && c.fpr >= lower.back().fpr) continue;  // dominated
      while (lower.size() >= 2) {
        const FilterChoice& a = lower[lower.size() - 2];
        const FilterChoice& b = lower.back();
        const double cross =
            (b.bits_per_key - a.bits_per_key) * (c.fpr - a.fpr) -
            (b.fpr - a.fpr) * (c.bits_per_key - a.bits_per_key);
        if (cross > 0) break;  // b is below the chord a-c: keep it
        lower.pop_back();
      }
      lower.push_back(c);
    }
    return lower;
  }();
  return hull;
}

// The hull point minimising weight * fpr + price * bits, within `max_bits`.
const FilterChoice& Cheapest(double price, double max_bits) {
  const std::vector<FilterChoice>& hull = EfficientChoices();
  const FilterChoice* best = &hull.front();
  for (const FilterChoice& c : hull) {
    if (c.bits_per_key > max_bits) break;
    if (c.fpr + price * c.bits_per_key <
        best->fpr + price * best->bits_per_key) {
      best = &c;
    }
  }
  return *best;
}

}  // namespace

FilterChoice BestFilterFor(double bits_per_key) {
  if (!(bits_per_key >= LevelAllocation::kMinBitsPerKey)) {
    bits_per_key = LevelAllocation::kMinBitsPerKey;  // also catches NaN
  }
  FilterChoice best{FilterKind::kBlockedBloom, bits_per_key, 0,
                    BlockedBloomFpr(bits_per_key)};
  for (uint32_t f = CuckooLimits::kMaxFingerprintBits;
       f >= CuckooLimits::kMinFingerprintBits; --f) {
    if (StaticCuckooBitsPerKey(f) > bits_per_key) continue;
    const double fpr = CuckooFpr(f);
    if (fpr < best.fpr) {
      best = {FilterKind::kCuckoo, StaticCuckooBitsPerKey(f), f, fpr};
    }
    break;  // only the widest fingerprint that fits can win
  }
  return best;
}

double CuckooCrossoverBitsPerKey() {
  static const double crossover = [] {
    for (double b = LevelAllocation::kMinBitsPerKey; b <= kGridMaxBitsPerKey;
         b += kGridStep) {
      if (BestFilterFor(b).kind == FilterKind::kCuckoo) return b;
    }
    return kGridMaxBitsPerKey;
  }();
  return crossover;
}

double LevelAllocation::MaxBitsPerKey(double average_bits_per_key) {
  return std::max(average_bits_per_key,
                  std::min(4.0 * average_bits_per_key, 64.0));
}

double LevelShare(double size_ratio, uint32_t num_levels, uint32_t level) {
  // share_i = T^-i / sum_j T^-j
  double total = 0;
  for (uint32_t j = 0; j < num_levels; ++j)
    total += std::pow(size_ratio, -1.0 * j);
  return std::pow(size_ratio, -1.0 * level) / total;
}

Status AllocateLevelBits(double average_bits_per_key, double size_ratio,
                         uint32_t num_levels, LevelAllocation* out) {
  using Limits = LevelAllocationLimits;
  if (!(average_bits_per_key >= Limits::kMinAverageBitsPerKey &&
        average_bits_per_key <= Limits::kMaxAverageBitsPerKey)) {
    return Status::InvalidArgument(
        "average bits per key must be in 1..100, not " +
        std::to_string(average_bits_per_key));
  }
  if (!(size_ratio >= Limits::kMinSizeRatio &&
        size_ratio <= Limits::kMaxSizeRatio)) {
    return Status::InvalidArgument("size ratio must be in 2..100, not " +
                                   std::to_string(size_ratio));
  }
  if (num_levels < 1 || num_levels > Limits::kMaxLevels) {
    return Status::InvalidArgument("number of levels must be in 1..64, not " +
                                   std::to_string(num_levels));
  }
  std::vector<double> shares(num_levels);
  for (uint32_t i = 0; i < num_levels; ++i) {
    shares[i] = LevelShare(size_ratio, num_levels, i);
  }
  const double max_bits = LevelAllocation::MaxBitsPerKey(average_bits_per_key);

  // Lagrange: each level minimises fpr_i + price * share_i * bits_i; the
  // memory this spends falls as the price rises. Find the lowest price
  // (geometric bisection) whose allocation fits the budget.
  auto allocate = [&](double price, std::vector<FilterChoice>* levels) {
    double memory = 0;
    for (uint32_t i = 0; i < num_levels; ++i) {
      (*levels)[i] = Cheapest(price * shares[i], max_bits);
      memory += shares[i] * (*levels)[i].bits_per_key;
    }
    return memory;
  };
  std::vector<FilterChoice> levels(num_levels);
  double low = 1e-40, high = 1e40;  // allocate(high) spends the minimum
  for (int step = 0; step < 200; ++step) {
    const double mid = std::sqrt(low * high);
    (allocate(mid, &levels) > average_bits_per_key ? low : high) = mid;
  }
  double memory = allocate(high, &levels);

  // What the hull's steps leave over goes to the largest levels, bottom
  // first, each up to the bits of the level above it, so that the budget
  // is spent and bits/key still grow level by level.
  for (uint32_t i = 0; i < num_levels; ++i) {
    const double left = average_bits_per_key - memory;
    if (left <= average_bits_per_key * 1e-12) break;
    const double ceiling =
        i + 1 < num_levels ? levels[i + 1].bits_per_key : max_bits;
    const double offered =
        std::min(ceiling, levels[i].bits_per_key + left / shares[i]);
    if (offered <= levels[i].bits_per_key) continue;
    const FilterChoice better = BestFilterFor(offered);
    if (better.fpr >= levels[i].fpr) continue;
    memory += shares[i] * (better.bits_per_key - levels[i].bits_per_key);
    levels[i] = better;
  }
  out->levels = std::move(levels);
  return Status::Ok();
}

}  // namespace sstfilter
