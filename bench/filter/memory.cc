// sstfilter-filter-bench memory: what BlockBasedTableOptions::
// optimize_filters_for_memory does to filter memory and FPR, for our
// policies and RocksDB's own bloomfilter, with the allocator of this
// process (glibc's malloc, or another one by LD_PRELOAD).
//
// Each policy builds the same sequence of filters twice, with the option
// off and on, through FilterPolicy::GetBuilderWithContext / AddKey /
// Finish, one policy object a run (its builders share the FPR balance, as
// a database's do). Key counts are log-uniform over [--min-keys,
// --max-keys] from a fixed seed, like SST files of a few MiB. For each run:
//   disk        the filters' bytes;
//   built       malloc_usable_size of the buffers Finish returned;
//   cached      malloc_usable_size of a buffer of the filter's size plus
//               the 5-byte block trailer, which is what RocksDB reads a
//               filter block into and keeps in the block cache;
//   FPR         absent keys that pass, --queries per filter (so the
//               average over filters);
//   model FPR   the average of the filters' own model FPRs (ours: the
//               built filter's EstimatedFpr; RocksDB's: its builder's
//               EstimatedFpRate for the size written);
// and every present key is checked. No timing.
//
// usage: sstfilter-filter-bench memory [--filters N] [--queries Q]
//                                      [--min-keys A] [--max-keys B]
// Exits non-zero on a false negative or a policy that cannot be made.
#include <malloc.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "flags.h"
#include "rocksdb/convenience.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/object_registry.h"
#include "rocksdb_db_compat.h"
#include "scenarios.h"
#include "sstfilter/filter_view.h"
#include "sstfilter/format.h"
#include "sstfilter/rocksdb_plugin.h"
#include "table/block_based/filter_policy_internal.h"

namespace sstfilter::bench {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;

struct Settings {
  size_t filters = 1000;
  size_t queries = 10000;
  uint64_t min_keys = 1000;
  uint64_t max_keys = 100000;
};

struct Totals {
  uint64_t keys = 0;
  uint64_t disk = 0;
  uint64_t built = 0;
  uint64_t cached = 0;
  uint64_t queries = 0;
  uint64_t passed = 0;
  double model_fpr = 0;  // summed over filters
  uint64_t false_negatives = 0;
};

// An 8-byte big-endian key: filter i's present keys are (i << 32) + j;
// absent keys have the top bit set as well.
struct Key {
  char bytes[8];
  explicit Key(uint64_t v) {
    for (int b = 7; b >= 0; --b, v >>= 8) bytes[b] = static_cast<char>(v);
  }
  rdb::Slice slice() const { return rdb::Slice(bytes, sizeof(bytes)); }
};

std::vector<uint64_t> KeyCounts(const Settings& s) {
  std::mt19937_64 rng(12);
  std::uniform_real_distribution<double> log_keys(
      std::log(static_cast<double>(s.min_keys)),
      std::log(static_cast<double>(s.max_keys)));
  std::vector<uint64_t> counts;
  for (size_t i = 0; i < s.filters; ++i) {
    counts.push_back(static_cast<uint64_t>(std::exp(log_keys(rng))));
  }
  return counts;
}

// The model FPR of a filter `builder` wrote: ours from the filter itself,
// RocksDB's from its builder (BuiltinFilterBitsBuilder until RocksDB 10.9
// folded it into FilterBitsBuilder).
double ModelFpr(rdb::FilterBitsBuilder* builder, size_t keys,
                const rdb::Slice& filter) {
  FilterView view;
  if (FilterView::Parse(filter.ToStringView(), &view).ok()) {
    return view.EstimatedFpr();
  }
#if SSTFILTER_ROCKSDB_AT_LEAST(10, 9)
  return builder->EstimatedFpRate(keys, filter.size());
#else
  auto* builtin = dynamic_cast<rdb::BuiltinFilterBitsBuilder*>(builder);
  return builtin == nullptr ? 0 : builtin->EstimatedFpRate(keys, filter.size());
#endif
}

size_t UsableOfFresh(size_t bytes) {
  std::unique_ptr<char[]> buffer(new char[bytes]);
  return malloc_usable_size(buffer.get());
}

bool Run(const std::string& id, bool optimize_for_memory,
         const std::vector<uint64_t>& counts, const Settings& s, Totals* out) {
  std::shared_ptr<const rdb::FilterPolicy> policy;
  rdb::ConfigOptions config;
  const rdb::Status made =
      rdb::FilterPolicy::CreateFromString(config, id, &policy);
  if (!made.ok() || policy == nullptr) {
    std::fprintf(stderr, "cannot make %s: %s\n", id.c_str(),
                 made.ToString().c_str());
    return false;
  }
  rdb::BlockBasedTableOptions table_options;
  table_options.optimize_filters_for_memory = optimize_for_memory;
  rdb::FilterBuildingContext context(table_options);
  Totals t;
  for (size_t i = 0; i < counts.size(); ++i) {
    const uint64_t base = static_cast<uint64_t>(i) << 32;
    std::unique_ptr<rdb::FilterBitsBuilder> builder(
        policy->GetBuilderWithContext(context));
    for (uint64_t j = 0; j < counts[i]; ++j) {
      builder->AddKey(Key(base + j).slice());
    }
    std::unique_ptr<const char[]> owner;
    const rdb::Slice filter = builder->Finish(&owner);
    t.keys += counts[i];
    t.disk += filter.size();
    t.built += malloc_usable_size(const_cast<char*>(owner.get()));
    t.cached += UsableOfFresh(filter.size() + kRocksdbBlockTrailerBytes);
    t.model_fpr += ModelFpr(builder.get(), counts[i], filter);
    std::unique_ptr<rdb::FilterBitsReader> reader(
        policy->GetFilterBitsReader(filter));
    for (uint64_t j = 0; j < counts[i]; ++j) {
      t.false_negatives += !reader->MayMatch(Key(base + j).slice());
    }
    for (size_t q = 0; q < s.queries; ++q) {
      t.passed += reader->MayMatch(Key((uint64_t{1} << 63) | base | q).slice());
    }
    t.queries += s.queries;
  }
  *out = t;
  return t.false_negatives == 0;
}

}  // namespace

