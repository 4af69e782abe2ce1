// bench/filter/compare_measure.h: how sstfilter-filter-bench compare measures.
// Keys, filters built the way a table builder builds them (with the builder's
// peak heap, alloc_meter.h), queries one at a time and in batches, the FPR
// count, the split of a query into hashing and probing, and the per-repeat
// timings with their medians and ratios.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "alloc_meter.h"
#include "keys.h"
#include "results.h"
#include "rocksdb/filter_policy.h"
#include "sstfilter/filter_view.h"
#include "table/block_based/filter_policy_internal.h"

namespace sstfilter::bench {

namespace rdb = ROCKSDB_NAMESPACE;

inline constexpr int kBatch = 32;  // MultiGetContext::MAX_BATCH_SIZE

// ---------------------------------------------------------------- keys

// Keys "<prefix><i>" stored back to back, with Slices (and the Slice
// pointers batched MayMatch takes) over them once Seal()ed.
class KeyList {
 public:
  void Reserve(size_t keys) {
    bytes_.reserve(keys * 16);
    ends_.reserve(keys);
  }
  void Add(std::string_view prefix, uint64_t i) {
    const size_t at = bytes_.size();
    bytes_.resize(at + prefix.size() + kMaxKeyDigits);
    const size_t length = FormatKey(prefix, i, bytes_.data() + at).size();
    bytes_.resize(at + length);
    ends_.push_back(bytes_.size());
  }
  void Seal() {
    slices_.clear();
    pointers_.clear();
    size_t begin = 0;
    for (size_t end : ends_) {
      slices_.emplace_back(bytes_.data() + begin, end - begin);
      begin = end;
    }
    for (auto& slice : slices_) pointers_.push_back(&slice);
  }
  void Clear() {
    bytes_.clear();
    ends_.clear();
    slices_.clear();
    pointers_.clear();
  }
  size_t size() const { return slices_.size(); }
  const rdb::Slice& operator[](size_t i) const { return slices_[i]; }
  rdb::Slice** pointers(size_t first) { return pointers_.data() + first; }

 private:
  std::string bytes_;
  std::vector<size_t> ends_;
  std::vector<rdb::Slice> slices_;
  std::vector<rdb::Slice*> pointers_;
};

KeyList MakeKeys(std::string_view prefix, uint64_t first, uint64_t count);

inline constexpr char kPresent[] = "present:";
inline constexpr char kAbsent[] = "absent:";

// ---------------------------------------------------------------- timing

using Clock = std::chrono::steady_clock;

inline double NanosSince(Clock::time_point start) {
  return std::chrono::duration<double, std::nano>(Clock::now() - start).count();
}

// Reports a correctness failure; main() then exits non-zero (Failed()).
void Fail(const std::string& why);
bool Failed();

// One policy at one configuration, behind the two factory calls RocksDB
// makes.
struct Subject {
  std::string name;  // "bloomfilter", "BlockedBloom", ...
  std::string id;    // as configured
  std::function<rdb::FilterBitsBuilder*(const rdb::FilterBuildingContext&)>
      new_builder;
  std::function<rdb::FilterBitsReader*(const rdb::Slice&)> new_reader;
};

// The subject of the policy FilterPolicy::CreateFromString makes of `id`;
// false, after Fail, if it makes none.
bool SubjectOfPolicy(const std::string& name, const std::string& id,
                     Subject* out);

// ---------------------------------------------------------------- filters

struct Filter {
  std::unique_ptr<const char[]> buf;
  rdb::Slice contents;
  std::unique_ptr<rdb::FilterBitsReader> reader;
  uint64_t num_keys = 0;
  double BitsPerKey() const {
    return num_keys == 0 ? 0 : contents.size() * 8.0 / num_keys;
  }
};

// Builds `out` from the keys for_each_key(add) passes to add, the way a
// table builder does: a new builder per filter, AddKey per key, Finish,
// builder destroyed. Returns the nanoseconds that took. With `peak_heap`,
// also the most heap the builder held at once beyond what was held before
// (the filter it returns included).
template <class ForEachKey>
double BuildFilterFrom(const Subject& subject,
                       const rdb::FilterBuildingContext& context,
                       ForEachKey&& for_each_key, Filter* out,
                       size_t* peak_heap = nullptr) {
  const size_t heap_base = alloc_meter::HeapBytesInUse();
  alloc_meter::ResetHeapPeak();
  const Clock::time_point start = Clock::now();
  std::unique_ptr<rdb::FilterBitsBuilder> builder(subject.new_builder(context));
  if (builder == nullptr) {
    Fail(subject.id + ": GetBuilderWithContext returned no builder");
    return 0;
  }
  uint64_t added = 0;
  for_each_key([&](const rdb::Slice& key) {
    builder->AddKey(key);
    ++added;
  });
  out->contents = builder->Finish(&out->buf);
  builder.reset();
  const double nanos = NanosSince(start);
  if (peak_heap != nullptr)
    *peak_heap = alloc_meter::HeapPeakBytes() - heap_base;
  out->num_keys = added;
  out->reader.reset(subject.new_reader(out->contents));
  return nanos;
}

double BuildFilter(const Subject& subject,
                   const rdb::FilterBuildingContext& context,
                   const KeyList& keys, Filter* out,
                   size_t* peak_heap = nullptr);

// What a filter's bytes are, from their format: "BlockedBloom k=7/2",
// "Cuckoo f=12", "FastLocalBloom k=6", "Ribbon".
std::string Describe(const rdb::Slice& contents);

// A filter probed with a hash computed beforehand, to split a query's cost
// into hashing and probing: RocksDB's formats through their reader's
// HashMayMatch (hash: rocksdb::Hash64), ours through the filter/ views
// (hash: sstfilter::HashKey).
class HashProbe {
 public:
  void Init(const Filter& filter) {
    const std::string_view bytes(filter.contents.data(),
                                 filter.contents.size());
    ours_ = FilterView::Parse(bytes, &view_).ok();
    if (!ours_) {
      reader_ =
          dynamic_cast<rdb::BuiltinFilterBitsReader*>(filter.reader.get());
    }
  }
  bool operator()(uint64_t hash) const {
    if (!ours_) return reader_ == nullptr || reader_->HashMayMatch(hash);
    return view_.MayContain(hash);
  }
  bool ours() const { return ours_; }

