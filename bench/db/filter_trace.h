// What each flush and compaction of a DB gave its SST files' filters, and what
// the live filters of every DB the trace watches take after it: one line
// "TRACE key=value ..." per job on stdout, for reading how a memory limit
// is held over time (`sstfilter-db-bench memory-limit --trace`).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "rocksdb/listener.h"

namespace sstfilter::bench {

// The live SST files of the DBs the listeners of one trace watch.
class FilterTrace {
 public:
  explicit FilterTrace(uint64_t limit_bytes) : limit_bytes_(limit_bytes) {}

  // The listener of one DB, named `db` in the lines.
  std::shared_ptr<ROCKSDB_NAMESPACE::EventListener> ListenerFor(
      const std::string& db);

 private:
  class Listener;
  struct SstFile {
    uint64_t entries = 0;
    uint64_t filter_bytes = 0;
  };
  struct Job {
    std::string db;
    const char* kind = "";
    int output_level = 0;
    size_t inputs = 0;
    uint64_t input_filter_bytes = 0;
  };
  // Removes `removed` and adds `added` (file numbers with their SST files) of
  // `job`'s DB, then prints the line.
  void Record(const Job& job, const std::map<uint64_t, SstFile>& removed,
              const std::map<uint64_t, SstFile>& added);

  const uint64_t limit_bytes_;
  const std::chrono::steady_clock::time_point start_ =
      std::chrono::steady_clock::now();
  std::mutex mutex_;
  std::map<std::pair<std::string, uint64_t>, SstFile> live_;
};

}  // namespace sstfilter::bench
