// The AVX2 path of BlockedBloom's own views and writers, compiled with
// -mavx2 and only called after a run-time CPU check (simd.cc). The line
// ops are in sstfilter/detail/blocked_bloom_probe.h.
#include "sstfilter/detail/blocked_bloom_probe.h"

namespace sstfilter::detail {

bool MayContainAvx2(const BloomShape& s, uint64_t hash) {
  return MayContain<Avx2LineOps>(s, hash);
}

void MayContainBatchAvx2(const BloomShape& s, const uint64_t* hashes,
                         size_t count, bool* results) {
  MayContainBatch<Avx2LineOps>(s, hashes, count, results);
}

void AddBatchAvx2(uint8_t* lines, const BlockedBloomParams& p,
                  const uint64_t* hashes, size_t count) {
  AddBatch<Avx2LineOps>(lines, p, hashes, count);
}

}  // namespace sstfilter::detail
