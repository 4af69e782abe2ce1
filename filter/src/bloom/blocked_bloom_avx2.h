// Internal: the AVX2 entry points of BlockedBloom's own views
// (blocked_bloom_avx2.cc), called only when the CPU has AVX2 (simd.cc).
#pragma once

#include <cstddef>
#include <cstdint>

#include "sstfilter/detail/blocked_bloom_probe.h"

namespace sstfilter::detail {

bool MayContainAvx2(const BloomLines& s, uint64_t hash);
void MayContainBatchAvx2(const BloomLines& s, const uint64_t* hashes,
                         size_t count, bool* results);

}  // namespace sstfilter::detail
