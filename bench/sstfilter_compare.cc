// sstfilter-compare: every filter policy, ours and RocksDB's, driven the way
// RocksDB drives it (FilterPolicy::GetBuilderWithContext -> AddKey / Finish,
// GetFilterBitsReader -> MayMatch), on the same keys in the same run.
//
// Subjects, per bits/key group: RocksDB's "bloomfilter" and "ribbonfilter"
// from the librocksdb it links; against Debian's generic librocksdb also
// "FastLocalBloom-AVX2", RocksDB's FastLocalBloomImpl built for this machine
// (fast_local_bloom_avx2.h), which a RocksDB built from source for this
// machine does not need; and sstfilter.BlockedBloom, sstfilter.Cuckoo and
// sstfilter.Hybrid.
//
// Scenarios:
//   (a) cache-resident: one filter of 1e4 keys, queried over and over;
//   (b) many filters of 1e4..1e5 keys each, at least 4x the L3 cache in
//       all, one random filter per query (an LSM tree with many SSTs);
//   (c) batched: 32 keys per MayMatch(num_keys, ...) call, as MultiGet
//       does, against the filter of (a) and against a random filter of (b).
// Besides: FPR on >= 1e7 absent keys of a 1e6-key filter, the builder's
// peak heap (alloc_meter.h), sweeps of FPR against bits/key with the
// theoretical curves, the cuckoo filter at f = 12 from 1e3 to 1e7 keys, and
// query time against the total size of the filters.
//
// Every timing is repeated (--repeats, default 5) with the subjects of a
// group interleaved, and the median is reported. A ratio is the median over
// the repetitions of (time / the reference's time in the same repetition),
// so that a load spike on the shared machine hits both sides.
//
// usage: sstfilter-compare [--smoke] [--repeats N] [--out DIR]
//                          [--no-sweeps]
// Writes DIR/compare.{md,csv,json}, DIR/sweep_fpr.csv, DIR/theory.csv,
// DIR/cuckoo_n.csv and DIR/sweep_size.csv (DIR defaults to bench/results).
// Exits non-zero if a filter misses a key it was built from, a policy
// cannot be made, or the AVX2 reference disagrees with RocksDB's bytes.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "alloc_meter.h"
#include "bench_keys.h"
#ifdef SSTFILTER_FAST_LOCAL_BLOOM_AVX2
#include "fast_local_bloom_avx2.h"
#else
// A RocksDB built from source: its own key hash (util/hash.h) is at hand.
#include "util/hash.h"
namespace sstfilter::bench {
inline uint64_t RocksDbKeyHash(const ROCKSDB_NAMESPACE::Slice& key) {
  return ROCKSDB_NAMESPACE::Hash64(key.data(), key.size());
}
}  // namespace sstfilter::bench
#endif
#include "rocksdb/convenience.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/object_registry.h"
#include "rocksdb/version.h"
#include "sstfilter/blocked_bloom.h"
#include "sstfilter/cuckoo_filter.h"
#include "sstfilter/format.h"
#include "sstfilter/rocksdb_plugin.h"
#include "table/block_based/filter_policy_internal.h"

