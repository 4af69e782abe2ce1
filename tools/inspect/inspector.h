// inspector.h: the filter-block inspector behind sstfilter-inspect.
//
// For one SST file it reports which filter built each filter block (the
// full filter, or every partition of a partitioned one): sstfilter's, or
// RocksDB's built-in ones, which share a family name with ours
// (filter_block_decoder.h). It says what the filter costs (bytes, bits/key
// against the table's key count), how full it is and the FPR that implies,
// and answers "may this key be in the SST?" from the filter alone, exactly
// as RocksDB with the plugin would: through the FilterBitsReader of an
// sstfilter policy of the block's family name, with the partition RocksDB
// would consult.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "filter_block_decoder.h"
#include "sst_parser.h"
#include "sstfilter/status.h"

namespace sstfilter::inspect {

// The answer for one queried key.
struct KeyAnswer {
  std::string key;
  bool answered = false;   // false: `error` says why
  bool may_match = false;  // false: the key is certainly not in the SST
  int64_t partition = -1;  // the partition consulted; -1 for a full filter
  std::string error;
};

struct FileReport {
  std::string path;
  // Not ok: the file's error; nothing below is filled in.
  Status status;
  sst::Table table;  // footer, properties and where the filter is
  // One entry per filter block: the full filter or each partition in order.
  std::vector<sst::FilterBlockInfo> blocks;
  uint64_t partition_index_bytes = 0;

  // Whole-file figures over all blocks.
  uint64_t filter_bytes = 0;
  // Keys the filter was built from: the rocksdb.num.filter_entries property
  // (else rocksdb.num.entries, else what the blocks record); 0 if unknown.
  uint64_t keys = 0;
  std::string keys_source;     // "num_filter_entries", "num_entries", "filter"
  double bits_per_key = 0;     // 0 when keys is 0
  std::string occupancy_name;  // as the blocks', "" if they differ or lack one
  double occupancy = 0;        // byte-weighted mean over blocks
  double fpr = 0;              // byte-weighted mean over blocks

  std::vector<KeyAnswer> answers;
};

// Reads `source` (named `path` in the report) and answers `keys`.
FileReport InspectSource(const sst::Source& source, const std::string& path,
                         const std::vector<std::string>& keys);
// The same for the file at `path`.
FileReport InspectFile(const std::string& path,
                       const std::vector<std::string>& keys);

// The kind of the file's filter blocks ("BlockedBloom", "FastLocalBloom",
// ...), "mixed" if they differ, "" for a table without a filter.
std::string KindName(const FileReport& report);

// Output options.
struct PrintOptions {
  bool per_partition = false;  // a row per partition (table output)
  bool hex_keys = false;       // print keys as hex
};

// A readable multi-line description, or one "path: error" line.
std::string FormatText(const FileReport& report, const PrintOptions& options);
// One JSON object (no trailing newline).
std::string FormatJson(const FileReport& report, const PrintOptions& options);

}  // namespace sstfilter::inspect
