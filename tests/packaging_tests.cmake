# Packaging suites (label "packaging"):
#  (a) libsstfilter_rocksdb.so preloaded into Debian's stock db_bench, ldb
#      and sst_dump (packaging_preload_test.sh);
#  (b) rocksdb_plugin/ as a plugin folder of RocksDB's own CMake build, also
#      labelled "rocksdb-plugin-folder" so that `ctest -LE` can skip it;
#  (c) `cmake --install` and a consumer built with find_package(sstfilter).
# Sanitizer builds cannot be preloaded into, or linked by, stock programs.
# A RocksDB built from source with the plugin folder has taken the route of
# (b) for real, through find_package(sstfilter COMPONENTS core)
# (tools/build_rocksdb_with_plugin.sh); (a) and (c) are for Debian's.
if(SSTFILTER_SANITIZE OR SSTFILTER_ROCKSDB_BUILD)
  return()
endif()

foreach(case
    library_uses_shared_librocksdb_and_exports_only_registration
    db_bench_builds_and_uses_our_filter
    ldb_reads_and_compacts_with_our_filter
    sst_dump_reads_our_tables_and_shows_their_policy)
  add_test(NAME packaging.preload.${case}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/packaging_preload_test.sh
                   $<TARGET_FILE:sstfilter_rocksdb_preload> ${case})
  set_tests_properties(packaging.preload.${case} PROPERTIES
                       LABELS packaging SKIP_RETURN_CODE 77 TIMEOUT 120)
endforeach()

set(_packaging_args
  -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DBUILD_DIR=${PROJECT_BINARY_DIR}
  -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/packaging
  -DGENERATOR=${CMAKE_GENERATOR} -DCXX_COMPILER=${CMAKE_CXX_COMPILER}
  -DROCKSDB_SOURCE_DIR=${SSTFILTER_ROCKSDB_SOURCE_DIR})
# name -> step of packaging_test.cmake
foreach(test_and_step
    install_puts_package_in_a_prefix:install
    installed_package_builds_and_runs_a_consumer:consumer
    rocksdb_cmake_accepts_and_compiles_the_plugin_folder:plugin_folder
    add_subdirectory_builds_only_the_libraries:subdirectory
    remove_install_prefix:cleanup)
  string(REPLACE ":" ";" test_and_step ${test_and_step})
  list(GET test_and_step 0 name)
  list(GET test_and_step 1 step)
  add_test(NAME packaging.${name}
           COMMAND ${CMAKE_COMMAND} -DSTEP=${step} ${_packaging_args}
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/packaging_test.cmake)
  set_tests_properties(packaging.${name} PROPERTIES
                       LABELS packaging TIMEOUT 300
                       FIXTURES_REQUIRED sstfilter_prefix)
endforeach()
set_tests_properties(packaging.install_puts_package_in_a_prefix PROPERTIES
                     FIXTURES_SETUP sstfilter_prefix FIXTURES_REQUIRED "")
set_tests_properties(packaging.remove_install_prefix PROPERTIES
                     FIXTURES_CLEANUP sstfilter_prefix FIXTURES_REQUIRED "")
set_tests_properties(
  packaging.rocksdb_cmake_accepts_and_compiles_the_plugin_folder PROPERTIES
  LABELS "packaging;rocksdb-plugin-folder")
