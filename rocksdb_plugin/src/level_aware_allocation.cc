#include "level_aware_allocation.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <numeric>
#include <utility>

namespace sstfilter::rocksdb_plugin {
namespace {

// The allocation is made again when the tree's entry shares have moved by
// this much (the sum of the changes): a flush or a compaction moves them by
// a fraction of a percent, and remaking the allocation costs milliseconds.
constexpr double kSharesMoved = 0.02;
// A level under this share of the entries may borrow a neighbour's learned
// density until its own is learned (LearnedProbes): its filters' memory is
// small, whatever they get.
constexpr double kSmallLevelShare = 0.05;
// The budget's correction for what the live filters take (Budget): at most
// this factor either way, so that a few odd tables cannot swing it; and a
// new allocation when it moves by half a percent of the average.
constexpr double kMaxBudgetCorrection = 1.15;
// New tables replace a fraction of the live ones: they carry the live
// filters' shortfall (or excess) this many times over, so that it is made
// up by the time about a third of the data is rewritten.
constexpr double kBudgetGain = 3;
constexpr double kBudgetMoved = 0.005;
// Under a memory limit, a level gets no filter rather than one of fewer
// bits/key than this: a Bloom filter of 1.5 bits/key passes about 45% of
// absent keys (BloomMath), a third of a filter's work for its memory.
constexpr double kFewestUsefulBitsPerKey = 1.5;

using Clock = std::chrono::steady_clock;

bool SharesMoved(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return true;
  double moved = 0;
  for (size_t i = 0; i < a.size(); ++i) moved += std::abs(a[i] - b[i]);
  return moved > kSharesMoved;
}

// The slot of `level` in a tree's levels (bottom first, L0 last): a level
// below L0 takes that of the nearest level of the tree at or below it, or
// the bottom's.
size_t SlotOf(const std::vector<int>& levels, int level) {
  if (level == 0) return levels.size() - 1;
  size_t slot = 0;
  for (size_t i = 0; i + 1 < levels.size(); ++i) {
    if (levels[i] >= level) slot = i;
  }
  return slot;
}

// How much of the live filters' error in bits (`error_bits`: what they
// take beyond their due) a job that writes `job_entries` of a tree of
// `tree_entries` makes up, as bits/key less for its own tables: all of it
// if the job rewrites a third of the tree or more, else a share
// kBudgetGain times its share of the tree, so that the error is made up by
// the time a third of the tree is rewritten, without a large compaction
// overshooting.
double Correction(double error_bits, double job_entries, double tree_entries) {
  if (!(job_entries > 0) || !(tree_entries > 0)) return 0;
  const double made_up =
      std::min(1.0, kBudgetGain * job_entries / tree_entries);
  return made_up * error_bits / job_entries;
}

}  // namespace

// A tree as one allocation sees it: RocksDB's levels from the bottom up
// (L0 last), each with its entries and its share of them.
struct LevelAwareAllocator::Tree {
  std::vector<int> levels;
  std::vector<double> entries;
  std::vector<double> shares;
  // Absent probes per level (relative), learned or modelled.
  std::vector<double> probes;
  bool learned = false;

