// sstfilter.LevelAware: per-level bits/key and filter kind (Monkey over the
// kinds of one of three choices; the allocation and its cost model are
// sstfilter/level_allocation.h, the choices level_cost_model.h, what is
// learned of the workload sstfilter/workload.h and level_aware_learning.h).
// Levels that get RocksDB's FastLocalBloom or Ribbon are built by RocksDB's
// own policy of that size (RocksdbPolicyFor). The way a policy reads
// FilterBuildingContext follows RocksDB's own examples: RibbonFilterPolicy
// (filter_policy.cc) and LevelAndStyleCustomFilterPolicy
// (db/db_bloom_filter_test.cc).
//
// The tree, per column family (info_log, column family name): the levels
// LevelAwareListener last read, with their entries; without the listener,
// the populated levels from the shallowest that compactions write (learned:
// L1 in the static layout, the base level in the dynamic one) to the
// deepest known to hold data (learned from is_bottommost and from
// non-bottommost outputs, which have data below), growing by the size ratio
// T per level, and L0 one more level above them. A table's level counts
// from the bottom, so the static and dynamic layouts are both read
// correctly, whatever num_levels says. Under optimize_filters_for_hits
// (read in ValidateOptions) the bottom level has no filters: the memory
// goes to the levels above, at the average bits/key over their entries.
//
// The workload: absent-key probes per level from the readers' samples
// once every level has had some (learn=true, the default), else the model
// with the hit fraction `hits` (default 0: every lookup absent).

#include <algorithm>
#include <array>
#include <atomic>
#include <climits>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "filter_bits.h"
#include "id_grammar.h"
#include "level_aware_learning.h"
#include "level_cost_model.h"
#include "policies.h"
#include "policy_base.h"
#include "rocksdb/table.h"
#include "sstfilter/level_allocation.h"
#include "sstfilter/usable_space.h"
#include "sstfilter/workload.h"

namespace sstfilter::rocksdb_plugin {
namespace {

using ROCKSDB_NAMESPACE::FilterBitsBuilder;
using ROCKSDB_NAMESPACE::FilterBuildingContext;
using ROCKSDB_NAMESPACE::FilterPolicy;
using RocksStatus = ROCKSDB_NAMESPACE::Status;

constexpr int64_t kDefaultSizeRatioMillis = 10000;  // RocksDB's default T
// RocksDB's levels the policy tells apart (deeper ones share the last).
constexpr int kMaxTreeLevels = LevelWorkload::kMaxLevels;
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

// Raises (or lowers) `target` to `value` if that is higher (lower).
void StoreMax(std::atomic<int>& target, int value) {
  int seen = target.load(std::memory_order_relaxed);
  while (value > seen && !target.compare_exchange_weak(seen, value)) {
  }
}
void StoreMin(std::atomic<int>& target, int value) {
  int seen = target.load(std::memory_order_relaxed);
  while (value < seen && !target.compare_exchange_weak(seen, value)) {
  }
}

// LevelAware's parameters, as the id states them.
struct Settings {
  int64_t millibits = 10000;
  int64_t ratio_millis = kDefaultSizeRatioMillis;
  LevelAwareChoice choice = LevelAwareChoice::kDefault;
  int64_t hit_millis = 0;  // the expected fraction of lookups that hit, /1000
  bool learn = true;
  double BitsPerKey() const { return static_cast<double>(millibits) / 1000; }
  double SizeRatio() const { return static_cast<double>(ratio_millis) / 1000; }
  double HitFraction() const { return static_cast<double>(hit_millis) / 1000; }
};

// A tree as one allocation sees it: RocksDB's levels from the bottom up
// (L0 last), each with its share of the entries.
struct Tree {
  std::vector<int> levels;
  std::vector<double> shares;
};

class LevelAwarePolicy : public PolicyBase {
 public:
  explicit LevelAwarePolicy(const Settings& settings) : settings_(settings) {}

