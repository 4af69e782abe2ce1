// db_summary.h: a whole DB's filters as an absent-key Get meets them, behind
// `sstfilter-inspect --db`.
//
// The live SST files and their levels come from the DB's MANIFEST, read
// through RocksDB's public API (a read-only open, which writes nothing);
// each file is then read with InspectFile. A Get for an absent key consults
// every L0 file, then in each populated level below the one file whose key
// range holds the key. So the data-block reads it can expect, its false
// positives, are the sum of every L0 file's FPR and, per level below, the
// mean FPR of the level's files weighted by their keys. This assumes that
// the key falls inside every file's key range, as keys spread over the
// whole key space do; a key outside a file's range skips its filter.
//
// A file's FPR there is the one RocksDB meets with the filter policy the
// DB's OPTIONS file configures, which need not be the one that wrote the
// file: RocksDB finds a filter block only under the CompatibilityName of
// the policy configured now (BlockBasedTable::PrefetchIndexAndFilterBlocks),
// and RocksDB's own reader reads sstfilter's blocks as "may match". A file
// whose filter is not read counts as FPR 1 (WhyUnfiltered).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "inspector.h"
#include "rocksdb/filter_policy.h"
#include "sstfilter/status.h"

namespace sstfilter::inspect {

// The filter policy a column family's options configure, as RocksDB reads
// tables with it.
struct ConfiguredPolicy {
  bool known = false;              // false: no readable OPTIONS file told it
  std::string id;                  // FilterPolicy::GetId(), "" for no policy
  std::string compatibility_name;  // "" for no policy
  bool sstfilter = false;          // one of ours ("sstfilter." Name())
  // The OPTIONS file names sstfilter.LevelAwareListener (a DB option: the
  // same for every column family), which sstfilter.LevelAware needs.
  bool level_aware_listener = false;
  // The policy itself, for LevelAware's rule (null for none).
  std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy> filter_policy;
};

// A table file the MANIFEST lists.
struct LiveFile {
  std::string column_family;
  int level = 0;
  std::string path;
  ConfiguredPolicy policy;  // its column family's
};

// An *.sst file in the DB directory that the MANIFEST does not list: left by
// a crash (often 0 bytes), or obsolete and not yet deleted. RocksDB never
// reads it, so neither does the inspector.
struct OrphanFile {
  std::string path;
  uint64_t bytes = 0;
};

// Whether `dir` holds a CURRENT file, as every RocksDB DB directory does.
bool IsDbDirectory(const std::string& dir);

// The live table files of every column family of the DB at `dir`, level by
// level, L0 newest first (the order in which a Get consults them). The DB's
// OPTIONS file gives its column families and comparator (our policies are
// registered to read it); without a readable one, the MANIFEST's column
// families with default options.
Status ListLiveFiles(const std::string& dir, std::vector<LiveFile>* files);

// The *.sst files in `dir` that `live` does not name, in name order.
std::vector<OrphanFile> FindOrphans(const std::string& dir,
                                    const std::vector<LiveFile>& live);

// Why RocksDB, reading with `policy`, filters no absent Get at `file`: "no
// filter block", "no filter policy configured", a block name other than
// the policy's, or sstfilter's blocks before RocksDB's own reader. "" if it
// reads the file's filter (or, `policy` unknown, may).
std::string WhyUnfiltered(const FileReport& file,
                          const ConfiguredPolicy& policy);

// The figures of some of a level's files: all of them, or those of one
// filter kind.
struct FilesSummary {
  size_t num_files = 0;  // readable ones
  uint64_t keys = 0;     // sum of the files' FileReport::keys
  uint64_t filter_bytes = 0;
  double bits_per_key = 0;  // 0 when keys is 0
  // The fewest and most bits/key of one file (of those with keys): they
  // differ where a policy sizes each table by its key range (LevelAware
  // learning where its Gets go), or after a switch of policy.
  double min_bits_per_key = 0;
  double max_bits_per_key = 0;
  // The key-weighted mean of the files' FPRs as their filters hold them (a
  // plain mean if no file knows its keys). A file without a filter counts
  // as FPR 1: every Get that reaches it reads a data block. Files that
  // could not be read count not.
  double fpr = 0;
  // What these files add to an absent Get's data-block reads, with the FPR
  // each has under the configured policy (1 where it is unfiltered): on L0
  // the sum of those; below, their share of the level's key-weighted mean
  // (a Get meets one file of the level, of these with their share of its
  // keys).
  double reads_per_get = 0;
};

// The files of one filter kind on a level that the configured policy reads
// alike.
struct KindSummary {
  // KindName of the files ("BlockedBloom", "FastLocalBloom", ...), "none"
  // for files without a filter.
  std::string kind;
  std::string unfiltered;  // WhyUnfiltered of the files, "" if read
  FilesSummary figures;
};

// One populated level of a column family.
struct LevelSummary {
  int level = 0;
  std::vector<FileReport> files;  // in the order of ListLiveFiles
  // WhyUnfiltered of each of `files`, in the same order ("" for one that
  // could not be read).
  std::vector<std::string> unfiltered;
  FilesSummary figures;  // of all its readable files
  // The files' filter kinds joined by "+", in name order ("BlockedBloom",
  // "BlockedBloom+FastLocalBloom"); "none" for a file without a filter.
  std::string kinds;
  // Each kind's files, in name order, those the configured policy reads
  // before those it does not: after a switch of policy a level holds
  // RocksDB's filters beside ours until compaction rewrites it. Their
  // reads_per_get add up to the level's.
  std::vector<KindSummary> by_kind;
  // Under sstfilter.LevelAware: what its rule gives a new file of this
  // level now (kind and bits/key), from the tree as it stands and the
  // model's absent probes; "" for another policy.
  std::string rule;
};

struct ColumnFamilySummary {
  std::string name;
  ConfiguredPolicy policy;
  std::vector<LevelSummary> levels;  // populated levels, top down
  size_t num_files = 0;
  uint64_t keys = 0;
  uint64_t filter_bytes = 0;
  double bits_per_key = 0;
  // The expected data-block reads of an absent-key Get: the sum of the
  // levels' reads_per_get.
  double expected_reads = 0;
};

struct DbSummary {
  std::string path;
  // Not ok: the MANIFEST could not be read; nothing below is filled in.
  Status status;
  std::vector<ColumnFamilySummary> column_families;
  std::vector<OrphanFile> orphans;
  size_t errors = 0;  // live files that could not be read
};

// Lists the DB's live files and orphans and reads every live file.
DbSummary SummarizeDb(const std::string& dir);

// A table per column family: a row per level, per L0 file and, on a level of
// several filter kinds or unfiltered files, per kind; the totals, the
// expected reads, the configured policy; then the orphans. Or one "path:
// error" line.
std::string FormatDbText(const DbSummary& summary);
// One JSON object (no trailing newline); each file as FormatJson gives it.
std::string FormatDbJson(const DbSummary& summary);
// A "path: error" line per live file that could not be read ("" for none).
std::string FormatFileErrorsText(const DbSummary& summary);

// The orphans as text lines under a heading ("" for none), and as a JSON
// array.
std::string FormatOrphansText(const std::vector<OrphanFile>& orphans);
std::string FormatOrphansJson(const std::vector<OrphanFile>& orphans);

}  // namespace sstfilter::inspect
