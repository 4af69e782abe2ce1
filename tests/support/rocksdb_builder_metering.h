// Shared by the builder memory suites: one filter built through a policy's
// builder from keys made one at a time (no key set is held, so only the
// builder's own memory grows), with its peak heap counted by
// alloc_meter (rocksdb_plugin/support/), which the test binary links.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include "alloc_meter.h"
#include "rocksdb_test_support.h"

namespace sstfilter::test_support {

// Key i of a distinct, sorted sequence, written over `out`: the 8-byte
// `tag`, then i as 8 big-endian bytes (16 bytes, the size of db_bench's
// keys). Different tags give disjoint sequences.
inline constexpr size_t kSequenceKeySize = 16;
inline rdb::Slice SequenceKey(const char (&tag)[9], uint64_t i,
                              char (&out)[kSequenceKeySize]) {
  for (size_t b = 0; b < 8; ++b) {
    out[b] = tag[b];
    out[15 - b] = static_cast<char>(i >> (8 * b));
  }
  return rdb::Slice(out, kSequenceKeySize);
}

// The keys a metered build adds, and keys it never adds.
inline constexpr char kPresentTag[] = "present:";
inline constexpr char kAbsentTag[] = "absent::";

struct MeteredBuild {
  std::unique_ptr<const char[]> owner;
  rdb::Slice filter;
  size_t entries_added = 0;
  // The heap's peak while keys were added and the filter finished, less
  // what was held before and the filter itself, per key.
  double peak_bytes_per_key_beyond_filter = 0;
  double add_seconds = 0;
  double finish_seconds = 0;
};

// Adds keys 0 .. num_keys-1 of kPresentTag to a new builder of `policy`
// (default table options but optimize_filters_for_memory, whose default
// changed in RocksDB 9.2) and finishes it.
inline MeteredBuild BuildMetered(const rdb::FilterPolicy& policy,
                                 uint64_t num_keys,
                                 bool optimize_filters_for_memory = false) {
  using Clock = std::chrono::steady_clock;
  rdb::BlockBasedTableOptions table_options;
  table_options.optimize_filters_for_memory = optimize_filters_for_memory;
  std::unique_ptr<rdb::FilterBitsBuilder> builder(
      policy.GetBuilderWithContext(rdb::FilterBuildingContext(table_options)));
  MeteredBuild build;
  const size_t baseline = alloc_meter::HeapBytesInUse();
  alloc_meter::ResetHeapPeak();
  const auto start = Clock::now();
  char key[kSequenceKeySize];
  for (uint64_t i = 0; i < num_keys; ++i) {
    builder->AddKey(SequenceKey(kPresentTag, i, key));
  }
  build.entries_added = builder->EstimateEntriesAdded();
  const auto added = Clock::now();
  build.filter = builder->Finish(&build.owner);
  const auto finished = Clock::now();
  build.peak_bytes_per_key_beyond_filter =
      (static_cast<double>(alloc_meter::HeapPeakBytes()) -
       static_cast<double>(baseline) -
       static_cast<double>(build.filter.size())) /
      static_cast<double>(num_keys);
  build.add_seconds = std::chrono::duration<double>(added - start).count();
  build.finish_seconds =
      std::chrono::duration<double>(finished - added).count();
  return build;
}

}  // namespace sstfilter::test_support
