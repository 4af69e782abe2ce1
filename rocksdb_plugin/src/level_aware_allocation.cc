#include "level_aware_allocation.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <utility>

#include "rocksdb/env.h"
#include "sstfilter/cache_model.h"

namespace sstfilter::rocksdb_plugin {
namespace {

// A level under this share of the keys may borrow a neighbour's learned
// density until its own is learned (LearnedProbes): its filters' memory is
// small, whatever they get.
constexpr double kSmallLevelShare = 0.05;
// Under a memory limit, the joint allocation is made again when the
// trees' key shares have moved by this much (the sum of the changes), or
// the average the limit leaves by kAverageMoved; the account corrects
// what the drift in between costs.
constexpr double kSharesMoved = 0.02;
constexpr double kAverageMoved = 0.01;
// Under a memory limit a level gets no filter rather than one of fewer
// bits/key than kFewestUsefulBitsPerKey (a Bloom filter of 1.5 bits/key
// passes about 45% of absent keys, BloomMath: a third of a filter's work
// for its memory), and gets one back only once it would get
// kRestoreBitsPerKey, so that a limit near the line does not give a level
// a filter at one job and take it at the next.
constexpr double kFewestUsefulBitsPerKey = 1.5;
constexpr double kRestoreBitsPerKey = 2.0;
// Column families that share a limit are weighed by the probes their
// readers sample, over epochs of this many samples of them all (about
// 10^6 probes), each epoch keeping half the weight of those before: no
// clock, so the same reads give the same allocation.
constexpr uint64_t kEpochSamples = 4096;

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

// A double's bits, for a key of exact inputs.
int64_t BitsOf(double x) {
  int64_t bits = 0;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
}

// Under a memory limit: the joint allocation is made again when the
// trees' shares move (SharesMoved).
bool SharesMoved(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return true;
  double moved = 0;
  for (size_t i = 0; i < a.size(); ++i) moved += std::abs(a[i] - b[i]);
  return moved > kSharesMoved;
}

// What the filters of a tree hold, and the keys of the files with one:
// those a new table's correction per key is spread over. `with_unfiltered`:
// the files without a filter hold their (few) bits too (a limit bounds
// them all). A file whose properties are not known yet counts at its
// level's known bits/key, or at `unknown_bits_per_key` where none of its
// level is known. The caller sets what they owe.
AccountTotals TotalsOf(const TreeSnapshot& snapshot,
                       double unknown_bits_per_key, bool with_unfiltered) {
  AccountTotals totals;
  for (const LevelTotals& level : snapshot.levels) {
    totals.held_bits += static_cast<double>(level.filter_bits);
    totals.keys += static_cast<double>(level.filtered_keys);
    if (with_unfiltered) {
      totals.held_bits += static_cast<double>(level.unfiltered_bits);
    }
    if (level.unknown_keys > 0) {
      const double bits_per_key =
          level.filtered_keys > 0 ? static_cast<double>(level.filter_bits) /
                                        static_cast<double>(level.filtered_keys)
                                  : unknown_bits_per_key;
      totals.held_bits +=
          bits_per_key * static_cast<double>(level.unknown_keys);
      totals.keys += static_cast<double>(level.unknown_keys);
    }
  }
  totals.keys_built = static_cast<double>(snapshot.keys_built);
  return totals;
}

}  // namespace

// A tree as one allocation sees it: RocksDB's levels from the bottom up
// (L0 last), each with its keys and its share of them.
struct LevelAwareAllocator::Tree {
  std::vector<int> levels;
  std::vector<double> keys;
  std::vector<double> shares;
  // Absent probes per level (relative), learned or modelled.
  std::vector<double> probes;
  bool learned = false;

  // Runs in L0, each a filter every Get that reaches L0 consults.
  double l0_runs = 1;

