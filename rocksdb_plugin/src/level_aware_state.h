// What LevelAware knows of the DBs it serves, and where it lives.
//
// A DB's state lives exactly as long as the LevelAwareListener watches it
// (level_aware_listener.cc): the listener owns one DbState per DB it
// watches, and a DbState one ColumnFamilyState per column family, which
// holds what is learned of its lookups (sstfilter/workload.h) and its tree
// as its tables' own properties give it: files, entries and filter bytes
// per level, kept from the jobs' file lists (one full read when the
// listener first sees the DB, then only the files a job touches).
//
// A builder finds its column family through the job running on its
// thread: RocksDB calls the listener's OnFlushBegin, OnCompactionBegin and
// OnSubcompactionBegin on the thread that then builds the job's tables, so
// the listener marks the thread with its DB (BeginJob) and the builder
// takes the column family of its context from it (JobColumnFamily). No
// listener, no job: the policy then knows no DB and uses its model.
//
// A reader gets only a block's bytes. So a learning builder makes one
// TableRecord per table and indexes each block it finishes (each partition
// of a partitioned filter is one) by a hash of its bytes (TableFingerprint)
// in one process-wide index, sharded and bounded in bytes, least recently
// used first out; a reader made for an indexed block samples its probes
// into the record (probe_sampler.h). The listener links the record to its
// file when RocksDB reports the file created on the same thread
// (OnTableFileCreated), and from then on counts the table's entries where
// its probes are expected, at its level, until the file goes: a table is
// counted whether or not a reader of it is alive (evicted readers under
// cache_index_and_filter_blocks=true, two readers of one table).
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "probe_sampler.h"
#include "rocksdb/env.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/listener.h"
#include "sstfilter/level_allocation.h"
#include "sstfilter/workload.h"

namespace sstfilter::rocksdb_plugin {

class ColumnFamilyState;

// One table LevelAware built in this process, as its readers sample it.
class TableRecord final : public ProbeSampler {
 public:
  TableRecord(std::weak_ptr<ColumnFamilyState> column_family, int level,
              uint32_t absent_weight)
      : column_family_(std::move(column_family)),
        level_(level),
        absent_weight_(absent_weight) {}

  // Adds the sample to the column family's workload at the table's level,
  // once the listener counts the table (live), else drops it.
  void Record(std::string_view key, bool may_match) const override;

  int level() const { return level_.load(std::memory_order_relaxed); }
  // Whether it is a table of `column_family`.
  bool Of(const ColumnFamilyState* column_family) const {
    return column_family_.lock().get() == column_family;
  }

  // What the builder fills in (one thread, before any reader).
  int64_t entries = 0;
  int64_t filter_bits = 0;
  int first_bucket = 0;  // LevelWorkload::BucketOf its smallest key
  int last_bucket = 0;   // and its largest
  std::vector<uint64_t> fingerprints;  // of its blocks

 private:
  friend class ColumnFamilyState;
  const std::weak_ptr<ColumnFamilyState> column_family_;
  std::atomic<int> level_;
  std::atomic<bool> live_{false};
  const uint32_t absent_weight_;  // LevelWorkload::AbsentWeight(its FPR)
};

// The fingerprint of a filter block: a hash of its size, its first and its
// last 64 bytes (the filter's bits there depend on its keys).
uint64_t TableFingerprint(std::string_view block);

// The process-wide index of blocks to their tables' records (it keeps
// none alive).
void IndexBlock(uint64_t fingerprint,
                const std::shared_ptr<TableRecord>& record);
std::shared_ptr<TableRecord> FindBlock(std::string_view block);
void UnindexTable(const TableRecord& record);

// One level of a column family's tree.
struct LevelTotals {
  int64_t files = 0;
  int64_t entries = 0;
  // Of the tables whose filter size is known (all but those listed at the
  // first read whose properties are not read yet): their entries, those of
  // the ones with a filter, and their filters' bytes.
  int64_t known_entries = 0;
  int64_t filtered_entries = 0;
  int64_t filter_bytes = 0;
};
using TreeTotals = std::array<LevelTotals, kMaxLevels>;

// A file of the tree, as the listener reports it.
struct TreeFile {
  uint64_t number = 0;
  int level = 0;
  int64_t entries = 0;
  // kUnknownBytes: not read yet; kUnreadableBytes: its properties could
  // not be read (left out of the filter bytes).
  int64_t filter_bytes = kUnknownBytes;
  std::string path;  // while the filter bytes are unknown
  static constexpr int64_t kUnknownBytes = -1;
  static constexpr int64_t kUnreadableBytes = -2;
};

// What one LevelAware policy allocated for one column family, and from
// what (level_aware_policy.cc fills it in).
struct CachedAllocation {
  std::mutex mutex;
  std::vector<int> levels;  // RocksDB's levels, the bottom first, L0 last
  std::vector<double> shares;
  std::vector<double> probes;    // absent probes per level, relative
  LevelAllocation allocation;
  uint64_t workload_version = UINT64_MAX;
  bool no_bottom_filters = false;
  double budget = 0;
};

// What is known of one column family of one DB.
class ColumnFamilyState {
 public:
  explicit ColumnFamilyState(std::string name) : name_(std::move(name)) {}
  const std::string& name() const { return name_; }
  LevelWorkload& workload() { return workload_; }
  const LevelWorkload& workload() const { return workload_; }

