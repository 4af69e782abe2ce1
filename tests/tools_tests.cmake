# Tools suites (label "tools"): the inspector's library on real SST files
# and whole DBs, and the sstfilter-inspect / -ldb / -sst-dump binaries end
# to end. sstfilter-ldb's filter_summary is tested on every RocksDB; its
# other commands, where RocksDB's own ldb knows our policies, with that.
sstfilter_add_test(tools_inspect_test
  SOURCES tools_inspect_test.cc
  LIBS sstfilter_inspector sstfilter_rocksdb_plugin_internals
  LABELS tools)
sstfilter_add_test(tools_db_summary_test
  SOURCES tools_db_summary_test.cc
  LIBS sstfilter_inspector sstfilter_rocksdb_plugin_internals
  LABELS tools)
sstfilter_add_test(tools_cli_test
  SOURCES tools_cli_test.cc
  LIBS sstfilter_inspector sstfilter_rocksdb_plugin_internals
  LABELS tools)
add_dependencies(tools_cli_test sstfilter-inspect sstfilter-ldb)
target_compile_definitions(tools_cli_test PRIVATE
  SSTFILTER_INSPECT_BIN="$<TARGET_FILE:sstfilter-inspect>"
  SSTFILTER_FILTER_LDB_BIN="$<TARGET_FILE:sstfilter-ldb>")
if(SSTFILTER_ROCKSDB_BUILD)
  # RocksDB's own ldb and sst_dump, built with the plugin compiled in.
  target_compile_definitions(tools_cli_test PRIVATE
    SSTFILTER_LDB_BIN="${SSTFILTER_ROCKSDB_TOOLS_DIR}/tools/ldb"
    SSTFILTER_SST_DUMP_BIN="${SSTFILTER_ROCKSDB_TOOLS_DIR}/tools/sst_dump")
else()
  # Ours on Debian's librocksdb, and Debian's stock ldb with the preload.
  add_dependencies(tools_cli_test sstfilter-sst-dump sstfilter_rocksdb_preload)
  target_compile_definitions(tools_cli_test PRIVATE
    SSTFILTER_LDB_BIN="$<TARGET_FILE:sstfilter-ldb>"
    SSTFILTER_SST_DUMP_BIN="$<TARGET_FILE:sstfilter-sst-dump>"
    SSTFILTER_PRELOAD_LIB="$<TARGET_FILE:sstfilter_rocksdb_preload>")
endif()
