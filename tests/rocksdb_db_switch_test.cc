// Switching a live DB between RocksDB's filters and ours, with no
// compaction: every sstfilter policy is in RocksDB's built-in filter family
// ("rocksdb.BuiltinBloomFilter"), so RocksDB finds every SST's filter block
// whichever policy wrote it. Ours read RocksDB's blocks with RocksDB's own
// reader; RocksDB's reader, and a binary without the plugin, read ours as
// "may match". And the upgrade from sstfilter 0.1, whose blocks carry the
// name "sstfilter".
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <regex>

#include "rocksdb_db_support.h"

namespace sstfilter::test_support {
namespace {

// Full or partitioned filters, with or without a prefix extractor (whose
// prefixes, 4 hex digits of Key(i), the filters then hold beside the keys).
struct Layout {
  const char* name;
  bool partitioned;
  bool prefix;
};

void PrintTo(const Layout& layout, std::ostream* os) { *os << layout.name; }

DbConfig ConfigFor(const Layout& layout, const std::string& policy) {
  DbConfig config;
  config.policy = policy;
  config.partitioned = layout.partitioned;
  if (layout.prefix) {
    config.prefix_extractor.reset(rdb::NewFixedPrefixTransform(4));
  }
  return config;
}

const char* const kOurPolicies[] = {
    "sstfilter.BlockedBloom:10",       "sstfilter.Cuckoo:12",
    "sstfilter.Hybrid:10:1",           "sstfilter.LevelAware:10",
    "sstfilter.LevelAware:10:portable"};

// What a rollback to RocksDB's own reader keeps. LevelAware gives some
// levels RocksDB's own kinds (FastLocalBloom, Ribbon), whose blocks
// RocksDB's reader filters; the portable choice gives every level one.
// Every other policy writes only blocks of ours, which RocksDB's reader
// reads as "may match".
enum class AfterRollback { kNothingRejects, kSomeReject, kAllReject };
AfterRollback RollbackOf(const std::string& policy) {
  if (policy.find("LevelAware") == std::string::npos) {
    return AfterRollback::kNothingRejects;
  }
  return policy.find(":portable") != std::string::npos
             ? AfterRollback::kAllReject
             : AfterRollback::kSomeReject;
}

// `after` counts what RocksDB's reader rejected of the absent keys that
// the policy's own filters rejected (`before`).
void ExpectRollbackRejects(const std::string& policy, uint64_t before,
                           uint64_t after) {
  switch (RollbackOf(policy)) {
    case AfterRollback::kNothingRejects:
      EXPECT_EQ(after, 0u);
      break;
    case AfterRollback::kSomeReject:
      EXPECT_LE(after, before);
      break;
    case AfterRollback::kAllReject:
      EXPECT_EQ(after, before);
      break;
  }
}

// 5000 keys on each of L0..L3; 10^4 Gets of absent keys.
constexpr uint64_t kKeys = 20000;
constexpr uint64_t kAbsent = 10000;
const std::vector<uint64_t> kPresent = Range(0, kKeys);
const std::vector<uint64_t> kAbsentIds = Range(uint64_t{1} << 40, kAbsent);
// Filters an absent Get asks at least: one per level, less a hundredth for
// the few keys beyond a file's key range, which skip its filter.
constexpr double kFilterChecksPerGet = 3.99;

// What one opening of the DB with a policy shows.
struct Measured {
  FilterStats absent;  // of kAbsent Gets of absent keys
  // Prefix seeks to the present keys (with a prefix extractor).
  rocksdb_compat::SeekFilterCounts seeks;
  double filter_checks_per_get() const {
    return static_cast<double>(absent.consulted()) / kAbsent;
  }
  double data_reads_per_get() const {
    return static_cast<double>(absent.data_blocks) / kAbsent;
  }
};

// Every key of `present` found by Get, MultiGet and (with a prefix
// extractor) prefix seek; then kAbsent Gets of absent keys. Data-block reads
// are BLOCK_CACHE_DATA_HIT + _MISS (TakeStats): every data block a Get
// looks into, wherever it comes from. _MISS or _ADD alone count only the
// first read of each block, so they would depend on what an earlier lookup
// left in the cache.
Measured MeasureOpen(rdb::DB* db, rdb::Statistics& stats, const Layout& layout,
                     const std::vector<uint64_t>& present) {
  EXPECT_EQ(GetAll(db, present).found, present.size());
  EXPECT_EQ(MultiGetAll(db, present).found, present.size());
  Measured m;
  if (layout.prefix) {
    rocksdb_compat::TakeSeekFilterCounts(stats);
    EXPECT_EQ(PrefixSeekAll(db, present).found, present.size());
    m.seeks = rocksdb_compat::TakeSeekFilterCounts(stats);
  }
  TakeStats(stats);
  const LookupCounts absent = GetAll(db, kAbsentIds);
  EXPECT_EQ(absent.found + absent.errors, 0u);
  m.absent = TakeStats(stats);
  return m;
}

// Opens the DB at `dir` with `policy` and measures it.
Measured ReopenAndMeasure(const std::string& dir, const Layout& layout,
                          const std::string& policy) {
  const rdb::Options options = MakeOptions(ConfigFor(layout, policy));
  auto db = Open(options, dir);
  EXPECT_NE(db, nullptr);
  if (db == nullptr) return {};
  return MeasureOpen(db.get(), *options.statistics, layout, kPresent);
}

void PrintSwitch(const std::string& from, const std::string& to,
                 const Layout& layout, const Measured& before,
                 const Measured& after) {
  std::printf(
      "[ %s ] %s -> %s: filter checks per absent Get %.3f -> %.3f, "
      "rejected %.4f -> %.4f, data-block reads per absent Get %.4f -> "
      "%.4f\n",
      layout.name, from.c_str(), to.c_str(), before.filter_checks_per_get(),
      after.filter_checks_per_get(),
      static_cast<double>(before.absent.useful) / kAbsent,
      static_cast<double>(after.absent.useful) / kAbsent,
      before.data_reads_per_get(), after.data_reads_per_get());
}

// Fills a new DB in `dir` over L0..L3 with `policy`, and closes it.
void Fill(const std::string& dir, const Layout& layout,
          const std::string& policy) {
  auto db = Open(MakeOptions(ConfigFor(layout, policy)), dir);
  ASSERT_NE(db, nullptr);
  BuildLeveledDb(db.get(), kKeys);
}

// The filters of a DB filled with `builtin` (RocksDB's own policy) before
// any switch: one per level for each absent Get, rejecting nearly all.
// (ribbonfilter:10 writes FastLocalBloom for flushes, Ribbon below.)
Measured FillWithBuiltin(const std::string& dir, const Layout& layout,
                         const std::string& builtin) {
  Fill(dir, layout, builtin);
  const Measured before = ReopenAndMeasure(dir, layout, builtin);
  EXPECT_GE(before.filter_checks_per_get(), kFilterChecksPerGet);
  EXPECT_GT(before.absent.useful, before.absent.consulted() * 95 / 100);
  EXPECT_GT(before.absent.data_blocks, 0u);
  if (layout.prefix) {
    EXPECT_GT(before.seeks.useful, 0u);  // skipped files
  }
  return before;
}

// Reopened with each of our policies and no compaction, the DB keeps every
// filter RocksDB wrote: the same filter checks and data-block reads per
// absent Get (within 5%), the same prefix filtering, every key found.
void ExpectAdoptionKeepsEveryOldFilter(const Layout& layout,
                                       const std::string& builtin) {
  TempDir dir;
  const Measured before = FillWithBuiltin(dir.path(), layout, builtin);
  for (const char* policy : kOurPolicies) {
    SCOPED_TRACE(policy);
    const Measured after = ReopenAndMeasure(dir.path(), layout, policy);
    PrintSwitch(builtin, policy, layout, before, after);
    EXPECT_NEAR(after.filter_checks_per_get(), before.filter_checks_per_get(),
                0.05 * before.filter_checks_per_get());
    EXPECT_NEAR(after.data_reads_per_get(), before.data_reads_per_get(),
                0.05 * before.data_reads_per_get());
    EXPECT_NEAR(static_cast<double>(after.seeks.useful),
                static_cast<double>(before.seeks.useful),
                0.05 * static_cast<double>(before.seeks.useful));
  }
}

class SwitchTest : public ::testing::TestWithParam<Layout> {};

TEST_P(SwitchTest, AdoptingFromBloomKeepsEveryOldFilter) {
  ExpectAdoptionKeepsEveryOldFilter(GetParam(), "bloomfilter:10");
}

TEST_P(SwitchTest, AdoptingFromRibbonKeepsEveryOldFilter) {
  ExpectAdoptionKeepsEveryOldFilter(GetParam(), "ribbonfilter:10");
}

// Filled with one of our policies and reopened with RocksDB's bloomfilter:
// every filter block is found (the same checks per Get) and read as "may
// match" (none rejects), so every key is found; a new flush gets a
// RocksDB filter that rejects absent keys again.
TEST_P(SwitchTest, RollingBackToBloomFindsEveryKeyAndFiltersNewFlushes) {
  const Layout& layout = GetParam();
  constexpr uint64_t kNewKeys = 5000;
  const std::vector<uint64_t> all = Range(0, kKeys + kNewKeys);
  for (const char* policy : kOurPolicies) {
    SCOPED_TRACE(policy);
    TempDir dir;
    Fill(dir.path(), layout, policy);
    if (HasFatalFailure()) return;
    const Measured before = ReopenAndMeasure(dir.path(), layout, policy);
    ASSERT_GE(before.filter_checks_per_get(), kFilterChecksPerGet);
    ASSERT_GT(before.absent.useful, before.absent.consulted() * 95 / 100);

    const rdb::Options options =
        MakeOptions(ConfigFor(layout, "bloomfilter:10"));
    auto db = Open(options, dir.path());
    ASSERT_NE(db, nullptr);
    const Measured after =
        MeasureOpen(db.get(), *options.statistics, layout, kPresent);
    PrintSwitch(policy, "bloomfilter:10", layout, before, after);
    EXPECT_EQ(after.absent.consulted(), before.absent.consulted());
    ExpectRollbackRejects(policy, before.absent.useful, after.absent.useful);
    if (layout.prefix) {
      EXPECT_GT(after.seeks.checked, 0u);
    }
    ExpectRollbackRejects(policy, before.seeks.useful, after.seeks.useful);

    Put(db.get(), Range(kKeys, kNewKeys));
    Flush(db.get());
    const Measured flushed =
        MeasureOpen(db.get(), *options.statistics, layout, all);
    // One more filter per Get (but for keys beyond the new file's range),
    // RocksDB's, which rejects nearly every absent key (10 bits/key, FPR
    // about 1%, or 2% with the prefixes).
    EXPECT_NEAR(static_cast<double>(flushed.absent.consulted() -
                                    after.absent.consulted()),
                kAbsent, kAbsent / 1000.0);
    EXPECT_GT(flushed.absent.useful, kAbsent * 95 / 100);
    if (layout.prefix) {
      EXPECT_GT(flushed.seeks.useful, 0u);  // the new file's prefixes
    }
    std::printf(
        "[ %s ] %s, then a flush under bloomfilter:10: %.4f of "
        "absent Gets rejected\n",
        layout.name, policy,
        static_cast<double>(flushed.absent.useful) / kAbsent);
  }
}

// Whether the SST at `path` holds a filter block under `compatibility_name`
// ("fullfilter.<name>" or "partitionedfilter.<name>" in its metaindex,
// which is never compressed).
bool HasFilterNamed(const std::string& path, bool partitioned,
                    const std::string& compatibility_name) {
  const std::string meta_block =
      (partitioned ? "partitionedfilter." : "fullfilter.") + compatibility_name;
  return ReadFile(path).find(meta_block) != std::string::npos;
}

size_t FilesWithFilterNamed(rdb::DB* db, bool partitioned,
                            const std::string& compatibility_name) {
  size_t n = 0;
  for (const auto& file : SstFiles(db)) {
    n += HasFilterNamed(file.path, partitioned, compatibility_name);
  }
  return n;
}

// A DB written by sstfilter 0.1 (here: with compatibility_name=sstfilter)
// has "fullfilter.sstfilter" blocks. The option, kept in the OPTIONS file,
// keeps their filters; the default name finds every key but no filter,
// until a full compaction rewrites every SST under it.
TEST_P(SwitchTest, OldNameKeepsFiltersUntilAFullCompactionRewritesThem) {
  const Layout& layout = GetParam();
  for (const char* policy : kOurPolicies) {
    SCOPED_TRACE(policy);
    TempDir dir;
    const std::string old_name =
        std::string("id=") + policy + ";compatibility_name=sstfilter";
    size_t num_files = 0;
    {
      auto db = Open(MakeOptions(ConfigFor(layout, old_name)), dir.path());
      ASSERT_NE(db, nullptr);
      BuildLeveledDb(db.get(), kKeys);
      num_files = NumFiles(db.get());
      EXPECT_EQ(FilesWithFilterNamed(db.get(), layout.partitioned,
                                     kSstfilterCompatibilityName),
                num_files);
      EXPECT_EQ(FilesWithFilterNamed(db.get(), layout.partitioned,
                                     kRocksdbFamilyCompatibilityName),
                0u);
    }
    EXPECT_NE(
        OptionsFileFilterLine(dir.path()).find("compatibility_name=sstfilter;"),
        std::string::npos)
        << OptionsFileFilterLine(dir.path());

    // From the OPTIONS file: the old name, every filter at work.
    Measured kept;
    {
      DbFromOptionsFile reopened;
      const rdb::Status s =
          OpenFromOptionsFile(dir.path(), rdb::ConfigOptions(), &reopened);
      ASSERT_TRUE(s.ok()) << s.ToString();
      ASSERT_NE(reopened.table().filter_policy, nullptr);
      EXPECT_STREQ(reopened.table().filter_policy->CompatibilityName(),
                   kSstfilterCompatibilityName);
      kept = MeasureOpen(reopened.db.get(), *reopened.db_options.statistics,
                         layout, kPresent);
    }
    EXPECT_GE(kept.filter_checks_per_get(), kFilterChecksPerGet);
    if (layout.prefix) {
      EXPECT_GT(kept.seeks.useful, 0u);
    }
    EXPECT_GT(kept.absent.useful, kept.absent.consulted() * 95 / 100);

    // The default name: every key, no filter.
    const Measured lost = ReopenAndMeasure(dir.path(), layout, policy);
    EXPECT_EQ(lost.absent.consulted(), 0u);
    EXPECT_EQ(lost.seeks.checked, 0u);

    // A full compaction under the default name: every file filtered again.
    const rdb::Options options = MakeOptions(ConfigFor(layout, policy));
    {
      auto db = Open(options, dir.path());
      ASSERT_NE(db, nullptr);
      rdb::CompactRangeOptions compact;
      compact.bottommost_level_compaction =
          rdb::BottommostLevelCompaction::kForce;
      ASSERT_TRUE(db->CompactRange(compact, nullptr, nullptr).ok());
      EXPECT_EQ(FilesWithFilterNamed(db.get(), layout.partitioned,
                                     kSstfilterCompatibilityName),
                0u);
      EXPECT_EQ(FilesWithFilterNamed(db.get(), layout.partitioned,
                                     kRocksdbFamilyCompatibilityName),
                NumFiles(db.get()));
    }
    const Measured compacted = ReopenAndMeasure(dir.path(), layout, policy);
    std::printf(
        "[ %s ] %s written as sstfilter 0.1 (%zu SSTs): filter checks per "
        "absent Get %.3f with compatibility_name=sstfilter, %.3f without, "
        "%.3f after a full compaction; data-block reads %.4f, %.4f, %.4f\n",
        layout.name, policy, num_files, kept.filter_checks_per_get(),
        lost.filter_checks_per_get(), compacted.filter_checks_per_get(),
        kept.data_reads_per_get(), lost.data_reads_per_get(),
        compacted.data_reads_per_get());
    // One level now: one filter per Get, rejecting nearly all.
    EXPECT_GE(compacted.filter_checks_per_get(), 1.0);
    EXPECT_GT(compacted.absent.useful, compacted.absent.consulted() * 95 / 100);
  }
}

// A RocksDB without the plugin, in this process: the OPTIONS file names a
// policy that a registry without our library does not know, so RocksDB
// (ignore_unsupported_options, the default) opens the DB with no filter
// policy and reads every key. Given RocksDB's own bloomfilter instead, it
// finds our filter blocks and reads them as "may match": every key found,
// nothing rejected but by the blocks of RocksDB's kinds that LevelAware
// wrote (all of them for its portable choice).
TEST_P(SwitchTest, StockRocksDbWithoutPluginReadsEveryKey) {
  const Layout& layout = GetParam();
  for (const char* policy : kOurPolicies) {
    SCOPED_TRACE(policy);
    TempDir dir;
    Fill(dir.path(), layout, policy);
    if (HasFatalFailure()) return;
    // With our library registered (the default registry here), the
    // OPTIONS file brings back our policy.
    {
      DbFromOptionsFile reopened;
      ASSERT_TRUE(
          OpenFromOptionsFile(dir.path(), rdb::ConfigOptions(), &reopened)
              .ok());
      ASSERT_NE(reopened.table().filter_policy, nullptr);
      EXPECT_EQ(std::string(reopened.table().filter_policy->Name()),
                std::string(policy).substr(0, std::string(policy).find(':')));
    }
    // A registry of RocksDB's own factories only: ObjectLibrary::Default()
    // without the plugins (which every registry made from a library gets,
    // and which on a RocksDB built with the plugin folder include ours).
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
      const Measured m = MeasureOpen(
          reopened.db.get(), *reopened.db_options.statistics, layout, kPresent);
      EXPECT_EQ(m.absent.consulted(), 0u);
    }
    // No filter policy: no filter read. RocksDB's bloomfilter: ours are
    // found, one per level, and never reject.
    EXPECT_EQ(ReopenAndMeasure(dir.path(), layout, "").absent.consulted(), 0u);
    const Measured bloom =
        ReopenAndMeasure(dir.path(), layout, "bloomfilter:10");
    EXPECT_GE(bloom.filter_checks_per_get(), kFilterChecksPerGet);
    if (RollbackOf(policy) == AfterRollback::kNothingRejects) {
      EXPECT_EQ(bloom.absent.useful, 0u);
    } else if (RollbackOf(policy) == AfterRollback::kAllReject) {
      EXPECT_GT(bloom.absent.useful, bloom.absent.consulted() * 95 / 100);
    }
  }
}

// Runs `command` with /bin/sh; its stdout and stderr together.
std::string CommandOutput(const std::string& command) {
  std::string out;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return out;
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof(buffer), pipe)) > 0;) {
    out.append(buffer, n);
  }
  EXPECT_EQ(pclose(pipe), 0) << command << "\n" << out;
  return out;
}

