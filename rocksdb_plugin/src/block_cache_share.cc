#include "block_cache_share.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <vector>

namespace sstfilter::rocksdb_plugin {

CacheView CacheViewOf(const ROCKSDB_NAMESPACE::BlockBasedTableOptions& table) {
  CacheView view;
  if (table.cache_index_and_filter_blocks && !table.no_block_cache) {
    view.cache = table.block_cache;
  }
  view.partitioned_index =
      table.index_type ==
      ROCKSDB_NAMESPACE::BlockBasedTableOptions::kTwoLevelIndexSearch;
  view.partitioned_filters = table.partition_filters && view.partitioned_index;
  view.data_block_bytes =
      static_cast<double>(std::max<size_t>(table.block_size, 1));
  view.metadata_block_bytes =
      static_cast<double>(std::max<uint64_t>(table.metadata_block_size, 1));
  return view;
}

bool TreeBytes(const HeldFilters& held, double* data_bytes,
               double* index_bytes) {
  if (held.sized_entries <= 0) return false;
  const double scale =
      std::max(1.0, static_cast<double>(held.entries) /
                        static_cast<double>(held.sized_entries));
  *data_bytes = static_cast<double>(held.data_bytes) * scale;
  *index_bytes = static_cast<double>(held.index_bytes) * scale;
  return true;
}

double CacheShareOf(const std::shared_ptr<ROCKSDB_NAMESPACE::Cache>& cache,
                    const std::shared_ptr<ColumnFamilyTree>& cf,
                    double data_bytes) {
  using Trees = std::vector<std::weak_ptr<ColumnFamilyTree>>;
  static std::mutex mutex;
  // Keyed by owner (the control block), never by address: a cache freed
  // and another made at its address are two entries, and the first goes
  // with the next call. Bounded by the caches and column families alive.
  static auto* users =
      new std::map<std::weak_ptr<ROCKSDB_NAMESPACE::Cache>, Trees,
                   std::owner_less<std::weak_ptr<ROCKSDB_NAMESPACE::Cache>>>;
  std::vector<std::shared_ptr<ColumnFamilyTree>> others;
  {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto it = users->begin(); it != users->end();) {
      it = it->first.expired() ? users->erase(it) : std::next(it);
    }
    Trees& trees = (*users)[cache];
    bool listed = false;
    for (auto it = trees.begin(); it != trees.end();) {
      std::shared_ptr<ColumnFamilyTree> tree = it->lock();
      if (tree == nullptr) {
        it = trees.erase(it);
        continue;
      }
      if (tree == cf) {
        listed = true;
      } else {
        others.push_back(std::move(tree));
      }
      ++it;
    }
    if (!listed) trees.push_back(cf);
  }
  // The other trees are read outside the registry's lock.
  double total = data_bytes;
  for (const auto& tree : others) {
    double data = 0, index = 0;
    if (TreeBytes(tree->Held(), &data, &index)) total += data;
  }
  const double capacity = static_cast<double>(cache->GetCapacity());
  return total > 0 ? capacity * data_bytes / total : capacity;
}

}  // namespace sstfilter::rocksdb_plugin
