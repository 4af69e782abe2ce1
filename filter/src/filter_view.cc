#include "sstfilter/filter_view.h"

#include <string>

namespace sstfilter {
namespace {

template <typename View>
Status ParseAs(std::string_view bytes,
               std::variant<BlockedBloomView, CuckooView>* out) {
  View view;
  Status s = View::Parse(bytes, &view);
  if (s.ok()) *out = std::move(view);
  return s;
}

}  // namespace

Status FilterView::Parse(std::string_view bytes, FilterView* out) {
  FilterKind kind;
  uint8_t version;
  Status s = PeekFormat(bytes, &kind, &version);
  if (!s.ok()) return s;
  switch (kind) {
    case FilterKind::kBlockedBloom:
      return ParseAs<BlockedBloomView>(bytes, &out->view_);
    case FilterKind::kCuckoo:
      return ParseAs<CuckooView>(bytes, &out->view_);
  }
  return Status::NotSupported("unknown filter kind " +
                              std::to_string(static_cast<int>(kind)));
}

}  // namespace sstfilter
