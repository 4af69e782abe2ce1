// sstfilter-db-demo: builds a real RocksDB database with each filter policy
// (sstfilter's, with LevelAware's three choices, RocksDB's bloomfilter at
// the same bits/key and ribbonfilter at about the same filter memory),
// looks up present and absent keys, and prints one side-by-side table with
// each policy's wasted reads and memory as ratios to both of RocksDB's.
//
//   sstfilter-db-demo [--keys N] [--lookups M] [--bits_per_key B,...]
//                     [--policies ID,...] [--dir D]    (--help: defaults)
//
// Every database has the same keys in the same LSM shape: four runs of the
// key space, compacted to L3 (bottommost), L2 and L1 and one left on L0 as
// a flush, sized 64:16:4:1 as a leveled LSM grows by level. So every absent
// key is checked against four filters (one file per level), as in a real
// Get. Exits 1 if any lookup gives a wrong answer or a file has no filter.
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "db_levels.h"
#include "inspector.h"
#include "rocksdb/cache.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/statistics.h"
#include "rocksdb/table.h"
#include "rocksdb/table_properties.h"
#include "rocksdb/version.h"
#include "rocksdb/write_batch.h"
#include "rocksdb_db_compat.h"
#include "sstfilter/hash.h"
#include "sstfilter/rocksdb_plugin.h"

namespace {

namespace rdb = ROCKSDB_NAMESPACE;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr int kLevels = 4;
// Of every 85 keys, 64 go to L3, 16 to L2, 4 to L1 and 1 stays on L0.
constexpr uint64_t kRunWeights[kLevels] = {1, 4, 16, 64};  // L0..L3
constexpr uint64_t kWeightTotal = 85;
constexpr size_t kValueSize = 64;
constexpr size_t kMultiGetBatch = 32;
// Absent-key lookups are fast: their rate is the best of a few passes.
constexpr int kAbsentPasses = 5;

struct Args {
  uint64_t keys = 300'000;
  uint64_t lookups = 100'000;
  // Each budget gets the four default policies.
  std::vector<std::string> bits_per_key = {"10", "16"};
  std::vector<std::string> policies;  // default: from bits_per_key
  std::vector<size_t> groups;         // each policy's budget
  std::string dir;                    // default: a temporary directory
};

// Present keys are Key(i) for i < keys, absent ones Key(i) above: 16 hex
// digits of a bijective mix of i, so both sets spread evenly over the key
// space and every absent key falls inside the files' key ranges.
std::string Key(uint64_t i) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016" PRIx64, sstfilter::Remix64(i));
  return buf;
}

// Half random, half repetitive, so Snappy halves it as db_bench's values.
std::string Value(uint64_t i) {
  std::string value = Key(~i) + Key(i * 7 + 3);
  value.resize(kValueSize, 'v');
  return value;
}

int LevelOf(uint64_t i) {
  uint64_t slot = i % kWeightTotal;
  for (int level = 0; level < kLevels; ++level) {
    if (slot < kRunWeights[level]) return level;
    slot -= kRunWeights[level];
  }
  return kLevels - 1;
}

rdb::Status MakeOptions(const std::string& policy, rdb::Options* options) {
  options->create_if_missing = true;
  options->compression = rdb::kSnappyCompression;
  options->disable_auto_compactions = true;  // the LSM is built explicitly
  options->write_buffer_size = 512 << 20;    // one flush per run
  options->statistics = rdb::CreateDBStatistics();
  rdb::BlockBasedTableOptions table;
  rdb::Status s = rdb::FilterPolicy::CreateFromString(
      rdb::ConfigOptions(), policy, &table.filter_policy);
  table.block_cache = rdb::NewLRUCache(8 << 20);  // RocksDB's default size
  options->table_factory.reset(rdb::NewBlockBasedTableFactory(table));
  // What LevelAware needs to see the tree (harmless to the other policies):
  // listeners={sstfilter.LevelAwareListener} in an options string.
  if (s.ok()) {
    rdb::DBOptions with_listener;
    s = rdb::GetDBOptionsFromString(rdb::ConfigOptions(), *options,
                                    "listeners={sstfilter.LevelAwareListener}",
                                    &with_listener);
    if (s.ok()) *options = rdb::Options(with_listener, *options);
  }
  return s;
}

