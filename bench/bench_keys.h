// bench/bench_keys.h: the keys every benchmark in bench/ queries.
#pragma once

#include <charconv>
#include <cstdint>
#include <string_view>
#include <vector>

#include "sstfilter/hash.h"

namespace sstfilter::bench {

// Hashes of the distinct strings "<prefix><i>" for i in [0, count). Sets
// with different prefixes (e.g. "present:" and "absent:") are disjoint.
inline std::vector<uint64_t> HashStrings(std::string_view prefix,
                                         uint64_t count) {
  std::vector<uint64_t> hashes(count);
  char buf[64];
  prefix.copy(buf, prefix.size());
  for (uint64_t i = 0; i < count; ++i) {
    char* end = std::to_chars(buf + prefix.size(), buf + sizeof(buf), i).ptr;
    hashes[i] = HashKey(std::string_view(buf, end - buf));
  }
  return hashes;
}

}  // namespace sstfilter::bench