  // The tree of `snapshot` as it stands: its levels below L0 with keys
  // (a running compaction's inputs at its output level), and L0 with what
  // it holds, at least the flush to come (`flush_keys`), as its runs.
  // Under optimize_filters_for_hits without its bottom level.
  // `at_least_two`: empty if that leaves fewer than two levels (a
  // one-level tree so far).
  // `l0_to_come`: L0 with the runs it held at most, each a flush (a
  // memory limit plans for the flushes to come before L0 is compacted).
  static Tree Of(const TreeSnapshot& snapshot, bool no_bottom_filters,
                 bool at_least_two, bool l0_to_come = false) {
    Tree tree;
    for (int level = kMaxLevels - 1; level >= 1; --level) {
      const double keys = static_cast<double>(
          snapshot.levels[level].keys + snapshot.levels[level].incoming_keys);
      if (keys <= 0) continue;
      tree.levels.push_back(level);
      tree.keys.push_back(keys);
    }
    const LevelTotals& l0 = snapshot.levels[0];
    tree.levels.push_back(0);
    const double runs_to_come =
        l0_to_come ? static_cast<double>(snapshot.l0_runs) : 1;
    tree.keys.push_back(
        std::max({1.0, static_cast<double>(l0.keys + l0.incoming_keys),
                  static_cast<double>(snapshot.flush_keys) * runs_to_come}));
    tree.l0_runs = std::max({1.0, static_cast<double>(l0.files), runs_to_come});
    if (no_bottom_filters && tree.levels.size() >= 2) {
      tree.levels.erase(tree.levels.begin());
      tree.keys.erase(tree.keys.begin());
    }
    if (at_least_two && tree.levels.size() < 2) return {};
    const double total = tree.TotalKeys();
    for (double k : tree.keys) tree.shares.push_back(k / total);
    return tree;
  }

  double TotalKeys() const {
    return std::accumulate(keys.begin(), keys.end(), 0.0);
  }

  // The absent probes of the levels: learned from `workload` (density
  // times share), or the model's for `hit_fraction`.
  void Probes(const LevelWorkload* workload, double hit_fraction) {
    learned = workload != nullptr && LearnedProbes(*workload);
    if (!learned) {
      // Monkey's FPR per run is its keys over its probes: L0's runs, each
      // a flush, get the bits one flush would whatever their number.
      probes = ModelAbsentProbes(shares, hit_fraction);
      if (levels.back() == 0) probes.back() *= l0_runs;
    }
  }

