// Counts the heap bytes the process holds, so the benchmarks and the memory
// tests can report a builder's peak extra memory. Linking alloc_meter.cc
// replaces the global operator new / delete (all forms); allocations made
// inside shared libraries (librocksdb's builders) go through them too.
// Bytes are malloc_usable_size, i.e. what the allocator really hands out.
#pragma once

#include <cstddef>

namespace sstfilter::alloc_meter {

// Bytes currently held through operator new.
size_t HeapBytesInUse();

// Starts a new peak: from now on HeapPeakBytes() is the highest
// HeapBytesInUse() seen since this call.
void ResetHeapPeak();
size_t HeapPeakBytes();

}  // namespace sstfilter::alloc_meter
