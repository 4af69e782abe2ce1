// What LevelAware's tree of a column family holds (level_aware_tree.h),
// driven as the listener drives it: files added, moved and removed,
// compactions that begin and end, and the first read of a DB, whose list
// of files races with the jobs that run meanwhile; and the block index
// (block_index.h), which must never let one DB's readers sample into
// another's.
#include "level_aware_tree.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "block_index.h"
#include "sstfilter/workload.h"

namespace sstfilter::rocksdb_plugin {
namespace {

// A file of `keys` keys at `level` with a filter of `bits_per_key`.
TreeFile File(uint64_t number, int level, int64_t keys,
              double bits_per_key = 10) {
  return {number, level, keys, keys,
          static_cast<int64_t>(keys * bits_per_key / 8)};
}

int64_t Keys(const TreeTotals& tree, int level) { return tree[level].keys; }

TEST(LevelAwareTree, LevelTotalsFollowTheFiles) {
  ColumnFamilyTree tree("cf", 1);
  tree.AddFile(File(1, 0, 1000), nullptr);
  tree.AddFile(File(2, 6, 90000), nullptr);
  tree.AddFile(File(3, 6, 10000, 4), nullptr);
  TreeTotals t = tree.Totals();
  EXPECT_EQ(t[6].files, 2);
  EXPECT_EQ(Keys(t, 6), 100000);
  EXPECT_EQ(t[6].filtered_keys, 100000);
  EXPECT_EQ(t[6].filter_bits, 90000 * 10 + 10000 * 4);
  tree.MoveFile(1, 5);
  tree.RemoveFile(3);
  tree.RemoveFile(99);  // unknown: ignored
  t = tree.Totals();
  EXPECT_EQ(t[0].files, 0);
  EXPECT_EQ(Keys(t, 5), 1000);
  EXPECT_EQ(Keys(t, 6), 90000);
  // A file without a filter (RocksDB's "no keys", or LevelAware's block
  // of a file a memory limit left without one) is counted apart.
  tree.AddFile(File(4, 6, 5000, 0.02), nullptr);  // 12 bytes
  t = tree.Totals();
  EXPECT_EQ(Keys(t, 6), 95000);
  EXPECT_EQ(t[6].filtered_keys, 90000);
  EXPECT_EQ(t[6].unfiltered_bits, 12 * 8);
}

// A compaction's inputs leave the filters when it begins, their keys
// counted as incoming at its output level, less its outputs as they come;
// when it ends they go, but for a file moved whole (a trivial move); a
// failed compaction gives them back.
TEST(LevelAwareTree, ACompactionsInputsBecomeItsOutputs) {
  ColumnFamilyTree tree("cf", 1);
  tree.AddFile(File(1, 5, 10000), nullptr);
  tree.AddFile(File(2, 6, 50000), nullptr);
  tree.AddFile(File(3, 6, 50000), nullptr);
  tree.BeginCompaction(7, {File(1, 5, 10000), File(2, 6, 50000)}, 6);
  TreeTotals t = tree.Totals();
  EXPECT_EQ(Keys(t, 5), 0);
  EXPECT_EQ(Keys(t, 6), 50000);
  EXPECT_EQ(t[6].incoming_keys, 60000);
  EXPECT_EQ(tree.OutputLevelOf(7), 6);
  tree.AddFile(File(10, 6, 30000), nullptr, 7);
  EXPECT_EQ(tree.Totals()[6].incoming_keys, 30000);
  tree.AddFile(File(11, 6, 30000), nullptr, 7);
  t = tree.Totals();
  EXPECT_EQ(t[6].incoming_keys, 0);
  EXPECT_EQ(Keys(t, 6), 110000);
  tree.EndCompaction(7, true);
  t = tree.Totals();
  EXPECT_EQ(Keys(t, 6), 110000);
  EXPECT_EQ(t[6].files, 3);
  EXPECT_EQ(tree.OutputLevelOf(7), -1);

  // A trivial move: its input is its output.
  tree.AddFile(File(20, 4, 1000), nullptr);
  tree.BeginCompaction(8, {File(20, 4, 1000)}, 5);
  TreeFile moved;
  moved.number = 20;
  moved.level = 5;
  tree.EndCompaction(8, true, {moved});
  t = tree.Totals();
  EXPECT_EQ(Keys(t, 4), 0);
  EXPECT_EQ(Keys(t, 5), 1000);

  // A failed compaction.
  tree.BeginCompaction(9, {File(20, 5, 1000)}, 6);
  EXPECT_EQ(Keys(tree.Totals(), 5), 0);
  tree.EndCompaction(9, false);
  EXPECT_EQ(Keys(tree.Totals(), 5), 1000);
  EXPECT_EQ(tree.Totals()[6].incoming_keys, 0);
}

// A compaction's inputs listed without their sizes (a first read of a
// column family RocksDB gives no table properties of) get them from the
// compaction's own infos.
TEST(LevelAwareTree, ACompactionFillsInItsInputsSizes) {
  ColumnFamilyTree tree("cf", 1);
  tree.Replace({{1, 6, 40000, -1, -1}, {2, 6, 40000, -1, -1}});
  EXPECT_EQ(tree.Totals()[6].unknown_keys, 80000);
  tree.BeginCompaction(3, {File(1, 6, 40000, 8)}, 6);
  tree.EndCompaction(3, false);
  const TreeTotals t = tree.Totals();
  EXPECT_EQ(t[6].unknown_keys, 40000);
  EXPECT_EQ(t[6].filtered_keys, 40000);
  EXPECT_EQ(t[6].filter_bits, 40000 * 8);
}

// The first read lists the files while jobs run: what they did between
// BeginRead and the list's arrival is replayed over it, whether the list
// saw it or not.
TEST(LevelAwareTree, EditsDuringTheFirstReadAreNotLost) {
  ColumnFamilyTree tree("cf", 1);
  tree.BeginRead();
  // Before the list was taken: a flush and a compaction that ended.
  tree.AddFile(File(5, 0, 1000), nullptr);
  tree.AddFile(File(6, 0, 1000), nullptr);
  tree.BeginCompaction(1, {File(5, 0, 1000)}, 6);
  tree.AddFile(File(7, 6, 1000), nullptr, 1);
  tree.EndCompaction(1, true);
  // The list, taken here, saw them: 6, 7 and the DB's old file 1.
  const std::vector<TreeFile> listed = {File(1, 6, 50000), File(6, 0, 1000),
                                        File(7, 6, 1000)};
  // After the list was taken: a file deleted, another added, a
  // compaction begun.
  tree.RemoveFile(6);
  tree.AddFile(File(8, 0, 1000), nullptr);
  tree.BeginCompaction(2, {File(8, 0, 1000)}, 6);
  tree.Replace(listed);
  const TreeTotals t = tree.Totals();
  EXPECT_EQ(t[0].files, 0);
  EXPECT_EQ(t[6].files, 2);
  EXPECT_EQ(Keys(t, 6), 51000);
  EXPECT_EQ(t[6].incoming_keys, 1000);
  EXPECT_EQ(tree.OutputLevelOf(2), 6);
  // Edits after the read are not journaled.
  tree.EndCompaction(2, true);
  tree.AddFile(File(9, 6, 1000), nullptr);
  EXPECT_EQ(Keys(tree.Totals(), 6), 52000);
}

// A DB read while a column family appears in it (its first flush): the
// tree made meanwhile is replaced with the list too, its edits replayed.
TEST(LevelAwareTree, AColumnFamilyMadeDuringTheReadKeepsItsEdits) {
  DbState db(nullptr, "session");
  db.ColumnFamily("old", 0)->AddFile(File(1, 6, 1000), nullptr);
  db.BeginRead();
  db.ColumnFamily("new", 3)->AddFile(File(2, 0, 500), nullptr);
  db.FinishRead({{"old", {File(1, 6, 1000)}}});
  EXPECT_EQ(db.FindColumnFamily("new")->Totals()[0].files, 1);
  EXPECT_EQ(db.FindColumnFamily("old")->Totals()[6].files, 1);
  // No read is left open: later edits are not journaled forever.
  db.ColumnFamily("new")->AddFile(File(3, 0, 500), nullptr);
  db.ColumnFamily("new")->Replace({});
  EXPECT_EQ(db.FindColumnFamily("new")->Totals()[0].files, 0);
}

// A column family dropped and made again under its name has another id:
// nothing of the old one carries over (what it learned, its files).
TEST(LevelAwareTree, AColumnFamilyMadeAgainStartsAnew) {
  DbState db(nullptr, "session");
  const auto first = db.ColumnFamily("cf", 4);
  first->AddFile(File(1, 6, 1000), nullptr);
  EXPECT_EQ(db.ColumnFamily("cf"), first);
  EXPECT_EQ(db.ColumnFamily("cf", 4), first);
  const auto again = db.ColumnFamily("cf", 9);
  EXPECT_NE(again, first);
  EXPECT_EQ(again->Totals()[6].files, 0);
  // A tree with no file left is forgotten.
  first->RemoveFile(1);
  db.DropIfEmpty(again);
  EXPECT_EQ(db.FindColumnFamily("cf"), nullptr);
}

// Two files with the same filter block (two DBs holding the same keys):
// a reader of that block cannot tell whose it is, so it samples into
// neither column family.
TEST(BlockIndex, IdenticalBlocksOfTwoFilesSampleIntoNeither) {
  auto a = std::shared_ptr<ColumnFamilyTree>(new ColumnFamilyTree("a", 0));
  auto b = std::shared_ptr<ColumnFamilyTree>(new ColumnFamilyTree("b", 0));
  const std::string block(1000, 'x');
  const std::string other(1000, 'y');
  auto record_a = NewTableRecord(a, 6, LevelWorkload::AbsentWeight(0.01));
  auto record_b = NewTableRecord(b, 6, LevelWorkload::AbsentWeight(0.01));
  record_a->block_ids = {BlockId(block)};
  record_b->block_ids = {BlockId(block)};
  BlockIndex::Get().Add(BlockId(block), record_a);
  EXPECT_EQ(BlockIndex::Get().Find(block), record_a);
  BlockIndex::Get().Add(BlockId(block), record_b);
  EXPECT_EQ(BlockIndex::Get().Find(block), nullptr);
  // Another block is found as before.
  auto record_c = NewTableRecord(b, 6, LevelWorkload::AbsentWeight(0.01));
  record_c->block_ids = {BlockId(other)};
  BlockIndex::Get().Add(BlockId(other), record_c);
  EXPECT_EQ(BlockIndex::Get().Find(other), record_c);
  BlockIndex::Get().Remove(*record_c);
  EXPECT_EQ(BlockIndex::Get().Find(other), nullptr);
}

// A compaction that rewrites a file's keys unchanged writes the same block
// for the same column family while the old file still lives: the block is
// the new file's.
TEST(BlockIndex, TheSameBlockAgainInOneColumnFamilyIsTheNewFiles) {
  auto cf = std::shared_ptr<ColumnFamilyTree>(new ColumnFamilyTree("cf", 0));
  const std::string block(800, 'r');
  auto old_file = NewTableRecord(cf, 6, LevelWorkload::AbsentWeight(0.01));
  auto new_file = NewTableRecord(cf, 6, LevelWorkload::AbsentWeight(0.01));
  old_file->block_ids = new_file->block_ids = {BlockId(block)};
  BlockIndex::Get().Add(BlockId(block), old_file);
  BlockIndex::Get().Add(BlockId(block), new_file);
  EXPECT_EQ(BlockIndex::Get().Find(block), new_file);
  BlockIndex::Get().Remove(*old_file);
  EXPECT_EQ(BlockIndex::Get().Find(block), new_file);
}

// The index keeps no record alive: a record gone (its file deleted, its DB
// closed) is found no more, and its storage is freed with it.
TEST(BlockIndex, AGoneRecordIsNotFound) {
  auto cf = std::shared_ptr<ColumnFamilyTree>(new ColumnFamilyTree("cf", 0));
  const std::string block(500, 'z');
  std::weak_ptr<TableRecord> weak;
  {
    auto record = NewTableRecord(cf, 3, LevelWorkload::AbsentWeight(0.01));
    record->block_ids = {BlockId(block)};
    BlockIndex::Get().Add(BlockId(block), record);
    weak = record;
    EXPECT_NE(BlockIndex::Get().Find(block), nullptr);
  }
  EXPECT_TRUE(weak.expired());
  EXPECT_EQ(BlockIndex::Get().Find(block), nullptr);
}

}  // namespace
}  // namespace sstfilter::rocksdb_plugin