  const char* Name() const override { return kLevelAwareName; }
  // Defaults are left out, so that the ids of 0.1 stay canonical.
  std::string GetId() const override {
    std::string id = std::string(Name()) + ":" +
                     FormatDecimalMillis(settings_.millibits) + ":" +
                     FormatDecimalMillis(settings_.ratio_millis);
    if (settings_.choice != LevelAwareChoice::kDefault) {
      id += std::string(":") + LevelAwareChoiceName(settings_.choice);
    }
    if (settings_.hit_millis != 0) {
      id += ":hits=" + FormatDecimalMillis(settings_.hit_millis);
    }
    if (!settings_.learn) id += ":learn=false";
    return id;
  }

  // optimize_filters_for_hits is a column family option the policy cannot
  // read when it builds; DB::Open shows it here.
  RocksStatus ValidateOptions(
      const ROCKSDB_NAMESPACE::DBOptions& db_options,
      const ROCKSDB_NAMESPACE::ColumnFamilyOptions& cf_options) const override {
    if (cf_options.optimize_filters_for_hits) {
      no_bottom_filters_.store(true, std::memory_order_relaxed);
    }
    return PolicyBase::ValidateOptions(db_options, cf_options);
  }

  FilterBitsBuilder* GetBuilderWithContext(
      const FilterBuildingContext& context) const override {
    const int level = TreeLevel(context);
    if (level < 0) return Make(Uniform(), context, level);
    auto observations = ColumnFamilyObservations::For(
        context.info_log, context.column_family_name);
    ColumnFamily& cf = ColumnFamilyOf(observations.get());
    if (level > 0) cf.Learn(context, level);
    if (settings_.learn) observations->workload().MaybeRefresh();
    const FilterChoice choice = ChoiceFor(cf, *observations, level);
    if (!settings_.learn) return Make(choice, context, level);
    TableBuild build;
    build.tag.column_family = observations;
    build.tag.level = level;
    build.tag.absent_weight = LevelWorkload::AbsentWeight(choice.fpr);
    build.level_choice = choice;
    // The builder outlives this call, the context does not.
    build.make = [this, context, level](const FilterChoice& c, bool* ours) {
      *ours = !IsRocksdbKind(c.kind);
      return Make(c, context, level);
    };
    const LevelWorkload* workload = &observations->workload();
    if (workload->LearnedLevels()[level]) {
      // What the readers saw of this level's key ranges sizes the table:
      // the builder keeps the keys until Finish shows their range.
      const LevelCostModel& model = OneLevelModel();
      const KindModel* kind = nullptr;
      for (const KindModel& k : model.kinds) {
        if (k.kind == choice.kind) kind = &k;
      }
      const double max_bits =
          LevelAllocation::MaxBitsPerKey(settings_.BitsPerKey());
      if (kind != nullptr) {
        build.choose = [workload, kind, choice, level, max_bits](
                           std::string_view smallest,
                           std::string_view largest) {
          const double factor = workload->TableDensityFactor(
              level, workload->BucketOf(smallest), workload->BucketOf(largest));
          return TableChoice(*kind, choice, factor, max_bits);
        };
      }
    }
    return NewRegisteringBuilder(std::move(build));
  }

  ROCKSDB_NAMESPACE::FilterBitsReader* GetFilterBitsReader(
      const ROCKSDB_NAMESPACE::Slice& contents) const override {
    ROCKSDB_NAMESPACE::FilterBitsReader* reader =
        PolicyBase::GetFilterBitsReader(contents);
    if (!settings_.learn) return reader;
    std::shared_ptr<const TableTag> tag = LookUpTable(ToView(contents));
    return tag == nullptr ? reader : NewSamplingReader(reader, std::move(tag));
  }

 private:
  // What one column family's builds have shown, and its allocation.
  struct ColumnFamily {
    std::atomic<int> shallowest{INT_MAX};
    std::atomic<int> deepest{0};
    std::mutex mutex;  // guards what follows
    Tree tree;
    LevelAllocation allocation;
    uint64_t workload_version = UINT64_MAX;
    bool no_bottom_filters = false;
    double budget = 0;  // the average bits/key the allocation was made at

    void Learn(const FilterBuildingContext& context, int level) {
      StoreMin(shallowest, level);
      // A table that is not bottommost has data below it.
      int deepest_seen = context.is_bottommost ? level : level + 1;
      if (context.num_levels > 0)
        deepest_seen = std::min(deepest_seen, context.num_levels - 1);
      StoreMax(deepest, std::min(deepest_seen, kMaxTreeLevels - 1));
    }
  };

