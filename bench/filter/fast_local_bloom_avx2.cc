// The "FastLocalBloom-AVX2" reference (see fast_local_bloom_avx2.h).
//
// This is the one translation unit that includes RocksDB source headers
// beyond filter_policy_internal.h: util/bloom_impl.h and what it pulls in
// (util/hash.h, util/fastrange.h, port/port.h). They are header-only math
// and macros; port/port_posix.h also declares port::Mutex, whose layout
// depends on NDEBUG, but nothing here uses it: the object file's only
// undefined RocksDB symbol is Hash64 (nm, when this was written). Built with
// -DHAVE_AVX2 -mavx2 -O2 -DNDEBUG (bench/CMakeLists.txt), so
// HashMayMatchPrepared takes its AVX2 path, as in a RocksDB built for this
// machine.
#include "fast_local_bloom_avx2.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <memory>

#include "util/bloom_impl.h"
#include "util/hash.h"

namespace sstfilter::bench {
namespace {

using ROCKSDB_NAMESPACE::FastLocalBloomImpl;
using ROCKSDB_NAMESPACE::FilterBitsBuilder;
using ROCKSDB_NAMESPACE::FilterBitsReader;
using ROCKSDB_NAMESPACE::Lower32of64;
using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::Upper32of64;

// RocksDB's filter metadata after the cache lines: 0xff (a "new" Bloom),
// sub-implementation 0 (FastLocalBloom), num_probes with 64-byte blocks,
// two zero bytes (filter_policy.cc, BuiltinFilterPolicy::GetBloomBitsReader).
constexpr size_t kMetadataBytes = 5;
constexpr size_t kCacheLineBytes = 64;
// MultiGet batches hold at most 32 keys (MultiGetContext::MAX_BATCH_SIZE).
constexpr int kMaxBatch = 32;

// The key hash RocksDB's filters use: rocksdb::Hash64 (XXPH3, util/hash.cc),
// called from the installed librocksdb as RocksDB calls it, out of line.
uint64_t KeyHash(const Slice& key) {
  return ROCKSDB_NAMESPACE::Hash64(key.data(), key.size());
}

class Builder : public FilterBitsBuilder {
 public:
  explicit Builder(int millibits_per_key)
      : millibits_per_key_(millibits_per_key),
        num_probes_(FastLocalBloomImpl::ChooseNumProbes(millibits_per_key)) {}

  // Drops a hash equal to the previous one, as RocksDB's
  // XXPH3FilterBitsBuilder::AddKey does, and keeps hashes in a deque as it
  // does.
  void AddKey(const Slice& key) override {
    const uint64_t hash = KeyHash(key);
    if (hashes_.empty() || hashes_.back() != hash) hashes_.push_back(hash);
  }

  size_t EstimateEntriesAdded() override { return hashes_.size(); }

  Slice Finish(std::unique_ptr<const char[]>* buf) override {
    // RocksDB's sizing (FastLocalBloomBitsBuilder::CalculateSpace): the
    // bits rounded up to whole bytes, then to whole cache lines.
    const uint64_t raw_bytes =
        (uint64_t{hashes_.size()} * static_cast<uint64_t>(millibits_per_key_) +
         7999) /
        8000;
    const uint32_t len =
        static_cast<uint32_t>(std::min<uint64_t>(raw_bytes, 0xffffffc0) +
                              kCacheLineBytes - 1) &
        ~uint32_t{kCacheLineBytes - 1};
    std::unique_ptr<char[]> out(new char[len + kMetadataBytes]());
    if (len > 0) AddAll(out.get(), len);
    hashes_.clear();
    out[len] = static_cast<char>(-1);
    out[len + 2] = static_cast<char>(num_probes_);
    const Slice result(out.get(), len + kMetadataBytes);
    *buf = std::move(out);
    return result;
  }

  size_t ApproximateNumEntries(size_t bytes) override {
    const size_t usable = bytes > kMetadataBytes ? (bytes - kMetadataBytes) &
                                                       ~(kCacheLineBytes - 1)
                                                 : 0;
    return static_cast<size_t>(uint64_t{8000} * usable /
                               static_cast<uint64_t>(millibits_per_key_));
  }

