// sstfilter/filter_view.h: any serialized sstfilter filter, parsed.
//
// The one place that dispatches on a block's tags (read once, format.h) to
// the kind's own view (BlockedBloomView or CuckooView), for every format
// version. The RocksDB
// plugin's reader, the inspector and the benchmarks parse through it, so a
// new kind or version is one change here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include "sstfilter/blocked_bloom.h"
#include "sstfilter/cuckoo_filter.h"
#include "sstfilter/format.h"
#include "sstfilter/status.h"

namespace sstfilter {

class FilterView {
 public:
  // Holds no filter until Parse succeeds: kind() is FilterKind::kNone,
  // and it answers "no" to every query.
  FilterView() = default;

  // Reads the tag (format.h) and parses the kind it names (defined beside
  // the block classifier, block_classifier.cc, whose rule it completes for
  // our blocks). Corruption for
  // bytes that are not a filter, NotSupported for an unknown kind or
  // version; `out` is untouched on error. Never reads past `bytes`.
  static Status Parse(std::string_view bytes, FilterView* out);
  // The same on the block's tags, read once (format.h: ReadBlockTags); the
  // block classifier reads them for its own rule too.
  static Status Parse(std::string_view bytes, const BlockTags& tags,
                      FilterView* out);

  // fn(view) with the kind's own view; fn(BlockedBloomView()), which holds
  // no filter, before a Parse.
  template <typename Fn>
  decltype(auto) Visit(Fn&& fn) const {
    return std::visit(
        [&](const auto& view) -> decltype(auto) {
          if constexpr (std::is_same_v<std::decay_t<decltype(view)>,
                                       std::monostate>) {
            return fn(BlockedBloomView());
          } else {
            return fn(view);
          }
        },
        view_);
  }

  FilterKind kind() const {
    if (blocked_bloom() != nullptr) return FilterKind::kBlockedBloom;
    return cuckoo() != nullptr ? FilterKind::kCuckoo : FilterKind::kNone;
  }
  uint8_t format_version() const {
    return Visit([](const auto& v) { return v.format_version(); });
  }
  // The kind's view, or nullptr if the filter is of the other kind.
  const BlockedBloomView* blocked_bloom() const {
    return std::get_if<BlockedBloomView>(&view_);
  }
  const CuckooView* cuckoo() const { return std::get_if<CuckooView>(&view_); }

  bool MayContain(uint64_t hash) const {
    return Visit([hash](const auto& v) { return v.MayContain(hash); });
  }
  void MayContainBatch(const uint64_t* hashes, size_t count,
                       bool* results) const {
    Visit([&](const auto& v) { v.MayContainBatch(hashes, count, results); });
  }
  size_t SizeBytes() const {
    return Visit([](const auto& v) { return v.SizeBytes(); });
  }
  double EstimatedFpr() const {
    return Visit([](const auto& v) { return v.EstimatedFpr(); });
  }

 private:
  std::variant<std::monostate, BlockedBloomView, CuckooView> view_;
};

}  // namespace sstfilter