  static bool IsRocksdbKind(LevelFilterKind kind) {
    return kind == LevelFilterKind::kFastLocalBloom ||
           kind == LevelFilterKind::kRibbon;
  }

  // The choice's cost model for one level: its kinds and their curves,
  // made when a table first needs them (RocksDB's curves are sampled from
  // its builders once per process), so that making a policy, parsing
  // options and DB::Open pay nothing for them.
  const LevelCostModel& OneLevelModel() const {
    std::call_once(one_level_once_, [this] {
      one_level_ = CostModelFor(settings_.choice, settings_.BitsPerKey(),
                                settings_.SizeRatio(), 1);
      LevelAllocation one;
      AllocateLevels(one_level_, settings_.BitsPerKey(), settings_.SizeRatio(),
                     1, &one);
      uniform_ = one.levels[0];
    });
    return one_level_;
  }
  // The filter of a one-level tree: tables of no level, and every table
  // until a second level is known.
  const FilterChoice& Uniform() const {
    OneLevelModel();
    return uniform_;
  }

  // The table's level in a leveled tree (TableLevel, with a flush in L0),
  // or -1 where it has no place in one: universal and FIFO have no levels
  // of T-fold sizes, and a table of no level (SstFileWriter) sits nowhere.
  static int TreeLevel(const FilterBuildingContext& context) {
    if (context.compaction_style != ROCKSDB_NAMESPACE::kCompactionStyleLevel) {
      return -1;
    }
    const int level = TableLevel(context);
    return level == kUnknownTableLevel
               ? -1
               : std::clamp(level, 0, kMaxTreeLevels - 1);
  }

  FilterBitsBuilder* Make(const FilterChoice& choice,
                          const FilterBuildingContext& context,
                          int level) const {
    if (IsRocksdbKind(choice.kind)) {
      // RocksDB's own builder: its cache charging, its
      // optimize_filters_for_memory, and Ribbon's fallback to Bloom.
      return RocksdbPolicyFor(choice)->GetBuilderWithContext(context);
    }
    BuilderConfig config = BaseConfig(context);
    config.kind = choice.kind == LevelFilterKind::kCuckoo
                      ? FilterKind::kCuckoo
                      : FilterKind::kBlockedBloom;
    config.bits_per_key = choice.bits_per_key;
    config.fingerprint_bits = choice.fingerprint_bits;
    if (context.table_options.optimize_filters_for_memory) {
      // One FPR balance per level (and one for tables of no level): the
      // levels' filters have different targets, so FPR one level saves
      // must not pay for another's.
      config.memory_balance =
          &memory_balances_[level < 0 ? kMaxTreeLevels : level];
    }
    return NewBitsBuilder(config);
  }

  ColumnFamily& ColumnFamilyOf(const ColumnFamilyObservations* key) const {
    std::lock_guard<std::mutex> lock(column_families_mutex_);
    std::unique_ptr<ColumnFamily>& cf = column_families_[key];
    if (cf == nullptr) cf = std::make_unique<ColumnFamily>();
    return *cf;
  }

