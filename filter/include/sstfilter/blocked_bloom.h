// sstfilter/blocked_bloom.h: a cache-blocked Bloom filter.
//
// Layout. The bit array is split into 64-byte (512-bit) lines. Each key
// touches `lines_per_key` lines (1 or 2) and sets `num_probes` bits in all:
// with two lines, ceil(num_probes/2) in the first and floor(num_probes/2) in
// the second (an odd total, e.g. 4+3 at 10 bits/key, measures better than
// either even split). A query reads at most two cache lines and usually
// stops after the first. Two lines per key (the idea of Speedb's paired Bloom
// filter) averages out the uneven load of single lines, which is what makes a
// one-line blocked filter (RocksDB's FastLocalBloom; Putze, Sanders, Singler
// 2007) lose FPR against a standard Bloom filter.
//
// From the key's 64-bit hash h (sstfilter/hash.h):
//   line 1   = FastRange64(h, num_lines),           g = low32(h)
//   line 2   = FastRange64(Remix64(h), num_lines),  g = low32(Remix64(h))
//   probe i  = bit (g * kProbeMultiplier[i]) >> 23 of the line, i.e. the top
//              9 bits of a 32-bit multiplicative hash of the line's g.
// Any line count works, not only powers of two.
//
// Serialized format (kind 1), little-endian. Version 2, the one written:
//   offset       size  field
//   0            64*L  the L = num_lines lines; bit p of a line is bit
//                      (p & 7) of its byte (p >> 3)
//   64L          4     metadata checksum: MetadataChecksum (format.h) of
//                      bytes 64L+4 .. 64L+28
//   64L+4        1     num_probes (total over the key's lines), 1..16
//   64L+5        1     lines_per_key, 1 or 2
//   64L+6        2     reserved, zero
//   64L+8        8     num_lines L (u64; must match the block's size;
//                      at most kMaxLines)
//   64L+16       8     num_keys added (u64; informational, not used by
//                      queries), stored capped at kMaxRecordedKeys =
//                      2^56 - 1, so that its top byte, the 5th from the
//                      block's end, stays 0: RocksDB's marker byte
//                      (format.h)
//   64L+24       4     tag: "SF", kind = 1, version = 2
// Version 1 (read forever, written until sstfilter's format v2) had the
// same fields first and no checksum:
//   0 "SF" | 2 kind = 1 | 3 version = 1 | 4 num_probes | 5 lines_per_key |
//   6 reserved (2) | 8 num_lines (u64) | 16 num_keys (u64) | 24 the lines
// The lines, and so every answer, are the same in both versions.
// A filter with num_lines = 0 holds no keys and answers "no" to everything.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "sstfilter/format.h"
#include "sstfilter/simd.h"
#include "sstfilter/status.h"

namespace sstfilter {

// The parameters of a BlockedBloom filter. Pick them with ForBitsPerKey or
// ForTargetFpr; the fields are public so tools can report them.
struct BlockedBloomParams {
  static constexpr size_t kLineBytes = 64;
  // The v2 metadata after the lines (checksum, fields and tag).
  static constexpr size_t kMetadataBytes = 28;
  static constexpr uint32_t kMaxProbes = 16;
  // The most lines a filter can have: its serialized size must fit in the
  // largest object C++ allows (PTRDIFF_MAX bytes, std::vector's max_size).
  // The format's u64 line count holds more; Validate refuses them.
  static constexpr uint64_t kMaxLines =
      (static_cast<uint64_t>(PTRDIFF_MAX) - kMetadataBytes) / kLineBytes;
  // The largest key count the metadata records; more keys are recorded as
  // this (the count is informational), keeping byte 64L+23 zero.
  static constexpr uint64_t kMaxRecordedKeys = (uint64_t{1} << 56) - 1;

  uint64_t num_lines = 0;
  uint32_t num_probes = 1;
  uint32_t lines_per_key = 2;

  // Probes that go into the key's line `which` (0 or 1).
  uint32_t ProbesInLine(uint32_t which) const {
    if (lines_per_key == 1) return which == 0 ? num_probes : 0;
    return which == 0 ? (num_probes + 1) / 2 : num_probes / 2;
  }

