// sstfilter-filter-bench layout-table: measures which BlockedBloom layout
// (lines per key, probe count) gives the lowest false-positive rate at each
// whole bits/key from 1 to 24. Its output is the source of
// kLayoutByBitsPerKey and kOneLineProbes in filter/src/bloom/blocked_bloom.cc
// (the MEASUREMENT_TABLE there).
//
// For every bits/key and lines_per_key in {1, 2} it builds filters of 1e6
// keys with the line count ForBitsPerKey gives, for every probe count within
// 3 of the model's optimum (EstimatedFpr), and counts false positives over
// absent keys: enough for about 2e4 false positives, at least 2e6 and, from
// 16 bits/key, at least 2e7 (at most 5e7). Every (lines, probes) of one
// bits/key is measured over the same absent keys.
//
// Near the optimum the FPR curve is flat, so the choice is the cheapest
// layout (fewest lines, then fewest probes) whose FPR is within one standard
// error, sqrt(fpr / queries), of the lowest measured.
//
// stdout: the table and the C++ arrays; stderr: every measurement.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "flags.h"
#include "keys.h"
#include "scenarios.h"
#include "sstfilter/blocked_bloom.h"

namespace sstfilter {
namespace {

// The run's sizes; --smoke's are a hundredth, for ctest (its table is noise).
struct Sizes {
  uint64_t num_keys = 1'000'000;
  uint64_t min_queries = 2'000'000;
  uint64_t min_queries_from_16 = 20'000'000;
  uint64_t max_queries = 50'000'000;
};
constexpr int kMaxBitsPerKey = 24;
constexpr int kProbeWindow = 3;
constexpr double kTargetFalsePositives = 2e4;
constexpr int kHighBitsPerKey = 16;

struct Measurement {
  uint32_t lines = 0;
  uint32_t probes = 0;
  double fpr = 1.0;
};

// The cheapest of `all` whose FPR is within one standard error of the
// lowest; only layouts with `lines` lines per key unless `lines` is 0.
Measurement Choose(const std::vector<Measurement>& all, uint32_t lines,
                   uint64_t num_queries) {
  double lowest = 1.0;
  for (const Measurement& m : all) {
    if (lines == 0 || m.lines == lines) lowest = std::min(lowest, m.fpr);
  }
  const double bound =
      lowest + std::sqrt(lowest / static_cast<double>(num_queries));
  for (const Measurement& m : all) {  // ordered by lines, then probes
    if ((lines == 0 || m.lines == lines) && m.fpr <= bound) return m;
  }
  return Measurement{};
}

// Probe count with the lowest model FPR for `params` (num_probes ignored).
uint32_t ModelOptimum(BlockedBloomParams params, uint64_t num_keys) {
  uint32_t best = params.lines_per_key;
  double best_fpr = 2.0;
  for (uint32_t k = params.lines_per_key; k <= BlockedBloomParams::kMaxProbes;
       ++k) {
    params.num_probes = k;
    const double fpr = params.EstimatedFpr(num_keys);
    if (fpr < best_fpr) {
      best = k;
      best_fpr = fpr;
    }
  }
  return best;
}

// Measured FPR of `params` holding `present`, over the first `num_queries`
// of `absent`. Exits on an invalid filter or a false negative.
double MeasureFpr(const BlockedBloomParams& params,
                  const std::vector<uint64_t>& present,
                  const std::vector<uint64_t>& absent, uint64_t num_queries) {
  BlockedBloom bloom;
  Status s = BlockedBloom::Create(params, &bloom);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    std::exit(1);
  }
  bloom.AddBatch(present.data(), present.size());

