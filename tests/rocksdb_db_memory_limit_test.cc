// sstfilter.LevelAware's memory_limit in real databases that RocksDB
// compacts itself (dynamic layout, trees only the writes decide:
// PutSettled), with sstfilter.LevelAwareListener.
//
// What the limit promises (memory_ledger.h), checked here by a listener of
// the test's own that counts every file's filter_size from RocksDB's
// report of its creation to that of its deletion, at every report:
// - the live filters never exceed the limit by more than the filters of
//   the outputs of the compactions whose inputs are not deleted yet (both
//   are live while one runs), whatever the writes and compactions do;
// - once the tree settles after the limit binds, they hold at least 0.95x
//   of it, small DBs of 64 KiB files included;
// - only the column families and DBs of the policy object count: two DBs
//   sharing it hold it together, and a column family of bloomfilter
//   beside a limited one is not counted in its limit;
// - a limit too small for any filter loses no key.
// (bench/ grows DBs of 2*10^6 keys: bench/README.md.)
#include <gtest/gtest.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#include "rocksdb/listener.h"
#include "rocksdb_db_support.h"

namespace sstfilter::test_support {
namespace {

// The file number in a table file's path ("/db/000123.sst"), or 0.
uint64_t NumberOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return std::strtoull(
      path.c_str() + (slash == std::string::npos ? 0 : slash + 1), nullptr, 10);
}

// The live filters of the DBs it is a listener of, as RocksDB reports
// them, checked against `limit` at each report (see the top).
class LiveFilterWatch : public rdb::EventListener {
 public:
  explicit LiveFilterWatch(uint64_t limit) : limit_(limit) {}
  const char* Name() const override { return "LiveFilterWatch"; }

  // Files that were there before the listener saw them (a reopen).
  void Seed(rdb::DB* db) {
    rdb::TablePropertiesCollection all;
    ASSERT_TRUE(db->GetPropertiesOfAllTables(&all).ok());
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [path, p] : all) {
      Add({db->GetName(), NumberOf(path)}, p->filter_size);
    }
  }

  void OnCompactionBegin(rdb::DB* db,
                         const rdb::CompactionJobInfo& info) override {
    std::lock_guard<std::mutex> lock(mutex_);
    Job& job = jobs_[{db->GetName(), info.job_id}];
    for (const auto& input : info.input_file_infos) {
      job.inputs.insert(input.file_number);
    }
  }
  void OnCompactionCompleted(rdb::DB* db,
                             const rdb::CompactionJobInfo& info) override {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = jobs_.find({db->GetName(), info.job_id});
    if (found == jobs_.end()) return;
    // A trivial move keeps its input: it will not be deleted.
    for (const auto& output : info.output_file_infos) {
      found->second.inputs.erase(output.file_number);
    }
    found->second.completed = true;
    if (found->second.inputs.empty()) jobs_.erase(found);
  }
  void OnTableFileCreated(const rdb::TableFileCreationInfo& info) override {
    if (!info.status.ok()) return;
    std::lock_guard<std::mutex> lock(mutex_);
    const uint64_t bytes = info.table_properties.filter_size;
    if (info.reason == rdb::TableFileCreationReason::kCompaction) {
      auto found = jobs_.find({info.db_name, info.job_id});
      if (found != jobs_.end()) found->second.output_bytes += bytes;
    }
    Add({info.db_name, NumberOf(info.file_path)}, bytes);
    if (info.reason == rdb::TableFileCreationReason::kFlush) {
      ++flushes_;
      if (bytes <= 16) ++flushes_without_filter_;
    }
    Check();
  }
  void OnTableFileDeleted(const rdb::TableFileDeletionInfo& info) override {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::pair<std::string, uint64_t> file{info.db_name,
                                                NumberOf(info.file_path)};
    auto found = live_.find(file);
    if (found != live_.end()) {
      total_ -= found->second;
      live_.erase(found);
    }
    for (auto it = jobs_.begin(); it != jobs_.end();) {
      if (it->first.first == info.db_name) it->second.inputs.erase(file.second);
      it = it->second.completed && it->second.inputs.empty() ? jobs_.erase(it)
                                                             : std::next(it);
    }
    Check();
  }

  // The files of `db_name` it holds live.
  size_t LiveFiles(const std::string& db_name) const {
    std::lock_guard<std::mutex> lock(mutex_);
    size_t n = 0;
    for (const auto& [file, bytes] : live_) n += file.first == db_name ? 1 : 0;
    return n;
  }

