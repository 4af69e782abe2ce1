// Charging filter construction to the block cache
// (cache_usage_options, CacheEntryRole::kFilterConstruction): what the
// builders charge and when they release it, and what a cache that refuses
// (strict_capacity_limit) does to a build and to a flush. RocksDB tests its
// own builders in db/db_bloom_filter_test.cc
// (ChargeFilterConstructionTestWithParam, with the recording cache of
// db/db_test_util.cc); the cache's usage says the same on every release.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "cache_charge.h"
#include "rocksdb_db_support.h"

namespace sstfilter::test_support {
namespace {

using Decision = rdb::CacheEntryRoleOptions::Decision;

constexpr size_t kEntryBytes = rocksdb_plugin::CacheCharge::kEntryBytes;
// LRUCache adds each entry's metadata to its charge
// (kFullChargeCacheMetadata): well under this per entry.
constexpr size_t kMetadataSlack = 1024;
// The builder keeps its hashes in chunks of this many bytes (filter_bits.cc)
// and charges a chunk before it allocates it.
constexpr size_t kChunkBytes = 32 << 10;

// LevelAware through its cpu_lean choice, whose tables of no level are
// ours (BlockedBloom): the levels of its other choices that get RocksDB's
// kinds are built, and charged, by RocksDB's own builders.
const char* const kPolicies[] = {"sstfilter.BlockedBloom:10",
                                 "sstfilter.Cuckoo:12",
                                 "sstfilter.LevelAware:10:cpu_lean"};

size_t RoundUp(size_t bytes, size_t unit) {
  return (bytes + unit - 1) / unit * unit;
}

// One shard, so that all of `capacity` is there for one entry.
std::shared_ptr<rdb::Cache> NewCache(size_t capacity, bool strict) {
  rdb::LRUCacheOptions options;
  options.capacity = capacity;
  options.num_shard_bits = 0;
  options.strict_capacity_limit = strict;
  return rdb::NewLRUCache(options);
}

rdb::BlockBasedTableOptions TableOptions(std::shared_ptr<rdb::Cache> cache,
                                         Decision charged) {
  rdb::BlockBasedTableOptions table;
  // Sizes as the bits/key give them (on by default since RocksDB 9.2, the
  // option lets the allocator change them): charged and uncharged filters
  // are compared byte for byte.
  table.optimize_filters_for_memory = false;
  table.block_cache = std::move(cache);
  table.cache_usage_options.options_overrides.insert(
      {rdb::CacheEntryRole::kFilterConstruction, {charged}});
  return table;
}

#if SSTFILTER_ROCKSDB_AT_LEAST(9, 11)
// Records what is inserted and how much of kFilterConstruction is charged
// at most at once, as RocksDB's TargetCacheChargeTrackingCache does. The
// role is what RocksDB's per-role statistics read. (Insert's signature is
// that of the releases from 9.11 that we build against; 7.8 has no
// CacheWrapper.)
class ChargeRecordingCache : public rdb::CacheWrapper {
 public:
  using CacheWrapper::CacheWrapper;
  const char* Name() const override { return "ChargeRecordingCache"; }

  rdb::Status Insert(const rdb::Slice& key, ObjectPtr obj,
                     const CacheItemHelper* helper, size_t charge,
                     Handle** handle, Priority priority,
                     const rdb::Slice& compressed,
                     rdb::CompressionType type) override {
    const rdb::Status s = target_->Insert(key, obj, helper, charge, handle,
                                          priority, compressed, type);
    std::lock_guard<std::mutex> lock(mutex_);
    roles_.insert(helper->role);
    if (s.ok() && helper->role == rdb::CacheEntryRole::kFilterConstruction) {
      charged_ += charge;
      peak_ = std::max(peak_, charged_);
    }
    return s;
  }

  bool Release(Handle* handle, bool erase_if_last_ref) override {
    if (GetCacheItemHelper(handle)->role ==
        rdb::CacheEntryRole::kFilterConstruction) {
      std::lock_guard<std::mutex> lock(mutex_);
      charged_ -= GetCharge(handle);
    }
    return target_->Release(handle, erase_if_last_ref);
  }

