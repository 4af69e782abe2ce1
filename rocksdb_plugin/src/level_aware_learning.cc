#include "level_aware_learning.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "key_hash.h"
#include "rocksdb/db.h"
#include "rocksdb/metadata.h"
#include "sstfilter/rocksdb_plugin.h"

namespace sstfilter::rocksdb_plugin {
namespace {

using ROCKSDB_NAMESPACE::FilterBitsBuilder;
using ROCKSDB_NAMESPACE::FilterBitsReader;
using ROCKSDB_NAMESPACE::Slice;
using RocksStatus = ROCKSDB_NAMESPACE::Status;

// Registered tables kept at most; the oldest go first. A table is a few
// dozen bytes here; 2^16 tables cover a DB of 64 TiB in 1 GiB files, or
// several DBs of many small files.
constexpr size_t kMaxTables = size_t{1} << 16;

class TableRegistry {
 public:
  static TableRegistry& Get() {
    static TableRegistry* const registry = new TableRegistry();  // never freed
    return *registry;
  }
  void Add(uint64_t fingerprint, std::shared_ptr<const TableTag> tag) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto [it, added] = tables_.insert_or_assign(fingerprint, std::move(tag));
    if (!added) return;
    order_.push_back(fingerprint);
    while (order_.size() > kMaxTables) {
      tables_.erase(order_.front());
      order_.pop_front();
    }
  }
  std::shared_ptr<const TableTag> Find(uint64_t fingerprint) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = tables_.find(fingerprint);
    return it == tables_.end() ? nullptr : it->second;
  }

 private:
  std::mutex mutex_;
  std::unordered_map<uint64_t, std::shared_ptr<const TableTag>> tables_;
  std::deque<uint64_t> order_;
};

// Forwards to the builder the policy chose, and registers each block it
// finishes (each partition of a partitioned filter is one block).
class RegisteringBuilder final : public BitsBuilder {
 public:
  RegisteringBuilder(FilterBitsBuilder* inner, bool inner_is_ours, TableTag tag)
      : inner_(inner), inner_is_ours_(inner_is_ours), tag_(std::move(tag)) {}

  void AddKey(const Slice& key) override { inner_->AddKey(key); }
  void AddKeyAndAlt(const Slice& key, const Slice& alt) override {
    if (inner_is_ours_) {
      static_cast<BitsBuilder*>(inner_.get())->AddKeyAndAlt(key, alt);
      return;
    }
#if SSTFILTER_ROCKSDB_AT_LEAST(9, 6)
    inner_->AddKeyAndAlt(key, alt);
#else
    // Before 9.6 RocksDB adds prefixes with AddKey and never calls this.
    inner_->AddKey(key);
    inner_->AddKey(alt);
#endif
  }
  size_t EstimateEntriesAdded() override {
    return inner_->EstimateEntriesAdded();
  }
  Slice Finish(std::unique_ptr<const char[]>* buf) override {
    const size_t entries = inner_->EstimateEntriesAdded();
    return Registered(inner_->Finish(buf), entries);
  }
  Slice Finish(std::unique_ptr<const char[]>* buf,
               RocksStatus* status) override {
    const size_t entries = inner_->EstimateEntriesAdded();
    return Registered(inner_->Finish(buf, status), entries);
  }
  RocksStatus MaybePostVerify(const Slice& filter_content) override {
    return inner_->MaybePostVerify(filter_content);
  }
  size_t ApproximateNumEntries(size_t bytes) override {
    return inner_->ApproximateNumEntries(bytes);
  }
  size_t CalculateSpace(size_t num_entries) override {
    if (inner_is_ours_) {
      return static_cast<BitsBuilder*>(inner_.get())
          ->CalculateSpace(num_entries);
    }
    return rocksdb_compat::BuiltinCalculateSpace(inner_.get(), num_entries);
  }
  double EstimatedFpRate(size_t num_entries, size_t bytes) override {
    if (inner_is_ours_) {
      return static_cast<BitsBuilder*>(inner_.get())
          ->EstimatedFpRate(num_entries, bytes);
    }
    return rocksdb_compat::BuiltinEstimatedFpRate(inner_.get(), num_entries,
                                                  bytes);
  }

 private:
  Slice Registered(Slice block, size_t entries) {
    if (block.size() > 0 && entries > 0) {
      auto tag = std::make_shared<TableTag>(tag_);
      tag->entries = static_cast<int64_t>(entries);
      RegisterTable(ToView(block), std::move(tag));
    }
    return block;
  }

  const std::unique_ptr<FilterBitsBuilder> inner_;
  const bool inner_is_ours_;
  const TableTag tag_;
};

// The probes each thread makes until its next sample. Per thread, so that
// a probe writes no shared memory; the count runs over every sampling
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

class SamplingReader final : public FilterBitsReader {
 public:
  SamplingReader(FilterBitsReader* inner, std::shared_ptr<const TableTag> tag)
      : inner_(inner), tag_(std::move(tag)) {
    tag_->column_family->workload().AddSampledEntries(tag_->level,
                                                      tag_->entries);
  }
  ~SamplingReader() override {
    tag_->column_family->workload().AddSampledEntries(tag_->level,
                                                      -tag_->entries);
  }
  bool MayMatch(const Slice& key) override {
    const bool may_match = inner_->MayMatch(key);
    if (SampleDue(1)) Record(may_match);
    return may_match;
  }
  void MayMatch(int num_keys, Slice** keys, bool* may_match) override {
    inner_->MayMatch(num_keys, keys, may_match);
    if (num_keys > 0 && SampleDue(num_keys)) Record(may_match[0]);
  }

