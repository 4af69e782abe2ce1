#include "db_summary.h"

#include <algorithm>
#include <cinttypes>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string_view>
#include <system_error>
#include <utility>

#include "level_aware_allocation.h"
#include "output_format.h"
#include "policies.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/metadata.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/object_registry.h"
#include "rocksdb/utilities/options_util.h"
#include "rocksdb_db_compat.h"
#include "sstfilter/rocksdb_plugin.h"

namespace sstfilter::inspect {
namespace {

namespace fs = std::filesystem;
namespace rdb = ROCKSDB_NAMESPACE;

Status ManifestError(const rdb::Status& s) {
  const std::string message = "cannot read the MANIFEST: " + s.ToString();
  if (s.IsCorruption()) return Status::Corruption(message);
  if (s.IsNotSupported()) return Status::NotSupported(message);
  if (s.IsInvalidArgument()) return Status::InvalidArgument(message);
  return Status::NotFound(message);
}

// The DB's options from its newest OPTIONS file, read with our policies
// registered (in a private registry); else (`*from_file` false) the
// MANIFEST's column families with default options.
rdb::Status LoadOptions(const std::string& dir, rdb::DBOptions* db_options,
                        std::vector<rdb::ColumnFamilyDescriptor>* families,
                        bool* from_file) {
  rdb::ConfigOptions config;
  config.ignore_unknown_options = true;  // e.g. written by a newer RocksDB
  config.registry = rdb::ObjectRegistry::NewInstance();
  config.registry->AddLibrary("sstfilter", RegisterSstfilterPolicies, "");
  *from_file = rdb::LoadLatestOptions(config, dir, db_options, families).ok();
  if (*from_file) return rdb::Status::OK();
  *db_options = rdb::DBOptions();
  families->clear();
  std::vector<std::string> names;
  rdb::Status s = rdb::DB::ListColumnFamilies(*db_options, dir, &names);
  for (const std::string& name : names) {
    families->emplace_back(name, rdb::ColumnFamilyOptions());
  }
  return s;
}

// The filter policy of a column family's options read from an OPTIONS file.
ConfiguredPolicy PolicyOf(const rdb::ColumnFamilyOptions& options) {
  ConfiguredPolicy policy;
  policy.known = true;
  const auto* table =
      options.table_factory == nullptr
          ? nullptr
          : options.table_factory->GetOptions<rdb::BlockBasedTableOptions>();
  if (table != nullptr && table->filter_policy != nullptr) {
    const rdb::FilterPolicy& filter_policy = *table->filter_policy;
    policy.id = filter_policy.GetId();
    policy.filter_policy = table->filter_policy;
    policy.compatibility_name = filter_policy.CompatibilityName();
    policy.sstfilter =
        std::string_view(filter_policy.Name()).rfind("sstfilter.", 0) == 0;
  }
  return policy;
}

// The FPR of the table's filter, or 1 without a filter (the Get reads a
// data block).
double FilterFpr(const FileReport& file) {
  return file.table.filter_layout == sst::FilterLayout::kNone ? 1.0 : file.fpr;
}

// A readable file and the FPR an absent Get meets at it under the
// configured policy: FilterFpr, or 1 where the policy reads no filter.
struct FileFpr {
  const FileReport* file;
  double seen_by_gets;
};

double BitsPerKey(uint64_t bytes, uint64_t keys) {
  return keys > 0 ? 8.0 * static_cast<double>(bytes) / static_cast<double>(keys)
                  : 0;
}

// Sums of FPRs over files.
struct FprSums {
  double plain = 0;
  double key_weighted = 0;
  void Add(double fpr, uint64_t keys) {
    plain += fpr;
    key_weighted += fpr * static_cast<double>(keys);
  }
};

// The figures of `files` (the readable ones), and the sums of the FPRs
// Gets meet at them.
FilesSummary SummarizeFiles(const std::vector<FileFpr>& files,
                            FprSums* seen_by_gets) {
  FilesSummary summary;
  FprSums filter;
  for (const FileFpr& entry : files) {
    const FileReport& file = *entry.file;
    ++summary.num_files;
    filter.Add(FilterFpr(file), file.keys);
    seen_by_gets->Add(entry.seen_by_gets, file.keys);
    summary.keys += file.keys;
    summary.filter_bytes += file.filter_bytes;
    if (file.keys > 0) {
      const bool first = summary.max_bits_per_key == 0;
      summary.min_bits_per_key =
          first ? file.bits_per_key
                : std::min(summary.min_bits_per_key, file.bits_per_key);
      summary.max_bits_per_key =
          std::max(summary.max_bits_per_key, file.bits_per_key);
    }
  }
  summary.bits_per_key = BitsPerKey(summary.filter_bytes, summary.keys);
  if (summary.keys > 0) {
    summary.fpr = filter.key_weighted / static_cast<double>(summary.keys);
  } else if (summary.num_files > 0) {
    summary.fpr = filter.plain / static_cast<double>(summary.num_files);
  }
  return summary;
}

// What files with `sums` add to an absent Get's reads on `level`, whose
// files all have `level_figures`: see FilesSummary::reads_per_get.
double ReadsPerGet(int level, const FprSums& sums,
                   const FilesSummary& level_figures) {
  if (level == 0) return sums.plain;
  if (level_figures.keys > 0) {
    return sums.key_weighted / static_cast<double>(level_figures.keys);
  }
  return level_figures.num_files > 0
             ? sums.plain / static_cast<double>(level_figures.num_files)
             : 0;
}

LevelSummary SummarizeLevel(int level, std::vector<FileReport> files,
                            const ConfiguredPolicy& policy) {
  LevelSummary summary;
  summary.level = level;
  summary.files = std::move(files);
  std::vector<FileFpr> readable;
  // By kind, then by why the policy reads no filter of them ("" first).
  std::map<std::pair<std::string, std::string>, std::vector<FileFpr>> by_kind;
  std::set<std::string> kinds;
  for (const FileReport& file : summary.files) {
    summary.unfiltered.push_back(file.status.ok() ? WhyUnfiltered(file, policy)
                                                  : "");
    if (!file.status.ok()) continue;
    const std::string& why = summary.unfiltered.back();
    const FileFpr entry{&file, why.empty() ? FilterFpr(file) : 1.0};
    readable.push_back(entry);
    const std::string kind = KindName(file);
    kinds.insert(kind.empty() ? "none" : kind);
    by_kind[{kind.empty() ? "none" : kind, why}].push_back(entry);
  }
  for (const std::string& kind : kinds) {
    summary.kinds += (summary.kinds.empty() ? "" : "+") + kind;
  }
  FprSums sums;
  summary.figures = SummarizeFiles(readable, &sums);
  summary.figures.reads_per_get = ReadsPerGet(level, sums, summary.figures);
  for (const auto& [kind_and_why, kind_files] : by_kind) {
    FprSums kind_sums;
    KindSummary& added = summary.by_kind.emplace_back();
    added.kind = kind_and_why.first;
    added.unfiltered = kind_and_why.second;
    added.figures = SummarizeFiles(kind_files, &kind_sums);
    added.figures.reads_per_get =
        ReadsPerGet(level, kind_sums, summary.figures);
  }
  return summary;
}

std::string FileName(const std::string& path) {
  return fs::path(path).filename().string();
}

constexpr char kRowFormat[] = "  %-14s %5s %10s %13s %9s %10s %10s  %s";

std::string Row(const std::string& label, const std::string& files,
                uint64_t keys, uint64_t filter_bytes, double bits_per_key,
                const std::string& fpr, const std::string& reads,
                const std::string& kinds) {
  std::string row =
      Printf(kRowFormat, label.c_str(), files.c_str(),
             std::to_string(keys).c_str(), std::to_string(filter_bytes).c_str(),
             Printf("%.2f", bits_per_key).c_str(), fpr.c_str(), reads.c_str(),
             kinds.c_str());
  row.erase(row.find_last_not_of(' ') + 1);
  return row + "\n";
}

std::string Reads(double reads) { return Printf("%.6f", reads); }

// ", 8.91-12.40 bits/key per file" where a level's files (of one kind:
// kinds that mix get a row each) differ by more than rounding (a quarter
// bit), else "".
std::string PerFileBits(const FilesSummary& figures) {
  if (figures.max_bits_per_key - figures.min_bits_per_key < 0.25) return "";
  return Printf(", %.2f-%.2f bits/key per file", figures.min_bits_per_key,
                figures.max_bits_per_key);
}

// The filter column: the kinds, and why the policy reads no filter of them.
std::string FilterLabel(const std::string& kinds, const std::string& why) {
  return why.empty() ? kinds : kinds + "  unfiltered: " + why;
}

// The line under a column family's table that names its policy.
std::string PolicyLine(const ConfiguredPolicy& policy) {
  if (!policy.known) {
    return "  filter policy unknown (no readable OPTIONS file): every filter "
           "counted as read\n";
  }
  if (policy.id.empty()) return "  filter policy none: no filter is read\n";
  std::string line =
      "  filter policy " + policy.id + ": reads blocks under \"" +
      policy.compatibility_name + "\"" +
      (policy.sstfilter ? "" : ", sstfilter's as may-match") + "\n";
  if (policy.id.rfind("sstfilter.LevelAware", 0) == 0) {
    line += policy.level_aware_listener
                ? "  listener sstfilter.LevelAwareListener: named in the "
                  "newest OPTIONS file\n"
                : "  listener none: the newest OPTIONS file names no "
                  "sstfilter.LevelAwareListener, so LevelAware assumes levels "
                  "T apart and learns nothing (add "
                  "listeners={sstfilter.LevelAwareListener} to DBOptions)\n";
  }
  return line;
}

std::string JsonPolicy(const ConfiguredPolicy& policy) {
  return std::string("{\"known\": ") + (policy.known ? "true" : "false") +
         ", \"id\": " + JsonString(policy.id) +
         ", \"compatibility_name\": " + JsonString(policy.compatibility_name) +
         ", \"sstfilter\": " + (policy.sstfilter ? "true" : "false") +
         ", \"level_aware_listener\": " +
         (policy.level_aware_listener ? "true" : "false") + "}";
}

std::string JsonUnfiltered(const std::string& why) {
  return ", \"unfiltered\": " + (why.empty() ? "null" : JsonString(why));
}
// The figures after a JSON object's num_files, with their leading comma.
std::string JsonFigures(const FilesSummary& figures) {
  return Printf(", \"keys\": %" PRIu64 ", \"filter_bytes\": %" PRIu64,
                figures.keys, figures.filter_bytes) +
         ", \"bits_per_key\": " + JsonNumber(figures.bits_per_key) +
         ", \"min_bits_per_key\": " + JsonNumber(figures.min_bits_per_key) +
         ", \"max_bits_per_key\": " + JsonNumber(figures.max_bits_per_key) +
         ", \"fpr\": " + JsonNumber(figures.fpr) +
         ", \"reads_per_get\": " + JsonNumber(figures.reads_per_get);
}

}  // namespace

bool IsDbDirectory(const std::string& dir) {
  std::error_code ec;
  return fs::is_regular_file(fs::path(dir) / "CURRENT", ec);
}

Status ListLiveFiles(const std::string& dir, std::vector<LiveFile>* files) {
  files->clear();
  if (!IsDbDirectory(dir)) {
    return Status::NotFound("no CURRENT file: not a RocksDB DB directory");
  }
  rdb::DBOptions db_options;
  std::vector<rdb::ColumnFamilyDescriptor> families;
  bool from_file = false;
  rdb::Status s = LoadOptions(dir, &db_options, &families, &from_file);
  if (!s.ok()) return ManifestError(s);
  bool listener = false;
  for (const auto& named : db_options.listeners) {
    listener = listener ||
               (named != nullptr && std::string_view(named->Name()) ==
                                        sstfilter::kLevelAwareListenerName);
  }
  std::map<std::string, ConfiguredPolicy> policies;
  for (const rdb::ColumnFamilyDescriptor& family : families) {
    if (!from_file) continue;
    policies[family.name] = PolicyOf(family.options);
    policies[family.name].level_aware_listener = listener;
  }
  // Only the MANIFEST is wanted: open as few tables as RocksDB allows
  // (max_open_files at its minimum preloads a few), read none of their
  // statistics, and skip damaged WAL records. Without paranoid checks a
  // damaged or missing table does not fail the open (RocksDB 7.8 tested;
  // HISTORY.md 10.5.0 for later); the file-by-file reading reports it.
  db_options.create_if_missing = false;
  db_options.paranoid_checks = false;
  db_options.max_open_files = 20;
  db_options.skip_stats_update_on_db_open = true;
  db_options.wal_recovery_mode = rdb::WALRecoveryMode::kSkipAnyCorruptedRecords;
  std::vector<rdb::ColumnFamilyHandle*> handles;
  std::unique_ptr<rdb::DB> db;
  s = rocksdb_compat::OpenDbForReadOnly(db_options, dir, families, &handles,
                                        &db);
  if (!s.ok()) return ManifestError(s);
  for (rdb::ColumnFamilyHandle* handle : handles) {
    rdb::ColumnFamilyMetaData meta;
    db->GetColumnFamilyMetaData(handle, &meta);
    for (const rdb::LevelMetaData& level : meta.levels) {
      for (const rdb::SstFileMetaData& file : level.files) {
        files->push_back(
            {meta.name, level.level,
             (fs::path(file.directory) / file.relative_filename).string(),
             policies[meta.name]});
      }
    }
    db->DestroyColumnFamilyHandle(handle).PermitUncheckedError();
  }
  return Status::Ok();
}

std::vector<OrphanFile> FindOrphans(const std::string& dir,
                                    const std::vector<LiveFile>& live) {
  std::error_code ec;
  std::set<fs::path> live_paths;
  for (const LiveFile& file : live) {
    live_paths.insert(fs::weakly_canonical(file.path, ec));
  }
  std::vector<OrphanFile> orphans;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".sst" ||
        live_paths.count(fs::weakly_canonical(entry.path(), ec)) > 0) {
      continue;
    }
    OrphanFile orphan;
    orphan.path = entry.path().string();
    const uintmax_t size = entry.file_size(ec);
    orphan.bytes = ec ? 0 : static_cast<uint64_t>(size);
    orphans.push_back(orphan);
  }
  std::sort(
      orphans.begin(), orphans.end(),
      [](const OrphanFile& a, const OrphanFile& b) { return a.path < b.path; });
  return orphans;
}

