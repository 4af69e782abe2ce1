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

uint64_t LevelWorkload::Prefix8(std::string_view key, size_t offset) {
  uint64_t value = 0;
  for (size_t i = 0; i < 8; ++i) {
    const size_t at = offset + i;
    value = (value << 8) |
            (at < key.size() ? static_cast<unsigned char>(key[at]) : 0u);
  }
  return value;
}

int LevelWorkload::BucketOf(std::string_view key) const {
  const uint64_t high = key_space_.high.load(std::memory_order_relaxed);
  if (high == 0) return 0;
  const uint64_t low = key_space_.low.load(std::memory_order_relaxed);
  const uint64_t value =
      Prefix8(key, key_space_.offset.load(std::memory_order_relaxed));
  if (value <= low) return 0;
  if (value >= high) return kBuckets - 1;
  return static_cast<int>(static_cast<unsigned __int128>(value - low) *
                          kBuckets / (high - low));
}

void LevelWorkload::ObserveKeyRange(std::string_view smallest,
                                    std::string_view largest) {
  std::lock_guard<std::mutex> lock(mutex_);
  const bool first = key_space_.high.load() == 0;
  if (!first && smallest >= smallest_ && largest <= largest_) return;
  if (first || smallest < smallest_) smallest_ = std::string(smallest);
  if (first || largest > largest_) largest_ = std::string(largest);
  size_t offset = 0;
  while (offset < smallest_.size() && offset < largest_.size() &&
         smallest_[offset] == largest_[offset]) {
    ++offset;
  }
  const uint64_t low = Prefix8(smallest_, offset);
  const uint64_t high = std::max(Prefix8(largest_, offset), low + 1);
  const uint64_t old_low = key_space_.low.load();
  const uint64_t old_high = key_space_.high.load();
  const uint64_t bucket = (old_high - old_low) / kBuckets;
  // The buckets now slice another range: what was learned per bucket no
  // longer describes them, unless the ends moved by less than a bucket.
  if (!first && (offset != key_space_.offset.load() || old_low - low > bucket ||
                 high - old_high > bucket)) {
    for (auto& level : bucket_learned_) level.fill(false);
  }
  key_space_.offset.store(static_cast<uint32_t>(offset));
  key_space_.low.store(low);
  key_space_.high.store(high);
}

void LevelWorkload::AddSampledEntries(int level, int first_bucket,
                                      int last_bucket, int64_t delta) {
  first_bucket = std::clamp(first_bucket, 0, kBuckets - 1);
  last_bucket = std::clamp(last_bucket, first_bucket, kBuckets - 1);
  const int64_t buckets = last_bucket - first_bucket + 1;
  const int64_t each = delta / buckets;
  auto& cells = cells_[Clamp(level)];
  for (int b = first_bucket; b <= last_bucket; ++b) {
    const int64_t share =
        b == first_bucket ? delta - each * (buckets - 1) : each;
    cells[b].sampled_entries.fetch_add(share, std::memory_order_relaxed);
  }
}

