// libFuzzer target for the policies' options parsing. The input is read the
// ways a user's options string or a DB's OPTIONS file reaches our parsing:
//   1. as a filter policy value, by FilterPolicy::CreateFromString;
//   2. as the value of filter_policy in a table options map, both as an
//      options string is read (strings not escaped) and as an OPTIONS file
//      is read (escaped, where RocksDB turns a policy's error into OK);
//   3. as a whole table options string, and after "filter_policy=", both
//      ways.
// What must hold (run under ASan/UBSan; a violation traps):
//   - A policy of ours that a path accepts works: its GetId() recreates a
//     policy with the same id; its serialized table options (the OPTIONS
//     file round trip) recreate an equivalent policy of the same family
//     name (CompatibilityName, one of our two) that builds the same
//     filters; and the filters it builds find every key added. Filters are
//     built once per input and policy (its id and options), from keys of
//     the input: in five table-building contexts the first time the
//     process sees the policy, in the first (no level) after that. (Most
//     inputs repeat a policy, and each level context costs a LevelAware
//     policy an allocation: checked every time, they held a 30 s run to a
//     few hundred inputs.)
//   - A policy of ours left behind by a refused value (RocksDB keeps the
//     object when an option fails) refuses PrepareOptions and
//     ValidateOptions, so DB::Open refuses it (rocksdb_plugin.h).
//   - The filter_policy value agrees with CreateFromString on both paths
//     (the OPTIONS file's only where no escape changes the value): a value
//     it accepts gives the same policy, and one it refuses gives no usable
//     policy of ours.
//   - A "sstfilter." name is never accepted as "no policy".
#include <climits>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "rocksdb/convenience.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/object_registry.h"
#include "sstfilter/rocksdb_plugin.h"
#include "table/block_based/filter_policy_internal.h"