namespace sstfilter::bench {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;

constexpr char kBloom[] = "bloomfilter";
constexpr char kFastLocalBloomAvx2[] = "FastLocalBloom-AVX2";
constexpr char kRibbon[] = "ribbonfilter";
constexpr int kBatch = 32;  // MultiGetContext::MAX_BATCH_SIZE

// ---------------------------------------------------------------- sizes

struct Sizes {
  int repeats = 5;
  uint64_t cache_keys = 10'000;     // (a), (c)
  uint64_t cache_absent = 1 << 18;  // distinct absent keys per pass
  uint64_t queries_per_sample = 1 << 20;
  uint64_t fpr_keys = 1'000'000;      // the filter FPR is measured on
  uint64_t fpr_queries = 10'000'000;  // absent keys per FPR
  uint64_t many_min_keys = 10'000;    // (b)
  uint64_t many_max_keys = 100'000;
  uint64_t many_total_bytes = 0;  // set from the L3 size
  uint64_t many_queries = 1 << 19;
  std::vector<uint64_t> cuckoo_n = {
      1'000,   1'500,     2'048,     2'500,     4'096,     5'000,     8'193,
      10'000,  16'384,    30'000,    65'536,    100'000,   131'073,   300'000,
      524'288, 1'000'000, 1'048'577, 3'000'000, 4'194'304, 10'000'000};
  std::vector<int> sweep_bits = {4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14,
                                 15, 16, 17, 18, 19, 20, 21, 22, 23, 24};
  bool sweeps = true;
};

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

KeyList MakeKeys(std::string_view prefix, uint64_t first, uint64_t count) {
  KeyList keys;
  keys.Reserve(count);
  for (uint64_t i = 0; i < count; ++i) keys.Add(prefix, first + i);
  keys.Seal();
  return keys;
}

constexpr char kPresent[] = "present:";
constexpr char kAbsent[] = "absent:";

// The prefix of filter j's keys in scenario (b).
std::string ManyPrefix(size_t filter) {
  return "f" + std::to_string(filter) + ":";
}

// ---------------------------------------------------------------- timing

using Clock = std::chrono::steady_clock;

double NanosSince(Clock::time_point start) {
  return std::chrono::duration<double, std::nano>(Clock::now() - start).count();
}

double Median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const size_t mid = v.size() / 2;
  return v.size() % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

// Set on any correctness failure; main() then exits non-zero.
bool g_failed = false;

void Fail(const std::string& why) {
  std::fprintf(stderr, "FAILED: %s\n", why.c_str());
  g_failed = true;
}

// ---------------------------------------------------------------- subjects

// One policy at one configuration, behind the two factory calls RocksDB
// makes.
struct Subject {
  std::string name;  // "bloomfilter", "BlockedBloom", ...
  std::string id;    // as configured
  std::function<rdb::FilterBitsBuilder*(const rdb::FilterBuildingContext&)>
      new_builder;
  std::function<rdb::FilterBitsReader*(const rdb::Slice&)> new_reader;
};

// `id` is a FilterPolicy::CreateFromString value, or
// "FastLocalBloom-AVX2:<bits_per_key>" for the AVX2 reference.
bool MakeSubject(const std::string& name, const std::string& id, Subject* out) {
  out->name = name;
  out->id = id;
#ifdef SSTFILTER_FAST_LOCAL_BLOOM_AVX2
  const std::string flb_prefix = std::string(kFastLocalBloomAvx2) + ":";
  if (id.rfind(flb_prefix, 0) == 0) {
    const int millibits = static_cast<int>(
        std::lround(std::stod(id.substr(flb_prefix.size())) * 1000));
    out->new_builder = [millibits](const rdb::FilterBuildingContext&) {
      return NewFastLocalBloomAvx2Builder(millibits);
    };
    out->new_reader = [](const rdb::Slice& contents) {
      return NewFastLocalBloomAvx2Reader(contents);
    };
    return true;
  }
#endif
  rdb::ConfigOptions config;
  config.ignore_unsupported_options = false;
  std::shared_ptr<const rdb::FilterPolicy> policy;
  const rdb::Status s =
      rdb::FilterPolicy::CreateFromString(config, id, &policy);
  if (!s.ok() || policy == nullptr) {
    Fail("cannot make policy \"" + id + "\": " + s.ToString());
    return false;
  }
  out->new_builder = [policy](const rdb::FilterBuildingContext& context) {
    return policy->GetBuilderWithContext(context);
  };
  out->new_reader = [policy](const rdb::Slice& contents) {
    return policy->GetFilterBitsReader(contents);
  };
  return true;
}

// The table options and the two kinds of file a filter is built for: a
// bottommost compaction output (most of an LSM tree's data, and the
// context of every single-filter measurement) and an L0 flush. Only
// ribbonfilter (Bloom for flushes) and sstfilter.Hybrid (BlockedBloom for
// flushes, Cuckoo otherwise) look at them.
struct Contexts {
  rdb::BlockBasedTableOptions table_options;
  rdb::FilterBuildingContext bottommost{table_options};
  rdb::FilterBuildingContext flush{table_options};
  Contexts() {
    for (auto* c : {&bottommost, &flush}) {
      c->compaction_style = rdb::kCompactionStyleLevel;
      c->num_levels = 7;
    }
    bottommost.level_at_creation = 6;
    bottommost.is_bottommost = true;
    bottommost.reason = rdb::TableFileCreationReason::kCompaction;
    flush.level_at_creation = 0;
    flush.reason = rdb::TableFileCreationReason::kFlush;
  }
  // Scenario (b): one file in ten is a flush.
  const rdb::FilterBuildingContext& ForFile(size_t j) const {
    return j % 10 == 0 ? flush : bottommost;
  }
};

// ---------------------------------------------------------------- filters

struct Filter {
  std::unique_ptr<const char[]> buf;
  rdb::Slice contents;
  std::unique_ptr<rdb::FilterBitsReader> reader;
  uint64_t num_keys = 0;
  double bits_per_key() const {
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
  const size_t heap_base = HeapBytesInUse();
  ResetHeapPeak();
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
  if (peak_heap != nullptr) *peak_heap = HeapPeakBytes() - heap_base;
  out->num_keys = added;
  out->reader.reset(subject.new_reader(out->contents));
  return nanos;
}

double BuildFilter(const Subject& subject,
                   const rdb::FilterBuildingContext& context,
                   const KeyList& keys, Filter* out,
                   size_t* peak_heap = nullptr) {
  return BuildFilterFrom(
      subject, context,
      [&](auto&& add) {
        for (size_t i = 0; i < keys.size(); ++i) add(keys[i]);
      },
      out, peak_heap);
}

// What a filter's bytes are, from their format: "BlockedBloom k=7/2",
// "Cuckoo f=12", "FastLocalBloom k=6", "Ribbon".
std::string Describe(const rdb::Slice& contents) {
  const std::string_view bytes(contents.data(), contents.size());
  FilterKind kind;
  uint8_t version;
  if (PeekFormat(bytes, &kind, &version).ok()) {
    if (kind == FilterKind::kBlockedBloom) {
      BlockedBloomView view;
      if (BlockedBloomView::Parse(bytes, &view).ok()) {
        return "BlockedBloom k=" + std::to_string(view.params().num_probes) +
               "/" + std::to_string(view.params().lines_per_key) + " lines";
      }
    } else if (kind == FilterKind::kCuckoo) {
      CuckooView view;
      if (CuckooView::Parse(bytes, &view).ok()) {
        return "Cuckoo f=" + std::to_string(view.fingerprint_bits());
      }
    }
    return "sstfilter?";
  }
  // RocksDB's metadata: the 5 bytes after the filter
  // (BuiltinFilterPolicy::GetBuiltinFilterBitsReader).
  if (contents.size() > 5) {
    const auto* meta =
        reinterpret_cast<const uint8_t*>(contents.data() + contents.size() - 5);
    if (meta[0] == 0xff && meta[1] == 0) {
      return "FastLocalBloom k=" + std::to_string(meta[2] & 31);
    }
    if (meta[0] == 0xfe) return "Ribbon";
  }
  return "?";
}

// A filter probed with a hash computed beforehand, to split a query's cost
// into hashing and probing: RocksDB's formats through their reader's
// HashMayMatch (hash: rocksdb::Hash64), ours through the filter/ views
// (hash: sstfilter::HashKey).
class HashProbe {
 public:
  void Init(const Filter& filter) {
    const std::string_view bytes(filter.contents.data(),
                                 filter.contents.size());
    uint8_t version;
    ours_ = PeekFormat(bytes, &kind_, &version).ok();
    if (!ours_) {
      reader_ =
          dynamic_cast<rdb::BuiltinFilterBitsReader*>(filter.reader.get());
    } else if (kind_ == FilterKind::kBlockedBloom) {
      ours_ = BlockedBloomView::Parse(bytes, &bloom_).ok();
    } else {
      ours_ = CuckooView::Parse(bytes, &cuckoo_).ok();
    }
  }
  bool operator()(uint64_t hash) const {
    if (!ours_) return reader_ == nullptr || reader_->HashMayMatch(hash);
    return kind_ == FilterKind::kBlockedBloom ? bloom_.may_contain(hash)
                                              : cuckoo_.may_contain(hash);
  }
  bool ours() const { return ours_; }

