// The one place that knows how the RocksDB interfaces the plugin uses differ
// between the releases sstfilter supports (Debian's 7.8.3 up to 11.x),
// decided from rocksdb/version.h. The plugin always implements the newest
// filter interface, and these macros say which of its methods RocksDB's
// base class declares (and so which ones override). What the tools, tests
// and benchmarks need of the DB API is ../support/rocksdb_db_compat.h.
// Sources: table/block_based/filter_policy_internal.h, include/rocksdb/*.h
// and HISTORY.md of each release.
#pragma once

#include <cstddef>

#include "rocksdb/cache.h"
#include "rocksdb/slice.h"
#include "rocksdb/status.h"
#include "rocksdb/version.h"
#include "table/block_based/filter_policy_internal.h"

#define SSTFILTER_ROCKSDB_AT_LEAST(major, minor) \
  (ROCKSDB_MAJOR > (major) ||                    \
   (ROCKSDB_MAJOR == (major) && ROCKSDB_MINOR >= (minor)))

#if SSTFILTER_ROCKSDB_AT_LEAST(8, 0)
#include "rocksdb/advanced_cache.h"
#endif

// FilterBitsBuilder::AddKeyAndAlt(key, alt), pure virtual since 9.6. Before
// it, RocksDB added a prefix with AddKey and de-duplicated prefixes itself.
#if SSTFILTER_ROCKSDB_AT_LEAST(9, 6)
#define SSTFILTER_OVERRIDE_SINCE_9_6 override
#else
#define SSTFILTER_OVERRIDE_SINCE_9_6
#endif

// FilterBitsBuilder::CalculateSpace and EstimatedFpRate, pure virtual since
// 10.9, when BuiltinFilterBitsBuilder was folded into FilterBitsBuilder.
#if SSTFILTER_ROCKSDB_AT_LEAST(10, 9)
#define SSTFILTER_OVERRIDE_SINCE_10_9 override
#else
#define SSTFILTER_OVERRIDE_SINCE_10_9
#endif

// experimental::SstQueryFilterConfigsManager: per-SST min/max of a key
// segment, written by a table properties collector and read as a range
// scan's table_filter. In 9.11.2's and 11.8.1's experimental.h, not in
// 7.8.3's; the release that added it was not checked (HISTORY.md does not
// name it). The range-scan benchmark compares against it.
#if SSTFILTER_ROCKSDB_AT_LEAST(9, 11)
#define SSTFILTER_HAS_SST_QUERY_FILTER 1
#else
#define SSTFILTER_HAS_SST_QUERY_FILTER 0
#endif

namespace sstfilter::rocksdb_compat {

// Inserts an entry with no value that charges `charge` bytes to `cache`
// as CacheEntryRole::kFilterConstruction, held by *handle until
// cache.Release(*handle, true) erases it: what RocksDB's
// CacheReservationManager inserts. RocksDB 8.0 moved Cache to
// advanced_cache.h and made Insert take a CacheItemHelper, whose role the
// per-role statistics (DB::Properties::kBlockCacheEntryStats) read. 7.8
// takes a deleter instead and tells roles apart by deleter, which only its
// internal cache/cache_entry_roles.h registers: there these entries count
// as kMisc.
inline ROCKSDB_NAMESPACE::Status InsertFilterConstructionCharge(
    ROCKSDB_NAMESPACE::Cache& cache, const ROCKSDB_NAMESPACE::Slice& key,
    size_t charge, ROCKSDB_NAMESPACE::Cache::Handle** handle) {
#if SSTFILTER_ROCKSDB_AT_LEAST(8, 0)
  // A helper must outlive the caches it is given to: a static with no
  // destructor to run.
  static const ROCKSDB_NAMESPACE::Cache::CacheItemHelper kHelper(
      ROCKSDB_NAMESPACE::CacheEntryRole::kFilterConstruction);
  return cache.Insert(key, /*obj=*/nullptr, &kHelper, charge, handle);
#else
  return cache.Insert(key, /*value=*/nullptr, charge, /*deleter=*/nullptr,
                      handle);
#endif
}

// The size a built-in builder (FastLocalBloom, Ribbon, legacy Bloom) gives
// `num_entries`, and its model FPR at `bytes`. Before 10.9 these were
// methods of BuiltinFilterBitsBuilder, which every builder of RocksDB's
// built-in policies is.
inline size_t BuiltinCalculateSpace(ROCKSDB_NAMESPACE::FilterBitsBuilder* b,
                                    size_t num_entries) {
#if SSTFILTER_ROCKSDB_AT_LEAST(10, 9)
  return b->CalculateSpace(num_entries);
#else
  return static_cast<ROCKSDB_NAMESPACE::BuiltinFilterBitsBuilder*>(b)
      ->CalculateSpace(num_entries);
#endif
}
inline double BuiltinEstimatedFpRate(ROCKSDB_NAMESPACE::FilterBitsBuilder* b,
                                     size_t num_entries, size_t bytes) {
#if SSTFILTER_ROCKSDB_AT_LEAST(10, 9)
  return b->EstimatedFpRate(num_entries, bytes);
#else
  return static_cast<ROCKSDB_NAMESPACE::BuiltinFilterBitsBuilder*>(b)
      ->EstimatedFpRate(num_entries, bytes);
#endif
}

}  // namespace sstfilter::rocksdb_compat
