// Little-endian loads and stores that are safe at any alignment.
#pragma once

#include <cstdint>
#include <cstring>

namespace sstfilter::detail {

template <typename T>
inline T LoadLittleEndian(const void* p) {
  T v;
  std::memcpy(&v, p, sizeof(v));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  if constexpr (sizeof(T) == 8) v = __builtin_bswap64(v);
  if constexpr (sizeof(T) == 4) v = __builtin_bswap32(v);
  if constexpr (sizeof(T) == 2) v = __builtin_bswap16(v);
#endif
  return v;
}

template <typename T>
inline void StoreLittleEndian(void* p, T v) {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  if constexpr (sizeof(T) == 8) v = __builtin_bswap64(v);
  if constexpr (sizeof(T) == 4) v = __builtin_bswap32(v);
  if constexpr (sizeof(T) == 2) v = __builtin_bswap16(v);
#endif
  std::memcpy(p, &v, sizeof(v));
}

}  // namespace sstfilter::detail
