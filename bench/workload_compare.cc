// sstfilter-workload-compare: one filter policy on a leveled DB that
// RocksDB's own flushes and compactions shape, under one read workload,
// measured after the DB has compacted under that workload. Policies are
// named by their FilterPolicy ids only, so any policy can be measured.
// bench/workload_compare runs it over policies x fills x workloads and
// prints medians.
//
// A run:
//   1. fill: --num unique keys as db_bench writes them (--key_size=16) with
//      100-byte values, each once, in a random order from --seed, into a DB
//      of 1 MiB write buffers, files and level base, T = 10 (the shape of
//      bench/level_aware_compare); then flush and wait for compactions.
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
//
// Reported, of phase B: wasted data-block reads per Get ((bloom.filter.
// full.positive - full.true.positive) / Gets), filter checks per Get
// (full.positive + bloom.filter.useful: every filter consulted), Gets/s
// (wall time, one thread), data blocks missed in the block cache per Get
// (with --direct-io, blocks read from disk), filter bytes and entries (the
// live tables' properties) with bits/key, files and bits/key per level.
// One line "RESULT key=value ..." for scripts, one line for people.
//
// usage: sstfilter-workload-compare --policy ID [--workload W] [--num N]
//          [--reads N] [--seed S] [--static] [--restart] [--direct-io]
//          [--no-listener]
//          [--db DIR] [--keep-db]
// Exits 1 if a Get of a present key does not return its latest value (a
// false negative or lost data), an absent key is found, a Get fails or the
// DB cannot be built; 2 on bad arguments.
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "rocksdb/cache.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/statistics.h"
#include "rocksdb/table.h"
#include "rocksdb/table_properties.h"
#include "rocksdb/utilities/object_registry.h"
#include "rocksdb/version.h"
#include "rocksdb_db_compat.h"
#include "sstfilter/hash.h"
#include "sstfilter/rocksdb_plugin.h"

namespace sstfilter::bench {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr size_t kKeySize = 16;     // db_bench's --key_size default
constexpr size_t kValueSize = 100;  // db_bench's --value_size default
// The hot-range workloads: the production-shaped workload LevelAware's
// per-table allocation is meant for (90% of the Gets in 10% of the keys,
// about 80% of them hits), in 4 ranges so that each covers several files.
constexpr int kHotRanges = 4;
constexpr double kHotKeyShare = 0.10;
constexpr double kHotGetShare = 0.90;
constexpr double kHotHitShare = 0.80;

struct Args {
  std::string policy;
  std::string workload = "absent";
  uint64_t num_keys = 2'000'000;
  uint64_t reads = 400'000;
  uint64_t seed = 1;
  bool dynamic_levels = true;
  bool restart = false;
  bool direct_io = false;
  // sstfilter::NewLevelAwareListener() in DBOptions::listeners (the
  // recommended setup; harmless for other policies).
  bool listener = true;
  std::string db_dir;  // default: a temporary directory
  bool keep_db = false;
};

// Independent random streams of one seed.
enum Stream : uint64_t { kFillOrder, kOverwriteOrder, kGets, kHot, kHotFirst };

// mt19937_64's sequence is fixed by the standard and FastRange64 maps it
// onto a range, so a seed gives the same keys with every standard library.
class Random {
 public:
  Random(uint64_t seed, Stream stream)
      : engine_(Remix64(seed * 8 + stream + 1)) {}
  uint64_t Below(uint64_t n) { return FastRange64(engine_(), n); }
  bool Chance(double p) {
    return static_cast<double>(engine_() >> 11) * 0x1p-53 < p;
  }
  std::vector<uint64_t> Permutation(uint64_t n) {
    std::vector<uint64_t> order(n);
    for (uint64_t i = 0; i < n; ++i) order[i] = i;
    for (uint64_t i = n; i > 1; --i) std::swap(order[i - 1], order[Below(i)]);
    return order;
  }

