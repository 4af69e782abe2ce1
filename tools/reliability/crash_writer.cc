// sstfilter-crash-writer: the two halves of the kill -9 test
// (tools/reliability/kill_test.sh).
//
//   sstfilter-crash-writer write --db DIR --policy ID [--partitioned]
//                                [--prefix_len N] [--batch N]
//   sstfilter-crash-writer check --db DIR --policy ID [--partitioned]
//                                [--prefix_len N]
//
// `write` puts keys Key(0), Key(1), ... forever, in synced WriteBatches of
// --batch keys, into a DB with tiny write buffers and files, so that
// flushes and compactions (and so filter construction) run all the time.
// After each batch is acknowledged (DB::Write returned OK, WAL synced) it
// appends the number of acknowledged keys to DIR.acked and fsyncs that
// file: every key below the last complete record there is acknowledged.
// A restarted writer continues from that number. It runs until killed.
//
// `check` reopens the DB (recovering it, which flushes the WAL) and
// looks up every acknowledged key with Get and with MultiGet, plus keys
// that were never written. It exits 1 if any acknowledged key is missing or
// wrong, any absent key is found, or any lookup fails; 2 on usage errors.
#include <fcntl.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/slice_transform.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/object_registry.h"
#include "rocksdb/write_batch.h"
#include "rocksdb_db_compat.h"
#include "sstfilter/hash.h"
#include "sstfilter/rocksdb_plugin.h"

namespace {

namespace rdb = ROCKSDB_NAMESPACE;

struct Flags {
  std::string command;
  std::string db;
  std::string policy;
  bool partitioned = false;
  int prefix_len = 0;  // 0: no prefix extractor
  uint64_t batch = 64;
};

// Keys spread over the key space (a bijective mix of the counter), so that
// every flush overlaps the files below it and compactions keep running.
std::string Key(uint64_t i) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "k%016" PRIx64, sstfilter::Remix64(i));
  return buf;
}

// About 100 bytes, checkable: the key's counter and padding.
std::string Value(uint64_t i) {
  std::string value = "v" + std::to_string(i) + "-";
  value.resize(100, static_cast<char>('a' + i % 26));
  return value;
}

// Keys beyond any counter the writer reaches.
constexpr uint64_t kFirstNeverWritten = uint64_t{1} << 48;

std::string AckedPath(const Flags& flags) { return flags.db + ".acked"; }

// The last complete 8-byte record of the acked file; 0 if none.
uint64_t ReadAcked(const Flags& flags) {
  FILE* file = std::fopen(AckedPath(flags).c_str(), "rb");
  if (file == nullptr) return 0;
  uint64_t acked = 0;
  for (uint64_t record; std::fread(&record, sizeof(record), 1, file) == 1;) {
    acked = record;
  }
  std::fclose(file);
  return acked;
}

bool MakeOptions(const Flags& flags, rdb::Options* options) {
  options->create_if_missing = true;
  // Small everything: a flush every ~600 keys, compactions behind them.
  options->write_buffer_size = 64 << 10;
  options->max_write_buffer_number = 3;
  options->target_file_size_base = 64 << 10;
  options->max_bytes_for_level_base = 256 << 10;
  options->level0_file_num_compaction_trigger = 2;
  options->max_background_jobs = 2;
  options->compression = rdb::kNoCompression;
  if (flags.prefix_len > 0) {
    options->prefix_extractor.reset(
        rdb::NewFixedPrefixTransform(static_cast<size_t>(flags.prefix_len)));
  }
  rdb::BlockBasedTableOptions table;
  rdb::ConfigOptions config;
  config.ignore_unsupported_options = false;
  const rdb::Status s = rdb::FilterPolicy::CreateFromString(
      config, flags.policy, &table.filter_policy);
  if (!s.ok() || table.filter_policy == nullptr) {
    std::fprintf(stderr, "policy %s: %s\n", flags.policy.c_str(),
                 s.ToString().c_str());
    return false;
  }
  if (flags.partitioned) {
    table.index_type = rdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
    table.partition_filters = true;
    table.metadata_block_size = 1024;
  }
  options->table_factory.reset(rdb::NewBlockBasedTableFactory(table));
  return true;
}