  std::set<rdb::CacheEntryRole> roles() {
    std::lock_guard<std::mutex> lock(mutex_);
    return roles_;
  }
  size_t peak() {
    std::lock_guard<std::mutex> lock(mutex_);
    return peak_;
  }
  size_t charged() {
    std::lock_guard<std::mutex> lock(mutex_);
    return charged_;
  }

 private:
  std::mutex mutex_;
  std::set<rdb::CacheEntryRole> roles_;
  size_t charged_ = 0;
  size_t peak_ = 0;
};
#endif

class CacheChargeTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override { ASSERT_TRUE(MakePolicy(GetParam(), &policy_).ok()); }
  std::unique_ptr<rdb::FilterBitsBuilder> Builder(
      const rdb::BlockBasedTableOptions& table) {
    return std::unique_ptr<rdb::FilterBitsBuilder>(
        policy_->GetBuilderWithContext(rdb::FilterBuildingContext(table)));
  }
  std::unique_ptr<rdb::FilterBitsReader> Reader(const rdb::Slice& filter) {
    return std::unique_ptr<rdb::FilterBitsReader>(
        policy_->GetFilterBitsReader(filter));
  }
  size_t Misses(const rdb::Slice& filter,
                const std::vector<std::string>& keys) {
    auto reader = Reader(filter);
    size_t misses = 0;
    for (const auto& key : keys) misses += reader->MayMatch(key) ? 0 : 1;
    return misses;
  }

  // Charging changes no byte of the filter.
  void ExpectTheUnchargedBytes(const rdb::Slice& filter,
                               const std::vector<std::string>& keys) {
    const BuiltFilter uncharged = BuildFilter(
        *policy_, keys,
        rdb::FilterBuildingContext(TableOptions(nullptr, Decision::kDisabled)));
    EXPECT_EQ(filter.ToString(), uncharged.bytes.ToString());
  }

