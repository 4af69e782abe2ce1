// Shared by the RocksDB database suites: the keys, the options, building
// leveled databases, finding filter blocks in SST files, lookups, and the
// statistics that say how well the filters filter.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "db_levels.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/slice_transform.h"
#include "rocksdb/statistics.h"
#include "rocksdb/table.h"
#include "rocksdb/table_properties.h"
#include "rocksdb/utilities/options_util.h"
#include "rocksdb/write_batch.h"
#include "rocksdb_test_support.h"
#include "sstfilter/blocked_bloom.h"
#include "sstfilter/cuckoo_filter.h"
#include "sstfilter/filter_view.h"
#include "sstfilter/format.h"
#include "sstfilter/hash.h"
#include "temp_dir.h"

namespace sstfilter::test_support {

namespace fs = std::filesystem;

// Present keys are Key(i) for i < num_keys, absent ones Key(i) above: 16
// hex digits of a bijective mix of i, so both sets spread evenly over the
// key space and every absent key falls inside the files' key ranges.
inline std::string Key(uint64_t i) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016" PRIx64, Remix64(i));
  return buf;
}
inline std::string Value(uint64_t i) { return "value-" + std::to_string(i); }
// Key(i) as db_bench writes and reads it (--key_size=16): i in 8 big-endian
// bytes, then 8 '0's, so that a db_bench without the plugin can read a DB
// written here (readrandom over [0, --num) looks up present keys only).
inline std::string DbBenchKey(uint64_t i) {
  std::string key(16, '0');
  for (int byte = 0; byte < 8; ++byte) {
    key[byte] = static_cast<char>(i >> (8 * (7 - byte)));
  }
  return key;
}
// How a suite names its i-th key: Key or DbBenchKey.
using KeyFn = std::string (*)(uint64_t);

struct DbConfig {
  std::string policy;  // a FilterPolicy::CreateFromString value, "" = none
  bool partitioned = false;
  std::shared_ptr<const rdb::SliceTransform> prefix_extractor;
  bool whole_key_filtering = true;
  rdb::ChecksumType checksum = rdb::kCRC32c;
  // CompressionOptions::parallel_threads: above 1, RocksDB 10.9 and later
  // read EstimateEntriesAdded from its compression threads.
  uint32_t compression_threads = 1;
  // RocksDB's default: 5 on 7.8, 7 on 11.x (which 7.8 cannot read).
  uint32_t format_version = rdb::BlockBasedTableOptions().format_version;
};

