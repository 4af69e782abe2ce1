// sstfilter-db-bench memory-limit: a filter policy on a leveled DB that
// grows in stages past what a filter memory limit serves, measured after
// every stage. `bench/db/db_bench_driver memory-limit` runs it for
// sstfilter.LevelAware:B:memory_limit=L and its references over fills and
// prints the table.
//
// A run (one policy setup, one seed):
//   the DB (of db.h's shape: 1 MiB write buffers, files and
//   level base, T = 10, dynamic layout) grows in --stages stages to --num
//   present keys: stage s writes the s-th of --stages equal slices of a
//   random permutation of the keys, so that every stage's keys spread over
//   the whole key range and compactions rewrite the tree; one absent Get
//   follows every --puts-per-get Puts. Then flush and wait for
//   compactions. After each stage (with --only-stage, that one alone):
//     - the live SST files' filter bytes (their properties), / --limit;
//     - every key written so far is read back (Gets in key order) and must
//       hold its value;
//     - --reads/4 absent Gets of warm-up, then --reads absent Gets
//       (uniform, odd key numbers: inside every file's key range),
//       measured: wasted data-block reads (every data block an absent Get
//       reads, from the cache or not: those of SST files a filter passed the
//       key for, and of SST files without a filter, which RocksDB reads as
//       "may match" and its filter tickers do not count), the filters'
//       false positives alone, filter checks, the block cache's filter,
//       index and data misses per Get, and Gets/s.
//
// Block cache: --data-cache bytes (default --limit / 8, at least 16 KiB)
// for data blocks, one LRU shard; filters and indexes are held by the
// table readers. With --cache-capped (RocksDB's own bound on filter
// memory) filters and indexes go to the block cache too
// (cache_index_and_filter_blocks=true,
// pin_l0_filter_and_index_blocks_in_cache=false, high-priority pool at
// RocksDB's default) and its capacity is --limit + --data-cache: an absent
// Get reads an SST file's index only after its filter passed the key, so the
// indexes stay cold and the filters hold about the limit. (A capacity that
// also counted the live index bytes left those bytes to the filters: 4.8x
// the limit at the last stage.)
//
// --two-dbs: two DBs of --num / 2 keys each, grown side by side (one Put
// to each in turn), with the policy object of --policy shared by both, or,
// with --second-policy, one object each. Each Get goes to the busy DB with
// probability R / (R + 1) (--read-ratio R), else to the quiet one.
//
// --equal-ribbon BITS: the policy is RocksDB's ribbonfilter at the
// Bloom-equivalent bits/key whose Ribbon takes BITS bits/key (RocksDB's
// curve at 2^20 keys, as LevelAware samples it from RocksDB's builder);
// at 0, no filter.
//
// Reported: one line "RESULT key=value ..." per stage and DB (with
// --two-dbs, db=busy, db=quiet and db=all, their sum), and one for people;
// with --trace, one line per flush and compaction (filter_trace.h).
// Exits 1 if a Get of a present key does not return its value, an absent
// key is found, a Get fails or the DB cannot be built; 2 on bad arguments.
#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "db.h"
#include "filter_trace.h"
#include "flags.h"
#include "level_cost_model.h"
#include "results.h"
#include "rocksdb/convenience.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/utilities/object_registry.h"
#include "rocksdb/version.h"
#include "scenarios.h"
#include "sstfilter/rocksdb_plugin.h"

