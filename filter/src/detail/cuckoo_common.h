// Internal: what the static build, the view and the dynamic filter of
// sstfilter/cuckoo_filter.h share: the format's constants, where a hash
// lives in a table (bucket, alternate, fingerprint), the probe, the random
// walk that places an item, and the writers of the serialized header and
// tables. See cuckoo_filter.h for the derivations and the byte layout.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "detail/cuckoo_packed_table.h"
#include "sstfilter/cuckoo_filter.h"
#include "sstfilter/detail/endian.h"
#include "sstfilter/format.h"
#include "sstfilter/hash.h"

namespace sstfilter::detail::cuckoo {

inline constexpr uint8_t kVersion = 1;
inline constexpr size_t kHeaderBytes = 8;
inline constexpr size_t kTableHeaderBytes = 12;
inline constexpr size_t kStashEntryBytes = 8;
inline constexpr uint32_t kSlots = CuckooLimits::kSlotsPerBucket;
inline constexpr uint64_t kMaxBuckets = std::numeric_limits<uint32_t>::max();
// 2^64 / golden ratio, the usual odd constant to spread a small value (a
// seed; a fingerprint, for the low bits of a chained table's alternate).
inline constexpr uint64_t kSeedMultiplier = 0x9e3779b97f4a7c15ULL;
// The multiplier of MurmurHash64A (Appleby): spreads a fingerprint before
// FastRange64 picks R(fp) for the alternate bucket.
inline constexpr uint64_t kAlternateMultiplier = 0xc6a4a7935bd1e995ULL;
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

// Where one hash lives in one table (see the derivation in the header).
struct Location {
  uint64_t bucket;
  uint64_t alternate;
  uint32_t fingerprint;
};

// alternate_t(i, fp) of table `level` t of a chain (see the header):
// (R_0(fp) - i) mod m_0 on the top bits, an fp-derived XOR on the low t.
// Applying it twice gives i back.
inline uint64_t AlternateBucket(uint64_t bucket, uint32_t fingerprint,
                                uint64_t num_buckets, uint32_t level) {
  const uint64_t base = num_buckets >> level;
  const uint64_t high = bucket >> level;
  const uint64_t r = FastRange64(fingerprint * kAlternateMultiplier, base);
  const uint64_t alternate_high = r >= high ? r - high : r + base - high;
  if (level == 0) return alternate_high;
  const uint64_t flip = (fingerprint * kSeedMultiplier) >> (64 - level);
  return (alternate_high << level) |
         ((bucket ^ flip) & ((uint64_t{1} << level) - 1));
}

inline Location Locate(uint64_t hash, uint32_t seed, uint32_t level,
                       const PackedSlotsView& slots) {
  const uint64_t hs =
      seed == 0 ? hash : Remix64(hash ^ (seed * kSeedMultiplier));
  const uint64_t m = slots.num_buckets();
  const uint32_t fp_range =
      static_cast<uint32_t>((uint64_t{1} << slots.fingerprint_bits()) - 1);
  const uint32_t fingerprint =
      1 + FastRange32(static_cast<uint32_t>(hs), fp_range);
  const uint64_t bucket = FastRange64(hs, m);
  return {bucket, AlternateBucket(bucket, fingerprint, m, level), fingerprint};
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
                            uint32_t level,
                            const std::vector<StashEntry>& stash,
                            uint64_t hash) {
  const Location loc = Locate(hash, seed, level, slots);
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
inline bool Place(PackedSlots& slots, uint32_t level, const Location& loc,
                  uint32_t max_kicks, KickRng& rng, StashEntry* homeless) {
  if (slots.TryAdd(loc.bucket, loc.fingerprint) ||
      slots.TryAdd(loc.alternate, loc.fingerprint)) {
    return true;
  }
  uint64_t current = (rng.Next() & 1) ? loc.alternate : loc.bucket;
  uint32_t fingerprint = loc.fingerprint;
  for (uint32_t kick = 0; kick < max_kicks; ++kick) {
    fingerprint = slots.Exchange(current, rng.Next() % kSlots, fingerprint);
    current = AlternateBucket(current, fingerprint, slots.num_buckets(), level);
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

inline void AppendHeader(std::string* out, uint32_t fingerprint_bits,
                         size_t num_tables) {
  out->push_back(kFormatMagic[0]);
  out->push_back(kFormatMagic[1]);
  out->push_back(static_cast<char>(FilterKind::kCuckoo));
  out->push_back(static_cast<char>(kVersion));
  out->push_back(static_cast<char>(fingerprint_bits));
  out->push_back(static_cast<char>(kSlots));
  out->push_back(static_cast<char>(num_tables));
  out->push_back(0);  // reserved
}

inline void AppendU32(std::string* out, uint32_t v) {
  char buf[4];
  detail::StoreLittleEndian<uint32_t>(buf, v);
  out->append(buf, sizeof(buf));
}

inline void AppendTable(std::string* out, const PackedSlotsView& slots,
                        uint32_t seed, const std::vector<StashEntry>& stash) {
  AppendU32(out, static_cast<uint32_t>(slots.num_buckets()));
  AppendU32(out, seed);
  AppendU32(out, static_cast<uint32_t>(stash.size()));
  out->append(reinterpret_cast<const char*>(slots.data()), slots.size_bytes());
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

namespace sstfilter {

// One parsed table of a CuckooView; CuckooFilter::Deserialize copies it.
struct CuckooView::Table {
  detail::PackedSlotsView slots;
  uint32_t seed = 0;
  uint32_t level = 0;  // t: the index in the chain
  std::vector<detail::cuckoo::StashEntry> stash;
};

}  // namespace sstfilter
