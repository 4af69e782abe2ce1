// sstfilter/cache_model.h: what a lookup reads from disk when data, index
// and filter blocks share one LRU block cache (RocksDB's
// cache_index_and_filter_blocks), and the filter memory at which it reads
// least: LevelAware's size_for_cache.
//
// The cache: Che's approximation (Che, Tung and Wang, IEEE JSAC 20(7),
// 2002; Fricker, Robert and Roberts, ITC 2012, for items of unequal
// sizes): under independent references an LRU cache of C bytes holds a
// block referenced at rate r with probability 1 - exp(-r t), where the
// characteristic time t solves sum over blocks of size (1 - exp(-r t)) = C.
// The blocks of one kind are referenced alike, uniformly over its bytes: a
// kind of B bytes in blocks of s bytes referenced a times per lookup has
// r = a s / B per block, within each slice of the key space (CacheLoad):
// skew between slices is seen, skew within one (Zipfian keys scattered
// over the key space) is not, so there the model undervalues what the
// cache holds of the hottest data.
//
// A lookup: each filter it consults is one filter reference (a partition,
// or the file's whole filter block); a filter that passes (a file holding
// the key, or a false positive) adds one index and one data reference.
#pragma once

#include <functional>
#include <vector>

namespace sstfilter {

// One kind of block in the cache.
struct CachedBlocks {
  double bytes = 0;
  double block_bytes = 4096;
  double references = 0;  // per lookup (any unit, the same for every kind)
};

// Che's characteristic time of an LRU cache of `capacity_bytes` over
// `kinds`; infinity if they all fit.
double LruCharacteristicTime(const std::vector<CachedBlocks>& kinds,
                             double capacity_bytes);
// The share of `kind`'s references that find their block in the cache.
double LruHitRatio(const CachedBlocks& kind, double characteristic_time);

// One column family's lookups against the cache it has (its share of a
// shared one).
struct CacheLoad {
  double capacity_bytes = 0;
  double data_bytes = 0;
  double data_block_bytes = 4096;
  double index_bytes = 0;
  double index_block_bytes = 4096;
  double filter_block_bytes = 4096;
  // Unpartitioned filters: one block per file, so a block's bytes follow
  // the filters' (filter_bytes / filter_blocks); 0: partitions of
  // filter_block_bytes.
  double filter_blocks = 0;
  // Per lookup, in one unit: the probes of a file that holds the key, and
  // those of files that do not.
  double hits = 0;
  double absent_probes = 0;
  // Where in the key space the probes go, over equal slices of it, each
  // holding an equal part of the data, index and filter bytes: the shares
  // of the hits and of the absent probes per slice (each summing to 1).
  // Empty: spread evenly. Hot key ranges make their slices' blocks hotter,
  // so the cache holds more of them than of the rest.
  std::vector<double> slice_hits;
  std::vector<double> slice_absent;
};

// Blocks read from disk per lookup (the unit of `load`'s probes) with
// `filter_bytes` of filters that pass `wasted` of the absent probes.
double DiskReads(const CacheLoad& load, double filter_bytes, double wasted);

// What an average of some bits/key costs: the filters' bytes and the
// absent probes they pass (LevelAware's allocation at that average).
struct FilterCost {
  double filter_bytes = 0;
  double wasted = 0;
};

struct CacheChoice {
  double bits_per_key = 0;
  double disk_reads = 0;          // per lookup, modelled
  double disk_reads_at_most = 0;  // at `most_bits`
  double filter_bytes = 0;
};

// The average bits/key in [fewest_bits, most_bits], on a grid of
// kCacheGridBits, at which DiskReads is least: the most bits of those
// within kCacheTieShare of the least (the model does not see a cache's
// skew, and more bits cost nothing where the cache holds them).
inline constexpr double kCacheGridBits = 0.25;
inline constexpr double kCacheTieShare = 0.01;
CacheChoice ChooseForCache(const CacheLoad& load, double fewest_bits,
                           double most_bits,
                           const std::function<FilterCost(double)>& cost_at);

}  // namespace sstfilter
