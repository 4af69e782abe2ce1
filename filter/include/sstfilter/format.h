// sstfilter/format.h: how every serialized sstfilter filter says what it is.
//
// Every filter carries a 4-byte tag, little-endian:
//   byte 0-1  magic "SF"
//   byte 2    FilterKind
//   byte 3    format version of that kind
// Version 1 puts the tag and the metadata first. Version 2 and later put the
// payload (Bloom lines, cuckoo buckets) at byte 0 and the metadata after it,
// ending with a 4-byte checksum-first metadata record and the tag as the
// block's last 4 bytes, as RocksDB's own filter formats keep their metadata
// in a trailer (filter_policy.cc). Whenever the block starts 64-byte
// aligned, every Bloom line is then one cache line. The metadata of v2
// begins with MetadataChecksum of the rest of it (through the tag), so a
// damaged header reads as Corruption, never as a different filter.
//
// One family with RocksDB's filters. Since v2, the byte just before the tag
// (the 5th from the end) is always 0, and a v2 tag counts only with it.
// RocksDB's built-in reader (BuiltinFilterPolicy::GetBuiltinFilterBitsReader,
// the same from 7.8 to 11.x) reads that byte as its marker: 1..127 the
// legacy Bloom's probe count, -1 FastLocalBloom, -2 Ribbon, and 0 "zero
// probes", which answers "may match" for every key. So RocksDB, or a binary
// without the plugin, reads our blocks as "may match", never misreads them,
// and none of RocksDB's blocks (whose marker byte is never 0 when they hold
// keys) has our trailer. RocksDB reads a block of 5 bytes or less as "no
// keys": ours are never that small (the smallest, an empty BlockedBloom, is
// 28 bytes). Writers keep the byte 0 (blocked_bloom.h caps its stored key
// count below 2^56; cuckoo_filter.h reserves it).
//
// The layouts are described next to the code of each kind:
// blocked_bloom.h (kind 1) and cuckoo_filter.h (kind 2); filter_view.h
// parses any of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sstfilter/status.h"

namespace sstfilter {

// Every kind of filter a block may hold, ours and RocksDB's: the one enum
// that the format, the allocation (level_allocation.h) and the block
// classifier (block_classifier.h) share. Ours are numbered as a tag stores
// them. RocksDB's are never in a tag of ours (numbered from 128, away from
// ours): filter/ knows them by their metadata (block_classifier.h) and by
// the curves its caller measures (level_allocation.h).
enum class FilterKind : uint8_t {
  // No filter (a FilterView before Parse, a block not read as RocksDB's);
  // never in a tag.
  kNone = 0,
  kBlockedBloom = 1,
  kCuckoo = 2,
  // RocksDB's, by the marker byte of their metadata (filter_policy.cc,
  // GetBuiltinFilterBitsReader).
  kFastLocalBloom = 128,  // marker -1, sub-implementation 0, 64-byte blocks
  kRibbon128,             // marker -2: Standard128Ribbon
  kLegacyBloom,           // marker 1..127: the probe count
  kAlwaysTrue,            // marker 0: zero probes, "may match" for every key
  kEmpty,                 // 5 bytes or less: "no" to every key
  // Bytes of no kind this build reads: an unknown marker, or a known one
  // whose layout does not hold.
  kUnknown,
};

inline constexpr char kFormatMagic[2] = {'S', 'F'};
inline constexpr size_t kFormatTagSize = 4;
// The first version whose tag is a suffix.
inline constexpr uint8_t kFirstTrailerVersion = 2;
// The version every kind writes.
inline constexpr uint8_t kCurrentFormatVersion = 2;

// The kind's name, as the tools print it: "BlockedBloom", "Cuckoo",
// "FastLocalBloom", "Ribbon128", "LegacyBloom", "AlwaysTrue", "Empty",
// "none", and "unknown" for kUnknown or a value of no kind.
const char* FilterKindName(FilterKind kind);

// The bytes RocksDB's built-in filters end with (a marker byte, then 4
// bytes); ours keep the marker byte, the 5th from the end, at 0.
inline constexpr size_t kRocksdbFilterMetadataBytes = 5;

// The bytes RocksDB stores after every block of an SST, a filter block's
// included: the compression type, then a 4-byte checksum
// (BlockBasedTable::kBlockTrailerSize). RocksDB reads a block into a buffer
// of its size plus these.
inline constexpr size_t kRocksdbBlockTrailerBytes = 5;

// The names of the two families a filter block is stored under (the
// CompatibilityName after "fullfilter." or "partitionedfilter." in an SST;
// block_classifier.h): RocksDB's built-in family, that of bloomfilter and
// ribbonfilter, which our policies join by default, and the name of
// sstfilter 0.1, kept by the policy option compatibility_name=sstfilter.
inline constexpr char kRocksdbFamilyCompatibilityName[] =
    "rocksdb.BuiltinBloomFilter";
inline constexpr char kSstfilterCompatibilityName[] = "sstfilter";

// A kind and version as a tag stores them, known or not.
struct FormatTag {
  FilterKind kind = FilterKind::kBlockedBloom;
  uint8_t version = 0;
};

// The trailer tag of v2 and later: true if `bytes` end in a 0 byte, "SF",
// a kind and a version of 2 or more.
bool ReadTrailerTag(std::string_view bytes, FormatTag* tag);

// The head tag of v1: true if `bytes` start with "SF", a kind and a version
// (any; only version 1 ever stood there).
bool ReadHeadTag(std::string_view bytes, FormatTag* tag);

// A block's two tags, each read once (ReadBlockTags): every parser takes
// them instead of reading the bytes again.
struct BlockTags {
  size_t block_bytes = 0;
  bool has_trailer = false;  // ReadTrailerTag
  FormatTag trailer;
  bool has_head = false;  // ReadHeadTag
  FormatTag head;