  constexpr size_t kChunk = 256;
  bool results[kChunk];
  for (size_t i = 0; i < present.size(); i += kChunk) {
    const size_t n = std::min(kChunk, present.size() - i);
    bloom.MayContainBatch(present.data() + i, n, results);
    if (!std::all_of(results, results + n, [](bool r) { return r; })) {
      std::fprintf(stderr, "false negative (lines %u, probes %u)\n",
                   params.lines_per_key, params.num_probes);
      std::exit(1);
    }
  }
  uint64_t positives = 0;
  for (size_t i = 0; i < num_queries; i += kChunk) {
    const size_t n = std::min<size_t>(kChunk, num_queries - i);
    bloom.MayContainBatch(absent.data() + i, n, results);
    positives += std::count(results, results + n, true);
  }
  return static_cast<double>(positives) / static_cast<double>(num_queries);
}

int Run(const Sizes& sizes) {
  const uint64_t num_keys = sizes.num_keys;
  const std::vector<uint64_t> present =
      bench::HashStrings("present:", num_keys);
  const std::vector<uint64_t> absent =
      bench::HashStrings("absent:", sizes.max_queries);

  // Index 0 is unused (below 1 bit/key counts as 1), as in blocked_bloom.cc.
  std::vector<Measurement> measured[kMaxBitsPerKey + 1];
  uint64_t queries_used[kMaxBitsPerKey + 1] = {};
  for (int bpk = 1; bpk <= kMaxBitsPerKey; ++bpk) {
    BlockedBloomParams shape[3];
    double model_best = 1.0;
    for (uint32_t lines = 1; lines <= 2; ++lines) {
      shape[lines] = BlockedBloomParams::ForBitsPerKey(num_keys, bpk, lines);
      shape[lines].lines_per_key = lines;
      shape[lines].num_probes = ModelOptimum(shape[lines], num_keys);
      model_best = std::min(model_best, shape[lines].EstimatedFpr(num_keys));
    }
    uint64_t num_queries = static_cast<uint64_t>(
        std::ceil(kTargetFalsePositives / std::max(model_best, 1e-12)));
    num_queries =
        std::max(num_queries, bpk >= kHighBitsPerKey ? sizes.min_queries_from_16
                                                     : sizes.min_queries);
    num_queries = std::min(num_queries, sizes.max_queries);
    queries_used[bpk] = num_queries;

    for (uint32_t lines = 1; lines <= 2; ++lines) {
      const int optimum = static_cast<int>(shape[lines].num_probes);
      const int lo = std::max<int>(lines, optimum - kProbeWindow);
      const int hi =
          std::min<int>(BlockedBloomParams::kMaxProbes, optimum + kProbeWindow);
      for (int k = lo; k <= hi; ++k) {
        BlockedBloomParams params = shape[lines];
        params.num_probes = k;
        const double fpr = MeasureFpr(params, present, absent, num_queries);
        std::fprintf(stderr,
                     "bits/key %2d  lines %u  probes %2d  fpr %.5f%%  "
                     "(model %.5f%%, %llu queries)\n",
                     bpk, lines, k, 100 * fpr,
                     100 * params.EstimatedFpr(num_keys),
                     static_cast<unsigned long long>(num_queries));
        measured[bpk].push_back({lines, static_cast<uint32_t>(k), fpr});
      }
    }
  }

  std::printf(
      "BlockedBloom probe table: %llu keys per filter, line count from "
      "ForBitsPerKey;\nchosen: fewest lines, then probes, within one "
      "standard error of the lowest FPR\n\n",
      static_cast<unsigned long long>(num_keys));
  std::printf(
      "bits/key   queries   one line: k  FPR%%     two lines: k  FPR%%    "
      "chosen: lines k\n");
  Measurement chosen[kMaxBitsPerKey + 1];
  uint32_t one_line_probes[kMaxBitsPerKey + 1] = {1};
  for (int bpk = 1; bpk <= kMaxBitsPerKey; ++bpk) {
    const uint64_t queries = queries_used[bpk];
    const Measurement one = Choose(measured[bpk], 1, queries);
    const Measurement two = Choose(measured[bpk], 2, queries);
    chosen[bpk] = Choose(measured[bpk], 0, queries);
    one_line_probes[bpk] = one.probes;
    std::printf("%8d  %9.2e  %11u  %-9.4g  %12u  %-9.4g  %12u %u\n", bpk,
                static_cast<double>(queries), one.probes, 100 * one.fpr,
                two.probes, 100 * two.fpr, chosen[bpk].lines,
                chosen[bpk].probes);
  }

  std::printf("\nconstexpr Layout kLayoutByBitsPerKey[] = {\n");
  std::printf("    {1, 1},  // 0: unused, below 1 bit/key counts as 1");
  for (int bpk = 1; bpk <= kMaxBitsPerKey; ++bpk) {
    std::printf("%s{%u, %u},", bpk % 8 == 1 ? "\n    " : " ", chosen[bpk].lines,
                chosen[bpk].probes);
  }
  std::printf("\n};\nconstexpr uint8_t kOneLineProbes[] = {");
  for (int bpk = 0; bpk <= kMaxBitsPerKey; ++bpk) {
    std::printf("%s%u", bpk == 0 ? "" : ", ", one_line_probes[bpk]);
  }
  std::printf("};\n");
  return 0;
}

}  // namespace

int bench::LayoutTableMain(int argc, char** argv) {
  bench::Flags flags(argc, argv);
  Sizes sizes;
  if (flags.Switch("--smoke")) {
    sizes = {10'000, 20'000, 200'000, 500'000};
  }
  if (!flags.Done("[--smoke]")) return 2;
  return Run(sizes);
}

}  // namespace sstfilter
