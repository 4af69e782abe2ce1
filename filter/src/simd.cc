#include "sstfilter/simd.h"

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

SimdPath BestSimdPath() {
  static const SimdPath best =
      SimdPathSupported(SimdPath::kAvx2) ? SimdPath::kAvx2 : SimdPath::kScalar;
  return best;
}

const char* SimdPathName(SimdPath path) {
  return path == SimdPath::kAvx2 ? "avx2" : "scalar";
}

}  // namespace sstfilter
