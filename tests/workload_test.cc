// Specification of what LevelAware learns of a workload (sstfilter/
// workload.h): absent probes per sampled entry per level and key bucket,
// decaying by half at each refresh, nothing until every level asked about
// has samples, and nothing after Forget; tables of hot key ranges get a
// density factor above 1, cold ones below, with the level's memory kept.
#include "sstfilter/workload.h"

#include <gtest/gtest.h>

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

TEST(LevelWorkload, LearnsAbsentProbesPerSampledEntry) {
  LevelWorkload w;
  w.AddSampledEntries(0, 0, 0, 1000);
  w.AddSampledEntries(3, 0, 0, 100000);
  // L0: 400 absent probes over 1,000 entries; L3: 100 absent and 300 hits
  // over 100,000.
  Record(w, 0, 400, 0);
  Record(w, 3, 100, 300);
  ASSERT_TRUE(w.MaybeRefresh());
  std::array<double, kMaxLevels> density;
  ASSERT_TRUE(w.Densities(LevelsOf({0, 3}), &density));
  EXPECT_NEAR(density[0], 400.0 / 1000, 1e-9);
  EXPECT_NEAR(density[3], 100.0 / 100000, 1e-9);
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
  w.AddSampledEntries(1, 0, 0, 1000);
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
  w.AddSampledEntries(2, 0, 0, 1000);
  Record(w, 2, LevelWorkload::kRefreshSamples, 0);
  ASSERT_TRUE(w.MaybeRefresh());
  const uint64_t version = w.version();
  // The workload stops reaching L2 (every sample elsewhere): its density
  // holds while too few samples say so, then halves with each refresh
  // that folds in what there is.
  w.AddSampledEntries(1, 0, 0, 1000);
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
  w.AddSampledEntries(1, 0, 0, 1000);
  w.AddSampledEntries(3, 0, 0, 4);
  Record(w, 1, LevelWorkload::kRefreshSamples, 0);
  ASSERT_TRUE(w.MaybeRefresh());
  EXPECT_TRUE(w.LearnedLevels()[1]);
  EXPECT_FALSE(w.LearnedLevels()[3]);  // entries, but not one sample
  // L3 grows and draws 10 samples in each of two refreshes: learned at the
  // second, over both periods' entries (4, then 4 + 996).
  w.AddSampledEntries(3, 0, 0, 996);
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
  w.AddSampledEntries(0, 0, 0, 10);
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
  w.AddSampledEntries(4, 0, 0, 4000);
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
    w.AddSampledEntries(3, b, b, 10000);
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
  // Per entry the hot eighth draws 63 times the rest's probes. Most
  // entries are cold, so their factor stays below but near 1 and the hot
  // ones' is large; each bucket's few dozen samples count only in part
  // (kCredibleSamples), which pulls both toward 1.
  EXPECT_GT(hot, 8);
  EXPECT_LT(cold, 0.9);
  EXPECT_GT(cold, 0.5);
  // Memory stays the level's: the factors' log, weighted by entries,
  // averages 0.
  double log_sum = 0;
  for (int b = 0; b < LevelWorkload::kBuckets; ++b) {
    log_sum += std::log(w.TableDensityFactor(3, b, b));
  }
  EXPECT_NEAR(log_sum / LevelWorkload::kBuckets, 0, 1e-9);
  // Nothing learned of a level: factor 1.
  EXPECT_EQ(w.TableDensityFactor(2, 0, 0), 1.0);
}

TEST(LevelWorkload, SampledEntriesComeBackExactlyWhenReadersGo) {
  LevelWorkload w;
  w.ObserveKeyRange(DbBenchKey(0), DbBenchKey(3200000));
  w.AddSampledEntries(1, 3, 9, 1001);
  w.AddSampledEntries(1, 3, 9, -1001);
  w.AddSampledEntries(1, 0, 0, 10);
  Record(w, 1, LevelWorkload::kRefreshSamples, 0);  // all in bucket 0
  ASSERT_TRUE(w.MaybeRefresh());
  std::array<double, kMaxLevels> density;
  ASSERT_TRUE(w.Densities(LevelsOf({1}), &density));
  EXPECT_NEAR(density[1], LevelWorkload::kRefreshSamples / 10.0, 1e-9);
}

}  // namespace
}  // namespace sstfilter
