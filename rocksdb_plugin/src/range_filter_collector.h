// The registration of sstfilter.RangeFilter, the range filter's table
// properties collector (sstfilter/range_filter_rocksdb.h).
#pragma once

#include "rocksdb/utilities/object_registry.h"

namespace sstfilter::rocksdb_plugin {

// Adds the factory of sstfilter.RangeFilter to `library`.
void RegisterRangeFilterCollector(ROCKSDB_NAMESPACE::ObjectLibrary& library);

}  // namespace sstfilter::rocksdb_plugin
