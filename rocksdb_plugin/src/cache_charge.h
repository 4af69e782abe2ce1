// Charging the memory of filter construction to the block cache
// (BlockBasedTableOptions::cache_usage_options, CacheEntryRole::
// kFilterConstruction), as RocksDB's own Bloom and Ribbon builders do
// (XXPH3FilterBitsBuilder, table/block_based/filter_policy.cc), with entries
// such as its CacheReservationManager inserts (cache/
// cache_reservation_manager.{h,cc}): a charge and no value, held while the
// memory is in use and erased when it is freed. Our own code over the public
// Cache API (rocksdb_compat.h): against Debian's 7.8 we may include no
// internal RocksDB header.
//
// What a builder charges (filter_bits.cc): each 32 KiB chunk of key hashes
// before it is allocated, until the hashes are freed (in Finish, or in
// MaybePostVerify with detect_filter_construct_corruption); the filter
// before it is allocated in Finish, until the builder is destroyed (RocksDB
// destroys it once the filter block is written). The sum is charged in
// entries of 256 KiB, rounded up.
//
// When a cache with strict_capacity_limit refuses an entry, the build goes
// on and succeeds, as RocksDB's own builders' do (XXPH3FilterBitsBuilder
// ignores a refused reservation; Ribbon falls back to Bloom): the bytes stay
// counted, so a later Add inserts what is missing once the cache has room,
// and the builder logs the first refusal to the DB's LOG as a warning
// (CacheCharge::Add's words). A filter is never dropped or weakened for it,
// and no flush or compaction fails for it: RocksDB asserts that Finish's
// status is OK or Corruption (BlockBasedTableBuilder::WriteFilterBlock), and
// a failed flush would be a background error that stops writes. So the
// memory of a build that the cache refused is, for that build, not bounded
// by the cache: that is RocksDB's own trade-off.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "rocksdb/status.h"
#include "rocksdb/table.h"
#include "rocksdb_compat.h"  // the whole Cache class, on every release

namespace sstfilter::rocksdb_plugin {

// The block cache that `table_options` ask filter construction to be
// charged to, or null. The decision is the kFilterConstruction override
// unless it is kFallback, then cache_usage_options.options, then kDisabled,
// as table.h documents (every release from 7.8 to 11.x).
std::shared_ptr<ROCKSDB_NAMESPACE::Cache> FilterConstructionChargeCache(
    const ROCKSDB_NAMESPACE::BlockBasedTableOptions& table_options);

// Bytes in use, charged to a cache in whole entries, rounded up: the charge
// never falls below the bytes while the cache grants it. Used by one thread
// at a time. Releases everything when destroyed.
class CacheCharge {
 public:
  // RocksDB's own entry size (kSizeDummyEntry, cache_reservation_manager.h):
  // a large build inserts few entries, a small one charges one.
  static constexpr size_t kEntryBytes = size_t{256} << 10;

  explicit CacheCharge(std::shared_ptr<ROCKSDB_NAMESPACE::Cache> cache);
  ~CacheCharge();
  CacheCharge(const CacheCharge&) = delete;
  CacheCharge& operator=(const CacheCharge&) = delete;

  // Counts `bytes` more in use and inserts entries until they are covered.
  // A cache with strict_capacity_limit may refuse an entry: the bytes stay
  // counted (a later Add inserts what is missing) and the status is
  // MemoryLimit("sstfilter: block cache full under strict_capacity_limit:
  // filter construction (kFilterConstruction) grew by <bytes> bytes of
  // <what> to <in use> bytes and needs another 262144-byte entry (capacity
  // <c>, usage <u>)", <the cache's message>). Any other refusal is Aborted
  // ("sstfilter: the block cache refused an entry: filter construction...").
  ROCKSDB_NAMESPACE::Status Add(size_t bytes, const char* what);

  // Counts `bytes` (at most the bytes in use) fewer and erases the entries
  // no longer needed.
  void Subtract(size_t bytes);

 private:
  size_t bytes_charged() const { return entries_.size() * kEntryBytes; }

  const std::shared_ptr<ROCKSDB_NAMESPACE::Cache> cache_;
  std::vector<ROCKSDB_NAMESPACE::Cache::Handle*> entries_;
  size_t bytes_in_use_ = 0;
};

}  // namespace sstfilter::rocksdb_plugin
