// Internal, but installed: one bucket array of a cuckoo filter, the one place
// that knows where a hash lives in it (its bucket pair and fingerprint) and how
// its buckets are packed into bytes. The static build, the dynamic filter
// and the view (sstfilter/cuckoo_filter.h, which derives the rules and lays
// out the bytes) all use it, and so does the RocksDB plugin's reader, which
// probes the common static filter inline (StaticMayContain below). As Fan et
// al.'s PackedTable is apart from their CuckooFilter, the bucket array knows
// nothing of the kick-out, the stash or the chain.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "sstfilter/detail/endian.h"
#include "sstfilter/hash.h"

namespace sstfilter::detail::cuckoo {

inline constexpr uint32_t kSlotsPerBucket = 4;
// 2^64 / golden ratio, the usual odd constant to spread a small value (a
// seed; a fingerprint, for the low bits of a chained bucket array's alternate).
inline constexpr uint64_t kSeedMultiplier = 0x9e3779b97f4a7c15ULL;
// The multiplier of MurmurHash64A (Appleby): spreads a fingerprint before
// FastRange64 picks R(fp) for the alternate bucket.
inline constexpr uint64_t kAlternateMultiplier = 0xc6a4a7935bd1e995ULL;

// 2^f - 1: how many nonzero f-bit fingerprints there are, and the mask of
// one slot.
inline constexpr uint32_t FingerprintRange(uint32_t fingerprint_bits) {
  return static_cast<uint32_t>((uint64_t{1} << fingerprint_bits) - 1);
}

// Where one hash lives in one bucket array: its two buckets and its
// fingerprint.
struct Location {
  uint64_t bucket;
  uint64_t alternate;
  uint32_t fingerprint;
};

// The 8 bytes of `data` (`size` bytes long) from `byte` on, little-endian.
// Bytes past the end read as zero: the 8-byte load is taken only when it is
// in range, so the last buckets never read past the buffer.
inline uint64_t LoadWordClamped(const uint8_t* data, size_t size, size_t byte) {
  if (byte + 8 <= size) return LoadLittleEndian<uint64_t>(data + byte);
  uint64_t word = 0;
  for (size_t k = 0; byte + k < size; ++k) {
    word |= static_cast<uint64_t>(data[byte + k]) << (8 * k);
  }
  return word;
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

  // The fields of `word` (a bucket's in its low 4f bits, garbage above)
  // that are zero, as their top bits; the lowest one flagged is exact.
  uint64_t ZeroFields(uint64_t word) const {
    return (word - low) & ~word & high;
  }

  // Whether either word holds `fingerprint`.
  bool EitherContains(uint64_t first, uint64_t second,
                      uint32_t fingerprint) const {
    const uint64_t broadcast = fingerprint * low;
    return (ZeroFields(first ^ broadcast) | ZeroFields(second ^ broadcast)) !=
           0;
  }
};

// Read access to one bucket array: bucket array t = `array_index` of a chain (0
// for a static filter) with `seed`, its buckets' 4 slots packed as f-bit fields
// (slot j of bucket i at bit (i*4 + j) * f of a little-endian bit stream;
// 0 marks an empty slot). Does not own the bytes; cheap to copy.
class BucketArray {
 public:
  // Up to this width a whole bucket (4f bits at a bit offset of 0 or 4)
  // fits in one 64-bit word, so WordBucketsContain compares 4 slots at once.
  static constexpr uint32_t kMaxWordBucketBits = 16;

  // Bytes of the packed slots of `num_buckets` buckets.
  static size_t BytesFor(uint64_t num_buckets, uint32_t fingerprint_bits) {
    return static_cast<size_t>((SlotBit(num_buckets, 0, fingerprint_bits) + 7) /
                               8);
  }
  // The most buckets whose packed slots fit in `slot_bytes` (the inverse of
  // BytesFor).
  static uint64_t BucketsIn(size_t slot_bytes, uint32_t fingerprint_bits) {
    return static_cast<uint64_t>(static_cast<unsigned __int128>(slot_bytes) *
                                 8 / SlotBit(1, 0, fingerprint_bits));
  }

