# The jar a Java user drops in for org.rocksdb:rocksdbjni (README, "Java"):
# RocksJava's jar from a RocksDB build with the plugin and WITH_JNI
# (tools/build_rocksdb_with_plugin.sh: its classes and librocksdbjni, with
# the plugin and sstfilter_jni.cc inside) plus io.sstfilter's classes.
# Target sstfilter_rocksdbjni, its property JAR_FILE the jar. Included by
# CMakeLists.txt for a build against such a RocksDB; the build needs a JDK.
set(_rocksjava_jar "${SSTFILTER_ROCKSDB_BUILD}/build/java/rocksdbjni-${ROCKSDB_INSTALLED_VERSION}-linux64.jar")
if(NOT EXISTS "${_rocksjava_jar}")
  message(STATUS "No RocksJava in ${SSTFILTER_ROCKSDB_BUILD}: no Java jar")
  return()
endif()
find_package(Java 1.8 COMPONENTS Development)
if(NOT Java_FOUND)
  message(STATUS "No JDK: no Java jar")
  return()
endif()

set(_jar "${PROJECT_BINARY_DIR}/java/sstfilter-rocksdbjni-${ROCKSDB_INSTALLED_VERSION}.jar")
set(_classes "${PROJECT_BINARY_DIR}/java/classes")
file(GLOB_RECURSE _sources CONFIGURE_DEPENDS "${CMAKE_CURRENT_LIST_DIR}/src/*.java")
# Java 8 class files, as RocksJava's own (its java/CMakeLists.txt).
add_custom_command(
  OUTPUT "${_jar}"
  COMMAND "${CMAKE_COMMAND}" -E rm -rf "${_classes}"
  COMMAND "${Java_JAVAC_EXECUTABLE}" --release 8 -Xlint:all,-options -Werror
          -cp "${_rocksjava_jar}" -d "${_classes}" ${_sources}
  COMMAND "${CMAKE_COMMAND}" -E copy "${_rocksjava_jar}" "${_jar}"
  COMMAND "${Java_JAR_EXECUTABLE}" uf "${_jar}" -C "${_classes}" io
  DEPENDS ${_sources} "${_rocksjava_jar}"
  COMMENT "Building ${_jar}"
  VERBATIM)
add_custom_target(sstfilter_rocksdbjni ALL DEPENDS "${_jar}")
set_target_properties(sstfilter_rocksdbjni PROPERTIES JAR_FILE "${_jar}")
add_dependencies(sstfilter_rocksdbjni sstfilter_rocksdb_build_is_current)
