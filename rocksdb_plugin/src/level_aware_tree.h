// What LevelAware knows of the DBs it serves: per DB its column families,
// per column family its tree of SST files and what is learned of its
// lookups.
//
// A DB's state lives exactly as long as the LevelAwareListener watches it
// (level_aware_listener.h): the listener owns one DbState per DB, and a
// DbState one ColumnFamilyTree per column family. A tree holds each live
// SST file's level, entries, keys added and filter bytes, from the file's
// own table properties (TableFileCreationInfo, CompactionJobInfo), and the
// compactions running, whose inputs leave the tree's filters when they
// begin and whose keys then count at their output level. From these it
// keeps per-level totals, so that a table's build reads the tree in
// O(levels). A file whose properties are not known (listed at the first
// read of a column family whose properties RocksDB gives no way to read
// without a handle) counts by its entries until a compaction reports them.
//
// The listener's first read of a DB (DB::GetLiveFilesMetaData) races with
// the jobs that run meanwhile: the edits made while it reads are replayed
// over what it read (BeginRead, Replace).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "block_index.h"
#include "rocksdb/env.h"
#include "sstfilter/level_allocation.h"
#include "sstfilter/workload.h"

namespace sstfilter::rocksdb_plugin {

// A filter block of at most this many bytes holds no filter: RocksDB's
// "no keys" (5 bytes or less) and the block LevelAware writes where a
// memory limit gives a level no filter (level_aware_builder.h, 13 bytes).
// The smallest real filter of any kind is 28 bytes (an empty BlockedBloom).
inline constexpr int64_t kNoFilterBytes = 16;

// One level of a column family's tree: its files not being compacted.
struct LevelTotals {
  int64_t files = 0;
  int64_t entries = 0;
  // Keys added (num_filter_entries; a file whose properties are unknown
  // counts its entries), over all files.
  int64_t keys = 0;
  // Of the files whose properties are known: the keys and bits of those
  // with a filter, and the bits of those without one.
  int64_t filtered_keys = 0;
  int64_t filter_bits = 0;
  int64_t unfiltered_bits = 0;
  // Keys of files whose properties are not known.
  int64_t unknown_keys = 0;
  // Keys the running compactions into this level will still write: their
  // inputs' keys less their outputs' so far.
  int64_t incoming_keys = 0;
};
using TreeTotals = std::array<LevelTotals, kMaxLevels>;

// A column family's tree as one table's build reads it.
struct TreeSnapshot {
  TreeTotals levels{};
  int64_t flush_keys = 0;  // keys of the last flush (L0's run to come)
  // The files L0 holds when it is compacted: as many as the last
  // compaction of L0 took (about level0_file_num_compaction_trigger), or,
  // before one, the most it held. The flushes to come before L0 is
  // compacted are this less what it holds.
  int64_t l0_runs = 0;
  // Keys added to files that joined the tree, ever: a memory limit's
  // account's clock.
  int64_t keys_built = 0;
};

// A file of the tree. Unknown properties: keys = -1 (entries stand in).
struct TreeFile {
  uint64_t number = 0;
  int level = 0;
  int64_t entries = 0;
  int64_t keys = -1;          // num_filter_entries
  int64_t filter_bytes = -1;  // filter_size
  // Its filter_policy_name names a policy other than LevelAware.
  bool other_policy = false;
  int64_t data_bytes = -1;   // data_size
  int64_t index_bytes = -1;  // index_size
  bool known() const { return keys >= 0 && filter_bytes >= 0; }
};

// The filter memory a column family's files hold (ColumnFamilyTree::Held).
struct HeldFilters {
  int64_t bytes = 0;            // of the files whose properties are known
  int64_t unknown_entries = 0;  // of those whose properties are not
  // Every file's entries, and the entries, data and index bytes of those
  // whose data and index sizes are known (size_for_cache).
  int64_t entries = 0;
  int64_t sized_entries = 0;
  int64_t data_bytes = 0;
  int64_t index_bytes = 0;
};

// What one LevelAware policy keeps per column family (by its settings): a
// cache of its last allocation, keyed by the rule's exact inputs
// (level_aware_allocation.cc, AllocationOf): the same inputs give the same
// allocation, whatever came before.
struct PolicyState {
  std::mutex mutex;
  std::vector<int64_t> inputs;
  LevelAllocation allocation;
  // size_for_cache: the rounded inputs of the last average chosen for the
  // cache, that average, and the last one the LOG was told.
  std::vector<int64_t> cache_inputs;
  double cache_average = 0;
  double logged_average = -1;
};

class ColumnFamilyTree {
 public:
  ColumnFamilyTree(std::string name, int64_t id)
      : name_(std::move(name)), id_(id) {}
  const std::string& name() const { return name_; }
  // RocksDB's column family id, or -1 until a job says it.
  int64_t id() const { return id_.load(std::memory_order_relaxed); }
  void set_id(int64_t id) { id_.store(id, std::memory_order_relaxed); }

