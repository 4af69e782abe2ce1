// sstfilter-filter-bench compare: every filter policy, ours and RocksDB's,
// driven the way RocksDB drives it (FilterPolicy::GetBuilderWithContext ->
// AddKey / Finish, GetFilterBitsReader -> MayMatch), on the same keys in the
// same run.
//
// Subjects, per bits/key group: RocksDB's "bloomfilter" and "ribbonfilter"
// from the librocksdb it links; against Debian's generic librocksdb also
// "FastLocalBloom-AVX2", RocksDB's FastLocalBloomImpl built for this machine
// (fast_local_bloom_avx2.h), which a RocksDB built from source for this
// machine does not need; and sstfilter.BlockedBloom, sstfilter.Cuckoo and
// sstfilter.Hybrid.
//
// Scenarios:
//   (a) cache-resident: one filter of 1e4 keys, queried over and over;
//   (b) many filters of 1e4..1e5 keys each, at least 4x the L3 cache in
//       all, one random filter per query (an LSM tree with many SSTs);
//   (c) batched: 32 keys per MayMatch(num_keys, ...) call, as MultiGet
//       does, against the filter of (a) and against a random filter of (b).
// Besides: FPR on >= 1e7 absent keys of a 1e6-key filter, the builder's
// peak heap (alloc_meter.h), sweeps of FPR against bits/key with the
// theoretical curves, the cuckoo filter at f = 12 from 1e3 to 1e7 keys, and
// query time against the total size of the filters.
//
// Every timing is repeated (--repeats, default 5) with the subjects of a
// group interleaved, and the median is reported. A ratio is the median over
// the repetitions of (time / the reference's time in the same repetition),
// so that a load spike on the shared machine hits both sides.
//
// usage: sstfilter-filter-bench compare [--smoke] [--repeats N] [--out DIR]
//            [--no-sweeps] [--groups 10,16,12.5] [--many-mib N]
//        sstfilter-filter-bench build-check [--repeats N]
// Writes DIR/compare.{md,csv,json}, DIR/sweep_fpr.csv, DIR/theory.csv,
// DIR/cuckoo_n.csv and DIR/sweep_size.csv (DIR defaults to bench/results).
// build-check only times the builds of kBuildLimits and prints one line
// each, "REGRESSION: ..." where a ratio passes its limit (then exits 3): a
// guard to run by hand, as bench/README.md says, never a timed test.
// Exits non-zero if a filter misses a key it was built from, or a policy
// cannot be made.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <system_error>

#include "compare_report.h"
#include "compare_scenarios.h"
#include "flags.h"
#include "scenarios.h"
#ifdef SSTFILTER_FAST_LOCAL_BLOOM_AVX2
#include "fast_local_bloom_avx2.h"
#endif
#include "rocksdb/utilities/object_registry.h"
#include "sstfilter/rocksdb_plugin.h"

