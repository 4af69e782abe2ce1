# sstfilter_rocksdb_version(<path of rocksdb/version.h> <out_var>) sets
# out_var to its "MAJOR.MINOR.PATCH". Used by RocksDB.cmake and, installed,
# by sstfilterConfig.cmake to check the librocksdb a consumer finds.
function(sstfilter_rocksdb_version header out_var)
  file(STRINGS "${header}" lines
       REGEX "^#define ROCKSDB_(MAJOR|MINOR|PATCH) ")
  foreach(line IN LISTS lines)
    string(REGEX MATCH "ROCKSDB_(MAJOR|MINOR|PATCH) ([0-9]+)" _ "${line}")
    set(part_${CMAKE_MATCH_1} ${CMAKE_MATCH_2})
  endforeach()
  set(${out_var} "${part_MAJOR}.${part_MINOR}.${part_PATCH}" PARENT_SCOPE)
endfunction()
