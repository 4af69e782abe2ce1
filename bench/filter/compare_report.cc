// bench/filter/compare_report.cc: see compare_report.h.
#include "compare_report.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "rocksdb/version.h"

namespace sstfilter::bench {
namespace {

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
// and f = 0.96 c bits (our static bucket array is 96% full).
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

// A target of the performance bar, as measured: `measured` is to be at most
// `limit` (or at least, where !at_most). A missed target is a goal, not a
// failure. Ratios are to the faster Bloom reference at equal bits/key in
// the same run (RocksDB's bloomfilter, or FastLocalBloom-AVX2 against
// Debian's generic build).
struct BarMeasure {
  std::string what;
  double measured;
  double limit;
  std::string unit = "x";
  bool at_most = true;

  bool Met() const {
    return std::isfinite(measured) &&
           (at_most ? measured <= limit : measured >= limit);
  }
};

// Every query path: single and batched, absent and present, in cache (a)
// and over many filters (b).
constexpr const char* kQueryMetrics[] = {"a_absent",  "a_present", "b_absent",
                                         "b_present", "c_absent",  "c_present",
                                         "cb_absent", "cb_present"};

std::vector<BarMeasure> BarMeasures(const Results& r) {
  std::vector<BarMeasure> t;
  for (const std::string& group : {std::string("10"), std::string("16")}) {
    const Row* bloom = Find(r, group, kBloom);
    const auto refs = Refs(r, group);
    for (const std::string layout : {"BlockedBloom", "BlockedBloom 1 line"}) {
      const Row* bb = Find(r, group, layout);
      if (bb == nullptr || bloom == nullptr) continue;
      const std::string at = layout + " @" + group + ": ";
      // One line: bloomfilter's FPR; two lines: 10% fewer false positives
      // at 10 bits/key, 25% at 16.
      const bool one_line = layout == "BlockedBloom 1 line";
      const double fpr_limit = one_line ? 1.02 : group == "10" ? 0.90 : 0.75;
      t.push_back({at + "FPR vs bloomfilter", bb->fpr / bloom->fpr, fpr_limit});
      // Two lines are held on present keys in cache only (at 1.1x), one
      // line on every path.
      for (const char* m : kQueryMetrics) {
        const std::string metric = m;
        if (!one_line && metric != "a_present" &&
            metric.find("present") != std::string::npos) {
          continue;
        }
        const double limit = !one_line && metric == "a_present" ? 1.1 : 1.0;
        t.push_back(
            {at + m + " vs faster reference", Ratio(*bb, refs, m), limit});
      }
      for (const char* m : {"build_a", "build_b"}) {
        t.push_back(
            {at + m + " vs faster reference", Ratio(*bb, refs, m), 1.0});
      }
      // The same reader given a sampler, against it without.
      const Row* sampled = Find(r, group, layout + kSampledSuffix);
      if (sampled == nullptr) continue;
      for (const char* m : kQueryMetrics) {
        t.push_back(
            {at + m + " sampled vs unsampled", Ratio(*sampled, {bb}, m), 1.05});
      }
    }
  }
  // Cuckoo at f = 12.
  double max_bits = 0, max_fpr = 0;
  for (const auto& p : r.cuckoo_n) {
    max_bits = std::max(max_bits, p.bits_per_key);
    max_fpr = std::max(max_fpr, p.fpr);
  }
  if (!r.cuckoo_n.empty()) {
    // 12/0.96 = 12.5 in the slots, plus format v2's 32 bytes of metadata
    // (0.26 bits/key at n = 1e3); the model FPR is 8 x 0.96 / 4095 = 0.1875%.
    t.push_back({"Cuckoo f=12: max stored bits/key, n = 1e3..1e7", max_bits,
                 12.8, "bits/key"});
    t.push_back(
        {"Cuckoo f=12: max FPR % over n = 1e3..1e7", max_fpr * 100, 0.19, "%"});
  }
  for (int f : {12, 16}) {
    for (const auto& p : r.fpr_sweep) {
      if (p.policy != "Cuckoo" || p.nominal != f) continue;
      const double bloom_bits = BloomBitsAtFpr(r, p.fpr);
      t.push_back({"Cuckoo f=" + std::to_string(f) +
                       ": space saved vs bloomfilter at equal FPR",
                   (1.0 - p.bits_per_key / bloom_bits) * 100,
                   f == 12 ? 8.0 : 15.0, "%", /*at_most=*/false});
    }
  }
  const Row* cuckoo = Find(r, "12.5", "Cuckoo f=12");
  const Row* ribbon = Find(r, "12.5", kRibbon);
  if (cuckoo != nullptr) {
    for (const char* m : {"a_absent", "b_absent", "c_absent", "cb_absent"}) {
      t.push_back({std::string("Cuckoo f=12: ") + m +
                       " vs faster Bloom reference at 12.5",
                   Ratio(*cuckoo, Refs(r, "12.5"), m), 1.3});
    }
  }
  if (cuckoo != nullptr && ribbon != nullptr) {
    for (const char* m : {"build_a", "build_1e6", "build_b"}) {
      t.push_back({std::string("Cuckoo f=12: ") + m + " vs ribbonfilter:12.5",
                   Ratio(*cuckoo, {ribbon}, m), 0.5});
    }
  }
  return t;
}

std::string JsonNumber(double v) {
  if (!std::isfinite(v)) return "null";
  std::ostringstream s;
  s.precision(6);
  s << v;
  return s.str();
}

}  // namespace

void WriteMarkdown(const Results& r, const std::string& path) {
  std::ofstream md(path);
  const Sizes& z = r.sizes;
  md << "# sstfilter-filter-bench compare\n\n"
     << "Machine: " << Machine() << "; load average " << r.load_before
     << " at the start, " << r.load_after << " at the end (shared machine).\n"
     << "RocksDB " << ROCKSDB_MAJOR << "." << ROCKSDB_MINOR << "."
     << ROCKSDB_PATCH
#ifdef SSTFILTER_FAST_LOCAL_BLOOM_AVX2
     << " (Debian's librocksdb: generic x86-64, assertions on) for "
        "bloomfilter and ribbonfilter; FastLocalBloom-AVX2 is RocksDB's "
        "FastLocalBloomImpl built with -mavx2 -DHAVE_AVX2 -O2 -DNDEBUG "
        "(it writes the same bytes as bloomfilter).\n\n"
#else
     << " built from source for this CPU (PORTABLE=0, Release) with "
        "sstfilter compiled in: bloomfilter, ribbonfilter and our policies "
        "in one binary.\n\n"
#endif
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
      md << " | " << Fixed(row.Median(m), 1) << " | "
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
            md << " | " << Fixed(row.Median(metric), 1) << " | "
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
     << " MiB: 4x L3, or --many-mib), and the FPR over the "
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
    const double hash = row.Median("hash");
    md << "| " << row.subject.name << " | " << Fixed(hash, 1) << " | "
       << Fixed(row.Median("probe_a"), 1) << " | "
       << Fixed(row.Median("a_absent"), 1) << " | "
       << Fixed(row.Median("a_absent") - hash - row.Median("probe_a"), 1)
       << " | " << Fixed(row.Median("probe_b"), 1) << " | "
       << Fixed(row.Median("b_absent"), 1) << " |\n";
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
  // The performance bar: each target measured in this run, met or missed.
  md << "\n## The performance bar\n\n| target | measured | limit | |\n"
        "|---|---:|---:|---|\n";
  for (const BarMeasure& t : BarMeasures(r)) {
    md << "| " << t.what << " | "
       << (std::isfinite(t.measured) ? Fixed(t.measured, 3) : "-") << " "
       << t.unit << " | " << (t.at_most ? "<= " : ">= ") << t.limit << " "
       << t.unit << " | " << (t.Met() ? "met" : "**missed**") << " |\n";
  }
}

std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return one + " " + five + " " + fifteen;
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
        csv << "," << row.Median(m) << ","
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
      js << ", \"" << m << "\": {\"ns\": " << JsonNumber(row.Median(m))
         << ", \"x_bloom\": "
         << JsonNumber(bloom ? Ratio(row, {bloom}, m) : NAN)
         << ", \"x_ref\": " << JsonNumber(Ratio(row, Refs(r, row.group), m))
         << "}";
    }
    js << "}";
  }
  js << "\n  ],\n  \"targets\": [";
  const auto measures = BarMeasures(r);
  for (size_t i = 0; i < measures.size(); ++i) {
    const BarMeasure& t = measures[i];
    js << (i ? "," : "") << "\n    {\"target\": \"" << t.what
       << "\", \"measured\": " << JsonNumber(t.measured) << ", \"unit\": \""
       << t.unit << "\", \"limit\": " << JsonNumber(t.limit)
       << ", \"at_most\": " << (t.at_most ? "true" : "false")
       << ", \"met\": " << (t.Met() ? "true" : "false") << "}";
  }
  js << "\n  ]\n}\n";
}

}  // namespace sstfilter::bench
