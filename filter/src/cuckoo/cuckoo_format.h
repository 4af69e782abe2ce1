// Internal: what the writers of the cuckoo format (cuckoo_build.cc) and its
// parser (cuckoo_view.cc) agree on besides the slots (which are
// sstfilter/detail/cuckoo_bucket_array.h): the sizes of the block's other
// parts, the stash, a bucket array's FPR, and the size of a static filter (how
// many buckets n keys take at load 0.96). See cuckoo_filter.h for the layout.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "sstfilter/cuckoo_filter.h"
#include "sstfilter/detail/cuckoo_bucket_array.h"

namespace sstfilter {
namespace detail::cuckoo {

// Format v1: an 8-byte filter header, then per bucket array a 12-byte bucket
// array header, its slots and its stash.
inline constexpr size_t kV1HeaderBytes = 8;
inline constexpr size_t kBucketArrayRecordBytes =
    12;  // a bucket array record, in v1 and v2
inline constexpr size_t kStashEntryBytes = 8;
// Format v2: every bucket array's slots, the stashes, then the metadata: a
// 4-byte checksum, a 12-byte record per bucket array, the key count (8), 4
// bytes of fields and the tag.
inline constexpr size_t kMetadataFixedBytes = 20;
inline size_t MetadataBytes(size_t num_bucket_arrays) {
  return kMetadataFixedBytes + kBucketArrayRecordBytes * num_bucket_arrays;
}
inline constexpr uint64_t kMaxBuckets = std::numeric_limits<uint32_t>::max();

inline Status CheckFingerprintBits(uint32_t fingerprint_bits) {
  if (fingerprint_bits < CuckooLimits::kMinFingerprintBits ||
      fingerprint_bits > CuckooLimits::kMaxFingerprintBits) {
    return Status::InvalidArgument("fingerprint_bits must be in 4..32, not " +
                                   std::to_string(fingerprint_bits));
  }
  return Status::Ok();
}

// Static sizing: a target load of 0.96 = 96 keys per 25 buckets of 4 slots,
// below the ~0.98 threshold of 4-slot cuckoo hashing (Fan et al. report
// 95.5% reached by random walks). Integer so that sizes are exact.
inline constexpr uint64_t kKeysPerStep = 96;
inline constexpr uint64_t kBucketsPerStep = 25;

// Buckets of a static filter for `num_keys` distinct keys at load 0.96
// (may exceed kMaxBuckets: the caller checks).
inline uint64_t StaticBuckets(uint64_t num_keys) {
  const unsigned __int128 m =
      (static_cast<unsigned __int128>(num_keys) * kBucketsPerStep +
       kKeysPerStep - 1) /
      kKeysPerStep;
  return static_cast<uint64_t>(m);
}

// Bytes of a static filter of `num_buckets` buckets: one bucket array and its
// metadata, or the metadata alone for no buckets (a filter of no keys).
inline size_t StaticFilterBytes(uint64_t num_buckets,
                                uint32_t fingerprint_bits) {
  if (num_buckets == 0) return MetadataBytes(0);
  return BucketArray::BytesFor(num_buckets, fingerprint_bits) +
         MetadataBytes(1);
}

// The most buckets (at most kMaxBuckets) of a static filter that fits in
// `bytes` (the inverse of StaticFilterBytes).
inline uint64_t StaticBucketsIn(size_t bytes, uint32_t fingerprint_bits) {
  if (bytes < MetadataBytes(1)) return 0;
  return std::min(
      BucketArray::BucketsIn(bytes - MetadataBytes(1), fingerprint_bits),
      kMaxBuckets);
}

// The FPR of one bucket array of m buckets whose query compares
// `items_compared` stored fingerprints on average (2 buckets * 4 * load) and
// checks `stash_entries`: a stored fingerprint equals the query's with
// p = 1/(2^f - 1), and a stash entry is compared when it sits in one of the
// query's two buckets (2/m).
inline double FprOfComparisons(double items_compared, double stash_entries,
                               uint64_t num_buckets,
                               uint32_t fingerprint_bits) {
  const double log_miss = std::log1p(
      -1.0 / static_cast<double>(FingerprintRange(fingerprint_bits)));
  const double stash_share =
      std::min(1.0, 2.0 / static_cast<double>(num_buckets));
  return -std::expm1(items_compared * log_miss +
                     stash_entries *
                         std::log1p(stash_share * std::expm1(log_miss)));
}

// An item that found no slot: one of its buckets and its fingerprint.
struct StashEntry {
  uint32_t bucket;
  uint32_t fingerprint;
};

inline bool StashMatches(const StashEntry& e, const Location& loc) {
  return e.fingerprint == loc.fingerprint &&
         (e.bucket == loc.bucket || e.bucket == loc.alternate);
}

// Whether the item at `loc` is in the bucket array's slots or its stash.
inline bool Holds(const BucketArray& array,
                  const std::vector<StashEntry>& stash, const Location& loc) {
  if (array.Contains(loc)) return true;
  for (const StashEntry& e : stash) {
    if (StashMatches(e, loc)) return true;
  }
  return false;
}

// The single probe of a bucket array with a stash (the view's and the dynamic
// filter's).
inline bool BucketArrayMayContain(const BucketArray& array,
                                  const std::vector<StashEntry>& stash,
                                  uint64_t hash) {
  const Location loc = array.Locate(hash);
  // Start the second bucket's load before the first is compared: an absent
  // key then costs about one memory latency, not two.
  __builtin_prefetch(array.BucketAddress(loc.alternate));
  return Holds(array, stash, loc);
}

}  // namespace detail::cuckoo

// One parsed bucket array of a CuckooView, private to the view and to
// CuckooFilter::Deserialize, which copies it.
struct CuckooView::Array {
  detail::cuckoo::BucketArray slots;
  std::vector<detail::cuckoo::StashEntry> stash;
};

}  // namespace sstfilter
