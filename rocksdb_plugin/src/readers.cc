// The FilterBitsReaders of every sstfilter policy (filter_bits.h): one per
// block, chosen once by kind, layout and SIMD path, each carrying the
// table's ProbeSampler if it has one, and NewBitsReader, the one switch
// that picks it (or RocksDB's own reader, or "may match").
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>

#include "filter_bits.h"
#include "rocksdb/filter_policy.h"
#include "sstfilter/block_classifier.h"
#include "sstfilter/blocked_bloom.h"
#include "sstfilter/cuckoo_filter.h"
#include "sstfilter/detail/blocked_bloom_probe.h"
#include "sstfilter/detail/cuckoo_bucket_array.h"
#include "sstfilter/detail/key_hash.h"
#include "sstfilter/filter_view.h"
#include "sstfilter/hash.h"
#include "sstfilter/simd.h"
#include "sstfilter/workload.h"

namespace sstfilter::rocksdb_plugin {
namespace {

using ROCKSDB_NAMESPACE::FilterBitsReader;
using ROCKSDB_NAMESPACE::Slice;

// The probes this thread makes until its next sample: per thread, so that
// a probe writes no shared memory. The count runs over every sampled
// reader the thread uses, which spreads samples by probes, not by reader.
// Where the library is loaded at start-up (this build's preload library
// and executables: SSTFILTER_INITIAL_EXEC_TLS), initial-exec puts the 4
// bytes in the static TLS block, reached from the thread pointer with no
// __tls_get_addr call per probe. Compiled into RocksDB (the plugin folder)
// the default model stays: a library that may be dlopen'ed with an
// initial-exec variable needs its whole TLS block, RocksDB's thread-locals
// with it, in glibc's small static TLS surplus, and RocksJava's
// librocksdbjni.so then fails to load ("cannot allocate memory in static
// TLS block"). Linked into an executable (db_bench), the linker makes it
// local-exec anyway; in RocksJava a probe pays the call.
#if defined(SSTFILTER_INITIAL_EXEC_TLS)
[[gnu::tls_model("initial-exec")]]
#endif
thread_local uint32_t probes_to_next_sample = LevelWorkload::kSampleEvery;
// Which key of a batch a sample falls on (SampleBatch): a per-thread
// generator stepped once per sample, off the probes' path.
#if defined(SSTFILTER_INITIAL_EXEC_TLS)
[[gnu::tls_model("initial-exec")]]
#endif
thread_local uint64_t batch_sample_state = 0x9e3779b97f4a7c15u;

// Whether this thread's probe is its sample. The count never reaches 0 but
// here, so a probe is one decrement and test.
inline bool SampleDue() {
  if (__builtin_expect(--probes_to_next_sample != 0, 1)) return false;
  probes_to_next_sample = LevelWorkload::kSampleEvery;
  return true;
}

// What every reader here shares: the table's sampler (probe_sampler.h), or
// none, in which case a probe pays one predictable test of a null pointer.
class Reader : public FilterBitsReader {
 protected:
  explicit Reader(std::shared_ptr<const ProbeSampler> sampler)
      : sampler_(std::move(sampler)) {}

  // Returns `may_match`, the answer for `key`, after reporting it if this
  // probe is this thread's sample.
  bool Sampled(const Slice& key, bool may_match) const {
    if (__builtin_expect(sampler_ != nullptr, 0) && SampleDue()) {
      Report(key, may_match);
    }
    return may_match;
  }
  // A batch counts a probe per key and reports as many of its keys as the
  // thread's count falls on in it, each drawn uniformly from the batch: a
  // MultiGet batch is sorted, so a fixed position (its first key, or the
  // count's, the same in every batch since kSampleEvery is a multiple of
  // its 32) would lean to one quantile of the key space.
  void SampledBatch(int num_keys, Slice** keys, const bool* may_match) const {
    if (__builtin_expect(sampler_ == nullptr, 1) || num_keys <= 0) return;
    const uint32_t n = static_cast<uint32_t>(num_keys);
    if (__builtin_expect(probes_to_next_sample > n, 1)) {
      probes_to_next_sample -= n;
      return;
    }
    SampleBatch(n, keys, may_match);
  }