// Writes run L3 first, compacts it to L3, then L2, L1, and flushes L0.
// Then rewrites L3, L2 and L1 in place, as compactions keep rewriting a
// settled LSM's levels: each table is then built with the whole tree
// standing, which is what a policy that sizes filters by level (LevelAware)
// sees in a DB that has run for a while. The other policies build the same
// filters either way.
rdb::Status BuildLsm(rdb::DB* db, uint64_t num_keys) {
  rdb::Status s = sstfilter::db_support::BuildLevels(
      db, num_keys, kLevels, LevelOf,
      [](uint64_t i, rdb::WriteBatch* batch) { batch->Put(Key(i), Value(i)); },
      4 << 20);
  for (int level = kLevels - 1; level >= 1 && s.ok(); --level) {
    rdb::CompactionOptions compaction;
    compaction.compression = rdb::kSnappyCompression;
    compaction.output_file_size_limit = 4 << 20;
    s = db->CompactFiles(compaction,
                         sstfilter::db_support::FilesAtLevel(db, level), level);
  }
  return s;
}

struct Row {
  std::string policy;
  size_t group = 0;     // the budget (--bits_per_key) it belongs to
  std::string filters;  // the filter kind of each level
  std::string shape;    // files per level
  double bits_per_key = 0;
  double estimated_fpr = 0;
  double measured_fpr = 0;
  uint64_t filter_checks = 0;
  uint64_t reads_avoided = 0;
  double absent_get_per_s = 0;
  double absent_multiget_per_s = 0;
  double present_get_per_s = 0;
};

// "L0 BlockedBloom, L1-L3 Cuckoo" from the kind on each level.
std::string DescribeLevels(const std::vector<std::string>& kinds) {
  std::string out;
  for (size_t first = 0; first < kinds.size();) {
    size_t last = first;
    while (last + 1 < kinds.size() && kinds[last + 1] == kinds[first]) ++last;
    if (!out.empty()) out += ", ";
    out += "L" + std::to_string(first);
    if (last > first) out += "-L" + std::to_string(last);
    out += " " + kinds[first];
    first = last + 1;
  }
  return out;
}

// Filter sizes from the tables' properties; the kind of each filter and
// the FPR its fill predicts from the inspector. The expected FPR per
// filter check weighs each file by the share of absent Gets it sees: all
// of them for an L0 file, its share of the keys for a file on L1+.
rdb::Status DescribeFilters(rdb::DB* db, Row* row) {
  rdb::TablePropertiesCollection tables;
  rdb::Status s = db->GetPropertiesOfAllTables(&tables);
  if (!s.ok()) return s;
  uint64_t filter_bytes = 0;
  uint64_t filter_entries = 0;
  for (const auto& entry : tables) {
    const rdb::TableProperties* properties = entry.second.get();
    filter_bytes += properties->filter_size;
    filter_entries += properties->num_filter_entries;
  }
  row->bits_per_key = filter_entries ? static_cast<double>(filter_bytes) * 8 /
                                           static_cast<double>(filter_entries)
                                     : 0.0;

  rdb::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  std::vector<std::string> kinds;
  double expected_positives = 0;
  double expected_checks = 0;
  for (int level = 0; level < kLevels; ++level) {
    const auto& files = meta.levels[level].files;
    row->shape += (level ? " " : "") + std::to_string(files.size());
    uint64_t level_keys = 0;
    for (const auto& file : files) level_keys += file.num_entries;
    std::string kind;
    for (const auto& file : files) {
      const sstfilter::inspect::FileReport report =
          sstfilter::inspect::InspectFile(file.db_path + file.name, {});
      if (!report.status.ok()) {
        return rdb::Status::Corruption(file.db_path + file.name,
                                       report.status.ToString());
      }
      if (report.blocks.empty()) {
        return rdb::Status::Corruption(file.db_path + file.name,
                                       "the table has no filter");
      }
      const std::string& file_kind = report.blocks.front().kind;
      kind = kind.empty() || kind == file_kind ? file_kind : "mixed";
      const double share =
          level == 0 ? 1.0
                     : static_cast<double>(file.num_entries) /
                           static_cast<double>(level_keys ? level_keys : 1);
      expected_positives += share * report.fpr;
      expected_checks += share;
    }
    kinds.push_back(kind.empty() ? "none" : kind);
  }
  row->filters = DescribeLevels(kinds);
  row->estimated_fpr =
      expected_checks > 0 ? expected_positives / expected_checks : 0;
  return rdb::Status::OK();
}

