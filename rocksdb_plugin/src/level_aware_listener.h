// sstfilter.LevelAwareListener: shows LevelAware the tree of each DB it
// watches and owns what LevelAware keeps of it (level_aware_tree.h).
// Registered by name with the policies, so that
// listeners={sstfilter.LevelAwareListener} in DBOptions (an options string,
// an OPTIONS file, db_bench's --options_file, the C API, Java's DBOptions
// from properties) turns it on, and OPTIONS files keep it.
//
// Its cost follows the jobs. When it first sees a DB it reads the DB's
// file list once (DB::GetLiveFilesMetaData; the default column family's
// table properties with DB::GetPropertiesOfAllTables, from RocksDB's table
// cache); then each job's own infos: a compaction's inputs with their
// table properties (CompactionJobInfo::table_properties), each new file
// with its properties (TableFileCreationInfo), each file deleted. No SST
// file is opened and nothing scans the DB on a job's thread after the
// first read. Its callbacks run on RocksDB's flush and compaction threads
// (include/rocksdb/listener.h), without RocksDB's mutex.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "level_aware_tree.h"
#include "rocksdb/db.h"
#include "rocksdb/listener.h"
#include "rocksdb/sst_file_manager.h"
#include "rocksdb/write_buffer_manager.h"
#include "sstfilter/rocksdb_plugin.h"

namespace sstfilter::rocksdb_plugin {

class LevelAwareListener final : public ROCKSDB_NAMESPACE::EventListener {
 public:
  static const char* kClassName() { return kLevelAwareListenerName; }
  const char* Name() const override { return kClassName(); }

  // What the listener keeps of `db` (this session of it), or null.
  std::shared_ptr<DbState> Find(ROCKSDB_NAMESPACE::DB* db) const;
  // How many DBs it keeps a state for.
  size_t DbCount() const;

  void OnFlushBegin(ROCKSDB_NAMESPACE::DB* db,
                    const ROCKSDB_NAMESPACE::FlushJobInfo& info) override;
  void OnFlushCompleted(ROCKSDB_NAMESPACE::DB* db,
                        const ROCKSDB_NAMESPACE::FlushJobInfo& info) override;
  void OnCompactionBegin(
      ROCKSDB_NAMESPACE::DB* db,
      const ROCKSDB_NAMESPACE::CompactionJobInfo& info) override;
  void OnSubcompactionBegin(
      const ROCKSDB_NAMESPACE::SubcompactionJobInfo& info) override;
  void OnSubcompactionCompleted(
      const ROCKSDB_NAMESPACE::SubcompactionJobInfo& info) override;
  void OnCompactionCompleted(
      ROCKSDB_NAMESPACE::DB* db,
      const ROCKSDB_NAMESPACE::CompactionJobInfo& info) override;
  void OnTableFileCreated(
      const ROCKSDB_NAMESPACE::TableFileCreationInfo& info) override;
  void OnTableFileDeleted(
      const ROCKSDB_NAMESPACE::TableFileDeletionInfo& info) override;
  void OnExternalFileIngested(
      ROCKSDB_NAMESPACE::DB* db,
      const ROCKSDB_NAMESPACE::ExternalFileIngestionInfo& info) override;

 private:
  // A DB and what the listener keeps of it. The DB is closed once its
  // logger, or the SstFileManager or WriteBufferManager RocksDB makes for
  // it when the options give none (SanitizeOptions, 7.8.3 to 11.8.1), is
  // gone, however many DBs share the others.
  struct Watched {
    std::shared_ptr<DbState> state;
    std::weak_ptr<ROCKSDB_NAMESPACE::Logger> logger;
    std::weak_ptr<ROCKSDB_NAMESPACE::SstFileManager> sst_files;
    std::weak_ptr<ROCKSDB_NAMESPACE::WriteBufferManager> write_buffers;
    std::string db_name;
    bool reread = false;  // a file joined at no known level
    bool Closed() const {
      return logger.expired() || sst_files.expired() || write_buffers.expired();
    }
  };

  std::shared_ptr<DbState> Watch(ROCKSDB_NAMESPACE::DB* db);
  std::shared_ptr<DbState> FindByName(const std::string& db_name) const;
  void Sweep();  // needs mutex_
  void AddCreated(const ROCKSDB_NAMESPACE::TableFileCreationInfo& info);
  std::shared_ptr<ColumnFamilyTree> Watching(DbState& state,
                                             const std::string& name,
                                             int64_t id);

  mutable std::mutex mutex_;  // guards what follows
  // By address, checked against the DB's session id: a DB opened at the
  // address of one closed is another.
  std::map<ROCKSDB_NAMESPACE::DB*, Watched> dbs_;
};

}  // namespace sstfilter::rocksdb_plugin