namespace sstfilter::bench {
namespace {

// The build times --build-check holds to a limit: a policy's, as a ratio to
// a reference's, 1e4-key filters (build_a). The first guards the cuckoo
// build (Cuckoo:12 is f = 11), which had slipped from 0.44-0.47x
// ribbonfilter's time to 0.51-0.70x on 11.8.1 when the cuckoo bucket array
// moved into one type. The second is the performance bar's target for
// f = 12.
struct BuildLimit {
  const char* id;
  const char* reference;
  double max_ratio;
};
constexpr BuildLimit kBuildLimits[] = {
    {"sstfilter.Cuckoo:12", "ribbonfilter:10", 0.5},
    {"id=sstfilter.Cuckoo:12.5;fingerprint_bits=12", "ribbonfilter:12.5", 0.5},
};

// Times kBuildLimits; 3 if one passes its limit, 1 on a failure. Each
// timing builds 8x the keys of build_a's (about 50 ms of cuckoo builds
// here), so that one preemption on a loaded machine moves a ratio less.
int BuildCheck(Results* results, bool smoke) {
  if (!smoke) results->sizes.build_keys_per_sample *= 8;
  bool slipped = false;
  for (const BuildLimit& limit : kBuildLimits) {
    const double ratio = BuildTimeRatio(limit.id, limit.reference, results);
    const bool over = !(ratio <= limit.max_ratio);
    slipped |= over;
    std::printf(
        "%s%s builds 1e4-key filters in %.3fx %s's time (median of "
        "%d; limit %.2fx)\n",
        over ? "REGRESSION: " : "", limit.id, ratio, limit.reference,
        results->sizes.repeats, limit.max_ratio);
  }
  if (Failed()) return 1;
  return slipped && !smoke ? 3 : 0;
}

constexpr char kUsage[] =
    "[--smoke] [--repeats N] [--out DIR] [--no-sweeps] [--groups LIST]\n"
    "          [--many-mib N]\n"
    "  --smoke        tiny sizes, one repeat (seconds; for ctest)\n"
    "  --repeats N    timing repeats per measurement (default 5)\n"
    "  --out DIR      where the results go (default bench/results)\n"
    "  --no-sweeps    skip the FPR, cuckoo-n and size sweeps\n"
    "  --groups L     only these bits/key groups, e.g. 10 or 10,16\n"
    "                 (default all: 10,16,12.5)\n"
    "  --many-mib N   (b)'s filters per policy, in MiB (default 4x\n"
    "                 the L3 size sysfs gives; a VM may give the\n"
    "                 host's, far more than it has)";

// False (with a message) where this build's reference cannot run.
bool Ready() {
#ifdef SSTFILTER_FAST_LOCAL_BLOOM_AVX2
  if (!FastLocalBloomAvx2Supported()) {
    std::fprintf(stderr,
                 "this CPU has no AVX2, which FastLocalBloom-AVX2 "
                 "needs\n");
    return false;
  }
#endif
  RegisterSstfilterPolicies(*ROCKSDB_NAMESPACE::ObjectLibrary::Default(), "");
  return true;
}

}  // namespace

int BuildCheckMain(int argc, char** argv) {
  Flags flags(argc, argv);
  // --smoke: one repeat of build_a's own size, and a slip is only printed.
  const bool smoke = flags.Switch("--smoke");
  int repeats = smoke ? 1 : 0;
  flags.Get("--repeats", &repeats);
  if (!flags.Done("[--repeats N] [--smoke]", repeats >= 0)) return 2;
  if (!Ready()) return 1;
  Results results;
  results.sizes = Sizes();
  if (repeats > 0) results.sizes.repeats = repeats;
  return BuildCheck(&results, smoke);
}

int CompareMain(int argc, char** argv) {
  Flags flags(argc, argv);
  const bool smoke = flags.Switch("--smoke");
  const bool sweeps = !flags.Switch("--no-sweeps");
  int repeats = 0;
  std::string out = "bench/results";
  std::string groups;  // "10,16" or empty for all
  uint64_t many_mib = 0;
  flags.Get("--repeats", &repeats)
      .Get("--out", &out)
      .Get("--many-mib", &many_mib)
      .Get("--groups", &groups);
  if (!flags.Done(kUsage, repeats >= 0)) return 2;
  if (!Ready()) return 1;
  if (!groups.empty()) groups = "," + groups + ",";

  Results results;
  results.sizes = smoke ? SmokeSizes() : Sizes();
  if (!smoke) {
    results.sizes.many_total_bytes =
        many_mib > 0 ? many_mib << 20 : 4 * L3Bytes();
  }
  if (repeats > 0) results.sizes.repeats = repeats;
  results.sizes.sweeps = sweeps;
  results.load_before = LoadAverage();

  bool first = true;
  for (const Group& group : Groups()) {
    if (!groups.empty() &&
        groups.find("," + group.name + ",") == std::string::npos) {
      continue;
    }
    RunGroup(group, first && sweeps, &results);
    first = false;
  }
  if (sweeps) {
    SweepFpr(&results);
    SweepCuckooN(&results);
  }
  results.load_after = LoadAverage();

  std::error_code error;
  std::filesystem::create_directories(out, error);
  if (error) {
    std::fprintf(stderr, "cannot create %s: %s\n", out.c_str(),
                 error.message().c_str());
    return 1;
  }
  WriteMarkdown(results, out + "/compare.md");
  WriteCsv(results, out);
  WriteJson(results, out + "/compare.json");
  std::ifstream md(out + "/compare.md");
  std::printf("%s",
              std::string(std::istreambuf_iterator<char>(md), {}).c_str());
  std::fprintf(stderr,
               "results: %s/compare.{md,csv,json}, sweep_*.csv, "
               "cuckoo_n.csv, theory.csv\n",
               out.c_str());
  return Failed() ? 1 : 0;
}

}  // namespace sstfilter::bench
