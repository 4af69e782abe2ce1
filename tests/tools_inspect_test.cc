// The inspector's library on real SST files: figures that match what the
// test built, key answers as RocksDB gives them, every table format and
// checksum, and clean errors on damaged copies.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "filter_block.h"
#include "inspector.h"
#include "sst_parser.h"
#include "tools_test_support.h"

namespace sstfilter::tools_testing {
namespace {

using inspect::FileReport;
using inspect::InspectFile;
using inspect::InspectSource;

// What a policy's filter must look like in the report.
struct PolicyCase {
  const char* policy;
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
};

void PrintTo(const PolicyCase& c, std::ostream* os) { *os << c.policy; }

// Bits/key bounds: sstfilter sizes BlockedBloom and RocksDB sizes its Bloom
// to bits_per_key rounded up to whole 64-byte lines (plus a 24-byte header
// or 5 metadata bytes); Cuckoo:12 takes 11-bit fingerprints at ~96% load
// (11/0.96 = 11.5) after a 20-byte header; RocksDB's Ribbon saves ~30%
// against the Bloom it matches.
const PolicyCase kPolicies[] = {
    {"sstfilter.BlockedBloom:10", "sstfilter", "BlockedBloom", 9.95, 10.2,
     64 + 24, "fill", 0.35, 0.65},
    {"sstfilter.Cuckoo:12", "sstfilter", "Cuckoo", 11.3, 12.0, 20 + 6, "load",
     0.9, 0.98},
    // A flush is level -1: Hybrid gives it a BlockedBloom filter, unless
    // bloom_before_level is -1.
    {"sstfilter.Hybrid:10", "sstfilter", "BlockedBloom", 9.95, 10.2, 64 + 24,
     "fill", 0.35, 0.65},
    {"sstfilter.Hybrid:10:-1", "sstfilter", "Cuckoo", 9.3, 10.0, 20 + 5, "load",
     0.9, 0.98},
    {"bloomfilter:10", "rocksdb", "FastLocalBloom", 9.95, 10.2, 64 + 5, "fill",
     0.35, 0.65},
    // Ribbon from level -1 up, like the Hybrid one above.
    {"ribbonfilter:10:-1", "rocksdb", "Ribbon128", 6.5, 7.8, 16 * 7 + 5, "", 0,
     0},
};

class InspectPolicyTest : public ::testing::TestWithParam<PolicyCase> {};

void ExpectFiguresMatch(const PolicyCase& c, const DbSpec& spec,
                        const FileReport& report) {
  ASSERT_TRUE(report.status.ok()) << report.status.ToString();
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
  const std::vector<std::string> absent = AbsentKeys(20000);
  const FileReport negatives = InspectFile(sst, absent);
  size_t false_positives = 0;
  for (const inspect::KeyAnswer& answer : negatives.answers) {
    ASSERT_TRUE(answer.answered) << answer.key << ": " << answer.error;
    false_positives += answer.may_match;
  }
  const double measured = static_cast<double>(false_positives) / absent.size();
  EXPECT_LT(measured, 2 * negatives.fpr + 0.002)
      << "estimated " << negatives.fpr;
  EXPECT_GT(measured, 0.5 * negatives.fpr - 0.002)
      << "estimated " << negatives.fpr;
}

TEST_P(InspectPolicyTest, FullFilterFiguresMatchTheKeysItHolds) {
  const PolicyCase& c = GetParam();
  TempDir dir;
  DbSpec spec;
  spec.policy = c.policy;
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
  spec.policy = c.policy;
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

}  // namespace
}  // namespace sstfilter::tools_testing
