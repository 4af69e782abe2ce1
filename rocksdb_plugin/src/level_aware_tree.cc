#include "level_aware_tree.h"

#include <algorithm>
#include <utility>

namespace sstfilter::rocksdb_plugin {
namespace {

int ClampLevel(int level) { return std::clamp(level, 0, kMaxLevels - 1); }

// A file's keys added, or its entries where its properties are unknown.
int64_t KeysOf(const TreeFile& file) {
  return file.keys >= 0 ? file.keys : file.entries;
}

}  // namespace

TreeSnapshot ColumnFamilyTree::Snapshot() const {
  TreeSnapshot snapshot;
  snapshot.flush_keys = flush_keys_.load(std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(mutex_);
  snapshot.levels = totals_;
  snapshot.keys_built = keys_built_;
  snapshot.l0_runs = l0_runs_;
  return snapshot;
}

bool ColumnFamilyTree::MaybeRefresh() {
  LevelWorkload::PerLevel keys{};
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (int level = 0; level < kMaxLevels; ++level) {
      keys[level] = static_cast<double>(totals_[level].keys);
    }
  }
  return workload_.MaybeRefresh(&keys);
}

void ColumnFamilyTree::Count(const File& file, int sign) {
  LevelTotals& level = totals_[ClampLevel(file.file.level)];
  const int64_t keys = KeysOf(file.file);
  level.files += sign;
  if (file.file.level == 0 && !l0_compacted_) {
    l0_runs_ = std::max(l0_runs_, level.files);
  }
  level.entries += sign * file.file.entries;
  level.keys += sign * keys;
  if (!file.file.known()) {
    level.unknown_keys += sign * keys;
  } else if (file.file.filter_bytes > kNoFilterBytes) {
    level.filtered_keys += sign * keys;
    level.filter_bits += sign * file.file.filter_bytes * 8;
  } else {
    level.unfiltered_bits += sign * file.file.filter_bytes * 8;
  }
}

void ColumnFamilyTree::Hold(const TreeFile& file, int sign) {
  if (file.known()) {
    held_.bytes += sign * file.filter_bytes;
  } else {
    held_.unknown_entries += sign * file.entries;
  }
  if (file.other_policy) other_policy_files_ += sign;
  held_.entries += sign * file.entries;
  if (file.data_bytes >= 0 && file.index_bytes >= 0) {
    held_.sized_entries += sign * file.entries;
    held_.data_bytes += sign * file.data_bytes;
    held_.index_bytes += sign * file.index_bytes;
  }
}

void ColumnFamilyTree::Sample(const File& file, int sign) {
  if (file.record == nullptr) return;
  const TableRecord& record = *file.record;
  workload_.AddSampledKeys(record.level(), record.first_bucket,
                           record.last_bucket, sign * record.keys);
}

void ColumnFamilyTree::Incoming(Running& job, int64_t input_keys,
                                int64_t output_keys) {
  auto incoming = [&job] {
    return std::max<int64_t>(0, job.input_keys - job.output_keys);
  };
  const int64_t before = incoming();
  job.input_keys += input_keys;
  job.output_keys += output_keys;
  totals_[job.output_level].incoming_keys += incoming() - before;
}

void ColumnFamilyTree::AddLocked(const TreeFile& listed,
                                 std::shared_ptr<TableRecord> record,
                                 int job_id) {
  if (files_.count(listed.number) > 0) return;
  File file{listed, std::move(record), -1};
  file.file.level = ClampLevel(file.file.level);
  if (file.record != nullptr) {
    file.record->set_level(file.file.level);
    Sample(file, +1);
    file.record->set_live(true);
  }
  auto running = running_.find(job_id);
  if (job_id >= 0 && running != running_.end()) {
    Incoming(running->second, 0, KeysOf(file.file));
  }
  Count(file, +1);
  Hold(file.file, +1);
  files_.emplace(listed.number, std::move(file));
}

void ColumnFamilyTree::RemoveLocked(uint64_t number, bool deleted) {
  auto found = files_.find(number);
  if (found == files_.end()) {
    auto retired = retired_.find(number);
    if (deleted && retired != retired_.end()) {
      Hold(retired->second, -1);
      retired_.erase(retired);
    }
    return;
  }
  File& file = found->second;
  if (deleted) {
    Hold(file.file, -1);
  } else {
    retired_[number] = file.file;
  }
  if (file.job < 0) {
    Count(file, -1);
  } else {
    // Deleted while a compaction of it runs (RocksDB reports completions
    // first; a failed job's inputs may go later): no longer incoming.
    auto running = running_.find(file.job);
    if (running != running_.end()) {
      Incoming(running->second, -KeysOf(file.file), 0);
      if (deleted) {
        running->second.input_bytes -=
            std::max<int64_t>(0, file.file.filter_bytes);
      }
    }
  }
  if (file.record != nullptr) {
    Sample(file, -1);
    file.record->set_live(false);
    BlockIndex::Get().Remove(*file.record);
  }
  files_.erase(found);
}

void ColumnFamilyTree::MoveLocked(uint64_t number, int level) {
  auto found = files_.find(number);
  if (found == files_.end()) return;
  File& file = found->second;
  level = ClampLevel(level);
  if (file.file.level == level) return;
  if (file.job < 0) Count(file, -1);
  Sample(file, -1);
  file.file.level = level;
  if (file.record != nullptr) file.record->set_level(level);
  if (file.job < 0) Count(file, +1);
  Sample(file, +1);
}

void ColumnFamilyTree::SetPropertiesLocked(uint64_t number, int64_t keys,
                                           int64_t filter_bytes) {
  auto found = files_.find(number);
  if (found == files_.end() || found->second.file.known()) return;
  File& file = found->second;
  // An input of a running compaction counts only as keys incoming there.
  auto running = running_.find(file.job);
  const int64_t old_keys = KeysOf(file.file);
  if (running == running_.end()) Count(file, -1);
  Hold(file.file, -1);
  file.file.keys = keys;
  file.file.filter_bytes = filter_bytes;
  Hold(file.file, +1);
  if (running == running_.end()) {
    Count(file, +1);
  } else {
    Incoming(running->second, KeysOf(file.file) - old_keys, 0);
  }
}

void ColumnFamilyTree::BeginLocked(int job_id,
                                   const std::vector<TreeFile>& inputs,
                                   int output_level) {
  if (running_.count(job_id) > 0) return;
  Running& running = running_[job_id];
  running.output_level = ClampLevel(output_level);
  running.journaled = reading_ > 0;
  int64_t l0_inputs = 0;
  for (const TreeFile& input : inputs) l0_inputs += input.level == 0 ? 1 : 0;
  if (l0_inputs > 0) {
    l0_runs_ = l0_inputs;
    l0_compacted_ = true;
  }
  for (const TreeFile& input : inputs) {
    if (input.known()) {
      SetPropertiesLocked(input.number, input.keys, input.filter_bytes);
    }
    auto found = files_.find(input.number);
    if (found == files_.end() || found->second.job >= 0) continue;
    File& file = found->second;
    Count(file, -1);
    file.job = job_id;
    Incoming(running, KeysOf(file.file), 0);
    running.input_bytes += std::max<int64_t>(0, file.file.filter_bytes);
    running.inputs.push_back(input.number);
  }
}

void ColumnFamilyTree::EndLocked(int job_id, bool done,
                                 const std::vector<TreeFile>& moved) {
  auto running = running_.find(job_id);
  if (running == running_.end()) return;
  Running& job = running->second;
  Incoming(job, -job.input_keys, -job.output_keys);  // none incoming now
  for (uint64_t number : job.inputs) {
    auto found = files_.find(number);
    if (found == files_.end() || found->second.job != job_id) continue;
    File& file = found->second;
    auto kept = std::find_if(
        moved.begin(), moved.end(),
        [number](const TreeFile& m) { return m.number == number; });
    file.job = -1;
    if (done && kept == moved.end()) {
      Count(file, +1);
      // Gone from the tree; its filter is held until RocksDB deletes it.
      RemoveLocked(number, /*deleted=*/false);
      continue;
    }
    if (done) {
      // Moved whole: its filter too, now at the output level.
      Sample(file, -1);
      file.file.level = ClampLevel(kept->level);
      if (file.record != nullptr) file.record->set_level(file.file.level);
      Sample(file, +1);
    }
    Count(file, +1);
  }
  running_.erase(running);
}

void ColumnFamilyTree::Apply(Edit edit) {
  switch (edit.kind) {
    case Edit::kAdd:
      AddLocked(edit.file, std::move(edit.record), edit.job_id);
      break;
    case Edit::kRemove:
      RemoveLocked(edit.file.number, /*deleted=*/true);
      break;
    case Edit::kMove:
      MoveLocked(edit.file.number, edit.file.level);
      break;
    case Edit::kProperties:
      SetPropertiesLocked(edit.file.number, edit.file.keys,
                          edit.file.filter_bytes);
      break;
    case Edit::kBegin:
      BeginLocked(edit.job_id, edit.inputs, edit.file.level);
      break;
    case Edit::kEnd:
      EndLocked(edit.job_id, edit.done, edit.inputs);
      break;
  }
}

// Each edit is applied now and, while the first read lists the files,
// kept to be replayed over what it lists.
void ColumnFamilyTree::Commit(Edit edit) {
  if (reading_ > 0) journal_.push_back(edit);
  Apply(std::move(edit));
}

void ColumnFamilyTree::AddFile(const TreeFile& file,
                               std::shared_ptr<TableRecord> record,
                               int job_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (files_.count(file.number) == 0) keys_built_ += KeysOf(file);
  Commit({Edit::kAdd, file, std::move(record), {}, job_id, false});
}

void ColumnFamilyTree::RemoveFile(uint64_t number) {
  TreeFile file;
  file.number = number;
  std::lock_guard<std::mutex> lock(mutex_);
  Commit({Edit::kRemove, file, nullptr, {}, 0, false});
}

void ColumnFamilyTree::MoveFile(uint64_t number, int level) {
  TreeFile file;
  file.number = number;
  file.level = level;
  std::lock_guard<std::mutex> lock(mutex_);
  Commit({Edit::kMove, file, nullptr, {}, 0, false});
}

void ColumnFamilyTree::SetProperties(uint64_t number, int64_t keys,
                                     int64_t filter_bytes) {
  TreeFile file;
  file.number = number;
  file.keys = keys;
  file.filter_bytes = filter_bytes;
  std::lock_guard<std::mutex> lock(mutex_);
  Commit({Edit::kProperties, file, nullptr, {}, 0, false});
}

void ColumnFamilyTree::BeginCompaction(int job_id,
                                       const std::vector<TreeFile>& inputs,
                                       int output_level) {
  TreeFile file;
  file.level = output_level;
  std::lock_guard<std::mutex> lock(mutex_);
  Commit({Edit::kBegin, file, nullptr, inputs, job_id, false});
}

void ColumnFamilyTree::EndCompaction(int job_id, bool done,
                                     const std::vector<TreeFile>& moved) {
  std::lock_guard<std::mutex> lock(mutex_);
  Commit({Edit::kEnd, TreeFile(), nullptr, moved, job_id, done});
}

bool ColumnFamilyTree::Empty() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return files_.empty() && retired_.empty() && running_.empty();
}

