#include "output_format.h"

#include <cstdarg>
#include <cstdio>

namespace sstfilter::inspect {

std::string Printf(const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list copy;
  va_copy(copy, args);
  const int length = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  std::string out(length > 0 ? static_cast<size_t>(length) : 0, '\0');
  std::vsnprintf(out.data(), out.size() + 1, format, args);
  va_end(args);
  return out;
}

std::string Percent(double fraction) {
  return Printf("%.3g%%", 100 * fraction);
}

std::string JsonString(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += Printf("\\u%04x", c);
    }
  }
  return out + "\"";
}

std::string JsonNumber(double value) { return Printf("%.6g", value); }

}  // namespace sstfilter::inspect
