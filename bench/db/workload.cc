// sstfilter-db-bench workload: one filter policy on a leveled DB that
// RocksDB's own flushes and compactions shape, under one read workload,
// measured after the DB has compacted under that workload. Policies are
// named by their FilterPolicy ids only, so any policy can be measured.
// `bench/db/db_bench_driver workloads` runs it over policies x fills x
// workloads and prints medians.
//
// A run:
//   1. fill: --num unique keys as db_bench writes them (--key_size=16) with
//      100-byte values, each once, in a random order from --seed, into a DB
//      of 1 MiB write buffers, files and level base, T = 10 (the shape of
//      the driver's `levels`); then flush and wait for compactions.
//      Present keys are the even key numbers 0..2N-2, so the absent ones
//      (odd) fall inside every file's key range, spread uniformly;
//   2. with --restart, close the DB and open it again with a new policy
//      object (what a new process would have);
//   3. phase A: --reads Gets of the workload;
//   4. an overwrite of half the keys (each once, in a random order, new
//      values) with one Get of the workload after each Put, so that the DB
//      compacts under the workload; then flush and wait for compactions;
//   5. phase B: --reads Gets, measured from statistics reset before it.
//
// Workloads (a hit is a Get of a present key; keys are uniform unless hot):
//   absent        absent keys only
//   hits50, hits90, hits99
//                 that share of the Gets hits, the rest absent keys
//   hot-hits      90% of the Gets in 4 contiguous key ranges that hold 10%
//                 of the keys (placed by --seed), 80% of all Gets hits
//   hot-absent    the same ranges, absent keys only
//   shift         hot-hits over other ranges in phase A, over hot-hits's
//                 ranges from the overwrite on: its phase B is comparable
//                 with hot-hits's of the same seed
//   zipf          hits only, Zipfian (theta 0.99, YCSB's) over the present
//                 keys, ranked in a random order from --seed, so that hot
//                 keys are spread over the key space and its files
//
// --bounded runs the DB as services bound its memory (DbSetup's
// bounded_memory: data, index and filter blocks in one LRU block cache,
// indexes and filters partitioned at high priority, their top levels
// pinned, no compression); --cache-of-data F makes that cache (one shard,
// RocksDB's default high-priority pool ratio, 0.5) F times the bytes the
// data blocks of --num keys take, kDataBlockBytesPerKey each, so that every
// policy has the same cache.
//
// Reported, of phase B: wasted data-block reads per Get ((bloom.filter.
// full.positive - full.true.positive) / Gets), filter checks per Get
// (full.positive + bloom.filter.useful: every filter consulted), Gets/s
// (wall time, one thread), data blocks missed in the block cache per Get
// (with --direct-io, blocks read from disk), filter bytes and entries (the
// live SST files' properties) with bits/key, files and bits/key per level;
// and the blocks the Gets themselves read from disk (from the page cache
// without --direct-io), data, filter and index, counted by the Get thread's
// PerfContext, beside the block cache's miss tickers, which count every
// thread's (issue 45 saw them at 3-4x the Gets' reads with compactions
// running; phase B has no writes, and they agreed in all 144 runs of the
// block-cache sweep); with the index and data bytes and the share of the
// block cache the filters' bytes would take.
// One line "RESULT key=value ..." for scripts, one line for people.
//
// usage: sstfilter-db-bench workload --policy ID [--workload W] [--num N]
//          [--reads N] [--seed S] [--static] [--restart] [--direct-io]
//          [--bounded] [--cache-of-data F] [--no-listener] [--db DIR]
//          [--keep-db]
// Exits 1 if a Get of a present key does not return its latest value (a
// false negative or lost data), an absent key is found, a Get fails or the
// DB cannot be built; 2 on bad arguments.
#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "db.h"
#include "flags.h"
#include "results.h"
#include "rocksdb/convenience.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/utilities/object_registry.h"
#include "rocksdb/version.h"
#include "scenarios.h"
#include "sstfilter/rocksdb_plugin.h"

