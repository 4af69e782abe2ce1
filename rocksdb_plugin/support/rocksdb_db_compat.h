// How RocksDB's DB API differs between the releases sstfilter supports, for
// the tools, tests and benchmarks (the plugin's own switches are
// rocksdb_plugin/src/rocksdb_compat.h, which this includes): opening a DB,
// waiting for its compactions, the filter tickers and the compression
// property. Sources: include/rocksdb/*.h and HISTORY.md of each release.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "rocksdb/statistics.h"
#include "rocksdb/table_properties.h"
#include "rocksdb_compat.h"

namespace sstfilter::rocksdb_compat {

// DB::Open into a std::unique_ptr. RocksDB 9 added these overloads and 10
// removed the DB** ones.
inline ROCKSDB_NAMESPACE::Status OpenDb(
    const ROCKSDB_NAMESPACE::Options& options, const std::string& path,
    std::unique_ptr<ROCKSDB_NAMESPACE::DB>* db) {
#if SSTFILTER_ROCKSDB_AT_LEAST(10, 0)
  return ROCKSDB_NAMESPACE::DB::Open(options, path, db);
#else
  ROCKSDB_NAMESPACE::DB* raw = nullptr;
  const ROCKSDB_NAMESPACE::Status s =
      ROCKSDB_NAMESPACE::DB::Open(options, path, &raw);
  db->reset(raw);
  return s;
#endif
}

inline ROCKSDB_NAMESPACE::Status OpenDb(
    const ROCKSDB_NAMESPACE::DBOptions& options, const std::string& path,
    const std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor>& families,
    std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*>* handles,
    std::unique_ptr<ROCKSDB_NAMESPACE::DB>* db) {
#if SSTFILTER_ROCKSDB_AT_LEAST(10, 0)
  return ROCKSDB_NAMESPACE::DB::Open(options, path, families, handles, db);
#else
  ROCKSDB_NAMESPACE::DB* raw = nullptr;
  const ROCKSDB_NAMESPACE::Status s =
      ROCKSDB_NAMESPACE::DB::Open(options, path, families, handles, &raw);
  db->reset(raw);
  return s;
#endif
}

// DB::OpenForReadOnly into a std::unique_ptr: the same change as for Open
// (11.x has no DB** form).
inline ROCKSDB_NAMESPACE::Status OpenDbForReadOnly(
    const ROCKSDB_NAMESPACE::DBOptions& options, const std::string& path,
    const std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor>& families,
    std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*>* handles,
    std::unique_ptr<ROCKSDB_NAMESPACE::DB>* db) {
#if SSTFILTER_ROCKSDB_AT_LEAST(10, 0)
  return ROCKSDB_NAMESPACE::DB::OpenForReadOnly(options, path, families,
                                                handles, db);
#else
  ROCKSDB_NAMESPACE::DB* raw = nullptr;
  const ROCKSDB_NAMESPACE::Status s = ROCKSDB_NAMESPACE::DB::OpenForReadOnly(
      options, path, families, handles, &raw);
  db->reset(raw);
  return s;
#endif
}

// Waits until no flush or compaction is pending or running. RocksDB 8.4
// added DB::WaitForCompact (HISTORY.md); before it, the DB's properties are
// polled every 5 ms until three polls in a row find nothing to do (a
// finished compaction may schedule the next between two reads of them),
// for at most `max_wait`, then TimedOut.
inline ROCKSDB_NAMESPACE::Status WaitForCompactions(
    ROCKSDB_NAMESPACE::DB* db,
    std::chrono::seconds max_wait = std::chrono::seconds(600)) {
#if SSTFILTER_ROCKSDB_AT_LEAST(8, 4)
  (void)max_wait;
  return db->WaitForCompact(ROCKSDB_NAMESPACE::WaitForCompactOptions());
#else
  using Properties = ROCKSDB_NAMESPACE::DB::Properties;
  const std::string* const kBusy[] = {
      &Properties::kMemTableFlushPending, &Properties::kNumRunningFlushes,
      &Properties::kCompactionPending, &Properties::kNumRunningCompactions};
  constexpr std::chrono::milliseconds kPoll(5);
  int idle_polls = 0;
  for (auto waited = std::chrono::milliseconds(0); waited < max_wait;
       waited += kPoll) {
    bool busy = false;
    for (const std::string* property : kBusy) {
      uint64_t value = 0;
      if (!db->GetIntProperty(*property, &value)) {
        return ROCKSDB_NAMESPACE::Status::NotSupported(*property);
      }
      busy = busy || value != 0;
    }
    idle_polls = busy ? 0 : idle_polls + 1;
    if (idle_polls == 3) return ROCKSDB_NAMESPACE::Status::OK();
    std::this_thread::sleep_for(kPoll);
  }
  return ROCKSDB_NAMESPACE::Status::TimedOut("compactions still running");
#endif
}

// What the filters did for point lookups (Get, MultiGet) since `stats` was
// last taken, whole-key and prefix filters together: useful (the filter
// said no), positive and true positive. RocksDB 8.3 counts prefix-filter
// checks of point lookups apart, in BLOOM_FILTER_PREFIX_CHECKED/_USEFUL/
// _TRUE_POSITIVE; before, in the whole-key tickers (HISTORY.md, #11460).
struct PointFilterCounts {
  uint64_t useful = 0;
  uint64_t positive = 0;
  uint64_t true_positive = 0;
};
inline PointFilterCounts TakePointFilterCounts(
    ROCKSDB_NAMESPACE::Statistics& stats) {
  namespace rdb = ROCKSDB_NAMESPACE;
  PointFilterCounts counts;
  counts.useful = stats.getAndResetTickerCount(rdb::BLOOM_FILTER_USEFUL);
  counts.positive =
      stats.getAndResetTickerCount(rdb::BLOOM_FILTER_FULL_POSITIVE);
  counts.true_positive =
      stats.getAndResetTickerCount(rdb::BLOOM_FILTER_FULL_TRUE_POSITIVE);
#if SSTFILTER_ROCKSDB_AT_LEAST(8, 3)
  const uint64_t prefix_checked =
      stats.getAndResetTickerCount(rdb::BLOOM_FILTER_PREFIX_CHECKED);
  const uint64_t prefix_useful =
      stats.getAndResetTickerCount(rdb::BLOOM_FILTER_PREFIX_USEFUL);
  counts.useful += prefix_useful;
  counts.positive += prefix_checked - prefix_useful;
  counts.true_positive +=
      stats.getAndResetTickerCount(rdb::BLOOM_FILTER_PREFIX_TRUE_POSITIVE);
#endif
  return counts;
}

// The prefix filter's work in iterator seeks since `stats` was last taken:
// checked (a filter was queried) and useful (it let the seek skip the
// file). RocksDB 8.3 moved these from BLOOM_FILTER_PREFIX_CHECKED/_USEFUL,
// which point lookups share, to the *_LEVEL_SEEK_FILTERED/_FILTER_MATCH
// tickers (HISTORY.md, #11460).
struct SeekFilterCounts {
  uint64_t checked = 0;
  uint64_t useful = 0;
};
inline SeekFilterCounts TakeSeekFilterCounts(
    ROCKSDB_NAMESPACE::Statistics& stats) {
  namespace rdb = ROCKSDB_NAMESPACE;
#if SSTFILTER_ROCKSDB_AT_LEAST(8, 3)
  const uint64_t filtered =
      stats.getAndResetTickerCount(rdb::LAST_LEVEL_SEEK_FILTERED) +
      stats.getAndResetTickerCount(rdb::NON_LAST_LEVEL_SEEK_FILTERED);
  const uint64_t matched =
      stats.getAndResetTickerCount(rdb::LAST_LEVEL_SEEK_FILTER_MATCH) +
      stats.getAndResetTickerCount(rdb::NON_LAST_LEVEL_SEEK_FILTER_MATCH);
  return {filtered + matched, filtered};
#else
  return {stats.getAndResetTickerCount(rdb::BLOOM_FILTER_PREFIX_CHECKED),
          stats.getAndResetTickerCount(rdb::BLOOM_FILTER_PREFIX_USEFUL)};
#endif
}

// Whether a table's data blocks are Snappy-compressed. format_version 7
// (RocksDB 10.4) writes the compression_name property as
// "BuiltinV2;<compression types in hex>;" instead of a name.
inline bool IsSnappyCompressed(
    const ROCKSDB_NAMESPACE::TableProperties& properties) {
  return properties.compression_name == "Snappy" ||
         properties.compression_name == "BuiltinV2;01;";
}

}  // namespace sstfilter::rocksdb_compat
