# RocksDB plugin suites (label "rocksdb"): the policies through RocksDB's
# interfaces, then inside real databases.
sstfilter_add_test(rocksdb_policy_test
  SOURCES rocksdb_policy_test.cc
  LIBS sstfilter::rocksdb_plugin
  LABELS rocksdb)
sstfilter_add_test(rocksdb_filter_bits_test
  SOURCES rocksdb_filter_bits_test.cc
  LIBS sstfilter::rocksdb_plugin
  LABELS rocksdb)
sstfilter_add_test(rocksdb_db_test
  SOURCES rocksdb_db_test.cc
  LIBS sstfilter::rocksdb_plugin
  LABELS rocksdb)
# Its own binary: it replaces the global operator new to count bytes.
sstfilter_add_test(rocksdb_builder_memory_test
  SOURCES rocksdb_builder_memory_test.cc
  LIBS sstfilter::rocksdb_plugin
  LABELS rocksdb)