  // The most the live filters exceeded the limit by, beyond the allowance
  // (0 if never), and the reports checked.
  int64_t worst_excess() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return worst_excess_;
  }
  uint64_t checks() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return checks_;
  }
  // Flushes, and those the limit left without a filter.
  uint64_t flushes() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return flushes_;
  }
  uint64_t flushes_without_filter() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return flushes_without_filter_;
  }
  // The peak of the live filters over the limit, allowance included.
  double peak_ratio() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return static_cast<double>(peak_) / static_cast<double>(limit_);
  }

 private:
  struct Job {
    std::set<uint64_t> inputs;  // not deleted yet
    uint64_t output_bytes = 0;
    bool completed = false;
  };
  void Add(const std::pair<std::string, uint64_t>& file, uint64_t bytes) {
    if (live_.emplace(file, bytes).second) total_ += bytes;
  }
  void Check() {
    uint64_t allowance = 0;
    for (const auto& [key, job] : jobs_) allowance += job.output_bytes;
    const int64_t excess =
        static_cast<int64_t>(total_) - static_cast<int64_t>(limit_ + allowance);
    worst_excess_ = std::max(worst_excess_, excess);
    peak_ = std::max(peak_, total_);
    ++checks_;
  }

  const uint64_t limit_;
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, uint64_t>, uint64_t> live_;
  std::map<std::pair<std::string, int>, Job> jobs_;
  uint64_t total_ = 0;
  uint64_t peak_ = 0;
  int64_t worst_excess_ = 0;
  uint64_t checks_ = 0;
  uint64_t flushes_ = 0;
  uint64_t flushes_without_filter_ = 0;
};

rdb::Options LimitedOptions(const std::string& policy,
                            const std::shared_ptr<LiveFilterWatch>& watch,
                            bool partitioned = false) {
  DbConfig config;
  config.policy = policy;
  config.partitioned = partitioned;
  rdb::Options options =
      WithLevelAwareListener(SettledOptions(config, /*dynamic_layout=*/true));
  options.listeners.push_back(watch);
  return options;
}

