#include "filter_bits.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sstfilter/blocked_bloom.h"
#include "sstfilter/cuckoo_filter.h"
#include "sstfilter/detail/blocked_bloom_probe.h"
#include "sstfilter/detail/cuckoo_probe.h"
#include "sstfilter/detail/hash_inline.h"
#include "sstfilter/filter_view.h"
#include "sstfilter/hash.h"
#include "sstfilter/simd.h"

namespace sstfilter::rocksdb_plugin {
namespace {

using ROCKSDB_NAMESPACE::FilterBitsBuilder;
using ROCKSDB_NAMESPACE::FilterBitsReader;
using ROCKSDB_NAMESPACE::Slice;

// Key hashes kept in fixed-size chunks, so that memory grows one chunk at a
// time, about 8 bytes per hash, instead of a std::vector's doubling (whose
// copy briefly holds 2-3x). One thread adds; size() may be read from any.
class HashChunks {
 public:
  static constexpr size_t kChunkHashes = 4096;  // 32 KiB

  size_t size() const { return size_.load(std::memory_order_relaxed); }
  bool empty() const { return size() == 0; }
  // The last hash added, if any.
  std::optional<uint64_t> last() const {
    if (empty()) return std::nullopt;
    return chunks_.back()[(size() - 1) % kChunkHashes];
  }

  void push_back(uint64_t hash) {
    const size_t size = this->size();
    const size_t slot = size % kChunkHashes;
    if (slot == 0) chunks_.emplace_back(new uint64_t[kChunkHashes]);
    chunks_.back()[slot] = hash;
    size_.store(size + 1, std::memory_order_relaxed);
  }

  // Calls fn(hashes, count) for each chunk in order (fn may reorder a
  // chunk's hashes); with `release`, frees each chunk once fn returns and
  // leaves this empty.
  template <class Fn>
  void ForEachChunk(bool release, Fn&& fn) {
    size_t left = size();
    for (auto& chunk : chunks_) {
      const size_t count = std::min(left, kChunkHashes);
      fn(chunk.get(), count);
      left -= count;
      if (release) chunk.reset();
    }
    if (release) clear();
  }

  void clear() {
    chunks_.clear();
    chunks_.shrink_to_fit();
    size_.store(0, std::memory_order_relaxed);
  }

 private:
  std::vector<std::unique_ptr<uint64_t[]>> chunks_;
  // Atomic only so that EstimateEntriesAdded may read it from another thread.
  std::atomic<size_t> size_{0};
};

std::string_view ToView(const Slice& s) {
  return std::string_view(s.data(), s.size());
}

class AlwaysMayMatchReader : public FilterBitsReader {
 public:
  bool MayMatch(const Slice& /*key*/) override { return true; }
  void MayMatch(int num_keys, Slice** /*keys*/, bool* may_match) override {
    std::fill(may_match, may_match + std::max(num_keys, 0), true);
  }
};

// Hashes up to kHashGroup keys of a MultiGet batch at a time (MultiGet
// batches are at most 32 keys) and hands them to `probe`.
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
// (SSTFILTER_AVX2_FLATTEN) and made only when the CPU has it.

template <typename LineOps>
class BlockedBloomReader final : public FilterBitsReader {
 public:
  explicit BlockedBloomReader(const detail::BloomShape& shape)
      : shape_(shape) {}
  bool MayMatch(const Slice& key) override;
  void MayMatch(int num_keys, Slice** keys, bool* may_match) override;

 private:
  bool MatchOne(const Slice& key) const {
    return detail::MayContain<LineOps>(shape_,
                                       detail::HashKeyInline(ToView(key)));
  }
  // Each key is hashed as its line is prefetched (MayContainBatchOf).
  void MatchBatch(int num_keys, Slice** keys, bool* may_match) const {
    detail::MayContainBatchOf<LineOps>(shape_, BatchSize(num_keys),
                                       HashOfKey{keys}, may_match);
  }

  const detail::BloomShape shape_;
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
#if defined(SSTFILTER_HAVE_AVX2_OPS)
template <>
SSTFILTER_AVX2_FLATTEN bool BlockedBloomReader<detail::Avx2LineOps>::MayMatch(
    const Slice& key) {
  return MatchOne(key);
}
template <>
SSTFILTER_AVX2_FLATTEN void BlockedBloomReader<detail::Avx2LineOps>::MayMatch(
    int num_keys, Slice** keys, bool* may_match) {
  MatchBatch(num_keys, keys, may_match);
}
#endif

// The common static cuckoo filter (cuckoo_probe.h's StaticShape).
class StaticCuckooReader final : public FilterBitsReader {
 public:
  explicit StaticCuckooReader(const detail::cuckoo::StaticShape& shape)
      : shape_(shape) {}
  bool MayMatch(const Slice& key) override {
    return detail::cuckoo::StaticMayContain(shape_,
                                            detail::HashKeyInline(ToView(key)));
  }
  void MayMatch(int num_keys, Slice** keys, bool* may_match) override {
    detail::cuckoo::StaticMayContainBatchOf(shape_, BatchSize(num_keys),
                                            HashOfKey{keys}, may_match);
  }