namespace sstfilter::bench {
namespace {

constexpr char kTool[] = "sstfilter-db-bench memory-limit";
// The least block cache for data blocks: four of 4 KiB, so that the Gets
// in key order that read every key back read each block once.
constexpr uint64_t kLeastDataCache = 16 << 10;

struct Args {
  std::string policy;
  std::string second_policy;  // --two-dbs: the quiet DB's own object
  double equal_ribbon = -1;   // bits/key of Ribbon (0: none); < 0: --policy
  uint64_t limit_bytes = 0;
  uint64_t num_keys = 2'000'000;
  int stages = 8;
  int only_stage = 0;  // 0: measure every stage
  uint64_t reads = 100'000;
  uint64_t puts_per_get = 16;
  uint64_t seed = 1;
  uint64_t data_cache_bytes = 0;  // 0: limit / 8, at least kLeastDataCache
  bool cache_capped = false;
  bool two_dbs = false;
  double read_ratio = 10;
  bool direct_io = false;
  bool trace = false;
  std::string db_dir;
};

// Independent random streams of one seed.
enum Stream : uint64_t { kGrowOrder, kGrowOrderQuiet, kGets, kPickDb };

// The Bloom-equivalent bits/key of RocksDB's Ribbon that takes `bits`
// bits/key: interpolated on RocksDB's own curve, at least 1 (the least
// ribbonfilter builds a filter for).
double RibbonSettingFor(double bits) {
  const std::vector<FilterChoice>& curve =
      rocksdb_plugin::RocksdbKindPoints(FilterKind::kRibbon128);
  for (size_t i = 1; i < curve.size(); ++i) {
    const FilterChoice& low = curve[i - 1];
    const FilterChoice& high = curve[i];
    if (high.bits_per_key < bits) continue;
    const double t = std::clamp(
        (bits - low.bits_per_key) / (high.bits_per_key - low.bits_per_key), 0.0,
        1.0);
    return (low.rocksdb_millibits +
            t * (high.rocksdb_millibits - low.rocksdb_millibits)) /
           1000;
  }
  return curve.back().rocksdb_millibits / 1000.0;
}

// One DB of the run and what it grows by.
struct Grown {
  explicit Grown(uint64_t num_keys) : db(num_keys), written(num_keys) {}
  BenchDb db;
  std::vector<uint64_t> order;  // of its keys' writes
  std::vector<bool> written;
  std::shared_ptr<rdb::Cache> cache;
  const char* name = "db";
  Answers answers;  // of the measured Gets
};

// What one stage measured of one DB (or of both, summed).
struct Measured {
  uint64_t keys = 0;
  Tree tree;
  ReadCosts costs;
  uint64_t gets = 0;
  uint64_t cache_capacity = 0;

  void Add(const Measured& m) {
    keys += m.keys;
    tree.filter_bytes += m.tree.filter_bytes;
    tree.filter_entries += m.tree.filter_entries;
    tree.entries += m.tree.entries;
    tree.index_bytes += m.tree.index_bytes;
    tree.files_without_filter += m.tree.files_without_filter;
    costs.wasted += m.costs.wasted;
    costs.checks += m.costs.checks;
    costs.data_reads += m.costs.data_reads;
    costs.data_misses += m.costs.data_misses;
    costs.filter_misses += m.costs.filter_misses;
    costs.index_misses += m.costs.index_misses;
    gets += m.gets;
    cache_capacity += m.cache_capacity;
  }
};

// Seconds of a stage: its writes and compactions, reading every key back,
// the measured Gets.
struct Times {
  double grow = 0;
  double verify = 0;
  double read = 0;
};

class Run {
 public:
  explicit Run(const Args& args) : args_(args) {}

