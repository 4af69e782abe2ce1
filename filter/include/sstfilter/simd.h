// sstfilter/simd.h: the SIMD paths a filter can be probed on.
//
// The default build is generic x86-64; AVX2 code is compiled separately and
// used only when the CPU has it. The path is chosen once, when a view or a
// reader is made (BlockedBloomView::OnSimdPath, the RocksDB plugin's
// readers), never per probe: nothing on a probe's path reads a global
// setting. Every path sets and tests exactly the same bits, so the bytes a
// filter serializes to never depend on it.
#pragma once

namespace sstfilter {

enum class SimdPath {
  kScalar,
  kAvx2,
};

// True if this CPU (and build) can run `path`.
bool SimdPathSupported(SimdPath path);

// The fastest path this CPU (and build) runs: the one views and readers
// are made for unless asked for another.
SimdPath BestSimdPath();

const char* SimdPathName(SimdPath path);

}  // namespace sstfilter
