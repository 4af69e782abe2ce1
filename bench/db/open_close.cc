// sstfilter-db-bench open-close: what one process keeps of the DBs it has
// opened and closed. A service opens and closes DBs for its whole life (a
// tenant moved, a shard reopened): a policy or listener that keeps
// anything per DB after its close grows the process by that much per cycle.
//
// A cycle, all in this process:
//   1. open a DB: with --dirs new a new directory per cycle (the previous
//      one removed after its close), with --dirs same the same DB reopened;
//   2. write --keys keys (FormatKey("k", 2i), 100-byte values) in kFlushes
//      equal batches, each flushed, then one CompactRange of all (auto
//      compactions are off, so that nothing runs at the close), then one
//      more batch flushed: SST files in two levels, L0 and the one below. The
//      keys are a window of kKeySpaceWindows x --keys key numbers that
//      moves every cycle, so that each cycle's SST files (and filters) are its
//      own while the reopened DB stays bounded;
//   3. --gets Gets, half of them of present keys, half of absent ones (the
//      odd numbers, inside every SST file's key range): LevelAware's readers
//      sample them;
//   4. close: DB::Close, the DB object destroyed.
// Then it reads this process's resident memory (/proc/self/statm), the
// heap held through operator new (alloc_meter: every allocation of this
// binary and of librocksdb) and what malloc holds (mallinfo2: in use in its
// arenas and mmapped).
//
// The DB's options come from one options string (RocksDB's own parser):
// the policy in block_based_table_factory={filter_policy=...} and, with
// --listener, listeners={sstfilter.LevelAwareListener}. --options cycle
// parses it again for every cycle (a new policy, table factory and
// listener per DB, as a service that builds its options per open);
// --options shared parses it once and opens every DB with that one Options
// object (one policy and one listener for all). --shared-logger gives every
// DB one info_log (with --options shared: one logger for all the DBs, as a
// service that logs through its own logger).
//
// Prints, per cycle (after the close), one CSV line "cycle,files,rss_kib,
// heap_bytes,malloc_bytes" to --csv (files: the DB's live SST files at its
// close), then one line "RESULT key=value ...": RSS, heap and malloc after
// the warm-up and at the end, their growth per cycle, the least-squares
// slope over the cycles after the warm-up (KiB per cycle for RSS, bytes
// per cycle for the heap and malloc), the DBs a shared listener still
// keeps, and the mean of the SST files at a close.
//
// usage: sstfilter-db-bench open-close --policy ID [--listener]
//          [--options cycle|shared] [--dirs new|same] [--shared-logger]
//          [--cycles N] [--warmup N] [--keys N] [--gets N]
//          [--file-bytes N] [--db DIR] [--csv FILE]
//   --policy ID       a filter_policy value (bloomfilter:10,
//                     sstfilter.LevelAware:10, ...)
//   --listener        listeners={sstfilter.LevelAwareListener}
//   --options         cycle (default) or shared, as above
//   --dirs            new (default) or same, as above
//   --shared-logger   one info_log for every DB
//   --cycles N        open/close cycles (default 1,000)
//   --warmup N        cycles before the slope is taken (default 50)
//   --keys N          keys written per cycle (default 5,000)
//   --gets N          Gets per cycle (default 5,000)
//   --file-bytes N    target_file_size_base (default 131,072: about 4
//                     SST files below L0 at the default keys)
//   --db DIR          where the DBs go, emptied first (default: one in
//                     the temporary directory); removed at the end
//   --csv FILE        the per-cycle lines (default: none)
// Exits 1 if a DB operation fails or a Get of a present key misses it; 2 on
// bad arguments.
#include <malloc.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "alloc_meter.h"
#include "db.h"
#include "flags.h"
#include "keys.h"
#include "level_aware_inspection.h"
#include "results.h"
#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "rocksdb/utilities/object_registry.h"
#include "rocksdb/version.h"
#include "rocksdb_db_compat.h"
#include "scenarios.h"
#include "sstfilter/rocksdb_plugin.h"

