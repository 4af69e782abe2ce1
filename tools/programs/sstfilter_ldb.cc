// sstfilter-ldb: RocksDB's ldb with sstfilter's filter policies registered,
// so that --try_load_options opens DBs whose OPTIONS file names them.
#include "rocksdb/ldb_tool.h"
#include "rocksdb/utilities/object_registry.h"
#include "sstfilter/rocksdb_plugin.h"

int main(int argc, char** argv) {
  RegisterSstfilterPolicies(*ROCKSDB_NAMESPACE::ObjectLibrary::Default(), "");
  ROCKSDB_NAMESPACE::LDBOptions ldb_options;
  ldb_options.print_help_header = "sstfilter-ldb - RocksDB ldb with sstfilter";
  ROCKSDB_NAMESPACE::LDBTool().Run(argc, argv, ROCKSDB_NAMESPACE::Options(),
                                   ldb_options);
  return 0;  // Run exits the process itself
}
