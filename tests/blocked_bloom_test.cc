// Specification of BlockedBloom: no false negatives, the FPR its model
// promises, a stable byte format, identical SIMD paths, and safe parsing.
#include "sstfilter/blocked_bloom.h"

#include <gtest/gtest.h>
#include <xxhash.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "filter_bytes.h"
#include "format_checks.h"
#include "keys.h"
#include "sstfilter/detail/endian.h"
#include "sstfilter/format.h"
#include "sstfilter/hash.h"
#include "sstfilter/simd.h"

namespace sstfilter {
namespace {

using test_support::AbsentKeyHashes;
using test_support::FprTolerance;
using test_support::Hex;
using test_support::RandomKeyHashes;
using test_support::SequentialKeyHashes;
using test_support::WriteBlockedBloom;

BlockedBloom Build(const BlockedBloomParams& params,
                   const std::vector<uint64_t>& hashes) {
  BlockedBloom filter;
  const Status s = BlockedBloom::Create(params, &filter);
  EXPECT_TRUE(s.ok()) << s.ToString();
  filter.AddBatch(hashes.data(), hashes.size());
  return filter;
}

size_t CountMayContain(const BlockedBloomView& view,
                       const std::vector<uint64_t>& hashes) {
  size_t hits = 0;
  for (uint64_t h : hashes) hits += view.MayContain(h);
  return hits;
}

// A view of `bytes` probing on `path`.
BlockedBloomView ViewOnPath(std::string_view bytes, SimdPath path) {
  BlockedBloomView parsed, view;
  EXPECT_TRUE(BlockedBloomView::Parse(bytes, &parsed).ok());
  EXPECT_TRUE(parsed.OnSimdPath(path, &view));
  return view;
}

std::vector<SimdPath> SupportedPaths() {
  std::vector<SimdPath> paths = {SimdPath::kScalar};
  if (SimdPathSupported(SimdPath::kAvx2)) paths.push_back(SimdPath::kAvx2);
  return paths;
}

std::vector<uint64_t> TestSizes() {
  std::vector<uint64_t> sizes;
  for (uint64_t n = 0; n <= 70; ++n) sizes.push_back(n);
  for (uint64_t n : {100, 127, 128, 129, 511, 512, 513, 1000, 4095, 4096, 4097,
                     65535, 65536, 65537, 100000, 1000000}) {
    sizes.push_back(n);
  }
  return sizes;
}

TEST(BlockedBloomTest, NeverFalseNegativeAcrossSizesPatternsAndPaths) {
  for (SimdPath path : SupportedPaths()) {
    for (uint64_t n : TestSizes()) {
      for (double bits_per_key : {1.0, 6.0, 9.9, 16.0, 24.0}) {
        for (uint32_t lines : {1u, 2u}) {
          const auto params =
              BlockedBloomParams::ForBitsPerKey(n, bits_per_key, lines);
          for (const auto& keys :
               {SequentialKeyHashes(n), RandomKeyHashes(n, n + 1)}) {
            const std::string bytes = WriteBlockedBloom(params, keys);
            const BlockedBloomView view = ViewOnPath(bytes, path);
            ASSERT_EQ(view.simd_path(), path);
            std::vector<char> batch(keys.size());
            view.MayContainBatch(keys.data(), keys.size(),
                                 reinterpret_cast<bool*>(batch.data()));
            for (size_t i = 0; i < keys.size(); ++i) {
              ASSERT_TRUE(view.MayContain(keys[i]))
                  << "n=" << n << " bpk=" << bits_per_key << " key " << i
                  << " path " << SimdPathName(path);
              ASSERT_TRUE(batch[i]) << "batched, n=" << n << " key " << i;
            }
          }
        }
      }
    }
  }
}

TEST(BlockedBloomTest, NeverFalseNegativeAtTenMillionKeys) {
  const uint64_t n = 10'000'000;
  const auto keys = SequentialKeyHashes(n);
  const BlockedBloom filter =
      Build(BlockedBloomParams::ForBitsPerKey(n, 10), keys);
  EXPECT_EQ(CountMayContain(filter.view(), keys), n);
}

TEST(BlockedBloomTest, DuplicateKeysAreHarmless) {
  // RocksDB adds sorted keys with repeats; any repeat pattern must keep
  // every key and leave the FPR where n distinct keys put it.
  const auto distinct = RandomKeyHashes(20000, 7);
  std::vector<uint64_t> with_duplicates;
  for (size_t i = 0; i < distinct.size(); ++i) {
    for (size_t r = 0; r <= i % 5; ++r) with_duplicates.push_back(distinct[i]);
  }
  const auto params = BlockedBloomParams::ForBitsPerKey(distinct.size(), 10);
  const BlockedBloom once = Build(params, distinct);
  const BlockedBloom repeated = Build(params, with_duplicates);
  EXPECT_EQ(CountMayContain(repeated.view(), distinct), distinct.size());
  // Same bits set, so the same lines; only the metadata's key count differs.
  const size_t lines_bytes = params.num_lines * BlockedBloomParams::kLineBytes;
  EXPECT_EQ(once.bytes().substr(0, lines_bytes),
            repeated.bytes().substr(0, lines_bytes));
  EXPECT_EQ(repeated.view().num_keys(), with_duplicates.size());
}

TEST(BlockedBloomTest, EmptyFilterHoldsNothingAndAnswersNo) {
  const auto params = BlockedBloomParams::ForBitsPerKey(0, 10);
  EXPECT_EQ(params.num_lines, 0u);
  const std::string bytes = WriteBlockedBloom(params, {});
  EXPECT_EQ(bytes.size(), BlockedBloomParams::kMetadataBytes);
  BlockedBloomView view;
  ASSERT_TRUE(BlockedBloomView::Parse(bytes, &view).ok());
  EXPECT_EQ(CountMayContain(view, AbsentKeyHashes(1000)), 0u);
  EXPECT_EQ(view.EstimatedFpr(), 0.0);
}

TEST(BlockedBloomTest, MeasuredFprMatchesEstimatedFpr) {
  const uint64_t n = 1'000'000;
  const auto keys = RandomKeyHashes(n, 42);
  for (double bits_per_key : {6.0, 10.0, 16.0}) {
    for (uint32_t lines : {1u, 2u}) {
      const BlockedBloom filter = Build(
          BlockedBloomParams::ForBitsPerKey(n, bits_per_key, lines), keys);
      const uint64_t queries = bits_per_key >= 16 ? 10'000'000 : 2'000'000;
      const double measured = static_cast<double>(CountMayContain(
                                  filter.view(), AbsentKeyHashes(queries))) /
                              queries;
      const double expected = filter.EstimatedFpr();
      // 4 sigma of the binomial count, plus 4% for the model (it treats
      // the probe positions as independent).
      EXPECT_NEAR(measured, expected, FprTolerance(expected, queries, 0.04))
          << "bits/key " << bits_per_key << ", lines/key " << lines;
    }
  }
}

TEST(BlockedBloomTest, TargetFprSizingMeetsTheTarget) {
  const uint64_t n = 200'000;
  const auto keys = SequentialKeyHashes(n);
  for (double target : {0.05, 0.01, 0.001, 0.0001}) {
    const auto params = BlockedBloomParams::ForTargetFpr(n, target);
    ASSERT_TRUE(params.Validate().ok());
    EXPECT_LE(params.EstimatedFpr(n), target);
    const BlockedBloom filter = Build(params, keys);
    const uint64_t queries = static_cast<uint64_t>(200 / target);
    const double measured = static_cast<double>(CountMayContain(
                                filter.view(), AbsentKeyHashes(queries))) /
                            queries;
    EXPECT_LE(measured, target + FprTolerance(target, queries, 0.0))
        << "target " << target;
    // Not grossly oversized either: within 15% of the classic
    // m = -n ln p / (ln 2)^2 plus the blocking correction.
    const double classic_bits = -std::log(target) / (std::log(2) * std::log(2));
    EXPECT_LT(params.num_lines * 512.0 / n, classic_bits * 1.15);
  }
}

TEST(BlockedBloomTest, FprBeatsFastLocalBloomAtEqualBitsPerKey) {
  // RocksDB's FastLocalBloom measures 0.955% at 10 bits/key and 0.087% at
  // 16 (RocksDB wiki, "RocksDB Bloom Filter"). Two lines per key must do
  // better at the same space.
  const uint64_t n = 1'000'000;
  const auto keys = RandomKeyHashes(n, 99);
  const uint64_t queries = 10'000'000;
  const auto absent = AbsentKeyHashes(queries);
  const struct {
    double bits_per_key, fast_local_bloom_fpr;
  } cases[] = {{10, 0.00955}, {16, 0.00087}};
  for (const auto& c : cases) {
    const BlockedBloom filter =
        Build(BlockedBloomParams::ForBitsPerKey(n, c.bits_per_key), keys);
    const double stored_bits_per_key = filter.bytes().size() * 8.0 / n;
    EXPECT_LE(stored_bits_per_key, c.bits_per_key + 0.01);
    const double measured =
        static_cast<double>(CountMayContain(filter.view(), absent)) / queries;
    EXPECT_LT(measured, c.fast_local_bloom_fpr)
        << "bits/key " << c.bits_per_key;
  }
}

TEST(BlockedBloomTest, SimdAndScalarViewsOfOneFilterAnswerAlike) {
  if (!SimdPathSupported(SimdPath::kAvx2)) GTEST_SKIP() << "no AVX2 here";
  const auto absent = AbsentKeyHashes(20000);
  for (uint64_t n : {0, 1, 3, 1000, 54321}) {
    const auto keys = RandomKeyHashes(n, 5);
    for (double bits_per_key = 1; bits_per_key <= 24; bits_per_key += 1) {
      for (uint32_t lines : {1u, 2u}) {
        auto params = BlockedBloomParams::ForBitsPerKey(n, bits_per_key, lines);
        for (uint32_t probes = lines; probes <= BlockedBloomParams::kMaxProbes;
             probes += 5) {
          params.num_probes = probes;
          // Writers have no SIMD path: one write serves both views.
          const std::string bytes = WriteBlockedBloom(params, keys);
          const BlockedBloomView scalar = ViewOnPath(bytes, SimdPath::kScalar);
          const BlockedBloomView avx2 = ViewOnPath(bytes, SimdPath::kAvx2);
          std::vector<char> avx2_answers(absent.size());
          avx2.MayContainBatch(absent.data(), absent.size(),
                               reinterpret_cast<bool*>(avx2_answers.data()));
          for (size_t i = 0; i < absent.size(); ++i) {
            ASSERT_EQ(avx2.MayContain(absent[i]), avx2_answers[i] != 0)
                << "n=" << n << " probes=" << probes << " query " << i;
            ASSERT_EQ(scalar.MayContain(absent[i]), avx2_answers[i] != 0)
                << "n=" << n << " probes=" << probes << " query " << i;
          }
        }
      }
    }
  }
}

TEST(BlockedBloomTest, ParsedBytesAnswerLikeTheFilterThatWroteThem) {
  const auto keys = SequentialKeyHashes(5000);
  const auto params = BlockedBloomParams::ForBitsPerKey(keys.size(), 9.9);
  const BlockedBloom filter = Build(params, keys);
  const std::string copy(filter.bytes());
  BlockedBloomView view;
  ASSERT_TRUE(BlockedBloomView::Parse(copy, &view).ok());
  EXPECT_EQ(view.params().num_lines, params.num_lines);
  EXPECT_EQ(view.params().num_probes, params.num_probes);
  EXPECT_EQ(view.params().lines_per_key, params.lines_per_key);
  EXPECT_EQ(view.num_keys(), keys.size());
  EXPECT_EQ(copy, WriteBlockedBloom(params, keys));
  for (uint64_t h : AbsentKeyHashes(10000)) {
    ASSERT_EQ(view.MayContain(h), filter.MayContain(h));
  }
  std::string_view key_views[] = {"key1", "key4999", "nope"};
  bool results[3];
  view.MayContainKeys(key_views, 3, results);
  EXPECT_TRUE(results[0]);
  EXPECT_TRUE(results[1]);
  EXPECT_EQ(results[2], view.MayContainKey("nope"));
}

// Golden vectors: fixed keys must keep producing these exact bytes. If one
// of these fails, the format changed: old filters would be misread. Add a
// new format version instead of editing these values.
BlockedBloomParams Shape(uint64_t num_lines, uint32_t num_probes,
                         uint32_t lines_per_key) {
  BlockedBloomParams p;
  p.num_lines = num_lines;
  p.num_probes = num_probes;
  p.lines_per_key = lines_per_key;
  return p;
}

// The v2 metadata of a filter, spelled out from blocked_bloom.h: the
// checksum (low 32 bits of XXH3-64 of the rest), the fields and the tag.
std::string MetadataHex(uint32_t probes, uint32_t lines_per_key,
                        uint64_t num_lines, uint64_t num_keys) {
  std::string rest(24, '\0');
  rest[0] = static_cast<char>(probes);
  rest[1] = static_cast<char>(lines_per_key);
  for (int i = 0; i < 8; ++i) {
    rest[4 + i] = static_cast<char>(num_lines >> (8 * i));
    rest[12 + i] = static_cast<char>(num_keys >> (8 * i));
  }
  rest.replace(20, 4, "SF\x01\x02");
  const uint32_t checksum =
      static_cast<uint32_t>(XXH3_64bits(rest.data(), rest.size()));
  std::string checksum_bytes(4, '\0');
  for (int i = 0; i < 4; ++i) {
    checksum_bytes[i] = static_cast<char>(checksum >> (8 * i));
  }
  return Hex(checksum_bytes + rest);
}

TEST(BlockedBloomTest, GoldenVectorsPinTheFormat) {
  EXPECT_EQ(HashKey("sstfilter"), 0xd2c3c84ec9ccc79aULL);
  // 3 keys, one line, 7 probes over 2 lines (4 + 3), spelled out in full:
  // the line (the same bits as in format v1), then the metadata.
  const std::string three =
      WriteBlockedBloom(Shape(1, 7, 2), SequentialKeyHashes(3));
  EXPECT_EQ(Hex(three),
            "0000000000000802000000000200200100820000000000001100004000020000"
            "0008001004001000000000000000000000400000000003000000000000044100" +
                MetadataHex(7, 2, 1, 3));
  EXPECT_EQ(Hex(three.substr(64)), Hex(three.substr(64, 4)) +  // checksum
                                       "07020000"  // 7 probes, 2 lines per key
                                       "0100000000000000"  // num_lines = 1
                                       "0300000000000000"  // num_keys = 3
                                       "53460102");  // "SF", kind 1, version 2
  // Larger shapes, pinned by size and XXH3-64 of the bytes. The shapes are
  // explicit so that retuning ForBitsPerKey never touches these.
  const struct {
    uint64_t keys, num_lines;
    uint32_t num_probes, lines_per_key;
    size_t size;
    uint64_t xxh3;
  } cases[] = {
      {0, 0, 7, 2, 28, 0x9fa519471036e2b3ULL},
      {1, 1, 7, 2, 92, 0x63bf194146ad3b2aULL},
      {1000, 20, 7, 2, 1308, 0xce6a1325a40a8058ULL},
      {1000, 32, 11, 2, 2076, 0x30553c4b34f3c0b2ULL},
      {1000, 20, 7, 1, 1308, 0x281054f2977545b6ULL},
      {1000, 20, 16, 1, 1308, 0x86038de522cb670bULL},
      {12345, 145, 4, 2, 9308, 0x69577975a5493afdULL},
      {100000, 1934, 16, 2, 123804, 0xb70a3a35db64f1dcULL},
  };
  for (const auto& c : cases) {
    const std::string bytes =
        WriteBlockedBloom(Shape(c.num_lines, c.num_probes, c.lines_per_key),
                          SequentialKeyHashes(c.keys));
    EXPECT_EQ(bytes.size(), c.size) << "keys=" << c.keys;
    EXPECT_EQ(XXH3_64bits(bytes.data(), bytes.size()), c.xxh3)
        << "keys=" << c.keys << " lines=" << c.num_lines;
  }
}

std::string ValidFilterBytes() {
  const auto keys = SequentialKeyHashes(100);
  return WriteBlockedBloom(BlockedBloomParams::ForBitsPerKey(100, 10), keys);
}

constexpr auto ExpectParseError =
    test_support::ExpectParseError<BlockedBloomView>;

constexpr size_t kMeta = BlockedBloomParams::kMetadataBytes;

TEST(BlockedBloomTest, MalformedBytesGiveClearErrors) {
  const std::string valid = ValidFilterBytes();
  const size_t meta = valid.size() - kMeta;  // where the metadata starts
  ExpectParseError("", StatusCode::kCorruption, "shorter than its 4-byte");
  ExpectParseError("SF\x01", StatusCode::kCorruption,
                   "shorter than its 4-byte");
  // Changes behind the checksum: each is resealed so that the field's own
  // check answers.
  auto with = [&](size_t at, char value) {
    std::string b = valid;
    b[at] = value;
    test_support::ResealMetadata(&b, kMeta);
    return b;
  };
  ExpectParseError(with(valid.size() - 4, 'X'), StatusCode::kCorruption,
                   "magic");
  ExpectParseError(with(valid.size() - 2, 2), StatusCode::kInvalidArgument,
                   "not a BlockedBloom");
  ExpectParseError(with(valid.size() - 1, 3), StatusCode::kNotSupported,
                   "version 3 is unknown");
  ExpectParseError(valid.substr(valid.size() - 20), StatusCode::kCorruption,
                   "metadata truncated");
  {
    std::string b = valid;
    b[meta + 4] = 6;  // not resealed
    ExpectParseError(b, StatusCode::kCorruption, "checksum mismatch");
  }
  for (int probes : {0, 17, 255}) {
    ExpectParseError(with(meta + 4, static_cast<char>(probes)),
                     StatusCode::kCorruption, "num_probes");
  }
  // Fewer probes than lines (2).
  ExpectParseError(with(meta + 4, 1), StatusCode::kCorruption, "num_probes");
  for (int lines : {0, 3}) {
    ExpectParseError(with(meta + 5, static_cast<char>(lines)),
                     StatusCode::kCorruption, "lines_per_key");
  }
  ExpectParseError(with(meta + 7, 1), StatusCode::kCorruption, "reserved");
  // The top byte of num_keys is the 5th from the end, RocksDB's marker
  // byte: a trailer tag counts only after a 0 there (format.h).
  ExpectParseError(with(meta + 23, 1), StatusCode::kCorruption, "magic");
  ExpectParseError(std::string(64, '\0') + valid, StatusCode::kCorruption,
                   "size mismatch");
  ExpectParseError(valid.substr(1), StatusCode::kCorruption, "size mismatch");
  {
    // A line count whose byte size overflows must not wrap around.
    std::string b = valid;
    for (size_t i = meta + 8; i < meta + 16; ++i) b[i] = '\xff';
    test_support::ResealMetadata(&b, kMeta);
    ExpectParseError(b, StatusCode::kCorruption, "num_lines");
  }
  // One line more than is stored.
  ExpectParseError(with(meta + 8, static_cast<char>(valid[meta + 8] + 1)),
                   StatusCode::kCorruption, "size mismatch");
  // Line counts whose byte size differs from the block's by exactly 2^32
  // or 2^64: a size computed in 32 bits, or one that wraps, would take
  // them for the block's own.
  auto with_lines = [&](uint64_t lines) {
    std::string b = valid;
    detail::StoreLittleEndian<uint64_t>(b.data() + meta + 8, lines);
    test_support::ResealMetadata(&b, kMeta);
    return b;
  };
  const uint64_t stored = meta / BlockedBloomParams::kLineBytes;
  ExpectParseError(with_lines(stored + (uint64_t{1} << 26)),
                   StatusCode::kCorruption, "size mismatch");
  ExpectParseError(with_lines(stored + (uint64_t{1} << 58)),
                   StatusCode::kCorruption, "num_lines");
}

TEST(BlockedBloomTest, DamagedMetadataNeverParsesAsAnotherFilter) {
  test_support::ExpectEveryMetadataByteChecked<BlockedBloomView>(
      ValidFilterBytes(), kMeta);
}

TEST(BlockedBloomTest, TruncatedOrFlippedBytesNeverCrashTheParser) {
  const std::string valid = ValidFilterBytes();
  const auto probes = AbsentKeyHashes(64);
  auto exercise = [&](const std::string& bytes) {
    BlockedBloomView view;
    if (BlockedBloomView::Parse(bytes, &view).ok()) {
      bool results[64];
      view.MayContainBatch(probes.data(), probes.size(), results);
      for (uint64_t h : probes) (void)view.MayContain(h);
      EXPECT_GE(view.FillRatio(), 0.0);
      EXPECT_LE(view.FillRatio(), 1.0);
    }
  };
  for (size_t len = 0; len <= valid.size(); ++len) {
    exercise(valid.substr(0, len));
  }
  std::mt19937 rng(1);
  for (int trial = 0; trial < 20000; ++trial) {
    std::string b = valid;
    const int flips = 1 + trial % 4;
    for (int f = 0; f < flips; ++f) {
      b[rng() % b.size()] ^= static_cast<char>(1 + rng() % 255);
    }
    exercise(b);
  }
}

TEST(BlockedBloomTest, InvalidParamsAreRejectedWithAReason) {
  BlockedBloom filter;
  BlockedBloomParams p;
  p.num_lines = 4;
  p.lines_per_key = 3;
  Status s = BlockedBloom::Create(p, &filter);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("lines_per_key"), std::string::npos);
  p.lines_per_key = 2;
  p.num_probes = 17;
  s = BlockedBloom::Create(p, &filter);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("num_probes"), std::string::npos);
  p.num_probes = 4;
  p.num_lines = 0;
  s = BlockedBloom::Create(p, &filter);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
}

