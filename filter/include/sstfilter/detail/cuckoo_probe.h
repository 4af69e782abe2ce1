// Internal, but installed: where a hash lives in a cuckoo table, and the
// inline probe of the common static filter (one table, no stash,
// fingerprints of at most 16 bits, format v2), so that a reader (the RocksDB
// plugin's) hashes and probes a key with no call. See cuckoo_filter.h for
// the derivations and the layout.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sstfilter/detail/endian.h"
#include "sstfilter/hash.h"

namespace sstfilter::detail::cuckoo {

// 2^64 / golden ratio, the usual odd constant to spread a small value (a
// seed; a fingerprint, for the low bits of a chained table's alternate).
inline constexpr uint64_t kSeedMultiplier = 0x9e3779b97f4a7c15ULL;
// The multiplier of MurmurHash64A (Appleby): spreads a fingerprint before
// FastRange64 picks R(fp) for the alternate bucket.
inline constexpr uint64_t kAlternateMultiplier = 0xc6a4a7935bd1e995ULL;

// alternate_t(i, fp) of table `level` t of a chain (see the header):
// (R_0(fp) - i) mod m_0 on the top bits, an fp-derived XOR on the low t.
// Applying it twice gives i back.
inline uint64_t AlternateBucket(uint64_t bucket, uint32_t fingerprint,
                                uint64_t num_buckets, uint32_t level) {
  const uint64_t base = num_buckets >> level;
  const uint64_t high = bucket >> level;
  const uint64_t r = FastRange64(fingerprint * kAlternateMultiplier, base);
  const uint64_t alternate_high = r >= high ? r - high : r + base - high;
  if (level == 0) return alternate_high;
  const uint64_t flip = (fingerprint * kSeedMultiplier) >> (64 - level);
  return (alternate_high << level) |
         ((bucket ^ flip) & ((uint64_t{1} << level) - 1));
}

// A hash's first bucket and fingerprint in a table of `num_buckets` with
// `seed` and 2^f - 1 nonzero fingerprints (`fingerprint_range`).
struct BucketAndFingerprint {
  uint64_t bucket;
  uint32_t fingerprint;
};

inline BucketAndFingerprint SplitHash(uint64_t hash, uint32_t seed,
                                      uint64_t num_buckets,
                                      uint32_t fingerprint_range) {
  const uint64_t hs =
      seed == 0 ? hash : Remix64(hash ^ (seed * kSeedMultiplier));
  return {FastRange64(hs, num_buckets),
          1 + FastRange32(static_cast<uint32_t>(hs), fingerprint_range)};
}

// The SWAR test of a bucket word for f <= 16: a whole bucket (4f bits at a
// bit offset below 8) fits in one 64-bit word. A field x is zero iff
// (x - 1) & ~x has its top bit, and borrows only move upward from a zero
// field, so the test is exact for "any field zero" (Mycroft's haszero
// trick, generalized from bytes to f-bit fields).
struct WordLanes {
  uint64_t low = 0;   // bit 0 of each of the 4 fields
  uint64_t high = 0;  // top bit of each of the 4 fields

  static WordLanes For(uint32_t fingerprint_bits) {
    WordLanes lanes;
    for (uint32_t j = 0; j < 4; ++j)
      lanes.low |= uint64_t{1} << (j * fingerprint_bits);
    lanes.high = lanes.low << (fingerprint_bits - 1);
    return lanes;
  }

  // Whether either word (a bucket's fields in its low 4f bits, garbage
  // above) holds `fingerprint`.
  bool EitherContains(uint64_t first, uint64_t second,
                      uint32_t fingerprint) const {
    const uint64_t broadcast = fingerprint * low;
    const uint64_t a = first ^ broadcast;
    const uint64_t b = second ^ broadcast;
    return ((((a - low) & ~a) | ((b - low) & ~b)) & high) != 0;
  }
};

// What the probe of a static filter needs, flattened so that a reader holds
// it by value. Valid only where 8 bytes can be read from any bucket's first
// byte: format v2, whose metadata follows the slots.
struct StaticShape {
  const uint8_t* slots = nullptr;
  uint64_t num_buckets = 0;
  uint32_t seed = 0;
  uint32_t fingerprint_bits = 0;
  uint32_t fingerprint_range = 0;
  WordLanes lanes;

  const uint8_t* BucketAddress(uint64_t bucket) const {
    return slots + ((bucket * 4 * fingerprint_bits) >> 3);
  }
  uint64_t BucketWord(uint64_t bucket) const {
    const uint64_t bit = bucket * 4 * fingerprint_bits;
    return LoadLittleEndian<uint64_t>(slots + (bit >> 3)) >> (bit & 7);
  }
};

// A key's two buckets and fingerprint in a static filter.
struct StaticLocation {
  uint64_t bucket;
  uint64_t alternate;
  uint32_t fingerprint;
};

inline StaticLocation LocateStatic(const StaticShape& s, uint64_t hash) {
  const BucketAndFingerprint bf =
      SplitHash(hash, s.seed, s.num_buckets, s.fingerprint_range);
  return {bf.bucket,
          AlternateBucket(bf.bucket, bf.fingerprint, s.num_buckets, 0),
          bf.fingerprint};
}

// Both bucket words are loaded before either is compared, so an absent key
// costs about one memory latency, not two.
inline bool StaticMayContain(const StaticShape& s, uint64_t hash) {
  const StaticLocation loc = LocateStatic(s, hash);
  const uint64_t first = s.BucketWord(loc.bucket);
  const uint64_t second = s.BucketWord(loc.alternate);
  return s.lanes.EitherContains(first, second, loc.fingerprint);
}

// In groups: hash and locate each key and prefetch its two buckets, then
// test them. hash_at(i) gives key i's hash (see MayContainBatchOf in
// blocked_bloom_probe.h).
template <typename HashAt>
inline void StaticMayContainBatchOf(const StaticShape& s, size_t count,
                                    HashAt&& hash_at, bool* results) {
  constexpr size_t kGroup = 16;
  StaticLocation group[kGroup];
  for (size_t start = 0; start < count; start += kGroup) {
    const size_t n = count - start < kGroup ? count - start : kGroup;
    for (size_t i = 0; i < n; ++i) {
      group[i] = LocateStatic(s, hash_at(start + i));
      __builtin_prefetch(s.BucketAddress(group[i].bucket));
      __builtin_prefetch(s.BucketAddress(group[i].alternate));
    }
    for (size_t i = 0; i < n; ++i) {
      results[start + i] = s.lanes.EitherContains(
          s.BucketWord(group[i].bucket), s.BucketWord(group[i].alternate),
          group[i].fingerprint);
    }
  }
}

inline void StaticMayContainBatch(const StaticShape& s, const uint64_t* hashes,
                                  size_t count, bool* results) {
  StaticMayContainBatchOf(
      s, count, [hashes](size_t i) { return hashes[i]; }, results);
}

}  // namespace sstfilter::detail::cuckoo
