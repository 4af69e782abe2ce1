#include "level_aware_learning.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <set>
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

// Builds the table's filter and registers each block it finishes (each
// partition of a partitioned filter is one). With a chooser it keeps the
// keys (and, from 9.6, their alts) in the order they came, and at the
// first Finish builds the filter the table's key range calls for from
// them; every later partition goes to the same builder. Until then the
// level's builder answers the sizing questions (ApproximateNumEntries,
// CalculateSpace, EstimatedFpRate).
class RegisteringBuilder final : public BitsBuilder {
 public:
  explicit RegisteringBuilder(TableBuild build) : build_(std::move(build)) {
    level_.reset(build_.make(build_.level_choice, &level_is_ours_));
    if (!build_.choose) {
      chosen_ = level_.get();
      chosen_is_ours_ = level_is_ours_;
    }
  }

  void AddKey(const Slice& key) override {
    SeeKey(key);
    if (chosen_ != nullptr) {
      chosen_->AddKey(key);
    } else {
      Keep(key, Slice(), false);
    }
  }
  void AddKeyAndAlt(const Slice& key, const Slice& alt) override {
    SeeKey(key);
    if (chosen_ != nullptr) {
      AddKeyAndAltTo(chosen_, chosen_is_ours_, key, alt);
    } else {
      Keep(key, alt, true);
      ++kept_alts_;
    }
  }
  size_t EstimateEntriesAdded() override {
    return chosen_ != nullptr ? chosen_->EstimateEntriesAdded()
                              : kept_.size() + kept_alts_;
  }
  Slice Finish(std::unique_ptr<const char[]>* buf) override {
    FilterBitsBuilder* builder = Ready();
    const size_t entries = builder->EstimateEntriesAdded();
    return Registered(builder->Finish(buf), entries);
  }
  Slice Finish(std::unique_ptr<const char[]>* buf,
               RocksStatus* status) override {
    FilterBitsBuilder* builder = Ready();
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
    FilterBitsBuilder* b = Sizing();
    if (SizingIsOurs()) {
      return static_cast<BitsBuilder*>(b)->CalculateSpace(num_entries);
    }
    return rocksdb_compat::BuiltinCalculateSpace(b, num_entries);
  }
  double EstimatedFpRate(size_t num_entries, size_t bytes) override {
    FilterBitsBuilder* b = Sizing();
    if (SizingIsOurs()) {
      return static_cast<BitsBuilder*>(b)->EstimatedFpRate(num_entries, bytes);
    }
    return rocksdb_compat::BuiltinEstimatedFpRate(b, num_entries, bytes);
  }

 private:
  static void AddKeyAndAltTo(FilterBitsBuilder* builder, bool ours,
                             const Slice& key, const Slice& alt) {
    if (ours) {
      static_cast<BitsBuilder*>(builder)->AddKeyAndAlt(key, alt);
      return;
    }
#if SSTFILTER_ROCKSDB_AT_LEAST(9, 6)
    builder->AddKeyAndAlt(key, alt);
#else
    // Before 9.6 RocksDB adds prefixes with AddKey and never calls this.
    builder->AddKey(key);
    builder->AddKey(alt);
#endif
  }

  // The table's key range, as the keys come (whole keys and, before 9.6,
  // prefixes too: either bounds it).
  void SeeKey(const Slice& key) {
    const std::string_view k = ToView(key);
    if (!seen_key_ || k < smallest_) smallest_.assign(k.data(), k.size());
    if (!seen_key_ || k > largest_) largest_.assign(k.data(), k.size());
    seen_key_ = true;
  }
  void Keep(const Slice& key, const Slice& alt, bool has_alt) {
    kept_.push_back({bytes_.size(), key.size(), alt.size()});
    bytes_.append(key.data(), key.size());
    bytes_.append(alt.data(), alt.size());
    has_alt_.push_back(has_alt);
  }

  // The builder after the choice: made at the first Finish, fed the kept
  // keys.
  FilterBitsBuilder* Ready() {
    if (seen_key_) {
      build_.tag.column_family->workload().ObserveKeyRange(smallest_, largest_);
    }
    if (chosen_ == nullptr) {
      const FilterChoice choice =
          seen_key_ ? build_.choose(smallest_, largest_) : build_.level_choice;
      if (SameFilter(choice, build_.level_choice)) {
        chosen_ = level_.get();
        chosen_is_ours_ = level_is_ours_;
      } else {
        own_.reset(build_.make(choice, &chosen_is_ours_));
        chosen_ = own_.get();
        build_.tag.absent_weight = LevelWorkload::AbsentWeight(choice.fpr);
      }
    }
    for (size_t i = 0; i < kept_.size(); ++i) {
      const Kept& k = kept_[i];
      const Slice key(bytes_.data() + k.at, k.key_size);
      if (has_alt_[i]) {
        AddKeyAndAltTo(chosen_, chosen_is_ours_, key,
                       Slice(bytes_.data() + k.at + k.key_size, k.alt_size));
      } else {
        chosen_->AddKey(key);
      }
    }
    kept_.clear();
    has_alt_.clear();
    bytes_.clear();
    kept_alts_ = 0;
    return chosen_;
  }
  static bool SameFilter(const FilterChoice& a, const FilterChoice& b) {
    return a.kind == b.kind && a.bits_per_key == b.bits_per_key &&
           a.fingerprint_bits == b.fingerprint_bits &&
           a.rocksdb_millibits == b.rocksdb_millibits;
  }
  FilterBitsBuilder* Sizing() const {
    return chosen_ != nullptr ? chosen_ : level_.get();
  }
  bool SizingIsOurs() const {
    return chosen_ != nullptr ? chosen_is_ours_ : level_is_ours_;
  }