  // The tree of `totals` as it will be once it settles: its levels below
  // L0 with entries, and L0 at one flush (`flush_entries`, or what L0
  // holds before the first); under optimize_filters_for_hits without its
  // bottom level. In the dynamic layout (the bottom at num_levels - 1)
  // RocksDB keeps the levels above the bottom at most at 1/T, 1/T^2, ... of
  // it, and a level holds more only until its compactions catch up: those
  // levels count at most at their targets, so that the bottom's tables,
  // built while the levels above are full, get the bits of the tree the DB
  // settles to. In the static layout the bottom is still filling: every
  // level counts at what it holds. `at_least_two`: empty if that leaves fewer than two
  // levels (a one-level tree so far).
  static Tree Of(const TreeTotals& totals, int64_t flush_entries,
                 bool no_bottom_filters, int num_levels, double size_ratio,
                 bool at_least_two) {
    Tree tree;
    int bottom = 0;
    for (int level = kMaxLevels - 1; level >= 1 && bottom == 0; --level) {
      if (totals[level].entries > 0) bottom = level;
    }
    const bool dynamic = bottom > 0 && bottom == num_levels - 1;
    for (int level = kMaxLevels - 1; level >= 1; --level) {
      if (totals[level].entries <= 0) continue;
      tree.levels.push_back(level);
      const double entries = static_cast<double>(totals[level].entries);
      const double target = static_cast<double>(totals[bottom].entries) /
                            std::pow(size_ratio, bottom - level);
      tree.entries.push_back(
          dynamic && level < bottom ? std::min(entries, target) : entries);
    }
    // L0 holds between none and a few flushes, and a settled DB's L0
    // holds about one: its share is one flush's entries.
    tree.levels.push_back(0);
    tree.entries.push_back(static_cast<double>(std::max<int64_t>(
        flush_entries > 0 ? flush_entries : totals[0].entries, 1)));
    if (no_bottom_filters && tree.levels.size() >= 2) {
      tree.levels.erase(tree.levels.begin());
      tree.entries.erase(tree.entries.begin());
    }
    if (at_least_two && tree.levels.size() < 2) return {};
    const double total =
        std::accumulate(tree.entries.begin(), tree.entries.end(), 0.0);
    for (double e : tree.entries) tree.shares.push_back(e / total);
    return tree;
  }

  // The absent probes of the levels: learned from `workload` (density
  // times share), or the model's for `hit_fraction`.
  void Probes(const LevelWorkload* workload, double hit_fraction) {
    learned = workload != nullptr && LearnedProbes(*workload);
    if (!learned) probes = ModelAbsentProbes(shares, hit_fraction);
  }

