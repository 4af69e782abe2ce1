#include "sstfilter/cuckoo_filter.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "detail/cuckoo_packed_table.h"
#include "sstfilter/detail/endian.h"
#include "sstfilter/format.h"
#include "sstfilter/hash.h"

namespace sstfilter {
namespace {

using detail::PackedSlots;
using detail::PackedSlotsView;

constexpr uint8_t kVersion = 1;
constexpr size_t kHeaderBytes = 8;
constexpr size_t kTableHeaderBytes = 12;
constexpr size_t kStashEntryBytes = 8;
constexpr uint32_t kSlots = CuckooLimits::kSlotsPerBucket;
constexpr uint64_t kMaxBuckets = std::numeric_limits<uint32_t>::max();
// 2^64 / golden ratio, the usual odd constant to spread a small value (a
// seed; a fingerprint, for the low bits of a chained table's alternate).
constexpr uint64_t kSeedMultiplier = 0x9e3779b97f4a7c15ULL;
// The multiplier of MurmurHash64A (Appleby): spreads a fingerprint before
// FastRange64 picks R(fp) for the alternate bucket.
constexpr uint64_t kAlternateMultiplier = 0xc6a4a7935bd1e995ULL;
// The dynamic filter bounds the random walk at 500 kicks, as Fan et al. do
// (MAX_CUCKOO_COUNT in efficient/cuckoofilter); a failure goes to the stash.
constexpr uint32_t kMaxKicks = 500;
// A static build fills to 0.96, where the longest walk is longer: measured
// 386..907 kicks over n = 1e6 and 1e7 at f = 8..16 (f = 6: up to 3856).
// A failure restarts the whole build, so allow a wide margin.
constexpr uint32_t kStaticMaxKicks = 4000;
// Static sizing: a target load of 0.96 = 96 keys per 25 buckets of 4 slots,
// below the ~0.98 threshold of 4-slot cuckoo hashing (Fan et al. report
// 95.5% reached by random walks). Integer so that sizes are exact.
constexpr uint64_t kKeysPerStep = 96;
constexpr uint64_t kBucketsPerStep = 25;
// A static build that fails tries this many seeds before growing by ~1%.
constexpr uint32_t kSeedsPerSize = 4;
// The dynamic filter's kick-out RNG starts here (any fixed value).
constexpr uint64_t kDynamicRngSeed = 0x243f6a8885a308d3ULL;

// An item that found no slot: one of its buckets and its fingerprint.
struct StashEntry {
  uint32_t bucket;
  uint32_t fingerprint;
};

// Where one hash lives in one table (see the derivation in the header).
struct Location {
  uint64_t bucket;
  uint64_t alternate;
  uint32_t fingerprint;
};

// alternate_t(i, fp) of table `level` t of a chain (see the header):
// (R_0(fp) - i) mod m_0 on the top bits, an fp-derived XOR on the low t.
// Applying it twice gives i back.
inline uint64_t AlternateBucket(uint64_t bucket, uint32_t fingerprint,
                                uint64_t num_buckets, uint32_t level) {
  const uint64_t base = num_buckets >> level;
  const uint64_t high = bucket >> level;
  const uint64_t r = FastRange64(fingerprint * kAlternateMultiplier, base);
  const uint64_t alternate_high = r >= high ? r - high : r + base - high;
  if (level == 0) return alternate_high;
  const uint64_t flip = (fingerprint * kSeedMultiplier) >> (64 - level);
  return (alternate_high << level) |
         ((bucket ^ flip) & ((uint64_t{1} << level) - 1));
}

inline Location Locate(uint64_t hash, uint32_t seed, uint32_t level,
                       const PackedSlotsView& slots) {
  const uint64_t hs =
      seed == 0 ? hash : Remix64(hash ^ (seed * kSeedMultiplier));
  const uint64_t m = slots.num_buckets();
  const uint32_t fp_range =
      static_cast<uint32_t>((uint64_t{1} << slots.fingerprint_bits()) - 1);
  const uint32_t fingerprint =
      1 + FastRange32(static_cast<uint32_t>(hs), fp_range);
  const uint64_t bucket = FastRange64(hs, m);
  return {bucket, AlternateBucket(bucket, fingerprint, m, level), fingerprint};
}

inline bool StashMatches(const StashEntry& e, const Location& loc) {
  return e.fingerprint == loc.fingerprint &&
         (e.bucket == loc.bucket || e.bucket == loc.alternate);
}

inline bool Probe(const PackedSlotsView& slots,
                  const std::vector<StashEntry>& stash, const Location& loc) {
  if (slots.EitherBucketContains(loc.bucket, loc.alternate, loc.fingerprint)) {
    return true;
  }
  for (const StashEntry& e : stash) {
    if (StashMatches(e, loc)) return true;
  }
  return false;
}

inline bool TableMayContain(const PackedSlotsView& slots, uint32_t seed,
                            uint32_t level,
                            const std::vector<StashEntry>& stash,
                            uint64_t hash) {
  const Location loc = Locate(hash, seed, level, slots);
  // Start the second bucket's load before the first is compared: an absent
  // key then costs about one memory latency, not two.
  __builtin_prefetch(slots.BucketAddress(loc.alternate));
  return Probe(slots, stash, loc);
}

// The random walk's coin flips: a counter passed through Remix64
// (splitmix64's construction), seeded from fixed values so that builds are
// reproducible.
class KickRng {
 public:
  explicit KickRng(uint64_t seed) : state_(seed) {}
  uint32_t Next() {
    state_ += kSeedMultiplier;
    return static_cast<uint32_t>(Remix64(state_));
  }

