// sstfilter.LevelAwareListener: shows LevelAware the tree as it is and
// owns what LevelAware learns of each DB it watches (level_aware_state.h).
// Registered by name with the policies, so that
// listeners={sstfilter.LevelAwareListener} in DBOptions (an options
// string, an OPTIONS file, db_bench's --options_file, the C API, Java's
// DBOptions from properties) turns it on, and OPTIONS files keep it.
//
// Its cost follows the jobs: one full read of the DB's files when it first
// sees the DB (DB::GetLiveFilesMetaData), then only the files each flush
// or compaction reports (their own table properties: entries and filter
// size), and the filter sizes of the files listed at that first read a few
// per job (kPropertiesPerJob), read from the files' properties outside
// RocksDB's mutex. Its callbacks run on RocksDB's flush and compaction
// threads (include/rocksdb/listener.h).
#include <algorithm>
#include <cinttypes>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "level_aware_state.h"
#include "policies.h"
#include "rocksdb/db.h"
#include "rocksdb/listener.h"
#include "rocksdb/metadata.h"
#include "rocksdb/options.h"
#include "rocksdb/sst_file_manager.h"
#include "rocksdb/sst_file_reader.h"
#include "rocksdb/table_properties.h"
#include "rocksdb/write_buffer_manager.h"
#include "sstfilter/rocksdb_plugin.h"

namespace sstfilter::rocksdb_plugin {
namespace {

using ROCKSDB_NAMESPACE::CompactionJobInfo;
using ROCKSDB_NAMESPACE::DB;
using ROCKSDB_NAMESPACE::FlushJobInfo;
using ROCKSDB_NAMESPACE::InfoLogLevel;
using ROCKSDB_NAMESPACE::Logger;
using ROCKSDB_NAMESPACE::TableProperties;

// Filter sizes of files listed at the first read, read per job: a restart
// of a DB of 10^4 files knows them all after some 600 jobs; until then
// they are left out of the filter bytes (not counted as filterless).
constexpr size_t kPropertiesPerJob = 16;
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

int64_t FilterBytesOf(const TableProperties& properties) {
  return static_cast<int64_t>(properties.filter_size);
}

// A DB and what the listener keeps of it.
struct Watched {
  std::shared_ptr<DbState> state;
  // What the DB holds while open: its logger, and the SstFileManager and
  // WriteBufferManager RocksDB makes for it when the options give none
  // (SanitizeOptions, 7.8.3 to 11.8.1). The DB is closed once any of them
  // is gone, however many DBs share the others.
  std::weak_ptr<Logger> logger;
  std::weak_ptr<ROCKSDB_NAMESPACE::SstFileManager> sst_files;
  std::weak_ptr<ROCKSDB_NAMESPACE::WriteBufferManager> write_buffers;
  std::string db_name;
  bool Closed() const {
    return logger.expired() || sst_files.expired() || write_buffers.expired();
  }
};

class LevelAwareListener final : public ROCKSDB_NAMESPACE::EventListener {
 public:
  static const char* kClassName() { return kLevelAwareListenerName; }
  const char* Name() const override { return kClassName(); }

  // What the listener keeps of `db`, or null.
  std::shared_ptr<DbState> Find(DB* db) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = dbs_.find(db);
    return found == dbs_.end() ? nullptr : found->second.state;
  }
  size_t DbCount() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return dbs_.size();
  }

  void OnFlushBegin(DB* db, const FlushJobInfo& /*info*/) override {
    std::shared_ptr<DbState> state = Watch(db);
    ReadSomeFilterSizes(db, *state);
    BeginJob({{state}, 0, "", nullptr, 0});
  }
  void OnFlushCompleted(DB* db, const FlushJobInfo& info) override {
    EndJob();
    std::shared_ptr<DbState> state = Find(db);
    if (state == nullptr) return;
    Watching(*state, info.cf_name)
        ->SetFlushEntries(
            static_cast<int64_t>(info.table_properties.num_entries));
  }

