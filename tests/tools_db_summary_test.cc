// sstfilter-inspect --db's summary on real multi-level DBs: levels and files
// as RocksDB's own metadata has them, every key counted once, the expected
// reads of an absent-key Get as the files' FPRs add up and as RocksDB's
// statistics measure them, for our policies and RocksDB's Bloom, and for a
// DB that holds both after switches of policy; orphan SSTs listed and not
// read; the DB directory left as it was. After a switch of policy, the
// files whose filter the configured policy does not read are unfiltered,
// as RocksDB's statistics show.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "db_summary.h"
#include "inspector.h"
#include "output_format.h"
#include "rocksdb_db_support.h"
#include "tools_test_support.h"

namespace sstfilter::test_support {
namespace {

using inspect::DbSummary;
using inspect::FileReport;
using inspect::LevelSummary;

constexpr uint64_t kKeys = 100000;          // L3, L2, L1 and one L0 file
constexpr uint64_t kL0Keys = 5000;          // a second L0 file
constexpr uint64_t kAbsent = 100000;        // absent-key Gets
constexpr uint64_t kFileBytes = 256 << 10;  // several files a level

std::set<std::string> DirectoryListing(const std::string& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    names.insert(
        entry.path().filename().string() + " " +
        std::to_string(entry.is_regular_file() ? entry.file_size() : 0));
  }
  return names;
}

struct PolicyCase {
  const char* policy;
  const char* kinds;  // of every level; "" = not checked
};

void PrintTo(const PolicyCase& c, std::ostream* os) { *os << c.policy; }

class DbSummaryTest : public ::testing::TestWithParam<PolicyCase> {};

// L0 (two files) to L3 (several files), written with the policy; the
// summary is taken after the DB is closed, from its MANIFEST.
TEST_P(DbSummaryTest, LevelsKeysAndExpectedReadsMatchTheDb) {
  TempDir dir;
  DbConfig config;
  config.policy = GetParam().policy;
  const rdb::Options options = MakeOptions(config);
  auto db = Open(options, dir.path());
  ASSERT_NE(db, nullptr);
  BuildLeveledDb(db.get(), kKeys, kFileBytes);
  Put(db.get(), Range(kKeys, kL0Keys));
  Flush(db.get());
  rdb::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  TakeStats(*options.statistics);
  GetAll(db.get(), Range(kKeys + kL0Keys, kAbsent));
  const FilterStats absent = TakeStats(*options.statistics);
  ASSERT_TRUE(db->Close().ok());
  db.reset();

  const std::set<std::string> before = DirectoryListing(dir.path());
  const DbSummary summary = inspect::SummarizeDb(dir.path());
  EXPECT_EQ(DirectoryListing(dir.path()), before) << "the DB was changed";
  ASSERT_TRUE(summary.status.ok()) << summary.status.ToString();
  EXPECT_EQ(summary.errors, 0u);
  EXPECT_TRUE(summary.orphans.empty());
  ASSERT_EQ(summary.column_families.size(), 1u);
  const inspect::ColumnFamilySummary& family = summary.column_families[0];
  EXPECT_EQ(family.name, "default");

  // The populated levels and their files, in RocksDB's order (L0 newest
  // first), and the expected reads added up here from each file's report.
  std::vector<const rdb::LevelMetaData*> populated;
  for (const rdb::LevelMetaData& level : meta.levels) {
    if (!level.files.empty()) populated.push_back(&level);
  }
  ASSERT_EQ(family.levels.size(), populated.size());
  ASSERT_EQ(populated.size(), 4u);
  EXPECT_EQ(populated[0]->files.size(), 2u);
  EXPECT_GE(populated[3]->files.size(), 2u);
  double expected_reads = 0;
  uint64_t keys = 0;
  for (size_t i = 0; i < populated.size(); ++i) {
    const rdb::LevelMetaData& level = *populated[i];
    const LevelSummary& summarized = family.levels[i];
    SCOPED_TRACE("L" + std::to_string(level.level));
    EXPECT_EQ(summarized.level, level.level);
    ASSERT_EQ(summarized.files.size(), level.files.size());
    double fpr_sum = 0, key_weighted_fpr_sum = 0;
    uint64_t level_keys = 0;
    for (size_t f = 0; f < level.files.size(); ++f) {
      const std::string path =
          level.files[f].directory + "/" + level.files[f].relative_filename;
      EXPECT_TRUE(fs::equivalent(summarized.files[f].path, path));
      const FileReport report = inspect::InspectFile(path, {});
      ASSERT_TRUE(report.status.ok()) << report.status.ToString();
      EXPECT_EQ(report.keys_source, "num_filter_entries");
      fpr_sum += report.fpr;
      key_weighted_fpr_sum += report.fpr * static_cast<double>(report.keys);
      level_keys += report.keys;
    }
    EXPECT_EQ(summarized.figures.keys, level_keys);
    expected_reads += level.level == 0 ? fpr_sum
                                       : key_weighted_fpr_sum /
                                             static_cast<double>(level_keys);
    keys += level_keys;
    if (*GetParam().kinds != '\0') {
      EXPECT_EQ(summarized.kinds, GetParam().kinds);
    }
  }
  EXPECT_EQ(keys, kKeys + kL0Keys);
  EXPECT_EQ(family.keys, keys);
  EXPECT_NEAR(family.expected_reads, expected_reads, 1e-12);
  EXPECT_EQ(family.num_files, meta.file_count);

  // RocksDB's count of filters that let an absent Get through agrees: the
  // files' FPR estimates are within a few percent, and 10^5 Gets sample
  // them to about 2%.
  const double measured =
      static_cast<double>(absent.positive) / static_cast<double>(kAbsent);
  std::printf("[ %s ] expected reads per absent Get %.5f, measured %.5f\n",
              GetParam().policy, family.expected_reads, measured);
  EXPECT_EQ(absent.true_positive, 0u);
  // Within 10%, or 3 standard deviations of the count where few pass
  // (LevelAware's filters let about 250 of the 10^5 through).
  const double sd = std::sqrt(family.expected_reads * kAbsent) / kAbsent;
  EXPECT_NEAR(measured, family.expected_reads,
              std::max(0.1 * family.expected_reads, 3 * sd));
}

INSTANTIATE_TEST_SUITE_P(
    Policies, DbSummaryTest,
    ::testing::Values(PolicyCase{"sstfilter.BlockedBloom:10", "BlockedBloom"},
                      PolicyCase{"sstfilter.LevelAware:10", ""},
                      PolicyCase{"bloomfilter:10", "FastLocalBloom"}),
    [](const ::testing::TestParamInfo<PolicyCase>& info) {
      const std::string policy = info.param.policy;
      return policy.rfind("sstfilter.", 0) == 0 ? ShortName(policy)
                                                : std::string("Builtin");
    });

// What a kind's files in BuildMixedDb must show: bits/key as the policy
// sizes it (partitions add their rounding) and an FPR about the model's
// (Cuckoo:12 takes 11-bit fingerprints: about 0.4%).
struct KindBounds {
  double min_bits_per_key, max_bits_per_key, min_fpr, max_fpr;
};
const std::map<std::string, KindBounds> kMixedDbKinds = {
    {"FastLocalBloom", {9.9, 11.0, 0.005, 0.02}},
    {"Ribbon128", {6.5, 8.0, 0.005, 0.02}},
    {"BlockedBloom", {9.9, 11.0, 0.003, 0.015}},
    {"Cuckoo", {11.3, 12.5, 0.001, 0.008}},
};

class MixedDbSummaryTest : public ::testing::TestWithParam<bool> {};

// After switches of policy a level holds RocksDB's filters beside ours. The
// summary names every kind of every level with its keys, bits/key and FPR;
// the kinds' reads add up to their level's, and the total is what RocksDB
// (reading every kind through our policy) measures.
TEST_P(MixedDbSummaryTest, EachKindOfEachLevelIsNamedWithItsBitsPerKeyAndFpr) {
  TempDir dir;
  const KindKeys expected = BuildMixedDb(dir.path(), GetParam());
  ASSERT_FALSE(expected.empty());
  const DbSummary summary = inspect::SummarizeDb(dir.path());
  ASSERT_TRUE(summary.status.ok()) << summary.status.ToString();
  EXPECT_EQ(summary.errors, 0u);
  ASSERT_EQ(summary.column_families.size(), 1u);
  const inspect::ColumnFamilySummary& family = summary.column_families[0];
  ASSERT_EQ(family.levels.size(), expected.size());
  for (const LevelSummary& level : family.levels) {
    SCOPED_TRACE("L" + std::to_string(level.level));
    std::map<std::string, uint64_t> keys_by_kind;
    double reads = 0;
    for (const inspect::KindSummary& kind : level.by_kind) {
      SCOPED_TRACE(kind.kind);
      keys_by_kind[kind.kind] = kind.figures.keys;
      reads += kind.figures.reads_per_get;
      ASSERT_EQ(kMixedDbKinds.count(kind.kind), 1u);
      const KindBounds& bounds = kMixedDbKinds.at(kind.kind);
      EXPECT_GE(kind.figures.bits_per_key, bounds.min_bits_per_key);
      EXPECT_LE(kind.figures.bits_per_key, bounds.max_bits_per_key);
      EXPECT_GE(kind.figures.fpr, bounds.min_fpr);
      EXPECT_LE(kind.figures.fpr, bounds.max_fpr);
    }
    EXPECT_EQ(keys_by_kind, expected.at(level.level));
    EXPECT_NEAR(reads, level.figures.reads_per_get, 1e-12);
  }
  EXPECT_EQ(family.keys, kMixedDbKeys);
  EXPECT_EQ(family.levels[0].kinds, "BlockedBloom+FastLocalBloom");
  EXPECT_EQ(family.levels[2].kinds, "BlockedBloom+Ribbon128");

  DbConfig config;
  config.policy = "sstfilter.BlockedBloom:10";
  config.partitioned = GetParam();
  const rdb::Options options = MakeOptions(config);
  auto db = Open(options, dir.path());
  ASSERT_NE(db, nullptr);
  TakeStats(*options.statistics);
  GetAll(db.get(), Range(kMixedDbKeys, kAbsent));
  const FilterStats absent = TakeStats(*options.statistics);
  const double measured =
      static_cast<double>(absent.positive) / static_cast<double>(kAbsent);
  std::printf("[ mixed ] expected reads per absent Get %.5f, measured %.5f\n",
              family.expected_reads, measured);
  EXPECT_EQ(absent.true_positive, 0u);
  // Within 10%, or 3 standard deviations of the count where few pass
  // (LevelAware's filters let about 250 of the 10^5 through).
  const double sd = std::sqrt(family.expected_reads * kAbsent) / kAbsent;
  EXPECT_NEAR(measured, family.expected_reads,
              std::max(0.1 * family.expected_reads, 3 * sd));
}

INSTANTIATE_TEST_SUITE_P(Layouts, MixedDbSummaryTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Partitioned" : "Full";
                         });

