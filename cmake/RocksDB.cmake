# Locates the installed librocksdb and the matching Debian source tree that
# tools/setup.sh unpacked into .deps/.  FilterBitsBuilder / FilterBitsReader
# are declared in table/block_based/filter_policy_internal.h, which the -dev
# package does not ship; the header must come from the very same version.
find_path(ROCKSDB_INCLUDE_DIR rocksdb/version.h REQUIRED)
find_library(ROCKSDB_LIBRARY rocksdb REQUIRED)

include(${CMAKE_CURRENT_LIST_DIR}/RocksDBVersion.cmake)
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

add_library(sstfilter_rocksdb_deps INTERFACE)
target_include_directories(sstfilter_rocksdb_deps SYSTEM INTERFACE
                           "${ROCKSDB_INCLUDE_DIR}" "${_shim}")
target_link_libraries(sstfilter_rocksdb_deps INTERFACE "${ROCKSDB_LIBRARY}")
