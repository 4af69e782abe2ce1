// Internal, but installed: the inline probe of the common static cuckoo
// filter (one table, no stash, fingerprints of at most 16 bits, format v2),
// so that a reader (the RocksDB plugin's) hashes and probes a key with no
// call. Where a hash lives is cuckoo_location.h.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sstfilter/detail/cuckoo_location.h"

namespace sstfilter::detail::cuckoo {

// What the probe of a static filter needs of its one table, flattened so
// that a reader holds it by value. Valid only where 8 bytes can be read
// from any bucket's first byte: format v2, whose metadata follows the slots.
struct StaticTable {
  const uint8_t* slots = nullptr;
  uint64_t num_buckets = 0;
  uint32_t seed = 0;
  uint32_t fingerprint_bits = 0;
  uint32_t fingerprint_range = 0;
  WordLanes lanes;

  Location Locate(uint64_t hash) const {
    return cuckoo::Locate(hash, seed, num_buckets, fingerprint_range, 0);
  }
  const uint8_t* BucketAddress(uint64_t bucket) const {
    return slots + (BucketBitOffset(bucket, fingerprint_bits) >> 3);
  }
  bool EitherContains(const Location& loc) const {
    return lanes.EitherContains(
        BucketWord(slots, loc.bucket, fingerprint_bits),
        BucketWord(slots, loc.alternate, fingerprint_bits), loc.fingerprint);
  }
};

// Both bucket words are loaded before either is compared, so an absent key
// costs about one memory latency, not two.
inline bool StaticMayContain(const StaticTable& t, uint64_t hash) {
  return t.EitherContains(t.Locate(hash));
}

// In groups: hash and locate each key and prefetch its two buckets, then
// test them. hash_at(i) gives key i's hash (see MayContainBatchOf in
// blocked_bloom_probe.h).
template <typename HashAt>
inline void StaticMayContainBatchOf(const StaticTable& t, size_t count,
                                    HashAt&& hash_at, bool* results) {
  constexpr size_t kGroup = 16;
  Location group[kGroup];
  for (size_t start = 0; start < count; start += kGroup) {
    const size_t n = count - start < kGroup ? count - start : kGroup;
    for (size_t i = 0; i < n; ++i) {
      group[i] = t.Locate(hash_at(start + i));
      __builtin_prefetch(t.BucketAddress(group[i].bucket));
      __builtin_prefetch(t.BucketAddress(group[i].alternate));
    }
    for (size_t i = 0; i < n; ++i) {
      results[start + i] = t.EitherContains(group[i]);
    }
  }
}

inline void StaticMayContainBatch(const StaticTable& t, const uint64_t* hashes,
                                  size_t count, bool* results) {
  StaticMayContainBatchOf(
      t, count, [hashes](size_t i) { return hashes[i]; }, results);
}

}  // namespace sstfilter::detail::cuckoo
