// Internal: what the static build, the view and the dynamic filter of
// sstfilter/cuckoo_filter.h share besides where a hash lives
// (sstfilter/detail/cuckoo_location.h): the format's constants, the probe
// of a table with a stash, the random walk that places an item, and the
// writers of the serialized metadata. See cuckoo_filter.h for the byte
// layout.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "cuckoo/packed_slots.h"
#include "sstfilter/cuckoo_filter.h"
#include "sstfilter/detail/cuckoo_location.h"
#include "sstfilter/detail/cuckoo_probe.h"
#include "sstfilter/detail/endian.h"
#include "sstfilter/format.h"
#include "sstfilter/hash.h"

namespace sstfilter::detail::cuckoo {

// Format v1: an 8-byte filter header, then per table a 12-byte table header,
// its slots and its stash.
inline constexpr size_t kV1HeaderBytes = 8;
inline constexpr size_t kTableHeaderBytes = 12;  // a table record, in v1 and v2
inline constexpr size_t kStashEntryBytes = 8;
// Format v2: every table's slots, the stashes, then the metadata: a 4-byte
// checksum, a 12-byte record per table, the key count (8), 4 bytes of
// fields and the tag.
inline constexpr size_t kMetadataFixedBytes = 20;
inline size_t MetadataBytes(size_t num_tables) {
  return kMetadataFixedBytes + kTableHeaderBytes * num_tables;
}
inline constexpr uint64_t kMaxBuckets = std::numeric_limits<uint32_t>::max();
// Static sizing: a target load of 0.96 = 96 keys per 25 buckets of 4 slots,
// below the ~0.98 threshold of 4-slot cuckoo hashing (Fan et al. report
// 95.5% reached by random walks). Integer so that sizes are exact.
inline constexpr uint64_t kKeysPerStep = 96;
inline constexpr uint64_t kBucketsPerStep = 25;

// An item that found no slot: one of its buckets and its fingerprint.
struct StashEntry {
  uint32_t bucket;
  uint32_t fingerprint;
};

// Where `hash` lives in table `table_index` (of a chain) whose slots are
// `slots`.
inline Location LocateIn(const PackedSlotsView& slots, uint32_t seed,
                         uint32_t table_index, uint64_t hash) {
  return Locate(hash, seed, slots.num_buckets(), slots.fingerprint_range(),
                table_index);
}

inline bool StashMatches(const StashEntry& e, const Location& loc) {
  return e.fingerprint == loc.fingerprint &&
         (e.bucket == loc.bucket || e.bucket == loc.alternate);
}

inline bool Probe(const PackedSlotsView& slots,
                  const std::vector<StashEntry>& stash, const Location& loc) {
  if (slots.EitherBucketContains(loc.bucket, loc.alternate, loc.fingerprint)) {
    return true;
  }
  for (const StashEntry& e : stash) {
    if (StashMatches(e, loc)) return true;
  }
  return false;
}

inline bool TableMayContain(const PackedSlotsView& slots, uint32_t seed,
                            uint32_t table_index,
                            const std::vector<StashEntry>& stash,
                            uint64_t hash) {
  const Location loc = LocateIn(slots, seed, table_index, hash);
  // Start the second bucket's load before the first is compared: an absent
  // key then costs about one memory latency, not two.
  __builtin_prefetch(slots.BucketAddress(loc.alternate));
  return Probe(slots, stash, loc);
}

// The random walk's coin flips: a counter passed through Remix64
// (splitmix64's construction), seeded from fixed values so that builds are
// reproducible.
class KickRng {
 public:
  explicit KickRng(uint64_t seed) : state_(seed) {}
  uint32_t Next() {
    state_ += kSeedMultiplier;
    return static_cast<uint32_t>(Remix64(state_));
  }

