// Internal: the slot storage of one cuckoo table, kept apart from the
// cuckoo algorithm (as Fan et al.'s PackedTable is apart from their
// CuckooFilter) so the packing can change without touching the kick-out.
// Slot j of bucket i is the f-bit field at bit (i*4 + j) * f of a
// little-endian bit stream; 0 marks an empty slot. See cuckoo_filter.h.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sstfilter/detail/cuckoo_location.h"
#include "sstfilter/detail/endian.h"

namespace sstfilter::detail {

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

// Writes back what LoadWordClamped read, skipping bytes past the end.
inline void StoreWordClamped(uint8_t* data, size_t size, size_t byte,
                             uint64_t word) {
  if (byte + 8 <= size) {
    StoreLittleEndian<uint64_t>(data + byte, word);
    return;
  }
  for (size_t k = 0; byte + k < size; ++k) {
    data[byte + k] = static_cast<uint8_t>(word >> (8 * k));
  }
}

// Read access to the packed slots of one table. Does not own the bytes.
class PackedSlotsView {
 public:
  // Up to this width a whole bucket (4f bits at a bit offset of 0 or 4)
  // fits in one 64-bit word, so WordBucketsContain compares 4 slots at once.
  static constexpr uint32_t kMaxWordBucketBits = 16;

  static size_t BytesFor(uint64_t num_buckets, uint32_t fingerprint_bits) {
    return static_cast<size_t>(
        (num_buckets * cuckoo::kSlotsPerBucket * fingerprint_bits + 7) / 8);
  }

  PackedSlotsView() = default;
  PackedSlotsView(const uint8_t* data, uint64_t num_buckets,
                  uint32_t fingerprint_bits)
      : data_(data),
        size_(BytesFor(num_buckets, fingerprint_bits)),
        num_buckets_(num_buckets),
        bits_(fingerprint_bits),
        mask_(cuckoo::FingerprintRange(fingerprint_bits)) {
    if (fingerprint_bits <= kMaxWordBucketBits) {
      lanes_ = cuckoo::WordLanes::For(fingerprint_bits);
    }
  }

  const uint8_t* data() const { return data_; }
  size_t SizeBytes() const { return size_; }
  uint64_t num_buckets() const { return num_buckets_; }
  uint32_t fingerprint_bits() const { return bits_; }
  uint32_t fingerprint_range() const { return mask_; }

  uint32_t Get(uint64_t bucket, uint32_t slot) const {
    const uint64_t bit = (bucket * cuckoo::kSlotsPerBucket + slot) * bits_;
    return static_cast<uint32_t>(
        (LoadWordClamped(data_, size_, bit >> 3) >> (bit & 7)) & mask_);
  }

  // The reference probe, one slot at a time: the first slot of `bucket`
  // holding `value` (0 finds an empty slot), or -1.
  int Find(uint64_t bucket, uint32_t value) const {
    for (uint32_t j = 0; j < cuckoo::kSlotsPerBucket; ++j) {
      if (Get(bucket, j) == value) return static_cast<int>(j);
    }
    return -1;
  }

  uint32_t Count(uint64_t bucket, uint32_t value) const {
    uint32_t n = 0;
    for (uint32_t j = 0; j < cuckoo::kSlotsPerBucket; ++j)
      n += Get(bucket, j) == value;
    return n;
  }

  // Same answer as Find(first, fp) >= 0 || Find(second, fp) >= 0.
  bool EitherBucketContains(uint64_t first, uint64_t second,
                            uint32_t fingerprint) const {
    if (!HasWordBuckets()) {
      return Find(first, fingerprint) >= 0 || Find(second, fingerprint) >= 0;
    }
    return WordBucketsContain(first, second, fingerprint);
  }

  // Find(bucket, 0): the first empty slot, or -1; for f <= 16 from one load
  // (the lowest field the zero test flags is exact: borrows only move up).
  int FirstEmptySlot(uint64_t bucket) const {
    if (!HasWordBuckets()) return Find(bucket, 0);
    const uint64_t word = BucketWord(bucket);
    const uint64_t zero = (word - lanes_.low) & ~word & lanes_.high;
    return zero == 0 ? -1 : static_cast<int>(__builtin_ctzll(zero) / bits_);
  }

  // Whether WordBucketsContain applies: f <= 16.
  bool HasWordBuckets() const { return bits_ <= kMaxWordBucketBits; }

  // EitherBucketContains for f <= 16: one load per bucket and the SWAR
  // test of cuckoo_location.h, both buckets in one branch.
  bool WordBucketsContain(uint64_t first, uint64_t second,
                          uint32_t fingerprint) const {
    return lanes_.EitherContains(BucketWord(first), BucketWord(second),
                                 fingerprint);
  }

  const uint8_t* BucketAddress(uint64_t bucket) const {
    return data_ + (cuckoo::BucketBitOffset(bucket, bits_) >> 3);
  }

  uint64_t CountOccupied() const {
    uint64_t n = 0;
    for (uint64_t i = 0; i < num_buckets_; ++i)
      n += cuckoo::kSlotsPerBucket - Count(i, 0);
    return n;
  }

 private:
  // cuckoo::BucketWord, clamped to the buffer.
  uint64_t BucketWord(uint64_t bucket) const {
    const uint64_t bit = cuckoo::BucketBitOffset(bucket, bits_);
    return LoadWordClamped(data_, size_, bit >> 3) >> (bit & 7);
  }

  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  uint64_t num_buckets_ = 0;
  uint32_t bits_ = 0;
  uint32_t mask_ = 0;
  cuckoo::WordLanes lanes_;  // for f <= 16
};

// Read and write access; the bytes must be writable.
class PackedSlots : public PackedSlotsView {
 public:
  PackedSlots(uint8_t* data, uint64_t num_buckets, uint32_t fingerprint_bits)
      : PackedSlotsView(data, num_buckets, fingerprint_bits),
        mutable_data_(data) {}

  // Stores `value` in the slot and returns what was there.
  uint32_t Exchange(uint64_t bucket, uint32_t slot, uint32_t value) {
    const uint64_t bit =
        (bucket * cuckoo::kSlotsPerBucket + slot) * fingerprint_bits();
    const size_t byte = static_cast<size_t>(bit >> 3);
    const uint32_t shift = static_cast<uint32_t>(bit & 7);
    const uint64_t mask = (uint64_t{1} << fingerprint_bits()) - 1;
    uint64_t word = LoadWordClamped(data(), SizeBytes(), byte);
    const uint32_t old = static_cast<uint32_t>((word >> shift) & mask);
    word = (word & ~(mask << shift)) | (static_cast<uint64_t>(value) << shift);
    StoreWordClamped(mutable_data_, SizeBytes(), byte, word);
    return old;
  }

  // Puts `fingerprint` in an empty slot of `bucket`; false if it is full.
  bool TryAdd(uint64_t bucket, uint32_t fingerprint) {
    const int slot = FirstEmptySlot(bucket);
    if (slot < 0) return false;
    Exchange(bucket, static_cast<uint32_t>(slot), fingerprint);
    return true;
  }

  // Empties one slot of `bucket` holding `fingerprint`; false if none does.
  bool TryRemove(uint64_t bucket, uint32_t fingerprint) {
    const int slot = Find(bucket, fingerprint);
    if (slot < 0) return false;
    Exchange(bucket, static_cast<uint32_t>(slot), 0);
    return true;
  }

 private:
  uint8_t* mutable_data_;
};

}  // namespace sstfilter::detail
