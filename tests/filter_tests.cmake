# Filter suites (label "filter"). SLOW tests (10^7 keys, or over 10 s) are
# also labelled "slow": `ctest -LE slow` leaves them out.
sstfilter_add_test(blocked_bloom_test
  SOURCES blocked_bloom_test.cc
  LIBS sstfilter::core
  LABELS filter
  SLOW BlockedBloomTest.NeverFalseNegativeAtTenMillionKeys)
# The cuckoo filter: static builds, the byte format, the dynamic filter,
# and the bucket table under them.
foreach(name cuckoo_format_test cuckoo_dynamic_test cuckoo_bucket_array_test)
  sstfilter_add_test(${name}
    SOURCES ${name}.cc
    LIBS sstfilter_core_internals
    LABELS filter)
endforeach()
sstfilter_add_test(cuckoo_static_test
  SOURCES cuckoo_static_test.cc
  LIBS sstfilter_core_internals
  LABELS filter
  SLOW CuckooStaticTest.StaticNeverFalseNegativeAtTenMillionKeys
       CuckooStaticTest.StaticBitsPerKeyAtTwelveBitFingerprintsIsAtMost12_8
       CuckooStaticTest.StaticNeverFalseNegativeAcrossSizesAndKeyPatterns)
# Whose a block is, ours or RocksDB's, under either family name.
sstfilter_add_test(block_classifier_test
  SOURCES block_classifier_test.cc
  LIBS sstfilter::core
  LABELS filter)
# Format v1 stays readable: golden files written by the v1 writers.
sstfilter_add_test(format_compat_test
  SOURCES format_compat_test.cc
  LIBS sstfilter::core
  LABELS filter)
target_compile_definitions(format_compat_test
  PRIVATE SSTFILTER_GOLDEN_DIR="${CMAKE_CURRENT_SOURCE_DIR}/golden")
sstfilter_add_test(level_allocation_test
  SOURCES level_allocation_test.cc
  LIBS sstfilter::core
  LABELS filter)
# Sizing filters to the allocator's usable space, with fake allocators.
sstfilter_add_test(usable_space_test
  SOURCES usable_space_test.cc
  LIBS sstfilter::core
  LABELS filter)
# The block-cache model of LevelAware's size_for_cache, against a
# simulated LRU cache.
sstfilter_add_test(cache_model_test
  SOURCES cache_model_test.cc
  LIBS sstfilter::core
  LABELS filter)
# What LevelAware learns of a workload, without RocksDB.
sstfilter_add_test(workload_test
  SOURCES workload_test.cc
  LIBS sstfilter::core
  LABELS filter)
# The range filter (Grafite's design): no false negatives, FPR within its
# bound, the budget, the pinned v1 bytes, bad bytes read as "may overlap".
sstfilter_add_test(range_filter_test
  SOURCES range_filter_test.cc
  LIBS sstfilter::core
  LABELS filter)
