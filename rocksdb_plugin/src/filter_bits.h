// The FilterBitsBuilder (builder.cc) and FilterBitsReader (readers.cc)
// behind every sstfilter policy: adapters from RocksDB's interfaces to
// filter/, with no filter math here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "probe_sampler.h"
#include "rocksdb_compat.h"
#include "sstfilter/block_classifier.h"
#include "sstfilter/format.h"
#include "sstfilter/simd.h"
#include "sstfilter/usable_space.h"
#include "table/block_based/filter_policy_internal.h"

namespace sstfilter::rocksdb_plugin {

inline std::string_view ToView(const ROCKSDB_NAMESPACE::Slice& s) {
  return std::string_view(s.data(), s.size());
}

// The largest filter block a builder writes: 4 GiB - 1. RocksDB's own
// builders never reach 4 GiB (table/block_based/filter_policy.cc:
// FastLocalBloom caps its bits at 0xffffffc0 bytes and asserts the block
// fits 32 bits, the legacy Bloom caps at 0xffff0000 bits, Ribbon turns to
// Bloom past 950 million keys), so nothing in RocksDB meets a larger one.
// Past it, BlockedBloom stays at this size and its FPR rises (as
// FastLocalBloom's does); a cuckoo filter that would pass it is written as
// a BlockedBloom instead. At 10 bits/key that is 3.4 billion keys.
inline constexpr size_t kMaxFilterBlockBytes = 0xffffffffu;

// What one builder makes.
struct BuilderConfig {
  FilterKind kind = FilterKind::kBlockedBloom;
  // Sizes BlockedBloom filters (and the fallback when a cuckoo build fails).
  double bits_per_key = 10;
  // BlockedBloom: 1 forces one line per key, 2 takes the best layout.
  uint32_t lines_per_key = 2;
  // Cuckoo fingerprint width, 4..32.
  uint32_t fingerprint_bits = 0;
  // table_options.detect_filter_construct_corruption: keep the hashes after
  // Finish so MaybePostVerify can query the new filter for every one.
  bool post_verify = false;
  // The block cache that the key hashes and the filters are charged to
  // (cache_charge.h), or null.
  std::shared_ptr<ROCKSDB_NAMESPACE::Cache> charge_cache;
  // Where a charge the cache refuses is logged (the DB's LOG), or null.
  ROCKSDB_NAMESPACE::Logger* info_log = nullptr;
  // table_options.optimize_filters_for_memory: the policy's balance, and
  // Finish sizes the filter to its allocation's usable space
  // (sstfilter/usable_space.h); nullptr: the exact size, as when off.
  FprBalance* memory_balance = nullptr;
  // The largest filter Finish writes; smaller only in tests, which reach
  // the cap's behaviour with few keys.
  size_t max_filter_bytes = kMaxFilterBlockBytes;
};

// What every policy's builder takes from the context: post_verify, the
// charge (cache_charge.h) and the LOG.
BuilderConfig BaseConfig(
    const ROCKSDB_NAMESPACE::FilterBuildingContext& context);

// RocksDB's FilterBitsBuilder as of its newest release, on every release:
// the methods that an older RocksDB does not declare are still here (see
// rocksdb_compat.h), so that tests can hold them to Finish on every version.
class BitsBuilder : public ROCKSDB_NAMESPACE::FilterBitsBuilder {
 public:
  // Adds `key` and `alt` (its prefix) with RocksDB's de-duplication rules
  // (see filter_policy_internal.h): `alt` is dropped if it equals the
  // previous call's alt, `key`, or the last key added; `key` is dropped if
  // it equals the last key added or the previous call's alt.
  // (`virtual` as well as override: on older releases these are new.)
  virtual void AddKeyAndAlt(const ROCKSDB_NAMESPACE::Slice& key,
                            const ROCKSDB_NAMESPACE::Slice& alt)
      SSTFILTER_OVERRIDE_SINCE_9_6 = 0;

  // Bytes that Finish writes for `num_keys_added` distinct keys. (A cuckoo
  // build that needs a retry at a larger size writes ~1% more.)
  virtual size_t CalculateSpace(size_t num_keys_added)
      SSTFILTER_OVERRIDE_SINCE_10_9 = 0;

  // The model FPR of a filter of `bytes` bytes holding `num_keys_added`.
  virtual double EstimatedFpRate(size_t num_keys_added, size_t bytes)
      SSTFILTER_OVERRIDE_SINCE_10_9 = 0;

  // The next Finish writes at most `bytes` (a memory limit's share,
  // memory_ledger.h): a BlockedBloom of that size, its FPR higher, where
  // the filter would be larger. (Not below a BlockedBloom's smallest.)
  virtual void CapFilterBytes(size_t bytes) = 0;
};

// A builder that hashes each key once (sstfilter::HashKey), drops repeats as
// AddKey and AddKeyAndAlt say, and builds the filter in Finish. It never
// fails: if a cuckoo build is impossible (past the format's 2^32-1 buckets
// or config.max_filter_bytes) it writes a BlockedBloom filter, and a charge
// the block cache refuses is logged, not fatal (cache_charge.h).
// EstimateEntriesAdded may be called from another thread while keys are
// added (RocksDB's parallel compression).
BitsBuilder* NewBitsBuilder(const BuilderConfig& config);

// Parses `contents` once and reads it as ClassifyBlock
// (sstfilter/block_classifier.h) says for a policy of `family`: a filter of
// ours gets a reader over it, a block of RocksDB's kinds RocksDB's own
// reader (that of a policy from NewBloomFilterPolicy, which reads every
// built-in format from the block's metadata), and any other block a reader
// that answers "may match" for every key, as RocksDB's reader answers our
// blocks. With `sampler`, the reader reports one probe in
// LevelWorkload::kSampleEvery per thread to it (probe_sampler.h). Readers
// are immutable but for that.
ROCKSDB_NAMESPACE::FilterBitsReader* NewBitsReader(
    const ROCKSDB_NAMESPACE::Slice& contents, BlockFamily family,
    std::shared_ptr<const ProbeSampler> sampler = nullptr);

// NewBitsReader for the SIMD path `path` (sstfilter/simd.h) where
// NewBitsReader takes BestSimdPath(): for the tests and benchmarks that
// compare paths. A path the CPU cannot run probes as scalar.
ROCKSDB_NAMESPACE::FilterBitsReader* NewBitsReaderOnPath(
    const ROCKSDB_NAMESPACE::Slice& contents, BlockFamily family, SimdPath path,
    std::shared_ptr<const ProbeSampler> sampler = nullptr);

}  // namespace sstfilter::rocksdb_plugin