  // The learned absent probes of each level: as a whole for the levels
  // below L0 (a level that tiles the key space is probed by every absent
  // Get whatever it holds), and for L0 its probes per key times the keys
  // it holds (each L0 file is a run of its own). A level not learned
  // yet (a level of a file or two that comes and goes, L0 between
  // compactions) takes the probes of the nearest learned level above it,
  // or else below, if it holds under kSmallLevelShare of the keys; false
  // if a larger one is not learned (then the model serves).
  bool LearnedProbes(const LevelWorkload& workload) {
    const std::array<bool, kMaxLevels> learned_levels =
        workload.LearnedLevels();
    std::array<bool, kMaxLevels> ask{};
    bool any = false;
    for (int level : levels) {
      ask[level] = learned_levels[level];
      any = any || learned_levels[level];
    }
    LevelWorkload::PerLevel level_probes, density;
    if (!any || !workload.LevelProbes(ask, &level_probes) ||
        !workload.Densities(ask, &density)) {
      return false;
    }
    auto learned_probes = [&](size_t i) {
      return levels[i] == 0 ? density[0] * keys[i] : level_probes[levels[i]];
    };
    const size_t n = levels.size();
    probes.assign(n, 0);
    double total = 0;
    for (size_t i = 0; i < n; ++i) {
      double a = -1;
      if (learned_levels[levels[i]]) {
        a = learned_probes(i);
      } else if (shares[i] < kSmallLevelShare) {
        // Above is later in the tree's order (L0 last), below earlier.
        for (size_t j = i + 1; j < n && a < 0; ++j) {
          if (learned_levels[levels[j]]) a = learned_probes(j);
        }
        for (size_t j = i; j-- > 0 && a < 0;) {
          if (learned_levels[levels[j]]) a = learned_probes(j);
        }
      }
      if (a < 0) return false;
      probes[i] = a;
      total += probes[i];
    }
    return total > 0;
  }
};

// A column family a memory limit is shared with, and what the joint
// allocation gave it.
struct LevelAwareAllocator::Served {
  std::weak_ptr<ColumnFamilyTree> cf;
  // Its sampled probes: at the last epoch, and decayed over the epochs.
  uint64_t epoch_samples = 0;
  double rate = 0;
  // The inputs of its last allocation, and the choices per level.
  std::vector<int> levels;
  std::vector<double> shares;  // of all served keys
  uint64_t workload_version = UINT64_MAX;
  std::vector<FilterChoice> choices;
  // The RocksDB levels the limit left without a filter (hysteresis).
  std::array<bool, kMaxLevels> dropped{};
};

LevelAwareAllocator::LevelAwareAllocator(const LevelAwareSettings& settings)
    : settings_(settings),
      settings_key_(std::to_string(settings.millibits) + ":" +
                    std::to_string(settings.ratio_millis) + ":" +
                    LevelAwareChoiceName(settings.choice) + ":" +
                    std::to_string(settings.hit_millis) + ":" +
                    (settings.learn ? "1" : "0") +
                    (settings.size_for_cache ? ":cache" : "")),
      ledger_(settings.memory_limit_bytes > 0
                  ? std::make_shared<MemoryLedger>(settings.memory_limit_bytes,
                                                   settings.BitsPerKey())
                  : nullptr) {}
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

double LevelAwareAllocator::MaxBitsPerKey() const {
  return LevelAllocation::MaxBitsPerKey(settings_.MostBitsPerKey());
}

FilterChoice LevelAwareAllocator::Shifted(const FilterChoice& choice,
                                          double delta_bits) const {
  if (IsNoFilter(choice) || !(std::abs(delta_bits) > 1e-9)) return choice;
  const KindModel* kind = KindOf(choice.kind);
  if (kind == nullptr) return choice;
  const double target =
      std::clamp(choice.bits_per_key + delta_bits,
                 LevelAllocation::kMinBitsPerKey, MaxBitsPerKey());
  if (kind->within) return kind->within(target);
  const std::vector<FilterChoice>& points = kind->points;
  if (choice.kind == FilterKind::kCuckoo) {
    // Fingerprint widths about a bit apart: the nearest, if nearer.
    FilterChoice nearest = choice;
    for (const FilterChoice& c : points) {
      if (std::abs(c.bits_per_key - target) <
          std::abs(nearest.bits_per_key - target)) {
        nearest = c;
      }
    }
    return nearest;
  }
  // RocksDB's kinds: the policy's bits (millibits) between the two sampled
  // sizes around the target, linearly, and the FPR between theirs on the
  // log scale. (RocksdbBuilder sizes Ribbon for the table's keys.)
  auto above = std::lower_bound(
      points.begin(), points.end(), target,
      [](const FilterChoice& c, double b) { return c.bits_per_key < b; });
  if (above == points.begin()) return points.front();
  if (above == points.end()) return points.back();
  const FilterChoice& low = *(above - 1);
  const FilterChoice& high = *above;
  const double span = high.bits_per_key - low.bits_per_key;
  const double t = span > 0 ? (target - low.bits_per_key) / span : 0;
  FilterChoice shifted = low;
  shifted.bits_per_key = target;
  shifted.rocksdb_millibits = std::llround(
      static_cast<double>(low.rocksdb_millibits) +
      t * static_cast<double>(high.rocksdb_millibits - low.rocksdb_millibits));
  shifted.fpr = std::exp(std::log(low.fpr) +
                         t * (std::log(high.fpr) - std::log(low.fpr)));
  return shifted;
}

void LevelAwareAllocator::Allocate(const std::vector<LevelLoad>& loads,
                                   double average, LevelAllocation* out) const {
  LevelCostModel model =
      CostModelFor(settings_.choice, settings_.BitsPerKey(),
                   settings_.SizeRatio(), static_cast<uint32_t>(loads.size()));
  model.max_bits_per_key = MaxBitsPerKey();
  using Limits = LevelAllocationLimits;
  const Status s = AllocateTree(
      model,
      std::clamp(average, Limits::kMinAverageBitsPerKey,
                 std::min(Limits::kMaxAverageBitsPerKey, MaxBitsPerKey())),
      loads, out);
  if (!s.ok()) {
    // Not reached with loads made here (shares and probes positive); if it
    // were, every level gets the one-level filter rather than none.
    out->levels.assign(loads.size(), Uniform());
  }
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
    Allocate(TShapedLoads(settings_.SizeRatio(), n, settings_.HitFraction()),
             settings_.BitsPerKey(), &allocation);
  }
  return level == 0 ? allocation.levels.back()
                    : allocation.levels[static_cast<size_t>(bottom - level)];
}

FilterChoice LevelAwareAllocator::ChoiceFor(
    const JobView& job, int level, const CacheView& cache,
    ROCKSDB_NAMESPACE::Logger* log) const {
  const TreeSnapshot snapshot = job.column_family->Snapshot();
  if (settings_.memory_limit_bytes > 0) return Limited(job, snapshot, level);
  return Average(job.column_family, snapshot, level, cache, log);
}

