// The AVX2 path of BlockedBloom's own views. Only these functions are
// compiled for AVX2 (their target attribute, with every call inlined into
// them), so no inline helper of this file is kept in an AVX2 copy; they run
// only after the run-time CPU check in simd.cc. The line test is
// sstfilter/detail/blocked_bloom_probe.h.
#include "bloom/blocked_bloom_avx2.h"

#if defined(__x86_64__)

#include "sstfilter/detail/blocked_bloom_probe.h"

namespace sstfilter::detail {

[[gnu::target("avx2"), gnu::flatten]] bool MayContainAvx2(const BloomLines& s,
                                                          uint64_t hash) {
  return MayContain<Avx2LineOps>(s, hash);
}

[[gnu::target("avx2"), gnu::flatten]] void MayContainBatchAvx2(
    const BloomLines& s, const uint64_t* hashes, size_t count, bool* results) {
  MayContainBatch<Avx2LineOps>(s, hashes, count, results);
}

}  // namespace sstfilter::detail

#endif  // defined(__x86_64__)
