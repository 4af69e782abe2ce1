#include "level_aware_inspection.h"

#include "block_index.h"
#include "level_aware_listener.h"

namespace sstfilter::rocksdb_plugin {

std::shared_ptr<ColumnFamilyTree> WatchedColumnFamily(
    ROCKSDB_NAMESPACE::EventListener& listener, ROCKSDB_NAMESPACE::DB* db,
    const std::string& name) {
  // RocksDB builds without RTTI: Customizable's checked cast, by name.
  auto* ours = listener.CheckedCast<LevelAwareListener>();
  if (ours == nullptr) return nullptr;
  std::shared_ptr<DbState> state = ours->Find(db);
  return state == nullptr ? nullptr : state->FindColumnFamily(name);
}

std::shared_ptr<ColumnFamilyTree> WatchedColumnFamily(ROCKSDB_NAMESPACE::DB* db,
                                                      const std::string& name) {
  for (const auto& listener : db->GetDBOptions().listeners) {
    if (auto tree = WatchedColumnFamily(*listener, db, name)) return tree;
  }
  return nullptr;
}

size_t WatchedDbCount(ROCKSDB_NAMESPACE::EventListener& listener) {
  auto* ours = listener.CheckedCast<LevelAwareListener>();
  return ours == nullptr ? 0 : ours->DbCount();
}

size_t LiveIndexedRecords() { return BlockIndex::Get().LiveRecords(); }

}  // namespace sstfilter::rocksdb_plugin
