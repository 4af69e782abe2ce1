#include "block_index.h"

#include <array>
#include <list>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "level_aware_tree.h"
#include "sstfilter/hash.h"

namespace sstfilter::rocksdb_plugin {
namespace {

// Sharded by id so that readers made on many threads at once (a block
// cache loading filters) seldom wait on each other. An entry takes about
// kEntryBytes (the hash node, the list node, the weak pointer); the index
// holds at most kIndexBytes of them: 2^16 entries, the blocks of 2^16
// full-filter files (64 TiB of 1 GiB files) or of a DB's partitions (a
// 1 GiB file of 10^7 keys at 10 bits/key has about 3,000 4 KiB
// partitions).
constexpr size_t kShards = 16;
constexpr size_t kEntryBytes = 96;
constexpr size_t kIndexBytes = size_t{6} << 20;
constexpr size_t kEntriesPerShard = kIndexBytes / kEntryBytes / kShards;

struct Entry {
  uint64_t id;
  std::weak_ptr<TableRecord> record;
  bool ambiguous = false;
};

struct Shard {
  std::mutex mutex;
  std::list<Entry> order;  // most recently used first
  std::unordered_map<uint64_t, std::list<Entry>::iterator> map;

  void Erase(std::list<Entry>::iterator at) {
    map.erase(at->id);
    order.erase(at);
  }
};

}  // namespace

struct BlockIndex::Shards {
  std::array<Shard, kShards> shard;
  Shard& Of(uint64_t id) { return shard[(id >> 60) % kShards]; }
};

BlockIndex::Shards& BlockIndex::shards() {
  static Shards* const shards = new Shards();  // never freed: readers may
  return *shards;                              // outlive statics
}

BlockIndex& BlockIndex::Get() {
  static BlockIndex index;
  return index;
}

uint64_t BlockId(std::string_view block) { return HashKey(block); }

void TableRecord::Record(std::string_view key, bool may_match) const {
  if (!live_.load(std::memory_order_relaxed)) return;
  const std::shared_ptr<ColumnFamilyTree> column_family = column_family_.lock();
  if (column_family == nullptr) return;
  column_family->workload().RecordSample(
      level(), key, may_match && !no_filter_ ? 0 : absent_weight_);
  column_family->CountSample();
}

void BlockIndex::Add(uint64_t id, const std::shared_ptr<TableRecord>& record) {
  Shard& shard = shards().Of(id);
  std::lock_guard<std::mutex> lock(shard.mutex);
  auto found = shard.map.find(id);
  if (found != shard.map.end()) {
    Entry& entry = *found->second;
    const std::shared_ptr<TableRecord> held = entry.record.lock();
    if (held != nullptr && held != record && !held->SameColumnFamily(*record)) {
      entry.ambiguous = true;  // the same bytes in two column families
      entry.record.reset();
    } else if (!entry.ambiguous) {
      entry.record = record;
    }
    shard.order.splice(shard.order.begin(), shard.order, found->second);
    return;
  }
  shard.order.push_front({id, record, false});
  shard.map.emplace(id, shard.order.begin());
  // The least recently used out, and the records gone (their DB closed or
  // their file deleted) that have come to the end of the list.
  while (!shard.order.empty() && (shard.order.size() > kEntriesPerShard ||
                                  (!shard.order.back().ambiguous &&
                                   shard.order.back().record.expired()))) {
    shard.Erase(std::prev(shard.order.end()));
  }
}

std::shared_ptr<TableRecord> BlockIndex::Find(std::string_view block) {
  if (block.empty()) return nullptr;
  const uint64_t id = BlockId(block);
  Shard& shard = shards().Of(id);
  std::lock_guard<std::mutex> lock(shard.mutex);
  auto found = shard.map.find(id);
  if (found == shard.map.end()) return nullptr;
  if (found->second->ambiguous) return nullptr;
  std::shared_ptr<TableRecord> record = found->second->record.lock();
  if (record == nullptr) {
    shard.Erase(found->second);
    return nullptr;
  }
  shard.order.splice(shard.order.begin(), shard.order, found->second);
  return record;
}

void BlockIndex::Remove(const TableRecord& record) {
  for (uint64_t id : record.block_ids) {
    Shard& shard = shards().Of(id);
    std::lock_guard<std::mutex> lock(shard.mutex);
    auto found = shard.map.find(id);
    if (found == shard.map.end() || found->second->ambiguous) continue;
    const std::shared_ptr<TableRecord> held = found->second->record.lock();
    if (held != nullptr && held.get() != &record) continue;
    shard.Erase(found->second);
  }
}

size_t BlockIndex::LiveRecords() {
  size_t live = 0;
  for (Shard& shard : shards().shard) {
    std::lock_guard<std::mutex> lock(shard.mutex);
    for (const Entry& entry : shard.order) live += !entry.record.expired();
  }
  return live;
}

}  // namespace sstfilter::rocksdb_plugin