namespace sstfilter::bench {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;
namespace fs = std::filesystem;

// Batches flushed before the CompactRange: RocksDB's default L0 trigger,
// so that the tree is what a DB would compact to by itself.
constexpr int kFlushes = 4;
// The reopened DB holds at most this many cycles' worth of keys.
constexpr uint64_t kKeySpaceWindows = 10;

struct Args {
  std::string policy;
  bool listener = false;
  bool shared_options = false;
  bool new_dirs = true;
  bool shared_logger = false;
  int cycles = 1000;
  int warmup = 50;
  uint64_t keys = 5'000;
  uint64_t gets = 5'000;
  uint64_t file_bytes = 128 << 10;
  std::string db_dir;
  std::string csv;
};

// A logger that drops every line: one for all the DBs (--shared-logger).
class DroppingLogger : public rdb::Logger {
 public:
  using rdb::Logger::Logv;
  void Logv(const char* /*format*/, va_list /*ap*/) override {}
};

// 64 MiB write buffers never fill before the explicit flushes; 128 KiB
// files give a few SST files per level at the default sizes.
std::string OptionsString(const Args& args) {
  std::string text =
      "create_if_missing=true;disable_auto_compactions=true;"
      "write_buffer_size=67108864;max_background_jobs=2;"
      "target_file_size_base=" +
      std::to_string(args.file_bytes) + ";";
  if (args.listener) text += "listeners={sstfilter.LevelAwareListener};";
  return text + "block_based_table_factory={filter_policy=" + args.policy +
         ";cache_index_and_filter_blocks=false}";
}

rdb::Status MakeOptions(const Args& args,
                        const std::shared_ptr<rdb::Logger>& logger,
                        rdb::Options* options) {
  rdb::Status s = OptionsFromString(OptionsString(args), options);
  options->info_log = logger;
  return s;
}

struct Sample {
  double files = 0;  // the DB's live SST files at its close
  double rss_kib = 0;
  double heap_bytes = 0;
  double malloc_bytes = 0;
};

Sample Measure() {
  Sample sample;
  long pages = 0;
  long resident = 0;
  if (FILE* statm = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(statm, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(statm);
  }
  sample.rss_kib = static_cast<double>(resident) *
                   static_cast<double>(sysconf(_SC_PAGESIZE)) / 1024;
  sample.heap_bytes = static_cast<double>(alloc_meter::HeapBytesInUse());
  const struct mallinfo2 info = mallinfo2();
  sample.malloc_bytes = static_cast<double>(info.uordblks + info.hblkhd);
  return sample;
}

// The least-squares slope of ys over 0, 1, 2, ...
double Slope(const std::vector<double>& ys) {
  const double n = static_cast<double>(ys.size());
  if (ys.size() < 2) return 0;
  double sum_x = 0, sum_y = 0, sum_xx = 0, sum_xy = 0;
  for (size_t i = 0; i < ys.size(); ++i) {
    const double x = static_cast<double>(i);
    sum_x += x;
    sum_y += ys[i];
    sum_xx += x * x;
    sum_xy += x * ys[i];
  }
  return (n * sum_xy - sum_x * sum_y) / (n * sum_xx - sum_x * sum_x);
}

int Fail(const char* what, int cycle, const rdb::Status& s) {
  std::fprintf(stderr, "sstfilter-db-bench open-close: cycle %d: %s: %s\n",
               cycle, what, s.ToString().c_str());
  return 1;
}

// The key of index j of `cycle`'s window: present (2i) or absent (2i + 1),
// so that absent keys fall inside every SST file's key range.
std::string KeyOf(const Args& args, int cycle, uint64_t j, bool present) {
  const uint64_t space = kKeySpaceWindows * args.keys;
  const uint64_t first = static_cast<uint64_t>(cycle) * (args.keys / 3 + 1);
  const uint64_t index = (first + j) % space;
  char buf[1 + kMaxKeyDigits];
  return std::string(FormatKey("k", 2 * index + (present ? 0 : 1), buf));
}

// Steps 1-4 of the header for one DB; `files`: its live SST files at the
// close.
rdb::Status OneCycle(const Args& args, const rdb::Options& options,
                     const std::string& dir, int cycle, size_t* files) {
  std::unique_ptr<rdb::DB> db;
  rdb::Status s = rocksdb_compat::OpenDb(options, dir, &db);
  if (!s.ok()) return s;
  const std::string value(kValueSize, static_cast<char>('a' + cycle % 26));
  rdb::WriteOptions write;
  write.disableWAL = true;
  const uint64_t per_batch = args.keys / (kFlushes + 1);
  for (int batch = 0; batch <= kFlushes && s.ok(); ++batch) {
    for (uint64_t i = 0; i < per_batch && s.ok(); ++i) {
      s = db->Put(write, KeyOf(args, cycle, batch * per_batch + i, true),
                  value);
    }
    if (s.ok()) s = db->Flush(rdb::FlushOptions());
    if (s.ok() && batch + 1 == kFlushes) {
      s = db->CompactRange(rdb::CompactRangeOptions(), nullptr, nullptr);
    }
  }
  std::string found;
  const uint64_t written = per_batch * (kFlushes + 1);
  for (uint64_t i = 0; i < args.gets && s.ok() && written > 0; ++i) {
    const bool present = i % 2 == 0;
    s = db->Get(rdb::ReadOptions(),
                KeyOf(args, cycle, (i / 2 * 7919) % written, present), &found);
    if (!present && s.IsNotFound()) s = rdb::Status::OK();
  }
  std::vector<rdb::LiveFileMetaData> live;
  db->GetLiveFilesMetaData(&live);
  *files = live.size();
  const rdb::Status closed = db->Close();
  return s.ok() ? closed : s;
}

int Run(const Args& args) {
  std::shared_ptr<rdb::Logger> logger;
  if (args.shared_logger) logger = std::make_shared<DroppingLogger>();
  rdb::Options shared;
  if (args.shared_options) {
    const rdb::Status s = MakeOptions(args, logger, &shared);
    if (!s.ok()) return Fail("options", 0, s);
  }
  FILE* csv = args.csv.empty() ? nullptr : std::fopen(args.csv.c_str(), "w");
  if (csv != nullptr)
    std::fprintf(csv, "cycle,files,rss_kib,heap_bytes,malloc_bytes\n");
  std::vector<Sample> samples;
  std::error_code error;
  for (int cycle = 0; cycle < args.cycles; ++cycle) {
    const std::string dir =
        args.db_dir + (args.new_dirs ? "/db-" + std::to_string(cycle) : "/db");
    rdb::Status s;
    size_t files = 0;
    if (args.shared_options) {
      s = OneCycle(args, shared, dir, cycle, &files);
    } else {
      rdb::Options options;
      s = MakeOptions(args, logger, &options);
      if (s.ok()) s = OneCycle(args, options, dir, cycle, &files);
    }
    if (!s.ok()) return Fail("cycle", cycle, s);
    if (args.new_dirs) fs::remove_all(dir, error);
    samples.push_back(Measure());
    samples.back().files = static_cast<double>(files);
    if (csv != nullptr) {
      std::fprintf(csv, "%d,%zu,%.0f,%.0f,%.0f\n", cycle + 1, files,
                   samples.back().rss_kib, samples.back().heap_bytes,
                   samples.back().malloc_bytes);
    }
  }
  if (csv != nullptr) std::fclose(csv);

  const size_t from = std::min<size_t>(args.warmup, samples.size() - 1);
  std::vector<double> rss, heap, mallocs;
  double files = 0;
  for (size_t i = from; i < samples.size(); ++i) {
    files += samples[i].files / static_cast<double>(samples.size() - from);
    rss.push_back(samples[i].rss_kib);
    heap.push_back(samples[i].heap_bytes);
    mallocs.push_back(samples[i].malloc_bytes);
  }
  // What the shared listener still keeps (0 without one, or per cycle).
  size_t watched = 0;
  for (const auto& listener : shared.listeners) {
    watched += rocksdb_plugin::WatchedDbCount(*listener);
  }
  const Sample& warm = samples[from];
  const Sample& last = samples.back();
  ResultLine()
      .Text("policy", args.policy)
      .Int("listener", args.listener)
      .Text("options", args.shared_options ? "shared" : "cycle")
      .Text("dirs", args.new_dirs ? "new" : "same")
      .Int("shared_logger", args.shared_logger)
      .Int("cycles", args.cycles)
      .Int("warmup", from)
      .Int("keys", args.keys)
      .Int("gets", args.gets)
      .RocksdbVersion(ROCKSDB_MAJOR, ROCKSDB_MINOR, ROCKSDB_PATCH)
      .Real("rss_warm_kib", warm.rss_kib, 0)
      .Real("rss_end_kib", last.rss_kib, 0)
      .Real("rss_slope_kib", Slope(rss), 3)
      .Real("heap_warm", warm.heap_bytes, 0)
      .Real("heap_end", last.heap_bytes, 0)
      .Real("heap_slope", Slope(heap), 1)
      .Real("malloc_warm", warm.malloc_bytes, 0)
      .Real("malloc_end", last.malloc_bytes, 0)
      .Real("malloc_slope", Slope(mallocs), 1)
      .Int("watched_dbs", watched)
      .Real("files_at_close", files, 2)
      .Int("file_bytes", args.file_bytes)
      .Print();
  return 0;
}

}  // namespace

int OpenCloseMain(int argc, char** argv) {
  Args args;
  Flags flags(argc, argv);
  args.listener = flags.Switch("--listener");
  args.shared_logger = flags.Switch("--shared-logger");
  std::string options = "cycle";
  std::string dirs = "new";
  flags.Get("--policy", &args.policy)
      .Get("--options", &options)
      .Get("--dirs", &dirs)
      .Get("--cycles", &args.cycles)
      .Get("--warmup", &args.warmup)
      .Get("--keys", &args.keys)
      .Get("--gets", &args.gets)
      .Get("--file-bytes", &args.file_bytes)
      .Get("--db", &args.db_dir)
      .Get("--csv", &args.csv);
  args.shared_options = options == "shared";
  args.new_dirs = dirs == "new";
  const bool valid = !args.policy.empty() && args.cycles >= 1 &&
                     args.warmup >= 0 &&
                     (options == "cycle" || options == "shared") &&
                     (dirs == "new" || dirs == "same");
  if (!flags.Done("--policy ID [--listener] [--options cycle|shared]\n"
                  "         [--dirs new|same] [--shared-logger] [--cycles N]\n"
                  "         [--warmup N] [--keys N] [--gets N]\n"
                  "         [--file-bytes N] [--db DIR] [--csv FILE]\n"
                  "(see the header of bench/db/open_close.cc)",
                  valid)) {
    return 2;
  }
  if (!MakePolicy("sstfilter-db-bench open-close", "")) return 2;
  return InDbDir(&args.db_dir, "sstfilter-cycles", /*keep=*/false,
                 [&] { return Run(args); });
}

}  // namespace sstfilter::bench
