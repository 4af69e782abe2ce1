#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for
# SECONDS (default 30), starting from a seed corpus of valid filters.
#   tools/fuzz.sh [SECONDS]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-30}"
dir="$root/build/fuzz"
bash "$root/tools/setup.sh" >/dev/null
CXX=clang++ cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSSTFILTER_FUZZ=ON -DSSTFILTER_SANITIZE=ON -DSSTFILTER_WITH_ROCKSDB=OFF >/dev/null
cmake --build "$dir" -j "$(nproc)" --target sstfilter_filter_fuzzer sstfilter_fuzz_seeds
seeds="$dir/seeds"; corpus="$dir/corpus"
mkdir -p "$seeds" "$corpus"
"$dir/tests/fuzz/sstfilter_fuzz_seeds" "$seeds"
for fuzzer in sstfilter_filter_fuzzer; do
  echo "fuzz: $fuzzer for ${seconds}s"
  "$dir/tests/fuzz/$fuzzer" -max_total_time="$seconds" -print_final_stats=1 \
    "$corpus" "$seeds" 2>&1 | grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|.*ERROR|==[0-9]+==)' || true
  # libFuzzer exits non-zero on a finding; re-check so the script fails.
  "$dir/tests/fuzz/$fuzzer" -runs=0 "$corpus" >/dev/null 2>&1
done
echo "fuzz: no crash"
