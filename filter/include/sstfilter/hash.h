// sstfilter/hash.h: the one hash per key, and the ways we cut it up.
//
// A key is hashed exactly once, with XXH3-64 (seed 0). Every line index,
// probe, fingerprint and bucket index is derived from that 64-bit value, so
// callers that already hold hashes (RocksDB's builders keep them) never hash
// twice.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace sstfilter {

// XXH3-64 of `key` with seed 0. Stable across platforms and versions
// (XXH3's output is frozen since xxHash 0.8.0), so it is part of our formats.
// Its body is detail/key_hash.h's, which the RocksDB plugin's builders and
// readers call inline: one hash, wherever a key is hashed.
uint64_t HashKey(std::string_view key);

// Maps a uniform 64-bit `hash` onto [0, range) without division:
// the upper 64 bits of hash * range (Lemire, "Fast Random Integer Generation
// in an Interval", 2019). Uses the high-order bits of `hash`.
inline uint64_t FastRange64(uint64_t hash, uint64_t range) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(hash) * range) >>
                               64);
}

// The same for 32-bit values: the upper 32 bits of hash * range.
inline uint32_t FastRange32(uint32_t hash, uint32_t range) {
  return static_cast<uint32_t>((static_cast<uint64_t>(hash) * range) >> 32);
}

// A bijective 64-bit mixer, used to derive a second independent-looking
// value from one hash (the second Bloom line, a cuckoo seed). The
// constants are the finalizer of MurmurHash3 (Appleby), a well-studied
// avalanche step.
inline uint64_t Remix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

}  // namespace sstfilter
