#include "level_aware_builder.h"

#include <algorithm>
#include <atomic>
#include <random>
#include <string>
#include <utility>

#include "block_index.h"
#include "job_handoff.h"
#include "level_aware_allocation.h"
#include "sstfilter/detail/endian.h"
#include "sstfilter/hash.h"

namespace sstfilter::rocksdb_plugin {
namespace {

using ROCKSDB_NAMESPACE::FilterBitsBuilder;
using ROCKSDB_NAMESPACE::Slice;
using RocksStatus = ROCKSDB_NAMESPACE::Status;

// 8 bytes no other block of this process has: a counter mixed with a seed
// drawn once per process.
uint64_t UniqueBlockTag() {
  static const uint64_t seed = [] {
    std::random_device random;
    return (uint64_t{random()} << 32) ^ random();
  }();
  static std::atomic<uint64_t> counter{0};
  return Remix64(seed + counter.fetch_add(1, std::memory_order_relaxed));
}

// The filter of a file without one (level_aware_builder.h).
class NoFilterBuilder final : public BitsBuilder {
 public:
  void AddKey(const Slice& /*key*/) override { ++keys_; }
  void AddKeyAndAlt(const Slice& /*key*/, const Slice& /*alt*/) override {
    ++keys_;
  }
  size_t EstimateEntriesAdded() override { return keys_; }
  Slice Finish(std::unique_ptr<const char[]>* buf) override {
    char* block = new char[kNoFilterBlockBytes]();  // zeros: marker 0
    detail::StoreLittleEndian<uint64_t>(block, UniqueBlockTag());
    buf->reset(block);
    keys_ = 0;
    return Slice(block, kNoFilterBlockBytes);
  }
  Slice Finish(std::unique_ptr<const char[]>* buf,
               RocksStatus* status) override {
    *status = RocksStatus::OK();
    return Finish(buf);
  }
  // Any number of keys fits (a partition is cut by the data's size).
  size_t ApproximateNumEntries(size_t bytes) override { return bytes * 8; }
  size_t CalculateSpace(size_t /*num_entries*/) override {
    return kNoFilterBlockBytes;
  }
  double EstimatedFpRate(size_t /*num_entries*/, size_t /*bytes*/) override {
    return 1;
  }
  void CapFilterBytes(size_t /*bytes*/) override {}

 private:
  size_t keys_ = 0;
};

class LearningBuilder final : public BitsBuilder {
 public:
  explicit LearningBuilder(TableBuild build) : build_(std::move(build)) {}

  void AddKey(const Slice& key) override {
    See(key);
    chosen_->AddKey(key);
  }
  void AddKeyAndAlt(const Slice& key, const Slice& alt) override {
    See(key);
    if (chosen_is_ours_) {
      static_cast<BitsBuilder*>(chosen_.get())->AddKeyAndAlt(key, alt);
      return;
    }
#if SSTFILTER_ROCKSDB_AT_LEAST(9, 6)
    chosen_->AddKeyAndAlt(key, alt);
#else
    // Before 9.6 RocksDB adds prefixes with AddKey and never calls this.
    chosen_->AddKey(key);
    chosen_->AddKey(alt);
#endif
  }
  // RocksDB's parallel compression may ask this from another thread
  // while keys are added.
  size_t EstimateEntriesAdded() override {
    FilterBitsBuilder* chosen = active_.load(std::memory_order_acquire);
    return chosen != nullptr ? chosen->EstimateEntriesAdded() : 0;
  }
  Slice Finish(std::unique_ptr<const char[]>* buf) override {
    // The keys added, whatever the limit leaves the block: a file without
    // a filter is still sampled.
    const size_t keys = Chosen()->EstimateEntriesAdded();
    FilterBitsBuilder* builder = finished_ = Fitted();
    return Registered(Settled(builder->Finish(buf)), keys);
  }
  Slice Finish(std::unique_ptr<const char[]>* buf,
               RocksStatus* status) override {
    // The keys added, whatever the limit leaves the block: a file without
    // a filter is still sampled.
    const size_t keys = Chosen()->EstimateEntriesAdded();
    FilterBitsBuilder* builder = finished_ = Fitted();
    return Registered(Settled(builder->Finish(buf, status)), keys);
  }
  void CapFilterBytes(size_t bytes) override {
    if (chosen_ != nullptr && chosen_is_ours_) {
      static_cast<BitsBuilder*>(chosen_.get())->CapFilterBytes(bytes);
    }
  }
  RocksStatus MaybePostVerify(const Slice& filter_content) override {
    return finished_ != nullptr ? finished_->MaybePostVerify(filter_content)
                                : Chosen()->MaybePostVerify(filter_content);
  }
  // Asked before the first key (a partitioned filter sizes its partitions
  // in its constructor): answered by a builder of the level's filter made
  // for the question, so that the file's own choice still waits for its
  // first key.
  size_t ApproximateNumEntries(size_t bytes) override {
    return Sizing().builder->ApproximateNumEntries(bytes);
  }
  size_t CalculateSpace(size_t num_entries) override {
    const SizingBuilder sizing = Sizing();
    if (sizing.no_filter) return kNoFilterBlockBytes;
    if (sizing.ours) {
      return static_cast<BitsBuilder*>(sizing.builder)
          ->CalculateSpace(num_entries);
    }
    return rocksdb_compat::BuiltinCalculateSpace(sizing.builder, num_entries);
  }
  double EstimatedFpRate(size_t num_entries, size_t bytes) override {
    const SizingBuilder sizing = Sizing();
    if (sizing.no_filter) return 1;
    if (sizing.ours) {
      return static_cast<BitsBuilder*>(sizing.builder)
          ->EstimatedFpRate(num_entries, bytes);
    }
    return rocksdb_compat::BuiltinEstimatedFpRate(sizing.builder, num_entries,
                                                  bytes);
  }

