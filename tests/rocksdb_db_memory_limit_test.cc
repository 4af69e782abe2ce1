// sstfilter.LevelAware's memory_limit in real databases that RocksDB
// compacts itself (dynamic layout, trees only the writes decide:
// PutSettled), with sstfilter.LevelAwareListener: as the DB grows past what
// the limit serves at the average asked, the live filters stay about at
// the limit; a limit so small that levels get no filter loses no key; the
// LOG says so once. (bench/ grows DBs of 2*10^6 keys and compares with
// RocksDB's cache-capped filters.)
#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "rocksdb_db_support.h"

namespace sstfilter::test_support {
namespace {

rdb::Options LimitedOptions(const std::string& policy) {
  DbConfig config;
  config.policy = policy;
  return WithLevelAwareListener(
      SettledOptions(config, /*dynamic_layout=*/true));
}

// Grown in 8 stages of 25,000 keys (flushes of 250) past a limit that
// binds at stage 4, with absent Gets after each stage so that every level
// is probed: once the limit binds, the live filters hold about it at every
// stage, settled, and every key is found. (On a tree this small each L0
// file and the base level are a few percent of the keys at several times
// the average bits/key, so the memory moves by a few percent with the
// files they hold when a stage ends; bench/ grows DBs of 2*10^6 keys.)
TEST(RocksdbDbMemoryLimit, AGrowingDbKeepsItsFiltersAtTheLimit) {
  constexpr uint64_t kStage = 25000;
  constexpr uint64_t kLimitBytes = 100000;  // 10 bits/key at 80,000 keys
  TempDir dir;
  auto db = Open(LimitedOptions("sstfilter.LevelAware:10:memory_limit=" +
                                std::to_string(kLimitBytes)),
                 dir.path());
  ASSERT_NE(db, nullptr);
  for (uint64_t stage = 1; stage <= 8; ++stage) {
    PutSettled(db.get(), Range((stage - 1) * kStage, kStage), Key, 250);
    const LookupCounts all = MultiGetAll(db.get(), Range(0, stage * kStage));
    EXPECT_EQ(all.found, stage * kStage) << "stage " << stage;
    EXPECT_EQ(all.errors, 0u);
    GetAll(db.get(), Range(1000000 + stage * 100000, 50000));  // absent
    const FilterMemory memory = FilterMemoryOf(db.get());
    const double ratio = static_cast<double>(memory.bytes) / kLimitBytes;
    std::printf("[ stage %" PRIu64 ": %" PRIu64 " keys, %" PRIu64
                " filter bytes, %.3f x the limit ]\n",
                stage, stage * kStage, memory.bytes, ratio);
    if (stage >= 4) {
      EXPECT_GT(ratio, 0.93) << "stage " << stage;
      EXPECT_LT(ratio, 1.10) << "stage " << stage;
    }
  }
}

// A limit that leaves under a bit per key: the least probed levels get no
// filter (RocksDB reads their tables as "may match"), every key is still
// found, and the LOG says so once.
TEST(RocksdbDbMemoryLimit, ALimitTooSmallForEveryLevelLosesNoKey) {
  constexpr uint64_t kKeys = 100000;
  TempDir dir;
  {
    auto db = Open(LimitedOptions("sstfilter.LevelAware:10:memory_limit=4K"),
                   dir.path());
    ASSERT_NE(db, nullptr);
    PutSettled(db.get(), Range(0, kKeys));
    PutSettled(db.get(), Range(0, kKeys / 2));  // rewritten under the limit
    const LookupCounts all = MultiGetAll(db.get(), Range(0, kKeys));
    EXPECT_EQ(all.found, kKeys);
    EXPECT_EQ(all.errors, 0u);
    std::string value;
    for (uint64_t i = 0; i < kKeys; i += 7) {
      ASSERT_TRUE(db->Get(rdb::ReadOptions(), Key(i), &value).ok()) << i;
    }
    const FilterMemory memory = FilterMemoryOf(db.get());
    EXPECT_LT(memory.bytes, 4096u * 2);
  }
  std::ifstream in(dir.path() + "/LOG");
  std::stringstream log;
  log << in.rdbuf();
  const std::string text = log.str();
  size_t lines = 0;
  for (size_t at = text.find("get no filter"); at != std::string::npos;
       at = text.find("get no filter", at + 1)) {
    ++lines;
  }
  EXPECT_EQ(lines, 1u);
}

}  // namespace
}  // namespace sstfilter::test_support