namespace {

namespace rdb = ROCKSDB_NAMESPACE;
using Policy = std::shared_ptr<const rdb::FilterPolicy>;

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// A registry of its own, with our policies, over RocksDB's default one.
std::shared_ptr<rdb::ObjectRegistry> Registry() {
  static const auto registry = [] {
    auto instance = rdb::ObjectRegistry::NewInstance();
    instance->AddLibrary("sstfilter", RegisterSstfilterPolicies, "");
    return instance;
  }();
  return registry;
}

// How an OPTIONS file is read: ConfigOptions' defaults.
rdb::ConfigOptions OptionsFileConfig() {
  rdb::ConfigOptions config;
  config.registry = Registry();
  return config;
}

// How an options string is read (GetBlockBasedTableOptionsFromString's
// overload without ConfigOptions, removed in RocksDB 10, did this).
rdb::ConfigOptions OptionsStringConfig() {
  rdb::ConfigOptions config = OptionsFileConfig();
  config.input_strings_escaped = false;
  return config;
}

// Ours by name: RocksDB's built-in policies share our CompatibilityName.
bool IsOurs(const rdb::FilterPolicy& policy) {
  return StartsWith(policy.Name(), "sstfilter.");
}

// One of the two family names an option can give ours (rocksdb_plugin.h).
bool IsOurFamily(std::string_view compatibility_name) {
  return compatibility_name == kRocksdbFamilyCompatibilityName ||
         compatibility_name == kSstfilterCompatibilityName;
}

// DB::Open and the options parsers would refuse it. num_levels is as high as
// it goes, so that a Hybrid level above it is not what refuses.
bool Refuses(const rdb::FilterPolicy& policy) {
  rdb::ColumnFamilyOptions cf;
  cf.num_levels = INT_MAX;
  auto& mutable_policy = const_cast<rdb::FilterPolicy&>(policy);
  return !policy.ValidateOptions(rdb::DBOptions(), cf).ok() &&
         !mutable_policy.PrepareOptions(OptionsFileConfig()).ok();
}

// The contexts RocksDB builds tables in: no level (SstFileWriter; the
// first), a flush, compactions into L1 and into the bottommost L6 of a
// 7-level tree (the Hybrid's two kinds; two tree shapes for LevelAware,
// whose allocation is costly), and universal compaction.
std::vector<rdb::FilterBuildingContext> Contexts(
    const rdb::BlockBasedTableOptions& table) {
  std::vector<rdb::FilterBuildingContext> contexts;
  contexts.emplace_back(table);
  auto add = [&](rdb::TableFileCreationReason reason, int level,
                 bool bottommost, rdb::CompactionStyle style) {
    rdb::FilterBuildingContext& context = contexts.emplace_back(table);
    context.reason = reason;
    context.level_at_creation = level;
    context.is_bottommost = bottommost;
    context.compaction_style = style;
    context.num_levels = 7;
  };
  using Reason = rdb::TableFileCreationReason;
  add(Reason::kFlush, 0, false, rdb::kCompactionStyleLevel);
  add(Reason::kCompaction, 1, false, rdb::kCompactionStyleLevel);
  add(Reason::kCompaction, 6, true, rdb::kCompactionStyleLevel);
  add(Reason::kCompaction, 3, false, rdb::kCompactionStyleUniversal);
  return contexts;
}

// The filter `policy` builds from `keys` in `context`.
std::string BuildFilter(const rdb::FilterPolicy& policy,
                        const rdb::FilterBuildingContext& context,
                        const std::vector<std::string>& keys) {
  std::unique_ptr<rdb::FilterBitsBuilder> builder(
      policy.GetBuilderWithContext(context));
  Check(builder != nullptr);
  for (const std::string& key : keys) builder->AddKey(key);
  std::unique_ptr<const char[]> owner;
  rdb::Status status;
  const rdb::Slice bytes = builder->Finish(&owner, &status);
  Check(status.ok());
  return bytes.ToString();
}

// What a policy is, for the filter checks: its id and its options.
std::string IdentityOf(const rdb::FilterPolicy& policy) {
  std::string options;
  Check(policy.GetOptionString(OptionsFileConfig(), &options).ok());
  return policy.GetId() + "\n" + options;
}

// The policies whose filters were checked in every context (in this
// process) and on the keys of the current input.
std::set<std::string>& CheckedInEveryContext() {
  static auto* const checked = new std::set<std::string>();
  return *checked;
}
std::set<std::string>& CheckedOnThisInput() {
  static auto* const checked = new std::set<std::string>();
  return *checked;
}

// Every filter `policy` builds finds every key added, one by one and
// batched, and `reread` (it, as read back from an OPTIONS file) builds the
// same bytes: in every context if `all_contexts`, else in the first. The
// keys come from the input, so they vary with it.
void CheckBuildsFilters(const rdb::FilterPolicy& policy,
                        const rdb::FilterPolicy& reread, bool all_contexts,
                        std::string_view input) {
  std::vector<std::string> keys = {std::string(input), ""};
  for (size_t i = 0; i < input.size() % 64; ++i) {
    keys.push_back(std::string(input.substr(0, i)) + std::to_string(i));
  }
  const rdb::BlockBasedTableOptions table;
  const std::vector<rdb::FilterBuildingContext> contexts = Contexts(table);
  for (size_t c = 0; c < (all_contexts ? contexts.size() : 1); ++c) {
    const rdb::FilterBuildingContext& context = contexts[c];
    const std::string bytes = BuildFilter(policy, context, keys);
    Check(BuildFilter(reread, context, keys) == bytes);
    std::unique_ptr<rdb::FilterBitsReader> reader(
        policy.GetFilterBitsReader(bytes));
    Check(reader != nullptr);
    std::vector<rdb::Slice> slices(keys.begin(), keys.end());
    std::vector<rdb::Slice*> pointers;
    for (rdb::Slice& slice : slices) {
      Check(reader->MayMatch(slice));
      pointers.push_back(&slice);
    }
    std::unique_ptr<bool[]> batched(new bool[keys.size()]());
    reader->MayMatch(static_cast<int>(keys.size()), pointers.data(),
                     batched.get());
    for (size_t i = 0; i < keys.size(); ++i) Check(batched[i]);
  }
}

// An accepted policy of ours round-trips and builds working filters.
void CheckWorks(const Policy& policy, std::string_view input) {
  const rdb::ConfigOptions config = OptionsFileConfig();
  // Its id alone, as RocksDB writes a policy without options.
  const std::string id = policy->GetId();
  Policy from_id;
  Check(rdb::FilterPolicy::CreateFromString(config, id, &from_id).ok());
  Check(from_id != nullptr && from_id->GetId() == id);
  // The table options as an OPTIONS file holds them, options included.
  rdb::BlockBasedTableOptions table;
  table.filter_policy = policy;
  std::unique_ptr<rdb::TableFactory> factory(
      rdb::NewBlockBasedTableFactory(table));
  std::string serialized;
  Check(factory->GetOptionString(config, &serialized).ok());
  rdb::BlockBasedTableOptions reread;
  Check(
      rdb::GetBlockBasedTableOptionsFromString(config, {}, serialized, &reread)
          .ok());
  Check(reread.filter_policy != nullptr);
  std::string mismatch;
  Check(reread.filter_policy->GetId() == id &&
        policy->AreEquivalent(config, reread.filter_policy.get(), &mismatch));
  // The family name survives the OPTIONS file, or a DB reopened from it
  // would not find the filters it wrote.
  Check(IsOurFamily(policy->CompatibilityName()) &&
        std::string_view(reread.filter_policy->CompatibilityName()) ==
            policy->CompatibilityName());
  // The paths of one input mostly give the same policy: its filters are
  // checked once per input.
  const std::string identity = IdentityOf(*policy);
  if (!CheckedOnThisInput().insert(identity).second) return;
  CheckBuildsFilters(*policy, *reread.filter_policy,
                     CheckedInEveryContext().insert(identity).second, input);
}

// What a path gave, against what CreateFromString made of the same value:
// accepted, the same policy; refused, none of ours that can be used.
void CheckAgrees(const rdb::Status& direct_status, const Policy& direct,
                 const rdb::Status& status, const Policy& policy) {
  const bool direct_ours = direct != nullptr && IsOurs(*direct);
  if (direct_status.ok() && direct_ours) {
    Check(status.ok() && policy != nullptr &&
          policy->GetId() == direct->GetId());
    std::string mismatch;
    Check(direct->AreEquivalent(OptionsFileConfig(), policy.get(), &mismatch));
    return;
  }
  if (policy != nullptr && IsOurs(*policy)) Check(Refuses(*policy));
}

// A policy of ours that a path gave works, or, left behind by an error that
// the OPTIONS file reading hid, it is refused.
void CheckWorksOrRefuses(const rdb::Status& status, const Policy& policy,
                         std::string_view input) {
  if (policy == nullptr || !IsOurs(*policy) || Refuses(*policy)) return;
  Check(status.ok());
  CheckWorks(policy, input);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  CheckedOnThisInput().clear();
  const rdb::ConfigOptions options_file = OptionsFileConfig();
  const rdb::ConfigOptions options_string = OptionsStringConfig();

  // 1. The policy value itself.
  Policy direct;
  const rdb::Status direct_status =
      rdb::FilterPolicy::CreateFromString(options_file, input, &direct);
  if (direct != nullptr && IsOurs(*direct)) {
    if (direct_status.ok()) {
      CheckWorks(direct, input);
    } else {
      Check(Refuses(*direct));
    }
  }
  if (direct_status.ok() && direct == nullptr) {
    std::string id;
    std::unordered_map<std::string, std::string> unused;
    if (rdb::Customizable::GetOptionsMap(options_file, nullptr, input, &id,
                                         &unused)
            .ok()) {
      Check(!StartsWith(id, "sstfilter."));
    }
  }

  // 2. The value of filter_policy, both ways. An OPTIONS file's values are
  // escaped ("\x" reads as x, so "9.\9" as "9.9"), and RocksDB decodes
  // them before a policy sees them: with a backslash in the input, what
  // CreateFromString saw is another value.
  const bool escapes = input.find('\\') != std::string::npos;
  for (const rdb::ConfigOptions* config : {&options_file, &options_string}) {
    rdb::BlockBasedTableOptions table;
    const rdb::Status status = rdb::GetBlockBasedTableOptionsFromMap(
        *config, {}, {{"filter_policy", input}}, &table);
    if (escapes && config->input_strings_escaped) {
      CheckWorksOrRefuses(status, table.filter_policy, input);
    } else {
      CheckAgrees(direct_status, direct, status, table.filter_policy);
    }
  }

  // 3. Table options strings, both ways.
  for (const rdb::ConfigOptions* config : {&options_file, &options_string}) {
    for (const std::string& options : {input, "filter_policy=" + input}) {
      rdb::BlockBasedTableOptions table;
      const rdb::Status status = rdb::GetBlockBasedTableOptionsFromString(
          *config, {}, options, &table);
      CheckWorksOrRefuses(status, table.filter_policy, input);
    }
  }
  return 0;
}
