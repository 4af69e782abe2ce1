// sstfilter.LevelAware through RocksDB's FilterPolicy interface, with
// crafted FilterBuildingContexts: which kind and bits/key each table's
// Finish writes, in the dynamic and static layouts, for flushes, and for the
// cases that fall back to uniform bits/key; its ids and bad values.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "rocksdb/table.h"
#include "rocksdb_test_support.h"
#include "sstfilter/blocked_bloom.h"
#include "sstfilter/cuckoo_filter.h"
#include "sstfilter/level_allocation.h"

namespace sstfilter::rocksdb_testing {
namespace {

constexpr size_t kKeys = 50000;

// What a built filter is: its kind, fingerprint width and bits/key.
struct Written {
  FilterKind kind{};
  uint32_t fingerprint_bits = 0;
  double bits_per_key = 0;
};

struct Context {
  int level = -1;
  bool bottommost = false;
  rdb::TableFileCreationReason reason = rdb::TableFileCreationReason::kMisc;
  rdb::CompactionStyle style = rdb::kCompactionStyleLevel;
  int num_levels = 7;
};

Context Compaction(int level, bool bottommost = false) {
  return {level, bottommost, rdb::TableFileCreationReason::kCompaction};
}
Context FlushContext() {
  return {0, false, rdb::TableFileCreationReason::kFlush};
}

Written Build(const rdb::FilterPolicy& policy, const Context& c) {
  rdb::BlockBasedTableOptions table;
  rdb::FilterBuildingContext context(table);
  context.level_at_creation = c.level;
  context.is_bottommost = c.bottommost;
  context.reason = c.reason;
  context.compaction_style = c.style;
  context.num_levels = c.num_levels;
  const BuiltFilter filter = BuildFilter(policy, Keys("k", kKeys), context);
  const std::string_view bytes = filter.bytes.ToStringView();
  Written w;
  uint8_t version;
  EXPECT_TRUE(PeekFormat(bytes, &w.kind, &version).ok());
  if (w.kind == FilterKind::kCuckoo) {
    CuckooView view;
    EXPECT_TRUE(CuckooView::Parse(bytes, &view).ok());
    w.fingerprint_bits = view.fingerprint_bits();
  }
  w.bits_per_key = static_cast<double>(bytes.size()) * 8 / kKeys;
  return w;
}

// The filter must be the one the allocation chose, its size that choice's
// bits/key (within the header and the rounding to whole lines or buckets,
// and a cuckoo build's possible 1% retry).
void ExpectBuilt(const Written& w, const FilterChoice& choice,
                 const std::string& what) {
  EXPECT_EQ(w.kind, choice.kind) << what;
  EXPECT_EQ(w.fingerprint_bits, choice.fingerprint_bits) << what;
  EXPECT_NEAR(w.bits_per_key, choice.bits_per_key,
              0.015 * choice.bits_per_key + 0.05)
      << what;
}

std::shared_ptr<const rdb::FilterPolicy> MustMake(const std::string& id) {
  std::shared_ptr<const rdb::FilterPolicy> policy;
  const rdb::Status s = MakePolicy(id, &policy);
  EXPECT_TRUE(s.ok()) << id << ": " << s.ToString();
  return policy;
}

LevelAllocation Allocation(double bits, double ratio, uint32_t levels) {
  LevelAllocation allocation;
  EXPECT_TRUE(AllocateLevelBits(bits, ratio, levels, &allocation).ok());
  return allocation;
}

TEST(LevelAwarePolicy, DynamicLayoutGivesEachLevelItsAllocation) {
  // num_levels 7, data on L4..L6 (the base level is L4): a tree of three
  // levels plus L0.
  const auto policy = MustMake("sstfilter.LevelAware:10");
  Build(*policy, Compaction(6, true));
  Build(*policy, Compaction(4));
  const LevelAllocation allocation = Allocation(10, 10, 4);
  ExpectBuilt(Build(*policy, Compaction(6, true)), allocation.levels[0], "L6");
  ExpectBuilt(Build(*policy, Compaction(5)), allocation.levels[1], "L5");
  ExpectBuilt(Build(*policy, Compaction(4)), allocation.levels[2], "L4");
  ExpectBuilt(Build(*policy, FlushContext()), allocation.levels[3], "flush");
  ExpectBuilt(Build(*policy, Compaction(0)), allocation.levels[3], "L0");
  // The T-shaped tree's filters take the average bits/key in all.
  double memory = 0;
  for (uint32_t i = 0; i < 4; ++i) {
    memory +=
        LevelShare(10, 4, i) * Build(*policy, Compaction(6 - i)).bits_per_key;
  }
  EXPECT_NEAR(memory, 10, 0.1);
}

TEST(LevelAwarePolicy, StaticLayoutCountsFromTheDeepestLevelSeen) {
  // num_levels 7 but data only on L1..L3 (level_compaction_dynamic_level_
  // bytes = false): L1 is two levels above the bottom, not five.
  const auto policy = MustMake("sstfilter.LevelAware:10:10");
  Build(*policy, Compaction(1, true));
  Build(*policy, Compaction(2, true));
  Build(*policy, Compaction(3, true));
  const LevelAllocation allocation = Allocation(10, 10, 4);
  ExpectBuilt(Build(*policy, Compaction(1)), allocation.levels[2], "L1");
  ExpectBuilt(Build(*policy, Compaction(3, true)), allocation.levels[0], "L3");
  ExpectBuilt(Build(*policy, FlushContext()), allocation.levels[3], "flush");
  // A non-bottommost output says data lies below it.
  Build(*policy, Compaction(3));
  ExpectBuilt(Build(*policy, Compaction(1)), Allocation(10, 10, 5).levels[3],
              "L1 once L4 holds data");
}

TEST(LevelAwarePolicy, MoreBitsPerKeyForEachLevelUpAndMostForL0) {
  const auto policy = MustMake("sstfilter.LevelAware:10");
  Build(*policy, Compaction(6, true));
  Build(*policy, Compaction(1));
  double below = 0;
  for (int level = 6; level >= 1; --level) {
    const Written w = Build(*policy, Compaction(level));
    EXPECT_GT(w.bits_per_key, below) << "L" << level;
    below = w.bits_per_key;
  }
  EXPECT_GT(Build(*policy, FlushContext()).bits_per_key, below);
}

TEST(LevelAwarePolicy, UniversalFifoAndNoLevelGetUniformBitsPerKey) {
  const auto policy = MustMake("sstfilter.LevelAware:10");
  Build(*policy, Compaction(6, true));
  Build(*policy, Compaction(2));
  const FilterChoice uniform = BestFilterFor(10);
  Context universal = Compaction(3);
  universal.style = rdb::kCompactionStyleUniversal;
  Context universal_flush = FlushContext();
  universal_flush.style = rdb::kCompactionStyleUniversal;
  Context fifo = FlushContext();
  fifo.style = rdb::kCompactionStyleFIFO;
  const Context sst_file_writer{-1, false, rdb::TableFileCreationReason::kMisc};
  const Context unknown_compaction = Compaction(-1);
  ExpectBuilt(Build(*policy, universal), uniform, "universal");
  ExpectBuilt(Build(*policy, universal_flush), uniform, "universal flush");
  ExpectBuilt(Build(*policy, fifo), uniform, "FIFO");
  ExpectBuilt(Build(*policy, sst_file_writer), uniform, "SstFileWriter");
  ExpectBuilt(Build(*policy, unknown_compaction), uniform, "level -1");
  // Default table options: no level known at all.
  const BuiltFilter filter = BuildFilter(*policy, Keys("k", kKeys));
  EXPECT_NEAR(static_cast<double>(filter.bytes.size()) * 8 / kKeys,
              uniform.bits_per_key, 0.05);
}

TEST(LevelAwarePolicy, BeforeAnyCompactionFlushesAreUniform) {
  const auto policy = MustMake("sstfilter.LevelAware:12");
  ExpectBuilt(Build(*policy, FlushContext()), BestFilterFor(12), "flush");
}

TEST(LevelAwarePolicy, EveryLevelsBitsPerKeyIsBounded) {
  // Contexts no tree has: a huge num_levels, the deepest level far away.
  const auto policy = MustMake("sstfilter.LevelAware:10:2");
  Context deep = Compaction(999, true);
  deep.num_levels = 1000;
  Build(*policy, deep);
  Build(*policy, Compaction(1));
  const double most = LevelAllocation::MaxBitsPerKey(10) + 0.05;
  for (int level : {0, 1, 2, 50, 998, 999}) {
    Context c = Compaction(level);
    c.num_levels = 1000;
    EXPECT_LE(Build(*policy, c).bits_per_key, most) << "L" << level;
  }
  EXPECT_LE(Build(*policy, FlushContext()).bits_per_key, most);
}

TEST(LevelAwarePolicy, BuildersFromManyThreadsNeverFail) {
  // The policy is shared by a column family's table builders: learning the
  // tree from several threads at once must be safe (run under TSan too).
  const auto policy = MustMake("sstfilter.LevelAware:10");
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        const Written w =
            Build(*policy, Compaction(1 + (t + i) % 6, i % 3 == 0));
        EXPECT_LE(w.bits_per_key, LevelAllocation::MaxBitsPerKey(10) + 0.05);
      }
    });
  }
  for (auto& thread : threads) thread.join();
}

