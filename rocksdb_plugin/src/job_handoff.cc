#include "job_handoff.h"

#include <utility>

#include "memory_ledger.h"

namespace sstfilter::rocksdb_plugin {
namespace {

// Set and read once per job or table. A job whose end RocksDB never
// reports (a compaction running when its DB closes) stays here until the
// next begins on this thread; it holds no DB alive, and its DB's logger,
// gone, matches no builder's.
thread_local Job current_job;
thread_local std::shared_ptr<TableRecord> built_table;

}  // namespace

// A reservation a table never claimed (its file failed before RocksDB
// reported it) ends with its job.
void BeginJob(Job job) {
  ReleaseReservations();
  current_job = std::move(job);
}
void EndJob() {
  ReleaseReservations();
  current_job = Job();
}
int JobOutputLevel() {
  return current_job.dbs.empty() ? -1 : current_job.output_level;
}

JobView JobOf(const ROCKSDB_NAMESPACE::FilterBuildingContext& context) {
  JobView view;
  std::shared_ptr<DbState> db;
  for (const std::weak_ptr<DbState>& candidate : current_job.dbs) {
    std::shared_ptr<DbState> state = candidate.lock();
    if (state == nullptr || !state->IsLogger(context.info_log)) continue;
    if (db != nullptr) return view;  // two DBs share the logger: unknown
    db = std::move(state);
  }
  if (db == nullptr) return view;
  view.column_family = db->ColumnFamily(context.column_family_name);
  view.db = std::move(db);
  view.job_id = current_job.job_id;
  return view;
}

void SetBuiltTable(std::shared_ptr<TableRecord> record) {
  built_table = std::move(record);
}

std::shared_ptr<TableRecord> TakeBuiltTable() { return std::move(built_table); }

}  // namespace sstfilter::rocksdb_plugin
