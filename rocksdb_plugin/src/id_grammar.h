// The grammar of the policies' ids, "<name>[:<field>...]": the fields
// after a name, and the decimals they hold. Bits per key and size ratios
// are kept in thousandths, as RocksDB keeps "millibits", so that an id such
// as "9.9" reads back exactly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "rocksdb/status.h"

namespace sstfilter::rocksdb_plugin {

// The bits/key a BlockedBloom-sized policy takes: 1..100 (RocksDB caps
// bloomfilter at 100).
inline constexpr int64_t kMinBloomMillibits = 1000;
inline constexpr int64_t kMaxMillibits = 100000;

// The id's fields after "<name>:", e.g. {"10", "1"} for
// "sstfilter.Hybrid:10:1"; {} for the bare name. `id` starts with `name`.
std::vector<std::string_view> FieldsAfter(std::string_view id,
                                          std::string_view name);

// OK if there are 1..max_fields fields; otherwise InvalidArgument
// "expected <usage>".
ROCKSDB_NAMESPACE::Status CheckFieldCount(
    const std::vector<std::string_view>& fields, size_t max_fields,
    const char* usage);

// "<digits>[.<digits>]" into thousandths, rounding half up; false if
// malformed.
bool ParseDecimalMillis(std::string_view text, int64_t* millis);

// The shortest decimal for `millis` thousandths: "10", "9.9", "6.667".
std::string FormatDecimalMillis(int64_t millis);

// An optionally signed decimal int; false if malformed.
bool ParseInt(std::string_view text, int* value);

// A bits/key field into thousandths within [min_millibits, max_millibits];
// InvalidArgument saying why otherwise.
ROCKSDB_NAMESPACE::Status ParseBitsPerKey(std::string_view text,
                                          int64_t min_millibits,
                                          int64_t max_millibits,
                                          int64_t* millibits);

// The fields of a BlockedBloom-sized policy: 1..max_fields of them (else
// InvalidArgument "expected <usage>"), the first a bits/key of 1..100.
ROCKSDB_NAMESPACE::Status ParseBloomSizedFields(
    const std::vector<std::string_view>& fields, size_t max_fields,
    const char* usage, int64_t* millibits);

}  // namespace sstfilter::rocksdb_plugin
