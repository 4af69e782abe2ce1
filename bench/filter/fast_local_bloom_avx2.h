// bench/filter/fast_local_bloom_avx2.h: the second reference of
// sstfilter-filter-bench compare, "FastLocalBloom-AVX2": RocksDB's own
// FastLocalBloomImpl (util/bloom_impl.h of the installed version's source)
// compiled for this machine with -DHAVE_AVX2 -mavx2 -O2 -DNDEBUG, which
// Debian's generic, assertion-enabled librocksdb is not. Builder and reader are
// small adapters of ours that do what RocksDB's FastLocalBloomBitsBuilder /
// FastLocalBloomBitsReader (table/block_based/filter_policy.cc, format_version
// 5) do with it, so the filter bytes are the same as
// "bloomfilter:<bits_per_key>" writes.
#pragma once

#include "table/block_based/filter_policy_internal.h"

namespace sstfilter::bench {

// True if this CPU runs AVX2 (the reference's translation unit needs it).
bool FastLocalBloomAvx2Supported();

// The key hash of RocksDB's filters, rocksdb::Hash64 (util/hash.h, not
// a public header). Its readers' HashMayMatch takes this value.
uint64_t RocksDbKeyHash(const ROCKSDB_NAMESPACE::Slice& key);

// A builder of a FastLocalBloom filter at `millibits_per_key` (RocksDB keeps
// bits/key in thousandths; >= 1000).
ROCKSDB_NAMESPACE::FilterBitsBuilder* NewFastLocalBloomAvx2Builder(
    int millibits_per_key);

// A reader over filter bytes in FastLocalBloom's format (5 bytes of
// metadata after the cache lines). Anything else answers "may match".
ROCKSDB_NAMESPACE::FilterBitsReader* NewFastLocalBloomAvx2Reader(
    const ROCKSDB_NAMESPACE::Slice& contents);

}  // namespace sstfilter::bench
