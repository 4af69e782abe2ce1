// Internal, but installed: the AVX2 line test of BlockedBloom's probe
// (blocked_bloom_probe.h), for x86-64 only. The test carries its own target
// attribute, so a generic x86-64 build can instantiate the probe with it
// in a function marked [[gnu::target("avx2"), gnu::flatten]] that runs
// only after a run-time CPU check (sstfilter/simd.h). Include it from a
// .cc file: it brings <immintrin.h>.
#pragma once

#if defined(__x86_64__)

#include <immintrin.h>

#include <cstdint>

#include "sstfilter/detail/blocked_bloom_probe.h"

namespace sstfilter::detail {

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

}  // namespace sstfilter::detail

#endif  // defined(__x86_64__)
