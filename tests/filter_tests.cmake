sstfilter_add_test(blocked_bloom_test
  SOURCES blocked_bloom_test.cc
  LIBS sstfilter::core
  LABELS filter)
# One executable from the cuckoo filter's suites, one file per area.
sstfilter_add_test(cuckoo_filter_test
  SOURCES cuckoo_static_test.cc cuckoo_format_test.cc cuckoo_dynamic_test.cc
  LIBS sstfilter_core_internals
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