// The fastest of `passes` runs of `pass`, which looks up `count` keys, in
// lookups per second. The first run also warms the index blocks.
template <typename Pass>
double FastestPerSecond(int passes, uint64_t count, const Pass& pass) {
  double best = 0;
  for (int i = 0; i < passes; ++i) {
    const auto start = Clock::now();
    pass();
    const double seconds =
        std::chrono::duration<double>(Clock::now() - start).count();
    if (seconds > 0) {
      best = std::max(best, static_cast<double>(count) / seconds);
    }
  }
  return best;
}

// Gets and MultiGets of absent keys, then Gets of present keys. Corruption
// if any answer is wrong.
rdb::Status MeasureLookups(rdb::DB* db, rdb::Statistics* stats,
                           const Args& args, Row* row) {
  bool ok = true;
  std::vector<std::string> absent(args.lookups);
  for (uint64_t i = 0; i < args.lookups; ++i) absent[i] = Key(args.keys + i);
  std::string value;
  const rdb::ReadOptions read_options;

  stats->Reset();
  row->absent_get_per_s = FastestPerSecond(kAbsentPasses, absent.size(), [&] {
    for (const std::string& key : absent) {
      ok &= db->Get(read_options, key, &value).IsNotFound();
    }
  });
  // Every pass checks the same filters with the same answers.
  const uint64_t useful =
      stats->getTickerCount(rdb::BLOOM_FILTER_USEFUL) / kAbsentPasses;
  const uint64_t positive =
      (stats->getTickerCount(rdb::BLOOM_FILTER_FULL_POSITIVE) -
       stats->getTickerCount(rdb::BLOOM_FILTER_FULL_TRUE_POSITIVE)) /
      kAbsentPasses;
  row->reads_avoided = useful;
  row->filter_checks = useful + positive;
  row->measured_fpr = row->filter_checks
                          ? static_cast<double>(positive) /
                                static_cast<double>(row->filter_checks)
                          : 0;

  const std::vector<rdb::Slice> slices(absent.begin(), absent.end());
  const uint64_t batches = slices.size() / kMultiGetBatch;
  std::vector<rdb::PinnableSlice> values(kMultiGetBatch);
  std::vector<rdb::Status> statuses(kMultiGetBatch);
  row->absent_multiget_per_s =
      FastestPerSecond(kAbsentPasses, batches * kMultiGetBatch, [&] {
        for (uint64_t b = 0; b < batches; ++b) {
          db->MultiGet(read_options, db->DefaultColumnFamily(), kMultiGetBatch,
                       &slices[b * kMultiGetBatch], values.data(),
                       statuses.data());
          for (const rdb::Status& s : statuses) ok &= s.IsNotFound();
        }
      });

  // Present keys spread over the whole key space, and so over the levels.
  const uint64_t stride =
      args.keys / args.lookups ? args.keys / args.lookups : 1;
  std::vector<std::string> present(args.lookups);
  std::vector<std::string> present_values(args.lookups);
  for (uint64_t i = 0; i < args.lookups; ++i) {
    present[i] = Key(i * stride % args.keys);
    present_values[i] = Value(i * stride % args.keys);
  }
  row->present_get_per_s = FastestPerSecond(1, present.size(), [&] {
    for (size_t i = 0; i < present.size(); ++i) {
      ok &= db->Get(read_options, present[i], &value).ok() &&
            value == present_values[i];
    }
  });
  return ok ? rdb::Status::OK()
            : rdb::Status::Corruption(
                  "a lookup found an absent key or missed a present one");
}

rdb::Status RunPolicy(const rdb::Options& options, const std::string& path,
                      const Args& args, Row* row) {
  std::unique_ptr<rdb::DB> db;
  rdb::Status s = sstfilter::rocksdb_compat::OpenDb(options, path, &db);
  if (s.ok()) s = BuildLsm(db.get(), args.keys);
  if (s.ok()) s = DescribeFilters(db.get(), row);
  if (s.ok()) s = MeasureLookups(db.get(), options.statistics.get(), args, row);
  if (db != nullptr) {
    const rdb::Status closed = db->Close();
    if (s.ok()) s = closed;
  }
  return s;
}

