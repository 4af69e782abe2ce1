// sstfilter-filter-bench views: filter/'s views alone, without RocksDB
// (Google Benchmark; its --benchmark_* flags apply): build and query time per
// key, beside the bits/key and the measured false-positive rate. BlockedBloom
// at 10 and 16 bits/key on each SIMD path; the static cuckoo filter
// (BuildStaticCuckoo + CuckooView) with 8-, 12- and 16-bit fingerprints.
//
// Sizes are chosen against this machine's caches (L2 1 MiB/core, L3 32 MiB):
// 1e4 keys fit in L2, 1e6 in L3, and 5e7 (50-100 MiB of filter) do not fit
// in L3. `--huge` adds 1e8 keys (about 2 GiB of memory in all).
//
// Keys are XXH3 hashes of distinct strings, generated once per size and
// shared by every benchmark. Absent queries use 2^20 further distinct
// strings, so each FPR is measured over at least 1e6 absent keys.
//
// Counters: time_per_key (seconds; the console shows e.g. "12.3ns"),
// bits_per_key (filter bytes * 8 / keys), fpr (measured) and fpr_model
// (the filter's EstimatedFpr()).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "keys.h"
#include "scenarios.h"
#include "sstfilter/blocked_bloom.h"
#include "sstfilter/cuckoo_filter.h"
#include "sstfilter/simd.h"

