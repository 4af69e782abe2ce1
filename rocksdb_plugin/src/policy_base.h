// The base classes of the policies: PolicyBase, what every sstfilter
// policy shares, and SstfilterPolicy, a policy sized by bits per key.
#pragma once

#include <climits>
#include <cstdint>
#include <string>
#include <unordered_map>

#include "filter_bits.h"
#include "id_grammar.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/status.h"
#include "rocksdb/table.h"
#include "sstfilter/format.h"
#include "sstfilter/usable_space.h"

namespace sstfilter::rocksdb_plugin {

// What every sstfilter policy shares: the family's CompatibilityName, one
// reader for both formats, and a refused option that stays refused.
// RocksDB's CreateFromString keeps the policy it made when an option fails,
// and its table-options parser turns that error into OK when it reads an
// OPTIONS file (BlockBasedTableFactory::ParseOption). Such a policy fails
// PrepareOptions and ValidateOptions, so DB::Open refuses it as the options
// string's reader would, instead of running it without the option.
// The family: CompatibilityName() is RocksDB's built-in family name unless
// the option compatibility_name keeps the name of sstfilter 0.1
// ("sstfilter"), so that a DB whose SSTs were written under it keeps their
// filters until it is compacted (README, "Switching a live DB").
class PolicyBase : public ROCKSDB_NAMESPACE::FilterPolicy {
 public:
  PolicyBase();
  const char* CompatibilityName() const override;
  ROCKSDB_NAMESPACE::FilterBitsReader* GetFilterBitsReader(
      const ROCKSDB_NAMESPACE::Slice& contents) const override;
  ROCKSDB_NAMESPACE::Status PrepareOptions(
      const ROCKSDB_NAMESPACE::ConfigOptions& config_options) override;
  ROCKSDB_NAMESPACE::Status ValidateOptions(
      const ROCKSDB_NAMESPACE::DBOptions& db_options,
      const ROCKSDB_NAMESPACE::ColumnFamilyOptions& cf_options) const override;

 protected:
  // The reader of `contents` for this policy's family, reporting sampled
  // probes to `sampler` if there is one (probe_sampler.h).
  ROCKSDB_NAMESPACE::FilterBitsReader* NewReader(
      const ROCKSDB_NAMESPACE::Slice& contents,
      std::shared_ptr<const ProbeSampler> sampler) const;

  // Any error, an unknown option (RocksDB's NotFound) included, is
  // InvalidArgument naming the policy, and is kept: after an error RocksDB
  // restores the previous values through this same function, and that
  // success must not clear it.
  ROCKSDB_NAMESPACE::Status ConfigureOptions(
      const ROCKSDB_NAMESPACE::ConfigOptions& config_options,
      const std::unordered_map<std::string, std::string>& options,
      std::unordered_map<std::string, std::string>* unused) override;

 private:
  std::string refused_;  // why an option was refused, or ""
  // The option compatibility_name: one of kFamilyNames.
  std::string compatibility_name_;
};

// The level a table is built for, by the rule of RocksDB's
// RibbonFilterPolicy::GetBuilderWithContext (filter_policy.cc): under
// leveled or universal compaction a flush is level -1 (above L0) and a
// compaction's output its level_at_creation; anything else (FIFO,
// SstFileWriter, a level of -1 outside a flush) is kUnknownTableLevel,
// below every level. Hybrid compares it with bloom_before_level; LevelAware
// counts a flush into L0 and gives unknown levels its one-level filter.
inline constexpr int kUnknownTableLevel = INT_MAX;
inline int TableLevel(const ROCKSDB_NAMESPACE::FilterBuildingContext& context) {
  if (context.compaction_style != ROCKSDB_NAMESPACE::kCompactionStyleLevel &&
      context.compaction_style !=
          ROCKSDB_NAMESPACE::kCompactionStyleUniversal) {
    return kUnknownTableLevel;
  }
  if (context.reason == ROCKSDB_NAMESPACE::TableFileCreationReason::kFlush) {
    return -1;
  }
  return context.level_at_creation == -1 ? kUnknownTableLevel
                                         : context.level_at_creation;
}

// A policy sized by bits per key: BlockedBloom, Cuckoo and Hybrid.
class SstfilterPolicy : public PolicyBase {
 public:
  std::string GetId() const override {
    return std::string(Name()) + ":" + FormatDecimalMillis(millibits_);
  }

 protected:
  explicit SstfilterPolicy(int64_t millibits) : millibits_(millibits) {}

  BuilderConfig Config(
      FilterKind kind,
      const ROCKSDB_NAMESPACE::FilterBuildingContext& context) const {
    BuilderConfig config = BaseConfig(context);
    config.kind = kind;
    config.bits_per_key = static_cast<double>(millibits_) / 1000.0;
    if (context.table_options.optimize_filters_for_memory) {
      config.memory_balance = &memory_balance_;
    }
    return config;
  }

 private:
  const int64_t millibits_;
  // optimize_filters_for_memory's FPR balance, shared by every builder of
  // this policy (as RocksDB's BloomLikeFilterPolicy shares its
  // aggregate_rounding_balance_).
  mutable FprBalance memory_balance_;
};

}  // namespace sstfilter::rocksdb_plugin