 private:
  // Out of the probe's line: nothing stays live across a call on the
  // probe's path, and the frame of MayMatch stays small.
  [[gnu::noinline, gnu::cold]] void Report(const Slice& key,
                                           bool may_match) const {
    sampler_->Record(ToView(key), may_match);
  }
  [[gnu::noinline, gnu::cold]] void SampleBatch(uint32_t n, Slice** keys,
                                                const bool* may_match) const {
    uint32_t last = probes_to_next_sample - 1;
    for (uint32_t at = last; at < n; at += LevelWorkload::kSampleEvery) {
      const uint32_t drawn = static_cast<uint32_t>(
          Remix64(batch_sample_state += 0x9e3779b97f4a7c15u) % n);
      Report(*keys[drawn], may_match[drawn]);
      last = at;
    }
    // The next sample is kSampleEvery probes after the last one reported.
    probes_to_next_sample = last + LevelWorkload::kSampleEvery - n + 1;
  }

  const std::shared_ptr<const ProbeSampler> sampler_;
};

class AlwaysMayMatchReader final : public Reader {
 public:
  explicit AlwaysMayMatchReader(std::shared_ptr<const ProbeSampler> sampler)
      : Reader(std::move(sampler)) {}
  bool MayMatch(const Slice& key) override { return Sampled(key, true); }
  void MayMatch(int num_keys, Slice** keys, bool* may_match) override {
    std::fill(may_match, may_match + std::max(num_keys, 0), true);
    SampledBatch(num_keys, keys, may_match);
  }
};

// RocksDB's own reader, for RocksDB's blocks: the one wrapper around a
// reader, so that it carries the sampler. Its batched MayMatch keeps one
// MultiGet batch (MultiGetContext::MAX_BATCH_SIZE, 32 keys) in arrays on
// the stack and reads past them given more: a batch of any size is handed
// to it 32 keys at a time, as every reader of ours takes any size.
class BuiltinReader final : public Reader {
 public:
  BuiltinReader(FilterBitsReader* reader,
                std::shared_ptr<const ProbeSampler> sampler)
      : Reader(std::move(sampler)), reader_(reader) {}
  bool MayMatch(const Slice& key) override {
    return Sampled(key, reader_->MayMatch(key));
  }
  void MayMatch(int num_keys, Slice** keys, bool* may_match) override {
    constexpr int kMaxBatch = 32;
    for (int first = 0; first < num_keys; first += kMaxBatch) {
      reader_->MayMatch(std::min(kMaxBatch, num_keys - first), keys + first,
                        may_match + first);
    }
    SampledBatch(num_keys, keys, may_match);
  }

 private:
  const std::unique_ptr<FilterBitsReader> reader_;
};

// Hashes a batch's keys kHashGroup at a time, into an array on the stack,
// and hands them to `probe`. 64: twice MultiGet's largest batch
// (MultiGetContext::MAX_BATCH_SIZE, 32), so that RocksDB's batches take one
// group.
constexpr int kHashGroup = 64;
template <typename Probe>
inline void ForEachHashGroup(int num_keys, Slice** keys, bool* may_match,
                             Probe&& probe) {
  uint64_t hashes[kHashGroup];
  for (int start = 0; start < num_keys; start += kHashGroup) {
    const int count = std::min(kHashGroup, num_keys - start);
    for (int i = 0; i < count; ++i) {
      hashes[i] = detail::HashKeyInline(ToView(*keys[start + i]));
    }
    probe(hashes, static_cast<size_t>(count), may_match + start);
  }
}

// For the inline readers' batches: key i's hash, computed where the batch
// prefetches its line or buckets.
struct HashOfKey {
  Slice** keys;
  uint64_t operator()(size_t i) const {
    return detail::HashKeyInline(ToView(*keys[i]));
  }
};
size_t BatchSize(int num_keys) {
  return static_cast<size_t>(std::max(num_keys, 0));
}

// The readers below are chosen once per block, by kind, layout and SIMD
// path, so that MayMatch hashes and probes inline: no variant, no run-time
// CPU check and no call per key, as RocksDB's FastLocalBloomBitsReader
// (filter_policy.cc) does. The AVX2 instantiations are compiled for AVX2
// ([[gnu::target("avx2"), gnu::flatten]]) and made only when the CPU has
// it.

// kLinesPerKey: 1 or 2, the block's layout (detail::MayContain).
template <typename LineOps, uint32_t kLinesPerKey>
class BlockedBloomReader final : public Reader {
 public:
  BlockedBloomReader(const detail::BloomLines& lines,
                     std::shared_ptr<const ProbeSampler> sampler)
      : Reader(std::move(sampler)), lines_(lines) {}
  bool MayMatch(const Slice& key) override;
  void MayMatch(int num_keys, Slice** keys, bool* may_match) override;

