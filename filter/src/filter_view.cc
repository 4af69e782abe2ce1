#include "sstfilter/filter_view.h"

#include <string>

namespace sstfilter {
namespace {

template <typename View>
Status ParseAs(
    std::string_view bytes, const BlockTags& tags,
    std::variant<std::monostate, BlockedBloomView, CuckooView>* out) {
  View view;
  Status s = View::Parse(bytes, tags, &view);
  if (s.ok()) *out = std::move(view);
  return s;
}

Status ParseKind(
    std::string_view bytes, const BlockTags& tags, FilterKind kind,
    std::variant<std::monostate, BlockedBloomView, CuckooView>* out) {
  switch (kind) {
    case FilterKind::kBlockedBloom:
      return ParseAs<BlockedBloomView>(bytes, tags, out);
    case FilterKind::kCuckoo:
      return ParseAs<CuckooView>(bytes, tags, out);
    default:  // no kind of ours
      break;
  }
  return Status::NotSupported("unknown filter kind " +
                              std::to_string(static_cast<int>(kind)));
}

}  // namespace

Status FilterView::Parse(std::string_view bytes, FilterView* out) {
  return Parse(bytes, ReadBlockTags(bytes), out);
}

// The trailer's kind first; then, if that fails, the kind of a v1 head tag
// (a v1 block may end in bytes that look like another kind's trailer).
Status FilterView::Parse(std::string_view bytes, const BlockTags& tags,
                         FilterView* out) {
  FormatTag first;
  Status s = tags.First(&first);
  if (!s.ok()) return s;
  s = ParseKind(bytes, tags, first.kind, &out->view_);
  if (!s.ok() && tags.has_head && tags.head.version == 1 &&
      tags.head.kind != first.kind &&
      ParseKind(bytes, tags, tags.head.kind, &out->view_).ok()) {
    return Status::Ok();
  }
  return s;
}

}  // namespace sstfilter
