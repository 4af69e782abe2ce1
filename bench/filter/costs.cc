// sstfilter-filter-bench costs: the measurements behind the constants of
// LevelAware's cost model (rocksdb_plugin/src/level_cost_model.cc). For
// each of the four kinds a level may get (BlockedBloom, Cuckoo, and
// RocksDB's FastLocalBloom and Standard128Ribbon, each through its policy's
// GetBuilderWithContext / AddKey / Finish, as a table builder calls them),
// at several sizes: build time per key, stored bits/key, measured FPR, and
// absent-key MayMatch time, single and batched, on one cache-resident
// filter. Then, per kind, the least-squares line build ns/key = a + c *
// bits/key that the model uses. Medians of --repeats builds, the kinds
// interleaved. It asserts nothing about time; it fails only on a false
// negative or a policy it cannot make.
//
// usage: sstfilter-filter-bench costs [--keys N] [--repeats R] [--smoke]
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "compare_measure.h"
#include "flags.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/object_registry.h"
#include "scenarios.h"
#include "sstfilter/rocksdb_plugin.h"

namespace sstfilter::bench {
namespace {

struct Kind {
  const char* name;
  std::vector<std::string> ids;  // sizes to measure
};

struct Point {
  double bits_per_key = 0;
  double build_ns = 0;
  double fpr = 0;
  double query_ns = 0;
  double batched_ns = 0;
};

}  // namespace

int CostsMain(int argc, char** argv) {
  uint64_t num_keys = 100000;
  int repeats = 5;
  uint64_t num_absent = 1 << 20;
  Flags flags(argc, argv);
  if (flags.Switch("--smoke")) {
    num_keys = 2000;
    repeats = 1;
    num_absent = 20000;
  }
  flags.Get("--keys", &num_keys).Get("--repeats", &repeats);
  if (!flags.Done("[--keys N] [--repeats R] [--smoke]",
                  num_keys > 0 && repeats > 0)) {
    return 2;
  }
  // Ribbon at -1: Ribbon for every SST file (ribbonfilter's default, 0, would
  // build Bloom for the flush contexts, which this tool does not use).
  const std::vector<Kind> kinds = {
      {"FastLocalBloom",
       {"bloomfilter:4", "bloomfilter:7", "bloomfilter:10", "bloomfilter:14",
        "bloomfilter:18", "bloomfilter:24"}},
      {"Ribbon",
       {"ribbonfilter:6:-1", "ribbonfilter:10:-1", "ribbonfilter:15:-1",
        "ribbonfilter:20:-1", "ribbonfilter:26:-1", "ribbonfilter:33:-1"}},
      {"BlockedBloom",
       {"sstfilter.BlockedBloom:4", "sstfilter.BlockedBloom:7",
        "sstfilter.BlockedBloom:10", "sstfilter.BlockedBloom:14",
        "sstfilter.BlockedBloom:18", "sstfilter.BlockedBloom:24"}},
      {"Cuckoo",
       {"sstfilter.Cuckoo:7", "sstfilter.Cuckoo:10", "sstfilter.Cuckoo:13",
        "sstfilter.Cuckoo:17", "sstfilter.Cuckoo:21", "sstfilter.Cuckoo:25"}},
  };
  // Registering twice (a RocksDB built with the plugin registers at start)
  // is harmless: the later factory answers.
  RegisterSstfilterPolicies(*rdb::ObjectLibrary::Default(), "");
  rdb::BlockBasedTableOptions table_options;
  rdb::FilterBuildingContext context(table_options);
  context.compaction_style = rdb::kCompactionStyleLevel;
  context.num_levels = 7;
  context.level_at_creation = 5;
  context.reason = rdb::TableFileCreationReason::kCompaction;

  const KeyList keys = MakeKeys(kPresent, 0, num_keys);
  KeyList absent = MakeKeys(kAbsent, 0, num_absent);

  std::printf(
      "sstfilter-filter-bench costs: %llu keys per filter, medians of %d "
      "builds\n\n",
      static_cast<unsigned long long>(num_keys), repeats);
  std::printf(
      "| kind | policy | bits/key | FPR %% | build ns/key | absent MayMatch "
      "ns | batched ns/key |\n|---|---|---:|---:|---:|---:|---:|\n");
  std::vector<std::vector<Point>> points(kinds.size());
  for (size_t k = 0; k < kinds.size(); ++k) {
    for (const std::string& id : kinds[k].ids) {
      Subject subject;
      if (!SubjectOfPolicy(kinds[k].name, id, &subject)) continue;
      std::vector<double> builds;
      Filter filter;
      for (int r = 0; r < repeats; ++r) {
        builds.push_back(BuildFilter(subject, context, keys, &filter) /
                         static_cast<double>(num_keys));
      }
      for (size_t i = 0; i < keys.size(); ++i) {
        if (!filter.reader->MayMatch(keys[i])) {
          Fail(id + ": false negative");
          break;
        }
      }
      Point p;
      p.bits_per_key = filter.BitsPerKey();
      p.build_ns = Median(builds);
      uint64_t positives = 0;
      std::vector<double> singles, batches;
      for (int r = 0; r < repeats; ++r) {
        positives = 0;
        Clock::time_point start = Clock::now();
        for (size_t i = 0; i < absent.size(); ++i) {
          positives += filter.reader->MayMatch(absent[i]);
        }
        singles.push_back(NanosSince(start) / absent.size());
        bool may_match[kBatch];
        start = Clock::now();
        for (size_t i = 0; i + kBatch <= absent.size(); i += kBatch) {
          filter.reader->MayMatch(kBatch, absent.pointers(i), may_match);
        }
        batches.push_back(NanosSince(start) / absent.size());
      }
      p.fpr = static_cast<double>(positives) / absent.size();
      p.query_ns = Median(singles);
      p.batched_ns = Median(batches);
      points[k].push_back(p);
      std::printf("| %s | %s | %.3f | %.4f | %.1f | %.1f | %.1f |\n",
                  kinds[k].name, id.c_str(), p.bits_per_key, 100 * p.fpr,
                  p.build_ns, p.query_ns, p.batched_ns);
    }
  }
  std::printf(
      "\nbuild ns/key = a + c * bits/key (least squares):\n\n| kind | a | c "
      "|\n|---|---:|---:|\n");
  for (size_t k = 0; k < kinds.size(); ++k) {
    double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const Point& p : points[k]) {
      n += 1;
      sx += p.bits_per_key;
      sy += p.build_ns;
      sxx += p.bits_per_key * p.bits_per_key;
      sxy += p.bits_per_key * p.build_ns;
    }
    if (n < 2) continue;
    const double c = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    const double a = (sy - c * sx) / n;
    std::printf("| %s | %.2f | %.3f |\n", kinds[k].name, a, c);
  }
  return Failed() ? 1 : 0;
}

}  // namespace sstfilter::bench
