sstfilter_add_test(blocked_bloom_test
  SOURCES blocked_bloom_test.cc
  LIBS sstfilter::core
  LABELS filter)
sstfilter_add_test(cuckoo_filter_test
  SOURCES cuckoo_filter_test.cc
  LIBS sstfilter::core
  LABELS filter)
