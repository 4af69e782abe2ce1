// RocksDB's built-in filter formats, told apart by the 5 metadata bytes that
// end them (table/block_based/filter_policy.cc, GetBuiltinFilterBitsReader,
// the same from 7.8 to 11.x): a signed marker byte, then 4 bytes whose
// meaning depends on it. Header-only and free of RocksDB's headers, so the
// inspector's decoder, which builds without RocksDB, reads blocks with the
// same rules as the plugin's reader.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "sstfilter/detail/endian.h"
#include "sstfilter/format.h"

namespace sstfilter::rocksdb_plugin {

enum class BuiltinKind {
  kEmpty,           // 5 bytes or less: RocksDB answers "no" to every key
  kAlwaysTrue,      // marker 0: zero probes, "may match" for every key
  kLegacyBloom,     // marker 1..127: the probe count
  kFastLocalBloom,  // marker -1, sub-implementation 0, 64-byte blocks
  kRibbon128,       // marker -2: Standard128Ribbon
  kMalformed,       // none of these, well formed: see `error`
};

struct BuiltinFormat {
  BuiltinKind kind = BuiltinKind::kMalformed;
  std::string error;          // why kMalformed
  uint32_t num_probes = 0;    // the Bloom kinds
  uint64_t line_bytes = 0;    // the Bloom kinds: a cache line, or a block
  uint64_t num_lines = 0;     // the Bloom kinds
  uint32_t seed = 0;          // Ribbon
  uint64_t num_blocks = 0;    // Ribbon: 128 slots each
  uint64_t num_segments = 0;  // Ribbon: 16-byte solution segments
};

inline constexpr size_t kBuiltinCacheLineBytes = 64;
inline constexpr size_t kRibbonSegmentBytes = 16;

// Reads `bytes` as a block of RocksDB's built-in family. Well formed means
// what RocksDB's reader needs to read it as that kind (and, for Ribbon, a
// solution of at least one column per block, which its builder always
// writes); anything else is kMalformed, for which RocksDB's reader would
// answer "may match" or misread the bytes.
inline BuiltinFormat ReadBuiltinFormat(std::string_view bytes) {
  using detail::LoadLittleEndian;
  BuiltinFormat f;
  if (bytes.size() <= kRocksdbFilterMetadataBytes) {
    f.kind = BuiltinKind::kEmpty;
    return f;
  }
  const size_t len = bytes.size() - kRocksdbFilterMetadataBytes;
  const char* meta = bytes.data() + len;
  const int8_t marker = static_cast<int8_t>(meta[0]);
  auto malformed = [&f](std::string why) {
    f.kind = BuiltinKind::kMalformed;
    f.error = std::move(why);
    return f;
  };
  if (marker == 0) {
    f.kind = BuiltinKind::kAlwaysTrue;
    return f;
  }
  if (marker == -1) {
    // "New Bloom": sub-implementation 0 is FastLocalBloom; the byte after
    // holds log2(block bytes) - 6 in bits 5..7 and the probes in 0..4.
    const uint8_t sub_impl = static_cast<uint8_t>(meta[1]);
    const uint8_t block_and_probes = static_cast<uint8_t>(meta[2]);
    f.line_bytes = uint64_t{1} << (((block_and_probes >> 5) & 7) + 6);
    f.num_probes = block_and_probes & 31;
    if (sub_impl != 0 || f.line_bytes != kBuiltinCacheLineBytes ||
        f.num_probes < 1 || f.num_probes > 30 ||
        LoadLittleEndian<uint16_t>(meta + 3) != 0) {
      return malformed("RocksDB new-Bloom variant (sub-implementation " +
                       std::to_string(sub_impl) + ", " +
                       std::to_string(f.line_bytes) + "-byte blocks, " +
                       std::to_string(f.num_probes) + " probes) is unknown");
    }
    if (len % kBuiltinCacheLineBytes != 0) {
      return malformed("FastLocalBloom data of " + std::to_string(len) +
                       " bytes is not whole 64-byte blocks");
    }
    f.kind = BuiltinKind::kFastLocalBloom;
    f.num_lines = len / kBuiltinCacheLineBytes;
    return f;
  }
  if (marker == -2) {
    f.seed = static_cast<uint8_t>(meta[1]);
    f.num_blocks = static_cast<uint8_t>(meta[2]) |
                   uint64_t{static_cast<uint8_t>(meta[3])} << 8 |
                   uint64_t{static_cast<uint8_t>(meta[4])} << 16;
    f.num_segments = len / kRibbonSegmentBytes;
    if (f.num_blocks < 2 || len % kRibbonSegmentBytes != 0 ||
        f.num_segments < f.num_blocks) {
      return malformed("Ribbon filter of " + std::to_string(f.num_blocks) +
                       " blocks in " + std::to_string(len) +
                       " bytes is not whole 16-byte segments, at least one "
                       "per block, over at least 2 blocks");
    }
    f.kind = BuiltinKind::kRibbon128;
    return f;
  }
  if (marker < 0) {
    return malformed("RocksDB filter marker " + std::to_string(marker) +
                     " is unknown");
  }
  // Legacy Bloom: lines are normally 64 bytes, but RocksDB reads another
  // power of two as the writing machine's cache line.
  f.num_probes = static_cast<uint32_t>(marker);
  f.num_lines = LoadLittleEndian<uint32_t>(meta + 1);
  f.line_bytes = 1;
  while (f.num_lines != 0 && f.num_lines * f.line_bytes < len) {
    f.line_bytes <<= 1;
  }
  if (f.num_lines == 0 || f.num_lines * f.line_bytes != len) {
    return malformed("legacy Bloom filter: " + std::to_string(len) +
                     " bytes are not " + std::to_string(f.num_lines) +
                     " power-of-two lines");
  }
  f.kind = BuiltinKind::kLegacyBloom;
  return f;
}

}  // namespace sstfilter::rocksdb_plugin