std::string WhyUnfiltered(const FileReport& file,
                          const ConfiguredPolicy& policy) {
  const sst::Table& table = file.table;
  if (table.filter_layout == sst::FilterLayout::kNone) return "no filter block";
  if (!policy.known) return "";
  if (policy.id.empty()) return "no filter policy configured";
  if (table.compatibility_name != policy.compatibility_name) {
    return "under \"" + table.compatibility_name + "\", not the policy's \"" +
           policy.compatibility_name + "\"";
  }
  // RocksDB's reader takes our blocks for zero-probe Blooms
  // (sstfilter/format.h); the builder of a file writes all its blocks alike.
  const bool ours = std::any_of(file.blocks.begin(), file.blocks.end(),
                                [](const sst::FilterBlockInfo& block) {
                                  return block.family == "sstfilter";
                                });
  if (ours && !policy.sstfilter) {
    return "RocksDB's reader takes sstfilter's blocks as may-match";
  }
  return "";
}

// Under sstfilter.LevelAware, what its rule gives each level now: the tree
// as the listener would show it (the files' keys and filter bytes).
void AddLevelAwareRule(ColumnFamilySummary* family) {
  const auto& policy = family->policy.filter_policy;
  const rocksdb_plugin::LevelAwareAllocator* allocator =
      policy == nullptr ? nullptr
                        : rocksdb_plugin::LevelAwareAllocatorOf(*policy);
  if (allocator == nullptr) return;
  rocksdb_plugin::TreeSnapshot snapshot;
  for (const LevelSummary& level : family->levels) {
    rocksdb_plugin::LevelTotals& t =
        snapshot.levels[std::clamp(level.level, 0, kMaxLevels - 1)];
    for (const FileReport& file : level.files) {
      if (!file.status.ok()) continue;
      t.files += 1;
      t.keys += static_cast<int64_t>(file.keys);
      if (file.filter_bytes >
          static_cast<uint64_t>(rocksdb_plugin::kNoFilterBytes)) {
        t.filtered_keys += static_cast<int64_t>(file.keys);
        t.filter_bits += static_cast<int64_t>(file.filter_bytes) * 8;
      } else {
        t.unfiltered_bits += static_cast<int64_t>(file.filter_bytes) * 8;
      }
    }
    if (level.level == 0 && !level.files.empty()) {
      snapshot.flush_keys = t.keys / t.files;
    }
  }
  const std::vector<FilterChoice> rule = allocator->RuleByLevel(snapshot);
  for (LevelSummary& level : family->levels) {
    const FilterChoice& c = rule[std::clamp(level.level, 0, kMaxLevels - 1)];
    level.rule = Printf("%s %.2f", FilterKindName(c.kind), c.bits_per_key);
  }
}

