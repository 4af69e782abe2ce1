// Key sets shared by the filter tests: the patterns the "never a false
// negative" property must hold for.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "sstfilter/hash.h"

namespace sstfilter::test_support {

// Hashes of "<prefix><i>" for i in [first, first + count).
inline std::vector<uint64_t> NumberedKeyHashes(const std::string& prefix,
                                               uint64_t count, uint64_t first) {
  std::vector<uint64_t> hashes;
  hashes.reserve(count);
  std::string key;
  for (uint64_t i = first; i < first + count; ++i) {
    key = prefix + std::to_string(i);
    hashes.push_back(HashKey(key));
  }
  return hashes;
}

// The hash of `v` as an 8-byte big-endian key (how integer keys sort).
inline uint64_t BigEndianKeyHash(uint64_t v) {
  char key[8];
  for (int b = 7; b >= 0; --b, v >>= 8) key[b] = static_cast<char>(v & 0xff);
  return HashKey(std::string_view(key, sizeof(key)));
}

// Hashes of "key<i>" for i in [first, first + count): sequential keys.
inline std::vector<uint64_t> SequentialKeyHashes(uint64_t count,
                                                 uint64_t first = 0) {
  return NumberedKeyHashes("key", count, first);
}

// Hashes of 8-byte big-endian integers first, first + 1, ...
inline std::vector<uint64_t> SequentialBigEndianKeyHashes(uint64_t count,
                                                          uint64_t first = 0) {
  std::vector<uint64_t> hashes;
  hashes.reserve(count);
  for (uint64_t i = first; i < first + count; ++i) {
    hashes.push_back(BigEndianKeyHash(i));
  }
  return hashes;
}

// Hashes of 8-byte big-endian integers drawn from a seeded generator.
inline std::vector<uint64_t> RandomKeyHashes(uint64_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> hashes;
  hashes.reserve(count);
  for (uint64_t i = 0; i < count; ++i)
    hashes.push_back(BigEndianKeyHash(rng()));
  return hashes;
}

// Hashes of keys that were never added ("absent<i>"): disjoint from all the
// sets above.
inline std::vector<uint64_t> AbsentKeyHashes(uint64_t count,
                                             uint64_t first = 0) {
  return NumberedKeyHashes("absent", count, first);
}

// Largest deviation of a measured FPR from an expected one that we accept:
// `sigmas` binomial standard deviations over `queries`, plus a relative
// slack for the model's approximations.
inline double FprTolerance(double expected, uint64_t queries,
                           double relative_slack, double sigmas = 4.0) {
  const double sd = std::sqrt(expected * (1 - expected) / queries);
  return sigmas * sd + relative_slack * expected;
}

}  // namespace sstfilter::test_support
