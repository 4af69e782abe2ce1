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
cmake --build "$dir" -j "$(nproc)" --target sstfilter_filter_fuzzer sstfilter_sst_fuzzer sstfilter_fuzz_seeds
seeds="$dir/seeds"; corpus="$dir/corpus"
mkdir -p "$seeds" "$corpus"
"$dir/tests/fuzz/sstfilter_fuzz_seeds" "$seeds"
artifacts="$dir/artifacts/"
mkdir -p "$artifacts"
for fuzzer in sstfilter_filter_fuzzer sstfilter_sst_fuzzer; do
  echo "fuzz: $fuzzer for ${seconds}s"
  log="$dir/$fuzzer.log"
  if ! "$dir/tests/fuzz/$fuzzer" -max_total_time="$seconds" -print_final_stats=1 \
      -artifact_prefix="$artifacts" "$corpus" "$seeds" \
      "$root/tests/golden/v1" >"$log" 2>&1; then
    tail -n 40 "$log"
    echo "fuzz: $fuzzer FAILED; reproducer in $artifacts" >&2
    exit 1
  fi
  grep -E '^stat::number_of_executed_units' "$log" || true
done
echo "fuzz: no crash"
