// What LevelAware learns in a running process, around RocksDB's interfaces
// (the learned state itself is sstfilter/workload.h, the allocation
// sstfilter/level_allocation.h):
//
// - Column families. Builders tell column families apart by
//   (info_log, column family name) (FilterBuildingContext); each such pair
//   has one ColumnFamilyObservations, whichever policy objects serve it.
// - Tables. A reader gets only the block's bytes. So a builder registers
//   each block it finishes by a fingerprint of its bytes (TableFingerprint)
//   with the table's column family, level at creation, entries and model
//   FPR; a reader made for a registered block samples its probes into that
//   column family's LevelWorkload. Blocks not registered (written before
//   the process started, or by another policy) are read as before, and not
//   sampled. Registrations are memory only and bounded (kMaxTables, oldest
//   dropped first).
// - The tree as it is. LevelAwareListener (NewLevelAwareListener() in
//   sstfilter/rocksdb_plugin.h), added to DBOptions::listeners, reads the
//   column family's levels (entries per level) before every flush and
//   compaction builds tables; without it the policy assumes levels growing
//   by T.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "filter_bits.h"
#include "rocksdb/listener.h"
#include "sstfilter/level_allocation.h"
#include "sstfilter/workload.h"

namespace sstfilter::rocksdb_plugin {

// What is known of one column family of one DB in this process.
class ColumnFamilyObservations {
 public:
  using LevelEntries = std::array<uint64_t, LevelWorkload::kMaxLevels>;

  // The one for (info_log, cf_name), made on first use. Never null.
  static std::shared_ptr<ColumnFamilyObservations> For(
      const void* info_log, const std::string& cf_name);

  LevelWorkload& workload() { return workload_; }

  // The listener's view of the tree: entries per level, and the entries of
  // the last flush (L0's share when L0 is empty between compactions).
  void SetTree(const LevelEntries& entries);
  void SetFlushEntries(uint64_t entries) {
    flush_entries_.store(entries, std::memory_order_relaxed);
  }
  // False if no listener has reported the tree.
  bool Tree(LevelEntries* entries, uint64_t* flush_entries) const;
  // Changes whenever the tree does.
  uint64_t tree_version() const {
    return tree_version_.load(std::memory_order_acquire);
  }

  // The filters this process built below L0 that have a reader now: their
  // bits and entries (a reader adds its table's when made, takes them back
  // when freed). What the tree's filters really take, after rounding, RocksDB's
  // sizing of Ribbon by key count, and tables built for the tree as it was.
  void AddLiveFilter(int64_t entries, int64_t bits) {
    live_entries_.fetch_add(entries, std::memory_order_relaxed);
    live_bits_.fetch_add(bits, std::memory_order_relaxed);
  }
  // Their bits per entry, and their entries (0: none).
  double LiveBitsPerKey(int64_t* entries) const {
    *entries = live_entries_.load(std::memory_order_relaxed);
    return *entries > 0 ? static_cast<double>(
                              live_bits_.load(std::memory_order_relaxed)) /
                              static_cast<double>(*entries)
                        : 0;
  }

 private:
  LevelWorkload workload_;
  mutable std::mutex mutex_;  // guards tree_
  LevelEntries tree_{};
  bool has_tree_ = false;
  std::atomic<uint64_t> flush_entries_{0};
  std::atomic<uint64_t> tree_version_{0};
  std::atomic<int64_t> live_entries_{0};
  std::atomic<int64_t> live_bits_{0};
};

// A built table as its reader needs it.
struct TableTag {
  std::shared_ptr<ColumnFamilyObservations> column_family;
  int level = 0;
  int64_t entries = 0;
  uint32_t absent_weight = 0;  // LevelWorkload::AbsentWeight(model FPR)
  int first_bucket = 0;        // LevelWorkload::BucketOf its smallest key
  int last_bucket = 0;         // and its largest
  int64_t filter_bits = 0;     // the block's size in bits
};

// What a registering builder is given to build one table.
struct TableBuild {
  TableTag tag;  // column family and level; the rest is filled in
  // The level's filter, and a builder for any filter (`*ours` says whether
  // it is one of this library's builders or RocksDB's).
  FilterChoice level_choice;
  std::function<ROCKSDB_NAMESPACE::FilterBitsBuilder*(const FilterChoice&,
                                                      bool* ours)>
      make;
  // The table's own filter from its smallest and largest keys; null: the
  // level's. When set, the builder keeps the keys until Finish and builds
  // the chosen filter from them.
  std::function<FilterChoice(std::string_view smallest,
                             std::string_view largest)>
      choose;
};

// The fingerprint of a filter block: a hash of its size, its first and its
// last 64 bytes (the filter's bits there depend on its keys).
uint64_t TableFingerprint(std::string_view block);

// Registers `block` as built with `tag`; LookUpTable finds it (or null).
void RegisterTable(std::string_view block, std::shared_ptr<const TableTag> tag);
std::shared_ptr<const TableTag> LookUpTable(std::string_view block);

// A builder of `build.level_choice` (or, with `build.choose`, of the
// table's own choice) that registers each block it finishes (each
// partition of a partitioned filter is one) with `build.tag`.
BitsBuilder* NewRegisteringBuilder(TableBuild build);

// Wraps `reader` so that it samples its probes for `tag`'s table.
ROCKSDB_NAMESPACE::FilterBitsReader* NewSamplingReader(
    ROCKSDB_NAMESPACE::FilterBitsReader* reader,
    std::shared_ptr<const TableTag> tag);

}  // namespace sstfilter::rocksdb_plugin