DbSummary SummarizeDb(const std::string& dir) {
  DbSummary summary;
  summary.path = dir;
  std::vector<LiveFile> live;
  summary.status = ListLiveFiles(dir, &live);
  if (!summary.status.ok()) return summary;
  summary.orphans = FindOrphans(dir, live);
  // Column families in the order listed, each's levels top down.
  std::vector<std::string> names;
  std::map<std::string, std::map<int, std::vector<FileReport>>> by_level;
  std::map<std::string, ConfiguredPolicy> policies;
  for (const LiveFile& file : live) {
    if (by_level.count(file.column_family) == 0) {
      names.push_back(file.column_family);
      policies[file.column_family] = file.policy;
    }
    FileReport report = InspectFile(file.path, {});
    summary.errors += !report.status.ok();
    by_level[file.column_family][file.level].push_back(std::move(report));
  }
  for (const std::string& name : names) {
    ColumnFamilySummary family;
    family.name = name;
    family.policy = policies[name];
    for (auto& [level, files] : by_level[name]) {
      family.num_files += files.size();
      family.levels.push_back(
          SummarizeLevel(level, std::move(files), family.policy));
      const LevelSummary& added = family.levels.back();
      family.keys += added.figures.keys;
      family.filter_bytes += added.figures.filter_bytes;
      family.expected_reads += added.figures.reads_per_get;
    }
    family.bits_per_key = BitsPerKey(family.filter_bytes, family.keys);
    AddLevelAwareRule(&family);
    summary.column_families.push_back(std::move(family));
  }
  return summary;
}

