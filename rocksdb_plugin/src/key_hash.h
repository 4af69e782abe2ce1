// HashKey (sstfilter/hash.h: XXH3-64, seed 0) inline, for the readers and
// builders that hash a key per call. XXH_INLINE_ALL compiles xxHash's XXH3
// into the including file under private names (xxhash.h documents this
// mode), so the hash costs no call; the values are HashKey's. Private to
// the plugin's .cc files: the macro stays out of installed headers.
#pragma once

#include <cstdint>
#include <string_view>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

namespace sstfilter::rocksdb_plugin {

inline uint64_t HashKeyInline(std::string_view key) {
  return XXH3_64bits(key.data(), key.size());
}

}  // namespace sstfilter::rocksdb_plugin
