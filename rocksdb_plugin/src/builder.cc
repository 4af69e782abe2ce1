// The FilterBitsBuilder of every sstfilter policy (filter_bits.h): it keeps
// the keys' hashes, charges them and the filter to the block cache, and
// builds the policy's kind in Finish, a cuckoo filter falling back to
// BlockedBloom where one cannot be built.
#if defined(__linux__)
#include <malloc.h>
#endif

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

#include "cache_charge.h"
#include "filter_bits.h"
#include "rocksdb/env.h"
#include "sstfilter/blocked_bloom.h"
#include "sstfilter/cuckoo_filter.h"
#include "sstfilter/detail/key_hash.h"
#include "sstfilter/filter_view.h"
#include "sstfilter/usable_space.h"

namespace sstfilter::rocksdb_plugin {
namespace {

using ROCKSDB_NAMESPACE::Slice;

// Key hashes kept in fixed-size chunks, so that memory grows one chunk at a
// time, about 8 bytes per hash, instead of a std::vector's doubling (whose
// copy briefly holds 2-3x). One thread adds; size() may be read from any.
class HashChunks {
 public:
  static constexpr size_t kChunkHashes = 4096;
  static constexpr size_t kChunkBytes = kChunkHashes * sizeof(uint64_t);

  size_t size() const { return size_.load(std::memory_order_relaxed); }
  bool empty() const { return size() == 0; }
  bool next_push_allocates() const { return size() % kChunkHashes == 0; }
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

// optimize_filters_for_memory. RocksDB reads a filter block into a buffer
// of its size plus the block trailer (kRocksdbBlockTrailerBytes), and the
// block cache holds that buffer; so a filter is
// sized to the usable space of such a buffer, less the trailer, as
// XXPH3FilterBitsBuilder::AllocateMaybeRounding (filter_policy.cc) does.
// Allocates it into *buffer, which then holds the filter.
size_t AllocateUsable(size_t request, std::unique_ptr<char[]>* buffer) {
  buffer->reset(new char[request + kRocksdbBlockTrailerBytes]);
#if defined(__linux__)
  const size_t usable = malloc_usable_size(buffer->get());
  if (usable >= request + kRocksdbBlockTrailerBytes) {
    return usable - kRocksdbBlockTrailerBytes;
  }
#endif
  return request;
}

class Builder : public BitsBuilder {
 public:
  explicit Builder(const BuilderConfig& config)
      : config_(config), max_filter_bytes_(config.max_filter_bytes) {
    if (config_.charge_cache) charge_.emplace(config_.charge_cache);
  }

  void AddKey(const Slice& key) override {
    // Keys arrive sorted, so equal keys (and, before RocksDB 9.6, a prefix
    // repeated by consecutive keys) are adjacent.
    const uint64_t hash = detail::HashKeyInline(ToView(key));
    if (hash != hashes_.last()) AddHash(hash);
  }

  // The rules of RocksDB's own builders (XXPH3FilterBitsBuilder in
  // filter_policy.cc). The alt goes first, so that the last key added is
  // the key whenever the key is new.
  void AddKeyAndAlt(const Slice& key, const Slice& alt) override {
    const uint64_t key_hash = detail::HashKeyInline(ToView(key));
    const uint64_t alt_hash = detail::HashKeyInline(ToView(alt));
    const std::optional<uint64_t> last = hashes_.last();
    const std::optional<uint64_t> previous_alt = previous_alt_hash_;
    if (alt_hash != previous_alt && alt_hash != key_hash && alt_hash != last) {
      AddHash(alt_hash);
    }
    previous_alt_hash_ = alt_hash;
    // A key may equal the previous alt: a whole key can be its own prefix.
    if (key_hash != last && key_hash != previous_alt) {
      AddHash(key_hash);
    }
  }

  size_t EstimateEntriesAdded() override { return hashes_.size(); }

  Slice Finish(std::unique_ptr<const char[]>* buf) override {
    ROCKSDB_NAMESPACE::Status unused;
    return Finish(buf, &unused);
  }

  // Always OK: the filter is built from memory we own, and a charge the
  // cache refuses does not stop it (cache_charge.h).
  Slice Finish(std::unique_ptr<const char[]>* buf,
               ROCKSDB_NAMESPACE::Status* status) override {
    previous_alt_hash_.reset();
    size_t size = 0;
    std::unique_ptr<char[]> out = Build(&size);
    max_filter_bytes_ = config_.max_filter_bytes;  // a cap is for one block
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
        view.MayContainBatch(hashes, count, found);
        all_found = std::all_of(found, found + count, [](bool b) { return b; });
      });
    }
    FreeHashes();
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

