// sstfilter/range_filter.h: a range filter, "may [a, b] hold a key?".
//
// The design is Grafite's (Costa, Ferragina, Vinciguerra, "Grafite: Taming
// Adversarial Queries with Optimal Range Filters", PACMMOD 2024): keys are
// integers, hashed by a locality-preserving hash into [0, r) and kept as a
// sorted set in Elias-Fano code. For a block length L (a power of two, at
// most r) and a hash q of block numbers onto [0, r):
//   h(x) = (q(x / L) + x mod L) mod r.
// Within a block h is a rotation, so it is one-to-one and keeps ranges
// whole; keys of other blocks land anywhere. A query [a, b] of length l <= L
// spans at most two blocks and becomes at most four ranges of hashes, whose
// total length is l; a key outside [a, b] falls in them with probability
// l / r if it is in another block, and never if it is in the query's own.
//   FPR(l) <= l * n / r        (n stored hashes)
// With B bits/key the Elias-Fano code takes about 2 + log2(r/n) bits/key,
// so r/n ~ 2^(B-2): Grafite's bound is l / 2^(B-2). Ours spends a further
// 1/16 bit per bucket on select samples (below) and rounds to whole words,
// so the builder picks the largest r the budget allows, r/n >= 2^(B-2.1):
//   FPR(l) <= l * n / r <= l / 2^(B-2.1)    (12 bits/key: l / 964)
// from 10 keys on (fewer round to whole words) while n * 2^(B-2.1) <= 2^62;
// the exact bound of a filter is RangeFilterView::FprBound. Measured
// within sampling error of it (range_filter_test, 10^5 uniform keys, 12
// bits/key): 0.0009-0.00115 for l = 1 and 0.0161-0.0178 for l = 16,
// against 0.00105 and 0.0167. The bound holds for key sets not chosen
// against q: q is a fixed seeded mixer (MurmurHash3's finalizer), not a
// random pairwise-independent function.
//
// Keys to integers (RangeKeyRule): bytes [p, p + w) of the key, big-endian,
// zero-padded if the key is shorter. This is monotone in RocksDB's bytewise
// order, so a key in [A, B) maps into [int(A), int(B)]. With a prefix
// (p > 0) the top 64 - 8w bits are the top bits of XXH3 of the key's first
// p bytes: keys of one prefix keep their order inside their own segment,
// and a query whose two bounds do not share their first p bytes is answered
// "may overlap".
//
// Serialized format, version 1, little-endian:
//   offset  size  field
//   0       4     magic "SFRF"
//   4       1     version = 1 (another version: NotSupported)
//   5       1     prefix_bytes p, 0..kMaxPrefixBytes
//   6       1     int_bytes w, 1..8 (1..7 when p > 0)
//   7       1     low_bits l, 0..62
//   8       1     block_bits: L = 2^block_bits <= r
//   9       7     reserved, zero
//   16      8     n, hashes stored (distinct); n <= r
//   24      8     r, the hash range, 1..2^62; n + nb < 2^32
//   32      8     seed of q
//   40      8     keys: distinct key integers added (informational)
//   48      8*U   upper bits, U = ceil((n + nb) / 64) words, nb = ((r-1) >> l)
//                 + 1 buckets: hash i (sorted) sets bit (hash_i >> l) + i,
//                 bit k of the array being bit k % 64 of word k / 64
//   ..      8*W   low bits, W = ceil(n * l / 64): hash i's l low bits at bit
//                 i * l, packed the same way
//   ..      4*S   select samples, S = ceil(nb / 512): sample s is the bit
//                 position of zero number 512 * s of the upper bits
// and nothing after. Bits past the end of each array are zero. Bytes 0-8
// are ASCII and byte 9 is zero, so a reader that takes the value as a C
// string (RocksJava's NewStringUTF of user properties) sees a short, valid
// string and never the payload.
// No checksum: the view is made per query, so a check of the whole filter
// would cost 4-1000x a query (README, "What it never does"); RocksDB's
// block checksum guards the property on disk.
// A filter with n = 0 holds no keys and answers "no" to every range. Bytes
// that do not parse, or a query a view cannot answer, are "may overlap".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sstfilter/status.h"

namespace sstfilter {

// Which bytes of a key make its integer (see the top of this file).
struct RangeKeyRule {
  static constexpr uint32_t kMaxPrefixBytes = 64;
  uint32_t prefix_bytes = 0;  // p
  uint32_t int_bytes = 8;     // w

