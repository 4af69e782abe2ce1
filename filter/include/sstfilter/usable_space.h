// sstfilter/usable_space.h: sizing a filter to the space its allocation
// really has (RocksDB's optimize_filters_for_memory).
//
// An allocator rounds a request up to one of its size classes, and the
// bytes past the request are lost to fragmentation. A filter whose size is
// free in steps (BlockedBloom lines, cuckoo buckets) can use them instead,
// and lower its FPR. That FPR credit, kept in a balance shared by the
// filters of one policy, then lets a later filter be made a little smaller
// than its target, so that memory goes down while the average FPR over
// all the filters stays at or below what the targets give. The idea and
// its limits (at most a quarter smaller, at most a third more than asked)
// are those of XXPH3FilterBitsBuilder::AllocateMaybeRounding in RocksDB's
// table/block_based/filter_policy.cc; the code is ours, and the FPRs are our
// filters' own models (BlockedBloomParams::EstimatedFpr, StaticCuckooFpr).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>

#include "sstfilter/blocked_bloom.h"

namespace sstfilter {

namespace detail {
class UsableSpaceRule;  // usable_space.cc
}  // namespace detail

// Answers how many bytes an allocation of `request` bytes may use (at
// least `request`). The sizing functions below call it exactly once per
// filter, with the size they settled on, so it may make the allocation
// that the filter is then written into (as the RocksDB builder does).
using UsableSizeFn = std::function<size_t(size_t request)>;

// The running sum, over the filters sized against it, of (model FPR of the
// size chosen - model FPR of the target size). It never goes above 0, so
// the average model FPR of those filters never exceeds their targets'.
// Lock-free: builders on many threads may share one. Amounts are kept in
// fixed point (2^-32) and rounded up, so the sum kept is at least the true
// one.
class FprBalance {
 public:
  FprBalance() = default;
  FprBalance(const FprBalance&) = delete;
  FprBalance& operator=(const FprBalance&) = delete;

  // The sum so far (<= 0; more negative is more FPR to spare).
  double Sum() const;

 private:
  friend class detail::UsableSpaceRule;
  std::atomic<int64_t> units_{0};
};

// The parameters of a BlockedBloom filter for `num_keys` whose size fits an
// allocation: `target` (ForBitsPerKey's choice for the policy) with as many
// lines as the usable space of the allocation holds. With `balance`, the
// allocation asked for may be smaller than the target (by at most a
// quarter) where the balance has FPR to spare, and the difference is
// recorded; without one, only the usable space past the target is used.
// The probe count and lines per key stay the target's, so more lines
// always mean a lower FPR. Zero keys: `target` itself.
BlockedBloomParams FitBlockedBloomToUsable(uint64_t num_keys,
                                           const BlockedBloomParams& target,
                                           const UsableSizeFn& usable_size,
                                           FprBalance* balance);

// The bucket count of a static cuckoo filter for `num_keys` that fills the
// usable space of an allocation of its first-attempt size
// (StaticCuckooBytes). Never fewer buckets than that size's: a static
// build needs its load at most 0.96 (cuckoo_filter.h), so a cuckoo filter
// can only grow, its FPR only falls, and there is no balance to keep. Pass
// the count to BuildStaticCuckoo. `num_keys` must fit the format.
uint64_t FitStaticCuckooToUsable(uint64_t num_keys, uint32_t fingerprint_bits,
                                 const UsableSizeFn& usable_size);

}  // namespace sstfilter
