// Shared by the tools_*_test suites: small databases with one SST each,
// built with a chosen filter policy and table format, and a leveled DB
// whose filters are RocksDB's and ours, in temporary directories.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "rocksdb/slice_transform.h"
#include "rocksdb/table.h"
#include "rocksdb_db_support.h"
#include "rocksdb_test_support.h"
#include "temp_dir.h"

namespace sstfilter::test_support {

namespace rdb = ROCKSDB_NAMESPACE;
namespace fs = std::filesystem;

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
    const rdb::Status s = MakePolicy(spec.policy, &table.filter_policy);
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

// The keys of each filter kind on each level: kinds[level][kind].
using KindKeys = std::map<int, std::map<std::string, uint64_t>>;

// Present keys of BuildMixedDb are Key(i), i below this.
inline constexpr uint64_t kMixedDbKeys = 40000;

// A DB as switches of policy leave it: each file below written by reopening
// the DB with its policy, flushing its keys and moving the file down.
//   level  keys i                    policy                      filter
//   L3     i % 4 == 0                bloomfilter:10              FastLocalBloom
//   L2     i % 4 == 1, lower half    ribbonfilter:10             Ribbon128
//          i % 4 == 1, upper half    sstfilter.BlockedBloom:10   BlockedBloom
//   L1     i % 4 == 2                sstfilter.Cuckoo:12         Cuckoo
//   L0     i % 8 == 3                bloomfilter:10 (rollback)   FastLocalBloom
//          i % 8 == 7                sstfilter.BlockedBloom:10   BlockedBloom
// The halves are of the key space, so every level spans it: an absent key
// meets every L0 file and one file of each level below. Returns the kinds'
// keys per level, or {} after a test failure.
inline KindKeys BuildMixedDb(const std::string& dir, bool partitioned) {
  KindKeys kinds;
  // Writes `ids` with `policy` and moves their file to `level` (0: stays).
  auto write = [&](const std::string& policy, const char* kind, int level,
                   const std::vector<uint64_t>& ids) {
    DbConfig config;
    config.policy = policy;
    config.partitioned = partitioned;
    auto db = Open(MakeOptions(config), dir);
    if (db == nullptr) return;
    Put(db.get(), ids);
    Flush(db.get());
    if (level > 0) {
      rdb::CompactionOptions compaction;
      compaction.compression = rdb::kSnappyCompression;
      const std::vector<std::string> flushed = FilesAtLevel(db.get(), 0);
      EXPECT_EQ(flushed.size(), 1u);
      EXPECT_TRUE(db->CompactFiles(compaction, flushed, level).ok());
    }
    EXPECT_TRUE(db->Close().ok());
    kinds[level][kind] += ids.size();
  };
  auto keys_where = [](bool (*keep)(uint64_t)) {
    std::vector<uint64_t> ids;
    for (uint64_t i = 0; i < kMixedDbKeys; ++i) {
      if (keep(i)) ids.push_back(i);
    }
    return ids;
  };
  write("bloomfilter:10", "FastLocalBloom", 3,
        keys_where([](uint64_t i) { return i % 4 == 0; }));
  write("ribbonfilter:10", "Ribbon128", 2,
        keys_where([](uint64_t i) { return i % 4 == 1 && Key(i) < "8"; }));
  write("sstfilter.BlockedBloom:10", "BlockedBloom", 2,
        keys_where([](uint64_t i) { return i % 4 == 1 && Key(i) >= "8"; }));
  write("sstfilter.Cuckoo:12", "Cuckoo", 1,
        keys_where([](uint64_t i) { return i % 4 == 2; }));
  write("bloomfilter:10", "FastLocalBloom", 0,
        keys_where([](uint64_t i) { return i % 8 == 3; }));
  write("sstfilter.BlockedBloom:10", "BlockedBloom", 0,
        keys_where([](uint64_t i) { return i % 8 == 7; }));
  if (::testing::Test::HasFailure()) return {};
  return kinds;
}

}  // namespace sstfilter::test_support
