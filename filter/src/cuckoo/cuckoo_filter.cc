// CuckooFilter: the dynamic filter (add, erase, growth by chaining
// tables), serialized in the same format CuckooView reads.
#include "sstfilter/cuckoo_filter.h"

#include <algorithm>
#include <string>
#include <utility>

#include "cuckoo/cuckoo_common.h"
#include "cuckoo/view_table.h"

namespace sstfilter {
namespace {

using detail::PackedSlots;
using detail::PackedSlotsView;
using detail::cuckoo::AlternateBucket;
using detail::cuckoo::AppendMetadata;
using detail::cuckoo::AppendStash;
using detail::cuckoo::BucketCountError;
using detail::cuckoo::CheckFingerprintBits;
using detail::cuckoo::KickRng;
using detail::cuckoo::kMaxBuckets;
using detail::cuckoo::LocateIn;
using detail::cuckoo::Location;
using detail::cuckoo::Place;
using detail::cuckoo::StashEntry;
using detail::cuckoo::StashMatches;
using detail::cuckoo::StaticBuckets;
using detail::cuckoo::TableMayContain;

// The dynamic filter bounds the random walk at 500 kicks, as Fan et al. do
// (MAX_CUCKOO_COUNT in efficient/cuckoofilter); a failure goes to the stash.
constexpr uint32_t kMaxKicks = 500;
// The dynamic filter's kick-out RNG starts here (any fixed value).
constexpr uint64_t kDynamicRngSeed = 0x243f6a8885a308d3ULL;

}  // namespace

struct CuckooFilter::Impl {
  struct Table {
    std::vector<uint8_t> bytes;
    uint64_t num_buckets;
    uint32_t seed;
    uint32_t table_index;  // t: the index in the chain
    std::vector<StashEntry> stash;
  };

  uint32_t fingerprint_bits = 12;
  std::vector<Table> tables;
  uint64_t num_items = 0;
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
    t.table_index = static_cast<uint32_t>(tables.size());
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
      const Location loc = LocateIn(slots, t.seed, t.table_index, hash);
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
      const Location loc{e.bucket,
                         AlternateBucket(e.bucket, e.fingerprint, t.num_buckets,
                                         t.table_index),
                         e.fingerprint};
      StashEntry homeless;
      if (!Place(slots, t.table_index, loc, kMaxKicks, rng, &homeless)) {
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
    t.bytes.assign(v.slots.data(), v.slots.data() + v.slots.SizeBytes());
    t.num_buckets = v.slots.num_buckets();
    t.seed = v.seed;
    t.table_index = v.table_index;
    t.stash = v.stash;
    d.tables.push_back(std::move(t));
  }
  d.num_items = view.num_items();
  *out = std::move(filter);
  return Status::Ok();
}

Status CuckooFilter::Add(uint64_t hash) {
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
  if (!Place(slots, t.table_index, LocateIn(slots, t.seed, t.table_index, hash),
             kMaxKicks, d.rng, &homeless)) {
    t.stash.push_back(homeless);
  }
  ++d.num_items;
  return Status::Ok();
}

Status CuckooFilter::AddKey(std::string_view key) { return Add(HashKey(key)); }

Status CuckooFilter::Erase(uint64_t hash) {
  Impl& d = *impl_;
  for (auto it = d.tables.rbegin(); it != d.tables.rend(); ++it) {
    Impl::Table& t = *it;
    PackedSlots slots = d.Slots(t);
    const Location loc = LocateIn(slots, t.seed, t.table_index, hash);
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
    --d.num_items;
    return Status::Ok();
  }
  return Status::NotFound("the item is not in the cuckoo filter");
}

Status CuckooFilter::EraseKey(std::string_view key) {
  return Erase(HashKey(key));
}

bool CuckooFilter::MayContain(uint64_t hash) const {
  for (const Impl::Table& t : impl_->tables) {
    if (TableMayContain(impl_->Slots(t), t.seed, t.table_index, t.stash,
                        hash)) {
      return true;
    }
  }
  return false;
}

bool CuckooFilter::MayContainKey(std::string_view key) const {
  return MayContain(HashKey(key));
}

uint64_t CuckooFilter::num_items() const { return impl_->num_items; }

uint32_t CuckooFilter::num_tables() const {
  return static_cast<uint32_t>(impl_->tables.size());
}

std::string CuckooFilter::Serialize() const {
  std::string out;
  std::vector<detail::cuckoo::TableRecord> records;
  for (const Impl::Table& t : impl_->tables) {
    out.append(reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size());
    records.push_back({static_cast<uint32_t>(t.num_buckets), t.seed,
                       static_cast<uint32_t>(t.stash.size())});
  }
  for (const Impl::Table& t : impl_->tables) AppendStash(&out, t.stash);
  AppendMetadata(&out, impl_->fingerprint_bits, records, impl_->num_items);
  return out;
}

}  // namespace sstfilter