 private:
  bool ours_ = false;
  FilterKind kind_ = FilterKind::kBlockedBloom;
  rdb::BuiltinFilterBitsReader* reader_ = nullptr;
  BlockedBloomView bloom_;
  CuckooView cuckoo_;
};

uint64_t HashOf(bool ours, const rdb::Slice& key) {
  return ours ? HashKey(std::string_view(key.data(), key.size()))
              : RocksDbKeyHash(key);
}

// ---------------------------------------------------------------- queries

uint64_t QueryEach(rdb::FilterBitsReader* reader, const KeyList& keys) {
  uint64_t hits = 0;
  for (size_t i = 0; i < keys.size(); ++i) hits += reader->MayMatch(keys[i]);
  return hits;
}

uint64_t QueryBatches(rdb::FilterBitsReader* reader, KeyList& keys) {
  uint64_t hits = 0;
  bool may_match[kBatch];
  for (size_t i = 0; i + kBatch <= keys.size(); i += kBatch) {
    reader->MayMatch(kBatch, keys.pointers(i), may_match);
    for (bool m : may_match) hits += m;
  }
  return hits;
}

// Absent keys "absent:<first>" onwards, queried `count` at a time in
// batches; returns the positives. Stops early, once at least `min_count`
// were queried, if `enough_positives` (> 0) were seen.
uint64_t CountFalsePositives(rdb::FilterBitsReader* reader, uint64_t count,
                             uint64_t min_count, uint64_t enough_positives,
                             uint64_t* queried) {
  constexpr uint64_t kChunk = 1 << 16;
  KeyList chunk;
  uint64_t positives = 0;
  *queried = 0;
  while (*queried < count) {
    if (enough_positives > 0 && *queried >= min_count &&
        positives >= enough_positives) {
      break;
    }
    const uint64_t n = std::min(kChunk, count - *queried);
    chunk.Clear();
    for (uint64_t i = 0; i < n; ++i) chunk.Add(kAbsent, *queried + i);
    chunk.Seal();
    bool may_match[kBatch];
    for (size_t i = 0; i < n; i += kBatch) {
      const int batch = static_cast<int>(std::min<uint64_t>(kBatch, n - i));
      reader->MayMatch(batch, chunk.pointers(i), may_match);
      for (int b = 0; b < batch; ++b) positives += may_match[b];
    }
    *queried += n;
  }
  return positives;
}

// ---------------------------------------------------------------- (b)

// The files of scenario (b), the same for every subject of a group.
struct ManyPlan {
  std::vector<uint64_t> keys_per_filter;
  uint64_t total_keys = 0;
};

ManyPlan PlanMany(const Sizes& sizes, double min_bits_per_key) {
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<uint64_t> keys(sizes.many_min_keys,
                                               sizes.many_max_keys);
  // Enough keys that the smallest filters of the group reach the total.
  const double needed_keys =
      static_cast<double>(sizes.many_total_bytes) * 8.0 / min_bits_per_key;
  ManyPlan plan;
  while (static_cast<double>(plan.total_keys) < needed_keys) {
    plan.keys_per_filter.push_back(keys(rng));
    plan.total_keys += plan.keys_per_filter.back();
  }
  return plan;
}

// Random queries over the first `num_filters` files: query i goes to
// filter[i] (for batches: batch i, of kBatch keys, goes to filter[i]).
struct ManyQueries {
  std::vector<uint32_t> filter;
  KeyList keys;
};

ManyQueries MakeManyQueries(const ManyPlan& plan, size_t num_filters,
                            uint64_t count, bool present, bool batched,
                            uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<uint32_t> pick(
      0, static_cast<uint32_t>(num_filters - 1));
  ManyQueries q;
  q.keys.Reserve(count);
  const uint64_t per_filter = batched ? kBatch : 1;
  for (uint64_t i = 0; i < count; i += per_filter) {
    const uint32_t j = pick(rng);
    q.filter.push_back(j);
    const std::string prefix = ManyPrefix(j);
    for (uint64_t b = 0; b < per_filter; ++b) {
      if (present) {
        q.keys.Add(prefix, rng() % plan.keys_per_filter[j]);
      } else {
        q.keys.Add(kAbsent, i + b);
      }
    }
  }
  q.keys.Seal();
  return q;
}

uint64_t QueryMany(std::vector<Filter>& filters, ManyQueries& q, bool batched) {
  uint64_t hits = 0;
  if (batched) {
    bool may_match[kBatch];
    for (size_t b = 0; b < q.filter.size(); ++b) {
      filters[q.filter[b]].reader->MayMatch(kBatch, q.keys.pointers(b * kBatch),
                                            may_match);
      for (bool m : may_match) hits += m;
    }
  } else {
    for (size_t i = 0; i < q.filter.size(); ++i) {
      hits += filters[q.filter[i]].reader->MayMatch(q.keys[i]);
    }
  }
  return hits;
}

// ---------------------------------------------------------------- results

// Timed metrics, in table order: key, what it is.
const std::pair<const char*, const char*> kMetrics[] = {
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

  double median(const std::string& metric) const {
    auto it = ns.find(metric);
    return it == ns.end() ? std::nan("") : Median(it->second);
  }
};

// Median over repeats of row/ref, where ref is the faster of `refs` in
// each repeat.
double Ratio(const Row& row, const std::vector<const Row*>& refs,
             const std::string& metric) {
  auto it = row.ns.find(metric);
  if (it == row.ns.end() || refs.empty()) return std::nan("");
  std::vector<double> ratios;
  for (size_t r = 0; r < it->second.size(); ++r) {
    double best = INFINITY;
    for (const Row* ref : refs) {
      auto rit = ref->ns.find(metric);
      if (rit != ref->ns.end() && r < rit->second.size()) {
        best = std::min(best, rit->second[r]);
      }
    }
    if (std::isfinite(best) && best > 0) ratios.push_back(it->second[r] / best);
  }
  return Median(ratios);
}

struct Group {
  std::string name;
  double bits_per_key;
  std::vector<std::pair<std::string, std::string>> subjects;  // name, id
};

std::string Num(double bits) {
  std::ostringstream s;
  s << bits;
  return s.str();
}

std::vector<Group> Groups() {
  std::vector<Group> groups;
  for (double bits : {10.0, 16.0}) {
    const std::string b = Num(bits);
    groups.push_back({b,
                      bits,
                      {{kBloom, "bloomfilter:" + b},
                       {kRibbon, "ribbonfilter:" + b},
                       {"BlockedBloom", "sstfilter.BlockedBloom:" + b},
                       {"Cuckoo", "sstfilter.Cuckoo:" + b},
                       {"Hybrid", "sstfilter.Hybrid:" + b}}});
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

// ---------------------------------------------------------------- sweeps

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

struct Results {
  Sizes sizes;
  std::vector<Row> rows;
  std::vector<SweepPoint> fpr_sweep;
  std::vector<SweepPoint> cuckoo_n;  // nominal = n
  std::vector<SizePoint> size_sweep;
  std::map<std::string, size_t> many_filters;  // group -> files in (b)
  std::string load_before, load_after;
};

// ---------------------------------------------------------------- run

class Runner {
 public:
  explicit Runner(Results* results) : r_(*results), sizes_(results->sizes) {}

  // `extras`: also split query time into hashing and probing, and sweep
  // query time against total filter size (done for one group).
  void RunGroup(const Group& group, bool extras) {
    std::fprintf(stderr, "group %s bits/key\n", group.name.c_str());
    std::vector<Row> rows;
    for (const auto& [name, id] : group.subjects) {
      Row row;
      row.group = group.name;
      if (!MakeSubject(name, id, &row.subject)) continue;
      rows.push_back(std::move(row));
    }
    if (rows.empty()) return;

    // (a) filters, and the plan of (b) from the smallest of them.
    KeyList present = MakeKeys(kPresent, 0, sizes_.cache_keys);
    KeyList absent = MakeKeys(kAbsent, 0, sizes_.cache_absent);
    std::vector<Filter> cache_filters(rows.size());
    double min_bits = INFINITY;
    for (size_t s = 0; s < rows.size(); ++s) {
      BuildFilter(rows[s].subject, contexts_.bottommost, present,
                  &cache_filters[s]);
      rows[s].bits_per_key_a = cache_filters[s].bits_per_key();
      min_bits = std::min(min_bits, rows[s].bits_per_key_a);
    }
    CheckReferenceBytes(rows, cache_filters);

    const ManyPlan plan = PlanMany(sizes_, min_bits);
    r_.many_filters[group.name] = plan.keys_per_filter.size();
    std::vector<std::vector<Filter>> many(rows.size());
    for (size_t s = 0; s < rows.size(); ++s) {
      BuildMany(plan, &rows[s], &many[s]);
    }
    const size_t nf = plan.keys_per_filter.size();
    ManyQueries many_absent =
        MakeManyQueries(plan, nf, sizes_.many_queries, false, false, 1);
    ManyQueries many_present =
        MakeManyQueries(plan, nf, sizes_.many_queries, true, false, 2);
    ManyQueries batch_absent =
        MakeManyQueries(plan, nf, sizes_.many_queries, false, true, 3);
    ManyQueries batch_present =
        MakeManyQueries(plan, nf, sizes_.many_queries, true, true, 4);

    // For the split into hashing and probing: each filter behind a
    // HashProbe, and the query keys' hashes of both kinds.
    std::vector<HashProbe> cache_probes(rows.size());
    std::vector<std::vector<HashProbe>> many_probes(rows.size());
    std::vector<uint64_t> hashes_a[2], hashes_b[2];  // [ours]
    if (extras) {
      for (size_t s = 0; s < rows.size(); ++s) {
        cache_probes[s].Init(cache_filters[s]);
        many_probes[s].resize(many[s].size());
        for (size_t j = 0; j < many[s].size(); ++j) {
          many_probes[s][j].Init(many[s][j]);
        }
      }
      for (int ours = 0; ours < 2; ++ours) {
        for (size_t i = 0; i < absent.size(); ++i) {
          hashes_a[ours].push_back(HashOf(ours, absent[i]));
        }
        for (size_t i = 0; i < many_absent.keys.size(); ++i) {
          hashes_b[ours].push_back(HashOf(ours, many_absent.keys[i]));
        }
      }
    }

    const KeyList fpr_keys = MakeKeys(kPresent, 0, sizes_.fpr_keys);
    std::vector<Filter> fpr_filters(rows.size());
    const uint64_t passes =
        std::max<uint64_t>(1, sizes_.queries_per_sample / absent.size());
    const uint64_t present_passes =
        std::max<uint64_t>(1, sizes_.queries_per_sample / present.size());
    const uint64_t build_passes = std::max<uint64_t>(
        1, (sizes_.queries_per_sample / 4) / sizes_.cache_keys);

    for (int rep = 0; rep < sizes_.repeats; ++rep) {
      std::fprintf(stderr, "  repeat %d/%d\n", rep + 1, sizes_.repeats);
      for (size_t k = 0; k < rows.size(); ++k) {
        const size_t s = (k + rep) % rows.size();  // rotate the order
        Row& row = rows[s];
        rdb::FilterBitsReader* reader = cache_filters[s].reader.get();

        double nanos = 0;
        for (uint64_t p = 0; p < build_passes; ++p) {
          Filter scratch;
          nanos +=
              BuildFilter(row.subject, contexts_.bottommost, present, &scratch);
        }
        row.ns["build_a"].push_back(nanos / (build_passes * present.size()));

        // The 1e6-key filter: build time, and in the first repeat the
        // builder's peak heap.
        fpr_filters[s] = Filter();
        size_t peak = 0;
        nanos = BuildFilter(row.subject, contexts_.bottommost, fpr_keys,
                            &fpr_filters[s], &peak);
        row.ns["build_1e6"].push_back(nanos / fpr_keys.size());
        if (rep == 0) {
          row.peak_bytes_per_key = static_cast<double>(peak) / fpr_keys.size();
        }

        Time(row, "a_absent", passes * absent.size(), [&] {
          uint64_t hits = 0;
          for (uint64_t p = 0; p < passes; ++p)
            hits += QueryEach(reader, absent);
          return hits;
        });
        Time(row, "a_present", present_passes * present.size(), [&] {
          uint64_t hits = 0;
          for (uint64_t p = 0; p < present_passes; ++p) {
            hits += QueryEach(reader, present);
          }
          ExpectAll(row, "(a) present", hits, present_passes * present.size());
          return hits;
        });
        Time(row, "c_absent", passes * (absent.size() / kBatch * kBatch), [&] {
          uint64_t hits = 0;
          for (uint64_t p = 0; p < passes; ++p)
            hits += QueryBatches(reader, absent);
          return hits;
        });
        Time(row, "c_present",
             present_passes * (present.size() / kBatch * kBatch), [&] {
               uint64_t hits = 0;
               for (uint64_t p = 0; p < present_passes; ++p) {
                 hits += QueryBatches(reader, present);
               }
               ExpectAll(row, "(c) present", hits,
                         present_passes * (present.size() / kBatch * kBatch));
               return hits;
             });
        uint64_t many_absent_hits = 0;
        Time(row, "b_absent", many_absent.keys.size(), [&] {
          return many_absent_hits = QueryMany(many[s], many_absent, false);
        });
        if (rep == 0) {
          row.many_fpr =
              static_cast<double>(many_absent_hits) / many_absent.keys.size();
        }
        Time(row, "b_present", many_present.keys.size(), [&] {
          const uint64_t hits = QueryMany(many[s], many_present, false);
          ExpectAll(row, "(b) present", hits, many_present.keys.size());
          return hits;
        });
        Time(row, "cb_absent", batch_absent.keys.size(),
             [&] { return QueryMany(many[s], batch_absent, true); });
        Time(row, "cb_present", batch_present.keys.size(), [&] {
          const uint64_t hits = QueryMany(many[s], batch_present, true);
          ExpectAll(row, "(c) present in (b)", hits, batch_present.keys.size());
          return hits;
        });
        if (extras) {
          const bool ours = cache_probes[s].ours();
          Time(row, "hash", passes * absent.size(), [&] {
            uint64_t sum = 0;
            for (uint64_t p = 0; p < passes; ++p) {
              for (size_t i = 0; i < absent.size(); ++i) {
                sum += HashOf(ours, absent[i]) & 1;
              }
            }
            return sum;
          });
          const HashProbe& probe = cache_probes[s];
          const std::vector<uint64_t>& ha = hashes_a[ours];
          Time(row, "probe_a", passes * ha.size(), [&] {
            uint64_t hits = 0;
            for (uint64_t p = 0; p < passes; ++p) {
              for (uint64_t h : ha) hits += probe(h);
            }
            return hits;
          });
          const std::vector<uint64_t>& hb = hashes_b[ours];
          Time(row, "probe_b", hb.size(), [&] {
            uint64_t hits = 0;
            for (size_t i = 0; i < hb.size(); ++i) {
              hits += many_probes[s][many_absent.filter[i]](hb[i]);
            }
            return hits;
          });
        }
      }
    }

    // FPR of the 1e6-key filters over >= 1e7 absent keys.
    for (size_t s = 0; s < rows.size(); ++s) {
      Row& row = rows[s];
      Filter& filter = fpr_filters[s];
      row.built = Describe(filter.contents);
      row.bits_per_key = filter.bits_per_key();
      ExpectAll(row, "1e6-key filter", QueryEach(filter.reader.get(), fpr_keys),
                fpr_keys.size());
      const uint64_t positives = CountFalsePositives(
          filter.reader.get(), sizes_.fpr_queries, 0, 0, &row.fpr_queries);
      row.fpr = static_cast<double>(positives) / row.fpr_queries;
      std::fprintf(stderr, "  %-22s %-28s %6.2f bits/key FPR %.4f%%\n",
                   row.subject.name.c_str(), row.built.c_str(),
                   row.bits_per_key, row.fpr * 100);
    }

    if (extras) SweepSizes(rows, plan, many);
    for (auto& row : rows) r_.rows.push_back(std::move(row));
  }

  void SweepFpr() {
    std::fprintf(stderr, "FPR sweep\n");
    const KeyList keys = MakeKeys(kPresent, 0, sizes_.fpr_keys);
    auto measure = [&](const std::string& policy, double nominal,
                       const std::string& id) {
      Subject subject;
      if (!MakeSubject(policy, id, &subject)) return;
      Filter filter;
      BuildFilter(subject, contexts_.bottommost, keys, &filter);
      SweepPoint point{policy, nominal, filter.bits_per_key()};
      // 1e4 false positives give the rate to 1%; stop there once past 1e6
      // queries.
      point.positives =
          CountFalsePositives(filter.reader.get(), sizes_.fpr_queries,
                              sizes_.fpr_queries / 10, 10'000, &point.queries);
      point.fpr = static_cast<double>(point.positives) / point.queries;
      r_.fpr_sweep.push_back(point);
    };
    for (int bits : sizes_.sweep_bits) {
      const std::string b = std::to_string(bits);
      // FastLocalBloom-AVX2 writes the same bytes as bloomfilter (checked
      // per group), so it shares bloomfilter's FPR.
      measure(kBloom, bits, "bloomfilter:" + b);
      measure(kRibbon, bits, "ribbonfilter:" + b);
      measure("BlockedBloom", bits, "sstfilter.BlockedBloom:" + b);
      // The cuckoo filter by fingerprint width; bits/key as stored.
      measure("Cuckoo", bits, "id=sstfilter.Cuckoo:100;fingerprint_bits=" + b);
    }
  }

  // The cuckoo filter at f = 12 for n from 1e3 to 1e7, powers of two and
  // not.
  void SweepCuckooN() {
    std::fprintf(stderr, "Cuckoo f=12 over n\n");
    Subject subject;
    if (!MakeSubject("Cuckoo f=12",
                     "id=sstfilter.Cuckoo:12.5;fingerprint_bits=12",
                     &subject)) {
      return;
    }
    for (uint64_t n : sizes_.cuckoo_n) {
      Filter filter;
      char buf[sizeof(kPresent) + kMaxKeyDigits];
      BuildFilterFrom(
          subject, contexts_.bottommost,
          [&](auto&& add) {
            for (uint64_t i = 0; i < n; ++i) {
              const std::string_view key = FormatKey(kPresent, i, buf);
              add(rdb::Slice(key.data(), key.size()));
            }
          },
          &filter);
      uint64_t misses = 0;
      for (uint64_t i = 0; i < n; ++i) {
        const std::string_view key = FormatKey(kPresent, i, buf);
        misses += !filter.reader->MayMatch(rdb::Slice(key.data(), key.size()));
      }
      if (misses != 0) Fail("Cuckoo f=12: false negative at n=" + Num(n));
      SweepPoint point{"Cuckoo f=12", static_cast<double>(n),
                       filter.bits_per_key()};
      point.positives = CountFalsePositives(
          filter.reader.get(), sizes_.fpr_queries, 0, 0, &point.queries);
      point.fpr = static_cast<double>(point.positives) / point.queries;
      std::fprintf(stderr, "  n=%-9llu %.3f bits/key FPR %.4f%%\n",
                   static_cast<unsigned long long>(n), point.bits_per_key,
                   point.fpr * 100);
      r_.cuckoo_n.push_back(point);
    }
  }

 private:
  // Times fn (which returns the positives it saw, to keep the work alive)
  // and records ns per query.
  template <class Fn>
  void Time(Row& row, const char* metric, uint64_t queries, Fn&& fn) {
    const Clock::time_point start = Clock::now();
    const uint64_t hits = fn();
    const double nanos = NanosSince(start);
    sink_ += hits;
    row.ns[metric].push_back(nanos / static_cast<double>(queries));
  }

  void ExpectAll(const Row& row, const char* what, uint64_t hits,
                 uint64_t expected) {
    if (hits != expected) {
      Fail(row.subject.id + ": false negatives in " + what + " (" +
           std::to_string(hits) + " of " + std::to_string(expected) + ")");
    }
  }

  // FastLocalBloom-AVX2 must write bloomfilter's bytes.
  void CheckReferenceBytes(const std::vector<Row>& rows,
                           const std::vector<Filter>& filters) {
    const Filter* bloom = nullptr;
    const Filter* avx2 = nullptr;
    for (size_t s = 0; s < rows.size(); ++s) {
      if (rows[s].subject.name == kBloom) bloom = &filters[s];
      if (rows[s].subject.name == kFastLocalBloomAvx2) avx2 = &filters[s];
    }
    if (bloom != nullptr && avx2 != nullptr &&
        bloom->contents.compare(avx2->contents) != 0) {
      Fail(std::string(kFastLocalBloomAvx2) +
           " does not write the bytes bloomfilter writes");
    }
  }

  void BuildMany(const ManyPlan& plan, Row* row, std::vector<Filter>* out) {
    out->resize(plan.keys_per_filter.size());
    KeyList keys;
    double nanos = 0;
    size_t bytes = 0;
    for (size_t j = 0; j < plan.keys_per_filter.size(); ++j) {
      keys.Clear();
      const std::string prefix = ManyPrefix(j);
      for (uint64_t i = 0; i < plan.keys_per_filter[j]; ++i) {
        keys.Add(prefix, i);
      }
      keys.Seal();
      nanos +=
          BuildFilter(row->subject, contexts_.ForFile(j), keys, &(*out)[j]);
      bytes += (*out)[j].contents.size();
    }
    row->ns["build_b"].push_back(nanos / static_cast<double>(plan.total_keys));
    row->many_mib = bytes / 1048576.0;
    row->many_bits_per_key = bytes * 8.0 / static_cast<double>(plan.total_keys);
    std::fprintf(stderr, "  (b) %-22s %zu filters, %.1f MiB\n",
                 row->subject.name.c_str(), out->size(), row->many_mib);
  }

  // Absent-key query time against the first K files of (b), K doubling.
  void SweepSizes(const std::vector<Row>& rows, const ManyPlan& plan,
                  std::vector<std::vector<Filter>>& many) {
    std::fprintf(stderr, "  query time against total filter size\n");
    std::vector<size_t> counts;
    for (size_t k = 1; k < plan.keys_per_filter.size(); k *= 2) {
      counts.push_back(k);
    }
    counts.push_back(plan.keys_per_filter.size());
    for (size_t k : counts) {
      ManyQueries q =
          MakeManyQueries(plan, k, sizes_.many_queries / 2, false, false, 5);
      std::vector<SizePoint> points(rows.size());
      for (size_t s = 0; s < rows.size(); ++s) {
        points[s].policy = rows[s].subject.name;
        points[s].filters = k;
        size_t bytes = 0;
        for (size_t j = 0; j < k; ++j) bytes += many[s][j].contents.size();
        points[s].mib = bytes / 1048576.0;
      }
      for (int rep = 0; rep < sizes_.repeats; ++rep) {
        for (size_t i = 0; i < rows.size(); ++i) {
          const size_t s = (i + rep) % rows.size();
          const Clock::time_point start = Clock::now();
          sink_ += QueryMany(many[s], q, false);
          points[s].ns.push_back(NanosSince(start) / q.keys.size());
        }
      }
      for (auto& p : points) r_.size_sweep.push_back(std::move(p));
    }
  }

  Results& r_;
  const Sizes& sizes_;
  Contexts contexts_;
  uint64_t sink_ = 0;  // the positives of timed loops, kept alive
};

// ---------------------------------------------------------------- theory

// FPR of a standard Bloom filter at c bits/key with k probes:
// (1 - e^{-k/c})^k (Bloom 1970; the usual approximation).
double StandardBloomFpr(double c, int k) {
  return std::pow(1.0 - std::exp(-k / c), k);
}

// A cache-local Bloom filter (one 512-bit block per key; Putze, Sanders,
// Singler 2007): a block receives Poisson(512/c) keys; with j keys, a
// fraction 1 - (1 - 1/512)^{jk} of its bits is set.
double CacheLocalBloomFpr(double c, int k) {
  constexpr double kBlockBits = 512;
  const double mean = kBlockBits / c;
  double fpr = 0;
  double p = std::exp(-mean);  // Poisson(j = 0)
  for (int j = 0; j < 2000; ++j) {
    if (j > 0) p *= mean / j;
    fpr += p * std::pow(1.0 - std::pow(1.0 - 1.0 / kBlockBits, j * k), k);
    if (j > mean && p < 1e-18) break;
  }
  return fpr;
}

template <class Fpr>
double AtBestProbes(double c, Fpr&& fpr) {
  double best = 1;
  for (int k = 1; k <= 30; ++k) best = std::min(best, fpr(c, k));
  return best;
}

// Cuckoo filter bound 2b/2^f (Fan et al. 2014) with b = 4 slots per bucket
// and f = 0.96 c bits (our static table is 96% full).
double CuckooFpr(double c) { return 8.0 / std::pow(2.0, 0.96 * c); }

// ---------------------------------------------------------------- output

std::string Fixed(double v, int digits) {
  if (!std::isfinite(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, v);
  return buf;
}

std::string Machine() {
  std::string model = "unknown CPU";
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  }
  const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  return model + ", " + std::to_string(sysconf(_SC_NPROCESSORS_ONLN)) +
         " CPUs, L2 " + std::to_string(l2 >> 10) + " KiB per core, L3 " +
         std::to_string(L3Bytes() >> 20) + " MiB";
}

std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return one + " " + five + " " + fifteen;
}

const Row* Find(const Results& r, const std::string& group,
                const std::string& name) {
  for (const Row& row : r.rows) {
    if (row.group == group && row.subject.name == name) return &row;
  }
  return nullptr;
}

std::vector<const Row*> Refs(const Results& r, const std::string& group) {
  std::vector<const Row*> refs;
  for (const char* name : {kBloom, kFastLocalBloomAvx2}) {
    if (const Row* row = Find(r, group, name)) refs.push_back(row);
  }
  return refs;
}

// The bits/key at which bloomfilter's FPR (from the sweep, log-linear
// between points) equals `fpr`; NaN if outside the sweep.
double BloomBitsAtFpr(const Results& r, double fpr) {
  std::vector<std::pair<double, double>> curve;
  for (const auto& p : r.fpr_sweep) {
    if (p.policy == kBloom && p.fpr > 0)
      curve.push_back({p.bits_per_key, p.fpr});
  }
  std::sort(curve.begin(), curve.end());
  for (size_t i = 1; i < curve.size(); ++i) {
    const auto [x0, y0] = curve[i - 1];
    const auto [x1, y1] = curve[i];
    if (y0 >= fpr && fpr >= y1) {
      const double t =
          (std::log(fpr) - std::log(y0)) / (std::log(y1) - std::log(y0));
      return x0 + t * (x1 - x0);
    }
  }
  return std::nan("");
}

struct Target {
  std::string what;
  double measured;
  double limit;
  bool at_most;  // met if measured <= limit (else >= limit)
  std::string unit = "x";
  bool met() const {
    return std::isfinite(measured) &&
           (at_most ? measured <= limit : measured >= limit);
  }
};

std::vector<Target> Targets(const Results& r) {
  std::vector<Target> t;
  for (const std::string& group : {std::string("10"), std::string("16")}) {
    const Row* bb = Find(r, group, "BlockedBloom");
    const Row* bloom = Find(r, group, kBloom);
    if (bb == nullptr || bloom == nullptr) continue;
    const auto refs = Refs(r, group);
    const std::string at = "BlockedBloom @" + group + ": ";
    t.push_back({at + "FPR vs bloomfilter", bb->fpr / bloom->fpr,
                 group == "10" ? 0.90 : 0.75, true});
    for (const char* m : {"a_absent", "b_absent", "c_absent", "cb_absent"}) {
      t.push_back(
          {at + m + " vs faster reference", Ratio(*bb, refs, m), 1.0, true});
    }
    for (const char* m : {"a_absent", "a_present", "c_absent", "c_present"}) {
      t.push_back(
          {at + m + " vs faster reference", Ratio(*bb, refs, m), 0.8, true});
    }
    for (const char* m : {"build_a", "build_b"}) {
      t.push_back(
          {at + m + " vs faster reference", Ratio(*bb, refs, m), 1.0, true});
    }
  }
  // Cuckoo at f = 12.
  double max_bits = 0, max_fpr = 0;
  for (const auto& p : r.cuckoo_n) {
    max_bits = std::max(max_bits, p.bits_per_key);
    max_fpr = std::max(max_fpr, p.fpr);
  }
  if (!r.cuckoo_n.empty()) {
    t.push_back({"Cuckoo f=12: max stored bits/key, n = 1e3..1e7", max_bits,
                 12.7, true, "bits/key"});
    t.push_back({"Cuckoo f=12: max FPR % over n = 1e3..1e7", max_fpr * 100,
                 0.19, true, "%"});
  }
  for (int f : {12, 16}) {
    for (const auto& p : r.fpr_sweep) {
      if (p.policy != "Cuckoo" || p.nominal != f) continue;
      const double bloom_bits = BloomBitsAtFpr(r, p.fpr);
      t.push_back({"Cuckoo f=" + std::to_string(f) +
                       ": space saved vs bloomfilter at equal FPR",
                   (1.0 - p.bits_per_key / bloom_bits) * 100,
                   f == 12 ? 8.0 : 15.0, false, "%"});
    }
  }
  const Row* cuckoo = Find(r, "12.5", "Cuckoo f=12");
  const Row* bb = Find(r, "12.5", "BlockedBloom");
  const Row* ribbon = Find(r, "12.5", kRibbon);
  if (cuckoo != nullptr && bb != nullptr) {
    for (const char* m : {"a_absent", "b_absent", "c_absent", "cb_absent"}) {
      t.push_back({std::string("Cuckoo f=12: ") + m + " vs BlockedBloom:12.5",
                   Ratio(*cuckoo, {bb}, m), 1.3, true});
    }
  }
  if (cuckoo != nullptr && ribbon != nullptr) {
    for (const char* m : {"build_a", "build_1e6", "build_b"}) {
      t.push_back({std::string("Cuckoo f=12: ") + m + " vs ribbonfilter:12.5",
                   Ratio(*cuckoo, {ribbon}, m), 0.5, true});
    }
  }
  return t;
}

void WriteMarkdown(const Results& r, const std::string& path) {
  std::ofstream md(path);
  const Sizes& z = r.sizes;
  md << "# sstfilter-compare\n\n"
     << "Machine: " << Machine() << "; load average " << r.load_before
     << " at the start, " << r.load_after << " at the end (shared machine).\n"
     << "RocksDB " << ROCKSDB_MAJOR << "." << ROCKSDB_MINOR << "."
     << ROCKSDB_PATCH
     << " (Debian's librocksdb: generic x86-64, assertions on) for "
        "bloomfilter and ribbonfilter; FastLocalBloom-AVX2 is RocksDB's "
        "FastLocalBloomImpl built with -mavx2 -DHAVE_AVX2 -O2 -DNDEBUG "
        "(it writes the same bytes as bloomfilter).\n\n"
     << "Times are ns per key, median of " << z.repeats
     << " repeats. `x bloom` = median over repeats of time / bloomfilter's "
        "time in the same repeat; `x ref` = the same against the faster of "
        "bloomfilter and FastLocalBloom-AVX2. Keys are strings like "
        "`present:123456` (8-15 bytes); every MayMatch hashes its key. "
        "Single-filter measurements build for a bottommost compaction "
        "output; in (b) one file in ten is an L0 flush, so ribbonfilter and "
        "Hybrid build a Bloom filter there (as in an LSM tree).\n\n";

  md << "## Space, FPR, build\n\n"
     << "Stored bits/key and FPR of a " << Num(static_cast<double>(z.fpr_keys))
     << "-key filter over " << Num(static_cast<double>(z.fpr_queries))
     << " absent keys; build ns/key of "
     << Num(static_cast<double>(z.cache_keys)) << "- and "
     << Num(static_cast<double>(z.fpr_keys))
     << "-key filters and over all files of (b); builder peak = the most "
        "heap the builder held at once (including the filter it returns), "
        "per key, at "
     << Num(static_cast<double>(z.fpr_keys)) << " keys.\n\n"
     << "| bits/key | policy | built | stored bits/key | FPR % | build 1e4 "
        "| x bloom | x ref | build 1e6 | x bloom | x ref | build (b) | x "
        "bloom | x ref | builder peak B/key |\n"
     << "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:"
        "|---:|\n";
  for (const Row& row : r.rows) {
    const Row* bloom = Find(r, row.group, kBloom);
    const auto refs = Refs(r, row.group);
    md << "| " << row.group << " | " << row.subject.name << " | " << row.built
       << " | " << Fixed(row.bits_per_key, 2) << " | "
       << Fixed(row.fpr * 100, 4);
    for (const char* m : {"build_a", "build_1e6", "build_b"}) {
      md << " | " << Fixed(row.median(m), 1) << " | "
         << Fixed(bloom ? Ratio(row, {bloom}, m) : NAN, 2) << " | "
         << Fixed(Ratio(row, refs, m), 2);
    }
    md << " | " << Fixed(row.peak_bytes_per_key, 2) << " |\n";
  }

  auto query_table =
      [&](const std::string& title,
          const std::vector<std::pair<const char*, const char*>>& metrics) {
        md << "\n## " << title << "\n\n| bits/key | policy";
        std::string rule = "|---|---";
        for (const auto& [metric, label] : metrics) {
          (void)metric;
          md << " | " << label << " | x bloom | x ref";
          rule += "|---:|---:|---:";
        }
        md << " |\n" << rule << "|\n";
        for (const Row& row : r.rows) {
          const Row* bloom = Find(r, row.group, kBloom);
          const auto refs = Refs(r, row.group);
          md << "| " << row.group << " | " << row.subject.name;
          for (const auto& [metric, label] : metrics) {
            (void)label;
            md << " | " << Fixed(row.median(metric), 1) << " | "
               << Fixed(bloom ? Ratio(row, {bloom}, metric) : NAN, 2) << " | "
               << Fixed(Ratio(row, refs, metric), 2);
          }
          md << " |\n";
        }
      };
  query_table("(a) cache-resident: one filter of " +
                  Num(static_cast<double>(z.cache_keys)) + " keys",
              {{"a_absent", "absent"}, {"a_present", "present"}});
  std::string many_title = "(b) many filters of " +
                           Num(static_cast<double>(z.many_min_keys)) + ".." +
                           Num(static_cast<double>(z.many_max_keys)) +
                           " keys, one random filter per query";
  query_table(many_title, {{"b_absent", "absent"}, {"b_present", "present"}});
  md << "\nFiles and total size per policy (target: at least "
     << Fixed(z.many_total_bytes / 1048576.0, 1)
     << " MiB = 4x L3), and the FPR over the "
     << Num(static_cast<double>(z.many_queries)) << " absent queries:\n\n"
     << "| bits/key | policy | files | MiB | bits/key | FPR % |\n"
     << "|---|---|---:|---:|---:|---:|\n";
  for (const Row& row : r.rows) {
    auto it = r.many_filters.find(row.group);
    md << "| " << row.group << " | " << row.subject.name << " | "
       << (it == r.many_filters.end() ? 0 : it->second) << " | "
       << Fixed(row.many_mib, 1) << " | " << Fixed(row.many_bits_per_key, 2)
       << " | " << Fixed(row.many_fpr * 100, 3) << " |\n";
  }
  query_table("(c) batched: 32 keys per MayMatch call",
              {{"c_absent", "absent, (a) filter"},
               {"c_present", "present, (a) filter"},
               {"cb_absent", "absent, (b) filters"},
               {"cb_present", "present, (b) filters"}});

  md << "\n## Where an absent-key query's time goes (10 bits/key)\n\n"
     << "hash = hashing the key alone (rocksdb::Hash64 for RocksDB's "
        "formats, sstfilter::HashKey for ours); probe = the filter alone on "
        "a precomputed hash (RocksDB: the reader's HashMayMatch; ours: the "
        "filter/ view); MayMatch = the whole call, as in (a) and (b); rest = "
        "MayMatch - hash - probe (calls, dispatch).\n\n"
     << "| policy | hash | probe (a) | MayMatch (a) | rest (a) | probe (b) | "
        "MayMatch (b) |\n|---|---:|---:|---:|---:|---:|---:|\n";
  for (const Row& row : r.rows) {
    if (row.ns.count("hash") == 0) continue;
    const double hash = row.median("hash");
    md << "| " << row.subject.name << " | " << Fixed(hash, 1) << " | "
       << Fixed(row.median("probe_a"), 1) << " | "
       << Fixed(row.median("a_absent"), 1) << " | "
       << Fixed(row.median("a_absent") - hash - row.median("probe_a"), 1)
       << " | " << Fixed(row.median("probe_b"), 1) << " | "
       << Fixed(row.median("b_absent"), 1) << " |\n";
  }

  if (!r.fpr_sweep.empty()) {
    md << "\n## FPR % against bits/key\n\nFilters of "
       << Num(static_cast<double>(z.fpr_keys)) << " keys; up to "
       << Num(static_cast<double>(z.fpr_queries))
       << " absent keys (at least 10% of them, stopping once 10^4 false "
          "positives are seen). Cuckoo rows are by fingerprint width f, with "
          "the stored bits/key beside them. Theory: standard Bloom and "
          "cache-local Bloom at the best probe count, cuckoo 8/2^(0.96c), "
          "lower bound 2^-c.\n\n"
       << "| bits/key | bloomfilter | ribbonfilter | BlockedBloom | f | "
          "Cuckoo bits/key | Cuckoo | standard Bloom | cache-local Bloom | "
          "lower bound "
          "|\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    for (int bits : z.sweep_bits) {
      auto fpr_of = [&](const std::string& policy) -> const SweepPoint* {
        for (const auto& p : r.fpr_sweep) {
          if (p.policy == policy && p.nominal == bits) return &p;
        }
        return nullptr;
      };
      auto pct = [](const SweepPoint* p) {
        return p ? Fixed(p->fpr * 100, 4) : std::string("-");
      };
      const SweepPoint* cuckoo = fpr_of("Cuckoo");
      md << "| " << bits << " | " << pct(fpr_of(kBloom)) << " | "
         << pct(fpr_of(kRibbon)) << " | " << pct(fpr_of("BlockedBloom"))
         << " | " << bits << " | "
         << (cuckoo ? Fixed(cuckoo->bits_per_key, 2) : "-") << " | "
         << pct(cuckoo) << " | "
         << Fixed(AtBestProbes(bits, StandardBloomFpr) * 100, 4) << " | "
         << Fixed(AtBestProbes(bits, CacheLocalBloomFpr) * 100, 4) << " | "
         << Fixed(std::pow(2.0, -bits) * 100, 4) << " |\n";
    }
  }
  if (!r.cuckoo_n.empty()) {
    md << "\n## Cuckoo f=12 from 10^3 to 10^7 keys\n\n"
       << "| keys | stored bits/key | FPR % |\n|---:|---:|---:|\n";
    for (const auto& p : r.cuckoo_n) {
      md << "| " << static_cast<uint64_t>(p.nominal) << " | "
         << Fixed(p.bits_per_key, 3) << " | " << Fixed(p.fpr * 100, 4)
         << " |\n";
    }
  }
  if (!r.size_sweep.empty()) {
    md << "\n## Absent-key query ns against total filter size (10 "
          "bits/key)\n\nThe first K files of (b), one random file per "
          "query.\n\n| files | ";
    std::vector<std::string> policies;
    for (const auto& p : r.size_sweep) {
      if (std::find(policies.begin(), policies.end(), p.policy) ==
          policies.end()) {
        policies.push_back(p.policy);
      }
    }
    for (const auto& p : policies) md << p << " MiB | " << p << " ns | ";
    md << "\n|---:|";
    for (size_t i = 0; i < policies.size(); ++i) md << "---:|---:|";
    md << "\n";
    for (size_t i = 0; i < r.size_sweep.size(); i += policies.size()) {
      md << "| " << r.size_sweep[i].filters << " | ";
      for (size_t s = 0; s < policies.size(); ++s) {
        const SizePoint& p = r.size_sweep[i + s];
        md << Fixed(p.mib, 2) << " | " << Fixed(Median(p.ns), 1) << " | ";
      }
      md << "\n";
    }
  }

  md << "\n## The performance bar\n\n| target | measured | limit | |\n"
     << "|---|---:|---:|---|\n";
  for (const Target& t : Targets(r)) {
    md << "| " << t.what << " | " << Fixed(t.measured, 3) << " " << t.unit
       << " | " << (t.at_most ? "<= " : ">= ") << t.limit << " " << t.unit
       << " | " << (t.met() ? "met" : "**missed**") << " |\n";
  }
}

void WriteCsv(const Results& r, const std::string& dir) {
  {
    std::ofstream csv(dir + "/compare.csv");
    csv << "group,policy,id,built,bits_per_key,fpr,fpr_queries,"
           "peak_bytes_per_key,many_mib,many_bits_per_key,many_fpr";
    for (const auto& [m, label] : kMetrics) {
      (void)label;
      csv << "," << m << "_ns," << m << "_x_bloom," << m << "_x_ref";
    }
    csv << "\n";
    for (const Row& row : r.rows) {
      const Row* bloom = Find(r, row.group, kBloom);
      csv << row.group << "," << row.subject.name << ",\"" << row.subject.id
          << "\"," << row.built << "," << row.bits_per_key << "," << row.fpr
          << "," << row.fpr_queries << "," << row.peak_bytes_per_key << ","
          << row.many_mib << "," << row.many_bits_per_key << ","
          << row.many_fpr;
      for (const auto& [m, label] : kMetrics) {
        (void)label;
        csv << "," << row.median(m) << ","
            << (bloom ? Ratio(row, {bloom}, m) : NAN) << ","
            << Ratio(row, Refs(r, row.group), m);
      }
      csv << "\n";
    }
  }
  {
    std::ofstream csv(dir + "/sweep_fpr.csv");
    csv << "policy,nominal,bits_per_key,fpr,queries,positives\n";
    for (const auto& p : r.fpr_sweep) {
      csv << p.policy << "," << p.nominal << "," << p.bits_per_key << ","
          << p.fpr << "," << p.queries << "," << p.positives << "\n";
    }
  }
  {
    std::ofstream csv(dir + "/cuckoo_n.csv");
    csv << "keys,bits_per_key,fpr,queries,positives\n";
    for (const auto& p : r.cuckoo_n) {
      csv << static_cast<uint64_t>(p.nominal) << "," << p.bits_per_key << ","
          << p.fpr << "," << p.queries << "," << p.positives << "\n";
    }
  }
  {
    std::ofstream csv(dir + "/sweep_size.csv");
    csv << "policy,filters,mib,absent_ns\n";
    for (const auto& p : r.size_sweep) {
      csv << p.policy << "," << p.filters << "," << p.mib << "," << Median(p.ns)
          << "\n";
    }
  }
  {
    std::ofstream csv(dir + "/theory.csv");
    csv << "bits_per_key,standard_bloom,cache_local_bloom,cuckoo,"
           "lower_bound\n";
    for (int quarters = 16; quarters <= 96; ++quarters) {  // 4..24 bits/key
      const double c = quarters / 4.0;
      csv << c << "," << AtBestProbes(c, StandardBloomFpr) << ","
          << AtBestProbes(c, CacheLocalBloomFpr) << "," << CuckooFpr(c) << ","
          << std::pow(2.0, -c) << "\n";
    }
  }
}

std::string JsonNumber(double v) {
  if (!std::isfinite(v)) return "null";
  std::ostringstream s;
  s.precision(6);
  s << v;
  return s.str();
}

void WriteJson(const Results& r, const std::string& path) {
  std::ofstream js(path);
  js << "{\n  \"machine\": \"" << Machine() << "\",\n  \"load_before\": \""
     << r.load_before << "\",\n  \"load_after\": \"" << r.load_after
     << "\",\n  \"repeats\": " << r.sizes.repeats << ",\n  \"rows\": [";
  for (size_t i = 0; i < r.rows.size(); ++i) {
    const Row& row = r.rows[i];
    const Row* bloom = Find(r, row.group, kBloom);
    js << (i ? "," : "") << "\n    {\"group\": \"" << row.group
       << "\", \"policy\": \"" << row.subject.name << "\", \"built\": \""
       << row.built << "\", \"bits_per_key\": " << JsonNumber(row.bits_per_key)
       << ", \"fpr\": " << JsonNumber(row.fpr)
       << ", \"fpr_queries\": " << row.fpr_queries
       << ", \"peak_bytes_per_key\": " << JsonNumber(row.peak_bytes_per_key)
       << ", \"many_mib\": " << JsonNumber(row.many_mib);
    for (const auto& [m, label] : kMetrics) {
      (void)label;
      js << ", \"" << m << "\": {\"ns\": " << JsonNumber(row.median(m))
         << ", \"x_bloom\": "
         << JsonNumber(bloom ? Ratio(row, {bloom}, m) : NAN)
         << ", \"x_ref\": " << JsonNumber(Ratio(row, Refs(r, row.group), m))
         << "}";
    }
    js << "}";
  }
  js << "\n  ],\n  \"targets\": [";
  const auto targets = Targets(r);
  for (size_t i = 0; i < targets.size(); ++i) {
    const Target& t = targets[i];
    js << (i ? "," : "") << "\n    {\"target\": \"" << t.what
       << "\", \"measured\": " << JsonNumber(t.measured)
       << ", \"limit\": " << t.limit << ", \"unit\": \"" << t.unit
       << "\", \"at_most\": " << (t.at_most ? "true" : "false")
       << ", \"met\": " << (t.met() ? "true" : "false") << "}";
  }
  js << "\n  ]\n}\n";
}

int Usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s [--smoke] [--repeats N] [--out DIR] [--no-sweeps]\n"
               "  --smoke      tiny sizes, one repeat (seconds; for ctest)\n"
               "  --repeats N  timing repeats per measurement (default 5)\n"
               "  --out DIR    where the results go (default bench/results)\n"
               "  --no-sweeps  skip the FPR, cuckoo-n and size sweeps\n",
               argv0);
  return 2;
}

}  // namespace
}  // namespace sstfilter::bench

