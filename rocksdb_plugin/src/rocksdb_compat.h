// The one place that knows how RocksDB's filter interfaces differ between
// the releases the plugin supports (Debian's 7.8.3 up to 11.x), decided from
// rocksdb/version.h. The rest of the plugin has no version branches: it
// always implements the newest interface, and these macros say which of its
// methods RocksDB's base class declares (and so which ones override).
// Source: table/block_based/filter_policy_internal.h of each release.
#pragma once

#include "rocksdb/version.h"

#define SSTFILTER_ROCKSDB_AT_LEAST(major, minor) \
  (ROCKSDB_MAJOR > (major) ||                    \
   (ROCKSDB_MAJOR == (major) && ROCKSDB_MINOR >= (minor)))

// FilterBitsBuilder::AddKeyAndAlt(key, alt), pure virtual since 9.6. Before
// it, RocksDB added a prefix with AddKey and de-duplicated prefixes itself.
#if SSTFILTER_ROCKSDB_AT_LEAST(9, 6)
#define SSTFILTER_OVERRIDE_SINCE_9_6 override
#else
#define SSTFILTER_OVERRIDE_SINCE_9_6
#endif

// FilterBitsBuilder::CalculateSpace and EstimatedFpRate, pure virtual since
// 10.9, when BuiltinFilterBitsBuilder was folded into FilterBitsBuilder.
#if SSTFILTER_ROCKSDB_AT_LEAST(10, 9)
#define SSTFILTER_OVERRIDE_SINCE_10_9 override
#else
#define SSTFILTER_OVERRIDE_SINCE_10_9
#endif
