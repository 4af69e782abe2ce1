// Specification of the cuckoo filter's byte format: the stored bytes follow
// the documented derivation and layout, golden vectors pin them, and
// malformed bytes are rejected safely.
#include <gtest/gtest.h>

#include "cuckoo_test_support.h"

namespace sstfilter::test_support {
namespace {

// ---------------------------------------------------------------------------
// The documented derivation and layout

TEST(CuckooFormatTest, StoredBytesFollowTheDocumentedDerivationAndLayout) {
  const auto keys = SequentialKeyHashes(1000);
  for (uint32_t f : {4u, 8u, 12u, 13u, 16u, 17u, 31u, 32u}) {
    const std::string bytes = BuildStatic(keys, f);
    const std::vector<ArrayInfo> arrays = ReadBucketArrays(bytes);
    ASSERT_EQ(arrays.size(), 1u);
    const ArrayInfo& t = arrays[0];
    EXPECT_EQ(t.num_stashed, 0u);
    EXPECT_EQ(t.slots_offset, 0u);
    EXPECT_EQ(t.slots_size + kStaticMetadataBytes, bytes.size());
    const size_t slots = t.slots_offset;
    uint64_t occupied = 0;
    for (uint64_t i = 0; i < uint64_t{t.num_buckets} * 4; ++i) {
      occupied += SlotAt(bytes, slots, f, i) != 0;
    }
    EXPECT_EQ(occupied, DistinctPlacements(bytes, keys)) << "f=" << f;
    for (uint64_t h : keys) {
      const SpecLocation loc = SpecLocate(h, t.seed, t.num_buckets, 0, f);
      bool found = false;
      for (uint64_t bucket : {loc.bucket, loc.alternate}) {
        for (uint32_t j = 0; j < 4; ++j) {
          found |= SlotAt(bytes, slots, f, bucket * 4 + j) == loc.fingerprint;
        }
      }
      ASSERT_TRUE(found) << "f=" << f << ": a key is in neither bucket";
    }
  }
}

TEST(CuckooFormatTest, HandWrittenChainWithStashAnswersAsSpecified) {
  // Three bucket arrays (5, 10, 20 buckets, seed 7): a stash entry in the
  // first, slots in the alternate buckets of the others. Each key is found
  // exactly where the header's derivation puts it.
  const uint32_t f = 8, seed = 7;
  const uint64_t in_stash = HashKey("in the stash");
  const uint64_t in_slot1 = HashKey("in a slot of bucket array 1");
  const uint64_t in_slot2 = HashKey("in a slot of bucket array 2");
  const SpecLocation s0 = SpecLocate(in_stash, seed, 5, 0, f);
  const SpecLocation s1 = SpecLocate(in_slot1, seed, 5, 1, f);
  const SpecLocation s2 = SpecLocate(in_slot2, seed, 5, 2, f);
  std::string slots1(SpecSlotBytes(10, f), '\0');
  std::string slots2(SpecSlotBytes(20, f), '\0');
  SetSlot(&slots1, f, s1.alternate * 4 + 3, s1.fingerprint);
  SetSlot(&slots2, f, s2.alternate * 4 + 1, s2.fingerprint);
  auto chain = [&](uint32_t stash_fingerprint) {
    return SpecFilter(
        f, {{5,
             seed,
             {{static_cast<uint32_t>(s0.alternate), stash_fingerprint}},
             ""},
            {10, seed, {}, slots1},
            {20, seed, {}, slots2}});
  };
  const std::string bytes = chain(s0.fingerprint);
  const CuckooView view = Parse(bytes);
  EXPECT_EQ(view.num_bucket_arrays(), 3u);
  EXPECT_EQ(view.num_buckets(), 35u);
  EXPECT_EQ(view.num_items(), 3u);
  EXPECT_DOUBLE_EQ(view.Load(), 2.0 / 140);
  for (uint64_t h : {in_stash, in_slot1, in_slot2}) {
    EXPECT_TRUE(view.MayContain(h));
  }
  const std::vector<char> batch = Batch(view, {in_stash, in_slot1, in_slot2});
  EXPECT_TRUE(batch[0] && batch[1] && batch[2]);
  // With the stash fingerprint changed the first key is gone.
  const std::string other = chain(s0.fingerprint % 255 + 1);
  EXPECT_FALSE(Parse(other).MayContain(in_stash));
}

TEST(CuckooFormatTest, ChainedBucketArraysFollowTheDoublingRuleAndDerivation) {
  // A grown filter: bucket array t has m_0 * 2^t buckets and bucket array 0's
  // seed, and every key not in a stash sits in a bucket the header's lifted
  // derivation names for it.
  CuckooFilter filter = CreateDynamic(8, 20);
  const auto keys = SequentialKeyHashes(400);
  for (uint64_t h : keys) ASSERT_TRUE(filter.Add(h).ok());
  ASSERT_GE(filter.num_bucket_arrays(), 3u);
  const std::string bytes = filter.Serialize();
  const std::vector<ArrayInfo> arrays = ReadBucketArrays(bytes);
  uint64_t found = 0;
  for (uint64_t h : keys) {
    bool in_some_array = false;
    for (uint32_t t = 0; t < arrays.size(); ++t) {
      EXPECT_EQ(arrays[t].seed, arrays[0].seed);
      EXPECT_EQ(arrays[t].num_buckets, arrays[0].num_buckets << t);
      const SpecLocation loc =
          SpecLocate(h, arrays[t].seed, arrays[0].num_buckets, t, 8);
      for (uint64_t bucket : {loc.bucket, loc.alternate}) {
        for (uint32_t j = 0; j < 4; ++j) {
          in_some_array |= SlotAt(bytes, arrays[t].slots_offset, 8,
                                  bucket * 4 + j) == loc.fingerprint;
        }
      }
    }
    found += in_some_array;
  }
  // Every key but the stashed ones sits in a bucket the spec names.
  uint64_t stashed = 0;
  for (const ArrayInfo& t : arrays) stashed += t.num_stashed;
  EXPECT_GE(found + stashed, keys.size());
}

// ---------------------------------------------------------------------------
// Format stability

// Golden vectors: fixed keys must keep producing these exact bytes. If one
// fails, either the format changed (old filters would be misread: add a new
// format version instead of editing these values) or the static build
// places items differently (the same format, but no longer reproducible
// from the same keys: change it only deliberately).
TEST(CuckooFormatTest, GoldenVectorsPinTheFormat) {
  // One key, f = 8, spelled out from the header's derivation: one bucket,
  // the fingerprint in slot 0.
  const uint64_t h = HashKey("key0");
  const SpecLocation loc = SpecLocate(h, 0, 1, 0, 8);
  EXPECT_EQ(BuildStatic({h}, 8),
            SpecFilter(8,
                       {{1,
                         0,
                         {},
                         std::string(1, static_cast<char>(loc.fingerprint)) +
                             std::string(3, '\0')}},
                       1));
  // Three keys at f = 12, in full.
  const std::string three = BuildStatic(SequentialKeyHashes(3), 12);
  EXPECT_EQ(Hex(three),
            "21d0d57c0000"  // slots 0x021, 0xd5d, 0x7cd (key0..2), empty
                + Hex(three.substr(6, 4)) +  // the metadata's checksum
                "01000000"                   // num_buckets = 1
                "00000000"                   // seed = 0
                "00000000"                   // num_stashed = 0
                "0300000000000000"           // num_keys = 3
                "0c040100"                   // f = 12, 4 slots, 1 bucket array
                "53460202");                 // "SF", kind 2, version 2
  EXPECT_EQ(three, SpecFilter(12, {{1, 0, {}, three.substr(0, 6)}}, 3));
  // Larger inputs, pinned by size and XXH3-64 of the bytes.
  const struct {
    uint64_t keys;
    uint32_t f;
    size_t size;
    uint64_t xxh3;
  } cases[] = {
      {1000, 8, 1076, 0xf7c1d77ad4cb7ce1ULL},
      {1000, 12, 1598, 0x0f4da50b914e83aaULL},
      {1000, 16, 2120, 0xb31b3f797088a443ULL},
      {12345, 12, 19322, 0x5022abfcd89ad635ULL},
      {100000, 12, 156284, 0x12433de152484c68ULL},
      {1000, 5, 685, 0x69662a0d71ab86f3ULL},
      {1000, 32, 4208, 0x70ee38eab30e67aeULL},
  };
  for (const auto& c : cases) {
    const std::string bytes = BuildStatic(SequentialKeyHashes(c.keys), c.f);
    EXPECT_EQ(bytes.size(), c.size) << "keys=" << c.keys << " f=" << c.f;
    EXPECT_EQ(HashKey(bytes), c.xxh3) << "keys=" << c.keys << " f=" << c.f;
  }
}

// ---------------------------------------------------------------------------
// Malformed input

constexpr auto ExpectParseError = test_support::ExpectParseError<CuckooView>;

TEST(CuckooFormatTest, MalformedBytesGiveClearErrors) {
  const std::string valid = BuildStatic(SequentialKeyHashes(100), 12);
  ASSERT_EQ(valid.size(), 27 * 6 + kStaticMetadataBytes);
  const size_t meta = valid.size() - kStaticMetadataBytes;
  const size_t fields = valid.size() - 8;
  ExpectParseError("", StatusCode::kCorruption, "shorter than its 4-byte");
  ExpectParseError("SF\x02", StatusCode::kCorruption,
                   "shorter than its 4-byte");
  ExpectParseError(valid.substr(valid.size() - 11), StatusCode::kCorruption,
                   "metadata truncated: 11 of 20");
  // Changes behind the checksum, resealed so that each field's own check
  // answers.
  auto resealed = [](std::string b) {
    const size_t metadata = 20 + 12 * static_cast<uint8_t>(b[b.size() - 6]);
    if (metadata <= b.size()) ResealMetadata(&b, metadata);
    return b;
  };
  auto with_byte = [&](size_t at, int value) {
    std::string b = valid;
    b[at] = static_cast<char>(value);
    return resealed(b);
  };
  ExpectParseError(with_byte(valid.size() - 4, 'X'), StatusCode::kCorruption,
                   "magic");
  ExpectParseError(with_byte(valid.size() - 2, 1), StatusCode::kInvalidArgument,
                   "not a Cuckoo filter (kind BlockedBloom)");
  ExpectParseError(with_byte(valid.size() - 1, 3), StatusCode::kNotSupported,
                   "version 3 is unknown");
  {
    std::string b = valid;
    b[fields] = 13;  // not resealed
    ExpectParseError(b, StatusCode::kCorruption, "checksum mismatch");
  }
  for (int f : {0, 3, 33, 255}) {
    ExpectParseError(with_byte(fields, f), StatusCode::kCorruption,
                     "fingerprint_bits must be in 4..32");
  }
  for (int slots : {0, 2, 8}) {
    ExpectParseError(with_byte(fields + 1, slots), StatusCode::kCorruption,
                     "slots_per_bucket must be 4");
  }
  ExpectParseError(with_byte(fields + 2, 65), StatusCode::kCorruption,
                   "65 bucket arrays need");
  // The reserved byte is the 5th from the end, RocksDB's marker byte: a
  // trailer tag counts only after a 0 there (format.h).
  ExpectParseError(with_byte(fields + 3, 1), StatusCode::kCorruption, "magic");
  auto with_u32 = [&](const std::string& base, size_t at, uint32_t value) {
    std::string b = base;
    detail::StoreLittleEndian<uint32_t>(b.data() + at, value);
    return resealed(b);
  };
  ExpectParseError(with_u32(valid, meta + 4, 0), StatusCode::kCorruption,
                   "num_buckets is 0");
  ExpectParseError(
      with_u32(valid, meta + 4, 28), StatusCode::kCorruption,
      "size mismatch: the bucket arrays' slots and stashes take 168 "
      "bytes, the filter holds 162");
  ExpectParseError(with_u32(valid, meta + 4, 0xffffffff),
                   StatusCode::kCorruption, "size mismatch");
  ExpectParseError(valid.substr(1), StatusCode::kCorruption, "size mismatch");
  ExpectParseError("x" + valid, StatusCode::kCorruption, "size mismatch");
  ExpectParseError(with_u32(valid, meta + 12, 1), StatusCode::kCorruption,
                   "size mismatch");
  // Counts whose bytes differ from the block's by exactly 2^32 (27 + 2^31
  // buckets of 6 bytes; 2^29 stash entries of 8): a size computed in 32
  // bits would take them for the block's own.
  ExpectParseError(with_u32(valid, meta + 4, 27 + (1u << 31)),
                   StatusCode::kCorruption, "size mismatch");
  ExpectParseError(with_u32(valid, meta + 12, 1u << 29),
                   StatusCode::kCorruption, "size mismatch");
  ExpectParseError(with_u32(valid, meta + 12, 0xffffffff),
                   StatusCode::kCorruption, "size mismatch");

  // A bucket array with a stash entry (bucket 2 of 3, fingerprint 5), f = 8.
  const std::string stashed = SpecFilter(8, {{3, 0, {{2, 5}}, ""}});
  ASSERT_EQ(Parse(stashed).num_items(), 1u);
  const size_t entry = stashed.size() - kStaticMetadataBytes - 8;
  ExpectParseError(stashed.substr(1), StatusCode::kCorruption, "size mismatch");
  ExpectParseError(with_u32(stashed, entry, 3), StatusCode::kCorruption,
                   "stash bucket 3 is not below 3");
  ExpectParseError(with_u32(stashed, entry + 4, 0), StatusCode::kCorruption,
                   "stash fingerprint 0");
  ExpectParseError(with_u32(stashed, entry + 4, 256), StatusCode::kCorruption,
                   "stash fingerprint 256 is not a nonzero 8-bit value");
  // Chains: bucket array t must have 2^t times bucket array 0's buckets and its
  // seed.
  const std::string chain = SpecFilter(8, {{3, 9, {}, ""}, {6, 9, {}, ""}});
  ASSERT_EQ(Parse(chain).num_bucket_arrays(), 2u);
  const size_t second_record = chain.size() - 16 - 12;
  ExpectParseError(
      with_u32(chain, second_record, 7), StatusCode::kCorruption,
      "bucket array 1: num_buckets 7 is not 2^1 times bucket array 0's 3");
  ExpectParseError(with_u32(chain, second_record + 4, 10),
                   StatusCode::kCorruption,
                   "bucket array 1: seed 10 differs from bucket array 0's 9");
  // A failed parse leaves the view as it was.
  CuckooView view = Parse(valid);
  EXPECT_FALSE(CuckooView::Parse("SF", &view).ok());
  EXPECT_EQ(view.SizeBytes(), valid.size());
}

TEST(CuckooFormatTest, DamagedMetadataNeverParsesAsAnotherFilter) {
  ExpectEveryMetadataByteChecked<CuckooView>(
      BuildStatic(SequentialKeyHashes(100), 12), kStaticMetadataBytes);
  CuckooFilter chain = CreateDynamic(8, 20);
  for (uint64_t h : SequentialKeyHashes(200)) ASSERT_TRUE(chain.Add(h).ok());
  ASSERT_GE(chain.num_bucket_arrays(), 2u);
  ExpectEveryMetadataByteChecked<CuckooView>(
      chain.Serialize(), 20 + 12 * chain.num_bucket_arrays());
}

TEST(CuckooFormatTest, TruncatedOrFlippedBytesNeverCrashTheParser) {
  CuckooFilter chain = CreateDynamic(12, 20);
  for (uint64_t h : RandomKeyHashes(300, 16)) ASSERT_TRUE(chain.Add(h).ok());
  const std::string inputs[] = {
      BuildStatic(SequentialKeyHashes(100), 12),
      BuildStatic(SequentialKeyHashes(60), 7),
      chain.Serialize(),
  };
  const auto probes = AbsentKeyHashes(64);
  auto exercise = [&](const std::string& bytes, bool mutate) {
    CuckooView view;
    if (!CuckooView::Parse(bytes, &view).ok()) return;
    bool results[64];
    view.MayContainBatch(probes.data(), probes.size(), results);
    for (uint64_t h : probes) (void)view.MayContain(h);
    EXPECT_GE(view.Load(), 0.0);
    EXPECT_LE(view.Load(), 1.0);
    EXPECT_GE(view.EstimatedFpr(), 0.0);
    EXPECT_LE(view.EstimatedFpr(), 1.0);
    if (!mutate) return;
    CuckooFilter filter;
    ASSERT_TRUE(CuckooFilter::Deserialize(bytes, &filter).ok());
    for (uint64_t h : probes) {
      const Status s = filter.Add(h);
      if (s.ok()) {
        EXPECT_TRUE(filter.MayContain(h));
      }
      (void)filter.Erase(h);
    }
  };
  std::mt19937 rng(1);
  for (const std::string& valid : inputs) {
    for (size_t len = 0; len <= valid.size(); ++len) {
      exercise(valid.substr(0, len), false);
    }
    for (int trial = 0; trial < 20000; ++trial) {
      std::string b = valid;
      const int flips = 1 + trial % 4;
      for (int f = 0; f < flips; ++f) {
        b[rng() % b.size()] ^= static_cast<char>(1 + rng() % 255);
      }
      exercise(b, trial % 16 == 0);
    }
  }
}

}  // namespace
}  // namespace sstfilter::test_support
