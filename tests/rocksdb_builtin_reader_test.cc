// RocksDB never misreads ours: the reader RocksDB itself uses for its
// built-in family (that of NewBloomFilterPolicy and NewRibbonFilterPolicy,
// BuiltinFilterPolicy::GetBuiltinFilterBitsReader) over every block an
// sstfilter policy writes answers "may match" for every key, as it does
// after a rollback to bloomfilter or in a binary without the plugin. The
// levels LevelAware gives RocksDB's own kinds (FastLocalBloom, Ribbon) are
// RocksDB's blocks: RocksDB's reader filters them, with no false negative.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "rocksdb_test_support.h"
#include "sstfilter/block_classifier.h"
#include "sstfilter/format.h"

namespace sstfilter::test_support {
namespace {

// Every policy, and the layouts and kinds they write.
const char* const kPolicies[] = {
    "sstfilter.BlockedBloom:10",
    "sstfilter.BlockedBloom:10:1",
    "sstfilter.BlockedBloom:2",
    "sstfilter.Cuckoo:12",
    "sstfilter.Cuckoo:33",
    "sstfilter.Hybrid:10",
    "sstfilter.Hybrid:10:-1",
    "sstfilter.LevelAware:10",
    "sstfilter.LevelAware:10:cpu_lean",
    "sstfilter.LevelAware:10:portable",
};

// A block that RocksDB's own builder wrote (LevelAware's levels of
// RocksDB's kinds): FastLocalBloom or Ribbon, or, for no keys, RocksDB's
// empty block.
bool IsRocksdbKind(std::string_view bytes) {
  const FilterKind kind = ReadBuiltinFormat(bytes).kind;
  return kind == FilterKind::kFastLocalBloom ||
         kind == FilterKind::kRibbon128 || kind == FilterKind::kEmpty;
}

const size_t kSizes[] = {0, 1, 2, 3, 5, 64, 1000, 4097, 100000};

// RocksDB's readers: the Bloom policy's and the Ribbon policy's (one
// dispatcher, asked through both public policies).
std::vector<std::shared_ptr<const rdb::FilterPolicy>> BuiltinReaders() {
  std::vector<std::shared_ptr<const rdb::FilterPolicy>> readers;
  readers.emplace_back(rdb::NewBloomFilterPolicy(10));
  readers.emplace_back(rdb::NewRibbonFilterPolicy(10));
  return readers;
}

// Counts the keys `reader` answers "no" for, single and in MultiGet-sized
// batches.
size_t FalseNegatives(rdb::FilterBitsReader& reader,
                      const std::vector<std::string>& keys) {
  size_t misses = 0;
  for (const auto& key : keys) misses += reader.MayMatch(key) ? 0 : 1;
  std::vector<rdb::Slice> slices(keys.begin(), keys.end());
  std::vector<rdb::Slice*> pointers;
  for (auto& slice : slices) pointers.push_back(&slice);
  for (size_t start = 0; start < keys.size(); start += 32) {
    const int count =
        static_cast<int>(std::min<size_t>(32, keys.size() - start));
    bool may_match[32];
    reader.MayMatch(count, pointers.data() + start, may_match);
    misses +=
        static_cast<size_t>(std::count(may_match, may_match + count, false));
  }
  return misses;
}

// The contexts a table builder gives: a flush, and compactions to L1 and
// the bottommost L3 (LevelAware and Hybrid choose per level).
std::vector<rdb::FilterBuildingContext> Contexts(
    const rdb::BlockBasedTableOptions& table_options) {
  std::vector<rdb::FilterBuildingContext> contexts;
  for (int level : {-1, 1, 3}) {
    rdb::FilterBuildingContext context(table_options);
    context.compaction_style = rdb::kCompactionStyleLevel;
    context.num_levels = 4;
    // A flush is at level 0 (RocksDB's Ribbon policy asserts it, in
    // Debian's build with assertions on).
    context.level_at_creation = level == -1 ? 0 : level;
    context.is_bottommost = level == 3;
    context.reason = level == -1 ? rdb::TableFileCreationReason::kFlush
                                 : rdb::TableFileCreationReason::kCompaction;
    contexts.push_back(context);
  }
  return contexts;
}

TEST(RocksdbBuiltinReader, ReadsEveryBlockOfOursAsMayMatch) {
  const rdb::BlockBasedTableOptions table_options;
  size_t blocks = 0, rocksdb_blocks = 0;
  for (const char* id : kPolicies) {
    std::shared_ptr<const rdb::FilterPolicy> policy;
    ASSERT_TRUE(MakePolicy(id, &policy).ok()) << id;
    for (const rdb::FilterBuildingContext& context : Contexts(table_options)) {
      for (size_t count : kSizes) {
        SCOPED_TRACE(std::string(id) + ", level " +
                     std::to_string(context.level_at_creation) + ", " +
                     std::to_string(count) + " keys");
        const auto keys = Keys("key", count);
        const BuiltFilter filter = BuildFilter(*policy, keys, context);
        const std::string_view bytes = filter.bytes.ToStringView();
        ++blocks;
        if (std::string_view(id).find("LevelAware") != std::string_view::npos &&
            IsRocksdbKind(bytes)) {
          for (const auto& builtin : BuiltinReaders()) {
            std::unique_ptr<rdb::FilterBitsReader> reader(
                builtin->GetFilterBitsReader(filter.bytes));
            EXPECT_EQ(FalseNegatives(*reader, keys), 0u);
          }
          ++rocksdb_blocks;
          continue;
        }
        // Ours (tagged), and never as small as RocksDB's "no keys" block.
        FilterKind kind;
        uint8_t version;
        ASSERT_TRUE(PeekFormat(bytes, &kind, &version).ok());
        ASSERT_GT(bytes.size(), kRocksdbFilterMetadataBytes);
        ASSERT_EQ(bytes[bytes.size() - kRocksdbFilterMetadataBytes], 0);
        for (const auto& builtin : BuiltinReaders()) {
          std::unique_ptr<rdb::FilterBitsReader> reader(
              builtin->GetFilterBitsReader(filter.bytes));
          EXPECT_EQ(FalseNegatives(*reader, keys), 0u);
          // "May match" for absent keys too: RocksDB reads zero probes.
          EXPECT_EQ(FalseNegatives(*reader, Keys("absent", 200)), 0u);
        }
      }
    }
  }
  EXPECT_EQ(blocks, std::size(kPolicies) * 3 * std::size(kSizes));
  // The portable choice writes nothing else.
  EXPECT_GE(rocksdb_blocks, 3 * std::size(kSizes));
}

// The same through a real table's filter of each partition: a partitioned
// filter's partitions are built by the same builder, sized by
// ApproximateNumEntries; every partition is a block of ours too.
TEST(RocksdbBuiltinReader, ReadsEveryPartitionSizeOfOursAsMayMatch) {
  const auto keys = Keys("key", 20000);
  for (const char* id : kPolicies) {
    SCOPED_TRACE(id);
    std::shared_ptr<const rdb::FilterPolicy> policy;
    ASSERT_TRUE(MakePolicy(id, &policy).ok());
    rdb::BlockBasedTableOptions table_options;
    table_options.partition_filters = true;
    table_options.metadata_block_size = 256;  // small partitions
    rdb::FilterBuildingContext context(table_options);
    std::unique_ptr<rdb::FilterBitsBuilder> sizer(
        policy->GetBuilderWithContext(context));
    const size_t per_partition =
        std::max<size_t>(1, sizer->ApproximateNumEntries(256));
    for (size_t start = 0; start < keys.size(); start += per_partition) {
      const std::vector<std::string> part(
          keys.begin() + static_cast<ptrdiff_t>(start),
          keys.begin() + static_cast<ptrdiff_t>(
                             std::min(keys.size(), start + per_partition)));
      const BuiltFilter filter = BuildFilter(*policy, part, context);
      for (const auto& builtin : BuiltinReaders()) {
        std::unique_ptr<rdb::FilterBitsReader> reader(
            builtin->GetFilterBitsReader(filter.bytes));
        ASSERT_EQ(FalseNegatives(*reader, part), 0u) << "partition " << start;
      }
    }
  }
}

// The other way, for the record: each policy of ours reads RocksDB's
// blocks exactly as RocksDB's own reader does (legacy Bloom, from
// format_version 4 and below, included).
TEST(RocksdbBuiltinReader, OurReaderAnswersRocksDbsBlocksAsRocksDbDoes) {
  const auto keys = Keys("key", 3000);
  const auto absent = Keys("absent", 3000);
  struct Writer {
    const char* id;
    int format_version;
  };
  const Writer writers[] = {
      {"bloomfilter:10", 5}, {"ribbonfilter:10", 5}, {"bloomfilter:10", 4}};
  for (const char* id : kPolicies) {
    std::shared_ptr<const rdb::FilterPolicy> ours;
    ASSERT_TRUE(MakePolicy(id, &ours).ok());
    for (const Writer& w : writers) {
      SCOPED_TRACE(std::string(id) + " reading " + w.id + " format_version " +
                   std::to_string(w.format_version));
      std::shared_ptr<const rdb::FilterPolicy> theirs;
      ASSERT_TRUE(MakePolicy(w.id, &theirs).ok());
      rdb::BlockBasedTableOptions table_options;
      table_options.format_version = w.format_version;
      const BuiltFilter filter =
          BuildFilter(*theirs, keys, rdb::FilterBuildingContext(table_options));
      std::unique_ptr<rdb::FilterBitsReader> our_reader(
          ours->GetFilterBitsReader(filter.bytes));
      std::unique_ptr<rdb::FilterBitsReader> their_reader(
          theirs->GetFilterBitsReader(filter.bytes));
      EXPECT_EQ(FalseNegatives(*our_reader, keys), 0u);
      // A batch larger than a MultiGet's 32 (RocksDB's own reader keeps 32
      // on its stack; ours hands it 32 at a time).
      {
        std::vector<rdb::Slice> slices(keys.begin(), keys.begin() + 100);
        std::vector<rdb::Slice*> pointers;
        for (auto& slice : slices) pointers.push_back(&slice);
        bool may_match[100] = {};
        our_reader->MayMatch(100, pointers.data(), may_match);
        EXPECT_EQ(std::count(may_match, may_match + 100, true), 100);
      }
      size_t positives = 0;
      for (const auto& key : absent) {
        const bool answer = our_reader->MayMatch(key);
        ASSERT_EQ(answer, their_reader->MayMatch(key)) << key;
        positives += answer;
      }
      // It filters: at 10 bits/key RocksDB's kinds pass about 1%.
      EXPECT_LT(positives, absent.size() / 20);
    }
  }
}

}  // namespace
}  // namespace sstfilter::test_support
