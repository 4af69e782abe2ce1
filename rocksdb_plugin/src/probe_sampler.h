// The seam between LevelAware's learning and the readers: a table whose
// probes are learned from hands its reader a ProbeSampler, and the reader
// reports one probe in LevelWorkload::kSampleEvery (counted per thread) to
// it. A reader without one (every policy but LevelAware, learn=false, a
// block this process did not build) pays nothing for the seam.
#pragma once

#include <string_view>

namespace sstfilter::rocksdb_plugin {

class ProbeSampler {
 public:
  virtual ~ProbeSampler() = default;
  // One sampled probe of `key`, and what the filter answered.
  virtual void Record(std::string_view key, bool may_match) const = 0;
};

}  // namespace sstfilter::rocksdb_plugin