  // The tree now: the listener's, or levels growing by T between the
  // shallowest and deepest levels built; under optimize_filters_for_hits
  // without its bottom level. Empty: a one-level tree so far.
  Tree CurrentTree(const ColumnFamily& cf,
                   const ColumnFamilyObservations& observations,
                   bool no_bottom_filters) const {
    Tree tree;
    ColumnFamilyObservations::LevelEntries entries;
    uint64_t flush_entries = 0;
    if (observations.Tree(&entries, &flush_entries)) {
      for (int level = kMaxTreeLevels - 1; level >= 1; --level) {
        if (entries[level] == 0) continue;
        tree.levels.push_back(level);
        tree.shares.push_back(static_cast<double>(entries[level]));
      }
      // L0 holds between none and a few flushes, and a settled DB's L0
      // holds about one: its share is one flush's entries (or what it
      // holds, before the first flush of the process), so that the memory
      // of a settled DB is the average asked.
      tree.levels.push_back(0);
      tree.shares.push_back(static_cast<double>(std::max<uint64_t>(
          flush_entries > 0 ? flush_entries : entries[0], 1)));
    } else {
      const int deepest = cf.deepest.load(std::memory_order_relaxed);
      if (deepest == 0) return {};
      const int shallowest =
          std::min(cf.shallowest.load(std::memory_order_relaxed), deepest);
      const int n = std::min(deepest - shallowest + 2, kMaxTreeLevels);
      for (int i = 0; i < n; ++i) {
        tree.levels.push_back(i + 1 == n ? 0 : deepest - i);
        tree.shares.push_back(LevelShare(settings_.SizeRatio(),
                                         static_cast<uint32_t>(n),
                                         static_cast<uint32_t>(i)));
      }
    }
    if (no_bottom_filters && tree.levels.size() >= 2) {
      tree.levels.erase(tree.levels.begin());
      tree.shares.erase(tree.shares.begin());
    }
    double total = 0;
    for (double share : tree.shares) total += share;
    for (double& share : tree.shares) share /= total;
    if (tree.levels.size() < 2) return {};
    return tree;
  }

  // The loads of `tree`: absent probes learned, or from the model.
  std::vector<LevelLoad> LoadsOf(const Tree& tree,
                                 const LevelWorkload& workload,
                                 bool* learned) const {
    const uint32_t n = static_cast<uint32_t>(tree.levels.size());
    std::vector<double> probes;
    *learned = settings_.learn && LearnedProbes(tree, workload, &probes);
    if (!*learned) {
      probes = ModelAbsentProbes(tree.shares, settings_.HitFraction());
    }
    std::vector<LevelLoad> loads;
    for (uint32_t i = 0; i < n; ++i) {
      loads.push_back({tree.shares[i], probes[i],
                       LevelBuildWeight(settings_.SizeRatio(), n, i)});
    }
    return loads;
  }

  // The learned absent probes of `tree`'s levels: density times share. A
  // level not learned yet (L0 between compactions, a level of a file or
  // two that comes and goes) takes the density of the nearest learned level
  // above it, or else below, if it holds under kSmallLevelShare of the
  // entries; false if a larger one is not learned (then the model serves).
  static bool LearnedProbes(const Tree& tree, const LevelWorkload& workload,
                            std::vector<double>* probes) {
    const std::array<bool, kMaxTreeLevels> learned = workload.LearnedLevels();
    std::array<bool, kMaxTreeLevels> ask{};
    bool any = false;
    for (int level : tree.levels) {
      ask[level] = learned[level];
      any = any || learned[level];
    }
    std::array<double, kMaxTreeLevels> density;
    if (!any || !workload.Densities(ask, &density)) return false;
    const size_t n = tree.levels.size();
    probes->assign(n, 0);
    double total = 0;
    for (size_t i = 0; i < n; ++i) {
      double d = -1;
      if (learned[tree.levels[i]]) {
        d = density[tree.levels[i]];
      } else if (tree.shares[i] < kSmallLevelShare) {
        // Above is later in the tree's order (L0 last), below earlier.
        for (size_t j = i + 1; j < n && d < 0; ++j) {
          if (learned[tree.levels[j]]) d = density[tree.levels[j]];
        }
        for (size_t j = i; j-- > 0 && d < 0;) {
          if (learned[tree.levels[j]]) d = density[tree.levels[j]];
        }
      }
      if (d < 0) return false;
      (*probes)[i] = d * tree.shares[i];
      // A Get reaches a level only after every level above it that covers
      // its key: a level is probed about as often as the one below or more
      // (less only through gaps in its key range). A small level's samples
      // that say less are mostly chance, and would starve its filters,
      // whose memory is small either way.
      if (i > 0) (*probes)[i] = std::max((*probes)[i], (*probes)[i - 1]);
      total += (*probes)[i];
    }
    return total > 0;
  }

