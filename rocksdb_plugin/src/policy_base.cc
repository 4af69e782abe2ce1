// The base of every sstfilter policy (policy_base.h), and the simplest of
// them, sstfilter.BlockedBloom: a BlockedBloom filter
// (sstfilter/blocked_bloom.h) at the id's bits per key.
#include "policy_base.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "filter_bits.h"
#include "id_grammar.h"
#include "policies.h"
#include "rocksdb/convenience.h"
#include "rocksdb/options.h"
#include "rocksdb/utilities/options_type.h"
#include "sstfilter/rocksdb_plugin.h"

namespace sstfilter::rocksdb_plugin {
namespace {

using ROCKSDB_NAMESPACE::ConfigOptions;
using ROCKSDB_NAMESPACE::FilterBitsBuilder;
using ROCKSDB_NAMESPACE::FilterBitsReader;
using ROCKSDB_NAMESPACE::FilterBuildingContext;
using ROCKSDB_NAMESPACE::FilterPolicy;
using ROCKSDB_NAMESPACE::OptionTypeInfo;
using ROCKSDB_NAMESPACE::Slice;
using RocksStatus = ROCKSDB_NAMESPACE::Status;

// compatibility_name: RocksDB's built-in family (the default) or the old
// "sstfilter".
RocksStatus ParseCompatibilityName(const ConfigOptions& /*options*/,
                                   const std::string& name,
                                   const std::string& value, void* addr) {
  BlockFamily family;
  if (!FamilyNamed(value, &family)) {
    return RocksStatus::InvalidArgument(
        name + " must be " + kRocksdbFamilyCompatibilityName +
        " (the default: one family with RocksDB's filters) or " +
        kSstfilterCompatibilityName +
        " (to keep reading SSTs written by sstfilter 0.1), not \"" + value +
        "\"");
  }
  *static_cast<std::string*>(addr) = value;
  return RocksStatus::OK();
}

const std::unordered_map<std::string, OptionTypeInfo>& FamilyOptionsInfo() {
  static const std::unordered_map<std::string, OptionTypeInfo> info = {
      {"compatibility_name",
       OptionTypeInfo(0, ROCKSDB_NAMESPACE::OptionType::kString,
                      ROCKSDB_NAMESPACE::OptionVerificationType::kNormal,
                      ROCKSDB_NAMESPACE::OptionTypeFlags::kNone,
                      ParseCompatibilityName)},
  };
  return info;
}

class BlockedBloomPolicy : public SstfilterPolicy {
 public:
  // lines_per_key 1 forces one cache line per key; 2, the default, takes
  // the layout that measured best for the bits/key (blocked_bloom.h).
  BlockedBloomPolicy(int64_t millibits, uint32_t lines_per_key)
      : SstfilterPolicy(millibits), lines_per_key_(lines_per_key) {}
  const char* Name() const override { return kBlockedBloomName; }
  std::string GetId() const override {
    return SstfilterPolicy::GetId() + (lines_per_key_ == 1 ? ":1" : "");
  }
  FilterBitsBuilder* GetBuilderWithContext(
      const FilterBuildingContext& context) const override {
    BuilderConfig config = Config(FilterKind::kBlockedBloom, context);
    config.lines_per_key = lines_per_key_;
    return NewBitsBuilder(config);
  }

 private:
  const uint32_t lines_per_key_;
};

}  // namespace

PolicyBase::PolicyBase()
    : compatibility_name_(kRocksdbFamilyCompatibilityName) {
  RegisterOptions("FamilyOptions", &compatibility_name_, &FamilyOptionsInfo());
}

const char* PolicyBase::CompatibilityName() const {
  return compatibility_name_ == kSstfilterCompatibilityName
             ? kSstfilterCompatibilityName
             : kRocksdbFamilyCompatibilityName;
}

FilterBitsReader* PolicyBase::GetFilterBitsReader(const Slice& contents) const {
  return NewReader(contents, nullptr);
}

FilterBitsReader* PolicyBase::NewReader(
    const Slice& contents, std::shared_ptr<const ProbeSampler> sampler) const {
  BlockFamily family = BlockFamily::kRocksdbBuiltin;
  FamilyNamed(compatibility_name_, &family);
  return NewBitsReader(contents, family, std::move(sampler));
}

RocksStatus PolicyBase::ConfigureOptions(
    const ConfigOptions& config_options,
    const std::unordered_map<std::string, std::string>& options,
    std::unordered_map<std::string, std::string>* unused) {
  RocksStatus s =
      FilterPolicy::ConfigureOptions(config_options, options, unused);
  if (s.ok()) return s;
  refused_ = std::string(Name()) + ": " + s.getState();
  return RocksStatus::InvalidArgument(refused_);
}

RocksStatus PolicyBase::PrepareOptions(const ConfigOptions& config_options) {
  if (!refused_.empty()) return RocksStatus::InvalidArgument(refused_);
  return FilterPolicy::PrepareOptions(config_options);
}

RocksStatus PolicyBase::ValidateOptions(
    const ROCKSDB_NAMESPACE::DBOptions& db_options,
    const ROCKSDB_NAMESPACE::ColumnFamilyOptions& cf_options) const {
  if (!refused_.empty()) return RocksStatus::InvalidArgument(refused_);
  return FilterPolicy::ValidateOptions(db_options, cf_options);
}

RocksStatus NewBlockedBloom(const std::vector<std::string_view>& fields,
                            std::unique_ptr<const FilterPolicy>* policy) {
  int64_t millibits;
  RocksStatus s = ParseBloomSizedFields(
      fields, 2, "<bits_per_key>[:<lines_per_key>]", &millibits);
  if (!s.ok()) return s;
  int lines_per_key = 2;
  if (fields.size() == 2 && (!ParseInt(fields[1], &lines_per_key) ||
                             (lines_per_key != 1 && lines_per_key != 2))) {
    return RocksStatus::InvalidArgument(
        "lines_per_key \"" + std::string(fields[1]) + "\" is not 1 or 2");
  }
  policy->reset(
      new BlockedBloomPolicy(millibits, static_cast<uint32_t>(lines_per_key)));
  return s;
}

}  // namespace sstfilter::rocksdb_plugin