 private:
  // The keys come in order (with, before 9.6, each prefix before its key):
  // the first is the file's smallest, the last its largest.
  void See(const Slice& key) {
    if (!seen_key_) {
      if (chosen_ == nullptr) Choose(key);
      first_key_.assign(key.data(), key.size());
      seen_key_ = true;
    }
    last_key_.assign(key.data(), key.size());
  }

  // At the first key: the file's filter, from the slice of the key space a
  // file of its level starting there spans.
  void Choose(const Slice& first_key) {
    FilterChoice choice = build_.level_choice;
    if (build_.choose && !IsNoFilter(choice)) {
      const LevelWorkload& workload = build_.column_family->workload();
      const int first = workload.BucketOf(ToView(first_key));
      const int last = std::min(first + std::max(build_.span_buckets, 1) - 1,
                                LevelWorkload::kBuckets - 1);
      choice = build_.choose(first, last);
    }
    if (build_.fit) choice = build_.fit(choice);
    Make(choice);
  }
  FilterBitsBuilder* NewBuilder(const FilterChoice& choice, bool* ours) {
    if (IsNoFilter(choice)) {
      *ours = false;
      return new NoFilterBuilder();
    }
    return build_.make(choice, ours);
  }
  void Make(const FilterChoice& choice) {
    chosen_.reset(NewBuilder(choice, &chosen_is_ours_));
    chosen_no_filter_ = IsNoFilter(choice);
    chosen_kind_ = choice.kind;
    active_.store(chosen_.get(), std::memory_order_release);
    if (!build_.learn) return;
    record_ = NewTableRecord(
        build_.column_family, build_.level,
        LevelWorkload::AbsentWeight(chosen_no_filter_ ? 0 : choice.fpr),
        chosen_no_filter_);
  }
  // The builder that finishes: the chosen one, or, for a file of no key,
  // the level's.
  FilterBitsBuilder* Chosen() {
    if (chosen_ == nullptr) Make(build_.level_choice);
    return chosen_.get();
  }
  // The builder that answers questions of size: the chosen one, or before
  // the first key one of the level's filter.
  struct SizingBuilder {
    FilterBitsBuilder* builder;
    bool ours;
    bool no_filter;
  };
  SizingBuilder Sizing() {
    if (chosen_ != nullptr) {
      return {chosen_.get(), chosen_is_ours_, chosen_no_filter_};
    }
    if (sizing_ == nullptr) {
      sizing_.reset(NewBuilder(build_.level_choice, &sizing_is_ours_));
    }
    return {sizing_.get(), sizing_is_ours_, IsNoFilter(build_.level_choice)};
  }

