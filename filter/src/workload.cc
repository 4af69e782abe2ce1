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
    ForgetBuckets();
  }
  key_space_.offset.store(static_cast<uint32_t>(offset));
  key_space_.low.store(low);
  key_space_.high.store(high);
}

void LevelWorkload::AddSampledKeys(int level, int first_bucket, int last_bucket,
                                   int64_t delta) {
  first_bucket = std::clamp(first_bucket, 0, kBuckets - 1);
  last_bucket = std::clamp(last_bucket, first_bucket, kBuckets - 1);
  const int64_t buckets = last_bucket - first_bucket + 1;
  const int64_t each = delta / buckets;
  auto& cells = cells_[Clamp(level)];
  for (int b = first_bucket; b <= last_bucket; ++b) {
    const int64_t share =
        b == first_bucket ? delta - each * (buckets - 1) : each;
    cells[b].sampled_keys.fetch_add(share, std::memory_order_relaxed);
  }
}

void LevelWorkload::ForgetBuckets() {
  for (auto& level : bucket_learned_) level.fill(false);
  for (auto& level : bucket_deviant_) level.fill(false);
  for (auto& level : bucket_weight_) level.fill(0);
  for (auto& level : bucket_samples_) level.fill(0);
  for (auto& level : bucket_exposure_) level.fill(0);
  for (auto& level : bucket_hits_) level.fill(0);
}

bool LevelWorkload::MaybeRefresh(const PerLevel* level_keys) {
  if (pending_.load(std::memory_order_relaxed) < kRefreshSamples) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  if (pending_.load(std::memory_order_relaxed) < kRefreshSamples) return false;
  pending_.store(0, std::memory_order_relaxed);
  for (int level = 0; level < kMaxLevels; ++level) {
    // Each refresh period adds the keys sampled now to the exposure the
    // level's weight is divided by: samples held over periods in which the
    // tables changed count against the keys each period had.
    uint64_t level_samples = 0;
    double sampled_now = 0;
    for (int b = 0; b < kBuckets; ++b) {
      Cell& cell = cells_[level][b];
      level_samples += cell.samples.load(std::memory_order_relaxed);
      const double keys = static_cast<double>(std::max<int64_t>(
          cell.sampled_keys.load(std::memory_order_relaxed), 0));
      held_keys_[level][b] += keys;
      sampled_now += keys;
    }
    ++held_periods_[level];
    if (level_samples < kCredibleSamples &&
        held_periods_[level] < kMaxHeldPeriods) {
      continue;  // too few to say anything yet: held for the next refresh
    }
    const double periods = held_periods_[level];
    held_periods_[level] = 0;
    double level_weight = 0, sampled_keys = 0, all_samples = 0;
    for (int b = 0; b < kBuckets; ++b) {
      Cell& cell = cells_[level][b];
      const double cell_samples = static_cast<double>(
          cell.samples.exchange(0, std::memory_order_relaxed));
      const double weight = static_cast<double>(cell.absent_weight.exchange(
                                0, std::memory_order_relaxed)) /
                            kWeightUnit;
      const double samples = static_cast<double>(
          cell.absent_samples.exchange(0, std::memory_order_relaxed));
      const double keys = held_keys_[level][b];
      held_keys_[level][b] = 0;
      if (keys <= 0) continue;  // nothing sampled there: keep what was
      level_weight += weight;
      all_samples += cell_samples;
      sampled_keys += keys;
      // Half the old weight, as the level's density keeps.
      bucket_weight_[level][b] = bucket_weight_[level][b] / 2 + weight;
      bucket_hits_[level][b] =
          bucket_hits_[level][b] / 2 + std::max(0.0, cell_samples - weight);
      bucket_samples_[level][b] = bucket_samples_[level][b] / 2 + samples;
      bucket_exposure_[level][b] = bucket_exposure_[level][b] / 2 + keys;
      bucket_learned_[level][b] = true;
    }
    if (sampled_keys <= 0) continue;
    const double density = level_weight / sampled_keys;
    // Per period: the sampled files' weight over the periods held, over the
    // share of the level's keys its sampled files hold now.
    const double sampled_share =
        level_keys != nullptr && (*level_keys)[level] > 0 && sampled_now > 0
            ? std::min(1.0, sampled_now / (*level_keys)[level])
            : 1.0;
    const double probes = level_weight / periods / sampled_share;
    // The "may match"es less the absent keys' share of them (the weight
    // counts every absent probe, those passed too): the probes that found
    // their key.
    const double hits =
        std::max(0.0, all_samples - level_weight) / periods / sampled_share;
    density_[level] =
        learned_[level] ? (density_[level] + density) / 2 : density;
    level_probes_[level] =
        learned_[level] ? (level_probes_[level] + probes) / 2 : probes;
    level_hits_[level] =
        learned_[level] ? (level_hits_[level] + hits) / 2 : hits;
    learned_[level] = true;
    UpdateDeviant(level);
  }
  ++refreshes_;
  version_.fetch_add(1, std::memory_order_release);
  return true;
}