 private:
  std::mt19937_64 engine_;
};

// Key number k as db_bench writes it: 8 big-endian bytes, then 8 '0's (as
// tests/support's DbBenchKey), so ldb, sst_dump and db_bench read these DBs.
// Present key i is number 2i and absent key i number 2i + 1.
std::string Key(uint64_t index, bool present) {
  const uint64_t number = 2 * index + (present ? 0 : 1);
  std::string key(kKeySize, '0');
  for (int byte = 0; byte < 8; ++byte) {
    key[byte] = static_cast<char>(number >> (8 * (7 - byte)));
  }
  return key;
}

// Present key i's value after `version` overwrites: 50 bytes that follow
// from (i, version), then 50 copies of one of them, so that Snappy halves
// it as it does db_bench's (--compression_ratio=0.5).
std::string Value(uint64_t index, uint8_t version) {
  std::string value(kValueSize, '\0');
  uint64_t word = Remix64(index * 256 + version + 1);
  for (size_t i = 0; i < kValueSize / 2; ++i) {
    if (i % 8 == 0) word = Remix64(word);
    value[i] = static_cast<char>(word >> (8 * (i % 8)));
  }
  for (size_t i = kValueSize / 2; i < kValueSize; ++i) value[i] = value[0];
  return value;
}

struct KeyRange {  // of key indices
  uint64_t first = 0;
  uint64_t count = 0;
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
  } else {
    return false;
  }
  return true;
}

struct Lookup {
  uint64_t index = 0;
  bool present = false;
};

Lookup NextLookup(uint64_t num_keys, double hit_share,
                  const std::vector<KeyRange>& hot, Random& rng) {
  Lookup lookup;
  lookup.present = rng.Chance(hit_share);
  if (!hot.empty() && rng.Chance(kHotGetShare)) {
    uint64_t offset = rng.Below(hot.size() * hot[0].count);
    lookup.index = hot[offset / hot[0].count].first + offset % hot[0].count;
  } else {
    lookup.index = rng.Below(num_keys);
  }
  // The last present key has no absent key above it.
  if (!lookup.present && lookup.index + 1 == num_keys) --lookup.index;
  return lookup;
}

// What the Gets of a run found.
struct Answers {
  uint64_t gets = 0;
  uint64_t hits = 0;          // Gets of present keys
  uint64_t missing = 0;       // present keys not found
  uint64_t wrong_value = 0;   // found with another value than their last
  uint64_t absent_found = 0;  // absent keys found
  uint64_t errors = 0;        // neither OK nor NotFound
  bool ok() const {
    return missing == 0 && wrong_value == 0 && absent_found == 0 && errors == 0;
  }
};

class WorkloadDb {
 public:
  explicit WorkloadDb(const Args& args)
      : args_(args), versions_(args.num_keys, 0) {
    write_options_.disableWAL = true;  // as bench/level_aware_compare's fill
  }

  rdb::Status Open() {
    rdb::Options options;
    options.create_if_missing = true;
    options.write_buffer_size = kMiB;
    options.target_file_size_base = kMiB;
    options.max_bytes_for_level_base = kMiB;
    options.max_bytes_for_level_multiplier = 10;
    options.level0_file_num_compaction_trigger = 4;
    options.level_compaction_dynamic_level_bytes = args_.dynamic_levels;
    options.max_background_jobs = 2;
    options.max_open_files = -1;
    options.use_direct_reads = args_.direct_io;
    options.compression = rdb::kNoCompression;
    for (rdb::CompressionType type : rdb::GetSupportedCompressions()) {
      if (type == rdb::kSnappyCompression) options.compression = type;
    }
    options.statistics = rdb::CreateDBStatistics();
    if (args_.listener) options.listeners.push_back(NewLevelAwareListener());
    rdb::BlockBasedTableOptions table;
    table.cache_index_and_filter_blocks = false;
    table.block_cache = rdb::NewLRUCache(8 * kMiB);  // db_bench --cache_size
    // A new policy object each time, as a new process would have.
    rdb::Status s = rdb::FilterPolicy::CreateFromString(
        rdb::ConfigOptions(), args_.policy, &table.filter_policy);
    if (!s.ok()) return s;
    options.table_factory.reset(rdb::NewBlockBasedTableFactory(table));
    stats_ = options.statistics;
    return rocksdb_compat::OpenDb(options, args_.db_dir, &db_);
  }

  rdb::Status Close() {
    rdb::Status s = db_->Close();
    db_.reset();
    return s;
  }

