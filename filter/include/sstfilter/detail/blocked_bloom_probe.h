// Internal, but installed: the BlockedBloom probe, written once over a
// "line ops" policy so that the scalar and AVX2 paths run the same code and
// differ only in how one line is probed. Inline, so that a reader (the
// RocksDB plugin's) hashes and probes a key with no call; the AVX2 ops carry
// their own target attribute, so a generic x86-64 build can instantiate
// them in a function marked SSTFILTER_AVX2_FLATTEN, called only after a
// run-time CPU check. See blocked_bloom.h for the layout this implements.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sstfilter/blocked_bloom.h"
#include "sstfilter/hash.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define SSTFILTER_HAVE_AVX2_OPS 1
#define SSTFILTER_AVX2_TARGET __attribute__((target("avx2")))
// For a function that instantiates the AVX2 ops: compiled for AVX2 with
// every call inlined into it, the ops' intrinsics included.
#define SSTFILTER_AVX2_FLATTEN __attribute__((target("avx2"), flatten))
#endif

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

// What a probe needs of a parsed filter, flattened so that a reader holds
// it by value: where the lines are, how many, and the probes per line
// (probes_second = 0 for one line per key).
struct BloomShape {
  const uint8_t* lines = nullptr;
  uint64_t num_lines = 0;
  uint32_t probes_first = 0;
  uint32_t probes_second = 0;

  static BloomShape Of(const uint8_t* lines, const BlockedBloomParams& p) {
    return {lines, p.num_lines, p.ProbesInLine(0), p.ProbesInLine(1)};
  }
};

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

// Reference line operations, byte by byte.
struct ScalarLineOps {
  static bool Test(const uint8_t* line, uint32_t g, uint32_t probes) {
    for (uint32_t i = 0; i < probes; ++i) {
      const uint32_t bit = ProbeBit(g, i);
      if ((line[bit >> 3] & (1u << (bit & 7))) == 0) return false;
    }
    return true;
  }
  static void Set(uint8_t* line, uint32_t g, uint32_t probes) {
    for (uint32_t i = 0; i < probes; ++i) {
      const uint32_t bit = ProbeBit(g, i);
      line[bit >> 3] |= static_cast<uint8_t>(1u << (bit & 7));
    }
  }
};

#if defined(SSTFILTER_HAVE_AVX2_OPS)
// Tests up to 8 probes of a line in one vector, as RocksDB's
// FastLocalBloomImpl does (util/bloom_impl.h); answers exactly as
// ScalarLineOps does.
struct Avx2LineOps {
  // Probe i's bit is the top 9 bits of the 32-bit product p = g * M_i:
  // the top 4 pick the line's 32-bit word (bit 31 of p picks its upper or
  // lower half), the next 5 the bit in that word. Taken straight from p,
  // with the lane mask built by a shift, as RocksDB's FastLocalBloomImpl
  // does (util/bloom_impl.h), the test is a short chain of vector ops.
  SSTFILTER_AVX2_TARGET static bool Test(const uint8_t* line, uint32_t g,
                                         uint32_t probes) {
    const __m256i lo =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(line));
    const __m256i hi =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(line + 32));
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (uint32_t first = 0; first < probes; first += 8) {
      const __m256i product = _mm256_mullo_epi32(
          _mm256_set1_epi32(static_cast<int>(g)),
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(
              &kProbeMultiplier.value[first])));
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
      if (!_mm256_testc_si256(words, _mm256_sllv_epi32(active, bit))) {
        return false;
      }
    }
    return true;
  }

  // Setting bits gains nothing from vectors (measured slower than the
  // scalar loop), so the build shares the reference code.
  static void Set(uint8_t* line, uint32_t g, uint32_t probes) {
    ScalarLineOps::Set(line, g, probes);
  }
};
#endif

template <typename LineOps>
inline bool MayContain(const BloomShape& s, uint64_t hash) {
  if (s.num_lines == 0) return false;
  const KeyLine first = FirstLineOf(hash, s.num_lines);
  if (!LineOps::Test(LinePtr(s.lines, first.line), first.g, s.probes_first)) {
    return false;
  }
  if (s.probes_second == 0) return true;
  // Most absent keys stop at the first line, so the second is derived only
  // when needed (measured: 1.58x -> 1.43x FastLocalBloom-AVX2's time in
  // cache; an eager prefetch of it gained nothing out of cache).
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
inline void MayContainBatchOf(const BloomShape& s, size_t count,
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
inline void MayContainBatch(const BloomShape& s, const uint64_t* hashes,
                            size_t count, bool* results) {
  MayContainBatchOf<LineOps>(
      s, count, [hashes](size_t i) { return hashes[i]; }, results);
}

template <typename LineOps>
inline void AddBatch(uint8_t* lines, const BlockedBloomParams& p,
                     const uint64_t* hashes, size_t count) {
  if (p.num_lines == 0) return;
  const uint32_t probes[2] = {p.ProbesInLine(0), p.ProbesInLine(1)};
  // Prefetch a fixed distance ahead; building a large filter is bound by
  // random cache-line misses, not by arithmetic.
  constexpr size_t kAhead = 8;
  for (size_t i = 0; i < count; ++i) {
    if (i + kAhead < count) {
      const uint64_t ahead = hashes[i + kAhead];
      __builtin_prefetch(LinePtr(lines, FirstLineOf(ahead, p.num_lines).line),
                         1);
      if (p.lines_per_key == 2) {
        __builtin_prefetch(
            LinePtr(lines, SecondLineOf(ahead, p.num_lines).line), 1);
      }
    }
    const KeyLine first = FirstLineOf(hashes[i], p.num_lines);
    LineOps::Set(lines + first.line * BlockedBloomParams::kLineBytes, first.g,
                 probes[0]);
    if (p.lines_per_key == 2) {
      const KeyLine second = SecondLineOf(hashes[i], p.num_lines);
      LineOps::Set(lines + second.line * BlockedBloomParams::kLineBytes,
                   second.g, probes[1]);
    }
  }
}

// Entry points of the AVX2 translation unit (blocked_bloom_avx2.cc), for
// the library's own views and writers.
bool MayContainAvx2(const BloomShape& s, uint64_t hash);
void MayContainBatchAvx2(const BloomShape& s, const uint64_t* hashes,
                         size_t count, bool* results);
void AddBatchAvx2(uint8_t* lines, const BlockedBloomParams& p,
                  const uint64_t* hashes, size_t count);

}  // namespace sstfilter::detail