 private:
  uint64_t state_;
};

// Puts the item at `loc` into one of its buckets, kicking residents along a
// random walk (Fan et al., Algorithm 1) at most `max_kicks` times. On false,
// *homeless is the item (maybe another one) that is now in no slot.
bool Place(PackedSlots& slots, uint32_t level, const Location& loc,
           uint32_t max_kicks, KickRng& rng, StashEntry* homeless) {
  if (slots.TryAdd(loc.bucket, loc.fingerprint) ||
      slots.TryAdd(loc.alternate, loc.fingerprint)) {
    return true;
  }
  uint64_t current = (rng.Next() & 1) ? loc.alternate : loc.bucket;
  uint32_t fingerprint = loc.fingerprint;
  for (uint32_t kick = 0; kick < max_kicks; ++kick) {
    fingerprint = slots.Exchange(current, rng.Next() % kSlots, fingerprint);
    current = AlternateBucket(current, fingerprint, slots.num_buckets(), level);
    if (slots.TryAdd(current, fingerprint)) return true;
  }
  *homeless = {static_cast<uint32_t>(current), fingerprint};
  return false;
}

Status CheckFingerprintBits(uint32_t fingerprint_bits) {
  if (fingerprint_bits < CuckooLimits::kMinFingerprintBits ||
      fingerprint_bits > CuckooLimits::kMaxFingerprintBits) {
    return Status::InvalidArgument("fingerprint_bits must be in 4..32, not " +
                                   std::to_string(fingerprint_bits));
  }
  return Status::Ok();
}

// Buckets of a static filter for `num_keys` distinct keys at load 0.96
// (may exceed kMaxBuckets: the caller checks).
// The FPR of one table of m buckets whose query compares `items_compared`
// stored fingerprints on average (2 buckets * 4 * load) and checks
// `stash_entries`: a stored fingerprint equals the query's with
// p = 1/(2^f - 1), and a stash entry is compared when it sits in one of the
// query's two buckets (2/m).
double FprOfComparisons(double items_compared, double stash_entries,
                        uint64_t num_buckets, uint32_t fingerprint_bits) {
  const double log_miss = std::log1p(
      -1.0 / static_cast<double>((uint64_t{1} << fingerprint_bits) - 1));
  const double stash_share =
      std::min(1.0, 2.0 / static_cast<double>(num_buckets));
  return -std::expm1(items_compared * log_miss +
                     stash_entries *
                         std::log1p(stash_share * std::expm1(log_miss)));
}

uint64_t StaticBuckets(uint64_t num_keys) {
  const unsigned __int128 m =
      (static_cast<unsigned __int128>(num_keys) * kBucketsPerStep +
       kKeysPerStep - 1) /
      kKeysPerStep;
  return static_cast<uint64_t>(m);
}

void AppendHeader(std::string* out, uint32_t fingerprint_bits,
                  size_t num_tables) {
  out->push_back(kFormatMagic[0]);
  out->push_back(kFormatMagic[1]);
  out->push_back(static_cast<char>(FilterKind::kCuckoo));
  out->push_back(static_cast<char>(kVersion));
  out->push_back(static_cast<char>(fingerprint_bits));
  out->push_back(static_cast<char>(kSlots));
  out->push_back(static_cast<char>(num_tables));
  out->push_back(0);  // reserved
}

void AppendU32(std::string* out, uint32_t v) {
  char buf[4];
  detail::StoreLittleEndian<uint32_t>(buf, v);
  out->append(buf, sizeof(buf));
}

void AppendTable(std::string* out, const PackedSlotsView& slots, uint32_t seed,
                 const std::vector<StashEntry>& stash) {
  AppendU32(out, static_cast<uint32_t>(slots.num_buckets()));
  AppendU32(out, seed);
  AppendU32(out, static_cast<uint32_t>(stash.size()));
  out->append(reinterpret_cast<const char*>(slots.data()), slots.size_bytes());
  for (const StashEntry& e : stash) {
    AppendU32(out, e.bucket);
    AppendU32(out, e.fingerprint);
  }
}

// The distinct hashes of several sorted runs, in ascending order: a k-way
// merge over a binary heap of the runs' heads.
class MergedRuns {
 public:
  MergedRuns(const HashRun* runs, size_t num_runs) : runs_(runs) {
    for (size_t r = 0; r < num_runs; ++r) {
      if (runs[r].size > 0) heads_.push_back({runs[r].data[0], r, 0});
    }
    std::make_heap(heads_.begin(), heads_.end(), Later);
  }