  int Main() {
    const int num_dbs = args_.two_dbs ? 2 : 1;
    const uint64_t keys_per_db = args_.num_keys / num_dbs;
    std::string id = args_.policy;
    if (args_.equal_ribbon == 0) {
      id = "nullptr";  // no filter, as LevelAware's no bytes
    } else if (args_.equal_ribbon > 0) {
      char buf[64];
      std::snprintf(buf, sizeof(buf), "ribbonfilter:%.3f",
                    RibbonSettingFor(args_.equal_ribbon));
      id = buf;
    }
    policy_id_ = id;
    std::shared_ptr<const rdb::FilterPolicy> shared;
    rdb::Status s =
        rdb::FilterPolicy::CreateFromString(rdb::ConfigOptions(), id, &shared);
    if (!s.ok()) return Fail(kTool, "policy", s);
    for (int d = 0; d < num_dbs; ++d) {
      dbs_.push_back(std::make_unique<Grown>(keys_per_db));
      Grown& g = *dbs_.back();
      g.name = !args_.two_dbs ? "one" : d == 0 ? "busy" : "quiet";
      g.order = Random(args_.seed, d == 0 ? kGrowOrder : kGrowOrderQuiet)
                    .Permutation(keys_per_db);
      DbSetup setup;
      setup.policy = shared;
      if (d == 1 && !args_.second_policy.empty()) {
        // Into an empty pointer: given an object of the same id,
        // CreateFromString configures that object instead of making one.
        std::shared_ptr<const rdb::FilterPolicy> own;
        s = rdb::FilterPolicy::CreateFromString(rdb::ConfigOptions(),
                                                args_.second_policy, &own);
        if (!s.ok()) return Fail(kTool, "second policy", s);
        setup.policy = own;
      }
      setup.direct_io = args_.direct_io;
      if (args_.trace)
        setup.more_listeners.push_back(trace_.ListenerFor(g.name));
      setup.cache_index_and_filter_blocks = args_.cache_capped;
      g.cache = rdb::NewLRUCache(CacheCapacity(), /*num_shard_bits=*/0);
      setup.block_cache = g.cache;
      s = g.db.Open(setup, args_.db_dir + "/" + g.name);
      if (!s.ok()) return Fail(kTool, "open", s);
    }
    for (int stage = 1; stage <= LastStage(); ++stage) {
      const int status = Stage(stage);
      if (status != 0) return status;
    }
    for (auto& g : dbs_) {
      s = g->db.Close();
      if (!s.ok()) return Fail(kTool, "close", s);
    }
    return 0;
  }

 private:
  int LastStage() const {
    return args_.only_stage > 0 ? args_.only_stage : args_.stages;
  }

  uint64_t DataCache() const {
    return args_.data_cache_bytes > 0
               ? args_.data_cache_bytes
               : std::max<uint64_t>(args_.limit_bytes / 8, kLeastDataCache);
  }

  uint64_t CacheCapacity() const {
    return DataCache() + (args_.cache_capped ? args_.limit_bytes : 0);
  }

  // Absent Gets: each to the busy DB with probability R / (R + 1).
  void AbsentGets(uint64_t count, Random& pick, bool measured) {
    const double busy_share = args_.read_ratio / (args_.read_ratio + 1);
    for (uint64_t n = 0; n < count; ++n) {
      Grown& g =
          dbs_.size() == 1 || pick.Chance(busy_share) ? *dbs_[0] : *dbs_[1];
      Answers scratch;
      g.db.Get(NextLookup(g.db.num_keys(), 0, {}, 0, gets_),
               measured ? &g.answers : &scratch);
      if (!measured && !scratch.Check(kTool)) wrong_ = true;
    }
  }

  int Stage(int stage) {
    const Clock::time_point start = Clock::now();
    rdb::Status s;
    uint64_t puts = 0;
    const uint64_t per_db = dbs_[0]->db.num_keys();
    const uint64_t begin = per_db * (stage - 1) / args_.stages;
    const uint64_t end = per_db * stage / args_.stages;
    for (uint64_t k = begin; k < end; ++k) {
      for (auto& g : dbs_) {
        g->written[g->order[k]] = true;
        s = g->db.Put(g->order[k]);
        if (!s.ok()) return Fail(kTool, "grow", s);
        if (++puts % args_.puts_per_get == 0) AbsentGets(1, pick_, false);
      }
    }
    for (auto& g : dbs_) {
      s = g->db.Settle();
      if (!s.ok()) return Fail(kTool, "grow", s);
    }
    Times times;
    times.grow = Seconds(start);
    if (wrong_) return 1;
    if (args_.only_stage > 0 && stage != args_.only_stage) return 0;

    // The tree, and every key read back.
    const Clock::time_point verify_start = Clock::now();
    std::vector<Measured> measured(dbs_.size());
    for (size_t d = 0; d < dbs_.size(); ++d) {
      Grown& g = *dbs_[d];
      Measured& m = measured[d];
      s = DescribeTree(g.db.db(), &m.tree);
      if (!s.ok()) return Fail(kTool, "table properties", s);
      m.cache_capacity = CacheCapacity();
      Answers all;
      for (uint64_t index = 0; index < per_db; ++index) {
        if (g.written[index]) g.db.Get({index, true}, &all);
      }
      m.keys = all.gets;
      if (!all.Check(kTool)) return 1;
    }
    times.verify = Seconds(verify_start);
    AbsentGets(args_.reads / 4, pick_, false);
    for (auto& g : dbs_) {
      (void)TakeReadCosts(g->db.stats());
      g->answers = Answers();
    }
    const Clock::time_point reads_start = Clock::now();
    AbsentGets(args_.reads, pick_, true);
    times.read = Seconds(reads_start);
    Measured all;
    for (size_t d = 0; d < dbs_.size(); ++d) {
      Grown& g = *dbs_[d];
      if (!g.answers.Check(kTool)) return 1;
      Measured& m = measured[d];
      m.costs = TakeReadCosts(g.db.stats());
      m.gets = g.answers.gets;
      Print(stage, g.name, m, times);
      all.Add(m);
    }
    if (dbs_.size() > 1) {
      all.tree.files_per_level = all.tree.bits_per_key_level = "-";
      all.tree.files_without_filter_per_level = "-";
      Print(stage, "all", all, times);
    }
    return 0;
  }

