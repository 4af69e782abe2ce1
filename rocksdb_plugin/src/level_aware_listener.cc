#include "level_aware_listener.h"

#include <algorithm>
#include <cinttypes>
#include <set>
#include <utility>
#include <vector>

#include "job_handoff.h"
#include "memory_ledger.h"
#include "policies.h"
#include "rocksdb/metadata.h"
#include "rocksdb/options.h"
#include "rocksdb/table_properties.h"

namespace sstfilter::rocksdb_plugin {
namespace {

using ROCKSDB_NAMESPACE::DB;
using ROCKSDB_NAMESPACE::InfoLogLevel;
using ROCKSDB_NAMESPACE::TableProperties;

// DBs a listener keeps the state of. A DB gone is dropped at the
// listener's next callback once it is closed (Watched::Closed) or another
// DB takes its address or its directory; this bounds what a listener can
// hold of DBs that share everything Closed looks at.
constexpr size_t kMaxDbs = 1024;

// The file number in a table file's path ("/db/000123.sst"), or 0.
uint64_t FileNumberOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const size_t start = slash == std::string::npos ? 0 : slash + 1;
  uint64_t number = 0;
  size_t i = start;
  for (; i < path.size() && path[i] >= '0' && path[i] <= '9'; ++i) {
    number = number * 10 + static_cast<uint64_t>(path[i] - '0');
  }
  return i > start && path.compare(i, std::string::npos, ".sst") == 0 ? number
                                                                      : 0;
}

// A file of the tree from its own table properties.
TreeFile FileOf(uint64_t number, int level, const TableProperties& p) {
  return {
      number,
      level,
      static_cast<int64_t>(p.num_entries),
      static_cast<int64_t>(p.num_filter_entries),
      static_cast<int64_t>(p.filter_size),
      !p.filter_policy_name.empty() && p.filter_policy_name != kLevelAwareName,
      static_cast<int64_t>(p.data_size),
      static_cast<int64_t>(p.index_size)};
}

std::string SessionOf(DB* db) {
  std::string session_id;
  db->GetDbSessionId(session_id).PermitUncheckedError();
  return session_id;
}

// A read of `db`'s files into `state`: their levels and entries, and, the
// first time (`with_properties`), the default column family's table
// properties (from RocksDB's table cache). The other column families'
// properties come with their jobs: RocksDB reads a column family's table
// properties only through its handle, which a listener is not given.
// Files read before keep the properties known of them.
void ReadTree(DB* db, DbState& state, bool with_properties) {
  state.BeginRead();
  std::vector<ROCKSDB_NAMESPACE::LiveFileMetaData> live;
  db->GetLiveFilesMetaData(&live);
  ROCKSDB_NAMESPACE::TablePropertiesCollection properties;
  if (with_properties) {
    db->GetPropertiesOfAllTables(&properties).PermitUncheckedError();
  }
  std::map<uint64_t, std::shared_ptr<const TableProperties>> by_number;
  for (const auto& [path, p] : properties) {
    if (p != nullptr) by_number[FileNumberOf(path)] = p;
  }
  const std::string default_name = db->DefaultColumnFamily()->GetName();
  std::map<std::string, std::vector<TreeFile>> listed;
  for (const auto& file : live) {
    const uint64_t number = FileNumberOf(file.name);
    TreeFile tree_file{number, file.level,
                       static_cast<int64_t>(file.num_entries), -1, -1};
    auto found = by_number.find(number);
    if (file.column_family_name == default_name && found != by_number.end()) {
      tree_file = FileOf(number, file.level, *found->second);
    }
    listed[file.column_family_name].push_back(tree_file);
  }
  state.FinishRead(listed);
}

}  // namespace

std::shared_ptr<DbState> LevelAwareListener::Find(DB* db) const {
  const std::string session_id = SessionOf(db);
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = dbs_.find(db);
  return found == dbs_.end() || found->second.state->session_id() != session_id
             ? nullptr
             : found->second.state;
}

size_t LevelAwareListener::DbCount() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return dbs_.size();
}

// The DB's state: made, with one read of its files, the first time the
// listener sees the DB (or another DB at its address), or read again (the
// file list only) when a file joined it at no known level.
std::shared_ptr<DbState> LevelAwareListener::Watch(DB* db) {
  const std::string session_id = SessionOf(db);
  std::unique_lock<std::mutex> lock(mutex_);
  Sweep();
  auto found = dbs_.find(db);
  const bool same =
      found != dbs_.end() && found->second.state->session_id() == session_id;
  if (same && !found->second.reread) return found->second.state;
  Watched entry;
  if (same) {
    entry = found->second;
    entry.reread = false;
  } else {
    const ROCKSDB_NAMESPACE::DBOptions options = db->GetDBOptions();
    entry.state = std::make_shared<DbState>(options.info_log, session_id);
    entry.logger = options.info_log;
    entry.sst_files = options.sst_file_manager;
    entry.write_buffers = options.write_buffer_manager;
    entry.db_name = db->GetName();
  }
  // A DB directory is open in one DB at a time (RocksDB's LOCK file): a
  // state of another DB of this name is of one closed.
  for (auto it = dbs_.begin(); it != dbs_.end();) {
    it = it->first != db && it->second.db_name == entry.db_name ? dbs_.erase(it)
                                                                : std::next(it);
  }
  dbs_[db] = entry;
  lock.unlock();
  ReadTree(db, *entry.state, /*with_properties=*/!same);
  return entry.state;
}

