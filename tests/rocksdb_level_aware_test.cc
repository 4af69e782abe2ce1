// sstfilter.LevelAware through RocksDB's FilterPolicy interface, with
// crafted FilterBuildingContexts and, where a test says so, a DB state
// set up by hand as the listener would (WatchedDb): which kind and
// bits/key each table's Finish writes, for each of the three choices, in
// the dynamic and static layouts, for flushes, without the listener, and
// for the cases that fall back to uniform bits/key; what each choice's
// cost model gives; RocksDB's curves against measured FPR; what the
// readers learn; ids and bad values.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "block_index.h"
#include "job_handoff.h"
#include "level_allocation_support.h"
#include "level_aware_allocation.h"
#include "level_aware_builder.h"
#include "level_aware_tree.h"
#include "level_cost_model.h"
#include "memory_ledger.h"
#include "policies.h"
#include "rocksdb/table.h"
#include "rocksdb_test_support.h"
#include "sstfilter/block_classifier.h"
#include "sstfilter/blocked_bloom.h"
#include "sstfilter/cuckoo_filter.h"
#include "sstfilter/level_allocation.h"
#include "sstfilter/workload.h"

namespace sstfilter::test_support {
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
  std::string column_family;  // "" in every test that does not learn
};

Context MakeContext(int level, bool bottommost,
                    rdb::TableFileCreationReason reason) {
  Context context;
  context.level = level;
  context.bottommost = bottommost;
  context.reason = reason;
  return context;
}
Context Compaction(int level, bool bottommost = false) {
  return MakeContext(level, bottommost,
                     rdb::TableFileCreationReason::kCompaction);
}
Context FlushContext() {
  return MakeContext(0, false, rdb::TableFileCreationReason::kFlush);
}

// RocksDB's context for `c`, over `table`.
rdb::FilterBuildingContext ContextOf(const Context& c,
                                     const rdb::BlockBasedTableOptions& table) {
  rdb::FilterBuildingContext context(table);
  context.level_at_creation = c.level;
  context.is_bottommost = c.bottommost;
  context.reason = c.reason;
  context.compaction_style = c.style;
  context.num_levels = c.num_levels;
  context.column_family_name = c.column_family;
  return context;
}

Written Build(const rdb::FilterPolicy& policy, const Context& c) {
  rdb::BlockBasedTableOptions table;
  const BuiltFilter filter =
      BuildFilter(policy, Keys("k", kKeys), ContextOf(c, table));
  const std::string_view bytes = filter.bytes.ToStringView();
  Written w;
  uint8_t version;
  if (!PeekFormat(bytes, &w.kind, &version).ok()) {
    // RocksDB's own builder wrote it, or it is the block of a file without
    // a filter ("zero probes").
    w.kind = ReadBuiltinFormat(bytes).kind;
    EXPECT_TRUE(w.kind == FilterKind::kFastLocalBloom ||
                w.kind == FilterKind::kRibbon128 ||
                w.kind == FilterKind::kAlwaysTrue)
        << "neither ours nor FastLocalBloom nor Ribbon nor no filter";
  }
  if (w.kind == FilterKind::kCuckoo) {
    CuckooView view;
    EXPECT_TRUE(CuckooView::Parse(bytes, &view).ok());
    w.fingerprint_bits = view.fingerprint_bits();
  }
  w.bits_per_key = static_cast<double>(bytes.size()) * 8 / kKeys;
  return w;
}

// The context of a table of `level` in a leveled tree of `num_levels`: a
// flush at level 0, a compaction's output below, the deepest bottommost.
rdb::FilterBuildingContext TreeContext(const rdb::BlockBasedTableOptions& table,
                                       int level, int num_levels,
                                       const std::string& column_family = "") {
  rdb::FilterBuildingContext context(table);
  context.level_at_creation = level;
  context.is_bottommost = level == num_levels - 1;
  context.reason = level == 0 ? rdb::TableFileCreationReason::kFlush
                              : rdb::TableFileCreationReason::kCompaction;
  context.compaction_style = rdb::kCompactionStyleLevel;
  context.num_levels = num_levels;
  context.column_family_name = column_family;
  return context;
}

// The filter must be the one the allocation chose, its size that choice's
// bits/key (within the header and the rounding to whole lines or buckets,
// and a cuckoo build's possible 1% retry).
void ExpectBuilt(const Written& w, const FilterChoice& choice,
                 const std::string& what) {
  EXPECT_EQ(FilterKindName(w.kind), std::string(FilterKindName(choice.kind)))
      << what;
  EXPECT_EQ(w.fingerprint_bits, choice.fingerprint_bits) << what;
  // Ribbon's overhead depends a little on the number of keys (the model's
  // curve is sampled at 2^20).
  const double slack = choice.kind == FilterKind::kRibbon128 ? 0.03 : 0.015;
  EXPECT_NEAR(w.bits_per_key, choice.bits_per_key,
              slack * choice.bits_per_key + 0.05)
      << what;
}

std::shared_ptr<const rdb::FilterPolicy> MustMake(const std::string& id) {
  std::shared_ptr<const rdb::FilterPolicy> policy;
  const rdb::Status s = MakePolicy(id, &policy);
  EXPECT_TRUE(s.ok()) << id << ": " << s.ToString();
  return policy;
}

using rocksdb_plugin::ColumnFamilyTree;
using rocksdb_plugin::DbState;
using rocksdb_plugin::TreeFile;

