// How a builder finds the DB and column family it builds for.
//
// RocksDB gives a FilterBitsBuilder its context (the level, the column
// family's name, the DB's logger) but not its DB. The listener's
// OnFlushBegin, OnCompactionBegin and OnSubcompactionBegin run on the
// thread that then builds the job's tables (include/rocksdb/listener.h), so
// the listener leaves the job there (BeginJob) and the builder takes it
// (JobOf): the job's DB, checked against the context's logger, and in it
// the column family of the context's name. No listener, no job (a table
// built outside a flush or compaction, at DB::Open's recovery): the policy
// knows no DB and uses its model.
#pragma once

#include <memory>
#include <vector>

#include "block_index.h"
#include "level_aware_tree.h"
#include "rocksdb/filter_policy.h"

namespace sstfilter::rocksdb_plugin {

struct Job {
  // The DBs the job may be of: its own, or, for a subcompaction whose DB
  // RocksDB does not say and the listener cannot tell (CompactFiles's),
  // every DB watched, told apart by the builder's logger.
  std::vector<std::weak_ptr<DbState>> dbs;
  int job_id = -1;
  int output_level = 0;
};
void BeginJob(Job job);
void EndJob();
// The output level of the job on this thread, or -1 if none runs here.
int JobOutputLevel();

// What a builder sees of its job.
struct JobView {
  // Null: no job of a watched DB runs here for the context.
  std::shared_ptr<ColumnFamilyTree> column_family;
  std::shared_ptr<DbState> db;  // the column family's
  int job_id = -1;
};
JobView JobOf(const ROCKSDB_NAMESPACE::FilterBuildingContext& context);

// The table the last learning builder on this thread finished, for the
// listener's OnTableFileCreated on the same thread (RocksDB reports a file
// created right after its builder finished, before the next one starts).
void SetBuiltTable(std::shared_ptr<TableRecord> record);
std::shared_ptr<TableRecord> TakeBuiltTable();

}  // namespace sstfilter::rocksdb_plugin
