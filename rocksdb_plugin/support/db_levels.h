// A DB's files per level, and a leveled LSM built by hand, for the tests
// and the demo: runs of keys written deepest first, each flushed and
// compacted down to its level, so every level holds files and every key
// range overlaps (one file per level is consulted by a Get).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/metadata.h"
#include "rocksdb/options.h"
#include "rocksdb/write_batch.h"

namespace sstfilter::db_support {

// The paths of the files on `level` of the default column family.
inline std::vector<std::string> FilesAtLevel(ROCKSDB_NAMESPACE::DB* db,
                                             int level) {
  ROCKSDB_NAMESPACE::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  std::vector<std::string> names;
  for (const auto& file : meta.levels[level].files) {
    names.push_back(file.db_path + file.name);
  }
  return names;
}

// Writes, for each level from `num_levels` - 1 up to 0, the keys i <
// `num_keys` with level_of(i) == level as one run (put(i, &batch) adds key
// i, WAL off, in batches of 1000), flushes it and compacts that flush to
// the level in Snappy-compressed files of about `file_bytes`; the L0 run
// stays as flushed. The DB must have auto compactions off and a write
// buffer that holds a run, so that each run is one flush.
template <typename LevelOf, typename PutKey>
ROCKSDB_NAMESPACE::Status BuildLevels(ROCKSDB_NAMESPACE::DB* db,
                                      uint64_t num_keys, int num_levels,
                                      LevelOf level_of, PutKey put,
                                      uint64_t file_bytes) {
  namespace rdb = ROCKSDB_NAMESPACE;
  rdb::WriteOptions write_options;
  write_options.disableWAL = true;
  rdb::Status s;
  for (int level = num_levels - 1; level >= 0 && s.ok(); --level) {
    rdb::WriteBatch batch;
    for (uint64_t i = 0; i < num_keys && s.ok(); ++i) {
      if (level_of(i) != level) continue;
      put(i, &batch);
      if (batch.Count() == 1000) {
        s = db->Write(write_options, &batch);
        batch.Clear();
      }
    }
    if (s.ok() && batch.Count() > 0) s = db->Write(write_options, &batch);
    if (s.ok()) s = db->Flush(rdb::FlushOptions());
    if (s.ok() && level > 0) {
      rdb::CompactionOptions compaction;
      compaction.compression = rdb::kSnappyCompression;
      compaction.output_file_size_limit = file_bytes;
      s = db->CompactFiles(compaction, FilesAtLevel(db, 0), level);
    }
  }
  return s;
}

}  // namespace sstfilter::db_support
