#!/usr/bin/env bash
# RocksDB from its release source with sstfilter compiled in, through
# RocksDB's own plugin mechanism (ROCKSDB_PLUGINS=sstfilter): its static
# library and its own db_bench, ldb, sst_dump and db_stress, which all take
# sstfilter.* ids in options strings and OPTIONS files with no preload.
# Release, for this machine's CPU (PORTABLE=0, i.e. -march=native).
#
#   tools/build_rocksdb_with_plugin.sh [--version X.Y.Z] [--tarball PATH] [--tsan]
#   tools/build_rocksdb_with_plugin.sh --print-dir [--version X.Y.Z] [--tsan]
#
# --tsan builds a second, separately cached flavour for ThreadSanitizer
# (tools/reliability/tsan.sh): RocksDB, the plugin and the core with
# -fsanitize=thread, -O2 -g and without NDEBUG, so that its db_stress also
# has RocksDB's kill points for the whitebox crash test
# (tools/reliability/crashtest.sh --whitebox). Its
# targets are the library, db_stress, ldb and sst_dump (no db_bench).
#
# The source (tools/rocksdb_source.sh): --tarball PATH or
# $SSTFILTER_ROCKSDB_TARBALL; else ../shared/deps/rocksdb-X.Y.Z.tar.gz beside
# the clone (checked against its SHA256SUMS); else GitHub's release archive
# of tag vX.Y.Z.
#
# The build is cached outside the clone, keyed by RocksDB version, compiler
# and CPU target:
#   ${SSTFILTER_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/sstfilter}/rocksdb-X.Y.Z-<key>/
#     src/       the release tree; src/plugin/sstfilter links to rocksdb_plugin/
#     core/      sstfilter's core library installed (the plugin finds it there)
#     build/     RocksDB's CMake build: librocksdb.a, db_bench,
#                tools/ldb, tools/sst_dump, db_stress_tool/db_stress,
#                java/rocksdbjni-X.Y.Z-linux64.jar (RocksJava with the
#                plugin; tools/build_java.sh adds io.sstfilter to it)
#     install/   RocksDB installed (headers, library, RocksDBConfig.cmake)
#     plugin.sha256   what the build above was made from (see below)
# Every run rebuilds incrementally, so a run after a change to the plugin or
# the core recompiles just that and relinks; the first build takes about
# 20 minutes on 2 cores. A stale cache cannot hide a broken build: the build
# runs every time, and plugin.sha256 (a hash of rocksdb_plugin/ and filter/)
# is written only after it succeeded. sstfilter's CMake refuses a RocksDB
# build whose plugin.sha256 differs from the sources it is configured from.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version=11.8.1
tarball="${SSTFILTER_ROCKSDB_TARBALL:-}"
print_dir=0
tsan=0
while [ $# -gt 0 ]; do
  case "$1" in
    --version) version="$2"; shift 2 ;;
    --tarball) tarball="$2"; shift 2 ;;
    --print-dir) print_dir=1; shift ;;
    --tsan) tsan=1; shift ;;
    *) echo "usage: $0 [--version X.Y.Z] [--tarball PATH] [--tsan] [--print-dir]" >&2; exit 2 ;;
  esac
done

fail() {
  echo "build_rocksdb_with_plugin: $*" >&2
  exit 1
}
step() { echo "== $(date +%T) $*"; }

# The cache key: what makes a native build unusable elsewhere.
compiler="$(c++ -dumpfullversion 2>/dev/null || c++ -dumpversion)"
# (awk reads to the end: an early exit could kill c++ with SIGPIPE.)
march="$(c++ -march=native -Q --help=target 2>/dev/null |
  awk '$1 == "-march=" && !found {print $2; found = 1}')"
