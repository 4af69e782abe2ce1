// Shared by the range-filter DB suites and the range-scan benchmark:
// integer keys, the collector from an options string, and scans that
// count what RocksDB read.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/statistics.h"
#include "rocksdb_test_support.h"
#include "sstfilter/range_filter_rocksdb.h"

namespace sstfilter::test_support {

// `v` as 8 big-endian bytes: integer keys in bytewise order.
inline std::string IntKey(uint64_t v) {
  std::string key(8, '\0');
  for (int b = 7; b >= 0; --b, v >>= 8) key[b] = static_cast<char>(v & 0xff);
  return key;
}

// `base` with the collector of `spec` (the value of
// table_properties_collectors), through RocksDB's options-string parser.
inline rdb::Status WithRangeFilter(const rdb::Options& base,
                                   const std::string& spec,
                                   rdb::Options* options) {
  RegisterPolicies();
  rdb::ColumnFamilyOptions cf;
  rdb::ConfigOptions config;
  config.ignore_unsupported_options = false;
  const rdb::Status s = rdb::GetColumnFamilyOptionsFromString(
      config, base, "table_properties_collectors=" + spec, &cf);
  if (!s.ok()) return s;
  *options = rdb::Options(rdb::DBOptions(base), cf);
  return s;
}

// The entries of [lower, upper), forward or backward.
using Entries = std::vector<std::pair<std::string, std::string>>;
inline rdb::Status Scan(rdb::DB* db, const rdb::ReadOptions& read_options,
                        bool forward, Entries* out) {
  out->clear();
  std::unique_ptr<rdb::Iterator> it(db->NewIterator(read_options));
  if (forward) {
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      out->emplace_back(it->key().ToString(), it->value().ToString());
    }
  } else {
    for (it->SeekToLast(); it->Valid(); it->Prev()) {
      out->emplace_back(it->key().ToString(), it->value().ToString());
    }
  }
  return it->status();
}

// Data and index blocks read, through the block cache (hits and misses,
// RocksDB's statistics): what a scan cost in block reads, whatever the
// machine's load.
struct BlockReads {
  uint64_t data = 0;
  uint64_t index = 0;
};
inline BlockReads ReadsSoFar(rdb::Statistics& stats) {
  BlockReads reads;
  reads.data = stats.getTickerCount(rdb::BLOCK_CACHE_DATA_HIT) +
               stats.getTickerCount(rdb::BLOCK_CACHE_DATA_MISS);
  reads.index = stats.getTickerCount(rdb::BLOCK_CACHE_INDEX_HIT) +
                stats.getTickerCount(rdb::BLOCK_CACHE_INDEX_MISS);
  return reads;
}

// Seek to the first key of read_options' range, then up to `nexts` Nexts:
// the keys found and the blocks read.
inline BlockReads SeekAndNext(rdb::DB* db, rdb::Statistics& stats,
                              const rdb::ReadOptions& read_options, int nexts,
                              int* found) {
  const BlockReads before = ReadsSoFar(stats);
  {
    std::unique_ptr<rdb::Iterator> it(db->NewIterator(read_options));
    it->SeekToFirst();
    *found = 0;
    for (int i = 0; it->Valid() && i <= nexts; ++i, it->Next()) ++*found;
  }
  const BlockReads after = ReadsSoFar(stats);
  return {after.data - before.data, after.index - before.index};
}

}  // namespace sstfilter::test_support
