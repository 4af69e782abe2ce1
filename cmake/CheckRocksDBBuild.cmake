# cmake -DSOURCE_DIR=<clone> -DROCKSDB_BUILD=<dir> -P CheckRocksDBBuild.cmake
# Fails unless the RocksDB build in ROCKSDB_BUILD was made from the plugin
# and core sources in SOURCE_DIR (tools/plugin_sources_hash.sh), so that a
# stale cached build can never stand in for the code under test.
execute_process(COMMAND bash "${SOURCE_DIR}/tools/plugin_sources_hash.sh"
                OUTPUT_VARIABLE current OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tools/plugin_sources_hash.sh failed")
endif()
file(READ "${ROCKSDB_BUILD}/plugin.sha256" built)
string(STRIP "${built}" built)
if(NOT built STREQUAL current)
  message(FATAL_ERROR
    "The RocksDB build in ${ROCKSDB_BUILD} was made from other plugin or "
    "filter sources than ${SOURCE_DIR}. Run "
    "tools/build_rocksdb_with_plugin.sh to rebuild it (only what changed is "
    "recompiled).")
endif()
