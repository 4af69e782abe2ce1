// Transitional: rocksdb_plugin/src/readers.cc still includes this name for
// the AVX2 line test, which now lives in blocked_bloom_probe.h. Remove with
// the change that moves readers.cc to that header.
#pragma once

#include "sstfilter/detail/blocked_bloom_probe.h"