 private:
  bool MatchOne(const Slice& key) const {
    return Sampled(key, detail::MayContain<LineOps, kLinesPerKey>(
                            lines_, detail::HashKeyInline(ToView(key))));
  }
  // Each key is hashed as its line is prefetched (MayContainBatchOf).
  void MatchBatch(int num_keys, Slice** keys, bool* may_match) const {
    detail::MayContainBatchOf<LineOps, kLinesPerKey>(
        lines_, BatchSize(num_keys), HashOfKey{keys}, may_match);
    SampledBatch(num_keys, keys, may_match);
  }

  const detail::BloomLines lines_;
};

template <typename LineOps, uint32_t kLinesPerKey>
bool BlockedBloomReader<LineOps, kLinesPerKey>::MayMatch(const Slice& key) {
  return MatchOne(key);
}
template <typename LineOps, uint32_t kLinesPerKey>
void BlockedBloomReader<LineOps, kLinesPerKey>::MayMatch(int num_keys,
                                                         Slice** keys,
                                                         bool* may_match) {
  MatchBatch(num_keys, keys, may_match);
}
#if defined(__x86_64__)
// The AVX2 readers' entry points, compiled for AVX2 with every call inlined.
#define SSTFILTER_AVX2_BLOOM_READER(LINE_OPS, LINES_PER_KEY)                \
  template <>                                                               \
  [[gnu::target("avx2"), gnu::flatten]] bool                                \
  BlockedBloomReader<LINE_OPS, LINES_PER_KEY>::MayMatch(const Slice& key) { \
    return MatchOne(key);                                                   \
  }                                                                         \
  template <>                                                               \
  [[gnu::target("avx2"), gnu::flatten]] void                                \
  BlockedBloomReader<LINE_OPS, LINES_PER_KEY>::MayMatch(                    \
      int num_keys, Slice** keys, bool* may_match) {                        \
    MatchBatch(num_keys, keys, may_match);                                  \
  }
SSTFILTER_AVX2_BLOOM_READER(detail::Avx2LineOps, 1)
SSTFILTER_AVX2_BLOOM_READER(detail::Avx2LineOps, 2)
SSTFILTER_AVX2_BLOOM_READER(detail::Avx2LineOpsUpTo8Probes, 1)
SSTFILTER_AVX2_BLOOM_READER(detail::Avx2LineOpsUpTo8Probes, 2)
#undef SSTFILTER_AVX2_BLOOM_READER
#endif

// The common static cuckoo filter (CuckooView::StaticBucketArrayOf).
class StaticCuckooReader final : public Reader {
 public:
  StaticCuckooReader(const detail::cuckoo::BucketArray& array,
                     std::shared_ptr<const ProbeSampler> sampler)
      : Reader(std::move(sampler)), array_(array) {}
  bool MayMatch(const Slice& key) override {
    return Sampled(key, detail::cuckoo::StaticMayContain(
                            array_, detail::HashKeyInline(ToView(key))));
  }
  void MayMatch(int num_keys, Slice** keys, bool* may_match) override {
    detail::cuckoo::StaticMayContainBatchOf(array_, BatchSize(num_keys),
                                            HashOfKey{keys}, may_match);
    SampledBatch(num_keys, keys, may_match);
  }