  void CapFilterBytes(size_t bytes) override {
    max_filter_bytes_ = std::min(max_filter_bytes_, bytes);
  }

  size_t CalculateSpace(size_t num_keys_added) override {
    if (BuildsCuckoo(num_keys_added)) {
      return StaticCuckooBytes(num_keys_added, config_.fingerprint_bits);
    }
    return BloomParams(num_keys_added).SerializedSize();
  }

  double EstimatedFpRate(size_t num_keys_added, size_t bytes) override {
    if (BuildsCuckoo(num_keys_added)) {
      return StaticCuckooFpr(num_keys_added, bytes, config_.fingerprint_bits);
    }
    return BloomParams(num_keys_added).EstimatedFprIn(bytes, num_keys_added);
  }

  // The most keys whose filter takes at most `bytes` at the configured
  // bits/key (a capped filter holds more only at a higher FPR, so `bytes`
  // past the cap count as the cap, as in RocksDB's builders). Partitioned
  // filters size their partitions with this.
  size_t ApproximateNumEntries(size_t bytes) override {
    bytes = std::min(bytes, max_filter_bytes_);
    if (config_.kind == FilterKind::kCuckoo) {
      return static_cast<size_t>(
          StaticCuckooCapacity(bytes, config_.fingerprint_bits));
    }
    return static_cast<size_t>(BlockedBloomParams::Capacity(
        bytes, config_.bits_per_key, config_.lines_per_key));
  }

 private:
  // The BlockedBloom Finish writes for `num_keys`, capped at the largest
  // filter.
  BlockedBloomParams BloomParams(uint64_t num_keys) const {
    return BlockedBloomParams::ForBitsPerKeyWithin(max_filter_bytes_, num_keys,
                                                   config_.bits_per_key,
                                                   config_.lines_per_key);
  }

  // Whether Finish tries a cuckoo filter for `num_keys`: it falls back to
  // BlockedBloom past the cuckoo format's capacity (StaticCuckooBytes is
  // then SIZE_MAX) or the largest filter. (A build that grows past the
  // largest filter on a retry falls back too; CalculateSpace cannot know.)
  bool BuildsCuckoo(uint64_t num_keys) const {
    return config_.kind == FilterKind::kCuckoo &&
           StaticCuckooBytes(num_keys, config_.fingerprint_bits) <=
               max_filter_bytes_;
  }

  // Keeps `hash`. A new chunk is charged before it is allocated.
  void AddHash(uint64_t hash) {
    if (charge_ && hashes_.next_push_allocates()) {
      hash_bytes_charged_ += HashChunks::kChunkBytes;
      Charge(HashChunks::kChunkBytes, "key hashes");
    }
    hashes_.push_back(hash);
  }

  // Charges `bytes` more. A refusal (strict_capacity_limit) does not stop
  // the build: it goes on, as RocksDB's own builders do, and the first
  // refusal of this builder is logged to the DB's LOG as a warning.
  void Charge(size_t bytes, const char* what) {
    const ROCKSDB_NAMESPACE::Status s = charge_->Add(bytes, what);
    if (s.ok() || warned_) return;
    warned_ = true;
    ROCKSDB_NAMESPACE::Log(
        ROCKSDB_NAMESPACE::InfoLogLevel::WARN_LEVEL, config_.info_log,
        "%s; the filter is built all the same", s.ToString().c_str());
  }

  void FreeHashes() {
    hashes_.clear();
    ReleaseHashCharge();
  }
  void ReleaseHashCharge() {
    if (charge_) charge_->Subtract(hash_bytes_charged_);
    hash_bytes_charged_ = 0;
  }

  // This filter's charge to the block cache: raised before each
  // allocation, trimmed to the filter's size once it is built.
  class FilterCharge {
   public:
    explicit FilterCharge(Builder* builder) : builder_(*builder) {}
    void RaiseTo(size_t bytes) {
      if (!builder_.charge_ || bytes <= charged_) return;
      builder_.Charge(bytes - charged_, "the filter");
      charged_ = bytes;
    }
    void TrimTo(size_t bytes) {
      if (builder_.charge_ && charged_ > bytes) {
        builder_.charge_->Subtract(charged_ - bytes);
      }
    }

   private:
    Builder& builder_;
    size_t charged_ = 0;
  };

