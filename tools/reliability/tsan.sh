#!/usr/bin/env bash
# tools/reliability/tsan.sh: sstfilter's RocksDB suites under
# ThreadSanitizer, against RocksDB built from source with the plugin compiled in and everything
# (RocksDB, the plugin, sstfilter's core, the tests) instrumented with
# -fsanitize=thread; no NDEBUG on either side, so their class layouts agree.
#
#   tools/reliability/tsan.sh [--version X.Y.Z] [ctest arguments...]
#
# The RocksDB build is build_rocksdb_with_plugin.sh --tsan (cached beside
# the release build; the first build takes about 40 minutes on 2 cores).
# The default runs the `rocksdb` and `tools` labels; any race, or any other
# TSan report, fails the test that made it (halt_on_error). Among them:
# RocksDbFilteringTest's ParallelCompression cases, where RocksDB's
# compression threads call EstimateEntriesAdded while keys are added.
# Not part of tools/test.sh (CI): it needs the second RocksDB build.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
version="${SSTFILTER_ROCKSDB_VERSION:-11.8.1}"
if [ "${1:-}" = "--version" ]; then version="$2"; shift 2; fi
ctest_args=("$@")
[ ${#ctest_args[@]} -gt 0 ] || ctest_args=(-L 'rocksdb|tools')
jobs="$(nproc)"
cd "$root"
bash tools/build_rocksdb_with_plugin.sh --tsan --version "$version"
rocksdb_build="$(bash tools/build_rocksdb_with_plugin.sh --tsan --version "$version" --print-dir)"
dir="build/tsan-rocksdb-$version"
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g" -DSSTFILTER_TSAN=ON \
  -DSSTFILTER_BUILD_BENCHMARKS=OFF \
  -DSSTFILTER_ROCKSDB_BUILD="$rocksdb_build" >/dev/null
cmake --build "$dir" -j "$jobs"
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
ctest --test-dir "$dir" --output-on-failure -j "$jobs" "${ctest_args[@]}"
