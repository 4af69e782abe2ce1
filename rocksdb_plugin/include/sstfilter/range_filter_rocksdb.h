// sstfilter/range_filter_rocksdb.h: a range filter per SST, so that a short
// range scan skips every SST file that holds no key in its range.
//
// Write side: the table properties collector sstfilter.RangeFilter, one
// line of a column family's options, registered by
// RegisterSstfilterPolicies (rocksdb_plugin.h):
//   table_properties_collectors={id=sstfilter.RangeFilter;bits_per_key=12}
// (options string, and so the OPTIONS file, where RocksDB writes it back;
// any other "sstfilter." id there fails the parse with InvalidArgument
// naming it), or from C++:
//   options.table_properties_collector_factories.push_back(factory);
// with the factory of NewRangeFilterCollectorFactory. Every entry of every
// new SST (puts, deletes, single deletes, merges, and range deletions'
// start keys) goes into a filter (sstfilter/range_filter.h), written as
// the user property RangeFilterPropertyName(options). RocksDB keeps user
// properties in memory while the SST file's reader lives (BlockBasedTable
// counts them in ApproximateMemoryUsage, so
// "rocksdb.estimate-table-readers-mem" shows them): that is the filter's
// memory, about bits_per_key per distinct key integer plus 48 bytes an SST
// file.
//
// Read side: ReadOptions::table_filter, which RocksDB calls once per SST an
// iterator opens, with the file's properties. RangeScanOptions fills
// ReadOptions with both bounds and the filter: one range per iterator. The
// bounds are what make skipping a file safe: an iterator never returns a
// key outside them, and no key inside them is in a file the filter skips.
// An SST file without the property, with one this version cannot read, or of a
// comparator other than RocksDB's bytewise one or its reverse, is read as
// usual. Range deletions of a skipped file still apply (RocksDB reads them
// whatever table_filter answers, db/table_cache.cc).
//
// Options, each also a field of the options string:
//   bits_per_key   4..64, default 12: FPR of an empty range of l integers
//                  at most l / 2^(bits_per_key - 2.1) (range_filter.h)
//   prefix_bytes   0..64, default 0: keys begin with this many bytes of a
//                  prefix (a table id, a user id); a scan whose bounds share
//                  it is filtered, others are read as usual
//   int_bytes      1..8 (1..7 with a prefix), default 8: the key's next
//                  bytes, big-endian, are the integer the filter orders
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "rocksdb/options.h"
#include "rocksdb/slice.h"
#include "rocksdb/status.h"
#include "rocksdb/table_properties.h"

namespace sstfilter {

// The collector's id in options strings and OPTIONS files.
inline constexpr char kRangeFilterName[] = "sstfilter.RangeFilter";
// The user property that holds an SST's filter.
inline constexpr char kRangeFilterProperty[] = "sstfilter.range";

struct RangeFilterOptions {
  double bits_per_key = 12;
  uint32_t prefix_bytes = 0;
  uint32_t int_bytes = 8;
};

// The user property a collector of `options` writes its filter under:
// kRangeFilterProperty for the default options, else
// "sstfilter.range:<bits_per_key>:<prefix_bytes>:<int_bytes>". So two
// collectors of one column family with other options keep both filters
// (RocksDB keeps the first of two properties of one name), and a scan
// skips an SST file if any of them says no.
std::string RangeFilterPropertyName(const RangeFilterOptions& options);
// Whether user property `name` holds a range filter (any options).
bool IsRangeFilterProperty(std::string_view name);

// The collector factory of `options`; InvalidArgument naming the field if
// one is out of range.
ROCKSDB_NAMESPACE::Status NewRangeFilterCollectorFactory(
    const RangeFilterOptions& options,
    std::shared_ptr<ROCKSDB_NAMESPACE::TablePropertiesCollectorFactory>*
        factory);

// May the SST file of `properties` hold a key k with lower <= k < upper in its
// comparator's order? true unless one of its range filters says no.
bool RangeMayOverlap(const ROCKSDB_NAMESPACE::TableProperties& properties,
                     const ROCKSDB_NAMESPACE::Slice& lower,
                     const ROCKSDB_NAMESPACE::Slice& upper);

// A ReadOptions::table_filter for [lower, upper), copying both. Use it
// only with iterate_lower_bound and iterate_upper_bound set to the same
// range (RangeScanOptions does both).
std::function<bool(const ROCKSDB_NAMESPACE::TableProperties&)> RangeTableFilter(
    const ROCKSDB_NAMESPACE::Slice& lower,
    const ROCKSDB_NAMESPACE::Slice& upper);

// ReadOptions for one scan of [lower, upper): `base` with both bounds and
// the range table filter. It owns the bounds' bytes: keep it alive while
// an iterator made with read_options() lives. RocksDB 11.x refuses an
// iterator with a table_filter when the column family's
// min_tombstones_for_range_conversion is above 0.
class RangeScanOptions {
 public:
  RangeScanOptions(const ROCKSDB_NAMESPACE::Slice& lower,
                   const ROCKSDB_NAMESPACE::Slice& upper,
                   const ROCKSDB_NAMESPACE::ReadOptions& base =
                       ROCKSDB_NAMESPACE::ReadOptions());
  RangeScanOptions(const RangeScanOptions&) = delete;
  RangeScanOptions& operator=(const RangeScanOptions&) = delete;

  const ROCKSDB_NAMESPACE::ReadOptions& read_options() const {
    return read_options_;
  }

 private:
  std::string lower_, upper_;
  ROCKSDB_NAMESPACE::Slice lower_slice_, upper_slice_;
  ROCKSDB_NAMESPACE::ReadOptions read_options_;
};

}  // namespace sstfilter
