// bench/filter/compare_groups.cc: what sstfilter-filter-bench compare runs: the
// groups of policies side by side, the sizes of a smoke run, and the L3 size
// the many-filter scenario is sized from (compare_scenarios.h).
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "compare_scenarios.h"

namespace sstfilter::bench {

// The L3 size from sysfs ("32768K"); sysconf's figure is wrong under some
// hypervisors (it says 320 MiB on the KVM guest this was written on). 32
// MiB if unknown.
uint64_t L3Bytes() {
  std::ifstream in("/sys/devices/system/cpu/cpu0/cache/index3/size");
  uint64_t size = 0;
  char unit = 0;
  if (in >> size >> unit && size > 0) {
    return size << (unit == 'M' ? 20 : unit == 'K' ? 10 : 0);
  }
  return uint64_t{32} << 20;
}

Sizes SmokeSizes() {
  Sizes s;
  s.repeats = 1;
  s.cache_keys = 1'000;
  s.cache_absent = 1 << 12;
  s.queries_per_sample = 1 << 14;
  s.build_keys_per_sample = 1 << 12;
  s.fpr_keys = 10'000;
  s.fpr_queries = 100'000;
  s.many_min_keys = 1'000;
  s.many_max_keys = 5'000;
  s.many_total_bytes = 256 << 10;
  s.many_queries = 1 << 12;
  s.cuckoo_n = {1'000, 4'097};
  s.sweep_bits = {6, 12};
  return s;
}

std::string Num(double bits) {
  std::ostringstream s;
  s << bits;
  return s.str();
}

std::vector<Group> Groups() {
  std::vector<Group> groups;
  for (double bits : {10.0, 16.0}) {
    const std::string b = Num(bits);
    groups.push_back(
        {b,
         bits,
         {{kBloom, "bloomfilter:" + b},
          {kRibbon, "ribbonfilter:" + b},
          {"BlockedBloom", "sstfilter.BlockedBloom:" + b},
          {"BlockedBloom 1 line", "sstfilter.BlockedBloom:" + b + ":1"},
          {"Cuckoo", "sstfilter.Cuckoo:" + b},
          {"Hybrid", "sstfilter.Hybrid:" + b}}});
  }
  // The readers of the two layouts given a sampler, as LevelAware's
  // learning gives them one, beside the same readers without.
  for (const char* layout : {"BlockedBloom", "BlockedBloom 1 line"}) {
    const std::string id = std::string("sstfilter.BlockedBloom:10") +
                           (std::string(layout) == "BlockedBloom" ? "" : ":1");
    groups[0].subjects.push_back(
        {std::string(layout) + kSampledSuffix, "sampled:" + id});
  }
  // The cuckoo filter at f = 12 (about 12.5 bits/key) beside the others at
  // its size.
  groups.push_back(
      {"12.5",
       12.5,
       {{kBloom, "bloomfilter:12.5"},
        {kRibbon, "ribbonfilter:12.5"},
        {"BlockedBloom", "sstfilter.BlockedBloom:12.5"},
        {"Cuckoo f=12", "id=sstfilter.Cuckoo:12.5;fingerprint_bits=12"}}});
#ifdef SSTFILTER_FAST_LOCAL_BLOOM_AVX2
  // Against a generic librocksdb, RocksDB's Bloom built for this machine
  // too; against a native build, bloomfilter itself is that reference.
  for (Group& group : groups) {
    group.subjects.insert(
        group.subjects.begin() + 1,
        {kFastLocalBloomAvx2,
         std::string(kFastLocalBloomAvx2) + ":" + group.name});
  }
#endif
  return groups;
}

}  // namespace sstfilter::bench
