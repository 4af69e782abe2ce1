// CuckooView: the read-only view over a serialized cuckoo filter.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "detail/cuckoo_common.h"
#include "sstfilter/cuckoo_filter.h"

namespace sstfilter {
namespace {

using detail::PackedSlotsView;
using detail::cuckoo::CheckFingerprintBits;
using detail::cuckoo::FprOfComparisons;
using detail::cuckoo::kHeaderBytes;
using detail::cuckoo::kSlots;
using detail::cuckoo::kStashEntryBytes;
using detail::cuckoo::kTableHeaderBytes;
using detail::cuckoo::kVersion;
using detail::cuckoo::Locate;
using detail::cuckoo::Location;
using detail::cuckoo::Probe;
using detail::cuckoo::StashEntry;
using detail::cuckoo::TableMayContain;

}  // namespace

CuckooView::CuckooView() = default;
CuckooView::~CuckooView() = default;
CuckooView::CuckooView(CuckooView&&) noexcept = default;
CuckooView& CuckooView::operator=(CuckooView&&) noexcept = default;

Status CuckooView::Parse(std::string_view bytes, CuckooView* out) {
  Status s = CheckFormat(bytes, FilterKind::kCuckoo, kVersion);
  if (!s.ok()) return s;
  if (bytes.size() < kHeaderBytes) {
    return Status::Corruption("Cuckoo header truncated: " +
                              std::to_string(bytes.size()) + " of 8 bytes");
  }
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  const uint32_t fingerprint_bits = data[4];
  const uint32_t slots_per_bucket = data[5];
  const uint32_t num_tables = data[6];
  s = CheckFingerprintBits(fingerprint_bits);
  if (!s.ok()) return Status::Corruption("Cuckoo header: " + s.message());
  if (slots_per_bucket != kSlots) {
    return Status::Corruption("Cuckoo slots_per_bucket must be 4, not " +
                              std::to_string(slots_per_bucket));
  }
  if (num_tables > CuckooLimits::kMaxTables) {
    return Status::Corruption("Cuckoo num_tables " +
                              std::to_string(num_tables) + " exceeds 64");
  }
  if (data[7] != 0) {
    return Status::Corruption("Cuckoo reserved header byte is not zero");
  }
  const uint32_t max_fingerprint =
      static_cast<uint32_t>((uint64_t{1} << fingerprint_bits) - 1);
  CuckooView view;
  view.fingerprint_bits_ = fingerprint_bits;
  view.size_bytes_ = bytes.size();
  size_t pos = kHeaderBytes;
  uint64_t first_num_buckets = 0;
  uint32_t first_seed = 0;
  for (uint32_t t = 0; t < num_tables; ++t) {
    const std::string where = "Cuckoo table " + std::to_string(t) + ": ";
    if (bytes.size() - pos < kTableHeaderBytes) {
      return Status::Corruption(where + "header truncated");
    }
    const uint32_t num_buckets = detail::LoadLittleEndian<uint32_t>(data + pos);
    Table table;
    table.seed = detail::LoadLittleEndian<uint32_t>(data + pos + 4);
    const uint32_t stash_count =
        detail::LoadLittleEndian<uint32_t>(data + pos + 8);
    pos += kTableHeaderBytes;
    if (num_buckets == 0) {
      return Status::Corruption(where + "num_buckets is 0");
    }
    if (t == 0) {
      first_num_buckets = num_buckets;
      first_seed = table.seed;
    } else if (t >= 32 || (first_num_buckets << t) != num_buckets) {
      return Status::Corruption(where + "num_buckets " +
                                std::to_string(num_buckets) + " is not 2^" +
                                std::to_string(t) + " times table 0's " +
                                std::to_string(first_num_buckets));
    } else if (table.seed != first_seed) {
      return Status::Corruption(where + "seed " + std::to_string(table.seed) +
                                " differs from table 0's " +
                                std::to_string(first_seed));
    }
    table.level = t;
    const size_t slot_bytes =
        PackedSlotsView::BytesFor(num_buckets, fingerprint_bits);
    if (bytes.size() - pos < slot_bytes) {
      return Status::Corruption(
          where + "slots truncated: " + std::to_string(num_buckets) +
          " buckets need " + std::to_string(slot_bytes) + " bytes, " +
          std::to_string(bytes.size() - pos) + " remain");
    }
    table.slots = PackedSlotsView(data + pos, num_buckets, fingerprint_bits);
    pos += slot_bytes;
    if ((bytes.size() - pos) / kStashEntryBytes < stash_count) {
      return Status::Corruption(
          where + "stash truncated: " + std::to_string(stash_count) +
          " entries need " + std::to_string(stash_count * kStashEntryBytes) +
          " bytes, " + std::to_string(bytes.size() - pos) + " remain");
    }
    table.stash.resize(stash_count);
    for (StashEntry& e : table.stash) {
      e.bucket = detail::LoadLittleEndian<uint32_t>(data + pos);
      e.fingerprint = detail::LoadLittleEndian<uint32_t>(data + pos + 4);
      pos += kStashEntryBytes;
      if (e.bucket >= num_buckets) {
        return Status::Corruption(where + "stash bucket " +
                                  std::to_string(e.bucket) + " is not below " +
                                  std::to_string(num_buckets));
      }
      if (e.fingerprint == 0 || e.fingerprint > max_fingerprint) {
        return Status::Corruption(
            where + "stash fingerprint " + std::to_string(e.fingerprint) +
            " is not a nonzero " + std::to_string(fingerprint_bits) +
            "-bit value");
      }
    }
    view.tables_.push_back(std::move(table));
  }
  if (pos != bytes.size()) {
    return Status::Corruption(std::to_string(bytes.size() - pos) +
                              " trailing bytes after the last Cuckoo table");
  }
  *out = std::move(view);
  return Status::Ok();
}

bool CuckooView::may_contain(uint64_t hash) const {
  for (const Table& t : tables_) {
    if (TableMayContain(t.slots, t.seed, t.level, t.stash, hash)) return true;
  }
  return false;
}

bool CuckooView::may_contain_key(std::string_view key) const {
  return may_contain(HashKey(key));
}

void CuckooView::may_contain_batch(const uint64_t* hashes, size_t count,
                                   bool* results) const {
  std::fill(results, results + count, false);
  constexpr size_t kGroup = 16;
  Location group[kGroup];
  bool hit[kGroup];
  for (const Table& t : tables_) {
    // Locals, so that the stores to `results` (which may alias anything)
    // do not force the table's fields to be reloaded for every query.
    const PackedSlotsView slots = t.slots;
    const uint32_t seed = t.seed, level = t.level;
    for (size_t start = 0; start < count; start += kGroup) {
      const size_t n = std::min(kGroup, count - start);
      for (size_t i = 0; i < n; ++i) {
        group[i] = Locate(hashes[start + i], seed, level, slots);
        __builtin_prefetch(slots.BucketAddress(group[i].bucket));
        __builtin_prefetch(slots.BucketAddress(group[i].alternate));
      }
      if (t.stash.empty() && slots.HasWordBuckets()) {
        // The common case (a static filter): no stash, no width check per
        // query.
        for (size_t i = 0; i < n; ++i) {
          hit[i] = slots.WordBucketsContain(group[i].bucket, group[i].alternate,
                                            group[i].fingerprint);
        }
      } else {
        for (size_t i = 0; i < n; ++i) hit[i] = Probe(slots, t.stash, group[i]);
      }
      for (size_t i = 0; i < n; ++i) results[start + i] |= hit[i];
    }
  }
}

uint32_t CuckooView::fingerprint_bits() const { return fingerprint_bits_; }

uint32_t CuckooView::num_tables() const {
  return static_cast<uint32_t>(tables_.size());
}

uint64_t CuckooView::num_buckets() const {
  uint64_t n = 0;
  for (const Table& t : tables_) n += t.slots.num_buckets();
  return n;
}

uint64_t CuckooView::num_items() const {
  uint64_t n = 0;
  for (const Table& t : tables_) n += t.slots.CountOccupied() + t.stash.size();
  return n;
}

double CuckooView::load() const {
  uint64_t occupied = 0;
  for (const Table& t : tables_) occupied += t.slots.CountOccupied();
  const uint64_t slots = num_buckets() * kSlots;
  return slots == 0
             ? 0.0
             : static_cast<double>(occupied) / static_cast<double>(slots);
}

size_t CuckooView::size_bytes() const { return size_bytes_; }

double CuckooView::EstimatedFpr() const {
  if (tables_.empty()) return 0.0;
  // Tables fail independently: 1 - FPR is the product of their passes.
  double log_pass = 0.0;
  for (const Table& t : tables_) {
    const double m = static_cast<double>(t.slots.num_buckets());
    log_pass += std::log1p(-FprOfComparisons(
        2.0 * static_cast<double>(t.slots.CountOccupied()) / m,
        static_cast<double>(t.stash.size()), t.slots.num_buckets(),
        fingerprint_bits_));
  }
  return -std::expm1(log_pass);
}

}  // namespace sstfilter
