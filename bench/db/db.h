// bench/db/db.h: the leveled DB that sstfilter-db-bench's scenarios grow and
// read (workload, memory-limit; open-close takes its directory): db_bench's
// key and value shapes, the DB's shape, its Gets and what they found, and
// what its statistics, its Get thread's PerfContext and its live SST files
// say of the filters and the blocks read.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "rocksdb/cache.h"
#include "rocksdb/db.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/listener.h"
#include "rocksdb/statistics.h"
#include "sstfilter/hash.h"

namespace sstfilter::bench {

namespace rdb = ROCKSDB_NAMESPACE;

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr size_t kKeySize = 16;     // db_bench's --key_size default
constexpr size_t kValueSize = 100;  // db_bench's --value_size default

// Independent random streams of one seed (each driver names its own).
// mt19937_64's sequence is fixed by the standard and FastRange64 maps it
// onto a range, so a seed gives the same keys with every standard library.
class Random {
 public:
  Random(uint64_t seed, uint64_t stream)
      : engine_(Remix64(seed * 8 + stream + 1)) {}
  uint64_t Below(uint64_t n) { return FastRange64(engine_(), n); }
  double Uniform() { return static_cast<double>(engine_() >> 11) * 0x1p-53; }
  bool Chance(double p) { return Uniform() < p; }
  std::vector<uint64_t> Permutation(uint64_t n);

 private:
  std::mt19937_64 engine_;
};

// `number` as 8 big-endian bytes: keys in the bytewise order of their
// numbers, the integers a range filter reads (int_bytes=8).
std::string BigEndianKey(uint64_t number);

// Key number k as db_bench writes it: 8 big-endian bytes, then 8 '0's (as
// tests/support's DbBenchKey), so ldb, sst_dump and db_bench read these DBs.
// Present key i is number 2i and absent key i number 2i + 1, so absent keys
// fall inside every file's key range, spread uniformly.
std::string Key(uint64_t index, bool present);

// Present key i's value after `version` overwrites: 50 bytes that follow
// from (i, version), then 50 copies of one of them, so that Snappy halves
// it as it does db_bench's (--compression_ratio=0.5).
std::string Value(uint64_t index, uint8_t version);

struct KeyRange {  // of key indices
  uint64_t first = 0;
  uint64_t count = 0;
};

struct Lookup {
  uint64_t index = 0;
  bool present = false;
};

// The next Get: a hit with probability `hit_share`; in one of `hot` (all
// of one size) with probability `hot_get_share`, else uniform.
Lookup NextLookup(uint64_t num_keys, double hit_share,
                  const std::vector<KeyRange>& hot, double hot_get_share,
                  Random& rng);

// Ranks 0..n-1 drawn with P(rank r) proportional to 1 / (r + 1)^theta, by
// Gray et al.'s method (SIGMOD 1994, "Quickly generating billion-record
// synthetic databases"; YCSB's ZipfianGenerator): O(n) to set up, O(1) a
// draw.
class Zipfian {
 public:
  Zipfian(uint64_t n, double theta);
  uint64_t Next(Random& rng) const;

 private:
  uint64_t n_;
  double theta_;
  double zeta_n_;  // sum over i = 1..n of 1 / i^theta
  double alpha_;   // 1 / (1 - theta)
  double eta_;
};

// What the Gets of a run found.
struct Answers {
  uint64_t gets = 0;
  uint64_t hits = 0;          // Gets of present keys
  uint64_t missing = 0;       // present keys not found
  uint64_t wrong_value = 0;   // found with another value than their last
  uint64_t absent_found = 0;  // absent keys found
  uint64_t errors = 0;        // neither OK nor NotFound
  bool ok() const {
    return missing == 0 && wrong_value == 0 && absent_found == 0 && errors == 0;
  }
  // Prints "<tool>: WRONG ANSWERS: ..." to stderr unless ok(); returns ok().
  bool Check(const char* tool) const;
};

// How a DB is set up. Its shape is that of the levels scenario (lib.sh):
// 1 MiB write buffers, files and level base, T = 10, 4 L0 files to
// compact, two background jobs, Snappy, WAL off for writes, all files
// open (filters and indexes held by the table readers unless
// cache_index_and_filter_blocks or bounded_memory), statistics on.
struct DbSetup {
  std::shared_ptr<const rdb::FilterPolicy> policy;
  std::shared_ptr<rdb::Cache> block_cache;  // null: an 8 MiB LRU cache
  // Filters and indexes in the block cache, L0's not pinned: RocksDB's
  // own bound on their memory.
  bool cache_index_and_filter_blocks = false;
  // The bounded-memory configuration of services (Kafka Streams' documented
  // RocksDBConfigSetter, Flink's managed memory, TiKV): data, index and
  // filter blocks in the one block cache, indexes and filters at high
  // priority, partitioned, their top levels pinned; no compression.
  bool bounded_memory = false;
  bool dynamic_levels = true;
  bool direct_io = false;  // use_direct_reads
  // sstfilter::NewLevelAwareListener() in DBOptions::listeners (the
  // recommended setup; harmless for other policies).
  bool listener = true;
  std::vector<std::shared_ptr<rdb::EventListener>> more_listeners;
};

// One DB of `num_keys` present keys at most, each of which it knows the
// latest version of.
class BenchDb {
 public:
  explicit BenchDb(uint64_t num_keys) : versions_(num_keys, 0) {}

