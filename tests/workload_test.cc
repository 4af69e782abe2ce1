// Specification of what LevelAware learns of a workload (sstfilter/
// workload.h): absent probes per sampled entry per level, decaying by half
// at each refresh, nothing until every level asked about has samples, and
// nothing after Forget.
#include "sstfilter/workload.h"

#include <gtest/gtest.h>

#include <array>
#include <thread>
#include <vector>

namespace sstfilter {
namespace {

using Levels = std::array<bool, LevelWorkload::kMaxLevels>;

Levels LevelsOf(std::initializer_list<int> levels) {
  Levels in{};
  for (int level : levels) in[level] = true;
  return in;
}

// `absent` "no" answers and `hits` "may match" answers at `level`, from a
// filter of model FPR 0 (each "no" one absent probe).
void Record(LevelWorkload& w, int level, int absent, int hits) {
  const uint32_t weight = LevelWorkload::AbsentWeight(0);
  for (int i = 0; i < absent; ++i) w.RecordSample(level, weight);
  for (int i = 0; i < hits; ++i) w.RecordSample(level, 0);
}

TEST(LevelWorkload, LearnsAbsentProbesPerSampledEntry) {
  LevelWorkload w;
  w.AddSampledEntries(0, 1000);
  w.AddSampledEntries(3, 100000);
  // L0: 400 absent probes over 1,000 entries; L3: 100 absent and 300 hits
  // over 100,000.
  Record(w, 0, 400, 0);
  Record(w, 3, 100, 300);
  ASSERT_TRUE(w.MaybeRefresh());
  std::array<double, LevelWorkload::kMaxLevels> density;
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
  std::array<double, LevelWorkload::kMaxLevels> density;
  EXPECT_FALSE(w.Densities(LevelsOf({0}), &density));
  w.AddSampledEntries(1, 1000);
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
  w.AddSampledEntries(2, 1000);
  Record(w, 2, LevelWorkload::kRefreshSamples, 0);
  ASSERT_TRUE(w.MaybeRefresh());
  const uint64_t version = w.version();
  // The workload stops reaching L2 (every sample elsewhere).
  w.AddSampledEntries(1, 1000);
  std::array<double, LevelWorkload::kMaxLevels> density;
  const double first = LevelWorkload::kRefreshSamples / 1000.0;
  for (int refresh = 1; refresh <= 3; ++refresh) {
    Record(w, 1, LevelWorkload::kRefreshSamples, 0);
    ASSERT_TRUE(w.MaybeRefresh());
    ASSERT_TRUE(w.Densities(LevelsOf({2}), &density));
    EXPECT_NEAR(density[2], first / (1 << refresh), 1e-12);
  }
  EXPECT_GT(w.version(), version);
}

TEST(LevelWorkload, ForgetDropsWhatWasLearned) {
  LevelWorkload w;
  w.AddSampledEntries(0, 10);
  Record(w, 0, LevelWorkload::kRefreshSamples, 0);
  ASSERT_TRUE(w.MaybeRefresh());
  const uint64_t version = w.version();
  w.Forget();
  std::array<double, LevelWorkload::kMaxLevels> density;
  EXPECT_FALSE(w.Densities(LevelsOf({0}), &density));
  EXPECT_NE(w.version(), version);
  EXPECT_FALSE(w.MaybeRefresh());
}

TEST(LevelWorkload, RecordsFromManyThreadsAllCount) {
  LevelWorkload w;
  w.AddSampledEntries(4, 4000);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&w] { Record(w, 4, 1000, 1000); });
  }
  for (auto& t : threads) t.join();
  ASSERT_TRUE(w.MaybeRefresh());
  std::array<double, LevelWorkload::kMaxLevels> density;
  ASSERT_TRUE(w.Densities(LevelsOf({4}), &density));
  EXPECT_NEAR(density[4], 4000.0 / 4000, 1e-9);
}

}  // namespace
}  // namespace sstfilter