  // The tables a compaction builds are sized for the tree it leaves.
  void OnCompactionBegin(DB* db, const CompactionJobInfo& info) override {
    std::shared_ptr<DbState> state = Watch(db);
    ReadSomeFilterSizes(db, *state);
    std::shared_ptr<ColumnFamilyState> cf = Watching(*state, info.cf_name);
    std::vector<uint64_t> inputs;
    for (const auto& input : info.input_file_infos) {
      inputs.push_back(input.file_number);
    }
    int64_t input_entries = 0;
    auto tree = std::make_shared<const TreeTotals>(
        cf->Projected(inputs, info.output_level, &input_entries));
    Job job{{state},
            info.output_level,
            info.cf_name,
            std::move(tree),
            input_entries};
    {
      std::lock_guard<std::mutex> lock(mutex_);
      jobs_[JobKey(info.job_id, info.cf_name, info.output_level)].push_back(
          job);
    }
    BeginJob(std::move(job));
  }
  // Subcompactions build on threads of their own. RocksDB tells each its
  // compaction's job id (unique within a DB) but not its DB: one running
  // job of that id, column family and output level is its job. Else (two
  // such, or a compaction RocksDB reports no beginning of: CompactFiles)
  // any DB watched, told apart by the builders' loggers.
  void OnSubcompactionBegin(
      const ROCKSDB_NAMESPACE::SubcompactionJobInfo& info) override {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found =
        jobs_.find(JobKey(info.job_id, info.cf_name, info.output_level));
    if (found != jobs_.end() && found->second.size() == 1) {
      BeginJob(found->second.front());
      return;
    }
    Job job;
    job.output_level = info.output_level;
    for (const auto& [db, entry] : dbs_) job.dbs.push_back(entry.state);
    BeginJob(std::move(job));
  }
  void OnSubcompactionCompleted(
      const ROCKSDB_NAMESPACE::SubcompactionJobInfo& /*info*/) override {
    EndJob();
  }
  // Inputs leave the tree (they are deleted later, OnTableFileDeleted),
  // trivial moves change a file's level, and a table written at the bottom
  // without a filter says RocksDB builds none there.
  void OnCompactionCompleted(DB* db, const CompactionJobInfo& info) override {
    EndJob();
    ForgetJob(info);
    std::shared_ptr<DbState> state = Find(db);
    if (state == nullptr || !info.status.ok()) return;
    std::shared_ptr<ColumnFamilyState> cf = Watching(*state, info.cf_name);
    std::set<uint64_t> inputs;
    for (const auto& input : info.input_file_infos) {
      inputs.insert(input.file_number);
    }
    int deepest = 0;
    const TreeTotals before = cf->Totals();
    for (int level = 0; level < kMaxLevels; ++level) {
      if (before[level].files > 0) deepest = level;
    }
    for (size_t i = 0; i < info.output_file_infos.size(); ++i) {
      const auto& output = info.output_file_infos[i];
      if (inputs.erase(output.file_number) > 0) {  // a trivial move
        cf->MoveFile(output.file_number, output.level);
        continue;
      }
      auto properties = i < info.output_files.size()
                            ? info.table_properties.find(info.output_files[i])
                            : info.table_properties.end();
      if (properties == info.table_properties.end() ||
          properties->second == nullptr) {
        continue;
      }
      const TableProperties& p = *properties->second;
      if (output.level >= deepest && output.level > 0 && p.num_entries > 0) {
        cf->SawBottomTable(output.level, p.filter_size > 0);
      }
    }
    for (uint64_t number : inputs) cf->RemoveFile(number);
  }