 private:
  const detail::cuckoo::BucketArray array_;
};

// Any other filter (a cuckoo chain or stash, wide fingerprints, format v1
// cuckoo): through the view.
class ViewReader final : public Reader {
 public:
  ViewReader(FilterView view, std::shared_ptr<const ProbeSampler> sampler)
      : Reader(std::move(sampler)), view_(std::move(view)) {}
  bool MayMatch(const Slice& key) override {
    return Sampled(key, view_.MayContain(detail::HashKeyInline(ToView(key))));
  }
  void MayMatch(int num_keys, Slice** keys, bool* may_match) override {
    ForEachHashGroup(num_keys, keys, may_match,
                     [this](const uint64_t* hashes, size_t n, bool* out) {
                       view_.MayContainBatch(hashes, n, out);
                     });
    SampledBatch(num_keys, keys, may_match);
  }

 private:
  const FilterView view_;
};

template <typename LineOps>
FilterBitsReader* NewBlockedBloomReaderOf(
    const detail::BloomLines& lines,
    std::shared_ptr<const ProbeSampler> sampler) {
  if (lines.probes_second == 0) {
    return new BlockedBloomReader<LineOps, 1>(lines, std::move(sampler));
  }
  return new BlockedBloomReader<LineOps, 2>(lines, std::move(sampler));
}

// A filter of lines gets the reader of its layout, SIMD path and probe
// count; one of none (which answers "no") is read through its view.
FilterBitsReader* NewBlockedBloomReader(
    FilterView view, SimdPath path,
    std::shared_ptr<const ProbeSampler> sampler) {
  const detail::BloomLines lines = view.blocked_bloom()->probe_lines();
  if (lines.num_lines == 0) {
    return new ViewReader(std::move(view), std::move(sampler));
  }
#if defined(__x86_64__)
  if (path == SimdPath::kAvx2 && SimdPathSupported(path)) {
    if (std::max(lines.probes_first, lines.probes_second) <=
        detail::Avx2LineOpsUpTo8Probes::kMaxProbes) {
      return NewBlockedBloomReaderOf<detail::Avx2LineOpsUpTo8Probes>(
          lines, std::move(sampler));
    }
    return NewBlockedBloomReaderOf<detail::Avx2LineOps>(lines,
                                                        std::move(sampler));
  }
#endif
  return NewBlockedBloomReaderOf<detail::ScalarLineOps>(lines,
                                                        std::move(sampler));
}

}  // namespace

FilterBitsReader* NewBitsReaderOnPath(
    const Slice& contents, BlockFamily family, SimdPath path,
    std::shared_ptr<const ProbeSampler> sampler) {
  BlockClass block = ClassifyBlock(ToView(contents), family);
  switch (block.owner) {
    case BlockOwner::kOurs:
      break;
    case BlockOwner::kRocksdb: {
      // RocksDB's built-in policies all read through one dispatcher. The
      // policy is made once and never freed (readers may outlive statics).
      static const ROCKSDB_NAMESPACE::FilterPolicy* const builtin =
          ROCKSDB_NAMESPACE::NewBloomFilterPolicy(10);
      return new BuiltinReader(builtin->GetFilterBitsReader(contents),
                               std::move(sampler));
    }
    case BlockOwner::kMayMatch:
      return new AlwaysMayMatchReader(std::move(sampler));
  }
  if (block.ours.blocked_bloom() != nullptr) {
    return NewBlockedBloomReader(std::move(block.ours), path,
                                 std::move(sampler));
  }
  detail::cuckoo::BucketArray array;
  if (block.ours.cuckoo()->StaticBucketArrayOf(&array)) {
    return new StaticCuckooReader(array, std::move(sampler));
  }
  return new ViewReader(std::move(block.ours), std::move(sampler));
}

FilterBitsReader* NewBitsReader(const Slice& contents, BlockFamily family,
                                std::shared_ptr<const ProbeSampler> sampler) {
  return NewBitsReaderOnPath(contents, family, BestSimdPath(),
                             std::move(sampler));
}

}  // namespace sstfilter::rocksdb_plugin