// What WhyUnfiltered says of a switch: sstfilter 0.1's name (kept by
// kOldName) against the default one, and our blocks under RocksDB's policy.
constexpr char kOldName[] =
    "id=sstfilter.BlockedBloom:10;compatibility_name=sstfilter";
constexpr char kUnderOldName[] =
    "under \"sstfilter\", not the policy's \"rocksdb.BuiltinBloomFilter\"";
constexpr char kUnderNewName[] =
    "under \"rocksdb.BuiltinBloomFilter\", not the policy's \"sstfilter\"";
constexpr char kRocksdbsReader[] =
    "RocksDB's reader takes sstfilter's blocks as may-match";

// A DB that sstfilter 0.1 began (its blocks under the family name
// "sstfilter") and this version continued: both names' blocks are read and
// summed up, and the old ones are unfiltered under the new name.
TEST(DbSummaryFamilies, BlocksUnderTheOldFamilyNameAreSummedUp) {
  TempDir dir;
  const std::vector<std::pair<std::string, int>> steps = {
      {kOldName, 1}, {"sstfilter.BlockedBloom:10", 0}};
  for (const auto& [policy, level] : steps) {
    DbConfig config;
    config.policy = policy;
    auto db = Open(MakeOptions(config), dir.path());
    ASSERT_NE(db, nullptr);
    Put(db.get(), Range(level * 5000, 5000));
    Flush(db.get());
    if (level > 0) {
      ASSERT_TRUE(db->CompactFiles(rdb::CompactionOptions(),
                                   FilesAtLevel(db.get(), 0), level)
                      .ok());
    }
    ASSERT_TRUE(db->Close().ok());
  }
  const DbSummary summary = inspect::SummarizeDb(dir.path());
  ASSERT_TRUE(summary.status.ok()) << summary.status.ToString();
  EXPECT_EQ(summary.errors, 0u);
  ASSERT_EQ(summary.column_families.size(), 1u);
  const auto& levels = summary.column_families[0].levels;
  ASSERT_EQ(levels.size(), 2u);
  const char* names[] = {"rocksdb.BuiltinBloomFilter", "sstfilter"};
  for (size_t i = 0; i < levels.size(); ++i) {
    SCOPED_TRACE("L" + std::to_string(levels[i].level));
    ASSERT_EQ(levels[i].files.size(), 1u);
    EXPECT_EQ(levels[i].files[0].table.compatibility_name, names[i]);
    EXPECT_EQ(levels[i].kinds, "BlockedBloom");
    EXPECT_EQ(levels[i].figures.keys, 5000u);
    EXPECT_GT(levels[i].figures.bits_per_key, 9.9);
    EXPECT_GT(levels[i].figures.fpr, 0.003);
    EXPECT_LT(levels[i].figures.fpr, 0.015);
  }
  EXPECT_EQ(levels[0].unfiltered, std::vector<std::string>{""});
  EXPECT_EQ(levels[1].unfiltered, std::vector<std::string>{kUnderOldName});
}