int ColumnFamilyTree::OutputLevelOf(int job_id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = running_.find(job_id);
  return found == running_.end() ? -1 : found->second.output_level;
}

void ColumnFamilyTree::BeginRead() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (reading_++ == 0) journal_.clear();
}

void ColumnFamilyTree::Replace(const std::vector<TreeFile>& listed) {
  std::lock_guard<std::mutex> lock(mutex_);
  // The list, with the records and properties of the files it keeps; the
  // records of the rest are dropped. Running compactions start over from
  // the journal (their Begin is in it if it came after BeginRead), or
  // from what they were.
  std::unordered_map<uint64_t, File> kept;
  for (const TreeFile& item : listed) {
    File file{item, nullptr, -1};
    file.file.level = ClampLevel(file.file.level);
    auto old = files_.find(item.number);
    if (old != files_.end()) {
      if (!file.file.known() && old->second.file.known()) {
        file.file.keys = old->second.file.keys;
        file.file.filter_bytes = old->second.file.filter_bytes;
        file.file.other_policy = old->second.file.other_policy;
      }
      Sample(old->second, -1);  // counted again below, at its listed level
      file.record = std::move(old->second.record);
      files_.erase(old);
    }
    kept.emplace(item.number, std::move(file));
  }
  for (auto& [number, gone] : files_) {
    // Not listed: replaced, if not deleted yet (a deletion reported since
    // BeginRead is in the journal).
    retired_[number] = gone.file;
    if (gone.record == nullptr) continue;
    Sample(gone, -1);
    gone.record->set_live(false);
    BlockIndex::Get().Remove(*gone.record);
  }
  files_ = std::move(kept);
  held_ = {};
  other_policy_files_ = 0;
  for (const auto& [number, file] : files_) {
    retired_.erase(number);
    Hold(file.file, +1);
  }
  for (const auto& [number, file] : retired_) Hold(file, +1);
  std::map<int, Running> running = std::move(running_);
  running_.clear();
  totals_ = {};
  for (auto& [number, file] : files_) {
    if (file.record != nullptr) {
      file.record->set_level(file.file.level);
      Sample(file, +1);
    }
    Count(file, +1);
  }
  // Compactions that began before the read and still run (those begun
  // since are in the journal).
  for (const auto& [job_id, job] : running) {
    if (job.journaled) continue;
    std::vector<TreeFile> inputs;
    for (uint64_t number : job.inputs) {
      TreeFile input;
      input.number = number;
      inputs.push_back(input);
    }
    BeginLocked(job_id, inputs, job.output_level);
    Incoming(running_[job_id], 0, job.output_keys);
  }
  std::vector<Edit> journal = std::move(journal_);
  journal_.clear();
  if (reading_ > 0) --reading_;
  for (Edit& edit : journal) Apply(std::move(edit));
}

