// range_report.h: each SST's range filter (sstfilter.RangeFilter's table
// property, sstfilter/range_filter_rocksdb.h) and a DB's total, for
// sstfilter-inspect and sstfilter-ldb filter_summary: keys, bytes,
// bits/key, the FPR bound of empty ranges of a few lengths, and with a
// range [A, B) "may this SST hold a key in it?", answered as the plugin's
// table filter answers (sstfilter::RangeMayOverlap over the properties).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "db_summary.h"
#include "inspector.h"

namespace sstfilter::inspect {

// The range lengths (integers) whose FPR bound is shown.
inline constexpr uint64_t kRangeLengths[] = {1, 16, 64, 256};

struct RangeQuery {
  bool asked = false;
  std::string lower, upper;  // [lower, upper) in the table's comparator order
};

struct RangeFilterFile {
  std::string path;
  int level = -1;  // -1: not from a DB's MANIFEST
  bool present = false;
  int filters = 0;    // range filter properties (one per collector)
  int readable = 0;   // of them, those that parse
  std::string error;  // the first that does not parse, if none does
  uint64_t keys = 0;  // distinct key integers
  uint64_t bytes = 0;
  double bits_per_key = 0;
  double fpr[sizeof(kRangeLengths) / sizeof(kRangeLengths[0])] = {};
  bool may_overlap = true;  // for the query, if asked
};

// The range filter of one readable file.
RangeFilterFile DescribeRangeFilter(const FileReport& report, int level,
                                    const RangeQuery& query);
// Every readable live file of `summary`, level by level.
std::vector<RangeFilterFile> DescribeDbRangeFilters(const DbSummary& summary,
                                                    const RangeQuery& query);

// A row per file and a total row; "" if no file has a range filter and no
// range was asked.
std::string FormatRangeFiltersText(const std::vector<RangeFilterFile>& files,
                                   const RangeQuery& query);
// A JSON array, an object per file ({"sst": path, ...}).
std::string FormatRangeFiltersJson(const std::vector<RangeFilterFile>& files,
                                   const RangeQuery& query);

}  // namespace sstfilter::inspect
