// Internal, but installed: the BlockedBloom probe, written once over a
// "line ops" policy so that the scalar and AVX2 paths run the same code and
// differ only in how one line is tested (ScalarLineOps; on x86-64 also
// Avx2LineOps, at the end). Inline, so that a reader (the RocksDB plugin's)
// hashes and probes a key with no call. See blocked_bloom.h for the layout
// this implements. Include it from .cc files: on x86-64 it brings
// <immintrin.h>.
#pragma once

#if defined(__x86_64__)
#include <immintrin.h>
#endif

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

// Both cache lines a line may touch: a block need not start 64-byte
// aligned (RocksDB reads it into a buffer of its own), and then each of its
// lines spans two. RocksDB's FastLocalBloomImpl::PrepareHash
// (util/bloom_impl.h) prefetches both ends for the same reason.
inline void PrefetchLine(const uint8_t* line) {
  __builtin_prefetch(line);
  __builtin_prefetch(line + BlockedBloomParams::kLineBytes - 1);
}

// The probes take the layout from the BloomLines (kLinesPerKey = 0, as the
// views do), or are compiled for one (1 or 2), as the RocksDB plugin's
// readers, which choose it once per block, are: then a one-line probe has
// no branch for a second line, and the filter must have lines (a reader
// reads a filter of none apart).
template <typename LineOps, uint32_t kLinesPerKey = 0>
inline bool MayContain(const BloomLines& s, uint64_t hash) {
  if (kLinesPerKey == 0 && s.num_lines == 0) return false;
  const KeyLine first = FirstLineOf(hash, s.num_lines);
  if (!LineOps::Test(LinePtr(s.lines, first.line), first.g, s.probes_first)) {
    return false;
  }
  if (kLinesPerKey == 1 || (kLinesPerKey == 0 && s.probes_second == 0)) {
    return true;
  }
  // Most absent keys stop at the first line, so the second is derived only
  // when needed (bench/README.md, "Two lines in cache").
  const KeyLine second = SecondLineOf(hash, s.num_lines);
  return LineOps::Test(LinePtr(s.lines, second.line), second.g,
                       s.probes_second);
}

// In groups: hash each key, find its first line and prefetch it, before
// any is tested (as RocksDB's FastLocalBloomBitsReader batch does:
// FastLocalBloomImpl::PrepareHash, then HashMayMatchPrepared), so that a
// group's misses overlap; test them all; then, with two lines, prefetch
// the second lines of the keys that passed, and test those. Absent keys
// mostly cost one parallel round of misses, present keys two. hash_at(i)
// gives key i's hash; it is called as its line is prefetched, so a reader
// that hashes keys there starts the first loads while later keys are still
// being hashed.
template <typename LineOps, uint32_t kLinesPerKey = 0, typename HashAt>
inline void MayContainBatchOf(const BloomLines& s, size_t count,
                              HashAt&& hash_at, bool* results) {
  if (kLinesPerKey == 0 && s.num_lines == 0) {
    for (size_t i = 0; i < count; ++i) results[i] = false;
    return;
  }
  const bool one_line =
      kLinesPerKey == 1 || (kLinesPerKey == 0 && s.probes_second == 0);
  constexpr size_t kGroup = 32;
  uint64_t hash[kGroup];
  const uint8_t* line[kGroup];
  uint32_t g[kGroup];
  size_t passed[kGroup];
  for (size_t start = 0; start < count; start += kGroup) {
    const size_t n = count - start < kGroup ? count - start : kGroup;
    for (size_t i = 0; i < n; ++i) {
      hash[i] = hash_at(start + i);
      const KeyLine first = FirstLineOf(hash[i], s.num_lines);
      line[i] = LinePtr(s.lines, first.line);
      g[i] = first.g;
      PrefetchLine(line[i]);
    }
    if (one_line) {
      for (size_t i = 0; i < n; ++i) {
        results[start + i] = LineOps::Test(line[i], g[i], s.probes_first);
      }
      continue;
    }
    size_t num_passed = 0;
    for (size_t i = 0; i < n; ++i) {
      const bool hit = LineOps::Test(line[i], g[i], s.probes_first);
      results[start + i] = hit;
      if (hit) passed[num_passed++] = i;
    }
    for (size_t j = 0; j < num_passed; ++j) {
      const KeyLine second = SecondLineOf(hash[passed[j]], s.num_lines);
      line[j] = LinePtr(s.lines, second.line);
      g[j] = second.g;
      PrefetchLine(line[j]);
    }
    for (size_t j = 0; j < num_passed; ++j) {
      results[start + passed[j]] =
          LineOps::Test(line[j], g[j], s.probes_second);
    }
  }
}