  // Flushes the memtable, so that every Get consults the tables, and waits
  // for the compactions that follow.
  rdb::Status Settle() {
    rdb::Status s = db_->Flush(rdb::FlushOptions());
    return s.ok() ? rocksdb_compat::WaitForCompactions(db_.get()) : s;
  }

  rdb::Status Fill() {
    Random rng(args_.seed, kFillOrder);
    rdb::Status s;
    for (uint64_t index : rng.Permutation(args_.num_keys)) {
      s = Put(index);
      if (!s.ok()) return s;
    }
    return Settle();
  }

  // Gets of the workload; with `puts_between`, each Get follows a Put of the
  // next key of a random half of the keys (the overwrite).
  rdb::Status Read(uint64_t num_gets, double hit_share,
                   const std::vector<KeyRange>& hot, Random& rng,
                   const std::vector<uint64_t>* puts_between,
                   Answers* answers) {
    std::string value;
    for (uint64_t n = 0; n < num_gets; ++n) {
      if (puts_between != nullptr) {
        ++versions_[(*puts_between)[n]];
        rdb::Status s = Put((*puts_between)[n]);
        if (!s.ok()) return s;
      }
      const Lookup lookup = NextLookup(args_.num_keys, hit_share, hot, rng);
      const rdb::Status s = db_->Get(rdb::ReadOptions(),
                                     Key(lookup.index, lookup.present), &value);
      ++answers->gets;
      if (!s.ok() && !s.IsNotFound()) ++answers->errors;
      if (lookup.present) {
        ++answers->hits;
        if (s.IsNotFound()) ++answers->missing;
        if (s.ok() && value != Value(lookup.index, versions_[lookup.index])) {
          ++answers->wrong_value;
        }
      } else if (s.ok()) {
        ++answers->absent_found;
      }
    }
    return rdb::Status::OK();
  }

  rdb::DB* db() const { return db_.get(); }
  rdb::Statistics& stats() const { return *stats_; }

 private:
  rdb::Status Put(uint64_t index) {
    return db_->Put(write_options_, Key(index, true),
                    Value(index, versions_[index]));
  }

  const Args& args_;
  std::vector<uint8_t> versions_;  // overwrites per present key
  rdb::WriteOptions write_options_;
  std::unique_ptr<rdb::DB> db_;
  std::shared_ptr<rdb::Statistics> stats_;
};

// The live tables' filters, in all and per level.
struct Tree {
  uint64_t filter_bytes = 0;
  uint64_t filter_entries = 0;
  uint64_t files_without_filter = 0;
  std::string files_per_level;     // "L0:2,L1:4,..." (non-empty levels)
  std::string bits_per_key_level;  // "L0:9.87,L1:..."
};

double BitsPerKey(uint64_t bytes, uint64_t entries) {
  return entries ? 8.0 * static_cast<double>(bytes) / entries : 0.0;
}

rdb::Status DescribeTree(rdb::DB* db, Tree* tree) {
  rdb::TablePropertiesCollection tables;
  const rdb::Status s = db->GetPropertiesOfAllTables(&tables);
  if (!s.ok()) return s;
  rdb::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  char buf[64];
  for (const auto& level : meta.levels) {
    if (level.files.empty()) continue;
    uint64_t bytes = 0;
    uint64_t entries = 0;
    for (const auto& file : level.files) {
      const auto found = tables.find(file.db_path + file.name);
      if (found == tables.end()) {
        return rdb::Status::NotFound("no properties of " + file.name);
      }
      bytes += found->second->filter_size;
      entries += found->second->num_filter_entries;
      if (found->second->filter_size == 0) ++tree->files_without_filter;
    }
    tree->filter_bytes += bytes;
    tree->filter_entries += entries;
    const char* comma = tree->files_per_level.empty() ? "" : ",";
    std::snprintf(buf, sizeof(buf), "%sL%d:%zu", comma, level.level,
                  level.files.size());
    tree->files_per_level += buf;
    std::snprintf(buf, sizeof(buf), "%sL%d:%.2f", comma, level.level,
                  BitsPerKey(bytes, entries));
    tree->bits_per_key_level += buf;
  }
  return rdb::Status::OK();
}

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