 private:
  bool ours_ = false;
  rdb::BuiltinFilterBitsReader* reader_ = nullptr;
  FilterView view_;
};

uint64_t HashOf(bool ours, const rdb::Slice& key);

// ---------------------------------------------------------------- queries

uint64_t QueryEach(rdb::FilterBitsReader* reader, const KeyList& keys);
uint64_t QueryBatches(rdb::FilterBitsReader* reader, KeyList& keys);

// Absent keys "absent:<first>" onwards, queried `count` at a time in
// batches; returns the positives. Stops early, once at least `min_count`
// were queried, if `enough_positives` (> 0) were seen.
uint64_t CountFalsePositives(rdb::FilterBitsReader* reader, uint64_t count,
                             uint64_t min_count, uint64_t enough_positives,
                             uint64_t* queried);

// ---------------------------------------------------------------- results

// Timed metrics, in table order: key, what it is.
inline const std::pair<const char*, const char*> kMetrics[] = {
    {"build_a", "build ns/key, 1e4 keys"},
    {"build_1e6", "build ns/key, 1e6 keys"},
    {"build_b", "build ns/key, (b) files"},
    {"a_absent", "(a) absent"},
    {"a_present", "(a) present"},
    {"b_absent", "(b) absent"},
    {"b_present", "(b) present"},
    {"c_absent", "(c) batched absent, (a) filter"},
    {"c_present", "(c) batched present, (a) filter"},
    {"cb_absent", "(c) batched absent, (b) filters"},
    {"cb_present", "(c) batched present, (b) filters"},
};

struct Row {
  std::string group;  // nominal bits/key, e.g. "10"
  Subject subject;
  std::string built;          // Describe() of the 1e6-key filter
  double bits_per_key = 0;    // stored, 1e6-key filter
  double bits_per_key_a = 0;  // stored, (a) filter
  double fpr = 0;             // 1e6-key filter
  uint64_t fpr_queries = 0;
  double peak_bytes_per_key = 0;  // builder's peak heap, 1e6 keys
  double many_bits_per_key = 0;   // all (b) filters
  double many_mib = 0;
  double many_fpr = 0;
  std::map<std::string, std::vector<double>> ns;  // metric -> per repeat

  double Median(const std::string& metric) const {
    auto it = ns.find(metric);
    return it == ns.end() ? std::nan("") : bench::Median(it->second);
  }
};

// Median over repeats of row/ref, where ref is the faster of `refs` in
// each repeat.
double Ratio(const Row& row, const std::vector<const Row*>& refs,
             const std::string& metric);

struct SweepPoint {
  std::string policy;
  double nominal = 0;  // bits/key asked for, or f for the cuckoo filter
  double bits_per_key = 0;
  double fpr = 0;
  uint64_t queries = 0;
  uint64_t positives = 0;
};

struct SizePoint {
  std::string policy;
  size_t filters = 0;
  double mib = 0;
  std::vector<double> ns;
};

}  // namespace sstfilter::bench
