#include "sstfilter/hash.h"

#include "sstfilter/detail/hash_inline.h"

namespace sstfilter {

uint64_t HashKey(std::string_view key) { return detail::HashKeyInline(key); }

}  // namespace sstfilter
