// libFuzzer target: arbitrary bytes parsed as every sstfilter format and
// version, and queried when they parse. Parsing must never crash or read out
// of bounds (run under ASan/UBSan), a parsed view must answer every query,
// and the inline probes of the RocksDB plugin's readers (the detail/
// headers) must answer as the view does.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sstfilter/blocked_bloom.h"
#include "sstfilter/cuckoo_filter.h"
#include "sstfilter/detail/blocked_bloom_probe.h"
#include "sstfilter/detail/cuckoo_bucket_array.h"
#include "sstfilter/filter_view.h"
#include "sstfilter/hash.h"

namespace {

constexpr size_t kProbes = 32;

template <typename View>
void Exercise(const View& view, const uint64_t* probes) {
  bool batched[kProbes];
  view.MayContainBatch(probes, kProbes, batched);
  for (size_t i = 0; i < kProbes; ++i) {
    // The batched and single answers of one view must agree.
    if (view.MayContain(probes[i]) != batched[i]) __builtin_trap();
  }
  const double fpr = view.EstimatedFpr();
  if (!(fpr >= 0.0 && fpr <= 1.0)) __builtin_trap();
}

// The inline probes answer as `view` does, one by one and batched.
template <typename View, typename One, typename Batch>
void ExpectSameAnswers(const View& view, const uint64_t* probes, One&& one,
                       Batch&& batch) {
  bool batched[kProbes];
  batch(probes, kProbes, batched);
  for (size_t i = 0; i < kProbes; ++i) {
    const bool expected = view.MayContain(probes[i]);
    if (one(probes[i]) != expected || batched[i] != expected) {
      __builtin_trap();
    }
  }
}

void ExerciseInlineProbes(const sstfilter::FilterView& any,
                          const uint64_t* probes) {
  namespace detail = sstfilter::detail;
  if (const auto* bloom = any.blocked_bloom()) {
    const auto shape = bloom->probe_lines();
    ExpectSameAnswers(
        *bloom, probes,
        [&](uint64_t h) {
          return detail::MayContain<detail::ScalarLineOps>(shape, h);
        },
        [&](const uint64_t* h, size_t n, bool* out) {
          detail::MayContainBatch<detail::ScalarLineOps>(shape, h, n, out);
        });
    return;
  }
  detail::cuckoo::BucketArray shape;
  if (any.cuckoo()->StaticBucketArrayOf(&shape)) {
    ExpectSameAnswers(
        *any.cuckoo(), probes,
        [&](uint64_t h) { return detail::cuckoo::StaticMayContain(shape, h); },
        [&](const uint64_t* h, size_t n, bool* out) {
          detail::cuckoo::StaticMayContainBatch(shape, h, n, out);
        });
  }
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
    const double fill = bloom.FillRatio();
    if (!(fill >= 0.0 && fill <= 1.0)) __builtin_trap();
  }
  sstfilter::CuckooView cuckoo;
  if (sstfilter::CuckooView::Parse(bytes, &cuckoo).ok()) {
    Exercise(cuckoo, probes);
    const double load = cuckoo.Load();
    if (!(load >= 0.0 && load <= 1.0)) __builtin_trap();
  }
  sstfilter::FilterView any;
  if (sstfilter::FilterView::Parse(bytes, &any).ok()) {
    ExerciseInlineProbes(any, probes);
  }
  return 0;
}
