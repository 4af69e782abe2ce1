// sstfilter-ldb: RocksDB's ldb with sstfilter's filter policies registered,
// so that --try_load_options opens DBs whose OPTIONS file names them, and
// one command of its own:
//
//   sstfilter-ldb --db=DIR filter_summary [--json] [--range A B]
//
// prints the per-level filter summary of `sstfilter-inspect --db DIR`
// (db_summary.h): RocksDB's filters and ours, level by level, with their
// bits/key, FPRs and the expected reads of an absent-key Get under the
// filter policy of the DB's OPTIONS file (which may leave files of another
// family name, or ours under RocksDB's own policy, unfiltered), then each
// SST's range filter and their total, and with --range A B which SSTs may
// hold a key in [A, B) (range_report.h; A and B in hex with --hex). It reaches
// ldb's parser through its command selector (LDBCommand::InitFromCmdLineArgs
// in rocksdb/utilities/ldb_cmd.h); every other command is ldb's own.
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "db_summary.h"
#include "range_report.h"
#include "rocksdb/ldb_tool.h"
#include "rocksdb/utilities/ldb_cmd.h"
#include "rocksdb/utilities/object_registry.h"
#include "sstfilter/rocksdb_plugin.h"

namespace {

namespace rdb = ROCKSDB_NAMESPACE;
using rdb::LDBCommandExecuteResult;

class FilterSummaryCommand : public rdb::LDBCommand {
 public:
  static std::string Name() { return "filter_summary"; }

  static void Help(std::string& ret) {
    ret.append("  " + Name() + " [--" + kJson + "] [--" + kRange +
               " A B] : the filters of each level (sstfilter-inspect --db)\n");
  }

  FilterSummaryCommand(const std::vector<std::string>& params,
                       const std::map<std::string, std::string>& options,
                       const std::vector<std::string>& flags)
      : LDBCommand(options, flags, /*is_read_only=*/true,
                   BuildCmdLineOptions({kJson, kRange, ARG_HEX})),
        json_(IsFlagPresent(flags, kJson)) {
    range_.asked = IsFlagPresent(flags, kRange);
    if (range_.asked && params.size() == 2) {
      range_.lower = params[0];
      range_.upper = params[1];
      // ldb's HexToString throws on bad hex ("0x..." expected).
      try {
        if (is_key_hex_) {
          range_.lower = HexToString(range_.lower);
          range_.upper = HexToString(range_.upper);
        }
      } catch (const char*) {
        exec_state_ = LDBCommandExecuteResult::Failed(
            "--" + std::string(kRange) + " keys are not 0x-prefixed hex");
      }
    } else if (!params.empty() || range_.asked) {
      exec_state_ = LDBCommandExecuteResult::Failed(
          Name() + " takes no parameters but --" + kRange + "'s two keys");
    }
  }

  // The summary reads the MANIFEST through its own read-only open.
  bool NoDBOpen() override { return true; }

  void DoCommand() override {
    if (db_path_.empty()) {
      exec_state_ =
          LDBCommandExecuteResult::Failed("--" + ARG_DB + " is required");
      return;
    }
    namespace inspect = sstfilter::inspect;
    const inspect::DbSummary summary = inspect::SummarizeDb(db_path_);
    if (!summary.status.ok()) {
      exec_state_ = LDBCommandExecuteResult::Failed(summary.status.ToString());
      return;
    }
    std::fputs(inspect::FormatFileErrorsText(summary).c_str(), stderr);
    const auto ranges = inspect::DescribeDbRangeFilters(summary, range_);
    std::string out;
    if (json_) {
      // The summary's object, with the range filters as one more member.
      out = inspect::FormatDbJson(summary);
      out.pop_back();
      out += ", \"range_filters\": " +
             inspect::FormatRangeFiltersJson(ranges, range_) + "}\n";
    } else {
      out = inspect::FormatDbText(summary) +
            inspect::FormatRangeFiltersText(ranges, range_);
    }
    std::fputs(out.c_str(), stdout);
    if (summary.errors > 0) {
      exec_state_ = LDBCommandExecuteResult::Failed(
          std::to_string(summary.errors) + " live SST files could not be read");
    }
  }

 private:
  static constexpr char kJson[] = "json";
  static constexpr char kRange[] = "range";
  const bool json_;
  sstfilter::inspect::RangeQuery range_;
};

rdb::LDBCommand* SelectCommand(const rdb::LDBCommand::ParsedParams& parsed) {
  if (parsed.cmd == FilterSummaryCommand::Name()) {
    return new FilterSummaryCommand(parsed.cmd_params, parsed.option_map,
                                    parsed.flags);
  }
  return rdb::LDBCommand::SelectCommand(parsed);
}

// ldb's help, then our command's.
void PrintHelp(const rdb::LDBOptions& ldb_options, const char* exec_name,
               bool to_stderr) {
  rdb::LDBCommandRunner::PrintHelp(ldb_options, exec_name, to_stderr);
  std::string help = "\nsstfilter's commands:\n";
  FilterSummaryCommand::Help(help);
  std::fputs(help.c_str(), to_stderr ? stderr : stdout);
}

}  // namespace

int main(int argc, char** argv) {
  RegisterSstfilterPolicies(*rdb::ObjectLibrary::Default(), "");
  rdb::LDBOptions ldb_options;
  ldb_options.print_help_header = "sstfilter-ldb - RocksDB ldb with sstfilter";
  // What LDBCommandRunner::RunCommand does, with our command in the help
  // and the selector.
  if (argc == 2 && std::string(argv[1]) == "--version") {
    return rdb::LDBCommandRunner::RunCommand(argc, argv, rdb::Options(),
                                             ldb_options, nullptr);
  }
  if (argc <= 2) {
    const bool asked = argc == 2 && std::string(argv[1]) == "--help";
    PrintHelp(ldb_options, argv[0], /*to_stderr=*/!asked);
    return asked ? 0 : 1;
  }
  const std::vector<std::string> args(argv + 1, argv + argc);
  std::unique_ptr<rdb::LDBCommand> command(rdb::LDBCommand::InitFromCmdLineArgs(
      args, rdb::Options(), ldb_options, nullptr, SelectCommand));
  if (command == nullptr) {
    std::fputs("Unknown command\n", stderr);
    PrintHelp(ldb_options, argv[0], /*to_stderr=*/true);
    return 1;
  }
  if (!command->ValidateCmdLineOptions()) return 1;
  command->Run();
  LDBCommandExecuteResult result = command->GetExecuteState();
  if (!result.ToString().empty()) {
    std::fprintf(stderr, "%s\n", result.ToString().c_str());
  }
  return result.IsFailed() ? 1 : 0;
}
