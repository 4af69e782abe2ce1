// The inspector's library on real SST files: figures that match what the
// test built, key answers as RocksDB gives them, every table format and
// checksum, and clean errors on damaged copies.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "filter_block_decoder.h"
#include "inspector.h"
#include "keys.h"
#include "rocksdb/version.h"
#include "sst_parser.h"
#include "tools_test_support.h"

namespace sstfilter::test_support {
namespace {

using inspect::FileReport;
using inspect::InspectFile;
using inspect::InspectSource;

// The format_versions the RocksDB we link can write (its
// include/rocksdb/table.h): 11.0 dropped 0 and 1; 8.6 added 6, 10.4 added 7.
constexpr int kRocksDbVersion = ROCKSDB_MAJOR * 100 + ROCKSDB_MINOR;
constexpr int kOldestWritableFormat = kRocksDbVersion >= 1100 ? 2 : 0;
constexpr int kNewestWritableFormat = kRocksDbVersion >= 1004  ? 7
                                      : kRocksDbVersion >= 806 ? 6
                                                               : 5;

// What a policy's filter must look like in the report.
struct PolicyCase {
  const char* policy;
  // Written under sstfilter 0.1's family name (the policy option
  // compatibility_name=sstfilter), not RocksDB's that ours share now.
  bool old_name;
  const char* family;
  const char* kind;
  double min_bits_per_key;
  double max_bits_per_key;  // of one block holding all keys
  // What each block may add by rounding up its size, in bytes: partitions
  // hold few keys each, so this adds up.
  double block_overhead_bytes;
  const char* occupancy_name;
  double min_occupancy;
  double max_occupancy;

