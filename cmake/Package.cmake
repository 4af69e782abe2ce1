# `cmake --install` and the CMake package: headers, libsstfilter.a and, when
# built with RocksDB, the plugin's static library and the self-registering
# libsstfilter_rocksdb.so, with sstfilterConfig.cmake so that a service
# uses find_package(sstfilter) and links sstfilter::rocksdb_plugin.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
set(SSTFILTER_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/sstfilter)

set_target_properties(sstfilter_core PROPERTIES EXPORT_NAME core)
install(TARGETS sstfilter_core EXPORT sstfilterCoreTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY filter/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT sstfilterCoreTargets NAMESPACE sstfilter::
        DESTINATION ${SSTFILTER_CMAKE_INSTALL_DIR})

# Against a RocksDB built with the plugin folder, the plugin is part of that
# librocksdb.a, so only the core is packaged.
if(SSTFILTER_WITH_ROCKSDB AND NOT SSTFILTER_ROCKSDB_BUILD)
  install(TARGETS sstfilter_rocksdb_plugin sstfilter_rocksdb_preload
          EXPORT sstfilterRocksDBTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(DIRECTORY rocksdb_plugin/include/
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(EXPORT sstfilterRocksDBTargets NAMESPACE sstfilter::
          DESTINATION ${SSTFILTER_CMAKE_INSTALL_DIR})
endif()

configure_package_config_file(
  cmake/sstfilterConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/sstfilterConfig.cmake
  INSTALL_DESTINATION ${SSTFILTER_CMAKE_INSTALL_DIR}
  NO_SET_AND_CHECK_MACRO)
write_basic_package_version_file(
  ${CMAKE_CURRENT_BINARY_DIR}/sstfilterConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES
          ${CMAKE_CURRENT_BINARY_DIR}/sstfilterConfig.cmake
          ${CMAKE_CURRENT_BINARY_DIR}/sstfilterConfigVersion.cmake
          cmake/RocksDBVersion.cmake
        DESTINATION ${SSTFILTER_CMAKE_INSTALL_DIR})

# The license (Apache-2.0) goes with every install.
install(FILES LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/sstfilter)
