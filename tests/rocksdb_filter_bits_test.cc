// The builders and readers through RocksDB's FilterBitsBuilder and
// FilterBitsReader interfaces, as the table builder and reader call them.
#include <gtest/gtest.h>
#if defined(__linux__)
#include <malloc.h>
#endif

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "filter_bits.h"
#include "filter_bytes.h"
#include "rocksdb_test_support.h"
#include "sstfilter/blocked_bloom.h"
#include "sstfilter/cuckoo_filter.h"
#include "sstfilter/filter_view.h"
#include "sstfilter/format.h"
#include "sstfilter/hash.h"

namespace sstfilter::test_support {
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
  // Ours, with the methods that older RocksDB releases do not declare.
  // optimize_filters_for_memory (on by default since RocksDB 9.2) is off
  // unless asked for: with it, Finish may write other sizes than
  // CalculateSpace says.
  std::unique_ptr<rocksdb_plugin::BitsBuilder> OurBuilder(
      bool optimize_filters_for_memory = false) {
    rdb::BlockBasedTableOptions table_options;
    table_options.optimize_filters_for_memory = optimize_filters_for_memory;
    auto builder = Builder(table_options);
    return std::unique_ptr<rocksdb_plugin::BitsBuilder>(
        static_cast<rocksdb_plugin::BitsBuilder*>(builder.release()));
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

// One step of a table builder: AddKey(key), or AddKeyAndAlt(key, alt).
struct AddStep {
  std::string key;
  std::string alt;  // empty: AddKey
};

// The entries that RocksDB's rules (filter_policy_internal.h) keep from
// `steps`, written from the comment there: an alt is dropped when it equals
// the previous alt, its own key or the last entry kept; a key when it
// equals the last entry kept or the previous alt (AddKey: the last entry).
size_t ExpectedEntries(const std::vector<AddStep>& steps) {
  std::vector<std::string> kept;
  std::optional<std::string> previous_alt;
  auto last = [&]() -> std::optional<std::string> {
    if (kept.empty()) return std::nullopt;
    return kept.back();
  };
  for (const AddStep& step : steps) {
    if (step.alt.empty()) {
      if (step.key != last()) kept.push_back(step.key);
      continue;
    }
    const auto before = last();
    if (step.alt != previous_alt && step.alt != step.key &&
        step.alt != before) {
      kept.push_back(step.alt);
    }
    if (step.key != before && step.key != previous_alt) {
      kept.push_back(step.key);
    }
    previous_alt = step.alt;
  }
  return kept.size();
}

void Apply(rocksdb_plugin::BitsBuilder& builder, const AddStep& step) {
  if (step.alt.empty()) {
    builder.AddKey(step.key);
  } else {
    builder.AddKeyAndAlt(step.key, step.alt);
  }
}

// The cases of the comment on AddKeyAndAlt, one by one.
TEST_P(FilterBitsTest, AddKeyAndAltDeduplicatesAsRocksDBDocuments) {
  const struct {
    const char* what;
    std::vector<AddStep> steps;
    size_t entries;
  } cases[] = {
      {"prefixes repeat across keys",
       {{"p1a", "p1"}, {"p1b", "p1"}, {"p2a", "p2"}},
       5},
      {"a whole key is its own prefix", {{"p", "p"}, {"pa", "p"}}, 2},
      {"key equals the previous alt (reverse order)",
       {{"pb", "p"}, {"p", "p"}},
       2},
      {"k2 equals k1", {{"x", ""}, {"x", "y"}}, 2},
      {"a2 equals k1", {{"x", ""}, {"z", "x"}}, 2},
      {"a3 equals k2", {{"k2", "a2"}, {"k3", "k2"}}, 3},
      {"AddKey does not drop the previous alt", {{"k3", "a3"}, {"a3", ""}}, 3},
      {"AddKey drops the last key", {{"k3", "a3"}, {"k3", ""}}, 2},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    ASSERT_EQ(ExpectedEntries(c.steps), c.entries);
    auto builder = OurBuilder();
    for (const AddStep& step : c.steps) Apply(*builder, step);
    EXPECT_EQ(builder->EstimateEntriesAdded(), c.entries);
    // Whatever was dropped was a repeat: every key and alt still matches.
    std::unique_ptr<const char[]> owner;
    auto reader = Reader(builder->Finish(&owner));
    for (const AddStep& step : c.steps) {
      EXPECT_TRUE(reader->MayMatch(step.key)) << step.key;
      if (!step.alt.empty()) {
        EXPECT_TRUE(reader->MayMatch(step.alt));
      }
    }
  }
}

// Random mixes of AddKey and AddKeyAndAlt over a few strings, so that every
// kind of repeat occurs: the count after each step follows the rules (and,
// where RocksDB has AddKeyAndAlt, equals its own Bloom builder's), Finish
// forgets the previous alt, and no key or alt is lost.
TEST_P(FilterBitsTest, AddKeyAndAltCountsMatchTheRulesOnRandomSequences) {
  std::mt19937_64 random(7);
  const std::vector<std::string> words = {"a", "b", "c", "ab", "abc"};
  std::shared_ptr<const rdb::FilterPolicy> builtin;
  ASSERT_TRUE(MakePolicy("bloomfilter:10", &builtin).ok());
  for (int round = 0; round < 200; ++round) {
    auto builder = OurBuilder();
    std::unique_ptr<rdb::FilterBitsBuilder> reference(
        builtin->GetBuilderWithContext(
            rdb::FilterBuildingContext(rdb::BlockBasedTableOptions())));
    std::vector<AddStep> steps;
    for (int n = 0; n < 12; ++n) {
      AddStep step{words[random() % words.size()], ""};
      if (random() % 3 != 0) step.alt = words[random() % words.size()];
      steps.push_back(step);
      Apply(*builder, step);
      ASSERT_EQ(builder->EstimateEntriesAdded(), ExpectedEntries(steps))
          << "round " << round << " step " << n;
#if SSTFILTER_ROCKSDB_AT_LEAST(9, 6)
      if (step.alt.empty()) {
        reference->AddKey(step.key);
      } else {
        reference->AddKeyAndAlt(step.key, step.alt);
      }
      ASSERT_EQ(builder->EstimateEntriesAdded(),
                reference->EstimateEntriesAdded());
#endif
    }
    std::unique_ptr<const char[]> owner;
    auto reader = Reader(builder->Finish(&owner));
    for (const AddStep& step : steps) {
      ASSERT_TRUE(reader->MayMatch(step.key));
      if (!step.alt.empty()) {
        ASSERT_TRUE(reader->MayMatch(step.alt));
      }
    }
    // After Finish, the last alt is no longer a repeat.
    for (auto step = steps.rbegin(); step != steps.rend(); ++step) {
      if (step->alt.empty()) continue;
      builder->AddKeyAndAlt("k", step->alt);
      EXPECT_EQ(builder->EstimateEntriesAdded(), 2u);
      break;
    }
  }
}

// CalculateSpace, EstimatedFpRate and ApproximateNumEntries describe the
// filter that Finish writes, for every size.
TEST_P(FilterBitsTest, SpaceAndFpRateEstimatesDescribeWhatFinishWrites) {
  const bool cuckoo =
      std::string(GetParam()).find("Cuckoo") != std::string::npos;
  for (size_t count : {0, 1, 2, 63, 1000, 4097, 100000}) {
    SCOPED_TRACE(count);
    auto builder = OurBuilder();
    const auto keys = Keys("key", count);
    for (const auto& key : keys) builder->AddKey(key);
    const size_t space = builder->CalculateSpace(count);
    std::unique_ptr<const char[]> owner;
    const rdb::Slice bytes = builder->Finish(&owner);
    if (cuckoo) {
      // A build retried at a larger size writes about 1% more.
      EXPECT_GE(bytes.size(), space);
      EXPECT_LE(bytes.size(), space + space / 50 + 64);
    } else {
      EXPECT_EQ(bytes.size(), space);
    }
    EXPECT_GE(builder->ApproximateNumEntries(space), count);
    if (count > 0) {
      EXPECT_LT(builder->ApproximateNumEntries(space - 1), count);
    }

    // The estimate is the finished filter's own model FPR.
    double built_fpr = 0;
    uint32_t fingerprint_bits = 0;  // 0: BlockedBloom
    if (cuckoo) {
      CuckooView view;
      ASSERT_TRUE(CuckooView::Parse(bytes.ToStringView(), &view).ok());
      built_fpr = view.EstimatedFpr();
      fingerprint_bits = view.fingerprint_bits();
    } else {
      BlockedBloomView view;
      ASSERT_TRUE(BlockedBloomView::Parse(bytes.ToStringView(), &view).ok());
      built_fpr = view.EstimatedFpr();
    }
    const double estimate = builder->EstimatedFpRate(count, bytes.size());
    if (fingerprint_bits == 0) {
      EXPECT_NEAR(estimate, built_fpr, 1e-9 + built_fpr * 1e-6);
    } else {
      // Keys sharing a bucket pair and fingerprint share one item (about
      // 8 in 2^f), so the built filter compares fewer items than the
      // estimate for `count` keys assumes.
      EXPECT_LE(built_fpr, estimate * (1 + 1e-6) + 1e-9);
      EXPECT_GE(built_fpr, estimate * (1 - 16.0 / (1 << fingerprint_bits)));
    }
    if (count == 0) {
      EXPECT_EQ(estimate, 0.0);
      continue;
    }
    // Fewer bytes, a higher FPR; none at all, certainly a match.
    EXPECT_GT(builder->EstimatedFpRate(count, bytes.size() / 2), estimate);
    EXPECT_EQ(builder->EstimatedFpRate(count, 0), 1.0);
    if (count == 100000) {
      // And the model holds: measured over 10^6 absent keys, within 10%.
      auto reader = Reader(bytes);
      size_t positives = 0;
      for (const auto& key : Keys("absent", 1000000)) {
        positives += reader->MayMatch(key);
      }
      EXPECT_NEAR(positives / 1e6, estimate, estimate * 0.1);
    }
  }
}

// The bytes that filter/ writes for `keys` at the target size of the
// suite's policies (BlockedBloom at 10 bits/key, or the cuckoo's width):
// what the builders wrote before optimize_filters_for_memory was honoured.
std::string TargetSizeFilter(const std::vector<std::string>& keys,
                             const rdb::Slice& built) {
  std::vector<uint64_t> hashes;
  for (const auto& key : keys) hashes.push_back(HashKey(key));
  CuckooView cuckoo;
  if (CuckooView::Parse(built.ToStringView(), &cuckoo).ok()) {
    std::string bytes;
    EXPECT_TRUE(BuildStaticCuckoo(hashes.data(), hashes.size(),
                                  cuckoo.fingerprint_bits(), &bytes)
                    .ok());
    return bytes;
  }
  BlockedBloomView bloom;
  EXPECT_TRUE(BlockedBloomView::Parse(built.ToStringView(), &bloom).ok());
  const auto params = BlockedBloomParams::ForBitsPerKey(
      keys.size(), 10, bloom.params().lines_per_key);
  return WriteBlockedBloom(params, hashes);
}

// optimize_filters_for_memory off: the filter of the target size, byte for
// byte, as before the option was honoured.
TEST_P(FilterBitsTest, OptimizeFiltersForMemoryOffWritesTheTargetSize) {
  for (size_t count : {1, 63, 1000, 4097, 100000}) {
    SCOPED_TRACE(count);
    auto builder = OurBuilder(false);
    const auto keys = Keys("key", count);
    for (const auto& key : keys) builder->AddKey(key);
    std::unique_ptr<const char[]> owner;
    const rdb::Slice bytes = builder->Finish(&owner);
    EXPECT_EQ(bytes.ToString(), TargetSizeFilter(keys, bytes));
  }
}

// Random keys of every length XXH3 treats apart (0, 1-3, 4-8, 9-16,
// 17-128, 129-240 and longer).
std::vector<std::string> KeysOfEveryHashedLength(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> keys;
  for (size_t length = 0; length <= 1100; ++length) {
    std::string key(length, '\0');
    for (char& c : key) c = static_cast<char>(rng());
    keys.push_back(std::move(key));
  }
  return keys;
}

// The plugin hashes every key with sstfilter::HashKey, as this build
// compiled the plugin (in a RocksDB built with the plugin folder, as
// RocksDB's build did): its builder writes filter/'s filter of the keys'
// HashKey, byte for byte, and its reader answers every key, present or
// absent, as the filter's view answers that key's HashKey.
TEST_P(FilterBitsTest, BuilderAndReaderHashKeysWithHashKey) {
  const auto keys = KeysOfEveryHashedLength(34);
  auto builder = OurBuilder(false);
  for (const auto& key : keys) builder->AddKey(key);
  std::unique_ptr<const char[]> owner;
  const rdb::Slice bytes = builder->Finish(&owner);
  EXPECT_EQ(bytes.ToString(), TargetSizeFilter(keys, bytes));
  FilterView view;
  ASSERT_TRUE(FilterView::Parse(bytes.ToStringView(), &view).ok());
  auto reader = Reader(bytes);
  size_t differ = 0;
  for (const auto& key : keys) differ += !reader->MayMatch(key);
  for (const auto& key : KeysOfEveryHashedLength(35)) {
    differ += reader->MayMatch(key) != view.MayContain(HashKey(key));
  }
  EXPECT_EQ(differ, 0u);
}

// optimize_filters_for_memory on: the filter takes the usable space of its
// own buffer, less RocksDB's block trailer, to the last whole line
// or bucket, and finds every key.
TEST_P(FilterBitsTest, OptimizeFiltersForMemoryFillsItsBuffersUsableSpace) {
  constexpr size_t kBlockTrailer = kRocksdbBlockTrailerBytes;
  for (size_t count : {1000, 1001, 1002, 1003, 1010, 4097, 30000, 100000}) {
    SCOPED_TRACE(count);
    auto builder = OurBuilder(true);
    const auto keys = Keys("key", count);
    for (const auto& key : keys) builder->AddKey(key);
    const size_t target = builder->CalculateSpace(count);
    std::unique_ptr<const char[]> owner;
    const rdb::Slice bytes = builder->Finish(&owner);
    ExpectAllMayMatch(*Reader(bytes), keys);
    // The smallest step of size: a 64-byte line, or a cuckoo bucket.
    size_t step = BlockedBloomParams::kLineBytes;
    CuckooView cuckoo;
    if (CuckooView::Parse(bytes.ToStringView(), &cuckoo).ok()) {
      step = (4 * cuckoo.fingerprint_bits() + 7) / 8;
    }
    EXPECT_GE(bytes.size(), target - target / 4);
#if defined(__linux__)
    const size_t usable = malloc_usable_size(const_cast<char*>(owner.get()));
    ASSERT_GE(usable, bytes.size() + kBlockTrailer) << "its own buffer";
    // (Beyond a third more than the target the space is not trusted.)
    if (usable - kBlockTrailer <= target + target / 3) {
      EXPECT_LT(usable, bytes.size() + kBlockTrailer + step)
          << "room for another " << step << " bytes left unused";
    }
#endif
  }
}

// RocksDB 10.9 and later read EstimateEntriesAdded from another thread
// during parallel compression; the count it sees only grows, and ends
// exact. (The TSan build of the suite checks the access itself.)
TEST_P(FilterBitsTest, EstimateEntriesAddedIsReadableFromAnotherThread) {
  auto builder = OurBuilder();
  const auto keys = Keys("key", 200000);
  std::atomic<bool> done{false};
  std::atomic<size_t> reads{0};
  bool monotone = true;
  std::thread reader([&] {
    size_t previous = 0;
    while (!done.load()) {
      const size_t now = builder->EstimateEntriesAdded();
      monotone = monotone && now >= previous;
      previous = now;
      reads.fetch_add(1);
    }
  });
  const size_t half = keys.size() / 2;
  for (size_t i = 0; i < half; ++i) builder->AddKey(keys[i]);
  // Halfway, the reader reads at least twice before more keys are added,
  // so reads overlap the adds whatever the scheduler does.
  const size_t reads_at_half = reads.load();
  while (reads.load() < reads_at_half + 2) std::this_thread::yield();
  for (size_t i = half; i < keys.size(); ++i) builder->AddKey(keys[i]);
  done = true;
  reader.join();
  EXPECT_TRUE(monotone);
  EXPECT_EQ(builder->EstimateEntriesAdded(), keys.size());
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

// (Without optimize_filters_for_memory: with it, a filter may take the
// rest of its allocation's usable space, as RocksDB's own filters do.)
TEST_P(FilterBitsTest, ApproximateNumEntriesIsLargestCountThatFits) {
  rdb::BlockBasedTableOptions table_options;
  table_options.optimize_filters_for_memory = false;
  const rdb::FilterBuildingContext context(table_options);
  auto builder = Builder(table_options);
  for (size_t bytes :
       {0, 16, 24, 100, 1000, 4096, 4000 * 9 / 10, 65536, 1 << 20}) {
    SCOPED_TRACE(bytes);
    const size_t fits = builder->ApproximateNumEntries(bytes);
    // The filter of `fits` keys fits (when any does); one more key does
    // not.
    if (fits > 0) {
      EXPECT_LE(BuildFilter(*policy_, Keys("k", fits), context).bytes.size(),
                bytes);
    }
    EXPECT_GT(BuildFilter(*policy_, Keys("k", fits + 1), context).bytes.size(),
              bytes);
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
  // Any byte of the metadata at the block's end (both kinds keep at least
  // 24 bytes there: the checksum, the fields that size and shape the filter,
  // the tag) changed: the checksum or the tag refuses it, so a damaged
  // header never reads as another filter, which would lose keys.
  for (size_t back = 1; back <= 24; ++back) {
    std::string bad = good;
    const size_t at = good.size() - back;
    bad[at] = static_cast<char>(bad[at] ^ 0x40);
    expect_always_may_match(bad, "byte " + std::to_string(at) + " flipped");
  }
  std::string unknown_kind = good;
  unknown_kind[good.size() - 2] = 7;
  expect_always_may_match(unknown_kind, "kind 7");
  std::string next_version = good;
  next_version[good.size() - 1] =
      static_cast<char>(next_version[good.size() - 1] + 1);
  expect_always_may_match(next_version, "next version");
  expect_always_may_match(std::string(), "empty");
  expect_always_may_match(std::string(1000, '\xff'), "garbage");
  // RocksDB's own blocks, damaged where their metadata says what they are:
  // no longer a well-formed built-in block, so "may match" too.
  std::shared_ptr<const rdb::FilterPolicy> builtin;
  ASSERT_TRUE(MakePolicy("bloomfilter:10:false", &builtin).ok());
  std::string rocksdb_bloom = BuildFilter(*builtin, keys).bytes.ToString();
  rocksdb_bloom[rocksdb_bloom.size() - 4] = 1;  // FastLocalBloom's sub-impl
  expect_always_may_match(rocksdb_bloom, "RocksDB Bloom, unknown variant");
}

// Either policy reads both kinds of ours (RocksDB's kinds:
// rocksdb_builtin_reader_test).
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
}  // namespace sstfilter::test_support
