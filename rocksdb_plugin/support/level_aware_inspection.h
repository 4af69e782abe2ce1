// What tests, tools and benchmarks may look at inside LevelAware's state,
// none of it in the plugin's libraries: the library
// sstfilter_level_aware_inspection, linked only by them.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "level_aware_tree.h"
#include "rocksdb/db.h"
#include "rocksdb/listener.h"

namespace sstfilter::rocksdb_plugin {

// What `listener` (a sstfilter.LevelAwareListener) keeps of column family
// `name` of `db`, or null.
std::shared_ptr<ColumnFamilyTree> WatchedColumnFamily(
    ROCKSDB_NAMESPACE::EventListener& listener, ROCKSDB_NAMESPACE::DB* db,
    const std::string& name);

// The same, from the listeners of `db`'s options.
std::shared_ptr<ColumnFamilyTree> WatchedColumnFamily(
    ROCKSDB_NAMESPACE::DB* db,
    const std::string& name = ROCKSDB_NAMESPACE::kDefaultColumnFamilyName);

// How many DBs `listener` keeps a state for (0 if it is not ours).
size_t WatchedDbCount(ROCKSDB_NAMESPACE::EventListener& listener);

// The records the block index finds alive: files of open DBs.
size_t LiveIndexedRecords();

}  // namespace sstfilter::rocksdb_plugin
