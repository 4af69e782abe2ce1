// bench/filter/compare_scenarios.cc: see compare_scenarios.h.
#include "compare_scenarios.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <string_view>

#ifdef SSTFILTER_FAST_LOCAL_BLOOM_AVX2
#include "fast_local_bloom_avx2.h"
#endif
#include "filter_bits.h"
#include "probe_sampler.h"
#include "rocksdb/convenience.h"
#include "rocksdb/table.h"

namespace sstfilter::bench {
namespace {

// The prefix of filter j's keys in scenario (b).
std::string ManyPrefix(size_t filter) {
  return "f" + std::to_string(filter) + ":";
}

// ---------------------------------------------------------------- subjects

// An empty sampler: what a sampled reader costs beyond the Record calls of
// its user (LevelAware's learning).
class TrivialSampler final : public rocksdb_plugin::ProbeSampler {
 public:
  void Record(std::string_view, bool) const override {}
};

// `id` is a FilterPolicy::CreateFromString value,
// "FastLocalBloom-AVX2:<bits_per_key>" for the AVX2 reference, or
// "sampled:<id>": that policy's builder, and its reader given a
// TrivialSampler (rocksdb_plugin/src/probe_sampler.h).
bool MakeSubject(const std::string& name, const std::string& id, Subject* out) {
  out->name = name;
  out->id = id;
  const std::string sampled_prefix = "sampled:";
  if (id.rfind(sampled_prefix, 0) == 0) {
    if (!SubjectOfPolicy(name, id.substr(sampled_prefix.size()), out)) {
      return false;
    }
    out->id = id;
    out->new_reader = [](const rdb::Slice& contents) {
      static const auto sampler = std::make_shared<const TrivialSampler>();
      return rocksdb_plugin::NewBitsReader(
          contents, BlockFamily::kRocksdbBuiltin, sampler);
    };
    return true;
  }
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
  return SubjectOfPolicy(name, id, out);
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

// ---------------------------------------------------------------- run

class Runner {
 public:
  explicit Runner(Results* results) : r_(*results), sizes_(results->sizes) {}

  // See RunGroup() in compare_scenarios.h.
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
      rows[s].bits_per_key_a = cache_filters[s].BitsPerKey();
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

    for (int rep = 0; rep < sizes_.repeats; ++rep) {
      std::fprintf(stderr, "  repeat %d/%d\n", rep + 1, sizes_.repeats);
      for (size_t k = 0; k < rows.size(); ++k) {
        const size_t s = (k + rep) % rows.size();  // rotate the order
        Row& row = rows[s];
        rdb::FilterBitsReader* reader = cache_filters[s].reader.get();

        row.ns["build_a"].push_back(BuildNanosPerKey(row.subject, present));

        // The 1e6-key filter: build time, and in the first repeat the
        // builder's peak heap.
        fpr_filters[s] = Filter();
        size_t peak = 0;
        double nanos = BuildFilter(row.subject, contexts_.bottommost, fpr_keys,
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
      row.bits_per_key = filter.BitsPerKey();
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
      SweepPoint point{policy, nominal, filter.BitsPerKey()};
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
      measure("Cuckoo", bits, "id=sstfilter.Cuckoo:33;fingerprint_bits=" + b);
    }
  }

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
                       filter.BitsPerKey()};
      point.positives = CountFalsePositives(
          filter.reader.get(), sizes_.fpr_queries, 0, 0, &point.queries);
      point.fpr = static_cast<double>(point.positives) / point.queries;
      std::fprintf(stderr, "  n=%-9llu %.3f bits/key FPR %.4f%%\n",
                   static_cast<unsigned long long>(n), point.bits_per_key,
                   point.fpr * 100);
      r_.cuckoo_n.push_back(point);
    }
  }

  // See BuildTimeRatio() in compare_scenarios.h.
  double BuildTimeRatio(const std::string& id, const std::string& reference) {
    Row rows[2];
    if (!MakeSubject(id, id, &rows[0].subject) ||
        !MakeSubject(reference, reference, &rows[1].subject)) {
      return NAN;
    }
    const KeyList present = MakeKeys(kPresent, 0, sizes_.cache_keys);
    for (int rep = 0; rep < sizes_.repeats; ++rep) {
      for (int k = 0; k < 2; ++k) {
        Row& row = rows[(k + rep) % 2];  // rotate the order
        row.ns["build_a"].push_back(BuildNanosPerKey(row.subject, present));
      }
    }
    return Ratio(rows[0], {&rows[1]}, "build_a");
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

  // build_a: the build time per key of filters of `present` in the
  // bottommost context, over build_keys_per_sample keys.
  double BuildNanosPerKey(const Subject& subject, const KeyList& present) {
    const uint64_t passes =
        std::max<uint64_t>(1, sizes_.build_keys_per_sample / present.size());
    double nanos = 0;
    for (uint64_t p = 0; p < passes; ++p) {
      Filter scratch;
      nanos += BuildFilter(subject, contexts_.bottommost, present, &scratch);
    }
    return nanos / static_cast<double>(passes * present.size());
  }

  Results& r_;
  const Sizes& sizes_;
  Contexts contexts_;
  uint64_t sink_ = 0;  // the positives of timed loops, kept alive
};

}  // namespace

void RunGroup(const Group& group, bool extras, Results* results) {
  Runner(results).RunGroup(group, extras);
}

void SweepFpr(Results* results) { Runner(results).SweepFpr(); }

void SweepCuckooN(Results* results) { Runner(results).SweepCuckooN(); }

double BuildTimeRatio(const std::string& id, const std::string& reference,
                      Results* results) {
  return Runner(results).BuildTimeRatio(id, reference);
}

}  // namespace sstfilter::bench