  // The tree: per level, from its files.
  TreeTotals Totals() const;
  // The tree a compaction of `inputs` into `output_level` leaves: the
  // inputs' entries at the output level, their filters gone (the job's
  // tables bring their own).
  TreeTotals Projected(const std::vector<uint64_t>& inputs, int output_level,
                       int64_t* input_entries) const;
  // Entries of the last flush (L0's share in a settled DB).
  int64_t flush_entries() const {
    return flush_entries_.load(std::memory_order_relaxed);
  }
  // Whether RocksDB builds no filter for the bottom
  // (optimize_filters_for_hits): seen in the tables a compaction wrote at
  // the bottom, which then have no filter.
  bool no_bottom_filters() const {
    return no_bottom_filters_.load(std::memory_order_relaxed);
  }
  // Changes whenever the tree does.
  uint64_t version() const { return version_.load(std::memory_order_acquire); }
  // RocksDB's num_levels, as the last table built for it said (0: none
  // built yet).
  int num_levels() const { return num_levels_.load(std::memory_order_relaxed); }
  void SetNumLevels(int num_levels) {
    num_levels_.store(num_levels, std::memory_order_relaxed);
  }
  // Probes sampled from its tables so far (their rate weighs column
  // families that share a memory limit).
  uint64_t samples() const { return samples_.load(std::memory_order_relaxed); }
  void CountSample() { samples_.fetch_add(1, std::memory_order_relaxed); }

  // The listener's edits. Replace: the whole tree (a full read). AddFile:
  // a new file, with the record of its table if LevelAware learns from
  // it. RemoveFile: a file gone (unknown numbers are ignored). MoveFile: a
  // trivial move. SetFilterBytes: a listed file's filter size, once read.
  void Replace(const std::vector<TreeFile>& files);
  void AddFile(const TreeFile& file, std::shared_ptr<TableRecord> record);
  void RemoveFile(uint64_t number);
  void MoveFile(uint64_t number, int level);
  void SetFilterBytes(uint64_t number, int64_t filter_bytes);
  void SetFlushEntries(int64_t entries) {
    flush_entries_.store(entries, std::memory_order_relaxed);
  }
  // A table written at the bottom `level` by a compaction: whether it has a
  // filter says whether RocksDB builds bottom filters, unless the policy
  // itself gave that level no filter (a memory limit).
  void SawBottomTable(int level, bool has_filter) {
    if (!has_filter && (no_filter_levels_.load(std::memory_order_relaxed) >>
                        std::clamp(level, 0, kMaxLevels - 1)) &
                           1) {
      return;
    }
    no_bottom_filters_.store(!has_filter, std::memory_order_relaxed);
  }
  // The policy builds no filter for `level`'s next tables (or builds one).
  void SetNoFilter(int level, bool none) {
    const uint32_t bit = uint32_t{1} << std::clamp(level, 0, kMaxLevels - 1);
    if (none) {
      no_filter_levels_.fetch_or(bit, std::memory_order_relaxed);
    } else {
      no_filter_levels_.fetch_and(~bit, std::memory_order_relaxed);
    }
  }
  // Files listed without their filter size (at most `limit`), to read.
  std::vector<TreeFile> FilesWithoutFilterBytes(size_t limit) const;
  int64_t FileCount() const;

  // The allocation a policy (by its id) made for this column family.
  std::shared_ptr<CachedAllocation> AllocationFor(const std::string& policy_id);

