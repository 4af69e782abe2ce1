// sstfilter.LevelAwareListener in real databases: turned on by name from
// an options string and kept by the OPTIONS file; each DB it watches has
// its own state, which goes with the DB (a DB opened after another starts
// from the model, open/close cycles keep nothing); each column family keeps
// its own optimize_filters_for_hits; the LOG says when it watches and when
// LevelAware has no listener; closing a DB while another learns loses no
// key.
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <sstream>
#include <thread>

#include "job_handoff.h"
#include "level_aware_inspection.h"
#include "rocksdb/convenience.h"
#include "rocksdb_db_support.h"

namespace sstfilter::test_support {
namespace {

using rocksdb_plugin::ColumnFamilyTree;

constexpr const char* kListener = kLevelAwareListenerName;

rdb::ConfigOptions StrictConfig() {
  rdb::ConfigOptions config;
  config.ignore_unknown_options = false;
  config.ignore_unsupported_options = false;
  return config;
}

// SettledOptions with `policy` and the listener from an options string.
rdb::Options ListenedOptions(const std::string& policy) {
  DbConfig config;
  config.policy = policy;
  return WithLevelAwareListener(
      SettledOptions(config, /*dynamic_layout=*/true));
}

std::shared_ptr<ColumnFamilyTree> Watched(
    rdb::DB* db, const std::string& cf = rdb::kDefaultColumnFamilyName) {
  for (const auto& listener : db->GetDBOptions().listeners) {
    if (auto state = rocksdb_plugin::WatchedColumnFamily(*listener, db, cf)) {
      return state;
    }
  }
  return nullptr;
}

std::string ReadLog(const std::string& dir) {
  std::ifstream in(dir + "/LOG");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

TEST(RocksdbDbListener, AnOptionsStringTurnsItOnByName) {
  const rdb::Options options = ListenedOptions("sstfilter.LevelAware:10");
  ASSERT_EQ(options.listeners.size(), 1u);
  EXPECT_STREQ(options.listeners[0]->Name(), kListener);
  EXPECT_EQ(options.listeners[0]->GetId(), kListener);
}

// RocksDB writes the listener to the OPTIONS file; LoadLatestOptions makes
// it again, and the DB it opens is watched: its LOG says so once per column
// family, and it has no line saying the listener is missing.
TEST(RocksdbDbListener, TheOptionsFileKeepsItAndTheLogSaysItWatches) {
  TempDir dir;
  {
    auto db = Open(ListenedOptions("sstfilter.LevelAware:10"), dir.path());
    ASSERT_NE(db, nullptr);
    Put(db.get(), Range(0, 20000));
    Flush(db.get());
  }
  {
    DbFromOptionsFile reopened;
    const rdb::Status s =
        OpenFromOptionsFile(dir.path(), StrictConfig(), &reopened);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_EQ(reopened.db_options.listeners.size(), 1u);
    EXPECT_STREQ(reopened.db_options.listeners[0]->Name(), kListener);
    PutSettled(reopened.db.get(), Range(20000, 1000));
    EXPECT_NE(Watched(reopened.db.get()), nullptr);
  }
  const std::string log = ReadLog(dir.path());  // closed: all written
  EXPECT_EQ(Count(log, std::string(kListener) + " watches this column family"),
            1u);
  EXPECT_EQ(Count(log, "no sstfilter.LevelAwareListener"), 0u);
}

// Without the listener LevelAware says so in the DB's LOG, once per column
// family, with the line that turns it on.
TEST(RocksdbDbListener, WithoutItTheLogSaysWhatToAdd) {
  TempDir dir;
  DbConfig config;
  config.policy = "sstfilter.LevelAware:10";
  {
    auto db = Open(SettledOptions(config, true), dir.path());
    ASSERT_NE(db, nullptr);
    PutSettled(db.get(), Range(0, 30000));
  }
  const std::string log = ReadLog(dir.path());  // closed: all written
  EXPECT_EQ(Count(log, "no sstfilter.LevelAwareListener watches"), 1u) << log;
  EXPECT_EQ(Count(log, "listeners={sstfilter.LevelAwareListener}"), 1u);
}

// The listener's tree follows every way files come and go: flushes,
// RocksDB's compactions (trivial moves too) and CompactFiles, which RocksDB
// reports no beginning or end of: the entries per level are the DB's own.
TEST(RocksdbDbListener, TheTreeIsTheDbsOwnAfterFlushesAndCompactions) {
  TempDir dir;
  rdb::Options options = ListenedOptions("sstfilter.LevelAware:10");
  options.disable_auto_compactions = true;
  auto db = Open(options, dir.path());
  ASSERT_NE(db, nullptr);
  for (int i = 0; i < 4; ++i) {
    Put(db.get(), Range(i * 5000, 5000));
    Flush(db.get());
  }
  ASSERT_TRUE(
      db->CompactFiles(rdb::CompactionOptions(), FilesAtLevel(db.get(), 0), 3)
          .ok());
  Put(db.get(), Range(20000, 5000));
  Flush(db.get());
  rdb::CompactRangeOptions compact;
  compact.bottommost_level_compaction = rdb::BottommostLevelCompaction::kForce;
  ASSERT_TRUE(db->CompactRange(compact, nullptr, nullptr).ok());
  Put(db.get(), Range(30000, 1000));
  Flush(db.get());
  const auto cf = Watched(db.get());
  ASSERT_NE(cf, nullptr);
  const rocksdb_plugin::TreeTotals tree = cf->Totals();
  rdb::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  for (const auto& level : meta.levels) {
    int64_t entries = 0;
    for (const auto& file : level.files) {
      entries += static_cast<int64_t>(file.num_entries);
    }
    EXPECT_EQ(tree[level.level].files, static_cast<int64_t>(level.files.size()))
        << "L" << level.level;
    EXPECT_EQ(tree[level.level].entries, entries) << "L" << level.level;
  }
}

// Learns until the bottom level is learned (every Get a hit).
void Learn(rdb::DB* db, uint64_t keys) {
  std::string value;
  for (uint64_t i = 0; i < 400000; ++i) {
    ASSERT_TRUE(db->Get(rdb::ReadOptions(), Key(i % keys), &value).ok());
  }
  PutSettled(db, Range(keys, 2000));  // a build refreshes what was learned
}

bool AnyLevelLearned(const ColumnFamilyTree& cf) {
  for (bool learned : cf.workload().LearnedLevels()) {
    if (learned) return true;
  }
  return false;
}

// One Options object (so one listener) for DB after DB, each closed before
// the next opens (and likely at the same address): the next starts from
// the model, and the listener keeps the state of at most the DBs open.
TEST(RocksdbDbListener, ADbOpenedAfterAnotherStartsFromTheModel) {
  const rdb::Options options = ListenedOptions("sstfilter.LevelAware:10");
  {
    TempDir dir;
    auto db = Open(options, dir.path());
    ASSERT_NE(db, nullptr);
    PutSettled(db.get(), Range(0, 50000));
    Learn(db.get(), 50000);
    ASSERT_NE(Watched(db.get()), nullptr);
    EXPECT_TRUE(AnyLevelLearned(*Watched(db.get())));
  }
  for (int cycle = 0; cycle < 20; ++cycle) {
    TempDir dir;
    auto db = Open(options, dir.path());
    ASSERT_NE(db, nullptr);
    PutSettled(db.get(), Range(0, 2000), Key, 2000);
    const auto cf = Watched(db.get());
    ASSERT_NE(cf, nullptr);
    EXPECT_FALSE(AnyLevelLearned(*cf)) << "cycle " << cycle;
    EXPECT_EQ(cf->Totals()[0].files, 1) << "cycle " << cycle;
    EXPECT_LE(rocksdb_plugin::WatchedDbCount(*options.listeners[0]), 1u);
  }
}

// DBs that share one logger (a service logging through its own), each
// closed before the next opens in a new directory: the listener drops a
// closed DB's state at its next callback, and the block index keeps no
// record of a closed DB's tables alive.
TEST(RocksdbDbListener, ADbClosedBehindASharedLoggerLeavesNothing) {
  rdb::Options options = ListenedOptions("sstfilter.LevelAware:10");
  TempDir logs;
  ASSERT_TRUE(rdb::Env::Default()
                  ->NewLogger(logs.path() + "/LOG", &options.info_log)
                  .ok());
  const size_t before = rocksdb_plugin::LiveIndexedRecords();
  for (int cycle = 0; cycle < 8; ++cycle) {
    TempDir dir;
    auto db = Open(options, dir.path());
    ASSERT_NE(db, nullptr);
    PutSettled(db.get(), Range(0, 20000));
    Learn(db.get(), 2000);
    std::vector<rdb::LiveFileMetaData> live;
    db->GetLiveFilesMetaData(&live);
    ASSERT_FALSE(live.empty());
    // Only this DB's state and tables: the one closed before is dropped.
    EXPECT_EQ(rocksdb_plugin::WatchedDbCount(*options.listeners[0]), 1u)
        << "cycle " << cycle;
    EXPECT_GT(rocksdb_plugin::LiveIndexedRecords(), before)
        << "cycle " << cycle;
    EXPECT_LE(rocksdb_plugin::LiveIndexedRecords(), before + live.size())
        << "cycle " << cycle;
  }
}

// Two column families sharing one policy object: only the one with
// optimize_filters_for_hits loses its bottom filters, and only its state
// says so.
TEST(RocksdbDbListener, EachColumnFamilyKeepsItsOwnOptimizeFiltersForHits) {
  TempDir dir;
  rdb::Options options = ListenedOptions("sstfilter.LevelAware:10");
  options.create_missing_column_families = true;
  // Only the manual compactions below run (with RocksDB's own running too,
  // its forced rewrite of the bottom sometimes skipped the file it had just
  // moved there, which kept its flush's filter).
  options.disable_auto_compactions = true;
  rdb::ColumnFamilyOptions for_hits(options);
  for_hits.optimize_filters_for_hits = true;
  std::vector<rdb::ColumnFamilyDescriptor> families = {
      {rdb::kDefaultColumnFamilyName, rdb::ColumnFamilyOptions(options)},
      {"for_hits", for_hits}};
  std::vector<rdb::ColumnFamilyHandle*> handles;
  std::unique_ptr<rdb::DB> db;
  ASSERT_TRUE(
      rocksdb_compat::OpenDb(options, dir.path(), families, &handles, &db)
          .ok());
  rdb::WriteOptions write;
  write.disableWAL = true;
  for (uint64_t i = 0; i < 60000; ++i) {
    for (auto* handle : handles) {
      ASSERT_TRUE(db->Put(write, handle, Key(i), Value(i)).ok());
    }
  }
  for (auto* handle : handles) {
    ASSERT_TRUE(db->Flush(rdb::FlushOptions(), handle).ok());
    rdb::CompactRangeOptions compact;
    compact.bottommost_level_compaction =
        rdb::BottommostLevelCompaction::kForce;
    ASSERT_TRUE(db->CompactRange(compact, handle, nullptr, nullptr).ok());
  }
  const auto plain = Watched(db.get());
  const auto hits = Watched(db.get(), "for_hits");
  ASSERT_NE(plain, nullptr);
  ASSERT_NE(hits, nullptr);
  EXPECT_FALSE(plain->no_bottom_filters());
  EXPECT_TRUE(hits->no_bottom_filters());
  for (auto* handle : handles) db->DestroyColumnFamilyHandle(handle);
}

// Two DBs share one Options object: one serves Gets (learning) and keeps
// flushing and compacting on its own while the other opens and closes again
// and again; every key is found. (No tree is asserted on: RocksDB's own
// flushes may race here.)
TEST(RocksdbDbListener, ClosingADbWhileAnotherLearnsLosesNoKey) {
  DbConfig config;
  config.policy = "sstfilter.LevelAware:10";
  const rdb::Options options = WithLevelAwareListener(
      CompactingOptions(config, /*dynamic_layout=*/true));
  TempDir busy_dir;
  auto busy = Open(options, busy_dir.path());
  ASSERT_NE(busy, nullptr);
  constexpr uint64_t kKeys = 40000;
  Put(busy.get(), Range(0, kKeys));
  std::atomic<bool> done{false};
  std::atomic<uint64_t> lost{0};
  std::thread reader([&] {
    std::string value;
    for (uint64_t i = 0; !done.load(); ++i) {
      if (!busy->Get(rdb::ReadOptions(), Key(i % kKeys), &value).ok()) ++lost;
      if (i % 5000 == 0) {
        Put(busy.get(), Range(kKeys + i, 500));  // keeps compacting
      }
    }
  });
  for (int cycle = 0; cycle < 10; ++cycle) {
    TempDir dir;
    auto db = Open(options, dir.path());
    ASSERT_NE(db, nullptr);
    Put(db.get(), Range(0, 5000));
    Flush(db.get());
  }
  done = true;
  reader.join();
  EXPECT_EQ(lost.load(), 0u);
  const LookupCounts all = MultiGetAll(busy.get(), Range(0, kKeys));
  EXPECT_EQ(all.found, kKeys);
}

// Two DBs holding the same keys, flushed alike, have files whose filter
// blocks are byte for byte the same: a reader of such a block cannot tell
// which DB it serves, so it samples into neither. Before, the block was
// indexed for the DB that built it last, and a reader made later for the
// other's file (here: that DB reopened) sampled into it.
TEST(RocksdbDbListener, IdenticalBlocksInTwoDbsSampleIntoNeither) {
  const rdb::Options options = ListenedOptions("sstfilter.LevelAware:10");
  TempDir dir_a, dir_b;
  auto a = Open(options, dir_a.path());
  auto b = Open(options, dir_b.path());
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  PutSettled(a.get(), Range(0, 5000), Key, 5000);
  PutSettled(b.get(), Range(0, 5000), Key, 5000);
  a.reset();
  a = Open(options, dir_a.path());  // its readers are made anew
  ASSERT_NE(a, nullptr);
  const auto cf_b = Watched(b.get());
  ASSERT_NE(cf_b, nullptr);
  const uint64_t before_b = cf_b->samples();
  std::string value;
  for (uint64_t i = 0; i < 100000; ++i) {
    a->Get(rdb::ReadOptions(), Key(i), &value).PermitUncheckedError();
  }
  EXPECT_EQ(cf_b->samples(), before_b) << "A's Gets sampled into B";
  // A's own files, not B's twins, sample into A.
  PutSettled(a.get(), Range(100000, 5000), Key, 5000);
  const auto cf_a = Watched(a.get());
  ASSERT_NE(cf_a, nullptr);
  const uint64_t before_a = cf_a->samples();
  for (uint64_t i = 100000; i < 200000; ++i) {
    a->Get(rdb::ReadOptions(), Key(i), &value).PermitUncheckedError();
  }
  EXPECT_GT(cf_a->samples(), before_a);
  EXPECT_EQ(cf_b->samples(), before_b);
}

// A column family dropped and made again under its name starts from the
// model: RocksDB gives it another id, and nothing learned of the old one
// carries over (before, its state was kept by name).
TEST(RocksdbDbListener, AColumnFamilyMadeAgainStartsFromTheModel) {
  TempDir dir;
  rdb::Options options = ListenedOptions("sstfilter.LevelAware:10");
  auto db = Open(options, dir.path());
  ASSERT_NE(db, nullptr);
  rdb::ColumnFamilyHandle* handle = nullptr;
  ASSERT_TRUE(db->CreateColumnFamily(options, "again", &handle).ok());
  rdb::WriteOptions write;
  write.disableWAL = true;
  auto fill = [&](uint64_t keys) {
    for (uint64_t i = 0; i < keys; ++i) {
      ASSERT_TRUE(db->Put(write, handle, Key(i), Value(i)).ok());
    }
    ASSERT_TRUE(db->Flush(rdb::FlushOptions(), handle).ok());
    ASSERT_TRUE(rocksdb_compat::WaitForCompactions(db.get()).ok());
  };
  fill(20000);
  std::string value;
  for (uint64_t i = 0; i < 400000; ++i) {
    db->Get(rdb::ReadOptions(), handle, Key(i % 20000), &value)
        .PermitUncheckedError();
  }
  fill(2000);  // a build refreshes what was learned
  const auto first = Watched(db.get(), "again");
  ASSERT_NE(first, nullptr);
  EXPECT_TRUE(AnyLevelLearned(*first));
  ASSERT_TRUE(db->DropColumnFamily(handle).ok());
  ASSERT_TRUE(db->DestroyColumnFamilyHandle(handle).ok());
  ASSERT_TRUE(db->CreateColumnFamily(options, "again", &handle).ok());
  fill(2000);
  const auto second = Watched(db.get(), "again");
  ASSERT_NE(second, nullptr);
  EXPECT_NE(second, first);
  EXPECT_FALSE(AnyLevelLearned(*second));
  EXPECT_EQ(second->Totals()[0].files, 1);
  ASSERT_TRUE(db->DestroyColumnFamilyHandle(handle).ok());
}

// A compaction still running when its DB closes is never reported done
// (RocksDB skips OnCompactionCompleted at shutdown), and a DB reopened
// numbers its jobs from the start again: a job of the reopened DB with the
// closed one's id is the reopened one's (before, the closed DB's entry
// stayed in a map of the listener's and took it).
TEST(RocksdbDbListener, AJobIdOfAClosedDbIsNotTheReopenedOnes) {
  TempDir dir;
  const rdb::Options options = ListenedOptions("sstfilter.LevelAware:10");
  std::shared_ptr<rdb::EventListener> listener = options.listeners[0];
  rdb::CompactionJobInfo begun;
  begun.cf_id = 0;
  begun.cf_name = rdb::kDefaultColumnFamilyName;
  begun.job_id = 4242;
  begun.output_level = 6;
  {
    auto db = Open(options, dir.path());
    ASSERT_NE(db, nullptr);
    PutSettled(db.get(), Range(0, 2000));
    // The listener sees job 4242 begin; the DB closes before it ends.
    listener->OnCompactionBegin(db.get(), begun);
    rocksdb_plugin::EndJob();
  }
  auto db = Open(options, dir.path());
  ASSERT_NE(db, nullptr);
  PutSettled(db.get(), Range(2000, 2000));
  // A subcompaction of the reopened DB's job 4242 begins on this thread:
  // a builder here builds for the reopened DB.
  rdb::SubcompactionJobInfo sub;
  sub.cf_id = 0;
  sub.cf_name = rdb::kDefaultColumnFamilyName;
  sub.job_id = 4242;
  sub.output_level = 6;
  listener->OnSubcompactionBegin(sub);
  rdb::BlockBasedTableOptions table;
  rdb::FilterBuildingContext context(table);
  context.column_family_name = rdb::kDefaultColumnFamilyName;
  context.info_log = db->GetDBOptions().info_log.get();
  const rocksdb_plugin::JobView job = rocksdb_plugin::JobOf(context);
  listener->OnSubcompactionCompleted(sub);
  EXPECT_EQ(job.column_family, Watched(db.get()));
}

}  // namespace
}  // namespace sstfilter::test_support