 private:
  // Prefetches each key's cache line eight keys ahead of setting its bits,
  // as FastLocalBloomBitsBuilder::AddAllEntries does.
  void AddAll(char* data, uint32_t len) {
    constexpr size_t kAhead = 8;
    std::array<uint32_t, kAhead> probe_hashes;
    std::array<uint32_t, kAhead> offsets;
    const size_t count = hashes_.size();
    auto it = hashes_.begin();
    for (size_t i = 0; i < count; ++i, ++it) {
      const size_t slot = i % kAhead;
      if (i >= kAhead) {
        FastLocalBloomImpl::AddHashPrepared(probe_hashes[slot], num_probes_,
                                            data + offsets[slot]);
      }
      FastLocalBloomImpl::PrepareHash(Lower32of64(*it), len, data,
                                      &offsets[slot]);
      probe_hashes[slot] = Upper32of64(*it);
    }
    for (size_t i = count > kAhead ? count - kAhead : 0; i < count; ++i) {
      const size_t slot = i % kAhead;
      FastLocalBloomImpl::AddHashPrepared(probe_hashes[slot], num_probes_,
                                          data + offsets[slot]);
    }
  }

  const int millibits_per_key_;
  const int num_probes_;
  std::deque<uint64_t> hashes_;
};

class AlwaysMayMatch : public FilterBitsReader {
 public:
  bool MayMatch(const Slice& /*key*/) override { return true; }
  void MayMatch(int num_keys, Slice** /*keys*/, bool* may_match) override {
    std::fill(may_match, may_match + std::max(num_keys, 0), true);
  }
};

class Reader : public ROCKSDB_NAMESPACE::BuiltinFilterBitsReader {
 public:
  Reader(const char* data, uint32_t len, int num_probes)
      : data_(data), len_(len), num_probes_(num_probes) {}

  bool MayMatch(const Slice& key) override {
    const uint64_t hash = KeyHash(key);
    return FastLocalBloomImpl::HashMayMatch(
        Lower32of64(hash), Upper32of64(hash), len_, num_probes_, data_);
  }

  bool HashMayMatch(const uint64_t hash) override {
    return FastLocalBloomImpl::HashMayMatch(
        Lower32of64(hash), Upper32of64(hash), len_, num_probes_, data_);
  }

  // Hashes and prefetches every key's line, then probes them
  // (FastLocalBloomBitsReader::MayMatch for MultiGet).
  void MayMatch(int num_keys, Slice** keys, bool* may_match) override {
    std::array<uint32_t, kMaxBatch> probe_hashes;
    std::array<uint32_t, kMaxBatch> offsets;
    for (int start = 0; start < num_keys; start += kMaxBatch) {
      const int count = std::min(kMaxBatch, num_keys - start);
      for (int i = 0; i < count; ++i) {
        const uint64_t hash = KeyHash(*keys[start + i]);
        FastLocalBloomImpl::PrepareHash(Lower32of64(hash), len_, data_,
                                        &offsets[i]);
        probe_hashes[i] = Upper32of64(hash);
      }
      for (int i = 0; i < count; ++i) {
        may_match[start + i] = FastLocalBloomImpl::HashMayMatchPrepared(
            probe_hashes[i], num_probes_, data_ + offsets[i]);
      }
    }
  }

 private:
  const char* const data_;
  const uint32_t len_;
  const int num_probes_;
};

}  // namespace

bool FastLocalBloomAvx2Supported() { return __builtin_cpu_supports("avx2"); }

uint64_t RocksDbKeyHash(const Slice& key) { return KeyHash(key); }

FilterBitsBuilder* NewFastLocalBloomAvx2Builder(int millibits_per_key) {
  return new Builder(std::max(millibits_per_key, 1000));
}

FilterBitsReader* NewFastLocalBloomAvx2Reader(const Slice& contents) {
  if (contents.size() <= kMetadataBytes ||
      contents.size() - kMetadataBytes > 0xffffffc0) {
    return new AlwaysMayMatch();
  }
  const uint32_t len = static_cast<uint32_t>(contents.size() - kMetadataBytes);
  const auto* meta = reinterpret_cast<const uint8_t*>(contents.data() + len);
  const int num_probes = meta[2] & 31;
  if (meta[0] != 0xff || meta[1] != 0 || (meta[2] >> 5) != 0 || meta[3] != 0 ||
      meta[4] != 0 || num_probes < 1 || num_probes > 30 ||
      len % kCacheLineBytes != 0) {
    return new AlwaysMayMatch();
  }
  return new Reader(contents.data(), len, num_probes);
}

}  // namespace sstfilter::bench
