// bench/filter/compare_scenarios.h: what sstfilter-filter-bench compare builds
// and queries. The subjects of each bits/key group, the scenarios (a)
// cache-resident, (b) many filters, (c) batched, the FPR of a 1e6-key filter,
// and the sweeps (FPR against bits/key, the cuckoo filter over n, query time
// against total filter size). Every timing is taken with the subjects of a
// group interleaved, `Sizes::repeats` times.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "compare_measure.h"

namespace sstfilter::bench {

inline constexpr char kBloom[] = "bloomfilter";
inline constexpr char kFastLocalBloomAvx2[] = "FastLocalBloom-AVX2";
inline constexpr char kRibbon[] = "ribbonfilter";
// The name of a subject whose reader is given a sampler: the unsampled
// subject's name, then this.
inline constexpr char kSampledSuffix[] = " sampled";

// ---------------------------------------------------------------- sizes

struct Sizes {
  int repeats = 5;
  uint64_t cache_keys = 10'000;     // (a), (c)
  uint64_t cache_absent = 1 << 18;  // distinct absent keys per pass
  uint64_t queries_per_sample = 1 << 20;
  // build_a: keys built per timing (the filters of cache_keys each).
  uint64_t build_keys_per_sample = 1 << 18;
  uint64_t fpr_keys = 1'000'000;      // the filter FPR is measured on
  uint64_t fpr_queries = 10'000'000;  // absent keys per FPR
  // (b): at least 4x L3 (or --many-mib) in filters of this many keys,
  // which at 10 bits/key and 128 MiB is more than 3,000 filters.
  uint64_t many_min_keys = 10'000;
  uint64_t many_max_keys = 50'000;
  uint64_t many_total_bytes = 0;  // set from the L3 size
  uint64_t many_queries = 1 << 19;
  std::vector<uint64_t> cuckoo_n = {
      1'000,   1'500,     2'048,     2'500,     4'096,     5'000,     8'193,
      10'000,  16'384,    30'000,    65'536,    100'000,   131'073,   300'000,
      524'288, 1'000'000, 1'048'577, 3'000'000, 4'194'304, 10'000'000};
  std::vector<int> sweep_bits = {4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14,
                                 15, 16, 17, 18, 19, 20, 21, 22, 23, 24};
  bool sweeps = true;
};

// The L3 size from sysfs ("32768K"); 32 MiB if unknown.
uint64_t L3Bytes();

// Tiny sizes and one repeat, for the ctest smoke run.
Sizes SmokeSizes();

struct Group {
  std::string name;
  double bits_per_key;
  std::vector<std::pair<std::string, std::string>> subjects;  // name, id
};

// The groups: 10 and 16 bits/key (10 with the sampled readers too), and
// 12.5 for the cuckoo filter at f = 12.
std::vector<Group> Groups();

// `bits` as the shortest decimal ("10", "12.5").
std::string Num(double bits);

struct Results {
  Sizes sizes;
  std::vector<Row> rows;
  std::vector<SweepPoint> fpr_sweep;
  std::vector<SweepPoint> cuckoo_n;  // nominal = n
  std::vector<SizePoint> size_sweep;
  std::map<std::string, size_t> many_filters;  // group -> files in (b)
  std::string load_before, load_after;
};

// Scenarios (a), (b), (c) and the FPR of one group, appended to
// results->rows. `extras`: also split query time into hashing and probing,
// and sweep query time against total filter size (done for one group).
void RunGroup(const Group& group, bool extras, Results* results);

// FPR against bits/key for every policy, into results->fpr_sweep.
void SweepFpr(Results* results);

// The cuckoo filter at f = 12 for n from 1e3 to 1e7, powers of two and
// not, into results->cuckoo_n.
void SweepCuckooN(Results* results);

// The median over results->sizes.repeats of the time `id` takes to build a
// filter of cache_keys keys over the time `reference` takes, interleaved,
// as build_a measures it; NaN, after Fail, if either makes no policy.
double BuildTimeRatio(const std::string& id, const std::string& reference,
                      Results* results);

}  // namespace sstfilter::bench
