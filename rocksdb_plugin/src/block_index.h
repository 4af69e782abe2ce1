// How a reader finds the SST file its filter block belongs to.
//
// RocksDB gives a FilterBitsReader only a block's bytes. So a learning
// builder (level_aware_builder.h) makes one TableRecord per SST file and
// indexes each filter block it finishes (each partition of a partitioned
// filter is one) by its block id, a hash of all of the block's bytes, in
// one process-wide index; a reader made for an indexed block samples its
// probes into the record (probe_sampler.h), which adds them to its column
// family's learned state once the listener counts the file
// (level_aware_tree.h).
//
// The index owns no record: the column family's tree holds a live file's
// record, and its readers; a record is gone once its file is deleted or
// its DB closed, and its entry with it (when found, or when it reaches the
// end of the list). Two files of one column family whose blocks are
// identical (a compaction that rewrote a file's keys unchanged) are one to
// the learning: the block is indexed for the newer. Two of different ones
// (two DBs holding the same keys) cannot be told apart by their readers:
// such a block's entry stays, marked ambiguous, and readers made for it
// sample nothing, rather than into the other DB. Bounded: kIndexBytes, least recently used
// out first; a block pushed out while its file lives is read unsampled
// when a reader is next made for it, nothing else.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "probe_sampler.h"

namespace sstfilter::rocksdb_plugin {

class ColumnFamilyTree;

// One SST file a learning builder built in this process, as its readers
// sample it.
class TableRecord final : public ProbeSampler {
 public:
  // `absent_weight`: LevelWorkload::AbsentWeight of the file's FPR;
  // `no_filter`: a file without a filter, whose "may match" says nothing
  // of whether a key is absent: each probe it samples counts as absent
  // (so a level a memory limit left without filters, once its Gets come,
  // is seen probed and gets filters back).
  TableRecord(std::weak_ptr<ColumnFamilyTree> column_family, int level,
              uint32_t absent_weight, bool no_filter = false)
      : column_family_(std::move(column_family)),
        level_(level),
        absent_weight_(absent_weight),
        no_filter_(no_filter) {}

  // Adds the sample to the column family's learned state at the file's
  // level, once the tree counts the file (live), else drops it.
  void Record(std::string_view key, bool may_match) const override;

  // Whether it is a file of `column_family`.
  bool Of(const ColumnFamilyTree* column_family) const {
    return column_family_.lock().get() == column_family;
  }
  // Whether `other` is a file of the same column family.
  bool SameColumnFamily(const TableRecord& other) const {
    return !column_family_.owner_before(other.column_family_) &&
           !other.column_family_.owner_before(column_family_);
  }

  // The tree's: where the file is, and whether it counts.
  int level() const { return level_.load(std::memory_order_relaxed); }
  void set_level(int level) { level_.store(level, std::memory_order_relaxed); }
  void set_live(bool live) { live_.store(live, std::memory_order_relaxed); }

  // What the builder fills in (one thread, before any reader).
  int64_t keys = 0;      // keys added to its filter blocks
  int first_bucket = 0;  // LevelWorkload::BucketOf its smallest key
  int last_bucket = 0;   // and its largest
  std::vector<uint64_t> block_ids;

 private:
  const std::weak_ptr<ColumnFamilyTree> column_family_;
  std::atomic<int> level_;
  std::atomic<bool> live_{false};
  const uint32_t absent_weight_;
  const bool no_filter_;
};

// A record made as its readers need it: by new, so that the index's weak
// pointer holds only the control block once the record is gone (not the
// record's storage, as make_shared's single allocation would).
inline std::shared_ptr<TableRecord> NewTableRecord(
    std::weak_ptr<ColumnFamilyTree> column_family, int level,
    uint32_t absent_weight, bool no_filter = false) {
  return std::shared_ptr<TableRecord>(new TableRecord(
      std::move(column_family), level, absent_weight, no_filter));
}

// The id of a filter block: XXH3-64 of all of its bytes.
uint64_t BlockId(std::string_view block);

// The process-wide index of block ids to records.
class BlockIndex {
 public:
  static BlockIndex& Get();
  // Indexes `id` for `record`; an id another live record holds becomes
  // ambiguous (found by neither).
  void Add(uint64_t id, const std::shared_ptr<TableRecord>& record);
  // The record of `block`, or null (not indexed, gone, or ambiguous).
  std::shared_ptr<TableRecord> Find(std::string_view block);
  // Drops the ids of `record` that still point to it.
  void Remove(const TableRecord& record);
  // The records the index finds alive: files of open DBs (diagnostics).
  size_t LiveRecords();

 private:
  BlockIndex() = default;
  struct Shards;
  Shards& shards();
};

}  // namespace sstfilter::rocksdb_plugin
