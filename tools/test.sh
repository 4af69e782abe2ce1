#!/usr/bin/env bash
# Runs every test on a fresh or prepared machine:
#   1. setup (tools/setup.sh) and a Release build of everything;
#   2. all ctest suites (filter, RocksDB integration, tools, bench smoke);
#   3. the filter unit tests again under AddressSanitizer + UBSan;
#   4. the libFuzzer targets for a short bounded time.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="$(nproc)"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT

bash tools/build.sh
ctest --test-dir build/release --output-on-failure -j "$jobs" | tee -a "$log"

echo "== filter tests under ASan + UBSan"
cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSSTFILTER_SANITIZE=ON -DSSTFILTER_WITH_ROCKSDB=OFF >/dev/null
cmake --build build/asan -j "$jobs" --target blocked_bloom_test cuckoo_filter_test
ctest --test-dir build/asan --output-on-failure -j "$jobs" -L filter | tee -a "$log"

echo "== fuzzing"
bash tools/fuzz.sh "${SSTFILTER_FUZZ_SECONDS:-30}"

passed=0; failed=0
while read -r pass fail; do
  passed=$((passed + pass)); failed=$((failed + fail))
done < <(sed -nE 's/.*tests passed, ([0-9]+) tests failed out of ([0-9]+).*/\2 \1/p' "$log" |
         awk '{print $1 - $2, $2}')
echo "tests: $passed passed, $failed failed"
[ "$failed" = 0 ]
