// sstfilter-inspect: what each SST's filter is, costs and buys.
//
//   sstfilter-inspect [options] PATH...
//   sstfilter-inspect --db [--json] DIR...
//
// PATH is an SST file or a directory: of a DB (one with a CURRENT file), the
// SST files its MANIFEST lists; of anything else, its *.sst files. With
// --db, each DIR is a DB summed up level by level (db_summary.h).
//
// Exit status: 0 if every file to read was read (orphans, the *.sst files
// of a DB that its MANIFEST does not list, are reported but not read, and
// never make it 1); 1 if any file, or with --db a MANIFEST, gave an error
// (each gets one line on stderr and the scan goes on); 2 for a usage error.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "db_summary.h"
#include "inspector.h"
#include "range_report.h"

namespace {

namespace fs = std::filesystem;
using sstfilter::inspect::FileReport;
using sstfilter::inspect::OrphanFile;
using sstfilter::inspect::PrintOptions;

constexpr char kUsage[] =
    "usage: sstfilter-inspect [options] PATH...\n"
    "       sstfilter-inspect --db [--json] DIR...\n"
    "  PATH             an SST file, or a DB directory (the SST files its\n"
    "                   MANIFEST lists; other *.sst files are orphans)\n"
    "  --db             sum each DB's filters up per level: files, keys,\n"
    "                   bytes, bits/key, kinds (each apart where RocksDB's\n"
    "                   and ours mix), FPRs, and the expected data-block\n"
    "                   reads of an absent-key Get under the filter policy\n"
    "                   of the DB's OPTIONS file (files whose filter it\n"
    "                   does not read: unfiltered, and why)\n"
    "  --json           print JSON instead of a table\n"
    "  --key K          may K be in each SST? (repeatable)\n"
    "  --keys-file F    the same for every line of F\n"
    "  --hex            keys are given and printed in hex\n"
    "  --partitions     a row per filter partition\n"
    "  --range A B      may each SST hold a key in [A, B)? (its range\n"
    "                   filter, sstfilter.RangeFilter; with --db too)\n"
    "  --no-progress    no progress line on stderr\n";

struct Args {
  std::vector<std::string> paths;
  std::vector<std::string> keys;
  sstfilter::inspect::RangeQuery range;
  bool json = false;
  bool db = false;
  bool progress = true;
  PrintOptions print;
};

bool HexDecode(const std::string& hex, std::string* out) {
  std::string text = hex;
  if (text.size() >= 2 && text[0] == '0' &&
      (text[1] == 'x' || text[1] == 'X')) {
    text = text.substr(2);
  }
  if (text.size() % 2 != 0) return false;
  out->clear();
  for (size_t i = 0; i < text.size(); i += 2) {
    int value = 0;
    for (char c : {text[i], text[i + 1]}) {
      const char* digits = "0123456789abcdef";
      const char* p = std::strchr(digits, std::tolower(c));
      if (c == '\0' || p == nullptr) return false;
      value = value * 16 + static_cast<int>(p - digits);
    }
    out->push_back(static_cast<char>(value));
  }
  return true;
}

// Parses the command line; false (after a message) on a usage error.
bool ParseArgs(int argc, char** argv, Args* args) {
  std::vector<std::string> raw_keys;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    const bool takes_value = arg == "--key" || arg == "--keys-file";
    if (takes_value) {
      if (i + 1 >= argc) {
        std::cerr << "sstfilter-inspect: " << arg << " needs a value\n";
        return false;
      }
      value = argv[++i];
    } else if (arg.rfind("--key=", 0) == 0 ||
               arg.rfind("--keys-file=", 0) == 0) {
      value = arg.substr(arg.find('=') + 1);
      arg = arg.substr(0, arg.find('='));
    }
    if (arg == "--range") {
      if (i + 2 >= argc) {
        std::cerr << "sstfilter-inspect: --range needs two keys, A and B\n";
        return false;
      }
      args->range.asked = true;
      args->range.lower = argv[++i];
      args->range.upper = argv[++i];
    } else if (arg == "--key") {
      raw_keys.push_back(value);
    } else if (arg == "--keys-file") {
      std::ifstream in(value);
      if (!in) {
        std::cerr << "sstfilter-inspect: cannot read keys file " << value
                  << ": " << std::strerror(errno) << "\n";
        return false;
      }
      for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        raw_keys.push_back(line);
      }
    } else if (arg == "--json") {
      args->json = true;
    } else if (arg == "--db") {
      args->db = true;
    } else if (arg == "--hex") {
      args->print.hex_keys = true;
    } else if (arg == "--partitions") {
      args->print.per_partition = true;
    } else if (arg == "--no-progress") {
      args->progress = false;
    } else if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      std::exit(0);
    } else if (arg.size() > 1 && arg[0] == '-') {
      std::cerr << "sstfilter-inspect: unknown option " << arg << "\n"
                << kUsage;
      return false;
    } else {
      args->paths.push_back(arg);
    }
  }
  if (args->paths.empty()) {
    std::cerr << kUsage;
    return false;
  }
  if (args->db && (!raw_keys.empty() || args->print.per_partition)) {
    std::cerr << "sstfilter-inspect: --db takes no keys and no --partitions\n";
    return false;
  }
  if (args->range.asked && args->print.hex_keys &&
      (!HexDecode(args->range.lower, &args->range.lower) ||
       !HexDecode(args->range.upper, &args->range.upper))) {
    std::cerr << "sstfilter-inspect: --hex --range keys are not hex\n";
    return false;
  }
  for (const std::string& key : raw_keys) {
    std::string decoded = key;
    if (args->print.hex_keys && !HexDecode(key, &decoded)) {
      std::cerr << "sstfilter-inspect: --hex key \"" << key
                << "\" is not hex\n";
      return false;
    }
    args->keys.push_back(decoded);
  }
  return true;
}