  // The next distinct hash; false at the end.
  bool Next(uint64_t* hash) {
    while (!heads_.empty()) {
      std::pop_heap(heads_.begin(), heads_.end(), Later);
      Head& head = heads_.back();
      const uint64_t value = head.value;
      if (++head.index < runs_[head.run].size) {
        head.value = runs_[head.run].data[head.index];
        std::push_heap(heads_.begin(), heads_.end(), Later);
      } else {
        heads_.pop_back();
      }
      if (!has_last_ || value != last_) {
        has_last_ = true;
        last_ = value;
        *hash = value;
        return true;
      }
    }
    return false;
  }

 private:
  struct Head {
    uint64_t value;
    size_t run, index;
  };
  static bool Later(const Head& a, const Head& b) { return a.value > b.value; }

  const HashRun* runs_;
  std::vector<Head> heads_;
  bool has_last_ = false;
  uint64_t last_ = 0;
};

// Inserts every distinct hash of `runs` into an empty table; false as soon
// as one finds no place (the caller starts over).
bool FillStaticTable(PackedSlots& slots, uint32_t seed, const HashRun* runs,
                     size_t num_runs) {
  KickRng rng(seed * kSeedMultiplier + slots.num_buckets());
  StashEntry homeless;
  MergedRuns merged(runs, num_runs);
  // Prefetch a few items ahead, through a small ring of upcoming hashes:
  // building a large table is bound by random bucket misses.
  constexpr size_t kAhead = 8;
  uint64_t ahead[kAhead];
  size_t buffered = 0;
  while (buffered < kAhead && merged.Next(&ahead[buffered])) ++buffered;
  for (size_t i = 0; i < buffered; ++i) {
    const Location loc = Locate(ahead[i], seed, 0, slots);
    __builtin_prefetch(slots.BucketAddress(loc.bucket), 1);
    __builtin_prefetch(slots.BucketAddress(loc.alternate), 1);
  }
  for (size_t next = 0; buffered > 0; next = (next + 1) % kAhead) {
    const uint64_t hash = ahead[next];
    --buffered;
    uint64_t incoming;
    if (merged.Next(&incoming)) {
      ahead[next] = incoming;
      ++buffered;
      const Location loc = Locate(incoming, seed, 0, slots);
      __builtin_prefetch(slots.BucketAddress(loc.bucket), 1);
      __builtin_prefetch(slots.BucketAddress(loc.alternate), 1);
    }
    if (!Place(slots, 0, Locate(hash, seed, 0, slots), kStaticMaxKicks, rng,
               &homeless)) {
      return false;
    }
  }
  return true;
}

std::string BucketCountError(uint64_t num_buckets) {
  return "a cuckoo table of " + std::to_string(num_buckets) +
         " buckets exceeds the format's 2^32-1";
}

}  // namespace

size_t StaticCuckooBytes(uint64_t num_keys, uint32_t fingerprint_bits) {
  if (num_keys == 0) return kHeaderBytes;
  const uint64_t m = StaticBuckets(num_keys);
  if (m > kMaxBuckets) return std::numeric_limits<size_t>::max();
  return kHeaderBytes + kTableHeaderBytes +
         PackedSlotsView::BytesFor(m, fingerprint_bits);
}

namespace {
// The most buckets whose packed slots fit in `bytes` with one table header.
uint64_t StaticBucketsIn(size_t bytes, uint32_t fingerprint_bits) {
  if (bytes < kHeaderBytes + kTableHeaderBytes) return 0;
  // ceil(m * f / 2) slot bytes must fit: m <= 2 * payload / f.
  const unsigned __int128 payload = bytes - kHeaderBytes - kTableHeaderBytes;
  return static_cast<uint64_t>(
      std::min<unsigned __int128>(payload * 2 / fingerprint_bits, kMaxBuckets));
}
}  // namespace

uint64_t StaticCuckooCapacity(size_t bytes, uint32_t fingerprint_bits) {
  if (!CheckFingerprintBits(fingerprint_bits).ok()) return 0;
  // The most keys with ceil(25 n / 96) <= m.
  return StaticBucketsIn(bytes, fingerprint_bits) * kKeysPerStep /
         kBucketsPerStep;
}

double StaticCuckooFpr(uint64_t num_keys, size_t bytes,
                       uint32_t fingerprint_bits) {
  if (num_keys == 0 || !CheckFingerprintBits(fingerprint_bits).ok()) {
    return 0.0;
  }
  const uint64_t m = StaticBucketsIn(bytes, fingerprint_bits);
  if (m == 0 || num_keys > m * kSlots) return 1.0;
  return FprOfComparisons(
      2.0 * static_cast<double>(num_keys) / static_cast<double>(m), 0.0, m,
      fingerprint_bits);
}

Status BuildStaticCuckoo(const uint64_t* hashes, size_t count,
                         uint32_t fingerprint_bits, std::string* out) {
  std::vector<uint64_t> copy(hashes, hashes + count);
  const HashRun all{copy.data(), copy.size()};
  return BuildStaticCuckoo(&all, 1, fingerprint_bits, out);
}

Status BuildStaticCuckoo(const HashRun* runs, size_t num_runs,
                         uint32_t fingerprint_bits, std::string* out) {
  Status s = CheckFingerprintBits(fingerprint_bits);
  if (!s.ok()) return s;
  for (size_t r = 0; r < num_runs; ++r) {
    std::sort(runs[r].data, runs[r].data + runs[r].size);
  }
  uint64_t count = 0;  // distinct hashes: equal hashes are the same item
  MergedRuns distinct(runs, num_runs);
  for (uint64_t hash; distinct.Next(&hash);) ++count;
  out->clear();
  if (count == 0) {
    AppendHeader(out, fingerprint_bits, 0);
    return Status::Ok();
  }
  uint64_t num_buckets = StaticBuckets(count);
  for (uint32_t seed = 0;; ++seed) {
    if (seed > 0 && seed % kSeedsPerSize == 0) {
      num_buckets += std::max<uint64_t>(1, num_buckets / 100);
    }
    if (num_buckets > kMaxBuckets) {
      return Status::CapacityExceeded(BucketCountError(num_buckets));
    }
    out->clear();
    AppendHeader(out, fingerprint_bits, 1);
    AppendU32(out, static_cast<uint32_t>(num_buckets));
    AppendU32(out, seed);
    AppendU32(out, 0);  // empty stash
    const size_t slots_at = out->size();
    out->resize(slots_at +
                PackedSlotsView::BytesFor(num_buckets, fingerprint_bits));
    PackedSlots slots(reinterpret_cast<uint8_t*>(&(*out)[slots_at]),
                      num_buckets, fingerprint_bits);
    if (FillStaticTable(slots, seed, runs, num_runs)) return Status::Ok();
  }
}

// ---------------------------------------------------------------------------
// CuckooView

struct CuckooView::Table {
  PackedSlotsView slots;
  uint32_t seed = 0;
  uint32_t level = 0;  // t: the index in the chain
  std::vector<StashEntry> stash;
};

CuckooView::CuckooView() = default;
CuckooView::~CuckooView() = default;
CuckooView::CuckooView(CuckooView&&) noexcept = default;
CuckooView& CuckooView::operator=(CuckooView&&) noexcept = default;

Status CuckooView::Parse(std::string_view bytes, CuckooView* out) {
  Status s = CheckFormat(bytes, FilterKind::kCuckoo, kVersion);
  if (!s.ok()) return s;
  if (bytes.size() < kHeaderBytes) {
    return Status::Corruption("Cuckoo header truncated: " +
                              std::to_string(bytes.size()) + " of 8 bytes");
  }
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  const uint32_t fingerprint_bits = data[4];
  const uint32_t slots_per_bucket = data[5];
  const uint32_t num_tables = data[6];
  s = CheckFingerprintBits(fingerprint_bits);
  if (!s.ok()) return Status::Corruption("Cuckoo header: " + s.message());
  if (slots_per_bucket != kSlots) {
    return Status::Corruption("Cuckoo slots_per_bucket must be 4, not " +
                              std::to_string(slots_per_bucket));
  }
  if (num_tables > CuckooLimits::kMaxTables) {
    return Status::Corruption("Cuckoo num_tables " +
                              std::to_string(num_tables) + " exceeds 64");
  }
  if (data[7] != 0) {
    return Status::Corruption("Cuckoo reserved header byte is not zero");
  }
  const uint32_t max_fingerprint =
      static_cast<uint32_t>((uint64_t{1} << fingerprint_bits) - 1);
  CuckooView view;
  view.fingerprint_bits_ = fingerprint_bits;
  view.size_bytes_ = bytes.size();
  size_t pos = kHeaderBytes;
  uint64_t first_num_buckets = 0;
  uint32_t first_seed = 0;
  for (uint32_t t = 0; t < num_tables; ++t) {
    const std::string where = "Cuckoo table " + std::to_string(t) + ": ";
    if (bytes.size() - pos < kTableHeaderBytes) {
      return Status::Corruption(where + "header truncated");
    }
    const uint32_t num_buckets = detail::LoadLittleEndian<uint32_t>(data + pos);
    Table table;
    table.seed = detail::LoadLittleEndian<uint32_t>(data + pos + 4);
    const uint32_t stash_count =
        detail::LoadLittleEndian<uint32_t>(data + pos + 8);
    pos += kTableHeaderBytes;
    if (num_buckets == 0) {
      return Status::Corruption(where + "num_buckets is 0");
    }
    if (t == 0) {
      first_num_buckets = num_buckets;
      first_seed = table.seed;
    } else if (t >= 32 || (first_num_buckets << t) != num_buckets) {
      return Status::Corruption(where + "num_buckets " +
                                std::to_string(num_buckets) + " is not 2^" +
                                std::to_string(t) + " times table 0's " +
                                std::to_string(first_num_buckets));
    } else if (table.seed != first_seed) {
      return Status::Corruption(where + "seed " + std::to_string(table.seed) +
                                " differs from table 0's " +
                                std::to_string(first_seed));
    }
    table.level = t;
    const size_t slot_bytes =
        PackedSlotsView::BytesFor(num_buckets, fingerprint_bits);
    if (bytes.size() - pos < slot_bytes) {
      return Status::Corruption(
          where + "slots truncated: " + std::to_string(num_buckets) +
          " buckets need " + std::to_string(slot_bytes) + " bytes, " +
          std::to_string(bytes.size() - pos) + " remain");
    }
    table.slots = PackedSlotsView(data + pos, num_buckets, fingerprint_bits);
    pos += slot_bytes;
    if ((bytes.size() - pos) / kStashEntryBytes < stash_count) {
      return Status::Corruption(
          where + "stash truncated: " + std::to_string(stash_count) +
          " entries need " + std::to_string(stash_count * kStashEntryBytes) +
          " bytes, " + std::to_string(bytes.size() - pos) + " remain");
    }
    table.stash.resize(stash_count);
    for (StashEntry& e : table.stash) {
      e.bucket = detail::LoadLittleEndian<uint32_t>(data + pos);
      e.fingerprint = detail::LoadLittleEndian<uint32_t>(data + pos + 4);
      pos += kStashEntryBytes;
      if (e.bucket >= num_buckets) {
        return Status::Corruption(where + "stash bucket " +
                                  std::to_string(e.bucket) + " is not below " +
                                  std::to_string(num_buckets));
      }
      if (e.fingerprint == 0 || e.fingerprint > max_fingerprint) {
        return Status::Corruption(
            where + "stash fingerprint " + std::to_string(e.fingerprint) +
            " is not a nonzero " + std::to_string(fingerprint_bits) +
            "-bit value");
      }
    }
    view.tables_.push_back(std::move(table));
  }
  if (pos != bytes.size()) {
    return Status::Corruption(std::to_string(bytes.size() - pos) +
                              " trailing bytes after the last Cuckoo table");
  }
  *out = std::move(view);
  return Status::Ok();
}

bool CuckooView::may_contain(uint64_t hash) const {
  for (const Table& t : tables_) {
    if (TableMayContain(t.slots, t.seed, t.level, t.stash, hash)) return true;
  }
  return false;
}

bool CuckooView::may_contain_key(std::string_view key) const {
  return may_contain(HashKey(key));
}

void CuckooView::may_contain_batch(const uint64_t* hashes, size_t count,
                                   bool* results) const {
  std::fill(results, results + count, false);
  constexpr size_t kGroup = 16;
  Location group[kGroup];
  bool hit[kGroup];
  for (const Table& t : tables_) {
    // Locals, so that the stores to `results` (which may alias anything)
    // do not force the table's fields to be reloaded for every query.
    const PackedSlotsView slots = t.slots;
    const uint32_t seed = t.seed, level = t.level;
    for (size_t start = 0; start < count; start += kGroup) {
      const size_t n = std::min(kGroup, count - start);
      for (size_t i = 0; i < n; ++i) {
        group[i] = Locate(hashes[start + i], seed, level, slots);
        __builtin_prefetch(slots.BucketAddress(group[i].bucket));
        __builtin_prefetch(slots.BucketAddress(group[i].alternate));
      }
      if (t.stash.empty() && slots.HasWordBuckets()) {
        // The common case (a static filter): no stash, no width check per
        // query.
        for (size_t i = 0; i < n; ++i) {
          hit[i] = slots.WordBucketsContain(group[i].bucket, group[i].alternate,
                                            group[i].fingerprint);
        }
      } else {
        for (size_t i = 0; i < n; ++i) hit[i] = Probe(slots, t.stash, group[i]);
      }
      for (size_t i = 0; i < n; ++i) results[start + i] |= hit[i];
    }
  }
}

uint32_t CuckooView::fingerprint_bits() const { return fingerprint_bits_; }

uint32_t CuckooView::num_tables() const {
  return static_cast<uint32_t>(tables_.size());
}

uint64_t CuckooView::num_buckets() const {
  uint64_t n = 0;
  for (const Table& t : tables_) n += t.slots.num_buckets();
  return n;
}

uint64_t CuckooView::num_items() const {
  uint64_t n = 0;
  for (const Table& t : tables_) n += t.slots.CountOccupied() + t.stash.size();
  return n;
}

double CuckooView::load() const {
  uint64_t occupied = 0;
  for (const Table& t : tables_) occupied += t.slots.CountOccupied();
  const uint64_t slots = num_buckets() * kSlots;
  return slots == 0
             ? 0.0
             : static_cast<double>(occupied) / static_cast<double>(slots);
}

size_t CuckooView::size_bytes() const { return size_bytes_; }

double CuckooView::estimated_fpr() const {
  if (tables_.empty()) return 0.0;
  // Tables fail independently: 1 - FPR is the product of their passes.
  double log_pass = 0.0;
  for (const Table& t : tables_) {
    const double m = static_cast<double>(t.slots.num_buckets());
    log_pass += std::log1p(-FprOfComparisons(
        2.0 * static_cast<double>(t.slots.CountOccupied()) / m,
        static_cast<double>(t.stash.size()), t.slots.num_buckets(),
        fingerprint_bits_));
  }
  return -std::expm1(log_pass);
}

// ---------------------------------------------------------------------------
// CuckooFilter

struct CuckooFilter::Impl {
  struct Table {
    std::vector<uint8_t> bytes;
    uint64_t num_buckets;
    uint32_t seed;
    uint32_t level;  // t: the index in the chain
    std::vector<StashEntry> stash;
  };

