// What the policy files share: the policies' base class, the id helpers of
// policies.cc and the makers of the policies that live in files of their
// own.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "rocksdb/filter_policy.h"
#include "rocksdb/status.h"

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

// Parses a bits/key of a BlockedBloom-sized policy ("10", "9.9"; 1..100)
// into thousandths; InvalidArgument saying why otherwise.
ROCKSDB_NAMESPACE::Status ParseBloomBitsPerKey(std::string_view text,
                                               int64_t* millibits);

// "<digits>[.<digits>]" into thousandths, rounding half up; false if
// malformed.
bool ParseDecimalMillis(std::string_view text, int64_t* millis);

// The shortest decimal for `millis` thousandths: "10", "9.9", "6.667".
std::string FormatDecimalMillis(int64_t millis);

// "sstfilter.LevelAware" (level_aware_policy.cc).
inline constexpr char kLevelAwareName[] = "sstfilter.LevelAware";

// Makes sstfilter.LevelAware from the id's fields after its name:
// <avg_bits_per_key>[:<size_ratio>].
ROCKSDB_NAMESPACE::Status NewLevelAware(
    const std::vector<std::string_view>& fields,
    std::unique_ptr<const ROCKSDB_NAMESPACE::FilterPolicy>* policy);

}  // namespace sstfilter::rocksdb_plugin