 private:
  const detail::cuckoo::StaticShape shape_;
};

// Any other filter (a cuckoo chain or stash, wide fingerprints, format v1
// cuckoo): through the view.
class ViewReader final : public FilterBitsReader {
 public:
  explicit ViewReader(FilterView view) : view_(std::move(view)) {}
  bool MayMatch(const Slice& key) override {
    return view_.may_contain(detail::HashKeyInline(ToView(key)));
  }
  void MayMatch(int num_keys, Slice** keys, bool* may_match) override {
    ForEachHashGroup(num_keys, keys, may_match,
                     [this](const uint64_t* hashes, size_t n, bool* out) {
                       view_.may_contain_batch(hashes, n, out);
                     });
  }

 private:
  const FilterView view_;
};

FilterBitsReader* NewBlockedBloomReader(const BlockedBloomView& view) {
  const detail::BloomShape shape =
      detail::BloomShape::Of(view.lines(), view.params());
#if defined(SSTFILTER_HAVE_AVX2_OPS)
  if (ActiveSimdPath() == SimdPath::kAvx2) {
    return new BlockedBloomReader<detail::Avx2LineOps>(shape);
  }
#endif
  return new BlockedBloomReader<detail::ScalarLineOps>(shape);
}

class Builder : public BitsBuilder {
 public:
  explicit Builder(const BuilderConfig& config) : config_(config) {}

  void AddKey(const Slice& key) override {
    // Keys arrive sorted, so equal keys (and, before RocksDB 9.6, a prefix
    // repeated by consecutive keys) are adjacent.
    const uint64_t hash = detail::HashKeyInline(ToView(key));
    if (hash != hashes_.last()) hashes_.push_back(hash);
  }

  // The rules of RocksDB's own builders (XXPH3FilterBitsBuilder in
  // filter_policy.cc). The alt goes first, so that the last entry added is
  // the key whenever the key is new.
  void AddKeyAndAlt(const Slice& key, const Slice& alt) override {
    const uint64_t key_hash = detail::HashKeyInline(ToView(key));
    const uint64_t alt_hash = detail::HashKeyInline(ToView(alt));
    const std::optional<uint64_t> last = hashes_.last();
    const std::optional<uint64_t> previous_alt = previous_alt_hash_;
    if (alt_hash != previous_alt && alt_hash != key_hash && alt_hash != last) {
      hashes_.push_back(alt_hash);
    }
    previous_alt_hash_ = alt_hash;
    // A key may equal the previous alt: a whole key can be its own prefix.
    if (key_hash != last && key_hash != previous_alt) {
      hashes_.push_back(key_hash);
    }
  }

  size_t EstimateEntriesAdded() override { return hashes_.size(); }

  Slice Finish(std::unique_ptr<const char[]>* buf) override {
    ROCKSDB_NAMESPACE::Status unused;
    return Finish(buf, &unused);
  }

  // Always OK: the filter is built from memory we own and cannot fail.
  Slice Finish(std::unique_ptr<const char[]>* buf,
               ROCKSDB_NAMESPACE::Status* status) override {
    // Without post-verification the hashes are freed once consumed.
    const bool release = !config_.post_verify;
    previous_alt_hash_.reset();
    std::unique_ptr<char[]> out;
    size_t size = 0;
    bool cuckoo_built = false;
    if (BuildsCuckoo(hashes_.size())) {
      // The cuckoo build reads the chunks where they are; they are freed
      // only afterwards, since a failed build (one that grew past the
      // largest filter) falls back to a BlockedBloom over the same hashes.
      std::vector<HashRun> runs;
      hashes_.ForEachChunk(false, [&](uint64_t* hashes, size_t n) {
        runs.push_back({hashes, n});
      });
      std::string cuckoo;
      if (BuildStaticCuckoo(runs.data(), runs.size(), config_.fingerprint_bits,
                            config_.max_filter_bytes, &cuckoo)
              .ok()) {
        if (release) hashes_.clear();
        size = cuckoo.size();
        out.reset(new char[size]);
        std::memcpy(out.get(), cuckoo.data(), size);
        cuckoo_built = true;
      }
    }
    if (!cuckoo_built) {
      out = WriteBlockedBloom(
          hashes_.size(), &size, [&](BlockedBloomWriter& writer) {
            hashes_.ForEachChunk(release, [&](const uint64_t* h, size_t n) {
              writer.add_batch(h, n);
            });
          });
    }
    const Slice result(out.get(), size);
    *buf = std::move(out);
    if (status != nullptr) *status = ROCKSDB_NAMESPACE::Status::OK();
    return result;
  }

