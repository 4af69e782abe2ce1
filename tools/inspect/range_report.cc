#include "range_report.h"

#include <algorithm>
#include <cinttypes>
#include <iterator>

#include "output_format.h"
#include "rocksdb/table_properties.h"
#include "sstfilter/range_filter.h"
#include "sstfilter/range_filter_rocksdb.h"

namespace sstfilter::inspect {

RangeFilterFile DescribeRangeFilter(const FileReport& report, int level,
                                    const RangeQuery& query) {
  RangeFilterFile file;
  file.path = report.path;
  file.level = level;
  // The plugin's own answer, from the properties RocksDB would hand it.
  ROCKSDB_NAMESPACE::TableProperties props;
  props.comparator_name = report.table.StringProperty("rocksdb.comparator");
  // A file holds one filter per collector (RangeFilterPropertyName): its
  // bytes add up, and a scan is skipped if any says no, so the FPR bound is
  // at most the least of theirs.
  for (const auto& [name, value] : report.table.properties) {
    if (!IsRangeFilterProperty(name)) continue;
    props.user_collected_properties[name] = value;
    file.present = true;
    ++file.filters;
    file.bytes += value.size();
    RangeFilterView view;
    const Status s = RangeFilterView::Parse(value, &view);
    if (!s.ok()) {
      if (file.error.empty()) file.error = s.ToString();
      continue;
    }
    ++file.readable;
    file.keys = std::max(file.keys, view.num_keys());
    for (size_t i = 0; i < std::size(kRangeLengths); ++i) {
      const double fpr = view.FprBound(kRangeLengths[i]);
      file.fpr[i] = file.readable == 1 ? fpr : std::min(file.fpr[i], fpr);
    }
  }
  if (file.readable > 0) {
    file.error.clear();
    file.bits_per_key = file.keys ? 8.0 * file.bytes / file.keys : 0;
  }
  if (query.asked) {
    file.may_overlap = RangeMayOverlap(props, query.lower, query.upper);
  }
  return file;
}

std::vector<RangeFilterFile> DescribeDbRangeFilters(const DbSummary& summary,
                                                    const RangeQuery& query) {
  std::vector<RangeFilterFile> files;
  for (const ColumnFamilySummary& cf : summary.column_families) {
    for (const LevelSummary& level : cf.levels) {
      for (const FileReport& report : level.files) {
        if (report.status.ok()) {
          files.push_back(DescribeRangeFilter(report, level.level, query));
        }
      }
    }
  }
  return files;
}

namespace {

struct Total {
  size_t with_filter = 0, may_overlap = 0;
  uint64_t keys = 0, bytes = 0;
};

Total Sum(const std::vector<RangeFilterFile>& files) {
  Total total;
  for (const RangeFilterFile& file : files) {
    total.with_filter += file.present && file.error.empty();
    total.may_overlap += file.may_overlap;
    total.keys += file.keys;
    total.bytes += file.bytes;
  }
  return total;
}

}  // namespace

std::string FormatRangeFiltersText(const std::vector<RangeFilterFile>& files,
                                   const RangeQuery& query) {
  const Total total = Sum(files);
  if (total.with_filter == 0 && !query.asked) return "";
  std::string out = "range filters (" + std::string(kRangeFilterName) +
                    "), FPR bound of an empty range of l integers:\n";
  out += Printf("  %-5s %-14s %10s %10s %8s", "level", "file", "keys", "bytes",
                "bits/key");
  for (uint64_t length : kRangeLengths) {
    out += Printf(" %9s", ("l=" + std::to_string(length)).c_str());
  }
  out += query.asked ? "  [A,B)\n" : "\n";
  for (const RangeFilterFile& file : files) {
    const std::string name = file.path.substr(file.path.rfind('/') + 1);
    const std::string level =
        file.level < 0 ? "-" : "L" + std::to_string(file.level);
    out += Printf("  %-5s %-14s", level.c_str(), name.c_str());
    if (!file.present) {
      out += "  no range filter: read as usual";
    } else if (!file.error.empty()) {
      out += "  unreadable (" + file.error + "): read as usual";
    } else {
      out += Printf(" %10" PRIu64 " %10" PRIu64 " %8.2f", file.keys, file.bytes,
                    file.bits_per_key);
      for (double fpr : file.fpr) out += Printf(" %9.5f", fpr);
      if (file.filters > 1) out += Printf("  (%d filters)", file.filters);
    }
    if (query.asked) out += file.may_overlap ? "  may" : "  no";
    out += "\n";
  }
  out += Printf("  total: %zu of %zu files with a range filter, %" PRIu64
                " keys, %" PRIu64
                " bytes (%.2f bits/key) held in memory "
                "while their readers live\n",
                total.with_filter, files.size(), total.keys, total.bytes,
                total.keys ? 8.0 * total.bytes / total.keys : 0.0);
  if (query.asked) {
    out += Printf("  [A, B): %zu of %zu files may hold a key, %zu skipped\n",
                  total.may_overlap, files.size(),
                  files.size() - total.may_overlap);
  }
  return out;
}

std::string FormatRangeFiltersJson(const std::vector<RangeFilterFile>& files,
                                   const RangeQuery& query) {
  std::string out = "[";
  for (size_t i = 0; i < files.size(); ++i) {
    const RangeFilterFile& file = files[i];
    // "sst", not "path": readers count files by the per-file reports' "path".
    out += (i ? ", " : "") + std::string("{\"sst\": ") + JsonString(file.path) +
           ", \"level\": " + std::to_string(file.level) +
           ", \"present\": " + (file.present ? "true" : "false");
    if (!file.error.empty()) out += ", \"error\": " + JsonString(file.error);
    if (file.present && file.error.empty()) {
      out += ", \"filters\": " + std::to_string(file.filters) +
             ", \"keys\": " + std::to_string(file.keys) +
             ", \"bytes\": " + std::to_string(file.bytes) +
             ", \"bits_per_key\": " + JsonNumber(file.bits_per_key) +
             ", \"fpr_bound\": {";
      for (size_t l = 0; l < std::size(kRangeLengths); ++l) {
        out += (l ? ", \"" : "\"") + std::to_string(kRangeLengths[l]) +
               "\": " + JsonNumber(file.fpr[l]);
      }
      out += "}";
    }
    if (query.asked) {
      out += std::string(", \"may_overlap\": ") +
             (file.may_overlap ? "true" : "false");
    }
    out += "}";
  }
  return out + "]";
}

}  // namespace sstfilter::inspect
