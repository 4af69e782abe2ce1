// The builders' memory: at most about 8 bytes per key beyond the filter
// itself (the key hashes), whatever the filter kind. Measured by counting
// every heap allocation of this test binary.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>

#include "rocksdb_test_support.h"

namespace {

// Live and peak heap bytes through operator new/delete. Each block carries
// its size in a 16-byte header (keeping 16-byte alignment).
std::atomic<size_t> g_live{0};
std::atomic<size_t> g_peak{0};
constexpr size_t kHeader = 16;

void* CountedAlloc(size_t size) {
  void* block = std::malloc(size + kHeader);
  if (block == nullptr) throw std::bad_alloc();
  *static_cast<size_t*>(block) = size;
  const size_t live = g_live.fetch_add(size) + size;
  size_t peak = g_peak.load();
  while (live > peak && !g_peak.compare_exchange_weak(peak, live)) {
  }
  return static_cast<char*>(block) + kHeader;
}

void CountedFree(void* p) {
  if (p == nullptr) return;
  void* block = static_cast<char*>(p) - kHeader;
  g_live.fetch_sub(*static_cast<size_t*>(block));
  std::free(block);
}

}  // namespace

void* operator new(size_t size) { return CountedAlloc(size); }
void* operator new[](size_t size) { return CountedAlloc(size); }
void* operator new(size_t size, const std::nothrow_t&) noexcept {
  try {
    return CountedAlloc(size);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](size_t size, const std::nothrow_t& tag) noexcept {
  return operator new(size, tag);
}
void operator delete(void* p) noexcept { CountedFree(p); }
void operator delete[](void* p) noexcept { CountedFree(p); }
void operator delete(void* p, size_t) noexcept { CountedFree(p); }
void operator delete[](void* p, size_t) noexcept { CountedFree(p); }

namespace sstfilter::rocksdb_testing {
namespace {

class BuilderMemoryTest : public ::testing::TestWithParam<const char*> {};

TEST_P(BuilderMemoryTest, PeakIsAboutEightBytesPerKeyBeyondTheFilter) {
  std::shared_ptr<const rdb::FilterPolicy> policy;
  ASSERT_TRUE(MakePolicy(GetParam(), &policy).ok());
  rdb::BlockBasedTableOptions table_options;
  std::unique_ptr<rdb::FilterBitsBuilder> builder(
      policy->GetBuilderWithContext(rdb::FilterBuildingContext(table_options)));
  constexpr size_t kKeys = 1'000'000;
  // Keys are made one at a time, so only the builder's own memory grows.
  const size_t baseline = g_live.load();
  g_peak.store(baseline);
  std::string key;
  for (size_t i = 0; i < kKeys; ++i) {
    key = "key" + std::to_string(i);
    builder->AddKey(key);
  }
  std::unique_ptr<const char[]> buf;
  const rdb::Slice filter = builder->Finish(&buf);
  const double beyond_filter =
      static_cast<double>(g_peak.load() - baseline - filter.size()) / kKeys;
  RecordProperty("peak_bytes_per_key_beyond_filter",
                 std::to_string(beyond_filter));
  // 8 bytes per hash, plus one 32 KiB chunk and small fixed overheads.
  EXPECT_LE(beyond_filter, 8.0 + 0.1) << GetParam();
  EXPECT_GE(beyond_filter, 7.9) << "the hashes must be counted";
}

INSTANTIATE_TEST_SUITE_P(Policies, BuilderMemoryTest,
                         ::testing::Values("sstfilter.BlockedBloom:10",
                                           "sstfilter.Cuckoo:12"));

}  // namespace
}  // namespace sstfilter::rocksdb_testing
