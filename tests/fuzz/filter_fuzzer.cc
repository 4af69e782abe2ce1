// libFuzzer target: arbitrary bytes parsed as every sstfilter format, and
// queried when they parse. Parsing must never crash or read out of bounds
// (run under ASan/UBSan), and a parsed view must answer every query.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sstfilter/blocked_bloom.h"
#include "sstfilter/cuckoo_filter.h"
#include "sstfilter/hash.h"

namespace {

constexpr size_t kProbes = 32;

template <typename View>
void Exercise(const View& view, const uint64_t* probes) {
  bool batched[kProbes];
  view.may_contain_batch(probes, kProbes, batched);
  for (size_t i = 0; i < kProbes; ++i) {
    // The batched and single answers of one view must agree.
    if (view.may_contain(probes[i]) != batched[i]) __builtin_trap();
  }
  const double fpr = view.EstimatedFpr();
  if (!(fpr >= 0.0 && fpr <= 1.0)) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  uint64_t probes[kProbes];
  for (size_t i = 0; i < kProbes; ++i) {
    probes[i] = sstfilter::Remix64(sstfilter::HashKey(bytes) + i);
  }
  sstfilter::BlockedBloomView bloom;
  if (sstfilter::BlockedBloomView::Parse(bytes, &bloom).ok()) {
    Exercise(bloom, probes);
    const double fill = bloom.fill_ratio();
    if (!(fill >= 0.0 && fill <= 1.0)) __builtin_trap();
  }
  sstfilter::CuckooView cuckoo;
  if (sstfilter::CuckooView::Parse(bytes, &cuckoo).ok()) {
    Exercise(cuckoo, probes);
    const double load = cuckoo.load();
    if (!(load >= 0.0 && load <= 1.0)) __builtin_trap();
  }
  return 0;
}
