// The tool binaries end to end: sstfilter-inspect's output, errors and exit
// status; sstfilter-ldb and sstfilter-sst-dump on a DB written with our
// policies (on a RocksDB built with the plugin, RocksDB's own ldb and
// sst_dump); sstfilter-ldb's filter_summary on a DB of RocksDB's filters
// and ours; and Debian's stock ldb with the LD_PRELOAD library.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "format_checks.h"
#include "inspector.h"
#include "rocksdb_range_support.h"
#include "tools_test_support.h"

namespace sstfilter::test_support {
namespace {

struct CommandResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs `command` with /bin/sh, capturing both streams.
CommandResult RunCommand(const std::string& command) {
  TempDir scratch;
  const std::string err_path = scratch.path() + "/stderr";
  CommandResult result;
  FILE* pipe = popen((command + " 2>" + err_path).c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof(buffer), pipe)) > 0;) {
    result.out.append(buffer, n);
  }
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream err(err_path);
  std::stringstream text;
  text << err.rdbuf();
  result.err = text.str();
  return result;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

const std::string kInspect = SSTFILTER_INSPECT_BIN;
const std::string kLdb = SSTFILTER_LDB_BIN;
// Ours, with filter_summary, also where kLdb is RocksDB's own.
const std::string kFilterLdb = SSTFILTER_FILTER_LDB_BIN;
const std::string kSstDump = SSTFILTER_SST_DUMP_BIN;

// A DB written with one of our policies.
struct DbCase {
  const char* policy;
  bool partitioned;
  const char* policy_name;  // FilterPolicy::Name(), in the properties
  const char* filter_line;  // how sstfilter-inspect names its filter
};

void PrintTo(const DbCase& c, std::ostream* os) {
  *os << c.policy << (c.partitioned ? " partitioned" : "");
}

const DbCase kDefaultDb = {"sstfilter.BlockedBloom:10", false,
                           "sstfilter.BlockedBloom",
                           "filter      sstfilter BlockedBloom v2"};

// A DB with one of our filters, and a key its filter rejects.
class CliTest : public ::testing::Test {
 protected:
  explicit CliTest(const DbCase& db_case = kDefaultDb) : case_(db_case) {}

  void SetUp() override {
    spec_.policy = case_.policy;
    spec_.partitioned = case_.partitioned;
    spec_.num_keys = 2000;
    sst_ = BuildDb(db_.path(), spec_);
    ASSERT_FALSE(sst_.empty());
    const inspect::FileReport report =
        inspect::InspectFile(sst_, AbsentKeys(100));
    for (const inspect::KeyAnswer& answer : report.answers) {
      if (!answer.may_match) {
        rejected_ = answer.key;
        break;
      }
    }
    ASSERT_FALSE(rejected_.empty());
    filter_ = report.table.filter_handle;
  }