  // Every table file joins the tree when RocksDB reports it written, on the
  // thread that built it (so CompactFiles's too, whose compactions RocksDB
  // reports no beginning or end of), with its own properties and, if
  // LevelAware learns from it, its record.
  void OnTableFileCreated(
      const ROCKSDB_NAMESPACE::TableFileCreationInfo& info) override {
    std::shared_ptr<TableRecord> record = TakeBuiltTable();
    const uint64_t number = FileNumberOf(info.file_path);
    if (!info.status.ok() || number == 0) return;
    std::shared_ptr<DbState> state = FindByName(info.db_name);
    if (state == nullptr) return;  // not watched yet: the first read lists it
    int level = -1;
    if (info.reason == ROCKSDB_NAMESPACE::TableFileCreationReason::kFlush) {
      level = 0;
    } else if (info.reason ==
               ROCKSDB_NAMESPACE::TableFileCreationReason::kCompaction) {
      level = JobOutputLevel();
    }
    if (level < 0) {
      Reread(info.db_name);
      return;
    }
    std::shared_ptr<ColumnFamilyState> cf = state->ColumnFamily(info.cf_name);
    if (record != nullptr && !record->Of(cf.get())) record = nullptr;
    const TableProperties& p = info.table_properties;
    cf->AddFile({number, level, static_cast<int64_t>(p.num_entries),
                 FilterBytesOf(p), ""},
                std::move(record));
  }
  void OnTableFileDeleted(
      const ROCKSDB_NAMESPACE::TableFileDeletionInfo& info) override {
    std::shared_ptr<DbState> state = FindByName(info.db_name);
    const uint64_t number = FileNumberOf(info.file_path);
    if (state == nullptr || number == 0) return;
    for (const auto& cf : state->ColumnFamilies()) cf->RemoveFile(number);
  }
  // An ingested file's level is not reported: the next job reads the tree
  // again.
  void OnExternalFileIngested(
      DB* db, const ROCKSDB_NAMESPACE::ExternalFileIngestionInfo&) override {
    Reread(db->GetName());
  }

 private:
  struct Entry : Watched {
    bool reread = false;
  };
  using JobKeyType = std::tuple<int, std::string, int>;
  static JobKeyType JobKey(int job_id, const std::string& cf, int output) {
    return {job_id, cf, output};
  }