namespace sstfilter::bench {
namespace {

constexpr char kTool[] = "sstfilter-db-bench workload";
// The hot-range workloads: the production-shaped workload LevelAware's
// per-SST-file allocation is meant for (90% of the Gets in 10% of the keys,
// about 80% of them hits), in 4 ranges so that each covers several files.
constexpr int kHotRanges = 4;
constexpr double kHotKeyShare = 0.10;
constexpr double kHotGetShare = 0.90;
constexpr double kHotHitShare = 0.80;
// YCSB's Zipfian constant (its ZipfianGenerator.ZIPFIAN_CONSTANT).
constexpr double kZipfTheta = 0.99;
// The bytes of uncompressed data blocks per entry of these keys and values
// (4 KiB blocks): measured, the live SST files' data_size over their
// entries, 121.29 at 2*10^4, 2*10^5 and 10^6 keys. (After the overwrite the
// tree holds 1.1-1.3 entries per key, the older versions not yet compacted
// away: the cache is then a little less of the tree's data.)
constexpr double kDataBlockBytesPerKey = 121.3;

struct Args {
  std::string policy;
  std::string workload = "absent";
  uint64_t num_keys = 2'000'000;
  uint64_t reads = 400'000;
  uint64_t seed = 1;
  bool dynamic_levels = true;
  bool restart = false;
  bool direct_io = false;
  bool bounded = false;
  double cache_of_data = 0;  // 0: an 8 MiB block cache
  bool listener = true;
  std::string db_dir;  // default: a temporary directory
  bool keep_db = false;
};

// Independent random streams of one seed.
enum Stream : uint64_t {
  kFillOrder,
  kOverwriteOrder,
  kGets,
  kHot,
  kHotFirst,
  kZipfRanks
};

// kHotRanges ranges that do not overlap, kHotKeyShare of the keys in all.
std::vector<KeyRange> HotRanges(uint64_t num_keys, Random rng) {
  const uint64_t count = std::max<uint64_t>(
      1, static_cast<uint64_t>(num_keys * kHotKeyShare / kHotRanges));
  std::vector<KeyRange> ranges;
  while (ranges.size() < kHotRanges) {
    const KeyRange range{rng.Below(num_keys - count + 1), count};
    bool overlaps = false;
    for (const KeyRange& other : ranges) {
      overlaps = overlaps || (range.first < other.first + other.count &&
                              other.first < range.first + range.count);
    }
    if (!overlaps) ranges.push_back(range);
  }
  return ranges;
}

struct Workload {
  double hit_share = 0;
  std::vector<KeyRange> hot;        // empty: uniform
  std::vector<KeyRange> hot_later;  // from the overwrite on
  std::optional<Zipfian> zipf;      // with it, hits by Zipfian rank
  std::vector<uint64_t> zipf_keys;  // the present key of each rank

