// bench/filter/compare_report.h: sstfilter-filter-bench compare's results as
// tables: DIR/compare.{md,csv,json} and the sweeps' CSVs. The performance bar
// holds each target next to its measurement (BarMeasures in the .cc).
#pragma once

#include <string>

#include "compare_scenarios.h"

namespace sstfilter::bench {

// "1.23 0.98 0.87", from /proc/loadavg.
std::string LoadAverage();

void WriteMarkdown(const Results& r, const std::string& path);

// DIR/compare.csv, sweep_fpr.csv, cuckoo_n.csv, sweep_size.csv, theory.csv.
void WriteCsv(const Results& r, const std::string& dir);

void WriteJson(const Results& r, const std::string& path);

}  // namespace sstfilter::bench
