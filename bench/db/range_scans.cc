// sstfilter-db-bench range-scans: short range scans on one DB, read four
// ways side by side:
//   none     the scan's bounds only (RocksDB prunes files by key range)
//   range    sstfilter.RangeFilter through sstfilter::RangeScanOptions
//   prefix   a prefix Bloom filter (bloomfilter:10 on the first 7 bytes,
//            whole_key_filtering off) with prefix_same_as_start, for the
//            queries that fit one 7-byte prefix; the others read as "none"
//   minmax   RocksDB's SstQueryFilter, the min and max of the key's first
//            8 bytes per SST file (RocksDB 9.11 and later; experimental.h)
// Every collector and filter is on the same DB, so every way reads the
// same tree. Keys are 8-byte big-endian integers:
//   uniform  random 64-bit integers, written in random order
//   series   series s at time t is s << 32 | x_t, written in time order:
//            x_0 = 0, then each point --gap MIN,MAX past the one before
//            (uniform; default 1,1: x_t = t)
// Queries start at a key chosen uniformly or skewed (rank = N * u^4 over a
// fixed permutation of the keys: about half the scans hit a tenth of them):
//   next l   empty [a, a + l) next to a key (uniform: just past one;
//            series: just past a series' last point): the window a scan
//            asks beside its data, which shares the key's prefix
//   any l    empty [a, a + l) anywhere (uniform) or in a random series
//            after a random time past its last point (series)
//   seek10   Seek + 10 Next: from a key to its 11th successor
// For each: data and index blocks per scan (block cache hits + misses,
// RocksDB's statistics: independent of the machine's load), the data
// blocks' ratio to "none", scans/s (median of --passes), and what each
// filter holds in memory (the table properties RocksDB keeps while an SST
// file's reader lives; the prefix filter's blocks). Data on disk with
// use_direct_reads (a file system that takes O_DIRECT: not tmpfs), a block
// cache (index blocks included) smaller than the data, dynamic levels.
//
// --build-cost measures the collector instead: one DB filled without any
// filter, then per pass two copies of it fully compacted (CompactRange,
// bottommost forced), one with sstfilter.RangeFilter and one without, in
// alternating order; compaction CPU and wall time (RocksDB's
// COMPACTION_CPU_TIME and COMPACTION_TIME histograms), medians.
//
// Prints one line "RESULT key=value ..." per query set and way, one for the
// DB (its SST files, what each filter holds); with --build-cost, one of the
// compactions. Exits 1 if a scan finds another number of keys than the DB
// holds in its range (a skipped file that held one), or the DB fails; 2 on
// bad arguments.
#include <algorithm>
#include <charconv>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "db.h"
#include "flags.h"
#include "results.h"
#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "rocksdb/statistics.h"
#include "rocksdb/table_properties.h"
#include "rocksdb/version.h"
#include "rocksdb_compat.h"
#include "rocksdb_db_compat.h"
#include "scenarios.h"
#include "sstfilter/range_filter_rocksdb.h"
#if SSTFILTER_HAS_SST_QUERY_FILTER
#include "rocksdb/experimental.h"
#endif

