// Internal: the run-time switch between scalar and AVX2 code.
#pragma once

#include <atomic>

namespace sstfilter::detail {

extern std::atomic<bool> g_use_avx2;

inline bool UseAvx2() { return g_use_avx2.load(std::memory_order_relaxed); }

}  // namespace sstfilter::detail