inline rdb::Options MakeOptions(const DbConfig& config) {
  rdb::Options options;
  options.create_if_missing = true;
  options.compression = rdb::kSnappyCompression;
  options.compression_opts.parallel_threads = config.compression_threads;
  options.disable_auto_compactions = true;  // levels are built explicitly
  options.write_buffer_size = 256 << 20;    // flushes are explicit too
  options.statistics = rdb::CreateDBStatistics();
  options.prefix_extractor = config.prefix_extractor;
  rdb::BlockBasedTableOptions table;
  if (!config.policy.empty()) {
    const rdb::Status s = MakePolicy(config.policy, &table.filter_policy);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  table.block_cache = rdb::NewLRUCache(64 << 20);
  table.whole_key_filtering = config.whole_key_filtering;
  table.checksum = config.checksum;
  table.format_version = config.format_version;
  table.detect_filter_construct_corruption = true;
  if (config.partitioned) {
    table.partition_filters = true;
    table.index_type = rdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
    table.cache_index_and_filter_blocks = true;
  }
  options.table_factory.reset(rdb::NewBlockBasedTableFactory(table));
  return options;
}

// Options under which RocksDB's own compactions spread a few 10^5 keys over
// several levels: small write buffers, files and level base, compactions
// on.
inline rdb::Options CompactingOptions(const DbConfig& config,
                                      bool dynamic_layout) {
  rdb::Options options = MakeOptions(config);
  options.disable_auto_compactions = false;
  options.write_buffer_size = 64 << 10;
  options.target_file_size_base = 64 << 10;
  options.max_bytes_for_level_base = 256 << 10;
  options.level0_file_num_compaction_trigger = 4;
  options.level_compaction_dynamic_level_bytes = dynamic_layout;
  options.max_background_jobs = 2;
  return options;
}

// CompactingOptions whose memtables never flush by themselves, for
// PutSettled: with flushes made by the test and one compaction at a time
// (max_background_jobs 2 is one flush and one compaction thread unless
// writes stall, and PutSettled never lets them), the tree RocksDB's own
// compactions make depends only on the writes, so a loaded machine builds
// the same tree as an idle one.
inline rdb::Options SettledOptions(const DbConfig& config,
                                   bool dynamic_layout) {
  rdb::Options options = CompactingOptions(config, dynamic_layout);
  options.write_buffer_size = 256 << 20;  // flushes are PutSettled's
  options.max_background_jobs = 2;
  return options;
}

// `options` with sstfilter.LevelAwareListener, turned on by name as an
// options string does.
inline rdb::Options WithLevelAwareListener(const rdb::Options& options) {
  rdb::ConfigOptions config;
  config.ignore_unknown_options = false;
  config.ignore_unsupported_options = false;
  rdb::DBOptions db_options;
  const rdb::Status s = rdb::GetDBOptionsFromString(
      config, options, "listeners={sstfilter.LevelAwareListener}", &db_options);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return rdb::Options(db_options, options);
}

inline std::unique_ptr<rdb::DB> Open(const rdb::Options& options,
                                     const std::string& path) {
  std::unique_ptr<rdb::DB> db;
  const rdb::Status s = rocksdb_compat::OpenDb(options, path, &db);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return db;
}

inline void Put(rdb::DB* db, const std::vector<uint64_t>& ids,
                KeyFn key = Key) {
  rdb::WriteOptions write_options;
  write_options.disableWAL = true;
  rdb::WriteBatch batch;
  for (size_t n = 0; n < ids.size(); ++n) {
    batch.Put(key(ids[n]), Value(ids[n]));
    if (batch.Count() == 1000 || n + 1 == ids.size()) {
      ASSERT_TRUE(db->Write(write_options, &batch).ok());
      batch.Clear();
    }
  }
}

inline void Flush(rdb::DB* db) {
  ASSERT_TRUE(db->Flush(rdb::FlushOptions()).ok());
}

// About the keys of one 64 KiB memtable (CompactingOptions' write buffer)
// of Key/Value pairs.
constexpr size_t kKeysPerFlush = 1000;

// Writes `ids` as a stream of full memtables would reach RocksDB, with no
// race: a flush every `keys_per_flush` keys, each followed by every
// compaction it calls for, waited for (SettledOptions). A test that asserts
// on the tree asserts on one that only its writes decide.
inline void PutSettled(rdb::DB* db, const std::vector<uint64_t>& ids,
                       KeyFn key = Key, size_t keys_per_flush = kKeysPerFlush) {
  for (size_t start = 0; start < ids.size(); start += keys_per_flush) {
    const size_t end = std::min(ids.size(), start + keys_per_flush);
    Put(db, std::vector<uint64_t>(ids.begin() + start, ids.begin() + end), key);
    Flush(db);
    const rdb::Status s = rocksdb_compat::WaitForCompactions(db);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
}

using db_support::FilesAtLevel;

// An LSM with files on L0..L3 whose key ranges all overlap: key i goes to
// run i % 4, run 0 is compacted to L3 (bottommost), run 1 to L2, run 2 to
// L1 and run 3 stays on L0, in files of about `file_bytes`.
inline void BuildLeveledDb(rdb::DB* db, uint64_t num_keys,
                           uint64_t file_bytes = 2 << 20, KeyFn key = Key) {
  const rdb::Status s = db_support::BuildLevels(
      db, num_keys, 4, [](uint64_t i) { return 3 - static_cast<int>(i % 4); },
      [key](uint64_t i, rdb::WriteBatch* batch) {
        batch->Put(key(i), Value(i));
      },
      file_bytes);
  ASSERT_TRUE(s.ok()) << s.ToString();
  for (int level = 0; level < 4; ++level) {
    EXPECT_FALSE(FilesAtLevel(db, level).empty()) << "level " << level;
  }
}

inline size_t NumFiles(rdb::DB* db) {
  rdb::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  return meta.file_count;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// Where a full filter of `filter_size` bytes sits in an SST file: the one
// place that parses as our filter and is followed by the block trailer of
// an uncompressed block. Found by its "SF" tag: the block's last 4 bytes
// (format v2) or its first (v1). npos if none.
inline size_t FindFilterBlock(const std::string& sst, size_t filter_size,
                              FilterKind* kind) {
  size_t found = std::string::npos;
  for (size_t tag = sst.find("SF"); tag != std::string::npos;
       tag = sst.find("SF", tag + 1)) {
    for (size_t at : {tag + 4 - filter_size, tag}) {
      if (at > sst.size() ||
          at + filter_size + kRocksdbBlockTrailerBytes > sst.size() ||
          sst[at + filter_size] != 0 || at == found) {
        continue;
      }
      FilterView view;
      if (FilterView::Parse(std::string_view(sst).substr(at, filter_size),
                            &view)
              .ok()) {
        EXPECT_EQ(found, std::string::npos) << "two filter blocks";
        found = at;
        *kind = view.kind();
      }
    }
  }
  return found;
}

struct SstFile {
  std::string path;
  int level;
  std::shared_ptr<const rdb::TableProperties> properties;
};

inline std::vector<SstFile> SstFiles(rdb::DB* db) {
  rdb::TablePropertiesCollection properties;
  EXPECT_TRUE(db->GetPropertiesOfAllTables(&properties).ok());
  rdb::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  std::vector<SstFile> files;
  for (const auto& level : meta.levels) {
    for (const auto& file : level.files) {
      const std::string path = file.db_path + file.name;
      files.push_back({path, level.level, properties[path]});
    }
  }
  return files;
}

// The filter kinds in the (full-filter) SST files, by level.
inline std::map<int, std::set<FilterKind>> FilterKindsByLevel(rdb::DB* db) {
  std::map<int, std::set<FilterKind>> kinds;
  for (const auto& file : SstFiles(db)) {
    FilterKind kind;
    const size_t at = FindFilterBlock(ReadFile(file.path),
                                      file.properties->filter_size, &kind);
    EXPECT_NE(at, std::string::npos) << file.path;
    if (at != std::string::npos) kinds[file.level].insert(kind);
  }
  return kinds;
}

// The FPR the filters' own models give for what `policy` builds (the
// larger over a flush and a bottommost compaction, for the hybrid).
inline double ModelFpr(const std::string& policy_value) {
  std::shared_ptr<const rdb::FilterPolicy> policy;
  EXPECT_TRUE(MakePolicy(policy_value, &policy).ok());
  rdb::BlockBasedTableOptions table;
  rdb::FilterBuildingContext flush(table);
  flush.reason = rdb::TableFileCreationReason::kFlush;
  flush.level_at_creation = 0;
  rdb::FilterBuildingContext bottom(table);
  bottom.reason = rdb::TableFileCreationReason::kCompaction;
  bottom.level_at_creation = 3;
  bottom.is_bottommost = true;
  double fpr = 0;
  for (const auto* context : {&flush, &bottom}) {
    const BuiltFilter filter =
        BuildFilter(*policy, Keys("k", 100000), *context);
    const std::string_view bytes = filter.bytes.ToStringView();
    BlockedBloomView bloom;
    CuckooView cuckoo;
    if (BlockedBloomView::Parse(bytes, &bloom).ok()) {
      fpr = std::max(fpr, bloom.EstimatedFpr());
    } else if (CuckooView::Parse(bytes, &cuckoo).ok()) {
      fpr = std::max(fpr, cuckoo.EstimatedFpr());
    } else {
      ADD_FAILURE() << "unparsable filter from " << policy_value;
    }
  }
  return fpr;
}

// The filters of a DB's live SSTs: bytes and entries in all, bits/key per
// level; each level's line is printed ("  L3: 9000 keys, 9.62 bits/key").
struct FilterMemory {
  uint64_t bytes = 0;
  uint64_t entries = 0;
  std::map<int, double> level_bits;
};
inline FilterMemory FilterMemoryOf(rdb::DB* db) {
  FilterMemory memory;
  std::map<int, std::pair<uint64_t, uint64_t>> by_level;  // bytes, keys
  for (const auto& file : SstFiles(db)) {
    memory.bytes += file.properties->filter_size;
    memory.entries += file.properties->num_filter_entries;
    by_level[file.level].first += file.properties->filter_size;
    by_level[file.level].second += file.properties->num_filter_entries;
  }
  for (const auto& [level, sizes] : by_level) {
    memory.level_bits[level] = sizes.first * 8.0 / sizes.second;
    std::printf("  L%d: %" PRIu64 " keys, %.2f bits/key\n", level, sizes.second,
                memory.level_bits[level]);
  }
  return memory;
}

// Gets, MultiGets (batches of 32) or prefix-seeks every key of `ids`;
// counts the keys found with the right value and the statuses that are
// neither OK nor NotFound.
struct LookupCounts {
  uint64_t found = 0;
  uint64_t errors = 0;
};

inline LookupCounts GetAll(rdb::DB* db, const std::vector<uint64_t>& ids,
                           KeyFn key = Key) {
  LookupCounts counts;
  std::string value;
  for (uint64_t id : ids) {
    const rdb::Status s = db->Get(rdb::ReadOptions(), key(id), &value);
    if (s.ok() && value == Value(id)) ++counts.found;
    if (!s.ok() && !s.IsNotFound()) ++counts.errors;
  }
  return counts;
}

inline LookupCounts MultiGetAll(rdb::DB* db, const std::vector<uint64_t>& ids,
                                KeyFn key = Key) {
  LookupCounts counts;
  constexpr size_t kBatch = 32;
  std::vector<std::string> keys(kBatch);
  std::vector<rdb::Slice> slices(kBatch);
  std::vector<rdb::PinnableSlice> values(kBatch);
  std::vector<rdb::Status> statuses(kBatch);
  for (size_t start = 0; start < ids.size(); start += kBatch) {
    const size_t n = std::min(kBatch, ids.size() - start);
    for (size_t i = 0; i < n; ++i) {
      keys[i] = key(ids[start + i]);
      slices[i] = keys[i];
      values[i].Reset();
    }
    db->MultiGet(rdb::ReadOptions(), db->DefaultColumnFamily(), n,
                 slices.data(), values.data(), statuses.data());
    for (size_t i = 0; i < n; ++i) {
      if (statuses[i].ok() && values[i].ToString() == Value(ids[start + i])) {
        ++counts.found;
      }
      if (!statuses[i].ok() && !statuses[i].IsNotFound()) ++counts.errors;
    }
  }
  return counts;
}

// Seeks to each key with the DB's prefix extractor in force (no
// total_order_seek), so that every SST's prefix filter may skip the file:
// found when the iterator lands on the key itself.
inline LookupCounts PrefixSeekAll(rdb::DB* db, const std::vector<uint64_t>& ids,
                                  KeyFn key = Key) {
  LookupCounts counts;
  rdb::ReadOptions read_options;
  read_options.prefix_same_as_start = true;
  std::unique_ptr<rdb::Iterator> it(db->NewIterator(read_options));
  for (uint64_t id : ids) {
    const std::string k = key(id);
    it->Seek(k);
    if (it->Valid() && it->key() == k && it->value() == Value(id)) {
      ++counts.found;
    }
    if (!it->status().ok()) ++counts.errors;
  }
  return counts;
}

inline std::vector<uint64_t> Range(uint64_t first, uint64_t count) {
  std::vector<uint64_t> ids(count);
  for (uint64_t i = 0; i < count; ++i) ids[i] = first + i;
  return ids;
}

// What the statistics say about a run of lookups of absent keys.
struct FilterStats {
  // Of whole-key and prefix filters (rocksdb_compat::TakePointFilterCounts).
  uint64_t useful = 0;         // the filter said no
  uint64_t positive = 0;       // it said maybe
  uint64_t true_positive = 0;  // and the key was there
  uint64_t data_blocks = 0;    // data block cache hits + misses
  // SST files whose filter was consulted.
  uint64_t consulted() const { return useful + positive; }
};

inline FilterStats TakeStats(rdb::Statistics& stats) {
  FilterStats s;
  const rocksdb_compat::PointFilterCounts point =
      rocksdb_compat::TakePointFilterCounts(stats);
  s.useful = point.useful;
  s.positive = point.positive;
  s.true_positive = point.true_positive;
  s.data_blocks = stats.getAndResetTickerCount(rdb::BLOCK_CACHE_DATA_HIT) +
                  stats.getAndResetTickerCount(rdb::BLOCK_CACHE_DATA_MISS);
  return s;
}

// What the filters promise a database: for absent keys, data-block reads
// per lookup stay within FPR x SST files consulted. The margin: 1.5x the
// model's FPR plus 0.1% absolute (the models are estimates; with >= 10^5
// lookups x several files the sampling error is far below that).
inline void ExpectFilteredAtModelRate(const FilterStats& s, uint64_t lookups,
                                      double model_fpr, const char* what) {
  const double files_per_lookup =
      static_cast<double>(s.consulted()) / static_cast<double>(lookups);
  const double fpr =
      static_cast<double>(s.positive) / static_cast<double>(s.consulted());
  const double reads_per_lookup =
      static_cast<double>(s.data_blocks) / static_cast<double>(lookups);
  const double bound = 1.5 * model_fpr + 0.001;
  std::printf(
      "[ %s ] %" PRIu64
      " absent lookups: %.2f SST files consulted each, "
      "bloom.filter.useful %" PRIu64 ", full.positive %" PRIu64
      ", measured FPR %.4f%% (model %.4f%%), data blocks read per lookup "
      "%.5f\n",
      what, lookups, files_per_lookup, s.useful, s.positive, fpr * 100,
      model_fpr * 100, reads_per_lookup);
  EXPECT_GE(files_per_lookup, 1.0) << what;
  EXPECT_EQ(s.true_positive, 0u) << what;
  EXPECT_LE(fpr, bound) << what;
  EXPECT_LE(reads_per_lookup, bound * files_per_lookup) << what;
}

// The DB's OPTIONS files, as RocksDB writes them on DB::Open.
inline std::string LatestOptionsFile(const std::string& dir) {
  std::string latest;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    // OPTIONS-<number>: the highest number is the latest.
    if (name.rfind("OPTIONS-", 0) == 0 &&
        (latest.empty() || name.size() > latest.size() ||
         (name.size() == latest.size() && name > latest))) {
      latest = name;
    }
  }
  return dir + "/" + latest;
}

// The "filter_policy=..." line of the DB's latest OPTIONS file.
inline std::string OptionsFileFilterLine(const std::string& dir) {
  std::ifstream in(LatestOptionsFile(dir));
  std::string line;
  while (std::getline(in, line)) {
    const size_t at = line.find("filter_policy=");
    if (at != std::string::npos) return line.substr(at);
  }
  return "";
}

struct DbFromOptionsFile {
  rdb::DBOptions db_options;
  std::vector<rdb::ColumnFamilyDescriptor> families;
  std::vector<rdb::ColumnFamilyHandle*> handles;
  std::unique_ptr<rdb::DB> db;
  ~DbFromOptionsFile() {
    for (auto* handle : handles) db->DestroyColumnFamilyHandle(handle);
  }
  const rdb::BlockBasedTableOptions& table() const {
    return *families[0]
                .options.table_factory
                ->GetOptions<rdb::BlockBasedTableOptions>();
  }
};

// LoadLatestOptions with `config`, then DB::Open with what it loaded.
inline rdb::Status OpenFromOptionsFile(const std::string& dir,
                                       const rdb::ConfigOptions& config,
                                       DbFromOptionsFile* out) {
  rdb::Status s =
      rdb::LoadLatestOptions(config, dir, &out->db_options, &out->families);
  if (!s.ok()) return s;
  out->db_options.statistics = rdb::CreateDBStatistics();
  return rocksdb_compat::OpenDb(out->db_options, dir, out->families,
                                &out->handles, &out->db);
}

// "sstfilter.Cuckoo:12" -> "Cuckoo": a policy's test name.
inline std::string ShortName(const std::string& policy) {
  return policy.substr(10, policy.find(':') - 10);
}
inline std::string PolicyTestName(
    const ::testing::TestParamInfo<const char*>& info) {
  return ShortName(info.param);
}

}  // namespace sstfilter::test_support
