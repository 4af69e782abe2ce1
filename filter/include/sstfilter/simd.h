// sstfilter/simd.h: which SIMD path the filters run.
//
// The default build is generic x86-64; AVX2 code is compiled separately and
// chosen at run time when the CPU has it. Every path sets and tests exactly
// the same bits, so the bytes a filter serializes to never depend on it.
#pragma once

namespace sstfilter {

enum class SimdPath {
  kScalar,
  kAvx2,
};

// True if this CPU (and build) can run `path`.
bool SimdPathSupported(SimdPath path);

// The path in use: the best supported one unless SetSimdPath chose another.
SimdPath ActiveSimdPath();

// Selects `path` for all filters in this process (for tests and benchmarks
// that compare paths). Returns false and changes nothing if unsupported.
// Not meant to be called while other threads query filters.
bool SetSimdPath(SimdPath path);

const char* SimdPathName(SimdPath path);

}  // namespace sstfilter
