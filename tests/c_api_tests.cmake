# RocksDB's C API (label "rocksdb"), on which Rust's, Go's and Python's
# bindings sit: a DB opened with our policy from an options string. Only on
# the RocksDB built from source, whose librocksdb.a has the plugin compiled
# in (Debian's needs the preloaded library instead).
if(NOT SSTFILTER_ROCKSDB_BUILD)
  return()
endif()
enable_language(C)
add_executable(c_api_test c_api_test.c)
set_target_properties(c_api_test PROPERTIES C_STANDARD 11
                      C_STANDARD_REQUIRED ON
                      # librocksdb.a is C++: link with the C++ driver.
                      LINKER_LANGUAGE CXX)
# sstfilter::rocksdb_plugin is that librocksdb.a and our core library.
target_link_libraries(c_api_test PRIVATE sstfilter::rocksdb_plugin)
add_test(NAME c_api_test COMMAND c_api_test)
set_tests_properties(c_api_test PROPERTIES LABELS rocksdb TIMEOUT 120)