std::string WithThousands(uint64_t n) {
  std::string digits = std::to_string(n);
  for (int at = static_cast<int>(digits.size()) - 3; at > 0; at -= 3) {
    digits.insert(static_cast<size_t>(at), ",");
  }
  return digits;
}

void PrintTable(const Args& args, const std::vector<Row>& rows) {
  std::printf(
      "sstfilter DB demo: RocksDB %d.%d.%d, %s keys (16-byte keys, %zu-byte "
      "values, Snappy)\nin an LSM of %d levels (files per level L0..L3: %s); "
      "%s absent and %s present lookups, one thread.\n\n",
      ROCKSDB_MAJOR, ROCKSDB_MINOR, ROCKSDB_PATCH,
      WithThousands(args.keys).c_str(), kValueSize, kLevels,
      rows.empty() ? "" : rows.front().shape.c_str(),
      WithThousands(args.lookups).c_str(), WithThousands(args.lookups).c_str());
  // The references of a row: the first bloomfilter and ribbonfilter rows
  // of its budget.
  auto reference = [&](const Row& r, const char* prefix) -> const Row* {
    for (const Row& other : rows) {
      if (other.group == r.group && other.policy.rfind(prefix, 0) == 0) {
        return &other;
      }
    }
    return nullptr;
  };
  auto ratio = [](double a, const Row* ref, double Row::*field) {
    char buf[16];
    if (ref == nullptr || ref->*field <= 0) return std::string("-");
    std::snprintf(buf, sizeof(buf), "%.2fx", a / (ref->*field));
    return std::string(buf);
  };
  std::printf(
      "| policy | filters | bits/key | x bloom | x ribbon | FPR measured | "
      "wasted reads x bloom | x ribbon | FPR expected | "
      "data-block reads avoided | absent Get/s | absent MultiGet/s | "
      "present Get/s |\n"
      "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const Row& r : rows) {
    const Row* bloom = reference(r, "bloomfilter");
    const Row* ribbon = reference(r, "ribbonfilter");
    std::printf(
        "| %s | %s | %.2f | %s | %s | %.3f%% | %s | %s | %.3f%% | %s of %s | "
        "%s | %s | %s |\n",
        r.policy.c_str(), r.filters.c_str(), r.bits_per_key,
        ratio(r.bits_per_key, bloom, &Row::bits_per_key).c_str(),
        ratio(r.bits_per_key, ribbon, &Row::bits_per_key).c_str(),
        100 * r.measured_fpr,
        ratio(r.measured_fpr, bloom, &Row::measured_fpr).c_str(),
        ratio(r.measured_fpr, ribbon, &Row::measured_fpr).c_str(),
        100 * r.estimated_fpr, WithThousands(r.reads_avoided).c_str(),
        WithThousands(r.filter_checks).c_str(),
        WithThousands(static_cast<uint64_t>(r.absent_get_per_s)).c_str(),
        WithThousands(static_cast<uint64_t>(r.absent_multiget_per_s)).c_str(),
        WithThousands(static_cast<uint64_t>(r.present_get_per_s)).c_str());
  }
  std::printf(
      "\nbits/key: filter size x 8 / filter entries, summed over the SST "
      "properties; x bloom / x ribbon: ratios to the bloomfilter and "
      "ribbonfilter rows of the same budget.\nFPR measured: filter checks of "
      "absent Gets that said \"may match\" "
      "(rocksdb.bloom.filter.full.positive); every absent Get checks the same "
      "filters, so its ratios are those of the wasted reads.\nFPR expected: "
      "what each filter's fill predicts (sstfilter-inspect), weighted as the "
      "Gets see the files.\ndata-block reads avoided: "
      "rocksdb.bloom.filter.useful over the absent Gets, of all their filter "
      "checks.\nLookups/s: one thread on this machine, absent ones the fastest "
      "of %d passes;\nbench/ has repeated measurements.\n",
      kAbsentPasses);
}

std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> parts;
  for (size_t start = 0; start <= text.size();) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    if (comma > start) parts.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return parts;
}

