// libFuzzer target: the range filter's decoder (sstfilter/range_filter.h).
// The input is read twice: as filter bytes, which must parse or be refused
// and, parsed, answer any range without crashing or reading out of bounds
// (run under ASan/UBSan); and as up to 512 integers, whose filter must
// answer "may overlap" for every range holding one of them, and still
// answer, without crashing, after input bytes overwrite parts of it.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "sstfilter/range_filter.h"

namespace {

uint64_t Load64(const uint8_t* p) {
  uint64_t v = 0;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

void QueryAll(std::string_view bytes, const uint8_t* data, size_t size) {
  sstfilter::RangeFilterView view;
  const bool parsed = sstfilter::RangeFilterView::Parse(bytes, &view).ok();
  for (size_t at = 0; at + 16 <= size && at < 16 * 64; at += 16) {
    const uint64_t lo = Load64(data + at),
                   hi = lo + (Load64(data + at + 8) & 0xfff);
    if (parsed) {
      view.MayOverlapInts(lo, hi);
      const double bound = view.FprBound(hi - lo + 1);
      if (!(bound >= 0.0 && bound <= 1.0)) __builtin_trap();
    }
    const std::string_view key(reinterpret_cast<const char*>(data + at), 16);
    if (!sstfilter::RangeMayOverlap(bytes, key.substr(0, 8), true, key,
                                    false) &&
        !parsed) {
      __builtin_trap();  // bytes that do not parse answer "may overlap"
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  QueryAll(std::string_view(reinterpret_cast<const char*>(data), size), data,
           size);

  if (size < 2) return 0;
  const double bits_per_key = 4 + data[0] % 40;
  const sstfilter::RangeKeyRule rule{0, 1 + data[1] % 8u};
  sstfilter::RangeFilterBuilder builder(bits_per_key, rule);
  std::vector<uint64_t> ints;
  for (size_t at = 2; at + 8 <= size && ints.size() < 512; at += 8) {
    // Only the rule's low bytes count: w-byte integers, as keys give them.
    const uint64_t v = Load64(data + at) >> (64 - 8 * rule.int_bytes);
    ints.push_back(v);
    builder.AddInt(v);
  }
  std::string bytes;
  if (!builder.Finish(&bytes).ok()) __builtin_trap();
  sstfilter::RangeFilterView view;
  if (!sstfilter::RangeFilterView::Parse(bytes, &view).ok()) __builtin_trap();
  for (uint64_t v : ints) {
    if (!view.MayOverlapInts(v, v)) __builtin_trap();
    if (!view.MayOverlapInts(v > 5 ? v - 5 : 0, v + 3 > v ? v + 3 : v)) {
      __builtin_trap();
    }
  }
  // Overwrite payload bytes with input bytes: answers, never a crash.
  if (bytes.size() > sstfilter::RangeFilterView::kHeaderBytes) {
    const size_t payload =
        bytes.size() - sstfilter::RangeFilterView::kHeaderBytes;
    for (size_t i = 0; i + 2 < size && i < 64; i += 3) {
      const size_t at = sstfilter::RangeFilterView::kHeaderBytes +
                        ((size_t{data[i]} << 8 | data[i + 1]) % payload);
      bytes[at] = static_cast<char>(data[i + 2]);
    }
    QueryAll(bytes, data, size);
  }
  return 0;
}
