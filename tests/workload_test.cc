// Specification of what LevelAware learns of a workload (sstfilter/
// workload.h): absent probes per sampled key per level and key bucket,
// decaying by half at each refresh, nothing until every level asked about
// has samples, and nothing after Forget; tables of hot key ranges get a
// density factor above 1, cold ones below, with the level's memory kept;
// noise moves no table.
#include "sstfilter/workload.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

namespace sstfilter {
namespace {

using Levels = std::array<bool, kMaxLevels>;

Levels LevelsOf(std::initializer_list<int> levels) {
  Levels in{};
  for (int level : levels) in[level] = true;
  return in;
}

// `absent` "no" answers and `hits` "may match" answers at `level`, from a
// filter of model FPR 0 (each "no" one absent probe).
void Record(LevelWorkload& w, int level, int absent, int hits) {
  const uint32_t weight = LevelWorkload::AbsentWeight(0);
  for (int i = 0; i < absent; ++i) w.RecordSample(level, "", weight);
  for (int i = 0; i < hits; ++i) w.RecordSample(level, "", 0);
}

TEST(LevelWorkload, LearnsAbsentProbesPerSampledKey) {
  LevelWorkload w;
  w.AddSampledKeys(0, 0, 0, 1000);
  w.AddSampledKeys(3, 0, 0, 100000);
  // L0: 400 absent probes over 1,000 keys; L3: 100 absent and 300 hits
  // over 100,000.
  Record(w, 0, 400, 0);
  Record(w, 3, 100, 300);
  ASSERT_TRUE(w.MaybeRefresh());
  std::array<double, kMaxLevels> density;
  ASSERT_TRUE(w.Densities(LevelsOf({0, 3}), &density));
  EXPECT_NEAR(density[0], 400.0 / 1000, 1e-9);
  EXPECT_NEAR(density[3], 100.0 / 100000, 1e-9);
}

// The probes that found their key: "may match"es less what the absent
// probes passed (here, with FPR 0.5, one passed per "no").
TEST(LevelWorkload, LearnsTheProbesThatFoundTheirKey) {
  LevelWorkload w;
  w.AddSampledKeys(0, 0, 0, 1000);
  w.AddSampledKeys(3, 0, 0, 100000);
  const uint32_t half = LevelWorkload::AbsentWeight(0.5);
  for (int i = 0; i < 200; ++i) w.RecordSample(0, "", half);
  for (int i = 0; i < 200; ++i) w.RecordSample(0, "", 0);  // passed absent
  for (int i = 0; i < 100; ++i) w.RecordSample(3, "", half);
  for (int i = 0; i < 400; ++i) w.RecordSample(3, "", 0);  // 100 passed
  std::array<double, kMaxLevels> hits, probes;
  EXPECT_FALSE(w.LevelHits(LevelsOf({0, 3}), &hits));
  ASSERT_TRUE(w.MaybeRefresh());
  ASSERT_TRUE(w.LevelHits(LevelsOf({0, 3}), &hits));
  ASSERT_TRUE(w.LevelProbes(LevelsOf({0, 3}), &probes));
  EXPECT_NEAR(hits[0], 0, 1e-9);
  EXPECT_NEAR(hits[3], 300, 1e-9);
  EXPECT_NEAR(probes[0], 400, 1e-9);
  EXPECT_NEAR(probes[3], 200, 1e-9);
}

TEST(LevelWorkload, AnswerNoCountsThePassedAbsentKeysToo) {
  // A filter of FPR 0.5 passes half the absent keys: each "no" stands for
  // two absent probes.
  EXPECT_EQ(LevelWorkload::AbsentWeight(0.5), 2 * LevelWorkload::kWeightUnit);
  EXPECT_EQ(LevelWorkload::AbsentWeight(0), LevelWorkload::kWeightUnit);
  // Bounded for a filter that passes (nearly) everything.
  EXPECT_EQ(LevelWorkload::AbsentWeight(1), 64 * LevelWorkload::kWeightUnit);
}

TEST(LevelWorkload, NothingLearnedUntilEveryLevelAskedHasSamples) {
  LevelWorkload w;
  std::array<double, kMaxLevels> density;
  EXPECT_FALSE(w.Densities(LevelsOf({0}), &density));
  w.AddSampledKeys(1, 0, 0, 1000);
  Record(w, 1, LevelWorkload::kRefreshSamples - 1, 0);
  EXPECT_FALSE(w.MaybeRefresh());  // one sample short
  Record(w, 1, 1, 0);
  EXPECT_TRUE(w.MaybeRefresh());
  EXPECT_TRUE(w.Densities(LevelsOf({1}), &density));
  // L2 has had no sampled table: the policy must use its model.
  EXPECT_FALSE(w.Densities(LevelsOf({1, 2}), &density));
}

TEST(LevelWorkload, EachRefreshKeepsHalfTheOldDensity) {
  LevelWorkload w;
  w.AddSampledKeys(2, 0, 0, 1000);
  Record(w, 2, LevelWorkload::kRefreshSamples, 0);
  ASSERT_TRUE(w.MaybeRefresh());
  const uint64_t version = w.version();
  // The workload stops reaching L2 (every sample elsewhere): its density
  // holds while too few samples say so, then halves with each refresh
  // that folds in what there is.
  w.AddSampledKeys(1, 0, 0, 1000);
  std::array<double, kMaxLevels> density;
  const double first = LevelWorkload::kRefreshSamples / 1000.0;
  for (uint32_t refresh = 1; refresh <= 2 * LevelWorkload::kMaxHeldPeriods;
       ++refresh) {
    Record(w, 1, LevelWorkload::kRefreshSamples, 0);
    ASSERT_TRUE(w.MaybeRefresh());
    ASSERT_TRUE(w.Densities(LevelsOf({2}), &density));
    const int halvings = refresh / LevelWorkload::kMaxHeldPeriods;
    EXPECT_NEAR(density[2], first / (1 << halvings), 1e-12)
        << "refresh " << refresh;
  }
  EXPECT_GT(w.version(), version);
}

// A level whose tables drew too few samples in a refresh (a table or two
// that came and went) is not learned from them: no density of 0 from no
// samples. Its samples are held, and divided by the entries each period
// had.
TEST(LevelWorkload, ALevelIsLearnedFromEnoughSamplesNeverFromNone) {
  LevelWorkload w;
  w.AddSampledKeys(1, 0, 0, 1000);
  w.AddSampledKeys(3, 0, 0, 4);
  Record(w, 1, LevelWorkload::kRefreshSamples, 0);
  ASSERT_TRUE(w.MaybeRefresh());
  EXPECT_TRUE(w.LearnedLevels()[1]);
  EXPECT_FALSE(w.LearnedLevels()[3]);  // entries, but not one sample
  // L3 grows and draws 10 samples in each of two refreshes: learned at the
  // second, over both periods' entries (4, then 4 + 996).
  w.AddSampledKeys(3, 0, 0, 996);
  const int half = static_cast<int>(LevelWorkload::kCredibleSamples) / 2 + 2;
  Record(w, 3, half, 0);
  Record(w, 1, LevelWorkload::kRefreshSamples - half, 0);
  ASSERT_TRUE(w.MaybeRefresh());
  EXPECT_FALSE(w.LearnedLevels()[3]);
  Record(w, 3, half, 0);
  Record(w, 1, LevelWorkload::kRefreshSamples - half, 0);
  ASSERT_TRUE(w.MaybeRefresh());
  ASSERT_TRUE(w.LearnedLevels()[3]);
  std::array<double, kMaxLevels> density;
  ASSERT_TRUE(w.Densities(LevelsOf({1, 3}), &density));
  EXPECT_NEAR(density[3], 2.0 * half / (4 + 1000 + 1000), 1e-12);
}

TEST(LevelWorkload, ForgetDropsWhatWasLearned) {
  LevelWorkload w;
  w.AddSampledKeys(0, 0, 0, 10);
  Record(w, 0, LevelWorkload::kRefreshSamples, 0);
  ASSERT_TRUE(w.MaybeRefresh());
  const uint64_t version = w.version();
  w.Forget();
  std::array<double, kMaxLevels> density;
  EXPECT_FALSE(w.Densities(LevelsOf({0}), &density));
  EXPECT_NE(w.version(), version);
  EXPECT_FALSE(w.MaybeRefresh());
}

TEST(LevelWorkload, RecordsFromManyThreadsAllCount) {
  LevelWorkload w;
  w.AddSampledKeys(4, 0, 0, 4000);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&w] { Record(w, 4, 1000, 1000); });
  }
  for (auto& t : threads) t.join();
  ASSERT_TRUE(w.MaybeRefresh());
  std::array<double, kMaxLevels> density;
  ASSERT_TRUE(w.Densities(LevelsOf({4}), &density));
  EXPECT_NEAR(density[4], 4000.0 / 4000, 1e-9);
}