  // A level not learned yet (L0 between compactions, a level of a file or
  // two that comes and goes) takes the density of the nearest learned level
  // above it, or else below, if it holds under kSmallLevelShare of the
  // entries; false if a larger one is not learned (then the model serves).
  bool LearnedProbes(const LevelWorkload& workload) {
    const std::array<bool, kMaxLevels> learned_levels =
        workload.LearnedLevels();
    std::array<bool, kMaxLevels> ask{};
    bool any = false;
    for (int level : levels) {
      ask[level] = learned_levels[level];
      any = any || learned_levels[level];
    }
    std::array<double, kMaxLevels> density;
    if (!any || !workload.Densities(ask, &density)) return false;
    const size_t n = levels.size();
    probes.assign(n, 0);
    double total = 0;
    for (size_t i = 0; i < n; ++i) {
      double d = -1;
      if (learned_levels[levels[i]]) {
        d = density[levels[i]];
      } else if (shares[i] < kSmallLevelShare) {
        // Above is later in the tree's order (L0 last), below earlier.
        for (size_t j = i + 1; j < n && d < 0; ++j) {
          if (learned_levels[levels[j]]) d = density[levels[j]];
        }
        for (size_t j = i; j-- > 0 && d < 0;) {
          if (learned_levels[levels[j]]) d = density[levels[j]];
        }
      }
      if (d < 0) return false;
      probes[i] = d * shares[i];
      // A Get reaches a level only after every level above it that covers
      // its key: a level is probed about as often as the one below or more
      // (less only through gaps in its key range). A small level's samples
      // that say less are mostly chance, and would starve its filters,
      // whose memory is small either way.
      if (i > 0) probes[i] = std::max(probes[i], probes[i - 1]);
      total += probes[i];
    }
    return total > 0;
  }
};

// A column family a memory limit is shared with, and what the joint
// allocation gave it.
struct LevelAwareAllocator::Served {
  std::weak_ptr<ColumnFamilyState> cf;
  // Its probes per second (from its sampled probes), decayed.
  uint64_t samples_seen = 0;
  Clock::time_point seen_at = Clock::now();
  double rate = 0;
  // The inputs of its last allocation, and the choices per level.
  std::vector<int> levels;
  std::vector<double> shares;  // of all served entries
  uint64_t workload_version = UINT64_MAX;
  std::vector<FilterChoice> choices;
};

LevelAwareAllocator::LevelAwareAllocator(const LevelAwareSettings& settings)
    : settings_(settings),
      allocation_key_(std::to_string(settings.millibits) + ":" +
                      std::to_string(settings.ratio_millis) + ":" +
                      LevelAwareChoiceName(settings.choice) + ":" +
                      std::to_string(settings.hit_millis) + ":" +
                      (settings.learn ? "1" : "0")) {}
LevelAwareAllocator::~LevelAwareAllocator() = default;

const LevelCostModel& LevelAwareAllocator::OneLevelModel() const {
  // Made when a table first needs it (RocksDB's curves are sampled from its
  // builders once per process), so that making a policy, parsing options
  // and DB::Open pay nothing for them.
  std::call_once(one_level_once_, [this] {
    one_level_ = CostModelFor(settings_.choice, settings_.BitsPerKey(),
                              settings_.SizeRatio(), 1);
    LevelAllocation one;
    AllocateLevels(one_level_, settings_.BitsPerKey(), settings_.SizeRatio(), 1,
                   &one);
    uniform_ = one.levels[0];
  });
  return one_level_;
}

const FilterChoice& LevelAwareAllocator::Uniform() const {
  OneLevelModel();
  return uniform_;
}

const KindModel* LevelAwareAllocator::KindOf(FilterKind kind) const {
  for (const KindModel& k : OneLevelModel().kinds) {
    if (k.kind == kind) return &k;
  }
  return nullptr;
}

void LevelAwareAllocator::Allocate(const Tree& tree, double budget,
                                   LevelAllocation* out) const {
  const uint32_t n = static_cast<uint32_t>(tree.levels.size());
  std::vector<LevelLoad> loads;
  for (uint32_t i = 0; i < n; ++i) {
    loads.push_back({tree.shares[i], tree.probes[i],
                     LevelBuildWeight(settings_.SizeRatio(), n, i)});
  }
  LevelCostModel model = CostModelFor(settings_.choice, settings_.BitsPerKey(),
                                      settings_.SizeRatio(), n);
  // The cap is the asked average's, whatever the budget's correction.
  model.max_bits_per_key =
      LevelAllocation::MaxBitsPerKey(settings_.BitsPerKey());
  using Limits = LevelAllocationLimits;
  AllocateTree(model,
               std::clamp(budget, Limits::kMinAverageBitsPerKey,
                          Limits::kMaxAverageBitsPerKey),
               loads, out);
}

FilterChoice LevelAwareAllocator::ModelChoice(int level, int num_levels,
                                              bool bottommost) const {
  int bottom = num_levels > 1 ? num_levels - 1 : 1;
  if (bottommost && level > 0) bottom = level;
  bottom = std::clamp(std::max(bottom, level), 1, kMaxLevels - 1);
  const uint32_t n = static_cast<uint32_t>(bottom + 1);
  std::lock_guard<std::mutex> lock(model_mutex_);
  LevelAllocation& allocation = model_allocations_[n];
  if (allocation.levels.empty()) {
    Tree tree;
    for (uint32_t i = 0; i < n; ++i) {
      tree.levels.push_back(i + 1 == n ? 0 : bottom - static_cast<int>(i));
      tree.shares.push_back(LevelShare(settings_.SizeRatio(), n, i));
    }
    tree.Probes(nullptr, settings_.HitFraction());
    Allocate(tree, settings_.BitsPerKey(), &allocation);
  }
  return level == 0 ? allocation.levels.back()
                    : allocation.levels[static_cast<size_t>(bottom - level)];
}

// The average bits/key to allocate a job's tables at: the asked average,
// corrected (Correction) for what the live filters below L0 other than the
// job's inputs take beyond the asked average over the entries they filter
// (their bytes and entries from the tables' own properties), once they
// hold a tenth of the tree's entries, within kMaxBudgetCorrection. New
// tables so make up for what the allocation cannot see: rounding to the
// kinds' sizes, levels holding another share of the tree than the model's
// (a base level at its floor, a tree still growing), and tables built for
// another tree or workload than today's.
double LevelAwareAllocator::Budget(const JobView& job,
                                   const std::vector<int>& levels) const {
  const double asked = settings_.BitsPerKey();
  double tree_entries = 0, filtered_entries = 0, error_bits = 0;
  for (const int level : levels) {
    if (level == 0) continue;
    const LevelTotals& totals = job.tree[level];
    tree_entries += static_cast<double>(totals.entries);
    filtered_entries += static_cast<double>(totals.filtered_entries);
    error_bits += static_cast<double>(totals.filter_bytes) * 8 -
                  asked * static_cast<double>(totals.filtered_entries);
  }
  if (!(filtered_entries > 0) || filtered_entries * 10 < tree_entries) {
    return asked;
  }
  const double corrected =
      asked - Correction(error_bits, static_cast<double>(job.job_entries),
                         tree_entries);
  return std::clamp(corrected, asked / kMaxBudgetCorrection,
                    asked * kMaxBudgetCorrection);
}

FilterChoice LevelAwareAllocator::ChoiceFor(const JobView& job,
                                            int level) const {
  if (settings_.memory_limit_bytes > 0) return Limited(job, level);
  return OneColumnFamily(job, level);
}

FilterChoice LevelAwareAllocator::OneColumnFamily(const JobView& job,
                                                  int level) const {
  ColumnFamilyState& cf = *job.column_family;
  const TreeTotals& totals = job.tree;
  const bool no_bottom = cf.no_bottom_filters();
  Tree tree = Tree::Of(totals, cf.flush_entries(), no_bottom, cf.num_levels(),
                       settings_.SizeRatio(), true);
  if (tree.levels.empty()) return Uniform();  // one level so far
  // (A policy's allocation is kept by the column family, by the settings
  // it was made with: one entry per id.)
  const std::shared_ptr<CachedAllocation> cached =
      cf.AllocationFor(allocation_key_);
  const LevelWorkload& workload = cf.workload();
  std::lock_guard<std::mutex> lock(cached->mutex);
  if (tree.levels != cached->levels ||
      SharesMoved(tree.shares, cached->shares) ||
      no_bottom != cached->no_bottom_filters ||
      workload.version() != cached->workload_version) {
    // The tree or the workload moved: allocated again below.
    tree.Probes(settings_.learn ? &workload : nullptr, settings_.HitFraction());
    cached->probes = tree.probes;
    cached->budget = -1;
    cached->levels = std::move(tree.levels);
    cached->shares = std::move(tree.shares);
    cached->workload_version = workload.version();
    cached->no_bottom_filters = no_bottom;
  }
  const double budget = job.complete
                            ? Budget(job, cached->levels)
                            : settings_.BitsPerKey();
  if (std::abs(budget - cached->budget) >
      kBudgetMoved * settings_.BitsPerKey()) {
    Tree again;
    again.levels = cached->levels;
    again.shares = cached->shares;
    again.probes = cached->probes;
    Allocate(again, budget, &cached->allocation);
    cached->budget = budget;
  }
  return cached->allocation.levels[SlotOf(cached->levels, level)];
}

// Under a memory limit: one allocation over every column family served,
// by Monkey's rule over all their levels, each level's absent probes
// weighed by its column family's probe rate, at the average the limit
// leaves (never more than the average asked), corrected for what the live
// filters take; levels that would get under kFewestUsefulBitsPerKey get no
// filter, the least probed per entry first.
FilterChoice LevelAwareAllocator::Limited(const JobView& job, int level) const {
  const std::shared_ptr<ColumnFamilyState>& cf = job.column_family;
  const TreeTotals& totals = job.tree;
  std::lock_guard<std::mutex> lock(limit_mutex_);
  // The column families served, held for this call (one whose DB closes
  // meanwhile stays readable): those gone are dropped.
  std::vector<std::shared_ptr<ColumnFamilyState>> states;
  bool known = false;
  for (auto it = served_.begin(); it != served_.end();) {
    std::shared_ptr<ColumnFamilyState> state = it->cf.lock();
    if (state == nullptr) {
      it = served_.erase(it);
      continue;
    }
    known = known || state == cf;
    states.push_back(std::move(state));
    ++it;
  }
  if (!known) {
    served_.emplace_back();
    served_.back().cf = cf;
    served_.back().samples_seen = cf->samples();
    states.push_back(cf);
  }

  // Each column family's tree (the job's for `cf`, the others' as they
  // are), and what their live filters take.
  struct Part {
    std::shared_ptr<ColumnFamilyState> state;
    Tree tree;
    double rate = 0;
  };
  std::vector<Part> parts;
  // `entries`: the trees' (the shares of the allocation); `held`: what the
  // filtered levels hold now, whose filters the limit bounds.
  double entries = 0, held = 0, live_bytes = 0, unknown_entries = 0;
  double any_rate = 0;
  const Clock::time_point now = Clock::now();
  for (size_t p = 0; p < served_.size(); ++p) {
    Served& served = served_[p];
    Part part;
    part.state = states[p];
    const TreeTotals part_totals =
        part.state == cf ? totals : part.state->Totals();
    part.tree =
        Tree::Of(part_totals, part.state->flush_entries(),
                 part.state->no_bottom_filters(), part.state->num_levels(),
                 settings_.SizeRatio(), false);
    for (double e : part.tree.entries) entries += e;
    for (int tree_level : part.tree.levels) {
      held += static_cast<double>(part_totals[tree_level].entries);
    }
    for (const LevelTotals& t : part_totals) {
      live_bytes += static_cast<double>(t.filter_bytes);
      unknown_entries += static_cast<double>(t.entries - t.known_entries);
    }
    const double seconds =
        std::chrono::duration<double>(now - served.seen_at).count();
    if (seconds >= 1) {
      const uint64_t samples = part.state->samples();
      const double rate =
          static_cast<double>(samples - served.samples_seen) / seconds;
      served.rate = served.rate > 0 ? (served.rate + rate) / 2 : rate;
      served.samples_seen = samples;
      served.seen_at = now;
    }
    part.rate = served.rate;
    any_rate += served.rate;
    parts.push_back(std::move(part));
  }
  if (!(entries > 0)) return Uniform();
  held = std::max(held, 1.0);

  // The average the limit leaves; corrected, like Budget, for what the
  // live filters take (files whose filter size is not read yet counted at
  // it), but free to fall to nothing while they take more than the limit.
  const double asked = settings_.BitsPerKey();
  const double limit_bits =
      8 * static_cast<double>(settings_.memory_limit_bytes);
  const double average = std::min(asked, limit_bits / held);
  double budget = average;
  if (job.complete) {
    // The job's tables and the others (the job's inputs left out) against
    // the limit, the others as they are (files whose filter size is not
    // read yet counted at the average).
    // (The job's inputs are in the tree's entries, at the output level,
    // not in its known filters: they are the job's.)
    const double job_entries = static_cast<double>(job.job_entries);
    const double others_unknown = std::max(0.0, unknown_entries - job_entries);
    const double error_bits = 8 * live_bytes + others_unknown * average +
                              average * job_entries - average * held;
    budget = std::clamp(average - Correction(error_bits, job_entries, held),
                        0.0, average * kMaxBudgetCorrection);
  }

  // Reallocate if any column family's tree, learning or the budget moved.
  bool moved = std::abs(budget - budget_) > kBudgetMoved * asked;
  for (size_t p = 0; p < parts.size() && !moved; ++p) {
    std::vector<double> shares;
    for (double e : parts[p].tree.entries) shares.push_back(e / entries);
    moved = parts[p].tree.levels != served_[p].levels ||
            SharesMoved(shares, served_[p].shares) ||
            parts[p].state->workload().version() != served_[p].workload_version;
  }
  if (moved) {
    // Every level of every column family: its share of all entries and its
    // absent probes per second (learned: density x entries x the column
    // family's probe rate; modelled: per Get, x its Gets, about its probe
    // rate over its levels; without rates, every column family alike).
    struct Slot {
      size_t part, index;
      double share, probes, build_weight;
    };
    std::vector<Slot> slots;
    for (size_t p = 0; p < parts.size(); ++p) {
      Part& part = parts[p];
      Tree& tree = part.tree;
      const double part_entries =
          std::accumulate(tree.entries.begin(), tree.entries.end(), 0.0);
      tree.Probes(settings_.learn ? &part.state->workload() : nullptr,
                  settings_.HitFraction());
      const uint32_t n = static_cast<uint32_t>(tree.levels.size());
      const double rate = any_rate > 0 ? part.rate : 1;
      for (uint32_t i = 0; i < n; ++i) {
        const double probes = tree.learned
                                  ? tree.probes[i] * part_entries * rate
                                  : tree.probes[i] * rate / n;
        slots.push_back({p, i, tree.entries[i] / entries, probes,
                         LevelBuildWeight(settings_.SizeRatio(), n, i)});
      }
    }
    // The least probed per entry go without a filter while the rest would
    // get too few bits/key.
    std::vector<size_t> order(slots.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&slots](size_t a, size_t b) {
      return slots[a].probes * slots[b].share <
             slots[b].probes * slots[a].share;
    });
    std::vector<bool> filtered(slots.size(), true);
    double filtered_share = 1;
    for (size_t k = 0; k < order.size(); ++k) {
      if (budget >= kFewestUsefulBitsPerKey * filtered_share) break;
      filtered[order[k]] = false;
      filtered_share -= slots[order[k]].share;
    }
    std::vector<LevelLoad> loads;
    for (size_t s = 0; s < slots.size(); ++s) {
      if (!filtered[s]) continue;
      loads.push_back({slots[s].share / filtered_share, slots[s].probes,
                       slots[s].build_weight});
    }
    LevelAllocation allocation;
    if (!loads.empty()) {
      LevelCostModel model =
          CostModelFor(settings_.choice, asked, settings_.SizeRatio(),
                       static_cast<uint32_t>(loads.size()));
      model.max_bits_per_key = LevelAllocation::MaxBitsPerKey(asked);
      using Limits = LevelAllocationLimits;
      AllocateTree(model,
                   std::clamp(budget / filtered_share,
                              Limits::kMinAverageBitsPerKey, asked),
                   loads, &allocation);
    }
    FilterChoice none;
    none.bits_per_key = 0;
    none.fpr = 1;
    for (size_t p = 0; p < parts.size(); ++p) {
      served_[p].levels = parts[p].tree.levels;
      served_[p].shares.clear();
      for (double e : parts[p].tree.entries) {
        served_[p].shares.push_back(e / entries);
      }
      served_[p].workload_version = parts[p].state->workload().version();
      served_[p].choices.assign(parts[p].tree.levels.size(), none);
    }
    size_t next = 0;
    for (size_t s = 0; s < slots.size(); ++s) {
      if (!filtered[s] || next >= allocation.levels.size()) continue;
      served_[slots[s].part].choices[slots[s].index] =
          allocation.levels[next++];
    }
    budget_ = budget;
  }
  for (size_t p = 0; p < parts.size(); ++p) {
    if (parts[p].state != cf) continue;
    return served_[p].choices[SlotOf(served_[p].levels, level)];
  }
  return Uniform();
}

}  // namespace sstfilter::rocksdb_plugin
