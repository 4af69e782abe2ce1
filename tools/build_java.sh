#!/usr/bin/env bash
# The jar a Java user puts in place of org.rocksdb:rocksdbjni: RocksJava
# with sstfilter's policies and io.sstfilter.SstFilter inside, its native
# library built for this machine's CPU (README, "Java").
#
#   tools/build_java.sh [--version X.Y.Z]
#
# RocksDB with the plugin and RocksJava (tools/build_rocksdb_with_plugin.sh,
# cached), then the jar (rocksdb_plugin/java/jar.cmake) in
# build/rocksdb-X.Y.Z, the build the test command makes; prints its path.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
version="${SSTFILTER_ROCKSDB_VERSION:-11.8.1}"
if [ "${1:-}" = --version ]; then version="$2"; fi
bash tools/build_rocksdb_with_plugin.sh --version "$version"
rocksdb_build="$(bash tools/build_rocksdb_with_plugin.sh --version "$version" --print-dir)"
cmake -S . -B "build/rocksdb-$version" -DCMAKE_BUILD_TYPE=Release \
  -DSSTFILTER_ROCKSDB_BUILD="$rocksdb_build" >/dev/null
cmake --build "build/rocksdb-$version" -j "$(nproc)" --target sstfilter_rocksdbjni
echo "$root/build/rocksdb-$version/java/sstfilter-rocksdbjni-$version.jar"
