// The policies inside real RocksDB databases (temporary directories,
// removed afterwards): every present key is found and absent keys are
// filtered at the rate the filters' own models predict, on leveled,
// partitioned and prefix-filtered databases.
#include <gtest/gtest.h>

#include "rocksdb_db_support.h"

namespace sstfilter::test_support {
namespace {

struct LeveledCase {
  const char* policy;
  uint64_t keys;
  uint32_t compression_threads = 1;
};

class LeveledDbTest : public ::testing::TestWithParam<LeveledCase> {};

// Snappy, L0..L3, 1M keys for each filter kind: the acceptance test of the
// filters inside a real LSM. (The hybrid, which only mixes the two, gets fewer
// keys.)
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

}  // namespace
}  // namespace sstfilter::test_support