  LevelWorkload& workload() { return workload_; }
  const LevelWorkload& workload() const { return workload_; }
  // LevelWorkload::MaybeRefresh with the keys each level holds now.
  bool MaybeRefresh();

  TreeSnapshot Snapshot() const;
  TreeTotals Totals() const { return Snapshot().levels; }

  // The listener's edits. AddFile: a new file, with the record of its
  // table if LevelAware learns from it, written by compaction `job_id` (or
  // -1). RemoveFile: a file gone (unknown numbers are ignored). MoveFile: a
  // trivial move. SetProperties: a listed file's keys and filter bytes,
  // once known.
  void AddFile(const TreeFile& file, std::shared_ptr<TableRecord> record,
               int job_id = -1);
  void RemoveFile(uint64_t number);
  void MoveFile(uint64_t number, int level);
  void SetProperties(uint64_t number, int64_t keys, int64_t filter_bytes);
  // A compaction `job_id` of `inputs` into `output_level` begins (its
  // inputs leave the filters, their keys count at the output level) or
  // ends: done, its inputs go but those `moved` whole to the level given
  // (a trivial move); failed, they stay.
  void BeginCompaction(int job_id, const std::vector<TreeFile>& inputs,
                       int output_level);
  void EndCompaction(int job_id, bool done,
                     const std::vector<TreeFile>& moved = {});
  // The output level of running compaction `job_id`, or -1.
  int OutputLevelOf(int job_id) const;
  // No file and no compaction running.
  bool Empty() const;

  // The first read: BeginRead before listing the files, Replace with the
  // list; edits made in between are replayed over it.
  void BeginRead();
  void Replace(const std::vector<TreeFile>& files);

  void SetFlushKeys(int64_t keys) {
    flush_keys_.store(keys, std::memory_order_relaxed);
  }
  // Whether RocksDB builds no filter for the bottom
  // (optimize_filters_for_hits): seen in the files a compaction wrote at
  // the bottom, which then have no filter block at all (where a memory
  // limit leaves a file no filter, LevelAware writes a block that says so).
  bool no_bottom_filters() const {
    return no_bottom_filters_.load(std::memory_order_relaxed);
  }
  void SawBottomTable(bool has_filter_block);
  // RocksDB's num_levels, as the last table built for it said (0: none).
  int num_levels() const { return num_levels_.load(std::memory_order_relaxed); }
  void SetNumLevels(int n) { num_levels_.store(n, std::memory_order_relaxed); }
  // Probes sampled from its files so far (their count weighs column
  // families that share a memory limit).
  uint64_t samples() const { return samples_.load(std::memory_order_relaxed); }
  void CountSample() { samples_.fetch_add(1, std::memory_order_relaxed); }

  // What the policy of `settings_key` keeps here (made on first use).
  std::shared_ptr<PolicyState> PolicyStateFor(const std::string& settings_key);
  // A memory limit's view (memory_ledger.h). Held: the filters of every
  // file from its creation (or first listing) until RocksDB reports it
  // deleted, the inputs of running compactions and the files a finished
  // one replaced included. Replaceable: the filter bytes of running
  // compaction `job_id`'s inputs not deleted yet, which leave when it
  // ends.
  HeldFilters Held() const;
  int64_t Replaceable(int job_id) const;
  // The keys running compaction `job_id` has still to write (its inputs'
  // less its outputs' so far, at least 0), or -1 if none runs.
  int64_t KeysToWrite(int job_id) const;
  // Policy object `owner` builds this column family's tables (MarkBuiltBy);
  // whether another one did since the DB opened, or a live file names a
  // filter policy other than LevelAware (a column family that shows
  // neither is taken to be of any LevelAware that asks).
  void MarkBuiltBy(uint64_t owner);
  bool OfAnotherPolicy(uint64_t owner) const;

  // Whether the LOG lines about this column family were written.
  std::atomic<bool> logged{false};
  std::atomic<bool> logged_no_filter{false};

 private:
  struct File {
    TreeFile file;
    std::shared_ptr<TableRecord> record;
    int job = -1;  // the running compaction it is an input of
  };
  struct Running {
    int output_level = 0;
    std::vector<uint64_t> inputs;
    int64_t input_keys = 0;
    int64_t output_keys = 0;  // of the files it wrote so far
    int64_t input_bytes = 0;  // its inputs' filters not deleted yet
    bool journaled = false;   // began while the first read listed files
  };
  // An edit made while the first read lists the files.
  struct Edit {
    enum Kind { kAdd, kRemove, kMove, kProperties, kBegin, kEnd } kind;
    TreeFile file;
    std::shared_ptr<TableRecord> record;
    std::vector<TreeFile> inputs;
    int job_id = 0;
    bool done = false;
  };

