// CuckooView: the read-only view over a serialized cuckoo filter.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "cuckoo/cuckoo_format.h"
#include "sstfilter/cuckoo_filter.h"
#include "sstfilter/detail/endian.h"
#include "sstfilter/format.h"

namespace sstfilter {
namespace {

namespace cuckoo = detail::cuckoo;
using cuckoo::BucketArray;
using cuckoo::StashEntry;

}  // namespace

CuckooView::CuckooView() = default;
CuckooView::~CuckooView() = default;
CuckooView::CuckooView(CuckooView&&) noexcept = default;
CuckooView& CuckooView::operator=(CuckooView&&) noexcept = default;

namespace {

// Where one bucket array's parts are in the block, and its record.
struct ArrayLayout {
  uint32_t num_buckets = 0;
  uint32_t seed = 0;
  uint32_t num_stashed = 0;
  size_t slots_at = 0;
  size_t stash_at = 0;
};

// The filter-wide fields, at byte 4 of a v1 block or 8 bytes before the end
// of a v2 one: fingerprint_bits, slots_per_bucket, num_bucket_arrays, reserved.
Status ParseFields(const uint8_t* fields, uint32_t* fingerprint_bits,
                   uint32_t* num_bucket_arrays) {
  *fingerprint_bits = fields[0];
  *num_bucket_arrays = fields[2];
  Status s = cuckoo::CheckFingerprintBits(*fingerprint_bits);
  if (!s.ok()) return Status::Corruption("Cuckoo header: " + s.message());
  if (fields[1] != cuckoo::kSlotsPerBucket) {
    return Status::Corruption("Cuckoo slots_per_bucket must be 4, not " +
                              std::to_string(fields[1]));
  }
  if (*num_bucket_arrays > CuckooLimits::kMaxBucketArrays) {
    return Status::Corruption("Cuckoo num_bucket_arrays " +
                              std::to_string(*num_bucket_arrays) + " exceeds " +
                              std::to_string(CuckooLimits::kMaxBucketArrays));
  }
  if (fields[3] != 0) {
    return Status::Corruption("Cuckoo reserved header byte is not zero");
  }
  return Status::Ok();
}

ArrayLayout ReadRecord(const uint8_t* record) {
  ArrayLayout t;
  t.num_buckets = detail::LoadLittleEndian<uint32_t>(record);
  t.seed = detail::LoadLittleEndian<uint32_t>(record + 4);
  t.num_stashed = detail::LoadLittleEndian<uint32_t>(record + 8);
  return t;
}

std::string ArrayName(size_t t) {
  return "Cuckoo bucket array " + std::to_string(t) + ": ";
}

// The chain rule: bucket array t has 2^t times bucket array 0's buckets (at
// least one) and bucket array 0's seed.
Status CheckRecords(const std::vector<ArrayLayout>& arrays) {
  for (size_t t = 0; t < arrays.size(); ++t) {
    const ArrayLayout& l = arrays[t];
    const ArrayLayout& first = arrays[0];
    if (l.num_buckets == 0) {
      return Status::Corruption(ArrayName(t) + "num_buckets is 0");
    }
    if (t > 0 && (t >= CuckooLimits::kMaxBucketArrays ||
                  (uint64_t{first.num_buckets} << t) != l.num_buckets)) {
      return Status::Corruption(ArrayName(t) + "num_buckets " +
                                std::to_string(l.num_buckets) + " is not 2^" +
                                std::to_string(t) + " times bucket array 0's " +
                                std::to_string(first.num_buckets));
    }
    if (l.seed != first.seed) {
      return Status::Corruption(
          ArrayName(t) + "seed " + std::to_string(l.seed) +
          " differs from bucket array 0's " + std::to_string(first.seed));
    }
  }
  return Status::Ok();
}

// Version 1: header, then per bucket array its record, slots and stash in turn.
Status LayoutV1(std::string_view bytes, uint32_t* fingerprint_bits,
                std::vector<ArrayLayout>* arrays) {
  if (bytes.size() < cuckoo::kV1HeaderBytes) {
    return Status::Corruption("Cuckoo header truncated: " +
                              std::to_string(bytes.size()) + " of 8 bytes");
  }
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  uint32_t num_bucket_arrays;
  Status s = ParseFields(data + 4, fingerprint_bits, &num_bucket_arrays);
  if (!s.ok()) return s;
  size_t pos = cuckoo::kV1HeaderBytes;
  for (uint32_t t = 0; t < num_bucket_arrays; ++t) {
    if (bytes.size() - pos < cuckoo::kBucketArrayRecordBytes) {
      return Status::Corruption(ArrayName(t) + "header truncated");
    }
    ArrayLayout array = ReadRecord(data + pos);
    pos += cuckoo::kBucketArrayRecordBytes;
    const size_t slot_bytes =
        BucketArray::BytesFor(array.num_buckets, *fingerprint_bits);
    if (bytes.size() - pos < slot_bytes) {
      return Status::Corruption(
          ArrayName(t) +
          "slots truncated: " + std::to_string(array.num_buckets) +
          " buckets need " + std::to_string(slot_bytes) + " bytes, " +
          std::to_string(bytes.size() - pos) + " remain");
    }
    array.slots_at = pos;
    pos += slot_bytes;
    if ((bytes.size() - pos) / cuckoo::kStashEntryBytes < array.num_stashed) {
      return Status::Corruption(
          ArrayName(t) + "stash truncated: " +
          std::to_string(array.num_stashed) + " entries need " +
          std::to_string(uint64_t{array.num_stashed} *
                         cuckoo::kStashEntryBytes) +
          " bytes, " + std::to_string(bytes.size() - pos) + " remain");
    }
    array.stash_at = pos;
    pos += array.num_stashed * cuckoo::kStashEntryBytes;
    arrays->push_back(array);
  }
  if (pos != bytes.size()) {
    return Status::Corruption(
        std::to_string(bytes.size() - pos) +
        " trailing bytes after the last Cuckoo bucket array");
  }
  return CheckRecords(*arrays);
}

// Version 2: every bucket array's slots, the stashes, then the metadata.
Status LayoutV2(std::string_view bytes, uint32_t* fingerprint_bits,
                std::vector<ArrayLayout>* arrays, uint64_t* num_keys) {
  if (bytes.size() < cuckoo::kMetadataFixedBytes) {
    return Status::Corruption("Cuckoo metadata truncated: " +
                              std::to_string(bytes.size()) + " of 20 bytes");
  }
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  const uint8_t* fields = data + bytes.size() - 8;
  const uint32_t num_bucket_arrays = fields[2];
  // The checksum covers the records, so its range is read first, bounded.
  if (num_bucket_arrays > CuckooLimits::kMaxBucketArrays ||
      bytes.size() < cuckoo::MetadataBytes(num_bucket_arrays)) {
    return Status::Corruption(
        "Cuckoo metadata truncated: " + std::to_string(num_bucket_arrays) +
        " bucket arrays need " +
        std::to_string(cuckoo::MetadataBytes(num_bucket_arrays)) +
        " bytes of metadata, the filter has " + std::to_string(bytes.size()));
  }
  const size_t meta_at =
      bytes.size() - cuckoo::MetadataBytes(num_bucket_arrays);
  Status s = VerifyMetadataChecksum(bytes.substr(meta_at), "Cuckoo");
  if (!s.ok()) return s;
  uint32_t stored_arrays;
  s = ParseFields(fields, fingerprint_bits, &stored_arrays);
  if (!s.ok()) return s;
  *num_keys = detail::LoadLittleEndian<uint64_t>(fields - 8);
  for (uint32_t t = 0; t < num_bucket_arrays; ++t) {
    arrays->push_back(
        ReadRecord(data + meta_at + 4 + t * cuckoo::kBucketArrayRecordBytes));
  }
  s = CheckRecords(*arrays);
  if (!s.ok()) return s;
  uint64_t pos = 0;
  for (ArrayLayout& array : *arrays) {
    array.slots_at = pos;
    pos += BucketArray::BytesFor(array.num_buckets, *fingerprint_bits);
  }
  for (ArrayLayout& array : *arrays) {
    array.stash_at = pos;
    pos += uint64_t{array.num_stashed} * cuckoo::kStashEntryBytes;
  }
  if (pos != meta_at) {
    return Status::Corruption(
        "Cuckoo size mismatch: the bucket arrays' slots and stashes take " +
        std::to_string(pos) + " bytes, the filter holds " +
        std::to_string(meta_at) + " before its metadata");
  }
  return Status::Ok();
}

}  // namespace

Status CuckooView::Parse(std::string_view bytes, CuckooView* out) {
  return Parse(bytes, ReadBlockTags(bytes), out);
}

Status CuckooView::Parse(std::string_view bytes, const BlockTags& tags,
                         CuckooView* out) {
  uint32_t fingerprint_bits = 0;
  std::vector<ArrayLayout> layout;
  uint64_t num_keys = 0;
  uint8_t version = 0;
  const Status s = ParseByVersion(
      tags, FilterKind::kCuckoo,
      [&] {
        layout.clear();
        return LayoutV1(bytes, &fingerprint_bits, &layout);
      },
      [&] { return LayoutV2(bytes, &fingerprint_bits, &layout, &num_keys); },
      &version);
  if (!s.ok()) return s;
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  const uint32_t max_fingerprint = cuckoo::FingerprintRange(fingerprint_bits);
  CuckooView view;
  view.fingerprint_bits_ = fingerprint_bits;
  view.size_bytes_ = bytes.size();
  view.version_ = version;
  view.num_keys_ = num_keys;
  view.keys_known_ = version >= kFirstTrailerVersion;  // v1 has no key count
  for (size_t t = 0; t < layout.size(); ++t) {
    const ArrayLayout& l = layout[t];
    const std::string where = ArrayName(t);
    Array array;
    // The block goes on past the slots (in v2 always by the metadata), so
    // most bucket loads need no clamping.
    array.slots =
        BucketArray(data + l.slots_at, bytes.size() - l.slots_at, l.num_buckets,
                    fingerprint_bits, l.seed, static_cast<uint32_t>(t));
    array.stash.resize(l.num_stashed);
    const uint8_t* entry = data + l.stash_at;
    for (StashEntry& e : array.stash) {
      e.bucket = detail::LoadLittleEndian<uint32_t>(entry);
      e.fingerprint = detail::LoadLittleEndian<uint32_t>(entry + 4);
      entry += cuckoo::kStashEntryBytes;
      if (e.bucket >= l.num_buckets) {
        return Status::Corruption(where + "stash bucket " +
                                  std::to_string(e.bucket) + " is not below " +
                                  std::to_string(l.num_buckets));
      }
      if (e.fingerprint == 0 || e.fingerprint > max_fingerprint) {
        return Status::Corruption(
            where + "stash fingerprint " + std::to_string(e.fingerprint) +
            " is not a nonzero " + std::to_string(fingerprint_bits) +
            "-bit value");
      }
    }
    view.arrays_.push_back(std::move(array));
  }
  if (view.arrays_.size() == 1) {
    const Array& t = view.arrays_[0];
    view.static_array_ = t.stash.empty() && t.slots.HasWordBuckets() &&
                         t.slots.BucketWordsInBounds();
  }
  *out = std::move(view);
  return Status::Ok();
}

bool CuckooView::MayContain(uint64_t hash) const {
  if (static_array_) return cuckoo::StaticMayContain(arrays_[0].slots, hash);
  for (const Array& t : arrays_) {
    if (cuckoo::BucketArrayMayContain(t.slots, t.stash, hash)) return true;
  }
  return false;
}

bool CuckooView::MayContainKey(std::string_view key) const {
  return MayContain(HashKey(key));
}

void CuckooView::MayContainBatch(const uint64_t* hashes, size_t count,
                                 bool* results) const {
  if (static_array_) {
    cuckoo::StaticMayContainBatch(arrays_[0].slots, hashes, count, results);
    return;
  }
  std::fill(results, results + count, false);
  const auto hash_at = [hashes](size_t i) { return hashes[i]; };
  for (const Array& t : arrays_) {
    // A local, so that the stores to `results` do not force the bucket array's
    // fields to be reloaded for every query.
    const BucketArray slots = t.slots;
    if (t.stash.empty() && slots.HasWordBuckets() &&
        slots.BucketWordsInBounds()) {
      // A bucket array of a chain without a stash: no width check and no
      // clamping per query.
      cuckoo::ProbeInGroups<false>(
          slots, count, hash_at, [&](size_t i, const cuckoo::Location& loc) {
            results[i] |= slots.WordBucketsContain<true>(loc);
          });
    } else {
      cuckoo::ProbeInGroups<false>(
          slots, count, hash_at, [&](size_t i, const cuckoo::Location& loc) {
            results[i] |= cuckoo::Holds(slots, t.stash, loc);
          });
    }
  }
}

bool CuckooView::StaticBucketArrayOf(BucketArray* array) const {
  if (static_array_) *array = arrays_[0].slots;
  return static_array_;
}

uint32_t CuckooView::fingerprint_bits() const { return fingerprint_bits_; }

uint64_t CuckooView::num_keys() const {
  return keys_known_ ? num_keys_ : num_items();
}

uint32_t CuckooView::num_bucket_arrays() const {
  return static_cast<uint32_t>(arrays_.size());
}

uint64_t CuckooView::num_buckets() const {
  uint64_t n = 0;
  for (const Array& t : arrays_) n += t.slots.num_buckets();
  return n;
}

uint64_t CuckooView::num_items() const {
  uint64_t n = 0;
  for (const Array& t : arrays_) n += t.slots.CountOccupied() + t.stash.size();
  return n;
}

double CuckooView::Load() const {
  uint64_t occupied = 0;
  for (const Array& t : arrays_) occupied += t.slots.CountOccupied();
  const uint64_t slots = num_buckets() * cuckoo::kSlotsPerBucket;
  return slots == 0
             ? 0.0
             : static_cast<double>(occupied) / static_cast<double>(slots);
}

size_t CuckooView::SizeBytes() const { return size_bytes_; }

double CuckooView::EstimatedFpr() const {
  if (arrays_.empty()) return 0.0;
  // Bucket arrays fail independently: 1 - FPR is the product of their passes.
  double log_pass = 0.0;
  for (const Array& t : arrays_) {
    const double m = static_cast<double>(t.slots.num_buckets());
    log_pass += std::log1p(-cuckoo::FprOfComparisons(
        2.0 * static_cast<double>(t.slots.CountOccupied()) / m,
        static_cast<double>(t.stash.size()), t.slots.num_buckets(),
        fingerprint_bits_));
  }
  return -std::expm1(log_pass);
}

}  // namespace sstfilter