  // With two DBs, Gets/s is of both (the Gets interleave).
  void Print(int stage, const char* db, const Measured& m,
             const Times& times) const {
    const double gets = static_cast<double>(std::max<uint64_t>(m.gets, 1));
    const double limit = static_cast<double>(args_.limit_bytes);
    // Filter bits per key of every SST file, with or without a filter.
    const double bits = BitsPerKey(m.tree.filter_bytes, m.tree.entries);
    ResultLine()
        .Text("policy", policy_id_)
        .Text("db", db)
        .Int("seed", args_.seed)
        .Int("stage", stage)
        .Int("stages", args_.stages)
        .Int("keys", m.keys)
        .Int("limit", args_.limit_bytes)
        .Int("cache_capped", args_.cache_capped)
        .Int("direct_io", args_.direct_io)
        .RocksdbVersion(ROCKSDB_MAJOR, ROCKSDB_MINOR, ROCKSDB_PATCH)
        .Int("filter_bytes", m.tree.filter_bytes)
        .Real("bytes_x_limit", m.tree.filter_bytes / limit, 4)
        .Int("filter_entries", m.tree.filter_entries)
        .Real("bits_per_key", bits, 4)
        .Int("index_bytes", m.tree.index_bytes)
        .Int("files_without_filter", m.tree.files_without_filter)
        .Int("cache_capacity", m.cache_capacity)
        .Int("gets", m.gets)
        .Real("wasted_per_get", m.costs.data_reads / gets, 6)
        .Real("false_positives_per_get", m.costs.wasted / gets, 6)
        .Real("checks_per_get", m.costs.checks / gets, 4)
        .Real("filter_misses_per_get", m.costs.filter_misses / gets, 6)
        .Real("index_misses_per_get", m.costs.index_misses / gets, 6)
        .Real("data_misses_per_get", m.costs.data_misses / gets, 6)
        .Real("gets_per_s", m.gets / times.read, 0)
        .Text("files", m.tree.files_per_level)
        .Text("level_bits_per_key", m.tree.bits_per_key_level)
        .Text("files_without_filter_per_level",
              m.tree.files_without_filter_per_level.empty()
                  ? "-"
                  : m.tree.files_without_filter_per_level)
        .Real("grow_s", times.grow, 1)
        .Real("verify_s", times.verify, 1)
        .Real("read_s", times.read, 1)
        .Print();
    std::printf(
        "%s, %s, seed %" PRIu64 ", stage %d: %" PRIu64
        " keys, %.3fx the limit (%.2f bits/key), %.5f wasted reads and %.5f"
        " filter-block reads per absent Get, %.0f Gets/s; files %s\n",
        policy_id_.c_str(), db, args_.seed, stage, m.keys,
        m.tree.filter_bytes / limit, bits, m.costs.data_reads / gets,
        m.costs.filter_misses / gets, m.gets / times.read,
        m.tree.files_per_level.c_str());
    std::fflush(stdout);
  }