// The COUNT of ticker `name` in db_bench's --statistics dump; -1 if absent.
int64_t TickerCount(const std::string& dump, const std::string& name) {
  const std::regex line("\n" + name + " COUNT : ([0-9]+)");
  std::smatch match;
  if (!std::regex_search(dump, match, line)) return -1;
  return std::stoll(match[1]);
}

std::string Hex(const std::string& bytes) {
  std::string hex = "0x";
  char buf[3];
  for (unsigned char c : bytes) {
    std::snprintf(buf, sizeof(buf), "%02X", c);
    hex += buf;
  }
  return hex;
}

// Debian's db_bench and ldb (rocksdb-tools 7.8.3): RocksDB with no plugin,
// in a process of its own. db_bench --bloom_bits=10 opens the DB with
// RocksDB's Bloom policy, whose reader finds our blocks and reads them as
// "may match": every key found by Get, MultiGet and prefix seek, no filter
// rejecting. ldb scans every key and gets one from each level.
TEST_P(SwitchTest, DebianDbBenchAndLdbWithoutPluginFindEveryKey) {
  const Layout& layout = GetParam();
  const std::string kDbBench = "/usr/bin/db_bench";
  const std::string kLdb = "/usr/bin/ldb";
  if (access(kDbBench.c_str(), X_OK) != 0 || access(kLdb.c_str(), X_OK) != 0) {
    GTEST_SKIP() << "no " << kDbBench << " or " << kLdb
                 << " (Debian's rocksdb-tools)";
  }
  // db_bench's keys; its --prefix_size=7 groups 256 of them.
  constexpr uint64_t kBenchKeys = 20000;
  constexpr int kPrefixBytes = 7;
  for (const char* policy : kOurPolicies) {
    SCOPED_TRACE(policy);
    TempDir dir;
    DbConfig config = ConfigFor(layout, policy);
    if (layout.prefix) {
      config.prefix_extractor.reset(rdb::NewFixedPrefixTransform(kPrefixBytes));
    }
    config.format_version = 5;  // the newest that 7.8.3 reads
    {
      auto db = Open(MakeOptions(config), dir.path());
      ASSERT_NE(db, nullptr);
      BuildLeveledDb(db.get(), kBenchKeys, 2 << 20, DbBenchKey);
    }
    const std::string n = std::to_string(kBenchKeys);
    std::string benchmarks = "readrandom,multireadrandom";
    if (layout.prefix) benchmarks += ",seekrandom";
    const std::string out = CommandOutput(
        kDbBench + " --db=" + dir.path() +
        " --use_existing_db=1 --disable_auto_compactions=1 --bloom_bits=10"
        " --partition_index_and_filters=" +
        (layout.partitioned ? "1" : "0") +
        " --prefix_size=" + (layout.prefix ? "7" : "0") +
        " --statistics=1 --seed=1 --threads=1 --num=" + n + " --reads=" + n +
        " --benchmarks=" + benchmarks);
    const std::string found = "(" + n + " of " + n + " found)";
    for (const std::string benchmark :
         {"\nreadrandom ", "\nmultireadrandom ", "\nseekrandom "}) {
      if (benchmark == "\nseekrandom " && !layout.prefix) continue;
      const size_t at = out.find(benchmark);
      ASSERT_NE(at, std::string::npos) << benchmark << out;
      EXPECT_NE(out.substr(at, out.find('\n', at + 1) - at).find(found),
                std::string::npos)
          << out.substr(at, out.find('\n', at + 1) - at);
    }
    // Each Get of L0's keys asks L0's filter only; deeper keys ask more.
    EXPECT_GE(TickerCount(out, "rocksdb.bloom.filter.full.positive"),
              2 * static_cast<int64_t>(kBenchKeys));
    if (RollbackOf(policy) == AfterRollback::kNothingRejects) {
      EXPECT_EQ(TickerCount(out, "rocksdb.bloom.filter.useful"), 0) << out;
    }
    if (layout.prefix) {
      EXPECT_GT(TickerCount(out, "rocksdb.bloom.filter.prefix.checked"), 0);
      if (RollbackOf(policy) == AfterRollback::kNothingRejects) {
        EXPECT_EQ(TickerCount(out, "rocksdb.bloom.filter.prefix.useful"), 0);
      }
    }
    std::printf(
        "[ %s ] %s, stock db_bench 7.8.3: %s; bloom.filter.useful "
        "%" PRId64 ", full.positive %" PRId64 "\n",
        layout.name, policy, found.c_str(),
        TickerCount(out, "rocksdb.bloom.filter.useful"),
        TickerCount(out, "rocksdb.bloom.filter.full.positive"));

    const std::string ldb =
        kLdb + " --db=" + dir.path() + " --bloom_bits=10 --hex ";
    const std::string scan = CommandOutput(ldb + "scan");
    EXPECT_EQ(static_cast<uint64_t>(std::count(scan.begin(), scan.end(), '\n')),
              kBenchKeys);
    for (uint64_t id = 0; id < 4; ++id) {  // one per level
      EXPECT_EQ(CommandOutput(ldb + "get " + Hex(DbBenchKey(id))),
                Hex(Value(id)) + "\n");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, SwitchTest,
                         ::testing::Values(Layout{"Full", false, false},
                                           Layout{"FullPrefix", false, true},
                                           Layout{"Partitioned", true, false},
                                           Layout{"PartitionedPrefix", true,
                                                  true}),
                         [](const ::testing::TestParamInfo<Layout>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace sstfilter::test_support