// The rule for an average (README, "How LevelAware chooses"): Monkey's
// allocation over the tree as it stands (Tree::Of) and its levels' absent
// probes, learned or modelled, at the average asked; a new file gets its
// level's. Nothing else moves it: a tree whose files were built on the
// tree as it stands holds the average (to the kinds' sizes), and one built
// on other trees holds what it did until compaction rewrites it. (A
// correction for what the other files hold beyond the rule, tried on the
// demo's tree, moved the average from 0.99x to 1.01-1.05x of the budget:
// each job paid for files the next job replaced.)
FilterChoice LevelAwareAllocator::Average(
    const std::shared_ptr<ColumnFamilyTree>& cf, const TreeSnapshot& snapshot,
    int level, const CacheView& cache, ROCKSDB_NAMESPACE::Logger* log) const {
  const std::shared_ptr<PolicyState> state = cf->PolicyStateFor(settings_key_);
  std::lock_guard<std::mutex> lock(state->mutex);
  const double average =
      settings_.size_for_cache
          ? CacheAverage(cf, snapshot, cache, log, state.get())
          : settings_.BitsPerKey();
  return Rule(snapshot, cf->no_bottom_filters(),
              settings_.learn ? &cf->workload() : nullptr, level, state.get(),
              average);
}

FilterChoice LevelAwareAllocator::Rule(const TreeSnapshot& snapshot,
                                       bool no_bottom_filters,
                                       const LevelWorkload* workload, int level,
                                       PolicyState* cache,
                                       double average) const {
  Tree tree = Tree::Of(snapshot, no_bottom_filters, true);
  if (tree.levels.empty()) return Uniform();
  tree.Probes(workload, settings_.HitFraction());
  return AllocationOf(tree, average, cache).levels[SlotOf(tree.levels, level)];
}

std::vector<FilterChoice> LevelAwareAllocator::RuleByLevel(
    const TreeSnapshot& snapshot) const {
  std::vector<FilterChoice> out(kMaxLevels);
  PolicyState cache;
  for (int level = 0; level < kMaxLevels; ++level) {
    out[level] =
        Rule(snapshot, false, nullptr, level, &cache, settings_.BitsPerKey());
  }
  return out;
}

const LevelAllocation& LevelAwareAllocator::AllocationOf(
    const Tree& tree, double average, PolicyState* state) const {
  // The allocation is kept while the inputs stay exactly the same, so it
  // is a function of them alone. (Rounding them to a grid moved L0's
  // choice by up to 5 bits/key: its memory is so small that neighbouring
  // choices there cost nearly the same.)
  std::vector<int64_t> inputs(tree.levels.begin(), tree.levels.end());
  for (size_t i = 0; i < tree.levels.size(); ++i) {
    inputs.push_back(BitsOf(tree.shares[i]));
    inputs.push_back(BitsOf(tree.probes[i]));
  }
  inputs.push_back(BitsOf(average));
  if (inputs != state->inputs) {
    Allocate(LoadsOf(tree), average, &state->allocation);
    state->inputs = std::move(inputs);
  }
  return state->allocation;
}

std::vector<LevelLoad> LevelAwareAllocator::LoadsOf(const Tree& tree) const {
  std::vector<LevelLoad> loads;
  const uint32_t n = static_cast<uint32_t>(tree.levels.size());
  for (uint32_t i = 0; i < n; ++i) {
    loads.push_back({tree.shares[i], tree.probes[i],
                     LevelBuildWeight(settings_.SizeRatio(), n, i)});
  }
  return loads;
}

