#!/usr/bin/env bash
# Builds the filter micro-benchmarks in Release, runs them and prints a
# Markdown table of the medians (ns/key, bits/key, FPR).
#
# usage: bench/run_micro.sh [--smoke] [--huge] [--build-dir DIR] [-- ARGS...]
#   --smoke      the 1e4-key benchmarks once each, in a few seconds (CI)
#   --huge       also 1e8 keys (needs about 2 GiB of memory)
#   --build-dir  build directory (default: build/bench-release)
#   ARGS         passed to the benchmark, e.g. --benchmark_filter=Cuckoo
# Writes bench/results/filter_bench[_smoke].{json,csv,md} (git-ignored).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="$root/build/bench-release"
smoke=0
bench_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --smoke) smoke=1 ;;
    --huge) bench_args+=(--huge) ;;
    --build-dir) build_dir="$2"; shift ;;
    --) shift; bench_args+=("$@"); break ;;
    *) echo "run_micro.sh: unknown argument $1 (see the header for usage)" >&2; exit 2 ;;
  esac
  shift
done

cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build_dir" --target sstfilter_filter_bench -j2 >/dev/null

results="$root/bench/results"
mkdir -p "$results"
if [ "$smoke" = 1 ]; then
  out="$results/filter_bench_smoke"
  run_args=("--benchmark_filter=/keys:10000$" --benchmark_min_time=0.01)
else
  out="$results/filter_bench"
  # The machine is shared and noisy: report the median of 5 runs.
  run_args=(--benchmark_repetitions=5 --benchmark_report_aggregates_only=true)
fi

"$build_dir/bench/sstfilter_filter_bench" "${run_args[@]}" "${bench_args[@]}" \
  --benchmark_out="$out.json" --benchmark_out_format=json

# Google Benchmark writes one "key": value per line; keep the medians (or
# the single runs of a smoke run) as CSV: name,ns_per_key,bits_per_key,fpr,
# fpr_model,error.
awk '
  function value(line) {
    sub(/^[^:]*: */, "", line); sub(/,$/, "", line); gsub(/"/, "", line)
    return line
  }
  BEGIN { print "name,ns_per_key,bits_per_key,fpr,fpr_model,error" }
  /^ *"name": / { in_run = 1; delete f; f["name"] = value($0); next }
  in_run && /^ *"[a-z_]+": / {
    key = $1; gsub(/[":]/, "", key); f[key] = value($0); next
  }
  in_run && /^ *}/ {
    in_run = 0
    if (f["run_type"] == "aggregate" && f["aggregate_name"] != "median") next
    name = f["name"]; sub(/_median$/, "", name)
    error = f["error_message"]; gsub(/,/, ";", error)
    ns = f["time_per_key"] == "" ? "" : sprintf("%.2f", f["time_per_key"] * 1e9)
    printf "%s,%s,%s,%s,%s,%s\n", name, ns, f["bits_per_key"], f["fpr"],
           f["fpr_model"], error
  }
' "$out.json" >"$out.csv"

{
  if command -v lscpu >/dev/null; then
    lscpu | awk -F: '
      /^Model name/ { gsub(/^ +/, "", $2); model = $2 }
      /^CPU family/ { gsub(/ /, "", $2); family = $2 }
      /^Model:/ { gsub(/ /, "", $2); model_number = $2 }
      /^CPU\(s\)/ { gsub(/ /, "", $2); cpus = $2 }
      /^L2 cache/ { gsub(/^ +/, "", $2); l2 = $2 }
      /^L3 cache/ { gsub(/^ +/, "", $2); l3 = $2 }
      END {
        printf "Machine: %s (family %s, model %s), %s CPUs, L2 %s, L3 %s\n\n",
               model, family, model_number, cpus, l2, l3
      }'
  fi
  echo "| benchmark | ns/key (median) | bits/key | FPR % | model FPR % |"
  echo "|---|---:|---:|---:|---:|"
  awk -F, 'NR > 1 {
    pct = ($4 == "") ? "" : sprintf("%.4f", $4 * 100)
    model = ($5 == "") ? "" : sprintf("%.4f", $5 * 100)
    bpk = ($3 == "") ? "" : sprintf("%.2f", $3)
    if ($6 != "") printf "| %s | ERROR: %s | | | |\n", $1, $6
    else printf "| %s | %s | %s | %s | %s |\n", $1, $2, bpk, pct, model
  }' "$out.csv"
} >"$out.md"

echo
cat "$out.md"
echo
echo "results: $out.{json,csv,md}"
