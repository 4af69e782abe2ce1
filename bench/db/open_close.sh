# bench/db/open_close.sh, the driver's scenario open-close: does a process that opens and closes DBs for its
# whole life grow faster with LevelAware and its listener than with
# bloomfilter:10? Each row is one process of `sstfilter-db-bench
# open-close` (see the header of bench/db/open_close.cc: per cycle, open a DB,
# flush tables into two levels, Get, close; resident memory, heap and
# malloc after each close), rows interleaved per repeat:
#   dirs new, then dirs same (a new DB per cycle; the same DB reopened) x
#     bloomfilter:10, a new Options per cycle    (the reference)
#     bloomfilter:10, one Options for all        (its reference)
#     LevelAware:10 + listener, a new Options per cycle (from the options
#       string: a new policy and listener per DB)
#     LevelAware:10 + listener, one Options for all (one listener instance)
#   and, dirs new only, what tells the causes apart:
#     LevelAware:10:learn=false + listener, a new Options per cycle
#     bloomfilter:10 and LevelAware:10 + listener, one Options and one
#       info_log for all (a service that logs through its own logger)
# Growth per cycle is the least-squares slope over the cycles after the
# warm-up: RSS in KiB, the heap (operator new, this binary and librocksdb)
# and malloc's bytes in use in bytes. Per row: medians over the repeats
# with min-max; "× ref" is the row's slope minus its reference's (bloom-
# filter:10 with the same options and dirs) of the same repeat, median.
#
# usage: bench/db/db_bench_driver open-close [--cycles N] [--warmup N]
#          [--repeats R] [--keys N] [--gets N] [--db DIR] [--smoke]
#          [--report] [common flags: --build, --out]
#   --cycles N    cycles per process (default 1,000)
#   --warmup N    cycles before the slope (default 50)
#   --repeats R   processes per row (default 1)
#   --keys N      keys written per cycle (default 5,000)
#   --gets N      Gets per cycle (default 5,000)
#   --db DIR      where the DBs go (default OUT/db); a tmpfs such as
#                 /dev/shm spares the disk's syncs and leaves RSS alone
#                 (tmpfs pages a process does not map are not its RSS)
#   --smoke       12 cycles, 4 of warm-up, 2,000 keys and Gets, the four
#                 rows of dirs new (seconds; for ctest)
#   --report      only print the table from OUT/runs
# Writes OUT/open_close_cycles.md, each process's RESULT line in OUT/runs/
# and its per-cycle CSV in OUT/csv/. Exits 1 if a process fails.
cycles=1000; warmup=50; repeats=1; keys=5000; gets=5000; smoke=0; report=0
db=""
while [ $# -gt 0 ]; do
  case "$1" in
    --cycles) cycles="$2"; shift ;;
    --warmup) warmup="$2"; shift ;;
    --repeats) repeats="$2"; shift ;;
    --keys) keys="$2"; shift ;;
    --gets) gets="$2"; shift ;;
    --db) db="$2"; shift ;;
    --report) report=1 ;;
    --smoke) cycles=12; warmup=4; keys=2000; gets=2000; smoke=1 ;;
    *) echo "$tool: unknown argument $1 (see bench/db/open_close.sh)" >&2; exit 2 ;;
  esac
  shift
done
db="${db:-$out/db}"

# Rows: "label|reference label|flags".
bloom="--policy bloomfilter:10"
aware="--policy sstfilter.LevelAware:10 --listener"
rows=()
for dirs in new same; do
  [ "$smoke" = 1 ] && [ "$dirs" = same ] && continue
  rows+=("bloom-cycle-$dirs|bloom-cycle-$dirs|$bloom --options cycle --dirs $dirs"
         "bloom-shared-$dirs|bloom-shared-$dirs|$bloom --options shared --dirs $dirs"
         "aware-cycle-$dirs|bloom-cycle-$dirs|$aware --options cycle --dirs $dirs"
         "aware-shared-$dirs|bloom-shared-$dirs|$aware --options shared --dirs $dirs")
done
if [ "$smoke" = 0 ]; then
  rows+=("aware-nolearn-cycle-new|bloom-cycle-new|--policy sstfilter.LevelAware:10:learn=false --listener --options cycle --dirs new"
         "bloom-logger-new|bloom-logger-new|$bloom --options shared --dirs new --shared-logger"
         "aware-logger-new|bloom-logger-new|$aware --options shared --dirs new --shared-logger")
fi

