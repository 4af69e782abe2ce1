// Internal, but installed: where a hash lives in a cuckoo table, the one
// description that the static build, the dynamic filter, the view and the
// inline probe (cuckoo_probe.h, used by the RocksDB plugin's reader) share:
// a hash's bucket pair and fingerprint, and the 64-bit word a bucket's slots
// are read from. See cuckoo_filter.h for the derivations and the layout.
#pragma once

#include <cstdint>

#include "sstfilter/detail/endian.h"
#include "sstfilter/hash.h"

namespace sstfilter::detail::cuckoo {

inline constexpr uint32_t kSlotsPerBucket = 4;
// 2^64 / golden ratio, the usual odd constant to spread a small value (a
// seed; a fingerprint, for the low bits of a chained table's alternate).
inline constexpr uint64_t kSeedMultiplier = 0x9e3779b97f4a7c15ULL;
// The multiplier of MurmurHash64A (Appleby): spreads a fingerprint before
// FastRange64 picks R(fp) for the alternate bucket.
inline constexpr uint64_t kAlternateMultiplier = 0xc6a4a7935bd1e995ULL;

// 2^f - 1: how many nonzero f-bit fingerprints there are.
inline uint32_t FingerprintRange(uint32_t fingerprint_bits) {
  return static_cast<uint32_t>((uint64_t{1} << fingerprint_bits) - 1);
}

// alternate_t(i, fp) of table t = `table_index` of a chain (see the header):
// (R_0(fp) - i) mod m_0 on the top bits, an fp-derived XOR on the low t.
// Applying it twice gives i back.
inline uint64_t AlternateBucket(uint64_t bucket, uint32_t fingerprint,
                                uint64_t num_buckets, uint32_t table_index) {
  const uint64_t base = num_buckets >> table_index;
  const uint64_t high = bucket >> table_index;
  const uint64_t r = FastRange64(fingerprint * kAlternateMultiplier, base);
  const uint64_t alternate_high = r >= high ? r - high : r + base - high;
  if (table_index == 0) return alternate_high;
  const uint64_t flip = (fingerprint * kSeedMultiplier) >> (64 - table_index);
  return (alternate_high << table_index) |
         ((bucket ^ flip) & ((uint64_t{1} << table_index) - 1));
}

// Where one hash lives in one table: its two buckets and its fingerprint.
struct Location {
  uint64_t bucket;
  uint64_t alternate;
  uint32_t fingerprint;
};

// `hash` in table `table_index` of a chain (0 for a static filter) of
// `num_buckets` buckets with `seed` and `fingerprint_range` = 2^f - 1.
inline Location Locate(uint64_t hash, uint32_t seed, uint64_t num_buckets,
                       uint32_t fingerprint_range, uint32_t table_index) {
  const uint64_t hs =
      seed == 0 ? hash : Remix64(hash ^ (seed * kSeedMultiplier));
  const uint64_t bucket = FastRange64(hs, num_buckets);
  const uint32_t fingerprint =
      1 + FastRange32(static_cast<uint32_t>(hs), fingerprint_range);
  return {bucket,
          AlternateBucket(bucket, fingerprint, num_buckets, table_index),
          fingerprint};
}

// The bit of the slot stream at which `bucket`'s 4 slots start.
inline uint64_t BucketBitOffset(uint64_t bucket, uint32_t fingerprint_bits) {
  return bucket * kSlotsPerBucket * fingerprint_bits;
}

// The 8 bytes from `bucket`'s first byte, shifted so that its 4 fields are
// the low 4f bits (garbage above): a whole bucket for f <= 16. The 8 bytes
// must be readable, as they are in format v2, whose metadata follows the
// slots (packed_slots.h loads the last buckets of other buffers clamped).
inline uint64_t BucketWord(const uint8_t* slots, uint64_t bucket,
                           uint32_t fingerprint_bits) {
  const uint64_t bit = BucketBitOffset(bucket, fingerprint_bits);
  return LoadLittleEndian<uint64_t>(slots + (bit >> 3)) >> (bit & 7);
}

// The SWAR test of a bucket word for f <= 16. A field x is zero iff
// (x - 1) & ~x has its top bit, and borrows only move upward from a zero
// field, so the test is exact for "any field zero" (Mycroft's haszero
// trick, generalized from bytes to f-bit fields).
struct WordLanes {
  uint64_t low = 0;   // bit 0 of each of the 4 fields
  uint64_t high = 0;  // top bit of each of the 4 fields

  static WordLanes For(uint32_t fingerprint_bits) {
    WordLanes lanes;
    for (uint32_t j = 0; j < kSlotsPerBucket; ++j) {
      lanes.low |= uint64_t{1} << (j * fingerprint_bits);
    }
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

}  // namespace sstfilter::detail::cuckoo