// The format counts lines in a u64, but a filter's bytes must fit in the
// largest object C++ allows (kMaxLines). Sizing stays within it for any key
// count and bits/key, never overflowing; Validate and Create refuse more,
// before allocating anything.
TEST(BlockedBloomTest, SizingStaysWithinTheLargestFilterForAnyKeyCount) {
  constexpr uint64_t kMaxLines = BlockedBloomParams::kMaxLines;
  constexpr uint64_t kLargestObject = PTRDIFF_MAX;
  EXPECT_LE(kMaxLines * 64 + 28, kLargestObject);
  EXPECT_GT((kMaxLines + 1) * 64 + 28, kLargestObject);
  // Exact where it fits: 2^40 keys at 10 bits/key.
  EXPECT_EQ(BlockedBloomParams::ForBitsPerKey(uint64_t{1} << 40, 10).num_lines,
            (uint64_t{10} << 40) / 512);
  const double kInfinity = std::numeric_limits<double>::infinity();
  for (uint64_t n : {uint64_t{1} << 40, uint64_t{1} << 56, UINT64_MAX}) {
    for (double bits_per_key : {10.0, 100.0, 1e300, kInfinity}) {
      SCOPED_TRACE(testing::Message() << n << " keys, " << bits_per_key);
      for (uint32_t lines_per_key : {1u, 2u}) {
        const auto p =
            BlockedBloomParams::ForBitsPerKey(n, bits_per_key, lines_per_key);
        EXPECT_TRUE(p.Validate().ok()) << p.Validate().ToString();
        EXPECT_LE(p.num_lines, kMaxLines);
        EXPECT_GE(p.SerializedSize(), p.num_lines);  // no wrap-around
        const double fpr = p.EstimatedFpr(n);
        EXPECT_GE(fpr, 0.0);
        EXPECT_LE(fpr, 1.0);
      }
    }
  }
  EXPECT_EQ(BlockedBloomParams::ForBitsPerKey(UINT64_MAX, 100).num_lines,
            kMaxLines);
  const auto by_fpr = BlockedBloomParams::ForTargetFpr(UINT64_MAX, 1e-9);
  EXPECT_EQ(by_fpr.num_lines, kMaxLines);
  EXPECT_TRUE(by_fpr.Validate().ok());

  BlockedBloomParams p = BlockedBloomParams::ForBitsPerKey(1000, 10);
  p.num_lines = kMaxLines;
  EXPECT_TRUE(p.Validate().ok());
  p.num_lines = kMaxLines + 1;
  EXPECT_EQ(p.Validate().code(), StatusCode::kCapacityExceeded);
  BlockedBloom filter;
  const Status s = BlockedBloom::Create(p, &filter);
  EXPECT_EQ(s.code(), StatusCode::kCapacityExceeded);
  EXPECT_NE(s.message().find("num_lines"), std::string::npos);
  p.num_lines = UINT64_MAX;
  EXPECT_EQ(BlockedBloom::Create(p, &filter).code(),
            StatusCode::kCapacityExceeded);
}

