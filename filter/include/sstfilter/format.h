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
// The layouts are described next to the code of each kind:
// blocked_bloom.h (kind 1) and cuckoo_filter.h (kind 2); filter_view.h
// parses any of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sstfilter/status.h"

namespace sstfilter {

enum class FilterKind : uint8_t {
  kBlockedBloom = 1,
  kCuckoo = 2,
};

inline constexpr char kFormatMagic[2] = {'S', 'F'};
inline constexpr size_t kFormatTagSize = 4;
// The first version whose tag is a suffix.
inline constexpr uint8_t kFirstTrailerVersion = 2;
// The version every kind writes.
inline constexpr uint8_t kCurrentFormatVersion = 2;

// Human-readable name of a kind ("BlockedBloom", "Cuckoo", "unknown").
const char* FilterKindName(FilterKind kind);

// Reads the tag: the last 4 bytes if they are "SF" with a version of 2 or
// more, otherwise the first 4. Corruption if `bytes` is too short or has
// the magic at neither end; the kind and version are returned as stored,
// known or not.
Status PeekFormat(std::string_view bytes, FilterKind* kind, uint8_t* version);

// True if `bytes` starts with a version 1 tag of `kind`. A v2 block whose
// trailer fails to parse is tried as v1 when this holds: a v1 block may end
// in bytes that look like a v2 tag (about 1 in 2^32 blocks).
bool HasV1Tag(std::string_view bytes, FilterKind kind);

// InvalidArgument unless `kind` is `expected`, NotSupported unless
// 1 <= `version` <= kCurrentFormatVersion. Every Parse starts here.
Status CheckKindAndVersion(FilterKind kind, uint8_t version,
                           FilterKind expected);

// The one version dispatch of every kind's Parse: checks the tag (kind and
// version, as CheckKindAndVersion), then runs parse_v1() or parse_v2()
// (each returning Status) for the version it names. A v2 parse that fails
// on a block that also starts with a v1 tag (HasV1Tag) is retried as v1,
// so parse_v1 must not rely on what a failed parse_v2 left behind. On
// success *version is the version parsed.
template <typename ParseV1, typename ParseV2>
Status ParseByVersion(std::string_view bytes, FilterKind kind,
                      ParseV1&& parse_v1, ParseV2&& parse_v2,
                      uint8_t* version) {
  FilterKind stored;
  uint8_t stored_version;
  Status s = PeekFormat(bytes, &stored, &stored_version);
  if (s.ok()) s = CheckKindAndVersion(stored, stored_version, kind);
  if (!s.ok()) return s;
  if (stored_version == 1) {
    s = parse_v1();
  } else {
    s = parse_v2();
    if (!s.ok() && HasV1Tag(bytes, kind) && parse_v1().ok()) {
      stored_version = 1;
      s = Status::Ok();
    }
  }
  if (s.ok()) *version = stored_version;
  return s;
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