  // The FilterPolicy::CreateFromString value.
  std::string Value() const {
    return old_name ? std::string("id=") + policy +
                          ";compatibility_name=" + kSstfilterCompatibilityName
                    : policy;
  }
  // The family name after "fullfilter." in the SST.
  std::string CompatibilityName() const {
    return old_name ? kSstfilterCompatibilityName
                    : kRocksdbFamilyCompatibilityName;
  }
};

void PrintTo(const PolicyCase& c, std::ostream* os) {
  *os << c.policy << (c.old_name ? " under the old name" : "");
}

// Bits/key bounds: sstfilter sizes BlockedBloom and RocksDB sizes its Bloom
// to bits_per_key rounded up to whole 64-byte lines (plus a 24-byte header
// or 5 metadata bytes); Cuckoo:12 takes 11-bit fingerprints at ~96% load
// (11/0.96 = 11.5) after a 20-byte header; RocksDB's Ribbon saves ~30%
// against the Bloom it matches.
const PolicyCase kPolicies[] = {
    {"sstfilter.BlockedBloom:10", false, "sstfilter", "BlockedBloom", 9.95,
     10.2, 64 + 24, "fill", 0.35, 0.65},
    {"sstfilter.Cuckoo:12", false, "sstfilter", "Cuckoo", 11.3, 12.0, 20 + 6,
     "load", 0.9, 0.98},
    // A flush is level -1: Hybrid gives it a BlockedBloom filter, unless
    // bloom_before_level is -1.
    {"sstfilter.Hybrid:10", false, "sstfilter", "BlockedBloom", 9.95, 10.2,
     64 + 24, "fill", 0.35, 0.65},
    {"sstfilter.Hybrid:10:-1", false, "sstfilter", "Cuckoo", 9.3, 10.0, 20 + 5,
     "load", 0.9, 0.98},
    {"bloomfilter:10", false, "rocksdb", "FastLocalBloom", 9.95, 10.2, 64 + 5,
     "fill", 0.35, 0.65},
    // Ribbon from level -1 up, like the Hybrid one above.
    {"ribbonfilter:10:-1", false, "rocksdb", "Ribbon128", 6.5, 7.8, 16 * 7 + 5,
     "", 0, 0},
    // A DB that sstfilter 0.1 wrote, or one that keeps its name until it is
    // compacted.
    {"sstfilter.BlockedBloom:10", true, "sstfilter", "BlockedBloom", 9.95, 10.2,
     64 + 24, "fill", 0.35, 0.65},
    {"sstfilter.Cuckoo:12", true, "sstfilter", "Cuckoo", 11.3, 12.0, 20 + 6,
     "load", 0.9, 0.98},
};

class InspectPolicyTest : public ::testing::TestWithParam<PolicyCase> {};

void ExpectFiguresMatch(const PolicyCase& c, const DbSpec& spec,
                        const FileReport& report) {
  ASSERT_TRUE(report.status.ok()) << report.status.ToString();
  EXPECT_EQ(report.table.compatibility_name, c.CompatibilityName());
  ASSERT_FALSE(report.blocks.empty());
  for (const sst::FilterBlockInfo& block : report.blocks) {
    EXPECT_EQ(block.family, c.family);
    EXPECT_EQ(block.kind, c.kind);
    EXPECT_EQ(block.occupancy_name, c.occupancy_name);
  }
  EXPECT_EQ(report.keys, spec.num_keys);
  EXPECT_EQ(report.keys_source, "num_filter_entries");
  EXPECT_GE(report.bits_per_key, c.min_bits_per_key);
  EXPECT_LE(report.bits_per_key,
            c.max_bits_per_key + 8 * c.block_overhead_bytes *
                                     report.blocks.size() / spec.num_keys);
  if (*c.occupancy_name != '\0') {
    EXPECT_GE(report.occupancy, c.min_occupancy);
    EXPECT_LE(report.occupancy, c.max_occupancy);
  }
  // Every policy here aims at about 1% (Cuckoo:12 lower).
  EXPECT_GT(report.fpr, 0.001);
  EXPECT_LT(report.fpr, 0.03);
  // sstfilter's blocks record their keys: together, every key once.
  if (std::string(c.family) == "sstfilter") {
    uint64_t keys = 0;
    for (const sst::FilterBlockInfo& block : report.blocks) {
      ASSERT_TRUE(block.keys_known);
      keys += block.keys;
    }
    EXPECT_EQ(keys, spec.num_keys);
  }
}

// Present keys all "may match"; absent ones are rejected at about the
// estimated rate (within a factor of 2: the Bloom estimate is a lower
// bound and RocksDB's one-line Bloom fills its lines unevenly).
void ExpectAnswers(const DbSpec& spec, const std::string& sst) {
  const std::vector<std::string> present = DbKeys(spec);
  const FileReport report = InspectFile(sst, present);
  ASSERT_TRUE(report.status.ok()) << report.status.ToString();
  ASSERT_EQ(report.answers.size(), present.size());
  for (const inspect::KeyAnswer& answer : report.answers) {
    ASSERT_TRUE(answer.answered) << answer.key << ": " << answer.error;
    ASSERT_TRUE(answer.may_match) << answer.key;
    EXPECT_EQ(answer.partition >= 0, spec.partitioned);
  }
  const std::vector<std::string> absent = AbsentKeys(100000);
  const FileReport negatives = InspectFile(sst, absent);
  size_t false_positives = 0;
  for (const inspect::KeyAnswer& answer : negatives.answers) {
    ASSERT_TRUE(answer.answered) << answer.key << ": " << answer.error;
    false_positives += answer.may_match;
  }
  const double measured = static_cast<double>(false_positives) / absent.size();
  EXPECT_NEAR(measured, negatives.fpr,
              FprTolerance(negatives.fpr, absent.size(), 0.15));
}

TEST_P(InspectPolicyTest, FullFilterFiguresMatchTheKeysItHolds) {
  const PolicyCase& c = GetParam();
  TempDir dir;
  DbSpec spec;
  spec.policy = c.Value();
  const std::string sst = BuildDb(dir.path(), spec);
  const FileReport report = InspectFile(sst, {});
  ASSERT_EQ(report.table.filter_layout, sst::FilterLayout::kFull);
  EXPECT_EQ(report.blocks.size(), 1u);
  ExpectFiguresMatch(c, spec, report);
  ExpectAnswers(spec, sst);
}

TEST_P(InspectPolicyTest, PartitionedFilterReportsEveryPartition) {
  const PolicyCase& c = GetParam();
  TempDir dir;
  DbSpec spec;
  spec.policy = c.Value();
  spec.partitioned = true;
  const std::string sst = BuildDb(dir.path(), spec);
  const FileReport report = InspectFile(sst, {});
  ASSERT_EQ(report.table.filter_layout, sst::FilterLayout::kPartitioned);
  EXPECT_GT(report.blocks.size(), 4u);
  ASSERT_EQ(report.blocks.size(), report.table.partitions.size());
  EXPECT_GT(report.partition_index_bytes, 0u);
  // Partition separators ascend, as RocksDB's lookup requires.
  for (size_t i = 1; i < report.table.partitions.size(); ++i) {
    EXPECT_LT(report.table.partitions[i - 1].last_user_key,
              report.table.partitions[i].last_user_key);
  }
  ExpectFiguresMatch(c, spec, report);
  ExpectAnswers(spec, sst);
}

INSTANTIATE_TEST_SUITE_P(Policies, InspectPolicyTest,
                         ::testing::ValuesIn(kPolicies));

// RocksDB writes its legacy Bloom filter (one line of 64 bytes per key,
// line count in the metadata) below table format_version 5, as DBs from
// before RocksDB 6.6 hold it.
TEST(InspectFormats, LegacyBloomIsNamedWithItsFiguresAndAnswers) {
  const PolicyCase legacy = {
      "bloomfilter:10", false,  "rocksdb", "LegacyBloom", 9.95, 10.3,
      2 * 64 + 5,       "fill", 0.35,      0.65};
  for (const bool partitioned : {false, true}) {
    SCOPED_TRACE(partitioned ? "partitioned" : "full");
    TempDir dir;
    DbSpec spec;
    spec.policy = legacy.Value();
    spec.format_version = 4;
    spec.partitioned = partitioned;
    const std::string sst = BuildDb(dir.path(), spec);
    ExpectFiguresMatch(legacy, spec, InspectFile(sst, {}));
    ExpectAnswers(spec, sst);
  }
}

// format_version 0 and 1 have the legacy and newer footers, 2 and below
// index keys with sequence numbers, 4 and up delta-encoded index values
// (exercised by a restart interval above 1), 6 and up a checksummed footer
// and checksums with context; every checksum type verifies.
TEST(InspectFormats, EveryFormatVersionAndChecksumTypeIsRead) {
  const rdb::ChecksumType checksums[] = {
      rdb::kNoChecksum, rdb::kCRC32c, rdb::kxxHash, rdb::kxxHash64, rdb::kXXH3};
  for (int format_version = kOldestWritableFormat;
       format_version <= kNewestWritableFormat; ++format_version) {
    for (rdb::ChecksumType checksum : checksums) {
      SCOPED_TRACE("format_version " + std::to_string(format_version) +
                   ", checksum " + std::to_string(checksum));
      TempDir dir;
      DbSpec spec;
      spec.policy = "sstfilter.BlockedBloom:10";
      spec.partitioned = true;
      spec.format_version = format_version;
      spec.checksum = checksum;
      spec.index_block_restart_interval = 3;
      spec.num_keys = 3000;
      const std::string sst = BuildDb(dir.path(), spec);
      const std::vector<std::string> keys = DbKeys(spec);
      const FileReport report = InspectFile(sst, keys);
      ASSERT_TRUE(report.status.ok()) << report.status.ToString();
      // RocksDB writes format_version 0 only with CRC32c, else 1.
      const uint32_t written =
          format_version == 0 && checksum != rdb::kCRC32c ? 1 : format_version;
      EXPECT_EQ(report.table.footer.format_version, written);
      EXPECT_EQ(static_cast<int>(report.table.footer.checksum_type),
                static_cast<int>(checksum));
      EXPECT_EQ(report.table.footer.base_context_checksum != 0,
                format_version >= 6);
      EXPECT_GT(report.table.footer.index.size, 0u);
      EXPECT_GT(report.blocks.size(), 2u);
      EXPECT_EQ(report.keys, spec.num_keys);
      for (const inspect::KeyAnswer& answer : report.answers) {
        ASSERT_TRUE(answer.answered && answer.may_match) << answer.key;
      }
    }
  }
}

TEST(InspectFormats, TableWithoutFilterHasNoneAndUnanswerableKeys) {
  TempDir dir;
  DbSpec spec;
  spec.num_keys = 100;
  const FileReport report = InspectFile(BuildDb(dir.path(), spec), {"key1"});
  ASSERT_TRUE(report.status.ok()) << report.status.ToString();
  EXPECT_EQ(report.table.filter_layout, sst::FilterLayout::kNone);
  EXPECT_TRUE(report.blocks.empty());
  ASSERT_EQ(report.answers.size(), 1u);
  EXPECT_FALSE(report.answers[0].answered);
  EXPECT_EQ(report.answers[0].error, "this SST has no filter");
}

// Whole keys were never added to a prefix-only filter: answering from it
// would be a false "no".
TEST(InspectFormats, PrefixOnlyFilterDoesNotAnswerWholeKeys) {
  TempDir dir;
  DbSpec spec;
  spec.policy = "sstfilter.BlockedBloom:10";
  spec.num_keys = 100;
  spec.prefix_only = true;
  const FileReport report = InspectFile(BuildDb(dir.path(), spec), {"key1"});
  ASSERT_TRUE(report.status.ok()) << report.status.ToString();
  ASSERT_EQ(report.answers.size(), 1u);
  EXPECT_FALSE(report.answers[0].answered);
  EXPECT_EQ(report.answers[0].error,
            "the filter holds key prefixes only (prefix extractor "
            "rocksdb.FixedPrefix.3)");
}

TEST(InspectPartitions, PartitionForPicksFirstSeparatorAtOrAboveKey) {
  const std::vector<sst::FilterPartition> partitions = {
      {"b", {}}, {"d", {}}, {"f", {}}};
  EXPECT_EQ(sst::PartitionFor(partitions, ""), 0u);
  EXPECT_EQ(sst::PartitionFor(partitions, "b"), 0u);
  EXPECT_EQ(sst::PartitionFor(partitions, std::string("b\0", 2)), 1u);
  EXPECT_EQ(sst::PartitionFor(partitions, "d"), 1u);
  EXPECT_EQ(sst::PartitionFor(partitions, "e"), 2u);
  // Past the last separator RocksDB consults the last partition.
  EXPECT_EQ(sst::PartitionFor(partitions, "z"), 2u);
  // Bytes compare unsigned, as the bytewise comparator does.
  EXPECT_EQ(sst::PartitionFor({{"\x7f", {}}, {"\x80", {}}}, "\x80"), 1u);
}

// ---- damaged files ----

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A small SST with a full sstfilter filter, as bytes, and its report.
struct SmallSst {
  explicit SmallSst(const std::string& policy,
                    rdb::ChecksumType checksum = rdb::kXXH3,
                    int format_version = 5) {
    DbSpec spec;
    spec.policy = policy;
    spec.checksum = checksum;
    spec.format_version = format_version;
    spec.num_keys = 500;
    bytes = ReadAll(BuildDb(dir.path(), spec));
    report = InspectSource(sst::StringSource(bytes), "small.sst", {});
    EXPECT_TRUE(report.status.ok()) << report.status.ToString();
  }
  TempDir dir;
  std::string bytes;
  FileReport report;
};

Status InspectBytes(const std::string& bytes) {
  return InspectSource(sst::StringSource(bytes), "copy.sst", {"key1"}).status;
}

// Damage is tried on the last format without context checksums and, if
// RocksDB writes it, the newest (a checksummed footer, context checksums).
std::vector<int> DamagedFormats() {
  if (kNewestWritableFormat == 5) return {5};
  return {5, kNewestWritableFormat};
}

class InspectDamageTest : public ::testing::TestWithParam<int> {};

TEST_P(InspectDamageTest, EveryTruncationGivesAnError) {
  const SmallSst sst("sstfilter.BlockedBloom:10", rdb::kXXH3, GetParam());
  for (size_t length = 0; length < sst.bytes.size(); ++length) {
    const Status s = InspectBytes(sst.bytes.substr(0, length));
    ASSERT_FALSE(s.ok()) << "truncated to " << length;
    EXPECT_EQ(s.code(), StatusCode::kCorruption) << s.ToString();
  }
}

// A flipped bit anywhere gives a clean answer; inside a block the inspector
// reads (metaindex, properties, filter, their trailers) it is a checksum
// mismatch.
TEST_P(InspectDamageTest, FlippedBitsInReadBlocksAreChecksumErrors) {
  const SmallSst sst("sstfilter.BlockedBloom:10", rdb::kXXH3, GetParam());
  std::vector<sst::BlockHandle> read_blocks = {
      sst.report.table.filter_handle, sst.report.table.footer.metaindex};
  for (const auto& [name, handle] : sst.report.table.meta_blocks) {
    if (name == "rocksdb.properties") read_blocks.push_back(handle);
  }
  ASSERT_EQ(read_blocks.size(), 3u);
  auto in_read_block = [&](size_t offset) {
    for (const sst::BlockHandle& handle : read_blocks) {
      if (offset >= handle.offset && offset < handle.offset + handle.size + 5) {
        return true;
      }
    }
    return false;
  };
  size_t errors = 0;
  for (size_t offset = 0; offset < sst.bytes.size(); ++offset) {
    std::string copy = sst.bytes;
    copy[offset] ^= 0x10;
    const Status s = InspectBytes(copy);
    if (in_read_block(offset)) {
      ASSERT_FALSE(s.ok()) << "flip at " << offset;
      EXPECT_NE(s.message().find("checksum mismatch"), std::string::npos)
          << s.ToString();
    }
    errors += !s.ok();
  }
  EXPECT_GT(errors, 0u);
}

INSTANTIATE_TEST_SUITE_P(Formats, InspectDamageTest,
                         ::testing::ValuesIn(DamagedFormats()),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return "v" + std::to_string(info.param);
                         });

// A file's bytes seen `shift` bytes further into a larger file.
class ShiftedSource : public sst::Source {
 public:
  ShiftedSource(const std::string& bytes, uint64_t shift)
      : bytes_(bytes), shift_(shift) {}
  uint64_t size() const override { return shift_ + bytes_.size(); }
  Status Read(uint64_t offset, size_t n, std::string* out) const override {
    if (offset < shift_) return Status::Corruption("read before the bytes");
    return bytes_.Read(offset - shift_, n, out);
  }

