// bench/filter/compare_measure.cc: see compare_measure.h.
#include "compare_measure.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "rocksdb/convenience.h"
#include "sstfilter/block_classifier.h"

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

namespace sstfilter::bench {
namespace {

bool g_failed = false;

}  // namespace

KeyList MakeKeys(std::string_view prefix, uint64_t first, uint64_t count) {
  KeyList keys;
  keys.Reserve(count);
  for (uint64_t i = 0; i < count; ++i) keys.Add(prefix, first + i);
  keys.Seal();
  return keys;
}

void Fail(const std::string& why) {
  std::fprintf(stderr, "FAILED: %s\n", why.c_str());
  g_failed = true;
}

bool Failed() { return g_failed; }

bool SubjectOfPolicy(const std::string& name, const std::string& id,
                     Subject* out) {
  out->name = name;
  out->id = id;
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

double BuildFilter(const Subject& subject,
                   const rdb::FilterBuildingContext& context,
                   const KeyList& keys, Filter* out, size_t* peak_heap) {
  return BuildFilterFrom(
      subject, context,
      [&](auto&& add) {
        for (size_t i = 0; i < keys.size(); ++i) add(keys[i]);
      },
      out, peak_heap);
}

std::string Describe(const rdb::Slice& contents) {
  const BlockClass block =
      ClassifyBlock(std::string_view(contents.data(), contents.size()),
                    BlockFamily::kRocksdbBuiltin);
  if (block.owner == BlockOwner::kOurs) {
    if (const BlockedBloomView* bloom = block.ours.blocked_bloom()) {
      return "BlockedBloom k=" + std::to_string(bloom->params().num_probes) +
             "/" + std::to_string(bloom->params().lines_per_key) + " lines";
    }
    return "Cuckoo f=" +
           std::to_string(block.ours.cuckoo()->fingerprint_bits());
  }
  switch (block.rocksdb.kind) {
    case FilterKind::kFastLocalBloom:
      return "FastLocalBloom k=" + std::to_string(block.rocksdb.num_probes);
    case FilterKind::kRibbon128:
      return "Ribbon";
    default:
      return "?";
  }
}

uint64_t HashOf(bool ours, const rdb::Slice& key) {
  return ours ? HashKey(std::string_view(key.data(), key.size()))
              : RocksDbKeyHash(key);
}

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

}  // namespace sstfilter::bench
