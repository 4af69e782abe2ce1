// sstfilter.LevelAware: per-level bits/key and filter kind (Monkey over the
// kinds of one of three choices; the allocation and its cost model are
// sstfilter/level_allocation.h, the choices level_cost_model.h, what is
// learned of the workload sstfilter/workload.h). Levels that get RocksDB's
// FastLocalBloom or Ribbon are built by RocksDB's own policy of that size
// (RocksdbPolicyFor). The way a policy reads FilterBuildingContext follows
// RocksDB's own examples: RibbonFilterPolicy (filter_policy.cc) and
// LevelAndStyleCustomFilterPolicy (db/db_bloom_filter_test.cc).
//
// The tree, per column family: with sstfilter.LevelAwareListener, its
// levels as the tables' own properties give them (level_aware_state.h),
// for a compaction the tree it leaves; L0's share is one flush. Without
// the listener the policy knows no DB: it assumes levels growing by the
// size ratio T down to the bottom of the context (the table's own level if
// it is bottommost, else num_levels - 1, where the dynamic layout keeps
// it), learns nothing, and says so once in the DB's LOG.
//
// The workload: absent-key probes per level from the readers' samples
// once every level has had some (learn=true, the default, with the
// listener), else the model with the hit fraction `hits` (default 0: every
// lookup absent).
//
// The memory: the listener's filter bytes per level show what the live
// filters take (after rounding, RocksDB sizing Ribbon by key count, and
// tables built for the tree as it was); new tables correct for it
// (Budget).

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "filter_bits.h"
#include "id_grammar.h"
#include "level_aware_builder.h"
#include "level_aware_state.h"
#include "level_cost_model.h"
#include "policies.h"
#include "policy_base.h"
#include "rocksdb/env.h"
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

  // Every DB::Open runs this: a DB opened without the listener is told so
  // in its LOG at its first table, even if its logger has the address of
  // one told before.
  RocksStatus ValidateOptions(
      const ROCKSDB_NAMESPACE::DBOptions& db_options,
      const ROCKSDB_NAMESPACE::ColumnFamilyOptions& cf_options) const override {
    {
      std::lock_guard<std::mutex> lock(told_mutex_);
      told_.clear();
    }
    return PolicyBase::ValidateOptions(db_options, cf_options);
  }

  FilterBitsBuilder* GetBuilderWithContext(
      const FilterBuildingContext& context) const override {
    const int level = TreeLevel(context);
    if (level < 0) return Make(Uniform(), context, level);
    const JobView job = JobColumnFamily(context);
    if (job.column_family == nullptr) {
      // (A recovery flush at DB::Open comes before any listener callback.)
      if (context.reason !=
          ROCKSDB_NAMESPACE::TableFileCreationReason::kRecovery) {
        TellNoListener(context);
      }
      return Make(ModelChoice(context, level), context, level);
    }
    ColumnFamilyState& cf = *job.column_family;
    if (settings_.learn) cf.workload().MaybeRefresh();
    const FilterChoice choice = ChoiceFor(cf, job.tree, job.complete, level);
    // The keys a table of the level holds, about (RocksDB sizes Ribbon by
    // them).
    const LevelTotals& at = job.tree[level];
    const int64_t table_keys = level == 0
                                   ? cf.flush_entries()
                                   : (at.files > 0 ? at.entries / at.files : 0);
    if (!settings_.learn) return Make(choice, context, level, table_keys);
    TableBuild build;
    build.column_family = job.column_family;
    build.level = level;
    build.level_choice = choice;
    const int64_t files = std::max<int64_t>(job.tree[level].files, 1);
    build.span_buckets =
        static_cast<int>((LevelWorkload::kBuckets + files - 1) / files);
    // The builder outlives this call, the context does not.
    build.make = [this, context, level, table_keys](const FilterChoice& c,
                                                    bool* ours) {
      *ours = !IsRocksdbKind(c.kind);
      return Make(c, context, level, table_keys);
    };
    const LevelWorkload* workload = &cf.workload();
    const KindModel* kind = KindOf(choice.kind);
    if (kind != nullptr && workload->LearnedLevels()[level]) {
      // What the readers saw of this level's key ranges sizes the table.
      const double max_bits =
          LevelAllocation::MaxBitsPerKey(settings_.BitsPerKey());
      build.choose = [workload, kind, choice, level, max_bits](int first,
                                                               int last) {
        return TableChoice(*kind, choice,
                           workload->TableDensityFactor(level, first, last),
                           max_bits);
      };
    }
    return NewLearningBuilder(std::move(build));
  }

  ROCKSDB_NAMESPACE::FilterBitsReader* GetFilterBitsReader(
      const ROCKSDB_NAMESPACE::Slice& contents) const override {
    if (!settings_.learn) return PolicyBase::GetFilterBitsReader(contents);
    return NewReader(contents, FindBlock(ToView(contents)));
  }

 private:
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
  const KindModel* KindOf(LevelFilterKind kind) const {
    for (const KindModel& k : OneLevelModel().kinds) {
      if (k.kind == kind) return &k;
    }
    return nullptr;
  }
  // The filter of a one-level tree: tables of no level.
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

  // A builder of `choice` for a table of about `table_keys` keys (0:
  // unknown).
  FilterBitsBuilder* Make(const FilterChoice& choice,
                          const FilterBuildingContext& context, int level,
                          int64_t table_keys = 0) const {
    if (IsRocksdbKind(choice.kind)) {
      // RocksDB's own builder: its cache charging, its
      // optimize_filters_for_memory, and Ribbon's fallback to Bloom.
      return RocksdbBuilder(choice, context, table_keys);
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

  // RocksDB's builder of `choice`. Ribbon's overhead per key depends on
  // the number of keys (its curve is sampled at 2^20; at 10^4-10^5 keys a
  // filter of the same FPR target takes about 1.5% fewer bits): for a table
  // of `table_keys` keys the policy's Bloom-equivalent bits/key are scaled
  // (to 1/100 bit) so that the filter takes the bits/key the allocation
  // gave it.
  static FilterBitsBuilder* RocksdbBuilder(const FilterChoice& choice,
                                           const FilterBuildingContext& context,
                                           int64_t table_keys) {
    FilterBitsBuilder* builder =
        RocksdbPolicyFor(choice)->GetBuilderWithContext(context);
    constexpr int64_t kFewestKeys = 1000;
    if (choice.kind != LevelFilterKind::kRibbon || builder == nullptr ||
        table_keys < kFewestKeys || !(choice.bits_per_key > 0)) {
      return builder;
    }
    const size_t keys = static_cast<size_t>(table_keys);
    const double bits =
        static_cast<double>(
            rocksdb_compat::BuiltinCalculateSpace(builder, keys)) *
        8 / static_cast<double>(keys);
    if (!(bits > 0) || std::abs(bits / choice.bits_per_key - 1) < 0.002) {
      return builder;
    }
    FilterChoice sized = choice;
    sized.rocksdb_millibits =
        std::llround(static_cast<double>(choice.rocksdb_millibits) *
                     choice.bits_per_key / bits / 10) *
        10;
    delete builder;
    return RocksdbPolicyFor(sized)->GetBuilderWithContext(context);
  }

  // Without the listener: one line in the DB's LOG per column family (and
  // DB::Open) saying so, and what to add.
  void TellNoListener(const FilterBuildingContext& context) const {
    if (context.info_log == nullptr) return;
    {
      std::lock_guard<std::mutex> lock(told_mutex_);
      constexpr size_t kMaxTold = 1024;
      if (told_.size() >= kMaxTold) told_.clear();
      if (!told_.emplace(context.info_log, context.column_family_name).second) {
        return;
      }
    }
    ROCKSDB_NAMESPACE::Log(
        ROCKSDB_NAMESPACE::InfoLogLevel::WARN_LEVEL, context.info_log,
        "[%s] %s: no %s watches this column family, so the policy assumes "
        "levels %g times apart and learns nothing of the lookups. Add it to "
        "the DBOptions: listeners={%s} in an options string or OPTIONS "
        "file, or options.listeners.push_back(sstfilter::"
        "NewLevelAwareListener()) in C++",
        context.column_family_name.c_str(), GetId().c_str(),
        kLevelAwareListenerName, settings_.SizeRatio(),
        kLevelAwareListenerName);
  }

  // Without the listener: the model over levels T apart, from L1 to the
  // bottom of the context, and L0.
  FilterChoice ModelChoice(const FilterBuildingContext& context,
                           int level) const {
    int bottom = context.num_levels > 1 ? context.num_levels - 1 : 1;
    if (context.is_bottommost && level > 0) bottom = level;
    bottom = std::clamp(std::max(bottom, level), 1, kMaxTreeLevels - 1);
    const uint32_t n = static_cast<uint32_t>(bottom + 1);
    std::lock_guard<std::mutex> lock(model_mutex_);
    LevelAllocation& allocation = model_allocations_[n];
    if (allocation.levels.empty()) {
      Tree tree;
      for (uint32_t i = 0; i < n; ++i) {
        tree.levels.push_back(i + 1 == n ? 0 : bottom - static_cast<int>(i));
        tree.shares.push_back(LevelShare(settings_.SizeRatio(), n, i));
      }
      Allocate(tree, /*workload=*/nullptr, settings_.BitsPerKey(), &allocation);
    }
    return level == 0 ? allocation.levels.back()
                      : allocation.levels[static_cast<size_t>(bottom - level)];
  }

  // The tree of `totals`: its levels below L0 with entries, and L0 at one
  // flush; under optimize_filters_for_hits without its bottom level.
  // Empty: a one-level tree so far.
  static Tree TreeOf(const TreeTotals& totals, int64_t flush_entries,
                     bool no_bottom_filters) {
    Tree tree;
    for (int level = kMaxTreeLevels - 1; level >= 1; --level) {
      if (totals[level].entries <= 0) continue;
      tree.levels.push_back(level);
      tree.shares.push_back(static_cast<double>(totals[level].entries));
    }
    // L0 holds between none and a few flushes, and a settled DB's L0
    // holds about one: its share is one flush's entries (or what it
    // holds, before the first flush of the process), so that the memory
    // of a settled DB is the average asked.
    tree.levels.push_back(0);
    tree.shares.push_back(static_cast<double>(std::max<int64_t>(
        flush_entries > 0 ? flush_entries : totals[0].entries, 1)));
    if (no_bottom_filters && tree.levels.size() >= 2) {
      tree.levels.erase(tree.levels.begin());
      tree.shares.erase(tree.shares.begin());
    }
    if (tree.levels.size() < 2) return {};
    double total = 0;
    for (double share : tree.shares) total += share;
    for (double& share : tree.shares) share /= total;
    return tree;
  }

  // The allocation of `tree` at `budget` bits/key: absent probes learned
  // from `workload` (null: the model's).
  void Allocate(const Tree& tree, const LevelWorkload* workload, double budget,
                LevelAllocation* out) const {
    const uint32_t n = static_cast<uint32_t>(tree.levels.size());
    std::vector<double> probes;
    if (workload == nullptr || !settings_.learn ||
        !LearnedProbes(tree, *workload, &probes)) {
      probes = ModelAbsentProbes(tree.shares, settings_.HitFraction());
    }
    std::vector<LevelLoad> loads;
    for (uint32_t i = 0; i < n; ++i) {
      loads.push_back({tree.shares[i], probes[i],
                       LevelBuildWeight(settings_.SizeRatio(), n, i)});
    }
    LevelCostModel model = CostModelFor(
        settings_.choice, settings_.BitsPerKey(), settings_.SizeRatio(), n);
    // The cap is the asked average's, whatever the budget's correction.
    model.max_bits_per_key =
        LevelAllocation::MaxBitsPerKey(settings_.BitsPerKey());
    // The arguments were checked when the policy was made.
    AllocateTree(model, budget, loads, out);
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
  // filters below L0 take the average asked: the asked average plus
  // kBudgetGain times what they fall short of it (their bytes and
  // entries from the tables' own properties, the job's inputs left out),
  // once they hold a tenth of the tree's entries, within
  // kMaxBudgetCorrection. New tables correct what the allocation cannot
  // see: rounding to the kinds' sizes, RocksDB sizing Ribbon by the
  // table's key count (about 1.5% under the curve at 10^4 keys), and
  // tables built for the tree as it was when they were built.
  double Budget(const TreeTotals& totals, const Tree& tree) const {
    const double asked = settings_.BitsPerKey();
    int64_t tree_entries = 0, filtered_entries = 0, filter_bytes = 0;
    for (int level : tree.levels) {
      if (level == 0) continue;
      tree_entries += totals[level].entries;
      filtered_entries += totals[level].filtered_entries;
      filter_bytes += totals[level].filter_bytes;
    }
    if (filtered_entries <= 0 || filtered_entries * 10 < tree_entries) {
      return asked;
    }
    const double live = static_cast<double>(filter_bytes) * 8 /
                        static_cast<double>(filtered_entries);
    using Limits = LevelAllocationLimits;
    const double corrected = asked + kBudgetGain * (asked - live);
    return std::clamp(std::clamp(corrected, asked / kMaxBudgetCorrection,
                                 asked * kMaxBudgetCorrection),
                      Limits::kMinAverageBitsPerKey,
                      Limits::kMaxAverageBitsPerKey);
  }

  static bool SharesMoved(const Tree& tree, const CachedAllocation& cached) {
    if (tree.levels != cached.levels) return true;
    double moved = 0;
    for (size_t i = 0; i < tree.shares.size(); ++i) {
      moved += std::abs(tree.shares[i] - cached.shares[i]);
    }
    return moved > kSharesMoved;
  }

  // `complete`: the totals leave out what the job replaces, so the live
  // filters can correct the budget.
  FilterChoice ChoiceFor(ColumnFamilyState& cf, const TreeTotals& totals,
                         bool complete, int level) const {
    const bool no_bottom = cf.no_bottom_filters();
    Tree tree = TreeOf(totals, cf.flush_entries(), no_bottom);
    if (tree.levels.empty()) return Uniform();  // one level so far
    const std::shared_ptr<CachedAllocation> cached = cf.AllocationFor(GetId());
    const LevelWorkload& workload = cf.workload();
    std::lock_guard<std::mutex> lock(cached->mutex);
    const double budget =
        complete ? Budget(totals, tree) : settings_.BitsPerKey();
    if (SharesMoved(tree, *cached) || no_bottom != cached->no_bottom_filters ||
        workload.version() != cached->workload_version ||
        std::abs(budget - cached->budget) >
            kBudgetMoved * settings_.BitsPerKey()) {
      Allocate(tree, &workload, budget, &cached->allocation);
      cached->budget = budget;
      cached->levels = std::move(tree.levels);
      cached->shares = std::move(tree.shares);
      cached->workload_version = workload.version();
      cached->no_bottom_filters = no_bottom;
    }
    return cached->allocation.levels[SlotOf(cached->levels, level)];
  }

  const Settings settings_;
  mutable std::once_flag one_level_once_;
  mutable LevelCostModel one_level_;
  mutable FilterChoice uniform_;
  // The model's allocations without the listener, by number of levels.
  mutable std::mutex model_mutex_;
  mutable std::array<LevelAllocation, kMaxTreeLevels + 1> model_allocations_;
  // The column families told they have no listener since the last
  // DB::Open (by logger and name: only so as not to say it twice).
  mutable std::mutex told_mutex_;
  mutable std::set<std::pair<const void*, std::string>> told_;
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
