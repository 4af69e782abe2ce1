// output_format.h: the number and string formatting that the inspector's
// text and JSON outputs share (the per-file reports and the DB summary).
#pragma once

#include <string>

namespace sstfilter::inspect {

// std::string from a printf format.
std::string Printf(const char* format, ...)
    __attribute__((format(printf, 1, 2)));

// 0.00853 -> "0.853%".
std::string Percent(double fraction);

// A JSON string. Bytes outside printable ASCII become \u00NN (each byte
// read as a Latin-1 character), so any bytes give valid JSON.
std::string JsonString(const std::string& text);

// A JSON number with 6 significant digits.
std::string JsonNumber(double value);

}  // namespace sstfilter::inspect
