#include "level_aware_state.h"

#include <algorithm>
#include <cstring>
#include <list>

#include "filter_bits.h"
#include "sstfilter/hash.h"

namespace sstfilter::rocksdb_plugin {
namespace {

int ClampLevel(int level) { return std::clamp(level, 0, kMaxLevels - 1); }

// The block index: fingerprint -> record, least recently used out first.
// Sharded by fingerprint so that readers made on many threads at once (a
// block cache loading filters) seldom wait on each other. An entry takes
// about kEntryBytes (the hash node, the list node, the weak pointer); the
// index holds at most kIndexBytes of them: 2^16 entries, the blocks of
// 2^16 full-filter tables (64 TiB of 1 GiB files) or of a DB's partitions
// (a 1 GiB table of 10^7 keys at 10 bits/key has about 3,000 4 KiB
// partitions). The index owns no record: the listener's column family
// state holds a live table's, and its readers; a record is gone once its
// table is deleted or its DB closed, and its entry with it (when found, or
// when it reaches the end of the list). A block evicted while its table
// lives is read unsampled next time a reader is made for it; nothing else
// is lost.
constexpr size_t kShards = 16;
constexpr size_t kEntryBytes = 96;
constexpr size_t kIndexBytes = size_t{6} << 20;
constexpr size_t kEntriesPerShard = kIndexBytes / kEntryBytes / kShards;

class BlockIndex {
 public:
  static BlockIndex& Get() {
    static BlockIndex* const index = new BlockIndex();  // never freed
    return *index;
  }
  void Add(uint64_t fingerprint, const std::shared_ptr<TableRecord>& record) {
    Shard& shard = ShardOf(fingerprint);
    std::lock_guard<std::mutex> lock(shard.mutex);
    auto found = shard.map.find(fingerprint);
    if (found != shard.map.end()) {
      found->second->second = record;
      shard.order.splice(shard.order.begin(), shard.order, found->second);
      return;
    }
    shard.order.emplace_front(fingerprint, record);
    shard.map.emplace(fingerprint, shard.order.begin());
    // The least recently used out, and the records gone (their DB closed
    // or their table deleted) that have come to the end of the list.
    while (!shard.order.empty() &&
           (shard.order.size() > kEntriesPerShard ||
            shard.order.back().second.expired())) {
      shard.map.erase(shard.order.back().first);
      shard.order.pop_back();
    }
  }
  std::shared_ptr<TableRecord> Find(uint64_t fingerprint) {
    Shard& shard = ShardOf(fingerprint);
    std::lock_guard<std::mutex> lock(shard.mutex);
    auto found = shard.map.find(fingerprint);
    if (found == shard.map.end()) return nullptr;
    std::shared_ptr<TableRecord> record = found->second->second.lock();
    if (record == nullptr) {
      shard.order.erase(found->second);
      shard.map.erase(found);
      return nullptr;
    }
    shard.order.splice(shard.order.begin(), shard.order, found->second);
    return record;
  }
  size_t Live() {
    size_t live = 0;
    for (Shard& shard : shards_) {
      std::lock_guard<std::mutex> lock(shard.mutex);
      for (const Entry& entry : shard.order) live += !entry.second.expired();
    }
    return live;
  }
  // Removes `fingerprint` if it still points to `record`.
  void Remove(uint64_t fingerprint, const TableRecord* record) {
    Shard& shard = ShardOf(fingerprint);
    std::lock_guard<std::mutex> lock(shard.mutex);
    auto found = shard.map.find(fingerprint);
    if (found == shard.map.end()) return;
    const std::shared_ptr<TableRecord> held = found->second->second.lock();
    if (held != nullptr && held.get() != record) return;
    shard.order.erase(found->second);
    shard.map.erase(found);
  }

