#include "sstfilter/status.h"

namespace sstfilter {

std::string Status::ToString() const {
  const char* name = "OK";
  switch (code_) {
    case StatusCode::kOk:
      return "OK";
    case StatusCode::kNotFound:
      name = "NotFound";
      break;
    case StatusCode::kTooManyDuplicates:
      name = "TooManyDuplicates";
      break;
    case StatusCode::kCapacityExceeded:
      name = "CapacityExceeded";
      break;
    case StatusCode::kInvalidArgument:
      name = "InvalidArgument";
      break;
    case StatusCode::kCorruption:
      name = "Corruption";
      break;
    case StatusCode::kNotSupported:
      name = "NotSupported";
      break;
  }
  return std::string(name) + ": " + message_;
}

}  // namespace sstfilter
