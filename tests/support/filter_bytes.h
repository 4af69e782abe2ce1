// Filters written as the RocksDB builder writes them, for tests that
// compare bytes or build at a chosen shape.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sstfilter/blocked_bloom.h"

namespace sstfilter::test_support {

// The BlockedBloom of `params` holding `hashes`, through the caller-owned-
// buffer writer (the RocksDB builder's path).
inline std::string WriteBlockedBloom(const BlockedBloomParams& params,
                                     const std::vector<uint64_t>& hashes) {
  std::string out(params.SerializedSize(), '\0');
  BlockedBloomWriter writer(params, reinterpret_cast<uint8_t*>(out.data()));
  writer.AddBatch(hashes.data(), hashes.size());
  return out;
}

}  // namespace sstfilter::test_support
