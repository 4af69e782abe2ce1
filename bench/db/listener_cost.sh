# bench/db/listener_cost.sh, the driver's scenario listener-cost: what sstfilter.LevelAwareListener costs a DB of 10^4
# SST files and more: fill and compaction throughput with the OPTIONS file
# naming the listener against the same OPTIONS without it, the policy
# (sstfilter.LevelAware:10) the same in both; and, with --profile, the
# share of the process's CPU the listener's callbacks take, per job.
#
# Per run, for each of the two (their order alternating between runs), on
# a new DB:
#   fill:    one db_bench process: fillrandom of --num keys (16-byte keys,
#            --value-size values, no compression, no WAL) with RocksDB's
#            own flushes and compactions into --file-bytes SST files
#            (write buffers and level base 128 files' worth: 4 MiB at 32
#            KiB files; T = 10, dynamic layout, two background jobs), then
#            waitforcompaction;
#   compact: a second process on the DB (the listener meets it with its
#            files on disk, as after a restart, and reads the filter sizes
#            of the files it has not seen, kPropertiesPerJob per job):
#            `compact`, a CompactRange of everything.
# Fill throughput is fillrandom's ops/s; compaction throughput the DB's
# bytes over `compact`'s seconds; each ratio (with / without) is taken
# within a run, then the median over the runs (min-max). The CPU of each
# process (user + sys, /usr/bin/time) is reported beside. SST files are
# counted after the fill and after the compaction; jobs are the LOG's
# flush_started and compaction_started events. The script checks that the
# DB ran its policy and, with the listener, that the LOG says it watches.
#
# --profile: one more pair of processes, fill and compact with the
# listener, under `perf record --call-graph dwarf` (cpu-clock samples);
# reported: the share of samples whose stack holds one of the listener's
# callbacks (sstfilter::rocksdb_plugin::(anonymous)::LevelAwareListener::
# On...), in all and per callback, and that share of the process's CPU
# time divided by its jobs: the listener's CPU time per job.
#
# usage: bench/db/db_bench_driver listener-cost [--num N] [--value-size B]
#          [--file-bytes B] [--runs R] [--policy ID] [--profile] [--smoke]
#          [common flags: --rocksdb, --preload, --out]
#   --num N          fillrandom's keys (default 1,500,000: about 950,000
#                    distinct, about 12,000 files of 32 KiB)
#   --value-size B   default 400
#   --file-bytes B   target_file_size_base (default 32768)
#   --runs R         pairs (default 5)
#   --policy ID      default sstfilter.LevelAware:10
#   --profile        add the perf run (perf, on this machine)
#   --smoke          20,000 keys of 4 KiB files (about 600), one run
# Writes OUT/listener_cost.md, OUT/runs.csv and the logs in OUT/logs/.
num=1500000; value_size=400; file_bytes=32768; runs=5; profile=0
policy="sstfilter.LevelAware:10"
while [ $# -gt 0 ]; do
  case "$1" in
    --num) num="$2"; shift ;;
    --value-size) value_size="$2"; shift ;;
    --file-bytes) file_bytes="$2"; shift ;;
    --runs) runs="$2"; shift ;;
    --policy) policy="$2"; shift ;;
    --profile) profile=1 ;;
    --smoke) num=20000; file_bytes=4096; runs=1 ;;
    *) echo "$tool: unknown argument $1 (see bench/db/listener_cost.sh)" >&2; exit 2 ;;
  esac
  shift
done
profiling=0
rm -rf "$out"; mkdir -p "$out/logs"
shape=("cf:write_buffer_size=$((128 * file_bytes))" "cf:target_file_size_base=$file_bytes"
       "cf:max_bytes_for_level_base=$((128 * file_bytes))" cf:max_bytes_for_level_multiplier=10
       cf:level_compaction_dynamic_level_bytes=true cf:compression=kNoCompression
       table:cache_index_and_filter_blocks=false)
db_options "$out/without.ini" "$policy" "${shape[@]}"
db_options "$out/with.ini" "$policy+listener" "${shape[@]}"
common=(--num="$num" --key_size=16 --value_size="$value_size" --bloom_bits=-1
        --seed=1 --threads=1 --statistics=0 --disable_wal=1)