[ "$report" = 1 ] && repeats=0
if [ "$repeats" -gt 0 ]; then
  rm -rf "$out/runs" "$out/csv" "$db"
  mkdir -p "$out/runs" "$out/csv"
fi
for ((r = 1; r <= repeats; ++r)); do
  for row in "${rows[@]}"; do
    IFS='|' read -r label ref flags <<<"$row"
    t0=$(date +%s)
    # shellcheck disable=SC2086  # flags are words
    if ! "$db_bench_bin" open-close $flags --cycles "$cycles" --warmup "$warmup" --keys "$keys" \
        --gets "$gets" --db "$db" --csv "$out/csv/$label-$r.csv" \
        >"$out/runs/$label-$r.result" 2>"$out/runs/$label-$r.err"; then
      echo "$tool: $label (repeat $r) failed:" >&2
      cat "$out/runs/$label-$r.err" >&2
      exit 1
    fi
    echo "$label, repeat $r/$repeats: $(( $(date +%s) - t0 )) s" >&2
  done
done

# The repeats every row has a RESULT of.
repeats=$(for row in "${rows[@]}"; do ls "$out/runs/${row%%|*}"-*.result 2>/dev/null | wc -l; done | sort -n | head -1)
[ "$repeats" -gt 0 ] || { echo "$tool: no runs of every row in $out/runs" >&2; exit 1; }

# "median (min-max)" of the numbers on stdin, printed with format $1.
summary() { sort -g | awk -v f="$1" '{a[NR] = $1} END {if (NR == 0) {print "–"; exit} m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; s = sprintf(f, m); if (NR > 1) s = s sprintf(" (" f "–" f ")", a[1], a[NR]); print s}'; }
values() { for ((r = 1; r <= repeats; ++r)); do awk -v d="$3" -v v="$(field "$out/runs/$1-$r.result" "$2")" 'BEGIN {print v / d}'; done; }
# The row's slope minus its reference's, per repeat.
beyond() { for ((r = 1; r <= repeats; ++r)); do awk -v a="$(field "$out/runs/$1-$r.result" "$3")" -v b="$(field "$out/runs/$2-$r.result" "$3")" 'BEGIN {print a - b}'; done; }
# "–" for a reference row, else its slope beyond the reference's.
versus() { if [ "$1" = "$2" ]; then echo –; else beyond "$1" "$2" "$3" | summary "$4"; fi; }
# $2 if $1 is 1.
pick() { if [ "$1" = 1 ]; then echo "$2"; fi; }

any="$out/runs/${rows[0]%%|*}-1.result"
{
  echo "# open_close_cycles"
  echo
  echo "RocksDB $(field "$any" rocksdb), $(field "$any" cycles) cycles per process ($(field "$any" warmup) of warm-up), $(field "$any" keys) keys and $(field "$any" gets) Gets per cycle, $repeats process(es) per row, $(date -u +%F); load average $(cut -d' ' -f1-3 /proc/loadavg) at the end."
  echo "Slopes are least-squares over the cycles after the warm-up; medians over the processes (min–max). \"beyond ref\": the slope minus the reference's of the same repeat (bloomfilter:10 with the same options, dirs and logger)."
  echo
  echo "| row | dirs | RSS after warm-up (MiB) | RSS at the end (MiB) | RSS KiB/cycle | beyond ref | heap after warm-up (MiB) | heap B/cycle | beyond ref | malloc B/cycle | DBs the listener keeps at the end |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for row in "${rows[@]}"; do
    IFS='|' read -r label ref flags <<<"$row"
    f1="$out/runs/$label-1.result"
    desc="$(field "$f1" policy), $(pick "$(field "$f1" listener)" "listener, ")options $(field "$f1" options)$(pick "$(field "$f1" shared_logger)" ", one logger")"
    line="| $desc | $(field "$f1" dirs) | $(values "$label" rss_warm_kib 1024 | summary %.1f) | $(values "$label" rss_end_kib 1024 | summary %.1f)"
    line="$line | $(values "$label" rss_slope_kib 1 | summary %.2f) | $(versus "$label" "$ref" rss_slope_kib %+.2f)"
    line="$line | $(values "$label" heap_warm 1048576 | summary %.2f) | $(values "$label" heap_slope 1 | summary %.0f) | $(versus "$label" "$ref" heap_slope %+.0f)"
    line="$line | $(values "$label" malloc_slope 1 | summary %.0f) | $(values "$label" watched_dbs 1 | summary %.0f) |"
    echo "$line"
  done
} | tee "$out/open_close_cycles.md"
rm -rf "$db"
