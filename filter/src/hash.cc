#include "sstfilter/hash.h"

// XXH_INLINE_ALL compiles xxHash's XXH3 into this file under private names
// (xxhash.h documents this mode): no call into the shared libxxhash.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace sstfilter {

uint64_t HashKey(std::string_view key) {
  return XXH3_64bits(key.data(), key.size());
}

}  // namespace sstfilter
