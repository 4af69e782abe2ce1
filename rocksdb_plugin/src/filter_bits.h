// The FilterBitsBuilder and FilterBitsReader behind every sstfilter policy:
// adapters from RocksDB's interfaces to filter/, with no filter math here.
#pragma once

#include <cstdint>

#include "sstfilter/format.h"
#include "table/block_based/filter_policy_internal.h"

namespace sstfilter::rocksdb_plugin {

// What one builder makes.
struct BuilderConfig {
  FilterKind kind = FilterKind::kBlockedBloom;
  // Sizes BlockedBloom filters (and the fallback when a cuckoo build fails).
  double bits_per_key = 10;
  // Cuckoo fingerprint width, 4..32.
  uint32_t fingerprint_bits = 0;
  // table_options.detect_filter_construct_corruption: keep the hashes after
  // Finish so MaybePostVerify can query the new filter for every one.
  bool post_verify = false;
};

// A builder that hashes each key once (sstfilter::HashKey), drops a hash
// equal to the previous one, and builds the filter in Finish. It never
// fails: if a cuckoo build is impossible it writes a BlockedBloom filter.
ROCKSDB_NAMESPACE::FilterBitsBuilder* NewBitsBuilder(
    const BuilderConfig& config);

// Parses `contents` once. A filter of either kind gets a reader over it;
// anything else (empty, truncated, corrupt, unknown kind or version) gets a
// reader that answers "may match" for every key. Readers are immutable.
ROCKSDB_NAMESPACE::FilterBitsReader* NewBitsReader(
    const ROCKSDB_NAMESPACE::Slice& contents);

}  // namespace sstfilter::rocksdb_plugin