  // Under a memory limit, the builder that finishes this block, with the
  // bytes it takes reserved (memory_ledger.h): the chosen one if its block
  // fits what the limit leaves, else, for this library's kinds, the chosen
  // one capped to the bytes free if they give at least 1.5 bits/key, else
  // one that writes no filter (the chosen one's keys are dropped).
  FilterBitsBuilder* Fitted() {
    FilterBitsBuilder* builder = Chosen();
    if (build_.ledger == nullptr || chosen_no_filter_) return builder;
    const size_t keys = builder->EstimateEntriesAdded();
    if (keys == 0) return builder;
    size_t wanted =
        chosen_is_ours_
            ? static_cast<BitsBuilder*>(builder)->CalculateSpace(keys)
            : rocksdb_compat::BuiltinCalculateSpace(builder, keys);
    if (chosen_kind_ == FilterKind::kCuckoo) {
      wanted += wanted / 64;  // a build that retries is ~1% larger
    }
    // A BlockedBloom of 1.5 bits/key, at least a line (blocked_bloom.h).
    size_t least = chosen_is_ours_ ? 64 + 28 + (keys * 3 + 15) / 16 : wanted;
    // A partitioned filter's index, written with the file, takes an entry
    // per partition: a separator key (at most the last key) and a block
    // handle. It is reserved with each block (and released with the
    // block's reservation when the file joins its tree).
    index_entry_ = last_key_.size() + 24;
    wanted += index_entry_;
    least += index_entry_;
    const uint64_t granted = build_.ledger->Reserve(build_.job, wanted, least);
    fitting_ = true;
    if (granted >= wanted) return builder;
    if (granted > 0 && chosen_is_ours_) {
      static_cast<BitsBuilder*>(builder)->CapFilterBytes(granted -
                                                         index_entry_);
      return builder;
    }
    // No filter: the keys added go with a block of the chosen builder's
    // that is dropped (the smallest, for ours).
    if (chosen_is_ours_) static_cast<BitsBuilder*>(builder)->CapFilterBytes(0);
    std::unique_ptr<const char[]> dropped;
    const Slice dropped_block = builder->Finish(&dropped);
    builder->MaybePostVerify(dropped_block).PermitUncheckedError();
    if (no_filter_ == nullptr) no_filter_ = std::make_unique<NoFilterBuilder>();
    return no_filter_.get();
  }
  Slice Settled(Slice block) {
    if (fitting_) build_.ledger->Settle(block.size() + index_entry_);
    fitting_ = false;
    return block;
  }

  // Indexes a finished block (a partition, or the file's one filter) for
  // the readers, and leaves the file's record for the listener.
  Slice Registered(Slice block, size_t keys) {
    if (!build_.learn || block.size() == 0 || keys == 0 || !seen_key_) {
      return block;
    }
    LevelWorkload& workload = build_.column_family->workload();
    workload.ObserveKeyRange(first_key_, last_key_);
    record_->keys += static_cast<int64_t>(keys);
    record_->first_bucket = workload.BucketOf(first_key_);
    record_->last_bucket = workload.BucketOf(last_key_);
    const uint64_t id = BlockId(ToView(block));
    record_->block_ids.push_back(id);
    BlockIndex::Get().Add(id, record_);
    SetBuiltTable(record_);
    return block;
  }

  TableBuild build_;
  std::unique_ptr<FilterBitsBuilder> chosen_;        // null until the first key
  std::atomic<FilterBitsBuilder*> active_{nullptr};  // chosen_, once made
  bool chosen_is_ours_ = false;
  bool chosen_no_filter_ = false;
  FilterKind chosen_kind_ = FilterKind::kBlockedBloom;
  std::unique_ptr<FilterBitsBuilder> sizing_;  // before the first key
  bool sizing_is_ours_ = false;
  bool seen_key_ = false;
  std::shared_ptr<TableRecord> record_;
  std::string first_key_, last_key_;
  bool fitting_ = false;                   // a block is reserved
  FilterBitsBuilder* finished_ = nullptr;  // of the last block
  size_t index_entry_ = 0;  // reserved with each block for the index
  std::unique_ptr<NoFilterBuilder> no_filter_;  // a block the limit left none
};

}  // namespace

BitsBuilder* NewLearningBuilder(TableBuild build) {
  return new LearningBuilder(std::move(build));
}

}  // namespace sstfilter::rocksdb_plugin
