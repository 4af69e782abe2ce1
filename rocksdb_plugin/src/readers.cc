// The FilterBitsReaders of every sstfilter policy (filter_bits.h): one per
// block, chosen once by kind, layout and SIMD path, and NewBitsReader, the
// one switch that picks it (or RocksDB's own reader, or "may match").
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>

#include "filter_bits.h"
#include "key_hash.h"
#include "rocksdb/filter_policy.h"
#include "sstfilter/block_classifier.h"
#include "sstfilter/blocked_bloom.h"
#include "sstfilter/cuckoo_filter.h"
#include "sstfilter/detail/avx2_line_ops.h"
#include "sstfilter/detail/blocked_bloom_probe.h"
#include "sstfilter/detail/cuckoo_table.h"
#include "sstfilter/filter_view.h"
#include "sstfilter/simd.h"
#include "sstfilter/workload.h"

namespace sstfilter::rocksdb_plugin {
namespace {

using ROCKSDB_NAMESPACE::FilterBitsReader;
using ROCKSDB_NAMESPACE::Slice;

class AlwaysMayMatchReader : public FilterBitsReader {
 public:
  bool MayMatch(const Slice& /*key*/) override { return true; }
  void MayMatch(int num_keys, Slice** /*keys*/, bool* may_match) override {
    std::fill(may_match, may_match + std::max(num_keys, 0), true);
  }
};

// RocksDB's own reader, for RocksDB's blocks. Its batched MayMatch keeps
// one MultiGet batch (MultiGetContext::MAX_BATCH_SIZE, 32 keys) in arrays
// on the stack and reads past them given more: a batch of any size is
// handed to it 32 keys at a time, as every reader of ours takes any size.
class BuiltinReader final : public FilterBitsReader {
 public:
  explicit BuiltinReader(FilterBitsReader* reader) : reader_(reader) {}
  bool MayMatch(const Slice& key) override { return reader_->MayMatch(key); }
  void MayMatch(int num_keys, Slice** keys, bool* may_match) override {
    constexpr int kMaxBatch = 32;
    for (int first = 0; first < num_keys; first += kMaxBatch) {
      reader_->MayMatch(std::min(kMaxBatch, num_keys - first), keys + first,
                        may_match + first);
    }
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
      hashes[i] = HashKeyInline(ToView(*keys[start + i]));
    }
    probe(hashes, static_cast<size_t>(count), may_match + start);
  }
}

// For the inline readers' batches: key i's hash, computed where the batch
// prefetches its line or buckets.
struct HashOfKey {
  Slice** keys;
  uint64_t operator()(size_t i) const {
    return HashKeyInline(ToView(*keys[i]));
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

template <typename LineOps>
class BlockedBloomReader final : public FilterBitsReader {
 public:
  explicit BlockedBloomReader(const detail::BloomLines& lines)
      : lines_(lines) {}
  bool MayMatch(const Slice& key) override;
  void MayMatch(int num_keys, Slice** keys, bool* may_match) override;

 private:
  bool MatchOne(const Slice& key) const {
    return detail::MayContain<LineOps>(lines_, HashKeyInline(ToView(key)));
  }
  // Each key is hashed as its line is prefetched (MayContainBatchOf).
  void MatchBatch(int num_keys, Slice** keys, bool* may_match) const {
    detail::MayContainBatchOf<LineOps>(lines_, BatchSize(num_keys),
                                       HashOfKey{keys}, may_match);
  }

  const detail::BloomLines lines_;
};

template <typename LineOps>
bool BlockedBloomReader<LineOps>::MayMatch(const Slice& key) {
  return MatchOne(key);
}
template <typename LineOps>
void BlockedBloomReader<LineOps>::MayMatch(int num_keys, Slice** keys,
                                           bool* may_match) {
  MatchBatch(num_keys, keys, may_match);
}
#if defined(__x86_64__)
template <>
[[gnu::target("avx2"), gnu::flatten]] bool
BlockedBloomReader<detail::Avx2LineOps>::MayMatch(const Slice& key) {
  return MatchOne(key);
}
template <>
[[gnu::target("avx2"), gnu::flatten]] void
BlockedBloomReader<detail::Avx2LineOps>::MayMatch(int num_keys, Slice** keys,
                                                  bool* may_match) {
  MatchBatch(num_keys, keys, may_match);
}
#endif

// The common static cuckoo filter (CuckooView::StaticTableOf).
class StaticCuckooReader final : public FilterBitsReader {
 public:
  explicit StaticCuckooReader(const detail::cuckoo::BucketTable& table)
      : table_(table) {}
  bool MayMatch(const Slice& key) override {
    return detail::cuckoo::StaticMayContain(table_, HashKeyInline(ToView(key)));
  }
  void MayMatch(int num_keys, Slice** keys, bool* may_match) override {
    detail::cuckoo::StaticMayContainBatchOf(table_, BatchSize(num_keys),
                                            HashOfKey{keys}, may_match);
  }

 private:
  const detail::cuckoo::BucketTable table_;
};

// Any other filter (a cuckoo chain or stash, wide fingerprints, format v1
// cuckoo): through the view.
class ViewReader final : public FilterBitsReader {
 public:
  explicit ViewReader(FilterView view) : view_(std::move(view)) {}
  bool MayMatch(const Slice& key) override {
    return view_.MayContain(HashKeyInline(ToView(key)));
  }
  void MayMatch(int num_keys, Slice** keys, bool* may_match) override {
    ForEachHashGroup(num_keys, keys, may_match,
                     [this](const uint64_t* hashes, size_t n, bool* out) {
                       view_.MayContainBatch(hashes, n, out);
                     });
  }

 private:
  const FilterView view_;
};

FilterBitsReader* NewBlockedBloomReader(const BlockedBloomView& view) {
  const detail::BloomLines& lines = view.probe_lines();
#if defined(__x86_64__)
  if (ActiveSimdPath() == SimdPath::kAvx2) {
    return new BlockedBloomReader<detail::Avx2LineOps>(lines);
  }
#endif
  return new BlockedBloomReader<detail::ScalarLineOps>(lines);
}

// The probes this thread makes until its next sample: per thread, so that
// a probe writes no shared memory. The count runs over every sampled
// reader the thread uses, which spreads samples by probes, not by reader.
thread_local uint32_t probes_to_next_sample = LevelWorkload::kSampleEvery;

// Whether this thread's next `probes` probes include a sample.
inline bool SampleDue(int probes) {
  const uint32_t n = static_cast<uint32_t>(std::max(probes, 1));
  if (probes_to_next_sample > n) {
    probes_to_next_sample -= n;
    return false;
  }
  probes_to_next_sample = LevelWorkload::kSampleEvery;
  return true;
}

// A reader whose probes are sampled (probe_sampler.h).
class SampledReader final : public FilterBitsReader {
 public:
  SampledReader(FilterBitsReader* inner,
                std::shared_ptr<const ProbeSampler> sampler)
      : inner_(inner), sampler_(std::move(sampler)) {}
  bool MayMatch(const Slice& key) override {
    const bool may_match = inner_->MayMatch(key);
    if (SampleDue(1)) sampler_->Record(ToView(key), may_match);
    return may_match;
  }
  void MayMatch(int num_keys, Slice** keys, bool* may_match) override {
    inner_->MayMatch(num_keys, keys, may_match);
    if (num_keys > 0 && SampleDue(num_keys)) {
      sampler_->Record(ToView(*keys[0]), may_match[0]);
    }
  }

 private:
  const std::unique_ptr<FilterBitsReader> inner_;
  const std::shared_ptr<const ProbeSampler> sampler_;
};

FilterBitsReader* NewUnsampledReader(const Slice& contents,
                                     BlockFamily family) {
  BlockClass block = ClassifyBlock(ToView(contents), family);
  switch (block.owner) {
    case BlockOwner::kOurs:
      break;
    case BlockOwner::kRocksdb: {
      // RocksDB's built-in policies all read through one dispatcher. The
      // policy is made once and never freed (readers may outlive statics).
      static const ROCKSDB_NAMESPACE::FilterPolicy* const builtin =
          ROCKSDB_NAMESPACE::NewBloomFilterPolicy(10);
      return new BuiltinReader(builtin->GetFilterBitsReader(contents));
    }
    case BlockOwner::kMayMatch:
      return new AlwaysMayMatchReader();
  }
  if (const BlockedBloomView* bloom = block.ours.blocked_bloom()) {
    return NewBlockedBloomReader(*bloom);
  }
  detail::cuckoo::BucketTable table;
  if (block.ours.cuckoo()->StaticTableOf(&table)) {
    return new StaticCuckooReader(table);
  }
  return new ViewReader(std::move(block.ours));
}

}  // namespace

FilterBitsReader* NewBitsReader(const Slice& contents, BlockFamily family,
                                std::shared_ptr<const ProbeSampler> sampler) {
  FilterBitsReader* reader = NewUnsampledReader(contents, family);
  if (sampler == nullptr) return reader;
  return new SampledReader(reader, std::move(sampler));
}

}  // namespace sstfilter::rocksdb_plugin
