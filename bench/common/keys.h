// bench/common/keys.h: the keys every benchmark in bench/ queries.
#pragma once

#include <charconv>
#include <cstdint>
#include <string_view>
#include <vector>

#include "sstfilter/hash.h"

namespace sstfilter::bench {

// Room FormatKey needs beyond the prefix: the decimal digits of a uint64_t.
inline constexpr size_t kMaxKeyDigits = 20;

// Writes the key "<prefix><i>" into `buf` (at least prefix.size() +
// kMaxKeyDigits bytes) and returns it. Keys with different prefixes (e.g.
// "present:" and "absent:") are distinct.
inline std::string_view FormatKey(std::string_view prefix, uint64_t i,
                                  char* buf) {
  prefix.copy(buf, prefix.size());
  char* end =
      std::to_chars(buf + prefix.size(), buf + prefix.size() + kMaxKeyDigits, i)
          .ptr;
  return std::string_view(buf, static_cast<size_t>(end - buf));
}

// Hashes of the distinct strings "<prefix><i>" for i in [0, count). Sets
// with different prefixes (e.g. "present:" and "absent:") are disjoint.
inline std::vector<uint64_t> HashStrings(std::string_view prefix,
                                         uint64_t count) {
  std::vector<uint64_t> hashes(count);
  std::vector<char> buf(prefix.size() + kMaxKeyDigits);
  for (uint64_t i = 0; i < count; ++i) {
    hashes[i] = HashKey(FormatKey(prefix, i, buf.data()));
  }
  return hashes;
}

}  // namespace sstfilter::bench
