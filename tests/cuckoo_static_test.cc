// Specification of the static cuckoo filter: no false negatives, the space
// and load a static build promises, the FPR its model predicts, and the
// build's contract (order, duplicates, runs, empty input, bad widths).
#include <gtest/gtest.h>

#include "cuckoo_test_support.h"

namespace sstfilter::test_support {
namespace {

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

TEST(CuckooStaticTest, StaticNeverFalseNegativeAcrossSizesAndKeyPatterns) {
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
        EXPECT_EQ(view.num_items(), DistinctPlacements(bytes, keys))
            << "each (bucket pair, fingerprint) is stored once";
        EXPECT_EQ(view.num_bucket_arrays(), n == 0 ? 0u : 1u);
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

TEST(CuckooStaticTest, StaticNeverFalseNegativeAtTenMillionKeys) {
  const CuckooView view = Parse(TenMillionKeyFilter());
  EXPECT_EQ(CountMayContain(view, TenMillionKeys()), TenMillionKeys().size());
}

// Keys per slot, not stored items per slot: a key whose bucket pair and
// fingerprint another key already stored shares that copy (about 8 in 2^f
// keys), which lowers the stored load but not the space per key.
TEST(CuckooStaticTest, StaticKeysPerSlotIsAtLeast95PercentNearPowersOfTwo) {
  for (uint32_t f : {8u, 12u, 16u}) {
    for (uint64_t n : {1000, 1023, 1024, 1025, 4095, 4096, 4097, 65535, 65536,
                       65537, 100000, 1000000}) {
      const auto keys = RandomKeyHashes(n, 3 * n);
      const std::string bytes = BuildStatic(keys, f);
      const CuckooView view = Parse(bytes);
      EXPECT_GE(static_cast<double>(n) / (4.0 * view.num_buckets()), 0.95)
          << "n=" << n << " f=" << f;
      EXPECT_EQ(view.num_items(), DistinctPlacements(bytes, keys));
    }
  }
}

TEST(CuckooStaticTest, StaticBitsPerKeyAtTwelveBitFingerprintsIsAtMost12_8) {
  // The metadata counts: 12.8 bits/key leaves 0.3 bits over the 12/0.96
  // = 12.5 of the slots for the 32 bytes of metadata at n = 1000.
  std::printf("   n           f  bytes       bits/key  load\n");
  for (uint64_t n : {1000, 10'000, 100'000, 1'000'000, 10'000'000}) {
    const std::string bytes = n == 10'000'000
                                  ? TenMillionKeyFilter()
                                  : BuildStatic(SequentialKeyHashes(n), 12);
    const double bits_per_key = bytes.size() * 8.0 / n;
    const double load = Parse(bytes).Load();
    std::printf("   %-10llu  12 %-11zu %-9.4f %.4f\n",
                static_cast<unsigned long long>(n), bytes.size(), bits_per_key,
                load);
    EXPECT_LE(bits_per_key, 12.8) << "n=" << n;
    EXPECT_GE(load, 0.95) << "n=" << n;
  }
  // m = ceil(1000 / 3.84) = 261 buckets of 6 bytes, plus the metadata.
  EXPECT_EQ(StaticCuckooBytes(1000, 12), 261u * 6 + kStaticMetadataBytes);
}

TEST(CuckooStaticTest, StaticSizeFunctionsAgreeWithEachOtherAndTheBuild) {
  EXPECT_EQ(StaticCuckooBytes(0, 12), 20u);  // the metadata of no bucket arrays
  EXPECT_EQ(StaticCuckooCapacity(kStaticMetadataBytes - 1, 12), 0u);
  EXPECT_EQ(StaticCuckooCapacity(1000, 3), 0u);
  for (uint32_t f : {4u, 7u, 8u, 12u, 16u, 25u, 32u}) {
    for (uint64_t n : {1, 2, 3, 4, 5, 100, 1000, 4097, 123456, 1000000}) {
      const size_t bytes = StaticCuckooBytes(n, f);
      EXPECT_GE(StaticCuckooCapacity(bytes, f), n) << "n=" << n << " f=" << f;
      EXPECT_LT(StaticCuckooCapacity(bytes - 1, f), n)
          << "n=" << n << " f=" << f;
    }
    for (size_t bytes : {32, 33, 39, 100, 4096, 65536, 1 << 20}) {
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

// The width a policy picks for a bits/key: the widest whose filter fits.
TEST(CuckooStaticTest, FingerprintBitsForABitsPerKeyIsTheWidestThatFits) {
  EXPECT_EQ(StaticCuckooFingerprintBits(0), 0u);
  EXPECT_EQ(StaticCuckooFingerprintBits(StaticCuckooBitsPerKey(4) - 1e-9), 0u);
  EXPECT_EQ(StaticCuckooFingerprintBits(1000), 32u);
  for (uint32_t f = 4; f <= 32; ++f) {
    const double bits = StaticCuckooBitsPerKey(f);
    EXPECT_EQ(StaticCuckooFingerprintBits(bits), f);
    EXPECT_EQ(StaticCuckooFingerprintBits(bits - 1e-9), f > 4 ? f - 1 : 0u);
    if (f < 32) {
      EXPECT_GT(StaticCuckooBitsPerKey(f + 1), bits);
    }
  }
}

// The format counts a bucket array's buckets in a u32: a static filter holds at
// most floor((2^32-1) * 96 / 25) keys at every width. Past that there is
// no size, and the build refuses before it reads a hash or allocates.
TEST(CuckooStaticTest, StaticCapacityEndsAtTheFormatsBucketCount) {
  constexpr uint64_t kMaxBuckets = 0xffffffff;
  constexpr uint64_t kMostKeys = kMaxBuckets * 96 / 25;
  for (uint32_t f : {4u, 6u, 12u, 16u, 32u}) {
    SCOPED_TRACE(f);
    EXPECT_EQ(StaticCuckooCapacity(SIZE_MAX, f), kMostKeys);
    EXPECT_EQ(StaticCuckooBytes(kMostKeys, f),
              (kMaxBuckets * 4 * f + 7) / 8 + kStaticMetadataBytes);
    EXPECT_EQ(StaticCuckooBytes(kMostKeys + 1, f), SIZE_MAX);
    EXPECT_EQ(StaticCuckooBytes(UINT64_MAX, f), SIZE_MAX);
  }
  // A run that claims one key too many: its hashes (none) are never read.
  const HashRun too_many{nullptr, kMostKeys + 1};
  std::string out = "left as it was?";
  const Status s = BuildStaticCuckoo(&too_many, 1, 12, {}, &out);
  EXPECT_EQ(s.code(), StatusCode::kCapacityExceeded);
  EXPECT_NE(s.message().find("2^32-1"), std::string::npos) << s.message();
  EXPECT_TRUE(out.empty());
}

// A byte budget (the RocksDB builder's 4 GiB block) bounds the build: a
// filter that would pass it, at its first size or after growing, is
// CapacityExceeded, never a larger filter.
TEST(CuckooStaticTest, StaticBuildNeverPassesItsByteBudget) {
  auto build = [](const std::vector<uint64_t>& hashes, uint32_t f,
                  size_t max_bytes, std::string* out) {
    const HashRun run{hashes.data(), hashes.size()};
    return BuildStaticCuckoo(&run, 1, f, {0, max_bytes}, out);
  };
  std::string out;
  // At its first size.
  const auto keys = RandomKeyHashes(1000, 3);
  const size_t first_size = StaticCuckooBytes(keys.size(), 12);
  ASSERT_EQ(BuildStatic(keys, 12).size(), first_size);  // built at once
  EXPECT_TRUE(build(keys, 12, first_size, &out).ok());
  EXPECT_EQ(out, BuildStatic(keys, 12));
  Status s = build(keys, 12, first_size - 1, &out);
  EXPECT_EQ(s.code(), StatusCode::kCapacityExceeded);
  EXPECT_NE(s.message().find("more than the"), std::string::npos);
  EXPECT_TRUE(out.empty());
  // After growing: a key set (found by search) whose placement fails at
  // its first size with every seed, so the build grows by a bucket.
  const auto unlucky = RandomKeyHashes(84, 1259);
  const size_t grown = BuildStatic(unlucky, 12).size();
  ASSERT_GT(grown, StaticCuckooBytes(unlucky.size(), 12));
  EXPECT_EQ(build(unlucky, 12, grown - 1, &out).code(),
            StatusCode::kCapacityExceeded);
  EXPECT_TRUE(out.empty());
  ASSERT_TRUE(build(unlucky, 12, grown, &out).ok());
  EXPECT_EQ(out.size(), grown);
  ExpectAllFound(Parse(out), unlucky, "grown within its budget");
}

TEST(CuckooStaticTest, MeasuredFprMatchesEstimatedFpr) {
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
    const double expected = view.EstimatedFpr();
    std::printf("   f=%-2u n=%llu load=%.4f measured FPR %.6f estimated %.6f\n",
                f, static_cast<unsigned long long>(n), view.Load(), measured,
                expected);
    // 4 sigma of the binomial count, plus 2% for the model (average load
    // in place of the per-bucket distribution).
    EXPECT_NEAR(measured, expected, FprTolerance(expected, queries, 0.02))
        << "f=" << f;
    // And the model itself: about 2 * 4 * load / (2^f - 1) (the first-order
    // term; 1.3% above the exact value at f = 8).
    EXPECT_NEAR(expected, 8 * view.Load() / ((1 << f) - 1), 0.02 * expected);
  }
}

TEST(CuckooStaticTest, EveryFingerprintWidthBuildsRoundTripsAndFindsAllKeys) {
  const auto keys = RandomKeyHashes(5000, 11);
  const auto absent = AbsentKeyHashes(2000);
  for (uint32_t f = CuckooLimits::kMinFingerprintBits;
       f <= CuckooLimits::kMaxFingerprintBits; ++f) {
    const std::string context = "f=" + std::to_string(f);
    const std::string bytes = BuildStatic(keys, f);
    EXPECT_EQ(BuildStatic(keys, f), bytes) << context << ": not reproducible";
    const CuckooView view = Parse(bytes);
    EXPECT_EQ(view.fingerprint_bits(), f);
    EXPECT_EQ(view.num_items(), DistinctPlacements(bytes, keys)) << context;
    EXPECT_EQ(view.SizeBytes(), bytes.size());
    ExpectAllFound(view, keys, context);
    const std::vector<char> batch = Batch(view, absent);
    for (size_t i = 0; i < absent.size(); ++i) {
      ASSERT_EQ(view.MayContain(absent[i]), batch[i] != 0) << context;
    }
    EXPECT_GT(view.EstimatedFpr(), 0.0);
    EXPECT_LT(view.EstimatedFpr(), 1.0);

    // The dynamic filter at the same width, grown past its first bucket array.
    // An insert may be refused as a duplicate when the few fingerprints of a
    // narrow width already fill the item's buckets; it is then found anyway.
    CuckooFilter filter = CreateDynamic(f, 1000);
    for (uint64_t h : keys) {
      const Status s = filter.Add(h);
      ASSERT_TRUE(s.ok() || s.code() == StatusCode::kTooManyDuplicates)
          << context << ": " << s.ToString();
    }
    EXPECT_GT(filter.num_bucket_arrays(), 1u) << context;
    const std::string serialized = filter.Serialize();
    CuckooFilter copy;
    ASSERT_TRUE(CuckooFilter::Deserialize(serialized, &copy).ok()) << context;
    EXPECT_EQ(copy.Serialize(), serialized) << context;
    EXPECT_EQ(copy.num_items(), filter.num_items()) << context;
    for (uint64_t h : keys) ASSERT_TRUE(copy.MayContain(h)) << context;
    ExpectAllFound(Parse(serialized), keys, context + " dynamic");
  }
}

TEST(CuckooStaticTest, StaticBuildIsReproducibleAndStoresRepeatsOnce) {
  const auto keys = RandomKeyHashes(20000, 5);
  EXPECT_EQ(BuildStatic(keys, 12), BuildStatic(keys, 12));
  // Repeats anywhere in the input add no items.
  std::vector<uint64_t> repeated = keys;
  repeated.insert(repeated.end(), keys.begin(), keys.begin() + 5000);
  std::shuffle(repeated.begin(), repeated.end(), std::mt19937_64(1));
  const std::string once = BuildStatic(keys, 12);
  EXPECT_EQ(Parse(once).num_items(), DistinctPlacements(once, keys));
  const std::string twice = BuildStatic(repeated, 12);
  EXPECT_EQ(Parse(twice).num_items(), DistinctPlacements(twice, keys));
  ExpectAllFound(Parse(twice), keys, "with repeats");
}

TEST(CuckooStaticTest, StaticBuildFromRunsEqualsBuildFromOneArray) {
  // The RocksDB builder hands over its hash chunks as runs; runs (here
  // overlapping, with repeats) give exactly the filter of their
  // concatenation.
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
  ASSERT_TRUE(
      BuildStaticCuckoo(runs.data(), runs.size(), 12, {}, &from_runs).ok());
  std::vector<uint64_t> concatenated;
  for (const auto& chunk : chunks) {
    concatenated.insert(concatenated.end(), chunk.begin(), chunk.end());
  }
  EXPECT_EQ(from_runs, BuildStatic(concatenated, 12));
}

TEST(CuckooStaticTest, EmptyStaticFilterHasNoBucketArraysAndAnswersNo) {
  std::string bytes;
  ASSERT_TRUE(
      BuildStaticCuckoo(static_cast<const uint64_t*>(nullptr), 0, 12, &bytes)
          .ok());
  EXPECT_EQ(bytes, SpecFilter(12, {}, 0));
  const CuckooView view = Parse(bytes);
  EXPECT_EQ(view.num_bucket_arrays(), 0u);
  EXPECT_EQ(view.num_items(), 0u);
  EXPECT_EQ(view.Load(), 0.0);
  EXPECT_EQ(view.EstimatedFpr(), 0.0);
  const auto absent = AbsentKeyHashes(1000);
  EXPECT_EQ(CountMayContain(view, absent), 0u);
  const std::vector<char> batch = Batch(view, absent);
  EXPECT_EQ(std::count(batch.begin(), batch.end(), 1), 0);
}

TEST(CuckooStaticTest, KeyFormsHashWithHashKey) {
  const std::vector<std::string> keys = {"alpha", "beta", "gamma"};
  std::vector<uint64_t> hashes;
  for (const auto& k : keys) hashes.push_back(HashKey(k));
  const std::string bytes = BuildStatic(hashes, 12);
  const CuckooView view = Parse(bytes);
  CuckooFilter filter = CreateDynamic(12, 10);
  for (const auto& k : keys) {
    EXPECT_TRUE(view.MayContainKey(k));
    EXPECT_TRUE(filter.AddKey(k).ok());
    EXPECT_TRUE(filter.MayContainKey(k));
    EXPECT_TRUE(filter.MayContain(HashKey(k)));
  }
  EXPECT_EQ(view.MayContainKey("delta"), view.MayContain(HashKey("delta")));
  EXPECT_TRUE(filter.EraseKey("beta").ok());
  EXPECT_EQ(filter.MayContainKey("beta"), filter.MayContain(HashKey("beta")));
}

TEST(CuckooStaticTest, BadFingerprintWidthIsInvalidArgument) {
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

}  // namespace
}  // namespace sstfilter::test_support