// The SST files that the MANIFEST of the DB at `dir` lists; its other
// *.sst files go to `orphans`. False (after a note) if the MANIFEST cannot
// be read.
bool ListDbFiles(const std::string& dir, std::vector<std::string>* ssts,
                 std::vector<OrphanFile>* orphans) {
  std::vector<sstfilter::inspect::LiveFile> live;
  const sstfilter::Status s = sstfilter::inspect::ListLiveFiles(dir, &live);
  if (!s.ok()) {
    std::cerr << "sstfilter-inspect: " << dir << ": " << s.ToString()
              << "; reading every .sst file\n";
    return false;
  }
  for (const auto& file : live) ssts->push_back(file.path);
  for (OrphanFile& orphan : sstfilter::inspect::FindOrphans(dir, live)) {
    orphans->push_back(std::move(orphan));
  }
  return true;
}

// The files to inspect: each file argument, then per directory in name
// order the SST files of a DB's MANIFEST (see ListDbFiles) or the *.sst
// files of another directory. A directory without any gets an error report.
std::vector<std::string> ListFiles(const std::vector<std::string>& paths,
                                   std::vector<FileReport>* errors,
                                   std::vector<OrphanFile>* orphans) {
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    std::error_code ec;
    if (!fs::is_directory(path, ec)) {
      files.push_back(path);
      continue;
    }
    std::vector<std::string> ssts;
    const bool db = sstfilter::inspect::IsDbDirectory(path) &&
                    ListDbFiles(path, &ssts, orphans);
    if (!db) {
      for (const auto& entry : fs::directory_iterator(path, ec)) {
        if (entry.path().extension() == ".sst") {
          ssts.push_back(entry.path().string());
        }
      }
    }
    if (ssts.empty()) {
      FileReport report;
      report.path = path;
      report.status = sstfilter::Status::NotFound(
          ec   ? "cannot list directory: " + ec.message()
          : db ? "the MANIFEST lists no SST files"
               : "directory holds no .sst files");
      errors->push_back(report);
    }
    std::sort(ssts.begin(), ssts.end());
    files.insert(files.end(), ssts.begin(), ssts.end());
  }
  return files;
}