// A filter sized within a byte budget (the RocksDB builder's 4 GiB block)
// is ForBitsPerKey's below it; past it, it stays at the budget's lines with
// the layout of the bits/key it then has, and its FPR rises with the keys.
TEST(BlockedBloomTest, FilterWithinAByteBudgetStaysAtTheBudgetsSize) {
  constexpr size_t kBudget = 0xffffffff;
  constexpr uint64_t kBudgetLines = (kBudget - 28) / 64;  // 2^26 - 1
  auto same = [](const BlockedBloomParams& a, const BlockedBloomParams& b) {
    return a.num_lines == b.num_lines && a.num_probes == b.num_probes &&
           a.lines_per_key == b.lines_per_key;
  };
  for (uint32_t lines_per_key : {1u, 2u}) {
    SCOPED_TRACE(lines_per_key);
    for (uint64_t n : {uint64_t{0}, uint64_t{1}, uint64_t{100'000'000},
                       uint64_t{3'400'000'000}}) {
      EXPECT_TRUE(same(BlockedBloomParams::ForBitsPerKeyWithin(kBudget, n, 10,
                                                               lines_per_key),
                       BlockedBloomParams::ForBitsPerKey(n, 10, lines_per_key)))
          << n;
    }
    double previous_fpr = 0;
    for (uint64_t n : {uint64_t{3'500'000'000}, uint64_t{10'000'000'000},
                       uint64_t{1} << 40, UINT64_MAX}) {
      SCOPED_TRACE(n);
      const auto p = BlockedBloomParams::ForBitsPerKeyWithin(kBudget, n, 10,
                                                             lines_per_key);
      EXPECT_EQ(p.num_lines, kBudgetLines);
      EXPECT_LE(p.SerializedSize(), kBudget);
      EXPECT_TRUE(p.Validate().ok());
      const auto layout = BlockedBloomParams::ForBitsPerKey(
          n, kBudgetLines * 512.0 / static_cast<double>(n), lines_per_key);
      EXPECT_EQ(p.num_probes, layout.num_probes);
      EXPECT_EQ(p.lines_per_key, layout.lines_per_key);
      const double fpr = p.EstimatedFpr(n);
      EXPECT_GE(fpr, previous_fpr);
      EXPECT_LE(fpr, 1.0);
      previous_fpr = fpr;
    }
    const uint64_t n = 10'000'000'000;
    EXPECT_GT(
        BlockedBloomParams::ForBitsPerKeyWithin(kBudget, n, 10, lines_per_key)
            .EstimatedFpr(n),
        BlockedBloomParams::ForBitsPerKey(n, 10, lines_per_key)
            .EstimatedFpr(n));
  }
  // A budget below one line still holds the keys in one line: a filter of
  // no lines would answer "no" for them.
  EXPECT_EQ(BlockedBloomParams::ForBitsPerKeyWithin(10, 5, 10).num_lines, 1u);
}

// Built at a budget it passes, the filter is exactly the budget's size,
// finds every key, and measures the FPR its model gives.
TEST(BlockedBloomTest, FilterCappedByABudgetFindsEveryKeyAtItsModelFpr) {
  const uint64_t n = 20000;
  const size_t budget = 64 * 100 + BlockedBloomParams::kMetadataBytes;
  const auto p = BlockedBloomParams::ForBitsPerKeyWithin(budget, n, 10);
  ASSERT_EQ(p.num_lines, 100u);  // 2.56 bits/key instead of 10
  const auto keys = SequentialKeyHashes(n);
  const std::string bytes = WriteBlockedBloom(p, keys);
  EXPECT_EQ(bytes.size(), budget);
  BlockedBloomView view;
  ASSERT_TRUE(BlockedBloomView::Parse(bytes, &view).ok());
  EXPECT_EQ(CountMayContain(view, keys), n);
  const auto absent = AbsentKeyHashes(200000);
  const double measured =
      static_cast<double>(CountMayContain(view, absent)) / absent.size();
  EXPECT_NEAR(measured, view.EstimatedFpr(),
              FprTolerance(view.EstimatedFpr(), absent.size(), 0.05));
}

// The sizing for a byte budget (what a RocksDB builder answers for
// partitions): the lines a budget holds, the most keys whose filter fits it,
// and the FPR of a layout at that size.
TEST(BlockedBloomTest, SizeFunctionsAgreeWithEachOtherAndTheLayout) {
  EXPECT_EQ(BlockedBloomParams::LinesIn(0), 0u);
  EXPECT_EQ(BlockedBloomParams::LinesIn(27), 0u);
  EXPECT_EQ(BlockedBloomParams::LinesIn(28 + 63), 0u);
  EXPECT_EQ(BlockedBloomParams::LinesIn(28 + 64), 1u);
  EXPECT_EQ(BlockedBloomParams::Capacity(0, 10), 0u);
  for (uint32_t lines_per_key : {1u, 2u}) {
    for (double bits : {1.0, 6.5, 10.0, 16.0}) {
      for (size_t bytes : {92, 100, 4096, 65536, 1 << 20}) {
        SCOPED_TRACE(std::to_string(bytes) + " bytes, " + std::to_string(bits) +
                     " bits/key");
        const uint64_t capacity =
            BlockedBloomParams::Capacity(bytes, bits, lines_per_key);
        EXPECT_LE(
            BlockedBloomParams::ForBitsPerKey(capacity, bits, lines_per_key)
                .SerializedSize(),
            bytes);
        EXPECT_GT(
            BlockedBloomParams::ForBitsPerKey(capacity + 1, bits, lines_per_key)
                .SerializedSize(),
            bytes);
        const auto p =
            BlockedBloomParams::ForBitsPerKey(capacity, bits, lines_per_key);
        EXPECT_EQ(BlockedBloomParams::LinesIn(p.SerializedSize()), p.num_lines);
        EXPECT_EQ(p.EstimatedFprIn(p.SerializedSize(), capacity),
                  p.EstimatedFpr(capacity));
      }
    }
  }
  const auto p = BlockedBloomParams::ForBitsPerKey(1000, 10);
  EXPECT_EQ(p.EstimatedFprIn(27, 1000), 1.0);  // no line: every key collides
  EXPECT_EQ(p.EstimatedFprIn(27, 0), 0.0);
  EXPECT_GT(p.EstimatedFprIn(p.SerializedSize() / 2, 1000),
            p.EstimatedFpr(1000));
}

TEST(BlockedBloomTest, FractionalBitsPerKeySizesTheFilter) {
  const uint64_t n = 100000;
  const auto p99 = BlockedBloomParams::ForBitsPerKey(n, 9.9);
  const auto p10 = BlockedBloomParams::ForBitsPerKey(n, 10);
  EXPECT_LT(p99.num_lines, p10.num_lines);
  EXPECT_NEAR(p99.num_lines * 512.0 / n, 9.9, 0.01);
}

}  // namespace
}  // namespace sstfilter
