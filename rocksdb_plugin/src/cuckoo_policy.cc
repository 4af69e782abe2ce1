// sstfilter.Cuckoo, a static cuckoo filter (sstfilter/cuckoo_filter.h) of
// the widest fingerprint that fits the id's bits per key, and
// sstfilter.Hybrid, which gives a file of a shallow level BlockedBloom
// instead.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "filter_bits.h"
#include "id_grammar.h"
#include "policies.h"
#include "policy_base.h"
#include "rocksdb/convenience.h"
#include "rocksdb/options.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/options_type.h"
#include "sstfilter/cuckoo_filter.h"

namespace sstfilter::rocksdb_plugin {
namespace {

using ROCKSDB_NAMESPACE::ConfigOptions;
using ROCKSDB_NAMESPACE::FilterBitsBuilder;
using ROCKSDB_NAMESPACE::FilterBuildingContext;
using ROCKSDB_NAMESPACE::FilterPolicy;
using ROCKSDB_NAMESPACE::OptionTypeInfo;
using RocksStatus = ROCKSDB_NAMESPACE::Status;

// The narrowest fingerprint the automatic width picks. Below 6 bits a
// static build cannot reach its 96% load and grows past its budget
// (measured at 10^4..10^6 keys: up to 6% at f = 4, 2% at f = 5), and its
// FPR (above 20%) is worse than BlockedBloom's at the same bits/key.
constexpr uint32_t kMinAutoFingerprintBits = 6;

// The widest fingerprint whose filter fits in `millibits` per key, or 0 if
// that is narrower than kMinAutoFingerprintBits.
uint32_t FingerprintBitsFor(int64_t millibits) {
  const uint32_t widest =
      StaticCuckooFingerprintBits(static_cast<double>(millibits) / 1000.0);
  return widest >= kMinAutoFingerprintBits ? widest : 0;
}

// The Cuckoo policies' options. A refused value refuses the policy
// (PolicyBase).
struct CuckooOptions {
  uint32_t fingerprint_bits = 0;  // 0: chosen from bits per key
};

// fingerprint_bits: 0 (the width chosen from bits/key) or 4..32.
RocksStatus ParseFingerprintBits(const ConfigOptions& /*options*/,
                                 const std::string& name,
                                 const std::string& value, void* addr) {
  int bits = -1;
  if (!ParseInt(value, &bits) ||
      (bits != 0 &&
       (bits < static_cast<int>(CuckooLimits::kMinFingerprintBits) ||
        bits > static_cast<int>(CuckooLimits::kMaxFingerprintBits)))) {
    return RocksStatus::InvalidArgument(
        name + " must be 0 (chosen from bits per key) or 4..32, not \"" +
        value + "\"");
  }
  *static_cast<uint32_t*>(addr) = static_cast<uint32_t>(bits);
  return RocksStatus::OK();
}

// A function-local static: safe even if a policy is made during static
// initialization.
const std::unordered_map<std::string, OptionTypeInfo>& CuckooOptionsInfo() {
  static const std::unordered_map<std::string, OptionTypeInfo> info = {
      {"fingerprint_bits",
       OptionTypeInfo(offsetof(CuckooOptions, fingerprint_bits),
                      ROCKSDB_NAMESPACE::OptionType::kUInt32T,
                      ROCKSDB_NAMESPACE::OptionVerificationType::kNormal,
                      ROCKSDB_NAMESPACE::OptionTypeFlags::kNone,
                      ParseFingerprintBits)},
  };
  return info;
}

class CuckooPolicy : public SstfilterPolicy {
 public:
  CuckooPolicy(int64_t millibits, uint32_t auto_fingerprint_bits)
      : SstfilterPolicy(millibits),
        auto_fingerprint_bits_(auto_fingerprint_bits) {
    RegisterOptions("CuckooOptions", &options_, &CuckooOptionsInfo());
  }
  const char* Name() const override { return kCuckooName; }
  FilterBitsBuilder* GetBuilderWithContext(
      const FilterBuildingContext& context) const override {
    return NewBitsBuilder(CuckooConfig(context));
  }

 protected:
  BuilderConfig CuckooConfig(const FilterBuildingContext& context) const {
    BuilderConfig config = Config(FilterKind::kCuckoo, context);
    config.fingerprint_bits = options_.fingerprint_bits != 0
                                  ? options_.fingerprint_bits
                                  : auto_fingerprint_bits_;
    return config;
  }