std::shared_ptr<DbState> LevelAwareListener::FindByName(
    const std::string& db_name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [db, entry] : dbs_) {
    if (entry.db_name == db_name) return entry.state;
  }
  return nullptr;
}

void LevelAwareListener::Sweep() {
  for (auto it = dbs_.begin(); it != dbs_.end();) {
    it = it->second.Closed() ? dbs_.erase(it) : std::next(it);
  }
  while (dbs_.size() >= kMaxDbs) dbs_.erase(dbs_.begin());
}

// The column family, with the line that says it is watched (once).
std::shared_ptr<ColumnFamilyTree> LevelAwareListener::Watching(
    DbState& state, const std::string& name, int64_t id) {
  std::shared_ptr<ColumnFamilyTree> cf = state.ColumnFamily(name, id);
  const auto logger = state.info_log();
  if (!cf->logged.exchange(true) && logger != nullptr) {
    int64_t files = 0, entries = 0;
    for (const LevelTotals& level : cf->Totals()) {
      files += level.files;
      entries += level.entries;
    }
    ROCKSDB_NAMESPACE::Log(
        InfoLogLevel::INFO_LEVEL, logger.get(),
        "[%s] %s watches this column family (%" PRId64 " files, %" PRId64
        " entries): sstfilter.LevelAware sizes its tables for its levels "
        "and learns from its lookups",
        name.c_str(), kClassName(), files, entries);
  }
  return cf;
}

void LevelAwareListener::OnFlushBegin(
    DB* db, const ROCKSDB_NAMESPACE::FlushJobInfo& info) {
  std::shared_ptr<DbState> state = Watch(db);
  Watching(*state, info.cf_name, info.cf_id);
  BeginJob({{state}, info.job_id, 0});
}

void LevelAwareListener::OnFlushCompleted(
    DB* db, const ROCKSDB_NAMESPACE::FlushJobInfo& info) {
  EndJob();
  std::shared_ptr<DbState> state = Find(db);
  if (state == nullptr) return;
  const TableProperties& p = info.table_properties;
  state->ColumnFamily(info.cf_name, info.cf_id)
      ->SetFlushKeys(static_cast<int64_t>(
          p.num_filter_entries > 0 ? p.num_filter_entries : p.num_entries));
}

// The compaction's inputs leave the tree's filters now, with their own
// properties (which fill in those a first read could not give); its
// tables are sized for the tree it leaves.
void LevelAwareListener::OnCompactionBegin(
    DB* db, const ROCKSDB_NAMESPACE::CompactionJobInfo& info) {
  std::shared_ptr<DbState> state = Watch(db);
  std::shared_ptr<ColumnFamilyTree> cf =
      Watching(*state, info.cf_name, info.cf_id);
  std::vector<TreeFile> inputs;
  for (size_t i = 0; i < info.input_file_infos.size(); ++i) {
    const auto& input = info.input_file_infos[i];
    TreeFile file;
    file.number = input.file_number;
    file.level = input.level;
    auto p = i < info.input_files.size()
                 ? info.table_properties.find(info.input_files[i])
                 : info.table_properties.end();
    if (p != info.table_properties.end() && p->second != nullptr) {
      file = FileOf(input.file_number, input.level, *p->second);
    }
    inputs.push_back(file);
  }
  cf->BeginCompaction(info.job_id, inputs, info.output_level);
  BeginJob({{state}, info.job_id, info.output_level});
}

// Subcompactions build on threads of their own. RocksDB tells each its
// compaction's job id (unique within a DB), column family and output
// level, not its DB: the one watched DB running that compaction is its DB.
// Else (two such, or a compaction RocksDB reports no beginning of:
// CompactFiles's) any DB watched, told apart by the builders' loggers.
void LevelAwareListener::OnSubcompactionBegin(
    const ROCKSDB_NAMESPACE::SubcompactionJobInfo& info) {
  std::vector<std::weak_ptr<DbState>> all, running;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [db, entry] : dbs_) {
      all.push_back(entry.state);
      const auto cf = entry.state->FindColumnFamily(info.cf_name);
      if (cf != nullptr && cf->id() == info.cf_id &&
          cf->OutputLevelOf(info.job_id) == info.output_level) {
        running.push_back(entry.state);
      }
    }
  }
  BeginJob(
      {running.size() == 1 ? running : all, info.job_id, info.output_level});
}

void LevelAwareListener::OnSubcompactionCompleted(
    const ROCKSDB_NAMESPACE::SubcompactionJobInfo& /*info*/) {
  EndJob();
}

