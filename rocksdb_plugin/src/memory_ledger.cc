#include "memory_ledger.h"

#include <algorithm>
#include <atomic>
#include <utility>

namespace sstfilter::rocksdb_plugin {
namespace {

// This thread's reservations, until its table joins its tree.
struct Reservation {
  std::weak_ptr<MemoryLedger> ledger;
  uint64_t id = 0;
};
thread_local std::vector<Reservation> reservations;

constexpr int64_t kSlack = 256;

uint64_t NextOwner() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

MemoryLedger::MemoryLedger(uint64_t limit_bytes, double unknown_bits_per_key)
    : limit_bytes_(limit_bytes),
      unknown_bits_per_key_(unknown_bits_per_key),
      owner_(NextOwner()) {}

std::vector<std::shared_ptr<ColumnFamilyTree>> MemoryLedger::ServedLocked(
    const JobView& job) {
  const std::shared_ptr<ColumnFamilyTree>& mine = job.column_family;
  if (mine != nullptr) mine->MarkBuiltBy(owner_);
  std::vector<std::shared_ptr<ColumnFamilyTree>> served;
  bool known_db = false;
  auto add_db = [&](const DbState& db) {
    for (auto& tree : db.ColumnFamilies()) {
      if (tree != mine && !tree->OfAnotherPolicy(owner_)) {
        served.push_back(std::move(tree));
      }
    }
  };
  for (auto it = dbs_.begin(); it != dbs_.end();) {
    std::shared_ptr<DbState> db = it->lock();
    if (db == nullptr) {
      it = dbs_.erase(it);
      continue;
    }
    known_db = known_db || db == job.db;
    add_db(*db);
    ++it;
  }
  if (!known_db && job.db != nullptr) {
    dbs_.push_back(job.db);
    add_db(*job.db);
  }
  if (mine != nullptr) served.push_back(mine);
  return served;
}

std::vector<std::shared_ptr<ColumnFamilyTree>> MemoryLedger::Served(
    const JobView& job) {
  std::lock_guard<std::mutex> lock(mutex_);
  return ServedLocked(job);
}

int64_t MemoryLedger::CountedLocked(
    const std::vector<std::shared_ptr<ColumnFamilyTree>>& served) const {
  double counted = static_cast<double>(reserved_);
  for (const auto& cf : served) {
    const HeldFilters held = cf->Held();
    counted +=
        static_cast<double>(held.bytes) +
        static_cast<double>(held.unknown_entries) * unknown_bits_per_key_ / 8;
  }
  return static_cast<int64_t>(counted);
}

int64_t MemoryLedger::ReplaceableLocked(const JobView& job) const {
  return job.column_family != nullptr
             ? job.column_family->Replaceable(job.job_id)
             : 0;
}

double MemoryLedger::FreeBitsPerKey(const JobView& job, int64_t table_keys,
                                    int64_t keep_free) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto served = ServedLocked(job);
  const int64_t replaceable = ReplaceableLocked(job);
  int64_t keys = job.column_family != nullptr
                     ? job.column_family->KeysToWrite(job.job_id)
                     : -1;
  if (keys < 0) keys = table_keys;
  const int64_t free = static_cast<int64_t>(limit_bytes_) + replaceable -
                       CountedLocked(served) - kSlack - keep_free;
  if (keys <= 0) return free > 0 ? 1e9 : 0;
  return std::max<int64_t>(0, free) * 8.0 / static_cast<double>(keys);
}

uint64_t MemoryLedger::Reserve(const JobView& job, uint64_t wanted,
                               uint64_t least) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto served = ServedLocked(job);
  // What the job's own inputs free when it ends (its outputs so far and
  // its blocks reserved are counted).
  const int64_t replaceable = ReplaceableLocked(job);
  const int64_t free =
      static_cast<int64_t>(limit_bytes_) + replaceable - CountedLocked(served);
  // kSlack stays free: the blocks without a filter (13 bytes and an
  // index entry), which tables and partitions get when nothing else
  // fits, and the few bytes a RocksDB filter may take past its
  // CalculateSpace.
  const int64_t usable = free - kSlack;
  uint64_t granted = 0;
  if (usable >= static_cast<int64_t>(wanted)) {
    granted = wanted;
  } else if (usable > 0 && static_cast<uint64_t>(usable) >= least) {
    granted = static_cast<uint64_t>(usable);
  }
  const uint64_t id = next_id_++;
  pending_[id] = {job.column_family, job.job_id, static_cast<int64_t>(granted)};
  reserved_ += static_cast<int64_t>(granted);
  reservations.push_back({weak_from_this(), id});
  return granted;
}

void MemoryLedger::Settle(uint64_t actual) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = reservations.rbegin(); it != reservations.rend(); ++it) {
    if (it->ledger.lock().get() != this) continue;
    auto found = pending_.find(it->id);
    if (found == pending_.end()) return;
    reserved_ += static_cast<int64_t>(actual) - found->second.bytes;
    found->second.bytes = static_cast<int64_t>(actual);
    return;
  }
}

void MemoryLedger::Release(uint64_t id) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = pending_.find(id);
  if (found == pending_.end()) return;
  reserved_ -= found->second.bytes;
  pending_.erase(found);
}

void ReleaseReservations() {
  if (reservations.empty()) return;
  std::vector<Reservation> mine = std::move(reservations);
  reservations.clear();
  for (const Reservation& r : mine) {
    if (std::shared_ptr<MemoryLedger> ledger = r.ledger.lock()) {
      ledger->Release(r.id);
    }
  }
}

}  // namespace sstfilter::rocksdb_plugin