int Fail(const char* what, const rdb::Status& s) {
  std::fprintf(stderr, "sstfilter-workload-compare: %s: %s\n", what,
               s.ToString().c_str());
  return 1;
}

int Run(const Args& args, const Workload& workload) {
  WorkloadDb run(args);
  rdb::Status s = run.Open();
  if (!s.ok()) return Fail("open", s);
  Clock::time_point start = Clock::now();
  s = run.Fill();
  if (!s.ok()) return Fail("fill", s);
  const double fill_seconds = Seconds(start);
  if (args.restart) {
    s = run.Close();
    if (s.ok()) s = run.Open();
    if (!s.ok()) return Fail("restart", s);
  }

  Random gets(args.seed, kGets);
  Answers before;  // phase A and the overwrite
  s = run.Read(args.reads, workload.hit_share, workload.hot, gets, nullptr,
               &before);
  if (!s.ok()) return Fail("phase A", s);
  start = Clock::now();
  std::vector<uint64_t> overwrite =
      Random(args.seed, kOverwriteOrder).Permutation(args.num_keys);
  overwrite.resize(args.num_keys / 2);
  s = run.Read(overwrite.size(), workload.hit_share, workload.hot_later, gets,
               &overwrite, &before);
  if (s.ok()) s = run.Settle();
  if (!s.ok()) return Fail("overwrite", s);
  const double overwrite_seconds = Seconds(start);

  (void)run.stats().Reset();
  Answers measured;
  start = Clock::now();
  s = run.Read(args.reads, workload.hit_share, workload.hot_later, gets,
               nullptr, &measured);
  if (!s.ok()) return Fail("phase B", s);
  const double read_seconds = Seconds(start);
  const rocksdb_compat::PointFilterCounts filters =
      rocksdb_compat::TakePointFilterCounts(run.stats());
  const uint64_t data_misses =
      run.stats().getTickerCount(rdb::BLOCK_CACHE_DATA_MISS);
  Tree tree;
  s = DescribeTree(run.db(), &tree);
  if (!s.ok()) return Fail("table properties", s);

  const double gets_count = static_cast<double>(measured.gets);
  const double wasted =
      static_cast<double>(filters.positive - filters.true_positive);
  const double checks = static_cast<double>(filters.positive + filters.useful);
  std::printf(
      "RESULT policy=%s workload=%s seed=%" PRIu64 " num=%" PRIu64
      " reads=%" PRIu64
      " layout=%s restart=%d direct_io=%d rocksdb=%d.%d.%d gets=%" PRIu64
      " hits=%" PRIu64
      " wasted_per_get=%.6f checks_per_get=%.4f gets_per_s=%.0f"
      " data_misses_per_get=%.6f filter_bytes=%" PRIu64
      " filter_entries=%" PRIu64
      " bits_per_key=%.4f files_without_filter=%" PRIu64
      " files=%s level_bits_per_key=%s fill_s=%.1f overwrite_s=%.1f\n",
      args.policy.c_str(), args.workload.c_str(), args.seed, args.num_keys,
      args.reads, args.dynamic_levels ? "dynamic" : "static", args.restart,
      args.direct_io, ROCKSDB_MAJOR, ROCKSDB_MINOR, ROCKSDB_PATCH,
      measured.gets, measured.hits, wasted / gets_count, checks / gets_count,
      gets_count / read_seconds, data_misses / gets_count, tree.filter_bytes,
      tree.filter_entries, BitsPerKey(tree.filter_bytes, tree.filter_entries),
      tree.files_without_filter, tree.files_per_level.c_str(),
      tree.bits_per_key_level.c_str(), fill_seconds, overwrite_seconds);
  std::printf(
      "%s, %s, seed %" PRIu64
      ": %.5f wasted reads and %.2f filter checks per Get, %.0f Gets/s, "
      "%" PRIu64 " filter bytes (%.2f bits/key); files %s\n",
      args.policy.c_str(), args.workload.c_str(), args.seed,
      wasted / gets_count, checks / gets_count, gets_count / read_seconds,
      tree.filter_bytes, BitsPerKey(tree.filter_bytes, tree.filter_entries),
      tree.files_per_level.c_str());
  for (const Answers& answers : {before, measured}) {
    if (!answers.ok()) {
      std::fprintf(stderr,
                   "sstfilter-workload-compare: WRONG ANSWERS: of %" PRIu64
                   " Gets (%" PRIu64 " of present keys), %" PRIu64
                   " present keys not found, %" PRIu64
                   " with a wrong value, %" PRIu64
                   " absent keys found, %" PRIu64 " errors\n",
                   answers.gets, answers.hits, answers.missing,
                   answers.wrong_value, answers.absent_found, answers.errors);
      return 1;
    }
  }
  return 0;
}