  // Sized for `num_keys` at `bits_per_key` (fractional, e.g. 9.9; the
  // header is not counted), with the layout and probe count that measured
  // best for that bits/key (kLayoutByBitsPerKey in blocked_bloom.cc).
  // lines_per_key = 2 takes that best layout, which is one line below
  // 3.5 bits/key; 1 forces one line per key. Never more than kMaxLines, so
  // the result always Validates.
  static BlockedBloomParams ForBitsPerKey(uint64_t num_keys,
                                          double bits_per_key,
                                          uint32_t lines_per_key = 2);

  // ForBitsPerKey for a filter of at most `max_bytes` serialized bytes (at
  // least one line: below kLineBytes + kMetadataBytes, one line). Past the
  // keys that fill `max_bytes` at bits_per_key, the filter stays at that
  // size with the layout measured best for the bits/key it then has, and
  // its FPR rises with the keys, as RocksDB's FastLocalBloom does at its
  // cap of 4 GiB (table/block_based/filter_policy.cc).
  static BlockedBloomParams ForBitsPerKeyWithin(size_t max_bytes,
                                                uint64_t num_keys,
                                                double bits_per_key,
                                                uint32_t lines_per_key = 2);

  // The smallest filter whose estimated FPR for `num_keys` is at most
  // `fpr` (0 < fpr < 1). Starts at the standard-Bloom size
  // m = -n ln p / (ln 2)^2 and grows it until EstimatedFpr meets p, which
  // accounts for the blocking penalty; never past kMaxLines.
  static BlockedBloomParams ForTargetFpr(uint64_t num_keys, double fpr,
                                         uint32_t lines_per_key = 2);

  // InvalidArgument, with the reason, unless every field is in range;
  // CapacityExceeded past kMaxLines.
  Status Validate() const;

  // Bytes of the serialized filter: lines plus metadata.
  size_t SerializedSize() const {
    return static_cast<size_t>(num_lines) * kLineBytes + kMetadataBytes;
  }

  // Expected false-positive rate once `num_keys` distinct keys are added,
  // from a binomial model of the per-line load (exact in closed form).
  double EstimatedFpr(uint64_t num_keys) const;

  // Sizing for a byte budget, as StaticCuckooBytes, StaticCuckooCapacity
  // and StaticCuckooFpr are for cuckoo (sstfilter/cuckoo_filter.h).
  //
  // The lines a filter of `bytes` serialized bytes holds (0 if it holds
  // not even the metadata and one line).
  static uint64_t LinesIn(size_t bytes);
  // The most distinct keys whose ForBitsPerKey filter takes at most `bytes`.
  static uint64_t Capacity(size_t bytes, double bits_per_key,
                           uint32_t lines_per_key = 2);
  // EstimatedFpr of this layout and probe count in a filter of `bytes`
  // bytes (LinesIn(bytes) lines): 1 if that holds no line but there are
  // keys, 0 for no keys.
  double EstimatedFprIn(size_t bytes, uint64_t num_keys) const;
};

namespace detail {

// A parsed filter in the one form every probe takes
// (detail/blocked_bloom_probe.h), made once by Parse: where the lines are,
// how many, and the probes per line (probes_second = 0 for one line per
// key). Small, so that a reader holds it by value.
struct BloomLines {
  const uint8_t* lines = nullptr;
  uint64_t num_lines = 0;
  uint32_t probes_first = 0;
  uint32_t probes_second = 0;
};

}  // namespace detail

// A read-only view over serialized BlockedBloom bytes. It does not own
// them; the bytes must outlive it. Immutable, so safe to share across
// threads.
class BlockedBloomView {
 public:
  BlockedBloomView() = default;

  // Checks the metadata (and its checksum, in v2) and the length, for
  // either format version. Never reads past `bytes`. The view probes on
  // BestSimdPath().
  static Status Parse(std::string_view bytes, BlockedBloomView* out);
  // The same on the block's tags, read once (format.h: ReadBlockTags).
  static Status Parse(std::string_view bytes, const BlockTags& tags,
                      BlockedBloomView* out);

