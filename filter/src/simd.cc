#include "sstfilter/simd.h"

#include <atomic>

#include "simd_internal.h"

namespace sstfilter {

bool SimdPathSupported(SimdPath path) {
  switch (path) {
    case SimdPath::kScalar:
      return true;
    case SimdPath::kAvx2:
#if defined(__x86_64__)
      __builtin_cpu_init();  // may run during static initialization
      return __builtin_cpu_supports("avx2");
#else
      return false;
#endif
  }
  return false;
}

namespace detail {
std::atomic<bool> g_use_avx2{SimdPathSupported(SimdPath::kAvx2)};
}  // namespace detail

SimdPath ActiveSimdPath() {
  return detail::UseAvx2() ? SimdPath::kAvx2 : SimdPath::kScalar;
}

bool SetSimdPath(SimdPath path) {
  if (!SimdPathSupported(path)) return false;
  detail::g_use_avx2.store(path == SimdPath::kAvx2, std::memory_order_relaxed);
  return true;
}

const char* SimdPathName(SimdPath path) {
  return path == SimdPath::kAvx2 ? "avx2" : "scalar";
}

}  // namespace sstfilter
