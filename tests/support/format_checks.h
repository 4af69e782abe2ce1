// Checks shared by the format tests of every filter kind.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "sstfilter/status.h"

namespace sstfilter::test_support {

// Lower-case hex of `bytes`, for spelling golden vectors out.
inline std::string Hex(std::string_view bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : bytes) {
    hex += kDigits[c >> 4];
    hex += kDigits[c & 15];
  }
  return hex;
}

// Expects View::Parse to reject `bytes` with `code` and a message that
// contains `message_part` (so the error says what is wrong).
template <typename View>
void ExpectParseError(std::string_view bytes, StatusCode code,
                      const std::string& message_part) {
  View view;
  const Status s = View::Parse(bytes, &view);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), code) << s.ToString();
  EXPECT_NE(s.message().find(message_part), std::string::npos)
      << "message was: " << s.message();
}

}  // namespace sstfilter::test_support
