// The one rule that tells our blocks and RocksDB's apart (ClassifyBlock,
// block_classifier.h), and its second half for ours: FilterView::Parse
// (filter_view.h), the kind a block's tags name, parsed.
#include "sstfilter/block_classifier.h"

#include <string>
#include <utility>

#include "sstfilter/detail/endian.h"
#include "sstfilter/filter_view.h"
#include "sstfilter/format.h"

namespace sstfilter {
namespace {

// FastLocalBloom's blocks: one 64-byte cache line each.
constexpr size_t kBuiltinCacheLineBytes = 64;
// Ribbon's solution: 128-bit segments.
constexpr size_t kRibbonSegmentBytes = 16;

BuiltinFormat Malformed(std::string why) {
  BuiltinFormat f;
  f.kind = FilterKind::kUnknown;
  f.error = std::move(why);
  return f;
}

// "New Bloom" (marker -1): sub-implementation 0 is FastLocalBloom; the byte
// after holds log2(block bytes) - 6 in bits 5..7 and the probes in 0..4.
BuiltinFormat ReadNewBloom(const char* meta, size_t len) {
  using detail::LoadLittleEndian;
  BuiltinFormat f;
  const uint8_t sub_impl = static_cast<uint8_t>(meta[1]);
  const uint8_t block_and_probes = static_cast<uint8_t>(meta[2]);
  f.line_bytes = uint64_t{1} << (((block_and_probes >> 5) & 7) + 6);
  f.num_probes = block_and_probes & 31;
  if (sub_impl != 0 || f.line_bytes != kBuiltinCacheLineBytes ||
      f.num_probes < 1 || f.num_probes > 30 ||
      LoadLittleEndian<uint16_t>(meta + 3) != 0) {
    return Malformed("RocksDB new-Bloom variant (sub-implementation " +
                     std::to_string(sub_impl) + ", " +
                     std::to_string(f.line_bytes) + "-byte blocks, " +
                     std::to_string(f.num_probes) + " probes) is unknown");
  }
  if (len % kBuiltinCacheLineBytes != 0) {
    return Malformed("FastLocalBloom data of " + std::to_string(len) +
                     " bytes is not whole 64-byte blocks");
  }
  f.kind = FilterKind::kFastLocalBloom;
  f.num_lines = len / kBuiltinCacheLineBytes;
  return f;
}

// Ribbon (marker -2): a seed byte, then the block count in 3 bytes.
BuiltinFormat ReadRibbon(const char* meta, size_t len) {
  BuiltinFormat f;
  f.seed = static_cast<uint8_t>(meta[1]);
  f.num_blocks = static_cast<uint8_t>(meta[2]) |
                 uint64_t{static_cast<uint8_t>(meta[3])} << 8 |
                 uint64_t{static_cast<uint8_t>(meta[4])} << 16;
  f.num_segments = len / kRibbonSegmentBytes;
  if (f.num_blocks < 2 || len % kRibbonSegmentBytes != 0 ||
      f.num_segments < f.num_blocks) {
    return Malformed("Ribbon filter of " + std::to_string(f.num_blocks) +
                     " blocks in " + std::to_string(len) +
                     " bytes is not whole 16-byte segments, at least one "
                     "per block, over at least 2 blocks");
  }
  f.kind = FilterKind::kRibbon128;
  return f;
}

// Legacy Bloom (marker 1..127, the probe count): the line count in 4 bytes.
// Lines are normally 64 bytes, but RocksDB reads another power of two as
// the writing machine's cache line.
BuiltinFormat ReadLegacyBloom(const char* meta, size_t len) {
  BuiltinFormat f;
  f.num_probes = static_cast<uint8_t>(meta[0]);
  f.num_lines = detail::LoadLittleEndian<uint32_t>(meta + 1);
  f.line_bytes = 1;
  while (f.num_lines != 0 && f.num_lines * f.line_bytes < len) {
    f.line_bytes <<= 1;
  }
  if (f.num_lines == 0 || f.num_lines * f.line_bytes != len) {
    return Malformed("legacy Bloom filter: " + std::to_string(len) +
                     " bytes are not " + std::to_string(f.num_lines) +
                     " power-of-two lines");
  }
  f.kind = FilterKind::kLegacyBloom;
  return f;
}

// ---------------------------------------------------------- FilterView::Parse

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

bool FamilyNamed(std::string_view compatibility_name, BlockFamily* family) {
  if (compatibility_name == kRocksdbFamilyCompatibilityName) {
    *family = BlockFamily::kRocksdbBuiltin;
  } else if (compatibility_name == kSstfilterCompatibilityName) {
    *family = BlockFamily::kSstfilter;
  } else {
    return false;
  }
  return true;
}

BuiltinFormat ReadBuiltinFormat(std::string_view bytes) {
  BuiltinFormat f;
  if (bytes.size() <= kRocksdbFilterMetadataBytes) {
    f.kind = FilterKind::kEmpty;
    return f;
  }
  const size_t len = bytes.size() - kRocksdbFilterMetadataBytes;
  const char* meta = bytes.data() + len;
  const int8_t marker = static_cast<int8_t>(meta[0]);
  if (marker == 0) {
    f.kind = FilterKind::kAlwaysTrue;
    return f;
  }
  if (marker == -1) return ReadNewBloom(meta, len);
  if (marker == -2) return ReadRibbon(meta, len);
  if (marker > 0) return ReadLegacyBloom(meta, len);
  return Malformed("RocksDB filter marker " + std::to_string(marker) +
                   " is unknown");
}

BlockClass ClassifyBlock(std::string_view bytes, BlockFamily family) {
  BlockClass block;
  const BlockTags tags = ReadBlockTags(bytes);  // the one read of the tags
  block.why = FilterView::Parse(bytes, tags, &block.ours);
  if (block.why.ok()) {
    block.owner = BlockOwner::kOurs;
    return block;
  }
  if (tags.has_trailer ||
      (family == BlockFamily::kSstfilter && tags.has_head)) {
    return block;  // kMayMatch, why our parse failed
  }
  block.rocksdb = ReadBuiltinFormat(bytes);
  switch (block.rocksdb.kind) {
    case FilterKind::kLegacyBloom:
    case FilterKind::kFastLocalBloom:
    case FilterKind::kRibbon128:
      block.owner = BlockOwner::kRocksdb;
      block.why = Status::Ok();
      break;
    case FilterKind::kEmpty:
      block.why = Status::Corruption(
          "a RocksDB filter of no keys (5 bytes or less), or a truncated "
          "block of ours");
      break;
    case FilterKind::kAlwaysTrue:
      block.why = Status::Corruption(
          "a RocksDB filter of zero probes, or a block of ours without its "
          "tag");
      break;
    case FilterKind::kNone:
    case FilterKind::kBlockedBloom:
    case FilterKind::kCuckoo:
    case FilterKind::kUnknown:
      block.why = Status::NotSupported(
          "not a RocksDB filter this build knows: " + block.rocksdb.error);
      break;
  }
  return block;
}

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
