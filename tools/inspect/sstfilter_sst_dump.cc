// sstfilter-sst-dump: RocksDB's sst_dump with sstfilter's filter policies
// registered.
#include "rocksdb/sst_dump_tool.h"
#include "rocksdb/utilities/object_registry.h"
#include "sstfilter/rocksdb_plugin.h"

int main(int argc, char** argv) {
  RegisterSstfilterPolicies(*ROCKSDB_NAMESPACE::ObjectLibrary::Default(), "");
  return ROCKSDB_NAMESPACE::SSTDumpTool().Run(argc, argv);
}
