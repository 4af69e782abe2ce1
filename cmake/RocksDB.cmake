# The RocksDB that sstfilter's plugin, tools, tests and benches build on,
# as the INTERFACE target sstfilter_rocksdb_deps (public and internal
# headers, and the library). Two kinds:
#
#  * Debian's librocksdb (default). FilterBitsBuilder / FilterBitsReader are
#    declared in table/block_based/filter_policy_internal.h, which the -dev
#    package does not ship: it comes from Debian's source package of the very
#    same version, which tools/setup.sh unpacks into .deps/.
#
#  * A RocksDB built from source with the plugin compiled in
#    (-DSSTFILTER_ROCKSDB_BUILD=<dir> of tools/build_rocksdb_with_plugin.sh).
#    Its librocksdb.a already holds rocksdb_plugin/'s sources, compiled by
#    RocksDB's build, so sstfilter::rocksdb_plugin is that library rather
#    than a second copy of them.
set(SSTFILTER_ROCKSDB_BUILD "" CACHE PATH
    "A RocksDB build of tools/build_rocksdb_with_plugin.sh (empty: Debian's)")
include(${CMAKE_CURRENT_LIST_DIR}/RocksDBVersion.cmake)
add_library(sstfilter_rocksdb_deps INTERFACE)

if(SSTFILTER_ROCKSDB_BUILD)
  set(SSTFILTER_ROCKSDB_SOURCE_DIR "${SSTFILTER_ROCKSDB_BUILD}/src")
  if(NOT EXISTS "${SSTFILTER_ROCKSDB_BUILD}/plugin.sha256")
    message(FATAL_ERROR
      "${SSTFILTER_ROCKSDB_BUILD} is not a finished RocksDB build with the "
      "plugin. Run tools/build_rocksdb_with_plugin.sh first.")
  endif()
  find_package(RocksDB CONFIG REQUIRED
               PATHS "${SSTFILTER_ROCKSDB_BUILD}/install" NO_DEFAULT_PATH)
  sstfilter_rocksdb_version(
    "${SSTFILTER_ROCKSDB_SOURCE_DIR}/include/rocksdb/version.h"
    ROCKSDB_INSTALLED_VERSION)
  target_include_directories(sstfilter_rocksdb_deps SYSTEM INTERFACE
                             "${SSTFILTER_ROCKSDB_SOURCE_DIR}")
  target_link_libraries(sstfilter_rocksdb_deps INTERFACE RocksDB::rocksdb)
  set(SSTFILTER_ROCKSDB_TOOLS_DIR "${SSTFILTER_ROCKSDB_BUILD}/build")
  # A build whose plugin differs from these sources would test old code:
  # every build checks the stamp (tools/plugin_sources_hash.sh).
  add_custom_target(sstfilter_rocksdb_build_is_current ALL
    COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
            -DROCKSDB_BUILD=${SSTFILTER_ROCKSDB_BUILD}
            -P ${CMAKE_CURRENT_LIST_DIR}/CheckRocksDBBuild.cmake
    VERBATIM)
  message(STATUS "RocksDB ${ROCKSDB_INSTALLED_VERSION} built from source "
                 "with the plugin: ${SSTFILTER_ROCKSDB_BUILD}")
  return()
endif()

find_path(ROCKSDB_INCLUDE_DIR rocksdb/version.h REQUIRED)
find_library(ROCKSDB_LIBRARY rocksdb REQUIRED)
sstfilter_rocksdb_version("${ROCKSDB_INCLUDE_DIR}/rocksdb/version.h"
                          ROCKSDB_INSTALLED_VERSION)

set(SSTFILTER_ROCKSDB_SOURCE_DIR
    "${PROJECT_SOURCE_DIR}/.deps/rocksdb-${ROCKSDB_INSTALLED_VERSION}"
    CACHE PATH "Debian source tree of the installed rocksdb (tools/setup.sh)")
set(_internal_header
    "${SSTFILTER_ROCKSDB_SOURCE_DIR}/table/block_based/filter_policy_internal.h")
if(NOT EXISTS "${_internal_header}")
  message(FATAL_ERROR
    "RocksDB source for the installed version ${ROCKSDB_INSTALLED_VERSION} "
    "not found at ${SSTFILTER_ROCKSDB_SOURCE_DIR}. Run tools/setup.sh first.")
endif()

sstfilter_rocksdb_version(
  "${SSTFILTER_ROCKSDB_SOURCE_DIR}/include/rocksdb/version.h"
  ROCKSDB_SOURCE_VERSION)
if(NOT ROCKSDB_SOURCE_VERSION STREQUAL ROCKSDB_INSTALLED_VERSION)
  message(FATAL_ERROR
    "RocksDB version mismatch: installed librocksdb-dev is "
    "${ROCKSDB_INSTALLED_VERSION} (${ROCKSDB_INCLUDE_DIR}/rocksdb/version.h) "
    "but the source tree at ${SSTFILTER_ROCKSDB_SOURCE_DIR} is "
    "${ROCKSDB_SOURCE_VERSION}. Re-run tools/setup.sh.")
endif()
message(STATUS "RocksDB ${ROCKSDB_INSTALLED_VERSION}: internal header from "
               "${SSTFILTER_ROCKSDB_SOURCE_DIR}")

# Only filter_policy_internal.h may be taken from the source tree (Debian's
# librocksdb is built without NDEBUG; other internal layouts would mismatch).
# Expose exactly that directory layout through a private include root.
set(_shim "${CMAKE_BINARY_DIR}/rocksdb_internal")
file(MAKE_DIRECTORY "${_shim}/table/block_based")
configure_file("${_internal_header}"
               "${_shim}/table/block_based/filter_policy_internal.h" COPYONLY)

target_include_directories(sstfilter_rocksdb_deps SYSTEM INTERFACE
                           "${ROCKSDB_INCLUDE_DIR}" "${_shim}")
target_link_libraries(sstfilter_rocksdb_deps INTERFACE "${ROCKSDB_LIBRARY}")
# Debian's stock db_bench, ldb and sst_dump (rocksdb-tools).
set(SSTFILTER_ROCKSDB_TOOLS_DIR "")
