// sstfilter/cuckoo_filter.h: a cuckoo filter (Fan, Andersen, Kaminsky,
// Mitzenmacher, "Cuckoo Filter: Practically Better Than Bloom", CoNEXT 2014).
//
// Buckets of 4 slots hold f-bit fingerprints (4 <= f <= 32), bit-packed;
// fingerprint 0 marks an empty slot. An item lives in one of two buckets,
// found by partial-key cuckoo hashing. Unlike the paper's XOR rule, the
// alternate bucket is
//     alternate(i, fp) = (R(fp) - i) mod m,   R(fp) = FastRange64(fp * C, m)
// which is an involution for ANY bucket count m, so bucket arrays need not be
// powers of two (which wastes up to half the space).
//
// From a key's 64-bit hash h (sstfilter/hash.h) and a bucket array's seed s:
//     hs          = s == 0 ? h : Remix64(h ^ (s * 0x9e3779b97f4a7c15))
//     bucket      = FastRange64(hs, m)
//     fingerprint = 1 + FastRange32(low32(hs), 2^f - 1)     never 0
//     C           = 0xc6a4a7935bd1e995
//
// Chains. Bucket array t of a chain has m_0 * 2^t buckets (m_0: bucket array
// 0's) and bucket array 0's seed, and its alternate bucket lifts bucket array
// 0's rule:
//     alternate_t(i, fp) = ((R_0(fp) - (i >> t)) mod m_0) << t
//                        | ((i XOR (fp * 0x9e3779b97f4a7c15) >> (64 - t))
//                           mod 2^t)
// with R_0 computed with m_0 (for t = 0 this is the rule above). Since
// bucket_t >> 1 = bucket_(t-1), a bucket pair of bucket array t shifted right
// by one is the item's pair in bucket array t-1: two items that share a
// fingerprint and a pair in a bucket array share them in every older bucket
// array too. That is what makes erase (newest bucket array first) safe: when it
// removes another item's copy, the erased item's own copy, in an older bucket
// array, serves that item. (Independent seeds or sizes per bucket array would
// let erase remove another item's only copy, a false negative.)
//
// Serialized format (kind 2), little-endian. Version 2, the one written:
//   offset  size  field
//   0       the slots of bucket array 0, then of bucket array 1, ...,
//           bucket array t taking ceil(m_t * 4 * f / 8) bytes: slot j of
//           bucket i is the f-bit field at bit (i*4 + j) * f of this
//           little-endian bit stream (bit k is bit k%8 of byte k/8)
//   then    8 * num_stashed per bucket array, bucket array 0's first:
//           stash entries, u32 bucket, u32 fingerprint
//   then    the metadata, 20 + 12 * T bytes, ending the block:
//     +0       4   checksum: MetadataChecksum (format.h) of the rest of
//                  the metadata
//     +4       12  per bucket array t < T: num_buckets m (u32, >= 1;
//                  m_0 * 2^t), seed s (u32; the same in every bucket
//                  array), num_stashed (u32)
//     end-16   8   num_keys (u64): the keys the filter was built from, or
//                  the items a dynamic filter holds (informational, not used
//                  by queries)
//     end-8    1   fingerprint_bits f, 4..32
//     end-7    1   slots_per_bucket, = 4
//     end-6    1   num_bucket_arrays T, 0..32 (0: empty filter, answers "no";
//                  the doubling rule allows no more)
//     end-5    1   reserved, zero
//     end-4    4   tag: "SF", kind = 2, version = 2
// Since the metadata follows the slots, an 8-byte load at any bucket stays
// inside the block. Version 1 (read forever) had the fields first:
//   0 "SF" | 2 kind = 2 | 3 version = 1 | 4 f | 5 slots_per_bucket |
//   6 T | 7 reserved | then per bucket array: its 12-byte record, its slots,
//   its stash entries; no checksum.
// A static filter (the SST case) is one bucket array with an empty stash: 32
// bytes of metadata. A dynamic filter that grew is a chain of bucket arrays.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sstfilter/detail/cuckoo_bucket_array.h"
#include "sstfilter/format.h"
#include "sstfilter/status.h"

