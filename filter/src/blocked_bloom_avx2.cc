// The AVX2 path of BlockedBloom, compiled with -mavx2 and only called after
// a run-time CPU check (simd.cc). It tests up to 8 probes of a line in one
// vector, as RocksDB's FastLocalBloomImpl does (util/bloom_impl.h), and must
// answer exactly as ScalarLineOps does.
#include <immintrin.h>

#include "detail/blocked_bloom_impl.h"

namespace sstfilter::detail {
namespace {

// Bit positions (0..511) of probes [first, first + 8) of line hash g.
inline __m256i ProbeBits8(uint32_t g, uint32_t first) {
  const __m256i mult = _mm256_loadu_si256(
      reinterpret_cast<const __m256i*>(&kProbeMultiplier.value[first]));
  return _mm256_srli_epi32(_mm256_mullo_epi32(_mm256_set1_epi32(g), mult), 23);
}

// All-ones in the first `n` 32-bit lanes (n <= 8).
inline __m256i FirstLanes(uint32_t n) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), lane);
}

struct Avx2LineOps {
  static bool Test(const uint8_t* line, uint32_t g, uint32_t probes) {
    const __m256i lo =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(line));
    const __m256i hi =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(line + 32));
    for (uint32_t first = 0; first < probes; first += 8) {
      const __m256i bits = ProbeBits8(g, first);
      // 32-bit word index 0..15: the low 3 bits pick a lane of lo or hi,
      // bit 3 (moved to the sign bit) picks lo or hi.
      const __m256i word = _mm256_srli_epi32(bits, 5);
      const __m256i from_lo = _mm256_permutevar8x32_epi32(lo, word);
      const __m256i from_hi = _mm256_permutevar8x32_epi32(hi, word);
      const __m256i words = _mm256_castps_si256(_mm256_blendv_ps(
          _mm256_castsi256_ps(from_lo), _mm256_castsi256_ps(from_hi),
          _mm256_castsi256_ps(_mm256_slli_epi32(word, 28))));
      const __m256i mask = _mm256_and_si256(
          _mm256_sllv_epi32(_mm256_set1_epi32(1),
                            _mm256_and_si256(bits, _mm256_set1_epi32(31))),
          FirstLanes(probes - first));
      // testc: (~words & mask) == 0, i.e. every wanted bit is set.
      if (!_mm256_testc_si256(words, mask)) return false;
    }
    return true;
  }

  // Setting bits gains nothing from vectors (measured slower than the
  // scalar loop), so the build shares the reference code.
  static void Set(uint8_t* line, uint32_t g, uint32_t probes) {
    ScalarLineOps::Set(line, g, probes);
  }
};

}  // namespace

bool MayContainAvx2(const uint8_t* lines, const BlockedBloomParams& p,
                    uint64_t hash) {
  return MayContain<Avx2LineOps>(lines, p, hash);
}

void MayContainBatchAvx2(const uint8_t* lines, const BlockedBloomParams& p,
                         const uint64_t* hashes, size_t count, bool* results) {
  MayContainBatch<Avx2LineOps>(lines, p, hashes, count, results);
}

void AddBatchAvx2(uint8_t* lines, const BlockedBloomParams& p,
                  const uint64_t* hashes, size_t count) {
  AddBatch<Avx2LineOps>(lines, p, hashes, count);
}

}  // namespace sstfilter::detail