# bench LOG PHASE ARGS...: db_bench under /usr/bin/time (and, when
# profiling, under perf record into OUT/perf-PHASE.data); fails the script
# if it fails.
bench() {
  local log="$1" phase="$2" prefix=(); shift 2
  # perf's dwarf unwinding copies 12 KiB of each sample's stack: deep enough
  # to reach the callback from whatever RocksDB call it makes.
  [ "$profiling" = 1 ] && prefix=(perf record -q -F 250 -e cpu-clock
                                  --call-graph dwarf,12288 -o "$out/perf-$phase.data")
  if ! /usr/bin/time -f "cpu_s=%U+%S" -a -o "$log" "${prefix[@]}" \
       "${with_plugin[@]}" "$db_bench" "$@" >>"$log" 2>&1; then
    echo "$tool: db_bench failed, see $log" >&2; tail -5 "$log" >&2; exit 1
  fi
}
cpu() { sed -n 's/^cpu_s=//p' "$1" | tail -1 | awk -F+ '{print $1 + $2}'; }
sst_files() { find "$1" -name '*.sst' | wc -l; }
db_bytes() { find "$1" -name '*.sst' -printf '%s\n' | awk '{s += $1} END {print s + 0}'; }
# Jobs: the flushes and compactions the LOG files of DB $1 report.
jobs() { cat "$1"/LOG* | grep -cE '"event": "(flush|compaction)_started"' || true; }
# check DB LABEL: the DB ran the policy and, for "with", the listener.
check() {
  local why
  why=$(kept "$1" "$policy$([ "$2" = with ] && echo +listener)")
  [ -z "$why" ] || { echo "$tool: $2: $why" >&2; exit 1; }
}

# one LABEL RUN: fill then compact a new DB, one row of runs.csv.
one() {
  local label="$1" r="$2" db="$out/db"
  local fill="$out/logs/$label-$r-fill.log" compact="$out/logs/$label-$r-compact.log"
  rm -rf "$db"
  bench "$fill" fill --options_file="$out/$label.ini" --db="$db" "${common[@]}" \
    --benchmarks=fillrandom,waitforcompaction
  check "$db" "$label"
  local files_filled bytes fill_jobs compact_s
  files_filled=$(sst_files "$db"); bytes=$(db_bytes "$db"); fill_jobs=$(jobs "$db")
  bench "$compact" compact --options_file="$out/$label.ini" --db="$db" "${common[@]}" \
    --benchmarks=compact --use_existing_db=1
  check "$db" "$label"
  compact_s=$(sed -n 's/^compact *:.* \([0-9.]*\) seconds.*/\1/p' "$compact")
  echo "$r,$label,$(sed -n 's/^fillrandom *:.* \([0-9]*\) ops\/sec.*/\1/p' "$fill"),$(cpu "$fill"),$files_filled,$fill_jobs,$bytes,$compact_s,$(cpu "$compact"),$(sst_files "$db"),$(( $(jobs "$db") - fill_jobs ))"
  echo "run $r $label: $files_filled files after the fill, compact $compact_s s" >&2
}

echo "run,label,fill_ops_s,fill_cpu_s,files_filled,fill_jobs,db_bytes,compact_s,compact_cpu_s,files_compacted,compact_jobs" >"$out/runs.csv"
for ((r = 1; r <= runs; ++r)); do
  order="without with"; [ $((r % 2)) = 0 ] && order="with without"
  for label in $order; do one "$label" "$r" >>"$out/runs.csv"; done
done

# "median (min-max)" over the runs of column $2 of label $1 (or, $1 =
# ratio, of with's over without's), format $3.
stat() {
  awk -F, -v label="$1" -v col="$2" -v f="$3" '
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { v[$1, $2] = $c[col]; runs[$1] = 1 }
    END {
      for (r in runs) a[++n] = label == "ratio" ? v[r, "with"] / v[r, "without"] : v[r, label]
      for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
      m = n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
      s = sprintf(f, m); if (n > 1) s = s sprintf(" (" f "–" f ")", a[1], a[n]); print s
    }' "$out/runs.csv"
}
# compaction MB/s per row, as a column of its own.
awk -F, -v OFS=, 'NR == 1 { print $0, "compact_mb_s"; next } { print $0, $7 / $8 / 1048576 }' \
  "$out/runs.csv" >"$out/runs.tmp" && mv "$out/runs.tmp" "$out/runs.csv"