template <typename LineOps>
inline void MayContainBatch(const BloomLines& s, const uint64_t* hashes,
                            size_t count, bool* results) {
  MayContainBatchOf<LineOps>(
      s, count, [hashes](size_t i) { return hashes[i]; }, results);
}

#if defined(__x86_64__)
// ---------------------------------------------------------------- AVX2
// The AVX2 line test. It carries its own target attribute, so a generic
// x86-64 build can instantiate the probe with it in a function marked
// [[gnu::target("avx2"), gnu::flatten]] that runs only after a run-time
// CPU check (sstfilter/simd.h).

// Tests up to 8 probes of a line in one vector, as RocksDB's
// FastLocalBloomImpl does (util/bloom_impl.h); answers exactly as
// ScalarLineOps does.
struct Avx2LineOps {
  // Whether probes first..min(first + 8, probes) - 1 of line hash `g` find
  // their bits set in the line whose halves are `lo` and `hi`. Probe i's
  // bit is the top 9 bits of the 32-bit product p = g * M_i: the top 4 pick
  // the line's 32-bit word (bit 31 of p picks its upper or lower half), the
  // next 5 the bit in that word. Taken straight from p, with the lane mask
  // built by a shift, as RocksDB's FastLocalBloomImpl does
  // (util/bloom_impl.h), the test is a short chain of vector ops.
  [[gnu::target("avx2")]] static bool TestEight(__m256i lo, __m256i hi,
                                                uint32_t g, uint32_t first,
                                                uint32_t probes) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i product = _mm256_mullo_epi32(
        _mm256_set1_epi32(static_cast<int>(g)),
        _mm256_loadu_si256(
            reinterpret_cast<const __m256i*>(&kProbeMultiplier.value[first])));
    const __m256i word = _mm256_srli_epi32(product, 28);
    const __m256i words = _mm256_castps_si256(_mm256_blendv_ps(
        _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(lo, word)),
        _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(hi, word)),
        _mm256_castsi256_ps(product)));
    const __m256i bit = _mm256_srli_epi32(_mm256_slli_epi32(product, 4), 27);
    // 1 in the lanes of probes first..probes-1, 0 in the others.
    const __m256i active = _mm256_srli_epi32(
        _mm256_sub_epi32(lane,
                         _mm256_set1_epi32(static_cast<int>(probes - first))),
        31);
    // testc: (~words & mask) == 0, i.e. every wanted bit is set.
    return _mm256_testc_si256(words, _mm256_sllv_epi32(active, bit));
  }

  [[gnu::target("avx2")]] static bool Test(const uint8_t* line, uint32_t g,
                                           uint32_t probes) {
    const __m256i lo =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(line));
    const __m256i hi =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(line + 32));
    for (uint32_t first = 0; first < probes; first += 8) {
      if (!TestEight(lo, hi, g, first, probes)) return false;
    }
    return true;
  }
};

// Avx2LineOps for lines of at most 8 probes: one round and no loop. A
// reader of such a filter (10 bits/key and below) picks it once.
struct Avx2LineOpsUpTo8Probes {
  static constexpr uint32_t kMaxProbes = 8;
  [[gnu::target("avx2")]] static bool Test(const uint8_t* line, uint32_t g,
                                           uint32_t probes) {
    return Avx2LineOps::TestEight(
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(line)),
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(line + 32)), g, 0,
        probes);
  }
};

#endif  // defined(__x86_64__)

}  // namespace sstfilter::detail
