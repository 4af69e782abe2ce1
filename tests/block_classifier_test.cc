// ClassifyBlock (sstfilter/block_classifier.h), the one rule by which the
// RocksDB plugin's reader and the inspector tell our blocks from RocksDB's:
// ours parse as ours under either family name, RocksDB's kinds read by
// their metadata under either, and what is neither, a damaged block of ours
// above all, is "may match", never another filter.
#include "sstfilter/block_classifier.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "filter_bytes.h"
#include "keys.h"
#include "sstfilter/blocked_bloom.h"
#include "sstfilter/cuckoo_filter.h"
#include "sstfilter/format.h"

namespace sstfilter {
namespace {

constexpr BlockFamily kFamilies[] = {BlockFamily::kRocksdbBuiltin,
                                     BlockFamily::kSstfilter};

std::string BloomBlock() {
  return test_support::WriteBlockedBloom(
      BlockedBloomParams::ForBitsPerKey(1000, 10),
      test_support::SequentialKeyHashes(1000));
}

std::string CuckooBlock() {
  const std::vector<uint64_t> hashes = test_support::SequentialKeyHashes(1000);
  std::string bytes;
  EXPECT_TRUE(BuildStaticCuckoo(hashes.data(), hashes.size(), 12, &bytes).ok());
  return bytes;
}

// `data_bytes` of set bits, then RocksDB's 5 metadata bytes.
std::string RocksdbBlock(size_t data_bytes, std::vector<uint8_t> metadata) {
  std::string bytes(data_bytes, '\xa5');
  bytes.append(metadata.begin(), metadata.end());
  return bytes;
}

// FastLocalBloom (marker -1, sub-implementation 0, 64-byte blocks, 6
// probes), Ribbon (marker -2, seed 3, 4 blocks) and the legacy Bloom (6
// probes, 4 lines), as filter_policy.cc lays out their metadata.
std::string FastLocalBloomBlock() {
  return RocksdbBlock(64 * 4, {0xff, 0, 6, 0, 0});
}
std::string RibbonBlock() { return RocksdbBlock(16 * 8, {0xfe, 3, 4, 0, 0}); }
std::string LegacyBloomBlock() { return RocksdbBlock(64 * 4, {6, 4, 0, 0, 0}); }

TEST(BlockClassifier, FamilyNamesAreTheTwoAndNoOther) {
  BlockFamily family;
  ASSERT_TRUE(FamilyNamed("rocksdb.BuiltinBloomFilter", &family));
  EXPECT_EQ(family, BlockFamily::kRocksdbBuiltin);
  ASSERT_TRUE(FamilyNamed("sstfilter", &family));
  EXPECT_EQ(family, BlockFamily::kSstfilter);
  EXPECT_FALSE(FamilyNamed("", &family));
  EXPECT_FALSE(FamilyNamed("rocksdb.BuiltinBloomFilte", &family));
  EXPECT_FALSE(FamilyNamed("sstfilter.BlockedBloom", &family));
}

TEST(BlockClassifier, OurBlocksAreOursUnderEitherName) {
  for (const std::string& bytes : {BloomBlock(), CuckooBlock()}) {
    for (BlockFamily family : kFamilies) {
      const BlockClass block = ClassifyBlock(bytes, family);
      EXPECT_EQ(block.owner, BlockOwner::kOurs);
      EXPECT_TRUE(block.why.ok());
      EXPECT_NE(block.ours.kind(), FilterKind::kNone);
      EXPECT_EQ(block.ours.SizeBytes(), bytes.size());
      EXPECT_EQ(block.rocksdb.kind, FilterKind::kNone);
    }
  }
}

TEST(BlockClassifier, RocksdbKindsReadByTheirMetadataUnderEitherName) {
  // The block, then what its metadata says.
  struct Case {
    std::string bytes;
    FilterKind kind;
    uint32_t num_probes;
    uint64_t line_bytes, num_lines;
    uint32_t seed;
    uint64_t num_blocks, num_segments;
  };
  const Case cases[] = {
      {FastLocalBloomBlock(), FilterKind::kFastLocalBloom, 6, 64, 4, 0, 0, 0},
      {RibbonBlock(), FilterKind::kRibbon128, 0, 0, 0, 3, 4, 8},
      {LegacyBloomBlock(), FilterKind::kLegacyBloom, 6, 64, 4, 0, 0, 0},
  };
  for (const Case& c : cases) {
    for (BlockFamily family : kFamilies) {
      const BlockClass block = ClassifyBlock(c.bytes, family);
      EXPECT_EQ(block.owner, BlockOwner::kRocksdb);
      EXPECT_TRUE(block.why.ok());
      const BuiltinFormat& f = block.rocksdb;
      EXPECT_EQ(f.kind, c.kind);
      EXPECT_EQ(f.num_probes, c.num_probes);
      EXPECT_EQ(f.line_bytes, c.line_bytes);
      EXPECT_EQ(f.num_lines, c.num_lines);
      EXPECT_EQ(f.seed, c.seed);
      EXPECT_EQ(f.num_blocks, c.num_blocks);
      EXPECT_EQ(f.num_segments, c.num_segments);
    }
  }
}

// Empty, zero probes, an unknown marker or variant, sizes that do not add
// up: RocksDB's metadata read, but no kind its reader reads as such.
TEST(BlockClassifier, RocksdbMetadataOfNoReadableKindMayMatch) {
  const std::vector<std::pair<std::string, FilterKind>> cases = {
      {"", FilterKind::kEmpty},
      {"\x01\x02\x03\x04\x05", FilterKind::kEmpty},
      {RocksdbBlock(64, {0, 0, 0, 0, 0}), FilterKind::kAlwaysTrue},
      {RocksdbBlock(64, {0xfd, 0, 0, 0, 0}), FilterKind::kUnknown},
      {RocksdbBlock(64, {0xff, 1, 6, 0, 0}), FilterKind::kUnknown},
      {RocksdbBlock(65, {0xff, 0, 6, 0, 0}), FilterKind::kUnknown},
      {RocksdbBlock(16, {0xfe, 3, 4, 0, 0}), FilterKind::kUnknown},
      {RocksdbBlock(200, {6, 4, 0, 0, 0}), FilterKind::kUnknown},
  };
  for (const auto& [bytes, kind] : cases) {
    for (BlockFamily family : kFamilies) {
      const BlockClass block = ClassifyBlock(bytes, family);
      EXPECT_EQ(block.owner, BlockOwner::kMayMatch);
      EXPECT_EQ(block.rocksdb.kind, kind);
      EXPECT_FALSE(block.why.ok());
    }
  }
}

// A block with our trailer tag that does not parse (its metadata damaged,
// or of a later version) is ours, damaged: "may match", never RocksDB's.
TEST(BlockClassifier, DamagedBlockWithOurTrailerTagMayMatch) {
  for (std::string bytes : {BloomBlock(), CuckooBlock()}) {
    bytes[bytes.size() - kFormatTagSize - 2] ^= 0x40;  // metadata
    std::string later = BloomBlock();
    later.back() = static_cast<char>(kCurrentFormatVersion + 1);
    for (const std::string& damaged : {bytes, later}) {
      for (BlockFamily family : kFamilies) {
        const BlockClass block = ClassifyBlock(damaged, family);
        EXPECT_EQ(block.owner, BlockOwner::kMayMatch);
        EXPECT_EQ(block.rocksdb.kind, FilterKind::kNone);
        EXPECT_FALSE(block.why.ok());
      }
    }
  }
}

// Under the old name a block that starts with a v1 head tag is ours: v1
// blocks end in Bloom lines, which must never be taken for RocksDB's
// metadata. Under RocksDB's name, which v1 was never written under, the
// metadata decides.
TEST(BlockClassifier, V1HeadTagIsOursOnlyUnderTheOldName) {
  std::string bytes = FastLocalBloomBlock();
  bytes.replace(0, 4, std::string("SF\x01\x01", 4));
  const BlockClass old_name = ClassifyBlock(bytes, BlockFamily::kSstfilter);
  EXPECT_EQ(old_name.owner, BlockOwner::kMayMatch);
  EXPECT_EQ(old_name.rocksdb.kind, FilterKind::kNone);
  EXPECT_FALSE(old_name.why.ok());
  const BlockClass shared = ClassifyBlock(bytes, BlockFamily::kRocksdbBuiltin);
  EXPECT_EQ(shared.owner, BlockOwner::kRocksdb);
  EXPECT_EQ(shared.rocksdb.kind, FilterKind::kFastLocalBloom);
}

// Every prefix of our blocks: never crashes, never reads as ours but whole.
TEST(BlockClassifier, TruncatedBlocksOfOursAreNeverOurs) {
  for (const std::string& bytes : {BloomBlock(), CuckooBlock()}) {
    for (size_t size = 0; size < bytes.size(); ++size) {
      for (BlockFamily family : kFamilies) {
        EXPECT_NE(ClassifyBlock(bytes.substr(0, size), family).owner,
                  BlockOwner::kOurs)
            << size;
      }
    }
  }
}

}  // namespace
}  // namespace sstfilter