// A DB as sstfilter.LevelAwareListener shows it to the policy, set up by
// hand: builders on this thread (whose contexts have no logger, as these
// tests' do) build for its column families' trees, and Keep links the
// table the last build finished to a file of the tree, as the listener
// does when RocksDB reports the file created. Files' filter sizes are
// unknown unless a test sets them (SetLiveBitsPerKey): the account then
// counts them at what the average owes, and corrects nothing.
//
// Under a memory limit the files' filters are counted until deleted
// (memory_ledger.h): Replacing makes the next builds a compaction of the
// file a Keep at that level replaces, whose filter they may take (as a
// real compaction's outputs take its inputs'), and Keep then records the
// new file's filter at the bits/key its block has.
class WatchedDb {
 public:
  WatchedDb() : db_(std::make_shared<DbState>(nullptr, "test")) { Enter(); }
  ~WatchedDb() { rocksdb_plugin::EndJob(); }
  // BuildTree's builds replace the files (Replacing, Keep with their
  // filters), from a tree the rule built (SetLiveBitsByRule): a memory
  // limit's tests.
  bool replace_on_build = false;
  // The column family as the policy's builders see it.
  rocksdb_plugin::JobView View(const std::string& name) {
    return {db_->ColumnFamily(name), db_, -1};
  }
  // Builders on this thread build for this DB (each thread must enter).
  void Enter() const { rocksdb_plugin::BeginJob({{db_}, -1, 0}); }
  ColumnFamilyTree& cf(const std::string& name) {
    return *db_->ColumnFamily(name);
  }
  // `keys[level]` keys at each level that has some, in files of about
  // kKeys (as the tests' tables hold: RocksDB sizes Ribbon by them); L0 at
  // one flush of keys[0].
  void SetTree(const std::string& name, const std::vector<int64_t>& keys) {
    std::vector<TreeFile> files;
    files_at_[name].clear();
    for (size_t level = 0; level < keys.size(); ++level) {
      if (keys[level] <= 0) continue;
      const int64_t n =
          level == 0 ? 1
                     : std::max<int64_t>(1, (keys[level] + kKeys / 2) /
                                                static_cast<int64_t>(kKeys));
      for (int64_t f = 0; f < n; ++f) {
        files.push_back(
            {NextNumber(), static_cast<int>(level), keys[level] / n, -1, -1});
        files_at_[name][static_cast<int>(level)].push_back(files.back().number);
      }
    }
    cf(name).Replace(files);
    cf(name).SetFlushKeys(keys.empty() ? 0 : keys[0]);
  }
  // A T-shaped tree (T = 10) with levels from `shallowest` to `deepest`
  // and L0, of 10^7 keys: the shares LevelShare gives.
  void SetTShapedTree(const std::string& name, int shallowest, int deepest) {
    const uint32_t n = static_cast<uint32_t>(deepest - shallowest + 2);
    std::vector<int64_t> keys(static_cast<size_t>(deepest) + 1, 0);
    for (uint32_t i = 0; i < n; ++i) {
      const int level = i + 1 == n ? 0 : deepest - static_cast<int>(i);
      keys[static_cast<size_t>(level)] =
          std::llround(1e7 * LevelShare(10, n, i));
    }
    SetTree(name, keys);
  }
  // Every file set up by SetTree gets a filter of `bits_per_key`, as if
  // its size had been read from its properties.
  void SetLiveBitsPerKey(const std::string& name, double bits_per_key) {
    for (const auto& [level, numbers] : files_at_[name]) {
      const rocksdb_plugin::LevelTotals totals = cf(name).Totals()[level];
      const int64_t keys = totals.keys / std::max<int64_t>(totals.files, 1);
      for (uint64_t number : numbers) {
        cf(name).SetProperties(number, keys,
                               std::llround(keys * bits_per_key / 8));
      }
    }
  }
  // The files SetTree put at `level` get filters of `bits_per_key`.
  void SetLiveBitsPerKeyAt(const std::string& name, int level,
                           double bits_per_key) {
    const rocksdb_plugin::LevelTotals totals = cf(name).Totals()[level];
    const int64_t keys = totals.keys / std::max<int64_t>(totals.files, 1);
    for (uint64_t number : files_at_[name][level]) {
      cf(name).SetProperties(number, keys,
                             std::llround(keys * bits_per_key / 8));
    }
  }
  // Every file set up by SetTree gets the filter the policy's rule gives
  // its level now (times `scale`): a tree the rule built, holding what the
  // rule spends.
  void SetLiveBitsByRule(const rdb::FilterPolicy& policy,
                         const std::string& name, double scale = 1) {
    const auto* allocator = rocksdb_plugin::LevelAwareAllocatorOf(policy);
    ASSERT_NE(allocator, nullptr);
    std::map<int, double> bits;
    for (const auto& [level, numbers] : files_at_[name]) {
      bits[level] = allocator->ChoiceFor(View(name), level).bits_per_key;
    }
    for (const auto& [level, b] : bits) {
      SetLiveBitsPerKeyAt(name, level, b * scale);
    }
  }
  // The next builds on this thread are a compaction of the file a Keep at
  // `level` of `name` replaces (ending the one Replacing began before).
  void Replacing(const std::string& name, int level) {
    EndReplacing(/*done=*/false);
    std::vector<uint64_t>& numbers = files_at_[name][level];
    std::vector<TreeFile> inputs;
    if (!numbers.empty()) inputs.push_back({numbers.front(), level, 0});
    replacing_ = {name, ++last_job_};
    cf(name).BeginCompaction(replacing_.second, inputs, level);
    rocksdb_plugin::BeginJob({{db_}, replacing_.second, level});
  }
  // The table this thread's last build finished becomes the file at
  // `level` (the one there before goes), with the level's keys per file
  // and, given `block_bytes`, the filter of the block's bits/key (else
  // its filter size unknown).
  void Keep(const std::string& name, int level, size_t block_bytes = 0) {
    const auto record = rocksdb_plugin::TakeBuiltTable();
    ASSERT_NE(record, nullptr) << "no table was built to keep";
    std::vector<uint64_t>& numbers = files_at_[name][level];
    if (numbers.empty()) numbers.push_back(0);
    uint64_t& number = numbers.front();
    const rocksdb_plugin::TreeTotals totals = cf(name).Totals();
    const int64_t files =
        totals[level].files + (replacing_.first == name && number != 0 ? 1 : 0);
    const int64_t keys =
        files > 0 ? (totals[level].keys + totals[level].incoming_keys) / files
                  : record->keys;
    const int64_t filter_bytes =
        block_bytes > 0 && record->keys > 0
            ? std::llround(static_cast<double>(block_bytes) * keys /
                           static_cast<double>(record->keys))
            : -1;
    const uint64_t old = number;
    number = NextNumber();
    cf(name).AddFile(
        {number, level, keys, filter_bytes < 0 ? -1 : keys, filter_bytes},
        record, replacing_.first == name ? replacing_.second : -1);
    EndReplacing(/*done=*/true);
    cf(name).RemoveFile(old);
    rocksdb_plugin::ReleaseReservations();
  }

 private:
  uint64_t NextNumber() { return ++last_number_; }
  void EndReplacing(bool done) {
    if (replacing_.second == 0) return;
    cf(replacing_.first).EndCompaction(replacing_.second, done);
    replacing_ = {};
    Enter();
  }
  std::shared_ptr<DbState> db_;
  std::pair<std::string, int> replacing_;  // the compaction Replacing began
  int last_job_ = 1000;
  std::map<std::string, std::map<int, std::vector<uint64_t>>> files_at_;
  uint64_t last_number_ = 0;
};

// The record the block index finds for `block`, or null.
std::shared_ptr<rocksdb_plugin::TableRecord> Indexed(const BuiltFilter& block) {
  return rocksdb_plugin::BlockIndex::Get().Find(block.bytes.ToStringView());
}

using rocksdb_plugin::CostModelFor;
using rocksdb_plugin::LevelAwareChoice;
using rocksdb_plugin::LevelAwareChoiceName;

LevelAllocation Allocation(
    double bits, double ratio, uint32_t levels,
    LevelAwareChoice choice = LevelAwareChoice::kDefault) {
  LevelAllocation allocation;
  EXPECT_TRUE(AllocateLevels(CostModelFor(choice, bits, ratio, levels), bits,
                             ratio, levels, &allocation)
                  .ok());
  return allocation;
}

constexpr LevelAwareChoice kChoices[] = {LevelAwareChoice::kDefault,
                                         LevelAwareChoice::kCpuLean,
                                         LevelAwareChoice::kPortable};

// "sstfilter.LevelAware:<bits>:10:<choice>".
std::string Id(double bits, LevelAwareChoice choice) {
  char id[64];
  std::snprintf(id, sizeof(id), "sstfilter.LevelAware:%g:10:%s", bits,
                LevelAwareChoiceName(choice));
  return id;
}

class EachChoice : public ::testing::TestWithParam<LevelAwareChoice> {};
INSTANTIATE_TEST_SUITE_P(
    LevelAwarePolicy, EachChoice, ::testing::ValuesIn(kChoices),
    [](const ::testing::TestParamInfo<LevelAwareChoice>& info) {
      return std::string(LevelAwareChoiceName(info.param));
    });

TEST_P(EachChoice, DynamicLayoutGivesEachLevelItsAllocation) {
  // num_levels 7, data on L4..L6 (the base level is L4): a tree of three
  // levels plus L0, as the listener shows it.
  const auto policy = MustMake(Id(10, GetParam()));
  WatchedDb db;
  db.SetTShapedTree("", 4, 6);
  const LevelAllocation allocation = Allocation(10, 10, 4, GetParam());
  ExpectBuilt(Build(*policy, Compaction(6, true)), allocation.levels[0], "L6");
  ExpectBuilt(Build(*policy, Compaction(5)), allocation.levels[1], "L5");
  ExpectBuilt(Build(*policy, Compaction(4)), allocation.levels[2], "L4");
  ExpectBuilt(Build(*policy, FlushContext()), allocation.levels[3], "flush");
  ExpectBuilt(Build(*policy, Compaction(0)), allocation.levels[3], "L0");
  // The T-shaped tree's filters take the average bits/key in all.
  const Context tree[] = {Compaction(6, true), Compaction(5), Compaction(4),
                          FlushContext()};
  double memory = 0;
  for (uint32_t i = 0; i < 4; ++i) {
    memory += LevelShare(10, 4, i) * Build(*policy, tree[i]).bits_per_key;
  }
  // Within 2%: RocksDB's Ribbon sizes a filter for its FPR, and at 5 * 10^4
  // keys that takes about 1.5% fewer bits/key than the model's 2^20.
  EXPECT_NEAR(memory, 10, 0.2);
}