namespace sstfilter {
namespace {

constexpr size_t kNumAbsentQueries = size_t{1} << 20;
constexpr size_t kMaxPresentQueries = size_t{1} << 20;
constexpr size_t kBatch = 32;

// Set when a benchmark hits an error (a failed build, a false negative), so
// main() can exit non-zero and the ctest smoke run fails.
bool g_failed = false;

void Fail(benchmark::State& state, const std::string& why) {
  g_failed = true;
  state.SkipWithError(why.c_str());
}

const std::vector<uint64_t>& PresentHashes(uint64_t num_keys) {
  static std::map<uint64_t, std::vector<uint64_t>> cache;
  auto it = cache.find(num_keys);
  if (it == cache.end()) {
    it =
        cache.emplace(num_keys, bench::HashStrings("present:", num_keys)).first;
  }
  return it->second;
}

const std::vector<uint64_t>& AbsentHashes() {
  static const std::vector<uint64_t> hashes =
      bench::HashStrings("absent:", kNumAbsentQueries);
  return hashes;
}

// Builds a filter of one kind and shape from hashes into serialized bytes.
using BuildFn =
    std::function<Status(const uint64_t* hashes, size_t count, std::string*)>;

// One filter configuration under test. View is the filter's read-only view
// type; every view offers MayContain, MayContainBatch, SizeBytes and
// EstimatedFpr, so one set of benchmarks serves all of them.
template <typename View>
struct Subject {
  std::string name;       // e.g. "BlockedBloom/bpk:10/avx2"
  std::string cache_key;  // equal for configurations that build equal bytes
  SimdPath simd;
  BuildFn build;
};

template <typename View>
struct BuiltFilter {
  std::string bytes;
  View view;
};

// The filter of `subject` over PresentHashes(num_keys), built once and
// shared by the query benchmarks. Null (and the state failed) on error.
template <typename View>
const BuiltFilter<View>* CachedFilter(benchmark::State& state,
                                      const Subject<View>& subject,
                                      uint64_t num_keys) {
  static std::map<std::pair<std::string, uint64_t>,
                  std::unique_ptr<BuiltFilter<View>>>
      cache;
  auto& slot = cache[{subject.cache_key, num_keys}];
  if (!slot) {
    auto built = std::make_unique<BuiltFilter<View>>();
    const std::vector<uint64_t>& keys = PresentHashes(num_keys);
    Status s = subject.build(keys.data(), keys.size(), &built->bytes);
    if (s.ok()) s = View::Parse(built->bytes, &built->view);
    if (!s.ok()) {
      Fail(state, "build " + subject.name + ": " + s.ToString());
      return nullptr;
    }
    slot = std::move(built);
  }
  return slot.get();
}

// Seconds per key as the console's "ns"/"us" figure: the rate counter of
// `keys_per_iteration` per second, inverted.
benchmark::Counter TimePerKey(double keys_per_iteration) {
  return benchmark::Counter(keys_per_iteration,
                            benchmark::Counter::kIsIterationInvariantRate |
                                benchmark::Counter::kInvert);
}

void SetBitsPerKey(benchmark::State& state, size_t bytes, uint64_t num_keys) {
  state.counters["bits_per_key"] =
      static_cast<double>(bytes) * 8 / static_cast<double>(num_keys);
}

// The view that probes on `path`: a BlockedBloomView made for it; the
// cuckoo filter has one path.
const BlockedBloomView& OnPath(const BlockedBloomView& view, SimdPath path,
                               BlockedBloomView* on_path) {
  return view.OnSimdPath(path, on_path) ? *on_path : view;
}
const CuckooView& OnPath(const CuckooView& view, SimdPath, CuckooView*) {
  return view;
}

template <typename View>
void BenchBuild(benchmark::State& state, const Subject<View>& subject,
                uint64_t num_keys) {
  const std::vector<uint64_t>& keys = PresentHashes(num_keys);
  std::string bytes;
  for (auto _ : state) {
    Status s = subject.build(keys.data(), keys.size(), &bytes);
    if (!s.ok()) return Fail(state, s.ToString());
    benchmark::DoNotOptimize(bytes.data());
    benchmark::ClobberMemory();
  }
  state.counters["time_per_key"] = TimePerKey(static_cast<double>(num_keys));
  SetBitsPerKey(state, bytes.size(), num_keys);
}

enum class Query { kAbsent, kPresent, kAbsentBatch };

template <typename View>
void BenchQuery(benchmark::State& state, const Subject<View>& subject,
                uint64_t num_keys, Query query) {
  const BuiltFilter<View>* filter = CachedFilter(state, subject, num_keys);
  if (filter == nullptr) return;
  View on_path;
  const View& view = OnPath(filter->view, subject.simd, &on_path);
  const std::vector<uint64_t>& queries =
      query == Query::kPresent ? PresentHashes(num_keys) : AbsentHashes();
  const size_t count = query == Query::kPresent
                           ? std::min(queries.size(), kMaxPresentQueries)
                           : queries.size();
  const uint64_t* hashes = queries.data();

  uint64_t positives = 0;
  if (query == Query::kAbsentBatch) {
    bool results[kBatch];
    for (auto _ : state) {
      uint64_t hits = 0;
      for (size_t i = 0; i + kBatch <= count; i += kBatch) {
        view.MayContainBatch(hashes + i, kBatch, results);
        for (bool r : results) hits += r;
      }
      benchmark::DoNotOptimize(hits);
      positives += hits;
    }
  } else {
    for (auto _ : state) {
      uint64_t hits = 0;
      for (size_t i = 0; i < count; ++i) hits += view.MayContain(hashes[i]);
      benchmark::DoNotOptimize(hits);
      positives += hits;
    }
  }

  const double queried = static_cast<double>(state.iterations()) * count;
  if (query == Query::kPresent) {
    if (positives != state.iterations() * count) {
      return Fail(state, "false negative in " + subject.name);
    }
  } else {
    state.counters["fpr"] = static_cast<double>(positives) / queried;
    state.counters["fpr_model"] = view.EstimatedFpr();
  }
  state.counters["time_per_key"] = TimePerKey(static_cast<double>(count));
  SetBitsPerKey(state, view.SizeBytes(), num_keys);
}

template <typename View>
void Register(const Subject<View>& subject, uint64_t num_keys) {
  const std::string suffix = "/keys:" + std::to_string(num_keys);
  const std::pair<const char*, Query> queries[] = {
      {"/query_absent", Query::kAbsent},
      {"/query_present", Query::kPresent},
      {"/query_absent_batch32", Query::kAbsentBatch},
  };
  benchmark::RegisterBenchmark((subject.name + "/build" + suffix).c_str(),
                               [subject, num_keys](benchmark::State& state) {
                                 BenchBuild(state, subject, num_keys);
                               })
      ->Unit(benchmark::kMillisecond);
  for (const auto& [op, query] : queries) {
    benchmark::RegisterBenchmark(
        (subject.name + op + suffix).c_str(),
        [subject, num_keys, query = query](benchmark::State& state) {
          BenchQuery(state, subject, num_keys, query);
        })
        ->Unit(benchmark::kMillisecond);
  }
}

Status BuildBlockedBloom(double bits_per_key, const uint64_t* hashes,
                         size_t count, std::string* out) {
  const BlockedBloomParams params =
      BlockedBloomParams::ForBitsPerKey(count, bits_per_key);
  Status s = params.Validate();
  if (!s.ok()) return s;
  out->assign(params.SerializedSize(), '\0');
  BlockedBloomWriter writer(params, reinterpret_cast<uint8_t*>(out->data()));
  writer.AddBatch(hashes, count);
  return Status::Ok();
}

void RegisterAll(const std::vector<uint64_t>& sizes) {
  std::vector<SimdPath> paths = {SimdPath::kScalar};
  if (SimdPathSupported(SimdPath::kAvx2)) paths.push_back(SimdPath::kAvx2);
  const SimdPath best_path = paths.back();
  // Grouped by size, so the largest keys and filters are made last.
  for (uint64_t num_keys : sizes) {
    for (int bits_per_key : {10, 16}) {
      const std::string bpk = "bpk:" + std::to_string(bits_per_key);
      for (SimdPath path : paths) {
        Register(
            Subject<BlockedBloomView>{
                "BlockedBloom/" + bpk + "/" + SimdPathName(path), bpk, path,
                [bits_per_key](const uint64_t* hashes, size_t count,
                               std::string* out) {
                  return BuildBlockedBloom(bits_per_key, hashes, count, out);
                }},
            num_keys);
      }
    }
    for (uint32_t fingerprint_bits : {8, 12, 16}) {
      const std::string f = "f:" + std::to_string(fingerprint_bits);
      Register(
          Subject<CuckooView>{
              "Cuckoo/" + f, f, best_path,
              [fingerprint_bits](const uint64_t* hashes, size_t count,
                                 std::string* out) {
                return BuildStaticCuckoo(hashes, count, fingerprint_bits, out);
              }},
          num_keys);
    }
  }
}

}  // namespace

int bench::ViewsMain(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  std::vector<uint64_t> sizes = {10'000, 1'000'000, 50'000'000};
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--huge") {
      sizes.push_back(100'000'000);
    } else {
      std::fprintf(stderr,
                   "unknown argument %s\nusage: %s [--huge] "
                   "[--benchmark_* flags]\n  --huge  also run 1e8 keys\n",
                   argv[i], argv[0]);
      return 2;
    }
  }
  RegisterAll(sizes);
  const size_t ran = benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (ran == 0) {
    std::fprintf(stderr, "no benchmark matched the filter\n");
    return 1;
  }
  return g_failed ? 1 : 0;
}

}  // namespace sstfilter