cache="${SSTFILTER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/sstfilter}"
dir="$cache/rocksdb-$version-${march:-native}-gcc$compiler"
# The flavour: build type and flags of the core and of RocksDB, the targets.
build_type=Release
flavour_flags=()
targets=(rocksdb db_bench ldb sst_dump db_stress)
# RocksJava (WITH_JNI): its jar of classes and librocksdbjni (target
# rocksdbjava; not its tests), for the Java API (rocksdb_plugin/java/). JNI
# makes RocksDB's static library position-independent, so it is configured
# from the first build on: turning it on later would recompile all of RocksDB.
jni=ON
targets+=(rocksdbjava)
core_build="$root/build/rocksdb-$version-core"
if [ "$tsan" = 1 ]; then
  dir="$dir-tsan"
  build_type=RelWithDebInfo
  # No -DNDEBUG: RocksDB's kill points and asserts stay in.
  flavour_flags=(-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g"
                 -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g")
  targets=(rocksdb ldb sst_dump db_stress)
  jni=OFF
  core_build="$root/build/rocksdb-$version-tsan-core"
fi
if [ "$print_dir" = 1 ]; then
  echo "$dir"
  exit 0
fi

bash "$root/tools/setup.sh"
jobs="$(nproc)"
mkdir -p "$dir"
# The stamp goes first, and comes back only if this run finishes: a run that
# fails halfway (the core installed, RocksDB not rebuilt) leaves none.
built_from="$(cat "$dir/plugin.sha256" 2>/dev/null || true)"
rm -f "$dir/plugin.sha256"

step "1. RocksDB $version source in $dir/src"
source_before="$(cat "$dir/src.sha256" 2>/dev/null || true)"
bash "$root/tools/rocksdb_source.sh" "$version" "$dir/src" "$tarball" >/dev/null
if [ "$(cat "$dir/src.sha256")" != "$source_before" ]; then
  # Another source (or a first one): nothing built before counts.
  rm -rf "$dir/build" "$dir/install"
fi
# What a user does: link (or copy) the plugin folder into the tree.
ln -sfn "$root/rocksdb_plugin" "$dir/src/plugin/sstfilter"

step "2. sstfilter's core into $dir/core"
# The core's build tree stays in the clone (a CMake build belongs to one
# source folder); only the installed library and headers are cached.
core_flags=(-DCMAKE_BUILD_TYPE="$build_type" "${flavour_flags[@]}"
            -DCMAKE_POSITION_INDEPENDENT_CODE="$jni")
if [ "$tsan" = 1 ]; then core_flags+=(-DSSTFILTER_TSAN=ON); fi
cmake -S "$root" -B "$core_build" "${core_flags[@]}" \
  -DSSTFILTER_WITH_ROCKSDB=OFF -DSSTFILTER_BUILD_TESTS=OFF \
  -DSSTFILTER_BUILD_BENCHMARKS=OFF -DSSTFILTER_BUILD_TOOLS=OFF >/dev/null
cmake --build "$core_build" -j "$jobs" --target sstfilter_core
cmake --install "$core_build" --prefix "$dir/core" >/dev/null

step "3. RocksDB $version with ROCKSDB_PLUGINS=sstfilter ($jobs jobs)"
jni_flags=()
if [ "$jni" = ON ]; then
  # CMake's FindJNI looks beside the JDK of the javac on PATH.
  java_home="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}"
  jni_flags=(-DJAVA_HOME="$java_home")
  # RocksJava's CMake downloads five test jars unless files of their names
  # are in java/test-libs; Debian's (setup.sh installs them) stand in, so
  # nothing is downloaded. Only its main classes are compiled against them.
  mkdir -p "$dir/src/java/test-libs"
  for pair in junit-4.13.1:junit4 hamcrest-2.2:hamcrest mockito-all-1.10.19:mockito-core \
              cglib-3.3.0:cglib assertj-core-2.9.0:assertj-core; do
    ln -sfn "/usr/share/java/${pair#*:}.jar" "$dir/src/java/test-libs/${pair%%:*}.jar"
  done
fi
# RTTI on, so that sstfilter's tests may derive from RocksDB's classes;
# warnings are not errors in RocksDB's own sources (a newer compiler than
# the release was tested with may warn), while sstfilter's CMake compiles
# the plugin's sources against these headers with -Werror.
cmake -S "$dir/src" -B "$dir/build" -DCMAKE_BUILD_TYPE="$build_type" "${flavour_flags[@]}" \
  -DWITH_TSAN="$([ "$tsan" = 1 ] && echo ON || echo OFF)" -DPORTABLE=0 \
  -DUSE_RTTI=ON -DFAIL_ON_WARNINGS=OFF \
  -DROCKSDB_PLUGINS=sstfilter -DCMAKE_PREFIX_PATH="$dir/core" \
  -DWITH_GFLAGS=ON -DWITH_SNAPPY=ON -DWITH_LZ4=ON -DWITH_ZSTD=ON \
  -DWITH_TESTS=OFF -DWITH_BENCHMARK_TOOLS=ON -DWITH_CORE_TOOLS=ON \
  -DWITH_TOOLS=ON -DWITH_TRACE_TOOLS=OFF -DWITH_LIBURING=OFF -DWITH_JNI="$jni" "${jni_flags[@]}" \
  -DROCKSDB_BUILD_SHARED=OFF -DCMAKE_INSTALL_PREFIX="$dir/install" \
  >"$dir/configure.log" 2>&1 || { tail -30 "$dir/configure.log" >&2; fail "configure failed"; }
grep -q '^-- PLUGIN sstfilter' "$dir/configure.log" || fail "RocksDB's CMake did not take the plugin"
# Make goes by mtimes, and the cache is shared by clones: objects built
# from another clone after this one's sources were written look newer than
# them. Whenever the sources differ from what the last build was made
# from, the plugin's objects are rebuilt.
if [ "$(bash "$root/tools/plugin_sources_hash.sh")" != "$built_from" ]; then
  find "$dir/build" -path '*plugin/sstfilter/*' -name '*.o' -delete 2>/dev/null || true
fi
start=$SECONDS
cmake --build "$dir/build" -j "$jobs" --target "${targets[@]}"
# RocksJava's install rule copies its javadoc, which is not built here: an
# empty folder stands in for it.
if [ "$jni" = ON ]; then mkdir -p "$dir/build/java/javadoc/rocksdb"; fi
cmake --install "$dir/build" >/dev/null
echo "built in $((SECONDS - start)) s"

step "4. stamp"
bash "$root/tools/plugin_sources_hash.sh" >"$dir/plugin.sha256"
echo "RocksDB $version with sstfilter: $dir"
