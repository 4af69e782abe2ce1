// filter_block_decoder.h: decodes a filter block's header and metadata into
// which filter it holds (family, kind, parameters) and what it costs.
//
// A block is read as the family its meta block name announces (the
// CompatibilityName after "fullfilter." or "partitionedfilter."), "sstfilter"
// or "rocksdb.BuiltinBloomFilter", and told to be ours or one of RocksDB's
// built-in filters by the rule the plugin's reader follows
// (sstfilter/block_classifier.h): under either name, a block of ours, or of
// RocksDB's kinds, which LevelAware writes under either name.
// Nothing here needs RocksDB; answering queries is the inspector's job.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sstfilter/status.h"

namespace sstfilter::sst {

// A named layout parameter, e.g. {"num_probes", 7}.
struct FilterParam {
  std::string name;
  int64_t value;
};

struct FilterBlockInfo {
  std::string family;  // "sstfilter" or "rocksdb"
  // sstfilter: "BlockedBloom", "Cuckoo". rocksdb: "FastLocalBloom",
  // "LegacyBloom", "Ribbon128", "Empty" (no keys, always "no"),
  // "AlwaysTrue" (zero probes, always "may match").
  std::string kind;
  // The kind's format version; RocksDB's kinds are identified by a marker
  // byte instead (a "marker" param: -1 new Bloom, -2 Ribbon) and report 0.
  uint32_t version = 0;
  std::vector<FilterParam> params;
  uint64_t bytes = 0;
  // Keys the block itself records (sstfilter's kinds); RocksDB's do not.
  bool keys_known = false;
  uint64_t keys = 0;
  // "fill" (fraction of bits set, Bloom kinds), "load" (fraction of slots
  // used, Cuckoo) or "" (Ribbon: no occupancy to measure).
  std::string occupancy_name;
  double occupancy = 0;
  // FPR estimated from the block as it is. Bloom kinds: the chance that a
  // query's probes all hit set bits, from each line's own fill (a query
  // probes one line, or two for BlockedBloom), plus for the legacy Bloom
  // what its correlated probes add. Cuckoo: from the items in a query's two
  // buckets. Ribbon: 2^-(solution bits per key slot), as ribbon_impl.h
  // ExpectedFpRate.
  double fpr = 0;
};

// Describes the filter block `bytes` of the family `compatibility_name`
// (sstfilter/format.h names them). Corruption if the bytes are not a valid
// filter of that family, NotSupported for an unknown family, kind or
// version (for RocksDB's kinds, any metadata its reader would not read as
// that kind).
Status DescribeFilterBlock(std::string_view compatibility_name,
                           std::string_view bytes, FilterBlockInfo* info);

// The spread of per-partition figures.
struct Spread {
  double min = 0;
  double median = 0;  // the mean of the middle two for an even count
  double max = 0;
};
// Zeros for no values.
Spread SpreadOf(std::vector<double> values);

}  // namespace sstfilter::sst