TEST_P(EachChoice, StaticLayoutTakesTheListenersLevels) {
  // num_levels 7 but data only on L1..L3 (level_compaction_dynamic_level_
  // bytes = false): L1 is two levels above the bottom, not five.
  const auto policy = MustMake(Id(10, GetParam()));
  WatchedDb db;
  db.SetTShapedTree("", 1, 3);
  const LevelAllocation allocation = Allocation(10, 10, 4, GetParam());
  ExpectBuilt(Build(*policy, Compaction(1)), allocation.levels[2], "L1");
  ExpectBuilt(Build(*policy, Compaction(3, true)), allocation.levels[0], "L3");
  ExpectBuilt(Build(*policy, FlushContext()), allocation.levels[3], "flush");
  // Once L4 holds data, L1 is three levels above the bottom.
  db.SetTShapedTree("", 1, 4);
  ExpectBuilt(Build(*policy, Compaction(1)),
              Allocation(10, 10, 5, GetParam()).levels[3],
              "L1 once L4 holds data");
}

TEST_P(EachChoice, WithoutTheListenerLevelsAreTApartDownToTheContextsBottom) {
  // No listener: a table knows only its own context. The bottom is its own
  // level if it is bottommost, else num_levels - 1 (where the dynamic
  // layout keeps it); levels 1 to the bottom, and L0, T apart.
  const auto policy = MustMake(Id(10, GetParam()));
  const LevelAllocation seven = Allocation(10, 10, 7, GetParam());
  ExpectBuilt(Build(*policy, Compaction(6, true)), seven.levels[0], "L6");
  ExpectBuilt(Build(*policy, Compaction(4)), seven.levels[2], "L4");
  ExpectBuilt(Build(*policy, FlushContext()), seven.levels[6], "flush");
  ExpectBuilt(Build(*policy, Compaction(3, true)),
              Allocation(10, 10, 4, GetParam()).levels[0],
              "L3 bottommost in the static layout");
}

TEST_P(EachChoice, UniversalFifoAndNoLevelGetUniformBitsPerKey) {
  const auto policy = MustMake(Id(10, GetParam()));
  Build(*policy, Compaction(6, true));
  Build(*policy, Compaction(2));
  const FilterChoice uniform = Allocation(10, 10, 1, GetParam()).levels[0];
  Context universal = Compaction(3);
  universal.style = rdb::kCompactionStyleUniversal;
  Context universal_flush = FlushContext();
  universal_flush.style = rdb::kCompactionStyleUniversal;
  Context fifo = FlushContext();
  fifo.style = rdb::kCompactionStyleFIFO;
  const Context sst_file_writer =
      MakeContext(-1, false, rdb::TableFileCreationReason::kMisc);
  const Context unknown_compaction = Compaction(-1);
  ExpectBuilt(Build(*policy, universal), uniform, "universal");
  ExpectBuilt(Build(*policy, universal_flush), uniform, "universal flush");
  ExpectBuilt(Build(*policy, fifo), uniform, "FIFO");
  ExpectBuilt(Build(*policy, sst_file_writer), uniform, "SstFileWriter");
  ExpectBuilt(Build(*policy, unknown_compaction), uniform, "level -1");
  // Default table options: no level known at all.
  const BuiltFilter filter = BuildFilter(*policy, Keys("k", kKeys));
  EXPECT_NEAR(static_cast<double>(filter.bytes.size()) * 8 / kKeys,
              uniform.bits_per_key, 0.03 * uniform.bits_per_key + 0.05);
}

TEST_P(EachChoice, EveryLevelsFilterReadsBackWithNoFalseNegative) {
  // Through the plugin's reader and, for RocksDB's kinds, RocksDB's own
  // (what a rollback to bloomfilter or ribbonfilter reads).
  const auto policy = MustMake(Id(10, GetParam()));
  const auto rocksdb_reader = MustMake("bloomfilter:10");
  Build(*policy, Compaction(6, true));
  Build(*policy, Compaction(3));
  const std::vector<std::string> keys = Keys("k", 20000);
  const std::vector<std::string> absent = Keys("absent", 20000);
  for (int level = 0; level <= 6; ++level) {
    rdb::BlockBasedTableOptions table;
    const BuiltFilter filter =
        BuildFilter(*policy, keys, TreeContext(table, level, 7));
    const FilterKind kind = ReadBuiltinFormat(filter.bytes.ToStringView()).kind;
    const bool builtin =
        kind == FilterKind::kFastLocalBloom || kind == FilterKind::kRibbon128;
    if (GetParam() == LevelAwareChoice::kPortable) {
      EXPECT_TRUE(builtin) << "L" << level << ": not one of RocksDB's formats";
    }
    std::vector<const rdb::FilterPolicy*> readers = {policy.get()};
    if (builtin) readers.push_back(rocksdb_reader.get());
    for (const rdb::FilterPolicy* reader : readers) {
      std::unique_ptr<rdb::FilterBitsReader> r(
          reader->GetFilterBitsReader(filter.bytes));
      for (const std::string& key : keys) {
        ASSERT_TRUE(r->MayMatch(key)) << "L" << level << " " << key;
      }
      size_t positives = 0;
      for (const std::string& key : absent) positives += r->MayMatch(key);
      EXPECT_LT(positives, absent.size() / 20) << "L" << level;
    }
  }
}

// What each choice's cost model gives on T-shaped trees of three to five
// levels plus L0, against the references at the same memory: the sums of
// model FPRs (an absent Get's wasted reads when every level is consulted)
// and the build CPU under the same constants.
double SumOfFprs(const std::vector<FilterChoice>& levels) {
  double sum = 0;
  for (const FilterChoice& level : levels) sum += level.fpr;
  return sum;
}

// Every level at `bits` of `kind` (RocksDB's ribbonfilter: Bloom at L0).
std::vector<FilterChoice> Uniform(FilterKind kind, double bits, uint32_t levels,
                                  bool bloom_at_top) {
  auto at = [&](FilterKind k) {
    FilterChoice best;
    for (const FilterChoice& c : rocksdb_plugin::RocksdbKindPoints(k)) {
      if (c.bits_per_key <= bits + 1e-9) best = c;
    }
    return best;
  };
  std::vector<FilterChoice> v(levels, at(kind));
  if (bloom_at_top) v.back() = at(FilterKind::kFastLocalBloom);
  return v;
}

TEST(LevelAwareCostModel, EachChoiceBeatsItsReferenceWithinItsCpuCap) {
  for (uint32_t levels : {4u, 5u, 6u}) {
    SCOPED_TRACE(std::to_string(levels) + " levels");
    const auto bloom = Uniform(FilterKind::kFastLocalBloom, 10, levels, false);
    const auto ribbon = Uniform(FilterKind::kRibbon128, 10, levels, true);
    const LevelAllocation best = Allocation(10, 10, levels);
    const LevelAllocation lean =
        Allocation(10, 10, levels, LevelAwareChoice::kCpuLean);
    const LevelAllocation portable =
        Allocation(10, 10, levels, LevelAwareChoice::kPortable);
    // The targets, as the model sees them.
    EXPECT_LE(SumOfFprs(best.levels), 0.5 * SumOfFprs(ribbon));
    EXPECT_LE(SumOfFprs(best.levels), 0.07 * SumOfFprs(bloom));
    EXPECT_LE(SumOfFprs(lean.levels), 0.5 * SumOfFprs(bloom));
    EXPECT_LE(SumOfFprs(portable.levels), 0.6 * SumOfFprs(ribbon));
    for (LevelAwareChoice choice : kChoices) {
      const LevelCostModel model = CostModelFor(choice, 10, 10, levels);
      const LevelAllocation a = Allocation(10, 10, levels, choice);
      EXPECT_LE(a.build_ns, model.max_build_ns * (1 + 1e-9))
          << LevelAwareChoiceName(choice);
      EXPECT_NEAR(a.build_ns, TreeBuildNs(model, a.levels, 10), 1e-6);
      double memory = 0;
      for (uint32_t i = 0; i < levels; ++i) {
        memory += LevelShare(10, levels, i) * a.levels[i].bits_per_key;
        if (choice == LevelAwareChoice::kCpuLean) {
          EXPECT_NE(a.levels[i].kind, FilterKind::kRibbon128);
        }
        if (choice == LevelAwareChoice::kPortable) {
          EXPECT_TRUE(a.levels[i].kind == FilterKind::kRibbon128 ||
                      a.levels[i].kind == FilterKind::kFastLocalBloom);
        }
      }
      EXPECT_LE(memory, 10 * 1.0001) << LevelAwareChoiceName(choice);
      EXPECT_GE(memory, 10 * 0.99) << LevelAwareChoiceName(choice);
    }
    // The cap of cpu_lean is 1.2x uniform bloomfilter's build CPU.
    double bloom_build = 0;
    const LevelCostModel lean_model =
        CostModelFor(LevelAwareChoice::kCpuLean, 10, 10, levels);
    bloom_build = TreeBuildNs(lean_model, bloom, 10);
    // (The reference is at exactly 10 bits/key; `bloom` at the grid's
    // nearest point below it.)
    EXPECT_NEAR(lean_model.max_build_ns, 1.2 * bloom_build, 0.01 * bloom_build);
  }
}

