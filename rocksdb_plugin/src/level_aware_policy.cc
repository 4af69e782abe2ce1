// sstfilter.LevelAware: per-level bits/key and filter kind (Monkey over the
// kinds of one of three choices; what it allocates from, and how, is
// level_aware_allocation.h). Levels that get RocksDB's FastLocalBloom or
// Ribbon are built by RocksDB's own policy of that size (RocksdbPolicyFor).
// The way a policy reads FilterBuildingContext follows RocksDB's own
// examples: RibbonFilterPolicy (filter_policy.cc) and
// LevelAndStyleCustomFilterPolicy (db/db_bloom_filter_test.cc).
//
// With sstfilter.LevelAwareListener the builder finds its column family
// through the job on its thread (job_handoff.h), the allocator sizes its
// table for the tree and the account (level_aware_allocation.h) and, with
// learning on, a learning builder builds it, whose blocks the readers find
// and sample (level_aware_builder.h, block_index.h). Without the listener
// the policy knows no DB: it uses its model and says so once per column
// family in the DB's LOG.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "block_index.h"
#include "filter_bits.h"
#include "id_grammar.h"
#include "job_handoff.h"
#include "level_aware_allocation.h"
#include "level_aware_builder.h"
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
using Settings = LevelAwareSettings;

// "512M": the largest binary suffix (K, M, G, T) that divides `bytes`.
std::string FormatBytes(uint64_t bytes) {
  static const char kSuffixes[] = "KMGT";
  std::string suffix;
  for (int i = 3; i >= 0; --i) {
    const uint64_t unit = uint64_t{1} << (10 * (i + 1));
    if (bytes >= unit && bytes % unit == 0) {
      return std::to_string(bytes / unit) + kSuffixes[i];
    }
  }
  return std::to_string(bytes);
}

// "512M", "1g", "4096": a positive number of bytes with an optional binary
// suffix (RocksDB's size suffixes, k/m/g/t in either case); false if
// malformed, zero or past 2^63.
bool ParseBytes(std::string_view text, uint64_t* bytes) {
  size_t digits = 0;
  uint64_t value = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') {
    if (value > (uint64_t{1} << 62) / 10) return false;
    value = value * 10 + static_cast<uint64_t>(text[digits] - '0');
    ++digits;
  }
  if (digits == 0 || digits + 1 < text.size()) return false;
  int shift = 0;
  if (digits < text.size()) {
    switch (text[digits]) {
      case 'k':
      case 'K':
        shift = 10;
        break;
      case 'm':
      case 'M':
        shift = 20;
        break;
      case 'g':
      case 'G':
        shift = 30;
        break;
      case 't':
      case 'T':
        shift = 40;
        break;
      default:
        return false;
    }
  }
  if (value == 0 || value > (uint64_t{1} << (62 - shift))) return false;
  *bytes = value << shift;
  return true;
}

class LevelAwarePolicy : public PolicyBase {
 public:
  explicit LevelAwarePolicy(const Settings& settings)
      : settings_(settings), allocator_(settings) {}

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
    if (settings_.memory_limit_bytes != 0) {
      id += ":memory_limit=" + FormatBytes(settings_.memory_limit_bytes);
    }
    if (settings_.size_for_cache) id += ":size_for_cache=true";
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

  const LevelAwareAllocator& allocator() const { return allocator_; }