  BucketArray() = default;
  // The slots at `slots`, of which `readable` bytes (at least BytesFor; more
  // where the block goes on past the slots) may be read: a bucket's 8-byte
  // load is clamped only where it would pass them.
  BucketArray(const uint8_t* slots, size_t readable, uint64_t num_buckets,
              uint32_t fingerprint_bits, uint32_t seed, uint32_t array_index)
      : slots_(slots),
        readable_(readable),
        num_buckets_(num_buckets),
        fingerprint_bits_(fingerprint_bits),
        fingerprint_range_(FingerprintRange(fingerprint_bits)),
        seed_(seed),
        array_index_(array_index) {
    if (HasWordBuckets()) lanes_ = WordLanes::For(fingerprint_bits);
  }

  const uint8_t* slots() const { return slots_; }
  size_t SizeBytes() const { return BytesFor(num_buckets_, fingerprint_bits_); }
  uint64_t num_buckets() const { return num_buckets_; }
  uint32_t fingerprint_bits() const { return fingerprint_bits_; }
  uint32_t seed() const { return seed_; }
  uint32_t array_index() const { return array_index_; }

  // Where `hash` lives (cuckoo_filter.h): hs = the hash under the seed,
  // bucket = FastRange64(hs, m), fingerprint = 1 + FastRange32(low32(hs),
  // 2^f - 1), never 0. kFirstArray: this is bucket array 0 (a static filter's),
  // so the chain's part of the alternate folds away at compile time.
  template <bool kFirstArray = false>
  Location Locate(uint64_t hash) const {
    const uint64_t hs =
        seed_ == 0 ? hash : Remix64(hash ^ (seed_ * kSeedMultiplier));
    const uint64_t bucket = FastRange64(hs, num_buckets_);
    const uint32_t fingerprint =
        1 + FastRange32(static_cast<uint32_t>(hs), fingerprint_range_);
    return {bucket, Alternate<kFirstArray>(bucket, fingerprint), fingerprint};
  }

  // alternate_t(i, fp) (cuckoo_filter.h): (R_0(fp) - i) mod m_0 on the top
  // bits, an fp-derived XOR on the low t. Applying it twice gives i back.
  template <bool kFirstArray = false>
  uint64_t Alternate(uint64_t bucket, uint32_t fingerprint) const {
    const uint32_t t = kFirstArray ? 0 : array_index_;
    const uint64_t base = num_buckets_ >> t;
    const uint64_t high = bucket >> t;
    const uint64_t r = FastRange64(fingerprint * kAlternateMultiplier, base);
    const uint64_t alternate_high = r >= high ? r - high : r + base - high;
    if constexpr (!kFirstArray) {
      if (t != 0) {
        const uint64_t flip = (fingerprint * kSeedMultiplier) >> (64 - t);
        return (alternate_high << t) |
               ((bucket ^ flip) & ((uint64_t{1} << t) - 1));
      }
    }
    return alternate_high;
  }

  uint32_t Get(uint64_t bucket, uint32_t slot) const {
    return static_cast<uint32_t>(WordAt(SlotBit(bucket, slot)) &
                                 fingerprint_range_);
  }

  // The reference probe, one slot at a time: the first slot of `bucket`
  // holding `value` (0 finds an empty slot), or -1.
  int Find(uint64_t bucket, uint32_t value) const {
    for (uint32_t j = 0; j < kSlotsPerBucket; ++j) {
      if (Get(bucket, j) == value) return static_cast<int>(j);
    }
    return -1;
  }

  uint32_t Count(uint64_t bucket, uint32_t value) const {
    uint32_t n = 0;
    for (uint32_t j = 0; j < kSlotsPerBucket; ++j) {
      n += Get(bucket, j) == value;
    }
    return n;
  }

  // Find(bucket, 0): the first empty slot, or -1; for f <= 16 from one load.
  int FirstEmptySlot(uint64_t bucket) const {
    if (!HasWordBuckets()) return Find(bucket, 0);
    const uint64_t zero = lanes_.ZeroFields(BucketWord(bucket));
    return zero == 0
               ? -1
               : static_cast<int>(__builtin_ctzll(zero) / fingerprint_bits_);
  }

  // Whether either of the location's buckets holds its fingerprint.
  bool Contains(const Location& loc) const {
    if (!HasWordBuckets()) {
      return Find(loc.bucket, loc.fingerprint) >= 0 ||
             Find(loc.alternate, loc.fingerprint) >= 0;
    }
    return WordBucketsContain(loc);
  }

  // Whether WordBucketsContain applies: f <= 16.
  bool HasWordBuckets() const {
    return fingerprint_bits_ <= kMaxWordBucketBits;
  }