  // This view, probing on `path` (for tests and benchmarks that compare
  // paths); false, and `out` untouched, if the CPU cannot run it.
  bool OnSimdPath(SimdPath path, BlockedBloomView* out) const;
  SimdPath simd_path() const { return simd_path_; }

  // False only if the hash (or key) was certainly never added.
  bool MayContain(uint64_t hash) const;
  bool MayContainKey(std::string_view key) const;

  // Batched forms: compute every line, prefetch them all, then probe.
  void MayContainBatch(const uint64_t* hashes, size_t count,
                       bool* results) const;
  void MayContainKeys(const std::string_view* keys, size_t count,
                      bool* results) const;

  const BlockedBloomParams& params() const { return params_; }
  // The first line (64 * num_lines bytes), inside the parsed bytes.
  const uint8_t* lines() const { return probe_.lines; }
  // What the probes read, as Parse made it.
  const detail::BloomLines& probe_lines() const { return probe_; }
  uint8_t format_version() const { return version_; }
  uint64_t num_keys() const { return num_keys_; }
  size_t SizeBytes() const { return params_.SerializedSize(); }
  double EstimatedFpr() const { return params_.EstimatedFpr(num_keys_); }
  // Fraction of the lines' bits set, in [0, 1] (the free FillRatio below).
  double FillRatio() const;

 private:
  friend class BlockedBloom;  // keeps num_keys_ current while adding
  detail::BloomLines probe_;
  BlockedBloomParams params_;
  uint64_t num_keys_ = 0;
  uint8_t version_ = kCurrentFormatVersion;
  // Chosen when the view is made, so that no probe reads a global setting.
  SimdPath simd_path_ = BestSimdPath();
};

// Fraction of the bits of `bits` that are set, in [0, 1]; 0 if empty. What
// a Bloom filter's lines are filled to (tools call it on any filter's bits).
double FillRatio(std::string_view bits);

// Writes a filter into a buffer the caller owns (the RocksDB builder hands
// its output buffer straight to RocksDB). The buffer must hold
// params.SerializedSize() bytes and outlive the writer.
class BlockedBloomWriter {
 public:
  // Clears the lines and writes the metadata. `params` must Validate().
  BlockedBloomWriter(const BlockedBloomParams& params, uint8_t* out);

  // Adds hashes, prefetching lines ahead; the same bits on every SIMD path.
  void AddBatch(const uint64_t* hashes, size_t count);
  uint64_t num_keys() const { return num_keys_; }

 private:
  BlockedBloomParams params_;
  uint8_t* out_;
  uint64_t num_keys_ = 0;
};

// A BlockedBloom filter that owns its serialized bytes and writes keys
// straight into their lines. Its metadata (the key count and its checksum)
// is written once by bytes() for every run of adds, not per key: so call
// bytes() from the thread that adds, as add itself, while queries may run
// on any.
class BlockedBloom {
 public:
  // InvalidArgument (and `out` untouched) if `params` are out of range.
  static Status Create(const BlockedBloomParams& params, BlockedBloom* out);

  void Add(uint64_t hash) { AddBatch(&hash, 1); }
  void AddKey(std::string_view key);
  void AddBatch(const uint64_t* hashes, size_t count);

  bool MayContain(uint64_t hash) const { return view_.MayContain(hash); }
  bool MayContainKey(std::string_view key) const {
    return view_.MayContainKey(key);
  }
  void MayContainBatch(const uint64_t* hashes, size_t count,
                       bool* results) const {
    view_.MayContainBatch(hashes, count, results);
  }
  double EstimatedFpr() const { return view_.EstimatedFpr(); }
  const BlockedBloomView& view() const { return view_; }

  // The serialized filter, its metadata brought up to date.
  std::string_view bytes() const;

 private:
  // Written by bytes() (the metadata); the lines only by add.
  mutable std::vector<uint8_t> bytes_;
  BlockedBloomView view_;
  mutable bool sealed_ = true;  // the metadata counts every key added
};

}  // namespace sstfilter