  FilterBitsBuilder* GetBuilderWithContext(
      const FilterBuildingContext& context) const override {
    const int level = TreeLevel(context);
    if (level < 0) {
      // Universal, FIFO and a table of no level: the one-level filter,
      // under a memory limit held to what is free like any table's.
      const JobView job =
          allocator_.ledger() != nullptr ? JobOf(context) : JobView();
      return job.column_family != nullptr
                 ? LimitedUniform(job, context)
                 : Make(allocator_.Uniform(), context, level);
    }
    const JobView job = JobOf(context);
    if (job.column_family == nullptr) {
      // (A recovery flush at DB::Open comes before any listener callback.)
      if (context.reason !=
          ROCKSDB_NAMESPACE::TableFileCreationReason::kRecovery) {
        TellNoListener(context);
      }
      return Make(allocator_.ModelChoice(level, context.num_levels,
                                         context.is_bottommost),
                  context, level);
    }
    ColumnFamilyTree& cf = *job.column_family;
    cf.SetNumLevels(context.num_levels);
    if (settings_.learn) cf.MaybeRefresh();
    const FilterChoice choice = allocator_.ChoiceFor(
        job, level,
        settings_.size_for_cache ? CacheViewOf(context.table_options)
                                 : CacheView(),
        context.info_log);
    if (IsNoFilter(choice)) TellNoFilter(context, cf, level);
    // The keys a file of the level holds, about (RocksDB sizes Ribbon by
    // them).
    const LevelTotals at = cf.Totals()[level];
    const int64_t table_keys = level == 0     ? cf.Snapshot().flush_keys
                               : at.files > 0 ? at.keys / at.files
                                              : 0;
    if (!settings_.learn && allocator_.ledger() == nullptr) {
      // RocksDB builds no filter where the policy gives no builder.
      return IsNoFilter(choice) ? nullptr
                                : Make(choice, context, level, table_keys);
    }
    TableBuild build;
    build.column_family = job.column_family;
    build.level = level;
    build.level_choice = choice;
    build.learn = settings_.learn;
    build.ledger = allocator_.ledger();
    build.job = job;
    if (build.ledger != nullptr) {
      build.fit = [this, job, table_keys, level](const FilterChoice& c) {
        return allocator_.FitToLimit(job, c, table_keys, level);
      };
    }
    const int64_t files = std::max<int64_t>(at.files, 1);
    build.span_buckets =
        static_cast<int>((LevelWorkload::kBuckets + files - 1) / files);
    // The builder outlives this call, the context does not.
    build.make = [this, context, level, table_keys](const FilterChoice& c,
                                                    bool* ours) {
      *ours = !IsRocksdbKind(c.kind);
      return Make(c, context, level, table_keys);
    };
    const LevelWorkload* workload = &cf.workload();
    const KindModel* kind = allocator_.KindOf(choice.kind);
    if (settings_.learn && kind != nullptr &&
        workload->LearnedLevels()[level]) {
      // What the readers saw of this level's key ranges sizes the file.
      const double max_bits = allocator_.MaxBitsPerKey();
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
    return NewReader(contents, BlockIndex::Get().Find(ToView(contents)));
  }

 private:
  static bool IsRocksdbKind(FilterKind kind) {
    return kind == FilterKind::kFastLocalBloom ||
           kind == FilterKind::kRibbon128;
  }

  // Under a memory limit, the one-level filter of a table of `job` with
  // no level of a leveled tree, held to what the limit leaves free
  // (nothing is learned of it).
  FilterBitsBuilder* LimitedUniform(
      const JobView& job, const FilterBuildingContext& context) const {
    TableBuild build;
    build.column_family = job.column_family;
    build.level_choice = allocator_.Uniform();
    build.learn = false;
    build.ledger = allocator_.ledger();
    build.job = job;
    const int64_t flush_keys = job.column_family->Snapshot().flush_keys;
    build.fit = [this, job, flush_keys](const FilterChoice& c) {
      return allocator_.FitToLimit(job, c, flush_keys, /*level=*/-1);
    };
    build.make = [this, context](const FilterChoice& c, bool* ours) {
      *ours = !IsRocksdbKind(c.kind);
      return Make(c, context, -1);
    };
    return NewLearningBuilder(std::move(build));
  }

  // The table's level in a leveled tree (TableLevel, with a flush in L0),
  // or -1 where it has no place in one: universal and FIFO have no levels
  // of T-fold sizes, and a table of no level (SstFileWriter) sits nowhere.
  static int TreeLevel(const FilterBuildingContext& context) {
    if (context.compaction_style != ROCKSDB_NAMESPACE::kCompactionStyleLevel) {
      return -1;
    }
    const int level = TableLevel(context);
    return level == kUnknownTableLevel ? -1
                                       : std::clamp(level, 0, kMaxLevels - 1);
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
    config.kind = choice.kind;
    config.bits_per_key = choice.bits_per_key;
    config.fingerprint_bits = choice.fingerprint_bits;
    if (context.table_options.optimize_filters_for_memory) {
      // One FPR balance per level (and one for tables of no level): the
      // levels' filters have different targets, so FPR one level saves
      // must not pay for another's.
      config.memory_balance = &memory_balances_[level < 0 ? kMaxLevels : level];
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
    if (choice.kind != FilterKind::kRibbon128 || builder == nullptr ||
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
        "levels %g times apart and learns nothing of the lookups%s. Add it "
        "to the DBOptions: listeners={%s} in an options string or OPTIONS "
        "file, or options.listeners.push_back(sstfilter::"
        "NewLevelAwareListener()) in C++",
        context.column_family_name.c_str(), GetId().c_str(),
        kLevelAwareListenerName, settings_.SizeRatio(),
        settings_.memory_limit_bytes > 0
            ? ", and its memory_limit is not held (the tables built before "
              "are not counted)"
            : "",
        kLevelAwareListenerName);
  }

  // A memory limit leaves `level` no filter: one line in the DB's LOG per
  // column family saying so.
  void TellNoFilter(const FilterBuildingContext& context, ColumnFamilyTree& cf,
                    int level) const {
    if (context.info_log == nullptr || cf.logged_no_filter.exchange(true)) {
      return;
    }
    ROCKSDB_NAMESPACE::Log(
        ROCKSDB_NAMESPACE::InfoLogLevel::WARN_LEVEL, context.info_log,
        "[%s] %s: the memory limit leaves the least probed levels under "
        "about %g bits/key, so they get no filter (L%d first); RocksDB reads "
        "a table without a filter as \"may match\": no key is lost, absent "
        "Gets read its data blocks",
        context.column_family_name.c_str(), GetId().c_str(), 1.5, level);
  }

  const Settings settings_;
  const LevelAwareAllocator allocator_;
  // The column families told they have no listener since the last
  // DB::Open (by logger and name: only so as not to say it twice).
  mutable std::mutex told_mutex_;
  mutable std::set<std::pair<const void*, std::string>> told_;
  mutable std::array<FprBalance, kMaxLevels + 1> memory_balances_;
};

// "hits=0.9", "learn=false" or "memory_limit=512M" after the positional
// fields.
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
  if (name == "learn" || name == "size_for_cache") {
    if (value != "true" && value != "false") {
      return RocksStatus::InvalidArgument(std::string(name) + " \"" +
                                          std::string(value) +
                                          "\" is not true or false");
    }
    (name == "learn" ? settings->learn : settings->size_for_cache) =
        value == "true";
    return RocksStatus::OK();
  }
  if (name == "memory_limit") {
    if (!ParseBytes(value, &settings->memory_limit_bytes)) {
      return RocksStatus::InvalidArgument(
          "memory_limit \"" + std::string(value) +
          "\" is not a positive number of bytes, with RocksDB's size "
          "suffixes: 512M, 2G, 1073741824");
    }
    return RocksStatus::OK();
  }
  return RocksStatus::InvalidArgument(
      "unknown field \"" + std::string(field) +
      "\"; the named fields are hits=<0..0.999>, learn=<true|false>, "
      "memory_limit=<bytes, e.g. 512M> and size_for_cache=<true|false>");
}

}  // namespace