  void Count(const File& file, int sign);     // into totals_
  void Hold(const TreeFile& file, int sign);  // into held_
  void Sample(const File& file, int sign);    // the record's keys
  void Commit(Edit edit);                     // needs mutex_
  void Apply(Edit edit);                      // needs mutex_
  void AddLocked(const TreeFile& file, std::shared_ptr<TableRecord> record,
                 int job_id);
  // Moves `job`'s keys in and out, and the incoming keys of its level.
  void Incoming(Running& job, int64_t input_keys, int64_t output_keys);
  // A file leaves the tree; `deleted`: RocksDB deleted it (it leaves
  // held_ too), else a finished compaction replaced it (it stays in
  // held_, as retired_, until deleted).
  void RemoveLocked(uint64_t number, bool deleted);
  void MoveLocked(uint64_t number, int level);
  void SetPropertiesLocked(uint64_t number, int64_t keys, int64_t filter_bytes);
  void BeginLocked(int job_id, const std::vector<TreeFile>& inputs,
                   int output_level);
  void EndLocked(int job_id, bool done, const std::vector<TreeFile>& moved);

  const std::string name_;
  std::atomic<int64_t> id_;
  LevelWorkload workload_;
  std::atomic<int64_t> flush_keys_{0};
  std::atomic<bool> no_bottom_filters_{false};
  std::atomic<uint64_t> samples_{0};
  std::atomic<int> num_levels_{0};
  mutable std::mutex mutex_;  // guards what follows
  std::unordered_map<uint64_t, File> files_;
  std::unordered_map<uint64_t, TreeFile> retired_;  // replaced, not deleted
  HeldFilters held_;
  int64_t other_policy_files_ = 0;  // of files_ and retired_
  std::vector<uint64_t> owners_;    // MarkBuiltBy, the last few
  std::map<int, Running> running_;
  int64_t keys_built_ = 0;
  int64_t l0_runs_ = 0;
  bool l0_compacted_ = false;  // l0_runs_ is the last L0 compaction's
  TreeTotals totals_{};
  int reading_ = 0;
  std::vector<Edit> journal_;
  std::map<std::string, std::shared_ptr<PolicyState>> policies_;
};

// What is known of one DB: its column families.
class DbState {
 public:
  DbState(const std::shared_ptr<ROCKSDB_NAMESPACE::Logger>& info_log,
          std::string session_id)
      : info_log_(info_log),
        has_info_log_(info_log != nullptr),
        session_id_(std::move(session_id)) {}
  // Whether `logger` (a builder's context's) is this DB's, alive: a
  // logger gone, or another at its address, is not.
  bool IsLogger(const ROCKSDB_NAMESPACE::Logger* logger) const {
    if (!has_info_log_) return logger == nullptr;
    const auto held = info_log_.lock();
    return held != nullptr && held.get() == logger;
  }
  // The DB's logger, or null once gone.
  std::shared_ptr<ROCKSDB_NAMESPACE::Logger> info_log() const {
    return info_log_.lock();
  }
  const std::string& session_id() const { return session_id_; }
  // The column family `name`, made on first use. A known `id` other than
  // the one it had means it was dropped and made again: it starts anew.
  std::shared_ptr<ColumnFamilyTree> ColumnFamily(const std::string& name,
                                                 int64_t id = -1);
  // Null if the column family has not been seen.
  std::shared_ptr<ColumnFamilyTree> FindColumnFamily(
      const std::string& name) const;
  std::vector<std::shared_ptr<ColumnFamilyTree>> ColumnFamilies() const;
  // A read of the DB's files: BeginRead before listing them, FinishRead
  // with the list by column family, which replaces every tree's files
  // with it (trees made meanwhile too), the edits made in between
  // replayed over it (ColumnFamilyTree::BeginRead).
  void BeginRead();
  void FinishRead(const std::map<std::string, std::vector<TreeFile>>& listed);
  // Forgets `tree` once it holds no file (a column family dropped, or one
  // whose every key is gone: a new tree serves it if it comes back).
  void DropIfEmpty(const std::shared_ptr<ColumnFamilyTree>& tree);

 private:
  const std::weak_ptr<ROCKSDB_NAMESPACE::Logger> info_log_;
  const bool has_info_log_;
  const std::string session_id_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<ColumnFamilyTree>> column_families_;
  int reading_ = 0;
};

}  // namespace sstfilter::rocksdb_plugin
