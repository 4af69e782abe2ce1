// libsstfilter_rocksdb.so: registers sstfilter's filter policies in
// RocksDB's default ObjectLibrary when loaded, so that stock tools linked
// against the same shared librocksdb (Debian's db_bench, ldb, sst_dump)
// accept them in OPTIONS files and options strings:
//   LD_PRELOAD=/path/to/libsstfilter_rocksdb.so ldb --db=DB --try_load_options get KEY
// Its only exported symbol is RegisterSstfilterPolicies (preload.map).
#include "rocksdb/utilities/object_registry.h"
#include "sstfilter/rocksdb_plugin.h"

namespace {

// Runs after librocksdb's own initializers: it is a dependency of this
// library, and the dynamic loader initializes dependencies first.
__attribute__((constructor)) void RegisterAtLoad() {
  RegisterSstfilterPolicies(*ROCKSDB_NAMESPACE::ObjectLibrary::Default(), "");
}

}  // namespace