void ColumnFamilyTree::SawBottomTable(bool has_filter_block) {
  no_bottom_filters_.store(!has_filter_block, std::memory_order_relaxed);
}

std::shared_ptr<PolicyState> ColumnFamilyTree::PolicyStateFor(
    const std::string& settings_key) {
  std::lock_guard<std::mutex> lock(mutex_);
  // A column family meets a new policy only through SetOptions or a
  // reopen: a handful at most, but never more than a few kept.
  constexpr size_t kMaxPolicies = 4;
  auto found = policies_.find(settings_key);
  if (found != policies_.end()) return found->second;
  if (policies_.size() >= kMaxPolicies) policies_.clear();
  return policies_[settings_key] = std::make_shared<PolicyState>();
}

HeldFilters ColumnFamilyTree::Held() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return held_;
}

int64_t ColumnFamilyTree::Replaceable(int job_id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = running_.find(job_id);
  return found == running_.end() ? 0 : found->second.input_bytes;
}

int64_t ColumnFamilyTree::KeysToWrite(int job_id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = running_.find(job_id);
  if (found == running_.end()) return -1;
  return std::max<int64_t>(
      0, found->second.input_keys - found->second.output_keys);
}

void ColumnFamilyTree::MarkBuiltBy(uint64_t owner) {
  std::lock_guard<std::mutex> lock(mutex_);
  // A column family meets a new policy object only through SetOptions or
  // a reopen: the last few are kept.
  constexpr size_t kMaxOwners = 4;
  if (std::find(owners_.begin(), owners_.end(), owner) != owners_.end()) {
    return;
  }
  if (owners_.size() >= kMaxOwners) owners_.erase(owners_.begin());
  owners_.push_back(owner);
}