  rdb::Status Open(const DbSetup& setup, const std::string& dir);
  rdb::Status Close();
  // Flushes the memtable, so that every Get consults the SST files, and waits
  // for the compactions that follow.
  rdb::Status Settle();
  // Writes present key `index` at its version, after `overwrite` the next.
  rdb::Status Put(uint64_t index, bool overwrite = false);
  // Gets `lookup`'s key and counts what it found.
  void Get(const Lookup& lookup, Answers* answers);

  uint64_t num_keys() const { return versions_.size(); }
  rdb::DB* db() const { return db_.get(); }
  rdb::Statistics& stats() const { return *stats_; }

 private:
  std::vector<uint8_t> versions_;  // overwrites per present key
  std::unique_ptr<rdb::DB> db_;
  std::shared_ptr<rdb::Statistics> stats_;
  std::string value_;
};

// The live SST files' filters (from their properties), in all and per level.
struct Tree {
  uint64_t filter_bytes = 0;
  uint64_t filter_entries = 0;  // of the SST files with a filter
  uint64_t entries = 0;         // of all
  uint64_t index_bytes = 0;
  uint64_t data_bytes = 0;
  uint64_t files_without_filter = 0;
  std::string files_per_level;  // "L0:2,L1:4,..." (non-empty levels)
  std::string files_without_filter_per_level;  // "L5:1,L6:40" (if any)
  // "L0:9.87,L1:...": filter bits per entry of all the level's SST files
  std::string bits_per_key_level;
};
rdb::Status DescribeTree(rdb::DB* db, Tree* tree);

double BitsPerKey(uint64_t bytes, uint64_t entries);

// What the Gets since the last call cost, from the DB's statistics (and
// resets them): wasted data-block reads ((bloom.filter.full.positive -
// full.true.positive): a filter passed a key its SST file does not hold; an
// SST file without a filter counts in neither), filter checks (full.positive
// + bloom.filter.useful: every filter consulted), the data blocks read
// (block cache hits and misses: for absent keys, every one is wasted,
// those of SST files without a filter too), the index blocks read (hits and
// misses), and the block cache's data, filter and index misses (with
// use_direct_reads, blocks read from disk).
struct ReadCosts {
  uint64_t wasted = 0;
  uint64_t checks = 0;
  uint64_t data_reads = 0;
  uint64_t index_reads = 0;
  uint64_t data_misses = 0;
  uint64_t filter_misses = 0;
  uint64_t index_misses = 0;
};
ReadCosts TakeReadCosts(rdb::Statistics& stats);

// The blocks the calling thread read from disk (from the page cache without
// use_direct_reads) since the last call, by kind, from its PerfContext:
// a Get's own reads, where the block cache's miss tickers also count other
// threads'. The first call turns the thread's counting on.
struct DiskReads {
  uint64_t data = 0;        // block_read_count less the three kinds below
  uint64_t filter = 0;      // filter partitions and their index, or filters
  uint64_t index = 0;       // index partitions and their index, or indexes
  uint64_t dictionary = 0;  // compression dictionaries
  uint64_t total() const { return data + filter + index + dictionary; }
};
DiskReads TakeDiskReads();

using Clock = std::chrono::steady_clock;
double Seconds(Clock::time_point since);

// Prints "<tool>: <what>: <status>" to stderr; returns 1.
int Fail(const char* tool, const char* what, const rdb::Status& s);

// Options from an options string, by RocksDB's own parser, refusing an
// option it does not know (sstfilter's ids need MakePolicy first).
rdb::Status OptionsFromString(const std::string& text, rdb::Options* options);

// Registers sstfilter's policies and checks that `policy_id` (if not
// empty) makes a policy; false, with a message, if not.
bool MakePolicy(const char* tool, const std::string& policy_id);

// Runs `run` in the scenario's DB directory: `*dir` emptied and made, or a
// new temporary one (then `*dir` is set to it), removed afterwards unless
// it was given and `keep` is set. 1 if no directory could be made.
int InDbDir(std::string* dir, const char* prefix, bool keep,
            const std::function<int()>& run);

}  // namespace sstfilter::bench
