// Shared by the cuckoo filter suites: building and parsing helpers, and
// the documented hash derivation and layout restated from
// sstfilter/cuckoo_filter.h so that the tests check the implementation
// against the spec, not itself.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "format_checks.h"
#include "keys.h"
#include "sstfilter/cuckoo_filter.h"
#include "sstfilter/detail/endian.h"
#include "sstfilter/format.h"
#include "sstfilter/hash.h"

namespace sstfilter::test_support {

// A static filter's metadata: checksum, one bucket array record, key count,
// fields, tag.
constexpr size_t kStaticMetadataBytes = 32;

inline std::string BuildStatic(const std::vector<uint64_t>& hashes,
                               uint32_t fingerprint_bits) {
  std::string bytes;
  const Status s =
      BuildStaticCuckoo(hashes.data(), hashes.size(), fingerprint_bits, &bytes);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return bytes;
}

// A view does not own its bytes: parsing a temporary would dangle.
inline CuckooView Parse(std::string&&) = delete;
inline CuckooView Parse(const std::string& bytes) {
  CuckooView view;
  const Status s = CuckooView::Parse(bytes, &view);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return view;
}

inline size_t CountMayContain(const CuckooView& view,
                              const std::vector<uint64_t>& hashes) {
  size_t hits = 0;
  for (uint64_t h : hashes) hits += view.MayContain(h);
  return hits;
}

inline std::vector<char> Batch(const CuckooView& view,
                               const std::vector<uint64_t>& hashes) {
  std::vector<char> results(hashes.size());
  view.MayContainBatch(hashes.data(), hashes.size(),
                       reinterpret_cast<bool*>(results.data()));
  return results;
}

// Asserts every hash is found, one at a time and batched.
inline void ExpectAllFound(const CuckooView& view,
                           const std::vector<uint64_t>& keys,
                           const std::string& context) {
  const std::vector<char> batch = Batch(view, keys);
  for (size_t i = 0; i < keys.size(); ++i) {
    ASSERT_TRUE(view.MayContain(keys[i])) << context << ", key " << i;
    ASSERT_TRUE(batch[i]) << context << ", batched, key " << i;
  }
}

inline CuckooFilter CreateDynamic(uint32_t fingerprint_bits,
                                  uint64_t expected) {
  CuckooFilter filter;
  const Status s = CuckooFilter::Create(fingerprint_bits, expected, &filter);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return filter;
}

// Bytes of the slots of `num_buckets` buckets, from the header's layout:
// 4 slots of f bits per bucket, the stream rounded up to whole bytes.
inline size_t SpecSlotBytes(uint64_t num_buckets, uint32_t f) {
  return static_cast<size_t>((num_buckets * 4 * f + 7) / 8);
}

// The per-bucket array fields of serialized v2 bytes (assumed valid), read from
// the metadata at the end as the header describes.
struct ArrayInfo {
  uint32_t num_buckets, seed, num_stashed;
  size_t slots_offset, slots_size, stash_offset;
};

inline std::vector<ArrayInfo> ReadBucketArrays(const std::string& bytes) {
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  const size_t n = bytes.size();
  const uint32_t f = data[n - 8];
  const uint32_t num_bucket_arrays = data[n - 6];
  const size_t records = n - 16 - 12 * size_t{num_bucket_arrays};
  std::vector<ArrayInfo> arrays;
  size_t pos = 0;
  for (uint32_t t = 0; t < num_bucket_arrays; ++t) {
    const uint8_t* record = data + records + 12 * t;
    ArrayInfo info;
    info.num_buckets = detail::LoadLittleEndian<uint32_t>(record);
    info.seed = detail::LoadLittleEndian<uint32_t>(record + 4);
    info.num_stashed = detail::LoadLittleEndian<uint32_t>(record + 8);
    info.slots_offset = pos;
    info.slots_size = SpecSlotBytes(info.num_buckets, f);
    pos += info.slots_size;
    arrays.push_back(info);
  }
  for (ArrayInfo& info : arrays) {
    info.stash_offset = pos;
    pos += size_t{8} * info.num_stashed;
  }
  return arrays;
}

// ---------------------------------------------------------------------------
// The documented hash derivation and layout, restated from the header so
// that the tests check the implementation against the spec, not itself.

struct SpecLocation {
  uint64_t bucket, alternate;
  uint32_t fingerprint;
};

// Bucket array `level` t of a chain whose bucket array 0 has m0 buckets.
inline SpecLocation SpecLocate(uint64_t h, uint32_t seed, uint64_t m0,
                               uint32_t level, uint32_t f) {
  const uint64_t hs =
      seed == 0 ? h : Remix64(h ^ (seed * 0x9e3779b97f4a7c15ULL));
  const uint32_t fp = 1 + FastRange32(static_cast<uint32_t>(hs),
                                      static_cast<uint32_t>((1ULL << f) - 1));
  const uint64_t bucket = FastRange64(hs, m0 << level);
  const uint64_t r = FastRange64(fp * 0xc6a4a7935bd1e995ULL, m0);
  uint64_t alternate = (r + m0 - (bucket >> level)) % m0;
  if (level > 0) {
    const uint64_t flip = (fp * 0x9e3779b97f4a7c15ULL) >> (64 - level);
    alternate =
        (alternate << level) | ((bucket ^ flip) & ((uint64_t{1} << level) - 1));
  }
  return {bucket, alternate, fp};
}

// Slot `index` of the bit stream starting at bytes[offset], bit by bit.
inline uint32_t SlotAt(const std::string& bytes, size_t offset, uint32_t f,
                       uint64_t index) {
  uint32_t v = 0;
  for (uint32_t b = 0; b < f; ++b) {
    const uint64_t bit = index * f + b;
    const auto byte = static_cast<uint8_t>(bytes[offset + bit / 8]);
    v |= static_cast<uint32_t>((byte >> (bit % 8)) & 1) << b;
  }
  return v;
}

inline std::string U32(uint32_t v) {
  std::string s(4, '\0');
  detail::StoreLittleEndian<uint32_t>(s.data(), v);
  return s;
}

// One bucket array of a filter written by hand: zero slots unless `slots` is
// given.
struct SpecArray {
  uint32_t num_buckets;
  uint32_t seed;
  std::vector<std::pair<uint32_t, uint32_t>> stash;  // bucket, fingerprint
  std::string slots;
};

// A filter written by hand from the header's v2 layout: the slots, the
// stashes, then the metadata with its checksum (the low 32 bits of XXH3-64,
// i.e. HashKey, of the metadata after the checksum).
inline std::string SpecFilter(uint32_t f, std::vector<SpecArray> arrays,
                              uint64_t num_keys = 0) {
  std::string out, metadata;
  for (SpecArray& t : arrays) {
    if (t.slots.empty()) {
      t.slots.assign(SpecSlotBytes(t.num_buckets, f), '\0');
    }
    out += t.slots;
    metadata += U32(t.num_buckets) + U32(t.seed) +
                U32(static_cast<uint32_t>(t.stash.size()));
  }
  for (const SpecArray& t : arrays) {
    for (const auto& [bucket, fp] : t.stash) out += U32(bucket) + U32(fp);
  }
  metadata += U32(static_cast<uint32_t>(num_keys)) +
              U32(static_cast<uint32_t>(num_keys >> 32));
  metadata += std::string{static_cast<char>(f), '\x04',
                          static_cast<char>(arrays.size()), '\0'};
  metadata += std::string("SF\x02\x02", 4);
  return out + U32(static_cast<uint32_t>(HashKey(metadata))) + metadata;
}

// One bucket array of a chain as a filter of its own.
inline std::string ArrayAsFilter(const std::string& bytes,
                                 const ArrayInfo& array) {
  const uint32_t f = static_cast<uint8_t>(bytes[bytes.size() - 8]);
  SpecArray single{array.num_buckets,
                   array.seed,
                   {},
                   bytes.substr(array.slots_offset, array.slots_size)};
  for (uint32_t i = 0; i < array.num_stashed; ++i) {
    const char* entry = bytes.data() + array.stash_offset + 8 * i;
    single.stash.emplace_back(detail::LoadLittleEndian<uint32_t>(entry),
                              detail::LoadLittleEndian<uint32_t>(entry + 4));
  }
  return SpecFilter(f, {single});
}

// The occupied fraction of one bucket array of a chain.
inline double ArrayLoad(const std::string& bytes, const ArrayInfo& array) {
  const std::string single = ArrayAsFilter(bytes, array);
  return Parse(single).Load();
}

// The distinct (bucket pair, fingerprint) of `keys` in the static filter
// `bytes`, from the header's derivation: what the build stores, since a key
// whose pair and fingerprint are already there needs no copy of its own.
inline size_t DistinctPlacements(const std::string& bytes,
                                 const std::vector<uint64_t>& keys) {
  const std::vector<ArrayInfo> arrays = ReadBucketArrays(bytes);
  if (arrays.empty()) return 0;
  const uint32_t f = static_cast<uint8_t>(bytes[bytes.size() - 8]);
  std::set<std::tuple<uint64_t, uint64_t, uint32_t>> placements;
  for (uint64_t h : keys) {
    const SpecLocation loc =
        SpecLocate(h, arrays[0].seed, arrays[0].num_buckets, 0, f);
    placements.insert({std::min(loc.bucket, loc.alternate),
                       std::max(loc.bucket, loc.alternate), loc.fingerprint});
  }
  return placements.size();
}

inline void SetSlot(std::string* slots, uint32_t f, uint64_t index,
                    uint32_t value) {
  for (uint32_t b = 0; b < f; ++b) {
    const uint64_t bit = index * f + b;
    char& byte = (*slots)[bit / 8];
    byte = static_cast<char>((byte & ~(1 << (bit % 8))) |
                             (((value >> b) & 1) << (bit % 8)));
  }
}

}  // namespace sstfilter::test_support