// RocksDB's curves come from RocksDB's own estimates; they must hold
// against measurement, or the allocation would trade on wrong numbers.
TEST(LevelAwareCostModel, RocksdbCurvesAgreeWithMeasuredFpr) {
  const std::vector<std::string> keys = Keys("k", 100000);
  const std::vector<std::string> absent = Keys("absent", 400000);
  for (FilterKind kind :
       {FilterKind::kFastLocalBloom, FilterKind::kRibbon128}) {
    for (double bits : {6.0, 10.0, 14.0}) {
      FilterChoice c;
      for (const FilterChoice& p : rocksdb_plugin::RocksdbKindPoints(kind)) {
        if (p.bits_per_key <= bits) c = p;
      }
      SCOPED_TRACE(std::string(FilterKindName(kind)) + " at " +
                   std::to_string(c.bits_per_key) + " bits/key");
      const auto policy = rocksdb_plugin::RocksdbPolicyFor(c);
      const BuiltFilter filter = BuildFilter(*policy, keys);
      EXPECT_NEAR(static_cast<double>(filter.bytes.size()) * 8 / keys.size(),
                  c.bits_per_key, 0.03 * c.bits_per_key + 0.05);
      std::unique_ptr<rdb::FilterBitsReader> r(
          policy->GetFilterBitsReader(filter.bytes));
      size_t positives = 0;
      for (const std::string& key : absent) positives += r->MayMatch(key);
      const double measured = static_cast<double>(positives) / absent.size();
      // Within 20% or 3 standard deviations of the count.
      const double sd = std::sqrt(c.fpr * absent.size()) / absent.size();
      EXPECT_NEAR(measured, c.fpr, std::max(0.2 * c.fpr, 3 * sd));
    }
  }
}

TEST_P(EachChoice, BeforeAnyCompactionFlushesAreUniform) {
  const auto policy = MustMake(Id(12, GetParam()));
  WatchedDb db;
  db.SetTree("", {});
  ExpectBuilt(Build(*policy, FlushContext()),
              Allocation(12, 10, 1, GetParam()).levels[0], "flush");
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
  // The policy is shared by a column family's table builders, with the
  // listener's DB and without: allocating from several threads at once
  // must be safe (run under TSan too).
  const auto policy = MustMake("sstfilter.LevelAware:10");
  WatchedDb db;
  db.SetTShapedTree("", 2, 6);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      if (t % 2 == 0) db.Enter();
      for (int i = 0; i < 20; ++i) {
        const Written w =
            Build(*policy, Compaction(1 + (t + i) % 6, i % 3 == 0));
        EXPECT_LE(w.bits_per_key, LevelAllocation::MaxBitsPerKey(10) + 0.05);
      }
      rocksdb_plugin::EndJob();
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
      {"sstfilter.LevelAware:10:default", "sstfilter.LevelAware:10:10"},
      {"sstfilter.LevelAware:10:10:default", "sstfilter.LevelAware:10:10"},
      {"sstfilter.LevelAware:10:cpu_lean",
       "sstfilter.LevelAware:10:10:cpu_lean"},
      {"sstfilter.LevelAware:9.5:8:portable",
       "sstfilter.LevelAware:9.5:8:portable"},
      {"sstfilter.LevelAware:10:hits=0.9",
       "sstfilter.LevelAware:10:10:hits=0.9"},
      {"sstfilter.LevelAware:10:hits=0", "sstfilter.LevelAware:10:10"},
      {"sstfilter.LevelAware:10:learn=true", "sstfilter.LevelAware:10:10"},
      {"sstfilter.LevelAware:10:4:portable:learn=false:hits=0.99",
       "sstfilter.LevelAware:10:4:portable:hits=0.99:learn=false"},
      {"sstfilter.LevelAware:10:memory_limit=512M",
       "sstfilter.LevelAware:10:10:memory_limit=512M"},
      {"sstfilter.LevelAware:10:memory_limit=1024m",
       "sstfilter.LevelAware:10:10:memory_limit=1G"},
      {"sstfilter.LevelAware:10:memory_limit=1000",
       "sstfilter.LevelAware:10:10:memory_limit=1000"},
      {"sstfilter.LevelAware:8:memory_limit=3k:learn=false",
       "sstfilter.LevelAware:8:10:learn=false:memory_limit=3K"},
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
      {"sstfilter.LevelAware:10:10:1", "choice"},
      {"sstfilter.LevelAware:10:10:fast", "choice"},
      {"sstfilter.LevelAware:10:portable:10", "expected"},
      {"sstfilter.LevelAware:10:10:portable:x", "expected"},
      {"sstfilter.LevelAware:10:hits=1", "hits"},
      {"sstfilter.LevelAware:10:hits=-0.1", "hits"},
      {"sstfilter.LevelAware:10:hits=most", "hits"},
      {"sstfilter.LevelAware:10:learn=yes", "learn"},
      {"sstfilter.LevelAware:10:speed=fast", "unknown field"},
      {"sstfilter.LevelAware:10:hits=0.9:10", "follows a named field"},
      {"sstfilter.LevelAware:10:memory_limit=0", "memory_limit"},
      {"sstfilter.LevelAware:10:memory_limit=-1G", "memory_limit"},
      {"sstfilter.LevelAware:10:memory_limit=12X", "memory_limit"},
      {"sstfilter.LevelAware:10:memory_limit=", "memory_limit"},
      {"sstfilter.LevelAware:10:memory_limit=1.5G", "memory_limit"},
      {"sstfilter.LevelAware:10:memory_limit=99999999999999T", "memory_limit"},
  };
  for (const auto& c : bad) {
    std::shared_ptr<const rdb::FilterPolicy> policy;
    const rdb::Status s = MakePolicy(c.value, &policy);
    EXPECT_TRUE(s.IsInvalidArgument()) << c.value << " -> " << s.ToString();
    EXPECT_NE(s.ToString().find(c.says), std::string::npos)
        << c.value << " -> " << s.ToString();
  }
}

// The workload option: with 90% of Gets finding their key, the bottom
// level's filter serves only the absent ones: it gets a higher FPR, the
// levels above lower ones (and, within the CPU cap, the bottom may turn to
// a kind that builds faster). learn=false keeps the policy the model.
TEST(LevelAwarePolicy, HitsGiveTheBottomLevelAHigherFprAndTheLevelsAboveLower) {
  LevelAllocation absent, hits;
  const LevelCostModel model =
      CostModelFor(LevelAwareChoice::kDefault, 10, 10, 4);
  ASSERT_TRUE(AllocateTree(model, 10, TShapedLoads(10, 4, 0), &absent).ok());
  ASSERT_TRUE(AllocateTree(model, 10, TShapedLoads(10, 4, 0.9), &hits).ok());
  // The bottom holds 90% of the entries: a little of its memory buys the
  // levels above a lot (L0 is held by the cap of 2.5x the average).
  EXPECT_GT(hits.levels[0].fpr, 1.1 * absent.levels[0].fpr);
  for (size_t i = 1; i < 3; ++i) {
    EXPECT_LT(hits.levels[i].fpr, absent.levels[i].fpr) << "level " << i;
  }
  const std::vector<LevelLoad> loads = TShapedLoads(10, 4, 0.9);
  auto wasted = [&loads](const LevelAllocation& a) {
    double sum = 0;
    for (size_t i = 0; i < loads.size(); ++i) {
      sum += loads[i].absent_probes * a.levels[i].fpr;
    }
    return sum;
  };
  EXPECT_LT(wasted(hits), 0.8 * wasted(absent));
  const auto policy = MustMake("sstfilter.LevelAware:10:hits=0.9:learn=false");
  WatchedDb db;
  db.SetTShapedTree("", 4, 6);
  ExpectBuilt(Build(*policy, Compaction(6, true)), hits.levels[0], "L6");
  ExpectBuilt(Build(*policy, Compaction(5)), hits.levels[1], "L5");
  ExpectBuilt(Build(*policy, Compaction(4)), hits.levels[2], "L4");
  ExpectBuilt(Build(*policy, FlushContext()), hits.levels[3], "flush");
}

