// LevelAware's size_for_cache: the block cache a column family's filters
// share with its data and index blocks, and its share of that cache when
// several column families (of one DB or of several, as Kafka Streams'
// stores share one cache) use it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "level_aware_tree.h"
#include "rocksdb/cache.h"
#include "rocksdb/table.h"
#include "rocksdb_compat.h"  // Cache is defined in advanced_cache.h since 8.0

namespace sstfilter::rocksdb_plugin {

// What a table's BlockBasedTableOptions say of the cache its filters live
// in.
struct CacheView {
  // Null: the filters are not in a block cache (no block cache, or
  // cache_index_and_filter_blocks=false: the table readers hold them).
  std::shared_ptr<ROCKSDB_NAMESPACE::Cache> cache;
  bool partitioned_filters = false;    // partition_filters
  bool partitioned_index = false;      // kTwoLevelIndexSearch
  double data_block_bytes = 4096;      // block_size
  double metadata_block_bytes = 4096;  // metadata_block_size
};
CacheView CacheViewOf(const ROCKSDB_NAMESPACE::BlockBasedTableOptions& table);

// The data and index bytes of a column family's live files (`held`: from
// each file's creation to its deletion, a compaction's inputs too), those
// of files whose sizes are not known counted at the known ones' bytes per
// entry; false if no file's sizes are known.
bool TreeBytes(const HeldFilters& held, double* data_bytes,
               double* index_bytes);

// The share of `cache`'s capacity that `cf`, holding `data_bytes` of data,
// has: the capacity split among the column families whose LevelAware
// filters use the cache (registered here by their table builds, and
// dropped when they or the cache go), by their data bytes. Column families
// of other policies on the same cache are not seen.
// The part of a cache's capacity the model (sstfilter/cache_model.h)
// counts as holding blocks: RocksDB's LRU cache is not the model's ideal
// one (a high-priority pool of half the capacity for index and filter
// blocks, pinned top-level partitions, each entry's charge beyond its
// block). In the block-cache sweep (bench/README.md, block-cache, 1/64 of
// the data), filters of 0.78x the capacity were read back for 0.004% of
// absent-key probes and of 0.93x for 0.7%, with index blocks beside them.
inline constexpr double kUsableCacheShare = 0.8;
// The fewest average bits/key size_for_cache chooses: below 2 a filter
// passes 40% of absent keys or more, and a Get's reads turn on which
// files L0 holds (two runs of the sweep's 1/64 cell at 1.09 and 1.12
// bits/key read 1.11 and 1.26 blocks per Get).
inline constexpr double kCacheFewestBitsPerKey = 2;

double CacheShareOf(const std::shared_ptr<ROCKSDB_NAMESPACE::Cache>& cache,
                    const std::shared_ptr<ColumnFamilyTree>& cf,
                    double data_bytes);

}  // namespace sstfilter::rocksdb_plugin
