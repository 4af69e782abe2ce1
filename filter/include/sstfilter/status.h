// sstfilter/status.h: the result type of every fallible filter operation.
#pragma once

#include <string>
#include <utility>

namespace sstfilter {

// What happened, in a word. Mirrors the small status enums of Fan et al.'s
// cuckoofilter code rather than throwing.
enum class StatusCode {
  kOk,
  kNotFound,           // Erase() of an item that is not there
  kTooManyDuplicates,  // a cuckoo bucket pair already holds 2*b copies
  kCapacityExceeded,   // a size limit of the format would be exceeded
  kInvalidArgument,    // a parameter out of its documented range
  kCorruption,         // bytes that are not a valid filter
  kNotSupported,       // a valid header of a kind or version we do not know
};

// A StatusCode plus a human-readable message. Cheap when ok().
class Status {
 public:
  Status() = default;
  static Status Ok() { return Status(); }
  static Status NotFound(std::string msg) {
    return Status(StatusCode::kNotFound, std::move(msg));
  }
  static Status TooManyDuplicates(std::string msg) {
    return Status(StatusCode::kTooManyDuplicates, std::move(msg));
  }
  static Status CapacityExceeded(std::string msg) {
    return Status(StatusCode::kCapacityExceeded, std::move(msg));
  }
  static Status InvalidArgument(std::string msg) {
    return Status(StatusCode::kInvalidArgument, std::move(msg));
  }
  static Status Corruption(std::string msg) {
    return Status(StatusCode::kCorruption, std::move(msg));
  }
  static Status NotSupported(std::string msg) {
    return Status(StatusCode::kNotSupported, std::move(msg));
  }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  // Empty when ok().
  const std::string& message() const { return message_; }
  // "OK" or "<Code>: <message>".
  std::string ToString() const;

 private:
  Status(StatusCode code, std::string msg)
      : code_(code), message_(std::move(msg)) {}
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

}  // namespace sstfilter