int Usage(const char* argv0) {
  const Args defaults;
  std::fprintf(
      stderr,
      "usage: %s --policy ID [--workload W] [--num N] [--reads N] [--seed S]\n"
      "         [--static] [--restart] [--direct-io] [--db DIR] [--keep-db]\n"
      "  --policy ID    a FilterPolicy::CreateFromString value\n"
      "  --workload W   absent, hits50, hits90, hits99, hot-hits, hot-absent\n"
      "                 or shift (default %s)\n"
      "  --num N        unique keys (default %" PRIu64
      ")\n"
      "  --reads N      Gets of phase A and of phase B (default %" PRIu64
      ")\n"
      "  --seed S       the fill's order, the overwrite's, the Gets and the\n"
      "                 hot ranges (default %" PRIu64
      ")\n"
      "  --static       level_compaction_dynamic_level_bytes=false\n"
      "  --restart      close and reopen the DB between fill and workload\n"
      "  --direct-io    use_direct_reads (8 MiB block cache either way)\n"
      "  --no-listener  without sstfilter::NewLevelAwareListener()\n"
      "  --db DIR       the DB's directory, emptied first (default: a\n"
      "                 temporary one); removed after the run unless\n"
      "  --keep-db      is given\n",
      argv0, defaults.workload.c_str(), defaults.num_keys, defaults.reads,
      defaults.seed);
  return 2;
}

}  // namespace
}  // namespace sstfilter::bench

int main(int argc, char** argv) {
  using namespace sstfilter::bench;
  Args args;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--policy" && has_value) {
      args.policy = argv[++i];
    } else if (arg == "--workload" && has_value) {
      args.workload = argv[++i];
    } else if (arg == "--num" && has_value) {
      args.num_keys = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--reads" && has_value) {
      args.reads = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--seed" && has_value) {
      args.seed = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--db" && has_value) {
      args.db_dir = argv[++i];
    } else if (arg == "--static") {
      args.dynamic_levels = false;
    } else if (arg == "--restart") {
      args.restart = true;
    } else if (arg == "--direct-io") {
      args.direct_io = true;
    } else if (arg == "--no-listener") {
      args.listener = false;
    } else if (arg == "--keep-db") {
      args.keep_db = true;
    } else {
      return Usage(argv[0]);
    }
  }
  Workload workload;
  // Hot ranges need room for kHotRanges of them.
  if (args.policy.empty() || args.num_keys < 100 ||
      !MakeWorkload(args, &workload)) {
    return Usage(argv[0]);
  }
  RegisterSstfilterPolicies(*ROCKSDB_NAMESPACE::ObjectLibrary::Default(), "");
  std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy> policy;
  const ROCKSDB_NAMESPACE::Status made =
      ROCKSDB_NAMESPACE::FilterPolicy::CreateFromString(
          ROCKSDB_NAMESPACE::ConfigOptions(), args.policy, &policy);
  if (!made.ok()) {
    std::fprintf(stderr, "sstfilter-workload-compare: %s\n",
                 made.ToString().c_str());
    return 2;
  }

  const bool temporary = args.db_dir.empty();
  std::error_code error;
  if (temporary) {
    std::string pattern =
        (fs::temp_directory_path() / "sstfilter-workload-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      std::perror("sstfilter-workload-compare: mkdtemp");
      return 1;
    }
    args.db_dir = pattern;
  } else {
    fs::remove_all(args.db_dir, error);
  }
  const int status = Run(args, workload);
  if (temporary || !args.keep_db) fs::remove_all(args.db_dir, error);
  return status;
}
