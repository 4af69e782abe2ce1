// The read side of the range filter: ReadOptions::table_filter over each
// SST's range filter properties (sstfilter/range_filter_rocksdb.h). The filter
// is read in place in the table's properties (a view parses its header in
// O(1)), so nothing is decoded, copied or cached per table.
#include <string>
#include <string_view>

#include "rocksdb/comparator.h"
#include "sstfilter/range_filter.h"
#include "sstfilter/range_filter_rocksdb.h"

namespace sstfilter {

using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::TableProperties;

bool RangeMayOverlap(const TableProperties& properties, const Slice& lower,
                     const Slice& upper) {
  const std::string_view lo(lower.data(), lower.size());
  const std::string_view hi(upper.data(), upper.size());
  // [lower, upper) in the comparator's order, as bytewise bounds.
  bool reverse = false;
  if (properties.comparator_name ==
      ROCKSDB_NAMESPACE::ReverseBytewiseComparator()->Name()) {
    reverse = true;
  } else if (properties.comparator_name !=
             ROCKSDB_NAMESPACE::BytewiseComparator()->Name()) {
    return true;
  }
  // Every filter holds every key of the file: one "no" is enough. Their
  // names sort together, from kRangeFilterProperty on.
  const auto& user = properties.user_collected_properties;
  const std::string_view base = kRangeFilterProperty;
  for (auto it = user.lower_bound(kRangeFilterProperty);
       it != user.end() &&
       std::string_view(it->first).substr(0, base.size()) == base;
       ++it) {
    if (!IsRangeFilterProperty(it->first)) continue;
    const bool may_overlap =
        reverse ? RangeMayOverlap(it->second, hi, /*lo_inclusive=*/false, lo,
                                  /*hi_inclusive=*/true)
                : RangeMayOverlap(it->second, lo, /*lo_inclusive=*/true, hi,
                                  /*hi_inclusive=*/false);
    if (!may_overlap) return false;
  }
  return true;
}

std::function<bool(const TableProperties&)> RangeTableFilter(
    const Slice& lower, const Slice& upper) {
  return [lo = lower.ToString(),
          hi = upper.ToString()](const TableProperties& properties) {
    return RangeMayOverlap(properties, lo, hi);
  };
}

RangeScanOptions::RangeScanOptions(const Slice& lower, const Slice& upper,
                                   const ROCKSDB_NAMESPACE::ReadOptions& base)
    : lower_(lower.ToString()),
      upper_(upper.ToString()),
      lower_slice_(lower_),
      upper_slice_(upper_),
      read_options_(base) {
  read_options_.iterate_lower_bound = &lower_slice_;
  read_options_.iterate_upper_bound = &upper_slice_;
  read_options_.table_filter = RangeTableFilter(lower_slice_, upper_slice_);
}

}  // namespace sstfilter