// Waits until RocksDB deleted the files its compactions replaced and the
// listeners heard of it (the watch is told after LevelAware's listener):
// RocksDB deletes them after a compaction counts as done, so without this
// the next flush would find them counted or not as the threads ran.
void WaitForDeletions(rdb::DB* db, const LiveFilterWatch& watch) {
  for (int i = 0; i < 60000; ++i) {
    std::vector<rdb::LiveFileMetaData> live;
    db->GetLiveFilesMetaData(&live);
    if (watch.LiveFiles(db->GetName()) == live.size()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ADD_FAILURE() << "replaced files not deleted within a minute";
}

// PutSettled with the replaced files' deletions waited for after each
// flush's compactions: a tree and a ledger that only the writes decide.
void PutSettledAndDeleted(rdb::DB* db, const LiveFilterWatch& watch,
                          const std::vector<uint64_t>& ids) {
  constexpr size_t kKeysPerFlush = 250;
  for (size_t start = 0; start < ids.size(); start += kKeysPerFlush) {
    const size_t end = std::min(ids.size(), start + kKeysPerFlush);
    PutSettled(db,
               std::vector<uint64_t>(ids.begin() + start, ids.begin() + end),
               Key, kKeysPerFlush);
    WaitForDeletions(db, watch);
  }
}

// One stage of growth: `keys` new keys from `first` (flushes of 250) and
// absent Gets, so that every level is probed.
void Grow(rdb::DB* db, const LiveFilterWatch& watch, uint64_t first,
          uint64_t keys) {
  PutSettledAndDeleted(db, watch, Range(first, keys));
  GetAll(db, Range(1000000000 + first, keys * 2));
}

double Ratio(uint64_t bytes, uint64_t limit) {
  return static_cast<double>(bytes) / static_cast<double>(limit);
}

// Grows a DB in 8 stages of `stage` keys past a limit that binds at stage
// `binds`: never past the limit (see the top), at least `settled` of it
// once settled, and every key found.
void GrowPastTheLimit(uint64_t stage, uint64_t limit_bytes, uint64_t binds,
                      double settled, bool partitioned = false) {
  auto watch = std::make_shared<LiveFilterWatch>(limit_bytes);
  TempDir dir;
  auto db = Open(LimitedOptions("sstfilter.LevelAware:10:memory_limit=" +
                                    std::to_string(limit_bytes),
                                watch, partitioned),
                 dir.path());
  ASSERT_NE(db, nullptr);
  for (uint64_t s = 1; s <= 8; ++s) {
    Grow(db.get(), *watch, (s - 1) * stage, stage);
    const LookupCounts all = MultiGetAll(db.get(), Range(0, s * stage));
    EXPECT_EQ(all.found, s * stage) << "stage " << s;
    EXPECT_EQ(all.errors, 0u);
    const FilterMemory memory = FilterMemoryOf(db.get());
    const double ratio = Ratio(memory.bytes, limit_bytes);
    std::printf("[ stage %" PRIu64 ": %" PRIu64 " keys, %" PRIu64
                " filter bytes, %.3f x the limit settled, peak %.3f x ]\n",
                s, s * stage, memory.bytes, ratio, watch->peak_ratio());
    EXPECT_LE(memory.bytes, limit_bytes) << "stage " << s;
    if (s >= binds) {
      EXPECT_GE(ratio, settled) << "stage " << s;
    }
  }
  std::printf("[ %" PRIu64 " flushes, %" PRIu64 " without a filter ]\n",
              watch->flushes(), watch->flushes_without_filter());
  EXPECT_GT(watch->checks(), 100u);
  EXPECT_LE(watch->worst_excess(), 0)
      << "the live filters passed the limit beyond the running compactions' "
         "outputs";
}

// 25,000 keys a stage in 64 KiB files: 10 bits/key at 80,000 keys.
// Measured: 0.963-0.982x settled at stages 4-8.
TEST(RocksdbDbMemoryLimit, AGrowingDbHoldsItsLimitAndFillsIt) {
  GrowPastTheLimit(25000, 100000, 4, 0.95);
}

// A limit that binds from the first stage (10 bits/key at 25,000 keys,
// 1.25 at 200,000). What the rule keeps for the four flushes L0 holds
// before its compaction (at L0's bits, up to 25/key once the bottom has no
// filter) is idle when a stage ends with L0 empty: up to a tenth of so
// small a limit. Measured: 0.852-0.956x settled at stages 1-8.
TEST(RocksdbDbMemoryLimit, ASmallDbHoldsItsLimitFromTheStart) {
  GrowPastTheLimit(25000, 31250, 1, 0.82);
}

// Partitioned filters in the block cache (cache_index_and_filter_blocks,
// the top level pinned by RocksDB's defaults for a two-level index): each
// partition is fitted as it is finished, and the limit counts the filters
// whether the cache holds them or not (a bound on what the cache can be
// asked to hold for them; the cache's capacity bounds what it does hold).
TEST(RocksdbDbMemoryLimit, PartitionedFiltersInTheBlockCacheHoldTheLimit) {
  GrowPastTheLimit(25000, 100000, 4, 0.95, /*partitioned=*/true);
}

// Universal compaction: LevelAware gives every table the one-level filter,
// and under a limit holds each to what is free, as in a leveled tree.
TEST(RocksdbDbMemoryLimit, UniversalCompactionHoldsTheLimit) {
  constexpr uint64_t kLimitBytes = 60000;
  auto watch = std::make_shared<LiveFilterWatch>(kLimitBytes);
  rdb::Options options = LimitedOptions(
      "sstfilter.LevelAware:10:memory_limit=" + std::to_string(kLimitBytes),
      watch);
  options.compaction_style = rdb::kCompactionStyleUniversal;
  TempDir dir;
  auto db = Open(options, dir.path());
  ASSERT_NE(db, nullptr);
  // Flushes of 1,000 keys with RocksDB's compactions running beside them
  // (the limit holds whatever the timing), then one full compaction.
  for (uint64_t start = 0; start < 100000; start += 1000) {
    Put(db.get(), Range(start, 1000));
    Flush(db.get());
  }
  ASSERT_TRUE(
      db->CompactRange(rdb::CompactRangeOptions(), nullptr, nullptr).ok());
  WaitForDeletions(db.get(), *watch);
  const FilterMemory memory = FilterMemoryOf(db.get());
  std::printf("[ universal: %.3f x the limit settled, peak %.3f x ]\n",
              Ratio(memory.bytes, kLimitBytes), watch->peak_ratio());
  EXPECT_LE(watch->worst_excess(), 0);
  EXPECT_LE(memory.bytes, kLimitBytes);
  EXPECT_EQ(MultiGetAll(db.get(), Range(0, 100000)).found, 100000u);
}

// Closed and opened again: the files it holds count from the first read,
// and the limit holds as it grows on.
TEST(RocksdbDbMemoryLimit, AReopenedDbCountsTheFilesItHolds) {
  constexpr uint64_t kStage = 25000;
  constexpr uint64_t kLimitBytes = 60000;
  const std::string policy =
      "sstfilter.LevelAware:10:memory_limit=" + std::to_string(kLimitBytes);
  TempDir dir;
  {
    auto watch = std::make_shared<LiveFilterWatch>(kLimitBytes);
    auto db = Open(LimitedOptions(policy, watch), dir.path());
    ASSERT_NE(db, nullptr);
    for (uint64_t s = 0; s < 3; ++s) Grow(db.get(), *watch, s * kStage, kStage);
  }
  auto watch = std::make_shared<LiveFilterWatch>(kLimitBytes);
  auto db = Open(LimitedOptions(policy, watch), dir.path());
  ASSERT_NE(db, nullptr);
  watch->Seed(db.get());
  for (uint64_t s = 3; s < 6; ++s) Grow(db.get(), *watch, s * kStage, kStage);
  const FilterMemory memory = FilterMemoryOf(db.get());
  std::printf("[ reopened: %.3f x the limit settled, peak %.3f x ]\n",
              Ratio(memory.bytes, kLimitBytes), watch->peak_ratio());
  EXPECT_LE(watch->worst_excess(), 0);
  EXPECT_LE(memory.bytes, kLimitBytes);
  EXPECT_GE(Ratio(memory.bytes, kLimitBytes), 0.95);
  EXPECT_EQ(MultiGetAll(db.get(), Range(0, 6 * kStage)).found, 6 * kStage);
}

// Two DBs whose options share one policy object share its limit: never
// past it together, at least 0.95x of it settled, and the DB whose filters
// are probed more (twice the keys, ten times the absent Gets) holds more.
TEST(RocksdbDbMemoryLimit, TwoDbsShareOneLimit) {
  constexpr uint64_t kLimitBytes = 120000;
  auto watch = std::make_shared<LiveFilterWatch>(kLimitBytes);
  const rdb::Options options = LimitedOptions(
      "sstfilter.LevelAware:10:memory_limit=" + std::to_string(kLimitBytes),
      watch);
  TempDir busy_dir, quiet_dir;
  auto busy = Open(options, busy_dir.path());
  auto quiet = Open(options, quiet_dir.path());
  ASSERT_NE(busy, nullptr);
  ASSERT_NE(quiet, nullptr);
  for (uint64_t s = 0; s < 6; ++s) {
    PutSettledAndDeleted(busy.get(), *watch, Range(s * 30000, 30000));
    PutSettledAndDeleted(quiet.get(), *watch, Range(s * 15000, 15000));
    GetAll(busy.get(), Range(1000000000, 60000));
    GetAll(quiet.get(), Range(1000000000, 6000));
  }
  const uint64_t busy_bytes = FilterMemoryOf(busy.get()).bytes;
  const uint64_t quiet_bytes = FilterMemoryOf(quiet.get()).bytes;
  const double total = Ratio(busy_bytes + quiet_bytes, kLimitBytes);
  std::printf("[ busy %" PRIu64 " bytes (%.2f bits/key), quiet %" PRIu64
              " (%.2f): %.3f x the limit, peak %.3f x ]\n",
              busy_bytes, busy_bytes * 8.0 / 180000, quiet_bytes,
              quiet_bytes * 8.0 / 90000, total, watch->peak_ratio());
  EXPECT_LE(watch->worst_excess(), 0);
  EXPECT_LE(total, 1.0);
  EXPECT_GE(total, 0.95);
  EXPECT_GT(busy_bytes * 8.0 / 180000, quiet_bytes * 8.0 / 90000)
      << "the busier DB holds more per key";
  EXPECT_EQ(MultiGetAll(busy.get(), Range(0, 180000)).found, 180000u);
  EXPECT_EQ(MultiGetAll(quiet.get(), Range(0, 90000)).found, 90000u);
}

// The filter bytes of column family `cf`'s live SST files.
uint64_t FilterBytesOf(rdb::DB* db, rdb::ColumnFamilyHandle* cf) {
  rdb::TablePropertiesCollection all;
  EXPECT_TRUE(db->GetPropertiesOfAllTables(cf, &all).ok());
  uint64_t bytes = 0;
  for (const auto& [path, p] : all) bytes += p->filter_size;
  return bytes;
}

// A column family of bloomfilter:10 beside the limited one holds filters
// of its own; the limit counts only the limited column family's, which
// fill it.
TEST(RocksdbDbMemoryLimit, AColumnFamilyOfAnotherPolicyIsNotCounted) {
  constexpr uint64_t kLimitBytes = 60000;
  auto watch = std::make_shared<LiveFilterWatch>(UINT64_MAX / 2);
  rdb::Options options = LimitedOptions(
      "sstfilter.LevelAware:10:memory_limit=" + std::to_string(kLimitBytes),
      watch);
  TempDir dir;
  auto db = Open(options, dir.path());
  ASSERT_NE(db, nullptr);
  DbConfig bloom;
  bloom.policy = "bloomfilter:10";
  rdb::ColumnFamilyOptions other_options(
      SettledOptions(bloom, /*dynamic_layout=*/true));
  rdb::ColumnFamilyHandle* raw = nullptr;
  ASSERT_TRUE(db->CreateColumnFamily(other_options, "other", &raw).ok());
  std::unique_ptr<rdb::ColumnFamilyHandle> other(raw);
  // The other column family first: its filters are there when the
  // limited one builds.
  rdb::WriteOptions write_options;
  write_options.disableWAL = true;
  for (uint64_t i = 0; i < 100000; ++i) {
    ASSERT_TRUE(db->Put(write_options, other.get(), Key(i), Value(i)).ok());
    if (i % 5000 == 4999) {
      ASSERT_TRUE(db->Flush(rdb::FlushOptions(), other.get()).ok());
      ASSERT_TRUE(rocksdb_compat::WaitForCompactions(db.get()).ok());
      WaitForDeletions(db.get(), *watch);
    }
  }
  for (uint64_t s = 0; s < 4; ++s) Grow(db.get(), *watch, s * 25000, 25000);
  const uint64_t limited = FilterMemoryOf(db.get()).bytes;
  const uint64_t others = FilterBytesOf(db.get(), other.get());
  std::printf("[ limited %" PRIu64
              " bytes (%.3f x its limit), bloomfilter "
              "%" PRIu64 " ]\n",
              limited, Ratio(limited, kLimitBytes), others);
  EXPECT_GT(others, 100000u) << "bloomfilter:10's own filters";
  EXPECT_LE(limited, kLimitBytes);
  EXPECT_GE(Ratio(limited, kLimitBytes), 0.95);
  ASSERT_TRUE(db->DropColumnFamily(other.get()).ok());
}

// A limit that leaves under a bit per key: the least probed levels, and
// flushes that find nothing free, get no filter (RocksDB reads their
// tables as "may match"); the limit still holds, every key is found, and
// the LOG says so once.
TEST(RocksdbDbMemoryLimit, ALimitTooSmallForEveryLevelLosesNoKey) {
  constexpr uint64_t kKeys = 100000;
  constexpr uint64_t kLimitBytes = 4096;
  auto watch = std::make_shared<LiveFilterWatch>(kLimitBytes);
  TempDir dir;
  {
    auto db =
        Open(LimitedOptions("sstfilter.LevelAware:10:memory_limit=4K", watch),
             dir.path());
    ASSERT_NE(db, nullptr);
    PutSettledAndDeleted(db.get(), *watch, Range(0, kKeys));
    // Rewritten under the limit.
    PutSettledAndDeleted(db.get(), *watch, Range(0, kKeys / 2));
    const LookupCounts all = MultiGetAll(db.get(), Range(0, kKeys));
    EXPECT_EQ(all.found, kKeys);
    EXPECT_EQ(all.errors, 0u);
    std::string value;
    for (uint64_t i = 0; i < kKeys; i += 7) {
      ASSERT_TRUE(db->Get(rdb::ReadOptions(), Key(i), &value).ok()) << i;
    }
    EXPECT_LE(FilterMemoryOf(db.get()).bytes, kLimitBytes);
    EXPECT_LE(watch->worst_excess(), 0);
  }
  std::ifstream in(dir.path() + "/LOG");
  std::stringstream log;
  log << in.rdbuf();
  const std::string text = log.str();
  size_t lines = 0;
  for (size_t at = text.find("get no filter"); at != std::string::npos;
       at = text.find("get no filter", at + 1)) {
    ++lines;
  }
  EXPECT_EQ(lines, 1u);
}

}  // namespace
}  // namespace sstfilter::test_support