  std::shared_ptr<const rdb::FilterPolicy> policy_;
};

TEST_P(CacheChargeTest, ChargesTheHashesAsTheyGrowAndTheFilterUntilDestroyed) {
  std::shared_ptr<rdb::Cache> cache = NewCache(64 << 20, false);
#if SSTFILTER_ROCKSDB_AT_LEAST(9, 11)
  auto recorder = std::make_shared<ChargeRecordingCache>(cache);
  const rdb::BlockBasedTableOptions table =
      TableOptions(recorder, Decision::kEnabled);
#else
  const rdb::BlockBasedTableOptions table =
      TableOptions(cache, Decision::kEnabled);
#endif
  ASSERT_EQ(cache->GetUsage(), 0u);
  constexpr size_t kKeys = 100000;  // 800 KB of hashes: 4 entries
  const std::vector<std::string> keys = Keys("key", kKeys);
  auto builder = Builder(table);
  for (size_t i = 0; i < kKeys; ++i) {
    builder->AddKey(keys[i]);
    // Charged before allocated: never below the hashes kept, and at most a
    // chunk and an entry above them.
    const size_t hash_bytes = (i + 1) * sizeof(uint64_t);
    ASSERT_GE(cache->GetPinnedUsage(), hash_bytes) << i;
    ASSERT_LE(cache->GetPinnedUsage(),
              hash_bytes + kChunkBytes + kEntryBytes + 4 * kMetadataSlack)
        << i;
  }
  std::unique_ptr<const char[]> owner;
  rdb::Status status;
  const rdb::Slice filter = builder->Finish(&owner, &status);
  ASSERT_TRUE(status.ok()) << status.ToString();
  ASSERT_GT(filter.size(), 0u);
  EXPECT_TRUE(builder->MaybePostVerify(filter).ok());
  // The hashes are freed and their charge released; the filter stays
  // charged while the builder lives (RocksDB destroys the builder once the
  // block is written).
  EXPECT_GE(cache->GetPinnedUsage(), filter.size());
  EXPECT_LE(cache->GetPinnedUsage(),
            RoundUp(filter.size(), kEntryBytes) + kMetadataSlack);
#if SSTFILTER_ROCKSDB_AT_LEAST(9, 11)
  EXPECT_EQ(recorder->roles(), std::set<rdb::CacheEntryRole>{
                                   rdb::CacheEntryRole::kFilterConstruction});
  EXPECT_GE(recorder->peak(), kKeys * sizeof(uint64_t) + filter.size())
      << "the filter is charged before the hashes are released";
#endif
  EXPECT_EQ(Misses(filter, keys), 0u);
  ExpectTheUnchargedBytes(filter, keys);
  builder.reset();
  // Every entry is erased, not only unpinned.
  EXPECT_EQ(cache->GetUsage(), 0u);
#if SSTFILTER_ROCKSDB_AT_LEAST(9, 11)
  EXPECT_EQ(recorder->charged(), 0u);
#endif
}

TEST_P(CacheChargeTest, NothingIsChargedUnlessEnabled) {
  std::shared_ptr<rdb::Cache> cache = NewCache(64 << 20, false);
  const std::vector<std::string> keys = Keys("key", 50000);
  rdb::BlockBasedTableOptions by_default;
  by_default.block_cache = cache;
  for (const rdb::BlockBasedTableOptions& table :
       {by_default, TableOptions(cache, Decision::kDisabled)}) {
    auto builder = Builder(table);
    for (const auto& key : keys) builder->AddKey(key);
    EXPECT_EQ(cache->GetUsage(), 0u);
    std::unique_ptr<const char[]> owner;
    const rdb::Slice filter = builder->Finish(&owner);
    EXPECT_EQ(cache->GetUsage(), 0u);
    EXPECT_EQ(Misses(filter, keys), 0u);
  }
  // Enabled but no block cache: nothing to charge to.
  auto builder = Builder(TableOptions(nullptr, Decision::kEnabled));
  for (const auto& key : keys) builder->AddKey(key);
  std::unique_ptr<const char[]> owner;
  EXPECT_EQ(Misses(builder->Finish(&owner), keys), 0u);
}

// table.h: an override of kFallback defers to cache_usage_options.options.
TEST_P(CacheChargeTest, AFallbackOverrideTakesTheDefaultDecision) {
  std::shared_ptr<rdb::Cache> cache = NewCache(64 << 20, false);
  rdb::BlockBasedTableOptions table = TableOptions(cache, Decision::kFallback);
  table.cache_usage_options.options.charged = Decision::kEnabled;
  auto builder = Builder(table);
  for (const auto& key : Keys("key", 1000)) builder->AddKey(key);
  EXPECT_GE(cache->GetPinnedUsage(), kEntryBytes);
  builder.reset();
  EXPECT_EQ(cache->GetUsage(), 0u);
}

// detect_filter_construct_corruption keeps the hashes until MaybePostVerify
// has queried the filter for each: they stay charged until then.
TEST_P(CacheChargeTest, PostVerificationKeepsTheHashesChargedUntilDone) {
  std::shared_ptr<rdb::Cache> cache = NewCache(64 << 20, false);
  rdb::BlockBasedTableOptions table = TableOptions(cache, Decision::kEnabled);
  table.detect_filter_construct_corruption = true;
  constexpr size_t kKeys = 100000;
  auto builder = Builder(table);
  for (const auto& key : Keys("key", kKeys)) builder->AddKey(key);
  std::unique_ptr<const char[]> owner;
  const rdb::Slice filter = builder->Finish(&owner);
  EXPECT_GE(cache->GetPinnedUsage(), kKeys * sizeof(uint64_t) + filter.size());
  EXPECT_TRUE(builder->MaybePostVerify(filter).ok());
  EXPECT_LE(cache->GetPinnedUsage(),
            RoundUp(filter.size(), kEntryBytes) + kMetadataSlack);
}

// Bytes in the cache never exceed its capacity under strict_capacity_limit.
void ExpectWithinCapacity(rdb::Cache& cache) {
  EXPECT_LE(cache.GetUsage(), cache.GetCapacity());
}

// The cache cannot hold one entry: every charge is refused. The build goes
// on as RocksDB's own builders' do, and the filter is the uncharged one.
TEST_P(CacheChargeTest, ARefusedChargeStillBuildsTheWholeFilter) {
  for (const size_t capacity : {size_t{128} << 10, size_t{300} << 10}) {
    // 128 KiB: the first chunk of hashes is refused. 300 KiB: exactly one
    // entry of hashes fits, the filter's is refused.
    SCOPED_TRACE(capacity);
    std::shared_ptr<rdb::Cache> cache = NewCache(capacity, true);
    const size_t num_keys =
        capacity < kEntryBytes ? 100000 : kEntryBytes / sizeof(uint64_t);
    const std::vector<std::string> keys = Keys("key", num_keys);
    auto builder = Builder(TableOptions(cache, Decision::kEnabled));
    for (const auto& key : keys) {
      builder->AddKey(key);
      ExpectWithinCapacity(*cache);
    }
    EXPECT_EQ(builder->EstimateEntriesAdded(), num_keys);
    std::unique_ptr<const char[]> owner;
    rdb::Status status;
    const rdb::Slice filter = builder->Finish(&owner, &status);
    EXPECT_TRUE(status.ok()) << status.ToString();
    ExpectWithinCapacity(*cache);
    EXPECT_TRUE(builder->MaybePostVerify(filter).ok());
    EXPECT_EQ(Misses(filter, keys), 0u);
    ExpectTheUnchargedBytes(filter, keys);
    builder.reset();
    EXPECT_EQ(cache->GetUsage(), 0u);
  }
}

// After a refusal the bytes stay counted: once the cache has room, the next
// charge covers every byte in use.
TEST_P(CacheChargeTest, ALaterChargeCoversWhatWasRefused) {
  for (const bool partitioned : {false, true}) {
    SCOPED_TRACE(partitioned);
    std::shared_ptr<rdb::Cache> cache = NewCache(128 << 10, true);
    rdb::BlockBasedTableOptions table = TableOptions(cache, Decision::kEnabled);
    if (partitioned) {
      table.partition_filters = true;
      table.index_type = rdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
    }
    constexpr size_t kKeys = 40000;
    const std::vector<std::string> keys = Keys("key", kKeys);
    auto builder = Builder(table);
    for (size_t i = 0; i < kKeys / 2; ++i) builder->AddKey(keys[i]);
    EXPECT_EQ(cache->GetUsage(), 0u);
    cache->SetCapacity(64 << 20);
    for (size_t i = kKeys / 2; i < kKeys; ++i) builder->AddKey(keys[i]);
    EXPECT_GE(cache->GetPinnedUsage(), kKeys * sizeof(uint64_t));
    std::unique_ptr<const char[]> owner;
    rdb::Status status;
    const rdb::Slice filter = builder->Finish(&owner, &status);
    EXPECT_TRUE(status.ok()) << status.ToString();
    EXPECT_TRUE(builder->MaybePostVerify(filter).ok());
    EXPECT_EQ(Misses(filter, keys), 0u);
    // A real filter: most absent keys are filtered.
    EXPECT_GT(Misses(filter, Keys("absent", 10000)), 9000u);
  }
}

INSTANTIATE_TEST_SUITE_P(Policies, CacheChargeTest,
                         ::testing::ValuesIn(kPolicies), PolicyTestName);

// Through a database: a flush under a strict tiny cache, whose every charge
// is refused, succeeds with the whole filter, says so in the LOG, and every
// key is found.
class CacheChargeDbTest : public ::testing::TestWithParam<const char*> {};

rdb::Options ChargingDbOptions(const char* policy,
                               std::shared_ptr<rdb::Cache> cache) {
  rdb::Options options;
  options.create_if_missing = true;
  options.disable_auto_compactions = true;
  options.write_buffer_size = 64 << 20;  // flushes are explicit
  rdb::BlockBasedTableOptions table =
      TableOptions(std::move(cache), Decision::kEnabled);
  const rdb::Status s = MakePolicy(policy, &table.filter_policy);
  EXPECT_TRUE(s.ok()) << s.ToString();
  options.table_factory.reset(rdb::NewBlockBasedTableFactory(table));
  return options;
}

TEST_P(CacheChargeDbTest, AFlushUnderAStrictTinyCacheBuildsEveryFilter) {
  constexpr size_t kCapacity = 128 << 10;
  constexpr uint64_t kKeys = 20000;
  TempDir dir;
  std::shared_ptr<rdb::Cache> cache = NewCache(kCapacity, true);
  auto db = Open(ChargingDbOptions(GetParam(), cache), dir.path());
  ASSERT_NE(db, nullptr);
  for (uint64_t i = 0; i < kKeys; ++i) {
    ASSERT_TRUE(db->Put(rdb::WriteOptions(), Key(i), Value(i)).ok());
  }
  const rdb::Status flush = db->Flush(rdb::FlushOptions());
  ASSERT_TRUE(flush.ok()) << flush.ToString();
  ExpectWithinCapacity(*cache);
  const std::vector<SstFile> files = SstFiles(db.get());
  ASSERT_GE(files.size(), 1u);
  std::shared_ptr<const rdb::FilterPolicy> policy;
  ASSERT_TRUE(MakePolicy(GetParam(), &policy).ok());
  for (const SstFile& file : files) {
    EXPECT_EQ(file.properties->filter_policy_name, policy->Name());
    // At least 6 bits per key: a whole filter, not an empty one.
    EXPECT_GE(file.properties->filter_size * 8,
              6 * file.properties->num_entries);
  }
  // Writes go on.
  EXPECT_TRUE(db->Put(rdb::WriteOptions(), Key(kKeys), Value(kKeys)).ok());
  ASSERT_TRUE(db->Flush(rdb::FlushOptions()).ok());
  db.reset();
  // The refusal is in the LOG, with what was refused.
  std::string log;
  ASSERT_TRUE(
      rdb::ReadFileToString(rdb::Env::Default(), dir.path() + "/LOG", &log)
          .ok());
  EXPECT_NE(log.find("sstfilter: block cache full under "
                     "strict_capacity_limit: filter construction "
                     "(kFilterConstruction) grew by 32768 bytes of key hashes "
                     "to 32768 bytes and needs another 262144-byte entry"),
            std::string::npos);
  EXPECT_NE(log.find("the filter is built all the same"), std::string::npos);
  // Every key is found, read through a cache with room (under the strict
  // limit RocksDB 11 fails reads whose blocks the cache refuses).
  db = Open(ChargingDbOptions(GetParam(), NewCache(64 << 20, false)),
            dir.path());
  ASSERT_NE(db, nullptr);
  const std::vector<uint64_t> present = Range(0, kKeys + 1);
  LookupCounts got = GetAll(db.get(), present);
  EXPECT_EQ(got.found, kKeys + 1);
  EXPECT_EQ(got.errors, 0u);
  got = MultiGetAll(db.get(), present);
  EXPECT_EQ(got.found, kKeys + 1);
  EXPECT_EQ(got.errors, 0u);
  db.reset();
}

// Without the limit, what a flush charges is released once the file is
// written.
TEST_P(CacheChargeDbTest, AFlushReleasesItsChargeOnceTheFileIsWritten) {
  constexpr uint64_t kKeys = 20000;
  TempDir dir;
  std::shared_ptr<rdb::Cache> cache = NewCache(64 << 20, false);
#if SSTFILTER_ROCKSDB_AT_LEAST(9, 11)
  auto recorder = std::make_shared<ChargeRecordingCache>(cache);
  auto db = Open(ChargingDbOptions(GetParam(), recorder), dir.path());
#else
  auto db = Open(ChargingDbOptions(GetParam(), cache), dir.path());
#endif
  ASSERT_NE(db, nullptr);
  for (uint64_t i = 0; i < kKeys; ++i) {
    ASSERT_TRUE(db->Put(rdb::WriteOptions(), Key(i), Value(i)).ok());
  }
  ASSERT_TRUE(db->Flush(rdb::FlushOptions()).ok());
  EXPECT_EQ(GetAll(db.get(), Range(0, kKeys)).found, kKeys);
#if SSTFILTER_ROCKSDB_AT_LEAST(9, 11)
  EXPECT_GE(recorder->peak(), kKeys * sizeof(uint64_t));
  EXPECT_EQ(recorder->charged(), 0u) << "released once the file is written";
#else
  // 7.8 has no CacheWrapper: no entry of ours (each charges kEntryBytes) is
  // left pinned; RocksDB pins a small one of its own.
  EXPECT_LT(cache->GetPinnedUsage(), kEntryBytes);
#endif
}

INSTANTIATE_TEST_SUITE_P(Policies, CacheChargeDbTest,
                         ::testing::ValuesIn(kPolicies), PolicyTestName);

}  // namespace
}  // namespace sstfilter::test_support