// db_bench's keys: the number in 8 big-endian bytes, then 8 '0's.
std::string DbBenchKey(uint64_t i) {
  std::string key(16, '0');
  for (int byte = 0; byte < 8; ++byte) {
    key[byte] = static_cast<char>(i >> (8 * (7 - byte)));
  }
  return key;
}

TEST(LevelWorkload, BucketsSliceTheKeySpaceInKeyOrder) {
  LevelWorkload w;
  EXPECT_EQ(w.BucketOf(DbBenchKey(5)), 0);  // no key range yet
  w.ObserveKeyRange(DbBenchKey(0), DbBenchKey(3200000));
  int previous = 0;
  for (uint64_t i = 0; i <= 3200000; i += 1000) {
    const int bucket = w.BucketOf(DbBenchKey(i));
    EXPECT_GE(bucket, previous);
    previous = bucket;
  }
  EXPECT_EQ(w.BucketOf(DbBenchKey(0)), 0);
  EXPECT_EQ(w.BucketOf(DbBenchKey(100000)), 1);
  EXPECT_EQ(w.BucketOf(DbBenchKey(1650000)), 16);
  EXPECT_EQ(w.BucketOf(DbBenchKey(3200000)), LevelWorkload::kBuckets - 1);
  // Keys outside fall into the end buckets.
  EXPECT_EQ(w.BucketOf(DbBenchKey(9000000)), LevelWorkload::kBuckets - 1);
}