TEST(LevelAwarePolicy, IdIsCanonicalAndRecreatesThePolicy) {
  const struct {
    const char* value;
    const char* id;
  } cases[] = {
      {"sstfilter.LevelAware:10", "sstfilter.LevelAware:10:10"},
      {"sstfilter.LevelAware:9.9:8.5", "sstfilter.LevelAware:9.9:8.5"},
      {"sstfilter.LevelAware:10.0000:4", "sstfilter.LevelAware:10:4"},
      {"sstfilter.LevelAware:1:100", "sstfilter.LevelAware:1:100"},
  };
  for (const auto& c : cases) {
    const auto policy = MustMake(c.value);
    ASSERT_NE(policy, nullptr) << c.value;
    EXPECT_STREQ(policy->Name(), "sstfilter.LevelAware");
    EXPECT_STREQ(policy->CompatibilityName(), kRocksdbFamilyCompatibilityName);
    EXPECT_EQ(policy->GetId(), c.id);
    EXPECT_EQ(MustMake(policy->GetId())->GetId(), policy->GetId());
  }
}

TEST(LevelAwarePolicy, BadValuesAreInvalidArgumentSayingWhy) {
  const struct {
    const char* value;
    const char* says;
  } bad[] = {
      {"sstfilter.LevelAware", "expected"},
      {"sstfilter.LevelAware:", "bits per key"},
      {"sstfilter.LevelAware:abc", "bits per key"},
      {"sstfilter.LevelAware:-1", "bits per key"},
      {"sstfilter.LevelAware:0.5", "bits per key"},
      {"sstfilter.LevelAware:100.5", "bits per key"},
      {"sstfilter.LevelAware:10:", "size ratio"},
      {"sstfilter.LevelAware:10:x", "size ratio"},
      {"sstfilter.LevelAware:10:-10", "size ratio"},
      {"sstfilter.LevelAware:10:1", "size ratio"},
      {"sstfilter.LevelAware:10:1000", "size ratio"},
      {"sstfilter.LevelAware:10:10:1", "expected"},
  };
  for (const auto& c : bad) {
    std::shared_ptr<const rdb::FilterPolicy> policy;
    const rdb::Status s = MakePolicy(c.value, &policy);
    EXPECT_TRUE(s.IsInvalidArgument()) << c.value << " -> " << s.ToString();
    EXPECT_NE(s.ToString().find(c.says), std::string::npos)
        << c.value << " -> " << s.ToString();
  }
}

}  // namespace
}  // namespace sstfilter::rocksdb_testing