// size_for_cache (README, "Size filters for the block cache"): the
// average from the cache model over the tree as it stands.
double LevelAwareAllocator::CacheAverage(
    const std::shared_ptr<ColumnFamilyTree>& cf, const TreeSnapshot& snapshot,
    const CacheView& cache, ROCKSDB_NAMESPACE::Logger* log,
    PolicyState* state) const {
  const double asked = settings_.BitsPerKey();
  auto tell = [&](double average, const std::string& why) {
    if (log == nullptr || std::abs(average - state->logged_average) < 0.25) {
      return;
    }
    state->logged_average = average;
    ROCKSDB_NAMESPACE::Log(ROCKSDB_NAMESPACE::InfoLogLevel::INFO_LEVEL, log,
                           "[%s] sstfilter.LevelAware size_for_cache: %.2f "
                           "bits/key (asked %.2f): %s",
                           cf->name().c_str(), average, asked, why.c_str());
  };
  if (cache.cache == nullptr) {
    tell(asked,
         "the filters are not in a block cache "
         "(cache_index_and_filter_blocks=false or no block cache): "
         "nothing to size for");
    return asked;
  }
  Tree tree = Tree::Of(snapshot, cf->no_bottom_filters(), true);
  double data_bytes = 0, index_bytes = 0;
  if (tree.levels.empty() ||
      !TreeBytes(cf->Held(), &data_bytes, &index_bytes)) {
    return asked;  // a one-level tree so far, or no file's sizes known
  }
  const LevelWorkload* workload = settings_.learn ? &cf->workload() : nullptr;
  tree.Probes(workload, settings_.HitFraction());
  // The probes that find their key, in the unit of tree.probes: learned,
  // or the model's fraction of Gets that hit (its probes are per Get).
  double hits = settings_.HitFraction();
  if (tree.learned) {
    std::array<bool, kMaxLevels> ask = workload->LearnedLevels();
    LevelWorkload::PerLevel level_hits{};
    hits = 0;
    if (workload->LevelHits(ask, &level_hits)) {
      for (int level : tree.levels) hits += level_hits[level];
    }
  }
  CacheLoad load;
  const double share = CacheShareOf(cache.cache, cf, data_bytes);
  load.capacity_bytes = kUsableCacheShare * share;
  load.data_bytes = data_bytes;
  load.data_block_bytes = cache.data_block_bytes;
  load.index_bytes = index_bytes;
  int64_t files = 0;
  for (const LevelTotals& level : snapshot.levels) files += level.files;
  files = std::max<int64_t>(files, 1);
  // Unpartitioned, a file's index (filter) is one block.
  load.index_block_bytes = cache.partitioned_index
                               ? cache.metadata_block_bytes
                               : index_bytes / static_cast<double>(files);
  load.hits = hits;
  if (tree.learned) {
    LevelWorkload::PerBucket slice_hits, slice_absent;
    if (workload->BucketShares(&slice_hits, &slice_absent)) {
      load.slice_hits.assign(slice_hits.begin(), slice_hits.end());
      load.slice_absent.assign(slice_absent.begin(), slice_absent.end());
    }
  }
  load.absent_probes =
      std::accumulate(tree.probes.begin(), tree.probes.end(), 0.0);
  const double keys = tree.TotalKeys();
  load.filter_block_bytes = cache.metadata_block_bytes;
  if (!cache.partitioned_filters) {
    load.filter_blocks = static_cast<double>(files);  // one per file
  }

  auto rounded = [](double x) {
    // To 1/16 of a doubling (4.4%): the choice moves by far less.
    return x > 0 ? std::llround(std::log2(x) * 16) : INT64_MIN;
  };
  std::vector<int64_t> inputs(tree.levels.begin(), tree.levels.end());
  for (size_t i = 0; i < tree.levels.size(); ++i) {
    inputs.push_back(rounded(tree.keys[i]));
    inputs.push_back(rounded(tree.probes[i]));
  }
  for (double x : {load.capacity_bytes, load.data_bytes, load.index_bytes,
                   load.data_block_bytes, load.index_block_bytes,
                   load.filter_block_bytes, load.hits}) {
    inputs.push_back(rounded(x));
  }
  for (const auto* shares : {&load.slice_hits, &load.slice_absent}) {
    for (double x : *shares) inputs.push_back(rounded(x));
  }
  if (inputs == state->cache_inputs) return state->cache_average;

  // The allocation holds the average, so the filters' bytes follow from
  // it. Their wasted probes: the allocation at the bits asked, each
  // level's filter moved by the same bits (Monkey's optimum moves every
  // level alike where the kinds' FPR falls alike per bit). One allocation,
  // not one per point of the grid (one per point took most of a table
  // build's CPU in rocksdb_db_cache_sizing_test's small trees).
  LevelAllocation at_asked;
  Allocate(LoadsOf(tree), asked, &at_asked);
  auto cost_at = [&](double average) {
    FilterCost cost{keys * average / 8, 0};
    for (size_t i = 0; i < tree.levels.size(); ++i) {
      cost.wasted +=
          tree.probes[i] * Shifted(at_asked.levels[i], average - asked).fpr;
    }
    return cost;
  };
  const double most = std::min(settings_.MostBitsPerKey(),
                               LevelAllocationLimits::kMaxAverageBitsPerKey);
  const CacheChoice choice =
      ChooseForCache(load, kCacheFewestBitsPerKey, most, cost_at);
  state->cache_inputs = std::move(inputs);
  state->cache_average = choice.bits_per_key;
  const double per_get = load.hits + load.absent_probes;
  char why[512];
  std::snprintf(
      why, sizeof why,
      "its share of the block cache %.0f bytes (capacity %zu), data %.0f, "
      "index %.0f bytes; per filter probe %.3f found the key (%s: %.4g hits, "
      "%.4g absent); filters "
      "%.0f bytes, %.3f disk reads per probe modelled (%.3f at the bits "
      "asked)",
      share, cache.cache->GetCapacity(), load.data_bytes, load.index_bytes,
      per_get > 0 ? load.hits / per_get : 0,
      tree.learned ? "learned" : "modelled", load.hits, load.absent_probes,
      choice.filter_bytes, per_get > 0 ? choice.disk_reads / per_get : 0,
      per_get > 0
          ? DiskReads(load, keys * asked / 8, cost_at(asked).wasted) / per_get
          : 0);
  tell(choice.bits_per_key, why);
  return choice.bits_per_key;
}

