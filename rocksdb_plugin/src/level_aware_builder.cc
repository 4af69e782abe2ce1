#include "level_aware_builder.h"

#include <algorithm>
#include <atomic>
#include <string>
#include <utility>

namespace sstfilter::rocksdb_plugin {
namespace {

using ROCKSDB_NAMESPACE::FilterBitsBuilder;
using ROCKSDB_NAMESPACE::Slice;
using RocksStatus = ROCKSDB_NAMESPACE::Status;

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
    FilterBitsBuilder* builder = Sizing();
    const size_t entries = builder->EstimateEntriesAdded();
    return Registered(builder->Finish(buf), entries);
  }
  Slice Finish(std::unique_ptr<const char[]>* buf,
               RocksStatus* status) override {
    FilterBitsBuilder* builder = Sizing();
    const size_t entries = builder->EstimateEntriesAdded();
    return Registered(builder->Finish(buf, status), entries);
  }
  RocksStatus MaybePostVerify(const Slice& filter_content) override {
    return Sizing()->MaybePostVerify(filter_content);
  }
  size_t ApproximateNumEntries(size_t bytes) override {
    return Sizing()->ApproximateNumEntries(bytes);
  }
  size_t CalculateSpace(size_t num_entries) override {
    FilterBitsBuilder* builder = Sizing();
    if (chosen_is_ours_) {
      return static_cast<BitsBuilder*>(builder)->CalculateSpace(num_entries);
    }
    return rocksdb_compat::BuiltinCalculateSpace(builder, num_entries);
  }
  double EstimatedFpRate(size_t num_entries, size_t bytes) override {
    FilterBitsBuilder* builder = Sizing();
    if (chosen_is_ours_) {
      return static_cast<BitsBuilder*>(builder)->EstimatedFpRate(num_entries,
                                                                 bytes);
    }
    return rocksdb_compat::BuiltinEstimatedFpRate(builder, num_entries, bytes);
  }

 private:
  // The keys come in order (with, before 9.6, each prefix before its key):
  // the first is the table's smallest, the last its largest.
  void See(const Slice& key) {
    if (!seen_key_) {
      if (chosen_ == nullptr) Choose(key);
      first_key_.assign(key.data(), key.size());
      seen_key_ = true;
    }
    last_key_.assign(key.data(), key.size());
  }

  // At the first key: the table's filter, from the slice of the key space
  // a table of its level starting there spans.
  void Choose(const Slice& first_key) {
    FilterChoice choice = build_.level_choice;
    if (build_.choose) {
      const LevelWorkload& workload = build_.column_family->workload();
      const int first = workload.BucketOf(ToView(first_key));
      const int last = std::min(first + std::max(build_.span_buckets, 1) - 1,
                                LevelWorkload::kBuckets - 1);
      choice = build_.choose(first, last);
    }
    Make(choice);
  }
  void Make(const FilterChoice& choice) {
    chosen_.reset(build_.make(choice, &chosen_is_ours_));
    active_.store(chosen_.get(), std::memory_order_release);
    record_ =
        std::make_shared<TableRecord>(build_.column_family, build_.level,
                                      LevelWorkload::AbsentWeight(choice.fpr));
  }
  // The builder that answers: the chosen one, or before any key the
  // level's.
  FilterBitsBuilder* Sizing() {
    if (chosen_ == nullptr) Make(build_.level_choice);
    return chosen_.get();
  }

  // Indexes a finished block (a partition, or the table's one filter) for
  // the readers, and leaves the table's record for the listener.
  Slice Registered(Slice block, size_t entries) {
    if (block.size() == 0 || entries == 0 || !seen_key_) return block;
    LevelWorkload& workload = build_.column_family->workload();
    workload.ObserveKeyRange(first_key_, last_key_);
    record_->entries += static_cast<int64_t>(entries);
    record_->filter_bits += static_cast<int64_t>(block.size()) * 8;
    record_->first_bucket = workload.BucketOf(first_key_);
    record_->last_bucket = workload.BucketOf(last_key_);
    const uint64_t fingerprint = TableFingerprint(ToView(block));
    record_->fingerprints.push_back(fingerprint);
    IndexBlock(fingerprint, record_);
    SetBuiltTable(record_);
    return block;
  }

  TableBuild build_;
  std::unique_ptr<FilterBitsBuilder> chosen_;        // null until the first key
  std::atomic<FilterBitsBuilder*> active_{nullptr};  // chosen_, once made
  bool chosen_is_ours_ = false;
  bool seen_key_ = false;
  std::shared_ptr<TableRecord> record_;
  std::string first_key_, last_key_;
};

}  // namespace

BitsBuilder* NewLearningBuilder(TableBuild build) {
  return new LearningBuilder(std::move(build));
}

}  // namespace sstfilter::rocksdb_plugin
