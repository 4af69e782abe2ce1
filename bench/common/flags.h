// bench/common/flags.h: a scenario's command-line flags, "--name VALUE" and
// "--name" alone, read the same way by every scenario of both instruments.
// A scenario asks for each flag it knows; `Done` then refuses a flag nobody
// asked for and a value that did not parse, so a misspelt flag never runs
// a measurement with its default.
#pragma once

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace sstfilter::bench {

class Flags {
 public:
  // argv[0] names the scenario; the flags follow.
  Flags(int argc, char** argv) : name_(argc > 0 ? argv[0] : "") {
    for (int i = 1; i < argc; ++i) args_.push_back({argv[i], false});
  }

  // True if "--name" is given (and takes it).
  bool Switch(std::string_view name) {
    for (Arg& arg : args_) {
      if (!arg.used && arg.text == name) return arg.used = true;
    }
    return false;
  }

  // Sets *value from "--name VALUE" if given; leaves it otherwise. A value
  // that does not parse as a whole is an error for `Done`.
  template <typename T>
  Flags& Get(std::string_view name, T* value) {
    for (size_t i = 0; i + 1 < args_.size(); ++i) {
      if (args_[i].used || args_[i].text != name) continue;
      args_[i].used = args_[i + 1].used = true;
      if (!Parse(args_[i + 1].text, value)) bad_ = std::string(name);
      return *this;
    }
    return *this;
  }

  // True if every argument was asked for and parsed, and `valid` holds;
  // else prints what is wrong and `usage` to stderr.
  bool Done(const char* usage, bool valid = true) const {
    for (const Arg& arg : args_) {
      if (!arg.used) return Refuse(usage, "unknown argument " + arg.text);
    }
    if (!bad_.empty()) return Refuse(usage, "bad value of " + bad_);
    if (!valid) return Refuse(usage, "values out of range");
    return true;
  }

 private:
  struct Arg {
    std::string text;
    bool used;
  };

  static bool Parse(const std::string& text, std::string* value) {
    *value = text;
    return true;
  }
  static bool Parse(const std::string& text, bool* value) {
    *value = text == "1" || text == "true";
    return *value || text == "0" || text == "false";
  }
  template <typename T>
  static bool Parse(const std::string& text, T* value) {
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, *value);
    return ec == std::errc() && ptr == end;
  }

  bool Refuse(const char* usage, const std::string& why) const {
    std::fprintf(stderr, "%s: %s\nusage: %s %s\n", name_.c_str(), why.c_str(),
                 name_.c_str(), usage);
    return false;
  }

  std::string name_;
  std::vector<Arg> args_;
  std::string bad_;
};

}  // namespace sstfilter::bench