{
  echo "# listener_cost"
  echo
  echo "$binary, RocksDB $rocksdb_version; $(date -u +%F), load average $(cut -d' ' -f1-3 /proc/loadavg) at the end."
  echo "$policy, fillrandom of $num keys (16 + $value_size bytes, no compression) into $file_bytes-byte files, then waitforcompaction; then \`compact\` in a second process. $runs pair(s), the order alternating; medians (min–max); ratios with/without per run."
  echo
  echo "| | without the listener | with it | with / without |"
  echo "|---|---:|---:|---:|"
  echo "| SST files after the fill | $(stat without files_filled %.0f) | $(stat with files_filled %.0f) | |"
  echo "| flushes + compactions of the fill | $(stat without fill_jobs %.0f) | $(stat with fill_jobs %.0f) | |"
  echo "| fillrandom ops/s | $(stat without fill_ops_s %.0f) | $(stat with fill_ops_s %.0f) | **$(stat ratio fill_ops_s %.3f)** |"
  echo "| fill CPU s (user + sys) | $(stat without fill_cpu_s %.1f) | $(stat with fill_cpu_s %.1f) | $(stat ratio fill_cpu_s %.3f) |"
  echo "| DB MiB before \`compact\` | $(stat without db_bytes %.0f | awk '{printf "%.0f", $1 / 1048576}') | $(stat with db_bytes %.0f | awk '{printf "%.0f", $1 / 1048576}') | |"
  echo "| compactions of \`compact\` | $(stat without compact_jobs %.0f) | $(stat with compact_jobs %.0f) | |"
  echo "| compaction MB/s (\`compact\`) | $(stat without compact_mb_s %.2f) | $(stat with compact_mb_s %.2f) | **$(stat ratio compact_mb_s %.3f)** |"
  echo "| \`compact\` CPU s | $(stat without compact_cpu_s %.1f) | $(stat with compact_cpu_s %.1f) | $(stat ratio compact_cpu_s %.3f) |"
  echo "| SST files after \`compact\` | $(stat without files_compacted %.0f) | $(stat with files_compacted %.0f) | |"
} >"$out/listener_cost.md"

# listener_samples DATA: "samples listener_samples callback=samples ...":
# the samples of perf's DATA, those whose stack holds a callback of the
# listener, and those per callback (the outermost on the stack).
listener_samples() {
  perf script -i "$1" -F ip,sym 2>/dev/null | awk '
    function done() { if (!open) return; ++all; if (cb != "") { ++ours; ++per[cb] }; open = 0; cb = "" }
    /^[ \t]*$/ { done(); next }
    { open = 1 }
    match($0, /LevelAwareListener::On[A-Za-z]+/) { cb = substr($0, RSTART + 20, RLENGTH - 20) }
    END { done(); printf "%d %d", all, ours; for (c in per) printf " %s=%d", c, per[c]; print "" }'
}

if [ "$profile" = 1 ]; then
  profiling=1
  one with profile >"$out/profile.csv"
  IFS=, read -r _ _ _ _ _ fill_jobs _ _ _ _ compact_jobs <"$out/profile.csv"
  {
    echo
    echo "Profile (one more fill and compact with the listener, under perf record -F 250 --call-graph dwarf; its own CPU figures are perf's and db_bench's together): the share of db_bench's cpu-clock samples whose stack holds a callback of the listener, and that share of 1/250 s per sample over the jobs."
    echo
    echo "| phase | jobs | samples | in the listener's callbacks | share | listener CPU per job | per callback (samples) |"
    echo "|---|---:|---:|---:|---:|---:|---|"
    for phase in fill compact; do
      read -r all ours rest <<<"$(listener_samples "$out/perf-$phase.data")"
      jobs_of=$([ "$phase" = fill ] && echo "$fill_jobs" || echo "$compact_jobs")
      echo "| $phase | $jobs_of | $all | $ours | $(awk -v a="$all" -v o="$ours" 'BEGIN {printf "%.3f%%", a ? 100 * o / a : 0}') | $(awk -v o="$ours" -v j="$jobs_of" 'BEGIN {printf "%.0f µs", j ? o / 250 / j * 1e6 : 0}') | ${rest:-–} |"
    done
  } >>"$out/listener_cost.md"
fi
rm -rf "$out/db"
cat "$out/listener_cost.md"
