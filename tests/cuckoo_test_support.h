// Shared by the cuckoo filter suites: building and parsing helpers, and
// the documented hash derivation and layout restated from
// sstfilter/cuckoo_filter.h so that the tests check the implementation
// against the spec, not itself.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "sstfilter/cuckoo_filter.h"

// The packed-slot table, for its per-slot reference probe.
#include "detail/cuckoo_packed_table.h"
#include "sstfilter/detail/endian.h"
#include "sstfilter/format.h"
#include "sstfilter/hash.h"
#include "support/format_checks.h"
#include "support/keys.h"

namespace sstfilter::cuckoo_testing {

using test_support::AbsentKeyHashes;
using test_support::FprTolerance;
using test_support::Hex;
using test_support::RandomKeyHashes;
using test_support::SequentialBigEndianKeyHashes;
using test_support::SequentialKeyHashes;

constexpr size_t kStaticHeaderBytes = 20;  // filter header + table header

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
  for (uint64_t h : hashes) hits += view.may_contain(h);
  return hits;
}

inline std::vector<char> Batch(const CuckooView& view,
                               const std::vector<uint64_t>& hashes) {
  std::vector<char> results(hashes.size());
  view.may_contain_batch(hashes.data(), hashes.size(),
                         reinterpret_cast<bool*>(results.data()));
  return results;
}

// Asserts every hash is found, one at a time and batched.
inline void ExpectAllFound(const CuckooView& view,
                           const std::vector<uint64_t>& keys,
                           const std::string& context) {
  const std::vector<char> batch = Batch(view, keys);
  for (size_t i = 0; i < keys.size(); ++i) {
    ASSERT_TRUE(view.may_contain(keys[i])) << context << ", key " << i;
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

// The per-table fields of serialized bytes (assumed valid).
struct TableInfo {
  uint32_t num_buckets, seed, stash_count;
  size_t offset, size;  // of the whole table, header included
};

inline std::vector<TableInfo> ReadTables(const std::string& bytes) {
  std::vector<TableInfo> tables;
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  size_t pos = 8;
  for (uint32_t t = 0; t < data[6]; ++t) {
    TableInfo info;
    info.num_buckets = detail::LoadLittleEndian<uint32_t>(data + pos);
    info.seed = detail::LoadLittleEndian<uint32_t>(data + pos + 4);
    info.stash_count = detail::LoadLittleEndian<uint32_t>(data + pos + 8);
    info.offset = pos;
    info.size = 12 +
                detail::PackedSlotsView::BytesFor(info.num_buckets, data[4]) +
                size_t{8} * info.stash_count;
    pos += info.size;
    tables.push_back(info);
  }
  return tables;
}

// The occupied fraction of one table of a chain, as a filter of its own.
inline double TableLoad(const std::string& bytes, const TableInfo& table) {
  std::string single =
      bytes.substr(0, 8) + bytes.substr(table.offset, table.size);
  single[6] = 1;
  return Parse(single).load();
}

// ---------------------------------------------------------------------------
// The documented hash derivation and layout, restated from the header so
// that the tests check the implementation against the spec, not itself.

struct SpecLocation {
  uint64_t bucket, alternate;
  uint32_t fingerprint;
};

// Table `level` t of a chain whose table 0 has m0 buckets.
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

inline std::string HeaderBytes(uint32_t f, uint32_t num_tables) {
  return std::string("SF\x02\x01", 4) + static_cast<char>(f) + '\x04' +
         static_cast<char>(num_tables) + '\0';
}

// One table written by hand: zero slots unless `slots` is given.
inline std::string TableBytes(
    uint32_t f, uint32_t num_buckets, uint32_t seed,
    const std::vector<std::pair<uint32_t, uint32_t>>& stash,
    std::string slots = "") {
  if (slots.empty()) {
    slots.assign(detail::PackedSlotsView::BytesFor(num_buckets, f), '\0');
  }
  std::string out = U32(num_buckets) + U32(seed) +
                    U32(static_cast<uint32_t>(stash.size())) + slots;
  for (const auto& [bucket, fp] : stash) out += U32(bucket) + U32(fp);
  return out;
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

}  // namespace sstfilter::cuckoo_testing