bool ColumnFamilyTree::OfAnotherPolicy(uint64_t owner) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (std::find(owners_.begin(), owners_.end(), owner) != owners_.end()) {
    return false;
  }
  return !owners_.empty() || other_policy_files_ > 0;
}

std::shared_ptr<ColumnFamilyTree> DbState::ColumnFamily(const std::string& name,
                                                        int64_t id) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::shared_ptr<ColumnFamilyTree>& tree = column_families_[name];
  if (tree != nullptr && id >= 0 && tree->id() >= 0 && tree->id() != id) {
    tree.reset();  // dropped and made again: nothing carries over
  }
  // Not make_shared: a record's weak pointer then holds only the control
  // block, not the tree, once the DB is gone.
  if (tree == nullptr) {
    tree.reset(new ColumnFamilyTree(name, id));
    if (reading_ > 0) tree->BeginRead();
  }
  if (id >= 0 && tree->id() < 0) tree->set_id(id);
  return tree;
}

std::shared_ptr<ColumnFamilyTree> DbState::FindColumnFamily(
    const std::string& name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = column_families_.find(name);
  return found == column_families_.end() ? nullptr : found->second;
}

std::vector<std::shared_ptr<ColumnFamilyTree>> DbState::ColumnFamilies() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::shared_ptr<ColumnFamilyTree>> all;
  for (const auto& [name, tree] : column_families_) all.push_back(tree);
  return all;
}

void DbState::BeginRead() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++reading_;
  for (auto& [name, tree] : column_families_) tree->BeginRead();
}

void DbState::FinishRead(
    const std::map<std::string, std::vector<TreeFile>>& listed) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [name, files] : listed) {
    std::shared_ptr<ColumnFamilyTree>& tree = column_families_[name];
    if (tree == nullptr) {
      tree.reset(new ColumnFamilyTree(name, -1));
      tree->BeginRead();
    }
  }
  static const std::vector<TreeFile> kNone;
  for (auto& [name, tree] : column_families_) {
    auto found = listed.find(name);
    tree->Replace(found == listed.end() ? kNone : found->second);
  }
  if (reading_ > 0) --reading_;
}

void DbState::DropIfEmpty(const std::shared_ptr<ColumnFamilyTree>& tree) {
  if (!tree->Empty()) return;
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = column_families_.find(tree->name());
  if (found != column_families_.end() && found->second == tree) {
    column_families_.erase(found);
  }
}

}  // namespace sstfilter::rocksdb_plugin
