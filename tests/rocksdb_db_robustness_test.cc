// The policies under on-disk corruption of the filter block and under
// concurrent readers: no present key is ever reported missing.
#include <gtest/gtest.h>

#include "rocksdb_db_support.h"

namespace sstfilter::test_support {
namespace {

// Builds two overlapping L0 files and corrupts the filter block of one of
// them with `corrupt(block)`. Returns the path of the corrupted file.
std::string BuildAndCorrupt(const std::string& dir, const DbConfig& config,
                            uint64_t keys_per_file,
                            void (*corrupt)(char* block, size_t size)) {
  {
    auto db = Open(MakeOptions(config), dir);
    EXPECT_NE(db, nullptr);
    for (uint64_t file = 0; file < 2; ++file) {
      Put(db.get(), Range(file * keys_per_file, keys_per_file));
      Flush(db.get());
    }
  }
  auto db = Open(MakeOptions(config), dir);
  const SstFile victim = SstFiles(db.get())[0];
  db.reset();
  std::string sst = ReadFile(victim.path);
  FilterKind kind;
  const size_t at = FindFilterBlock(sst, victim.properties->filter_size, &kind);
  EXPECT_NE(at, std::string::npos);
  if (at == std::string::npos) return "";
  corrupt(sst.data() + at, victim.properties->filter_size);
  std::ofstream(victim.path, std::ios::binary | std::ios::trunc) << sst;
  return victim.path;
}

class CorruptFilterTest : public ::testing::TestWithParam<const char*> {};

// With block checksums (the default) the corruption is caught when the
// filter block is read: RocksDB drops that filter and reads the file's data
// blocks instead, so every present key is found with its value, and only
// the intact file's filter is consulted.
TEST_P(CorruptFilterTest, ChecksummedCorruptionNeverHidesAKey) {
  constexpr uint64_t kKeysPerFile = 20000;
  constexpr uint64_t kAbsent = 10000;
  TempDir dir;
  DbConfig config;
  config.policy = GetParam();
  const std::string corrupted = BuildAndCorrupt(
      dir.path(), config, kKeysPerFile,
      [](char* block, size_t size) { block[size / 2] ^= 0x5a; });
  ASSERT_FALSE(corrupted.empty());
  const rdb::Options options = MakeOptions(config);
  auto db = Open(options, dir.path());
  ASSERT_NE(db, nullptr);
  // The damage is there, and the block checksum sees it.
  const rdb::Status verify = db->VerifyChecksum();
  EXPECT_TRUE(verify.IsCorruption()) << verify.ToString();
  EXPECT_NE(verify.ToString().find(corrupted.substr(dir.path().size())),
            std::string::npos)
      << verify.ToString();
  const auto present = Range(0, 2 * kKeysPerFile);
  const LookupCounts get = GetAll(db.get(), present);
  EXPECT_EQ(get.found, present.size());
  EXPECT_EQ(get.errors, 0u);
  const LookupCounts multi_get = MultiGetAll(db.get(), present);
  EXPECT_EQ(multi_get.found, present.size());
  EXPECT_EQ(multi_get.errors, 0u);
  // The corrupted filter was dropped, not misread: an absent key consults
  // one filter, not two (UnparsableFilterBlockDegradesToMayMatch sees two).
  TakeStats(*options.statistics);
  EXPECT_EQ(GetAll(db.get(), Range(2 * kKeysPerFile, kAbsent)).found, 0u);
  const FilterStats stats = TakeStats(*options.statistics);
  EXPECT_EQ(stats.consulted(), kAbsent);
}

// Without checksums the corrupted bytes reach the reader: a filter block
// that does not parse degrades to "may match", so every key is found and
// only the intact file still filters.
TEST_P(CorruptFilterTest, UnparsableFilterBlockDegradesToMayMatch) {
  constexpr uint64_t kKeysPerFile = 20000;
  constexpr uint64_t kAbsent = 10000;
  void (*corruptions[])(char*, size_t) = {
      // The tag ends the block (format v2): version, kind, magic.
      [](char* block, size_t size) { block[size - 1] = 99; },
      [](char* block, size_t size) { block[size - 2] = 42; },
      [](char* block, size_t size) { block[size - 4] = 'X'; },
      // A parameter in the metadata (BlockedBloom's lines per key, the
      // cuckoo seed): the metadata checksum refuses it.
      [](char* block, size_t size) { block[size - 23] ^= 0x40; },
      [](char* block, size_t size) { block[size - 16] ^= 0x01; },
  };
  for (auto corrupt : corruptions) {
    TempDir dir;
    DbConfig config;
    config.policy = GetParam();
    config.checksum = rdb::kNoChecksum;
    BuildAndCorrupt(dir.path(), config, kKeysPerFile, corrupt);
    const rdb::Options options = MakeOptions(config);
    auto db = Open(options, dir.path());
    ASSERT_NE(db, nullptr);
    const auto present = Range(0, 2 * kKeysPerFile);
    EXPECT_EQ(GetAll(db.get(), present).found, present.size());
    EXPECT_EQ(MultiGetAll(db.get(), present).found, present.size());
    TakeStats(*options.statistics);
    EXPECT_EQ(GetAll(db.get(), Range(2 * kKeysPerFile, kAbsent)).found, 0u);
    const FilterStats stats = TakeStats(*options.statistics);
    // Both filters are consulted; the corrupted one says "may match" to
    // every key, the intact one rejects nearly all.
    EXPECT_EQ(stats.consulted(), 2 * kAbsent);
    EXPECT_GE(stats.positive, kAbsent);
    EXPECT_GT(stats.useful, kAbsent * 95 / 100);
  }
}

INSTANTIATE_TEST_SUITE_P(Policies, CorruptFilterTest,
                         ::testing::Values("sstfilter.BlockedBloom:10",
                                           "sstfilter.Cuckoo:12"),
                         PolicyTestName);

// Readers are shared by all threads of a DB: many Gets and MultiGets at
// once, over both filter kinds.
TEST(RocksdbDbRobustnessTest, ConcurrentGetAndMultiGetAreCorrect) {
  constexpr uint64_t kKeys = 200000;
  constexpr int kThreads = 4;
  TempDir dir;
  DbConfig config;
  config.policy = "sstfilter.Hybrid:10:2";
  auto db = Open(MakeOptions(config), dir.path());
  ASSERT_NE(db, nullptr);
  BuildLeveledDb(db.get(), kKeys);
  std::atomic<uint64_t> found{0};
  std::atomic<uint64_t> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      // Each thread looks up every 4th key from its own offset, present
      // and absent, one by one and in batches.
      std::vector<uint64_t> present;
      std::vector<uint64_t> absent;
      for (uint64_t i = t; i < kKeys; i += kThreads) {
        present.push_back(i);
        absent.push_back(kKeys + i);
      }
      const LookupCounts a = GetAll(db.get(), present);
      const LookupCounts b = MultiGetAll(db.get(), present);
      const LookupCounts c = GetAll(db.get(), absent);
      const LookupCounts d = MultiGetAll(db.get(), absent);
      found += a.found + b.found;
      wrong += a.errors + b.errors + c.found + c.errors + d.found + d.errors;
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(found.load(), 2 * kKeys);
  EXPECT_EQ(wrong.load(), 0u);
}

}  // namespace
}  // namespace sstfilter::test_support