  // Contains for f <= 16: one load per bucket, both made before either is
  // compared (so an absent key costs about one memory latency, not two),
  // and the SWAR test of both buckets in one branch. kInBounds: the loads
  // skip their clamping, for a bucket array whose BucketWordsInBounds().
  template <bool kInBounds = false>
  bool WordBucketsContain(const Location& loc) const {
    return lanes_.EitherContains(BucketWord<kInBounds>(loc.bucket),
                                 BucketWord<kInBounds>(loc.alternate),
                                 loc.fingerprint);
  }

  // Whether an 8-byte load from every bucket's first byte stays within the
  // readable bytes, as it does in format v2, whose metadata follows the
  // slots. The probes that skip clamping (the hot path of a reader, where a
  // bound check per load shows) need it.
  bool BucketWordsInBounds() const {
    return num_buckets_ > 0 &&
           (SlotBit(num_buckets_ - 1, 0) >> 3) + 8 <= readable_;
  }

  const uint8_t* BucketAddress(uint64_t bucket) const {
    return slots_ + (SlotBit(bucket, 0) >> 3);
  }

  uint64_t CountOccupied() const {
    uint64_t n = 0;
    for (uint64_t i = 0; i < num_buckets_; ++i) {
      n += kSlotsPerBucket - Count(i, 0);
    }
    return n;
  }

 protected:
  // The bit of the slot stream at which slot `slot` of `bucket` starts: the
  // one place that knows how the slots are packed.
  static uint64_t SlotBit(uint64_t bucket, uint32_t slot,
                          uint32_t fingerprint_bits) {
    return (bucket * kSlotsPerBucket + slot) * fingerprint_bits;
  }
  uint64_t SlotBit(uint64_t bucket, uint32_t slot) const {
    return SlotBit(bucket, slot, fingerprint_bits_);
  }
  // The 8 bytes from the byte holding `bit`, shifted so that `bit` is bit 0
  // (at least 57 bits of the stream from `bit` on).
  uint64_t WordAt(uint64_t bit) const {
    return LoadWordClamped(slots_, readable_, bit >> 3) >> (bit & 7);
  }
  // `bucket`'s 4 fields in the low 4f bits (garbage above): a whole bucket
  // for f <= 16.
  template <bool kInBounds = false>
  uint64_t BucketWord(uint64_t bucket) const {
    const uint64_t bit = SlotBit(bucket, 0);
    if constexpr (kInBounds) {
      return LoadLittleEndian<uint64_t>(slots_ + (bit >> 3)) >> (bit & 7);
    }
    return WordAt(bit);
  }
  uint32_t fingerprint_range() const { return fingerprint_range_; }
  size_t readable() const { return readable_; }
  const WordLanes& lanes() const { return lanes_; }

 private:
  const uint8_t* slots_ = nullptr;
  size_t readable_ = 0;
  uint64_t num_buckets_ = 0;
  uint32_t fingerprint_bits_ = 0;
  uint32_t fingerprint_range_ = 0;
  uint32_t seed_ = 0;
  uint32_t array_index_ = 0;
  WordLanes lanes_;  // for f <= 16
};

// Read and write access; the slots (exactly BytesFor bytes) must be
// writable.
class MutableBucketArray : public BucketArray {
 public:
  MutableBucketArray(uint8_t* slots, uint64_t num_buckets,
                     uint32_t fingerprint_bits, uint32_t seed,
                     uint32_t array_index)
      : BucketArray(slots, BytesFor(num_buckets, fingerprint_bits), num_buckets,
                    fingerprint_bits, seed, array_index),
        mutable_slots_(slots) {}

  // Stores `value` in the slot and returns what was there.
  uint32_t Exchange(uint64_t bucket, uint32_t slot, uint32_t value) {
    const uint64_t bit = SlotBit(bucket, slot);
    const size_t byte = static_cast<size_t>(bit >> 3);
    const uint32_t shift = static_cast<uint32_t>(bit & 7);
    const uint64_t mask = uint64_t{fingerprint_range()} << shift;
    const uint64_t word = LoadWordClamped(slots(), readable(), byte);
    StoreWord(byte, (word & ~mask) | (static_cast<uint64_t>(value) << shift));
    return static_cast<uint32_t>((word & mask) >> shift);
  }

