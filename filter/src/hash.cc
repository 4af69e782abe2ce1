#include "sstfilter/hash.h"

#include <xxhash.h>

namespace sstfilter {

uint64_t HashKey(std::string_view key) {
  return XXH3_64bits(key.data(), key.size());
}

}  // namespace sstfilter
