// Odd key sets a user may well have, through real DBs with each policy:
// the empty key, SST files of one key, every key under one prefix, and many
// keys per prefix. Every present key is found by Get and MultiGet, and each
// file really carries the policy's filter.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "rocksdb/slice_transform.h"
#include "rocksdb_db_support.h"

namespace sstfilter::test_support {
namespace {

const char* const kPolicies[] = {
    "sstfilter.BlockedBloom:10", "sstfilter.BlockedBloom:10:1",
    "sstfilter.Cuckoo:12", "sstfilter.Hybrid:10:1", "sstfilter.LevelAware:10"};

class OddKeysTest : public ::testing::TestWithParam<const char*> {
 protected:
  // Writes `keys` (values "v:<key>") and flushes them into one SST file.
  void WriteFile(rdb::DB* db, const std::vector<std::string>& keys) {
    rdb::WriteBatch batch;
    for (const auto& key : keys) batch.Put(key, "v:" + key);
    ASSERT_TRUE(db->Write(rdb::WriteOptions(), &batch).ok());
    Flush(db);
  }

  // Get and MultiGet find every key of `present` with its value, and
  // report `absent` keys as NotFound, with no error.
  void ExpectLookups(rdb::DB* db, const std::vector<std::string>& present,
                     const std::vector<std::string>& absent) {
    std::string value;
    for (const auto& key : present) {
      const rdb::Status s = db->Get(rdb::ReadOptions(), key, &value);
      ASSERT_TRUE(s.ok()) << "\"" << key << "\": " << s.ToString();
      EXPECT_EQ(value, "v:" + key);
    }
    for (const auto& key : absent) {
      EXPECT_TRUE(db->Get(rdb::ReadOptions(), key, &value).IsNotFound())
          << "\"" << key << "\"";
    }
    std::vector<rdb::Slice> slices(present.begin(), present.end());
    std::vector<rdb::PinnableSlice> values(slices.size());
    std::vector<rdb::Status> statuses(slices.size());
    db->MultiGet(rdb::ReadOptions(), db->DefaultColumnFamily(), slices.size(),
                 slices.data(), values.data(), statuses.data());
    for (size_t i = 0; i < slices.size(); ++i) {
      ASSERT_TRUE(statuses[i].ok()) << statuses[i].ToString();
      EXPECT_EQ(values[i].ToString(), "v:" + present[i]);
    }
  }

  // Every SST file was built with the policy under test.
  void ExpectOurFilterInEveryFile(rdb::DB* db) {
    const std::vector<SstFile> files = SstFiles(db);
    ASSERT_FALSE(files.empty());
    for (const SstFile& file : files) {
      EXPECT_EQ(file.properties->filter_policy_name.rfind("sstfilter.", 0), 0u)
          << file.path << ": " << file.properties->filter_policy_name;
      EXPECT_GT(file.properties->filter_size, 0u) << file.path;
    }
  }
};

TEST_P(OddKeysTest, EmptyKeyAndOneKeyFilesAreFound) {
  TempDir dir;
  DbConfig config;
  config.policy = GetParam();
  auto db = Open(MakeOptions(config), dir.path());
  ASSERT_NE(db, nullptr);
  WriteFile(db.get(), {""});   // one file holding just the empty key
  WriteFile(db.get(), {"k"});  // one holding one key
  WriteFile(db.get(), {std::string(1, '\0'), std::string(300, 'x')});
  ExpectOurFilterInEveryFile(db.get());
  ExpectLookups(db.get(),
                {"", "k", std::string(1, '\0'), std::string(300, 'x')},
                {"a", "kk", std::string(2, '\0'), std::string(299, 'x')});
}

TEST_P(OddKeysTest, EveryKeyUnderOnePrefixIsFound) {
  for (bool whole_key_filtering : {true, false}) {
    SCOPED_TRACE(whole_key_filtering ? "whole keys and prefixes"
                                     : "prefixes only");
    TempDir dir;
    DbConfig config;
    config.policy = GetParam();
    config.prefix_extractor.reset(rdb::NewFixedPrefixTransform(4));
    config.whole_key_filtering = whole_key_filtering;
    auto db = Open(MakeOptions(config), dir.path());
    ASSERT_NE(db, nullptr);
    std::vector<std::string> keys, absent;
    for (int i = 0; i < 5000; ++i) {
      keys.push_back("pfx:" + std::to_string(i));
      absent.push_back("pfx:absent" + std::to_string(i % 50));
    }
    absent.push_back("zzz:1");
    WriteFile(db.get(), keys);
    ExpectOurFilterInEveryFile(db.get());
    ExpectLookups(db.get(), keys, absent);
    // A prefix seek sees every key of the prefix.
    rdb::ReadOptions prefix_read;
    prefix_read.prefix_same_as_start = true;
    std::unique_ptr<rdb::Iterator> it(db->NewIterator(prefix_read));
    size_t seen = 0;
    for (it->Seek("pfx:"); it->Valid(); it->Next()) ++seen;
    EXPECT_TRUE(it->status().ok()) << it->status().ToString();
    EXPECT_EQ(seen, keys.size());
  }
}

TEST_P(OddKeysTest, ManyKeysPerPrefixAreFound) {
  TempDir dir;
  DbConfig config;
  config.policy = GetParam();
  config.prefix_extractor.reset(rdb::NewFixedPrefixTransform(3));
  auto db = Open(MakeOptions(config), dir.path());
  ASSERT_NE(db, nullptr);
  std::vector<std::string> keys, absent;
  for (int prefix = 0; prefix < 50; ++prefix) {
    const std::string p = std::string(1, static_cast<char>('A' + prefix % 26)) +
                          std::to_string(prefix % 10) + "_";
    for (int i = 0; i < 200; ++i) {
      keys.push_back(p + std::to_string(prefix) + "." + std::to_string(i));
    }
    absent.push_back(p + "absent");
  }
  // Two overlapping files, so each key is consulted in more than one.
  WriteFile(db.get(),
            std::vector<std::string>(keys.begin(), keys.begin() + 6000));
  WriteFile(db.get(),
            std::vector<std::string>(keys.begin() + 4000, keys.end()));
  ExpectOurFilterInEveryFile(db.get());
  ExpectLookups(db.get(), keys, absent);
}

INSTANTIATE_TEST_SUITE_P(Policies, OddKeysTest, ::testing::ValuesIn(kPolicies),
                         [](const auto& info) {
                           std::string name = info.param + 10;
                           for (char& c : name) {
                             if (c == ':' || c == '.') c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace sstfilter::test_support
