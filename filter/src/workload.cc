#include "sstfilter/workload.h"

#include <algorithm>
#include <cmath>

namespace sstfilter {

uint32_t LevelWorkload::AbsentWeight(double fpr) {
  // A filter answering "no" to nearly everything it is asked still counts
  // each "no" at most 64 times (FPR 98.4%), so one odd filter cannot swamp
  // a level.
  const double pass = std::clamp(1.0 - fpr, 1.0 / 64, 1.0);
  return static_cast<uint32_t>(std::lround(kWeightUnit / pass));
}

bool LevelWorkload::MaybeRefresh() {
  if (pending_.load(std::memory_order_relaxed) < kRefreshSamples) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  if (pending_.load(std::memory_order_relaxed) < kRefreshSamples) return false;
  pending_.store(0, std::memory_order_relaxed);
  for (int level = 0; level < kMaxLevels; ++level) {
    Slot& slot = slots_[level];
    const uint64_t weight =
        slot.absent_weight.exchange(0, std::memory_order_relaxed);
    const int64_t entries =
        slot.sampled_entries.load(std::memory_order_relaxed);
    if (entries <= 0) continue;  // nothing sampled there: keep what was
    const double density = static_cast<double>(weight) / kWeightUnit /
                           static_cast<double>(entries);
    density_[level] =
        learned_[level] ? (density_[level] + density) / 2 : density;
    learned_[level] = true;
  }
  ++refreshes_;
  version_.fetch_add(1, std::memory_order_release);
  return true;
}

bool LevelWorkload::Densities(
    const std::array<bool, kMaxLevels>& levels_with_entries,
    std::array<double, kMaxLevels>* densities) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (refreshes_ == 0) return false;
  for (int level = 0; level < kMaxLevels; ++level) {
    if (levels_with_entries[level] && !learned_[level]) return false;
  }
  *densities = density_;
  return true;
}

void LevelWorkload::Forget() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (Slot& slot : slots_) {
    slot.absent_weight.store(0, std::memory_order_relaxed);
  }
  pending_.store(0, std::memory_order_relaxed);
  density_.fill(0);
  learned_.fill(false);
  refreshes_ = 0;
  version_.fetch_add(1, std::memory_order_release);
}

}  // namespace sstfilter
