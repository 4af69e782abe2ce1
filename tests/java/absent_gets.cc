// sstfilter-java-absent-gets DIR ID COUNT: the C++ side of
// JavaAndCppReadsTest. Opens the DB in DIR read-only with the options of its
// OPTIONS file and the filter policy ID, Gets the COUNT absent keys of
// tests/java's Workload ("key%010d" of 1, 3, 5, ...), and prints
//   data_blocks_per_get <reads> useful <bloom.filter.useful>
// The exit status is 1 if the DB does not open or an absent key is found.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/statistics.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/options_util.h"
#include "rocksdb_db_compat.h"

namespace rdb = ROCKSDB_NAMESPACE;

namespace {

int Fail(const std::string& what, const rdb::Status& s) {
  std::fprintf(stderr, "absent_gets: %s: %s\n", what.c_str(),
               s.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s DIR ID COUNT\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  const std::string id = argv[2];
  const uint64_t count = std::strtoull(argv[3], nullptr, 10);

  rdb::ConfigOptions config_options;
  rdb::DBOptions db_options;
  std::vector<rdb::ColumnFamilyDescriptor> families;
  rdb::Status s =
      rdb::LoadLatestOptions(config_options, dir, &db_options, &families);
  if (!s.ok()) return Fail("LoadLatestOptions", s);
  std::shared_ptr<const rdb::FilterPolicy> policy;
  s = rdb::FilterPolicy::CreateFromString(config_options, id, &policy);
  if (!s.ok() || policy == nullptr) return Fail(id, s);
  for (auto& family : families) {
    const auto* loaded =
        family.options.table_factory->GetOptions<rdb::BlockBasedTableOptions>();
    if (loaded == nullptr) {
      return Fail("table options",
                  rdb::Status::NotSupported("not block-based"));
    }
    rdb::BlockBasedTableOptions table_options = *loaded;
    table_options.filter_policy = policy;
    family.options.table_factory.reset(
        rdb::NewBlockBasedTableFactory(table_options));
  }
  db_options.statistics = rdb::CreateDBStatistics();

  std::vector<rdb::ColumnFamilyHandle*> handles;
  std::unique_ptr<rdb::DB> db;
  s = sstfilter::rocksdb_compat::OpenDbForReadOnly(db_options, dir, families,
                                                   &handles, &db);
  if (!s.ok()) return Fail("OpenForReadOnly " + dir, s);

  rdb::Statistics& stats = *db_options.statistics;
  stats.Reset();
  std::string value;
  char key[32];
  for (uint64_t i = 0; i < count; ++i) {
    std::snprintf(key, sizeof key, "key%010" PRIu64, 2 * i + 1);
    s = db->Get(rdb::ReadOptions(), key, &value);
    if (!s.IsNotFound()) return Fail(std::string("absent key ") + key, s);
  }
  const uint64_t data_blocks = stats.getTickerCount(rdb::BLOCK_CACHE_DATA_HIT) +
                               stats.getTickerCount(rdb::BLOCK_CACHE_DATA_MISS);
  std::printf("data_blocks_per_get %.6f useful %" PRIu64 "\n",
              static_cast<double>(data_blocks) / static_cast<double>(count),
              stats.getTickerCount(rdb::BLOOM_FILTER_USEFUL));
  for (auto* handle : handles) db->DestroyColumnFamilyHandle(handle);
  s = db->Close();
  return s.ok() ? 0 : Fail("Close", s);
}