bool ParseArgs(int argc, char** argv, Args* args) {
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    std::string value;
    const size_t eq = flag.find('=');
    if (eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag.resize(eq);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      return false;
    }
    char* end = nullptr;
    if (flag == "--keys" || flag == "--lookups") {
      const uint64_t n = std::strtoull(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || n == 0) return false;
      (flag == "--keys" ? args->keys : args->lookups) = n;
    } else if (flag == "--bits_per_key") {
      args->bits_per_key = SplitCommas(value);
    } else if (flag == "--policies") {
      args->policies = SplitCommas(value);
    } else if (flag == "--dir") {
      args->dir = value;
    } else {
      return false;
    }
  }
  if (args->policies.empty()) {
    for (size_t g = 0; g < args->bits_per_key.size(); ++g) {
      const std::string& b = args->bits_per_key[g];
      // ribbonfilter's bits/key are Bloom-equivalent: 1.5x B stores about
      // B bits/key of Ribbon (ribbonfilter:15 about 10.1).
      char ribbon[32];
      std::snprintf(ribbon, sizeof(ribbon), "ribbonfilter:%g",
                    1.5 * std::strtod(b.c_str(), nullptr));
      // The level-aware policy is told the demo's size ratio: its levels
      // grow 4-fold (64:16:4:1), not by RocksDB's default 10.
      for (const std::string& id :
           {"bloomfilter:" + b, std::string(ribbon),
            "sstfilter.BlockedBloom:" + b, "sstfilter.Cuckoo:" + b,
            "sstfilter.Hybrid:" + b, "sstfilter.LevelAware:" + b + ":4",
            "sstfilter.LevelAware:" + b + ":4:cpu_lean",
            "sstfilter.LevelAware:" + b + ":4:portable"}) {
        args->policies.push_back(id);
        args->groups.push_back(g);
      }
    }
  }
  args->groups.resize(args->policies.size(), 0);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  if (!ParseArgs(argc, argv, &args)) {
    std::fprintf(
        stderr,
        "usage: %s [--keys N] [--lookups M] [--bits_per_key B,...]\n"
        "          [--policies ID,...] [--dir D]\n"
        "  --keys N          keys in each DB (default %llu)\n"
        "  --lookups M       absent and present lookups per DB (%llu)\n"
        "  --bits_per_key B  budgets of the default policies (10,16)\n"
        "  --policies ID     FilterPolicy ids instead of, for each B,\n"
        "                    bloomfilter:B, ribbonfilter:1.5B,\n"
        "                    sstfilter.BlockedBloom:B, sstfilter.Cuckoo:B,\n"
        "                    sstfilter.Hybrid:B and sstfilter.LevelAware:B:4\n"
        "                    with its choices default, cpu_lean, portable\n"
        "  --dir D           where to build the DBs (default: a temporary\n"
        "                    directory, removed afterwards)\n",
        argv[0], static_cast<unsigned long long>(Args().keys),
        static_cast<unsigned long long>(Args().lookups));
    return 2;
  }
  RegisterSstfilterPolicies(*rdb::ObjectLibrary::Default(), "");
  std::vector<rdb::Options> options(args.policies.size());
  for (size_t i = 0; i < args.policies.size(); ++i) {
    const rdb::Status s = MakeOptions(args.policies[i], &options[i]);
    if (!s.ok()) {
      std::fprintf(stderr, "sstfilter-db-demo: %s\n", s.ToString().c_str());
      return 2;
    }
  }

  const bool temporary = args.dir.empty();
  if (temporary) {
    std::string pattern =
        (fs::temp_directory_path() / "sstfilter-db-demo-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      std::perror("sstfilter-db-demo: mkdtemp");
      return 1;
    }
    args.dir = pattern;
  }
  rdb::Status s;
  std::vector<Row> rows;
  for (size_t i = 0; i < args.policies.size() && s.ok(); ++i) {
    std::fprintf(stderr, "building a DB with %s ...\n",
                 args.policies[i].c_str());
    const std::string path = args.dir + "/db" + std::to_string(i);
    std::error_code ignored;
    fs::remove_all(path, ignored);
    Row row;
    row.policy = args.policies[i];
    row.group = args.groups[i];
    s = RunPolicy(options[i], path, args, &row);
    rows.push_back(row);
    if (temporary) fs::remove_all(path, ignored);
  }
  if (temporary) {
    std::error_code ignored;
    fs::remove_all(args.dir, ignored);
  }
  if (!s.ok()) {
    std::fprintf(stderr, "sstfilter-db-demo: %s: %s\n",
                 rows.back().policy.c_str(), s.ToString().c_str());
    return 1;
  }
  PrintTable(args, rows);
  return 0;
}
