#include "sstfilter/format.h"

#include <string>

namespace sstfilter {

const char* FilterKindName(FilterKind kind) {
  switch (kind) {
    case FilterKind::kBlockedBloom:
      return "BlockedBloom";
    case FilterKind::kCuckoo:
      return "Cuckoo";
  }
  return "unknown";
}

Status PeekFormat(std::string_view bytes, FilterKind* kind, uint8_t* version) {
  if (bytes.size() < kFormatPrefixSize) {
    return Status::Corruption("filter is " + std::to_string(bytes.size()) +
                              " bytes, shorter than its 4-byte prefix");
  }
  if (bytes[0] != kFormatMagic[0] || bytes[1] != kFormatMagic[1]) {
    return Status::Corruption("filter does not start with the magic \"SF\"");
  }
  *kind = static_cast<FilterKind>(static_cast<uint8_t>(bytes[2]));
  *version = static_cast<uint8_t>(bytes[3]);
  return Status::Ok();
}

Status CheckFormat(std::string_view bytes, FilterKind expected,
                   uint8_t version) {
  FilterKind kind;
  uint8_t stored_version;
  Status s = PeekFormat(bytes, &kind, &stored_version);
  if (!s.ok()) return s;
  const std::string name = FilterKindName(expected);
  if (kind != expected) {
    return Status::InvalidArgument("not a " + name + " filter (kind " +
                                   FilterKindName(kind) + ")");
  }
  if (stored_version != version) {
    return Status::NotSupported(name + " format version " +
                                std::to_string(stored_version) +
                                " is unknown (this build reads version " +
                                std::to_string(version) + ")");
  }
  return Status::Ok();
}

}  // namespace sstfilter