// Builds the L0..L3 tables of `column_family` (num_levels 4, dynamic
// layout, a T-shaped tree as the listener shows it), each kept as its
// level's file, and returns their blocks, bottom first.
std::vector<BuiltFilter> BuildTree(const rdb::FilterPolicy& policy,
                                   WatchedDb& db,
                                   const std::string& column_family,
                                   const std::vector<std::string>& keys) {
  if (db.cf(column_family).Totals()[3].files == 0) {
    db.SetTShapedTree(column_family, 1, 3);
    if (db.replace_on_build) db.SetLiveBitsByRule(policy, column_family);
  }
  std::vector<BuiltFilter> blocks;
  rdb::BlockBasedTableOptions table;
  for (int level = 3; level >= 0; --level) {
    if (db.replace_on_build) db.Replacing(column_family, level);
    blocks.push_back(
        BuildFilter(policy, keys, TreeContext(table, level, 4, column_family)));
    db.Keep(column_family, level,
            db.replace_on_build ? blocks.back().bytes.size() : 0);
  }
  return blocks;
}

// Probes `reader` with `keys` until `probes` probes were made; counts the
// keys of `present` it answered "no" for (false negatives).
uint64_t Probe(rdb::FilterBitsReader& reader,
               const std::vector<std::string>& keys, uint64_t probes,
               bool present) {
  uint64_t false_negatives = 0;
  for (uint64_t i = 0; i < probes; ++i) {
    const bool may_match = reader.MayMatch(keys[i % keys.size()]);
    if (present && !may_match) ++false_negatives;
  }
  return false_negatives;
}

// Bits per key of a block built over `keys`.
double BitsPerKey(const BuiltFilter& block,
                  const std::vector<std::string>& keys) {
  return block.bytes.size() * 8.0 / static_cast<double>(keys.size());
}

// Keys of `keys` that some block's reader answers "no" for (each block was
// built over all of them): never any.
uint64_t FalseNegatives(const rdb::FilterPolicy& policy,
                        const std::vector<BuiltFilter>& blocks,
                        const std::vector<std::string>& keys) {
  uint64_t false_negatives = 0;
  for (const BuiltFilter& block : blocks) {
    std::unique_ptr<rdb::FilterBitsReader> reader(
        policy.GetFilterBitsReader(block.bytes));
    false_negatives += Probe(*reader, keys, keys.size(), true);
  }
  return false_negatives;
}

// Probes each of `blocks`' readers with `probe_level(level, reader)` (index
// 0 the bottom, as BuildTree returns them), then builds the tree again: the
// build refreshes what was learned from them and allocates with it.
template <typename ProbeLevel>
std::vector<BuiltFilter> RebuildAfterProbes(
    const rdb::FilterPolicy& policy, WatchedDb& db,
    const std::string& column_family, const std::vector<std::string>& keys,
    const std::vector<BuiltFilter>& blocks, ProbeLevel probe_level) {
  std::vector<std::unique_ptr<rdb::FilterBitsReader>> readers;
  for (const BuiltFilter& block : blocks) {
    readers.emplace_back(policy.GetFilterBitsReader(block.bytes));
  }
  for (size_t level = 0; level < readers.size(); ++level) {
    probe_level(level, *readers[level]);
  }
  return BuildTree(policy, db, column_family, keys);
}

// Enough probes for a few refreshes of what is learned.
constexpr uint64_t kLearningProbes =
    uint64_t{3} * LevelWorkload::kRefreshSamples * LevelWorkload::kSampleEvery;

// Learning: every Get finds its key at the bottom (L3), so absent probes
// reach only L2, L1 and L0, and the readers see it. The next bottom table
// gets the smallest filter, the levels above more than the model gives;
// after Forget, the model again. No reader ever answers "no" for a key its
// table holds.
TEST(LevelAwarePolicy, LearnsWhereItsReadersProbesGo) {
  const auto policy = MustMake("sstfilter.LevelAware:10");
  WatchedDb db;
  const std::string cf = "learns-where-probes-go";
  const auto keys = Keys("k", 20000);
  const auto absent = Keys("absent", 20000);
  std::vector<BuiltFilter> blocks = BuildTree(*policy, db, cf, keys);
  const double model_bottom_bits = BitsPerKey(blocks[0], keys);
  const double model_l2_bits = BitsPerKey(blocks[1], keys);
  blocks =
      RebuildAfterProbes(*policy, db, cf, keys, blocks,
                         [&](size_t level, rdb::FilterBitsReader& reader) {
                           // Hits at L3, absent keys above.
                           EXPECT_EQ(Probe(reader, level == 0 ? keys : absent,
                                           kLearningProbes, level == 0),
                                     0u);
                         });
  const double learned_bottom_bits = BitsPerKey(blocks[0], keys);
  const double learned_l2_bits = BitsPerKey(blocks[1], keys);
  EXPECT_LT(learned_bottom_bits, 0.5 * model_bottom_bits);
  EXPECT_GT(learned_l2_bits, model_l2_bits);
  EXPECT_EQ(FalseNegatives(*policy, blocks, keys), 0u);
  // Dropping what was learned costs nothing but the learning.
  db.cf(cf).workload().Forget();
  blocks = BuildTree(*policy, db, cf, keys);
  EXPECT_NEAR(BitsPerKey(blocks[0], keys), model_bottom_bits,
              0.01 * model_bottom_bits);
  EXPECT_EQ(FalseNegatives(*policy, blocks, keys), 0u);
}

// Levels get bits by Monkey's rule over their measured probes, as
// measured (each level's sampled file here stands for its level: its
// probes are scaled by the level's keys over the file's). L2 probed per key
// a sixteenth as often as the bottom gets fewer bits per key than it; ten
// times as often, more.
TEST(LevelAwarePolicy, LevelsGetBitsByTheirMeasuredProbes) {
  const auto policy = MustMake("sstfilter.LevelAware:10");
  const auto keys = Keys("k", 20000);
  const auto absent = Keys("absent", 20000);
  auto bits_after = [&](const std::string& cf, uint64_t l2_probes) {
    WatchedDb db;
    const std::vector<BuiltFilter> blocks = RebuildAfterProbes(
        *policy, db, cf, keys, BuildTree(*policy, db, cf, keys),
        [&](size_t level, rdb::FilterBitsReader& reader) {
          Probe(reader, absent, level == 1 ? l2_probes : kLearningProbes / 4,
                false);
        });
    EXPECT_EQ(FalseNegatives(*policy, blocks, keys), 0u);
    return std::make_pair(BitsPerKey(blocks[0], keys),
                          BitsPerKey(blocks[1], keys));
  };
  const auto [bottom_less, l2_less] = bits_after("less", kLearningProbes / 64);
  EXPECT_LT(l2_less, bottom_less - 1);
  const auto [bottom_more, l2_more] =
      bits_after("more", kLearningProbes / 4 * 10);
  EXPECT_GT(l2_more, bottom_more + 2);
}

