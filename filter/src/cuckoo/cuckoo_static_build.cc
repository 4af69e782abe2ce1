// The static build of a cuckoo filter (one table, no stash: the SST case)
// and the sizing functions that predict its bytes, capacity and FPR.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "cuckoo/cuckoo_common.h"
#include "sstfilter/cuckoo_filter.h"

namespace sstfilter {
namespace {

using detail::PackedSlots;
using detail::PackedSlotsView;
using detail::cuckoo::AppendMetadata;
using detail::cuckoo::BucketCountError;
using detail::cuckoo::CheckFingerprintBits;
using detail::cuckoo::FprOfComparisons;
using detail::cuckoo::kBucketsPerStep;
using detail::cuckoo::KickRng;
using detail::cuckoo::kKeysPerStep;
using detail::cuckoo::kMaxBuckets;
using detail::cuckoo::kSeedMultiplier;
using detail::cuckoo::kSlotsPerBucket;
using detail::cuckoo::LocateIn;
using detail::cuckoo::Location;
using detail::cuckoo::MetadataBytes;
using detail::cuckoo::Place;
using detail::cuckoo::StashEntry;
using detail::cuckoo::StaticBuckets;
using detail::cuckoo::StaticBucketsIn;

// A static build fills to 0.96, where the longest walk is longer than the
// dynamic filter's bound of 500 kicks: measured
// 386..907 kicks over n = 1e6 and 1e7 at f = 8..16 (f = 6: up to 3856).
// A failure restarts the whole build, so allow a wide margin.
constexpr uint32_t kStaticMaxKicks = 4000;
// A static build that fails tries this many seeds before growing by ~1%.
constexpr uint32_t kSeedsPerSize = 4;

// Inserts every hash of `runs`, in order, into an empty table; false as
// soon as one finds no place (the caller starts over). A hash whose
// fingerprint already sits in one of its two buckets is skipped: a repeat
// of an earlier hash, or another key with the same bucket pair and
// fingerprint. Either way the query for it already finds that copy, which
// only ever moves between the same two buckets, so skipping loses nothing
// and deduplicates without sorting.
bool FillStaticTable(PackedSlots& slots, uint32_t seed, const HashRun* runs,
                     size_t num_runs) {
  KickRng rng(seed * kSeedMultiplier + slots.num_buckets());
  StashEntry homeless;
  // Prefetch a fixed distance ahead: building a large table is bound by
  // random bucket misses.
  constexpr size_t kAhead = 8;
  for (size_t r = 0; r < num_runs; ++r) {
    const uint64_t* hashes = runs[r].data;
    const size_t count = runs[r].size;
    for (size_t i = 0; i < count; ++i) {
      if (i + kAhead < count) {
        const Location ahead = LocateIn(slots, seed, 0, hashes[i + kAhead]);
        __builtin_prefetch(slots.BucketAddress(ahead.bucket), 1);
        __builtin_prefetch(slots.BucketAddress(ahead.alternate), 1);
      }
      const Location loc = LocateIn(slots, seed, 0, hashes[i]);
      if (slots.EitherBucketContains(loc.bucket, loc.alternate,
                                     loc.fingerprint)) {
        continue;
      }
      if (!Place(slots, 0, loc, kStaticMaxKicks, rng, &homeless)) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

size_t StaticCuckooBytes(uint64_t num_keys, uint32_t fingerprint_bits) {
  if (num_keys == 0) return MetadataBytes(0);
  const uint64_t m = StaticBuckets(num_keys);
  if (m > kMaxBuckets) return std::numeric_limits<size_t>::max();
  return PackedSlotsView::BytesFor(m, fingerprint_bits) + MetadataBytes(1);
}

double StaticCuckooBitsPerKey(uint32_t fingerprint_bits) {
  constexpr uint64_t kKeys = uint64_t{1} << 20;
  return static_cast<double>(StaticCuckooBytes(kKeys, fingerprint_bits)) * 8.0 /
         static_cast<double>(kKeys);
}

uint64_t StaticCuckooCapacity(size_t bytes, uint32_t fingerprint_bits) {
  if (!CheckFingerprintBits(fingerprint_bits).ok()) return 0;
  // The most keys with ceil(25 n / 96) <= m.
  return StaticBucketsIn(bytes, fingerprint_bits) * kKeysPerStep /
         kBucketsPerStep;
}

double StaticCuckooFpr(uint64_t num_keys, size_t bytes,
                       uint32_t fingerprint_bits) {
  if (num_keys == 0 || !CheckFingerprintBits(fingerprint_bits).ok()) {
    return 0.0;
  }
  const uint64_t m = StaticBucketsIn(bytes, fingerprint_bits);
  if (m == 0 || num_keys > m * kSlotsPerBucket) return 1.0;
  return FprOfComparisons(
      2.0 * static_cast<double>(num_keys) / static_cast<double>(m), 0.0, m,
      fingerprint_bits);
}

Status BuildStaticCuckoo(const uint64_t* hashes, size_t count,
                         uint32_t fingerprint_bits, std::string* out) {
  const HashRun all{hashes, count};
  return BuildStaticCuckoo(&all, 1, fingerprint_bits, {}, out);
}

Status BuildStaticCuckoo(const HashRun* runs, size_t num_runs,
                         uint32_t fingerprint_bits,
                         const StaticCuckooBounds& bounds, std::string* out) {
  Status s = CheckFingerprintBits(fingerprint_bits);
  if (!s.ok()) return s;
  uint64_t count = 0;  // sized for every hash given; repeats lower the load
  for (size_t r = 0; r < num_runs; ++r) count += runs[r].size;
  out->clear();
  if (count == 0) {
    AppendMetadata(out, fingerprint_bits, {}, 0);
    return Status::Ok();
  }
  uint64_t num_buckets = std::max(StaticBuckets(count), bounds.min_buckets);
  for (uint32_t seed = 0;; ++seed) {
    if (seed > 0 && seed % kSeedsPerSize == 0) {
      num_buckets += std::max<uint64_t>(1, num_buckets / 100);
    }
    if (num_buckets > kMaxBuckets) {
      std::string().swap(*out);
      return Status::CapacityExceeded(BucketCountError(num_buckets));
    }
    const size_t slot_bytes =
        PackedSlotsView::BytesFor(num_buckets, fingerprint_bits);
    const size_t filter_bytes = slot_bytes + MetadataBytes(1);
    if (filter_bytes > bounds.max_bytes) {
      std::string().swap(*out);
      return Status::CapacityExceeded(
          "a static cuckoo filter of " + std::to_string(num_buckets) +
          " buckets takes " + std::to_string(filter_bytes) +
          " bytes, more than the " + std::to_string(bounds.max_bytes) +
          " allowed");
    }
    // A larger table replaces a failed one: free that first rather than
    // hold both while reserve copies it.
    if (out->capacity() < filter_bytes) std::string().swap(*out);
    out->reserve(filter_bytes);
    out->assign(slot_bytes, '\0');
    PackedSlots slots(reinterpret_cast<uint8_t*>(out->data()), num_buckets,
                      fingerprint_bits);
    if (FillStaticTable(slots, seed, runs, num_runs)) {
      AppendMetadata(out, fingerprint_bits,
                     {{static_cast<uint32_t>(num_buckets), seed, 0}}, count);
      return Status::Ok();
    }
  }
}

}  // namespace sstfilter
