// The policies across reopening: the OPTIONS file keeps the policy and its
// options, a switch between our policies keeps using the old filters, and
// a bad value in an OPTIONS file is refused. Switches to and from
// RocksDB's own filters are rocksdb_db_switch_test.cc's.
#include <gtest/gtest.h>

#include "rocksdb_db_support.h"

namespace sstfilter::test_support {
namespace {

// RocksDB writes the policy into the OPTIONS file; LoadLatestOptions
// brings back the same policy, which keeps building the same filters.
TEST(RocksdbDbOptionsTest, ReopenFromOptionsFileKeepsPolicy) {
  const struct {
    const char* value;
    const char* options_line;
    uint32_t new_fingerprint_bits;  // of new cuckoo filters; 0: Bloom
  } cases[] = {
      {"sstfilter.BlockedBloom:9.9",
       "filter_policy={id=sstfilter.BlockedBloom:9.9;"
       "compatibility_name=rocksdb.BuiltinBloomFilter;}",
       0},
      {"sstfilter.BlockedBloom:10:1",
       "filter_policy={id=sstfilter.BlockedBloom:10:1;"
       "compatibility_name=rocksdb.BuiltinBloomFilter;}",
       0},
      {"sstfilter.Cuckoo:12",
       "filter_policy={id=sstfilter.Cuckoo:12;"
       "compatibility_name=rocksdb.BuiltinBloomFilter;fingerprint_bits=0;}",
       11},
      {"id=sstfilter.Cuckoo:12;fingerprint_bits=16",
       "filter_policy={id=sstfilter.Cuckoo:12;"
       "compatibility_name=rocksdb.BuiltinBloomFilter;fingerprint_bits=16;}",
       16},
      {"sstfilter.Hybrid:10:-1",
       "filter_policy={id=sstfilter.Hybrid:10:-1;"
       "compatibility_name=rocksdb.BuiltinBloomFilter;fingerprint_bits=0;}",
       9},
      // (cpu_lean: its flushes before any compaction are ours, BlockedBloom,
      // which this test's FilterKindsByLevel reads; the default's are
      // RocksDB's Ribbon.)
      {"sstfilter.LevelAware:10:cpu_lean",
       "filter_policy={id=sstfilter.LevelAware:10:10:cpu_lean;"
       "compatibility_name=rocksdb.BuiltinBloomFilter;}",
       0},
      // The name of sstfilter 0.1, kept for DBs written by it.
      {"id=sstfilter.Cuckoo:12;compatibility_name=sstfilter",
       "filter_policy={id=sstfilter.Cuckoo:12;compatibility_name=sstfilter;"
       "fingerprint_bits=0;}",
       11},
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
    EXPECT_STREQ(policy->CompatibilityName(), expected->CompatibilityName());

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
TEST(RocksdbDbOptionsTest, SwitchingPoliciesKeepsUsingOldFilters) {
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

// Replaces the filter_policy line of the DB's latest OPTIONS file, as a
// user editing it would.
void SetOptionsFileFilter(const std::string& dir, const std::string& value) {
  const std::string path = LatestOptionsFile(dir);
  std::ifstream in(path);
  std::string text;
  for (std::string line; std::getline(in, line);) {
    const size_t at = line.find("filter_policy=");
    if (at != std::string::npos)
      line = line.substr(0, at) + "filter_policy=" + value;
    text += line + "\n";
  }
  in.close();
  std::ofstream(path, std::ios::trunc) << text;
  ASSERT_EQ(OptionsFileFilterLine(dir), "filter_policy=" + value);
}

// A DB with a few keys in one SST, written with `policy`.
void WriteDb(const std::string& dir, const std::string& policy) {
  DbConfig config;
  config.policy = policy;
  auto db = Open(MakeOptions(config), dir);
  ASSERT_NE(db, nullptr);
  Put(db.get(), Range(0, 1000));
  Flush(db.get());
}

// RocksDB's table-options parser ignores a filter policy's error in an
// OPTIONS file. For a bad fingerprint_bits the policy refuses validation,
// so the DB does not open (instead of running with the automatic width and
// persisting fingerprint_bits=0).
// Writes a DB with `id`, sets its OPTIONS file's filter_policy to `value`,
// and expects DB::Open to refuse it with InvalidArgument naming `word`,
// persisting nothing in its place.
void ExpectOpenRefusesFilterValue(const std::string& id,
                                  const std::string& value,
                                  const std::string& word) {
  TempDir dir;
  WriteDb(dir.path(), id);
  SetOptionsFileFilter(dir.path(), value);
  DbFromOptionsFile reopened;
  const rdb::Status s =
      OpenFromOptionsFile(dir.path(), rdb::ConfigOptions(), &reopened);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find(word), std::string::npos) << s.ToString();
  EXPECT_EQ(reopened.db, nullptr);
  EXPECT_EQ(OptionsFileFilterLine(dir.path()), "filter_policy=" + value);
}

TEST(RocksdbDbOptionsTest,
     BadFingerprintBitsInOptionsFileFailOpenWithInvalidArgument) {
  for (const char* bits : {"3", "33", "abc", "-1"}) {
    SCOPED_TRACE(bits);
    ExpectOpenRefusesFilterValue(
        "sstfilter.Cuckoo:12",
        std::string("{id=sstfilter.Cuckoo:12;fingerprint_bits=") + bits + ";}",
        "fingerprint_bits");
  }
}

// An unknown (say, misspelled) option of one of our policies in an OPTIONS
// file fails DB::Open as a bad value does, instead of running the policy
// as if the option were not there.
TEST(RocksdbDbOptionsTest,
     UnknownPolicyOptionInOptionsFileFailsOpenWithInvalidArgument) {
  for (const char* id : {"sstfilter.BlockedBloom:10", "sstfilter.Cuckoo:12",
                         "sstfilter.Hybrid:10:1", "sstfilter.LevelAware:10"}) {
    SCOPED_TRACE(id);
    ExpectOpenRefusesFilterValue(
        id, std::string("{id=") + id + ";fingerprint_bitz=16;}",
        "fingerprint_bitz");
  }
}

// bloom_before_level above num_levels is refused by DB::Open.
TEST(RocksdbDbOptionsTest, HybridLevelAboveNumLevelsFailsOpen) {
  TempDir dir;
  DbConfig config;
  config.policy = "sstfilter.Hybrid:10:8";
  rdb::Options options = MakeOptions(config);
  options.num_levels = 7;
  std::unique_ptr<rdb::DB> db;
  const rdb::Status s = rocksdb_compat::OpenDb(options, dir.path(), &db);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  options.num_levels = 8;
  EXPECT_TRUE(rocksdb_compat::OpenDb(options, dir.path(), &db).ok());
}

// What RocksDB does with a filter id that no factory accepts (misspelled,
// out of range) in an OPTIONS file: BlockBasedTableFactory::ParseOption
// turns the error into OK, and the DB opens with no filter policy. It gives
// a plugin no hook to warn, so the README says so next to the policy
// names. This test keeps that sentence true.
TEST(RocksdbDbOptionsTest, InvalidFilterIdInOptionsFileOpensWithoutFilter) {
  for (const char* value : {"sstfilter.Cukoo:12", "sstfilter.Cuckoo:100",
                            "sstfilter.Hybrid:x", "bloomfilter:abc"}) {
    SCOPED_TRACE(value);
    TempDir dir;
    WriteDb(dir.path(), "sstfilter.Cuckoo:12");
    SetOptionsFileFilter(dir.path(), value);
    DbFromOptionsFile reopened;
    const rdb::Status s =
        OpenFromOptionsFile(dir.path(), rdb::ConfigOptions(), &reopened);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(reopened.table().filter_policy, nullptr);
    EXPECT_EQ(GetAll(reopened.db.get(), Range(0, 1000)).found, 1000u);
  }
}

}  // namespace
}  // namespace sstfilter::test_support
