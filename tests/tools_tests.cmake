# Tools suites (label "tools"): the inspector's library on real SST files,
# and the sstfilter-inspect / -ldb / -sst-dump binaries end to end.
sstfilter_add_test(tools_inspect_test
  SOURCES tools_inspect_test.cc
  LIBS sstfilter_inspector sstfilter::rocksdb_plugin
  LABELS tools)
