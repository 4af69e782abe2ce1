// Transitional: the names rocksdb_plugin/src/readers.cc still uses for a
// cuckoo filter's bucket array (cuckoo_bucket_array.h). Remove with the
// change that moves readers.cc to those names.
#pragma once

#include "sstfilter/detail/cuckoo_bucket_array.h"

namespace sstfilter::detail::cuckoo {
using BucketTable = BucketArray;
}  // namespace sstfilter::detail::cuckoo