  // The average bits/key to allocate new tables at, so that the live
  // filters take the average asked: with the listener's tree, the asked
  // average plus kBudgetGain times what the live filters built by this
  // process fall short of it, once they hold a tenth of the tree's
  // entries, within kMaxBudgetCorrection. New tables correct what
  // the allocation cannot see: rounding to the kinds' sizes, RocksDB sizing
  // Ribbon by the table's key count (about 1.5% under the curve at 10^4
  // keys), and tables built for the tree as it was when they were built.
  double Budget(const ColumnFamilyObservations& observations,
                const Tree& tree) const {
    const double asked = settings_.BitsPerKey();
    if (!settings_.learn) return asked;
    int64_t live_entries = 0;
    const double live = observations.LiveBitsPerKey(&live_entries);
    ColumnFamilyObservations::LevelEntries entries;
    uint64_t flush_entries = 0;
    uint64_t tree_entries = 0;
    // Without the listener's tree, how much of it the live filters are is
    // unknown: no correction.
    if (!observations.Tree(&entries, &flush_entries)) return asked;
    for (int level : tree.levels)
      tree_entries += level > 0 ? entries[level] : 0;
    if (!(live > 0) ||
        static_cast<uint64_t>(live_entries) * 10 < tree_entries) {
      return asked;
    }
    using Limits = LevelAllocationLimits;
    const double corrected = asked + kBudgetGain * (asked - live);
    return std::clamp(std::clamp(corrected, asked / kMaxBudgetCorrection,
                                 asked * kMaxBudgetCorrection),
                      Limits::kMinAverageBitsPerKey,
                      Limits::kMaxAverageBitsPerKey);
  }

  static bool SharesMoved(const Tree& a, const Tree& b) {
    if (a.levels != b.levels) return true;
    double moved = 0;
    for (size_t i = 0; i < a.shares.size(); ++i) {
      moved += std::abs(a.shares[i] - b.shares[i]);
    }
    return moved > kSharesMoved;
  }

  FilterChoice ChoiceFor(ColumnFamily& cf,
                         const ColumnFamilyObservations& observations,
                         int level) const {
    const bool no_bottom = no_bottom_filters_.load(std::memory_order_relaxed);
    const LevelWorkload& workload =
        const_cast<ColumnFamilyObservations&>(observations).workload();
    std::lock_guard<std::mutex> lock(cf.mutex);
    Tree tree = CurrentTree(cf, observations, no_bottom);
    if (tree.levels.empty()) return Uniform();  // one level so far
    const double budget = Budget(observations, tree);
    if (SharesMoved(tree, cf.tree) || no_bottom != cf.no_bottom_filters ||
        workload.version() != cf.workload_version ||
        std::abs(budget - cf.budget) > kBudgetMoved * settings_.BitsPerKey()) {
      const uint32_t n = static_cast<uint32_t>(tree.levels.size());
      // The arguments were checked when the policy was made.
      bool learned = false;
      const std::vector<LevelLoad> loads = LoadsOf(tree, workload, &learned);
      LevelCostModel model = CostModelFor(
          settings_.choice, settings_.BitsPerKey(), settings_.SizeRatio(), n);
      // The cap is the asked average's, whatever the budget's correction.
      model.max_bits_per_key =
          LevelAllocation::MaxBitsPerKey(settings_.BitsPerKey());
      AllocateTree(model, budget, loads, &cf.allocation);
      cf.budget = budget;
      cf.tree = std::move(tree);
      cf.workload_version = workload.version();
      cf.no_bottom_filters = no_bottom;
    }
    // The slot of `level`: L0 is the top; a level below L0 takes that of
    // the nearest level of the tree at or below it, or the bottom's.
    const std::vector<int>& levels = cf.tree.levels;
    if (level == 0) return cf.allocation.levels.back();
    size_t slot = 0;
    for (size_t i = 0; i + 1 < levels.size(); ++i) {
      if (levels[i] >= level) slot = i;
    }
    return cf.allocation.levels[slot];
  }