std::shared_ptr<const FilterPolicy> RocksdbPolicyFor(
    const FilterChoice& choice) {
  static std::mutex mutex;
  static auto* policies = new std::map<std::pair<int, int64_t>,
                                       std::shared_ptr<const FilterPolicy>>;
  const std::pair<int, int64_t> key(static_cast<int>(choice.kind),
                                    choice.rocksdb_millibits);
  std::lock_guard<std::mutex> lock(mutex);
  auto& policy = (*policies)[key];
  if (policy == nullptr) {
    const double bits = static_cast<double>(choice.rocksdb_millibits) / 1000;
    policy.reset(choice.kind == FilterKind::kRibbon128
                     ? ROCKSDB_NAMESPACE::NewRibbonFilterPolicy(bits, -1)
                     : ROCKSDB_NAMESPACE::NewBloomFilterPolicy(bits));
  }
  return policy;
}

const LevelAwareAllocator* LevelAwareAllocatorOf(const FilterPolicy& policy) {
  if (std::string_view(policy.Name()) != kLevelAwareName) return nullptr;
  return &static_cast<const LevelAwarePolicy&>(policy).allocator();
}

RocksStatus NewLevelAware(const std::vector<std::string_view>& fields,
                          std::unique_ptr<const FilterPolicy>* policy) {
  constexpr char kUsage[] =
      "<avg_bits_per_key>[:<size_ratio>][:default|cpu_lean|portable]"
      "[:hits=<0..0.999>][:learn=<true|false>][:memory_limit=<bytes>]"
      "[:size_for_cache=<true|false>]";
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
  if (settings.size_for_cache && settings.memory_limit_bytes > 0) {
    return RocksStatus::InvalidArgument(
        "size_for_cache and memory_limit do not go together: with "
        "size_for_cache the block cache bounds the filters' memory");
  }
  policy->reset(new LevelAwarePolicy(settings));
  return s;
}

}  // namespace sstfilter::rocksdb_plugin
