// Internal, but installed: the BlockedBloom probe, written once over a
// "line ops" policy so that the scalar and AVX2 paths run the same code and
// differ only in how one line is tested (the AVX2 one is avx2_line_ops.h).
// Inline, so that a reader (the RocksDB plugin's) hashes and probes a key
// with no call. See blocked_bloom.h for the layout this implements.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sstfilter/blocked_bloom.h"
#include "sstfilter/hash.h"

namespace sstfilter::detail {

// kProbeMultiplier[i] = 0x9e3779b9^(i+1) mod 2^32: successive powers of the
// 32-bit golden ratio, the same multiplicative re-hash RocksDB's
// FastLocalBloomImpl (util/bloom_impl.h) uses to spread probes in a line.
struct ProbeMultipliers {
  uint32_t value[BlockedBloomParams::kMaxProbes];
  constexpr ProbeMultipliers() : value() {
    uint32_t m = 1;
    for (auto& v : value) {
      m *= 0x9e3779b9u;
      v = m;
    }
  }
};
inline constexpr ProbeMultipliers kProbeMultiplier{};

// Bit index (0..511) of probe `i` for line hash `g`.
inline uint32_t ProbeBit(uint32_t g, uint32_t i) {
  return (g * kProbeMultiplier.value[i]) >> 23;
}

// Line `which` (0 or 1) of a key, and the 32-bit value its probes come from.
struct KeyLine {
  uint64_t line;
  uint32_t g;
};

inline KeyLine FirstLineOf(uint64_t hash, uint64_t num_lines) {
  return {FastRange64(hash, num_lines), static_cast<uint32_t>(hash)};
}

inline KeyLine SecondLineOf(uint64_t hash, uint64_t num_lines) {
  const uint64_t second = Remix64(hash);
  return {FastRange64(second, num_lines), static_cast<uint32_t>(second)};
}

inline const uint8_t* LinePtr(const uint8_t* lines, uint64_t line) {
  return lines + line * BlockedBloomParams::kLineBytes;
}

// The reference line test, byte by byte. (Bits are set only this way,
// SetProbeBits in blocked_bloom.cc: vectors measured slower there.)
struct ScalarLineOps {
  static bool Test(const uint8_t* line, uint32_t g, uint32_t probes) {
    for (uint32_t i = 0; i < probes; ++i) {
      const uint32_t bit = ProbeBit(g, i);
      if ((line[bit >> 3] & (1u << (bit & 7))) == 0) return false;
    }
    return true;
  }
};

template <typename LineOps>
inline bool MayContain(const BloomLines& s, uint64_t hash) {
  if (s.num_lines == 0) return false;
  const KeyLine first = FirstLineOf(hash, s.num_lines);
  if (!LineOps::Test(LinePtr(s.lines, first.line), first.g, s.probes_first)) {
    return false;
  }
  if (s.probes_second == 0) return true;
  // Most absent keys stop at the first line, so the second is derived only
  // when needed (bench/README.md, "Two lines in cache").
  const KeyLine second = SecondLineOf(hash, s.num_lines);
  return LineOps::Test(LinePtr(s.lines, second.line), second.g,
                       s.probes_second);
}

// In groups: hash each key and prefetch its first line, test them all;
// then prefetch the second lines of the keys that passed, and test those.
// Absent keys mostly cost one parallel round of misses, present keys two.
// hash_at(i) gives key i's hash; it is called as its line is prefetched, so
// a reader that hashes keys there starts the first loads while later keys
// are still being hashed.
template <typename LineOps, typename HashAt>
inline void MayContainBatchOf(const BloomLines& s, size_t count,
                              HashAt&& hash_at, bool* results) {
  if (s.num_lines == 0) {
    for (size_t i = 0; i < count; ++i) results[i] = false;
    return;
  }
  constexpr size_t kGroup = 32;
  uint64_t hash[kGroup];
  KeyLine line[kGroup];
  size_t passed[kGroup];
  for (size_t start = 0; start < count; start += kGroup) {
    const size_t n = count - start < kGroup ? count - start : kGroup;
    for (size_t i = 0; i < n; ++i) {
      hash[i] = hash_at(start + i);
      line[i] = FirstLineOf(hash[i], s.num_lines);
      __builtin_prefetch(LinePtr(s.lines, line[i].line));
    }
    size_t num_passed = 0;
    for (size_t i = 0; i < n; ++i) {
      const bool hit = LineOps::Test(LinePtr(s.lines, line[i].line), line[i].g,
                                     s.probes_first);
      results[start + i] = hit;
      if (hit && s.probes_second != 0) passed[num_passed++] = i;
    }
    for (size_t j = 0; j < num_passed; ++j) {
      line[j] = SecondLineOf(hash[passed[j]], s.num_lines);
      __builtin_prefetch(LinePtr(s.lines, line[j].line));
    }
    for (size_t j = 0; j < num_passed; ++j) {
      results[start + passed[j]] = LineOps::Test(LinePtr(s.lines, line[j].line),
                                                 line[j].g, s.probes_second);
    }
  }
}

template <typename LineOps>
inline void MayContainBatch(const BloomLines& s, const uint64_t* hashes,
                            size_t count, bool* results) {
  MayContainBatchOf<LineOps>(
      s, count, [hashes](size_t i) { return hashes[i]; }, results);
}

}  // namespace sstfilter::detail
