// libsstfilter_preload.so: registers sstfilter's filter policies in
// RocksDB's default ObjectLibrary when loaded, so that stock tools linked
// against the same librocksdb (Debian's ldb, sst_dump, db_bench) accept them
// in OPTIONS files and options strings:
//   LD_PRELOAD=/path/to/libsstfilter_preload.so ldb --db=DB --try_load_options
//   scan
#include "rocksdb/utilities/object_registry.h"
#include "sstfilter/rocksdb_plugin.h"

namespace {

// Runs after librocksdb's own initializers: it is a dependency of this
// library, and the dynamic loader initializes dependencies first.
__attribute__((constructor)) void RegisterAtLoad() {
  RegisterSstfilterPolicies(*ROCKSDB_NAMESPACE::ObjectLibrary::Default(), "");
}

}  // namespace