std::string FormatDbText(const DbSummary& summary) {
  if (!summary.status.ok()) {
    return summary.path + ": " + summary.status.ToString() + "\n";
  }
  std::string out;
  for (const ColumnFamilySummary& family : summary.column_families) {
    out += (out.empty() ? "" : "\n") + summary.path + "  column family " +
           family.name +
           Printf(", %zu live SST file%s\n", family.num_files,
                  family.num_files == 1 ? "" : "s");
    out += Printf(kRowFormat, "level", "files", "keys", "filter bytes",
                  "bits/key", "est. FPR", "reads/Get", "filter") +
           "\n";
    for (const LevelSummary& level : family.levels) {
      const FilesSummary& figures = level.figures;
      const bool one_part = level.by_kind.size() == 1;
      out += Row("L" + std::to_string(level.level),
                 std::to_string(level.files.size()), figures.keys,
                 figures.filter_bytes, figures.bits_per_key,
                 Percent(figures.fpr), Reads(figures.reads_per_get),
                 FilterLabel(level.kinds,
                             one_part ? level.by_kind[0].unfiltered : "") +
                     (one_part ? PerFileBits(figures) : "") +
                     (level.rule.empty() ? "" : "; rule now " + level.rule));
      // A row per L0 file; below, a row per kind where kinds, or what the
      // policy reads, mix.
      if (level.level == 0) {
        for (size_t i = 0; i < level.files.size(); ++i) {
          const FileReport& file = level.files[i];
          if (!file.status.ok()) continue;
          const std::string kind = KindName(file);
          const std::string& why = level.unfiltered[i];
          out +=
              Row("  " + FileName(file.path), "", file.keys, file.filter_bytes,
                  file.bits_per_key, Percent(FilterFpr(file)),
                  Reads(why.empty() ? FilterFpr(file) : 1.0),
                  FilterLabel(kind.empty() ? "none" : kind, why));
        }
      } else if (!one_part) {
        for (const KindSummary& kind : level.by_kind) {
          const FilesSummary& part = kind.figures;
          out += Row("", std::to_string(part.num_files), part.keys,
                     part.filter_bytes, part.bits_per_key, Percent(part.fpr),
                     Reads(part.reads_per_get),
                     FilterLabel(kind.kind, kind.unfiltered));
        }
      }
    }
    out += Row("total", std::to_string(family.num_files), family.keys,
               family.filter_bytes, family.bits_per_key, "",
               Reads(family.expected_reads), "");
    out += "  expected data-block reads per absent Get: " +
           Reads(family.expected_reads) + " (sum of reads/Get)\n" +
           PolicyLine(family.policy);
  }
  if (summary.errors > 0) {
    out += Printf("  %zu live SST files could not be read and are left out\n",
                  summary.errors);
  }
  const std::string orphans = FormatOrphansText(summary.orphans);
  return out + (orphans.empty() ? "" : "\n" + orphans);
}