 private:
  using Entry = std::pair<uint64_t, std::weak_ptr<TableRecord>>;
  struct Shard {
    std::mutex mutex;
    std::list<Entry> order;  // most recently used first
    std::unordered_map<uint64_t, std::list<Entry>::iterator> map;
  };
  Shard& ShardOf(uint64_t fingerprint) {
    return shards_[(fingerprint >> 60) % kShards];
  }
  std::array<Shard, kShards> shards_;
};

// The job on this thread (BeginJob), and the table its last learning
// builder finished (SetBuiltTable). Set and read once per job or table.
thread_local Job current_job;
thread_local std::shared_ptr<TableRecord> built_table;

}  // namespace

void TableRecord::Record(std::string_view key, bool may_match) const {
  if (!live_.load(std::memory_order_relaxed)) return;
  const std::shared_ptr<ColumnFamilyState> column_family =
      column_family_.lock();
  if (column_family == nullptr) return;
  column_family->workload().RecordSample(level(), key,
                                         may_match ? 0 : absent_weight_);
  column_family->CountSample();
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
  return HashKey(std::string_view(buf, 8 + head + tail));
}

void IndexBlock(uint64_t fingerprint,
                const std::shared_ptr<TableRecord>& record) {
  BlockIndex::Get().Add(fingerprint, record);
}

size_t LiveIndexedRecords() { return BlockIndex::Get().Live(); }

std::shared_ptr<TableRecord> FindBlock(std::string_view block) {
  if (block.empty()) return nullptr;
  return BlockIndex::Get().Find(TableFingerprint(block));
}

void UnindexTable(const TableRecord& record) {
  for (uint64_t fingerprint : record.fingerprints) {
    BlockIndex::Get().Remove(fingerprint, &record);
  }
}

TreeTotals ColumnFamilyState::Totals() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return totals_;
}

TreeTotals ColumnFamilyState::Projected(const std::vector<uint64_t>& inputs,
                                        int output_level,
                                        int64_t* input_entries) const {
  std::lock_guard<std::mutex> lock(mutex_);
  TreeTotals tree = totals_;
  *input_entries = 0;
  for (uint64_t number : inputs) {
    auto found = files_.find(number);
    if (found == files_.end()) continue;
    const File& file = found->second;
    Count(file, -1, &tree);
    tree[ClampLevel(output_level)].entries += file.entries;
    *input_entries += file.entries;
  }
  return tree;
}

void ColumnFamilyState::Count(const File& file, int sign, TreeTotals* tree) {
  LevelTotals& level = (*tree)[ClampLevel(file.level)];
  level.files += sign;
  level.entries += sign * file.entries;
  if (file.filter_bytes >= 0) {
    level.known_entries += sign * file.entries;
    level.filter_bytes += sign * file.filter_bytes;
    if (file.filter_bytes > 0) level.filtered_entries += sign * file.entries;
  }
}

void ColumnFamilyState::Sample(const File& file, int sign) {
  if (file.record == nullptr) return;
  const TableRecord& record = *file.record;
  workload_.AddSampledEntries(record.level(), record.first_bucket,
                              record.last_bucket, sign * record.entries);
}

void ColumnFamilyState::Replace(const std::vector<TreeFile>& files) {
  std::lock_guard<std::mutex> lock(mutex_);
  // Records of tables still listed keep counting; the rest go.
  std::unordered_map<uint64_t, File> kept;
  totals_ = {};
  for (const TreeFile& listed : files) {
    File file{ClampLevel(listed.level), listed.entries, listed.filter_bytes,
              nullptr, listed.path};
    auto old = files_.find(listed.number);
    if (old != files_.end()) {
      if (file.filter_bytes == TreeFile::kUnknownBytes) {
        file.filter_bytes = old->second.filter_bytes;
      }
      file.record = old->second.record;
      if (file.record != nullptr && file.record->level() != file.level) {
        Sample(old->second, -1);
        file.record->level_.store(file.level, std::memory_order_relaxed);
        Sample(file, +1);
      }
      files_.erase(old);
    }
    Count(file, +1, &totals_);
    kept.emplace(listed.number, std::move(file));
  }
  for (auto& [number, gone] : files_) {
    if (gone.record == nullptr) continue;
    Sample(gone, -1);
    gone.record->live_.store(false, std::memory_order_relaxed);
    UnindexTable(*gone.record);
  }
  files_ = std::move(kept);
  version_.fetch_add(1, std::memory_order_release);
}

void ColumnFamilyState::AddFile(const TreeFile& listed,
                                std::shared_ptr<TableRecord> record) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (files_.count(listed.number) > 0) return;
  File file{ClampLevel(listed.level), listed.entries, listed.filter_bytes,
            std::move(record), listed.path};
  if (file.record != nullptr) {
    file.record->level_.store(file.level, std::memory_order_relaxed);
    Sample(file, +1);
    file.record->live_.store(true, std::memory_order_relaxed);
  }
  Count(file, +1, &totals_);
  files_.emplace(listed.number, std::move(file));
  version_.fetch_add(1, std::memory_order_release);
}

void ColumnFamilyState::RemoveFile(uint64_t number) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = files_.find(number);
  if (found == files_.end()) return;
  File& file = found->second;
  Count(file, -1, &totals_);
  if (file.record != nullptr) {
    Sample(file, -1);
    file.record->live_.store(false, std::memory_order_relaxed);
    UnindexTable(*file.record);
  }
  files_.erase(found);
  version_.fetch_add(1, std::memory_order_release);
}

