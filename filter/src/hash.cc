#include "sstfilter/hash.h"

#include "sstfilter/detail/key_hash.h"

namespace sstfilter {

uint64_t HashKey(std::string_view key) { return detail::HashKeyInline(key); }

}  // namespace sstfilter
