// sstfilter/detail/key_hash.h: the one key hash, HashKey (sstfilter/hash.h:
// XXH3-64, seed 0), inline. hash.cc makes it HashKey; the RocksDB plugin's
// builders and readers, which hash a key per call, call it here, so the
// hash costs them no call and cannot differ from HashKey.
// XXH_INLINE_ALL compiles xxHash's XXH3 into the including file under
// private names (xxhash.h documents this mode), so only .cc files include
// this header: the macro stays out of the headers users include.
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