  uint32_t fingerprint_bits = 12;
  std::vector<Table> tables;
  uint64_t size = 0;
  KickRng rng{kDynamicRngSeed};

  PackedSlots Slots(Table& t) {
    return PackedSlots(t.bytes.data(), t.num_buckets, fingerprint_bits);
  }
  PackedSlotsView Slots(const Table& t) const {
    return PackedSlotsView(t.bytes.data(), t.num_buckets, fingerprint_bits);
  }

  void AddTable(uint64_t num_buckets, uint32_t seed) {
    Table t;
    t.bytes.assign(PackedSlotsView::BytesFor(num_buckets, fingerprint_bits), 0);
    t.num_buckets = num_buckets;
    t.seed = seed;
    t.level = static_cast<uint32_t>(tables.size());
    tables.push_back(std::move(t));
  }

  // Chains a table with twice the buckets of the newest and the same seed
  // (the header's "Chains" rule); a filter without tables starts at 1.
  Status Grow() {
    const uint64_t num_buckets =
        tables.empty() ? 1 : 2 * tables.back().num_buckets;
    if (num_buckets > kMaxBuckets) {
      return Status::CapacityExceeded(BucketCountError(num_buckets));
    }
    AddTable(num_buckets, tables.empty() ? 0 : tables[0].seed);
    return Status::Ok();
  }