TEST(LevelWorkload, HotRangeTablesGetAFactorAboveOneAndColdOnesBelow) {
  LevelWorkload w;
  w.ObserveKeyRange(DbBenchKey(0), DbBenchKey(3200000));
  constexpr int kHot = 4;  // buckets 0..3 of 32: an eighth of the keys
  for (int b = 0; b < LevelWorkload::kBuckets; ++b) {
    w.AddSampledKeys(3, b, b, 10000);
  }
  const uint32_t weight = LevelWorkload::AbsentWeight(0);
  // 90% of the absent probes in the hot eighth.
  for (uint64_t i = 0; i < 9000; ++i) {
    w.RecordSample(3, DbBenchKey(i * 100000 / 9000 * kHot), weight);
  }
  for (uint64_t i = 0; i < 1000; ++i) {
    w.RecordSample(3, DbBenchKey(400000 + i * 2800), weight);
  }
  ASSERT_TRUE(w.MaybeRefresh());
  const double hot = w.TableDensityFactor(3, 1, 1);
  const double cold = w.TableDensityFactor(3, 20, 20);
  // Per key the hot eighth draws 63 times the rest's probes, each bucket
  // far past its sampling error: every bucket counts on its own. Most keys
  // are cold, so their factor stays below but near 1 and the hot ones' is
  // large.
  EXPECT_EQ(w.DeviantBuckets(3), LevelWorkload::kBuckets);
  EXPECT_GT(hot, 8);
  EXPECT_LT(cold, 0.9);
  EXPECT_GT(cold, 0.5);
  // Memory stays the level's: the factors' log, weighted by keys,
  // averages 0.
  double log_sum = 0;
  for (int b = 0; b < LevelWorkload::kBuckets; ++b) {
    log_sum += std::log(w.TableDensityFactor(3, b, b));
  }
  EXPECT_NEAR(log_sum / LevelWorkload::kBuckets, 0, 1e-9);
  // So for tables of four buckets, over where they may start (the last
  // ones end at the last bucket).
  log_sum = 0;
  for (int b = 0; b < LevelWorkload::kBuckets; ++b) {
    const int first = std::min(b, LevelWorkload::kBuckets - 4);
    log_sum += std::log(w.TableDensityFactor(3, first, first + 3));
  }
  EXPECT_NEAR(log_sum / LevelWorkload::kBuckets, 0, 1e-9);
  // Nothing learned of a level: factor 1.
  EXPECT_EQ(w.TableDensityFactor(2, 0, 0), 1.0);
}

