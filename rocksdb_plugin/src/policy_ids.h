// What the policy files share: the id helpers of policies.cc and the makers
// of the policies that live in files of their own.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rocksdb/filter_policy.h"
#include "rocksdb/status.h"

namespace sstfilter::rocksdb_plugin {

// Parses a bits/key of a BlockedBloom-sized policy ("10", "9.9"; 1..100)
// into thousandths; InvalidArgument saying why otherwise.
ROCKSDB_NAMESPACE::Status ParseBloomBitsPerKey(std::string_view text,
                                               int64_t* millibits);

// "<digits>[.<digits>]" into thousandths, rounding half up; false if
// malformed.
bool ParseDecimalMillis(std::string_view text, int64_t* millis);

// The shortest decimal for `millis` thousandths: "10", "9.9", "6.667".
std::string FormatDecimalMillis(int64_t millis);

// "sstfilter.LevelAware" (level_aware_policy.cc).
inline constexpr char kLevelAwareName[] = "sstfilter.LevelAware";

// Makes sstfilter.LevelAware from the id's fields after its name:
// <avg_bits_per_key>[:<size_ratio>].
ROCKSDB_NAMESPACE::Status NewLevelAware(
    const std::vector<std::string_view>& fields,
    std::unique_ptr<const ROCKSDB_NAMESPACE::FilterPolicy>* policy);

}  // namespace sstfilter::rocksdb_plugin