  uint32_t CountCopies(uint64_t hash) const {
    uint32_t copies = 0;
    for (const Table& t : tables) {
      const PackedSlotsView slots = Slots(t);
      const Location loc = Locate(hash, t.seed, t.level, slots);
      copies += slots.Count(loc.bucket, loc.fingerprint);
      if (loc.alternate != loc.bucket) {
        copies += slots.Count(loc.alternate, loc.fingerprint);
      }
      for (const StashEntry& e : t.stash) copies += StashMatches(e, loc);
    }
    return copies;
  }

  // After a slot was freed: give the stashed items another walk.
  void ReturnStashToTable(Table& t) {
    std::vector<StashEntry> waiting;
    waiting.swap(t.stash);
    PackedSlots slots = Slots(t);
    for (const StashEntry& e : waiting) {
      const Location loc{
          e.bucket,
          AlternateBucket(e.bucket, e.fingerprint, t.num_buckets, t.level),
          e.fingerprint};
      StashEntry homeless;
      if (!Place(slots, t.level, loc, kMaxKicks, rng, &homeless)) {
        t.stash.push_back(homeless);
      }
    }
  }
};

CuckooFilter::CuckooFilter() : impl_(std::make_unique<Impl>()) {}
CuckooFilter::~CuckooFilter() = default;
CuckooFilter::CuckooFilter(CuckooFilter&&) noexcept = default;
CuckooFilter& CuckooFilter::operator=(CuckooFilter&&) noexcept = default;

Status CuckooFilter::Create(uint32_t fingerprint_bits, uint64_t expected_items,
                            CuckooFilter* out) {
  Status s = CheckFingerprintBits(fingerprint_bits);
  if (!s.ok()) return s;
  const uint64_t num_buckets =
      std::max<uint64_t>(1, StaticBuckets(expected_items));
  if (num_buckets > kMaxBuckets) {
    return Status::CapacityExceeded(BucketCountError(num_buckets));
  }
  CuckooFilter filter;
  filter.impl_->fingerprint_bits = fingerprint_bits;
  filter.impl_->AddTable(num_buckets, 0);
  *out = std::move(filter);
  return Status::Ok();
}

Status CuckooFilter::Deserialize(std::string_view bytes, CuckooFilter* out) {
  CuckooView view;
  Status s = CuckooView::Parse(bytes, &view);
  if (!s.ok()) return s;
  CuckooFilter filter;
  Impl& d = *filter.impl_;
  d.fingerprint_bits = view.fingerprint_bits();
  for (const CuckooView::Table& v : view.tables_) {
    Impl::Table t;
    t.bytes.assign(v.slots.data(), v.slots.data() + v.slots.size_bytes());
    t.num_buckets = v.slots.num_buckets();
    t.seed = v.seed;
    t.level = v.level;
    t.stash = v.stash;
    d.tables.push_back(std::move(t));
  }
  d.size = view.num_items();
  *out = std::move(filter);
  return Status::Ok();
}

Status CuckooFilter::insert(uint64_t hash) {
  Impl& d = *impl_;
  if (d.CountCopies(hash) >= CuckooLimits::kMaxDuplicates) {
    return Status::TooManyDuplicates(
        "the item's buckets already hold 8 copies of its fingerprint");
  }
  // A table whose stash is in use is full.
  if (d.tables.empty() || !d.tables.back().stash.empty()) {
    Status s = d.Grow();
    if (!s.ok()) return s;
  }
  Impl::Table& t = d.tables.back();
  PackedSlots slots = d.Slots(t);
  StashEntry homeless;
  if (!Place(slots, t.level, Locate(hash, t.seed, t.level, slots), kMaxKicks,
             d.rng, &homeless)) {
    t.stash.push_back(homeless);
  }
  ++d.size;
  return Status::Ok();
}

Status CuckooFilter::insert_key(std::string_view key) {
  return insert(HashKey(key));
}

Status CuckooFilter::erase(uint64_t hash) {
  Impl& d = *impl_;
  for (auto it = d.tables.rbegin(); it != d.tables.rend(); ++it) {
    Impl::Table& t = *it;
    PackedSlots slots = d.Slots(t);
    const Location loc = Locate(hash, t.seed, t.level, slots);
    const auto stashed =
        std::find_if(t.stash.begin(), t.stash.end(),
                     [&](const StashEntry& e) { return StashMatches(e, loc); });
    if (stashed != t.stash.end()) {
      t.stash.erase(stashed);
    } else if (slots.TryRemove(loc.bucket, loc.fingerprint) ||
               slots.TryRemove(loc.alternate, loc.fingerprint)) {
      if (!t.stash.empty()) d.ReturnStashToTable(t);
    } else {
      continue;
    }
    --d.size;
    return Status::Ok();
  }
  return Status::NotFound("the item is not in the cuckoo filter");
}

Status CuckooFilter::erase_key(std::string_view key) {
  return erase(HashKey(key));
}

bool CuckooFilter::contains(uint64_t hash) const {
  for (const Impl::Table& t : impl_->tables) {
    if (TableMayContain(impl_->Slots(t), t.seed, t.level, t.stash, hash)) {
      return true;
    }
  }
  return false;
}

bool CuckooFilter::contains_key(std::string_view key) const {
  return contains(HashKey(key));
}

uint64_t CuckooFilter::size() const { return impl_->size; }

uint32_t CuckooFilter::num_tables() const {
  return static_cast<uint32_t>(impl_->tables.size());
}

std::string CuckooFilter::Serialize() const {
  std::string out;
  AppendHeader(&out, impl_->fingerprint_bits, impl_->tables.size());
  for (const Impl::Table& t : impl_->tables) {
    AppendTable(&out, impl_->Slots(t), t.seed, t.stash);
  }
  return out;
}

}  // namespace sstfilter