  // The filter of the hashes, its bytes charged before they are allocated
  // and held until this builder is destroyed (as XXPH3FilterBitsBuilder's
  // final_filter_cache_res_handles_ are): a cuckoo filter if the policy
  // asks for one and it can be built, otherwise a BlockedBloom.
  std::unique_ptr<char[]> Build(size_t* size) {
    const size_t num_hashes = hashes_.size();
    // optimize_filters_for_memory, except for filters of more than half
    // the largest block, which its rounding may not pass.
    const bool fit_usable = config_.memory_balance != nullptr &&
                            CalculateSpace(num_hashes) <= max_filter_bytes_ / 2;
    FilterCharge charge(this);
    std::unique_ptr<char[]> out;
    if (!BuildsCuckoo(num_hashes) ||
        !BuildCuckoo(fit_usable, &charge, &out, size)) {
      BuildBlockedBloom(fit_usable, &charge, &out, size);
    }
    charge.TrimTo(*size);
    return out;
  }

  // The cuckoo filter of the hashes into *out; false, with the hashes kept,
  // if the build grew past the largest filter. Without post-verification
  // the hashes are freed once consumed.
  bool BuildCuckoo(bool fit_usable, FilterCharge* charge,
                   std::unique_ptr<char[]>* out, size_t* size) {
    const size_t num_hashes = hashes_.size();
    charge->RaiseTo(CalculateSpace(num_hashes));
    // The build reads the chunks where they are; they are freed only
    // afterwards, since a failed build falls back to a BlockedBloom over
    // the same hashes.
    std::vector<HashRun> runs;
    hashes_.ForEachChunk(false, [&](uint64_t* hashes, size_t n) {
      runs.push_back({hashes, n});
    });
    // With optimize_filters_for_memory, the usable size is asked of a
    // buffer freed at once; the filter's own is made once the hashes are
    // freed, so the peak stays the hashes and one filter.
    uint64_t min_buckets = 0;
    if (fit_usable) {
      min_buckets = FitStaticCuckooToUsable(
          num_hashes, config_.fingerprint_bits, [](size_t request) {
            std::unique_ptr<char[]> probe;
            return AllocateUsable(request, &probe);
          });
    }
    std::string cuckoo;
    if (!BuildStaticCuckoo(runs.data(), runs.size(), config_.fingerprint_bits,
                           {min_buckets, max_filter_bytes_}, &cuckoo)
             .ok()) {
      return false;
    }
    // A retry at a larger size (~1%), or the usable space, makes it larger
    // than planned.
    charge->RaiseTo(cuckoo.size());
    if (!config_.post_verify) FreeHashes();
    *size = cuckoo.size();
    if (fit_usable) {
      AllocateUsable(*size, out);
    } else {
      out->reset(new char[*size]);
    }
    std::memcpy(out->get(), cuckoo.data(), *size);
    return true;
  }

  // The BlockedBloom of the hashes into *out. Without post-verification
  // the hashes are freed as they are consumed.
  void BuildBlockedBloom(bool fit_usable, FilterCharge* charge,
                         std::unique_ptr<char[]>* out, size_t* size) {
    const size_t num_hashes = hashes_.size();
    BlockedBloomParams params = BloomParams(num_hashes);
    charge->RaiseTo(params.SerializedSize());
    if (fit_usable) {
      // optimize_filters_for_memory: the lines its buffer's usable space
      // holds (sstfilter/usable_space.h).
      params = FitBlockedBloomToUsable(
          num_hashes, params,
          [&](size_t request) { return AllocateUsable(request, out); },
          config_.memory_balance);
    } else {
      out->reset(new char[params.SerializedSize()]);
    }
    *size = params.SerializedSize();
    charge->RaiseTo(*size);
    BlockedBloomWriter writer(params, reinterpret_cast<uint8_t*>(out->get()));
    const bool release = !config_.post_verify;
    hashes_.ForEachChunk(
        release, [&](const uint64_t* h, size_t n) { writer.AddBatch(h, n); });
    if (release) ReleaseHashCharge();
  }

  const BuilderConfig config_;
  size_t max_filter_bytes_;  // config_'s, or CapFilterBytes's if smaller
  HashChunks hashes_;
  // The alt of the last AddKeyAndAlt since the last Finish.
  std::optional<uint64_t> previous_alt_hash_;
  // What the hashes and the filters are charged to, if anything.
  std::optional<CacheCharge> charge_;
  size_t hash_bytes_charged_ = 0;
  bool warned_ = false;  // of a refused charge, in the LOG
};

}  // namespace

BuilderConfig BaseConfig(
    const ROCKSDB_NAMESPACE::FilterBuildingContext& context) {
  BuilderConfig config;
  config.post_verify = context.table_options.detect_filter_construct_corruption;
  config.charge_cache = FilterConstructionChargeCache(context.table_options);
  config.info_log = context.info_log;
  return config;
}

BitsBuilder* NewBitsBuilder(const BuilderConfig& config) {
  return new Builder(config);
}

}  // namespace sstfilter::rocksdb_plugin