  // InvalidArgument naming the field if the rule is out of range.
  Status Validate() const;
  // The key's integer; the rule must be valid.
  uint64_t Map(std::string_view key) const;
};

// A read-only view over serialized range-filter bytes. Cheap to make
// (Parse checks the header and sizes, O(1)); it does not own the bytes.
class RangeFilterView {
 public:
  static constexpr size_t kHeaderBytes = 48;
  static constexpr uint32_t kVersion = 1;
  static constexpr uint32_t kZerosPerSample = 512;

  // Corruption for bytes that are not a range filter of a version we know
  // the header of, NotSupported for another version.
  static Status Parse(std::string_view bytes, RangeFilterView* view);

  // May a key whose integer is in [lo, hi] (inclusive) be in the filter?
  bool MayOverlapInts(uint64_t lo, uint64_t hi) const;
  // May a key k with lo <(=) k <(=) hi in bytewise order be in the filter?
  // `*_inclusive` says whether the bound itself is in the range.
  bool MayOverlap(std::string_view lo, bool lo_inclusive, std::string_view hi,
                  bool hi_inclusive) const;

  // The bound on the FPR of a range of `length` integers: min(1, l * n / r).
  double FprBound(uint64_t length) const;

  RangeKeyRule rule() const { return rule_; }
  uint64_t num_hashes() const { return num_hashes_; }
  uint64_t num_keys() const { return num_keys_; }
  uint64_t hash_range() const { return range_; }
  size_t size_bytes() const { return bytes_.size(); }

 private:
  // Is a hash in [lo, hi] (hi < r)? One select, then a walk of at most
  // (hi - lo) / 2^low_bits + 2 bits; "yes" if the bytes are inconsistent.
  bool AnyHashIn(uint64_t lo, uint64_t hi) const;
  // Bit position of zero number k of the upper bits.
  bool SelectZero(uint64_t k, uint64_t* pos) const;
  // The first zero of the upper bits at or after `pos`.
  bool NextZero(uint64_t pos, uint64_t* zero) const;
  bool UpperBit(uint64_t pos) const;
  uint64_t Word(size_t offset, uint64_t index) const;
  uint64_t LowBits(uint64_t index) const;

  std::string_view bytes_;
  RangeKeyRule rule_;
  uint32_t low_bits_ = 0;
  uint32_t block_bits_ = 0;
  uint64_t num_hashes_ = 0;
  uint64_t range_ = 1;
  uint64_t seed_ = 0;
  uint64_t num_keys_ = 0;
  uint64_t num_buckets_ = 1;
  uint64_t upper_bits_ = 0;
  size_t upper_offset_ = 0, low_offset_ = 0, sample_offset_ = 0;
  uint64_t upper_words_ = 0, low_words_ = 0, num_samples_ = 0;
};

// "May [lo, hi] (bytewise, inclusive as said) hold a key of the filter
// `bytes`?": true if the bytes do not parse.
bool RangeMayOverlap(std::string_view bytes, std::string_view lo,
                     bool lo_inclusive, std::string_view hi, bool hi_inclusive);

// Builds a range filter of any keys added, in any order, with duplicates.
// Holds 8 bytes per distinct integer added until Finish.
class RangeFilterBuilder {
 public:
  static constexpr double kMinBitsPerKey = 4;
  static constexpr double kMaxBitsPerKey = 64;
  static constexpr uint64_t kDefaultSeed = 0x5346524631ULL;  // "SFRF1"

  // InvalidArgument if bits_per_key is outside [kMinBitsPerKey,
  // kMaxBitsPerKey] or the rule is invalid.
  static Status ValidateOptions(double bits_per_key, RangeKeyRule rule);
  // The options must be valid.
  RangeFilterBuilder(double bits_per_key, RangeKeyRule rule);

  void AddKey(std::string_view key) { AddInt(rule_.Map(key)); }
  void AddInt(uint64_t value) {
    // Sorted input (an SST's keys) repeats integers back to back.
    if (ints_.empty() || ints_.back() != value) ints_.push_back(value);
  }
  size_t MemoryUsage() const { return ints_.capacity() * sizeof(uint64_t); }

  // Writes the filter of every key added to *out (replacing it) and
  // clears the builder. CapacityExceeded if the upper bits would reach
  // 2^32 (the u32 select samples), i.e. past about 10^9 distinct integers.
  Status Finish(std::string* out);

 private:
  double bits_per_key_;
  RangeKeyRule rule_;
  std::vector<uint64_t> ints_;
};

}  // namespace sstfilter
