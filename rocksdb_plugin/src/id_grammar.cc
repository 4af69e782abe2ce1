#include "id_grammar.h"

#include <climits>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace sstfilter::rocksdb_plugin {

using RocksStatus = ROCKSDB_NAMESPACE::Status;

bool ParseDecimalMillis(std::string_view text, int64_t* millis) {
  auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  size_t i = 0;
  int64_t whole = 0;
  for (; i < text.size() && is_digit(text[i]); ++i) {
    whole = whole * 10 + (text[i] - '0');
    if (whole > INT32_MAX) return false;
  }
  if (i == 0) return false;
  int64_t fraction = 0;  // thousandths
  int64_t scale = 100;
  bool round_up = false;
  if (i < text.size()) {
    if (text[i] != '.' || i + 1 == text.size()) return false;
    for (++i; i < text.size(); ++i) {
      if (!is_digit(text[i])) return false;
      if (scale > 0) {
        fraction += (text[i] - '0') * scale;
        scale /= 10;
      } else if (scale == 0) {
        round_up = text[i] >= '5';
        scale = -1;
      }
    }
  }
  *millis = whole * 1000 + fraction + (round_up ? 1 : 0);
  return true;
}

std::string FormatDecimalMillis(int64_t millis) {
  std::string text = std::to_string(millis / 1000);
  if (millis % 1000 != 0) {
    char fraction[8];
    std::snprintf(fraction, sizeof(fraction), ".%03d",
                  static_cast<int>(millis % 1000));
    text += fraction;
    while (text.back() == '0') text.pop_back();
  }
  return text;
}

bool ParseInt(std::string_view text, int* value) {
  bool negative = false;
  if (!text.empty() && text[0] == '-') {
    negative = true;
    text.remove_prefix(1);
  }
  int64_t millis;
  if (text.find('.') != std::string_view::npos ||
      !ParseDecimalMillis(text, &millis)) {
    return false;
  }
  *value = static_cast<int>((negative ? -millis : millis) / 1000);
  return true;
}

std::vector<std::string_view> FieldsAfter(std::string_view id,
                                          std::string_view name) {
  std::vector<std::string_view> fields;
  if (id.size() == name.size()) return fields;
  id.remove_prefix(name.size() + 1);  // the pattern matched "<name>:"
  for (;;) {
    const size_t colon = id.find(':');
    fields.push_back(id.substr(0, colon));
    if (colon == std::string_view::npos) return fields;
    id.remove_prefix(colon + 1);
  }
}

RocksStatus CheckFieldCount(const std::vector<std::string_view>& fields,
                            size_t max_fields, const char* usage) {
  if (fields.empty() || fields.size() > max_fields) {
    return RocksStatus::InvalidArgument(std::string("expected ") + usage);
  }
  return RocksStatus::OK();
}

RocksStatus ParseBitsPerKey(std::string_view text, int64_t min_millibits,
                            int64_t max_millibits, int64_t* millibits) {
  if (!ParseDecimalMillis(text, millibits)) {
    return RocksStatus::InvalidArgument(
        "bits per key \"" + std::string(text) +
        "\" is not a non-negative decimal like 10 or 9.9");
  }
  if (*millibits < min_millibits || *millibits > max_millibits) {
    return RocksStatus::InvalidArgument(
        "bits per key " + std::string(text) + " is outside " +
        FormatDecimalMillis(min_millibits) + ".." +
        FormatDecimalMillis(max_millibits));
  }
  return RocksStatus::OK();
}

RocksStatus ParseBloomSizedFields(const std::vector<std::string_view>& fields,
                                  size_t max_fields, const char* usage,
                                  int64_t* millibits) {
  const RocksStatus s = CheckFieldCount(fields, max_fields, usage);
  if (!s.ok()) return s;
  return ParseBitsPerKey(fields[0], kMinBloomMillibits, kMaxMillibits,
                         millibits);
}

}  // namespace sstfilter::rocksdb_plugin