 private:
  void Record(bool may_match) const {
    tag_->column_family->workload().RecordSample(
        tag_->level, may_match ? 0 : tag_->absent_weight);
  }

  const std::unique_ptr<FilterBitsReader> inner_;
  const std::shared_ptr<const TableTag> tag_;
};

// Reads the column family's levels before tables are built, and the size
// of each flush after it.
class LevelAwareListener final : public ROCKSDB_NAMESPACE::EventListener {
 public:
  const char* Name() const override { return "sstfilter.LevelAwareListener"; }
  void OnFlushBegin(ROCKSDB_NAMESPACE::DB* db,
                    const ROCKSDB_NAMESPACE::FlushJobInfo& info) override {
    Observe(db, info.cf_name);
  }
  void OnFlushCompleted(ROCKSDB_NAMESPACE::DB* db,
                        const ROCKSDB_NAMESPACE::FlushJobInfo& info) override {
    ObservationsOf(db, info.cf_name)
        ->SetFlushEntries(info.table_properties.num_entries);
  }
  void OnCompactionBegin(
      ROCKSDB_NAMESPACE::DB* db,
      const ROCKSDB_NAMESPACE::CompactionJobInfo& info) override {
    Observe(db, info.cf_name);
  }
  void OnCompactionCompleted(
      ROCKSDB_NAMESPACE::DB* db,
      const ROCKSDB_NAMESPACE::CompactionJobInfo& info) override {
    Observe(db, info.cf_name);  // trivial moves change levels too
  }

 private:
  static std::shared_ptr<ColumnFamilyObservations> ObservationsOf(
      ROCKSDB_NAMESPACE::DB* db, const std::string& cf_name) {
    return ColumnFamilyObservations::For(db->GetDBOptions().info_log.get(),
                                         cf_name);
  }
  static void Observe(ROCKSDB_NAMESPACE::DB* db, const std::string& cf_name) {
    std::vector<ROCKSDB_NAMESPACE::ColumnFamilyMetaData> all;
    db->GetAllColumnFamilyMetaData(&all);
    for (const auto& cf : all) {
      if (cf.name != cf_name) continue;
      ColumnFamilyObservations::LevelEntries entries{};
      for (const auto& level : cf.levels) {
        const int slot =
            std::clamp(level.level, 0, LevelWorkload::kMaxLevels - 1);
        for (const auto& file : level.files) entries[slot] += file.num_entries;
      }
      ObservationsOf(db, cf_name)->SetTree(entries);
      return;
    }
  }
};

}  // namespace

std::shared_ptr<ColumnFamilyObservations> ColumnFamilyObservations::For(
    const void* info_log, const std::string& cf_name) {
  static std::mutex mutex;
  static auto* const all =
      new std::map<std::pair<const void*, std::string>,
                   std::shared_ptr<ColumnFamilyObservations>>();  // never freed
  std::lock_guard<std::mutex> lock(mutex);
  auto& observations = (*all)[{info_log, cf_name}];
  if (observations == nullptr) {
    observations = std::make_shared<ColumnFamilyObservations>();
  }
  return observations;
}

void ColumnFamilyObservations::SetTree(const LevelEntries& entries) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (has_tree_ && tree_ == entries) return;
  tree_ = entries;
  has_tree_ = true;
  tree_version_.fetch_add(1, std::memory_order_release);
}

bool ColumnFamilyObservations::Tree(LevelEntries* entries,
                                    uint64_t* flush_entries) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!has_tree_) return false;
  *entries = tree_;
  *flush_entries = flush_entries_.load(std::memory_order_relaxed);
  return true;
}

uint64_t TableFingerprint(std::string_view block) {
  constexpr size_t kEdge = 64;
  char buf[8 + 2 * kEdge];
  const uint64_t size = block.size();
  std::memcpy(buf, &size, 8);
  const size_t head = std::min(kEdge, block.size());
  std::memcpy(buf + 8, block.data(), head);
  const size_t tail = std::min(kEdge, block.size());
  std::memcpy(buf + 8 + head, block.data() + block.size() - tail, tail);
  return HashKeyInline(std::string_view(buf, 8 + head + tail));
}

void RegisterTable(std::string_view block,
                   std::shared_ptr<const TableTag> tag) {
  TableRegistry::Get().Add(TableFingerprint(block), std::move(tag));
}

std::shared_ptr<const TableTag> LookUpTable(std::string_view block) {
  if (block.empty()) return nullptr;
  return TableRegistry::Get().Find(TableFingerprint(block));
}

BitsBuilder* NewRegisteringBuilder(FilterBitsBuilder* builder,
                                   bool inner_is_ours, TableTag tag) {
  return new RegisteringBuilder(builder, inner_is_ours, std::move(tag));
}

FilterBitsReader* NewSamplingReader(FilterBitsReader* reader,
                                    std::shared_ptr<const TableTag> tag) {
  return new SamplingReader(reader, std::move(tag));
}

}  // namespace sstfilter::rocksdb_plugin

namespace sstfilter {

std::shared_ptr<ROCKSDB_NAMESPACE::EventListener> NewLevelAwareListener() {
  return std::make_shared<rocksdb_plugin::LevelAwareListener>();
}

}  // namespace sstfilter
