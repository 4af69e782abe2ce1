#include "db.h"

#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "rocksdb/convenience.h"
#include "rocksdb/metadata.h"
#include "rocksdb/perf_context.h"
#include "rocksdb/table.h"
#include "rocksdb/table_properties.h"
#include "rocksdb/utilities/object_registry.h"
#include "rocksdb_db_compat.h"
#include "sstfilter/rocksdb_plugin.h"

namespace sstfilter::bench {

namespace fs = std::filesystem;

std::vector<uint64_t> Random::Permutation(uint64_t n) {
  std::vector<uint64_t> order(n);
  for (uint64_t i = 0; i < n; ++i) order[i] = i;
  for (uint64_t i = n; i > 1; --i) std::swap(order[i - 1], order[Below(i)]);
  return order;
}

std::string BigEndianKey(uint64_t number) {
  std::string key(8, '\0');
  for (int byte = 0; byte < 8; ++byte) {
    key[byte] = static_cast<char>(number >> (8 * (7 - byte)));
  }
  return key;
}

std::string Key(uint64_t index, bool present) {
  return BigEndianKey(2 * index + (present ? 0 : 1)) +
         std::string(kKeySize - 8, '0');
}

std::string Value(uint64_t index, uint8_t version) {
  std::string value(kValueSize, '\0');
  uint64_t word = Remix64(index * 256 + version + 1);
  for (size_t i = 0; i < kValueSize / 2; ++i) {
    if (i % 8 == 0) word = Remix64(word);
    value[i] = static_cast<char>(word >> (8 * (i % 8)));
  }
  for (size_t i = kValueSize / 2; i < kValueSize; ++i) value[i] = value[0];
  return value;
}

Lookup NextLookup(uint64_t num_keys, double hit_share,
                  const std::vector<KeyRange>& hot, double hot_get_share,
                  Random& rng) {
  Lookup lookup;
  lookup.present = rng.Chance(hit_share);
  if (!hot.empty() && rng.Chance(hot_get_share)) {
    uint64_t offset = rng.Below(hot.size() * hot[0].count);
    lookup.index = hot[offset / hot[0].count].first + offset % hot[0].count;
  } else {
    lookup.index = rng.Below(num_keys);
  }
  // The last present key has no absent key above it.
  if (!lookup.present && lookup.index + 1 == num_keys) --lookup.index;
  return lookup;
}

Zipfian::Zipfian(uint64_t n, double theta)
    : n_(n), theta_(theta), zeta_n_(0), alpha_(1 / (1 - theta)) {
  for (uint64_t i = 1; i <= n; ++i) zeta_n_ += std::pow(i, -theta);
  const double zeta_2 = 1 + std::pow(2, -theta);
  eta_ = (1 - std::pow(2.0 / n, 1 - theta)) / (1 - zeta_2 / zeta_n_);
}

uint64_t Zipfian::Next(Random& rng) const {
  const double u = rng.Uniform();
  const double uz = u * zeta_n_;
  if (uz < 1) return 0;
  if (uz < 1 + std::pow(0.5, theta_)) return std::min<uint64_t>(1, n_ - 1);
  const double rank = n_ * std::pow(eta_ * u - eta_ + 1, alpha_);
  return std::min(static_cast<uint64_t>(rank), n_ - 1);
}

bool Answers::Check(const char* tool) const {
  if (ok()) return true;
  std::fprintf(stderr,
               "%s: WRONG ANSWERS: of %" PRIu64 " Gets (%" PRIu64
               " of present keys), %" PRIu64 " present keys not found, %" PRIu64
               " with a wrong value, %" PRIu64 " absent keys found, %" PRIu64
               " errors\n",
               tool, gets, hits, missing, wrong_value, absent_found, errors);
  return false;
}

rdb::Status BenchDb::Open(const DbSetup& setup, const std::string& dir) {
  rdb::Options options;
  options.create_if_missing = true;
  options.write_buffer_size = kMiB;
  options.target_file_size_base = kMiB;
  options.max_bytes_for_level_base = kMiB;
  options.max_bytes_for_level_multiplier = 10;
  options.level0_file_num_compaction_trigger = 4;
  options.level_compaction_dynamic_level_bytes = setup.dynamic_levels;
  options.max_background_jobs = 2;
  options.max_open_files = -1;
  options.use_direct_reads = setup.direct_io;
  options.compression = rdb::kNoCompression;
  for (rdb::CompressionType type : rdb::GetSupportedCompressions()) {
    if (type == rdb::kSnappyCompression && !setup.bounded_memory) {
      options.compression = type;
    }
  }
  options.statistics = rdb::CreateDBStatistics();
  if (setup.listener) options.listeners.push_back(NewLevelAwareListener());
  for (const auto& listener : setup.more_listeners) {
    options.listeners.push_back(listener);
  }
  rdb::BlockBasedTableOptions table;
  table.cache_index_and_filter_blocks =
      setup.cache_index_and_filter_blocks || setup.bounded_memory;
  table.pin_l0_filter_and_index_blocks_in_cache = false;
  if (setup.bounded_memory) {
    table.cache_index_and_filter_blocks_with_high_priority = true;
    table.partition_filters = true;
    table.index_type = rdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
    table.pin_top_level_index_and_filter = true;
  }
  table.block_cache = setup.block_cache != nullptr
                          ? setup.block_cache
                          : rdb::NewLRUCache(8 * kMiB);  // db_bench's
  table.filter_policy = setup.policy;
  options.table_factory.reset(rdb::NewBlockBasedTableFactory(table));
  stats_ = options.statistics;
  return rocksdb_compat::OpenDb(options, dir, &db_);
}

rdb::Status BenchDb::Close() {
  rdb::Status s = db_->Close();
  db_.reset();
  return s;
}

rdb::Status BenchDb::Settle() {
  rdb::Status s = db_->Flush(rdb::FlushOptions());
  return s.ok() ? rocksdb_compat::WaitForCompactions(db_.get()) : s;
}

rdb::Status BenchDb::Put(uint64_t index, bool overwrite) {
  if (overwrite) ++versions_[index];
  rdb::WriteOptions write_options;
  write_options.disableWAL = true;  // as the levels scenario's fill
  return db_->Put(write_options, Key(index, true),
                  Value(index, versions_[index]));
}

void BenchDb::Get(const Lookup& lookup, Answers* answers) {
  const rdb::Status s =
      db_->Get(rdb::ReadOptions(), Key(lookup.index, lookup.present), &value_);
  ++answers->gets;
  if (!s.ok() && !s.IsNotFound()) ++answers->errors;
  if (lookup.present) {
    ++answers->hits;
    if (s.IsNotFound()) ++answers->missing;
    if (s.ok() && value_ != Value(lookup.index, versions_[lookup.index])) {
      ++answers->wrong_value;
    }
  } else if (s.ok()) {
    ++answers->absent_found;
  }
}

double BitsPerKey(uint64_t bytes, uint64_t entries) {
  return entries ? 8.0 * static_cast<double>(bytes) / entries : 0.0;
}

rdb::Status DescribeTree(rdb::DB* db, Tree* tree) {
  rdb::TablePropertiesCollection tables;
  const rdb::Status s = db->GetPropertiesOfAllTables(&tables);
  if (!s.ok()) return s;
  rdb::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  char buf[64];
  for (const auto& level : meta.levels) {
    if (level.files.empty()) continue;
    uint64_t bytes = 0;
    uint64_t entries = 0;
    uint64_t without_filter = 0;
    for (const auto& file : level.files) {
      const auto found = tables.find(file.db_path + file.name);
      if (found == tables.end()) {
        return rdb::Status::NotFound("no properties of " + file.name);
      }
      bytes += found->second->filter_size;
      entries += found->second->num_entries;
      tree->filter_entries += found->second->num_filter_entries;
      tree->index_bytes += found->second->index_size;
      tree->data_bytes += found->second->data_size;
      if (found->second->filter_size == 0) ++without_filter;
    }
    tree->files_without_filter += without_filter;
    if (without_filter > 0) {
      std::snprintf(buf, sizeof(buf), "%sL%d:%" PRIu64,
                    tree->files_without_filter_per_level.empty() ? "" : ",",
                    level.level, without_filter);
      tree->files_without_filter_per_level += buf;
    }
    tree->filter_bytes += bytes;
    tree->entries += entries;
    const char* comma = tree->files_per_level.empty() ? "" : ",";
    std::snprintf(buf, sizeof(buf), "%sL%d:%zu", comma, level.level,
                  level.files.size());
    tree->files_per_level += buf;
    std::snprintf(buf, sizeof(buf), "%sL%d:%.2f", comma, level.level,
                  BitsPerKey(bytes, entries));
    tree->bits_per_key_level += buf;
  }
  return rdb::Status::OK();
}

ReadCosts TakeReadCosts(rdb::Statistics& stats) {
  const rocksdb_compat::PointFilterCounts filters =
      rocksdb_compat::TakePointFilterCounts(stats);
  ReadCosts costs;
  costs.wasted = filters.positive - filters.true_positive;
  costs.checks = filters.positive + filters.useful;
  costs.data_misses = stats.getAndResetTickerCount(rdb::BLOCK_CACHE_DATA_MISS);
  costs.data_reads = costs.data_misses +
                     stats.getAndResetTickerCount(rdb::BLOCK_CACHE_DATA_HIT);
  costs.filter_misses =
      stats.getAndResetTickerCount(rdb::BLOCK_CACHE_FILTER_MISS);
  costs.index_misses =
      stats.getAndResetTickerCount(rdb::BLOCK_CACHE_INDEX_MISS);
  costs.index_reads = costs.index_misses +
                      stats.getAndResetTickerCount(rdb::BLOCK_CACHE_INDEX_HIT);
  return costs;
}

DiskReads TakeDiskReads() {
  rdb::SetPerfLevel(rdb::PerfLevel::kEnableCount);
  rdb::PerfContext& perf = *rdb::get_perf_context();
  DiskReads reads;
  reads.filter = perf.filter_block_read_count;
  reads.index = perf.index_block_read_count;
  reads.dictionary = perf.compression_dict_block_read_count;
  reads.data =
      perf.block_read_count - reads.filter - reads.index - reads.dictionary;
  perf.Reset();
  return reads;
}

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

int Fail(const char* tool, const char* what, const rdb::Status& s) {
  std::fprintf(stderr, "%s: %s: %s\n", tool, what, s.ToString().c_str());
  return 1;
}

rdb::Status OptionsFromString(const std::string& text, rdb::Options* options) {
  rdb::ConfigOptions config;
  config.ignore_unknown_options = false;
  config.ignore_unsupported_options = false;
  return rdb::GetOptionsFromString(config, rdb::Options(), text, options);
}

bool MakePolicy(const char* tool, const std::string& policy_id) {
  RegisterSstfilterPolicies(*rdb::ObjectLibrary::Default(), "");
  if (policy_id.empty()) return true;
  std::shared_ptr<const rdb::FilterPolicy> policy;
  const rdb::Status made = rdb::FilterPolicy::CreateFromString(
      rdb::ConfigOptions(), policy_id, &policy);
  if (made.ok()) return true;
  std::fprintf(stderr, "%s: %s\n", tool, made.ToString().c_str());
  return false;
}

int InDbDir(std::string* dir, const char* prefix, bool keep,
            const std::function<int()>& run) {
  const bool temporary = dir->empty();
  std::error_code error;
  if (temporary) {
    std::string pattern =
        (fs::temp_directory_path() / (std::string(prefix) + "-XXXXXX"))
            .string();
    if (mkdtemp(pattern.data()) == nullptr) {
      std::perror("mkdtemp");
      return 1;
    }
    *dir = pattern;
  } else {
    fs::remove_all(*dir, error);
    fs::create_directories(*dir, error);
  }
  const int status = run();
  if (temporary || !keep) fs::remove_all(*dir, error);
  return status;
}

}  // namespace sstfilter::bench