  // Whether the listener's line for this column family, and the line that
  // says a memory limit leaves one of its levels no filter, were logged.
  std::atomic<bool> logged{false};
  std::atomic<bool> logged_no_filter{false};

 private:
  struct File {
    int level = 0;
    int64_t entries = 0;
    int64_t filter_bytes = TreeFile::kUnknownBytes;
    std::shared_ptr<TableRecord> record;
    std::string path;  // while filter_bytes is unknown
  };
  static void Count(const File& file, int sign, TreeTotals* tree);
  void Sample(const File& file, int sign);  // the record's entries

  const std::string name_;
  LevelWorkload workload_;
  std::atomic<int64_t> flush_entries_{0};
  std::atomic<bool> no_bottom_filters_{false};
  std::atomic<uint32_t> no_filter_levels_{0};  // SetNoFilter, by level
  std::atomic<uint64_t> version_{0};
  std::atomic<uint64_t> samples_{0};
  std::atomic<int> num_levels_{0};
  mutable std::mutex mutex_;  // guards what follows
  std::unordered_map<uint64_t, File> files_;
  TreeTotals totals_{};
  std::map<std::string, std::shared_ptr<CachedAllocation>> allocations_;
};

// What is known of one DB: its column families.
class DbState {
 public:
  DbState(ROCKSDB_NAMESPACE::Logger* info_log, std::string session_id)
      : info_log_(info_log), session_id_(std::move(session_id)) {}
  ROCKSDB_NAMESPACE::Logger* info_log() const { return info_log_; }
  const std::string& session_id() const { return session_id_; }
  // Made on first use.
  std::shared_ptr<ColumnFamilyState> ColumnFamily(const std::string& name);
  // Null if the column family has not been seen.
  std::shared_ptr<ColumnFamilyState> FindColumnFamily(
      const std::string& name) const;
  std::vector<std::shared_ptr<ColumnFamilyState>> ColumnFamilies() const;

 private:
  ROCKSDB_NAMESPACE::Logger* const info_log_;
  const std::string session_id_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<ColumnFamilyState>> column_families_;
};

// The job that builds tables on this thread: the DBs it may be of (one,
// but for a compaction whose DB RocksDB does not say, CompactFiles's: then
// every DB the listener watches, told apart by the builder's logger), its
// output level, and, for a compaction whose inputs are known, its column
// family and the tree it leaves (its inputs' entries at its output level,
// their filters gone).
struct Job {
  std::vector<std::weak_ptr<DbState>> dbs;
  int output_level = 0;
  std::string column_family;
  std::shared_ptr<const TreeTotals> tree;
  int64_t input_entries = 0;  // what the compaction rewrites
};
void BeginJob(Job job);
void EndJob();
// The output level of the job on this thread, or -1 if none runs here.
int JobOutputLevel();

// What a builder sees of its job: its column family and the tree to
// build for. Null column family: no job of a watched DB runs here for
// `context` (no listener, a table built outside a flush or compaction).
struct JobView {
  std::shared_ptr<ColumnFamilyState> column_family;
  TreeTotals tree{};
  // Whether `tree` leaves out what the job replaces (a flush replaces
  // nothing; a compaction whose inputs RocksDB did not report, CompactFiles's,
  // still counts its inputs' filters).
  bool complete = false;
  // The entries the job writes, about (a compaction's inputs', a flush's
  // the last flush's), when `complete`.
  int64_t job_entries = 0;
};
JobView JobColumnFamily(
    const ROCKSDB_NAMESPACE::FilterBuildingContext& context);

// What `listener` (a sstfilter.LevelAwareListener) keeps of column family
// `name` of `db`, or null: for tests and tools.
std::shared_ptr<ColumnFamilyState> WatchedColumnFamily(
    ROCKSDB_NAMESPACE::EventListener& listener, ROCKSDB_NAMESPACE::DB* db,
    const std::string& name);

// How many DBs `listener` keeps a state for (0 if it is not ours).
size_t WatchedDbCount(ROCKSDB_NAMESPACE::EventListener& listener);
// (Tests) The records the block index finds alive: tables of open DBs.
size_t LiveIndexedRecords();

// The table the last learning builder on this thread finished, for the
// listener's OnTableFileCreated on the same thread.
void SetBuiltTable(std::shared_ptr<TableRecord> record);
std::shared_ptr<TableRecord> TakeBuiltTable();

}  // namespace sstfilter::rocksdb_plugin