// The significance test of each bucket of `level` against the level's rate
// of absent samples per key of exposure, with hysteresis (kDeviantZ on,
// kSettledZ off). Needs mutex_.
void LevelWorkload::UpdateDeviant(int level) {
  double samples = 0, exposure = 0;
  for (int b = 0; b < kBuckets; ++b) {
    if (!bucket_learned_[level][b]) continue;
    samples += bucket_samples_[level][b];
    exposure += bucket_exposure_[level][b];
  }
  for (int b = 0; b < kBuckets; ++b) {
    bool& deviant = bucket_deviant_[level][b];
    if (!bucket_learned_[level][b] || !(exposure > 0)) {
      deviant = false;
      continue;
    }
    const double expected = samples * bucket_exposure_[level][b] / exposure;
    if (expected < kMinExpectedSamples) {
      deviant = false;
      continue;
    }
    const double z =
        std::abs(bucket_samples_[level][b] - expected) / std::sqrt(expected);
    deviant = deviant ? z >= kSettledZ : z >= kDeviantZ;
  }
}

// What Densities, LevelProbes and LevelHits share: `learned` if every
// level of `levels_with_keys` is learned. Needs mutex_.
bool LevelWorkload::LearnedLocked(
    const std::array<bool, kMaxLevels>& levels_with_keys,
    const PerLevel& learned, PerLevel* out) const {
  if (refreshes_ == 0) return false;
  for (int level = 0; level < kMaxLevels; ++level) {
    if (levels_with_keys[level] && !learned_[level]) return false;
  }
  *out = learned;
  return true;
}

bool LevelWorkload::Densities(
    const std::array<bool, kMaxLevels>& levels_with_keys,
    PerLevel* densities) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return LearnedLocked(levels_with_keys, density_, densities);
}

bool LevelWorkload::LevelProbes(
    const std::array<bool, kMaxLevels>& levels_with_keys,
    PerLevel* probes) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return LearnedLocked(levels_with_keys, level_probes_, probes);
}

bool LevelWorkload::LevelHits(
    const std::array<bool, kMaxLevels>& levels_with_keys,
    PerLevel* hits) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return LearnedLocked(levels_with_keys, level_hits_, hits);
}

bool LevelWorkload::BucketShares(PerBucket* hits, PerBucket* absent) const {
  std::lock_guard<std::mutex> lock(mutex_);
  hits->fill(0);
  absent->fill(0);
  double hit_total = 0, absent_total = 0;
  for (int level = 0; level < kMaxLevels; ++level) {
    for (int b = 0; b < kBuckets; ++b) {
      (*hits)[b] += bucket_hits_[level][b];
      (*absent)[b] += bucket_weight_[level][b];
      hit_total += bucket_hits_[level][b];
      absent_total += bucket_weight_[level][b];
    }
  }
  if (!(hit_total + absent_total > 0)) return false;
  for (int b = 0; b < kBuckets; ++b) {
    (*hits)[b] = hit_total > 0 ? (*hits)[b] / hit_total : 1.0 / kBuckets;
    (*absent)[b] =
        absent_total > 0 ? (*absent)[b] / absent_total : 1.0 / kBuckets;
  }
  return true;
}