void ColumnFamilyState::MoveFile(uint64_t number, int level) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = files_.find(number);
  if (found == files_.end()) return;
  File& file = found->second;
  level = ClampLevel(level);
  if (file.level == level) return;
  Count(file, -1, &totals_);
  Sample(file, -1);
  file.level = level;
  if (file.record != nullptr) {
    file.record->level_.store(level, std::memory_order_relaxed);
  }
  Count(file, +1, &totals_);
  Sample(file, +1);
  version_.fetch_add(1, std::memory_order_release);
}

void ColumnFamilyState::SetFilterBytes(uint64_t number, int64_t filter_bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = files_.find(number);
  if (found == files_.end() ||
      found->second.filter_bytes != TreeFile::kUnknownBytes) {
    return;
  }
  Count(found->second, -1, &totals_);
  found->second.filter_bytes = filter_bytes;
  found->second.path.clear();
  Count(found->second, +1, &totals_);
  version_.fetch_add(1, std::memory_order_release);
}

std::vector<TreeFile> ColumnFamilyState::FilesWithoutFilterBytes(
    size_t limit) const {
  std::vector<TreeFile> unknown;
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [number, file] : files_) {
    if (unknown.size() >= limit) break;
    if (file.filter_bytes == TreeFile::kUnknownBytes) {
      unknown.push_back(
          {number, file.level, file.entries, file.filter_bytes, file.path});
    }
  }
  return unknown;
}

int64_t ColumnFamilyState::FileCount() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int64_t>(files_.size());
}

std::shared_ptr<CachedAllocation> ColumnFamilyState::AllocationFor(
    const std::string& policy_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::shared_ptr<CachedAllocation>& cached = allocations_[policy_id];
  if (cached == nullptr) {
    // A column family meets a new policy id only through SetOptions or a
    // reopen: a handful at most, but never more than a few kept.
    constexpr size_t kMaxPolicies = 4;
    if (allocations_.size() > kMaxPolicies) {
      allocations_.clear();
      return allocations_[policy_id] = std::make_shared<CachedAllocation>();
    }
    cached = std::make_shared<CachedAllocation>();
  }
  return cached;
}

std::shared_ptr<ColumnFamilyState> DbState::ColumnFamily(
    const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::shared_ptr<ColumnFamilyState>& state = column_families_[name];
  // Not make_shared: a record's weak pointer then holds only the control
  // block, not the state, once the DB is gone.
  if (state == nullptr) state.reset(new ColumnFamilyState(name));
  return state;
}

std::shared_ptr<ColumnFamilyState> DbState::FindColumnFamily(
    const std::string& name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = column_families_.find(name);
  return found == column_families_.end() ? nullptr : found->second;
}

std::vector<std::shared_ptr<ColumnFamilyState>> DbState::ColumnFamilies()
    const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::shared_ptr<ColumnFamilyState>> all;
  for (const auto& [name, state] : column_families_) all.push_back(state);
  return all;
}

void BeginJob(Job job) { current_job = std::move(job); }
void EndJob() { current_job = Job(); }
int JobOutputLevel() {
  return current_job.dbs.empty() ? -1 : current_job.output_level;
}

JobView JobColumnFamily(
    const ROCKSDB_NAMESPACE::FilterBuildingContext& context) {
  JobView view;
  // The job's DB whose logger is the builder's: a job left on this thread
  // by another DB (one that ended without its completion callback) has
  // another logger, or is gone.
  std::shared_ptr<DbState> db;
  for (const std::weak_ptr<DbState>& candidate : current_job.dbs) {
    std::shared_ptr<DbState> state = candidate.lock();
    if (state == nullptr || state->info_log() != context.info_log) continue;
    if (db != nullptr) return view;  // two DBs share the logger: unknown
    db = std::move(state);
  }
  if (db == nullptr) return view;
  view.column_family = db->ColumnFamily(context.column_family_name);
  if (current_job.tree != nullptr &&
      current_job.column_family == context.column_family_name) {
    view.tree = *current_job.tree;
    view.complete = true;
    view.job_entries = current_job.input_entries;
  } else {
    view.tree = view.column_family->Totals();
    view.complete =
        context.reason == ROCKSDB_NAMESPACE::TableFileCreationReason::kFlush;
    view.job_entries = view.column_family->flush_entries();
  }
  return view;
}

void SetBuiltTable(std::shared_ptr<TableRecord> record) {
  built_table = std::move(record);
}

std::shared_ptr<TableRecord> TakeBuiltTable() { return std::move(built_table); }

}  // namespace sstfilter::rocksdb_plugin