namespace sstfilter {

struct CuckooLimits {
  static constexpr uint32_t kSlotsPerBucket = detail::cuckoo::kSlotsPerBucket;
  static constexpr uint32_t kMinFingerprintBits = 4;
  static constexpr uint32_t kMaxFingerprintBits = 32;
  // Bucket array t of a chain has 2^t times bucket array 0's buckets, at most
  // 2^32 - 1: so at most 32 bucket arrays (the parser refuses more).
  static constexpr uint32_t kMaxBucketArrays = 32;
  // An item's two buckets hold at most 2 * 4 copies of one fingerprint.
  static constexpr uint32_t kMaxDuplicates = 2 * kSlotsPerBucket;
};

// Bytes of a static filter built from `num_keys` distinct keys at the
// first attempt: m = ceil(num_keys / 3.84) buckets (load 0.96). A build
// whose placements fail with 4 seeds grows m by ~1% and retries, so an
// unlucky build may be ~1% larger. SIZE_MAX past the format's 2^32-1
// buckets.
size_t StaticCuckooBytes(uint64_t num_keys, uint32_t fingerprint_bits);

// Bits/key of a static cuckoo filter with `fingerprint_bits` (about
// f / 0.96): StaticCuckooBytes per key on a filter large enough (2^20 keys)
// that its metadata does not count.
double StaticCuckooBitsPerKey(uint32_t fingerprint_bits);

// The widest fingerprint whose static filter takes at most `bits_per_key`
// (StaticCuckooBitsPerKey(f) <= bits_per_key), or 0 if not even 4 bits fit.
uint32_t StaticCuckooFingerprintBits(double bits_per_key);

// The most distinct keys whose first-attempt static filter fits in `bytes`
// (the inverse of StaticCuckooBytes); 0 for fingerprint_bits outside 4..32.
uint64_t StaticCuckooCapacity(size_t bytes, uint32_t fingerprint_bits);

// Expected FPR of a static filter of `bytes` bytes that holds `num_keys`
// distinct keys (the model CuckooView::EstimatedFpr applies to a built
// one): a query compares its fingerprint with the 8 * load items of its two
// buckets. 1 when the keys cannot fit; 0 for no keys or fingerprint_bits
// outside 4..32.
double StaticCuckooFpr(uint64_t num_keys, size_t bytes,
                       uint32_t fingerprint_bits);

// Builds a static filter holding `hashes` at about 96% load, into *out
// (replaced), sized for `count` items. It places the hashes in the order
// given, so the same hashes in the same order give the same bytes. A hash
// whose fingerprint is already in one of its buckets (a repeat, or another
// key with the same buckets and fingerprint) is not stored again: its
// query already answers "maybe", so repeats only lower the load. It does
// not fail on any input: an unlucky placement is retried with another
// seed, then with slightly more buckets. (Below about 6 fingerprint bits,
// large inputs cannot reach 96%: too few fingerprints give too few
// alternate buckets, so the build grows; measured at f = 4: load 0.90-0.94
// for 1e5-1e6 keys.) Errors only for fingerprint_bits outside 4..32
// (InvalidArgument) or a bucket array past the format's 2^32-1 buckets
// (CapacityExceeded: for more than StaticCuckooCapacity(SIZE_MAX, f) keys
// before a hash is read or a byte allocated, or after growing). Reads
// `hashes` only.
Status BuildStaticCuckoo(const uint64_t* hashes, size_t count,
                         uint32_t fingerprint_bits, std::string* out);

// A run of hashes: one chunk of a caller's hash storage.
struct HashRun {
  const uint64_t* data;
  size_t size;
};

// Bounds on the size of a static build over runs.
struct StaticCuckooBounds {
  // At least this many buckets (a larger bucket array, lower load and FPR), for
  // a size chosen by FitStaticCuckooToUsable (sstfilter/usable_space.h).
  // Fewer than the 0.96 load needs count as that.
  uint64_t min_buckets = 0;
  // CapacityExceeded if the filter would take more (a container's limit,
  // such as RocksDB's 4 GiB block), at the first attempt or after growing;
  // no bucket array larger than this is allocated, and *out is left empty.
  size_t max_bytes = SIZE_MAX;
};

// The same over the runs in turn, as if they were one array, with no copy
// of them: for builders that keep their hashes in chunks, like the RocksDB
// one (~8 bytes per key).
Status BuildStaticCuckoo(const HashRun* runs, size_t num_runs,
                         uint32_t fingerprint_bits,
                         const StaticCuckooBounds& bounds, std::string* out);

// A read-only view over serialized cuckoo bytes (static or dynamic). It
// does not own them; the bytes must outlive it. Immutable and thread-safe.
class CuckooView {
 public:
  CuckooView();
  ~CuckooView();
  CuckooView(CuckooView&&) noexcept;
  CuckooView& operator=(CuckooView&&) noexcept;

