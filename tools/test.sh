#!/usr/bin/env bash
# Runs every test on a fresh or prepared machine:
#   1. setup (tools/setup.sh) and a Release build of everything against
#      Debian's RocksDB 7.8.3; all its ctest suites (filter, RocksDB
#      integration, tools, packaging, compile checks against 9.11.2 and
#      10.10.1, bench smoke);
#   2. RocksDB 11.8.1 built from source with the plugin compiled in
#      (tools/build_rocksdb_with_plugin.sh, with RocksJava: about 30 minutes the first time,
#      then cached outside the clone), sstfilter built against it, and its
#      RocksDB integration, tools and bench smoke suites, with RocksDB's own
#      ldb, sst_dump and db_bench, and the Java suites (JUnit, against the
#      jar of RocksJava with the plugin that this build makes);
#   3. the filter unit tests again under AddressSanitizer + UBSan;
#   4. the libFuzzer targets for a short bounded time.
# SSTFILTER_ROCKSDB_VERSION picks the release of step 2 (default 11.8.1).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="$(nproc)"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
version="${SSTFILTER_ROCKSDB_VERSION:-11.8.1}"

# ctest over build dir $1 with the other arguments; on a failure, the
# failing tests' assertions are printed again last, where a CI log's tail
# shows them, and the script stops.
run_ctest() {
  local dir="$1" status=0
  shift
  ctest --test-dir "$dir" --output-on-failure -j "$jobs" "$@" |
    tee -a "$log" || status=$?
  if [ "$status" != 0 ]; then
    echo "== what failed (from $dir/Testing/Temporary/LastTest.log)"
    grep -E -A6 ': Failure$|^\[  FAILED  \]|^FAIL' \
      "$dir/Testing/Temporary/LastTest.log" | head -120 || true
    sed -n '/The following tests FAILED/,$p' "$log" | head -40
    exit "$status"
  fi
}

echo "== against Debian's RocksDB"
bash tools/build.sh
# -LE long: the 10^8-key tests, if this build registers them, run on their
# own (README, Reliability).
run_ctest build/release -LE long

echo "== against RocksDB $version built from source with the plugin"
start=$SECONDS
bash tools/build_rocksdb_with_plugin.sh --version "$version"
echo "RocksDB $version with the plugin: up to date in $((SECONDS - start)) s"
rocksdb_build="$(bash tools/build_rocksdb_with_plugin.sh --version "$version" --print-dir)"
cmake -S . -B "build/rocksdb-$version" -DCMAKE_BUILD_TYPE=Release \
  -DSSTFILTER_ROCKSDB_BUILD="$rocksdb_build" >/dev/null
cmake --build "build/rocksdb-$version" -j "$jobs"
run_ctest "build/rocksdb-$version" -L 'rocksdb|tools|bench-smoke|java'

echo "== filter tests under ASan + UBSan"
cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSSTFILTER_SANITIZE=ON -DSSTFILTER_WITH_ROCKSDB=OFF >/dev/null
cmake --build build/asan -j "$jobs" --target blocked_bloom_test \
  cuckoo_static_test cuckoo_format_test cuckoo_dynamic_test \
  cuckoo_bucket_array_test format_compat_test level_allocation_test \
  block_classifier_test workload_test \
  usable_space_test range_filter_test
run_ctest build/asan -L filter

echo "== fuzzing"
bash tools/reliability/fuzz.sh "${SSTFILTER_FUZZ_SECONDS:-30}"

passed=0; failed=0
while read -r pass fail; do
  passed=$((passed + pass)); failed=$((failed + fail))
done < <(sed -nE 's/.*tests passed, ([0-9]+) tests failed out of ([0-9]+).*/\2 \1/p' "$log" |
         awk '{print $1 - $2, $2}')
echo "tests: $passed passed, $failed failed"
[ "$failed" = 0 ]