  const Args& args_;
  std::string policy_id_;
  std::vector<std::unique_ptr<Grown>> dbs_;
  Random gets_{args_.seed, kGets};
  Random pick_{args_.seed, kPickDb};
  FilterTrace trace_{args_.limit_bytes};
  bool wrong_ = false;
};

constexpr char kUsage[] =
    "(--policy ID | --equal-ribbon BITS) --limit BYTES\n"
    "         [--num N] [--stages S] [--only-stage S] [--reads N]\n"
    "         [--puts-per-get N] [--seed S] [--data-cache BYTES]\n"
    "         [--cache-capped] [--two-dbs [--second-policy ID]]\n"
    "         [--read-ratio R] [--direct-io] [--trace] [--db DIR]\n"
    "  --policy ID        a FilterPolicy::CreateFromString value\n"
    "  --equal-ribbon B   ribbonfilter at the setting whose Ribbon takes\n"
    "                     B bits/key (0: no filter)\n"
    "  --limit BYTES      the filter memory the report compares with\n"
    "  --num N            present keys at the last stage (default 2000000)\n"
    "  --stages S         stages of growth (default 8)\n"
    "  --only-stage S     grow to stage S, measure it alone\n"
    "  --reads N          measured absent Gets per stage (default 100000)\n"
    "  --puts-per-get N   one absent Get per N Puts while growing\n"
    "                     (default 16)\n"
    "  --seed S           the writes' order and the Gets (default 1)\n"
    "  --data-cache B     the block cache's share for data blocks\n"
    "                     (default the limit / 8, at least 16 KiB)\n"
    "  --cache-capped     filters and indexes in a block cache of the\n"
    "                     limit + the data share\n"
    "  --two-dbs          two DBs of N / 2 keys sharing --policy's object\n"
    "  --second-policy ID the quiet DB's own policy object\n"
    "  --read-ratio R     Gets of the busy DB per Get of the quiet one\n"
    "                     (default 10)\n"
    "  --direct-io        use_direct_reads\n"
    "  --trace            a line TRACE per flush and compaction: the\n"
    "                     filters it built, the live filters after it\n"
    "  --db DIR           the DBs' directory, emptied first and removed\n"
    "                     after (default: a temporary one)";

}  // namespace

int MemoryLimitMain(int argc, char** argv) {
  Args args;
  Flags flags(argc, argv);
  args.cache_capped = flags.Switch("--cache-capped");
  args.two_dbs = flags.Switch("--two-dbs");
  args.direct_io = flags.Switch("--direct-io");
  args.trace = flags.Switch("--trace");
  flags.Get("--policy", &args.policy)
      .Get("--second-policy", &args.second_policy)
      .Get("--equal-ribbon", &args.equal_ribbon)
      .Get("--limit", &args.limit_bytes)
      .Get("--num", &args.num_keys)
      .Get("--stages", &args.stages)
      .Get("--only-stage", &args.only_stage)
      .Get("--reads", &args.reads)
      .Get("--puts-per-get", &args.puts_per_get)
      .Get("--seed", &args.seed)
      .Get("--data-cache", &args.data_cache_bytes)
      .Get("--read-ratio", &args.read_ratio)
      .Get("--db", &args.db_dir);
  const bool valid =
      args.policy.empty() == (args.equal_ribbon >= 0) && args.limit_bytes > 0 &&
      args.stages >= 1 && args.only_stage >= 0 &&
      args.only_stage <= args.stages && args.puts_per_get > 0 &&
      args.num_keys >= 100 * static_cast<uint64_t>(args.stages) &&
      args.read_ratio > 0 && (args.second_policy.empty() || args.two_dbs);
  if (!flags.Done(kUsage, valid)) return 2;
  if (!MakePolicy(kTool, args.policy)) return 2;
  return InDbDir(&args.db_dir, "sstfilter-memory-limit", /*keep=*/false,
                 [&] { return Run(args).Main(); });
}

}  // namespace sstfilter::bench