// Each column family learns its own, though they share the policy object:
// another column family's probes leave this one's tables at the model.
TEST(LevelAwarePolicy, EachColumnFamilyLearnsItsOwn) {
  const auto policy = MustMake("sstfilter.LevelAware:10");
  WatchedDb db;
  // (Other keys in each: a block is found by its bytes.)
  const auto busy_keys = Keys("busy", 20000);
  const auto keys = Keys("quiet", 20000);
  std::vector<BuiltFilter> busy = BuildTree(*policy, db, "busy", busy_keys);
  const std::vector<BuiltFilter> quiet = BuildTree(*policy, db, "quiet", keys);
  {
    std::unique_ptr<rdb::FilterBitsReader> bottom(
        policy->GetFilterBitsReader(busy[0].bytes));
    Probe(*bottom, busy_keys,
          uint64_t{2} * LevelWorkload::kRefreshSamples *
              LevelWorkload::kSampleEvery,
          true);
  }
  BuildTree(*policy, db, "busy", busy_keys);
  const std::vector<BuiltFilter> quiet_again =
      BuildTree(*policy, db, "quiet", keys);
  for (size_t i = 0; i < quiet.size(); ++i) {
    EXPECT_EQ(quiet_again[i].bytes.size(), quiet[i].bytes.size());
  }
  EXPECT_TRUE(db.cf("busy").workload().LearnedLevels()[3]);
  EXPECT_FALSE(db.cf("quiet").workload().LearnedLevels()[3]);
}

// Every Get finds its key at the bottom (L3): hits there, absent keys
// above, `probes` at each level, through readers made `readers` times per
// level (a block cache evicting and loading filters makes many).
void ProbeAsHitsAtTheBottom(const rdb::FilterPolicy& policy,
                            const std::vector<BuiltFilter>& blocks,
                            const std::vector<std::string>& keys,
                            uint64_t probes, int readers = 1) {
  const auto absent = Keys("absent", 20000);
  for (size_t level = 0; level < blocks.size(); ++level) {
    for (int r = 0; r < readers; ++r) {
      std::unique_ptr<rdb::FilterBitsReader> reader(
          policy.GetFilterBitsReader(blocks[level].bytes));
      EXPECT_EQ(Probe(*reader, level == 0 ? keys : absent, probes / readers,
                      level == 0),
                0u);
    }
  }
}

// Each DB learns its own, though they share the policy object and (here)
// a logger: a DB made after one that learned, and gone, starts from the
// model.
TEST(LevelAwarePolicy, EachDbLearnsItsOwnAndANewOneStartsFromTheModel) {
  const auto policy = MustMake("sstfilter.LevelAware:10");
  const auto keys = Keys("k", 20000);
  std::vector<BuiltFilter> model;
  {
    WatchedDb busy;
    model = BuildTree(*policy, busy, "", keys);
    ProbeAsHitsAtTheBottom(*policy, model, keys, kLearningProbes);
    const std::vector<BuiltFilter> learned = BuildTree(*policy, busy, "", keys);
    EXPECT_LT(BitsPerKey(learned[0], keys), 0.5 * BitsPerKey(model[0], keys));
  }
  WatchedDb next;  // the busy DB is gone
  const std::vector<BuiltFilter> fresh = BuildTree(*policy, next, "", keys);
  for (size_t i = 0; i < fresh.size(); ++i) {
    EXPECT_EQ(fresh[i].bytes.size(), model[i].bytes.size()) << "level " << i;
  }
}

// A table is learned from while its file lives, not while a reader of it
// does: readers made again and again (a block cache evicting filters)
// sample into the same table; once the file is gone, its blocks are no
// longer indexed.
TEST(LevelAwarePolicy, LearningFollowsTheFileNotItsReaders) {
  const auto policy = MustMake("sstfilter.LevelAware:10");
  WatchedDb db;
  const auto keys = Keys("k", 20000);
  const std::vector<BuiltFilter> model = BuildTree(*policy, db, "", keys);
  ProbeAsHitsAtTheBottom(*policy, model, keys, kLearningProbes, 64);
  const std::vector<BuiltFilter> blocks = BuildTree(*policy, db, "", keys);
  EXPECT_LT(BitsPerKey(blocks[0], keys), 0.5 * BitsPerKey(model[0], keys));
  EXPECT_EQ(Indexed(model[0]), nullptr) << "a block of a file that is gone";
  EXPECT_NE(Indexed(blocks[0]), nullptr);
}

// The rule: a tree as it stands (keys and filter bytes per level, L0's
// runs), the rates (here the model's, from hits=) and the budget in, each
// level's filter out. `keys[level]` keys per level; L0 in `l0_runs` runs.
std::vector<FilterChoice> RuleFor(const std::string& id,
                                  const std::vector<int64_t>& keys,
                                  int64_t l0_runs = 1) {
  const auto policy = MustMake(id);
  const auto* allocator = rocksdb_plugin::LevelAwareAllocatorOf(*policy);
  EXPECT_NE(allocator, nullptr);
  if (allocator == nullptr) return {};
  rocksdb_plugin::TreeSnapshot snapshot;
  for (size_t level = 0; level < keys.size(); ++level) {
    rocksdb_plugin::LevelTotals& t = snapshot.levels[level];
    t.keys = keys[level];
    t.files = keys[level] > 0 ? (level == 0 ? l0_runs : 1) : 0;
  }
  snapshot.flush_keys = keys[0] / std::max<int64_t>(l0_runs, 1);
  return allocator->RuleByLevel(snapshot);
}

// The memory a tree's files take at the rule's bits, per key.
double RuleAverage(const std::vector<FilterChoice>& rule,
                   const std::vector<int64_t>& keys) {
  double bits = 0, total = 0;
  for (size_t level = 0; level < keys.size(); ++level) {
    bits += rule[level].bits_per_key * static_cast<double>(keys[level]);
    total += static_cast<double>(keys[level]);
  }
  return bits / total;
}

// The rule by table: trees of several shapes, each level's kind and
// bits/key pinned (to 0.05, the kinds' sampled curves), and each tree's
// files at the rule holding the average asked (to 0.5%: the kinds'
// sizes). A change to the rule that moves a row fails here first.
TEST(LevelAwareRule, GivesEachLevelItsBitsByTable) {
  struct Row {
    std::string id;
    std::vector<int64_t> keys;  // per level, L0 first
    int64_t l0_runs;
    std::vector<double> bits;  // per level with keys, L0 first
    double average;            // what the files at the rule hold per key
  };
  const std::vector<Row> table = {
      // The demo's tree: four levels 4 apart.
      {"sstfilter.LevelAware:10:4",
       {3530, 14120, 56480, 225870},
       1,
       {15.67, 16.67, 11.19, 9.20},
       10},
      {"sstfilter.LevelAware:10:4:portable",
       {3530, 14120, 56480, 225870},
       1,
       {15.58, 18.38, 11.32, 9.06},
       10},
      {"sstfilter.LevelAware:16:4",
       {3530, 14120, 56480, 225870},
       1,
       {22.59, 21.88, 17.14, 15.24},
       16},
      // Levels 10 apart, L0 holding three runs.
      {"sstfilter.LevelAware:10",
       {30000, 0, 0, 0, 100000, 1000000, 10000000},
       3,
       {22.47, 20.83, 14.26, 9.43},
       10},
      // A base level far over its share (writes ahead of compaction): the
      // build-CPU cap (uniform Ribbon's) binds with 37% of the keys
      // rewritten at L5's weight, and the allocation leaves 4% of the
      // memory unspent rather than build more Ribbon bits there.
      {"sstfilter.LevelAware:10",
       {10000, 0, 0, 0, 0, 600000, 1000000},
       1,
       {23.00, 9.62, 9.43},
       9.58},
      // Most Gets find their key: the bottom gets fewer bits.
      {"sstfilter.LevelAware:10:hits=0.9",
       {10000, 0, 0, 0, 100000, 1000000, 10000000},
       1,
       {24.25, 21.88, 15.48, 9.32},
       10},
  };
  for (const Row& row : table) {
    const std::vector<FilterChoice> rule =
        RuleFor(row.id, row.keys, row.l0_runs);
    ASSERT_FALSE(rule.empty());
    std::string got;
    for (size_t level = 0; level < row.keys.size(); ++level) {
      if (row.keys[level] == 0) continue;
      got += " L" + std::to_string(level) + " " +
             FilterKindName(rule[level].kind) + " " +
             std::to_string(rule[level].bits_per_key);
    }
    std::printf("%s:%s\n", row.id.c_str(), got.c_str());
    EXPECT_NEAR(RuleAverage(rule, row.keys), row.average, 0.005 * row.average)
        << row.id << got;
    size_t i = 0;
    for (size_t level = 0; level < row.keys.size() && i < row.bits.size();
         ++level) {
      if (row.keys[level] == 0) continue;
      EXPECT_NEAR(rule[level].bits_per_key, row.bits[i++], 0.05)
          << row.id << " L" << level << ":" << got;
    }
  }
}

