#include "sstfilter/filter_view.h"

#include <string>

namespace sstfilter {
namespace {

template <typename View>
Status ParseAs(
    std::string_view bytes,
    std::variant<std::monostate, BlockedBloomView, CuckooView>* out) {
  View view;
  Status s = View::Parse(bytes, &view);
  if (s.ok()) *out = std::move(view);
  return s;
}

Status ParseKind(
    std::string_view bytes, FilterKind kind,
    std::variant<std::monostate, BlockedBloomView, CuckooView>* out) {
  switch (kind) {
    case FilterKind::kBlockedBloom:
      return ParseAs<BlockedBloomView>(bytes, out);
    case FilterKind::kCuckoo:
      return ParseAs<CuckooView>(bytes, out);
    case FilterKind::kNone:
      break;
  }
  return Status::NotSupported("unknown filter kind " +
                              std::to_string(static_cast<int>(kind)));
}

}  // namespace

// The trailer's kind first; then, if that fails, the kind of a v1 head tag
// (a v1 block may end in bytes that look like another kind's trailer).
Status FilterView::Parse(std::string_view bytes, FilterView* out) {
  FilterKind kind;
  uint8_t version;
  Status s = PeekFormat(bytes, &kind, &version);
  if (!s.ok()) return s;
  s = ParseKind(bytes, kind, &out->view_);
  FormatTag head;
  if (!s.ok() && ReadHeadTag(bytes, &head) && head.version == 1 &&
      head.kind != kind && ParseKind(bytes, head.kind, &out->view_).ok()) {
    return Status::Ok();
  }
  return s;
}

}  // namespace sstfilter