// --db: a summary per DB; every file that cannot be read gets its error
// line on stderr. Returns the number of errors.
size_t SummarizeDbs(const Args& args) {
  size_t errors = 0;
  std::string range_json;  // an array per DB
  if (args.json) std::cout << "{\"dbs\": [";
  for (size_t i = 0; i < args.paths.size(); ++i) {
    const sstfilter::inspect::DbSummary summary =
        sstfilter::inspect::SummarizeDb(args.paths[i]);
    errors += summary.errors + !summary.status.ok();
    std::cout << std::flush;
    std::cerr << sstfilter::inspect::FormatFileErrorsText(summary);
    const auto ranges =
        sstfilter::inspect::DescribeDbRangeFilters(summary, args.range);
    if (args.json) {
      std::cout << (i ? ",\n  " : "\n  ")
                << sstfilter::inspect::FormatDbJson(summary);
      range_json +=
          (i ? ", " : "") +
          sstfilter::inspect::FormatRangeFiltersJson(ranges, args.range);
    } else if (summary.status.ok()) {
      std::cout << (i ? "\n" : "") << sstfilter::inspect::FormatDbText(summary)
                << sstfilter::inspect::FormatRangeFiltersText(ranges,
                                                              args.range);
    } else {
      std::cerr << sstfilter::inspect::FormatDbText(summary);
    }
  }
  if (args.json) {
    std::cout << "\n], \"range_filters\": [" << range_json
              << "], \"errors\": " << errors << "}\n";
  }
  return errors;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  if (!ParseArgs(argc, argv, &args)) return 2;
  if (args.db) {
    const size_t errors = SummarizeDbs(args);
    if (!args.json && errors > 0) {
      std::cerr << "sstfilter-inspect: " << errors
                << (errors == 1 ? " error\n" : " errors\n");
    }
    return errors > 0 ? 1 : 0;
  }
  std::vector<FileReport> reports;
  std::vector<OrphanFile> orphans;
  const std::vector<std::string> files =
      ListFiles(args.paths, &reports, &orphans);
  const bool show_progress = args.progress && files.size() > 1 && isatty(2);

  size_t errors = 0;
  bool first = true;
  std::vector<sstfilter::inspect::RangeFilterFile> ranges;
  auto emit = [&](const FileReport& report) {
    if (!report.status.ok()) ++errors;
    if (report.status.ok()) {
      ranges.push_back(
          sstfilter::inspect::DescribeRangeFilter(report, -1, args.range));
    }
    if (show_progress) std::cerr << "\r\033[K" << std::flush;
    if (args.json) {
      std::cout << (first ? "{\"files\": [\n  " : ",\n  ")
                << sstfilter::inspect::FormatJson(report, args.print);
    } else if (report.status.ok()) {
      std::cout << (first ? "" : "\n")
                << sstfilter::inspect::FormatText(report, args.print);
    } else {
      // Errors go to stderr, one line each, so the table stays clean.
      std::cout << std::flush;
      std::cerr << sstfilter::inspect::FormatText(report, args.print);
    }
    first = false;
  };
  for (const FileReport& report : reports) emit(report);
  for (size_t i = 0; i < files.size(); ++i) {
    if (show_progress) {
      std::cerr << "\r\033[K[" << i + 1 << "/" << files.size() << "] "
                << files[i] << std::flush;
    }
    emit(sstfilter::inspect::InspectFile(files[i], args.keys));
  }
  if (show_progress) std::cerr << "\r\033[K" << std::flush;
  if (args.json) {
    std::cout << (first ? "{\"files\": [" : "\n") << "], \"range_filters\": "
              << sstfilter::inspect::FormatRangeFiltersJson(ranges, args.range)
              << ", \"orphans\": "
              << sstfilter::inspect::FormatOrphansJson(orphans)
              << ", \"errors\": " << errors << "}\n";
  } else {
    const std::string range_text =
        sstfilter::inspect::FormatRangeFiltersText(ranges, args.range);
    if (!range_text.empty()) std::cout << (first ? "" : "\n") << range_text;
    if (!orphans.empty()) {
      std::cout << (first ? "" : "\n")
                << sstfilter::inspect::FormatOrphansText(orphans);
    }
  }
  if (!args.json && errors > 0) {
    std::cerr << "sstfilter-inspect: " << errors << " of "
              << files.size() + reports.size() << " paths had errors\n";
  }
  return errors > 0 ? 1 : 0;
}