std::string FormatDbJson(const DbSummary& summary) {
  std::string out = "{\"db\": " + JsonString(summary.path);
  if (!summary.status.ok()) {
    return out + ", \"ok\": false, \"error\": " +
           JsonString(summary.status.ToString()) + "}";
  }
  out += ", \"ok\": true, \"column_families\": [";
  for (size_t f = 0; f < summary.column_families.size(); ++f) {
    const ColumnFamilySummary& family = summary.column_families[f];
    out +=
        (f ? ", " : "") + std::string("{\"name\": ") + JsonString(family.name) +
        Printf(", \"num_files\": %zu, \"keys\": %" PRIu64
               ", \"filter_bytes\": %" PRIu64,
               family.num_files, family.keys, family.filter_bytes) +
        ", \"bits_per_key\": " + JsonNumber(family.bits_per_key) +
        ", \"expected_reads_per_get\": " + JsonNumber(family.expected_reads) +
        ", \"filter_policy\": " + JsonPolicy(family.policy) + ", \"levels\": [";
    for (size_t l = 0; l < family.levels.size(); ++l) {
      const LevelSummary& level = family.levels[l];
      out += (l ? ", " : "") +
             Printf("{\"level\": %d, \"num_files\": %zu", level.level,
                    level.files.size()) +
             JsonFigures(level.figures) +
             ", \"kinds\": " + JsonString(level.kinds) + ", \"by_kind\": [";
      for (size_t k = 0; k < level.by_kind.size(); ++k) {
        const KindSummary& kind = level.by_kind[k];
        out += (k ? ", " : "") + std::string("{\"kind\": ") +
               JsonString(kind.kind) + JsonUnfiltered(kind.unfiltered) +
               Printf(", \"num_files\": %zu", kind.figures.num_files) +
               JsonFigures(kind.figures) + "}";
      }
      out += "], \"files\": [";
      for (size_t i = 0; i < level.files.size(); ++i) {
        // The file's own object, closed after what the policy makes of it.
        std::string file = FormatJson(level.files[i], PrintOptions());
        file.pop_back();
        out +=
            (i ? ", " : "") + file + JsonUnfiltered(level.unfiltered[i]) + "}";
      }
      out += "]}";
    }
    out += "]}";
  }
  return out + "], \"orphans\": " + FormatOrphansJson(summary.orphans) +
         Printf(", \"errors\": %zu}", summary.errors);
}

std::string FormatFileErrorsText(const DbSummary& summary) {
  std::string out;
  for (const ColumnFamilySummary& family : summary.column_families) {
    for (const LevelSummary& level : family.levels) {
      for (const FileReport& file : level.files) {
        if (!file.status.ok()) out += FormatText(file, PrintOptions());
      }
    }
  }
  return out;
}

std::string FormatOrphansText(const std::vector<OrphanFile>& orphans) {
  if (orphans.empty()) return "";
  std::string out =
      "orphans  SST files that the MANIFEST does not list (not read)\n";
  for (const OrphanFile& orphan : orphans) {
    out +=
        Printf("  %s  %" PRIu64 " bytes\n", orphan.path.c_str(), orphan.bytes);
  }
  return out;
}

std::string FormatOrphansJson(const std::vector<OrphanFile>& orphans) {
  std::string out = "[";
  for (size_t i = 0; i < orphans.size(); ++i) {
    out += (i ? ", " : "") + std::string("{\"path\": ") +
           JsonString(orphans[i].path) +
           Printf(", \"bytes\": %" PRIu64 "}", orphans[i].bytes);
  }
  return out + "]";
}

}  // namespace sstfilter::inspect
