// Specification of the cuckoo filter: no false negatives, the space and
// load a static build promises, the FPR its model predicts, a stable byte
// format, the dynamic filter's insert/erase contract, and safe parsing.
#include "sstfilter/cuckoo_filter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <utility>
#include <vector>

// The packed-slot table, for its per-slot reference probe.
#include "../filter/src/detail/cuckoo_packed_table.h"
#include "sstfilter/detail/endian.h"
#include "sstfilter/format.h"
#include "sstfilter/hash.h"
#include "support/format_checks.h"
#include "support/keys.h"

namespace sstfilter {
namespace {

using testing::AbsentKeyHashes;
using testing::FprTolerance;
using testing::Hex;
using testing::RandomKeyHashes;
using testing::SequentialBigEndianKeyHashes;
using testing::SequentialKeyHashes;

constexpr size_t kStaticHeaderBytes = 20;  // filter header + table header

std::string BuildStatic(const std::vector<uint64_t>& hashes,
                        uint32_t fingerprint_bits) {
  std::string bytes;
  const Status s =
      BuildStaticCuckoo(hashes.data(), hashes.size(), fingerprint_bits, &bytes);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return bytes;
}

// A view does not own its bytes: parsing a temporary would dangle.
CuckooView Parse(std::string&&) = delete;
CuckooView Parse(const std::string& bytes) {
  CuckooView view;
  const Status s = CuckooView::Parse(bytes, &view);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return view;
}

size_t CountMayContain(const CuckooView& view,
                       const std::vector<uint64_t>& hashes) {
  size_t hits = 0;
  for (uint64_t h : hashes) hits += view.may_contain(h);
  return hits;
}

std::vector<char> Batch(const CuckooView& view,
                        const std::vector<uint64_t>& hashes) {
  std::vector<char> results(hashes.size());
  view.may_contain_batch(hashes.data(), hashes.size(),
                         reinterpret_cast<bool*>(results.data()));
  return results;
}

// Asserts every hash is found, one at a time and batched.
void ExpectAllFound(const CuckooView& view, const std::vector<uint64_t>& keys,
                    const std::string& context) {
  const std::vector<char> batch = Batch(view, keys);
  for (size_t i = 0; i < keys.size(); ++i) {
    ASSERT_TRUE(view.may_contain(keys[i])) << context << ", key " << i;
    ASSERT_TRUE(batch[i]) << context << ", batched, key " << i;
  }
}

CuckooFilter CreateDynamic(uint32_t fingerprint_bits, uint64_t expected) {
  CuckooFilter filter;
  const Status s = CuckooFilter::Create(fingerprint_bits, expected, &filter);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return filter;
}

// The per-table fields of serialized bytes (assumed valid).
struct TableInfo {
  uint32_t num_buckets, seed, stash_count;
  size_t offset, size;  // of the whole table, header included
};

std::vector<TableInfo> ReadTables(const std::string& bytes) {
  std::vector<TableInfo> tables;
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  size_t pos = 8;
  for (uint32_t t = 0; t < data[6]; ++t) {
    TableInfo info;
    info.num_buckets = detail::LoadLittleEndian<uint32_t>(data + pos);
    info.seed = detail::LoadLittleEndian<uint32_t>(data + pos + 4);
    info.stash_count = detail::LoadLittleEndian<uint32_t>(data + pos + 8);
    info.offset = pos;
    info.size = 12 +
                detail::PackedSlotsView::BytesFor(info.num_buckets, data[4]) +
                size_t{8} * info.stash_count;
    pos += info.size;
    tables.push_back(info);
  }
  return tables;
}

// The occupied fraction of one table of a chain, as a filter of its own.
double TableLoad(const std::string& bytes, const TableInfo& table) {
  std::string single =
      bytes.substr(0, 8) + bytes.substr(table.offset, table.size);
  single[6] = 1;
  return Parse(single).load();
}

// ---------------------------------------------------------------------------
// The documented hash derivation and layout, restated from the header so
// that the tests check the implementation against the spec, not itself.

struct SpecLocation {
  uint64_t bucket, alternate;
  uint32_t fingerprint;
};

// Table `level` t of a chain whose table 0 has m0 buckets.
SpecLocation SpecLocate(uint64_t h, uint32_t seed, uint64_t m0, uint32_t level,
                        uint32_t f) {
  const uint64_t hs =
      seed == 0 ? h : Remix64(h ^ (seed * 0x9e3779b97f4a7c15ULL));
  const uint32_t fp = 1 + FastRange32(static_cast<uint32_t>(hs),
                                      static_cast<uint32_t>((1ULL << f) - 1));
  const uint64_t bucket = FastRange64(hs, m0 << level);
  const uint64_t r = FastRange64(fp * 0xc6a4a7935bd1e995ULL, m0);
  uint64_t alternate = (r + m0 - (bucket >> level)) % m0;
  if (level > 0) {
    const uint64_t flip = (fp * 0x9e3779b97f4a7c15ULL) >> (64 - level);
    alternate =
        (alternate << level) | ((bucket ^ flip) & ((uint64_t{1} << level) - 1));
  }
  return {bucket, alternate, fp};
}

// Slot `index` of the bit stream starting at bytes[offset], bit by bit.
uint32_t SlotAt(const std::string& bytes, size_t offset, uint32_t f,
                uint64_t index) {
  uint32_t v = 0;
  for (uint32_t b = 0; b < f; ++b) {
    const uint64_t bit = index * f + b;
    const auto byte = static_cast<uint8_t>(bytes[offset + bit / 8]);
    v |= static_cast<uint32_t>((byte >> (bit % 8)) & 1) << b;
  }
  return v;
}

std::string U32(uint32_t v) {
  std::string s(4, '\0');
  detail::StoreLittleEndian<uint32_t>(s.data(), v);
  return s;
}

std::string HeaderBytes(uint32_t f, uint32_t num_tables) {
  return std::string("SF\x02\x01", 4) + static_cast<char>(f) + '\x04' +
         static_cast<char>(num_tables) + '\0';
}

// One table written by hand: zero slots unless `slots` is given.
std::string TableBytes(uint32_t f, uint32_t num_buckets, uint32_t seed,
                       const std::vector<std::pair<uint32_t, uint32_t>>& stash,
                       std::string slots = "") {
  if (slots.empty()) {
    slots.assign(detail::PackedSlotsView::BytesFor(num_buckets, f), '\0');
  }
  std::string out = U32(num_buckets) + U32(seed) +
                    U32(static_cast<uint32_t>(stash.size())) + slots;
  for (const auto& [bucket, fp] : stash) out += U32(bucket) + U32(fp);
  return out;
}

void SetSlot(std::string* slots, uint32_t f, uint64_t index, uint32_t value) {
  for (uint32_t b = 0; b < f; ++b) {
    const uint64_t bit = index * f + b;
    char& byte = (*slots)[bit / 8];
    byte = static_cast<char>((byte & ~(1 << (bit % 8))) |
                             (((value >> b) & 1) << (bit % 8)));
  }
}

// ---------------------------------------------------------------------------
// Static filters

std::vector<uint64_t> TestSizes() {
  std::vector<uint64_t> sizes;
  for (uint64_t n = 0; n <= 70; ++n) sizes.push_back(n);
  for (uint64_t n : {100, 127, 128, 129, 255, 256, 257, 1000, 1023, 1024, 1025,
                     4095, 4096, 4097, 65535, 65536, 65537, 100000, 1000000}) {
    sizes.push_back(n);
  }
  return sizes;
}

TEST(CuckooFilterTest, StaticNeverFalseNegativeAcrossSizesAndKeyPatterns) {
  for (uint64_t n : TestSizes()) {
    // Random binary keys with repeats: every third key twice, and one key
    // 20 times (more copies than a bucket pair could hold).
    std::vector<uint64_t> repeated = RandomKeyHashes(n, n + 1);
    for (uint64_t i = 0; i < n; i += 3) repeated.push_back(repeated[i]);
    for (int r = 0; r < 20 && n > 0; ++r) repeated.push_back(repeated[0]);
    std::shuffle(repeated.begin(), repeated.end(), std::mt19937_64(n));
    const std::vector<uint64_t> patterns[] = {
        SequentialKeyHashes(n), SequentialBigEndianKeyHashes(n), repeated};
    for (uint32_t f : {8u, 12u, 16u}) {
      for (const auto& keys : patterns) {
        const std::string bytes = BuildStatic(keys, f);
        const CuckooView view = Parse(bytes);
        ExpectAllFound(view, keys,
                       "n=" + std::to_string(n) + " f=" + std::to_string(f));
        EXPECT_EQ(view.num_items(), n) << "duplicates are stored once";
        EXPECT_EQ(view.num_tables(), n == 0 ? 0u : 1u);
      }
    }
  }
}

// Built once, shared by the tests that need ten million keys.
const std::vector<uint64_t>& TenMillionKeys() {
  static const std::vector<uint64_t> keys = SequentialKeyHashes(10'000'000);
  return keys;
}
const std::string& TenMillionKeyFilter() {
  static const std::string bytes = BuildStatic(TenMillionKeys(), 12);
  return bytes;
}

TEST(CuckooFilterTest, StaticNeverFalseNegativeAtTenMillionKeys) {
  const CuckooView view = Parse(TenMillionKeyFilter());
  EXPECT_EQ(CountMayContain(view, TenMillionKeys()), TenMillionKeys().size());
}

TEST(CuckooFilterTest, StaticLoadIsAtLeast95PercentNearPowersOfTwo) {
  for (uint32_t f : {8u, 12u, 16u}) {
    for (uint64_t n : {1000, 1023, 1024, 1025, 4095, 4096, 4097, 65535, 65536,
                       65537, 100000, 1000000}) {
      const std::string bytes = BuildStatic(RandomKeyHashes(n, 3 * n), f);
      const CuckooView view = Parse(bytes);
      EXPECT_GE(view.load(), 0.95) << "n=" << n << " f=" << f;
    }
  }
}

TEST(CuckooFilterTest, StaticBitsPerKeyAtTwelveBitFingerprintsIsAtMost12_7) {
  // The header counts: 12.7 bits/key leaves 0.2 bits over the 12/0.96 =
  // 12.5 of the slots for the 20-byte header at n = 1000.
  std::printf("   n           f  bytes       bits/key  load\n");
  for (uint64_t n : {1000, 10'000, 100'000, 1'000'000, 10'000'000}) {
    const std::string bytes = n == 10'000'000
                                  ? TenMillionKeyFilter()
                                  : BuildStatic(SequentialKeyHashes(n), 12);
    const double bits_per_key = bytes.size() * 8.0 / n;
    const double load = Parse(bytes).load();
    std::printf("   %-10llu  12 %-11zu %-9.4f %.4f\n",
                static_cast<unsigned long long>(n), bytes.size(), bits_per_key,
                load);
    EXPECT_LE(bits_per_key, 12.7) << "n=" << n;
    EXPECT_GE(load, 0.95) << "n=" << n;
  }
  // m = ceil(1000 / 3.84) = 261 buckets of 6 bytes, plus the header.
  EXPECT_EQ(StaticCuckooBytes(1000, 12), 20u + 261 * 6);
}

TEST(CuckooFilterTest, StaticSizeFunctionsAgreeWithEachOtherAndTheBuild) {
  EXPECT_EQ(StaticCuckooBytes(0, 12), 8u);
  EXPECT_EQ(StaticCuckooCapacity(7, 12), 0u);
  EXPECT_EQ(StaticCuckooCapacity(1000, 3), 0u);
  for (uint32_t f : {4u, 7u, 8u, 12u, 16u, 25u, 32u}) {
    for (uint64_t n : {1, 2, 3, 4, 5, 100, 1000, 4097, 123456, 1000000}) {
      const size_t bytes = StaticCuckooBytes(n, f);
      EXPECT_GE(StaticCuckooCapacity(bytes, f), n) << "n=" << n << " f=" << f;
      EXPECT_LT(StaticCuckooCapacity(bytes - 1, f), n)
          << "n=" << n << " f=" << f;
    }
    for (size_t bytes : {20, 21, 27, 100, 4096, 65536, 1 << 20}) {
      const uint64_t capacity = StaticCuckooCapacity(bytes, f);
      EXPECT_LE(StaticCuckooBytes(capacity, f), bytes);
      EXPECT_GT(StaticCuckooBytes(capacity + 1, f), bytes)
          << "bytes=" << bytes << " f=" << f;
    }
  }
  // A build is never smaller than predicted, and retries add at most ~1%.
  for (uint32_t f : {8u, 12u, 16u}) {
    for (uint64_t n : {1, 10, 100, 1000, 54321}) {
      const size_t built = BuildStatic(RandomKeyHashes(n, n), f).size();
      EXPECT_GE(built, StaticCuckooBytes(n, f));
      EXPECT_LE(built, StaticCuckooBytes(n, f) * 1.011 + 8);
    }
  }
  // Past the format's 2^32 - 1 buckets there is no static filter.
  EXPECT_EQ(StaticCuckooBytes(uint64_t{1} << 40, 12), SIZE_MAX);
}

TEST(CuckooFilterTest, MeasuredFprMatchesEstimatedFpr) {
  const uint64_t n = 1'000'000;
  const auto keys = RandomKeyHashes(n, 42);
  for (uint32_t f : {8u, 12u, 16u}) {
    const std::string bytes = BuildStatic(keys, f);
    const CuckooView view = Parse(bytes);
    // At f = 16 the FPR is ~1e-4: 1e7 queries give ~1200 false positives,
    // enough for a 4-sigma band of about 10%.
    const uint64_t queries = f >= 16 ? 10'000'000 : 1'000'000;
    const double measured =
        static_cast<double>(CountMayContain(view, AbsentKeyHashes(queries))) /
        queries;
    const double expected = view.estimated_fpr();
    std::printf("   f=%-2u n=%llu load=%.4f measured FPR %.6f estimated %.6f\n",
                f, static_cast<unsigned long long>(n), view.load(), measured,
                expected);
    // 4 sigma of the binomial count, plus 2% for the model (average load
    // in place of the per-bucket distribution).
    EXPECT_NEAR(measured, expected, FprTolerance(expected, queries, 0.02))
        << "f=" << f;
    // And the model itself: about 2 * 4 * load / (2^f - 1) (the first-order
    // term; 1.3% above the exact value at f = 8).
    EXPECT_NEAR(expected, 8 * view.load() / ((1 << f) - 1), 0.02 * expected);
  }
}

TEST(CuckooFilterTest, EveryFingerprintWidthBuildsRoundTripsAndFindsAllKeys) {
  const auto keys = RandomKeyHashes(5000, 11);
  const auto absent = AbsentKeyHashes(2000);
  for (uint32_t f = CuckooLimits::kMinFingerprintBits;
       f <= CuckooLimits::kMaxFingerprintBits; ++f) {
    const std::string context = "f=" + std::to_string(f);
    const std::string bytes = BuildStatic(keys, f);
    EXPECT_EQ(BuildStatic(keys, f), bytes) << context << ": not reproducible";
    const CuckooView view = Parse(bytes);
    EXPECT_EQ(view.fingerprint_bits(), f);
    EXPECT_EQ(view.num_items(), keys.size()) << context;
    EXPECT_EQ(view.size_bytes(), bytes.size());
    ExpectAllFound(view, keys, context);
    const std::vector<char> batch = Batch(view, absent);
    for (size_t i = 0; i < absent.size(); ++i) {
      ASSERT_EQ(view.may_contain(absent[i]), batch[i] != 0) << context;
    }
    EXPECT_GT(view.estimated_fpr(), 0.0);
    EXPECT_LT(view.estimated_fpr(), 1.0);

    // The dynamic filter at the same width, grown past its first table. An
    // insert may be refused as a duplicate when the few fingerprints of a
    // narrow width already fill the item's buckets; it is then found anyway.
    CuckooFilter filter = CreateDynamic(f, 1000);
    for (uint64_t h : keys) {
      const Status s = filter.insert(h);
      ASSERT_TRUE(s.ok() || s.code() == StatusCode::kTooManyDuplicates)
          << context << ": " << s.ToString();
    }
    EXPECT_GT(filter.num_tables(), 1u) << context;
    const std::string serialized = filter.Serialize();
    CuckooFilter copy;
    ASSERT_TRUE(CuckooFilter::Deserialize(serialized, &copy).ok()) << context;
    EXPECT_EQ(copy.Serialize(), serialized) << context;
    EXPECT_EQ(copy.size(), filter.size()) << context;
    for (uint64_t h : keys) ASSERT_TRUE(copy.contains(h)) << context;
    ExpectAllFound(Parse(serialized), keys, context + " dynamic");
  }
}

TEST(CuckooFilterTest, StoredBytesFollowTheDocumentedDerivationAndLayout) {
  const auto keys = SequentialKeyHashes(1000);
  for (uint32_t f : {4u, 8u, 12u, 13u, 16u, 17u, 31u, 32u}) {
    const std::string bytes = BuildStatic(keys, f);
    const std::vector<TableInfo> tables = ReadTables(bytes);
    ASSERT_EQ(tables.size(), 1u);
    const TableInfo& t = tables[0];
    EXPECT_EQ(t.stash_count, 0u);
    EXPECT_EQ(t.offset + t.size, bytes.size());
    const size_t slots = t.offset + 12;
    uint64_t occupied = 0;
    for (uint64_t i = 0; i < uint64_t{t.num_buckets} * 4; ++i) {
      occupied += SlotAt(bytes, slots, f, i) != 0;
    }
    EXPECT_EQ(occupied, keys.size()) << "f=" << f;
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

TEST(CuckooFilterTest, HandWrittenChainWithStashAnswersAsSpecified) {
  // Three tables (5, 10, 20 buckets, seed 7): a stash entry in the first,
  // slots in the alternate buckets of the others. Each key is found exactly
  // where the header's derivation puts it.
  const uint32_t f = 8, seed = 7;
  const uint64_t in_stash = HashKey("in the stash");
  const uint64_t in_slot1 = HashKey("in a slot of table 1");
  const uint64_t in_slot2 = HashKey("in a slot of table 2");
  const SpecLocation s0 = SpecLocate(in_stash, seed, 5, 0, f);
  const SpecLocation s1 = SpecLocate(in_slot1, seed, 5, 1, f);
  const SpecLocation s2 = SpecLocate(in_slot2, seed, 5, 2, f);
  std::string slots1(detail::PackedSlotsView::BytesFor(10, f), '\0');
  std::string slots2(detail::PackedSlotsView::BytesFor(20, f), '\0');
  SetSlot(&slots1, f, s1.alternate * 4 + 3, s1.fingerprint);
  SetSlot(&slots2, f, s2.alternate * 4 + 1, s2.fingerprint);
  auto chain = [&](uint32_t stash_fingerprint) {
    return HeaderBytes(f, 3) +
           TableBytes(
               f, 5, seed,
               {{static_cast<uint32_t>(s0.alternate), stash_fingerprint}}) +
           TableBytes(f, 10, seed, {}, slots1) +
           TableBytes(f, 20, seed, {}, slots2);
  };
  const std::string bytes = chain(s0.fingerprint);
  const CuckooView view = Parse(bytes);
  EXPECT_EQ(view.num_tables(), 3u);
  EXPECT_EQ(view.num_buckets(), 35u);
  EXPECT_EQ(view.num_items(), 3u);
  EXPECT_DOUBLE_EQ(view.load(), 2.0 / 140);
  for (uint64_t h : {in_stash, in_slot1, in_slot2}) {
    EXPECT_TRUE(view.may_contain(h));
  }
  const std::vector<char> batch = Batch(view, {in_stash, in_slot1, in_slot2});
  EXPECT_TRUE(batch[0] && batch[1] && batch[2]);
  // With the stash fingerprint changed the first key is gone.
  const std::string other = chain(s0.fingerprint % 255 + 1);
  EXPECT_FALSE(Parse(other).may_contain(in_stash));
}

TEST(CuckooFilterTest, ChainedTablesFollowTheDoublingRuleAndDerivation) {
  // A grown filter: table t has m_0 * 2^t buckets and table 0's seed, and
  // every key not in a stash sits in a bucket the header's lifted
  // derivation names for it.
  CuckooFilter filter = CreateDynamic(8, 20);
  const auto keys = SequentialKeyHashes(400);
  for (uint64_t h : keys) ASSERT_TRUE(filter.insert(h).ok());
  ASSERT_GE(filter.num_tables(), 3u);
  const std::string bytes = filter.Serialize();
  const std::vector<TableInfo> tables = ReadTables(bytes);
  uint64_t found = 0;
  for (uint64_t h : keys) {
    bool in_some_table = false;
    for (uint32_t t = 0; t < tables.size(); ++t) {
      EXPECT_EQ(tables[t].seed, tables[0].seed);
      EXPECT_EQ(tables[t].num_buckets, tables[0].num_buckets << t);
      const SpecLocation loc =
          SpecLocate(h, tables[t].seed, tables[0].num_buckets, t, 8);
      for (uint64_t bucket : {loc.bucket, loc.alternate}) {
        for (uint32_t j = 0; j < 4; ++j) {
          in_some_table |= SlotAt(bytes, tables[t].offset + 12, 8,
                                  bucket * 4 + j) == loc.fingerprint;
        }
      }
    }
    found += in_some_table;
  }
  // Every key but the stashed ones sits in a bucket the spec names.
  uint64_t stashed = 0;
  for (const TableInfo& t : tables) stashed += t.stash_count;
  EXPECT_GE(found + stashed, keys.size());
}

TEST(CuckooFilterTest, StaticBuildIgnoresOrderAndDuplicates) {
  const auto keys = RandomKeyHashes(20000, 5);
  std::vector<uint64_t> shuffled = keys;
  shuffled.insert(shuffled.end(), keys.begin(), keys.begin() + 5000);
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(1));
  EXPECT_EQ(BuildStatic(keys, 12), BuildStatic(shuffled, 12));
}

TEST(CuckooFilterTest, StaticBuildFromRunsEqualsBuildFromOneArray) {
  // The RocksDB builder hands over its hash chunks as runs; overlapping
  // runs with repeats must give exactly the one-array filter.
  const auto keys = RandomKeyHashes(30000, 21);
  std::vector<std::vector<uint64_t>> chunks = {
      {keys.begin(), keys.begin() + 4096},
      {keys.begin() + 4096, keys.begin() + 20000},
      {keys.begin() + 19000, keys.end()},  // overlaps the previous run
      {},
      {keys.begin(), keys.begin() + 10}};
  std::vector<HashRun> runs;
  for (auto& chunk : chunks) runs.push_back({chunk.data(), chunk.size()});
  std::string from_runs;
  ASSERT_TRUE(BuildStaticCuckoo(runs.data(), runs.size(), 12, &from_runs).ok());
  EXPECT_EQ(from_runs, BuildStatic(keys, 12));
  for (const auto& chunk : chunks) {
    EXPECT_TRUE(std::is_sorted(chunk.begin(), chunk.end()))
        << "runs are left sorted";
  }
}

TEST(CuckooFilterTest, EmptyStaticFilterHasNoTablesAndAnswersNo) {
  std::string bytes;
  ASSERT_TRUE(
      BuildStaticCuckoo(static_cast<const uint64_t*>(nullptr), 0, 12, &bytes)
          .ok());
  EXPECT_EQ(bytes, HeaderBytes(12, 0));
  const CuckooView view = Parse(bytes);
  EXPECT_EQ(view.num_tables(), 0u);
  EXPECT_EQ(view.num_items(), 0u);
  EXPECT_EQ(view.load(), 0.0);
  EXPECT_EQ(view.estimated_fpr(), 0.0);
  const auto absent = AbsentKeyHashes(1000);
  EXPECT_EQ(CountMayContain(view, absent), 0u);
  const std::vector<char> batch = Batch(view, absent);
  EXPECT_EQ(std::count(batch.begin(), batch.end(), 1), 0);
}

TEST(CuckooFilterTest, KeyFormsHashWithHashKey) {
  const std::vector<std::string> keys = {"alpha", "beta", "gamma"};
  std::vector<uint64_t> hashes;
  for (const auto& k : keys) hashes.push_back(HashKey(k));
  const std::string bytes = BuildStatic(hashes, 12);
  const CuckooView view = Parse(bytes);
  CuckooFilter filter = CreateDynamic(12, 10);
  for (const auto& k : keys) {
    EXPECT_TRUE(view.may_contain_key(k));
    EXPECT_TRUE(filter.insert_key(k).ok());
    EXPECT_TRUE(filter.contains_key(k));
    EXPECT_TRUE(filter.contains(HashKey(k)));
  }
  EXPECT_EQ(view.may_contain_key("delta"), view.may_contain(HashKey("delta")));
  EXPECT_TRUE(filter.erase_key("beta").ok());
  EXPECT_EQ(filter.contains_key("beta"), filter.contains(HashKey("beta")));
}

TEST(CuckooFilterTest, BadFingerprintWidthIsInvalidArgument) {
  std::string bytes;
  CuckooFilter filter;
  const uint64_t h = 1;
  for (uint32_t f : {0u, 3u, 33u, 64u}) {
    EXPECT_EQ(BuildStaticCuckoo(&h, 1, f, &bytes).code(),
              StatusCode::kInvalidArgument);
    const Status s = CuckooFilter::Create(f, 100, &filter);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find("fingerprint_bits"), std::string::npos);
  }
  // More buckets than the format's u32 holds.
  EXPECT_EQ(CuckooFilter::Create(12, uint64_t{1} << 40, &filter).code(),
            StatusCode::kCapacityExceeded);
}

// ---------------------------------------------------------------------------
// The packed-slot table

TEST(CuckooFilterTest, PackedSlotsReadBackWhatWasWrittenAtEveryWidth) {
  std::mt19937_64 rng(3);
  for (uint32_t f = 4; f <= 32; ++f) {
    // An odd bucket count so the stream ends mid-word (the clamped path).
    const uint64_t m = 37;
    std::vector<uint8_t> bytes(detail::PackedSlotsView::BytesFor(m, f));
    detail::PackedSlots slots(bytes.data(), m, f);
    std::vector<uint32_t> shadow(m * 4, 0);
    const uint32_t mask = static_cast<uint32_t>((uint64_t{1} << f) - 1);
    for (int round = 0; round < 3; ++round) {
      for (uint64_t i = 0; i < m * 4; ++i) {
        const uint32_t v = static_cast<uint32_t>(rng()) & mask;
        EXPECT_EQ(slots.Exchange(i / 4, i % 4, v), shadow[i]);
        shadow[i] = v;
      }
      for (uint64_t i = 0; i < m * 4; ++i) {
        ASSERT_EQ(slots.Get(i / 4, i % 4), shadow[i]) << "f=" << f;
      }
    }
  }
}

TEST(CuckooFilterTest, WordAtATimeProbeMatchesPerSlotReference) {
  // Fill buckets with near misses of the probed fingerprint (one bit off,
  // +-1, the top bit flipped, empty) so every borrow and carry case of the
  // SWAR test is exercised, then compare with the per-slot Find.
  std::mt19937_64 rng(4);
  for (uint32_t f = 4; f <= 32; ++f) {
    const uint64_t m = 41;
    const uint32_t mask = static_cast<uint32_t>((uint64_t{1} << f) - 1);
    std::vector<uint8_t> bytes(detail::PackedSlotsView::BytesFor(m, f));
    detail::PackedSlots slots(bytes.data(), m, f);
    for (int trial = 0; trial < 2000; ++trial) {
      const uint32_t fp = 1 + static_cast<uint32_t>(rng() % mask);
      const uint32_t near[] = {0,
                               fp,
                               (fp + 1) & mask,
                               (fp - 1) & mask,
                               fp ^ (1u << (f - 1)),
                               fp ^ (1u << (rng() % f)),
                               static_cast<uint32_t>(rng()) & mask};
      const uint64_t a = rng() % m, b = rng() % m;
      for (uint64_t bucket : {a, b}) {
        for (uint32_t j = 0; j < 4; ++j) {
          const uint32_t v = near[rng() % 7];
          slots.Exchange(bucket, j, v == fp && rng() % 2 ? 0 : v);
        }
      }
      const bool reference = slots.Find(a, fp) >= 0 || slots.Find(b, fp) >= 0;
      ASSERT_EQ(slots.EitherBucketContains(a, b, fp), reference)
          << "f=" << f << " fp=" << fp;
      if (slots.HasWordBuckets()) {
        ASSERT_EQ(slots.WordBucketsContain(a, b, fp), reference);
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Dynamic filters

TEST(CuckooFilterTest, DynamicNeverFalseNegativeUpToOneMillion) {
  for (uint64_t expected : {1000, 1'000'000}) {
    for (const auto& keys : {RandomKeyHashes(1'000'000, 8),
                             SequentialBigEndianKeyHashes(300'000)}) {
      CuckooFilter filter = CreateDynamic(12, expected);
      for (uint64_t h : keys) ASSERT_TRUE(filter.insert(h).ok());
      EXPECT_EQ(filter.size(), keys.size());
      for (uint64_t h : keys) ASSERT_TRUE(filter.contains(h));
      const std::string bytes = filter.Serialize();
      ExpectAllFound(Parse(bytes), keys,
                     "expected=" + std::to_string(expected));
    }
  }
}

TEST(CuckooFilterTest, EraseRemovesOneCopyAtATime) {
  const auto others = RandomKeyHashes(1000, 9);
  const uint64_t key = HashKey("repeated");
  // expected 1: copies spill into the stash and chained tables.
  for (uint64_t expected : {1, 2000}) {
    CuckooFilter filter = CreateDynamic(16, expected);
    for (uint64_t h : others) ASSERT_TRUE(filter.insert(h).ok());
    for (int i = 0; i < 8; ++i) ASSERT_TRUE(filter.insert(key).ok());
    EXPECT_EQ(filter.size(), others.size() + 8);
    for (int i = 0; i < 8; ++i) {
      ASSERT_TRUE(filter.contains(key));
      ASSERT_TRUE(filter.erase(key).ok()) << "copy " << i;
    }
    EXPECT_EQ(filter.erase(key).code(), StatusCode::kNotFound);
    EXPECT_FALSE(filter.contains(key));
    EXPECT_EQ(filter.size(), others.size());
    for (uint64_t h : others) ASSERT_TRUE(filter.contains(h));
    for (uint64_t h : others) ASSERT_TRUE(filter.erase(h).ok());
    EXPECT_EQ(filter.size(), 0u);
    EXPECT_EQ(filter.erase(others[0]).code(), StatusCode::kNotFound);
  }
}

TEST(CuckooFilterTest, NinthCopyOfAnItemIsTooManyDuplicates) {
  for (uint64_t expected : {1, 1000}) {
    CuckooFilter filter = CreateDynamic(12, expected);
    const uint64_t key = HashKey("eight is the limit");
    for (uint32_t i = 0; i < CuckooLimits::kMaxDuplicates; ++i) {
      ASSERT_TRUE(filter.insert(key).ok()) << "copy " << i;
    }
    const std::string before = filter.Serialize();
    const Status s = filter.insert(key);
    EXPECT_EQ(s.code(), StatusCode::kTooManyDuplicates) << s.ToString();
    EXPECT_EQ(filter.Serialize(), before) << "a refused insert changed it";
    EXPECT_EQ(filter.size(), 8u);
    ASSERT_TRUE(filter.erase(key).ok());
    EXPECT_TRUE(filter.insert(key).ok()) << "room again after one erase";
  }
}

TEST(CuckooFilterTest, FullFilterGrowsByChainingTablesOfDoubleSize) {
  CuckooFilter filter = CreateDynamic(12, 1000);
  const auto keys = RandomKeyHashes(100'000, 12);
  for (uint64_t h : keys) ASSERT_TRUE(filter.insert(h).ok());
  const std::string bytes = filter.Serialize();
  const std::vector<TableInfo> tables = ReadTables(bytes);
  ASSERT_EQ(tables.size(), filter.num_tables());
  EXPECT_GE(tables.size(), 6u);
  EXPECT_LE(tables.size(), CuckooLimits::kMaxTables);
  EXPECT_EQ(tables[0].num_buckets, 261u);  // ceil(1000 / 3.84)
  for (size_t t = 0; t + 1 < tables.size(); ++t) {
    EXPECT_EQ(tables[t + 1].num_buckets, 2 * tables[t].num_buckets);
    // A table was left only when its stash was in use, i.e. it was full.
    EXPECT_GE(tables[t].stash_count, 1u) << "table " << t;
    EXPECT_GE(TableLoad(bytes, tables[t]), 0.9) << "table " << t;
  }
  EXPECT_EQ(filter.size(), keys.size());
  for (uint64_t h : keys) ASSERT_TRUE(filter.contains(h));
}

TEST(CuckooFilterTest, StashVictimReturnsToItsTableWhenSlotsFree) {
  CuckooFilter filter = CreateDynamic(12, 100);
  std::vector<uint64_t> first_table;
  for (uint64_t i = 0; filter.num_tables() == 1; ++i) {
    const uint64_t h = HashKey("k" + std::to_string(i));
    ASSERT_TRUE(filter.insert(h).ok());
    first_table.push_back(h);
  }
  // The insert that overflowed went to the stash; the next one grew.
  first_table.pop_back();
  std::vector<TableInfo> tables = ReadTables(filter.Serialize());
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables[0].stash_count, 1u);
  EXPECT_EQ(tables[1].stash_count, 0u);
  // Free a fifth of the first table: a walk from the victim finds room.
  for (size_t i = 0; i < first_table.size() / 5; ++i) {
    ASSERT_TRUE(filter.erase(first_table[i]).ok());
  }
  tables = ReadTables(filter.Serialize());
  EXPECT_EQ(tables[0].stash_count, 0u);
  for (size_t i = first_table.size() / 5; i < first_table.size(); ++i) {
    ASSERT_TRUE(filter.contains(first_table[i]));
  }
}

TEST(CuckooFilterTest, EraseOfAbsentItemIsNotFound) {
  CuckooFilter empty;
  EXPECT_EQ(empty.erase(1).code(), StatusCode::kNotFound);
  EXPECT_EQ(empty.num_tables(), 0u);
  CuckooFilter filter = CreateDynamic(16, 100);
  for (uint64_t h : SequentialKeyHashes(50)) ASSERT_TRUE(filter.insert(h).ok());
  const Status s = filter.erase_key("never inserted");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_FALSE(s.message().empty());
  EXPECT_EQ(filter.size(), 50u);
}

TEST(CuckooFilterTest, DeserializedFilterKeepsWorking) {
  CuckooFilter filter = CreateDynamic(12, 100);
  const auto keys = RandomKeyHashes(3000, 13);
  for (size_t i = 0; i < 2000; ++i) ASSERT_TRUE(filter.insert(keys[i]).ok());
  const std::string bytes = filter.Serialize();
  CuckooFilter copy;
  ASSERT_TRUE(CuckooFilter::Deserialize(bytes, &copy).ok());
  EXPECT_EQ(copy.Serialize(), bytes);
  EXPECT_EQ(copy.size(), 2000u);
  EXPECT_EQ(copy.num_tables(), filter.num_tables());
  // The copy goes on as a filter: more inserts (growing) and erases.
  for (size_t i = 2000; i < keys.size(); ++i) {
    ASSERT_TRUE(copy.insert(keys[i]).ok());
  }
  for (size_t i = 0; i < 1000; ++i) ASSERT_TRUE(copy.erase(keys[i]).ok());
  EXPECT_EQ(copy.size(), 2000u);
  for (size_t i = 1000; i < keys.size(); ++i) {
    ASSERT_TRUE(copy.contains(keys[i]));
  }
  // A static filter, and an empty one, become dynamic filters that grow.
  const auto static_keys = RandomKeyHashes(1000, 14);
  for (const std::string& source :
       {BuildStatic(static_keys, 12), BuildStatic({}, 12)}) {
    CuckooFilter grown;
    ASSERT_TRUE(CuckooFilter::Deserialize(source, &grown).ok());
    const uint32_t tables_before = grown.num_tables();
    for (uint64_t h : keys) ASSERT_TRUE(grown.insert(h).ok());
    EXPECT_GT(grown.num_tables(), tables_before);
    for (uint64_t h : keys) ASSERT_TRUE(grown.contains(h));
    if (tables_before > 0) {
      for (uint64_t h : static_keys) ASSERT_TRUE(grown.contains(h));
    }
  }
  // Deserialize checks its input like Parse.
  EXPECT_EQ(CuckooFilter::Deserialize("SF", &copy).code(),
            StatusCode::kCorruption);
}

TEST(CuckooFilterTest, ErasingInsertedItemsNeverLosesAnotherItem) {
  // Many tables and short fingerprints make items collide across tables.
  // Erasing every inserted item in random order must always succeed, and
  // never take away a remaining item's only copy (the header's "Chains").
  for (uint32_t f : {6u, 8u, 12u}) {
    CuckooFilter filter = CreateDynamic(f, 20);
    std::vector<uint64_t> inserted;
    for (uint64_t h : RandomKeyHashes(20000, f)) {
      const Status s = filter.insert(h);
      if (s.ok()) {
        inserted.push_back(h);
      } else {
        ASSERT_EQ(s.code(), StatusCode::kTooManyDuplicates) << s.ToString();
      }
    }
    ASSERT_GE(filter.num_tables(), 8u);
    std::shuffle(inserted.begin(), inserted.end(), std::mt19937_64(f));
    for (size_t i = 0; i < inserted.size(); ++i) {
      ASSERT_TRUE(filter.erase(inserted[i]).ok()) << "f=" << f << " #" << i;
      if (i % 1000 != 0) continue;
      for (size_t j = i + 1; j < inserted.size(); ++j) {
        ASSERT_TRUE(filter.contains(inserted[j])) << "f=" << f << " #" << i;
      }
    }
    EXPECT_EQ(filter.size(), 0u);
    const std::string bytes = filter.Serialize();
    EXPECT_EQ(Parse(bytes).num_items(), 0u);
  }
}

TEST(CuckooFilterTest, BatchAgreesWithSingleQueriesOnChainsWithStashes) {
  CuckooFilter filter = CreateDynamic(10, 50);
  const auto keys = RandomKeyHashes(5000, 15);
  for (uint64_t h : keys) ASSERT_TRUE(filter.insert(h).ok());
  const std::string bytes = filter.Serialize();
  const CuckooView view = Parse(bytes);
  EXPECT_GT(view.num_tables(), 3u);
  std::vector<uint64_t> queries = AbsentKeyHashes(50000);
  queries.insert(queries.end(), keys.begin(), keys.end());
  const std::vector<char> batch = Batch(view, queries);
  size_t hits = 0;
  for (size_t i = 0; i < queries.size(); ++i) {
    ASSERT_EQ(batch[i] != 0, view.may_contain(queries[i])) << "query " << i;
    ASSERT_EQ(view.may_contain(queries[i]), filter.contains(queries[i]));
    hits += batch[i];
  }
  EXPECT_GE(hits, keys.size());
}

// ---------------------------------------------------------------------------
// Format stability

// Golden vectors: fixed keys must keep producing these exact bytes. If one
// fails, either the format changed (old filters would be misread: add a new
// format version instead of editing these values) or the static build
// places items differently (the same format, but no longer reproducible
// from the same keys: change it only deliberately).
TEST(CuckooFilterTest, GoldenVectorsPinTheFormat) {
  // One key, f = 8, spelled out from the header's derivation: one bucket,
  // the fingerprint in slot 0.
  const uint64_t h = HashKey("key0");
  const SpecLocation loc = SpecLocate(h, 0, 1, 0, 8);
  EXPECT_EQ(BuildStatic({h}, 8),
            HeaderBytes(8, 1) +
                TableBytes(8, 1, 0, {},
                           std::string(1, static_cast<char>(loc.fingerprint)) +
                               std::string(3, '\0')));
  // Three keys at f = 12, in full.
  EXPECT_EQ(Hex(BuildStatic(SequentialKeyHashes(3), 12)),
            "534602010c040100"  // "SF", kind 2, v1, f=12, 4 slots, 1 table
            "01000000"          // num_buckets = 1
            "00000000"          // seed = 0
            "00000000"          // stash_count = 0
            "5dcd07210000");    // slots 0xd5d, 0x7cd, 0x021, empty
  // Larger inputs, pinned by size and XXH3-64 of the bytes.
  const struct {
    uint64_t keys;
    uint32_t f;
    size_t size;
    uint64_t xxh3;
  } cases[] = {
      {1000, 8, 1064, 0xbe039ba8453b68a7ULL},
      {1000, 12, 1586, 0x9cc455d9ecc10396ULL},
      {1000, 16, 2108, 0xb1def729e6223723ULL},
      {12345, 12, 19310, 0xfa174da244885781ULL},
      {100000, 12, 156272, 0x593197734d94e05bULL},
      {1000, 5, 673, 0x5c88254f0dfa3902ULL},
      {1000, 32, 4196, 0x967f15dab57328b9ULL},
  };
  for (const auto& c : cases) {
    const std::string bytes = BuildStatic(SequentialKeyHashes(c.keys), c.f);
    EXPECT_EQ(bytes.size(), c.size) << "keys=" << c.keys << " f=" << c.f;
    EXPECT_EQ(HashKey(bytes), c.xxh3) << "keys=" << c.keys << " f=" << c.f;
  }
}

// ---------------------------------------------------------------------------
// Malformed input

constexpr auto ExpectParseError = testing::ExpectParseError<CuckooView>;

TEST(CuckooFilterTest, MalformedBytesGiveClearErrors) {
  const std::string valid = BuildStatic(SequentialKeyHashes(100), 12);
  ASSERT_EQ(valid.size(), kStaticHeaderBytes + 27 * 6);
  ExpectParseError("", StatusCode::kCorruption, "shorter than its 4-byte");
  ExpectParseError("SF\x02", StatusCode::kCorruption,
                   "shorter than its 4-byte");
  ExpectParseError(valid.substr(0, 7), StatusCode::kCorruption,
                   "header truncated: 7 of 8");
  ExpectParseError("XF" + valid.substr(2), StatusCode::kCorruption, "magic");
  auto with_byte = [&](size_t at, int value) {
    std::string b = valid;
    b[at] = static_cast<char>(value);
    return b;
  };
  ExpectParseError(with_byte(2, 1), StatusCode::kInvalidArgument,
                   "not a Cuckoo filter (kind BlockedBloom)");
  ExpectParseError(with_byte(3, 2), StatusCode::kNotSupported,
                   "version 2 is unknown");
  for (int f : {0, 3, 33, 255}) {
    ExpectParseError(with_byte(4, f), StatusCode::kCorruption,
                     "fingerprint_bits must be in 4..32");
  }
  for (int slots : {0, 2, 8}) {
    ExpectParseError(with_byte(5, slots), StatusCode::kCorruption,
                     "slots_per_bucket must be 4");
  }
  ExpectParseError(with_byte(6, 65), StatusCode::kCorruption,
                   "num_tables 65 exceeds 64");
  ExpectParseError(with_byte(6, 2), StatusCode::kCorruption,
                   "table 1: header truncated");
  ExpectParseError(with_byte(7, 1), StatusCode::kCorruption, "reserved");
  ExpectParseError(valid.substr(0, 8 + 11), StatusCode::kCorruption,
                   "table 0: header truncated");
  auto with_u32 = [&](const std::string& base, size_t at, uint32_t value) {
    std::string b = base;
    detail::StoreLittleEndian<uint32_t>(b.data() + at, value);
    return b;
  };
  ExpectParseError(with_u32(valid, 8, 0), StatusCode::kCorruption,
                   "num_buckets is 0");
  ExpectParseError(with_u32(valid, 8, 28), StatusCode::kCorruption,
                   "slots truncated: 28 buckets need 168 bytes, 162 remain");
  ExpectParseError(with_u32(valid, 8, 0xffffffff), StatusCode::kCorruption,
                   "slots truncated");
  ExpectParseError(valid.substr(0, valid.size() - 1), StatusCode::kCorruption,
                   "slots truncated");
  ExpectParseError(valid + "x", StatusCode::kCorruption,
                   "1 trailing bytes after the last Cuckoo table");
  ExpectParseError(with_u32(valid, 16, 1), StatusCode::kCorruption,
                   "stash truncated: 1 entries need 8 bytes, 0 remain");

  // A table with a stash entry (bucket 2 of 3, fingerprint 5), f = 8.
  const std::string stashed = HeaderBytes(8, 1) + TableBytes(8, 3, 0, {{2, 5}});
  ASSERT_EQ(Parse(stashed).num_items(), 1u);
  const size_t entry = stashed.size() - 8;
  ExpectParseError(stashed.substr(0, stashed.size() - 1),
                   StatusCode::kCorruption, "stash truncated");
  ExpectParseError(with_u32(stashed, 16, 0xffffffff), StatusCode::kCorruption,
                   "stash truncated");
  ExpectParseError(with_u32(stashed, entry, 3), StatusCode::kCorruption,
                   "stash bucket 3 is not below 3");
  ExpectParseError(with_u32(stashed, entry + 4, 0), StatusCode::kCorruption,
                   "stash fingerprint 0");
  ExpectParseError(with_u32(stashed, entry + 4, 256), StatusCode::kCorruption,
                   "stash fingerprint 256 is not a nonzero 8-bit value");
  // Chains: table t must have 2^t times table 0's buckets and its seed.
  const std::string chain =
      HeaderBytes(8, 2) + TableBytes(8, 3, 9, {}) + TableBytes(8, 6, 9, {});
  ASSERT_EQ(Parse(chain).num_tables(), 2u);
  ExpectParseError(with_u32(chain, 8 + 12 + 12, 7), StatusCode::kCorruption,
                   "table 1: num_buckets 7 is not 2^1 times table 0's 3");
  ExpectParseError(with_u32(chain, 8 + 12 + 12 + 4, 10),
                   StatusCode::kCorruption,
                   "table 1: seed 10 differs from table 0's 9");
  // A failed parse leaves the view as it was.
  CuckooView view = Parse(valid);
  EXPECT_FALSE(CuckooView::Parse("SF", &view).ok());
  EXPECT_EQ(view.size_bytes(), valid.size());
}

TEST(CuckooFilterTest, TruncatedOrFlippedBytesNeverCrashTheParser) {
  CuckooFilter chain = CreateDynamic(12, 20);
  for (uint64_t h : RandomKeyHashes(300, 16)) ASSERT_TRUE(chain.insert(h).ok());
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
    view.may_contain_batch(probes.data(), probes.size(), results);
    for (uint64_t h : probes) (void)view.may_contain(h);
    EXPECT_GE(view.load(), 0.0);
    EXPECT_LE(view.load(), 1.0);
    EXPECT_GE(view.estimated_fpr(), 0.0);
    EXPECT_LE(view.estimated_fpr(), 1.0);
    if (!mutate) return;
    CuckooFilter filter;
    ASSERT_TRUE(CuckooFilter::Deserialize(bytes, &filter).ok());
    for (uint64_t h : probes) {
      const Status s = filter.insert(h);
      if (s.ok()) {
        EXPECT_TRUE(filter.contains(h));
      }
      (void)filter.erase(h);
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
}  // namespace sstfilter