  // With detect_filter_construct_corruption, queries the finished filter
  // for every hash it was built from (as RocksDB's own builders do).
  ROCKSDB_NAMESPACE::Status MaybePostVerify(const Slice& content) override {
    if (!config_.post_verify) return ROCKSDB_NAMESPACE::Status::OK();
    FilterView view;
    const Status parsed = FilterView::Parse(ToView(content), &view);
    bool all_found = parsed.ok();
    if (all_found) {
      bool found[HashChunks::kChunkHashes];
      hashes_.ForEachChunk(false, [&](const uint64_t* hashes, size_t count) {
        if (!all_found) return;
        view.may_contain_batch(hashes, count, found);
        all_found = std::all_of(found, found + count, [](bool b) { return b; });
      });
    }
    hashes_.clear();
    if (!parsed.ok()) {
      return ROCKSDB_NAMESPACE::Status::Corruption(
          "sstfilter: new filter does not parse", parsed.ToString());
    }
    if (!all_found) {
      return ROCKSDB_NAMESPACE::Status::Corruption(
          "sstfilter: new filter misses a key it was built from");
    }
    return ROCKSDB_NAMESPACE::Status::OK();
  }

  size_t CalculateSpace(size_t num_entries) override {
    if (BuildsCuckoo(num_entries)) {
      return StaticCuckooBytes(num_entries, config_.fingerprint_bits);
    }
    return BloomParams(num_entries).SerializedSize();
  }

  double EstimatedFpRate(size_t num_entries, size_t bytes) override {
    if (BuildsCuckoo(num_entries)) {
      return StaticCuckooFpr(num_entries, bytes, config_.fingerprint_bits);
    }
    BlockedBloomParams params = BloomParams(num_entries);
    params.num_lines = bytes < BlockedBloomParams::kMetadataBytes
                           ? 0
                           : (bytes - BlockedBloomParams::kMetadataBytes) /
                                 BlockedBloomParams::kLineBytes;
    if (params.num_lines == 0) return num_entries == 0 ? 0.0 : 1.0;
    return params.EstimatedFpr(num_entries);
  }

  // The most keys whose filter takes at most `bytes` at the configured
  // bits/key (a capped filter holds more only at a higher FPR, so `bytes`
  // past the cap count as the cap, as in RocksDB's builders). Partitioned
  // filters size their partitions with this.
  size_t ApproximateNumEntries(size_t bytes) override {
    bytes = std::min(bytes, config_.max_filter_bytes);
    if (config_.kind == FilterKind::kCuckoo) {
      return static_cast<size_t>(
          StaticCuckooCapacity(bytes, config_.fingerprint_bits));
    }
    // SerializedSize grows with the key count: binary search, from the
    // bound that at least 1 bit per key gives.
    size_t fits = 0;
    size_t too_many = std::min(bytes, SIZE_MAX / 8 - 1) * 8 + 1;
    while (too_many - fits > 1) {
      const size_t mid = fits + (too_many - fits) / 2;
      if (BlockedBloomParams::ForBitsPerKey(mid, config_.bits_per_key,
                                            config_.lines_per_key)
              .SerializedSize() <= bytes) {
        fits = mid;
      } else {
        too_many = mid;
      }
    }
    return fits;
  }

 private:
  // The BlockedBloom Finish writes for `num_keys`, capped at the largest
  // filter.
  BlockedBloomParams BloomParams(uint64_t num_keys) const {
    return BlockedBloomParams::ForBitsPerKeyWithin(
        config_.max_filter_bytes, num_keys, config_.bits_per_key,
        config_.lines_per_key);
  }

  // Whether Finish tries a cuckoo filter for `num_keys`: it falls back to
  // BlockedBloom past the cuckoo format's capacity (StaticCuckooBytes is
  // then SIZE_MAX) or the largest filter. (A build that grows past the
  // largest filter on a retry falls back too; CalculateSpace cannot know.)
  bool BuildsCuckoo(uint64_t num_keys) const {
    return config_.kind == FilterKind::kCuckoo &&
           StaticCuckooBytes(num_keys, config_.fingerprint_bits) <=
               config_.max_filter_bytes;
  }

  // A BlockedBloom for `count` keys, which `feed` adds to the writer.
  template <typename Feed>
  std::unique_ptr<char[]> WriteBlockedBloom(size_t count, size_t* size,
                                            Feed&& feed) const {
    const auto params = BloomParams(count);
    *size = params.SerializedSize();
    std::unique_ptr<char[]> out(new char[*size]);
    BlockedBloomWriter writer(params, reinterpret_cast<uint8_t*>(out.get()));
    feed(writer);
    return out;
  }

  const BuilderConfig config_;
  HashChunks hashes_;
  // The alt of the last AddKeyAndAlt since the last Finish.
  std::optional<uint64_t> previous_alt_hash_;
};

}  // namespace

BitsBuilder* NewBitsBuilder(const BuilderConfig& config) {
  return new Builder(config);
}

FilterBitsReader* NewBitsReader(const Slice& contents) {
  FilterView view;
  if (!FilterView::Parse(ToView(contents), &view).ok()) {
    return new AlwaysMayMatchReader();
  }
  if (const BlockedBloomView* bloom = view.blocked_bloom()) {
    return NewBlockedBloomReader(*bloom);
  }
  detail::cuckoo::StaticShape shape;
  if (view.cuckoo()->StaticShapeOf(&shape)) {
    return new StaticCuckooReader(shape);
  }
  return new ViewReader(std::move(view));
}

}  // namespace sstfilter::rocksdb_plugin
