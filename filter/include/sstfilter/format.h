// sstfilter/format.h: what every serialized sstfilter filter starts with.
//
// All formats are little-endian and begin with the same four bytes:
//   byte 0-1  magic "SF"
//   byte 2    FilterKind
//   byte 3    format version of that kind
// The rest is described next to the code of each kind:
// blocked_bloom.h (kind 1) and cuckoo_filter.h (kind 2).
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
inline constexpr size_t kFormatPrefixSize = 4;

// Human-readable name of a kind ("BlockedBloom", "Cuckoo", "unknown").
const char* FilterKindName(FilterKind kind);

// Reads the 4-byte prefix. Corruption if `bytes` is too short or lacks the
// magic; the kind and version are returned as stored, known or not.
Status PeekFormat(std::string_view bytes, FilterKind* kind, uint8_t* version);

// PeekFormat, then: InvalidArgument unless the kind is `expected`, and
// NotSupported unless the version is `version`. Every Parse starts here.
Status CheckFormat(std::string_view bytes, FilterKind expected,
                   uint8_t version);

}  // namespace sstfilter