  const Settings settings_;
  mutable std::once_flag one_level_once_;
  mutable LevelCostModel one_level_;
  mutable FilterChoice uniform_;
  mutable std::atomic<bool> no_bottom_filters_{false};
  mutable std::mutex column_families_mutex_;
  mutable std::map<const ColumnFamilyObservations*,
                   std::unique_ptr<ColumnFamily>>
      column_families_;
  mutable std::array<FprBalance, kMaxTreeLevels + 1> memory_balances_;
};

// "hits=0.9" or "learn=false" after the positional fields.
RocksStatus ParseNamedField(std::string_view field, Settings* settings) {
  const size_t eq = field.find('=');
  const std::string_view name = field.substr(0, eq);
  const std::string_view value = field.substr(eq + 1);
  if (name == "hits") {
    int64_t millis;
    if (!ParseDecimalMillis(value, &millis) || millis > 999) {
      return RocksStatus::InvalidArgument(
          "hits \"" + std::string(value) +
          "\" is not the expected fraction of lookups that find their key, "
          "a decimal in 0..0.999 such as 0.9");
    }
    settings->hit_millis = millis;
    return RocksStatus::OK();
  }
  if (name == "learn") {
    if (value != "true" && value != "false") {
      return RocksStatus::InvalidArgument("learn \"" + std::string(value) +
                                          "\" is not true or false");
    }
    settings->learn = value == "true";
    return RocksStatus::OK();
  }
  return RocksStatus::InvalidArgument("unknown field \"" + std::string(field) +
                                      "\"; the named fields are hits=<0..0.999>"
                                      " and learn=<true|false>");
}

}  // namespace

RocksStatus NewLevelAware(const std::vector<std::string_view>& fields,
                          std::unique_ptr<const FilterPolicy>* policy) {
  constexpr char kUsage[] =
      "<avg_bits_per_key>[:<size_ratio>][:default|cpu_lean|portable]"
      "[:hits=<0..0.999>][:learn=<true|false>]";
  // The positional fields, then the named ones (name=value).
  size_t positional = 0;
  while (positional < fields.size() &&
         fields[positional].find('=') == std::string_view::npos) {
    ++positional;
  }
  Settings settings;
  for (size_t i = positional; i < fields.size(); ++i) {
    if (fields[i].find('=') == std::string_view::npos) {
      return RocksStatus::InvalidArgument(
          "\"" + std::string(fields[i]) +
          "\" follows a named field; expected " + kUsage);
    }
    RocksStatus s = ParseNamedField(fields[i], &settings);
    if (!s.ok()) return s;
  }
  const std::vector<std::string_view> head(fields.begin(),
                                           fields.begin() + positional);
  RocksStatus s = ParseBloomSizedFields(head, 3, kUsage, &settings.millibits);
  if (!s.ok()) return s;
  // After the bits: a size ratio, a choice, or a ratio then a choice.
  size_t next = 1;
  if (next < head.size() &&
      !ParseLevelAwareChoice(head[next], &settings.choice)) {
    if (!ParseDecimalMillis(head[next], &settings.ratio_millis)) {
      return RocksStatus::InvalidArgument(
          "size ratio \"" + std::string(head[next]) +
          "\" is not a decimal like 10 or 8.5, nor a choice (default, "
          "cpu_lean, portable)");
    }
    ++next;
    if (next < head.size() &&
        !ParseLevelAwareChoice(head[next], &settings.choice)) {
      return RocksStatus::InvalidArgument(
          "choice \"" + std::string(head[next]) +
          "\" is not one of default, cpu_lean, portable");
    }
  }
  if (next + 1 < head.size()) {
    return RocksStatus::InvalidArgument(std::string("expected ") + kUsage);
  }
  // The allocation's own limits decide what is valid (checked here without
  // making an allocation: that waits for the first table).
  using Limits = LevelAllocationLimits;
  if (!(settings.BitsPerKey() >= Limits::kMinAverageBitsPerKey &&
        settings.BitsPerKey() <= Limits::kMaxAverageBitsPerKey)) {
    return RocksStatus::InvalidArgument(
        "average bits per key must be in 1..100, not " +
        FormatDecimalMillis(settings.millibits));
  }
  if (!(settings.SizeRatio() >= Limits::kMinSizeRatio &&
        settings.SizeRatio() <= Limits::kMaxSizeRatio)) {
    return RocksStatus::InvalidArgument(
        "size ratio must be in 2..100, not " +
        FormatDecimalMillis(settings.ratio_millis));
  }
  policy->reset(new LevelAwarePolicy(settings));
  return s;
}

}  // namespace sstfilter::rocksdb_plugin