 private:
  CuckooOptions options_;
  const uint32_t auto_fingerprint_bits_;
};

class HybridPolicy : public CuckooPolicy {
 public:
  HybridPolicy(int64_t millibits, uint32_t auto_fingerprint_bits,
               int bloom_before_level)
      : CuckooPolicy(millibits, auto_fingerprint_bits),
        bloom_before_level_(bloom_before_level) {}
  const char* Name() const override { return kHybridName; }
  std::string GetId() const override {
    return CuckooPolicy::GetId() + ":" + std::to_string(bloom_before_level_);
  }
  // A level beyond the column family's levels would silently mean "Bloom
  // everywhere but the bottommost level"; num_levels says that.
  RocksStatus ValidateOptions(
      const ROCKSDB_NAMESPACE::DBOptions& db_options,
      const ROCKSDB_NAMESPACE::ColumnFamilyOptions& cf_options) const override {
    if (bloom_before_level_ > cf_options.num_levels) {
      return RocksStatus::InvalidArgument(
          std::string(kHybridName) + ": bloom_before_level " +
          std::to_string(bloom_before_level_) + " is above num_levels " +
          std::to_string(cf_options.num_levels));
    }
    return CuckooPolicy::ValidateOptions(db_options, cf_options);
  }

  FilterBitsBuilder* GetBuilderWithContext(
      const FilterBuildingContext& context) const override {
    if (UsesBloom(context)) {
      return NewBitsBuilder(Config(FilterKind::kBlockedBloom, context));
    }
    return NewBitsBuilder(CuckooConfig(context));
  }

 private:
  // RocksDB's level rule (TableLevel), plus: a bottommost file always gets
  // Cuckoo.
  bool UsesBloom(const FilterBuildingContext& context) const {
    return !context.is_bottommost && TableLevel(context) < bloom_before_level_;
  }

  const int bloom_before_level_;
};

// Millibits per key of a cuckoo filter with `fingerprint_bits`, rounded
// up, so that the width fits the bits/key it names (FingerprintBitsFor
// picks it there). The narrowest automatic width bounds a policy's bits/key
// from below, and the widest fingerprint from above: no width could use
// more.
int64_t CuckooMillibits(uint32_t fingerprint_bits) {
  return static_cast<int64_t>(
      std::ceil(StaticCuckooBitsPerKey(fingerprint_bits) * 1000.0));
}

RocksStatus NewCuckooOrHybrid(bool hybrid,
                              const std::vector<std::string_view>& fields,
                              std::unique_ptr<const FilterPolicy>* policy) {
  const RocksStatus count = CheckFieldCount(
      fields, hybrid ? 2 : 1,
      hybrid ? "<bits_per_key>[:<bloom_before_level>]" : "<bits_per_key>");
  if (!count.ok()) return count;
  int64_t millibits;
  RocksStatus s = ParseBitsPerKey(
      fields[0], CuckooMillibits(kMinAutoFingerprintBits),
      CuckooMillibits(CuckooLimits::kMaxFingerprintBits), &millibits);
  if (!s.ok()) return s;
  const uint32_t fingerprint_bits = FingerprintBitsFor(millibits);
  if (!hybrid) {
    policy->reset(new CuckooPolicy(millibits, fingerprint_bits));
    return s;
  }
  int bloom_before_level = 0;
  if (fields.size() == 2 &&
      (!ParseInt(fields[1], &bloom_before_level) || bloom_before_level < -1)) {
    return RocksStatus::InvalidArgument("bloom_before_level \"" +
                                        std::string(fields[1]) +
                                        "\" is not an integer >= -1");
  }
  policy->reset(
      new HybridPolicy(millibits, fingerprint_bits, bloom_before_level));
  return s;
}

}  // namespace

RocksStatus NewCuckoo(const std::vector<std::string_view>& fields,
                      std::unique_ptr<const FilterPolicy>* policy) {
  return NewCuckooOrHybrid(false, fields, policy);
}

RocksStatus NewHybrid(const std::vector<std::string_view>& fields,
                      std::unique_ptr<const FilterPolicy>* policy) {
  return NewCuckooOrHybrid(true, fields, policy);
}

}  // namespace sstfilter::rocksdb_plugin
