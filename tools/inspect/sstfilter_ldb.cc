// sstfilter-ldb: RocksDB's ldb with sstfilter's filter policies registered,
// so that --try_load_options opens DBs whose OPTIONS file names them, and
// one command of its own:
//
//   sstfilter-ldb --db=DIR filter_summary [--json]
//
// prints the per-level filter summary of `sstfilter-inspect --db DIR`
// (db_summary.h): RocksDB's filters and ours, level by level, with their
// bits/key, FPRs and the expected reads of an absent-key Get under the
// filter policy of the DB's OPTIONS file (which may leave files of another
// family name, or ours under RocksDB's own policy, unfiltered). It reaches
// ldb's parser through its command selector (LDBCommand::InitFromCmdLineArgs
// in rocksdb/utilities/ldb_cmd.h); every other command is ldb's own.
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "db_summary.h"
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
    ret.append("  " + Name() + " [--" + kJson +
               "] : the filters of each level (sstfilter-inspect --db)\n");
  }

  FilterSummaryCommand(const std::vector<std::string>& params,
                       const std::map<std::string, std::string>& options,
                       const std::vector<std::string>& flags)
      : LDBCommand(options, flags, /*is_read_only=*/true,
                   BuildCmdLineOptions({kJson})),
        json_(IsFlagPresent(flags, kJson)) {
    if (!params.empty()) {
      exec_state_ =
          LDBCommandExecuteResult::Failed(Name() + " takes no parameters");
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
    std::fputs((json_ ? inspect::FormatDbJson(summary) + "\n"
                      : inspect::FormatDbText(summary))
                   .c_str(),
               stdout);
    if (summary.errors > 0) {
      exec_state_ = LDBCommandExecuteResult::Failed(
          std::to_string(summary.errors) + " live SST files could not be read");
    }
  }

 private:
  static constexpr char kJson[] = "json";
  const bool json_;
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
