// Shared by the tools_*_test suites: small databases with one SST each,
// built with a chosen filter policy and table format, in temporary
// directories.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "rocksdb/slice_transform.h"
#include "rocksdb/table.h"
#include "rocksdb_test_support.h"
#include "support/temp_dir.h"

namespace sstfilter::tools_testing {

namespace rdb = ROCKSDB_NAMESPACE;
namespace fs = std::filesystem;
using rocksdb_testing::Keys;

using sstfilter::test_support::TempDir;

// What a test database is made of.
struct DbSpec {
  std::string policy;  // a FilterPolicy::CreateFromString value; "" = none
  bool partitioned = false;
  // RocksDB's default: 5 on 7.8, 7 on 11.x.
  int format_version =
      static_cast<int>(rdb::BlockBasedTableOptions().format_version);
  rdb::ChecksumType checksum = rdb::kXXH3;
  int index_block_restart_interval = 1;
  size_t num_keys = 10000;
  // A 3-byte prefix extractor and whole_key_filtering off: the filter
  // holds key prefixes only.
  bool prefix_only = false;
};

// The keys a test database holds: "key<i>" for i < num_keys.
inline std::vector<std::string> DbKeys(const DbSpec& spec) {
  return Keys("key", spec.num_keys);
}
// Keys it does not hold.
inline std::vector<std::string> AbsentKeys(size_t count) {
  return Keys("absent", count);
}

inline rdb::Options DbOptions(const DbSpec& spec) {
  rdb::Options options;
  options.create_if_missing = true;
  options.write_buffer_size = 64 << 20;  // one explicit flush, one SST
  options.disable_auto_compactions = true;
  rdb::BlockBasedTableOptions table;
  if (!spec.policy.empty()) {
    const rdb::Status s =
        rocksdb_testing::MakePolicy(spec.policy, &table.filter_policy);
    EXPECT_TRUE(s.ok()) << spec.policy << ": " << s.ToString();
  }
  table.format_version = spec.format_version;
  table.checksum = spec.checksum;
  table.index_block_restart_interval = spec.index_block_restart_interval;
  if (spec.prefix_only) {
    options.prefix_extractor.reset(rdb::NewFixedPrefixTransform(3));
    table.whole_key_filtering = false;
  }
  if (spec.partitioned) {
    table.partition_filters = true;
    table.index_type = rdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
    table.metadata_block_size = 1024;  // many partitions from few keys
  }
  options.table_factory.reset(rdb::NewBlockBasedTableFactory(table));
  return options;
}

// Writes DbKeys(spec) into a new DB at `dir`, flushes them into one SST and
// closes the DB. Returns the SST's path, or "" after a test failure.
inline std::string BuildDb(const std::string& dir, const DbSpec& spec) {
  std::unique_ptr<rdb::DB> db;
  rdb::Status s = rocksdb_compat::OpenDb(DbOptions(spec), dir, &db);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return "";
  rdb::WriteOptions write_options;
  write_options.disableWAL = true;
  for (const std::string& key : DbKeys(spec)) {
    s = db->Put(write_options, key, "value-" + key);
    if (!s.ok()) break;
  }
  if (s.ok()) s = db->Flush(rdb::FlushOptions());
  if (s.ok()) s = db->Close();
  EXPECT_TRUE(s.ok()) << s.ToString();
  std::vector<std::string> ssts;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".sst") ssts.push_back(entry.path());
  }
  EXPECT_EQ(ssts.size(), 1u) << "expected one SST in " << dir;
  return ssts.size() == 1 ? ssts.front() : "";
}

}  // namespace sstfilter::tools_testing
