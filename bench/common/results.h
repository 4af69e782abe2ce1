// bench/common/results.h: what both instruments report the same way: the
// median of repeated measurements, and one "RESULT key=value ..." line per
// run or stage, which bench/common/results.sh reads back (`field`).
#pragma once

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace sstfilter::bench {

// The median of `v` (the mean of the middle two if its size is even); NaN
// if empty.
inline double Median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const size_t mid = v.size() / 2;
  return v.size() % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

// One line "RESULT key=value ...": values hold no spaces, keys are
// snake_case, and a number is printed with the decimals it is asked for.
class ResultLine {
 public:
  ResultLine& Text(std::string_view key, std::string_view value) {
    line_ += ' ';
    line_ += key;
    line_ += '=';
    line_ += value;
    return *this;
  }
  ResultLine& Int(std::string_view key, uint64_t value) {
    return Text(key, std::to_string(value));
  }
  ResultLine& Real(std::string_view key, double value, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.*f", decimals, value);
    return Text(key, buf);
  }
  // "rocksdb=MAJOR.MINOR.PATCH", the release the binary links.
  ResultLine& RocksdbVersion(int major, int minor, int patch) {
    return Text("rocksdb", std::to_string(major) + "." + std::to_string(minor) +
                               "." + std::to_string(patch));
  }
  void Print() const { std::printf("%s\n", line_.c_str()); }

 private:
  std::string line_ = "RESULT";
};

}  // namespace sstfilter::bench
