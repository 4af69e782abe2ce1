// The writers of the cuckoo format: the static build (one bucket array, no
// stash: the SST case) with the sizing that predicts it, and the dynamic filter
// (add, erase, growth by chaining bucket arrays). Both place an item by the
// same random walk.
#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "cuckoo/cuckoo_format.h"
#include "sstfilter/cuckoo_filter.h"
#include "sstfilter/detail/endian.h"
#include "sstfilter/format.h"
#include "sstfilter/hash.h"

namespace sstfilter {
namespace {

namespace cuckoo = detail::cuckoo;
using cuckoo::Location;
using cuckoo::MutableBucketArray;
using cuckoo::StashEntry;

// The random walk's coin flips: a counter passed through Remix64
// (splitmix64's construction), seeded from fixed values so that builds are
// reproducible.
class KickRng {
 public:
  explicit KickRng(uint64_t seed) : state_(seed) {}
  uint32_t Next() {
    state_ += cuckoo::kSeedMultiplier;
    return static_cast<uint32_t>(Remix64(state_));
  }

 private:
  uint64_t state_;
};

// Puts the item at `loc` into one of its buckets, kicking residents along a
// random walk (Fan et al., Algorithm 1) at most `max_kicks` times. On false,
// *homeless is the item (maybe another one) that is now in no slot.
// kFirstArray: bucket array 0 of a chain (a static filter's), as in
// BucketArray::Locate; the static build's own instance is then inlined into
// its loop, where the bucket array's fields stay in registers.
template <bool kFirstArray = false>
bool Place(MutableBucketArray& array, const Location& loc, uint32_t max_kicks,
           KickRng& rng, StashEntry* homeless) {
  if (array.TryAdd(loc.bucket, loc.fingerprint) ||
      array.TryAdd(loc.alternate, loc.fingerprint)) {
    return true;
  }
  uint64_t current = (rng.Next() & 1) ? loc.alternate : loc.bucket;
  uint32_t fingerprint = loc.fingerprint;
  for (uint32_t kick = 0; kick < max_kicks; ++kick) {
    fingerprint = array.Exchange(current, rng.Next() % cuckoo::kSlotsPerBucket,
                                 fingerprint);
    current = array.Alternate<kFirstArray>(current, fingerprint);
    if (array.TryAdd(current, fingerprint)) return true;
  }
  *homeless = {static_cast<uint32_t>(current), fingerprint};
  return false;
}

std::string BucketCountError(uint64_t num_buckets) {
  return "a cuckoo bucket array of " + std::to_string(num_buckets) +
         " buckets exceeds the format's 2^32-1";
}

void AppendU32(std::string* out, uint32_t v) {
  char buf[4];
  detail::StoreLittleEndian<uint32_t>(buf, v);
  out->append(buf, sizeof(buf));
}

// One bucket array's record in the metadata.
struct ArrayRecord {
  uint32_t num_buckets;
  uint32_t seed;
  uint32_t num_stashed;
};

// Appends the v2 metadata of a filter whose slots and stashes `out` already
// holds: the last step of every writer.
void AppendMetadata(std::string* out, uint32_t fingerprint_bits,
                    const std::vector<ArrayRecord>& arrays, uint64_t num_keys) {
  const size_t at = out->size();
  AppendU32(out, 0);  // the checksum, sealed below
  for (const ArrayRecord& t : arrays) {
    AppendU32(out, t.num_buckets);
    AppendU32(out, t.seed);
    AppendU32(out, t.num_stashed);
  }
  AppendU32(out, static_cast<uint32_t>(num_keys));
  AppendU32(out, static_cast<uint32_t>(num_keys >> 32));
  out->push_back(static_cast<char>(fingerprint_bits));
  out->push_back(static_cast<char>(cuckoo::kSlotsPerBucket));
  out->push_back(static_cast<char>(arrays.size()));
  out->push_back(0);  // reserved
  out->append(kFormatTagSize, '\0');
  auto* meta = reinterpret_cast<uint8_t*>(&(*out)[at]);
  SealMetadata(FilterKind::kCuckoo, meta,
               reinterpret_cast<uint8_t*>(&(*out)[out->size() - 4]));
}

// ---------------------------------------------------------------------------
// The static build.

// A static build fills to 0.96, where the longest walk is longer than the
// dynamic filter's bound of 500 kicks: measured
// 386..907 kicks over n = 1e6 and 1e7 at f = 8..16 (f = 6: up to 3856).
// A failure restarts the whole build, so allow a wide margin.
constexpr uint32_t kStaticMaxKicks = 4000;
// A static build that fails tries this many seeds before growing by ~1%.
constexpr uint32_t kSeedsPerSize = 4;

// Inserts every hash of `runs`, in order, into an empty bucket array; false as
// soon as one finds no place (the caller starts over). A hash whose
// fingerprint already sits in one of its two buckets is skipped: a repeat
// of an earlier hash, or another key with the same bucket pair and
// fingerprint. Either way the query for it already finds that copy, which
// only ever moves between the same two buckets, so skipping loses nothing
// and deduplicates without sorting.
bool FillStaticArray(MutableBucketArray& array, const HashRun* runs,
                     size_t num_runs) {
  KickRng rng(array.seed() * cuckoo::kSeedMultiplier + array.num_buckets());
  StashEntry homeless;
  // Each hash is located a fixed distance ahead, once, and its buckets
  // prefetched: building a large bucket array is bound by random bucket misses.
  constexpr size_t kAhead = 8;
  Location ahead[kAhead];
  auto locate = [&array](uint64_t hash) {
    const Location loc = array.Locate<true>(hash);
    __builtin_prefetch(array.BucketAddress(loc.bucket), 1);
    __builtin_prefetch(array.BucketAddress(loc.alternate), 1);
    return loc;
  };
  for (size_t r = 0; r < num_runs; ++r) {
    const uint64_t* hashes = runs[r].data;
    const size_t count = runs[r].size;
    for (size_t i = 0; i < std::min(kAhead, count); ++i) {
      ahead[i] = locate(hashes[i]);
    }
    for (size_t i = 0; i < count; ++i) {
      const Location loc = ahead[i % kAhead];
      if (i + kAhead < count) ahead[i % kAhead] = locate(hashes[i + kAhead]);
      if (array.Contains(loc)) continue;
      if (!Place<true>(array, loc, kStaticMaxKicks, rng, &homeless)) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

size_t StaticCuckooBytes(uint64_t num_keys, uint32_t fingerprint_bits) {
  const uint64_t m = cuckoo::StaticBuckets(num_keys);
  if (m > cuckoo::kMaxBuckets) return std::numeric_limits<size_t>::max();
  return cuckoo::StaticFilterBytes(m, fingerprint_bits);
}

double StaticCuckooBitsPerKey(uint32_t fingerprint_bits) {
  constexpr uint64_t kKeys = uint64_t{1} << 20;
  return static_cast<double>(StaticCuckooBytes(kKeys, fingerprint_bits)) * 8.0 /
         static_cast<double>(kKeys);
}

uint32_t StaticCuckooFingerprintBits(double bits_per_key) {
  // StaticCuckooBitsPerKey grows with the width: the first that fits, from
  // the widest down.
  for (uint32_t f = CuckooLimits::kMaxFingerprintBits;
       f >= CuckooLimits::kMinFingerprintBits; --f) {
    if (StaticCuckooBitsPerKey(f) <= bits_per_key) return f;
  }
  return 0;
}

uint64_t StaticCuckooCapacity(size_t bytes, uint32_t fingerprint_bits) {
  if (!cuckoo::CheckFingerprintBits(fingerprint_bits).ok()) return 0;
  // The most keys with ceil(25 n / 96) <= m.
  return cuckoo::StaticBucketsIn(bytes, fingerprint_bits) *
         cuckoo::kKeysPerStep / cuckoo::kBucketsPerStep;
}

double StaticCuckooFpr(uint64_t num_keys, size_t bytes,
                       uint32_t fingerprint_bits) {
  if (num_keys == 0 || !cuckoo::CheckFingerprintBits(fingerprint_bits).ok()) {
    return 0.0;
  }
  const uint64_t m = cuckoo::StaticBucketsIn(bytes, fingerprint_bits);
  if (m == 0 || num_keys > m * cuckoo::kSlotsPerBucket) return 1.0;
  return cuckoo::FprOfComparisons(
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
  Status s = cuckoo::CheckFingerprintBits(fingerprint_bits);
  if (!s.ok()) return s;
  uint64_t count = 0;  // sized for every hash given; repeats lower the load
  for (size_t r = 0; r < num_runs; ++r) count += runs[r].size;
  out->clear();
  if (count == 0) {
    AppendMetadata(out, fingerprint_bits, {}, 0);
    return Status::Ok();
  }
  uint64_t num_buckets =
      std::max(cuckoo::StaticBuckets(count), bounds.min_buckets);
  for (uint32_t seed = 0;; ++seed) {
    if (seed > 0 && seed % kSeedsPerSize == 0) {
      num_buckets += std::max<uint64_t>(1, num_buckets / 100);
    }
    if (num_buckets > cuckoo::kMaxBuckets) {
      std::string().swap(*out);
      return Status::CapacityExceeded(BucketCountError(num_buckets));
    }
    const size_t filter_bytes =
        cuckoo::StaticFilterBytes(num_buckets, fingerprint_bits);
    if (filter_bytes > bounds.max_bytes) {
      std::string().swap(*out);
      return Status::CapacityExceeded(
          "a static cuckoo filter of " + std::to_string(num_buckets) +
          " buckets takes " + std::to_string(filter_bytes) +
          " bytes, more than the " + std::to_string(bounds.max_bytes) +
          " allowed");
    }
    // A larger bucket array replaces a failed one: free that first rather than
    // hold both while reserve copies it.
    if (out->capacity() < filter_bytes) std::string().swap(*out);
    out->reserve(filter_bytes);
    out->assign(cuckoo::BucketArray::BytesFor(num_buckets, fingerprint_bits),
                '\0');
    MutableBucketArray array(reinterpret_cast<uint8_t*>(out->data()),
                             num_buckets, fingerprint_bits, seed, 0);
    if (FillStaticArray(array, runs, num_runs)) {
      AppendMetadata(out, fingerprint_bits,
                     {{static_cast<uint32_t>(num_buckets), seed, 0}}, count);
      return Status::Ok();
    }
  }
}

// ---------------------------------------------------------------------------
// The dynamic filter.

namespace {

// The dynamic filter bounds the random walk at 500 kicks, as Fan et al. do
// (MAX_CUCKOO_COUNT in efficient/cuckoofilter); a failure goes to the stash.
constexpr uint32_t kMaxKicks = 500;
// The dynamic filter's kick-out RNG starts here (any fixed value).
constexpr uint64_t kDynamicRngSeed = 0x243f6a8885a308d3ULL;

}  // namespace

struct CuckooFilter::Impl {
  // Bucket array t = `array_index` of the chain, owning its slots.
  struct Array {
    std::vector<uint8_t> bytes;
    uint64_t num_buckets;
    uint32_t seed;
    uint32_t array_index;
    std::vector<StashEntry> stash;
  };

  uint32_t fingerprint_bits = 12;
  std::vector<Array> arrays;
  uint64_t num_items = 0;
  KickRng rng{kDynamicRngSeed};

  MutableBucketArray Slots(Array& t) {
    return MutableBucketArray(t.bytes.data(), t.num_buckets, fingerprint_bits,
                              t.seed, t.array_index);
  }
  cuckoo::BucketArray Slots(const Array& t) const {
    return cuckoo::BucketArray(t.bytes.data(), t.bytes.size(), t.num_buckets,
                               fingerprint_bits, t.seed, t.array_index);
  }

  void AddArray(uint64_t num_buckets, uint32_t seed) {
    Array t;
    t.bytes.assign(cuckoo::BucketArray::BytesFor(num_buckets, fingerprint_bits),
                   0);
    t.num_buckets = num_buckets;
    t.seed = seed;
    t.array_index = static_cast<uint32_t>(arrays.size());
    arrays.push_back(std::move(t));
  }

  // Chains a bucket array with twice the buckets of the newest and the same
  // seed (the header's "Chains" rule); a filter without bucket arrays starts at
  // 1.
  Status Grow() {
    const uint64_t num_buckets =
        arrays.empty() ? 1 : 2 * arrays.back().num_buckets;
    if (num_buckets > cuckoo::kMaxBuckets) {
      return Status::CapacityExceeded(BucketCountError(num_buckets));
    }
    AddArray(num_buckets, arrays.empty() ? 0 : arrays[0].seed);
    return Status::Ok();
  }

  uint32_t CountCopies(uint64_t hash) const {
    uint32_t copies = 0;
    for (const Array& t : arrays) {
      const cuckoo::BucketArray slots = Slots(t);
      const Location loc = slots.Locate(hash);
      copies += slots.Count(loc.bucket, loc.fingerprint);
      if (loc.alternate != loc.bucket) {
        copies += slots.Count(loc.alternate, loc.fingerprint);
      }
      for (const StashEntry& e : t.stash) {
        copies += cuckoo::StashMatches(e, loc);
      }
    }
    return copies;
  }

  // After a slot was freed: give the stashed items another walk.
  void ReturnStashToArray(Array& t) {
    std::vector<StashEntry> waiting;
    waiting.swap(t.stash);
    MutableBucketArray slots = Slots(t);
    for (const StashEntry& e : waiting) {
      const Location loc{e.bucket, slots.Alternate(e.bucket, e.fingerprint),
                         e.fingerprint};
      StashEntry homeless;
      if (!Place(slots, loc, kMaxKicks, rng, &homeless)) {
        t.stash.push_back(homeless);
      }
    }
  }
};

CuckooFilter::CuckooFilter() : impl_(std::make_unique<Impl>()) {}
CuckooFilter::~CuckooFilter() = default;
CuckooFilter::CuckooFilter(CuckooFilter&&) noexcept = default;
CuckooFilter& CuckooFilter::operator=(CuckooFilter&&) noexcept = default;

Status CuckooFilter::Create(uint32_t fingerprint_bits, uint64_t expected_items,
                            CuckooFilter* out) {
  Status s = cuckoo::CheckFingerprintBits(fingerprint_bits);
  if (!s.ok()) return s;
  const uint64_t num_buckets =
      std::max<uint64_t>(1, cuckoo::StaticBuckets(expected_items));
  if (num_buckets > cuckoo::kMaxBuckets) {
    return Status::CapacityExceeded(BucketCountError(num_buckets));
  }
  CuckooFilter filter;
  filter.impl_->fingerprint_bits = fingerprint_bits;
  filter.impl_->AddArray(num_buckets, 0);
  *out = std::move(filter);
  return Status::Ok();
}

Status CuckooFilter::Deserialize(std::string_view bytes, CuckooFilter* out) {
  CuckooView view;
  Status s = CuckooView::Parse(bytes, &view);
  if (!s.ok()) return s;
  CuckooFilter filter;
  Impl& d = *filter.impl_;
  d.fingerprint_bits = view.fingerprint_bits();
  for (const CuckooView::Array& v : view.arrays_) {
    Impl::Array t;
    t.bytes.assign(v.slots.slots(), v.slots.slots() + v.slots.SizeBytes());
    t.num_buckets = v.slots.num_buckets();
    t.seed = v.slots.seed();
    t.array_index = v.slots.array_index();
    t.stash = v.stash;
    d.arrays.push_back(std::move(t));
  }
  d.num_items = view.num_items();
  *out = std::move(filter);
  return Status::Ok();
}

Status CuckooFilter::Add(uint64_t hash) {
  Impl& d = *impl_;
  if (d.CountCopies(hash) >= CuckooLimits::kMaxDuplicates) {
    return Status::TooManyDuplicates(
        "the item's buckets already hold 8 copies of its fingerprint");
  }
  // A bucket array whose stash is in use is full.
  if (d.arrays.empty() || !d.arrays.back().stash.empty()) {
    Status s = d.Grow();
    if (!s.ok()) return s;
  }
  Impl::Array& t = d.arrays.back();
  MutableBucketArray slots = d.Slots(t);
  StashEntry homeless;
  if (!Place(slots, slots.Locate(hash), kMaxKicks, d.rng, &homeless)) {
    t.stash.push_back(homeless);
  }
  ++d.num_items;
  return Status::Ok();
}

Status CuckooFilter::AddKey(std::string_view key) { return Add(HashKey(key)); }

Status CuckooFilter::Erase(uint64_t hash) {
  Impl& d = *impl_;
  for (auto it = d.arrays.rbegin(); it != d.arrays.rend(); ++it) {
    Impl::Array& t = *it;
    MutableBucketArray slots = d.Slots(t);
    const Location loc = slots.Locate(hash);
    const auto stashed = std::find_if(
        t.stash.begin(), t.stash.end(),
        [&](const StashEntry& e) { return cuckoo::StashMatches(e, loc); });
    if (stashed != t.stash.end()) {
      t.stash.erase(stashed);
    } else if (slots.TryRemove(loc.bucket, loc.fingerprint) ||
               slots.TryRemove(loc.alternate, loc.fingerprint)) {
      if (!t.stash.empty()) d.ReturnStashToArray(t);
    } else {
      continue;
    }
    --d.num_items;
    return Status::Ok();
  }
  return Status::NotFound("the item is not in the cuckoo filter");
}

Status CuckooFilter::EraseKey(std::string_view key) {
  return Erase(HashKey(key));
}

bool CuckooFilter::MayContain(uint64_t hash) const {
  for (const Impl::Array& t : impl_->arrays) {
    if (cuckoo::BucketArrayMayContain(impl_->Slots(t), t.stash, hash))
      return true;
  }
  return false;
}

bool CuckooFilter::MayContainKey(std::string_view key) const {
  return MayContain(HashKey(key));
}

uint64_t CuckooFilter::num_items() const { return impl_->num_items; }

uint32_t CuckooFilter::num_bucket_arrays() const {
  return static_cast<uint32_t>(impl_->arrays.size());
}

std::string CuckooFilter::Serialize() const {
  std::string out;
  std::vector<ArrayRecord> records;
  for (const Impl::Array& t : impl_->arrays) {
    out.append(reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size());
    records.push_back({static_cast<uint32_t>(t.num_buckets), t.seed,
                       static_cast<uint32_t>(t.stash.size())});
  }
  for (const Impl::Array& t : impl_->arrays) {
    for (const StashEntry& e : t.stash) {
      AppendU32(&out, e.bucket);
      AppendU32(&out, e.fingerprint);
    }
  }
  AppendMetadata(&out, impl_->fingerprint_bits, records, impl_->num_items);
  return out;
}

}  // namespace sstfilter