  // The DB's state: made, with one full read of its files, the first
  // time the listener sees the DB (or another DB at its address), or read
  // again when a file joined it at no known level.
  std::shared_ptr<DbState> Watch(DB* db) {
    std::string session_id;
    db->GetDbSessionId(session_id).PermitUncheckedError();
    std::unique_lock<std::mutex> lock(mutex_);
    Sweep();
    auto found = dbs_.find(db);
    const bool same =
        found != dbs_.end() && found->second.state->session_id() == session_id;
    if (same && !found->second.reread) return found->second.state;
    Entry entry;
    if (same) {
      entry = found->second;
      entry.reread = false;
    } else {
      const ROCKSDB_NAMESPACE::DBOptions options = db->GetDBOptions();
      entry.state =
          std::make_shared<DbState>(options.info_log.get(), session_id);
      entry.logger = options.info_log;
      entry.sst_files = options.sst_file_manager;
      entry.write_buffers = options.write_buffer_manager;
      entry.db_name = db->GetName();
    }
    // A DB directory is open in one DB at a time (RocksDB's LOCK file): a
    // state of another DB of this name is of one closed.
    for (auto it = dbs_.begin(); it != dbs_.end();) {
      it = it->first != db && it->second.db_name == entry.db_name
               ? dbs_.erase(it)
               : std::next(it);
    }
    dbs_[db] = entry;
    lock.unlock();
    ReadTree(db, *entry.state);
    return entry.state;
  }
  std::shared_ptr<DbState> FindByName(const std::string& db_name) const {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [db, entry] : dbs_) {
      if (entry.db_name == db_name) return entry.state;
    }
    return nullptr;
  }
  void Reread(const std::string& db_name) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [db, entry] : dbs_) {
      if (entry.db_name == db_name) entry.reread = true;
    }
  }
  // Drops the DBs that are gone (needs mutex_).
  void Sweep() {
    for (auto it = dbs_.begin(); it != dbs_.end();) {
      it = it->second.Closed() ? dbs_.erase(it) : std::next(it);
    }
    while (dbs_.size() >= kMaxDbs) dbs_.erase(dbs_.begin());
  }
  void ForgetJob(const CompactionJobInfo& info) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found =
        jobs_.find(JobKey(info.job_id, info.cf_name, info.output_level));
    if (found == jobs_.end()) return;
    if (!found->second.empty()) found->second.erase(found->second.begin());
    if (found->second.empty()) jobs_.erase(found);
  }

  // One full read: every column family's files, their levels and entries.
  static void ReadTree(DB* db, DbState& state) {
    std::vector<ROCKSDB_NAMESPACE::LiveFileMetaData> live;
    db->GetLiveFilesMetaData(&live);
    std::map<std::string, std::vector<TreeFile>> by_cf;
    for (const auto& file : live) {
      TreeFile tree_file;
      tree_file.number = FileNumberOf(file.name);
      tree_file.level = file.level;
      tree_file.entries = static_cast<int64_t>(file.num_entries);
      tree_file.path = file.db_path + file.name;
      by_cf[file.column_family_name].push_back(std::move(tree_file));
    }
    for (const auto& cf : state.ColumnFamilies()) by_cf[cf->name()];
    for (const auto& [name, files] : by_cf) {
      state.ColumnFamily(name)->Replace(files);
    }
  }

  // A few of the filter sizes the full read did not give.
  static void ReadSomeFilterSizes(DB* db, DbState& state) {
    size_t budget = kPropertiesPerJob;
    for (const auto& cf : state.ColumnFamilies()) {
      if (budget == 0) return;
      for (const TreeFile& file : cf->FilesWithoutFilterBytes(budget)) {
        --budget;
        cf->SetFilterBytes(file.number, ReadFilterBytes(db, file.path));
      }
    }
  }
  static int64_t ReadFilterBytes(DB* db, const std::string& path) {
    ROCKSDB_NAMESPACE::Options options;
    options.env = db->GetEnv();
    ROCKSDB_NAMESPACE::SstFileReader reader(options);
    if (!reader.Open(path).ok()) return TreeFile::kUnreadableBytes;
    const auto properties = reader.GetTableProperties();
    return properties == nullptr ? TreeFile::kUnreadableBytes
                                 : FilterBytesOf(*properties);
  }

  // The column family, with the line that says it is watched (once).
  std::shared_ptr<ColumnFamilyState> Watching(DbState& state,
                                              const std::string& name) {
    std::shared_ptr<ColumnFamilyState> cf = state.ColumnFamily(name);
    if (!cf->logged.exchange(true) && state.info_log() != nullptr) {
      const TreeTotals tree = cf->Totals();
      int64_t files = 0, entries = 0;
      for (const LevelTotals& level : tree) {
        files += level.files;
        entries += level.entries;
      }
      ROCKSDB_NAMESPACE::Log(
          InfoLogLevel::INFO_LEVEL, state.info_log(),
          "[%s] %s watches this column family (%" PRId64 " files, %" PRId64
          " entries): sstfilter.LevelAware sizes its tables for its levels "
          "and learns from its lookups",
          name.c_str(), kClassName(), files, entries);
    }
    return cf;
  }

  mutable std::mutex mutex_;  // guards what follows
  std::map<DB*, Entry> dbs_;
  std::map<JobKeyType, std::vector<Job>> jobs_;
};

}  // namespace

std::shared_ptr<ColumnFamilyState> WatchedColumnFamily(
    ROCKSDB_NAMESPACE::EventListener& listener, DB* db,
    const std::string& name) {
  // RocksDB builds without RTTI: Customizable's checked cast, by name.
  auto* ours = listener.CheckedCast<LevelAwareListener>();
  if (ours == nullptr) return nullptr;
  std::shared_ptr<DbState> state = ours->Find(db);
  return state == nullptr ? nullptr : state->FindColumnFamily(name);
}

size_t WatchedDbCount(ROCKSDB_NAMESPACE::EventListener& listener) {
  auto* ours = listener.CheckedCast<LevelAwareListener>();
  return ours == nullptr ? 0 : ours->DbCount();
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