  // The next Get, of phase A or (`later`) of the overwrite and phase B.
  Lookup Next(uint64_t num_keys, bool later, Random& rng) const {
    if (zipf) return Lookup{zipf_keys[zipf->Next(rng)], true};
    return NextLookup(num_keys, hit_share, later ? hot_later : hot,
                      kHotGetShare, rng);
  }
};

bool MakeWorkload(const Args& args, Workload* workload) {
  const std::string& name = args.workload;
  const uint64_t n = args.num_keys;
  if (name == "absent" || name == "hits50" || name == "hits90" ||
      name == "hits99") {
    workload->hit_share =
        name == "absent" ? 0 : std::stoi(name.substr(4)) / 100.0;
  } else if (name == "hot-hits" || name == "hot-absent" || name == "shift") {
    workload->hit_share = name == "hot-absent" ? 0 : kHotHitShare;
    workload->hot_later = HotRanges(n, Random(args.seed, kHot));
    workload->hot = name == "shift" ? HotRanges(n, Random(args.seed, kHotFirst))
                                    : workload->hot_later;
  } else if (name == "zipf") {
    workload->hit_share = 1;
    workload->zipf.emplace(n, kZipfTheta);
    workload->zipf_keys = Random(args.seed, kZipfRanks).Permutation(n);
  } else {
    return false;
  }
  return true;
}

uint64_t CacheBytes(const Args& args) {
  if (args.cache_of_data <= 0) return 8 * kMiB;  // DbSetup's default
  return static_cast<uint64_t>(args.cache_of_data * kDataBlockBytesPerKey *
                               static_cast<double>(args.num_keys));
}

// The run's DB, opened with a new policy object each time, as a new
// process would have.
rdb::Status OpenWith(const Args& args, BenchDb* db) {
  DbSetup setup;
  setup.dynamic_levels = args.dynamic_levels;
  setup.direct_io = args.direct_io;
  setup.bounded_memory = args.bounded;
  if (args.cache_of_data > 0) {
    setup.block_cache =
        rdb::NewLRUCache(CacheBytes(args), /*num_shard_bits=*/0);
  }
  setup.listener = args.listener;
  rdb::Status s = rdb::FilterPolicy::CreateFromString(
      rdb::ConfigOptions(), args.policy, &setup.policy);
  return s.ok() ? db->Open(setup, args.db_dir) : s;
}

// Gets of the workload; with `puts_between`, each Get follows an
// overwrite of the next key of a random half of the keys.
rdb::Status Read(BenchDb& db, uint64_t num_gets, const Workload& workload,
                 bool later, Random& rng,
                 const std::vector<uint64_t>* puts_between, Answers* answers) {
  for (uint64_t n = 0; n < num_gets; ++n) {
    if (puts_between != nullptr) {
      rdb::Status s = db.Put((*puts_between)[n], /*overwrite=*/true);
      if (!s.ok()) return s;
    }
    db.Get(workload.Next(db.num_keys(), later, rng), answers);
  }
  return rdb::Status::OK();
}

int Run(const Args& args, const Workload& workload) {
  BenchDb run(args.num_keys);
  rdb::Status s = OpenWith(args, &run);
  if (!s.ok()) return Fail(kTool, "open", s);
  Clock::time_point start = Clock::now();
  for (uint64_t index :
       Random(args.seed, kFillOrder).Permutation(args.num_keys)) {
    s = run.Put(index);
    if (!s.ok()) return Fail(kTool, "fill", s);
  }
  s = run.Settle();
  if (!s.ok()) return Fail(kTool, "fill", s);
  const double fill_seconds = Seconds(start);
  if (args.restart) {
    s = run.Close();
    if (s.ok()) s = OpenWith(args, &run);
    if (!s.ok()) return Fail(kTool, "restart", s);
  }

  Random gets(args.seed, kGets);
  Answers before;  // phase A and the overwrite
  s = Read(run, args.reads, workload, /*later=*/false, gets, nullptr, &before);
  if (!s.ok()) return Fail(kTool, "phase A", s);
  start = Clock::now();
  std::vector<uint64_t> overwrite =
      Random(args.seed, kOverwriteOrder).Permutation(args.num_keys);
  overwrite.resize(args.num_keys / 2);
  s = Read(run, overwrite.size(), workload, /*later=*/true, gets, &overwrite,
           &before);
  if (s.ok()) s = run.Settle();
  if (!s.ok()) return Fail(kTool, "overwrite", s);
  const double overwrite_seconds = Seconds(start);

  (void)TakeReadCosts(run.stats());
  (void)TakeDiskReads();
  Answers measured;
  start = Clock::now();
  s = Read(run, args.reads, workload, /*later=*/true, gets, nullptr, &measured);
  if (!s.ok()) return Fail(kTool, "phase B", s);
  const double read_seconds = Seconds(start);
  const DiskReads disk = TakeDiskReads();
  const ReadCosts costs = TakeReadCosts(run.stats());
  Tree tree;
  s = DescribeTree(run.db(), &tree);
  if (!s.ok()) return Fail(kTool, "table properties", s);

  const double gets_count = static_cast<double>(measured.gets);
  const double wasted = static_cast<double>(costs.wasted);
  const double checks = static_cast<double>(costs.checks);
  const double data_misses = static_cast<double>(costs.data_misses);
  const auto per_get = [&](uint64_t count) {
    return static_cast<double>(count) / gets_count;
  };
  const double cache_bytes = static_cast<double>(CacheBytes(args));
  ResultLine()
      .Text("policy", args.policy)
      .Text("workload", args.workload)
      .Int("seed", args.seed)
      .Int("num", args.num_keys)
      .Int("reads", args.reads)
      .Text("layout", args.dynamic_levels ? "dynamic" : "static")
      .Int("restart", args.restart)
      .Int("direct_io", args.direct_io)
      .Int("bounded", args.bounded)
      .Int("cache_bytes", CacheBytes(args))
      .RocksdbVersion(ROCKSDB_MAJOR, ROCKSDB_MINOR, ROCKSDB_PATCH)
      .Int("gets", measured.gets)
      .Int("hits", measured.hits)
      .Real("wasted_per_get", wasted / gets_count, 6)
      .Real("checks_per_get", checks / gets_count, 4)
      .Real("gets_per_s", gets_count / read_seconds, 0)
      .Real("data_misses_per_get", data_misses / gets_count, 6)
      .Real("filter_misses_per_get", per_get(costs.filter_misses), 6)
      .Real("index_misses_per_get", per_get(costs.index_misses), 6)
      .Real("disk_per_get", per_get(disk.total()), 6)
      .Real("disk_data_per_get", per_get(disk.data), 6)
      .Real("disk_filter_per_get", per_get(disk.filter), 6)
      .Real("disk_index_per_get", per_get(disk.index), 6)
      .Int("filter_bytes", tree.filter_bytes)
      .Int("filter_entries", tree.filter_entries)
      .Real("bits_per_key", BitsPerKey(tree.filter_bytes, tree.filter_entries),
            4)
      .Real("filter_cache_share",
            static_cast<double>(tree.filter_bytes) / cache_bytes, 4)
      .Int("index_bytes", tree.index_bytes)
      .Int("data_bytes", tree.data_bytes)
      .Int("files_without_filter", tree.files_without_filter)
      .Text("files", tree.files_per_level)
      .Text("level_bits_per_key", tree.bits_per_key_level)
      .Real("fill_s", fill_seconds, 1)
      .Real("overwrite_s", overwrite_seconds, 1)
      .Print();
  std::printf(
      "%s, %s, seed %" PRIu64
      ": %.5f wasted reads and %.2f filter checks per Get, %.4f blocks "
      "read from disk per Get (%.4f data, %.4f filter, %.4f index), %.0f "
      "Gets/s, %" PRIu64 " filter bytes (%.2f bits/key); files %s\n",
      args.policy.c_str(), args.workload.c_str(), args.seed,
      wasted / gets_count, checks / gets_count, per_get(disk.total()),
      per_get(disk.data), per_get(disk.filter), per_get(disk.index),
      gets_count / read_seconds, tree.filter_bytes,
      BitsPerKey(tree.filter_bytes, tree.filter_entries),
      tree.files_per_level.c_str());
  return before.Check(kTool) && measured.Check(kTool) ? 0 : 1;
}

constexpr char kUsage[] =
    "--policy ID [--workload W] [--num N] [--reads N] [--seed S]\n"
    "         [--static] [--restart] [--direct-io] [--bounded]\n"
    "         [--cache-of-data F] [--no-listener] [--db DIR] [--keep-db]\n"
    "  --policy ID    a FilterPolicy::CreateFromString value\n"
    "  --workload W   absent, hits50, hits90, hits99, hot-hits, hot-absent,\n"
    "                 shift or zipf (default absent)\n"
    "  --num N        unique keys (default 2000000)\n"
    "  --reads N      Gets of phase A and of phase B (default 400000)\n"
    "  --seed S       the fill's order, the overwrite's, the Gets and the\n"
    "                 hot ranges (default 1)\n"
    "  --static       level_compaction_dynamic_level_bytes=false\n"
    "  --restart      close and reopen the DB between fill and workload\n"
    "  --direct-io    use_direct_reads\n"
    "  --bounded      data, index and filter blocks in the block cache,\n"
    "                 partitioned, at high priority, top levels pinned; no\n"
    "                 compression\n"
    "  --cache-of-data F\n"
    "                 a block cache of F times the data blocks' bytes of\n"
    "                 --num keys, one shard (default: 8 MiB)\n"
    "  --no-listener  without sstfilter::NewLevelAwareListener()\n"
    "  --db DIR       the DB's directory, emptied first (default: a\n"
    "                 temporary one); removed after the run unless\n"
    "  --keep-db      is given";

}  // namespace

int WorkloadMain(int argc, char** argv) {
  Args args;
  Flags flags(argc, argv);
  args.dynamic_levels = !flags.Switch("--static");
  args.restart = flags.Switch("--restart");
  args.direct_io = flags.Switch("--direct-io");
  args.bounded = flags.Switch("--bounded");
  args.listener = !flags.Switch("--no-listener");
  args.keep_db = flags.Switch("--keep-db");
  flags.Get("--policy", &args.policy)
      .Get("--workload", &args.workload)
      .Get("--num", &args.num_keys)
      .Get("--reads", &args.reads)
      .Get("--seed", &args.seed)
      .Get("--cache-of-data", &args.cache_of_data)
      .Get("--db", &args.db_dir);
  Workload workload;
  // Hot ranges need room for kHotRanges of them.
  if (!flags.Done(kUsage, !args.policy.empty() && args.num_keys >= 100 &&
                              MakeWorkload(args, &workload))) {
    return 2;
  }
  if (!MakePolicy(kTool, args.policy)) return 2;
  return InDbDir(&args.db_dir, "sstfilter-workload", args.keep_db,
                 [&] { return Run(args, workload); });
}

}  // namespace sstfilter::bench