// Each L0 file is a run every Get that reaches L0 consults: L0 counts at
// the keys its runs hold, with the probes of as many runs (Monkey then
// gives each about the bits one flush would; the cap of 2.5x the average
// and the build-CPU cap move them by a few bits), and the levels below pay
// for the runs' memory, so that the average holds.
TEST(LevelAwareRule, L0CountsAtTheRunsItHolds) {
  const std::vector<int64_t> one = {10000, 0, 0, 0, 100000, 1000000, 10000000};
  std::vector<int64_t> three = one;
  three[0] = 30000;
  const auto a = RuleFor("sstfilter.LevelAware:10", one, 1);
  const auto b = RuleFor("sstfilter.LevelAware:10", three, 3);
  EXPECT_NEAR(a[0].bits_per_key, b[0].bits_per_key, 3);
  EXPECT_LT(b[6].bits_per_key, a[6].bits_per_key);
  EXPECT_NEAR(RuleAverage(b, three), 10, 0.05);
}

// What a new file gets follows from the tree as it stands, whatever came
// before: two DBs that reach the same tree through different histories
// (other shapes, other files built, filters of other sizes held) give
// every level the same filter.
TEST(LevelAwareRule, TheSameTreeGetsTheSameBitsWhateverItsHistory) {
  const auto policy = MustMake("sstfilter.LevelAware:10:learn=false");
  const Context levels[] = {FlushContext(), Compaction(4), Compaction(5),
                            Compaction(6, true)};
  const std::vector<int64_t> tree = {10000, 0, 0, 0, 100000, 1000000, 10000000};
  std::vector<double> direct, travelled;
  {
    WatchedDb db;
    db.SetTree("", tree);
    db.SetLiveBitsPerKey("", 10);
    for (const Context& c : levels) {
      direct.push_back(Build(*policy, c).bits_per_key);
    }
  }
  {
    WatchedDb db;
    db.SetTree("", {50000, 0, 0, 0, 0, 800000, 2000000});
    db.SetLiveBitsPerKey("", 14);
    for (const Context& c : levels) Build(*policy, c);
    db.SetTree("", {0, 0, 0, 0, 300000, 0, 9000000});
    db.SetLiveBitsPerKey("", 7);
    for (const Context& c : levels) Build(*policy, c);
    db.SetTree("", tree);
    db.SetLiveBitsPerKey("", 12);
    for (const Context& c : levels) {
      travelled.push_back(Build(*policy, c).bits_per_key);
    }
  }
  EXPECT_EQ(direct, travelled);
}

// A memory limit: what the tables built get, at most the average asked.
// Where the limit leaves about 5 bits/key on a tree of 10^7 keys whose
// filters hold that, the filters built take it; where it leaves about 0.5,
// the least probed levels (the bottom, for absent keys the least probed
// per key) get no filter, the rest at least 1.5 bits/key.
TEST(LevelAwarePolicy, AMemoryLimitBoundsTheTreesFilters) {
  const std::vector<int> levels = {3, 2, 1, 0};
  // Under a limit, the rule's choice for a new file of each level (what a
  // build then gets depends on what is free: RocksdbDbMemoryLimit).
  auto bits_for = [&](const std::string& id, double live_bits_per_key) {
    const auto policy = MustMake(id);
    const bool limited = id.find("memory_limit") != std::string::npos;
    WatchedDb db;
    db.SetTShapedTree("", 1, 3);
    db.SetLiveBitsPerKey("", live_bits_per_key);
    std::vector<double> bits;
    for (int level : levels) {
      if (limited) {
        bits.push_back(rocksdb_plugin::LevelAwareAllocatorOf(*policy)
                           ->ChoiceFor(db.View(""), level)
                           .bits_per_key);
        continue;
      }
      Context c = level == 0 ? FlushContext() : Compaction(level, level == 3);
      bits.push_back(Build(*policy, c).bits_per_key);
    }
    return bits;
  };
  // 10^7 keys at 5 bits/key: 6.25 MB.
  const std::vector<double> unlimited = bits_for("sstfilter.LevelAware:10", 10);
  const std::vector<double> five =
      bits_for("sstfilter.LevelAware:10:memory_limit=6250000", 5);
  const std::vector<double> loose =
      bits_for("sstfilter.LevelAware:10:memory_limit=1T", 10);
  double memory = 0, unlimited_memory = 0;
  for (size_t i = 0; i < levels.size(); ++i) {
    memory += LevelShare(10, 4, static_cast<uint32_t>(i)) * five[i];
    unlimited_memory +=
        LevelShare(10, 4, static_cast<uint32_t>(i)) * unlimited[i];
    EXPECT_NEAR(loose[i], unlimited[i], 0.01 * unlimited[i]) << "level " << i;
  }
  EXPECT_NEAR(memory, 5, 0.25);
  EXPECT_NEAR(unlimited_memory, 10, 0.25);
  const std::vector<double> starved =
      bits_for("sstfilter.LevelAware:10:memory_limit=625000", 0.5);
  // The block of a file without a filter: 13 bytes.
  EXPECT_LT(starved[0], 0.01) << "the bottom gets no filter";
  for (size_t i = 1; i < levels.size(); ++i) {
    EXPECT_GE(starved[i], 1.5) << "level " << i;
  }
}

// Column families that share a policy object share its memory limit, and
// the one whose filters are probed more gets more of it: learned from
// their readers, ten times as many probes at one as at the other (weighed
// by their samples, not by the clock). Each rebuilt file takes no more
// than its own old filter and what the others' rebuilds freed.
TEST(LevelAwarePolicy, AMemoryLimitGoesWhereTheProbesAre) {
  // Two trees of 10^7 entries at 5 bits/key on average: 12.5 MB.
  const auto policy = MustMake("sstfilter.LevelAware:10:memory_limit=12500000");
  WatchedDb db;
  db.replace_on_build = true;
  for (const char* cf : {"busy", "quiet"}) db.SetTShapedTree(cf, 1, 3);
  for (const char* cf : {"busy", "quiet"}) db.SetLiveBitsByRule(*policy, cf);
  const auto busy_keys = Keys("busy", 20000);
  const auto quiet_keys = Keys("quiet", 20000);
  std::vector<BuiltFilter> busy = BuildTree(*policy, db, "busy", busy_keys);
  std::vector<BuiltFilter> quiet = BuildTree(*policy, db, "quiet", quiet_keys);
  const auto absent = Keys("absent", 20000);
  for (int round = 0; round < 3; ++round) {
    for (size_t level = 0; level < busy.size(); ++level) {
      std::unique_ptr<rdb::FilterBitsReader> b(
          policy->GetFilterBitsReader(busy[level].bytes));
      std::unique_ptr<rdb::FilterBitsReader> q(
          policy->GetFilterBitsReader(quiet[level].bytes));
      Probe(*b, absent, kLearningProbes / 3, false);
      Probe(*q, absent, kLearningProbes / 30, false);
    }
    busy = BuildTree(*policy, db, "busy", busy_keys);
    quiet = BuildTree(*policy, db, "quiet", quiet_keys);
  }
  double busy_bits = 0, quiet_bits = 0;
  for (size_t level = 0; level < busy.size(); ++level) {
    const double share = LevelShare(10, 4, static_cast<uint32_t>(level));
    busy_bits += share * BitsPerKey(busy[level], busy_keys);
    quiet_bits += share * BitsPerKey(quiet[level], quiet_keys);
  }
  std::printf("[ busy %.2f bits/key, quiet %.2f ]\n", busy_bits, quiet_bits);

  EXPECT_GT(busy_bits, quiet_bits + 1);
  // The files rebuilt took what the others' rebuilds freed: the trees'
  // filters hold the limit, not more.
  const int64_t held = db.cf("busy").Held().bytes + db.cf("quiet").Held().bytes;
  EXPECT_LE(held, 12500000);
  EXPECT_GE(held, 0.95 * 12500000);
  EXPECT_EQ(FalseNegatives(*policy, busy, busy_keys), 0u);
  EXPECT_EQ(FalseNegatives(*policy, quiet, quiet_keys), 0u);
}

