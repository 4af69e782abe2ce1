// The block-cache model of LevelAware's size_for_cache
// (sstfilter/cache_model.h): Che's approximation against an LRU cache
// simulated block by block, and the choice of filter memory it makes.
#include "sstfilter/cache_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <list>
#include <random>
#include <unordered_map>
#include <vector>

namespace sstfilter {
namespace {

// An LRU cache of whole blocks, by bytes, as RocksDB's LRUCache charges
// them (one shard, no priority pool).
class SimulatedLru {
 public:
  explicit SimulatedLru(double capacity) : capacity_(capacity) {}
  // True if `block` was held; it is now the most recent.
  bool Reference(uint64_t block, double bytes) {
    auto found = where_.find(block);
    if (found != where_.end()) {
      order_.splice(order_.begin(), order_, found->second);
      return true;
    }
    order_.push_front({block, bytes});
    where_[block] = order_.begin();
    used_ += bytes;
    while (used_ > capacity_ && !order_.empty()) {
      used_ -= order_.back().bytes;
      where_.erase(order_.back().block);
      order_.pop_back();
    }
    return false;
  }

 private:
  struct Entry {
    uint64_t block;
    double bytes;
  };
  double capacity_;
  double used_ = 0;
  std::list<Entry> order_;
  std::unordered_map<uint64_t, std::list<Entry>::iterator> where_;
};

// Each kind's measured hit ratio: references drawn in proportion to the
// kinds' rates, each to a uniform block of its kind.
std::vector<double> SimulatedHitRatios(const std::vector<CachedBlocks>& kinds,
                                       double capacity, uint64_t references) {
  SimulatedLru lru(capacity);
  std::mt19937_64 rng(7);
  std::vector<double> weights;
  for (const CachedBlocks& k : kinds) weights.push_back(k.references);
  std::discrete_distribution<size_t> pick(weights.begin(), weights.end());
  std::vector<uint64_t> hits(kinds.size(), 0), seen(kinds.size(), 0);
  for (uint64_t i = 0; i < references; ++i) {
    const size_t k = pick(rng);
    const uint64_t blocks =
        static_cast<uint64_t>(kinds[k].bytes / kinds[k].block_bytes);
    const uint64_t block = (uint64_t{k} << 40) | (rng() % blocks);
    const bool hit = lru.Reference(block, kinds[k].block_bytes);
    if (i >= references / 4) {  // after the cache has filled
      hits[k] += hit;
      ++seen[k];
    }
  }
  std::vector<double> ratios;
  for (size_t k = 0; k < kinds.size(); ++k) {
    ratios.push_back(static_cast<double>(hits[k]) /
                     static_cast<double>(seen[k]));
  }
  return ratios;
}

// Che's approximation is known to be accurate for LRU under independent
// references (Fricker et al. 2012); here to 0.03 of each kind's hit ratio,
// with kinds as a Get's: filters referenced most, data least per byte.
TEST(CacheModel, HitRatiosMatchASimulatedLruCache) {
  const std::vector<CachedBlocks> kinds = {
      {400 * 4096.0, 4096, 3.0},   // filter partitions
      {300 * 4096.0, 4096, 1.0},   // index partitions
      {6000 * 4096.0, 4096, 1.0},  // data
  };
  for (double capacity : {100 * 4096.0, 400 * 4096.0, 900 * 4096.0}) {
    const double t = LruCharacteristicTime(kinds, capacity);
    const std::vector<double> measured =
        SimulatedHitRatios(kinds, capacity, 400000);
    for (size_t k = 0; k < kinds.size(); ++k) {
      EXPECT_NEAR(LruHitRatio(kinds[k], t), measured[k], 0.03)
          << "capacity " << capacity / 4096 << " blocks, kind " << k;
    }
  }
}

TEST(CacheModel, EverythingThatFitsIsHeld) {
  const std::vector<CachedBlocks> kinds = {{1000, 100, 1}, {2000, 100, 5}};
  const double t = LruCharacteristicTime(kinds, 3000);
  EXPECT_TRUE(std::isinf(t));
  EXPECT_EQ(LruHitRatio(kinds[0], t), 1);
  EXPECT_EQ(LruHitRatio(kinds[1], t), 1);
  // A kind nothing references takes no room.
  EXPECT_TRUE(
      std::isinf(LruCharacteristicTime({{1000, 100, 1}, {1e9, 100, 0}}, 1000)));
}

// A Get's reads: a cache of nothing reads every reference; a cache of
// everything reads none.
TEST(CacheModel, DiskReadsCountEveryReferenceACacheMisses) {
  CacheLoad load;
  load.data_bytes = 1e8;
  load.index_bytes = 1e6;
  load.hits = 1;
  load.absent_probes = 3;
  load.capacity_bytes = 0;
  // Filters: 4 references; index and data: 1 + 0.1 each.
  EXPECT_NEAR(DiskReads(load, 1e6, 0.1), 4 + 2 * 1.1, 1e-9);
  load.capacity_bytes = 1e9;
  EXPECT_EQ(DiskReads(load, 1e6, 0.1), 0);
}

// The wasted probes of filters of `bits` bits/key over `keys` keys probed
// `absent` times per lookup: a Bloom filter's FPR, 0.6185^bits.
std::function<FilterCost(double)> BloomCost(double keys, double absent) {
  return [keys, absent](double bits) {
    return FilterCost{keys * bits / 8, absent * std::pow(0.6185, bits)};
  };
}

// The choice, by table: the cache's size and the Gets' hits in, bits/key
// out. Where the cache holds every filter and index block, filters get
// all the bits asked; where it is too small to hold them and Gets find
// their key (each reads an index and a data block), smaller filters keep
// more of the index and filter blocks in the cache.
TEST(CacheModel, ChoosesFewerBitsOnlyWhereTheCacheIsShortAndGetsHit) {
  CacheLoad load;
  const double keys = 1e6;
  load.data_bytes = 1.2e8;
  load.index_bytes = 1.0e6;
  load.absent_probes = 3;
  struct Row {
    double capacity;
    double hits;
    double bits_at_least;
    double bits_at_most;
  };
  const Row rows[] = {
      // A cache that holds filters and index at 16 bits/key: all 16.
      {4.0e7, 0.9, 16, 16},
      // Absent keys only: the index is rarely read, filters fill the cache.
      {2.1e6, 0, 14, 16},
      // 2 MiB, 90% hits (the configuration): fewer bits.
      {2.1e6, 0.9, 3, 9},
      // A quarter of the filters: fewer bits still.
      {0.5e6, 0.9, 4, 7},
      // A cache of a few partitions: a probe reads one partition from disk
      // whatever the filters' size, and more bits pass fewer absent keys.
      {1.0e5, 0.9, 12, 16},
  };
  for (const Row& row : rows) {
    load.capacity_bytes = row.capacity;
    load.hits = row.hits;
    const CacheChoice choice =
        ChooseForCache(load, 1, 16, BloomCost(keys, load.absent_probes));
    EXPECT_GE(choice.bits_per_key, row.bits_at_least)
        << "capacity " << row.capacity << " hits " << row.hits;
    EXPECT_LE(choice.bits_per_key, row.bits_at_most)
        << "capacity " << row.capacity << " hits " << row.hits;
  }
}

// The choice reads within the tie share of the least any average would;
// a cache that holds every block referenced gets the most bits.
TEST(CacheModel, ChoosesWithinTheTieOfTheLeastReads) {
  CacheLoad load;
  load.data_bytes = 1.2e8;
  load.index_bytes = 1.0e6;
  load.absent_probes = 3;
  for (double hits : {0.0, 0.5, 0.9, 1.0}) {
    load.hits = hits;
    for (double capacity = 1e5; capacity < 2e8; capacity *= 1.5) {
      load.capacity_bytes = capacity;
      const CacheChoice choice =
          ChooseForCache(load, 1, 20, BloomCost(1e6, load.absent_probes));
      // Within the tie share of the least reads of any average, computed
      // here point by point.
      double least = choice.disk_reads_at_most;
      for (double bits = 1; bits <= 20; bits += kCacheGridBits) {
        const FilterCost cost = BloomCost(1e6, load.absent_probes)(bits);
        least =
            std::min(least, DiskReads(load, cost.filter_bytes, cost.wasted));
      }
      EXPECT_LE(choice.disk_reads, least * (1 + kCacheTieShare) + 1e-12)
          << "hits " << hits << " capacity " << capacity;
    }
    load.capacity_bytes = 1.3e8;  // data, index and 20 bits/key of filters
    EXPECT_EQ(ChooseForCache(load, 1, 20, BloomCost(1e6, load.absent_probes))
                  .bits_per_key,
              20)
        << "hits " << hits;
  }
}

// Unpartitioned, a file's filter is one block whose size follows the
// bits/key: the model's blocks grow with the filters, so at a cache too
// small for them it reads more filter blocks back than partitions would.
TEST(CacheModel, UnpartitionedFilterBlocksFollowTheFiltersSize) {
  CacheLoad load;
  load.data_bytes = 1.2e8;
  load.index_bytes = 1.0e6;
  load.capacity_bytes = 2.1e6;
  load.hits = 0.9;
  load.absent_probes = 3;
  load.filter_blocks = 30;
  const double small = DiskReads(load, 0.5e6, 0.01);
  const double large = DiskReads(load, 2.0e6, 0.001);
  EXPECT_GT(large, small);
  // The same bytes in one block per file or in partitions of 4 KiB: equal
  // where the cache holds them all.
  load.capacity_bytes = 2e9;
  EXPECT_EQ(DiskReads(load, 1e6, 0.01), 0);
}

// Hot key ranges: most hits in a few slices of the key space keep those
// slices' filter, index and data blocks cached, so a cache too small for
// all the filter and index blocks still holds the ones the Gets read. The
// model sees that: more bits than where the same hits spread evenly, and
// fewer disk reads.
TEST(CacheModel, HotSlicesKeepTheirBlocksCached) {
  CacheLoad load;
  load.data_bytes = 1.2e8;
  load.index_bytes = 1.0e6;
  load.capacity_bytes = 1.2e8 / 64;
  load.hits = 0.9;
  load.absent_probes = 3;
  const CacheChoice even =
      ChooseForCache(load, 1, 20, BloomCost(1e6, load.absent_probes));
  // 90% of the probes in 2 of 32 slices.
  load.slice_hits.assign(32, 0.1 / 30);
  load.slice_absent.assign(32, 0.1 / 30);
  for (size_t hot : {5, 20})
    load.slice_hits[hot] = load.slice_absent[hot] = 0.45;
  const CacheChoice hot =
      ChooseForCache(load, 1, 20, BloomCost(1e6, load.absent_probes));
  EXPECT_GT(hot.bits_per_key, even.bits_per_key + 2);
  EXPECT_LT(hot.disk_reads, even.disk_reads);
  // Slices spread evenly are the model without slices.
  load.slice_hits.assign(32, 1.0 / 32);
  load.slice_absent.assign(32, 1.0 / 32);
  EXPECT_NEAR(
      DiskReads(load, 1e6, 0.1),
      [&] {
        CacheLoad plain = load;
        plain.slice_hits.clear();
        plain.slice_absent.clear();
        return DiskReads(plain, 1e6, 0.1);
      }(),
      1e-6);
}

}  // namespace
}  // namespace sstfilter
