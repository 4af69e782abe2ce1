#include "sstfilter/cache_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sstfilter {
namespace {

// Bytes an LRU cache holds of `kind` at characteristic time t.
double HeldBytes(const CachedBlocks& kind, double t) {
  return kind.bytes * LruHitRatio(kind, t);
}

}  // namespace

double LruHitRatio(const CachedBlocks& kind, double t) {
  if (!(kind.bytes > 0) || !(kind.references > 0)) return 0;
  if (std::isinf(t)) return 1;
  const double rate_per_block =
      kind.references * std::min(kind.block_bytes, kind.bytes) / kind.bytes;
  return -std::expm1(-rate_per_block * t);
}

double LruCharacteristicTime(const std::vector<CachedBlocks>& kinds,
                             double capacity_bytes) {
  double referenced_bytes = 0;
  for (const CachedBlocks& kind : kinds) {
    if (kind.bytes > 0 && kind.references > 0) referenced_bytes += kind.bytes;
  }
  if (referenced_bytes <= capacity_bytes) {
    return std::numeric_limits<double>::infinity();
  }
  if (!(capacity_bytes > 0)) return 0;
  auto held = [&](double t) {
    double bytes = 0;
    for (const CachedBlocks& kind : kinds) bytes += HeldBytes(kind, t);
    return bytes;
  };
  // Held bytes grow with t: bracket, then bisect (on the log scale).
  double low = 1e-12, high = 1;
  while (held(high) < capacity_bytes && high < 1e30) high *= 16;
  for (int i = 0; i < 60; ++i) {
    const double mid = std::sqrt(low * high);
    (held(mid) < capacity_bytes ? low : high) = mid;
  }
  return std::sqrt(low * high);
}

double DiskReads(const CacheLoad& load, double filter_bytes, double wasted) {
  const bool sliced = !load.slice_hits.empty() &&
                      load.slice_hits.size() == load.slice_absent.size();
  const size_t slices = sliced ? load.slice_hits.size() : 1;
  const double part = 1.0 / static_cast<double>(slices);
  const double pass_share = load.absent_probes > 0
                                ? wasted / load.absent_probes
                                : 0;  // of the absent probes, passed
  std::vector<CachedBlocks> kinds;
  for (size_t s = 0; s < slices; ++s) {
    const double hits = load.hits * (sliced ? load.slice_hits[s] : 1);
    const double absent =
        load.absent_probes * (sliced ? load.slice_absent[s] : 1);
    const double passed = hits + absent * pass_share;
    const double filter_block_bytes = load.filter_blocks > 0
                                          ? filter_bytes / load.filter_blocks
                                          : load.filter_block_bytes;
    kinds.push_back({filter_bytes * part, filter_block_bytes, hits + absent});
    kinds.push_back({load.index_bytes * part, load.index_block_bytes, passed});
    kinds.push_back({load.data_bytes * part, load.data_block_bytes, passed});
  }
  const double t = LruCharacteristicTime(kinds, load.capacity_bytes);
  double reads = 0;
  for (const CachedBlocks& kind : kinds) {
    if (!(kind.bytes > 0)) continue;  // no blocks of the kind: nothing read
    reads += kind.references * (1 - LruHitRatio(kind, t));
  }
  return reads;
}

CacheChoice ChooseForCache(const CacheLoad& load, double fewest_bits,
                           double most_bits,
                           const std::function<FilterCost(double)>& cost_at) {
  fewest_bits = std::min(fewest_bits, most_bits);
  struct Point {
    double bits;
    FilterCost cost;
    double reads;
  };
  std::vector<Point> points;
  for (double bits = most_bits; bits > fewest_bits - 1e-9;
       bits -= kCacheGridBits) {
    const FilterCost cost = cost_at(bits);
    points.push_back(
        {bits, cost, DiskReads(load, cost.filter_bytes, cost.wasted)});
  }
  double least = points.front().reads;
  for (const Point& p : points) least = std::min(least, p.reads);
  // Points run from the most bits down: the first within the tie share.
  for (const Point& p : points) {
    if (p.reads <= least * (1 + kCacheTieShare)) {
      return {p.bits, p.reads, points.front().reads, p.cost.filter_bytes};
    }
  }
  return {most_bits, points.front().reads, points.front().reads,
          points.front().cost.filter_bytes};
}

}  // namespace sstfilter
