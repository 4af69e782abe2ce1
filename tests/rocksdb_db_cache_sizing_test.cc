// LevelAware's size_for_cache in real databases: filters, index and data
// blocks in one block cache (partitioned, as Kafka Streams' bounded-memory
// setup has them); the average asked where the cache holds the filters
// and index blocks, fewer bits where it cannot and Gets find their keys
// (modelled with hits=, or learned from the Gets), every key found, the
// choice told in the LOG, and the id round-tripping.
#include <gtest/gtest.h>

#include <cstdio>

#include "rocksdb/convenience.h"
#include "rocksdb/env.h"
#include "rocksdb_db_support.h"

namespace sstfilter::test_support {
namespace {

constexpr uint64_t kKeys = 30000;

// A settled leveled DB of kKeys keys under `policy`, its filters, index and
// data blocks in one LRU cache of `cache_bytes`, with the listener.
struct CachedDb {
  TempDir dir;
  rdb::Options options;
  std::unique_ptr<rdb::DB> db;

  CachedDb(const std::string& policy, size_t cache_bytes) {
    DbConfig config;
    config.policy = policy;
    config.partitioned = true;  // and cache_index_and_filter_blocks
    options = WithLevelAwareListener(SettledOptions(config, true));
    auto* table =
        options.table_factory->GetOptions<rdb::BlockBasedTableOptions>();
    table->block_cache = rdb::NewLRUCache(cache_bytes, 0);
    table->pin_top_level_index_and_filter = true;
    table->cache_index_and_filter_blocks = true;
    options.compression = rdb::kNoCompression;
    db = Open(options, dir.path());
  }
  double BitsPerKey() {
    const FilterMemory memory = FilterMemoryOf(db.get());
    return memory.bytes * 8.0 / static_cast<double>(memory.entries);
  }
  std::string Log() {
    std::string log;
    EXPECT_TRUE(
        rdb::ReadFileToString(rdb::Env::Default(), dir.path() + "/LOG", &log)
            .ok());
    return log;
  }
  void ExpectEveryKeyFound() {
    const LookupCounts counts = GetAll(db.get(), Range(0, kKeys));
    EXPECT_EQ(counts.found, kKeys);
    EXPECT_EQ(counts.errors, 0u);
  }
};

TEST(RocksdbDbCacheSizing, TheIdRoundTripsAndAMemoryLimitIsRefused) {
  std::shared_ptr<const rdb::FilterPolicy> policy;
  ASSERT_TRUE(
      MakePolicy("sstfilter.LevelAware:10:size_for_cache=true", &policy).ok());
  EXPECT_EQ(policy->GetId(), "sstfilter.LevelAware:10:10:size_for_cache=true");
  std::shared_ptr<const rdb::FilterPolicy> again;
  ASSERT_TRUE(MakePolicy(policy->GetId(), &again).ok());
  EXPECT_EQ(again->GetId(), policy->GetId());
  // (Each made into an empty pointer: RocksDB reconfigures an object
  // already there from "name=value".)
  std::shared_ptr<const rdb::FilterPolicy> off, both, bad;
  ASSERT_TRUE(
      MakePolicy("sstfilter.LevelAware:10:size_for_cache=false", &off).ok());
  EXPECT_EQ(off->GetId(), "sstfilter.LevelAware:10:10");
  const rdb::Status refused = MakePolicy(
      "sstfilter.LevelAware:10:memory_limit=1M:size_for_cache=true", &both);
  EXPECT_TRUE(refused.IsInvalidArgument()) << refused.ToString();
  EXPECT_NE(refused.ToString().find("do not go together"), std::string::npos);
  EXPECT_TRUE(MakePolicy("sstfilter.LevelAware:10:size_for_cache=yes", &bad)
                  .IsInvalidArgument());
}

// A cache that holds every filter and index block: the bits asked.
TEST(RocksdbDbCacheSizing, ACacheThatHoldsTheFiltersGetsTheBitsAsked) {
  CachedDb db("sstfilter.LevelAware:10:hits=0.9:size_for_cache=true", 64 << 20);
  ASSERT_NE(db.db, nullptr);
  PutSettled(db.db.get(), Range(0, kKeys));
  EXPECT_NEAR(db.BitsPerKey(), 10, 0.5);
  db.ExpectEveryKeyFound();
}

// 90% of the Gets find their key (modelled) and the cache holds a small
// part of the filter and index blocks: the filters get fewer bits, which
// keep more of the blocks each Get reads in the cache; without the option,
// the bits asked.
TEST(RocksdbDbCacheSizing, ASmallCacheAndGetsThatHitGetFewerBits) {
  constexpr size_t kCache = 48 << 10;
  CachedDb sized("sstfilter.LevelAware:10:hits=0.9:size_for_cache=true",
                 kCache);
  CachedDb asked("sstfilter.LevelAware:10:hits=0.9", kCache);
  ASSERT_NE(sized.db, nullptr);
  ASSERT_NE(asked.db, nullptr);
  PutSettled(sized.db.get(), Range(0, kKeys));
  PutSettled(asked.db.get(), Range(0, kKeys));
  const double sized_bits = sized.BitsPerKey();
  const double asked_bits = asked.BitsPerKey();
  std::printf("size_for_cache %.2f bits/key, without %.2f\n", sized_bits,
              asked_bits);
  EXPECT_NEAR(asked_bits, 10, 0.5);
  EXPECT_LT(sized_bits, asked_bits - 2);
  EXPECT_GE(sized_bits, 1);
  sized.ExpectEveryKeyFound();
  EXPECT_NE(sized.Log().find("size_for_cache"), std::string::npos);
  EXPECT_EQ(asked.Log().find("size_for_cache"), std::string::npos);
}

// Learned: absent-key Gets first (the model's default), then Gets that
// find their keys, learned by the readers from filter blocks the small
// cache evicts and reads back; the files rewritten after them get fewer
// bits.
TEST(RocksdbDbCacheSizing, LearnedHitsGiveRewrittenFilesFewerBits) {
  CachedDb db("sstfilter.LevelAware:10:size_for_cache=true", 48 << 10);
  ASSERT_NE(db.db, nullptr);
  PutSettled(db.db.get(), Range(0, kKeys));
  GetAll(db.db.get(), Range(kKeys, 3 * kKeys));  // absent keys
  ASSERT_TRUE(
      db.db->CompactRange(rdb::CompactRangeOptions(), nullptr, nullptr).ok());
  const double absent_bits = db.BitsPerKey();
  for (int round = 0; round < 6; ++round) GetAll(db.db.get(), Range(0, kKeys));
  rdb::CompactRangeOptions again;
  again.bottommost_level_compaction = rdb::BottommostLevelCompaction::kForce;
  ASSERT_TRUE(db.db->CompactRange(again, nullptr, nullptr).ok());
  const double hit_bits = db.BitsPerKey();
  std::printf("after absent Gets %.2f bits/key, after hits %.2f\n", absent_bits,
              hit_bits);
  EXPECT_LT(hit_bits, absent_bits - 2) << db.Log();
  db.ExpectEveryKeyFound();
}

}  // namespace
}  // namespace sstfilter::test_support
