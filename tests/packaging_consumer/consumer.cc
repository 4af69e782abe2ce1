// Registers the policies, writes a DB whose SSTs carry sstfilter.Cuckoo:12
// filters, reads every key back, and checks the tables' filter policy.
//   consumer DB_DIR    (exit status 0 when all holds)
#include <cstdio>
#include <memory>
#include <string>

#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/table.h"
#include "sstfilter/rocksdb_plugin.h"

namespace rdb = ROCKSDB_NAMESPACE;

int Fail(const std::string& what, const rdb::Status& status) {
  std::fprintf(stderr, "consumer: %s: %s\n", what.c_str(),
               status.ToString().c_str());
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 2) return Fail("usage: consumer DB_DIR", rdb::Status());
  RegisterSstfilterPolicies(*rdb::ObjectLibrary::Default(), "");

  rdb::BlockBasedTableOptions table;
  rdb::Status s = rdb::FilterPolicy::CreateFromString(
      rdb::ConfigOptions(), "sstfilter.Cuckoo:12", &table.filter_policy);
  if (!s.ok()) return Fail("filter policy", s);
  rdb::Options options;
  options.create_if_missing = true;
  options.table_factory.reset(rdb::NewBlockBasedTableFactory(table));
  rdb::DB* raw = nullptr;
  s = rdb::DB::Open(options, argv[1], &raw);
  if (!s.ok()) return Fail("open", s);
  std::unique_ptr<rdb::DB> db(raw);

  constexpr int kKeys = 10000;
  for (int i = 0; i < kKeys && s.ok(); ++i) {
    s = db->Put(rdb::WriteOptions(), "key" + std::to_string(i), "v");
  }
  if (s.ok()) s = db->Flush(rdb::FlushOptions());
  if (!s.ok()) return Fail("write", s);
  std::string value;
  for (int i = 0; i < kKeys; ++i) {
    s = db->Get(rdb::ReadOptions(), "key" + std::to_string(i), &value);
    if (!s.ok()) return Fail("get key" + std::to_string(i), s);
  }
  if (!db->Get(rdb::ReadOptions(), "absent", &value).IsNotFound()) {
    return Fail("an absent key was found", rdb::Status());
  }
  rdb::TablePropertiesCollection tables;
  s = db->GetPropertiesOfAllTables(&tables);
  if (!s.ok() || tables.empty()) return Fail("table properties", s);
  for (const auto& [file, properties] : tables) {
    if (properties->filter_policy_name != "sstfilter.Cuckoo") {
      return Fail(file + " has filter '" + properties->filter_policy_name + "'",
                  rdb::Status());
    }
  }
  std::printf("consumer: %d keys in %zu table(s) with sstfilter.Cuckoo\n",
              kKeys, tables.size());
  return 0;
}
