#include "cache_charge.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

namespace sstfilter::rocksdb_plugin {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;

// A key of 16 bytes (HyperClockCache takes no other size): a tag, then an
// id that Cache::NewId makes unique in this cache. RocksDB's own keys are
// 16 bytes as well, their first 8 a hash of the DB session and file
// (cache/cache_key.h) or 0 for its reservations: this tag is not expected
// there.
class EntryKey {
 public:
  explicit EntryKey(rdb::Cache& cache) {
    constexpr char kTag[8] = {'s', 's', 't', 'f', 'c', 'h', 'g', '1'};
    const uint64_t id = cache.NewId();
    std::memcpy(bytes_, kTag, sizeof(kTag));
    std::memcpy(bytes_ + sizeof(kTag), &id, sizeof(id));
  }
  rdb::Slice slice() const { return rdb::Slice(bytes_, sizeof(bytes_)); }

 private:
  char bytes_[16];
};

}  // namespace

std::shared_ptr<rdb::Cache> FilterConstructionChargeCache(
    const rdb::BlockBasedTableOptions& table_options) {
  using Decision = rdb::CacheEntryRoleOptions::Decision;
  const rdb::CacheUsageOptions& usage = table_options.cache_usage_options;
  Decision charged = Decision::kFallback;
  const auto role =
      usage.options_overrides.find(rdb::CacheEntryRole::kFilterConstruction);
  if (role != usage.options_overrides.end()) charged = role->second.charged;
  if (charged == Decision::kFallback) charged = usage.options.charged;
  if (charged != Decision::kEnabled) return nullptr;
  return table_options.block_cache;
}

CacheCharge::CacheCharge(std::shared_ptr<rdb::Cache> cache)
    : cache_(std::move(cache)) {}

CacheCharge::~CacheCharge() { Subtract(bytes_in_use_); }

rdb::Status CacheCharge::Add(size_t bytes, const char* what) {
  bytes_in_use_ += bytes;
  while (bytes_charged() < bytes_in_use_) {
    rdb::Cache::Handle* handle = nullptr;
    const rdb::Status s = rocksdb_compat::InsertFilterConstructionCharge(
        *cache_, EntryKey(*cache_).slice(), kEntryBytes, &handle);
    if (!s.ok()) {
      const std::string refused =
          "filter construction (kFilterConstruction) grew by " +
          std::to_string(bytes) + " bytes of " + what + " to " +
          std::to_string(bytes_in_use_) + " bytes and needs another " +
          std::to_string(kEntryBytes) + "-byte entry (capacity " +
          std::to_string(cache_->GetCapacity()) + ", usage " +
          std::to_string(cache_->GetUsage()) + ")";
      if (s.IsMemoryLimit()) {
        return rdb::Status::MemoryLimit(
            "sstfilter: block cache full under strict_capacity_limit: " +
                refused,
            s.getState() != nullptr ? s.getState() : "");
      }
      return rdb::Status::Aborted(
          "sstfilter: the block cache refused an entry: " + refused,
          s.ToString());
    }
    entries_.push_back(handle);
  }
  return rdb::Status::OK();
}

void CacheCharge::Subtract(size_t bytes) {
  bytes_in_use_ -= std::min(bytes, bytes_in_use_);
  while (!entries_.empty() && bytes_charged() - kEntryBytes >= bytes_in_use_) {
    cache_->Release(entries_.back(), /*erase_if_last_ref=*/true);
    entries_.pop_back();
  }
}

}  // namespace sstfilter::rocksdb_plugin