// Under a memory limit, the rule: one allocation over every column family
// the ledger serves (memory_ledger.h), by Monkey's rule over all their
// levels with L0 at the flushes it holds at most, each level's absent
// probes weighed by its column family's sampled probes, at the average the
// limit leaves (never more than the average asked), each table moved by
// the account's correction (what the live filters hold against what the
// rule owes); levels that would get under kFewestUsefulBitsPerKey get no
// filter, the least probed per key first, and get one back at
// kRestoreBitsPerKey. FitToLimit then holds the table to what is free.
FilterChoice LevelAwareAllocator::Limited(const JobView& job,
                                          const TreeSnapshot& snapshot,
                                          int level, bool corrected) const {
  const std::shared_ptr<ColumnFamilyTree>& cf = job.column_family;
  const double asked = settings_.BitsPerKey();
  // The column families the limit counts (memory_ledger.h), this one last,
  // and their trees, read before the limit's lock is taken.
  const std::vector<std::shared_ptr<ColumnFamilyTree>> cfs =
      ledger_->Served(job);
  std::vector<TreeSnapshot> parts;
  for (const auto& tree : cfs) {
    parts.push_back(tree == cf ? snapshot : tree->Snapshot());
  }
  std::lock_guard<std::mutex> lock(limit_mutex_);
  // Their records, in that order (found by owner, not by a scan).
  for (auto it = served_.begin(); it != served_.end();) {
    it = it->first.expired() ? served_.erase(it) : std::next(it);
  }
  std::vector<Served*> records;
  for (const auto& tree : cfs) {
    auto [it, made] = served_.try_emplace(tree);
    if (made) {
      it->second.cf = tree;
      it->second.epoch_samples = tree->samples();
    }
    records.push_back(&it->second);
  }
  const size_t mine = cfs.size() - 1;
  // An epoch of samples over them all: each keeps half its weight.
  uint64_t new_samples = 0;
  for (size_t p = 0; p < cfs.size(); ++p) {
    new_samples += cfs[p]->samples() - records[p]->epoch_samples;
  }
  if (new_samples >= kEpochSamples) {
    for (size_t p = 0; p < cfs.size(); ++p) {
      const uint64_t samples = cfs[p]->samples();
      records[p]->rate =
          records[p]->rate / 2 +
          static_cast<double>(samples - records[p]->epoch_samples);
      records[p]->epoch_samples = samples;
    }
  }

  // Each column family's tree and account, summed: the average the limit
  // leaves first, at which files of levels whose sizes are not known yet
  // count.
  std::vector<Tree> trees;
  double tree_keys = 0, all_keys = 0, counted_keys = 0;
  for (size_t p = 0; p < cfs.size(); ++p) {
    trees.push_back(Tree::Of(parts[p], cfs[p]->no_bottom_filters(), false,
                             /*l0_to_come=*/true));
    for (double k : trees.back().keys) tree_keys += k;
    for (const LevelTotals& t : parts[p].levels) {
      all_keys += static_cast<double>(t.keys + t.incoming_keys);
      counted_keys += static_cast<double>(t.keys);
    }
    // L0's flushes to come.
    const LevelTotals& l0 = parts[p].levels[0];
    all_keys +=
        std::max(0.0, trees.back().keys.back() -
                          static_cast<double>(l0.keys + l0.incoming_keys));
  }
  // The average the limit leaves per key of the trees the running jobs
  // leave and L0's flushes to come, owed by the keys counted now (a
  // running compaction's inputs hold nothing until its tables come).
  const double limit_bits =
      8 * static_cast<double>(settings_.memory_limit_bytes);
  const double average =
      all_keys > 0 ? std::min(asked, limit_bits / all_keys) : asked;
  AccountTotals totals;
  for (size_t p = 0; p < parts.size(); ++p) {
    const AccountTotals t =
        TotalsOf(parts[p], average, /*with_unfiltered=*/true);
    totals.held_bits += t.held_bits;
    totals.keys += t.keys;
    totals.keys_built += t.keys_built;
  }
  totals.due_bits = average * counted_keys;

  bool moved = std::abs(average - joint_average_) > kAverageMoved * average;
  for (size_t p = 0; p < cfs.size() && !moved; ++p) {
    std::vector<double> shares;
    for (double k : trees[p].keys) shares.push_back(k / tree_keys);
    moved = trees[p].levels != records[p]->levels ||
            SharesMoved(shares, records[p]->shares) ||
            cfs[p]->workload().version() != records[p]->workload_version;
  }
  if (moved && tree_keys > 0) {
    for (size_t p = 0; p < cfs.size(); ++p) {
      trees[p].Probes(settings_.learn ? &cfs[p]->workload() : nullptr,
                      settings_.HitFraction());
    }
    AllocateJointly(trees, records, average);
    joint_average_ = average;
  }
  const Served& served = *records[mine];
  if (served.choices.empty()) return Uniform();
  const FilterChoice& choice = served.choices[SlotOf(served.levels, level)];
  if (!corrected) return choice;
  return Shifted(choice, limit_account_.Correction(totals));
}

