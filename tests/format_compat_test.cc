// Filters written in format v1 stay readable: golden files written by the
// v1 writers (sstfilter before format v2, commit 187c313) are parsed and
// queried, and must answer exactly as they did then.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "keys.h"
#include "sstfilter/blocked_bloom.h"
#include "sstfilter/cuckoo_filter.h"
#include "sstfilter/filter_view.h"
#include "sstfilter/hash.h"

namespace sstfilter {
namespace {

using test_support::AbsentKeyHashes;
using test_support::SequentialKeyHashes;

std::string ReadGolden(const std::string& name) {
  std::ifstream in(std::string(SSTFILTER_GOLDEN_DIR) + "/v1/" + name,
                   std::ios::binary);
  EXPECT_TRUE(in.good()) << "missing golden file " << name;
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// One golden file: the keys it was built from ("key0".."key<n-1>"), the
// XXH3-64 of its bytes (as v1's golden vectors pinned them), and how many
// of AbsentKeyHashes(20000) it answered "may match" for.
struct Golden {
  const char* name;
  FilterKind kind;
  uint64_t keys;
  uint64_t xxh3;
  size_t absent_positives;
};

constexpr Golden kGolden[] = {
    {"blocked_bloom_0keys.bin", FilterKind::kBlockedBloom, 0,
     0x2c0d0209fda916f0ULL, 0},
    {"blocked_bloom_1000keys_20lines_7probes_2lpk.bin",
     FilterKind::kBlockedBloom, 1000, 0x8f691ce638aed38dULL, 113},
    {"blocked_bloom_1000keys_20lines_7probes_1lpk.bin",
     FilterKind::kBlockedBloom, 1000, 0xa0343ea44953ac27ULL, 171},
    {"blocked_bloom_12345keys_145lines_4probes_2lpk.bin",
     FilterKind::kBlockedBloom, 12345, 0x9469752753c32336ULL, 1064},
    {"cuckoo_static_0keys_f12.bin", FilterKind::kCuckoo, 0,
     0x1b98b5786463d5f5ULL, 0},
    {"cuckoo_static_1000keys_f5.bin", FilterKind::kCuckoo, 1000,
     0x5c88254f0dfa3902ULL, 4356},
    {"cuckoo_static_1000keys_f8.bin", FilterKind::kCuckoo, 1000,
     0xbe039ba8453b68a7ULL, 620},
    {"cuckoo_static_1000keys_f12.bin", FilterKind::kCuckoo, 1000,
     0x9cc455d9ecc10396ULL, 40},
    {"cuckoo_static_1000keys_f32.bin", FilterKind::kCuckoo, 1000,
     0x967f15dab57328b9ULL, 0},
    {"cuckoo_static_12345keys_f12.bin", FilterKind::kCuckoo, 12345,
     0xfa174da244885781ULL, 30},
    // A dynamic filter grown to 4 tables (Create(12, 200), 2000 adds).
    {"cuckoo_dynamic_2000keys_f12.bin", FilterKind::kCuckoo, 2000,
     0xbd0563544f86d42eULL, 130},
};

TEST(FormatCompatTest, VersionOneFiltersAnswerAsTheyDidWhenWritten) {
  const std::vector<uint64_t> absent = AbsentKeyHashes(20000);
  for (const Golden& g : kGolden) {
    SCOPED_TRACE(g.name);
    const std::string bytes = ReadGolden(g.name);
    ASSERT_EQ(HashKey(bytes), g.xxh3) << "the golden file itself changed";
    FilterView view;
    const Status s = FilterView::Parse(bytes, &view);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(view.kind(), g.kind);
    EXPECT_EQ(view.format_version(), 1);
    for (uint64_t h : SequentialKeyHashes(g.keys)) {
      ASSERT_TRUE(view.MayContain(h));
    }
    size_t positives = 0;
    std::vector<char> batch(absent.size());
    view.MayContainBatch(absent.data(), absent.size(),
                         reinterpret_cast<bool*>(batch.data()));
    for (size_t i = 0; i < absent.size(); ++i) {
      const bool one = view.MayContain(absent[i]);
      ASSERT_EQ(one, batch[i] != 0) << "absent key " << i;
      positives += one;
    }
    EXPECT_EQ(positives, g.absent_positives);
  }
}

// Format v2 moved BlockedBloom's metadata, not its bits: a v2 filter of the
// same shape and keys holds the same lines and gives the same answers.
TEST(FormatCompatTest, VersionTwoBlockedBloomHasVersionOnesLines) {
  const std::vector<uint64_t> absent = AbsentKeyHashes(20000);
  for (const Golden& g : kGolden) {
    if (g.kind != FilterKind::kBlockedBloom) continue;
    SCOPED_TRACE(g.name);
    const std::string v1 = ReadGolden(g.name);
    BlockedBloomView old_view;
    ASSERT_TRUE(BlockedBloomView::Parse(v1, &old_view).ok());
    const BlockedBloomParams& params = old_view.params();
    std::string v2(params.SerializedSize(), '\0');
    BlockedBloomWriter writer(params, reinterpret_cast<uint8_t*>(v2.data()));
    const std::vector<uint64_t> keys = SequentialKeyHashes(g.keys);
    writer.AddBatch(keys.data(), keys.size());
    BlockedBloomView new_view;
    ASSERT_TRUE(BlockedBloomView::Parse(v2, &new_view).ok());
    EXPECT_EQ(new_view.format_version(), 2);
    const size_t lines_bytes =
        params.num_lines * BlockedBloomParams::kLineBytes;
    EXPECT_EQ(v1.substr(24, lines_bytes), v2.substr(0, lines_bytes));
    EXPECT_EQ(new_view.num_keys(), old_view.num_keys());
    for (uint64_t h : absent) {
      ASSERT_EQ(new_view.MayContain(h), old_view.MayContain(h));
    }
  }
}

// A v1 BlockedBloom block (blocked_bloom.h: the v1 layout) of `params`
// holding `hashes`, made from the v2 writer's lines, which are the same.
std::string VersionOneBlockedBloom(const BlockedBloomParams& params,
                                   const std::vector<uint64_t>& hashes) {
  std::string v2(params.SerializedSize(), '\0');
  BlockedBloomWriter writer(params, reinterpret_cast<uint8_t*>(v2.data()));
  writer.AddBatch(hashes.data(), hashes.size());
  std::string v1 = {'S',
                    'F',
                    1,
                    1,
                    static_cast<char>(params.num_probes),
                    static_cast<char>(params.lines_per_key),
                    0,
                    0};
  for (uint64_t field : {params.num_lines, uint64_t{hashes.size()}}) {
    for (int i = 0; i < 8; ++i) v1 += static_cast<char>(field >> (8 * i));
  }
  return v1 + v2.substr(0, params.num_lines * BlockedBloomParams::kLineBytes);
}

// A v1 block ends in Bloom lines, which may spell a v2 trailer tag of any
// kind or version (0 "SF" kind version; about 1 ending in 2^24 has the
// 0 "SF"). Such a block is still read as v1, whatever the tag claims, and
// keeps every key.
TEST(FormatCompatTest,
     VersionOneBlockEndingLikeAnyTrailerTagReadsAsVersionOne) {
  BlockedBloomParams params;
  params.num_lines = 64;
  params.num_probes = 7;
  params.lines_per_key = 2;
  const std::vector<uint64_t> keys = SequentialKeyHashes(50);
  const std::string v1 = VersionOneBlockedBloom(params, keys);
  // A sparse filter: its last 5 bytes are still clear, so setting the tag's
  // bits in them only adds bits (never loses a key).
  ASSERT_EQ(v1.substr(v1.size() - 5), std::string(5, '\0'));
  struct Tag {
    uint8_t kind;
    uint8_t version;
  };
  for (Tag tag : {Tag{1, 2}, Tag{1, 3}, Tag{2, 2}, Tag{2, 200}, Tag{9, 2}}) {
    SCOPED_TRACE("trailer kind " + std::to_string(tag.kind) + " version " +
                 std::to_string(tag.version));
    std::string bytes = v1;
    bytes.replace(bytes.size() - 4, 4,
                  {'S', 'F', static_cast<char>(tag.kind),
                   static_cast<char>(tag.version)});
    FormatTag trailer;
    ASSERT_TRUE(ReadTrailerTag(bytes, &trailer));
    FilterView view;
    const Status s = FilterView::Parse(bytes, &view);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(view.kind(), FilterKind::kBlockedBloom);
    EXPECT_EQ(view.format_version(), 1);
    for (uint64_t h : keys) ASSERT_TRUE(view.MayContain(h));
    BlockedBloomView bloom;
    ASSERT_TRUE(BlockedBloomView::Parse(bytes, &bloom).ok());
    EXPECT_EQ(bloom.format_version(), 1);
    EXPECT_EQ(bloom.num_keys(), keys.size());
  }
}

}  // namespace
}  // namespace sstfilter
