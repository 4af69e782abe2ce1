# bench/db/range_scans.sh, the driver's scenario range-scans: how many data
# blocks a short range scan reads with sstfilter.RangeFilter, against the
# same DB read without it, with a prefix Bloom filter and with RocksDB's
# SstQueryFilter min/max (9.11 and later). One `sstfilter-db-bench
# range-scans` per workload (see the header of bench/db/range_scans.cc: the
# DB, the four ways of reading it, the query sets), one at a time; or, with
# --build-cost, one `sstfilter-db-bench range-scans --build-cost`: the
# collector's compaction CPU against the same compactions without it.
#
# It prints per workload and query set the data blocks per scan of each way
# and their ratios, the index blocks per scan and scans/s, and the DB's SST
# files and filter memory, to OUT/range_scans.md (or OUT/build_cost.md);
# each run's log is in OUT/logs/, its RESULT lines in OUT/runs/WORKLOAD.
# result, the plot of the first workload's empty ranges (uniform query
# starts; gnuplot) in OUT/range_scans.png.
#
# usage: bench/db/db_bench_driver range-scans [--num N] [--workloads LIST]
#          [--scans N] [--lengths L,...] [--bits-per-key B] [--cache-mb N]
#          [--passes N] [--gap MIN,MAX] [--build-cost] [--plot PNG]
#          [--smoke] [--report]
#          [common flags: --build, --out]
#   --num N           keys (default 2,000,000)
#   --workloads LIST  space-separated, of uniform series (default both)
#   --scans N         scans per query set (default 2,000)
#   --lengths L,...   the empty ranges' lengths (default 1,16,64)
#   --bits-per-key B  the range filter's (default 12)
#   --cache-mb N      the block cache (default 8)
#   --gap MIN,MAX     series: integers between a series' points (default 1,1)
#   --passes N        passes of every scan (default 3), or with
#                     --build-cost compactions each way (default 5)
#   --build-cost      the collector's compaction cost instead of scans
#   --plot PNG        default OUT/range_scans.png
#   --smoke           10^5 keys, 200 scans, one pass, both workloads, then
#                     --build-cost with one pass (seconds; for ctest)
#   --report          only print the tables (and plot) from OUT/runs
num=2000000; workloads="uniform series"; passes=""; build_cost=0
smoke=0; report_only=0; png="$out/range_scans.png"
scan_flags=(); bits=()
while [ $# -gt 0 ]; do
  case "$1" in
    --num) num="$2"; shift ;;
    --workloads) workloads="$2"; shift ;;
    --scans|--lengths|--cache-mb|--gap) scan_flags+=("$1" "$2"); shift ;;
    --bits-per-key) bits=(--bits-per-key "$2"); shift ;;
    --passes) passes="$2"; shift ;;
    --build-cost) build_cost=1 ;;
    --plot) png="$2"; shift ;;
    --smoke) num=100000; scan_flags+=(--scans 200); passes=1; smoke=1 ;;
    --report) report_only=1 ;;
    *) echo "$tool: unknown argument $1 (see bench/db/range_scans.sh)" >&2; exit 2 ;;
  esac
  shift
done

# sstfilter-db-bench range-scans into OUT/logs/$1.log, its RESULT lines
# into OUT/runs/$1.result.
run() {
  local name="$1" log="$out/logs/$1.log" t0
  shift
  t0=$(date +%s)
  if ! "$db_bench_bin" range-scans --num "$num" "${bits[@]}" --db "$out/db" "$@" > "$log" 2>&1; then
    echo "$tool: $name failed; see $log" >&2; tail -3 "$log" >&2; exit 1
  fi
  grep '^RESULT ' "$log" > "$out/runs/$name.result"
  echo "$tool: $name: $(( $(date +%s) - t0 )) s" >&2
}

# pick FILE KEY FIELD=VALUE...: KEY of FILE's RESULT line that holds every
# FIELD=VALUE given; "" if none does.
pick() {
  local file="$1" key="$2"
  shift 2
  awk -v key="$key" -v want="$*" '{
      n = split(want, w, " "); ok = 1
      for (i = 1; i <= n; i++) if (index($0 " ", " " w[i] " ") == 0) ok = 0
      if (!ok) next
      for (i = 2; i <= NF; i++) if (index($i, key "=") == 1) { print substr($i, length(key) + 2); exit }
    }' "$file"
}
# a ÷ b with 3 decimals, "–" if b is 0 or either is missing.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "" || b == "" || b == 0) print "–"; else printf "%.3f\n", a / b}'; }

build_cost_report() {
  local f="$out/runs/build_cost.result" what
  [ -s "$f" ] || { echo "$tool: no $f" >&2; exit 1; }
  {
    echo "$tool --build-cost: RocksDB $(field "$f" rocksdb), $(field "$f" keys) keys, range filter at $(field "$f" bits_per_key) bits/key, $(field "$f" passes) full compactions each way, alternating; $(date -u +%F), load average $(cut -d' ' -f1-3 /proc/loadavg)"
    echo
    echo "| compaction | with the collector (median) | without | with ÷ without | runs with | runs without |"
    echo "|---|---:|---:|---:|---|---|"
    for what in cpu wall; do
      echo "| $what s | $(field "$f" "${what}_with_s") | $(field "$f" "${what}_without_s") | $(field "$f" "${what}_ratio") | $(field "$f" "${what}_with_runs") | $(field "$f" "${what}_without_runs") |"
    done
  } | tee "$out/build_cost.md"
}

