#!/usr/bin/env bash
# Builds the filter micro-benchmarks in Release, runs them and prints a
# Markdown table of the medians (ns/key, bits/key, FPR).
#
# usage: bench/run_micro.sh [--smoke] [--huge] [--report] [--build-dir DIR]
#                           [-- ARGS...]
#   --smoke      the 1e4-key benchmarks once each, in a few seconds (CI)
#   --report     only re-render the tables from the last run's JSON
#   --huge       also 1e8 keys (needs about 2 GiB of memory)
#   --build-dir  build directory (default: build/bench-release)
#   ARGS         passed to the benchmark, e.g. --benchmark_filter=Cuckoo
# Writes bench/results/filter_bench[_smoke].{json,csv,md} (git-ignored).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="$root/build/bench-release"
smoke=0
report_only=0
bench_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --smoke) smoke=1 ;;
    --huge) bench_args+=(--huge) ;;
    --report) report_only=1 ;;
    --build-dir) build_dir="$2"; shift ;;
    --) shift; bench_args+=("$@"); break ;;
    *) echo "run_micro.sh: unknown argument $1 (see the header for usage)" >&2; exit 2 ;;
  esac
  shift
done

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

# A failing benchmark still gets its table (with the errors); the script
# then exits with the benchmark's status.
status=0
if [ "$report_only" = 0 ]; then
  cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build_dir" --target sstfilter_filter_bench -j2 >/dev/null
  "$build_dir/bench/sstfilter_filter_bench" "${run_args[@]}" "${bench_args[@]}" \
    --benchmark_out="$out.json" --benchmark_out_format=json || status=$?
fi

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
  # One row per filter and size; one ns/key column per operation.
  awk -F, '
    NR == 1 { next }
    {
      n = split($1, part, "/")
      op = part[n - 1]; keys = part[n]; sub(/^keys:/, "", keys)
      subject = part[1]
      for (i = 2; i < n - 1; ++i) subject = subject "/" part[i]
      row = subject " | " keys
      if (!(row in seen)) { seen[row] = 1; order[++rows] = row }
      cell[row, op] = ($6 != "") ? "ERROR" : $2
      if ($6 != "") errors = errors "\n- " $1 ": " $6
      if ($3 != "") bpk[row] = sprintf("%.2f", $3)
      if (op == "query_absent" && $4 != "") {
        fpr[row] = sprintf("%.4f", $4 * 100); model[row] = sprintf("%.4f", $5 * 100)
      }
    }
    END {
      print "| filter | keys | build | query absent | query present | batch of 32 absent | bits/key | FPR % | model FPR % |"
      print "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
      for (r = 1; r <= rows; ++r) {
        row = order[r]
        printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", row,
               cell[row, "build"], cell[row, "query_absent"],
               cell[row, "query_present"], cell[row, "query_absent_batch32"],
               bpk[row], fpr[row], model[row]
      }
      print "\nTimes are ns/key (median of the runs); FPR over 2^20 absent keys."
      if (errors != "") print "\nErrors:" errors
    }' "$out.csv"
} >"$out.md"

echo
cat "$out.md"
echo
echo "results: $out.{json,csv,md}"
exit "$status"
