// RegisterSstfilterPolicies: each policy's maker (policies.h) under its
// name. How RocksDB 7.8 registers and round-trips its own policies
// (filter_policy.cc: RegisterBuiltinFilterPolicies,
// BloomLikeFilterPolicy::GetId) is the model.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "id_grammar.h"
#include "policies.h"
#include "range_filter_collector.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/listener.h"
#include "rocksdb/utilities/object_registry.h"
#include "sstfilter/rocksdb_plugin.h"

namespace sstfilter::rocksdb_plugin {
namespace {

using ROCKSDB_NAMESPACE::FilterPolicy;
using ROCKSDB_NAMESPACE::ObjectLibrary;
using RocksStatus = ROCKSDB_NAMESPACE::Status;

// Any other "sstfilter.<name>" names no policy. Without a factory it would
// be NotSupported, which CreateFromString turns into OK and no policy by
// default (ConfigOptions::ignore_unsupported_options).
std::string UnknownNameError(const std::string& id) {
  return id + ": unknown policy; the policies are " + kBlockedBloomName + ", " +
         kCuckooName + ", " + kHybridName + " and " + kLevelAwareName;
}

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

}  // namespace
}  // namespace sstfilter::rocksdb_plugin

extern "C" int RegisterSstfilterPolicies(
    ROCKSDB_NAMESPACE::ObjectLibrary& library, const std::string& /*arg*/) {
  using namespace sstfilter::rocksdb_plugin;
  AddPolicy(library, kBlockedBloomName, NewBlockedBloom);
  AddPolicy(library, kCuckooName, NewCuckoo);
  AddPolicy(library, kHybridName, NewHybrid);
  AddPolicy(library, kLevelAwareName, NewLevelAware);
  // The listener LevelAware needs, by name: listeners={...} in DBOptions.
  library.AddFactory<ROCKSDB_NAMESPACE::EventListener>(
      kLevelAwareListenerName,
      [](const std::string& /*id*/,
         std::unique_ptr<ROCKSDB_NAMESPACE::EventListener>* guard,
         std::string* /*errmsg*/) {
        *guard = MakeLevelAwareListener();
        return guard->get();
      });
  // The range filter's collector: table_properties_collectors={...}.
  RegisterRangeFilterCollector(library);
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
  return 7;
}
