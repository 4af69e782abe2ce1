// Internal, but installed: HashKey inline, for readers and builders that
// hash a key per call (the RocksDB plugin's). XXH_INLINE_ALL compiles
// xxHash's XXH3 into the including translation unit under private names
// (xxhash.h documents this mode), so the hash costs no call into the
// shared libxxhash. The values are XXH3-64's, the same as HashKey's.
#pragma once

#include <cstdint>
#include <string_view>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

namespace sstfilter::detail {

inline uint64_t HashKeyInline(std::string_view key) {
  return XXH3_64bits(key.data(), key.size());
}

}  // namespace sstfilter::detail