// Probes spread evenly over the key space, as a uniform workload's: the
// buckets' counts differ by chance only, and every table of the level gets
// exactly the level's density, refresh after refresh.
TEST(LevelWorkload, UniformProbesGiveEveryTableTheLevelsDensity) {
  LevelWorkload w;
  w.ObserveKeyRange(DbBenchKey(0), DbBenchKey(3200000));
  for (int b = 0; b < LevelWorkload::kBuckets; ++b) {
    w.AddSampledKeys(6, b, b, 100000);
  }
  uint64_t x = 1;
  const uint32_t weight = LevelWorkload::AbsentWeight(0.01);
  for (int refresh = 0; refresh < 40; ++refresh) {
    for (uint64_t i = 0; i < LevelWorkload::kRefreshSamples; ++i) {
      x = x * 6364136223846793005u + 1442695040888963407u;  // uniform keys
      w.RecordSample(6, DbBenchKey((x >> 11) % 3200000), weight);
    }
    ASSERT_TRUE(w.MaybeRefresh());
    for (int b = 0; b < LevelWorkload::kBuckets; b += 3) {
      EXPECT_EQ(w.TableDensityFactor(6, b, std::min(b + 2, 31)), 1.0)
          << "refresh " << refresh << ", bucket " << b;
    }
  }
  EXPECT_EQ(w.DeviantBuckets(6), 0);
}

// A bucket's own density counts once its samples are kDeviantZ standard
// deviations from what its level's rate predicts, and until they are back
// within kSettledZ: a range 1.75 times as hot as the rest (about 4
// deviations) never starts counting; 2.25 times (about 6.7) does, and goes
// on counting when it cools to 1.75 times, until it is back to the
// level's.
TEST(LevelWorkload, ABucketCountsPastItsSamplingErrorAndUntilBackWithin) {
  LevelWorkload w;
  w.ObserveKeyRange(DbBenchKey(0), DbBenchKey(3200000));
  for (int b = 0; b < LevelWorkload::kBuckets; ++b) {
    w.AddSampledKeys(4, b, b, 100000);
  }
  const uint32_t weight = LevelWorkload::AbsentWeight(0);
  // `hot` times as many samples in bucket 5 as in each other bucket, 16
  // each there, for six refreshes (about 32 each, decayed).
  auto run = [&](double hot) {
    for (int r = 0; r < 6; ++r) {
      for (int b = 0; b < LevelWorkload::kBuckets; ++b) {
        const int n = static_cast<int>(std::lround(b == 5 ? 16 * hot : 16));
        for (int i = 0; i < n; ++i) {
          w.RecordSample(4, DbBenchKey(b * 100000 + 50000), weight);
        }
      }
      ASSERT_TRUE(w.MaybeRefresh());
    }
  };
  run(1);
  EXPECT_EQ(w.DeviantBuckets(4), 0);
  run(1.75);
  EXPECT_EQ(w.DeviantBuckets(4), 0) << "within its sampling error";
  EXPECT_EQ(w.TableDensityFactor(4, 5, 5), 1.0);
  run(2.25);
  EXPECT_EQ(w.DeviantBuckets(4), 1);
  EXPECT_GT(w.TableDensityFactor(4, 5, 5), 1.5);
  run(1.75);
  EXPECT_EQ(w.DeviantBuckets(4), 1) << "still past kSettledZ";
  run(1);
  EXPECT_EQ(w.DeviantBuckets(4), 0);
  EXPECT_EQ(w.TableDensityFactor(4, 5, 5), 1.0);
}

TEST(LevelWorkload, SampledKeysComeBackExactlyWhenFilesGo) {
  LevelWorkload w;
  w.ObserveKeyRange(DbBenchKey(0), DbBenchKey(3200000));
  w.AddSampledKeys(1, 3, 9, 1001);
  w.AddSampledKeys(1, 3, 9, -1001);
  w.AddSampledKeys(1, 0, 0, 10);
  Record(w, 1, LevelWorkload::kRefreshSamples, 0);  // all in bucket 0
  ASSERT_TRUE(w.MaybeRefresh());
  std::array<double, kMaxLevels> density;
  ASSERT_TRUE(w.Densities(LevelsOf({1}), &density));
  EXPECT_NEAR(density[1], LevelWorkload::kRefreshSamples / 10.0, 1e-9);
}

}  // namespace
}  // namespace sstfilter