bool LevelWorkload::MaybeRefresh() {
  if (pending_.load(std::memory_order_relaxed) < kRefreshSamples) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  if (pending_.load(std::memory_order_relaxed) < kRefreshSamples) return false;
  pending_.store(0, std::memory_order_relaxed);
  for (int level = 0; level < kMaxLevels; ++level) {
    // Each refresh period adds the entries sampled now to the exposure
    // the level's weight is divided by: samples held over periods in which
    // the tables changed count against the entries each period had.
    uint64_t level_samples = 0;
    for (int b = 0; b < kBuckets; ++b) {
      Cell& cell = cells_[level][b];
      level_samples += cell.samples.load(std::memory_order_relaxed);
      held_entries_[level][b] += static_cast<double>(std::max<int64_t>(
          cell.sampled_entries.load(std::memory_order_relaxed), 0));
    }
    ++held_periods_[level];
    if (level_samples < kCredibleSamples &&
        held_periods_[level] < kMaxHeldPeriods) {
      continue;  // too few to say anything yet: held for the next refresh
    }
    const double periods = held_periods_[level];
    held_periods_[level] = 0;
    double level_weight = 0, level_entries = 0;
    for (int b = 0; b < kBuckets; ++b) {
      Cell& cell = cells_[level][b];
      cell.samples.exchange(0, std::memory_order_relaxed);
      const double weight = static_cast<double>(cell.absent_weight.exchange(
                                0, std::memory_order_relaxed)) /
                            kWeightUnit;
      const double samples =
          static_cast<double>(
              cell.absent_samples.exchange(0, std::memory_order_relaxed)) /
          periods;
      const double entries = held_entries_[level][b];
      held_entries_[level][b] = 0;
      if (entries <= 0) continue;  // nothing sampled there: keep what was
      level_weight += weight;
      level_entries += entries;
      const double density = weight / entries;
      double& learned = bucket_density_[level][b];
      double& counted = bucket_samples_[level][b];
      const bool before = bucket_learned_[level][b];
      learned = before ? (learned + density) / 2 : density;
      counted = before ? (counted + samples) / 2 : samples;
      bucket_learned_[level][b] = true;
    }
    if (level_entries <= 0) continue;
    const double density = level_weight / level_entries;
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
    PerLevel* densities) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (refreshes_ == 0) return false;
  for (int level = 0; level < kMaxLevels; ++level) {
    if (levels_with_entries[level] && !learned_[level]) return false;
  }
  *densities = density_;
  return true;
}

std::array<bool, kMaxLevels> LevelWorkload::LearnedLevels() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (refreshes_ == 0) return {};
  return learned_;
}

double LevelWorkload::TableDensityFactor(int level, int first_bucket,
                                         int last_bucket) const {
  level = Clamp(level);
  first_bucket = std::clamp(first_bucket, 0, kBuckets - 1);
  last_bucket = std::clamp(last_bucket, first_bucket, kBuckets - 1);
  std::lock_guard<std::mutex> lock(mutex_);
  if (!learned_[level] || !(density_[level] > 0)) return 1;
  const double floor = density_[level] / 64;
  auto density_of = [&](int b) {
    if (!bucket_learned_[level][b]) return density_[level];
    const double n = bucket_samples_[level][b];
    const double credible = n / (n + kCredibleSamples);
    return std::max(
        credible * bucket_density_[level][b] + (1 - credible) * density_[level],
        floor);
  };
  double log_sum = 0, entries_sum = 0;
  for (int b = 0; b < kBuckets; ++b) {
    const int64_t entries =
        cells_[level][b].sampled_entries.load(std::memory_order_relaxed);
    if (entries <= 0) continue;
    log_sum += static_cast<double>(entries) * std::log(density_of(b));
    entries_sum += static_cast<double>(entries);
  }
  if (!(entries_sum > 0)) return 1;
  double table = 0;
  for (int b = first_bucket; b <= last_bucket; ++b) table += density_of(b);
  table /= last_bucket - first_bucket + 1;
  return std::exp(std::log(table) - log_sum / entries_sum);
}

void LevelWorkload::Forget() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& level : cells_) {
    for (Cell& cell : level) {
      cell.absent_weight.store(0, std::memory_order_relaxed);
      cell.absent_samples.store(0, std::memory_order_relaxed);
      cell.samples.store(0, std::memory_order_relaxed);
    }
  }
  held_periods_.fill(0);
  for (auto& level : held_entries_) level.fill(0);
  pending_.store(0, std::memory_order_relaxed);
  for (auto& level : bucket_learned_) level.fill(false);
  density_.fill(0);
  learned_.fill(false);
  refreshes_ = 0;
  version_.fetch_add(1, std::memory_order_release);
}

}  // namespace sstfilter