int main(int argc, char** argv) {
  using namespace sstfilter::bench;
  bool smoke = false;
  bool sweeps = true;
  int repeats = 0;
  std::string out = "bench/results";
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--smoke") {
      smoke = true;
    } else if (arg == "--no-sweeps") {
      sweeps = false;
    } else if (arg == "--repeats" && i + 1 < argc) {
      repeats = std::atoi(argv[++i]);
      if (repeats < 1) return Usage(argv[0]);
    } else if (arg == "--out" && i + 1 < argc) {
      out = argv[++i];
    } else {
      return Usage(argv[0]);
    }
  }
#ifdef SSTFILTER_FAST_LOCAL_BLOOM_AVX2
  if (!FastLocalBloomAvx2Supported()) {
    std::fprintf(stderr,
                 "this CPU has no AVX2, which FastLocalBloom-AVX2 "
                 "needs\n");
    return 1;
  }
#endif
  RegisterSstfilterPolicies(*ROCKSDB_NAMESPACE::ObjectLibrary::Default(), "");

  Results results;
  results.sizes = smoke ? SmokeSizes() : Sizes();
  if (!smoke) results.sizes.many_total_bytes = 4 * L3Bytes();
  if (repeats > 0) results.sizes.repeats = repeats;
  results.sizes.sweeps = sweeps;
  results.load_before = LoadAverage();

  Runner runner(&results);
  bool first = true;
  for (const Group& group : Groups()) {
    runner.RunGroup(group, first && sweeps);
    first = false;
  }
  if (sweeps) {
    runner.SweepFpr();
    runner.SweepCuckooN();
  }
  results.load_after = LoadAverage();

  std::string mkdir = "mkdir -p '" + out + "'";
  if (std::system(mkdir.c_str()) != 0) {
    std::fprintf(stderr, "cannot create %s\n", out.c_str());
    return 1;
  }
  WriteMarkdown(results, out + "/compare.md");
  WriteCsv(results, out);
  WriteJson(results, out + "/compare.json");
  std::ifstream md(out + "/compare.md");
  std::printf("%s",
              std::string(std::istreambuf_iterator<char>(md), {}).c_str());
  std::fprintf(stderr,
               "results: %s/compare.{md,csv,json}, sweep_*.csv, "
               "cuckoo_n.csv, theory.csv\n",
               out.c_str());
  return g_failed ? 1 : 0;
}