// What the rule plans for `level` of `cf` (its bits times the level's
// keys, L0 as the runs it holds when compacted) less what the level's
// files hold (a running compaction's inputs not), in bits.
double LevelAwareAllocator::PlanLeft(const JobView& job,
                                     const TreeSnapshot& snapshot,
                                     int level) const {
  const ColumnFamilyTree& cf = *job.column_family;
  const Tree tree =
      Tree::Of(snapshot, cf.no_bottom_filters(), false, /*l0_to_come=*/true);
  const size_t slot = SlotOf(tree.levels, level);
  if (slot >= tree.levels.size() || tree.levels[slot] != level) return 0;
  const LevelTotals& at = snapshot.levels[level];
  const double held =
      static_cast<double>(at.filter_bits + at.unfiltered_bits) +
      static_cast<double>(at.unknown_keys) * settings_.BitsPerKey();
  const double plan =
      std::max(
          0.0,
          Limited(job, snapshot, level, /*corrected=*/false).bits_per_key) *
      tree.keys[slot];
  return plan - held;
}

FilterChoice LevelAwareAllocator::FitToLimit(const JobView& job,
                                             const FilterChoice& choice,
                                             int64_t table_keys,
                                             int level) const {
  if (ledger_ == nullptr || IsNoFilter(choice)) return choice;
  const std::shared_ptr<ColumnFamilyTree>& cf = job.column_family;
  const int64_t to_write = cf->KeysToWrite(job.job_id);
  const double keys =
      static_cast<double>(to_write >= 0 ? to_write : table_keys);
  // A compaction below L0 leaves L0 what the rule plans for it and its
  // files do not hold: the flushes to come get their filters first, and
  // while the live filters are over the limit (a tree grown since they
  // were built) the rewrites give way.
  int64_t flush_room = 0;
  const TreeSnapshot snapshot = cf->Snapshot();
  if (level > 0) {
    flush_room =
        static_cast<int64_t>(std::max(0.0, PlanLeft(job, snapshot, 0)) / 8);
  }
  // What is free under the limit, for this table's keys: the hard stop,
  // with 1% kept for a filter's size straying from its nominal bits/key
  // (a Ribbon sized for its keys, a cuckoo retry).
  constexpr double kSizeMargin = 1.01;
  double allowed =
      ledger_->FreeBitsPerKey(job, table_keys, flush_room) / kSizeMargin;
  if (level >= 0 && keys > 0) {
    // And no more than its level's plan left, or the plan's bits/key if
    // that is more (a level over its plan comes back to it as its files
    // are rewritten): a level takes no other level's share, so the
    // bottom's rewrites do not take the base level's.
    allowed = std::min(
        allowed,
        std::max(
            Limited(job, snapshot, level, /*corrected=*/false).bits_per_key,
            PlanLeft(job, snapshot, level) / keys));
  }
  if (choice.bits_per_key <= allowed * (1 + 1e-9)) return choice;
  if (allowed < kFewestUsefulBitsPerKey) {
    FilterChoice none;
    none.bits_per_key = 0;
    none.fpr = 1;
    return none;
  }
  return Shifted(choice, allowed - choice.bits_per_key);
}