// The inputs leave the tree (RocksDB deletes their files later), but for
// those a trivial move keeps at the output level; a table written at the
// bottom without a filter says RocksDB builds none there.
void LevelAwareListener::OnCompactionCompleted(
    DB* db, const ROCKSDB_NAMESPACE::CompactionJobInfo& info) {
  EndJob();
  std::shared_ptr<DbState> state = Find(db);
  if (state == nullptr) return;
  std::shared_ptr<ColumnFamilyTree> cf =
      state->ColumnFamily(info.cf_name, info.cf_id);
  std::set<uint64_t> inputs;
  for (const auto& input : info.input_file_infos) {
    inputs.insert(input.file_number);
  }
  std::vector<TreeFile> moved;
  int deepest = 0;
  const TreeTotals before = cf->Totals();
  for (int level = 0; level < kMaxLevels; ++level) {
    if (before[level].files > 0 || before[level].incoming_keys > 0) {
      deepest = level;
    }
  }
  for (size_t i = 0; i < info.output_file_infos.size(); ++i) {
    const auto& output = info.output_file_infos[i];
    if (inputs.count(output.file_number) > 0) {
      TreeFile file;
      file.number = output.file_number;
      file.level = output.level;
      moved.push_back(file);
      continue;
    }
    auto p = i < info.output_files.size()
                 ? info.table_properties.find(info.output_files[i])
                 : info.table_properties.end();
    if (p == info.table_properties.end() || p->second == nullptr) continue;
    if (output.level >= deepest && output.level > 0 &&
        p->second->num_entries > 0) {
      // Without a filter block at all: RocksDB built none (a block
      // without a filter, LevelAware's under a memory limit, has 13 bytes).
      cf->SawBottomTable(p->second->filter_size > 0);
    }
  }
  cf->EndCompaction(info.job_id, info.status.ok(), moved);
}

// Every table file joins the tree when RocksDB reports it written, on the
// thread that built it (so CompactFiles's too, whose compactions RocksDB
// reports no beginning or end of), with its own properties and, if
// LevelAware learns from it, its record.
void LevelAwareListener::OnTableFileCreated(
    const ROCKSDB_NAMESPACE::TableFileCreationInfo& info) {
  AddCreated(info);
  // The file's filter now counts in its tree: the memory limit's
  // reservation for it ends (memory_ledger.h).
  ReleaseReservations();
}

void LevelAwareListener::AddCreated(
    const ROCKSDB_NAMESPACE::TableFileCreationInfo& info) {
  std::shared_ptr<TableRecord> record = TakeBuiltTable();
  const uint64_t number = FileNumberOf(info.file_path);
  if (!info.status.ok() || number == 0) return;
  std::shared_ptr<DbState> state = FindByName(info.db_name);
  if (state == nullptr) return;  // not watched yet: the first read lists it
  std::shared_ptr<ColumnFamilyTree> cf = state->ColumnFamily(info.cf_name);
  int level = -1;
  if (info.reason == ROCKSDB_NAMESPACE::TableFileCreationReason::kFlush) {
    level = 0;
  } else if (info.reason ==
             ROCKSDB_NAMESPACE::TableFileCreationReason::kCompaction) {
    level = cf->OutputLevelOf(info.job_id);
    if (level < 0) level = JobOutputLevel();
  }
  if (level < 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [db, entry] : dbs_) {
      if (entry.db_name == info.db_name) entry.reread = true;
    }
    return;
  }
  if (record != nullptr && !record->Of(cf.get())) record = nullptr;
  cf->AddFile(
      FileOf(number, level, info.table_properties), std::move(record),
      info.reason == ROCKSDB_NAMESPACE::TableFileCreationReason::kCompaction
          ? info.job_id
          : -1);
}

void LevelAwareListener::OnTableFileDeleted(
    const ROCKSDB_NAMESPACE::TableFileDeletionInfo& info) {
  std::shared_ptr<DbState> state = FindByName(info.db_name);
  const uint64_t number = FileNumberOf(info.file_path);
  if (state == nullptr || number == 0) return;
  for (const auto& cf : state->ColumnFamilies()) {
    cf->RemoveFile(number);
    state->DropIfEmpty(cf);
  }
}

// An ingested file's level is not reported: the file list is read again
// (on the ingesting thread, not a job's), and the file's properties are
// the info's.
void LevelAwareListener::OnExternalFileIngested(
    DB* db, const ROCKSDB_NAMESPACE::ExternalFileIngestionInfo& info) {
  std::shared_ptr<DbState> state = Find(db);
  if (state == nullptr) return;  // the first read will list it
  ReadTree(db, *state, /*with_properties=*/false);
  const uint64_t number = FileNumberOf(info.internal_file_path);
  const TableProperties& p = info.table_properties;
  state->ColumnFamily(info.cf_name)
      ->SetProperties(number, static_cast<int64_t>(p.num_filter_entries),
                      static_cast<int64_t>(p.filter_size));
}

std::unique_ptr<ROCKSDB_NAMESPACE::EventListener> MakeLevelAwareListener() {
  return std::make_unique<LevelAwareListener>();
}

}  // namespace sstfilter::rocksdb_plugin

namespace sstfilter {

std::shared_ptr<ROCKSDB_NAMESPACE::EventListener> NewLevelAwareListener() {
  return rocksdb_plugin::MakeLevelAwareListener();
}

}  // namespace sstfilter