 private:
  sst::StringSource bytes_;
  uint64_t shift_;
};

// From format_version 6 a block's checksum depends on where it is and on
// its file (table/format.h, ChecksumModifierForContext): intact bytes read
// at another offset, even 4 GiB away, or with another file's footer fail
// their check. Before, they pass.
TEST(InspectDamage, BlockMovedOrFromAnotherFileFailsItsContextChecksum) {
  if (kNewestWritableFormat < 6) {
    GTEST_SKIP() << "RocksDB before 8.6 writes no context checksums";
  }
  for (int format_version : {5, kNewestWritableFormat}) {
    SCOPED_TRACE("format_version " + std::to_string(format_version));
    const bool context = format_version >= 6;
    const SmallSst sst("sstfilter.BlockedBloom:10", rdb::kXXH3, format_version);
    const sst::Footer& footer = sst.report.table.footer;
    const sst::BlockHandle filter = sst.report.table.filter_handle;
    std::string block;
    for (uint64_t shift : {uint64_t{1}, uint64_t{4096}, uint64_t{1} << 32}) {
      const ShiftedSource moved(sst.bytes, shift);
      const Status s = sst::ReadBlock(
          moved, footer, {filter.offset + shift, filter.size}, &block);
      EXPECT_EQ(s.ok(), !context) << "shift " << shift << ": " << s.ToString();
    }
    // The same keys give the same filter at the same offset in another
    // file, whose footer has another base context checksum.
    const SmallSst other("sstfilter.BlockedBloom:10", rdb::kXXH3,
                         format_version);
    ASSERT_EQ(other.report.table.filter_handle.offset, filter.offset);
    if (context) {
      ASSERT_NE(other.report.table.footer.base_context_checksum,
                footer.base_context_checksum);
    }
    const Status s = sst::ReadBlock(sst::StringSource(sst.bytes),
                                    other.report.table.footer, filter, &block);
    EXPECT_EQ(s.ok(), !context) << s.ToString();
  }
}

// Bytes that are a valid table but a filter this tool does not know are
// NotSupported, never guessed at. The file has no checksums so that the
// patched filter reaches the filter reader.
TEST(InspectDamage, UnknownFilterKindOrVersionIsNotSupported) {
  const SmallSst ours("sstfilter.BlockedBloom:10", rdb::kNoChecksum);
  const sst::BlockHandle filter = ours.report.table.filter_handle;
  // The tag's kind and version: the block's last two bytes (format v2).
  for (size_t byte : {filter.size - 2, filter.size - 1}) {
    std::string copy = ours.bytes;
    copy[filter.offset + byte] = 99;
    const Status s = InspectBytes(copy);
    EXPECT_EQ(s.code(), StatusCode::kNotSupported) << s.ToString();
  }
  const SmallSst builtin("bloomfilter:10", rdb::kNoChecksum);
  const sst::BlockHandle handle = builtin.report.table.filter_handle;
  std::string copy = builtin.bytes;
  copy[handle.offset + handle.size - 5] = -3;  // a reserved marker
  const Status s = InspectBytes(copy);
  EXPECT_EQ(s.code(), StatusCode::kNotSupported) << s.ToString();
}

TEST(InspectDamage, MissingFileAndNonSstGiveErrors) {
  TempDir dir;
  const FileReport missing = InspectFile(dir.path() + "/missing.sst", {});
  EXPECT_EQ(missing.status.code(), StatusCode::kNotFound);
  const FileReport directory = InspectFile(dir.path(), {});
  EXPECT_EQ(directory.status.code(), StatusCode::kNotFound);
  const Status text = InspectBytes(std::string(4096, 'x'));
  EXPECT_EQ(text.code(), StatusCode::kCorruption);
  EXPECT_NE(text.message().find("not an SST file"), std::string::npos);
}

}  // namespace
}  // namespace sstfilter::test_support
