// The three FilterPolicy classes, their ids, and their registration. How
// RocksDB 7.8 registers and round-trips its own policies (filter_policy.cc:
// RegisterBuiltinFilterPolicies, BloomLikeFilterPolicy::GetId) is the model.
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "filter_bits.h"
#include "policy_ids.h"
#include "rocksdb/convenience.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/options.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/options_type.h"
#include "sstfilter/cuckoo_filter.h"
#include "sstfilter/rocksdb_plugin.h"
#include "sstfilter/usable_space.h"

namespace sstfilter::rocksdb_plugin {
namespace {

using ROCKSDB_NAMESPACE::ConfigOptions;
using ROCKSDB_NAMESPACE::FilterBitsBuilder;
using ROCKSDB_NAMESPACE::FilterBitsReader;
using ROCKSDB_NAMESPACE::FilterBuildingContext;
using ROCKSDB_NAMESPACE::FilterPolicy;
using ROCKSDB_NAMESPACE::ObjectLibrary;
using ROCKSDB_NAMESPACE::OptionTypeInfo;
using ROCKSDB_NAMESPACE::Slice;
using RocksStatus = ROCKSDB_NAMESPACE::Status;

constexpr char kBlockedBloomName[] = "sstfilter.BlockedBloom";
constexpr char kCuckooName[] = "sstfilter.Cuckoo";
constexpr char kHybridName[] = "sstfilter.Hybrid";

// Bits per key are kept in thousandths, as RocksDB keeps "millibits", so
// that an id such as "9.9" reads back exactly.
constexpr int64_t kMinBloomMillibits = 1000;
constexpr int64_t kMaxMillibits = 100000;  // RocksDB caps bloomfilter at 100

// Parses "<digits>[.<digits>]" into thousandths, rounding half up.
bool ParseMillis(std::string_view text, int64_t* millis) {
  auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  size_t i = 0;
  int64_t whole = 0;
  for (; i < text.size() && is_digit(text[i]); ++i) {
    whole = whole * 10 + (text[i] - '0');
    if (whole > INT32_MAX) return false;
  }
  if (i == 0) return false;
  int64_t fraction = 0;  // thousandths
  int64_t scale = 100;
  bool round_up = false;
  if (i < text.size()) {
    if (text[i] != '.' || i + 1 == text.size()) return false;
    for (++i; i < text.size(); ++i) {
      if (!is_digit(text[i])) return false;
      if (scale > 0) {
        fraction += (text[i] - '0') * scale;
        scale /= 10;
      } else if (scale == 0) {
        round_up = text[i] >= '5';
        scale = -1;
      }
    }
  }
  *millis = whole * 1000 + fraction + (round_up ? 1 : 0);
  return true;
}

// The shortest decimal for `millis` thousandths: "10", "9.9", "6.667".
std::string FormatMillis(int64_t millis) {
  std::string text = std::to_string(millis / 1000);
  if (millis % 1000 != 0) {
    char fraction[8];
    std::snprintf(fraction, sizeof(fraction), ".%03d",
                  static_cast<int>(millis % 1000));
    text += fraction;
    while (text.back() == '0') text.pop_back();
  }
  return text;
}

// Parses an optionally signed decimal int.
bool ParseInt(std::string_view text, int* value) {
  bool negative = false;
  if (!text.empty() && text[0] == '-') {
    negative = true;
    text.remove_prefix(1);
  }
  int64_t millis;
  if (text.find('.') != std::string_view::npos || !ParseMillis(text, &millis)) {
    return false;
  }
  *value = static_cast<int>((negative ? -millis : millis) / 1000);
  return true;
}

// The narrowest fingerprint the automatic width picks. Below 6 bits a
// static build cannot reach its 96% load and grows past its budget
// (measured at 10^4..10^6 keys: up to 6% at f = 4, 2% at f = 5), and its
// FPR (above 20%) is worse than BlockedBloom's at the same bits/key.
constexpr uint32_t kMinAutoFingerprintBits = 6;

// The widest fingerprint whose filter fits in `millibits` per key, or 0.
uint32_t FingerprintBitsFor(int64_t millibits) {
  uint32_t widest = 0;
  for (uint32_t f = kMinAutoFingerprintBits;
       f <= CuckooLimits::kMaxFingerprintBits; ++f) {
    if (StaticCuckooBitsPerKey(f) * 1000.0 <= static_cast<double>(millibits)) {
      widest = f;
    }
  }
  return widest;
}

// A policy sized by bits per key: the three of this file.
class SstfilterPolicy : public PolicyBase {
 public:
  std::string GetId() const override {
    return std::string(Name()) + ":" + FormatMillis(millibits_);
  }