// A policy's DB under one of the two family names.
struct FamilyCase {
  const char* policy;
  bool old_name;  // compatibility_name=sstfilter
  // Whether some of its levels get RocksDB's kinds (LevelAware builds
  // FastLocalBloom or Ribbon there under either name).
  bool writes_rocksdb_kinds;
};

void PrintTo(const FamilyCase& c, std::ostream* os) {
  *os << c.policy << (c.old_name ? " under the old name" : "");
}

class DbSummaryFamilyTest : public ::testing::TestWithParam<FamilyCase> {};

// Every policy's DB over L0..L3, under either family name, is read whole:
// every live file and every filter block in it, the blocks of RocksDB's
// kinds that LevelAware writes under the old name included, read as the
// policy's own reader reads them.
TEST_P(DbSummaryFamilyTest, EveryFileOfEveryPolicyUnderEitherNameIsRead) {
  const FamilyCase& c = GetParam();
  TempDir dir;
  DbConfig config;
  config.policy = c.old_name ? std::string("id=") + c.policy +
                                   ";compatibility_name=sstfilter"
                             : c.policy;
  {
    auto db = Open(MakeOptions(config), dir.path());
    ASSERT_NE(db, nullptr);
    BuildLeveledDb(db.get(), kKeys, kFileBytes);
    ASSERT_TRUE(db->Close().ok());
  }
  const DbSummary summary = inspect::SummarizeDb(dir.path());
  ASSERT_TRUE(summary.status.ok()) << summary.status.ToString();
  EXPECT_EQ(summary.errors, 0u) << inspect::FormatFileErrorsText(summary);
  ASSERT_EQ(summary.column_families.size(), 1u);
  const inspect::ColumnFamilySummary& family = summary.column_families[0];
  ASSERT_EQ(family.levels.size(), 4u);
  const std::string name =
      c.old_name ? "sstfilter" : "rocksdb.BuiltinBloomFilter";
  std::set<std::string> block_families;
  for (const LevelSummary& level : family.levels) {
    SCOPED_TRACE("L" + std::to_string(level.level) + " " + level.kinds);
    for (size_t f = 0; f < level.files.size(); ++f) {
      const FileReport& file = level.files[f];
      SCOPED_TRACE(file.path);
      ASSERT_TRUE(file.status.ok()) << file.status.ToString();
      EXPECT_EQ(file.table.compatibility_name, name);
      EXPECT_FALSE(file.blocks.empty());
      EXPECT_EQ(level.unfiltered[f], "");
      for (const sst::FilterBlockInfo& block : file.blocks) {
        block_families.insert(block.family);
      }
    }
    EXPECT_LT(level.figures.fpr, 0.1);
  }
  EXPECT_EQ(family.keys, kKeys);
  EXPECT_EQ(block_families.count("rocksdb"), c.writes_rocksdb_kinds ? 1u : 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Policies, DbSummaryFamilyTest,
    ::testing::Values(
        FamilyCase{"sstfilter.BlockedBloom:10", false, false},
        FamilyCase{"sstfilter.BlockedBloom:10", true, false},
        FamilyCase{"sstfilter.Cuckoo:12", false, false},
        FamilyCase{"sstfilter.Cuckoo:12", true, false},
        FamilyCase{"sstfilter.Hybrid:10", false, false},
        FamilyCase{"sstfilter.Hybrid:10", true, false},
        FamilyCase{"sstfilter.LevelAware:10", false, true},
        FamilyCase{"sstfilter.LevelAware:10", true, true},
        FamilyCase{"sstfilter.LevelAware:10:cpu_lean", false, true},
        FamilyCase{"sstfilter.LevelAware:10:cpu_lean", true, true},
        FamilyCase{"sstfilter.LevelAware:10:portable", false, true},
        FamilyCase{"sstfilter.LevelAware:10:portable", true, true}),
    [](const ::testing::TestParamInfo<FamilyCase>& info) {
      std::string name = info.param.policy + std::strlen("sstfilter.");
      for (char& ch : name) {
        if (ch == ':' || ch == '.') ch = '_';
      }
      return name + (info.param.old_name ? "_OldName" : "");
    });

// A switch of policy that leaves old files unfiltered: the DB is filled
// over L0..L3 with `fill`, reopened with `reopen` to flush one more L0 file.
struct SwitchCase {
  const char* name;
  const char* fill;
  const char* reopen;  // "" = no filter policy
  bool partitioned;
  const char* new_kind;  // of the file flushed after the switch
  // Why `reopen` reads no filter of the files of `fill` (and, for no
  // policy, of the new one).
  const char* unfiltered;
  const char* new_unfiltered;
};

void PrintTo(const SwitchCase& c, std::ostream* os) {
  *os << c.fill << " -> " << (*c.reopen ? c.reopen : "none")
      << (c.partitioned ? ", partitioned" : "");
}

class SwitchedPolicySummaryTest : public ::testing::TestWithParam<SwitchCase> {
};

// The summary counts each file with the FPR RocksDB meets there under the
// policy of the OPTIONS file (1 where it reads no filter), names the
// unfiltered files and why, and its expected reads per absent Get are the
// data-block reads RocksDB measures; the files' own figures stay.
TEST_P(SwitchedPolicySummaryTest, FilesThePolicyDoesNotReadCountAsUnfiltered) {
  const SwitchCase& c = GetParam();
  TempDir dir;
  {
    DbConfig config;
    config.policy = c.fill;
    config.partitioned = c.partitioned;
    auto db = Open(MakeOptions(config), dir.path());
    ASSERT_NE(db, nullptr);
    BuildLeveledDb(db.get(), kKeys, kFileBytes);
    ASSERT_TRUE(db->Close().ok());
  }
  DbConfig config;
  config.policy = c.reopen;
  config.partitioned = c.partitioned;
  const rdb::Options options = MakeOptions(config);
  auto db = Open(options, dir.path());
  ASSERT_NE(db, nullptr);
  const std::vector<std::string> old_l0 = FilesAtLevel(db.get(), 0);
  Put(db.get(), Range(kKeys, kL0Keys));
  Flush(db.get());
  std::vector<std::string> new_files;
  for (const std::string& file : FilesAtLevel(db.get(), 0)) {
    if (std::find(old_l0.begin(), old_l0.end(), file) == old_l0.end()) {
      new_files.push_back(file);
    }
  }
  TakeStats(*options.statistics);
  GetAll(db.get(), Range(kKeys + kL0Keys, kAbsent));
  const FilterStats absent = TakeStats(*options.statistics);
  ASSERT_TRUE(db->Close().ok());
  db.reset();

  const DbSummary summary = inspect::SummarizeDb(dir.path());
  ASSERT_TRUE(summary.status.ok()) << summary.status.ToString();
  EXPECT_EQ(summary.errors, 0u);
  ASSERT_EQ(summary.column_families.size(), 1u);
  const inspect::ColumnFamilySummary& family = summary.column_families[0];
  EXPECT_TRUE(family.policy.known);
  EXPECT_EQ(family.policy.sstfilter,
            std::string(c.reopen).find("sstfilter.") != std::string::npos);
  ASSERT_EQ(family.levels.size(), 4u);
  ASSERT_EQ(family.levels[0].files.size(), 2u);  // the new file first

  // Each file's reads: its filter's FPR where the policy reads it, else 1.
  double expected_reads = 0;
  // The filters an absent Get finds: on every L0 file, one a level below.
  double filters_found = 0;
  for (const LevelSummary& level : family.levels) {
    SCOPED_TRACE("L" + std::to_string(level.level));
    ASSERT_EQ(level.unfiltered.size(), level.files.size());
    double reads = 0;
    for (size_t f = 0; f < level.files.size(); ++f) {
      const FileReport& file = level.files[f];
      const bool is_new = level.level == 0 && f == 0 && new_files.size() == 1 &&
                          fs::equivalent(file.path, new_files[0]);
      EXPECT_EQ(is_new, level.level == 0 && f == 0);
      EXPECT_EQ(inspect::KindName(file),
                is_new ? c.new_kind
                       : (std::string(c.fill).find("bloomfilter") == 0
                              ? "FastLocalBloom"
                              : "BlockedBloom"));
      EXPECT_EQ(level.unfiltered[f], is_new ? c.new_unfiltered : c.unfiltered);
      const double fpr = level.unfiltered[f].empty() ? file.fpr : 1.0;
      const double share = level.level == 0
                               ? 1.0
                               : static_cast<double>(file.keys) /
                                     static_cast<double>(level.figures.keys);
      reads += fpr * share;
      const bool found =
          level.unfiltered[f].empty() || level.unfiltered[f] == kRocksdbsReader;
      filters_found += found ? share : 0;
    }
    EXPECT_NEAR(level.figures.reads_per_get, reads, 1e-9);
    expected_reads += reads;
    // The blocks' own figures are those of a working filter.
    if (level.level > 0 || *c.new_unfiltered == '\0') {
      EXPECT_LT(level.figures.fpr, 0.1);
    }
  }
  EXPECT_NEAR(family.expected_reads, expected_reads, 1e-9);

  // RocksDB reads a data block at every unfiltered file an absent Get
  // meets (one per level below L0, or none where the key falls between two
  // files) and at its filters' false positives.
  const double measured =
      static_cast<double>(absent.data_blocks) / static_cast<double>(kAbsent);
  std::printf(
      "[ %s -> %s ] expected reads per absent Get %.5f, measured %.5f; "
      "filters consulted %.3f\n",
      c.fill, *c.reopen ? c.reopen : "none", family.expected_reads, measured,
      static_cast<double>(absent.consulted()) / static_cast<double>(kAbsent));
  EXPECT_EQ(absent.true_positive, 0u);
  // Within 10%, or 3 standard deviations of the count where few pass
  // (LevelAware's filters let about 250 of the 10^5 through).
  const double sd = std::sqrt(family.expected_reads * kAbsent) / kAbsent;
  EXPECT_NEAR(measured, family.expected_reads,
              std::max(0.1 * family.expected_reads, 3 * sd));
  // RocksDB consults the filters the policy finds: under its own reader
  // ours too, each answering "may match".
  EXPECT_NEAR(
      static_cast<double>(absent.consulted()) / static_cast<double>(kAbsent),
      filters_found, 0.05 * filters_found + 0.01);

  // Both outputs say which and why.
  const std::string text = inspect::FormatDbText(summary);
  const std::string json = inspect::FormatDbJson(summary);
  for (const char* why : {c.unfiltered, c.new_unfiltered}) {
    if (*why == '\0') continue;
    EXPECT_NE(text.find(std::string("  unfiltered: ") + why), std::string::npos)
        << text;
    EXPECT_NE(json.find("\"unfiltered\": " + inspect::JsonString(why)),
              std::string::npos)
        << json;
  }
  EXPECT_NE(text.find("  filter policy "), std::string::npos) << text;
}

INSTANTIATE_TEST_SUITE_P(
    Switches, SwitchedPolicySummaryTest,
    ::testing::Values(
        // Upgrading from sstfilter 0.1 with the default name.
        SwitchCase{"OldNameToDefault", kOldName, "sstfilter.BlockedBloom:10",
                   false, "BlockedBloom", kUnderOldName, ""},
        SwitchCase{"OldNameToDefaultPartitioned", kOldName,
                   "sstfilter.BlockedBloom:10", true, "BlockedBloom",
                   kUnderOldName, ""},
        // Keeping the old name over blocks of the new one.
        SwitchCase{"DefaultToOldName", "sstfilter.BlockedBloom:10", kOldName,
                   false, "BlockedBloom", kUnderNewName, ""},
        // Rolling back to RocksDB's own policy.
        SwitchCase{"OursToBloomfilter", "sstfilter.BlockedBloom:10",
                   "bloomfilter:10", false, "FastLocalBloom", kRocksdbsReader,
                   ""},
        SwitchCase{"OursToBloomfilterPartitioned", "sstfilter.BlockedBloom:10",
                   "bloomfilter:10", true, "FastLocalBloom", kRocksdbsReader,
                   ""},
        // No policy at all.
        SwitchCase{"BloomfilterToNone", "bloomfilter:10", "", false, "",
                   "no filter policy configured", "no filter block"}),
    [](const ::testing::TestParamInfo<SwitchCase>& info) {
      return std::string(info.param.name);
    });

// A small DB: one flushed L0 file.
std::string SmallDb(const std::string& dir) {
  DbConfig config;
  config.policy = "sstfilter.BlockedBloom:10";
  auto db = Open(MakeOptions(config), dir);
  if (db == nullptr) return "";
  Put(db.get(), Range(0, 1000));
  Flush(db.get());
  const std::vector<std::string> files = FilesAtLevel(db.get(), 0);
  EXPECT_TRUE(db->Close().ok());
  EXPECT_EQ(files.size(), 1u);
  return files.empty() ? "" : files[0];
}

// Each column family is its own LSM, and a Get reads one: a summary each.
TEST(DbSummaryColumnFamilies, EachColumnFamilyIsSummedUpApart) {
  TempDir dir;
  DbConfig config;
  config.policy = "sstfilter.BlockedBloom:10";
  const rdb::Options options = MakeOptions(config);
  auto db = Open(options, dir.path());
  ASSERT_NE(db, nullptr);
  rdb::ColumnFamilyHandle* second = nullptr;
  ASSERT_TRUE(db->CreateColumnFamily(options, "second", &second).ok());
  Put(db.get(), Range(0, 3000));
  Flush(db.get());
  rdb::WriteOptions write_options;
  for (uint64_t i = 0; i < 1000; ++i) {
    ASSERT_TRUE(db->Put(write_options, second, Key(i), Value(i)).ok());
  }
  ASSERT_TRUE(db->Flush(rdb::FlushOptions(), second).ok());
  ASSERT_TRUE(db->DestroyColumnFamilyHandle(second).ok());
  ASSERT_TRUE(db->Close().ok());
  db.reset();

  const DbSummary summary = inspect::SummarizeDb(dir.path());
  ASSERT_TRUE(summary.status.ok()) << summary.status.ToString();
  ASSERT_EQ(summary.column_families.size(), 2u);
  EXPECT_EQ(summary.column_families[0].name, "default");
  EXPECT_EQ(summary.column_families[0].keys, 3000u);
  EXPECT_EQ(summary.column_families[1].name, "second");
  EXPECT_EQ(summary.column_families[1].keys, 1000u);
  for (const auto& family : summary.column_families) {
    ASSERT_EQ(family.levels.size(), 1u);
    EXPECT_EQ(family.levels[0].kinds, "BlockedBloom");
    EXPECT_EQ(family.expected_reads, family.levels[0].figures.reads_per_get);
  }
}

// Files of one kind at different bits/key on one level (as LevelAware
// writes when it sizes each table by its key range): the level's row gives
// the range per file beside its mean, and the JSON gives both ends.
TEST(DbSummaryPerFileBits, ALevelsFilesOfOneKindShowTheirRangeOfBitsPerKey) {
  TempDir dir;
  // Two halves of the key space, so that the second file joins L1 beside
  // the first instead of being compacted with it.
  for (const bool upper : {false, true}) {
    DbConfig config;
    config.policy =
        upper ? "sstfilter.BlockedBloom:14" : "sstfilter.BlockedBloom:6";
    auto db = Open(MakeOptions(config), dir.path());
    ASSERT_NE(db, nullptr);
    std::vector<uint64_t> ids;
    for (uint64_t i = 0; i < 10000; ++i) {
      if ((Key(i) >= "8") == upper) ids.push_back(i);
    }
    Put(db.get(), ids);
    Flush(db.get());
    rdb::CompactionOptions compaction;
    ASSERT_TRUE(
        db->CompactFiles(compaction, FilesAtLevel(db.get(), 0), 1).ok());
    ASSERT_TRUE(db->Close().ok());
  }
  const DbSummary summary = inspect::SummarizeDb(dir.path());
  ASSERT_TRUE(summary.status.ok()) << summary.status.ToString();
  ASSERT_EQ(summary.column_families.size(), 1u);
  ASSERT_EQ(summary.column_families[0].levels.size(), 1u);
  const inspect::FilesSummary& l1 =
      summary.column_families[0].levels[0].figures;
  EXPECT_NEAR(l1.min_bits_per_key, 6, 0.2);
  EXPECT_NEAR(l1.max_bits_per_key, 14, 0.2);
  const std::string text = inspect::FormatDbText(summary);
  EXPECT_NE(text.find(" bits/key per file"), std::string::npos) << text;
  EXPECT_NE(inspect::FormatDbJson(summary).find("\"max_bits_per_key\""),
            std::string::npos);
}

// LevelAware needs sstfilter.LevelAwareListener: the summary says whether
// the newest OPTIONS file names it.
TEST(DbSummaryListener, SaysWhetherTheOptionsFileNamesTheListener) {
  for (const bool named : {true, false}) {
    TempDir dir;
    {
      DbConfig config;
      config.policy = "sstfilter.LevelAware:10";
      rdb::Options options = MakeOptions(config);
      if (named) options = WithLevelAwareListener(options);
      auto db = Open(options, dir.path());
      ASSERT_NE(db, nullptr);
      Put(db.get(), Range(0, 1000));
      Flush(db.get());
      ASSERT_TRUE(db->Close().ok());
    }
    const DbSummary summary = inspect::SummarizeDb(dir.path());
    ASSERT_TRUE(summary.status.ok()) << summary.status.ToString();
    const std::string text = inspect::FormatDbText(summary);
    const std::string json = inspect::FormatDbJson(summary);
    if (named) {
      EXPECT_NE(text.find("listener sstfilter.LevelAwareListener: named"),
                std::string::npos)
          << text;
      EXPECT_NE(json.find("\"level_aware_listener\": true"), std::string::npos);
    } else {
      EXPECT_NE(text.find("listener none"), std::string::npos) << text;
      EXPECT_NE(json.find("\"level_aware_listener\": false"),
                std::string::npos);
    }
  }
}

// What a crash leaves (a 0-byte table) and an unlisted copy of a good one
// are orphans: listed with their sizes, never read, no error.
TEST(DbSummaryOrphans, UnlistedSstsAreOrphansNotErrors) {
  TempDir dir;
  const std::string live = SmallDb(dir.path());
  ASSERT_FALSE(live.empty());
  const std::string empty = dir.path() + "/000999.sst";
  const std::string copy = dir.path() + "/001000.sst";
  std::ofstream(empty, std::ios::binary).close();
  fs::copy_file(live, copy);
  std::ofstream(dir.path() + "/notes.txt") << "not a table";

  const DbSummary summary = inspect::SummarizeDb(dir.path());
  ASSERT_TRUE(summary.status.ok()) << summary.status.ToString();
  EXPECT_EQ(summary.errors, 0u);
  ASSERT_EQ(summary.column_families.size(), 1u);
  ASSERT_EQ(summary.column_families[0].levels.size(), 1u);
  EXPECT_EQ(summary.column_families[0].levels[0].files.size(), 1u);
  EXPECT_EQ(summary.column_families[0].keys, 1000u);
  ASSERT_EQ(summary.orphans.size(), 2u);
  EXPECT_EQ(summary.orphans[0].path, empty);
  EXPECT_EQ(summary.orphans[0].bytes, 0u);
  EXPECT_EQ(summary.orphans[1].path, copy);
  EXPECT_EQ(summary.orphans[1].bytes, fs::file_size(live));
  const std::string text = inspect::FormatDbText(summary);
  EXPECT_NE(text.find("orphans  SST files that the MANIFEST does not list"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(empty + "  0 bytes\n"), std::string::npos) << text;
}

// A live table that is truncated or missing is one error, left out of the
// figures; the MANIFEST is still read and the rest summed up.
TEST(DbSummaryErrors, DamagedOrMissingLiveFileIsAnErrorAndLeftOut) {
  for (const bool missing : {false, true}) {
    SCOPED_TRACE(missing ? "missing" : "truncated");
    TempDir dir;
    const std::string live = SmallDb(dir.path());
    ASSERT_FALSE(live.empty());
    if (missing) {
      fs::remove(live);
    } else {
      fs::resize_file(live, fs::file_size(live) / 2);
    }
    const DbSummary summary = inspect::SummarizeDb(dir.path());
    ASSERT_TRUE(summary.status.ok()) << summary.status.ToString();
    EXPECT_EQ(summary.errors, 1u);
    ASSERT_EQ(summary.column_families.size(), 1u);
    ASSERT_EQ(summary.column_families[0].levels.size(), 1u);
    const LevelSummary& level = summary.column_families[0].levels[0];
    ASSERT_EQ(level.files.size(), 1u);
    EXPECT_EQ(level.files[0].status.code(),
              missing ? StatusCode::kNotFound : StatusCode::kCorruption);
    EXPECT_EQ(level.figures.keys, 0u);
    EXPECT_EQ(summary.column_families[0].expected_reads, 0);
  }
}

// The OPTIONS file only names the column families and the comparator: a DB
// without one (deleted, or older than OPTIONS files) is still read.
TEST(DbSummaryErrors, ManifestIsReadWithoutAnOptionsFile) {
  TempDir dir;
  ASSERT_FALSE(SmallDb(dir.path()).empty());
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    if (entry.path().filename().string().rfind("OPTIONS", 0) == 0) {
      fs::remove(entry.path());
    }
  }
  const DbSummary summary = inspect::SummarizeDb(dir.path());
  ASSERT_TRUE(summary.status.ok()) << summary.status.ToString();
  ASSERT_EQ(summary.column_families.size(), 1u);
  const inspect::ColumnFamilySummary& family = summary.column_families[0];
  EXPECT_EQ(family.keys, 1000u);
  // Which policy reads the DB is then unknown: its filter counts as read.
  EXPECT_FALSE(family.policy.known);
  ASSERT_EQ(family.levels.size(), 1u);
  EXPECT_EQ(family.levels[0].unfiltered, std::vector<std::string>{""});
  EXPECT_LT(family.expected_reads, 0.1);
}

TEST(DbSummaryErrors, DirectoryWithoutCurrentIsNotADb) {
  TempDir dir;
  std::ofstream(dir.path() + "/000001.sst") << "x";
  const DbSummary summary = inspect::SummarizeDb(dir.path());
  EXPECT_EQ(summary.status.code(), StatusCode::kNotFound);
  EXPECT_EQ(summary.status.message(),
            "no CURRENT file: not a RocksDB DB directory");
}

}  // namespace
}  // namespace sstfilter::test_support