  // The tag a parser tries first: the trailer's, else the head's.
  // Corruption if the block is shorter than a tag or has neither.
  Status First(FormatTag* tag) const;
  // True if the block starts with a version 1 tag of `kind`.
  bool HasV1Tag(FilterKind kind) const {
    return has_head && head.kind == kind && head.version == 1;
  }
};

BlockTags ReadBlockTags(std::string_view bytes);

// ReadBlockTags(bytes).First, as a kind and a version.
Status PeekFormat(std::string_view bytes, FilterKind* kind, uint8_t* version);

// InvalidArgument unless `kind` is `expected`, NotSupported unless
// 1 <= `version` <= kCurrentFormatVersion. Every Parse starts here.
Status CheckKindAndVersion(FilterKind kind, uint8_t version,
                           FilterKind expected);

// The one version dispatch of every kind's Parse, on the block's tags. A
// trailer tag of `kind` and a known version runs parse_v2(); then, whenever
// the block starts with a v1 tag of `kind` and nothing has parsed yet,
// parse_v1() runs, so a v1 block whose last bytes happen to look like a
// trailer tag (of any kind or version: about 1 block in 2^24 ends in 0
// "SF") still reads as v1. parse_v1 must not rely on what a failed parse_v2
// left behind. Both return Status; on success *version is the version
// parsed, otherwise the error is the trailer's (the format this release
// writes), or the head's.
template <typename ParseV1, typename ParseV2>
Status ParseByVersion(const BlockTags& tags, FilterKind kind,
                      ParseV1&& parse_v1, ParseV2&& parse_v2,
                      uint8_t* version) {
  Status trailer_status;
  if (tags.has_trailer) {
    trailer_status =
        CheckKindAndVersion(tags.trailer.kind, tags.trailer.version, kind);
    if (trailer_status.ok()) trailer_status = parse_v2();
    if (trailer_status.ok()) {
      *version = tags.trailer.version;
      return trailer_status;
    }
  }
  if (tags.HasV1Tag(kind)) {
    const Status s = parse_v1();
    if (s.ok()) *version = 1;
    if (s.ok() || !tags.has_trailer) return s;
  }
  if (tags.has_trailer) return trailer_status;
  FormatTag first;
  Status s = tags.First(&first);
  if (s.ok()) s = CheckKindAndVersion(first.kind, first.version, kind);
  // A head tag of this kind and version 1 was parsed above.
  return s.ok() ? Status::Corruption("filter tag is malformed") : s;
}

// The low 32 bits of XXH3-64 (seed 0) of `bytes`: the checksum a v2
// filter's metadata starts with.
uint32_t MetadataChecksum(std::string_view bytes);

// Checks the checksum at the start of `metadata` (the v2 metadata record:
// checksum, fields, tag). Corruption naming `kind_name` if it differs.
Status VerifyMetadataChecksum(std::string_view metadata, const char* kind_name);

// Writes the tag of `kind` (version kCurrentFormatVersion) at `out`, then
// the checksum of [metadata + 4, out + 4) at `metadata`: the last step of
// every v2 writer.
void SealMetadata(FilterKind kind, uint8_t* metadata, uint8_t* out);

}  // namespace sstfilter
