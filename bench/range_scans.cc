// sstfilter-range-scans: short range scans on one real DB, read four ways
// side by side:
//   none     the scan's bounds only (RocksDB prunes files by key range)
//   range    sstfilter.RangeFilter through sstfilter::RangeScanOptions
//   prefix   a prefix Bloom filter (bloomfilter:10 on the first 7 bytes,
//            whole_key_filtering off) with prefix_same_as_start, for the
//            queries that fit one 7-byte prefix; the others read as "none"
//   minmax   RocksDB's SstQueryFilter, the min and max of the key's first
//            8 bytes per SST (RocksDB 9.11 and later; experimental.h)
// All four collectors and filters are on the same DB, so every way reads
// the same tree. Keys are 8-byte big-endian integers:
//   uniform  random 64-bit integers, written in random order
//   series   series s at time t is s << 32 | t, written in time order
// Queries start at a key chosen uniformly or skewed (rank = N * u^4 over a
// fixed permutation of the keys: about half the scans hit a tenth of them):
//   next l   empty [a, a + l) next to a key (uniform: just past one;
//            series: just past a series' last point): the window a scan
//            asks beside its data, which shares the key's prefix
//   any l    empty [a, a + l) anywhere (uniform) or in a random series
//            after a random time past its last point (series)
//   seek10   Seek + 10 Next: from a key to its 11th successor
// For each: data and index blocks per scan (block cache hits + misses,
// RocksDB's statistics: independent of the machine's load), their ratio
// to "none", scans/s (median of --passes), and what each filter holds in
// memory (the table properties RocksDB keeps while a table's reader lives;
// the prefix filter's blocks). Data on disk with use_direct_reads, block
// cache (index blocks included) smaller than the data, dynamic levels.
//
//   sstfilter-range-scans [--keys 2000000] [--workload uniform|series]
//       [--dir DIR] [--reuse] [--scans 2000] [--lengths 1,16,64]
//       [--bits_per_key 12] [--cache_mb 8] [--value_size 100]
//       [--passes 3] [--csv FILE]
//   sstfilter-range-scans --build_cost [--keys N] [--dir DIR] [--passes 3]
//       the collector's cost: one DB filled without any filter, then per
//       pass two copies of it fully compacted (CompactRange, bottommost
//       forced), one with sstfilter.RangeFilter and one without, in
//       alternating order; compaction CPU and wall time (RocksDB's
//       COMPACTION_CPU_TIME and COMPACTION_TIME histograms), medians.
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "rocksdb/cache.h"
#include "rocksdb/db.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/options.h"
#include "rocksdb/slice_transform.h"
#include "rocksdb/statistics.h"
#include "rocksdb/table.h"
#include "rocksdb/table_properties.h"
#include "rocksdb_compat.h"
#include "rocksdb_db_compat.h"
#include "sstfilter/range_filter_rocksdb.h"
#include "sstfilter/rocksdb_plugin.h"
#if SSTFILTER_HAS_SST_QUERY_FILTER
#include "rocksdb/experimental.h"
#endif

namespace {

namespace rdb = ROCKSDB_NAMESPACE;
using Clock = std::chrono::steady_clock;

constexpr size_t kPrefixBytes = 7;

struct Args {
  uint64_t keys = 2000000;
  std::string workload = "uniform";
  std::string dir = "/var/tmp/sstfilter-range-scans";
  bool reuse = false;
  int scans = 2000;
  std::vector<uint64_t> lengths = {1, 16, 64};
  double bits_per_key = 12;
  size_t cache_mb = 8;
  size_t value_size = 100;
  int passes = 3;
  std::string csv;
  bool build_cost = false;
};

[[noreturn]] void Usage(const char* why) {
  std::fprintf(stderr,
               "sstfilter-range-scans: %s\n(see the header of "
               "bench/range_scans.cc)\n",
               why);
  std::exit(2);
}

Args ParseArgs(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) Usage(("no value for " + arg).c_str());
      return argv[++i];
    };
    if (arg == "--keys") {
      args.keys = std::stoull(value());
    } else if (arg == "--workload") {
      args.workload = value();
      if (args.workload != "uniform" && args.workload != "series") {
        Usage("--workload is uniform or series");
      }
    } else if (arg == "--dir") {
      args.dir = value();
    } else if (arg == "--reuse") {
      args.reuse = true;
    } else if (arg == "--scans") {
      args.scans = std::stoi(value());
    } else if (arg == "--lengths") {
      args.lengths.clear();
      const std::string list = value();
      for (size_t at = 0; at < list.size();) {
        const size_t comma = std::min(list.find(',', at), list.size());
        args.lengths.push_back(std::stoull(list.substr(at, comma - at)));
        at = comma + 1;
      }
    } else if (arg == "--bits_per_key") {
      args.bits_per_key = std::stod(value());
    } else if (arg == "--cache_mb") {
      args.cache_mb = std::stoull(value());
    } else if (arg == "--value_size") {
      args.value_size = std::stoull(value());
    } else if (arg == "--passes") {
      args.passes = std::max(1, std::stoi(value()));
    } else if (arg == "--csv") {
      args.csv = value();
    } else if (arg == "--build_cost") {
      args.build_cost = true;
    } else {
      Usage(("unknown argument " + arg).c_str());
    }
  }
  return args;
}

