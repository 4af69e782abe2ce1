// Specification of the dynamic cuckoo filter: the insert/erase contract,
// growth by chaining, the stash, and deserialization.
#include <gtest/gtest.h>

#include "cuckoo_test_support.h"

namespace sstfilter::test_support {
namespace {

TEST(CuckooDynamicTest, DynamicNeverFalseNegativeUpToOneMillion) {
  for (uint64_t expected : {1000, 1'000'000}) {
    for (const auto& keys : {RandomKeyHashes(1'000'000, 8),
                             SequentialBigEndianKeyHashes(300'000)}) {
      CuckooFilter filter = CreateDynamic(12, expected);
      for (uint64_t h : keys) ASSERT_TRUE(filter.Add(h).ok());
      EXPECT_EQ(filter.num_items(), keys.size());
      for (uint64_t h : keys) ASSERT_TRUE(filter.MayContain(h));
      const std::string bytes = filter.Serialize();
      ExpectAllFound(Parse(bytes), keys,
                     "expected=" + std::to_string(expected));
    }
  }
}

TEST(CuckooDynamicTest, EraseRemovesOneCopyAtATime) {
  const auto others = RandomKeyHashes(1000, 9);
  const uint64_t key = HashKey("repeated");
  // expected 1: copies spill into the stash and chained bucket arrays.
  for (uint64_t expected : {1, 2000}) {
    CuckooFilter filter = CreateDynamic(16, expected);
    for (uint64_t h : others) ASSERT_TRUE(filter.Add(h).ok());
    for (int i = 0; i < 8; ++i) ASSERT_TRUE(filter.Add(key).ok());
    EXPECT_EQ(filter.num_items(), others.size() + 8);
    for (int i = 0; i < 8; ++i) {
      ASSERT_TRUE(filter.MayContain(key));
      ASSERT_TRUE(filter.Erase(key).ok()) << "copy " << i;
    }
    EXPECT_EQ(filter.Erase(key).code(), StatusCode::kNotFound);
    EXPECT_FALSE(filter.MayContain(key));
    EXPECT_EQ(filter.num_items(), others.size());
    for (uint64_t h : others) ASSERT_TRUE(filter.MayContain(h));
    for (uint64_t h : others) ASSERT_TRUE(filter.Erase(h).ok());
    EXPECT_EQ(filter.num_items(), 0u);
    EXPECT_EQ(filter.Erase(others[0]).code(), StatusCode::kNotFound);
  }
}

TEST(CuckooDynamicTest, NinthCopyOfAnItemIsTooManyDuplicates) {
  for (uint64_t expected : {1, 1000}) {
    CuckooFilter filter = CreateDynamic(12, expected);
    const uint64_t key = HashKey("eight is the limit");
    for (uint32_t i = 0; i < CuckooLimits::kMaxDuplicates; ++i) {
      ASSERT_TRUE(filter.Add(key).ok()) << "copy " << i;
    }
    const std::string before = filter.Serialize();
    const Status s = filter.Add(key);
    EXPECT_EQ(s.code(), StatusCode::kTooManyDuplicates) << s.ToString();
    EXPECT_EQ(filter.Serialize(), before) << "a refused insert changed it";
    EXPECT_EQ(filter.num_items(), 8u);
    ASSERT_TRUE(filter.Erase(key).ok());
    EXPECT_TRUE(filter.Add(key).ok()) << "room again after one erase";
  }
}

TEST(CuckooDynamicTest, FullFilterGrowsByChainingBucketArraysOfDoubleSize) {
  CuckooFilter filter = CreateDynamic(12, 1000);
  const auto keys = RandomKeyHashes(100'000, 12);
  for (uint64_t h : keys) ASSERT_TRUE(filter.Add(h).ok());
  const std::string bytes = filter.Serialize();
  const std::vector<ArrayInfo> arrays = ReadBucketArrays(bytes);
  ASSERT_EQ(arrays.size(), filter.num_bucket_arrays());
  EXPECT_GE(arrays.size(), 6u);
  EXPECT_LE(arrays.size(), CuckooLimits::kMaxBucketArrays);
  EXPECT_EQ(arrays[0].num_buckets, 261u);  // ceil(1000 / 3.84)
  for (size_t t = 0; t + 1 < arrays.size(); ++t) {
    EXPECT_EQ(arrays[t + 1].num_buckets, 2 * arrays[t].num_buckets);
    // A bucket array was left only when its stash was in use, i.e. it was full.
    EXPECT_GE(arrays[t].num_stashed, 1u) << "bucket array " << t;
    EXPECT_GE(ArrayLoad(bytes, arrays[t]), 0.9) << "bucket array " << t;
  }
  EXPECT_EQ(filter.num_items(), keys.size());
  for (uint64_t h : keys) ASSERT_TRUE(filter.MayContain(h));
}

TEST(CuckooDynamicTest, StashVictimReturnsToItsBucketArrayWhenSlotsFree) {
  CuckooFilter filter = CreateDynamic(12, 100);
  std::vector<uint64_t> first_array;
  for (uint64_t i = 0; filter.num_bucket_arrays() == 1; ++i) {
    const uint64_t h = HashKey("k" + std::to_string(i));
    ASSERT_TRUE(filter.Add(h).ok());
    first_array.push_back(h);
  }
  // The insert that overflowed went to the stash; the next one grew.
  first_array.pop_back();
  std::vector<ArrayInfo> arrays = ReadBucketArrays(filter.Serialize());
  ASSERT_EQ(arrays.size(), 2u);
  EXPECT_EQ(arrays[0].num_stashed, 1u);
  EXPECT_EQ(arrays[1].num_stashed, 0u);
  // Free a fifth of the first bucket array: a walk from the victim finds room.
  for (size_t i = 0; i < first_array.size() / 5; ++i) {
    ASSERT_TRUE(filter.Erase(first_array[i]).ok());
  }
  arrays = ReadBucketArrays(filter.Serialize());
  EXPECT_EQ(arrays[0].num_stashed, 0u);
  for (size_t i = first_array.size() / 5; i < first_array.size(); ++i) {
    ASSERT_TRUE(filter.MayContain(first_array[i]));
  }
}

TEST(CuckooDynamicTest, EraseOfAbsentItemIsNotFound) {
  CuckooFilter empty;
  EXPECT_EQ(empty.Erase(1).code(), StatusCode::kNotFound);
  EXPECT_EQ(empty.num_bucket_arrays(), 0u);
  CuckooFilter filter = CreateDynamic(16, 100);
  for (uint64_t h : SequentialKeyHashes(50)) ASSERT_TRUE(filter.Add(h).ok());
  const Status s = filter.EraseKey("never inserted");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_FALSE(s.message().empty());
  EXPECT_EQ(filter.num_items(), 50u);
}

TEST(CuckooDynamicTest, DeserializedFilterKeepsWorking) {
  CuckooFilter filter = CreateDynamic(12, 100);
  const auto keys = RandomKeyHashes(3000, 13);
  for (size_t i = 0; i < 2000; ++i) ASSERT_TRUE(filter.Add(keys[i]).ok());
  const std::string bytes = filter.Serialize();
  CuckooFilter copy;
  ASSERT_TRUE(CuckooFilter::Deserialize(bytes, &copy).ok());
  EXPECT_EQ(copy.Serialize(), bytes);
  EXPECT_EQ(copy.num_items(), 2000u);
  EXPECT_EQ(copy.num_bucket_arrays(), filter.num_bucket_arrays());
  // The copy goes on as a filter: more inserts (growing) and erases.
  for (size_t i = 2000; i < keys.size(); ++i) {
    ASSERT_TRUE(copy.Add(keys[i]).ok());
  }
  for (size_t i = 0; i < 1000; ++i) ASSERT_TRUE(copy.Erase(keys[i]).ok());
  EXPECT_EQ(copy.num_items(), 2000u);
  for (size_t i = 1000; i < keys.size(); ++i) {
    ASSERT_TRUE(copy.MayContain(keys[i]));
  }
  // A static filter, and an empty one, become dynamic filters that grow.
  const auto static_keys = RandomKeyHashes(1000, 14);
  for (const std::string& source :
       {BuildStatic(static_keys, 12), BuildStatic({}, 12)}) {
    CuckooFilter grown;
    ASSERT_TRUE(CuckooFilter::Deserialize(source, &grown).ok());
    const uint32_t arrays_before = grown.num_bucket_arrays();
    for (uint64_t h : keys) ASSERT_TRUE(grown.Add(h).ok());
    EXPECT_GT(grown.num_bucket_arrays(), arrays_before);
    for (uint64_t h : keys) ASSERT_TRUE(grown.MayContain(h));
    if (arrays_before > 0) {
      for (uint64_t h : static_keys) ASSERT_TRUE(grown.MayContain(h));
    }
  }
  // Deserialize checks its input like Parse.
  EXPECT_EQ(CuckooFilter::Deserialize("SF", &copy).code(),
            StatusCode::kCorruption);
}

TEST(CuckooDynamicTest, ErasingInsertedItemsNeverLosesAnotherItem) {
  // Many bucket arrays and short fingerprints make items collide across bucket
  // arrays. Erasing every inserted item in random order must always succeed,
  // and never take away a remaining item's only copy (the header's "Chains").
  for (uint32_t f : {6u, 8u, 12u}) {
    CuckooFilter filter = CreateDynamic(f, 20);
    std::vector<uint64_t> inserted;
    for (uint64_t h : RandomKeyHashes(20000, f)) {
      const Status s = filter.Add(h);
      if (s.ok()) {
        inserted.push_back(h);
      } else {
        ASSERT_EQ(s.code(), StatusCode::kTooManyDuplicates) << s.ToString();
      }
    }
    ASSERT_GE(filter.num_bucket_arrays(), 8u);
    std::shuffle(inserted.begin(), inserted.end(), std::mt19937_64(f));
    for (size_t i = 0; i < inserted.size(); ++i) {
      ASSERT_TRUE(filter.Erase(inserted[i]).ok()) << "f=" << f << " #" << i;
      if (i % 1000 != 0) continue;
      for (size_t j = i + 1; j < inserted.size(); ++j) {
        ASSERT_TRUE(filter.MayContain(inserted[j])) << "f=" << f << " #" << i;
      }
    }
    EXPECT_EQ(filter.num_items(), 0u);
    const std::string bytes = filter.Serialize();
    EXPECT_EQ(Parse(bytes).num_items(), 0u);
  }
}

TEST(CuckooDynamicTest, BatchAgreesWithSingleQueriesOnChainsWithStashes) {
  CuckooFilter filter = CreateDynamic(10, 50);
  const auto keys = RandomKeyHashes(5000, 15);
  for (uint64_t h : keys) ASSERT_TRUE(filter.Add(h).ok());
  const std::string bytes = filter.Serialize();
  const CuckooView view = Parse(bytes);
  EXPECT_GT(view.num_bucket_arrays(), 3u);
  std::vector<uint64_t> queries = AbsentKeyHashes(50000);
  queries.insert(queries.end(), keys.begin(), keys.end());
  const std::vector<char> batch = Batch(view, queries);
  size_t hits = 0;
  for (size_t i = 0; i < queries.size(); ++i) {
    ASSERT_EQ(batch[i] != 0, view.MayContain(queries[i])) << "query " << i;
    ASSERT_EQ(view.MayContain(queries[i]), filter.MayContain(queries[i]));
    hits += batch[i];
  }
  EXPECT_GE(hits, keys.size());
}

}  // namespace
}  // namespace sstfilter::test_support
