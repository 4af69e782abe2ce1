// A memory limit's ledger (LevelAware's memory_limit): the filter bytes of
// every live file of the column families one policy object serves, from
// each file's creation until RocksDB deletes it, and the bytes reserved
// for the filter blocks being finished, so that a new filter block is
// given at most what the limit leaves free.
//
// What it counts: the column families of the DBs this policy object built
// a table for since each opened, but those another policy builds for
// (ColumnFamilyTree::OfAnotherPolicy): a column family of bloomfilter, or
// of another LevelAware object, is never counted; a quiet one that shows
// no other policy is (its filters are in memory all the same).
//
// When a block is reserved: at its Finish, when its keys are known (the
// learning builder, level_aware_builder.h). A compaction's outputs may
// take, beyond what is free, what its own inputs' filters will free when
// they are deleted: while it runs its outputs and its inputs are both
// live, so the live filters exceed the limit by at most the filters of
// the running compactions' outputs, and by nothing once their inputs are
// deleted. A flush has no inputs: it gets what is free, a smaller
// filter, or none.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "job_handoff.h"
#include "level_aware_tree.h"

namespace sstfilter::rocksdb_plugin {

class MemoryLedger : public std::enable_shared_from_this<MemoryLedger> {
 public:
  // `unknown_bits_per_key`: what a file whose properties are not known
  // yet is counted at, per entry.
  MemoryLedger(uint64_t limit_bytes, double unknown_bits_per_key);

  uint64_t limit_bytes() const { return limit_bytes_; }
  // This policy object, as the trees record who builds for them.
  uint64_t owner() const { return owner_; }

  // The column families the limit counts, `job`'s last (and recorded as
  // built by this policy object).
  std::vector<std::shared_ptr<ColumnFamilyTree>> Served(const JobView& job);

  // The bits per key a new table of `job` may have: what the limit leaves
  // free, plus what the job's inputs free when they are deleted, over the
  // keys it has still to write (a compaction's) or `table_keys` (a
  // flush's). A compaction's outputs share that alike rather than the
  // first taking it all, and leave `keep_free` bytes free.
  double FreeBitsPerKey(const JobView& job, int64_t table_keys,
                        int64_t keep_free);

  // A filter block of `wanted` bytes for a table of `job`: reserved whole
  // if it fits under the limit, else what is free if that is at least
  // `least`, else nothing (the table gets no filter). The reservation
  // stands until this thread's table joins its tree or its job ends
  // (ReleaseReservations). Settle: this thread's last reservation becomes
  // the finished block's size.
  uint64_t Reserve(const JobView& job, uint64_t wanted, uint64_t least);
  void Settle(uint64_t actual);

 private:
  friend void ReleaseReservations();
  struct Pending {
    std::weak_ptr<ColumnFamilyTree> cf;
    int job_id = -1;
    int64_t bytes = 0;
  };
  // Needs mutex_.
  std::vector<std::shared_ptr<ColumnFamilyTree>> ServedLocked(
      const JobView& job);
  int64_t CountedLocked(
      const std::vector<std::shared_ptr<ColumnFamilyTree>>& served) const;
  void Release(uint64_t id);
  // What `job`'s inputs free when it ends.
  int64_t ReplaceableLocked(const JobView& job) const;

  const uint64_t limit_bytes_;
  const double unknown_bits_per_key_;
  const uint64_t owner_;
  std::mutex mutex_;  // guards what follows
  std::vector<std::weak_ptr<DbState>> dbs_;
  std::map<uint64_t, Pending> pending_;
  int64_t reserved_ = 0;
  uint64_t next_id_ = 1;
};

// Ends this thread's reservations: its table joined its tree
// (OnTableFileCreated), or its job began or ended.
void ReleaseReservations();

}  // namespace sstfilter::rocksdb_plugin