scans_report() {
  local w f modes mode queries kind length row none sel
  {
    for w in $workloads; do
      f="$out/runs/$w.result"
      [ -s "$f" ] || continue
      modes="none range prefix"
      [ -n "$(pick "$f" mode mode=minmax)" ] && modes="$modes minmax"
      echo "### $w"
      echo
      echo "RocksDB $(field "$f" rocksdb), $(field "$f" keys) keys, SST files $(field "$f" files), block cache $(field "$f" cache_mb) MiB, fill $(field "$f" fill_s) s. In memory: range filters $(field "$f" range_bytes) bytes ($(field "$f" range_bits_per_key) bits/key), SstQueryFilter $(field "$f" minmax_bytes), table readers in all $(field "$f" readers_bytes) (rocksdb.estimate-table-readers-mem); prefix Bloom blocks $(field "$f" prefix_bytes) bytes ($(field "$f" prefix_bits_per_key) bits/key) in the block cache."
      echo
      echo "Data blocks per scan (block cache hits + misses) and their ratio to none; index blocks per scan and scans/s (median of the passes) in the order of the ways; the share of queries that fit one prefix."
      echo
      echo "| queries | scan | l |$(for mode in $modes; do printf ' %s |' "$mode"; done)$(for mode in $modes; do [ "$mode" = none ] || printf ' %s ÷ none |' "$mode"; done)$([[ "$modes" == *minmax ]] && echo " range ÷ minmax |") index / scan | scans/s | fit prefix |"
      echo "|---|---|---|$(for mode in $modes; do printf -- '---:|'; done)$(for mode in $modes; do [ "$mode" = none ] || printf -- '---:|'; done)$([[ "$modes" == *minmax ]] && echo "---:|")---|---|---:|"
      awk '/ mode=none / {for (i = 2; i <= NF; i++) {split($i, kv, "="); v[kv[1]] = kv[2]} print v["queries"], v["kind"], v["length"]}' "$f" |
        while read -r queries kind length; do
          sel=(queries="$queries" kind="$kind" length="$length")
          none=$(pick "$f" data_per_scan "${sel[@]}" mode=none)
          row="| $queries | $kind | $([ "$kind" = seek10 ] && echo – || echo "$length") |"
          for mode in $modes; do row="$row $(pick "$f" data_per_scan "${sel[@]}" mode="$mode") |"; done
          for mode in $modes; do
            [ "$mode" = none ] || row="$row $(ratio "$(pick "$f" data_per_scan "${sel[@]}" mode="$mode")" "$none") |"
          done
          [[ "$modes" == *minmax ]] && row="$row $(ratio "$(pick "$f" data_per_scan "${sel[@]}" mode=range)" "$(pick "$f" data_per_scan "${sel[@]}" mode=minmax)") |"
          row="$row $(for mode in $modes; do pick "$f" index_per_scan "${sel[@]}" mode="$mode"; done | paste -sd' ')"
          row="$row | $(for mode in $modes; do pick "$f" scans_per_s "${sel[@]}" mode="$mode"; done | awk '{printf "%s%.0f", (NR > 1 ? " " : ""), $1}')"
          echo "$row | $(pick "$f" fit_prefix "${sel[@]}" mode=none) |"
        done
      echo
    done
  } | tee "$out/range_scans.md"
}

# The first workload's empty ranges, uniform query starts: data blocks per
# scan against l, one line per way, next to a key and anywhere.
scans_plot() {
  local w f kind mode plots=() lines
  w="${workloads%% *}"; f="$out/runs/$w.result"
  [ -s "$f" ] || return 0
  for kind in next any; do
    lines=()
    for mode in none range prefix minmax; do
      awk -v k="$kind" -v m="$mode" '{for (i = 2; i <= NF; i++) {split($i, kv, "="); v[kv[1]] = kv[2]}
          if (v["queries"] == "uniform" && v["kind"] == k && v["mode"] == m) print v["length"], (v["data_per_scan"] > 0 ? v["data_per_scan"] : 0.0005)}' \
        "$f" > "$out/plot-$kind-$mode.dat"
      [ -s "$out/plot-$kind-$mode.dat" ] &&
        lines+=("'$out/plot-$kind-$mode.dat' using 1:2 with linespoints title '$mode'")
    done
    plots+=("set title 'RocksDB $(field "$f" rocksdb), $w, $(field "$f" keys) keys: empty ranges, $kind'; plot $(IFS=,; echo "${lines[*]}")")
  done
  gnuplot_to "$png" 1100,450 <<GP
set multiplot layout 1,2
set logscale xy
set xlabel 'range length (integers)'
set ylabel 'data blocks read per scan'
set key bottom right
set grid
${plots[0]}
${plots[1]}
unset multiplot
GP
  rm -f "$out"/plot-*.dat
  echo "$tool: $png" >&2
}

if [ "$report_only" = 0 ]; then
  rm -rf "$out/runs" "$out/logs"
  mkdir -p "$out/runs" "$out/logs"
  if [ "$build_cost" = 0 ]; then
    for w in $workloads; do
      run "$w" --workload "$w" --passes "${passes:-3}" "${scan_flags[@]}"
    done
  fi
  if [ "$build_cost" = 1 ] || [ "$smoke" = 1 ]; then
    run build_cost --build-cost --passes "${passes:-5}"
  fi
  rm -rf "$out/db"
fi
if [ "$build_cost" = 1 ] || [ "$smoke" = 1 ]; then build_cost_report; fi
if [ "$build_cost" = 0 ]; then
  scans_report
  command -v gnuplot >/dev/null || [ "$smoke" = 0 ] || exit 0
  scans_plot
fi