namespace sstfilter::bench {
namespace {

namespace fs = std::filesystem;

constexpr char kTool[] = "sstfilter-db-bench range-scans";
constexpr size_t kPrefixBytes = 7;
// The series workload's shape: kSeries series of --num / kSeries points.
constexpr uint64_t kSeries = 2000;
// A scan reads at most this many keys: seek10's, the 11 from its start.
constexpr int kMaxScanKeys = 11;

struct Args {
  std::string workload = "uniform";
  uint64_t num_keys = 2'000'000;
  int scans = 2000;
  std::vector<uint64_t> lengths = {1, 16, 64};
  double bits_per_key = 12;
  uint64_t cache_mb = 8;
  uint64_t value_size = 100;
  int passes = 3;
  bool build_cost = false;
  std::string db_dir;  // default: a temporary directory
  bool keep_db = false;
  uint64_t gap_min = 1, gap_max = 1;  // series: integers between points
};

// Every DB here: 16 MiB write buffers, 8 MiB SST files, a 32 MiB level
// base, dynamic levels, no compression, two background jobs; with the
// range filter's collector at `bits_per_key` unless 0.
std::string ShapeOptions(double bits_per_key) {
  std::string text =
      "create_if_missing=true;write_buffer_size=16777216;"
      "target_file_size_base=8388608;max_bytes_for_level_base=33554432;"
      "level_compaction_dynamic_level_bytes=true;compression=kNoCompression;"
      "max_background_jobs=2;";
  if (bits_per_key > 0) {
    char collector[128];
    std::snprintf(collector, sizeof(collector),
                  "table_properties_collectors={id=%s;bits_per_key=%g};",
                  kRangeFilterName, bits_per_key);
    text += collector;
  }
  return text;
}

// The DB's keys, sorted, and the order to write them in.
std::vector<uint64_t> MakeKeys(const Args& args, std::vector<uint64_t>* order) {
  std::vector<uint64_t> keys;
  std::mt19937_64 rng(42);
  if (args.workload == "uniform") {
    keys.resize(args.num_keys);
    for (uint64_t& k : keys) k = rng();
    *order = keys;
  } else {
    const uint64_t times = args.num_keys / kSeries;
    std::vector<uint64_t> point(kSeries, 0);
    for (uint64_t t = 0; t < times; ++t) {
      for (uint64_t s = 0; s < kSeries; ++s) {
        order->push_back(s << 32 | point[s]);
        point[s] += args.gap_min + rng() % (args.gap_max - args.gap_min + 1);
      }
    }
    keys = *order;
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

struct ScanDb {
  std::unique_ptr<rdb::DB> db;
  std::shared_ptr<rdb::Statistics> stats;
#if SSTFILTER_HAS_SST_QUERY_FILTER
  std::shared_ptr<rdb::experimental::SstQueryFilterConfigsManager::Factory>
      minmax;
#endif
};

// The scans' DB: every filter of the header on it, the data read from disk
// through a block cache of --cache-mb.
rdb::Status OpenScanDb(const Args& args, ScanDb* d) {
  rdb::Options options;
  rdb::Status s = OptionsFromString(
      ShapeOptions(args.bits_per_key) +
          "use_direct_reads=true;prefix_extractor=rocksdb.FixedPrefix." +
          std::to_string(kPrefixBytes) +
          ";block_based_table_factory={filter_policy=bloomfilter:10;"
          "whole_key_filtering=false;cache_index_and_filter_blocks=true;"
          "block_cache=" +
          std::to_string(args.cache_mb * kMiB) + "}",
      &options);
  if (!s.ok()) return s;
  options.statistics = d->stats = rdb::CreateDBStatistics();
#if SSTFILTER_HAS_SST_QUERY_FILTER
  namespace exp = rdb::experimental;
  exp::SstQueryFilterConfigs configs;
  configs.extractor = exp::MakeSharedCappedKeySegmentsExtractor({8});
  configs.filters.push_back(
      exp::MakeSharedBytewiseMinMaxSQFC(exp::SelectKeySegment(0)));
  std::shared_ptr<exp::SstQueryFilterConfigsManager> manager;
  s = exp::SstQueryFilterConfigsManager::MakeShared({{1, {{"bench", configs}}}},
                                                    &manager);
  if (s.ok()) s = manager->MakeSharedFactory("bench", 1, &d->minmax);
  if (!s.ok()) return s;
  options.table_properties_collector_factories.push_back(d->minmax);
#endif
  return rocksdb_compat::OpenDb(options, args.db_dir, &d->db);
}

// Writes `order` with random values, flushes and waits for the
// compactions.
rdb::Status Fill(rdb::DB* db, const Args& args,
                 const std::vector<uint64_t>& order) {
  std::mt19937_64 rng(7);
  std::string value(args.value_size, '\0');
  rdb::WriteOptions write_options;
  write_options.disableWAL = true;
  for (uint64_t k : order) {
    for (char& c : value) c = static_cast<char>(rng());
    rdb::Status s = db->Put(write_options, BigEndianKey(k), value);
    if (!s.ok()) return s;
  }
  rdb::Status s = db->Flush(rdb::FlushOptions());
  return s.ok() ? rocksdb_compat::WaitForCompactions(db) : s;
}

struct Query {
  std::string lower, upper;
  bool fits_prefix = false;
  int expect = 0;  // keys in the range (up to kMaxScanKeys)
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
    uint64_t lo = 0;
    uint64_t hi = 0;
    Query q;
    if (kind == "seek10") {
      if (rank + kMaxScanKeys >= n) continue;
      lo = keys[rank];
      hi = keys[rank + kMaxScanKeys];
      q.expect = kMaxScanKeys;
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
    q.lower = BigEndianKey(lo);
    q.upper = BigEndianKey(hi);
    q.fits_prefix = (lo >> 8) == ((hi - 1) >> 8);
    queries.push_back(std::move(q));
  }
  return queries;
}

const char* const kModes[] = {"none", "range", "prefix", "minmax"};

bool ModeExists(const std::string& mode) {
  return SSTFILTER_HAS_SST_QUERY_FILTER || mode != "minmax";
}

// Runs `queries` in `mode`: their blocks read and seconds.
rdb::Status RunScans(ScanDb& d, const std::vector<Query>& queries,
                     const std::string& mode, ReadCosts* costs,
                     double* seconds) {
  (void)TakeReadCosts(*d.stats);
  const Clock::time_point start = Clock::now();
  for (const Query& q : queries) {
    rdb::ReadOptions base;
    base.total_order_seek = true;
    if (mode == "prefix" && q.fits_prefix) {
      base.total_order_seek = false;
      base.prefix_same_as_start = true;
    }
    RangeScanOptions scan(q.lower, q.upper, base);
    rdb::ReadOptions read_options = scan.read_options();
    if (mode != "range") read_options.table_filter = nullptr;
#if SSTFILTER_HAS_SST_QUERY_FILTER
    if (mode == "minmax") {
      read_options.table_filter = d.minmax->GetTableFilterForRangeQuery(
          *read_options.iterate_lower_bound, *read_options.iterate_upper_bound);
    }
#endif
    std::unique_ptr<rdb::Iterator> it(d.db->NewIterator(read_options));
    int found = 0;
    for (it->SeekToFirst(); it->Valid() && found < kMaxScanKeys; it->Next()) {
      ++found;
    }
    if (!it->status().ok()) return it->status();
    if (found != q.expect) {
      return rdb::Status::Corruption(mode + " found " + std::to_string(found) +
                                     " keys, not " + std::to_string(q.expect));
    }
  }
  *seconds = Seconds(start);
  *costs = TakeReadCosts(*d.stats);
  return rdb::Status::OK();
}

// Bytes of the user properties `is_counted` takes over every live SST file.
template <typename NamePredicate>
uint64_t UserPropertyBytes(const rdb::TablePropertiesCollection& files,
                           NamePredicate is_counted) {
  uint64_t bytes = 0;
  for (const auto& [file, properties] : files) {
    for (const auto& [name, value] : properties->user_collected_properties) {
      if (is_counted(name)) bytes += value.size();
    }
  }
  return bytes;
}

// The DB's SST files and what each filter holds.
rdb::Status ReportDb(const ScanDb& d, const Args& args, uint64_t num_keys,
                     double fill_seconds) {
  Tree tree;
  rdb::TablePropertiesCollection files;
  rdb::Status s = DescribeTree(d.db.get(), &tree);
  if (s.ok()) s = d.db->GetPropertiesOfAllTables(&files);
  if (!s.ok()) return s;
  const uint64_t range = UserPropertyBytes(files, IsRangeFilterProperty);
  uint64_t readers = 0;
  d.db->GetIntProperty("rocksdb.estimate-table-readers-mem", &readers);
  ResultLine()
      .RocksdbVersion(ROCKSDB_MAJOR, ROCKSDB_MINOR, ROCKSDB_PATCH)
      .Text("workload", args.workload)
      .Int("keys", num_keys)
      .Int("cache_mb", args.cache_mb)
      .Int("sst_files", files.size())
      .Text("files", tree.files_per_level)
      .Int("range_bytes", range)
      .Real("range_bits_per_key", BitsPerKey(range, num_keys), 2)
      .Int("minmax_bytes", UserPropertyBytes(files,
                                             [](const std::string& name) {
                                               return name == "rocksdb.sqfc";
                                             }))
      .Int("prefix_bytes", tree.filter_bytes)
      .Real("prefix_bits_per_key", BitsPerKey(tree.filter_bytes, num_keys), 2)
      .Int("readers_bytes", readers)
      .Real("fill_s", fill_seconds, 1)
      .Print();
  return rdb::Status::OK();
}

int Scans(const Args& args) {
  std::vector<uint64_t> order;
  const std::vector<uint64_t> keys = MakeKeys(args, &order);
  ScanDb d;
  rdb::Status s = OpenScanDb(args, &d);
  if (!s.ok()) return Fail(kTool, "open", s);
  const Clock::time_point start = Clock::now();
  s = Fill(d.db.get(), args, order);
  if (!s.ok()) return Fail(kTool, "fill", s);
  std::vector<uint64_t>().swap(order);
  s = ReportDb(d, args, keys.size(), Seconds(start));
  if (!s.ok()) return Fail(kTool, "table properties", s);

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
      const auto num_queries = static_cast<double>(queries.size());
      const double fit =
          std::count_if(queries.begin(), queries.end(),
                        [](const Query& q) { return q.fits_prefix; }) /
          num_queries;
      // Passes outside, modes inside: each mode meets the cache as the
      // others leave it. A query set's blocks are the same every pass.
      std::map<std::string, std::vector<double>> rates;
      std::map<std::string, ReadCosts> costs;
      for (int pass = 0; pass < args.passes; ++pass) {
        for (const std::string mode : kModes) {
          if (!ModeExists(mode)) continue;
          double seconds = 0;
          s = RunScans(d, queries, mode, &costs[mode], &seconds);
          if (!s.ok()) return Fail(kTool, "scan", s);
          rates[mode].push_back(num_queries / seconds);
        }
      }
      const double none_data = costs["none"].data_reads / num_queries;
      for (const std::string mode : kModes) {
        if (!ModeExists(mode)) continue;
        const double data = costs[mode].data_reads / num_queries;
        ResultLine()
            .RocksdbVersion(ROCKSDB_MAJOR, ROCKSDB_MINOR, ROCKSDB_PATCH)
            .Text("workload", args.workload)
            .Text("queries", skewed ? "skewed" : "uniform")
            .Text("kind", kind)
            .Int("length", length)
            .Text("mode", mode)
            .Real("fit_prefix", fit, 4)
            .Real("data_per_scan", data, 4)
            .Real("index_per_scan", costs[mode].index_reads / num_queries, 4)
            .Real("data_ratio", none_data > 0 ? data / none_data : 0, 5)
            .Real("scans_per_s", Median(rates[mode]), 1)
            .Print();
      }
    }
  }
  return 0;
}

// "a,b,c" of `values` with `decimals`.
std::string List(const std::vector<double>& values, int decimals) {
  std::string list;
  char buf[32];
  for (double value : values) {
    std::snprintf(buf, sizeof(buf), "%s%.*f", list.empty() ? "" : ",", decimals,
                  value);
    list += buf;
  }
  return list;
}

int BuildCost(const Args& args) {
  std::vector<uint64_t> order;
  (void)MakeKeys(args, &order);
  const std::string base = args.db_dir + "/base";
  const std::string copy = args.db_dir + "/copy";
  rdb::Options options;
  rdb::Status s = OptionsFromString(ShapeOptions(0), &options);
  if (s.ok()) {
    std::unique_ptr<rdb::DB> db;
    s = rocksdb_compat::OpenDb(options, base, &db);
    if (s.ok()) s = Fill(db.get(), args, order);
    if (s.ok()) s = db->Close();
  }
  if (!s.ok()) return Fail(kTool, "fill", s);
  // [with the collector]: compaction CPU and wall seconds per pass.
  std::vector<double> cpu[2];
  std::vector<double> wall[2];
  for (int pass = 0; pass < args.passes; ++pass) {
    for (int i = 0; i < 2; ++i) {
      const bool with = (pass + i) % 2 == 0;
      std::error_code error;
      fs::remove_all(copy, error);
      fs::copy(base, copy, error);
      if (error) {
        return Fail(kTool, "copy", rdb::Status::IOError(error.message()));
      }
      s = OptionsFromString(ShapeOptions(with ? args.bits_per_key : 0),
                            &options);
      options.statistics = rdb::CreateDBStatistics();
      std::unique_ptr<rdb::DB> db;
      if (s.ok()) s = rocksdb_compat::OpenDb(options, copy, &db);
      rdb::CompactRangeOptions compact;
      compact.bottommost_level_compaction =
          rdb::BottommostLevelCompaction::kForce;
      if (s.ok()) s = db->CompactRange(compact, nullptr, nullptr);
      if (!s.ok()) return Fail(kTool, "compaction", s);
      rdb::HistogramData cpu_data;
      rdb::HistogramData wall_data;
      options.statistics->histogramData(rdb::COMPACTION_CPU_TIME, &cpu_data);
      options.statistics->histogramData(rdb::COMPACTION_TIME, &wall_data);
      cpu[with].push_back(cpu_data.sum / 1e6);
      wall[with].push_back(wall_data.sum / 1e6);
    }
  }
  const double cpu_with = Median(cpu[1]);
  const double cpu_without = Median(cpu[0]);
  const double wall_with = Median(wall[1]);
  const double wall_without = Median(wall[0]);
  ResultLine()
      .RocksdbVersion(ROCKSDB_MAJOR, ROCKSDB_MINOR, ROCKSDB_PATCH)
      .Int("keys", order.size())
      .Int("passes", args.passes)
      .Real("bits_per_key", args.bits_per_key, 2)
      .Real("cpu_with_s", cpu_with, 2)
      .Real("cpu_without_s", cpu_without, 2)
      .Real("cpu_ratio", cpu_with / cpu_without, 3)
      .Real("wall_with_s", wall_with, 2)
      .Real("wall_without_s", wall_without, 2)
      .Real("wall_ratio", wall_with / wall_without, 3)
      .Text("cpu_with_runs", List(cpu[1], 2))
      .Text("cpu_without_runs", List(cpu[0], 2))
      .Text("wall_with_runs", List(wall[1], 2))
      .Text("wall_without_runs", List(wall[0], 2))
      .Print();
  return 0;
}

// Reads "1,16,64" into `lengths`; false if any is not a positive integer.
bool ParseLengths(const std::string& list, std::vector<uint64_t>* lengths) {
  lengths->clear();
  for (size_t at = 0; at <= list.size();) {
    const size_t comma = std::min(list.find(',', at), list.size());
    uint64_t length = 0;
    const char* first = list.data() + at;
    const char* last = list.data() + comma;
    const auto [ptr, ec] = std::from_chars(first, last, length);
    if (ec != std::errc() || ptr != last || length == 0) return false;
    lengths->push_back(length);
    at = comma + 1;
  }
  return true;
}

// "MIN,MAX" into args' gap: 1 <= MIN <= MAX, a series' last point below
// 2^32.
bool ParseGap(const std::string& text, uint64_t num_keys, Args* args) {
  std::vector<uint64_t> both;
  if (!ParseLengths(text, &both) || both.size() != 2) return false;
  args->gap_min = both[0];
  args->gap_max = both[1];
  return args->gap_min <= args->gap_max &&
         args->gap_max <= (uint64_t{1} << 32) / (num_keys / kSeries + 1);
}

constexpr char kUsage[] =
    "[--workload uniform|series] [--num N] [--scans N]\n"
    "         [--lengths L,...] [--bits-per-key B] [--cache-mb N]\n"
    "         [--value-size N] [--passes N] [--gap MIN,MAX] [--db DIR]\n"
    "         [--keep-db]\n"
    "       range-scans --build-cost [--num N] [--bits-per-key B]\n"
    "         [--passes N] [--db DIR]\n"
    "  --workload W      uniform (default) or series, as in the header\n"
    "  --num N           keys (default 2000000)\n"
    "  --scans N         scans per query set (default 2000)\n"
    "  --lengths L,...   the empty ranges' lengths (default 1,16,64)\n"
    "  --bits-per-key B  the range filter's (default 12)\n"
    "  --cache-mb N      the block cache (default 8)\n"
    "  --value-size N    bytes (default 100)\n"
    "  --gap MIN,MAX     series: integers between a series' points,\n"
    "                    uniform in [MIN, MAX] (default 1,1)\n"
    "  --passes N        passes of every scan, or with --build-cost\n"
    "                    compactions each way (default 3)\n"
    "  --db DIR          the DB's directory, emptied first (default: a\n"
    "                    temporary one); removed after the run unless\n"
    "  --keep-db         is given\n"
    "(see the header of bench/db/range_scans.cc)";

}  // namespace

int RangeScansMain(int argc, char** argv) {
  Args args;
  Flags flags(argc, argv);
  args.build_cost = flags.Switch("--build-cost");
  args.keep_db = flags.Switch("--keep-db");
  std::string lengths = "1,16,64";
  std::string gap = "1,1";
  flags.Get("--workload", &args.workload)
      .Get("--num", &args.num_keys)
      .Get("--scans", &args.scans)
      .Get("--lengths", &lengths)
      .Get("--bits-per-key", &args.bits_per_key)
      .Get("--cache-mb", &args.cache_mb)
      .Get("--value-size", &args.value_size)
      .Get("--passes", &args.passes)
      .Get("--gap", &gap)
      .Get("--db", &args.db_dir);
  const bool valid =
      (args.workload == "uniform" || args.workload == "series") &&
      args.num_keys >= 2 * kSeries && args.scans >= 1 && args.passes >= 1 &&
      args.cache_mb >= 1 && ParseLengths(lengths, &args.lengths) &&
      ParseGap(gap, args.num_keys, &args);
  if (!flags.Done(kUsage, valid)) return 2;
  if (!MakePolicy(kTool, "")) return 2;
  return InDbDir(&args.db_dir, "sstfilter-range-scans", args.keep_db, [&] {
    return args.build_cost ? BuildCost(args) : Scans(args);
  });
}

}  // namespace sstfilter::bench