 protected:
  explicit SstfilterPolicy(int64_t millibits) : millibits_(millibits) {}

  BuilderConfig Config(FilterKind kind,
                       const FilterBuildingContext& context) const {
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
  // The level rule of RocksDB's RibbonFilterPolicy::GetBuilderWithContext
  // (filter_policy.cc), plus: a bottommost file always gets Cuckoo.
  bool UsesBloom(const FilterBuildingContext& context) const {
    if (context.is_bottommost) return false;
    int level = INT_MAX;  // unknown, FIFO or none: treated as the last
    if (context.compaction_style == ROCKSDB_NAMESPACE::kCompactionStyleLevel ||
        context.compaction_style ==
            ROCKSDB_NAMESPACE::kCompactionStyleUniversal) {
      if (context.reason ==
          ROCKSDB_NAMESPACE::TableFileCreationReason::kFlush) {
        level = -1;
      } else if (context.level_at_creation != -1) {
        level = context.level_at_creation;
      }
    }
    return level < bloom_before_level_;
  }

  const int bloom_before_level_;
};

// The id's fields after "<name>:", e.g. {"10", "1"} for
// "sstfilter.Hybrid:10:1"; {} for the bare name.
std::vector<std::string_view> FieldsAfter(std::string_view id,
                                          std::string_view name) {
  std::vector<std::string_view> fields;
  if (id.size() == name.size()) return fields;
  id.remove_prefix(name.size() + 1);  // the pattern matched "<name>:"
  for (;;) {
    const size_t colon = id.find(':');
    fields.push_back(id.substr(0, colon));
    if (colon == std::string_view::npos) return fields;
    id.remove_prefix(colon + 1);
  }
}

RocksStatus ParseBitsPerKey(std::string_view text, int64_t min_millibits,
                            int64_t max_millibits, int64_t* millibits) {
  if (!ParseMillis(text, millibits)) {
    return RocksStatus::InvalidArgument(
        "bits per key \"" + std::string(text) +
        "\" is not a non-negative decimal like 10 or 9.9");
  }
  if (*millibits < min_millibits || *millibits > max_millibits) {
    return RocksStatus::InvalidArgument(
        "bits per key " + std::string(text) + " is outside " +
        FormatMillis(min_millibits) + ".." + FormatMillis(max_millibits));
  }
  return RocksStatus::OK();
}

// Millibits per key of a cuckoo filter with `fingerprint_bits`, rounded
// up. The narrowest automatic width bounds a policy's bits/key from below,
// and the widest fingerprint from above: no width could use more.
int64_t CuckooMillibits(uint32_t fingerprint_bits) {
  return static_cast<int64_t>(
      StaticCuckooBitsPerKey(fingerprint_bits) * 1000.0 + 0.999);
}

// Makes the policy that `fields` (the id after the name) describe.
RocksStatus NewBlockedBloom(const std::vector<std::string_view>& fields,
                            std::unique_ptr<const FilterPolicy>* policy) {
  if (fields.empty() || fields.size() > 2) {
    return RocksStatus::InvalidArgument(
        "expected <bits_per_key>[:<lines_per_key>]");
  }
  int64_t millibits;
  RocksStatus s =
      ParseBitsPerKey(fields[0], kMinBloomMillibits, kMaxMillibits, &millibits);
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

RocksStatus NewCuckooOrHybrid(bool hybrid,
                              const std::vector<std::string_view>& fields,
                              std::unique_ptr<const FilterPolicy>* policy) {
  if (fields.empty() || fields.size() > (hybrid ? 2 : 1)) {
    return RocksStatus::InvalidArgument(
        hybrid ? "expected <bits_per_key>[:<bloom_before_level>]"
               : "expected <bits_per_key>");
  }
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

// Any other "sstfilter.<name>" names no policy. Without a factory it would
// be NotSupported, which CreateFromString turns into OK and no policy by
// default (ConfigOptions::ignore_unsupported_options).
std::string UnknownNameError(const std::string& id) {
  return id + ": unknown policy; the policies are " + kBlockedBloomName + ", " +
         kCuckooName + ", " + kHybridName + " and " + kLevelAwareName;
}

using PolicyMaker = RocksStatus (*)(const std::vector<std::string_view>&,
                                    std::unique_ptr<const FilterPolicy>*);

// Registers `name` and "<name>:<anything>": a malformed id reaches `make`,
// whose error becomes InvalidArgument, instead of matching no factory
// (NotSupported, which RocksDB by default ignores, leaving no filter).
void AddPolicy(ObjectLibrary& library, const char* name, PolicyMaker make) {
  library.AddFactory<const FilterPolicy>(
      ObjectLibrary::PatternEntry(name).AddSeparator(":", false),
      [name, make](const std::string& id,
                   std::unique_ptr<const FilterPolicy>* guard,
                   std::string* errmsg) -> const FilterPolicy* {
        const RocksStatus s = make(FieldsAfter(id, name), guard);
        if (!s.ok()) {
          *errmsg = std::string(name) + ": " + s.getState();
          guard->reset();
          return nullptr;
        }
        return guard->get();
      });
}

// compatibility_name: RocksDB's built-in family (the default) or the old
// "sstfilter".
RocksStatus ParseCompatibilityName(const ConfigOptions& /*options*/,
                                   const std::string& name,
                                   const std::string& value, void* addr) {
  if (value != kRocksdbFamilyCompatibilityName &&
      value != kSstfilterCompatibilityName) {
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

}  // namespace

// What the policies in other files reuse (policy_ids.h).
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
  return NewBitsReader(contents,
                       compatibility_name_ == kSstfilterCompatibilityName
                           ? ReaderFamily::kSstfilterOnly
                           : ReaderFamily::kRocksdbBuiltin);
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

RocksStatus ParseBloomBitsPerKey(std::string_view text, int64_t* millibits) {
  return ParseBitsPerKey(text, kMinBloomMillibits, kMaxMillibits, millibits);
}
bool ParseDecimalMillis(std::string_view text, int64_t* millis) {
  return ParseMillis(text, millis);
}
std::string FormatDecimalMillis(int64_t millis) { return FormatMillis(millis); }

}  // namespace sstfilter::rocksdb_plugin

extern "C" int RegisterSstfilterPolicies(
    ROCKSDB_NAMESPACE::ObjectLibrary& library, const std::string& /*arg*/) {
  using namespace sstfilter::rocksdb_plugin;
  AddPolicy(library, kBlockedBloomName, NewBlockedBloom);
  AddPolicy(library, kCuckooName,
            [](const std::vector<std::string_view>& fields,
               std::unique_ptr<const FilterPolicy>* policy) {
              return NewCuckooOrHybrid(false, fields, policy);
            });
  AddPolicy(library, kHybridName,
            [](const std::vector<std::string_view>& fields,
               std::unique_ptr<const FilterPolicy>* policy) {
              return NewCuckooOrHybrid(true, fields, policy);
            });
  AddPolicy(library, kLevelAwareName, NewLevelAware);
  // Last: a library uses the first factory whose pattern matches. "." may
  // end the id: "sstfilter." is an unknown name too.
  library.AddFactory<const FilterPolicy>(
      ObjectLibrary::PatternEntry("sstfilter").AddSeparator(".", false),
      [](const std::string& id, std::unique_ptr<const FilterPolicy>* guard,
         std::string* errmsg) -> const FilterPolicy* {
        guard->reset();
        *errmsg = UnknownNameError(id);
        return nullptr;
      });
  return 5;
}