// db_bench's keys: i in 8 big-endian bytes, then 8 '0's.
std::string BenchKey(uint64_t i) {
  std::string key(16, '0');
  for (int byte = 0; byte < 8; ++byte) {
    key[byte] = static_cast<char>(i >> (8 * (7 - byte)));
  }
  return key;
}

// A partitioned filter asks its builder how many keys fit a partition
// before the first key (PartitionedFilterBlockBuilder's constructor): the
// file still gets the size its key range's probes call for, from its first
// key, as a full filter does.
TEST(LevelAwarePolicy, APartitionedFilterGetsItsLearnedSizeFromItsFirstKey) {
  const auto policy = MustMake("sstfilter.LevelAware:10");
  WatchedDb db;
  const std::string cf = "partitioned";
  db.SetTShapedTree(cf, 1, 3);
  // What the bottom's readers saw: nine in ten absent probes in the first
  // eighth of the key space.
  LevelWorkload& workload = db.cf(cf).workload();
  workload.ObserveKeyRange(BenchKey(0), BenchKey(3200000));
  for (int b = 0; b < LevelWorkload::kBuckets; ++b) {
    workload.AddSampledKeys(3, b, b, 100000);
  }
  const uint32_t weight = LevelWorkload::AbsentWeight(0.01);
  for (uint64_t i = 0; i < 9000; ++i) {
    workload.RecordSample(3, BenchKey(i * 44), weight);
  }
  for (uint64_t i = 0; i < 1000; ++i) {
    workload.RecordSample(3, BenchKey(400000 + i * 2800), weight);
  }
  ASSERT_TRUE(workload.MaybeRefresh());
  std::vector<std::string> hot_keys;
  for (uint64_t i = 0; i < 20000; ++i) hot_keys.push_back(BenchKey(i * 5));
  rdb::BlockBasedTableOptions table;
  const auto context = TreeContext(table, 3, 4, cf);
  auto bits = [&](bool asked_first) {
    std::unique_ptr<rdb::FilterBitsBuilder> builder(
        policy->GetBuilderWithContext(context));
    if (asked_first) {
      EXPECT_GT(builder->ApproximateNumEntries(4096), 0u);
    }
    for (const auto& key : hot_keys) builder->AddKey(key);
    std::unique_ptr<const char[]> owner;
    rdb::Status status;
    const rdb::Slice block = builder->Finish(&owner, &status);
    rocksdb_plugin::TakeBuiltTable();
    return block.size() * 8.0 / static_cast<double>(hot_keys.size());
  };
  const double full = bits(false);
  const double partitioned = bits(true);
  Context bottom = Compaction(3, true);
  bottom.num_levels = 4;
  bottom.column_family = cf;
  const double level =
      Build(*MustMake("sstfilter.LevelAware:10:learn=false"), bottom)
          .bits_per_key;
  EXPECT_GT(full, level + 1) << "a hot file gets more than its level";
  EXPECT_NEAR(partitioned, full, 0.01 * full);
}

// Twenty column families share one policy object and its memory limit (80
// levels in one allocation): every file of each gets a filter, and the
// filters hold the limit.
TEST(LevelAwarePolicy, TwentyColumnFamiliesShareALimitAndEveryFileHasAFilter) {
  constexpr int kFamilies = 20;
  // Twenty trees of 10^7 keys at 5 bits/key.
  const auto policy = MustMake("sstfilter.LevelAware:10:memory_limit=" +
                               std::to_string(kFamilies * 10000000 / 8 * 5));
  WatchedDb db;
  for (int f = 0; f < kFamilies; ++f) {
    db.SetTShapedTree("cf" + std::to_string(f), 1, 3);
  }
  // Built a little under the rule (the account's correction moves a file
  // within its level's plan, not past it).
  for (int f = 0; f < kFamilies; ++f) {
    db.SetLiveBitsByRule(*policy, "cf" + std::to_string(f), 0.97);
  }
  double memory = 0;
  for (int f = 0; f < kFamilies; ++f) {
    const std::string cf = "cf" + std::to_string(f);
    for (int level = 3; level >= 0; --level) {
      db.Replacing(cf, level);
      Context c = level == 0 ? FlushContext() : Compaction(level, level == 3);
      c.num_levels = 4;
      c.column_family = cf;
      const double bits = Build(*policy, c).bits_per_key;
      EXPECT_GT(bits, 1) << cf << " L" << level << " has no filter";
      memory += LevelShare(10, 4, static_cast<uint32_t>(3 - level)) * bits /
                kFamilies;
    }
  }
  EXPECT_NEAR(memory, 5, 0.25);
}

// Under a limit a column family whose Gets stopped loses its filters to
// the busy one; its files then hold a block that answers "may match" and
// still samples their Gets, so once its Gets come back (and the other's
// stop) its next files get filters again.
TEST(LevelAwarePolicy, AQuietColumnFamilyGetsFiltersBackWhenItsGetsCome) {
  // Two trees of 10^7 keys at 1 bit/key: the least probed go without.
  const auto policy = MustMake("sstfilter.LevelAware:10:memory_limit=2500000");
  WatchedDb db;
  db.replace_on_build = true;
  const auto busy_keys = Keys("busy", 20000);
  const auto quiet_keys = Keys("quiet", 20000);
  const auto absent = Keys("absent", 20000);
  for (const char* cf : {"busy", "quiet"}) db.SetTShapedTree(cf, 1, 3);
  for (const char* cf : {"busy", "quiet"}) db.SetLiveBitsByRule(*policy, cf);
  std::vector<BuiltFilter> busy = BuildTree(*policy, db, "busy", busy_keys);
  std::vector<BuiltFilter> quiet = BuildTree(*policy, db, "quiet", quiet_keys);
  auto probe = [&](const std::vector<BuiltFilter>& blocks) {
    for (const BuiltFilter& block : blocks) {
      std::unique_ptr<rdb::FilterBitsReader> reader(
          policy->GetFilterBitsReader(block.bytes));
      Probe(*reader, absent, kLearningProbes, false);
    }
  };
  for (int round = 0; round < 3; ++round) {
    probe(busy);
    busy = BuildTree(*policy, db, "busy", busy_keys);
    quiet = BuildTree(*policy, db, "quiet", quiet_keys);
  }
  EXPECT_EQ(quiet[0].bytes.size(), rocksdb_plugin::kNoFilterBlockBytes)
      << "the quiet column family's bottom has no filter";
  EXPECT_GT(busy[0].bytes.size(), rocksdb_plugin::kNoFilterBlockBytes);
  for (int round = 0; round < 6; ++round) {
    probe(quiet);
    busy = BuildTree(*policy, db, "busy", busy_keys);
    quiet = BuildTree(*policy, db, "quiet", quiet_keys);
  }
  EXPECT_GT(quiet[0].bytes.size(), rocksdb_plugin::kNoFilterBlockBytes)
      << "its Gets came back: its bottom has a filter again";
  EXPECT_EQ(FalseNegatives(*policy, quiet, quiet_keys), 0u);
}

// learn=false: readers are RocksDB's or ours as for any policy, and
// nothing is registered or sampled.
TEST(LevelAwarePolicy, LearnFalseSamplesNothing) {
  const auto policy = MustMake("sstfilter.LevelAware:10:learn=false");
  WatchedDb db;
  db.SetTShapedTree("learn-false", 1, 3);
  const auto keys = Keys("k", 5000);
  rdb::BlockBasedTableOptions table;
  for (int level = 3; level >= 0; --level) {
    const BuiltFilter block =
        BuildFilter(*policy, keys, TreeContext(table, level, 4, "learn-false"));
    EXPECT_EQ(rocksdb_plugin::TakeBuiltTable(), nullptr);
    EXPECT_EQ(Indexed(block), nullptr);
  }
}

}  // namespace
}  // namespace sstfilter::test_support
