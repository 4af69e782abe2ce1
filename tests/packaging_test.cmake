# The packaging routes, one STEP per ctest test (tests/packaging_tests.cmake):
#   cmake -DSTEP=<step> -DSOURCE_DIR=... -DBUILD_DIR=... -DWORK_DIR=...
#         [-DGENERATOR=... -DCXX_COMPILER=... -DROCKSDB_SOURCE_DIR=...]
#         -P packaging_test.cmake
# Steps:
#   install        `cmake --install` of BUILD_DIR into WORK_DIR/prefix
#   consumer       packaging_consumer/ finds that prefix with find_package,
#                  links sstfilter::rocksdb_plugin, and runs
#   plugin_folder  a scratch RocksDB source tree with rocksdb_plugin/ as
#                  plugin/sstfilter: RocksDB's CMake configure accepts it
#                  (-DROCKSDB_PLUGINS=sstfilter, the core from the prefix)
#                  and compiles the sources sstfilter.mk names, plus the
#                  build_version.cc that registers RegisterSstfilterPolicies
#   subdirectory   tests/subdirectory_consumer/ adds the source tree with
#                  add_subdirectory: the core alone is built, and works
#   cleanup        removes WORK_DIR
cmake_minimum_required(VERSION 3.18)
set(prefix "${WORK_DIR}/prefix")

# Runs a command; the test fails with its output if it does.
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status
                  OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${what} failed (${status}):\n${output}")
  endif()
  set(run_output "${output}" PARENT_SCOPE)
endfunction()

function(expect_contains what text part)
  string(FIND "${text}" "${part}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${what} lacks '${part}':\n${text}")
  endif()
endfunction()

if(STEP STREQUAL "install")
  file(REMOVE_RECURSE "${prefix}")
  run("cmake --install" ${CMAKE_COMMAND} --install "${BUILD_DIR}"
      --prefix "${prefix}")
  foreach(file include/sstfilter/rocksdb_plugin.h include/sstfilter/format.h
               lib/libsstfilter.a lib/libsstfilter_rocksdb_plugin.a
               lib/libsstfilter_rocksdb.so
               lib/cmake/sstfilter/sstfilterConfig.cmake)
    if(NOT EXISTS "${prefix}/${file}")
      message(FATAL_ERROR "the install lacks ${file}")
    endif()
  endforeach()

elseif(STEP STREQUAL "consumer")
  set(build "${WORK_DIR}/consumer-build")
  file(REMOVE_RECURSE "${build}" "${WORK_DIR}/consumer-db")
  run("configuring the consumer" ${CMAKE_COMMAND}
      -S "${SOURCE_DIR}/tests/packaging_consumer" -B "${build}"
      -G "${GENERATOR}" -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix})
  file(STRINGS "${build}/CMakeCache.txt" found REGEX "^sstfilter_DIR:")
  expect_contains("the consumer's sstfilter_DIR" "${found}"
                  "${prefix}/lib/cmake/sstfilter")
  run("building the consumer" ${CMAKE_COMMAND} --build "${build}")
  run("running the consumer" "${build}/consumer" "${WORK_DIR}/consumer-db")
  message(STATUS "${run_output}")

elseif(STEP STREQUAL "subdirectory")
  set(build "${WORK_DIR}/subdirectory-build")
  file(REMOVE_RECURSE "${build}")
  run("configuring the add_subdirectory consumer" ${CMAKE_COMMAND}
      -S "${SOURCE_DIR}/tests/subdirectory_consumer" -B "${build}"
      -G "${GENERATOR}" -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
      -DCMAKE_BUILD_TYPE=Release -DSSTFILTER_SOURCE_DIR=${SOURCE_DIR})
  run("building the add_subdirectory consumer" ${CMAKE_COMMAND}
      --build "${build}")
  # sstfilter's own tests, benchmarks and tools stayed out of that build.
  foreach(target blocked_bloom_test sstfilter-filter-bench
                 sstfilter-filter-demo)
    file(GLOB_RECURSE made "${build}/sstfilter/*/${target}")
    if(made)
      message(FATAL_ERROR "the add_subdirectory build made ${made}")
    endif()
  endforeach()
  run("running the add_subdirectory consumer" "${build}/filter_user")
  message(STATUS "${run_output}")

elseif(STEP STREQUAL "plugin_folder")
  # A symlink farm over the RocksDB source, with a plugin/ of our own.
  set(tree "${WORK_DIR}/rocksdb-src")
  set(build "${WORK_DIR}/rocksdb-build")
  file(REMOVE_RECURSE "${tree}" "${build}")
  file(MAKE_DIRECTORY "${tree}/plugin")
  file(GLOB entries RELATIVE "${ROCKSDB_SOURCE_DIR}" "${ROCKSDB_SOURCE_DIR}/*")
  list(REMOVE_ITEM entries plugin)
  foreach(entry IN LISTS entries)
    file(CREATE_LINK "${ROCKSDB_SOURCE_DIR}/${entry}" "${tree}/${entry}"
         SYMBOLIC)
  endforeach()
  file(CREATE_LINK "${SOURCE_DIR}/rocksdb_plugin" "${tree}/plugin/sstfilter"
       SYMBOLIC)

  # Only the library's sources: no tools, tests, gflags or shared library.
  run("RocksDB's cmake configure" ${CMAKE_COMMAND} -S "${tree}" -B "${build}"
      -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=Release -DPORTABLE=ON
      -DROCKSDB_PLUGINS=sstfilter -DCMAKE_PREFIX_PATH=${prefix}
      -DWITH_GFLAGS=OFF -DWITH_TESTS=OFF -DWITH_BENCHMARK_TOOLS=OFF
      -DWITH_CORE_TOOLS=OFF -DWITH_TOOLS=OFF -DWITH_TRACE_TOOLS=OFF
      -DWITH_LIBURING=OFF -DROCKSDB_BUILD_SHARED=OFF)
  set(configure_output "${run_output}")
  file(STRINGS "${SOURCE_DIR}/rocksdb_plugin/sstfilter.mk" sources
       REGEX "^sstfilter_SOURCES = ")
  string(REPLACE "sstfilter_SOURCES = " "" sources "${sources}")
  separate_arguments(sources)
  set(objects build_version.cc.o)
  foreach(source IN LISTS sources)
    expect_contains("RocksDB's configure output" "${configure_output}"
      "PLUGIN sstfilter Appending ${tree}/plugin/sstfilter/${source}")
    list(APPEND objects "plugin/sstfilter/${source}.o")
  endforeach()
  expect_contains("RocksDB's configure output" "${configure_output}"
                  "THIRDPARTY_LIBS=sstfilter::core")
  file(READ "${build}/build_version.cc" build_version)
  expect_contains("RocksDB's build_version.cc" "${build_version}"
                  "{\"sstfilter\", RegisterSstfilterPolicies}")
  # RocksDB's own flags: -Werror -Wshadow -fno-rtti ... (FAIL_ON_WARNINGS).
  run("compiling ${objects} in RocksDB's tree" ${CMAKE_COMMAND}
      --build "${build}" --target ${objects})
  message(STATUS "compiled in RocksDB's tree: ${objects}")

elseif(STEP STREQUAL "cleanup")
  file(REMOVE_RECURSE "${WORK_DIR}")

else()
  message(FATAL_ERROR "unknown STEP '${STEP}'")
endif()
