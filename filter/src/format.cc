#include "sstfilter/format.h"

#include <string>

#include "sstfilter/detail/endian.h"
#include "sstfilter/hash.h"

namespace sstfilter {
namespace {

bool IsMagic(const char* tag) {
  return tag[0] == kFormatMagic[0] && tag[1] == kFormatMagic[1];
}

}  // namespace

const char* FilterKindName(FilterKind kind) {
  switch (kind) {
    case FilterKind::kBlockedBloom:
      return "BlockedBloom";
    case FilterKind::kCuckoo:
      return "Cuckoo";
    case FilterKind::kFastLocalBloom:
      return "FastLocalBloom";
    case FilterKind::kRibbon128:
      return "Ribbon128";
    case FilterKind::kLegacyBloom:
      return "LegacyBloom";
    case FilterKind::kAlwaysTrue:
      return "AlwaysTrue";
    case FilterKind::kEmpty:
      return "Empty";
    case FilterKind::kNone:
      return "none";
    case FilterKind::kUnknown:
      break;
  }
  return "unknown";
}

bool ReadTrailerTag(std::string_view bytes, FormatTag* tag) {
  if (bytes.size() < kRocksdbFilterMetadataBytes) return false;
  const char* trailer = bytes.data() + bytes.size() - kFormatTagSize;
  if (trailer[-1] != 0 || !IsMagic(trailer) ||
      static_cast<uint8_t>(trailer[3]) < kFirstTrailerVersion) {
    return false;
  }
  tag->kind = static_cast<FilterKind>(static_cast<uint8_t>(trailer[2]));
  tag->version = static_cast<uint8_t>(trailer[3]);
  return true;
}

bool ReadHeadTag(std::string_view bytes, FormatTag* tag) {
  if (bytes.size() < kFormatTagSize || !IsMagic(bytes.data())) return false;
  tag->kind = static_cast<FilterKind>(static_cast<uint8_t>(bytes[2]));
  tag->version = static_cast<uint8_t>(bytes[3]);
  return true;
}

BlockTags ReadBlockTags(std::string_view bytes) {
  BlockTags tags;
  tags.block_bytes = bytes.size();
  tags.has_trailer = ReadTrailerTag(bytes, &tags.trailer);
  tags.has_head = ReadHeadTag(bytes, &tags.head);
  return tags;
}

Status BlockTags::First(FormatTag* tag) const {
  if (block_bytes < kFormatTagSize) {
    return Status::Corruption("filter is " + std::to_string(block_bytes) +
                              " bytes, shorter than its 4-byte tag");
  }
  if (!has_trailer && !has_head) {
    return Status::Corruption(
        "filter has no tag: the magic \"SF\" is neither at its end (after a 0 "
        "byte) nor at its start");
  }
  *tag = has_trailer ? trailer : head;
  return Status::Ok();
}

Status PeekFormat(std::string_view bytes, FilterKind* kind, uint8_t* version) {
  FormatTag tag;
  const Status s = ReadBlockTags(bytes).First(&tag);
  if (!s.ok()) return s;
  *kind = tag.kind;
  *version = tag.version;
  return Status::Ok();
}

Status CheckKindAndVersion(FilterKind kind, uint8_t version,
                           FilterKind expected) {
  const std::string name = FilterKindName(expected);
  if (kind != expected) {
    return Status::InvalidArgument("not a " + name + " filter (kind " +
                                   FilterKindName(kind) + ")");
  }
  if (version < 1 || version > kCurrentFormatVersion) {
    return Status::NotSupported(name + " format version " +
                                std::to_string(version) +
                                " is unknown (this build reads versions 1 to " +
                                std::to_string(kCurrentFormatVersion) + ")");
  }
  return Status::Ok();
}

uint32_t MetadataChecksum(std::string_view bytes) {
  return static_cast<uint32_t>(HashKey(bytes));
}

Status VerifyMetadataChecksum(std::string_view metadata,
                              const char* kind_name) {
  const uint32_t stored = detail::LoadLittleEndian<uint32_t>(metadata.data());
  if (stored != MetadataChecksum(metadata.substr(4))) {
    return Status::Corruption(std::string(kind_name) +
                              " metadata checksum mismatch: the filter's "
                              "parameters are damaged");
  }
  return Status::Ok();
}

void SealMetadata(FilterKind kind, uint8_t* metadata, uint8_t* out) {
  out[0] = kFormatMagic[0];
  out[1] = kFormatMagic[1];
  out[2] = static_cast<uint8_t>(kind);
  out[3] = kCurrentFormatVersion;
  const std::string_view rest(reinterpret_cast<const char*>(metadata + 4),
                              static_cast<size_t>(out + 4 - (metadata + 4)));
  detail::StoreLittleEndian<uint32_t>(metadata, MetadataChecksum(rest));
}

}  // namespace sstfilter