  const DbCase case_;
  TempDir db_;
  DbSpec spec_;
  std::string sst_;
  std::string rejected_;  // absent, and the filter says so
  sst::BlockHandle filter_;
};

TEST_F(CliTest, InspectReportsGoodFilesAndOneErrorLinePerBadFile) {
  TempDir dir;
  const std::string bytes = ReadFile(sst_);
  const std::string good = dir.path() + "/good.sst";
  const std::string truncated = dir.path() + "/truncated.sst";
  const std::string corrupt = dir.path() + "/corrupt.sst";
  const std::string text = dir.path() + "/notes.txt";
  const std::string missing = dir.path() + "/missing.sst";
  WriteFile(good, bytes);
  WriteFile(truncated, bytes.substr(0, bytes.size() / 2));
  std::string flipped = bytes;
  flipped[filter_.offset + 100] ^= 1;
  WriteFile(corrupt, flipped);
  WriteFile(text, std::string(1000, 'x'));

  const CommandResult r =
      RunCommand(kInspect + " " + good + " " + missing + " " + text + " " +
                 truncated + " " + corrupt + " " + db_.path() + " --key key5");
  EXPECT_EQ(r.exit_code, 1);
  // Both good files are reported in full on stdout, the bad ones not at all.
  EXPECT_TRUE(Contains(r.out, good + "\n")) << r.out;
  EXPECT_TRUE(Contains(r.out, sst_ + "\n")) << r.out;
  for (const std::string& bad : {missing, text, truncated, corrupt}) {
    EXPECT_FALSE(Contains(r.out, bad)) << bad;
  }
  // One line per bad file, then the count.
  const std::vector<std::string> errors = Lines(r.err);
  ASSERT_EQ(errors.size(), 5u) << r.err;
  EXPECT_EQ(errors[0].rfind(missing + ": NotFound: cannot open", 0), 0u);
  EXPECT_EQ(errors[1].rfind(text + ": Corruption: ", 0), 0u);
  EXPECT_EQ(errors[2].rfind(truncated + ": Corruption: ", 0), 0u);
  EXPECT_EQ(errors[3].rfind(corrupt + ": Corruption: filter block: ", 0), 0u);
  EXPECT_TRUE(Contains(errors[3], "checksum mismatch")) << errors[3];
  EXPECT_EQ(errors[4], "sstfilter-inspect: 4 of 6 paths had errors");
}

TEST_F(CliTest, InspectAnswersKeysAndExitsZeroWhenEveryFileReads) {
  const CommandResult r = RunCommand(kInspect + " --key key5 --key " +
                                     rejected_ + " " + db_.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(Contains(r.out, "filter      sstfilter BlockedBloom v2"))
      << r.out;
  EXPECT_TRUE(Contains(r.out, "key \"key5\": may match\n")) << r.out;
  EXPECT_TRUE(Contains(r.out, "key \"" + rejected_ + "\": no")) << r.out;
}

TEST_F(CliTest, KeysFileAndHexKeysGiveTheSameAnswers) {
  TempDir dir;
  const std::string keys_file = dir.path() + "/keys";
  WriteFile(keys_file, "key5\n" + rejected_ + "\n");
  const CommandResult plain =
      RunCommand(kInspect + " --json --keys-file " + keys_file + " " + sst_);
  std::string hex_keys;
  for (const std::string& key : {std::string("key5"), rejected_}) {
    hex_keys += " --key 0x";
    for (unsigned char c : key) {
      char digits[3];
      std::snprintf(digits, sizeof(digits), "%02x", c);
      hex_keys += digits;
    }
  }
  const CommandResult hex =
      RunCommand(kInspect + " --json --hex" + hex_keys + " " + sst_);
  EXPECT_EQ(plain.exit_code, 0);
  EXPECT_EQ(hex.exit_code, 0);
  EXPECT_TRUE(Contains(plain.out, "{\"key\": \"key5\", \"may_match\": true"))
      << plain.out;
  EXPECT_TRUE(Contains(plain.out,
                       "{\"key\": \"" + rejected_ + "\", \"may_match\": false"))
      << plain.out;
  // The same answers, with the keys printed in hex.
  EXPECT_TRUE(Contains(hex.out, "{\"key\": \"6b657935\", \"may_match\": true"))
      << hex.out;
  EXPECT_NE(hex.out.find("\"may_match\": false"), std::string::npos);
}

TEST_F(CliTest, JsonOutputIsOneValidDocument) {
  if (RunCommand("python3 -c pass").exit_code != 0)
    GTEST_SKIP() << "no python3";
  TempDir dir;
  const CommandResult r = RunCommand(kInspect + " --json --key key5 " + sst_ +
                                     " " + dir.path() + "/missing.sst");
  EXPECT_EQ(r.exit_code, 1);
  TempDir scratch;
  WriteFile(scratch.path() + "/out.json", r.out);
  const CommandResult check = RunCommand(
      "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); "
      "f=d[\"files\"]; assert d[\"errors\"]==1 and len(f)==2; "
      "g=f[0][\"filter\"]; assert f[0][\"ok\"] and not f[1][\"ok\"]; "
      "assert g[\"kind\"]==\"BlockedBloom\" and g[\"keys\"]==2000; "
      "assert f[0][\"keys\"][0][\"may_match\"] is True' " +
      scratch.path() + "/out.json");
  EXPECT_EQ(check.exit_code, 0) << check.err << r.out;
}

TEST_F(CliTest, UsageErrorsExitTwo) {
  EXPECT_EQ(RunCommand(kInspect).exit_code, 2);
  EXPECT_EQ(RunCommand(kInspect + " --bogus " + sst_).exit_code, 2);
  EXPECT_EQ(RunCommand(kInspect + " --hex --key xyz " + sst_).exit_code, 2);
  EXPECT_EQ(RunCommand(kInspect + " " + sst_ + " --key").exit_code, 2);
}

// A 0-byte SST that a crash left in a DB directory is an orphan: the
// MANIFEST does not list it, so it is reported, not read, and the exit
// status stays 0, for the plain listing and the --db summary alike.
TEST_F(CliTest, OrphanSstInADbIsReportedAndExitsZero) {
  const std::string orphan = db_.path() + "/000999.sst";
  WriteFile(orphan, "");
  const std::string orphan_line = "  " + orphan + "  0 bytes\n";

  const CommandResult plain = RunCommand(kInspect + " " + db_.path());
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.err, "");
  EXPECT_TRUE(Contains(plain.out, sst_ + "\n")) << plain.out;
  EXPECT_TRUE(Contains(plain.out, "\norphans  ")) << plain.out;
  EXPECT_TRUE(Contains(plain.out, orphan_line)) << plain.out;

  const CommandResult db = RunCommand(kInspect + " --db " + db_.path());
  EXPECT_EQ(db.exit_code, 0) << db.err;
  EXPECT_EQ(db.err, "");
  const std::vector<std::string> lines = Lines(db.out);
  ASSERT_GE(lines.size(), 5u) << db.out;
  EXPECT_EQ(lines[0], db_.path() + "  column family default, 1 live SST file");
  EXPECT_EQ(lines[2].rfind("  L0                 1       2000", 0), 0u)
      << lines[2];
  EXPECT_TRUE(Contains(lines[2], "BlockedBloom")) << lines[2];
  EXPECT_TRUE(Contains(db.out, "expected data-block reads per absent Get: "))
      << db.out;
  EXPECT_TRUE(Contains(db.out, orphan_line)) << db.out;

  if (RunCommand("python3 -c pass").exit_code != 0) return;
  TempDir scratch;
  const std::string check =
      "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); " +
      std::string(
          "o=d[\"orphans\"] if \"orphans\" in d else "
          "d[\"dbs\"][0][\"orphans\"]; assert d[\"errors\"]==0; "
          "assert o==[{\"path\": sys.argv[2], \"bytes\": 0}]' ") +
      scratch.path() + "/out.json " + orphan;
  for (const char* mode : {"--json", "--json --db"}) {
    const CommandResult json =
        RunCommand(kInspect + " " + mode + " " + db_.path());
    EXPECT_EQ(json.exit_code, 0) << mode << ": " << json.err;
    WriteFile(scratch.path() + "/out.json", json.out);
    const CommandResult valid = RunCommand(check);
    EXPECT_EQ(valid.exit_code, 0) << mode << ": " << valid.err << json.out;
  }
}

TEST_F(CliTest, DbSummaryOfANonDbOrWithKeysFails) {
  TempDir dir;
  const CommandResult not_db = RunCommand(kInspect + " --db " + dir.path());
  EXPECT_EQ(not_db.exit_code, 1);
  EXPECT_EQ(Lines(not_db.err).at(0),
            dir.path() +
                ": NotFound: no CURRENT file: not a RocksDB DB "
                "directory");
  EXPECT_EQ(RunCommand(kInspect + " --db --key k " + db_.path()).exit_code, 2);
  EXPECT_EQ(RunCommand(kInspect + " --db --partitions " + db_.path()).exit_code,
            2);
}

// filter_summary prints, from inside ldb, what sstfilter-inspect --db
// prints: on a DB that holds RocksDB's filters beside ours, a row per kind
// on each level that mixes them, with its bits/key and FPR.
TEST(FilterSummaryCli, LdbFilterSummaryIsTheInspectorsDbSummary) {
  TempDir db;
  const KindKeys kinds = BuildMixedDb(db.path(), /*partitioned=*/false);
  ASSERT_FALSE(kinds.empty());
  const CommandResult inspect = RunCommand(kInspect + " --db " + db.path());
  EXPECT_EQ(inspect.exit_code, 0) << inspect.err;
  const CommandResult ldb =
      RunCommand(kFilterLdb + " --db=" + db.path() + " filter_summary");
  EXPECT_EQ(ldb.exit_code, 0) << ldb.err;
  EXPECT_EQ(ldb.err, "");
  EXPECT_EQ(ldb.out, inspect.out);

  // The row that starts with `start` and ends with `end`, or "".
  const std::vector<std::string> lines = Lines(ldb.out);
  auto row = [&lines](const std::string& start, const std::string& end) {
    for (const std::string& line : lines) {
      if (line.rfind(start, 0) == 0 && line.size() >= end.size() &&
          line.compare(line.size() - end.size(), end.size(), end) == 0) {
        return line;
      }
    }
    return std::string();
  };
  // The level rows name their kinds.
  EXPECT_NE(row("  L0 ", "  BlockedBloom+FastLocalBloom"), "") << ldb.out;
  EXPECT_NE(row("  L1 ", "  Cuckoo"), "") << ldb.out;
  EXPECT_NE(row("  L2 ", "  BlockedBloom+Ribbon128"), "") << ldb.out;
  EXPECT_NE(row("  L3 ", "  FastLocalBloom"), "") << ldb.out;
  // L2's mix gets a row per kind (no label; the kind in the filter column):
  // files, keys, filter bytes, bits/key, est. FPR, reads/Get.
  const std::string kind_row(17, ' ');
  for (const char* kind : {"Ribbon128", "BlockedBloom"}) {
    SCOPED_TRACE(kind);
    const std::string line = row(kind_row, std::string("  ") + kind);
    ASSERT_NE(line, "") << ldb.out;
    std::istringstream fields(line);
    uint64_t files = 0, keys = 0, bytes = 0;
    double bits_per_key = 0;
    std::string fpr;
    fields >> files >> keys >> bytes >> bits_per_key >> fpr;
    EXPECT_EQ(files, 1u);
    EXPECT_EQ(keys, kinds.at(2).at(kind));
    EXPECT_NEAR(bits_per_key, 8.0 * bytes / keys, 0.005);
    EXPECT_GT(bits_per_key, 6.5);
    EXPECT_LT(bits_per_key, 11.0);
    ASSERT_EQ(fpr.back(), '%');
    EXPECT_GT(std::stod(fpr), 0.3);
    EXPECT_LT(std::stod(fpr), 2.0);
  }
}

// The JSON form gives each level's kinds apart, RocksDB's with their
// bits/key: the table property's key count, which their blocks lack.
TEST(FilterSummaryCli, LdbFilterSummaryJsonGivesEachKindsFigures) {
  if (RunCommand("python3 -c pass").exit_code != 0) {
    GTEST_SKIP() << "no python3";
  }
  TempDir db;
  ASSERT_FALSE(BuildMixedDb(db.path(), /*partitioned=*/true).empty());
  const CommandResult ldb =
      RunCommand(kFilterLdb + " --db=" + db.path() + " filter_summary --json");
  EXPECT_EQ(ldb.exit_code, 0) << ldb.err;
  TempDir scratch;
  WriteFile(scratch.path() + "/out.json", ldb.out);
  const CommandResult check = RunCommand(
      "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); "
      "l=d[\"column_families\"][0][\"levels\"]; "
      "k={(x[\"level\"], y[\"kind\"]): y for x in l for y in x[\"by_kind\"]}; "
      "assert sorted(k)==[(0,\"BlockedBloom\"),(0,\"FastLocalBloom\"),"
      "(1,\"Cuckoo\"),(2,\"BlockedBloom\"),(2,\"Ribbon128\"),"
      "(3,\"FastLocalBloom\")], sorted(k); "
      "assert all(y[\"keys\"]>0 and 6<y[\"bits_per_key\"]<13 and "
      "0<y[\"fpr\"]<0.02 for y in k.values()), k' " +
      scratch.path() + "/out.json");
  EXPECT_EQ(check.exit_code, 0) << check.err << ldb.out;
}

TEST(FilterSummaryCli, LdbFilterSummaryFailsOnANonDbOrWithParameters) {
  TempDir dir;
  const CommandResult not_db =
      RunCommand(kFilterLdb + " --db=" + dir.path() + " filter_summary");
  EXPECT_EQ(not_db.exit_code, 1);
  EXPECT_EQ(not_db.out, "");
  EXPECT_TRUE(Contains(not_db.err, "not a RocksDB DB directory")) << not_db.err;
  const CommandResult extra =
      RunCommand(kFilterLdb + " --db=" + dir.path() + " filter_summary x");
  EXPECT_EQ(extra.exit_code, 1);
  EXPECT_TRUE(Contains(extra.err, "filter_summary takes no parameters"))
      << extra.err;
  const CommandResult help = RunCommand(kFilterLdb + " --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_TRUE(
      Contains(help.out, "\n  filter_summary [--json] [--range A B] : "))
      << help.out;
}

// What a compaction writes shows whether the tool created our policy from
// the OPTIONS file: RocksDB silently drops a policy it cannot create.
std::string FilterAfterCompaction(const std::string& ldb_command,
                                  const std::string& db) {
  const CommandResult compact =
      RunCommand(ldb_command + " --db=" + db + " --try_load_options compact");
  EXPECT_EQ(compact.exit_code, 0) << compact.err;
  const CommandResult inspect = RunCommand(kInspect + " " + db);
  for (const std::string& line : Lines(inspect.out)) {
    if (line.rfind("  filter ", 0) == 0) return line;
  }
  return "";
}

class PolicyCliTest : public CliTest,
                      public ::testing::WithParamInterface<DbCase> {
 protected:
  PolicyCliTest() : CliTest(GetParam()) {}
};

TEST_P(PolicyCliTest, LdbGetsScansChecksAndCompactsWithOurPolicy) {
  const std::string ldb = kLdb + " --db=" + db_.path() + " --try_load_options";
  const CommandResult get = RunCommand(ldb + " get key5");
  EXPECT_EQ(get.exit_code, 0) << get.err;
  EXPECT_EQ(get.out, "value-key5\n");
  const CommandResult scan = RunCommand(ldb + " scan");
  EXPECT_EQ(scan.exit_code, 0) << scan.err;
  EXPECT_EQ(Lines(scan.out).size(), spec_.num_keys);
  const CommandResult check = RunCommand(ldb + " checkconsistency");
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_EQ(check.out, "OK\n");
  EXPECT_TRUE(
      Contains(FilterAfterCompaction(kLdb, db_.path()), case_.filter_line));
}

// The filter_policy line of the newest OPTIONS-<number> file in `db`.
std::string LatestOptionsFilterLine(const std::string& db) {
  const CommandResult latest = RunCommand(
      "ls " + db + " | grep '^OPTIONS-' | sort -t- -k2 -n | tail -1");
  std::ifstream in(db + "/" + Lines(latest.out).at(0));
  for (std::string line; std::getline(in, line);) {
    const size_t at = line.find("filter_policy=");
    if (at != std::string::npos) return line.substr(at);
  }
  return "";
}

// A writing command persists the DB's options anew. Our ldb recreates the
// policy from the OPTIONS file, so the new file still names it.
TEST_P(PolicyCliTest, LdbWritingCommandKeepsThePolicyInTheOptionsFile) {
  const std::string before = LatestOptionsFilterLine(db_.path());
  ASSERT_TRUE(Contains(before, case_.policy_name)) << before;
  const CommandResult put = RunCommand(kLdb + " --db=" + db_.path() +
                                       " --try_load_options put newkey v");
  EXPECT_EQ(put.exit_code, 0) << put.err;
  EXPECT_EQ(LatestOptionsFilterLine(db_.path()), before);
}

TEST_P(PolicyCliTest, SstDumpShowsPropertiesAndVerifiesOurSst) {
  const CommandResult properties =
      RunCommand(kSstDump + " --file=" + sst_ + " --show_properties");
  EXPECT_EQ(properties.exit_code, 0) << properties.err;
  EXPECT_TRUE(Contains(properties.out,
                       std::string("filter policy name: ") + case_.policy_name))
      << properties.out;
  EXPECT_TRUE(Contains(properties.out, "# entries for filter: 2000"));
  const CommandResult verify =
      RunCommand(kSstDump + " --file=" + sst_ + " --command=verify");
  EXPECT_EQ(verify.exit_code, 0) << verify.err;
  EXPECT_TRUE(Contains(verify.out, "The file is ok")) << verify.out;
}

// ldb's compaction rewrites the flushed file into level 1, where
// Hybrid:10:1 writes Cuckoo instead of the flush's BlockedBloom.
INSTANTIATE_TEST_SUITE_P(
    Policies, PolicyCliTest,
    ::testing::Values(kDefaultDb,
                      DbCase{"sstfilter.Cuckoo:12", true, "sstfilter.Cuckoo",
                             "filter      sstfilter Cuckoo v2"},
                      DbCase{"sstfilter.Hybrid:10:1", false, "sstfilter.Hybrid",
                             "filter      sstfilter Cuckoo v2"}));

#ifdef SSTFILTER_PRELOAD_LIB
// Debian's ldb reads the DB either way, but only with the preload library
// does it recreate our policy, so that its compactions keep the filter.
TEST_F(CliTest, StockLdbKeepsOurFilterOnlyWithThePreloadLibrary) {
  const std::string kPreload = SSTFILTER_PRELOAD_LIB;
  if (access("/usr/bin/ldb", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/ldb";
#ifdef __SANITIZE_ADDRESS__
  GTEST_SKIP() << "an ASan-built library cannot be preloaded into stock ldb";
#endif
  const CommandResult get = RunCommand("/usr/bin/ldb --db=" + db_.path() +
                                       " --try_load_options get key5");
  EXPECT_EQ(get.out, "value-key5\n") << get.err;
  EXPECT_TRUE(
      Contains(FilterAfterCompaction("LD_PRELOAD=" + kPreload + " /usr/bin/ldb",
                                     db_.path()),
               "sstfilter BlockedBloom"));
  EXPECT_EQ(FilterAfterCompaction("/usr/bin/ldb", db_.path()),
            "  filter      none");
  // Stock ldb persisted what it had: no policy. From then on the DB builds
  // no filters, whichever ldb or program opens it from its OPTIONS file.
  EXPECT_EQ(LatestOptionsFilterLine(db_.path()), "filter_policy=nullptr");
}
#endif  // SSTFILTER_PRELOAD_LIB

// A DB with range filters: sstfilter-inspect and sstfilter-ldb
// filter_summary show each SST's filter and the total, and --range A B
// skips the SSTs whose filter says [A, B) is empty, never the one holding
// a key in it.
TEST(RangeFilterCli, InspectAndLdbShowRangeFiltersAndAnswerARange) {
  TempDir db;
  {
    rdb::Options base;
    base.create_if_missing = true;
    base.write_buffer_size = 32 << 10;
    base.disable_auto_compactions = true;
    rdb::Options options;
    ASSERT_TRUE(
        WithRangeFilter(base, "{id=sstfilter.RangeFilter}", &options).ok());
    std::unique_ptr<rdb::DB> handle;
    ASSERT_TRUE(rocksdb_compat::OpenDb(options, db.path(), &handle).ok());
    for (uint64_t i = 0; i < 5000; ++i) {
      ASSERT_TRUE(
          handle
              ->Put(rdb::WriteOptions(), IntKey(i * 1000), std::string(40, 'v'))
              .ok());
    }
    ASSERT_TRUE(handle->Flush(rdb::FlushOptions()).ok());
  }
  const auto hex = [](uint64_t v) { return Hex(IntKey(v)); };
  // [2000000, 2000001) holds a key; [2000100, 2000116) holds none.
  const CommandResult hit =
      RunCommand(kInspect + " --db --hex --range " + hex(2000000) + " " +
                 hex(2000001) + " " + db.path());
  EXPECT_EQ(hit.exit_code, 0) << hit.err;
  EXPECT_TRUE(Contains(hit.out, "range filters (sstfilter.RangeFilter)"))
      << hit.out;
  EXPECT_TRUE(Contains(hit.out, "5000 keys")) << hit.out;
  EXPECT_TRUE(Contains(hit.out, "[A, B): 1 of ")) << hit.out;
  const CommandResult miss =
      RunCommand(kInspect + " --db --hex --range " + hex(2000100) + " " +
                 hex(2000116) + " " + db.path());
  EXPECT_TRUE(Contains(miss.out, "[A, B): 0 of ")) << miss.out;
  const CommandResult ldb = RunCommand(kFilterLdb + " --db=" + db.path() +
                                       " --hex filter_summary --range 0x" +
                                       hex(2000000) + " 0x" + hex(2000001));
  EXPECT_EQ(ldb.exit_code, 0) << ldb.err;
  EXPECT_TRUE(Contains(ldb.out, "[A, B): 1 of ")) << ldb.out;
  // The JSON forms stay one valid document each.
  TempDir scratch;
  for (const std::string& command :
       {kInspect + " --db --json --range a b " + db.path(),
        kFilterLdb + " --db=" + db.path() + " filter_summary --json"}) {
    const CommandResult json = RunCommand(command);
    WriteFile(scratch.path() + "/out.json", json.out);
    const CommandResult valid = RunCommand(
        "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); "
        "assert \"range_filters\" in d' " +
        scratch.path() + "/out.json");
    EXPECT_EQ(valid.exit_code, 0) << command << ": " << json.out;
  }
}

}  // namespace
}  // namespace sstfilter::test_support