// Needs limit_mutex_; `trees` are those of `served`, with their probes.
void LevelAwareAllocator::AllocateJointly(
    std::vector<Tree>& trees, const std::vector<Served*>& served_records,
    double average) const {
  // Each column family's weight: its sampled probes (decayed epochs and the
  // current one). One whose files no learning builder made yet (none
  // sampled) weighs as the mean of the others; one sampled but quiet at
  // least a thousandth of the busiest, so its levels are weighed, not
  // lost.
  std::vector<double> rates(trees.size(), 0);
  double sum = 0, busiest = 0;
  int rated = 0;
  for (size_t p = 0; p < trees.size(); ++p) {
    const std::shared_ptr<ColumnFamilyTree> cf = served_records[p]->cf.lock();
    if (cf == nullptr || !cf->workload().HasSampledKeys()) {
      rates[p] = -1;
      continue;
    }
    rates[p] =
        served_records[p]->rate +
        static_cast<double>(cf->samples() - served_records[p]->epoch_samples);
    sum += rates[p];
    busiest = std::max(busiest, rates[p]);
    ++rated;
  }
  for (double& rate : rates) {
    if (rate < 0) {
      rate = rated > 0 && sum > 0 ? sum / rated : 1;
    } else if (busiest > 0) {
      rate = std::max(rate, busiest / 1000);
    } else {
      rate = 1;
    }
  }
  // Every level of every column family: its share of all keys and its
  // absent probes (learned: density x keys x rate; modelled: per Get,
  // spread over the tree's levels, x rate).
  struct Slot {
    size_t part, index;
    int level;
    double share, probes, build_weight;
  };
  double total_keys = 0;
  for (const Tree& tree : trees) {
    for (double k : tree.keys) total_keys += k;
  }
  std::vector<Slot> slots;
  for (size_t p = 0; p < trees.size(); ++p) {
    const Tree& tree = trees[p];
    const uint32_t n = static_cast<uint32_t>(tree.levels.size());
    for (uint32_t i = 0; i < n; ++i) {
      // Learned: per refresh period of its own samples, so per sample x
      // its samples; modelled: per Get, and a Get probes about n levels
      // per sample of it.
      const double probes = tree.learned ? tree.probes[i] * rates[p] /
                                               LevelWorkload::kRefreshSamples
                                         : tree.probes[i] * rates[p] / n;
      slots.push_back({p, i, tree.levels[i], tree.keys[i] / total_keys, probes,
                       LevelBuildWeight(settings_.SizeRatio(), n, i)});
    }
  }
  // The least probed per key go without a filter while the rest would get
  // too few bits/key (a level without one now needs more to get it back).
  std::vector<size_t> order(slots.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&slots](size_t a, size_t b) {
    return slots[a].probes * slots[b].share < slots[b].probes * slots[a].share;
  });
  std::vector<bool> kept(slots.size(), true);
  double kept_share = 1;
  for (size_t k : order) {
    const Slot& slot = slots[k];
    const bool was_dropped = served_records[slot.part]->dropped[slot.level];
    const double needed =
        was_dropped ? kRestoreBitsPerKey : kFewestUsefulBitsPerKey;
    if (average >= needed * kept_share) break;
    kept[k] = false;
    kept_share -= slot.share;
  }
  std::vector<LevelLoad> loads;
  for (size_t s = 0; s < slots.size(); ++s) {
    if (kept[s]) {
      loads.push_back({slots[s].share / kept_share, slots[s].probes,
                       slots[s].build_weight});
    }
  }
  LevelAllocation allocation;
  if (!loads.empty()) Allocate(loads, average / kept_share, &allocation);

  FilterChoice none;
  none.bits_per_key = 0;
  none.fpr = 1;
  for (size_t p = 0; p < trees.size(); ++p) {
    Served& served = *served_records[p];
    served.levels = trees[p].levels;
    served.shares.clear();
    for (double k : trees[p].keys) served.shares.push_back(k / total_keys);
    const std::shared_ptr<ColumnFamilyTree> cf = served.cf.lock();
    served.workload_version =
        cf != nullptr ? cf->workload().version() : UINT64_MAX;
    served.choices.assign(trees[p].levels.size(), none);
    served.dropped.fill(false);
  }
  size_t next = 0;
  for (size_t s = 0; s < slots.size(); ++s) {
    Served& served = (*served_records[slots[s].part]);
    if (!kept[s]) {
      served.dropped[slots[s].level] = true;
      continue;
    }
    if (next < allocation.levels.size()) {
      served.choices[slots[s].index] = allocation.levels[next++];
    }
  }
}

}  // namespace sstfilter::rocksdb_plugin
