// One filter of 10^8 keys through each policy's builder: every key found,
// single and batched; the FPR of 10^6 absent keys against the filter's
// model; and the builder's peak heap beyond the filter, about 8 bytes per
// key (the hashes). Keys are made one at a time, never held.
// Label "long" (minutes, about 1 GB): built and registered only with
// -DSSTFILTER_LONG_TESTS=ON, and never run by tools/test.sh (README,
// Reliability).
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "keys.h"
#include "rocksdb_builder_metering.h"
#include "sstfilter/filter_view.h"

namespace sstfilter::test_support {
namespace {

constexpr uint64_t kKeys = 100'000'000;
constexpr uint64_t kAbsentKeys = 1'000'000;

// How many of keys 0 .. count-1 of `tag` `reader` may match, asked one at
// a time or in MultiGet's batches of 32.
uint64_t CountMatches(rdb::FilterBitsReader& reader, const char (&tag)[9],
                      uint64_t count, bool batched) {
  uint64_t matches = 0;
  if (!batched) {
    char key[kSequenceKeySize];
    for (uint64_t i = 0; i < count; ++i) {
      matches += reader.MayMatch(SequenceKey(tag, i, key)) ? 1 : 0;
    }
    return matches;
  }
  constexpr int kBatch = 32;
  char keys[kBatch][kSequenceKeySize];
  rdb::Slice slices[kBatch];
  rdb::Slice* pointers[kBatch];
  bool may_match[kBatch];
  for (uint64_t start = 0; start < count; start += kBatch) {
    const int n = static_cast<int>(std::min<uint64_t>(kBatch, count - start));
    for (int j = 0; j < n; ++j) {
      slices[j] = SequenceKey(tag, start + j, keys[j]);
      pointers[j] = &slices[j];
    }
    reader.MayMatch(n, pointers, may_match);
    matches += std::count(may_match, may_match + n, true);
  }
  return matches;
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

// The kind a policy id names.
FilterKind KindOf(const char* id) {
  return std::string(id).find("Cuckoo") != std::string::npos
             ? FilterKind::kCuckoo
             : FilterKind::kBlockedBloom;
}

class BuilderScaleTest : public ::testing::TestWithParam<const char*> {};

TEST_P(BuilderScaleTest, HundredMillionKeysInOneFilter) {
  const char* id = GetParam();
  const FilterKind kind = KindOf(id);
  std::shared_ptr<const rdb::FilterPolicy> policy;
  ASSERT_TRUE(MakePolicy(id, &policy).ok());
  const MeteredBuild build = BuildMetered(*policy, kKeys);
  ASSERT_EQ(build.entries_added, kKeys);
  FilterView view;
  ASSERT_TRUE(FilterView::Parse(build.filter.ToStringView(), &view).ok());
  EXPECT_EQ(view.kind(), kind) << "not the policy's own kind: a fallback";
  std::unique_ptr<rdb::FilterBitsReader> reader(
      policy->GetFilterBitsReader(build.filter));

  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(CountMatches(*reader, kPresentTag, kKeys, /*batched=*/false), kKeys)
      << "false negatives, one key at a time";
  const double single_seconds = SecondsSince(start);
  start = std::chrono::steady_clock::now();
  EXPECT_EQ(CountMatches(*reader, kPresentTag, kKeys, /*batched=*/true), kKeys)
      << "false negatives, batched";
  const double batched_seconds = SecondsSince(start);

  const double measured =
      static_cast<double>(
          CountMatches(*reader, kAbsentTag, kAbsentKeys, /*batched=*/true)) /
      kAbsentKeys;
  const double model = view.EstimatedFpr();
  EXPECT_NEAR(measured, model, FprTolerance(model, kAbsentKeys, 0.05));

  const double beyond = build.peak_bytes_per_key_beyond_filter;
  EXPECT_LE(beyond, 8.0 + 0.1) << id;
  EXPECT_GE(beyond, 7.9) << "the hashes must be counted";

  // Wall-clock times, and the process's CPU time: on a busy machine the
  // two differ.
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const double cpu_seconds =
      static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
      static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) /
          1e6;
  std::printf(
      "%s: %llu keys, filter %zu bytes (%.3f bits/key); add %.1f s, finish "
      "%.1f s, all keys found in %.1f s single and %.1f s batched (CPU %.0f "
      "s in all); peak heap beyond the filter %.4f bytes/key (max RSS %.0f "
      "MiB); FPR %.5f%% measured over %llu absent keys, model %.5f%%\n",
      id, static_cast<unsigned long long>(kKeys), build.filter.size(),
      static_cast<double>(build.filter.size()) * 8 / kKeys, build.add_seconds,
      build.finish_seconds, single_seconds, batched_seconds, cpu_seconds,
      beyond, static_cast<double>(usage.ru_maxrss) / 1024, measured * 100,
      static_cast<unsigned long long>(kAbsentKeys), model * 100);
  RecordProperty("peak_bytes_per_key_beyond_filter", std::to_string(beyond));
  RecordProperty("fpr_measured", std::to_string(measured));
  RecordProperty("fpr_model", std::to_string(model));
}

INSTANTIATE_TEST_SUITE_P(Policies, BuilderScaleTest,
                         ::testing::Values("sstfilter.BlockedBloom:10",
                                           "sstfilter.Cuckoo:12"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(
                               FilterKindName(KindOf(info.param)));
                         });

}  // namespace
}  // namespace sstfilter::test_support
