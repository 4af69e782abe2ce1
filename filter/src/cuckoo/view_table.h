// Internal: one parsed table of a CuckooView, private to the view and to
// CuckooFilter::Deserialize, which copies it.
#pragma once

#include <cstdint>
#include <vector>

#include "cuckoo/cuckoo_common.h"
#include "cuckoo/packed_slots.h"
#include "sstfilter/cuckoo_filter.h"

namespace sstfilter {

struct CuckooView::Table {
  detail::PackedSlotsView slots;
  uint32_t seed = 0;
  uint32_t table_index = 0;  // t: the index in the chain
  std::vector<detail::cuckoo::StashEntry> stash;
};

}  // namespace sstfilter