int Write(const Flags& flags, const rdb::Options& options) {
  std::unique_ptr<rdb::DB> db;
  rdb::Status s = sstfilter::rocksdb_compat::OpenDb(options, flags.db, &db);
  if (!s.ok()) {
    std::fprintf(stderr, "open: %s\n", s.ToString().c_str());
    return 1;
  }
  const int acked_fd = ::open(AckedPath(flags).c_str(),
                              O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (acked_fd < 0) {
    std::perror("open acked file");
    return 1;
  }
  rdb::WriteOptions write_options;
  write_options.sync = true;
  for (uint64_t next = ReadAcked(flags);;) {
    rdb::WriteBatch batch;
    for (uint64_t i = next; i < next + flags.batch; ++i) {
      batch.Put(Key(i), Value(i));
    }
    s = db->Write(write_options, &batch);
    if (!s.ok()) {
      std::fprintf(stderr, "write: %s\n", s.ToString().c_str());
      return 1;
    }
    next += flags.batch;
    if (::write(acked_fd, &next, sizeof(next)) != sizeof(next) ||
        ::fsync(acked_fd) != 0) {
      std::perror("acked file");
      return 1;
    }
  }
}

// Looks up ids [first, first + count): each must be found with its value if
// `present`, NotFound otherwise. Counts what is not so into *wrong.
void Lookup(rdb::DB* db, uint64_t first, uint64_t count, bool present,
            uint64_t* wrong) {
  constexpr size_t kBatch = 32;
  std::string keys[kBatch];
  rdb::Slice slices[kBatch];
  rdb::PinnableSlice values[kBatch];
  rdb::Status statuses[kBatch];
  std::string value;
  auto judge = [&](uint64_t id, const rdb::Status& s, const std::string& got,
                   const char* how) {
    const bool right = present ? (s.ok() && got == Value(id)) : s.IsNotFound();
    if (!right) {
      if (*wrong < 10) {
        std::fprintf(stderr, "%s %s (id %" PRIu64 ", %s): %s\n", how,
                     Key(id).c_str(), id, present ? "acked" : "never written",
                     s.ok() ? "wrong value" : s.ToString().c_str());
      }
      ++*wrong;
    }
  };
  for (uint64_t start = first; start < first + count; start += kBatch) {
    const size_t n =
        static_cast<size_t>(std::min<uint64_t>(kBatch, first + count - start));
    for (size_t i = 0; i < n; ++i) {
      keys[i] = Key(start + i);
      slices[i] = keys[i];
      values[i].Reset();
      const rdb::Status s = db->Get(rdb::ReadOptions(), keys[i], &value);
      judge(start + i, s, value, "Get");
    }
    db->MultiGet(rdb::ReadOptions(), db->DefaultColumnFamily(), n, slices,
                 values, statuses);
    for (size_t i = 0; i < n; ++i) {
      judge(start + i, statuses[i], values[i].ToString(), "MultiGet");
    }
  }
}

int Check(const Flags& flags, rdb::Options options) {
  const uint64_t acked = ReadAcked(flags);
  // Recovery still flushes the WAL (building filters); no compaction, so
  // that the SSTs the reopen deleted are the ones the crash left behind.
  options.disable_auto_compactions = true;
  std::unique_ptr<rdb::DB> db;
  const rdb::Status s =
      sstfilter::rocksdb_compat::OpenDb(options, flags.db, &db);
  if (!s.ok()) {
    std::fprintf(stderr, "reopen: %s\n", s.ToString().c_str());
    return 1;
  }
  uint64_t wrong = 0;
  Lookup(db.get(), 0, acked, true, &wrong);
  constexpr uint64_t kAbsent = 20000;
  Lookup(db.get(), kFirstNeverWritten, kAbsent, false, &wrong);
  std::vector<rdb::LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);
  std::printf("%s: %" PRIu64 " acknowledged keys, %zu live SSTs, %" PRIu64
              " wrong lookups (Get and MultiGet, with %" PRIu64
              " never-written keys)\n",
              wrong == 0 ? "ok" : "FAIL", acked, files.size(), wrong, kAbsent);
  return wrong == 0 ? 0 : 1;
}

int Usage() {
  std::fprintf(stderr,
               "usage: sstfilter-crash-writer write|check --db DIR --policy ID"
               " [--partitioned] [--prefix_len N] [--batch N]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  if (argc < 2) return Usage();
  flags.command = argv[1];
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--db" && has_value) {
      flags.db = argv[++i];
    } else if (arg == "--policy" && has_value) {
      flags.policy = argv[++i];
    } else if (arg == "--partitioned") {
      flags.partitioned = true;
    } else if (arg == "--prefix_len" && has_value) {
      flags.prefix_len = std::atoi(argv[++i]);
    } else if (arg == "--batch" && has_value) {
      flags.batch = std::strtoull(argv[++i], nullptr, 10);
    } else {
      return Usage();
    }
  }
  if (flags.db.empty() || flags.policy.empty() || flags.batch == 0 ||
      flags.prefix_len < 0) {
    return Usage();
  }
  // A RocksDB built with the plugin folder registered them already; a
  // second registration only adds factories that are never reached.
  RegisterSstfilterPolicies(*rdb::ObjectLibrary::Default(), "");
  rdb::Options options;
  if (!MakeOptions(flags, &options)) return 2;
  if (flags.command == "write") return Write(flags, options);
  if (flags.command == "check") return Check(flags, options);
  return Usage();
}