 private:
  uint64_t state_;
};

// Puts the item at `loc` into one of its buckets, kicking residents along a
// random walk (Fan et al., Algorithm 1) at most `max_kicks` times. On false,
// *homeless is the item (maybe another one) that is now in no slot.
inline bool Place(PackedSlots& slots, uint32_t table_index, const Location& loc,
                  uint32_t max_kicks, KickRng& rng, StashEntry* homeless) {
  if (slots.TryAdd(loc.bucket, loc.fingerprint) ||
      slots.TryAdd(loc.alternate, loc.fingerprint)) {
    return true;
  }
  uint64_t current = (rng.Next() & 1) ? loc.alternate : loc.bucket;
  uint32_t fingerprint = loc.fingerprint;
  for (uint32_t kick = 0; kick < max_kicks; ++kick) {
    fingerprint =
        slots.Exchange(current, rng.Next() % kSlotsPerBucket, fingerprint);
    current =
        AlternateBucket(current, fingerprint, slots.num_buckets(), table_index);
    if (slots.TryAdd(current, fingerprint)) return true;
  }
  *homeless = {static_cast<uint32_t>(current), fingerprint};
  return false;
}

inline Status CheckFingerprintBits(uint32_t fingerprint_bits) {
  if (fingerprint_bits < CuckooLimits::kMinFingerprintBits ||
      fingerprint_bits > CuckooLimits::kMaxFingerprintBits) {
    return Status::InvalidArgument("fingerprint_bits must be in 4..32, not " +
                                   std::to_string(fingerprint_bits));
  }
  return Status::Ok();
}

// The FPR of one table of m buckets whose query compares `items_compared`
// stored fingerprints on average (2 buckets * 4 * load) and checks
// `stash_entries`: a stored fingerprint equals the query's with
// p = 1/(2^f - 1), and a stash entry is compared when it sits in one of the
// query's two buckets (2/m).
inline double FprOfComparisons(double items_compared, double stash_entries,
                               uint64_t num_buckets,
                               uint32_t fingerprint_bits) {
  const double log_miss = std::log1p(
      -1.0 / static_cast<double>((uint64_t{1} << fingerprint_bits) - 1));
  const double stash_share =
      std::min(1.0, 2.0 / static_cast<double>(num_buckets));
  return -std::expm1(items_compared * log_miss +
                     stash_entries *
                         std::log1p(stash_share * std::expm1(log_miss)));
}

// Buckets of a static filter for `num_keys` distinct keys at load 0.96
// (may exceed kMaxBuckets: the caller checks).
inline uint64_t StaticBuckets(uint64_t num_keys) {
  const unsigned __int128 m =
      (static_cast<unsigned __int128>(num_keys) * kBucketsPerStep +
       kKeysPerStep - 1) /
      kKeysPerStep;
  return static_cast<uint64_t>(m);
}

// The most buckets (at most kMaxBuckets) whose packed slots fit in `bytes`
// with one table's metadata.
inline uint64_t StaticBucketsIn(size_t bytes, uint32_t fingerprint_bits) {
  if (bytes < MetadataBytes(1)) return 0;
  // ceil(m * f / 2) slot bytes must fit: m <= 2 * payload / f.
  const unsigned __int128 payload = bytes - MetadataBytes(1);
  return static_cast<uint64_t>(
      std::min<unsigned __int128>(payload * 2 / fingerprint_bits, kMaxBuckets));
}

inline void AppendU32(std::string* out, uint32_t v) {
  char buf[4];
  detail::StoreLittleEndian<uint32_t>(buf, v);
  out->append(buf, sizeof(buf));
}

// One table's record in the metadata.
struct TableRecord {
  uint32_t num_buckets;
  uint32_t seed;
  uint32_t num_stashed;
};

// Appends the v2 metadata of a filter whose slots and stashes `out` already
// holds: the last step of every writer.
inline void AppendMetadata(std::string* out, uint32_t fingerprint_bits,
                           const std::vector<TableRecord>& tables,
                           uint64_t num_keys) {
  const size_t at = out->size();
  AppendU32(out, 0);  // the checksum, sealed below
  for (const TableRecord& t : tables) {
    AppendU32(out, t.num_buckets);
    AppendU32(out, t.seed);
    AppendU32(out, t.num_stashed);
  }
  AppendU32(out, static_cast<uint32_t>(num_keys));
  AppendU32(out, static_cast<uint32_t>(num_keys >> 32));
  out->push_back(static_cast<char>(fingerprint_bits));
  out->push_back(static_cast<char>(kSlotsPerBucket));
  out->push_back(static_cast<char>(tables.size()));
  out->push_back(0);  // reserved
  out->append(kFormatTagSize, '\0');
  auto* meta = reinterpret_cast<uint8_t*>(&(*out)[at]);
  SealMetadata(FilterKind::kCuckoo, meta,
               reinterpret_cast<uint8_t*>(&(*out)[out->size() - 4]));
}

inline void AppendStash(std::string* out,
                        const std::vector<StashEntry>& stash) {
  for (const StashEntry& e : stash) {
    AppendU32(out, e.bucket);
    AppendU32(out, e.fingerprint);
  }
}

inline std::string BucketCountError(uint64_t num_buckets) {
  return "a cuckoo table of " + std::to_string(num_buckets) +
         " buckets exceeds the format's 2^32-1";
}

}  // namespace sstfilter::detail::cuckoo
