// The builders and readers through RocksDB's FilterBitsBuilder and
// FilterBitsReader interfaces, as the table builder and reader call them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "rocksdb_test_support.h"
#include "sstfilter/blocked_bloom.h"
#include "sstfilter/cuckoo_filter.h"
#include "sstfilter/format.h"

namespace sstfilter::rocksdb_testing {
namespace {

// One policy per filter kind (the hybrid's choice is tested in
// rocksdb_policy_test).
const char* const kPolicies[] = {"sstfilter.BlockedBloom:10",
                                 "sstfilter.Cuckoo:12"};

class FilterBitsTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override { ASSERT_TRUE(MakePolicy(GetParam(), &policy_).ok()); }
  std::unique_ptr<rdb::FilterBitsReader> Reader(const rdb::Slice& bytes) {
    return std::unique_ptr<rdb::FilterBitsReader>(
        policy_->GetFilterBitsReader(bytes));
  }
  std::unique_ptr<rdb::FilterBitsBuilder> Builder(
      const rdb::BlockBasedTableOptions& table_options) {
    return std::unique_ptr<rdb::FilterBitsBuilder>(
        policy_->GetBuilderWithContext(
            rdb::FilterBuildingContext(table_options)));
  }

  std::shared_ptr<const rdb::FilterPolicy> policy_;
};

// MayMatch of every key, single and batched (in MultiGet-sized batches).
void ExpectAllMayMatch(rdb::FilterBitsReader& reader,
                       const std::vector<std::string>& keys) {
  size_t misses = 0;
  for (const auto& key : keys) misses += reader.MayMatch(key) ? 0 : 1;
  EXPECT_EQ(misses, 0u) << "single MayMatch false negatives";
  std::vector<rdb::Slice> slices(keys.begin(), keys.end());
  std::vector<rdb::Slice*> pointers;
  for (auto& slice : slices) pointers.push_back(&slice);
  misses = 0;
  for (size_t start = 0; start < keys.size(); start += 32) {
    const int count =
        static_cast<int>(std::min<size_t>(32, keys.size() - start));
    bool may_match[32];
    reader.MayMatch(count, pointers.data() + start, may_match);
    misses += std::count(may_match, may_match + count, false);
  }
  EXPECT_EQ(misses, 0u) << "batched MayMatch false negatives";
}

TEST_P(FilterBitsTest, NeverFalseNegativeAcrossSizes) {
  for (size_t count : {0, 1, 2, 3, 7, 64, 65, 1000, 4097, 100000, 1000000}) {
    SCOPED_TRACE(count);
    const auto keys = Keys("key", count);
    const BuiltFilter filter = BuildFilter(*policy_, keys);
    EXPECT_EQ(filter.entries_added, count);
    auto reader = Reader(filter.bytes);
    ExpectAllMayMatch(*reader, keys);
  }
}

TEST_P(FilterBitsTest, BatchedMayMatchEqualsSingle) {
  const BuiltFilter filter = BuildFilter(*policy_, Keys("key", 20000));
  auto reader = Reader(filter.bytes);
  // Absent keys, in batches of every size up to 130 (past the reader's
  // 64-key hashing groups), so both answers occur.
  const auto absent = Keys("absent", 130 * 131 / 2);
  std::vector<rdb::Slice> slices(absent.begin(), absent.end());
  std::vector<rdb::Slice*> pointers;
  for (auto& slice : slices) pointers.push_back(&slice);
  size_t start = 0;
  size_t positives = 0;
  for (int batch = 1; batch <= 130; ++batch) {
    std::unique_ptr<bool[]> batched(new bool[batch]);
    reader->MayMatch(batch, pointers.data() + start, batched.get());
    for (int i = 0; i < batch; ++i) {
      ASSERT_EQ(batched[i], reader->MayMatch(slices[start + i]))
          << "batch " << batch << " key " << i;
      positives += batched[i] ? 1 : 0;
    }
    start += batch;
  }
  // A working filter at 10-12 bits/key rejects nearly all of them.
  EXPECT_LT(positives, absent.size() / 20);
}

TEST_P(FilterBitsTest, RepeatedHashesAreAddedOnce) {
  auto builder = Builder(rdb::BlockBasedTableOptions());
  // Sorted input with duplicates, as a table builder adds keys.
  for (const char* key : {"a", "a", "b", "b", "b", "c"}) builder->AddKey(key);
  EXPECT_EQ(builder->EstimateEntriesAdded(), 3u);
  // Only consecutive repeats are dropped: with a prefix extractor RocksDB
  // interleaves keys and prefixes.
  for (const char* key : {"p", "pa", "p", "pb"}) builder->AddKey(key);
  EXPECT_EQ(builder->EstimateEntriesAdded(), 7u);
  std::unique_ptr<const char[]> owner;
  rdb::Status status;
  const rdb::Slice bytes = builder->Finish(&owner, &status);
  ASSERT_TRUE(status.ok());
  auto reader = Reader(bytes);
  ExpectAllMayMatch(*reader, {"a", "b", "c", "p", "pa", "pb"});
}

TEST_P(FilterBitsTest, ZeroKeysGiveValidEmptyFilter) {
  const BuiltFilter filter = BuildFilter(*policy_, {});
  ASSERT_TRUE(filter.owner != nullptr);
  FilterKind kind;
  uint8_t version;
  ASSERT_TRUE(PeekFormat(filter.bytes.ToStringView(), &kind, &version).ok());
  auto reader = Reader(filter.bytes);
  // A valid filter of nothing: every key is certainly absent.
  for (const auto& key : Keys("k", 100)) EXPECT_FALSE(reader->MayMatch(key));
}

TEST_P(FilterBitsTest, BuilderStartsAfreshAfterFinish) {
  // A partitioned filter reuses one builder for every partition.
  auto builder = Builder(rdb::BlockBasedTableOptions());
  std::vector<std::string> partitions[2] = {Keys("first", 5000),
                                            Keys("second", 3000)};
  for (const auto& keys : partitions) {
    for (const auto& key : keys) builder->AddKey(key);
    EXPECT_EQ(builder->EstimateEntriesAdded(), keys.size());
    std::unique_ptr<const char[]> owner;
    rdb::Status status;
    const rdb::Slice bytes = builder->Finish(&owner, &status);
    ASSERT_TRUE(status.ok());
    EXPECT_TRUE(builder->MaybePostVerify(bytes).ok());
    EXPECT_EQ(builder->EstimateEntriesAdded(), 0u);
    auto reader = Reader(bytes);
    ExpectAllMayMatch(*reader, keys);
  }
}

TEST_P(FilterBitsTest, ApproximateNumEntriesIsLargestCountThatFits) {
  auto builder = Builder(rdb::BlockBasedTableOptions());
  for (size_t bytes :
       {0, 16, 24, 100, 1000, 4096, 4000 * 9 / 10, 65536, 1 << 20}) {
    SCOPED_TRACE(bytes);
    const size_t fits = builder->ApproximateNumEntries(bytes);
    // The filter of `fits` keys fits (when any does); one more key does
    // not.
    if (fits > 0) {
      EXPECT_LE(BuildFilter(*policy_, Keys("k", fits)).bytes.size(), bytes);
    }
    EXPECT_GT(BuildFilter(*policy_, Keys("k", fits + 1)).bytes.size(), bytes);
    if (bytes >= 1000) {
      // And it is about bytes * 8 / bits_per_key (10 or 12 here).
      EXPECT_GT(fits, bytes * 8 / 14);
    }
  }
}

// detect_filter_construct_corruption: the new filter is checked against
// every key hash, so a corrupted filter fails the table build.
TEST_P(FilterBitsTest, PostVerifyCatchesCorruptedFilterOnlyWhenAsked) {
  for (bool detect : {false, true}) {
    SCOPED_TRACE(detect);
    rdb::BlockBasedTableOptions table_options;
    table_options.detect_filter_construct_corruption = detect;
    const auto keys = Keys("key", 10000);
    auto build = [&](std::unique_ptr<const char[]>* owner) {
      auto builder = Builder(table_options);
      for (const auto& key : keys) builder->AddKey(key);
      rdb::Status status;
      const rdb::Slice bytes = builder->Finish(owner, &status);
      EXPECT_TRUE(status.ok());
      return std::make_pair(std::move(builder), bytes);
    };
    std::unique_ptr<const char[]> good_owner;
    auto good = build(&good_owner);
    EXPECT_TRUE(good.first->MaybePostVerify(good.second).ok());

    std::unique_ptr<const char[]> owner;
    auto built = build(&owner);
    // Clear everything after the header: the filter still parses but has
    // lost its keys.
    std::string corrupted = built.second.ToString();
    std::fill(corrupted.begin() + 24, corrupted.end(), '\0');
    const rdb::Status s = built.first->MaybePostVerify(corrupted);
    EXPECT_EQ(s.IsCorruption(), detect) << s.ToString();
    // A block that does not parse at all is caught too.
    auto third = build(&owner);
    const rdb::Status t = third.first->MaybePostVerify(rdb::Slice("xx", 2));
    EXPECT_EQ(t.IsCorruption(), detect) << t.ToString();
  }
}

// A block the reader cannot parse answers "may match" for every key, never
// a false negative, never a crash (ASan/UBSan builds check the "never
// reads out of bounds" part).
TEST_P(FilterBitsTest, MalformedBlockAnswersMayMatch) {
  const auto keys = Keys("key", 3000);
  const auto absent = Keys("absent", 2000);
  const std::string good = BuildFilter(*policy_, keys).bytes.ToString();
  {
    // Sanity: the intact block rejects most absent keys.
    auto reader = Reader(good);
    size_t positives = 0;
    for (const auto& key : absent) positives += reader->MayMatch(key);
    ASSERT_LT(positives, absent.size() / 10);
  }
  auto expect_always_may_match = [&](const std::string& bytes,
                                     const std::string& what) {
    SCOPED_TRACE(what);
    auto reader = Reader(bytes);
    ExpectAllMayMatch(*reader, absent);
    ExpectAllMayMatch(*reader, keys);
  };
  // Every truncation, and one byte too many.
  for (size_t size = 0; size < good.size();
       size += (size < 64 ? 1 : good.size() / 50)) {
    expect_always_may_match(good.substr(0, size),
                            "truncated to " + std::to_string(size));
  }
  expect_always_may_match(good + '\0', "one byte appended");
  // Broken magic, an unknown kind, an unknown version.
  for (size_t at : {0, 1, 2, 3}) {
    std::string bad = good;
    bad[at] = static_cast<char>(bad[at] ^ 0x40);
    expect_always_may_match(bad, "byte " + std::to_string(at) + " flipped");
  }
  std::string unknown_kind = good;
  unknown_kind[2] = 7;
  expect_always_may_match(unknown_kind, "kind 7");
  std::string next_version = good;
  next_version[3] = static_cast<char>(next_version[3] + 1);
  expect_always_may_match(next_version, "next version");
  // A size field that disagrees with the length: BlockedBloom's num_lines
  // (bytes 8-15) or the cuckoo table's bucket count (bytes 8-11).
  for (size_t at : {8, 9, 11}) {
    std::string bad = good;
    bad[at] = static_cast<char>(bad[at] ^ 0x10);
    expect_always_may_match(bad, "size byte " + std::to_string(at));
  }
  expect_always_may_match(std::string(), "empty");
  expect_always_may_match(std::string(1000, '\xff'), "garbage");
  // Another filter family's block (RocksDB's own Bloom filter).
  std::shared_ptr<const rdb::FilterPolicy> builtin;
  ASSERT_TRUE(MakePolicy("bloomfilter:10:false", &builtin).ok());
  expect_always_may_match(BuildFilter(*builtin, keys).bytes.ToString(),
                          "RocksDB Bloom block");
}

// Either policy reads both kinds (one compatibility family).
TEST_P(FilterBitsTest, ReadsFiltersOfEveryKind) {
  const auto keys = Keys("key", 5000);
  for (const char* other : kPolicies) {
    SCOPED_TRACE(other);
    std::shared_ptr<const rdb::FilterPolicy> writer;
    ASSERT_TRUE(MakePolicy(other, &writer).ok());
    const BuiltFilter filter = BuildFilter(*writer, keys);
    auto reader = Reader(filter.bytes);
    ExpectAllMayMatch(*reader, keys);
    size_t positives = 0;
    for (const auto& key : Keys("absent", 5000)) {
      positives += reader->MayMatch(key);
    }
    EXPECT_LT(positives, 5000u / 20);
  }
}

INSTANTIATE_TEST_SUITE_P(Policies, FilterBitsTest,
                         ::testing::ValuesIn(kPolicies),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param).find("Cuckoo") !=
                                          std::string::npos
                                      ? "Cuckoo"
                                      : "BlockedBloom";
                         });

}  // namespace
}  // namespace sstfilter::rocksdb_testing
