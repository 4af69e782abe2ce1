#include "alloc_meter.h"

#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <new>

namespace sstfilter::alloc_meter {
namespace {

std::atomic<size_t> g_in_use{0};
std::atomic<size_t> g_peak{0};

void* Counted(void* p) {
  if (p != nullptr) {
    const size_t now =
        g_in_use.fetch_add(malloc_usable_size(p), std::memory_order_relaxed) +
        malloc_usable_size(p);
    size_t peak = g_peak.load(std::memory_order_relaxed);
    while (now > peak && !g_peak.compare_exchange_weak(
                             peak, now, std::memory_order_relaxed)) {
    }
  }
  return p;
}

void Release(void* p) {
  if (p == nullptr) return;
  g_in_use.fetch_sub(malloc_usable_size(p), std::memory_order_relaxed);
  std::free(p);
}

void* Allocate(size_t size) {
  void* p = Counted(std::malloc(size == 0 ? 1 : size));
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void* AllocateAligned(size_t size, std::align_val_t align) {
  const size_t alignment = static_cast<size_t>(align);
  // aligned_alloc wants a multiple of the alignment.
  const size_t rounded = (size + alignment - 1) / alignment * alignment;
  void* p = Counted(
      std::aligned_alloc(alignment, rounded == 0 ? alignment : rounded));
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

}  // namespace

size_t HeapBytesInUse() { return g_in_use.load(std::memory_order_relaxed); }

void ResetHeapPeak() {
  g_peak.store(g_in_use.load(std::memory_order_relaxed),
               std::memory_order_relaxed);
}

size_t HeapPeakBytes() { return g_peak.load(std::memory_order_relaxed); }

}  // namespace sstfilter::alloc_meter

using sstfilter::alloc_meter::Allocate;
using sstfilter::alloc_meter::AllocateAligned;
using sstfilter::alloc_meter::Release;

void* operator new(size_t size) { return Allocate(size); }
void* operator new[](size_t size) { return Allocate(size); }
void* operator new(size_t size, const std::nothrow_t&) noexcept {
  return sstfilter::alloc_meter::Counted(std::malloc(size == 0 ? 1 : size));
}
void* operator new[](size_t size, const std::nothrow_t&) noexcept {
  return sstfilter::alloc_meter::Counted(std::malloc(size == 0 ? 1 : size));
}
void* operator new(size_t size, std::align_val_t align) {
  return AllocateAligned(size, align);
}
void* operator new[](size_t size, std::align_val_t align) {
  return AllocateAligned(size, align);
}
void operator delete(void* p) noexcept { Release(p); }
void operator delete[](void* p) noexcept { Release(p); }
void operator delete(void* p, size_t) noexcept { Release(p); }
void operator delete[](void* p, size_t) noexcept { Release(p); }
void operator delete(void* p, std::align_val_t) noexcept { Release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { Release(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { Release(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept {
  Release(p);
}