int MemoryMain(int argc, char** argv) {
  Settings s;
  Flags flags(argc, argv);
  flags.Get("--filters", &s.filters)
      .Get("--queries", &s.queries)
      .Get("--min-keys", &s.min_keys)
      .Get("--max-keys", &s.max_keys);
  if (!flags.Done("[--filters N] [--queries Q] [--min-keys A] [--max-keys B]",
                  s.filters > 0 && s.queries > 0 && s.min_keys > 0 &&
                      s.min_keys <= s.max_keys)) {
    return 2;
  }
  RegisterSstfilterPolicies(*rdb::ObjectLibrary::Default(), "");
  const std::vector<uint64_t> counts = KeyCounts(s);
  std::printf(
      "%zu filters of %llu..%llu keys (log-uniform), %zu absent queries "
      "each\n\n",
      s.filters, static_cast<unsigned long long>(s.min_keys),
      static_cast<unsigned long long>(s.max_keys), s.queries);
  std::printf(
      "| policy | optimize_filters_for_memory | disk bits/key | built "
      "(usable) MiB | cached (usable) MiB | cached x off | FPR %% | FPR x off "
      "| model FPR %% | model x off |\n"
      "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  bool ok = true;
  for (const char* id :
       {"sstfilter.BlockedBloom:10", "sstfilter.Cuckoo:12", "bloomfilter:10"}) {
    Totals off;
    for (bool on : {false, true}) {
      Totals t;
      if (!Run(id, on, counts, s, &t)) {
        std::fprintf(stderr, "%s (option %s): %llu false negatives\n", id,
                     on ? "on" : "off",
                     static_cast<unsigned long long>(t.false_negatives));
        ok = false;
      }
      if (!on) off = t;
      const double fpr = static_cast<double>(t.passed) / t.queries;
      const double off_fpr = static_cast<double>(off.passed) / off.queries;
      std::printf(
          "| %s | %s | %.3f | %.3f | %.3f | %.4f | %.4f | %.4f | %.4f | %.4f "
          "|\n",
          id, on ? "on" : "off", t.disk * 8.0 / t.keys, t.built / 1048576.0,
          t.cached / 1048576.0, static_cast<double>(t.cached) / off.cached,
          fpr * 100, fpr / off_fpr, t.model_fpr / counts.size() * 100,
          t.model_fpr / off.model_fpr);
    }
  }
  return ok ? 0 : 1;
}

}  // namespace sstfilter::bench
