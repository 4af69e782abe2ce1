#include "sstfilter/usable_space.h"

#include <algorithm>
#include <cmath>

#include "cuckoo/cuckoo_format.h"
#include "sstfilter/cuckoo_filter.h"

namespace sstfilter {

namespace detail {

// The rule for any filter whose size is a whole number of steps (lines,
// buckets), with an FPR that falls as steps are added.
class UsableSpaceRule {
 public:
  struct Steps {
    uint64_t target;    // the steps the filter would have without the rule
    uint64_t smallest;  // the fewest steps the rule may choose
    std::function<size_t(uint64_t steps)> bytes;
    std::function<uint64_t(size_t bytes)> steps_in;  // the most that fit
    std::function<double(uint64_t steps)> fpr;       // non-increasing
  };

  // Where `balance` (may be null) has FPR to spare, the fewest steps that
  // it can pay for, reserved from it; then as many steps as the usable
  // space of that size holds, and the FPR they save given back.
  static uint64_t Choose(const Steps& steps, const UsableSizeFn& usable_size,
                         FprBalance* balance) {
    const double target_fpr = steps.fpr(steps.target);
    uint64_t chosen = steps.target;
    double chosen_fpr = target_fpr;
    if (balance != nullptr && steps.smallest < steps.target) {
      chosen = Reserve(steps, target_fpr, balance->units_);
      chosen_fpr = steps.fpr(chosen);
    }
    const size_t request = steps.bytes(chosen);
    size_t usable = usable_size(request);
    // More than a third over the request is no size class: an allocator
    // that misreports, whose extra bytes may not be there, or a large
    // allocation rounded to pages. Either way the extra is left alone (as
    // RocksDB does): the FPR gain of more bits per key shrinks fast, and
    // the bytes would cost disk and I/O too.
    if (usable > request + request / 3) usable = request;
    // Filters that already have no false positives (no keys) stay as they
    // are.
    if (target_fpr > 0 && usable > request) {
      const uint64_t fitted = std::max(chosen, steps.steps_in(usable));
      const double fitted_fpr = steps.fpr(fitted);
      if (balance != nullptr) {
        balance->units_.fetch_add(ToUnits(fitted_fpr - chosen_fpr));
      }
      chosen = fitted;
    }
    return chosen;
  }

 private:
  // FPR in fixed point, rounded up: what is kept is never below the truth.
  static int64_t ToUnits(double fpr) {
    return static_cast<int64_t>(std::ceil(std::ldexp(fpr, 32)));
  }

  // The fewest steps in [smallest, target] whose FPR over the target's is
  // at most the balance's credit, with that excess taken from the balance
  // in one atomic step, so that it never goes above 0 even while other
  // builders spend from it.
  static uint64_t Reserve(const Steps& steps, double target_fpr,
                          std::atomic<int64_t>& units) {
    int64_t seen = units.load(std::memory_order_relaxed);
    for (;;) {
      if (seen >= 0) return steps.target;
      const int64_t credit = -seen;
      // FPR does not rise with steps, so the steps that fit the credit are
      // a range ending at the target: find its start.
      uint64_t lo = steps.smallest;
      uint64_t hi = steps.target;
      while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (ToUnits(steps.fpr(mid) - target_fpr) <= credit) {
          hi = mid;
        } else {
          lo = mid + 1;
        }
      }
      const int64_t cost = ToUnits(steps.fpr(lo) - target_fpr);
      if (cost <= 0) return lo;
      if (units.compare_exchange_weak(seen, seen + cost)) return lo;
    }
  }
};

}  // namespace detail

double FprBalance::Sum() const {
  return std::ldexp(static_cast<double>(units_.load()), -32);
}

BlockedBloomParams FitBlockedBloomToUsable(uint64_t num_keys,
                                           const BlockedBloomParams& target,
                                           const UsableSizeFn& usable_size,
                                           FprBalance* balance) {
  BlockedBloomParams params = target;
  auto with_lines = [&](uint64_t lines) {
    BlockedBloomParams p = target;
    p.num_lines = lines;
    return p;
  };
  detail::UsableSpaceRule::Steps steps;
  steps.target = target.num_lines;
  // A quarter smaller at most: FPR grows ever faster as bits/key fall, so
  // one much smaller filter costs more FPR per byte saved than several a
  // little smaller.
  steps.smallest =
      std::max<uint64_t>(1, target.num_lines - target.num_lines / 4);
  steps.bytes = [&](uint64_t lines) {
    return with_lines(lines).SerializedSize();
  };
  steps.steps_in = BlockedBloomParams::LinesIn;
  steps.fpr = [&](uint64_t lines) {
    return with_lines(lines).EstimatedFpr(num_keys);
  };
  params.num_lines = detail::UsableSpaceRule::Choose(
      steps, usable_size, num_keys > 0 ? balance : nullptr);
  return params;
}

uint64_t FitStaticCuckooToUsable(uint64_t num_keys, uint32_t fingerprint_bits,
                                 const UsableSizeFn& usable_size) {
  detail::UsableSpaceRule::Steps steps;
  steps.target = detail::cuckoo::StaticBuckets(num_keys);
  steps.smallest = steps.target;
  steps.bytes = [&](uint64_t buckets) {
    return detail::cuckoo::StaticFilterBytes(buckets, fingerprint_bits);
  };
  steps.steps_in = [&](size_t bytes) {
    return detail::cuckoo::StaticBucketsIn(bytes, fingerprint_bits);
  };
  steps.fpr = [&](uint64_t buckets) {
    return StaticCuckooFpr(num_keys, steps.bytes(buckets), fingerprint_bits);
  };
  return detail::UsableSpaceRule::Choose(steps, usable_size, nullptr);
}

}  // namespace sstfilter