  Slice Registered(Slice block, size_t entries) {
    if (block.size() > 0 && entries > 0) {
      auto tag = std::make_shared<TableTag>(build_.tag);
      tag->entries = static_cast<int64_t>(entries);
      tag->filter_bits = static_cast<int64_t>(block.size()) * 8;
      if (seen_key_) {
        const LevelWorkload& workload = tag->column_family->workload();
        tag->first_bucket = workload.BucketOf(smallest_);
        tag->last_bucket = workload.BucketOf(largest_);
      }
      RegisterTable(ToView(block), std::move(tag));
    }
    seen_key_ = false;  // the next partition's range
    return block;
  }

  struct Kept {
    size_t at, key_size, alt_size;
  };
  TableBuild build_;
  std::unique_ptr<FilterBitsBuilder> level_;  // the level's filter
  bool level_is_ours_ = false;
  std::unique_ptr<FilterBitsBuilder> own_;  // the table's, if another
  FilterBitsBuilder* chosen_ = nullptr;     // null until the choice
  bool chosen_is_ours_ = false;
  bool seen_key_ = false;
  std::string smallest_, largest_;
  std::string bytes_;
  std::vector<Kept> kept_;
  std::vector<bool> has_alt_;
  size_t kept_alts_ = 0;
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
    tag_->column_family->workload().AddSampledEntries(
        tag_->level, tag_->first_bucket, tag_->last_bucket, tag_->entries);
    // L0 comes and goes with the flushes: the memory asked is that of the
    // levels below it.
    if (tag_->level > 0) {
      tag_->column_family->AddLiveFilter(tag_->entries, tag_->filter_bits);
    }
  }
  ~SamplingReader() override {
    tag_->column_family->workload().AddSampledEntries(
        tag_->level, tag_->first_bucket, tag_->last_bucket, -tag_->entries);
    if (tag_->level > 0) {
      tag_->column_family->AddLiveFilter(-tag_->entries, -tag_->filter_bits);
    }
  }
  bool MayMatch(const Slice& key) override {
    const bool may_match = inner_->MayMatch(key);
    if (SampleDue(1)) Record(key, may_match);
    return may_match;
  }
  void MayMatch(int num_keys, Slice** keys, bool* may_match) override {
    inner_->MayMatch(num_keys, keys, may_match);
    if (num_keys > 0 && SampleDue(num_keys)) Record(*keys[0], may_match[0]);
  }

 private:
  void Record(const Slice& key, bool may_match) const {
    tag_->column_family->workload().RecordSample(
        tag_->level, ToView(key), may_match ? 0 : tag_->absent_weight);
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
  // The tables a compaction builds are sized for the tree it leaves: its
  // inputs' entries already at the output level. (The tree before it
  // holds them twice over in the levels the compaction drains, and a
  // level is compacted because it holds more than it will.)
  void OnCompactionBegin(
      ROCKSDB_NAMESPACE::DB* db,
      const ROCKSDB_NAMESPACE::CompactionJobInfo& info) override {
    Observe(db, info.cf_name, &info);
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
  static void Observe(
      ROCKSDB_NAMESPACE::DB* db, const std::string& cf_name,
      const ROCKSDB_NAMESPACE::CompactionJobInfo* starting = nullptr) {
    std::vector<ROCKSDB_NAMESPACE::ColumnFamilyMetaData> all;
    db->GetAllColumnFamilyMetaData(&all);
    std::set<uint64_t> inputs;
    int output_slot = 0;
    if (starting != nullptr) {
      for (const auto& input : starting->input_file_infos) {
        inputs.insert(input.file_number);
      }
      output_slot =
          std::clamp(starting->output_level, 0, LevelWorkload::kMaxLevels - 1);
    }
    for (const auto& cf : all) {
      if (cf.name != cf_name) continue;
      ColumnFamilyObservations::LevelEntries entries{};
      for (const auto& level : cf.levels) {
        const int slot =
            std::clamp(level.level, 0, LevelWorkload::kMaxLevels - 1);
        for (const auto& file : level.files) {
          entries[inputs.count(file.file_number) > 0 ? output_slot : slot] +=
              file.num_entries;
        }
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

BitsBuilder* NewRegisteringBuilder(TableBuild build) {
  return new RegisteringBuilder(std::move(build));
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
