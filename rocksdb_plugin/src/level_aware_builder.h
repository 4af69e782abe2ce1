// The builder of an SST file LevelAware learns from (or, under a memory
// limit, holds to it): it picks the file's
// filter at its first key (its level's, or, once the level is learned, the
// one its key range's absent probes call for), feeds every key straight
// to that filter's builder (no key is kept), and makes the file's record
// (block_index.h): each filter block it finishes is indexed for the
// readers, and the record is left for the listener's OnTableFileCreated
// (job_handoff.h).
//
// Where a memory limit leaves the level no filter it writes a block that
// answers "may match" for every key, so that the file's Gets are still
// sampled and the level gets a filter back when they come: 8 bytes that
// make the block unique, then RocksDB's 5-byte metadata with marker 0,
// "zero probes" (filter_policy.cc, GetBuiltinFilterBitsReader), which
// RocksDB's reader and ours read as "may match".
#pragma once

#include <functional>
#include <memory>

#include "filter_bits.h"
#include "job_handoff.h"
#include "level_aware_tree.h"
#include "memory_ledger.h"
#include "sstfilter/level_allocation.h"

namespace sstfilter::rocksdb_plugin {

// The bytes of the block of a file without a filter.
inline constexpr size_t kNoFilterBlockBytes = 13;

struct TableBuild {
  std::shared_ptr<ColumnFamilyTree> column_family;
  int level = 0;
  // The level's filter (moved by the account), or no filter (IsNoFilter).
  FilterChoice level_choice;
  // About how many of LevelWorkload::kBuckets a file of the level spans.
  int span_buckets = 1;
  // A builder of a filter (`*ours`: one of this library's, not RocksDB's).
  std::function<ROCKSDB_NAMESPACE::FilterBitsBuilder*(const FilterChoice&,
                                                      bool* ours)>
      make;
  // The file's filter for the key buckets it spans; null: the level's.
  std::function<FilterChoice(int first_bucket, int last_bucket)> choose;
  // Whether the file's record is made and its blocks indexed for the
  // readers to sample (learn=true).
  bool learn = true;
  // Under a memory limit: its ledger and the job (memory_ledger.h). Each
  // block is fitted at its Finish to what the limit leaves: whole, a
  // BlockedBloom of the bytes free (this library's kinds), or none.
  std::shared_ptr<MemoryLedger> ledger;
  JobView job;
  // Under a memory limit, the file's choice as what the limit leaves free
  // allows (made at its first key, after `choose`).
  std::function<FilterChoice(const FilterChoice&)> fit;
};

BitsBuilder* NewLearningBuilder(TableBuild build);

}  // namespace sstfilter::rocksdb_plugin
