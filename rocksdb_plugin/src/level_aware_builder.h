// The builder of a table LevelAware learns from: it picks the table's
// filter at its first key (the level's, or, once the level is learned, the
// one the key range's absent probes call for), feeds every key straight
// to that filter's builder (no key is kept), and makes the table's record
// (level_aware_state.h): each block it finishes is indexed for the
// readers, and the record is left for the listener's OnTableFileCreated.
#pragma once

#include <functional>
#include <memory>

#include "filter_bits.h"
#include "level_aware_state.h"
#include "sstfilter/level_allocation.h"

namespace sstfilter::rocksdb_plugin {

struct TableBuild {
  std::shared_ptr<ColumnFamilyState> column_family;
  int level = 0;
  FilterChoice level_choice;  // the level's filter
  // About how many of LevelWorkload::kBuckets a table of the level spans.
  int span_buckets = 1;
  // A builder of a filter (`*ours`: one of this library's, not RocksDB's).
  std::function<ROCKSDB_NAMESPACE::FilterBitsBuilder*(const FilterChoice&,
                                                      bool* ours)>
      make;
  // The table's filter for the key buckets it spans; null: the level's.
  std::function<FilterChoice(int first_bucket, int last_bucket)> choose;
};

BitsBuilder* NewLearningBuilder(TableBuild build);

}  // namespace sstfilter::rocksdb_plugin