  // Puts `fingerprint` in the first empty slot of `bucket` (the slot
  // FirstEmptySlot names); false if it is full. For f <= 16 from the one
  // load: the zero test flags the empty field's top bit, f - 1 above where
  // the field starts, so no slot index is divided out of it and the empty
  // field is filled by an OR.
  bool TryAdd(uint64_t bucket, uint32_t fingerprint) {
    if (!HasWordBuckets()) return TryReplace(bucket, 0, fingerprint);
    const uint64_t bit = SlotBit(bucket, 0);
    const size_t byte = static_cast<size_t>(bit >> 3);
    const uint32_t shift = static_cast<uint32_t>(bit & 7);
    const uint64_t word = LoadWordClamped(slots(), readable(), byte);
    const uint64_t zero = lanes().ZeroFields(word >> shift);
    if (zero == 0) return false;
    const uint32_t field_bit =
        static_cast<uint32_t>(__builtin_ctzll(zero)) + 1 - fingerprint_bits();
    StoreWord(byte, word | (static_cast<uint64_t>(fingerprint)
                            << (shift + field_bit)));
    return true;
  }

  // Empties one slot of `bucket` holding `fingerprint`; false if none does.
  bool TryRemove(uint64_t bucket, uint32_t fingerprint) {
    return TryReplace(bucket, fingerprint, 0);
  }

 private:
  // Stores `value` in the first slot of `bucket` holding `old_value`; false
  // if none does.
  bool TryReplace(uint64_t bucket, uint32_t old_value, uint32_t value) {
    const int slot = Find(bucket, old_value);
    if (slot < 0) return false;
    Exchange(bucket, static_cast<uint32_t>(slot), value);
    return true;
  }

  // Writes back a word LoadWordClamped read at `byte`, byte by byte where
  // it passes the slots.
  void StoreWord(size_t byte, uint64_t word) {
    if (byte + 8 <= readable()) {
      StoreLittleEndian<uint64_t>(mutable_slots_ + byte, word);
      return;
    }
    for (size_t k = 0; byte + k < readable(); ++k) {
      mutable_slots_[byte + k] = static_cast<uint8_t>(word >> (8 * k));
    }
  }

  uint8_t* mutable_slots_;
};

// The batched probe: in groups, locate each hash and prefetch its two
// buckets, then call test(i, location) for each, so that a group's misses
// overlap. hash_at(i) gives hash i (see MayContainBatchOf in
// blocked_bloom_probe.h); kFirstArray as in BucketArray::Locate. A group of
// 16 keys puts 32 bucket loads in flight, at least as many misses as a core
// keeps outstanding (10-12 L1 line-fill buffers on Intel cores since Sandy
// Bridge, by Intel's optimization manual); a larger group only adds stack.
template <bool kFirstArray, typename HashAt, typename Test>
inline void ProbeInGroups(const BucketArray& array, size_t count,
                          HashAt&& hash_at, Test&& test) {
  constexpr size_t kGroup = 16;
  Location group[kGroup];
  for (size_t start = 0; start < count; start += kGroup) {
    const size_t n = std::min(kGroup, count - start);
    for (size_t i = 0; i < n; ++i) {
      group[i] = array.Locate<kFirstArray>(hash_at(start + i));
      __builtin_prefetch(array.BucketAddress(group[i].bucket));
      __builtin_prefetch(array.BucketAddress(group[i].alternate));
    }
    for (size_t i = 0; i < n; ++i) test(start + i, group[i]);
  }
}

// The probe of the common static filter, which a reader (the RocksDB
// plugin's) makes inline: one bucket array, no stash, f <= 16, its bucket words
// in bounds (CuckooView::StaticBucketArrayOf).
inline bool StaticMayContain(const BucketArray& array, uint64_t hash) {
  return array.WordBucketsContain<true>(array.Locate<true>(hash));
}

template <typename HashAt>
inline void StaticMayContainBatchOf(const BucketArray& array, size_t count,
                                    HashAt&& hash_at, bool* results) {
  ProbeInGroups<true>(array, count, hash_at,
                      [&array, results](size_t i, const Location& loc) {
                        results[i] = array.WordBucketsContain<true>(loc);
                      });
}

inline void StaticMayContainBatch(const BucketArray& array,
                                  const uint64_t* hashes, size_t count,
                                  bool* results) {
  StaticMayContainBatchOf(
      array, count, [hashes](size_t i) { return hashes[i]; }, results);
}

}  // namespace sstfilter::detail::cuckoo
