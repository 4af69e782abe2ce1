// sstfilter-inspect: what each SST's filter is, costs and buys.
//
//   sstfilter-inspect [options] PATH...
//
// PATH is an SST file or a DB directory (its *.sst files). Exit status: 0
// if every file was read, 1 if any gave an error (each gets one line and
// the scan goes on), 2 for a usage error.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "inspector.h"

namespace {

namespace fs = std::filesystem;
using sstfilter::inspect::FileReport;
using sstfilter::inspect::PrintOptions;

constexpr char kUsage[] =
    "usage: sstfilter-inspect [options] PATH...\n"
    "  PATH             an SST file, or a DB directory (its *.sst files)\n"
    "  --json           print JSON instead of a table\n"
    "  --key K          may K be in each SST? (repeatable)\n"
    "  --keys-file F    the same for every line of F\n"
    "  --hex            keys are given and printed in hex\n"
    "  --partitions     a row per filter partition\n"
    "  --no-progress    no progress line on stderr\n";

struct Args {
  std::vector<std::string> paths;
  std::vector<std::string> keys;
  bool json = false;
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
    if (arg == "--key") {
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

// The files to inspect: each file argument, and the *.sst files of each
// directory in name order. A directory without any gets an error report.
std::vector<std::string> ListFiles(const std::vector<std::string>& paths,
                                   std::vector<FileReport>* errors) {
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    std::error_code ec;
    if (!fs::is_directory(path, ec)) {
      files.push_back(path);
      continue;
    }
    std::vector<std::string> ssts;
    for (const auto& entry : fs::directory_iterator(path, ec)) {
      if (entry.path().extension() == ".sst") {
        ssts.push_back(entry.path().string());
      }
    }
    if (ssts.empty()) {
      FileReport report;
      report.path = path;
      report.status = sstfilter::Status::NotFound(
          ec ? "cannot list directory: " + ec.message()
             : "directory holds no .sst files");
      errors->push_back(report);
    }
    std::sort(ssts.begin(), ssts.end());
    files.insert(files.end(), ssts.begin(), ssts.end());
  }
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  if (!ParseArgs(argc, argv, &args)) return 2;
  std::vector<FileReport> reports;
  const std::vector<std::string> files = ListFiles(args.paths, &reports);
  const bool show_progress = args.progress && files.size() > 1 && isatty(2);

  size_t errors = 0;
  bool first = true;
  auto emit = [&](const FileReport& report) {
    if (!report.status.ok()) ++errors;
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
    std::cout << (first ? "{\"files\": [" : "\n") << "], \"errors\": " << errors
              << "}\n";
  }
  if (!args.json && errors > 0) {
    std::cerr << "sstfilter-inspect: " << errors << " of "
              << files.size() + reports.size() << " paths had errors\n";
  }
  return errors > 0 ? 1 : 0;
}
