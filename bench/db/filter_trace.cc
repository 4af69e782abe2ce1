#include "filter_trace.h"

#include <cinttypes>
#include <cstdio>

#include "rocksdb/table_properties.h"

namespace sstfilter::bench {

namespace rdb = ROCKSDB_NAMESPACE;

class FilterTrace::Listener : public rdb::EventListener {
 public:
  Listener(FilterTrace* trace, std::string db)
      : trace_(trace), db_(std::move(db)) {}

  void OnFlushCompleted(rdb::DB* /*db*/,
                        const rdb::FlushJobInfo& info) override {
    const rdb::TableProperties& p = info.table_properties;
    trace_->Record({db_, "flush", 0, 0, 0}, {},
                   {{info.file_number, {p.num_entries, p.filter_size}}});
  }

  // A trivial move lists its files as inputs and outputs: they leave and
  // come back with the same filters.
  void OnCompactionCompleted(rdb::DB* /*db*/,
                             const rdb::CompactionJobInfo& info) override {
    Job job{db_, "compaction", info.output_level, info.input_files.size(), 0};
    std::map<uint64_t, SstFile> removed, added;
    Collect(info, info.input_files, info.input_file_infos, &removed);
    Collect(info, info.output_files, info.output_file_infos, &added);
    for (const auto& [number, file] : removed) {
      job.input_filter_bytes += file.filter_bytes;
    }
    if (info.input_files == info.output_files) job.kind = "move";
    trace_->Record(job, removed, added);
  }

 private:
  static void Collect(const rdb::CompactionJobInfo& info,
                      const std::vector<std::string>& paths,
                      const std::vector<rdb::CompactionFileInfo>& files,
                      std::map<uint64_t, SstFile>* sst_files) {
    for (size_t i = 0; i < paths.size() && i < files.size(); ++i) {
      const auto found = info.table_properties.find(paths[i]);
      SstFile& file = (*sst_files)[files[i].file_number];
      if (found == info.table_properties.end()) continue;
      file = {found->second->num_entries, found->second->filter_size};
    }
  }

  FilterTrace* const trace_;
  const std::string db_;
};

std::shared_ptr<rdb::EventListener> FilterTrace::ListenerFor(
    const std::string& db) {
  return std::make_shared<Listener>(this, db);
}

void FilterTrace::Record(const Job& job,
                         const std::map<uint64_t, SstFile>& removed,
                         const std::map<uint64_t, SstFile>& added) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [number, file] : removed) live_.erase({job.db, number});
  uint64_t entries = 0, bytes = 0, without_filter = 0;
  for (const auto& [number, file] : added) {
    live_[{job.db, number}] = file;
    entries += file.entries;
    bytes += file.filter_bytes;
    if (file.filter_bytes == 0) ++without_filter;
  }
  uint64_t live_entries = 0, live_bytes = 0, db_bytes = 0;
  for (const auto& [key, file] : live_) {
    live_entries += file.entries;
    live_bytes += file.filter_bytes;
    if (key.first == job.db) db_bytes += file.filter_bytes;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_)
          .count();
  std::printf(
      "TRACE t=%.2f db=%s job=%s level=%d inputs=%zu "
      "input_filter_bytes=%" PRIu64 " outputs=%zu entries=%" PRIu64
      " filter_bytes=%" PRIu64 " bits_per_key=%.3f without_filter=%" PRIu64
      " db_filter_bytes=%" PRIu64 " live_filter_bytes=%" PRIu64
      " live_x_limit=%.4f live_entries=%" PRIu64 " live_bits_per_key=%.3f\n",
      seconds, job.db.c_str(), job.kind, job.output_level, job.inputs,
      job.input_filter_bytes, added.size(), entries, bytes,
      entries ? 8.0 * bytes / entries : 0.0, without_filter, db_bytes,
      live_bytes, static_cast<double>(live_bytes) / limit_bytes_, live_entries,
      live_entries ? 8.0 * live_bytes / live_entries : 0.0);
  std::fflush(stdout);
}

}  // namespace sstfilter::bench