std::array<bool, kMaxLevels> LevelWorkload::LearnedLevels() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (refreshes_ == 0) return {};
  return learned_;
}

bool LevelWorkload::HasSampledKeys() const {
  for (const auto& level : cells_) {
    for (const Cell& cell : level) {
      if (cell.sampled_keys.load(std::memory_order_relaxed) > 0) return true;
    }
  }
  return false;
}

int LevelWorkload::DeviantBuckets(int level) const {
  std::lock_guard<std::mutex> lock(mutex_);
  int n = 0;
  for (bool deviant : bucket_deviant_[Clamp(level)]) n += deviant;
  return n;
}

double LevelWorkload::TableDensityFactor(int level, int first_bucket,
                                         int last_bucket) const {
  level = Clamp(level);
  first_bucket = std::clamp(first_bucket, 0, kBuckets - 1);
  last_bucket = std::clamp(last_bucket, first_bucket, kBuckets - 1);
  std::lock_guard<std::mutex> lock(mutex_);
  if (!learned_[level] || !(density_[level] > 0)) return 1;
  bool any_deviant = false;
  for (bool deviant : bucket_deviant_[level]) any_deviant |= deviant;
  if (!any_deviant) return 1;
  // A bucket's density relative to its level's, from their absent samples
  // (both decayed alike): where it passed the significance test its own,
  // moved kSettledZ standard deviations toward the level's; else exactly
  // the level's.
  double samples = 0, exposure = 0;
  for (int b = 0; b < kBuckets; ++b) {
    samples += bucket_samples_[level][b];
    exposure += bucket_exposure_[level][b];
  }
  if (!(samples > 0) || !(exposure > 0)) return 1;
  PerBucket relative;
  for (int b = 0; b < kBuckets; ++b) {
    relative[b] = 1;
    if (!bucket_deviant_[level][b]) continue;
    const double expected = samples * bucket_exposure_[level][b] / exposure;
    const double seen = bucket_samples_[level][b];
    const double error = kSettledZ * std::sqrt(expected);
    const double shrunk = seen > expected ? std::max(seen - error, expected)
                                          : std::min(seen + error, expected);
    relative[b] = std::max(shrunk / expected, 1.0 / 64);
  }
  // The density of a table over `span` buckets from `first`: the mean of
  // its buckets' (absent probes add up over its key range).
  const int span = last_bucket - first_bucket + 1;
  auto run_density = [&relative, span](int first) {
    const int last = std::min(first + span - 1, kBuckets - 1);
    first = std::max(0, last - span + 1);
    double sum = 0;
    for (int b = first; b <= last; ++b) sum += relative[b];
    return sum / (last - first + 1);
  };
  // The level's: the key-weighted geometric mean over the runs of `span`
  // buckets that start at each bucket, as the level's tables would tile it.
  double log_sum = 0, keys_sum = 0;
  for (int b = 0; b < kBuckets; ++b) {
    const int64_t keys =
        cells_[level][b].sampled_keys.load(std::memory_order_relaxed);
    if (keys <= 0) continue;
    log_sum += static_cast<double>(keys) * std::log(run_density(b));
    keys_sum += static_cast<double>(keys);
  }
  if (!(keys_sum > 0)) return 1;
  return std::exp(std::log(run_density(first_bucket)) - log_sum / keys_sum);
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
  for (auto& level : held_keys_) level.fill(0);
  pending_.store(0, std::memory_order_relaxed);
  ForgetBuckets();
  density_.fill(0);
  level_probes_.fill(0);
  level_hits_.fill(0);
  learned_.fill(false);
  refreshes_ = 0;
  version_.fetch_add(1, std::memory_order_release);
}

}  // namespace sstfilter
