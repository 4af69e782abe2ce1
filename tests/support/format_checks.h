// Checks shared by the format tests of every filter kind.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "sstfilter/format.h"
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

// Recomputes the checksum of a v2 filter's metadata, the last
// `metadata_bytes` of `bytes` (format.h), so that a test can change a field
// and reach the field's own check.
inline void ResealMetadata(std::string* bytes, size_t metadata_bytes) {
  const size_t at = bytes->size() - metadata_bytes;
  const uint32_t checksum =
      MetadataChecksum(std::string_view(*bytes).substr(at + 4));
  for (int i = 0; i < 4; ++i) {
    (*bytes)[at + i] = static_cast<char>(checksum >> (8 * i));
  }
}

// Expects every change of one byte of the last `metadata_bytes` of a valid
// filter to be refused: the checksum (or the tag) catches it, so a damaged
// header never reads as another filter.
template <typename View>
void ExpectEveryMetadataByteChecked(const std::string& valid,
                                    size_t metadata_bytes) {
  for (size_t at = valid.size() - metadata_bytes; at < valid.size(); ++at) {
    for (int flip : {0x01, 0x80, 0xff}) {
      std::string b = valid;
      b[at] = static_cast<char>(b[at] ^ flip);
      View view;
      EXPECT_FALSE(View::Parse(b, &view).ok())
          << "byte " << at << " ^ " << flip << " was accepted";
    }
  }
}

}  // namespace sstfilter::test_support