  // Checks every header field and length. Never reads past `bytes`.
  static Status Parse(std::string_view bytes, CuckooView* out);
  // The same on the block's tags, read once (format.h: ReadBlockTags).
  static Status Parse(std::string_view bytes, const BlockTags& tags,
                      CuckooView* out);

  // False only if the hash (or key) was certainly never inserted.
  bool MayContain(uint64_t hash) const;
  bool MayContainKey(std::string_view key) const;
  // Batched: compute every bucket pair, prefetch, then probe.
  void MayContainBatch(const uint64_t* hashes, size_t count,
                       bool* results) const;

  uint32_t fingerprint_bits() const;
  uint32_t num_bucket_arrays() const;
  uint8_t format_version() const { return version_; }
  // For readers that probe inline (StaticMayContain in
  // detail/cuckoo_bucket_array.h): true, with its one bucket array, if this is
  // the common static filter (one bucket array, no stash, fingerprint_bits <=
  // 16, every bucket's 8-byte load inside the block, as in format v2); false
  // otherwise.
  bool StaticBucketArrayOf(detail::cuckoo::BucketArray* array) const;
  uint64_t num_buckets() const;  // over all bucket arrays
  size_t SizeBytes() const;
  // The statistics below scan every slot (they are for tools and tests).
  uint64_t num_items() const;  // occupied slots plus stash entries
  // The keys the filter records it was built from (format v2; keys sharing
  // a bucket pair and fingerprint share one item); num_items() for v1.
  uint64_t num_keys() const;
  double Load() const;  // occupied slots / all slots
  // Expected FPR of the filter as it is: per bucket array, a query compares
  // against the items in two buckets, each matching with p = 1/(2^f - 1).
  double EstimatedFpr() const;

 private:
  friend class CuckooFilter;  // Deserialize copies the parsed bucket arrays
  struct Array;
  std::vector<Array> arrays_;
  uint32_t fingerprint_bits_ = 0;
  size_t size_bytes_ = 0;
  uint8_t version_ = kCurrentFormatVersion;
  uint64_t num_keys_ = 0;
  bool keys_known_ = false;
  // The common static filter (StaticBucketArrayOf): probed by the inline probe.
  bool static_array_ = false;
};

// A dynamic cuckoo filter: Add, Erase, MayContain.
//
// Insertion kicks items between their two buckets up to a bounded number of
// times; if the last evicted item finds no place it goes to the bucket array's
// stash, so an inserted item is never lost. A bucket array whose stash is in
// use is full: the filter then grows by chaining a new bucket array with twice
// the buckets (as a scalable Bloom filter adds filters; Almeida et al. 2007),
// and queries check every bucket array. Inserts go to the newest bucket array;
// erase searches the newest first (see "Chains" above for why that is safe).
// Serialize() writes the chain in the format above.
class CuckooFilter {
 public:
  // An empty filter (no bucket arrays, 12-bit fingerprints); prefer Create.
  CuckooFilter();
  ~CuckooFilter();
  CuckooFilter(CuckooFilter&&) noexcept;
  CuckooFilter& operator=(CuckooFilter&&) noexcept;

  // A filter sized for about `expected_items` before it first grows.
  static Status Create(uint32_t fingerprint_bits, uint64_t expected_items,
                       CuckooFilter* out);
  // Rebuilds a dynamic filter from serialized bytes (copies them).
  static Status Deserialize(std::string_view bytes, CuckooFilter* out);

  // Ok; TooManyDuplicates if the item's buckets already hold 2*4 copies of
  // its fingerprint over all bucket arrays (the filter is unchanged: the item
  // already answers "maybe"); CapacityExceeded if the next bucket array would
  // pass the format's 2^32-1 buckets.
  Status Add(uint64_t hash);
  Status AddKey(std::string_view key);
  // Removes one copy. NotFound if absent. Erase only what was inserted:
  // erasing a never-inserted item may remove a colliding one.
  Status Erase(uint64_t hash);
  Status EraseKey(std::string_view key);
  bool MayContain(uint64_t hash) const;
  bool MayContainKey(std::string_view key) const;

  uint64_t num_items() const;  // items held, counting duplicates
  uint32_t num_bucket_arrays() const;
  std::string Serialize() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sstfilter
