// The range filter in real DBs (sstfilter/range_filter_rocksdb.h): one
// options string turns it on and the OPTIONS file keeps it; a scan through
// RangeScanOptions returns what the same DB without range filters returns,
// whatever was written (puts, deletes, single deletes, merges, range
// deletions), at snapshots, in both directions, across reopens, with
// RocksDB's bytewise comparator and its reverse; files are skipped; SST
// files without the property, with unknown bytes, or of another comparator
// are read as usual; a filter corrupted on disk reaches no scan.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "rocksdb/comparator.h"
#include "rocksdb/db.h"
#include "rocksdb/merge_operator.h"
#include "rocksdb/statistics.h"
#include "rocksdb/table.h"
#include "rocksdb/table_properties.h"
#include "rocksdb/utilities/options_util.h"
#include "rocksdb_db_compat.h"
#include "rocksdb_range_support.h"
#include "sstfilter/range_filter.h"
#include "sstfilter/range_filter_rocksdb.h"
#include "temp_dir.h"

namespace sstfilter::test_support {
namespace {

constexpr char kSpec[] = "{id=sstfilter.RangeFilter;bits_per_key=12}";

// Merge operands joined by ','.
class AppendOperator : public rdb::AssociativeMergeOperator {
 public:
  bool Merge(const rdb::Slice& /*key*/, const rdb::Slice* existing,
             const rdb::Slice& value, std::string* new_value,
             rdb::Logger* /*logger*/) const override {
    *new_value = existing == nullptr
                     ? value.ToString()
                     : existing->ToString() + "," + value.ToString();
    return true;
  }
  const char* Name() const override { return "AppendOperator"; }
};

rdb::Options SmallTreeOptions(const rdb::Comparator* comparator) {
  rdb::Options options;
  options.create_if_missing = true;
  options.comparator = comparator;
  options.merge_operator = std::make_shared<AppendOperator>();
  // Many small files over several levels.
  options.write_buffer_size = 32 << 10;
  options.target_file_size_base = 32 << 10;
  options.max_bytes_for_level_base = 128 << 10;
  options.level0_file_num_compaction_trigger = 3;
  options.num_levels = 5;
  return options;
}

std::unique_ptr<rdb::DB> Open(const rdb::Options& options,
                              const std::string& path) {
  std::unique_ptr<rdb::DB> db;
  const rdb::Status s = rocksdb_compat::OpenDb(options, path, &db);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return db;
}

std::string SortedRangeFilterIds(const rdb::Options& options) {
  std::string ids;
  for (const auto& f : options.table_properties_collector_factories) {
    ids += std::string(f->Name()) + ";";
  }
  return ids;
}

TEST(RocksdbDbRangeFilter, OptionsStringTurnsItOnAndTheOptionsFileKeepsIt) {
  TempDir dir;
  rdb::Options options;
  rdb::Options base;
  base.create_if_missing = true;
  ASSERT_TRUE(WithRangeFilter(
                  base, "{id=sstfilter.RangeFilter;bits_per_key=10}", &options)
                  .ok());
  ASSERT_EQ(SortedRangeFilterIds(options), "sstfilter.RangeFilter;");
  {
    std::unique_ptr<rdb::DB> db = Open(options, dir.path());
    ASSERT_TRUE(db->Put(rdb::WriteOptions(), IntKey(7), "v").ok());
    ASSERT_TRUE(db->Flush(rdb::FlushOptions()).ok());
    rdb::TablePropertiesCollection tables;
    ASSERT_TRUE(db->GetPropertiesOfAllTables(&tables).ok());
    ASSERT_EQ(tables.size(), 1u);
    const auto& user = tables.begin()->second->user_collected_properties;
    const std::string name = RangeFilterPropertyName({10, 0, 8});
    EXPECT_EQ(name, "sstfilter.range:10:0:8");
    ASSERT_EQ(user.count(name), 1u);
    RangeFilterView view;
    ASSERT_TRUE(RangeFilterView::Parse(user.at(name), &view).ok());
    EXPECT_EQ(view.num_keys(), 1u);
  }
  // RocksDB wrote the collector, with its options, to the OPTIONS file.
  rdb::DBOptions db_options;
  std::vector<rdb::ColumnFamilyDescriptor> families;
  rdb::ConfigOptions config;
  config.ignore_unsupported_options = false;
  const rdb::Status loaded_status =
      rdb::LoadLatestOptions(config, dir.path(), &db_options, &families);
  ASSERT_TRUE(loaded_status.ok()) << loaded_status.ToString();
  ASSERT_EQ(families.size(), 1u);
  const auto& loaded = families[0].options.table_properties_collector_factories;
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_STREQ(loaded[0]->Name(), kRangeFilterName);
  std::string bits;
  ASSERT_TRUE(loaded[0]->GetOption(config, "bits_per_key", &bits).ok());
  EXPECT_EQ(std::stod(bits), 10.0);
}

TEST(RocksdbDbRangeFilter, OptionsOutOfRangeAreRefused) {
  rdb::Options options;
  for (const char* spec :
       {"{id=sstfilter.RangeFilter;bits_per_key=2}",
        "{id=sstfilter.RangeFilter;int_bytes=9}",
        "{id=sstfilter.RangeFilter;prefix_bytes=4;int_bytes=8}",
        "{id=sstfilter.RangeFilter;no_such_option=1}"}) {
    const rdb::Status s = WithRangeFilter(rdb::Options(), spec, &options);
    EXPECT_FALSE(s.ok()) << spec;
  }
  std::shared_ptr<rdb::TablePropertiesCollectorFactory> factory;
  EXPECT_TRUE(
      NewRangeFilterCollectorFactory({/*bits_per_key=*/70, 0, 8}, &factory)
          .IsInvalidArgument());
  EXPECT_TRUE(NewRangeFilterCollectorFactory({}, &factory).ok());
  EXPECT_STREQ(factory->Name(), kRangeFilterName);
}

// RocksDB lets a factory see neither its siblings nor the column family's
// options (range_filter_collector.cc says where), so a second collector
// cannot be refused: each writes its filter under a name of its options,
// and a scan skips an SST file if any of its filters says no.
TEST(RocksdbDbRangeFilter, TwoCollectorsInOneListAreBothWrittenAndBothRead) {
  TempDir dir;
  rdb::Options options;
  rdb::Options base;
  base.create_if_missing = true;
  ASSERT_TRUE(WithRangeFilter(base,
                              "{{id=sstfilter.RangeFilter;bits_per_key=12}:"
                              "{id=sstfilter.RangeFilter;bits_per_key=6}}",
                              &options)
                  .ok());
  ASSERT_EQ(options.table_properties_collector_factories.size(), 2u);
  std::unique_ptr<rdb::DB> db = Open(options, dir.path());
  ASSERT_TRUE(db);
  for (uint64_t i = 0; i < 5000; ++i) {
    ASSERT_TRUE(db->Put(rdb::WriteOptions(), IntKey(i * 1000), "v").ok());
  }
  ASSERT_TRUE(db->Flush(rdb::FlushOptions()).ok());
  rdb::TablePropertiesCollection tables;
  ASSERT_TRUE(db->GetPropertiesOfAllTables(&tables).ok());
  ASSERT_EQ(tables.size(), 1u);
  const rdb::TableProperties& props = *tables.begin()->second;
  const auto& user = props.user_collected_properties;
  const std::string dense_name = RangeFilterPropertyName({12, 0, 8});
  const std::string sparse_name = RangeFilterPropertyName({6, 0, 8});
  EXPECT_EQ(dense_name, kRangeFilterProperty);
  ASSERT_NE(dense_name, sparse_name);
  ASSERT_EQ(user.count(dense_name), 1u);
  ASSERT_EQ(user.count(sparse_name), 1u);
  RangeFilterView dense, sparse;
  ASSERT_TRUE(RangeFilterView::Parse(user.at(dense_name), &dense).ok());
  ASSERT_TRUE(RangeFilterView::Parse(user.at(sparse_name), &sparse).ok());
  EXPECT_EQ(dense.num_keys(), 5000u);
  EXPECT_EQ(sparse.num_keys(), 5000u);
  EXPECT_LT(sparse.size_bytes(), dense.size_bytes());
  // Every key is still found; an empty range is skipped where either
  // filter says no: never more often than the denser filter alone skips.
  int either_says_no = 0, dense_says_no = 0;
  for (uint64_t i = 0; i < 5000; ++i) {
    ASSERT_TRUE(RangeMayOverlap(props, IntKey(i * 1000), IntKey(i * 1000 + 1)));
    const std::string lo = IntKey(i * 1000 + 10), hi = IntKey(i * 1000 + 26);
    either_says_no += !RangeMayOverlap(props, lo, hi);
    dense_says_no += !dense.MayOverlap(lo, true, hi, false);
  }
  EXPECT_GE(either_says_no, dense_says_no);
}

// A filter under any collector's name is read, whichever else the file has.
TEST(RocksdbDbRangeFilter, EveryRangeFilterOfAnSstFileIsConsulted) {
  RangeFilterBuilder builder(10, RangeKeyRule{});
  builder.AddKey(IntKey(1000));
  std::string bytes;
  ASSERT_TRUE(builder.Finish(&bytes).ok());
  rdb::TableProperties props;
  props.comparator_name = rdb::BytewiseComparator()->Name();
  const std::string lo = IntKey(5000), hi = IntKey(5016);
  const std::string name = RangeFilterPropertyName({10, 0, 8});
  props.user_collected_properties[name] = bytes;
  EXPECT_FALSE(RangeMayOverlap(props, lo, hi));
  // An unreadable filter beside it answers "may"; the readable one still
  // says no.
  props.user_collected_properties[kRangeFilterProperty] = "SFRF?";
  EXPECT_FALSE(RangeMayOverlap(props, lo, hi));
  EXPECT_TRUE(RangeMayOverlap(props, IntKey(1000), IntKey(1001)));
  // A property that only begins like ours is not a range filter.
  props.user_collected_properties.erase(name);
  props.user_collected_properties[std::string(kRangeFilterProperty) + "x"] =
      bytes;
  EXPECT_TRUE(RangeMayOverlap(props, lo, hi));
}

// `options` parsed from "table_properties_collectors=<spec>" with `config`.
rdb::Status ParseCollectors(const rdb::ConfigOptions& config,
                            const std::string& spec,
                            rdb::ColumnFamilyOptions* options) {
  RegisterPolicies();
  return rdb::GetColumnFamilyOptionsFromString(
      config, rdb::ColumnFamilyOptions(), "table_properties_collectors=" + spec,
      options);
}

// The DB's latest OPTIONS file with every `from` replaced by `to`.
void EditOptionsFile(const std::string& dir, const std::string& from,
                     const std::string& to) {
  std::string name;
  ASSERT_TRUE(
      rdb::GetLatestOptionsFileName(dir, rdb::Env::Default(), &name).ok());
  const std::string path = dir + "/" + name;
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  in.close();
  ASSERT_NE(text.find(from), std::string::npos);
  for (size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  std::ofstream(path, std::ios::trunc) << text;
}

// LoadLatestOptions with RocksDB's default ConfigOptions, then DB::Open.
rdb::Status OpenFromOptionsFile(const std::string& dir,
                                std::unique_ptr<rdb::DB>* db) {
  rdb::DBOptions db_options;
  std::vector<rdb::ColumnFamilyDescriptor> families;
  rdb::Status s =
      rdb::LoadLatestOptions(rdb::ConfigOptions(), dir, &db_options, &families);
  if (!s.ok()) return s;
  std::vector<rdb::ColumnFamilyHandle*> handles;
  s = rocksdb_compat::OpenDb(db_options, dir, families, &handles, db);
  for (auto* handle : handles) (*db)->DestroyColumnFamilyHandle(handle);
  return s;
}

// RocksDB drops a collector id no factory matches when
// ignore_unsupported_options is set, its default (ParseVector, options_type.h):
// an "sstfilter." id that names no collector is an error instead, naming it.
TEST(RocksdbDbRangeFilter, UnknownSstfilterCollectorIdFailsTheParseNamingIt) {
  rdb::ConfigOptions lenient;  // RocksDB's defaults
  rdb::ConfigOptions strict;
  strict.ignore_unsupported_options = false;
  for (const char* spec :
       {"{id=sstfilter.RangeFiltr;bits_per_key=12}", "sstfilter.RangeFiltr",
        "{{id=sstfilter.RangeFilter}:{id=sstfilter."
        "RangeFiltr}}"}) {
    for (const rdb::ConfigOptions& config : {lenient, strict}) {
      rdb::ColumnFamilyOptions options;
      const rdb::Status s = ParseCollectors(config, spec, &options);
      EXPECT_TRUE(s.IsInvalidArgument()) << spec << " -> " << s.ToString();
      EXPECT_NE(s.ToString().find("sstfilter.RangeFiltr"), std::string::npos)
          << s.ToString();
    }
  }
  // Other ids are RocksDB's business, as before.
  rdb::ColumnFamilyOptions options;
  EXPECT_TRUE(ParseCollectors(lenient, "{id=other.Collector}", &options).ok());
}

TEST(RocksdbDbRangeFilter, UnknownSstfilterCollectorIdInOptionsFileFailsOpen) {
  TempDir dir;
  rdb::Options options;
  rdb::Options base;
  base.create_if_missing = true;
  ASSERT_TRUE(WithRangeFilter(base, kSpec, &options).ok());
  {
    std::unique_ptr<rdb::DB> db = Open(options, dir.path());
    ASSERT_TRUE(db);
  }
  EditOptionsFile(dir.path(), "id=sstfilter.RangeFilter",
                  "id=sstfilter.RangeFiltr");
  std::unique_ptr<rdb::DB> db;
  const rdb::Status s = OpenFromOptionsFile(dir.path(), &db);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("sstfilter.RangeFiltr"), std::string::npos)
      << s.ToString();
  EXPECT_EQ(db, nullptr);
}

// What RocksDB's ignore_unknown_options=true does to the collector's list
// (ConfigurableHelper::ConfigureSomeOptions, options/configurable.cc, turns
// every error into OK): an element it cannot make is dropped with those
// after it, and a value that does not parse keeps its default. The README
// says so; this test keeps it true.
TEST(RocksdbDbRangeFilter, IgnoreUnknownOptionsDropsOrDefaultsSilently) {
  rdb::ConfigOptions ignoring;
  ignoring.ignore_unknown_options = true;
  for (const char* spec : {"{id=sstfilter.RangeFiltr;bits_per_key=12}",
                           "{id=sstfilter.RangeFilter;bits_per_key=2}"}) {
    rdb::ColumnFamilyOptions options;
    EXPECT_TRUE(ParseCollectors(ignoring, spec, &options).ok()) << spec;
    EXPECT_TRUE(options.table_properties_collector_factories.empty()) << spec;
  }
  rdb::ColumnFamilyOptions options;
  ASSERT_TRUE(ParseCollectors(ignoring,
                              "{id=sstfilter.RangeFilter;bits_per_key=abc}",
                              &options)
                  .ok());
  ASSERT_EQ(options.table_properties_collector_factories.size(), 1u);
  std::string bits;
  ASSERT_TRUE(options.table_properties_collector_factories[0]
                  ->GetOption(rdb::ConfigOptions(), "bits_per_key", &bits)
                  .ok());
  EXPECT_EQ(std::stod(bits), 12.0);
}

// What the table filter answers for hand-made properties.
TEST(RocksdbDbRangeFilter,
     TablesWithoutAReadableFilterOrOfAnotherOrderAreRead) {
  RangeFilterBuilder builder(12, RangeKeyRule{});
  builder.AddKey(IntKey(1000));
  std::string bytes;
  ASSERT_TRUE(builder.Finish(&bytes).ok());
  rdb::TableProperties props;
  props.comparator_name = rdb::BytewiseComparator()->Name();
  const std::string lo = IntKey(5000), hi = IntKey(5016);
  // No property: read.
  EXPECT_TRUE(RangeMayOverlap(props, lo, hi));
  props.user_collected_properties[kRangeFilterProperty] = bytes;
  EXPECT_FALSE(RangeMayOverlap(props, lo, hi));
  EXPECT_TRUE(RangeMayOverlap(props, IntKey(1000), IntKey(1001)));
  // Reverse order: the same range is [hi, lo) there.
  props.comparator_name = rdb::ReverseBytewiseComparator()->Name();
  EXPECT_FALSE(RangeMayOverlap(props, hi, lo));
  EXPECT_TRUE(RangeMayOverlap(props, IntKey(1001), IntKey(999)));
  // Another comparator: read.
  props.comparator_name = "some.OtherComparator";
  EXPECT_TRUE(RangeMayOverlap(props, lo, hi));
  // A version this build does not know, or truncated bytes: read.
  props.comparator_name = rdb::BytewiseComparator()->Name();
  std::string future = bytes;
  future[4] = 9;
  props.user_collected_properties[kRangeFilterProperty] = future;
  EXPECT_TRUE(RangeMayOverlap(props, lo, hi));
  props.user_collected_properties[kRangeFilterProperty] = bytes.substr(0, 50);
  EXPECT_TRUE(RangeMayOverlap(props, lo, hi));
}

// The filter has no checksum of its own (range_filter.h says why): what
// the decision rests on is RocksDB's block checksum over the properties
// block, so a bit flipped in the filter's bytes in the SST file reaches
// no table filter and the DB answers Corruption. With kNoChecksum nothing
// guards it, as the README says.
TEST(RocksdbDbRangeFilter, AFilterCorruptedOnDiskReachesNoScan) {
  for (const rdb::ChecksumType checksum : {rdb::kCRC32c, rdb::kNoChecksum}) {
    SCOPED_TRACE(checksum == rdb::kNoChecksum ? "kNoChecksum" : "kCRC32c");
    TempDir dir;
    rdb::Options base;
    base.create_if_missing = true;
    rdb::BlockBasedTableOptions table_options;
    table_options.checksum = checksum;
    base.table_factory.reset(rdb::NewBlockBasedTableFactory(table_options));
    rdb::Options options;
    ASSERT_TRUE(WithRangeFilter(base, kSpec, &options).ok());
    std::string sst, filter;
    {
      std::unique_ptr<rdb::DB> db = Open(options, dir.path());
      ASSERT_TRUE(db);
      for (uint64_t i = 0; i < 1000; ++i) {
        ASSERT_TRUE(db->Put(rdb::WriteOptions(), IntKey(i * 1000), "v").ok());
      }
      ASSERT_TRUE(db->Flush(rdb::FlushOptions()).ok());
      rdb::TablePropertiesCollection tables;
      ASSERT_TRUE(db->GetPropertiesOfAllTables(&tables).ok());
      ASSERT_EQ(tables.size(), 1u);
      sst = tables.begin()->first;
      filter = tables.begin()->second->user_collected_properties.at(
          kRangeFilterProperty);
    }
    // One bit flipped in the middle of the filter, where the file holds it.
    std::string file;
    {
      std::ifstream in(sst, std::ios::binary);
      file.assign(std::istreambuf_iterator<char>(in),
                  std::istreambuf_iterator<char>());
    }
    const size_t at = file.find(filter);
    ASSERT_NE(at, std::string::npos);
    ASSERT_EQ(file.find(filter, at + 1), std::string::npos);
    file[at + filter.size() / 2] ^= 0x10;
    std::ofstream(sst, std::ios::binary | std::ios::trunc) << file;
    std::string flipped = filter;
    flipped[filter.size() / 2] ^= 0x10;

    // What a scan's table filter is shown, and what RocksDB answers.
    std::vector<std::string> shown;
    std::unique_ptr<rdb::DB> db;
    rdb::Status s = rocksdb_compat::OpenDb(options, dir.path(), &db);
    if (s.ok()) {
      RangeScanOptions scan(IntKey(0), IntKey(1000 * 1000));
      rdb::ReadOptions read_options = scan.read_options();
      read_options.table_filter = [&shown, inner = read_options.table_filter](
                                      const rdb::TableProperties& props) {
        const auto& user = props.user_collected_properties;
        const auto it = user.find(kRangeFilterProperty);
        if (it != user.end()) shown.push_back(it->second);
        return inner(props);
      };
      Entries entries;
      s = Scan(db.get(), read_options, true, &entries);
    }
    if (checksum == rdb::kNoChecksum) {
      EXPECT_TRUE(s.ok()) << s.ToString();
      ASSERT_EQ(shown.size(), 1u);
      EXPECT_EQ(shown[0], flipped);
    } else {
      EXPECT_TRUE(s.IsCorruption()) << s.ToString();
      EXPECT_TRUE(shown.empty());
    }
  }
}

// One random history written to two DBs, one with range filters and one
// without, then scans of random short ranges compared at the newest state
// and at snapshots, both directions, before and after a reopen.
void ExpectScansMatchADbWithoutRangeFilters(const rdb::Comparator* comparator,
                                            uint64_t seed) {
  TempDir dir_with, dir_without;
  const rdb::Options plain = SmallTreeOptions(comparator);
  rdb::Options with;
  ASSERT_TRUE(WithRangeFilter(plain, kSpec, &with).ok());
  std::unique_ptr<rdb::DB> db = Open(with, dir_with.path());
  std::unique_ptr<rdb::DB> ref = Open(plain, dir_without.path());
  ASSERT_TRUE(db && ref);

  // Keys are multiples of 64 in [0, 2^20): most short ranges hold none.
  // Keys 64 * (7k + 3) are put once and maybe single-deleted once (what
  // SingleDelete allows); others take any operation.
  std::mt19937_64 rng(seed);
  const auto random_key = [&] { return uint64_t{64} * (rng() % 16384); };
  std::vector<uint64_t> single_keys;
  std::vector<const rdb::Snapshot*> db_snaps, ref_snaps;
  const auto both = [&](auto&& op) {
    const rdb::Status a = op(db.get()), b = op(ref.get());
    ASSERT_TRUE(a.ok()) << a.ToString();
    ASSERT_TRUE(b.ok()) << b.ToString();
  };
  for (int step = 0; step < 30000; ++step) {
    const uint64_t k = random_key();
    const std::string key = IntKey(k), value = "v" + std::to_string(step);
    const int what = static_cast<int>(rng() % 100);
    rdb::WriteOptions wo;
    if ((k / 64) % 7 == 3) {
      if (std::find(single_keys.begin(), single_keys.end(), k) !=
          single_keys.end()) {
        continue;
      }
      single_keys.push_back(k);
      both([&](rdb::DB* d) { return d->Put(wo, key, value); });
      if (what < 50) {
        both([&](rdb::DB* d) { return d->SingleDelete(wo, key); });
      }
    } else if (what < 55) {
      both([&](rdb::DB* d) { return d->Put(wo, key, value); });
    } else if (what < 75) {
      both([&](rdb::DB* d) { return d->Delete(wo, key); });
    } else if (what < 95) {
      both([&](rdb::DB* d) { return d->Merge(wo, key, value); });
    } else if (what < 97) {
      // A range deletion of a few keys, in the comparator's order.
      std::string from = key, to = IntKey(k + 64 * (1 + rng() % 8));
      if (comparator != rdb::BytewiseComparator()) std::swap(from, to);
      both([&](rdb::DB* d) {
        return d->DeleteRange(wo, d->DefaultColumnFamily(), from, to);
      });
    } else if (what < 98 && db_snaps.size() < 4) {
      db_snaps.push_back(db->GetSnapshot());
      ref_snaps.push_back(ref->GetSnapshot());
    } else if (what < 99) {
      both([&](rdb::DB* d) { return d->Flush(rdb::FlushOptions()); });
    }
  }

  uint64_t skipped = 0, asked = 0;
  const auto compare_scans = [&](int rounds) {
    for (int round = 0; round < rounds; ++round) {
      const uint64_t start = rng() % (uint64_t{1} << 20);
      const uint64_t length = 1 + rng() % 300;
      std::string lower = IntKey(start), upper = IntKey(start + length);
      if (comparator != rdb::BytewiseComparator()) std::swap(lower, upper);
      const size_t snap = rng() % (db_snaps.size() + 1);
      rdb::ReadOptions base, ref_options;
      if (snap < db_snaps.size()) {
        base.snapshot = db_snaps[snap];
        ref_options.snapshot = ref_snaps[snap];
      }
      RangeScanOptions scan(lower, upper, base);
      // Count what the filter skips: it must skip for the test to mean
      // anything.
      rdb::ReadOptions counted = scan.read_options();
      counted.table_filter =
          [&, inner = counted.table_filter](const rdb::TableProperties& props) {
            ++asked;
            const bool read = inner(props);
            skipped += !read;
            return read;
          };
      rdb::Slice lo(lower), hi(upper);
      ref_options.iterate_lower_bound = &lo;
      ref_options.iterate_upper_bound = &hi;
      for (bool forward : {true, false}) {
        Entries got, want;
        ASSERT_TRUE(Scan(db.get(), counted, forward, &got).ok());
        ASSERT_TRUE(Scan(ref.get(), ref_options, forward, &want).ok());
        ASSERT_EQ(got, want)
            << "range at " << start << " length " << length
            << (forward ? " forward" : " backward") << " snapshot " << snap;
      }
    }
  };
  compare_scans(1000);
  for (size_t i = 0; i < db_snaps.size(); ++i) {
    db->ReleaseSnapshot(db_snaps[i]);
    ref->ReleaseSnapshot(ref_snaps[i]);
  }
  db_snaps.clear();
  ref_snaps.clear();
  // Reopen: the filters come back from the files' properties.
  db.reset();
  db = Open(with, dir_with.path());
  ASSERT_TRUE(db);
  compare_scans(1000);
  EXPECT_GT(skipped, asked / 4) << skipped << " of " << asked;
}

// Seeds 1 and 2 in the test command; SSTFILTER_RANGE_SEEDS=N runs N more
// histories per comparator (the long randomized run).
int ExtraSeeds() {
  const char* value = std::getenv("SSTFILTER_RANGE_SEEDS");
  return value == nullptr ? 0 : std::atoi(value);
}

TEST(RocksdbDbRangeFilter, ScansMatchADbWithoutRangeFiltersBytewise) {
  for (int seed = 1; seed <= 1 + ExtraSeeds(); ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    ExpectScansMatchADbWithoutRangeFilters(rdb::BytewiseComparator(),
                                           2 * seed - 1);
  }
}

TEST(RocksdbDbRangeFilter, ScansMatchADbWithoutRangeFiltersReverseBytewise) {
  for (int seed = 1; seed <= 1 + ExtraSeeds(); ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    ExpectScansMatchADbWithoutRangeFilters(rdb::ReverseBytewiseComparator(),
                                           2 * seed);
  }
}

// Files written before the collector was turned on have no property: the
// same scans return the same keys, and those files are never skipped.
TEST(RocksdbDbRangeFilter, FilesWrittenWithoutTheCollectorAreReadAsUsual) {
  TempDir dir;
  const rdb::Options plain = SmallTreeOptions(rdb::BytewiseComparator());
  {
    std::unique_ptr<rdb::DB> db = Open(plain, dir.path());
    for (uint64_t i = 0; i < 2000; ++i) {
      ASSERT_TRUE(db->Put(rdb::WriteOptions(), IntKey(i * 1000), "old").ok());
    }
    ASSERT_TRUE(db->Flush(rdb::FlushOptions()).ok());
  }
  rdb::Options with;
  ASSERT_TRUE(WithRangeFilter(plain, kSpec, &with).ok());
  std::unique_ptr<rdb::DB> db = Open(with, dir.path());
  ASSERT_TRUE(db);
  for (uint64_t i = 0; i < 2000; ++i) {
    RangeScanOptions scan(IntKey(i * 1000), IntKey(i * 1000 + 1));
    int skipped = 0;
    rdb::ReadOptions counted = scan.read_options();
    counted.table_filter =
        [&, inner = counted.table_filter](const rdb::TableProperties& props) {
          const bool read = inner(props);
          skipped += !read;
          return read;
        };
    Entries got;
    ASSERT_TRUE(Scan(db.get(), counted, true, &got).ok());
    ASSERT_EQ(got.size(), 1u) << i;
    EXPECT_EQ(skipped, 0);
  }
}

rdb::Options CountingOptions() {
  rdb::Options options = SmallTreeOptions(rdb::BytewiseComparator());
  options.merge_operator = nullptr;
  options.statistics = rdb::CreateDBStatistics();
  rdb::BlockBasedTableOptions table;
  table.cache_index_and_filter_blocks = true;
  table.block_cache = rdb::NewLRUCache(64 << 20);
  options.table_factory.reset(rdb::NewBlockBasedTableFactory(table));
  return options;
}

// Data blocks one scan of [lower, upper) reads, Seek + `nexts` Nexts,
// with the range filter and without; both must find the same keys.
struct ScanCost {
  uint64_t with_filter = 0, without = 0;
  void Add(rdb::DB* db, rdb::Statistics& stats, const std::string& lower,
           const std::string& upper, int nexts, int* found) {
    RangeScanOptions scan(lower, upper);
    rdb::ReadOptions plain = scan.read_options();
    plain.table_filter = nullptr;
    int found_plain = 0;
    with_filter +=
        SeekAndNext(db, stats, scan.read_options(), nexts, found).data;
    without += SeekAndNext(db, stats, plain, nexts, &found_plain).data;
    EXPECT_EQ(*found, found_plain) << "a scan lost keys";
  }
};

// A DB reopened without the collector: new SSTs have no filter and are
// read, the old ones' filters still skip.
TEST(RocksdbDbRangeFilter, ADbReopenedWithoutTheCollectorKeepsOldFilters) {
  TempDir dir;
  const rdb::Options plain = SmallTreeOptions(rdb::BytewiseComparator());
  rdb::Options with;
  ASSERT_TRUE(WithRangeFilter(plain, kSpec, &with).ok());
  {
    std::unique_ptr<rdb::DB> db = Open(with, dir.path());
    for (uint64_t i = 0; i < 2000; ++i) {
      ASSERT_TRUE(db->Put(rdb::WriteOptions(), IntKey(i * 1000), "old").ok());
    }
    ASSERT_TRUE(db->Flush(rdb::FlushOptions()).ok());
  }
  std::unique_ptr<rdb::DB> db = Open(plain, dir.path());
  ASSERT_TRUE(db);
  ASSERT_TRUE(db->Put(rdb::WriteOptions(), IntKey(500), "new").ok());
  ASSERT_TRUE(db->Flush(rdb::FlushOptions()).ok());
  int skipped = 0, read = 0;
  for (uint64_t lo : {uint64_t{500}, uint64_t{700500}}) {
    RangeScanOptions scan(IntKey(lo), IntKey(lo + 16));
    rdb::ReadOptions counted = scan.read_options();
    counted.table_filter =
        [&, inner = counted.table_filter](const rdb::TableProperties& props) {
          const bool answer = inner(props);
          (answer ? read : skipped) += 1;
          return answer;
        };
    Entries got;
    ASSERT_TRUE(Scan(db.get(), counted, true, &got).ok());
    EXPECT_EQ(got.size(), lo == 500 ? 1u : 0u);
  }
  EXPECT_GT(skipped, 0);  // the old SSTs, for both ranges
  EXPECT_GE(read, 2);     // the new SST, which has no filter, both times
}

// A leveled DB of uniform keys (every level spans the key space): empty
// ranges of 16 integers read almost no data block with range filters.
// Counts, not times: the same on a busy machine.
TEST(RocksdbDbRangeFilter, EmptyShortRangesReadFewDataBlocks) {
  TempDir dir;
  rdb::Options options;
  ASSERT_TRUE(WithRangeFilter(CountingOptions(), kSpec, &options).ok());
  std::unique_ptr<rdb::DB> db = Open(options, dir.path());
  ASSERT_TRUE(db);
  std::mt19937_64 rng(5);
  std::vector<uint64_t> keys(100000);
  for (uint64_t& k : keys) {
    k = rng() & ~uint64_t{0xff};  // room for empty ranges beside each key
    ASSERT_TRUE(
        db->Put(rdb::WriteOptions(), IntKey(k), std::string(50, 'v')).ok());
  }
  ASSERT_TRUE(db->Flush(rdb::FlushOptions()).ok());
  // Scanned once settled, so no compaction changes the tree between the
  // scans with the filter and without.
  ASSERT_TRUE(rocksdb_compat::WaitForCompactions(db.get()).ok());
  ScanCost cost;
  for (int i = 0; i < 2000; ++i) {
    const uint64_t k = keys[rng() % keys.size()];
    int found = 0;
    cost.Add(db.get(), *options.statistics, IntKey(k + 16), IntKey(k + 32), 0,
             &found);
    ASSERT_EQ(found, 0);
  }
  std::printf("data blocks per empty scan: %.3f with, %.3f without\n",
              cost.with_filter / 2000.0, cost.without / 2000.0);
  EXPECT_LE(cost.with_filter, cost.without / 10);
}

// Seek + 10 Next in one series, on DBs of series written in time order
// whose points are `gap` integers apart: the data blocks read with the
// filter and without.
ScanCost SeriesSeekCost(uint64_t gap) {
  TempDir dir;
  rdb::Options options;
  EXPECT_TRUE(WithRangeFilter(CountingOptions(), kSpec, &options).ok());
  std::unique_ptr<rdb::DB> db = Open(options, dir.path());
  constexpr uint64_t kSeries = 200, kTimes = 500;
  for (uint64_t t = 0; t < kTimes; ++t) {
    for (uint64_t s = 0; s < kSeries; ++s) {
      EXPECT_TRUE(db->Put(rdb::WriteOptions(), IntKey(s << 32 | (t * gap)),
                          std::string(50, 'v'))
                      .ok());
    }
  }
  EXPECT_TRUE(db->Flush(rdb::FlushOptions()).ok());
  EXPECT_TRUE(rocksdb_compat::WaitForCompactions(db.get()).ok());
  std::mt19937_64 rng(6);
  ScanCost cost;
  for (int i = 0; i < 1000; ++i) {
    const uint64_t s = rng() % kSeries, t = rng() % (kTimes - 11);
    int found = 0;
    cost.Add(db.get(), *options.statistics, IntKey(s << 32 | (t * gap)),
             IntKey(s << 32 | ((t + 10) * gap + 1)), 10, &found);
    EXPECT_EQ(found, 11);
  }
  return cost;
}

// Time series, written in time order: series s at time t is s << 32 | t.
// A scan of one series' next 10 points reads the files holding them; the
// other levels' files hold that series at other times only, and are
// skipped.
TEST(RocksdbDbRangeFilter, ShortScansOfOneSeriesReadFewerDataBlocks) {
  const ScanCost cost = SeriesSeekCost(1);
  std::printf("data blocks per Seek + 10 Next: %.3f with, %.3f without\n",
              cost.with_filter / 1000.0, cost.without / 1000.0);
  EXPECT_LT(cost.with_filter, cost.without);
}

// What the README's scan figures hold for: a scan skips the files whose
// keys near its range are farther than the filter resolves (its FPR
// grows with the range's length in integers), so ten points 1 apart save
// much and ten points 1000 apart (a range of 10^4 integers, past
// 2^(12-2.1)) almost nothing.
TEST(RocksdbDbRangeFilter, SeriesScansSaveLessWhenPointsAreFarApart) {
  const ScanCost near = SeriesSeekCost(1), far = SeriesSeekCost(1000);
  const double near_ratio =
      static_cast<double>(near.with_filter) / static_cast<double>(near.without);
  const double far_ratio =
      static_cast<double>(far.with_filter) / static_cast<double>(far.without);
  std::printf(
      "Seek + 10 Next, data blocks with/without: %.3f (1 apart), "
      "%.3f (1000 apart)\n",
      near_ratio, far_ratio);
  EXPECT_LT(near_ratio, 0.8);
  EXPECT_GT(far_ratio, 0.8);
}

// A window past the last point of a DB's only series: RocksDB already
// skips every SST file whose keys end before the scan, so the filter has
// nothing left to save; it saves where other series share the files.
TEST(RocksdbDbRangeFilter, PastTheOnlySeriesLastPointTheFilterSavesNothing) {
  TempDir dir;
  rdb::Options options;
  ASSERT_TRUE(WithRangeFilter(CountingOptions(), kSpec, &options).ok());
  std::unique_ptr<rdb::DB> db = Open(options, dir.path());
  ASSERT_TRUE(db);
  constexpr uint64_t kPoints = 50000;
  for (uint64_t t = 0; t < kPoints; ++t) {
    ASSERT_TRUE(
        db->Put(rdb::WriteOptions(), IntKey(t), std::string(50, 'v')).ok());
  }
  ASSERT_TRUE(db->Flush(rdb::FlushOptions()).ok());
  ASSERT_TRUE(rocksdb_compat::WaitForCompactions(db.get()).ok());
  std::mt19937_64 rng(8);
  ScanCost cost;
  for (int i = 0; i < 1000; ++i) {
    const uint64_t lo = kPoints + rng() % 64;
    int found = 0;
    cost.Add(db.get(), *options.statistics, IntKey(lo), IntKey(lo + 16), 0,
             &found);
    ASSERT_EQ(found, 0);
  }
  EXPECT_EQ(cost.without, 0u);
  EXPECT_EQ(cost.with_filter, 0u);
}

}  // namespace
}  // namespace sstfilter::test_support
