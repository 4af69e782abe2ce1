// Shared by the rocksdb_*_test suites: policy registration and building a
// filter through RocksDB's FilterPolicy interfaces.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rocksdb/convenience.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/object_registry.h"
#include "rocksdb_db_compat.h"
#include "sstfilter/rocksdb_plugin.h"
#include "table/block_based/filter_policy_internal.h"

namespace sstfilter::test_support {

namespace rdb = ROCKSDB_NAMESPACE;

// Registers the policies once per process, in a library of their own in
// the default registry, so that ObjectLibrary::Default() keeps RocksDB's own
// factories only (a "stock" registry is made from it).
inline void RegisterPolicies() {
  static const bool registered = [] {
    rdb::ObjectRegistry::Default()->AddLibrary("sstfilter",
                                               RegisterSstfilterPolicies, "");
    return true;
  }();
  (void)registered;
}

inline rdb::Status MakePolicy(const std::string& value,
                              std::shared_ptr<const rdb::FilterPolicy>* out) {
  RegisterPolicies();
  return rdb::FilterPolicy::CreateFromString(rdb::ConfigOptions(), value, out);
}

// Distinct keys "<prefix><i>" for i in [first, first + count).
inline std::vector<std::string> Keys(const std::string& prefix, size_t count,
                                     size_t first = 0) {
  std::vector<std::string> keys;
  keys.reserve(count);
  for (size_t i = first; i < first + count; ++i) {
    keys.push_back(prefix + std::to_string(i));
  }
  return keys;
}

// A filter built from `keys` as a table builder would (default table
// options unless given), owned with its bytes.
struct BuiltFilter {
  std::unique_ptr<const char[]> owner;
  rdb::Slice bytes;
  size_t entries_added = 0;
};

inline BuiltFilter BuildFilter(const rdb::FilterPolicy& policy,
                               const std::vector<std::string>& keys,
                               const rdb::FilterBuildingContext& context) {
  std::unique_ptr<rdb::FilterBitsBuilder> builder(
      policy.GetBuilderWithContext(context));
  for (const auto& key : keys) builder->AddKey(key);
  BuiltFilter filter;
  filter.entries_added = builder->EstimateEntriesAdded();
  rdb::Status status;
  filter.bytes = builder->Finish(&filter.owner, &status);
  return filter;
}

inline BuiltFilter BuildFilter(const rdb::FilterPolicy& policy,
                               const std::vector<std::string>& keys) {
  rdb::BlockBasedTableOptions table_options;
  return BuildFilter(policy, keys, rdb::FilterBuildingContext(table_options));
}

}  // namespace sstfilter::test_support