std::string IntKey(uint64_t v) {
  std::string key(8, '\0');
  for (int b = 7; b >= 0; --b, v >>= 8) key[b] = static_cast<char>(v & 0xff);
  return key;
}

void Check(const rdb::Status& s, const char* what) {
  if (!s.ok()) {
    std::fprintf(stderr, "sstfilter-range-scans: %s: %s\n", what,
                 s.ToString().c_str());
    std::exit(1);
  }
}

// The series workload's shape: kSeries series of keys / kSeries points.
constexpr uint64_t kSeries = 2000;

// The DB's keys, sorted, and the order to write them in.
std::vector<uint64_t> MakeKeys(const Args& args, std::vector<uint64_t>* order) {
  std::vector<uint64_t> keys;
  std::mt19937_64 rng(42);
  if (args.workload == "uniform") {
    keys.resize(args.keys);
    for (uint64_t& k : keys) k = rng();
    *order = keys;
  } else {
    const uint64_t times = args.keys / kSeries;
    for (uint64_t t = 0; t < times; ++t) {
      for (uint64_t s = 0; s < kSeries; ++s) order->push_back(s << 32 | t);
    }
    keys = *order;
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

struct Db {
  std::unique_ptr<rdb::DB> db;
  rdb::Options options;
#if SSTFILTER_HAS_SST_QUERY_FILTER
  std::shared_ptr<rdb::experimental::SstQueryFilterConfigsManager::Factory>
      minmax;
#endif
};

Db OpenDb(const Args& args) {
  Db d;
  rdb::Options& o = d.options;
  o.create_if_missing = true;
  o.statistics = rdb::CreateDBStatistics();
  o.use_direct_reads = true;
  o.level_compaction_dynamic_level_bytes = true;
  o.compression = rdb::kNoCompression;
  o.write_buffer_size = 16 << 20;
  o.target_file_size_base = 8 << 20;
  o.max_bytes_for_level_base = 32 << 20;
  o.max_background_jobs = 2;
  o.prefix_extractor.reset(rdb::NewFixedPrefixTransform(kPrefixBytes));
  rdb::BlockBasedTableOptions table;
  table.block_cache = rdb::NewLRUCache(args.cache_mb << 20);
  table.cache_index_and_filter_blocks = true;
  table.whole_key_filtering = false;
  table.filter_policy.reset(rdb::NewBloomFilterPolicy(10));
  o.table_factory.reset(rdb::NewBlockBasedTableFactory(table));
  std::shared_ptr<rdb::TablePropertiesCollectorFactory> range;
  sstfilter::RangeFilterOptions range_options;
  range_options.bits_per_key = args.bits_per_key;
  Check(sstfilter::NewRangeFilterCollectorFactory(range_options, &range),
        "range filter options");
  o.table_properties_collector_factories.push_back(range);
#if SSTFILTER_HAS_SST_QUERY_FILTER
  namespace exp = rdb::experimental;
  exp::SstQueryFilterConfigs configs;
  configs.extractor = exp::MakeSharedCappedKeySegmentsExtractor({8});
  configs.filters.push_back(
      exp::MakeSharedBytewiseMinMaxSQFC(exp::SelectKeySegment(0)));
  std::shared_ptr<exp::SstQueryFilterConfigsManager> manager;
  Check(exp::SstQueryFilterConfigsManager::MakeShared(
            {{1, {{"bench", configs}}}}, &manager),
        "SstQueryFilter configs");
  Check(manager->MakeSharedFactory("bench", 1, &d.minmax),
        "SstQueryFilter factory");
  o.table_properties_collector_factories.push_back(d.minmax);
#endif
  Check(sstfilter::rocksdb_compat::OpenDb(o, args.dir, &d.db), "open");
  return d;
}

void Fill(Db& d, const Args& args, const std::vector<uint64_t>& order) {
  std::mt19937_64 rng(7);
  std::string value(args.value_size, '\0');
  rdb::WriteOptions wo;
  wo.disableWAL = true;
  const auto start = Clock::now();
  for (uint64_t k : order) {
    for (char& c : value) c = static_cast<char>(rng());
    Check(d.db->Put(wo, IntKey(k), value), "put");
  }
  Check(d.db->Flush(rdb::FlushOptions()), "flush");
  Check(sstfilter::rocksdb_compat::WaitForCompactions(d.db.get()), "wait");
  std::printf("filled %zu keys in %.1f s\n", order.size(),
              std::chrono::duration<double>(Clock::now() - start).count());
}

struct Query {
  std::string lower, upper;
  bool fits_prefix = false;
  int expect = 0;  // keys in the range (up to 11)
};

// args.scans queries of `kind` ("next" or "any" of `length`, or
// "seek10").
std::vector<Query> MakeQueries(const Args& args,
                               const std::vector<uint64_t>& keys,
                               const std::string& kind, uint64_t length,
                               bool skewed, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<Query> queries;
  const uint64_t n = keys.size();
  while (queries.size() < static_cast<size_t>(args.scans)) {
    uint64_t rank =
        skewed ? static_cast<uint64_t>(n * std::pow(unit(rng), 4)) : rng() % n;
    // A fixed permutation spreads the hot ranks over the key space.
    if (skewed) rank = (rank * 0x9E3779B97F4A7C15ULL) % n;
    uint64_t lo = 0, hi = 0;
    Query q;
    if (kind == "seek10") {
      if (rank + 11 >= n) continue;
      lo = keys[rank];
      hi = keys[rank + 11];
      q.expect = 11;
    } else if (args.workload == "uniform") {
      lo = kind == "next" ? keys[rank] + 1 : rng();
      hi = lo + length;
    } else {
      // Past the last point of the key's series: the next window, or one
      // a random time later.
      const uint64_t series = keys[rank] >> 32;
      const uint64_t last = *(std::upper_bound(keys.begin(), keys.end(),
                                               (series << 32) | 0xffffffffULL) -
                              1);
      lo = last + 1 + (kind == "next" ? rng() % 64 : rng() % (1u << 24));
      hi = lo + length;
    }
    if (hi <= lo) continue;
    if (kind != "seek10") {  // checked empty
      const auto next = std::lower_bound(keys.begin(), keys.end(), lo);
      if (next != keys.end() && *next < hi) continue;  // not empty
    }
    q.lower = IntKey(lo);
    q.upper = IntKey(hi);
    q.fits_prefix = (lo >> 8) == ((hi - 1) >> 8);
    queries.push_back(std::move(q));
  }
  return queries;
}

struct Cost {
  uint64_t data = 0, index = 0;
};
Cost Blocks(rdb::Statistics& stats) {
  return {stats.getTickerCount(rdb::BLOCK_CACHE_DATA_HIT) +
              stats.getTickerCount(rdb::BLOCK_CACHE_DATA_MISS),
          stats.getTickerCount(rdb::BLOCK_CACHE_INDEX_HIT) +
              stats.getTickerCount(rdb::BLOCK_CACHE_INDEX_MISS)};
}

const char* const kModes[] = {"none", "range", "prefix", "minmax"};

// Runs `queries` in `mode`; false if the mode does not exist here.
bool RunScans(Db& d, const std::vector<Query>& queries, const char* mode,
              Cost* cost, double* seconds) {
  const std::string m = mode;
#if !SSTFILTER_HAS_SST_QUERY_FILTER
  if (m == "minmax") return false;
#endif
  rdb::Statistics& stats = *d.options.statistics;
  const Cost before = Blocks(stats);
  const auto start = Clock::now();
  for (const Query& q : queries) {
    rdb::ReadOptions base;
    base.total_order_seek = true;
    if (m == "prefix" && q.fits_prefix) {
      base.total_order_seek = false;
      base.prefix_same_as_start = true;
    }
    sstfilter::RangeScanOptions scan(q.lower, q.upper, base);
    rdb::ReadOptions ro = scan.read_options();
    if (m != "range") ro.table_filter = nullptr;
#if SSTFILTER_HAS_SST_QUERY_FILTER
    if (m == "minmax") {
      ro.table_filter = d.minmax->GetTableFilterForRangeQuery(
          *ro.iterate_lower_bound, *ro.iterate_upper_bound);
    }
#endif
    std::unique_ptr<rdb::Iterator> it(d.db->NewIterator(ro));
    int found = 0;
    for (it->SeekToFirst(); it->Valid() && found < 11; it->Next()) ++found;
    Check(it->status(), "scan");
    if (found != q.expect) {
      std::fprintf(stderr, "sstfilter-range-scans: %s found %d keys, not %d\n",
                   mode, found, q.expect);
      std::exit(1);
    }
  }
  *seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const Cost after = Blocks(stats);
  cost->data = after.data - before.data;
  cost->index = after.index - before.index;
  return true;
}

// Bytes of the named user property over every live table, and of the
// tables' filter blocks.
void ReportMemory(Db& d, uint64_t keys) {
  rdb::TablePropertiesCollection tables;
  Check(d.db->GetPropertiesOfAllTables(&tables), "table properties");
  uint64_t range = 0, minmax = 0, prefix = 0;
  for (const auto& [name, props] : tables) {
    const auto& user = props->user_collected_properties;
    const auto r = user.find(sstfilter::kRangeFilterProperty);
    if (r != user.end()) range += r->second.size();
    const auto m = user.find("rocksdb.sqfc");
    if (m != user.end()) minmax += m->second.size();
    prefix += props->filter_size;
  }
  uint64_t readers = 0;
  d.db->GetIntProperty("rocksdb.estimate-table-readers-mem", &readers);
  std::printf("memory: range filters %" PRIu64
              " bytes (%.2f bits/key), SstQueryFilter "
              "%" PRIu64 " bytes, prefix Bloom blocks %" PRIu64
              " bytes (%.2f "
              "bits/key); table readers in all %" PRIu64 " bytes; %zu tables\n",
              range, 8.0 * range / keys, minmax, prefix, 8.0 * prefix / keys,
              readers, tables.size());
}

// Options of the build-cost DBs: those of OpenDb less its filters.
rdb::Options PlainOptions() {
  rdb::Options o;
  o.create_if_missing = true;
  o.statistics = rdb::CreateDBStatistics();
  o.level_compaction_dynamic_level_bytes = true;
  o.compression = rdb::kNoCompression;
  o.write_buffer_size = 16 << 20;
  o.target_file_size_base = 8 << 20;
  o.max_bytes_for_level_base = 32 << 20;
  o.max_background_jobs = 2;
  return o;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int BuildCost(const Args& args, const std::vector<uint64_t>& order) {
  namespace fs = std::filesystem;
  const std::string base = args.dir + "/base";
  std::error_code ignored;
  fs::remove_all(args.dir, ignored);
  fs::create_directories(args.dir);
  {
    Db d;
    d.options = PlainOptions();
    Check(sstfilter::rocksdb_compat::OpenDb(d.options, base, &d.db), "open");
    Fill(d, args, order);
  }
  std::map<bool, std::vector<double>> cpu, wall;
  for (int pass = 0; pass < args.passes; ++pass) {
    for (int i = 0; i < 2; ++i) {
      const bool with = (pass + i) % 2 == 0;
      const std::string copy = args.dir + "/copy";
      fs::remove_all(copy, ignored);
      fs::copy(base, copy);
      rdb::Options o = PlainOptions();
      if (with) {
        std::shared_ptr<rdb::TablePropertiesCollectorFactory> range;
        sstfilter::RangeFilterOptions range_options;
        range_options.bits_per_key = args.bits_per_key;
        Check(sstfilter::NewRangeFilterCollectorFactory(range_options, &range),
              "range filter options");
        o.table_properties_collector_factories.push_back(range);
      }
      std::unique_ptr<rdb::DB> db;
      Check(sstfilter::rocksdb_compat::OpenDb(o, copy, &db), "open copy");
      rdb::CompactRangeOptions compact;
      compact.bottommost_level_compaction =
          rdb::BottommostLevelCompaction::kForce;
      Check(db->CompactRange(compact, nullptr, nullptr), "compact");
      rdb::HistogramData cpu_data, wall_data;
      o.statistics->histogramData(rdb::COMPACTION_CPU_TIME, &cpu_data);
      o.statistics->histogramData(rdb::COMPACTION_TIME, &wall_data);
      cpu[with].push_back(cpu_data.sum / 1e6);
      wall[with].push_back(wall_data.sum / 1e6);
      std::printf("pass %d %-22s compaction cpu %.2f s, wall %.2f s\n", pass,
                  with ? "with the collector:" : "without:", cpu[with].back(),
                  wall[with].back());
    }
  }
  std::printf(
      "median compaction cpu: %.2f s with, %.2f s without (%.3fx); wall "
      "%.2f s with, %.2f s without (%.3fx)\n",
      Median(cpu[true]), Median(cpu[false]),
      Median(cpu[true]) / Median(cpu[false]), Median(wall[true]),
      Median(wall[false]), Median(wall[true]) / Median(wall[false]));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = ParseArgs(argc, argv);
  RegisterSstfilterPolicies(*rdb::ObjectLibrary::Default(), "");
  std::vector<uint64_t> order;
  const std::vector<uint64_t> keys = MakeKeys(args, &order);
  if (args.build_cost) return BuildCost(args, order);
  if (!args.reuse) {
    std::error_code ignored;
    std::filesystem::remove_all(args.dir, ignored);
  }
  Db d = OpenDb(args);
  if (!args.reuse) Fill(d, args, order);
  std::vector<uint64_t>().swap(order);
  std::string levels;
  d.db->GetProperty("rocksdb.levelstats", &levels);
  std::printf(
      "RocksDB %d.%d.%d, workload %s, %zu keys, block cache %zu MiB\n%s",
      ROCKSDB_MAJOR, ROCKSDB_MINOR, ROCKSDB_PATCH, args.workload.c_str(),
      keys.size(), args.cache_mb, levels.c_str());
  ReportMemory(d, keys.size());

  FILE* csv = args.csv.empty() ? nullptr : std::fopen(args.csv.c_str(), "w");
  if (csv != nullptr) {
    std::fprintf(csv,
                 "rocksdb,workload,queries,kind,length,mode,fit_prefix,"
                 "data_per_scan,index_per_scan,data_ratio,scans_per_s\n");
  }
  std::printf("%-8s %-7s %-4s %-7s %9s %9s %8s %11s %6s\n", "queries", "kind",
              "l", "mode", "data/scan", "index/sc", "vs none", "scans/s",
              "prefix");
  std::vector<std::pair<std::string, uint64_t>> kinds;
  for (const char* kind : {"next", "any"}) {
    for (uint64_t length : args.lengths) kinds.emplace_back(kind, length);
  }
  kinds.emplace_back("seek10", 0);
  uint64_t seed = 1;
  for (bool skewed : {false, true}) {
    for (const auto& [kind, length] : kinds) {
      const std::vector<Query> queries =
          MakeQueries(args, keys, kind, length, skewed, seed++);
      const size_t fit =
          std::count_if(queries.begin(), queries.end(),
                        [](const Query& q) { return q.fits_prefix; });
      // Passes outside, modes inside: each mode meets the cache as the
      // others leave it.
      std::map<std::string, std::vector<double>> rates;
      std::map<std::string, Cost> costs;
      for (int pass = 0; pass < args.passes; ++pass) {
        for (const char* mode : kModes) {
          double seconds = 0;
          Cost cost;
          if (!RunScans(d, queries, mode, &cost, &seconds)) continue;
          rates[mode].push_back(queries.size() / seconds);
          costs[mode] = cost;
        }
      }
      const double none_data = double(costs["none"].data) / queries.size();
      for (const char* mode : kModes) {
        if (rates.count(mode) == 0) continue;
        std::vector<double>& r = rates[mode];
        std::sort(r.begin(), r.end());
        const double rate = r[r.size() / 2];
        const double data = double(costs[mode].data) / queries.size();
        const double index = double(costs[mode].index) / queries.size();
        const double ratio = none_data > 0 ? data / none_data : 0;
        const std::string l = kind == "seek10" ? "-" : std::to_string(length);
        std::printf("%-8s %-7s %-4s %-7s %9.3f %9.3f %8.3f %11.0f %5.0f%%\n",
                    skewed ? "skewed" : "uniform", kind.c_str(), l.c_str(),
                    mode, data, index, ratio, rate,
                    100.0 * fit / queries.size());
        if (csv != nullptr) {
          std::fprintf(csv,
                       "%d.%d.%d,%s,%s,%s,%" PRIu64
                       ",%s,%.4f,%.4f,%.4f,"
                       "%.5f,%.1f\n",
                       ROCKSDB_MAJOR, ROCKSDB_MINOR, ROCKSDB_PATCH,
                       args.workload.c_str(), skewed ? "skewed" : "uniform",
                       kind.c_str(), length, mode, double(fit) / queries.size(),
                       data, index, ratio, rate);
        }
      }
    }
  }
  if (csv != nullptr) std::fclose(csv);
  return 0;
}
