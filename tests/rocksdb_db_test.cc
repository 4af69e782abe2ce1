// The policies inside real RocksDB databases (temporary directories,
// removed afterwards): every present key is found, absent keys are
// filtered at the rate the filters' own models predict, and the filter
// survives reopening, policy switches, a reader without the plugin,
// on-disk corruption and concurrent readers.
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
#include "sstfilter/format.h"
#include "sstfilter/hash.h"
#include "support/temp_dir.h"

namespace sstfilter::rocksdb_testing {
namespace {

namespace fs = std::filesystem;

using sstfilter::testing::TempDir;

// Present keys are Key(i) for i < num_keys, absent ones Key(i) above: 16
// hex digits of a bijective mix of i, so both sets spread evenly over the
// key space and every absent key falls inside the files' key ranges.
std::string Key(uint64_t i) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016" PRIx64, Remix64(i));
  return buf;
}
std::string Value(uint64_t i) { return "value-" + std::to_string(i); }

struct DbConfig {
  std::string policy;  // a FilterPolicy::CreateFromString value, "" = none
  bool partitioned = false;
  std::shared_ptr<const rdb::SliceTransform> prefix_extractor;
  bool whole_key_filtering = true;
  rdb::ChecksumType checksum = rdb::kCRC32c;
  // CompressionOptions::parallel_threads: above 1, RocksDB 10.9 and later
  // read EstimateEntriesAdded from its compression threads.
  uint32_t compression_threads = 1;
};

rdb::Options MakeOptions(const DbConfig& config) {
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
  table.detect_filter_construct_corruption = true;
  if (config.partitioned) {
    table.partition_filters = true;
    table.index_type = rdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
    table.cache_index_and_filter_blocks = true;
  }
  options.table_factory.reset(rdb::NewBlockBasedTableFactory(table));
  return options;
}

std::unique_ptr<rdb::DB> Open(const rdb::Options& options,
                              const std::string& path) {
  std::unique_ptr<rdb::DB> db;
  const rdb::Status s = rocksdb_compat::OpenDb(options, path, &db);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return db;
}

void Put(rdb::DB* db, const std::vector<uint64_t>& ids) {
  rdb::WriteOptions write_options;
  write_options.disableWAL = true;
  rdb::WriteBatch batch;
  for (size_t n = 0; n < ids.size(); ++n) {
    batch.Put(Key(ids[n]), Value(ids[n]));
    if (batch.Count() == 1000 || n + 1 == ids.size()) {
      ASSERT_TRUE(db->Write(write_options, &batch).ok());
      batch.Clear();
    }
  }
}

void Flush(rdb::DB* db) { ASSERT_TRUE(db->Flush(rdb::FlushOptions()).ok()); }

std::vector<std::string> FilesAtLevel(rdb::DB* db, int level) {
  rdb::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  std::vector<std::string> names;
  for (const auto& file : meta.levels[level].files) {
    names.push_back(file.db_path + file.name);
  }
  return names;
}

// An LSM with files on L0..L3 whose key ranges all overlap: key i goes to
// run i % 4, run 0 is compacted to L3 (bottommost), run 1 to L2, run 2 to
// L1 and run 3 stays on L0, in files of about 2 MiB.
void BuildLeveledDb(rdb::DB* db, uint64_t num_keys) {
  for (int run = 0; run < 4; ++run) {
    std::vector<uint64_t> ids;
    for (uint64_t i = run; i < num_keys; i += 4) ids.push_back(i);
    Put(db, ids);
    Flush(db);
    const int level = 3 - run;
    if (level == 0) break;
    rdb::CompactionOptions compaction;
    compaction.compression = rdb::kSnappyCompression;
    compaction.output_file_size_limit = 2 << 20;
    ASSERT_TRUE(db->CompactFiles(compaction, FilesAtLevel(db, 0), level).ok());
  }
  for (int level = 0; level < 4; ++level) {
    EXPECT_FALSE(FilesAtLevel(db, level).empty()) << "level " << level;
  }
}

size_t NumFiles(rdb::DB* db) {
  rdb::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  return meta.file_count;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// Where a full filter of `filter_size` bytes sits in an SST file: the one
// place that parses as our filter and is followed by the block trailer of
// an uncompressed block. npos if none.
size_t FindFilterBlock(const std::string& sst, size_t filter_size,
                       FilterKind* kind) {
  size_t found = std::string::npos;
  for (size_t at = sst.find("SF"); at != std::string::npos;
       at = sst.find("SF", at + 1)) {
    if (at + filter_size + 5 > sst.size() || sst[at + filter_size] != 0) {
      continue;
    }
    const std::string_view bytes(sst.data() + at, filter_size);
    FilterKind here;
    uint8_t version;
    if (!PeekFormat(bytes, &here, &version).ok()) continue;
    BlockedBloomView bloom;
    CuckooView cuckoo;
    if ((here == FilterKind::kBlockedBloom &&
         BlockedBloomView::Parse(bytes, &bloom).ok()) ||
        (here == FilterKind::kCuckoo &&
         CuckooView::Parse(bytes, &cuckoo).ok())) {
      EXPECT_EQ(found, std::string::npos) << "two filter blocks";
      found = at;
      *kind = here;
    }
  }
  return found;
}

struct SstFile {
  std::string path;
  int level;
  std::shared_ptr<const rdb::TableProperties> properties;
};

std::vector<SstFile> SstFiles(rdb::DB* db) {
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
std::map<int, std::set<FilterKind>> FilterKindsByLevel(rdb::DB* db) {
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
double ModelFpr(const std::string& policy_value) {
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
      fpr = std::max(fpr, bloom.estimated_fpr());
    } else if (CuckooView::Parse(bytes, &cuckoo).ok()) {
      fpr = std::max(fpr, cuckoo.estimated_fpr());
    } else {
      ADD_FAILURE() << "unparsable filter from " << policy_value;
    }
  }
  return fpr;
}

// Gets and MultiGets (batches of 32) every key of `ids`; counts the keys
// found with the right value and the statuses that are neither OK nor
// NotFound.
struct LookupCounts {
  uint64_t found = 0;
  uint64_t errors = 0;
};

LookupCounts GetAll(rdb::DB* db, const std::vector<uint64_t>& ids) {
  LookupCounts counts;
  std::string value;
  for (uint64_t id : ids) {
    const rdb::Status s = db->Get(rdb::ReadOptions(), Key(id), &value);
    if (s.ok() && value == Value(id)) ++counts.found;
    if (!s.ok() && !s.IsNotFound()) ++counts.errors;
  }
  return counts;
}

LookupCounts MultiGetAll(rdb::DB* db, const std::vector<uint64_t>& ids) {
  LookupCounts counts;
  constexpr size_t kBatch = 32;
  std::vector<std::string> keys(kBatch);
  std::vector<rdb::Slice> slices(kBatch);
  std::vector<rdb::PinnableSlice> values(kBatch);
  std::vector<rdb::Status> statuses(kBatch);
  for (size_t start = 0; start < ids.size(); start += kBatch) {
    const size_t n = std::min(kBatch, ids.size() - start);
    for (size_t i = 0; i < n; ++i) {
      keys[i] = Key(ids[start + i]);
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

std::vector<uint64_t> Range(uint64_t first, uint64_t count) {
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

FilterStats TakeStats(rdb::Statistics& stats) {
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

// The claim of issue 3: for absent keys, data-block reads per lookup stay
// within FPR x SST files consulted. The margin: 1.5x the model's FPR plus
// 0.1% absolute (the models are estimates; with >= 10^5 lookups x several
// files the sampling error is far below that).
void ExpectFilteredAtModelRate(const FilterStats& s, uint64_t lookups,
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

// "sstfilter.Cuckoo:12" -> "Cuckoo": a policy's test name.
std::string ShortName(const std::string& policy) {
  return policy.substr(10, policy.find(':') - 10);
}
std::string PolicyTestName(const ::testing::TestParamInfo<const char*>& info) {
  return ShortName(info.param);
}

struct LeveledCase {
  const char* policy;
  uint64_t keys;
  uint32_t compression_threads = 1;
};

class LeveledDbTest : public ::testing::TestWithParam<LeveledCase> {};

// Snappy, L0..L3, 1M keys for each filter kind: the acceptance test of
// issue 3. (The hybrid, which only mixes the two, gets fewer keys.)
TEST_P(LeveledDbTest, EveryKeyFoundAndAbsentKeysFilteredAtModelRate) {
  const uint64_t kKeys = GetParam().keys;
  constexpr uint64_t kAbsent = 100000;
  TempDir dir;
  DbConfig config;
  config.policy = GetParam().policy;
  config.compression_threads = GetParam().compression_threads;
  const rdb::Options options = MakeOptions(config);
  auto db = Open(options, dir.path());
  ASSERT_NE(db, nullptr);
  BuildLeveledDb(db.get(), kKeys);
  for (const auto& file : SstFiles(db.get())) {
    EXPECT_TRUE(rocksdb_compat::IsSnappyCompressed(*file.properties))
        << file.properties->compression_name;
    EXPECT_EQ(file.properties->filter_policy_name,
              std::string(config.policy).substr(0, config.policy.find(':')));
  }
  // The hybrid's files: Bloom on L0 (flush) and L1, Cuckoo on L2 and the
  // bottommost L3.
  if (config.policy == "sstfilter.Hybrid:10:2") {
    const auto kinds = FilterKindsByLevel(db.get());
    using K = std::set<FilterKind>;
    EXPECT_EQ(kinds.at(0), K{FilterKind::kBlockedBloom});
    EXPECT_EQ(kinds.at(1), K{FilterKind::kBlockedBloom});
    EXPECT_EQ(kinds.at(2), K{FilterKind::kCuckoo});
    EXPECT_EQ(kinds.at(3), K{FilterKind::kCuckoo});
  }

  const auto present = Range(0, kKeys);
  LookupCounts got = GetAll(db.get(), present);
  EXPECT_EQ(got.found, kKeys);
  EXPECT_EQ(got.errors, 0u);
  got = MultiGetAll(db.get(), present);
  EXPECT_EQ(got.found, kKeys);
  EXPECT_EQ(got.errors, 0u);

  const double model = ModelFpr(config.policy);
  const auto absent = Range(kKeys, kAbsent);
  TakeStats(*options.statistics);
  got = GetAll(db.get(), absent);
  EXPECT_EQ(got.found + got.errors, 0u);
  ExpectFilteredAtModelRate(TakeStats(*options.statistics), kAbsent, model,
                            "Get");
  got = MultiGetAll(db.get(), absent);
  EXPECT_EQ(got.found + got.errors, 0u);
  ExpectFilteredAtModelRate(TakeStats(*options.statistics), kAbsent, model,
                            "MultiGet");
}

INSTANTIATE_TEST_SUITE_P(
    Policies, LeveledDbTest,
    ::testing::Values(LeveledCase{"sstfilter.BlockedBloom:10", 1000000},
                      LeveledCase{"sstfilter.Cuckoo:12", 1000000},
                      LeveledCase{"sstfilter.Hybrid:10:2", 300000},
                      LeveledCase{"sstfilter.BlockedBloom:10", 300000, 4},
                      LeveledCase{"sstfilter.Cuckoo:12", 300000, 4}),
    [](const ::testing::TestParamInfo<LeveledCase>& info) {
      return ShortName(info.param.policy) +
             (info.param.compression_threads > 1 ? "ParallelCompression" : "");
    });

// Partitioned filters size their partitions with ApproximateNumEntries:
// the average partition must come out near metadata_block_size.
class PartitionedDbTest : public ::testing::TestWithParam<const char*> {};

TEST_P(PartitionedDbTest, EveryKeyFoundAndPartitionsSizedToMetadataBlock) {
  constexpr uint64_t kKeys = 200000;
  constexpr uint64_t kAbsent = 50000;
  TempDir dir;
  DbConfig config;
  config.policy = GetParam();
  config.partitioned = true;
  const rdb::Options options = MakeOptions(config);
  {
    auto db = Open(options, dir.path());
    ASSERT_NE(db, nullptr);
    BuildLeveledDb(db.get(), kKeys);
  }
  // Reopen with a cold block cache, so every filter partition a lookup
  // needs is read once.
  rdb::Options reopened = MakeOptions(config);
  auto db = Open(reopened, dir.path());
  ASSERT_NE(db, nullptr);
  uint64_t filter_bytes = 0;
  for (const auto& file : SstFiles(db.get())) {
    filter_bytes += file.properties->filter_size;
  }
  TakeStats(*reopened.statistics);
  const auto absent = Range(kKeys, kAbsent);
  LookupCounts got = GetAll(db.get(), absent);
  EXPECT_EQ(got.found + got.errors, 0u);
  ExpectFilteredAtModelRate(TakeStats(*reopened.statistics), kAbsent,
                            ModelFpr(config.policy), "partitioned Get");
  // The partitions now in the block cache: all of them (the lookups touch
  // every one, if table open did not already load them).
  std::map<std::string, std::string> cache_stats;
  ASSERT_TRUE(db->GetMapProperty(rdb::DB::Properties::kBlockCacheEntryStats,
                                 &cache_stats));
  const uint64_t partitions =
      std::stoull(cache_stats.at(rdb::BlockCacheEntryStatsMapKeys::EntryCount(
          rdb::CacheEntryRole::kFilterBlock)));
  const double average = static_cast<double>(filter_bytes) / partitions;
  std::printf("[ partitions ] %" PRIu64
              " filter partitions, %.0f bytes each "
              "on average (metadata_block_size 4096)\n",
              partitions, average);
  EXPECT_GT(partitions, 4 * NumFiles(db.get()));
  EXPECT_GT(average, 0.75 * 4096);
  EXPECT_LT(average, 1.25 * 4096);

  got = MultiGetAll(db.get(), absent);
  EXPECT_EQ(got.found + got.errors, 0u);
  const auto present = Range(0, kKeys);
  EXPECT_EQ(GetAll(db.get(), present).found, kKeys);
  EXPECT_EQ(MultiGetAll(db.get(), present).found, kKeys);
}

INSTANTIATE_TEST_SUITE_P(Policies, PartitionedDbTest,
                         ::testing::Values("sstfilter.BlockedBloom:10",
                                           "sstfilter.Cuckoo:12"),
                         PolicyTestName);

// Prefix filtering: keys "<8-byte prefix>:<item>", a fixed 8-byte prefix
// extractor, prefix seeks, and whole-key filtering on or off.
std::string Prefix(uint64_t group) {
  char buf[9];
  // An odd multiplier permutes 32-bit values: distinct prefixes.
  std::snprintf(buf, sizeof(buf), "%08x",
                static_cast<uint32_t>(group * 2654435761u));
  return buf;
}
std::string PrefixedKey(uint64_t group, int item) {
  return Prefix(group) + ":" + std::to_string(item);
}

class PrefixDbTest
    : public ::testing::TestWithParam<std::tuple<const char*, bool>> {};

TEST_P(PrefixDbTest, PrefixSeeksAndGetsAreFilteredAndComplete) {
  constexpr uint64_t kGroups = 10000;  // present; kGroups.. are absent
  constexpr int kItems = 20;           // present items 0, 2, .., 38
  constexpr uint64_t kProbes = 5000;
  TempDir dir;
  DbConfig config;
  config.policy = std::get<0>(GetParam());
  config.whole_key_filtering = std::get<1>(GetParam());
  config.prefix_extractor.reset(rdb::NewFixedPrefixTransform(8));
  const rdb::Options options = MakeOptions(config);
  auto db = Open(options, dir.path());
  ASSERT_NE(db, nullptr);
  // Two overlapping files: even groups, then odd groups.
  rdb::WriteOptions write_options;
  for (uint64_t parity = 0; parity < 2; ++parity) {
    rdb::WriteBatch batch;
    for (uint64_t group = parity; group < kGroups; group += 2) {
      for (int item = 0; item < kItems; ++item) {
        batch.Put(PrefixedKey(group, 2 * item), Prefix(group));
      }
    }
    ASSERT_TRUE(db->Write(write_options, &batch).ok());
    Flush(db.get());
  }
  ASSERT_EQ(NumFiles(db.get()), 2u);
  const double model = ModelFpr(config.policy);
  auto& stats = *options.statistics;

  // A prefix seek of a present prefix sees exactly its keys.
  rdb::ReadOptions prefix_read;
  prefix_read.prefix_same_as_start = true;
  std::unique_ptr<rdb::Iterator> it(db->NewIterator(prefix_read));
  for (uint64_t group = 0; group < kGroups; group += kGroups / 500) {
    int count = 0;
    for (it->Seek(Prefix(group)); it->Valid(); it->Next()) {
      EXPECT_EQ(it->value().ToString(), Prefix(group));
      ++count;
    }
    ASSERT_TRUE(it->status().ok());
    EXPECT_EQ(count, kItems) << "group " << group;
  }
  // A seek of an absent prefix finds nothing, and the prefix filters skip
  // (nearly) every file.
  TakeStats(stats);
  rocksdb_compat::TakeSeekFilterCounts(stats);
  for (uint64_t group = kGroups; group < kGroups + kProbes; ++group) {
    it->Seek(Prefix(group));
    EXPECT_FALSE(it->Valid());
  }
  const rocksdb_compat::SeekFilterCounts seeks =
      rocksdb_compat::TakeSeekFilterCounts(stats);
  TakeStats(stats);
  std::printf("[ prefix seek ] %" PRIu64
              " absent prefixes: filters checked %" PRIu64 ", useful %" PRIu64
              "\n",
              kProbes, seeks.checked, seeks.useful);
  EXPECT_EQ(seeks.checked, 2 * kProbes);
  EXPECT_GE(static_cast<double>(seeks.useful),
            (1 - 1.5 * model - 0.001) * seeks.checked);

  // Every present key by Get and MultiGet.
  std::vector<std::string> present;
  for (uint64_t group = 0; group < kGroups; group += 7) {
    for (int item = 0; item < kItems; ++item) {
      present.push_back(PrefixedKey(group, 2 * item));
    }
  }
  std::string value;
  size_t found = 0;
  for (const auto& key : present) {
    found += db->Get(rdb::ReadOptions(), key, &value).ok() &&
             value == key.substr(0, 8);
  }
  EXPECT_EQ(found, present.size());
  std::vector<rdb::Slice> slices(present.begin(), present.end());
  std::vector<std::string> values;
  const auto statuses =
      db->MultiGet(rdb::ReadOptions(),
                   std::vector<rdb::ColumnFamilyHandle*>(
                       slices.size(), db->DefaultColumnFamily()),
                   slices, &values);
  EXPECT_EQ(std::count_if(statuses.begin(), statuses.end(),
                          [](const rdb::Status& s) { return s.ok(); }),
            static_cast<long>(present.size()));

  // Absent keys under absent prefixes are filtered by Get, by the whole
  // key or (whole_key_filtering off) by the prefix.
  TakeStats(stats);
  for (uint64_t group = kGroups; group < kGroups + kProbes; ++group) {
    EXPECT_TRUE(db->Get(rdb::ReadOptions(), PrefixedKey(group, 0), &value)
                    .IsNotFound());
  }
  ExpectFilteredAtModelRate(TakeStats(stats), kProbes, model,
                            "Get, absent prefix");
  // Absent keys under present prefixes: NotFound, whatever the filter says.
  for (uint64_t group = 0; group < kProbes; ++group) {
    EXPECT_TRUE(db->Get(rdb::ReadOptions(), PrefixedKey(group, 1), &value)
                    .IsNotFound());
  }
}

INSTANTIATE_TEST_SUITE_P(
    Policies, PrefixDbTest,
    ::testing::Combine(::testing::Values("sstfilter.BlockedBloom:10",
                                         "sstfilter.Cuckoo:12"),
                       ::testing::Bool()),
    [](const ::testing::TestParamInfo<std::tuple<const char*, bool>>& info) {
      return ShortName(std::get<0>(info.param)) +
             (std::get<1>(info.param) ? "_WholeKey" : "_PrefixOnly");
    });

std::string LatestOptionsFile(const std::string& dir) {
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
std::string OptionsFileFilterLine(const std::string& dir) {
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
rdb::Status OpenFromOptionsFile(const std::string& dir,
                                const rdb::ConfigOptions& config,
                                DbFromOptionsFile* out) {
  rdb::Status s =
      rdb::LoadLatestOptions(config, dir, &out->db_options, &out->families);
  if (!s.ok()) return s;
  out->db_options.statistics = rdb::CreateDBStatistics();
  return rocksdb_compat::OpenDb(out->db_options, dir, out->families,
                                &out->handles, &out->db);
}

// RocksDB writes the policy into the OPTIONS file; LoadLatestOptions
// brings back the same policy, which keeps building the same filters.
TEST(RocksdbDb, ReopenFromOptionsFileKeepsPolicy) {
  const struct {
    const char* value;
    const char* options_line;
    uint32_t new_fingerprint_bits;  // of new cuckoo filters; 0: Bloom
  } cases[] = {
      {"sstfilter.BlockedBloom:9.9", "filter_policy=sstfilter.BlockedBloom:9.9",
       0},
      {"sstfilter.Cuckoo:12",
       "filter_policy={id=sstfilter.Cuckoo:12;fingerprint_bits=0;}", 11},
      {"id=sstfilter.Cuckoo:12;fingerprint_bits=16",
       "filter_policy={id=sstfilter.Cuckoo:12;fingerprint_bits=16;}", 16},
      {"sstfilter.Hybrid:10:-1",
       "filter_policy={id=sstfilter.Hybrid:10:-1;fingerprint_bits=0;}", 9},
  };
  constexpr uint64_t kKeys = 20000;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.value);
    TempDir dir;
    DbConfig config;
    config.policy = c.value;
    std::string original_id;
    {
      const rdb::Options options = MakeOptions(config);
      original_id =
          options.table_factory->GetOptions<rdb::BlockBasedTableOptions>()
              ->filter_policy->GetId();
      auto db = Open(options, dir.path());
      ASSERT_NE(db, nullptr);
      Put(db.get(), Range(0, kKeys));
      Flush(db.get());
    }
    EXPECT_EQ(OptionsFileFilterLine(dir.path()), c.options_line);

    DbFromOptionsFile reopened;
    const rdb::Status s =
        OpenFromOptionsFile(dir.path(), rdb::ConfigOptions(), &reopened);
    ASSERT_TRUE(s.ok()) << s.ToString();
    const auto& policy = reopened.table().filter_policy;
    ASSERT_NE(policy, nullptr);
    EXPECT_EQ(policy->GetId(), original_id);
    std::shared_ptr<const rdb::FilterPolicy> expected;
    ASSERT_TRUE(MakePolicy(c.value, &expected).ok());
    std::string mismatch;
    rdb::ConfigOptions exact;
    exact.sanity_level = rdb::ConfigOptions::kSanityLevelExactMatch;
    EXPECT_TRUE(expected->AreEquivalent(exact, policy.get(), &mismatch))
        << mismatch;

    rdb::DB* db = reopened.db.get();
    Put(db, Range(kKeys, kKeys));
    Flush(db);
    const auto kinds = FilterKindsByLevel(db)[0];
    EXPECT_EQ(kinds.size(), 1u);  // both files, old and new, alike
    for (const auto& file : SstFiles(db)) {
      if (c.new_fingerprint_bits == 0) continue;
      FilterKind kind;
      const std::string sst = ReadFile(file.path);
      const size_t at =
          FindFilterBlock(sst, file.properties->filter_size, &kind);
      ASSERT_NE(at, std::string::npos);
      CuckooView view;
      ASSERT_TRUE(CuckooView::Parse(std::string_view(sst).substr(
                                        at, file.properties->filter_size),
                                    &view)
                      .ok());
      EXPECT_EQ(view.fingerprint_bits(), c.new_fingerprint_bits);
    }
    EXPECT_EQ(GetAll(db, Range(0, 2 * kKeys)).found, 2 * kKeys);
    TakeStats(*reopened.db_options.statistics);
    GetAll(db, Range(2 * kKeys, kKeys));
    const FilterStats stats = TakeStats(*reopened.db_options.statistics);
    EXPECT_EQ(stats.consulted(), 2 * kKeys);
    EXPECT_GT(stats.useful, 2 * kKeys * 9 / 10);
  }
}

// Each policy reads the other's filters: a DB that switches keeps using
// the filters of its older files.
TEST(RocksdbDb, SwitchingPoliciesKeepsUsingOldFilters) {
  constexpr uint64_t kKeysPerFile = 30000;
  constexpr uint64_t kAbsent = 20000;
  const char* const policies[] = {"sstfilter.BlockedBloom:10",
                                  "sstfilter.Cuckoo:12",
                                  "sstfilter.Hybrid:10:-1"};
  TempDir dir;
  // One file per policy; the key ranges overlap.
  uint64_t next = 0;
  for (const char* policy : policies) {
    DbConfig config;
    config.policy = policy;
    auto db = Open(MakeOptions(config), dir.path());
    ASSERT_NE(db, nullptr);
    std::vector<uint64_t> ids;
    for (uint64_t i = 0; i < kKeysPerFile; ++i) ids.push_back(next++);
    Put(db.get(), ids);
    Flush(db.get());
  }
  for (const char* policy : policies) {
    SCOPED_TRACE(policy);
    DbConfig config;
    config.policy = policy;
    const rdb::Options options = MakeOptions(config);
    auto db = Open(options, dir.path());
    ASSERT_NE(db, nullptr);
    ASSERT_EQ(NumFiles(db.get()), 3u);
    EXPECT_EQ(
        FilterKindsByLevel(db.get())[0],
        (std::set<FilterKind>{FilterKind::kBlockedBloom, FilterKind::kCuckoo}));
    EXPECT_EQ(GetAll(db.get(), Range(0, next)).found, next);
    EXPECT_EQ(MultiGetAll(db.get(), Range(0, next)).found, next);
    TakeStats(*options.statistics);
    GetAll(db.get(), Range(next, kAbsent));
    const FilterStats stats = TakeStats(*options.statistics);
    // Every file's filter was consulted, none ignored as foreign.
    EXPECT_EQ(stats.consulted(), 3 * kAbsent);
    EXPECT_GT(stats.useful, 3 * kAbsent * 97 / 100);
  }
}

// A RocksDB without the plugin reads everything; the filters go unused.
TEST(RocksdbDb, StockRocksDbWithoutPluginReadsEveryKey) {
  constexpr uint64_t kKeys = 50000;
  TempDir dir;
  {
    DbConfig config;
    config.policy = "sstfilter.Cuckoo:12";
    auto db = Open(MakeOptions(config), dir.path());
    ASSERT_NE(db, nullptr);
    Put(db.get(), Range(0, kKeys));
    Flush(db.get());
  }
  const auto present = Range(0, kKeys);
  const auto absent = Range(kKeys, 10000);
  // The OPTIONS file names sstfilter.Cuckoo:12, which a registry without
  // our library does not know. RocksDB (ignore_unsupported_options, the
  // default) then opens the DB with no filter policy. The registry holds
  // RocksDB's own factories only: ObjectLibrary::Default() without the
  // plugins (which every registry made from a library gets, and which on a
  // RocksDB built with the plugin folder include ours).
  {
    DbFromOptionsFile reopened;
    ASSERT_TRUE(
        OpenFromOptionsFile(dir.path(), rdb::ConfigOptions(), &reopened).ok());
    ASSERT_NE(reopened.table().filter_policy, nullptr);
    EXPECT_STREQ(reopened.table().filter_policy->Name(), "sstfilter.Cuckoo");
  }
  rdb::ConfigOptions stock;
  stock.registry = std::make_shared<rdb::ObjectRegistry>(
      std::shared_ptr<rdb::ObjectRegistry>());
  stock.registry->AddLibrary(rdb::ObjectLibrary::Default());
  {
    DbFromOptionsFile reopened;
    const rdb::Status s = OpenFromOptionsFile(dir.path(), stock, &reopened);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(reopened.table().filter_policy, nullptr)
        << reopened.table().filter_policy->Name();
    EXPECT_EQ(GetAll(reopened.db.get(), present).found, kKeys);
    EXPECT_EQ(MultiGetAll(reopened.db.get(), present).found, kKeys);
    EXPECT_EQ(GetAll(reopened.db.get(), absent).found, 0u);
  }
  // No filter policy at all, and RocksDB's own Bloom filter (another
  // compatibility family): our filter blocks are not even read.
  for (const char* policy : {"", "bloomfilter:10:false"}) {
    SCOPED_TRACE(policy);
    DbConfig config;
    config.policy = policy;
    const rdb::Options options = MakeOptions(config);
    auto db = Open(options, dir.path());
    ASSERT_NE(db, nullptr);
    EXPECT_EQ(GetAll(db.get(), present).found, kKeys);
    EXPECT_EQ(MultiGetAll(db.get(), present).found, kKeys);
    TakeStats(*options.statistics);
    EXPECT_EQ(GetAll(db.get(), absent).found, 0u);
    EXPECT_EQ(TakeStats(*options.statistics).consulted(), 0u);
  }
}

// Builds two overlapping L0 files and corrupts the filter block of one of
// them with `corrupt(block)`. Returns the path of the corrupted file.
std::string BuildAndCorrupt(const std::string& dir, const DbConfig& config,
                            uint64_t keys_per_file,
                            void (*corrupt)(char* block, size_t size)) {
  {
    auto db = Open(MakeOptions(config), dir);
    EXPECT_NE(db, nullptr);
    for (uint64_t file = 0; file < 2; ++file) {
      Put(db.get(), Range(file * keys_per_file, keys_per_file));
      Flush(db.get());
    }
  }
  auto db = Open(MakeOptions(config), dir);
  const SstFile victim = SstFiles(db.get())[0];
  db.reset();
  std::string sst = ReadFile(victim.path);
  FilterKind kind;
  const size_t at = FindFilterBlock(sst, victim.properties->filter_size, &kind);
  EXPECT_NE(at, std::string::npos);
  if (at == std::string::npos) return "";
  corrupt(sst.data() + at, victim.properties->filter_size);
  std::ofstream(victim.path, std::ios::binary | std::ios::trunc) << sst;
  return victim.path;
}

class CorruptFilterTest : public ::testing::TestWithParam<const char*> {};

// With block checksums (the default) the corruption is caught when the
// filter block is read. Whatever RocksDB then does, no present key may be
// reported missing.
TEST_P(CorruptFilterTest, ChecksummedCorruptionNeverHidesAKey) {
  constexpr uint64_t kKeysPerFile = 20000;
  constexpr uint64_t kAbsent = 10000;
  TempDir dir;
  DbConfig config;
  config.policy = GetParam();
  BuildAndCorrupt(dir.path(), config, kKeysPerFile,
                  [](char* block, size_t size) { block[size / 2] ^= 0x5a; });
  const rdb::Options options = MakeOptions(config);
  std::unique_ptr<rdb::DB> db;
  const rdb::Status open = rocksdb_compat::OpenDb(options, dir.path(), &db);
  std::printf("[ corrupt, checksummed ] DB::Open: %s\n",
              open.ToString().c_str());
  if (!open.ok()) {
    EXPECT_TRUE(open.IsCorruption()) << open.ToString();
    return;
  }
  const auto present = Range(0, 2 * kKeysPerFile);
  LookupCounts got = GetAll(db.get(), present);
  std::printf("[ corrupt, checksummed ] Get: %" PRIu64 " found, %" PRIu64
              " errors of %zu\n",
              got.found, got.errors, present.size());
  EXPECT_EQ(got.found + got.errors, present.size());
  got = MultiGetAll(db.get(), present);
  EXPECT_EQ(got.found + got.errors, present.size());
  if (got.errors == 0) {
    // The corrupted filter was dropped, not misread: only the intact
    // file's filter is consulted.
    TakeStats(*options.statistics);
    GetAll(db.get(), Range(2 * kKeysPerFile, kAbsent));
    const FilterStats stats = TakeStats(*options.statistics);
    std::printf("[ corrupt, checksummed ] %" PRIu64
                " absent Gets consulted "
                "%" PRIu64 " filters\n",
                kAbsent, stats.consulted());
    EXPECT_EQ(stats.consulted(), kAbsent);
  }
}

// Without checksums the corrupted bytes reach the reader: a filter block
// that does not parse degrades to "may match", so every key is found and
// only the intact file still filters.
TEST_P(CorruptFilterTest, UnparsableFilterBlockDegradesToMayMatch) {
  constexpr uint64_t kKeysPerFile = 20000;
  constexpr uint64_t kAbsent = 10000;
  void (*corruptions[])(char*, size_t) = {
      [](char* block, size_t) { block[3] = 99; },     // unknown version
      [](char* block, size_t) { block[2] = 42; },     // unknown kind
      [](char* block, size_t) { block[0] = 'X'; },    // bad magic
      [](char* block, size_t) { block[8] ^= 0x40; },  // size disagrees
  };
  for (auto corrupt : corruptions) {
    TempDir dir;
    DbConfig config;
    config.policy = GetParam();
    config.checksum = rdb::kNoChecksum;
    BuildAndCorrupt(dir.path(), config, kKeysPerFile, corrupt);
    const rdb::Options options = MakeOptions(config);
    auto db = Open(options, dir.path());
    ASSERT_NE(db, nullptr);
    const auto present = Range(0, 2 * kKeysPerFile);
    EXPECT_EQ(GetAll(db.get(), present).found, present.size());
    EXPECT_EQ(MultiGetAll(db.get(), present).found, present.size());
    TakeStats(*options.statistics);
    EXPECT_EQ(GetAll(db.get(), Range(2 * kKeysPerFile, kAbsent)).found, 0u);
    const FilterStats stats = TakeStats(*options.statistics);
    // Both filters are consulted; the corrupted one says "may match" to
    // every key, the intact one rejects nearly all.
    EXPECT_EQ(stats.consulted(), 2 * kAbsent);
    EXPECT_GE(stats.positive, kAbsent);
    EXPECT_GT(stats.useful, kAbsent * 95 / 100);
  }
}

INSTANTIATE_TEST_SUITE_P(Policies, CorruptFilterTest,
                         ::testing::Values("sstfilter.BlockedBloom:10",
                                           "sstfilter.Cuckoo:12"),
                         PolicyTestName);

// Readers are shared by all threads of a DB: many Gets and MultiGets at
// once, over both filter kinds.
TEST(RocksdbDb, ConcurrentGetAndMultiGetAreCorrect) {
  constexpr uint64_t kKeys = 200000;
  constexpr int kThreads = 4;
  TempDir dir;
  DbConfig config;
  config.policy = "sstfilter.Hybrid:10:2";
  auto db = Open(MakeOptions(config), dir.path());
  ASSERT_NE(db, nullptr);
  BuildLeveledDb(db.get(), kKeys);
  std::atomic<uint64_t> found{0};
  std::atomic<uint64_t> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      // Each thread looks up every 4th key from its own offset, present
      // and absent, one by one and in batches.
      std::vector<uint64_t> present;
      std::vector<uint64_t> absent;
      for (uint64_t i = t; i < kKeys; i += kThreads) {
        present.push_back(i);
        absent.push_back(kKeys + i);
      }
      const LookupCounts a = GetAll(db.get(), present);
      const LookupCounts b = MultiGetAll(db.get(), present);
      const LookupCounts c = GetAll(db.get(), absent);
      const LookupCounts d = MultiGetAll(db.get(), absent);
      found += a.found + b.found;
      wrong += a.errors + b.errors + c.found + c.errors + d.found + d.errors;
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(found.load(), 2 * kKeys);
  EXPECT_EQ(wrong.load(), 0u);
}

}  // namespace
}  // namespace sstfilter::rocksdb_testing
