# bench/db/memory_limit.sh, the driver's scenario memory-limit: sstfilter.LevelAware:B:memory_limit=L on a
# leveled DB that grows in 8 stages to 8x the keys L serves at B bits/key,
# against RocksDB's ribbonfilter at the same live filter bytes and against
# RocksDB's own bound on filter memory (ribbonfilter:1.5B with its filters
# and indexes in a block cache that leaves them L), and two DBs that share
# one limit. Each run is one `sstfilter-db-bench memory-limit` (see the
# header of bench/db/memory_limit.cc: the growth, what is measured after each
# stage, the block cache's rule), one at a time. Per fill (seed) f:
#   limit        --policy sstfilter.LevelAware:B:memory_limit=L
#   capped       --policy ribbonfilter:1.5B --cache-capped
#   ribbon_S     --equal-ribbon <limit's bits/key at stage S> --only-stage S,
#                for each stage S: Ribbon at the limit run's filter bytes
#   two_shared   --two-dbs, both DBs with the one LevelAware object of limit L
#   two_split    --two-dbs, each DB its own LevelAware object of limit L / 2
# Ribbon's wasted reads are then corrected for what is left of the bytes'
# difference by Ribbon's rule: its FPR doubles for every 1.04 bits/key less.
#
# It prints per stage the medians over the fills (and the per-fill range of
# LevelAware's bytes / L), the two DBs at the last stage, and the
# targets, met or missed, to OUT/memory_limit.md; each run's log is in
# OUT/logs/, its RESULT lines one per file in OUT/runs/, the plot's data in
# OUT/memory_limit.csv, and the plot (gnuplot) in bench/plots/memory_limit.png.
#
# usage: bench/db/db_bench_driver memory-limit [--keys-at-limit K]
#          [--bits-per-key B] [--reads N] [--fills F] [--first-seed S]
#          [--read-ratio R] [--plot PNG] [--no-direct-io]
#          [--small | --smoke] [--resume] [--report]
#          [common flags: --build, --out]
#   --keys-at-limit K  keys L serves at B bits/key: L = K * B / 8 bytes;
#                      the DB grows to 8K (default 250,000: L = 312,500)
#   --bits-per-key B   the average asked (default 10)
#   --reads N          measured absent Gets per stage (default 100,000)
#   --fills F          fills (seeds) (default 3)
#   --read-ratio R     two DBs: Gets of the busy one per Get of the quiet
#                      one (default 10)
#   --plot PNG         default bench/plots/memory_limit.png
#   --no-direct-io     read through the page cache (Gets/s not from disk)
#   --average          no limit: LevelAware:B and ribbonfilter:1.5B grow
#                      alike (runs "average" and "ribbon"), each stage's
#                      bits/key against the B asked and the two's wasted
#                      reads, to OUT/memory_limit_average.md
#   --small            K = 25,000, 20,000 reads, one fill (minutes)
#   --smoke            K = 2,500, 2,000 reads, one fill, the plot in OUT
#                      only if gnuplot is there (ctest's bench-smoke)
#   --resume           keep OUT/runs and skip the runs already there
#   --report           only print the table (and plot) from OUT/runs
keys_at_limit=250000; bits=10; stages=8; reads=100000; fills=3; first_seed=1
ratio=10
png="$root/bench/plots/memory_limit.png"; direct=(--direct-io)
resume=0; report_only=0; smoke=0; average=0
while [ $# -gt 0 ]; do
  case "$1" in
    --keys-at-limit) keys_at_limit="$2"; shift ;;
    --bits-per-key) bits="$2"; shift ;;
    --read-ratio) ratio="$2"; shift ;;
    --plot) png="$2"; shift ;;
    --no-direct-io) direct=() ;;
    --average) average=1 ;;
    --small) keys_at_limit=25000; reads=20000; fills=1 ;;
    --smoke) keys_at_limit=2500; reads=2000; fills=1; smoke=1 ;;
    *) sweep_flag "$1" "${2-}" || { echo "$tool: unknown argument $1 (see bench/db/memory_limit.sh)" >&2; exit 2; }
       shift "$sweep_shift" ;;
  esac
  shift
done
[ "$smoke" = 1 ] && png="$out/memory_limit.png"
num=$((keys_at_limit * stages))
limit=$(awk -v k="$keys_at_limit" -v b="$bits" 'BEGIN {printf "%d", k * b / 8}')
level_aware="sstfilter.LevelAware:$bits"
capped="ribbonfilter:$(awk -v b="$bits" 'BEGIN {printf "%g", 1.5 * b}')"
seeds=$(seq "$first_seed" $((first_seed + fills - 1)))
run_file() { echo "$out/runs/$1__$2__s$3__$4.result"; }  # run seed stage db

# One run of the driver: its RESULT lines, one file per stage and DB.
run() {
  local name="$1" seed="$2"; shift 2
  [ -e "$out/runs/${name}__$seed.done" ] && return 0
  local log="$out/logs/${name}__$seed.log" t0
  t0=$(date +%s)
  if ! "$db_bench_bin" memory-limit --seed "$seed" --num "$num" --stages "$stages" --limit "$limit" --reads "$reads" \
      "${direct[@]}" --trace --db "$out/db" "$@" > "$log" 2>&1; then
    echo "$tool: $name, seed $seed failed; see $log" >&2; tail -3 "$log" >&2; exit 1
  fi
  awk -v dir="$out/runs" -v run="$name" -v seed="$seed" '/^RESULT / {
      stage = ""; db = ""
      for (i = 2; i <= NF; i++) {
        if (index($i, "stage=") == 1) stage = substr($i, 7)
        if (index($i, "db=") == 1) db = substr($i, 4)
      }
      print > (dir "/" run "__" seed "__s" stage "__" db ".result") }' "$log"
  touch "$out/runs/${name}__$seed.done"
  echo "$tool: $name, seed $seed: $(( $(date +%s) - t0 )) s; $(grep -v '^RESULT ' "$log" | tail -1)" >&2
}

if [ "$report_only" = 0 ]; then
  [ "$resume" = 1 ] || rm -rf "$out/runs" "$out/logs"
  mkdir -p "$out/runs" "$out/logs"
  started=$(date +%s)
  echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)" > "$out/load"
  for seed in $seeds; do
    if [ "$average" = 1 ]; then
      run average "$seed" --policy "$level_aware"
      run ribbon "$seed" --policy "$capped"
      continue
    fi
    run limit "$seed" --policy "$level_aware:memory_limit=$limit"
    run capped "$seed" --policy "$capped" --cache-capped
    for s in $(seq 1 "$stages"); do
      b=$(field "$(run_file limit "$seed" "$s" one)" bits_per_key)
      run "ribbon_$s" "$seed" --equal-ribbon "$b" --only-stage "$s"
    done
    run two_shared "$seed" --two-dbs --read-ratio "$ratio" --policy "$level_aware:memory_limit=$limit"
    half="$level_aware:memory_limit=$((limit / 2))"
    run two_split "$seed" --two-dbs --read-ratio "$ratio" --policy "$half" --second-policy "$half"
  done
  echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/load"
  echo "$tool: $(( $(date +%s) - started )) s for the runs" >&2
fi

if [ "$average" = 1 ]; then
  seeds=$(ls "$out/runs" | sed -n 's/^average__\([0-9]*\)__s1__one\.result$/\1/p' | sort -n)
  [ -n "$seeds" ] || { echo "$tool: no runs in $out/runs" >&2; exit 1; }
  pf() { local f; for f in $seeds; do field "$(run_file "$1" "$f" "$2" one)" "$3"; done; }
  {
    echo "$tool --average: $level_aware against $capped, grown alike in $stages stages to $num keys, $reads measured absent Gets per stage, seeds $(echo $seeds | tr ' ' ','), RocksDB $(field "$(run_file average "${seeds%%$'\n'*}" 1 one)" rocksdb), $(date -u +%F); $(tr '\n' ';' < "$out/load" 2>/dev/null)"
    echo
    echo "Per stage, medians over the fills (each fill's in parentheses). × : LevelAware's wasted reads per absent Get over $capped's, per fill."
    echo
    echo "| stage | keys | LevelAware bits/key ÷ $bits | $capped bits/key | wasted reads: LevelAware | $capped | × |"
    echo "|---:|---:|---:|---:|---:|---:|---:|"
    for st in $(seq 1 "$stages"); do
      x=$(for f in $seeds; do awk -v a="$(field "$(run_file average "$f" "$st" one)" wasted_per_get)" -v b="$(field "$(run_file ribbon "$f" "$st" one)" wasted_per_get)" 'BEGIN {if (b > 0) printf "%.3f\n", a / b}'; done)
      echo "| $st | $(pf average "$st" keys | median %.0f) | $(pf average "$st" bits_per_key | awk -v b="$bits" '{printf "%.3f\n", $1 / b}' | median %.3f) ($(pf average "$st" bits_per_key | awk -v b="$bits" '{printf "%.3f ", $1 / b}')) | $(pf ribbon "$st" bits_per_key | median %.2f) | $(pf average "$st" wasted_per_get | median %.5f) | $(pf ribbon "$st" wasted_per_get | median %.5f) | $(echo "$x" | median %.2f) ($(echo $x)) |"
    done
  } > "$out/memory_limit_average.md"
  cat "$out/memory_limit_average.md"
  exit 0
fi

any=$(ls "$out"/runs/limit__*__s1__one.result 2>/dev/null | head -1 || true)
[ -n "$any" ] || { echo "$tool: no runs in $out/runs" >&2; exit 1; }
seeds=$(ls "$out/runs" | sed -n 's/^limit__\([0-9]*\)__s1__one\.result$/\1/p' | sort -n)
stages=$(field "$any" stages); limit=$(field "$any" limit)
# Metric $4 of run $1, stage $2, DB $3, one value per fill.
per_fill() { local s v; for s in $seeds; do v=$(field "$(run_file "$1" "$s" "$2" "$3")" "$4"); [ -n "$v" ] && echo "$v"; done; true; }
m() { per_fill "$@" | median "${5:-%.5f}"; }
# Ribbon at equal bytes, fill $1, stage $2: its wasted reads per Get
# corrected to LevelAware's bits/key (x 2^((Ribbon's - LevelAware's) / 1.04)).
ribbon_wasted() {
  local r l
  r=$(run_file "ribbon_$2" "$1" "$2" one); l=$(run_file limit "$1" "$2" one)
  [ -s "$r" ] && [ -s "$l" ] && awk -v w="$(field "$r" wasted_per_get)" -v br="$(field "$r" bits_per_key)" \
    -v bl="$(field "$l" bits_per_key)" 'BEGIN {printf "%.6f\n", w * 2 ^ ((br - bl) / 1.04)}'
  true
}
# The cache-capped run's filter-block plus wasted data-block reads per Get.
capped_reads() { local f; f=$(run_file capped "$1" "$2" one); [ -s "$f" ] && awk -v a="$(field "$f" wasted_per_get)" -v b="$(field "$f" filter_misses_per_get)" 'BEGIN {printf "%.6f\n", a + b}'; true; }
# Per fill at stage $1: LevelAware's metric $2 over the value function $3 gives.
ratio_to() { local s a b; for s in $seeds; do a=$(field "$(run_file limit "$s" "$1" one)" "$2"); b=$($3 "$s" "$1"); [ -n "$a" ] && [ -n "$b" ] && awk -v a="$a" -v b="$b" 'BEGIN {if (b > 0) printf "%.3f\n", a / b}'; done; true; }
ribbon_gets() { field "$(run_file "ribbon_$2" "$1" "$2" one)" gets_per_s; }
capped_gets() { field "$(run_file capped "$1" "$2" one)" gets_per_s; }
ribbon_bytes() { field "$(run_file "ribbon_$2" "$1" "$2" one)" filter_bytes; }
# LevelAware's live filters while each stage grew, from the trace of run
# $1, fill $2: per stage "stage min max jobs without_filter upper" (live
# bytes / limit after each job, lowest and highest; flushes and compactions;
# those that built tables without a filter; of them, flushes and
# compactions into a level above the deepest seen).
trace_stages() {
  awk '/^TRACE / {
      for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
      if (v["job"] == "move") next
      if (v["level"] + 0 > deepest) deepest = v["level"] + 0
      x = v["live_x_limit"] + 0; if (x < lo) lo = x; if (x > hi) hi = x
      jobs++
      if (v["without_filter"] + 0 > 0) { none++; if (v["level"] + 0 < deepest || v["job"] == "flush") upper++ }
    }
    /^RESULT / { stage++; printf "%d %.3f %.3f %d %d %d\n", stage, lo, hi, jobs, none, upper; lo = 1e9; hi = 0; jobs = none = upper = 0 }
    BEGIN { lo = 1e9 }' "$out/logs/$1__$2.log" 2>/dev/null
  true
}
# Two DBs, run $1, fill $2: metric $3 of DB $4 over that of DB $5 (the
# last stage).
two_ratio() { awk -v a="$(field "$(run_file "$1" "$2" "$stages" "$4")" "$3")" -v b="$(field "$(run_file "$1" "$2" "$stages" "$5")" "$3")" 'BEGIN {if (b > 0) printf "%.3f\n", a / b}'; }
range() { sort -g | awk '{a[NR] = $1} END {if (NR) printf "%.3f–%.3f", a[1], a[NR]}'; }

csv="$out/memory_limit.csv"
echo "# keys limit_bytes level_aware_bytes ribbon_bytes capped_bytes level_aware_wasted ribbon_wasted capped_wasted capped_filter_plus_wasted" > "$csv"
{
  la1=$(run_file limit "${seeds%%$'\n'*}" 1 one)
  echo "$tool: $(field "$any" policy | sed 's/:memory_limit=.*//'), memory_limit=$limit bytes, $stages stages to $(field "$(run_file limit "${seeds%%$'\n'*}" "$stages" one)" keys) keys, $(field "$la1" gets) measured absent Gets per stage, seeds $(echo $seeds | tr ' ' ','), direct IO $(field "$any" direct_io), RocksDB $(field "$any" rocksdb), $(date -u +%F); $(tr '\n' ';' < "$out/load" 2>/dev/null)"
  echo
  echo "Medians over the fills. Wasted reads: data blocks read for a key the table does not hold, per absent Get. Ribbon at equal bytes: \`ribbonfilter\` at the setting whose Ribbon takes LevelAware's bits/key at that stage, its wasted reads corrected for the bytes left between them (FPR × 2 per 1.04 bits/key less); its bytes ÷ LevelAware's beside. Cache-capped: \`$capped\` with filters and indexes in a block cache of the limit + the data share (limit / 8; the indexes stay cold under absent Gets, so the filters hold about the limit); its filter-block reads are block-cache filter misses (from disk) per Get. × are medians of per-fill ratios of LevelAware's to the reference's."
  echo
  echo "| stage | keys | LevelAware bytes ÷ limit (fills) | bits/key | wasted reads: LevelAware | Ribbon, equal bytes (bytes ÷ LA's) | × | cache-capped (+ filter-block reads) | × | absent Gets/s: LevelAware | Ribbon | capped |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for s in $(seq 1 "$stages"); do
    keys=$(m limit "$s" one keys %.0f)
    bytes_range=$(per_fill limit "$s" one bytes_x_limit | range)
    rbytes=$(for f in $seeds; do b=$(ribbon_bytes "$f" "$s"); l=$(field "$(run_file limit "$f" "$s" one)" filter_bytes); [ -n "$b" ] && awk -v a="$b" -v b="$l" 'BEGIN {if (b > 0) printf "%.3f\n", a / b}'; done | median %.3f)
    rw=$(for f in $seeds; do ribbon_wasted "$f" "$s"; done | median %.5f)
    cw=$(for f in $seeds; do capped_reads "$f" "$s"; done | median %.5f)
    echo "| $s | $keys | $(m limit "$s" one bytes_x_limit %.3f) ($bytes_range) | $(m limit "$s" one bits_per_key %.2f) | $(m limit "$s" one wasted_per_get) | $rw ($rbytes) | $(ratio_to "$s" wasted_per_get ribbon_wasted | median %.2f) | $(m capped "$s" one wasted_per_get) (+ $(m capped "$s" one filter_misses_per_get)) | $(ratio_to "$s" wasted_per_get capped_reads | median %.2f) | $(m limit "$s" one gets_per_s %.0f) | $(for f in $seeds; do ribbon_gets "$f" "$s"; done | median %.0f) | $(m capped "$s" one gets_per_s %.0f) |"
    echo "$keys $limit $(m limit "$s" one filter_bytes %.0f) $(for f in $seeds; do ribbon_bytes "$f" "$s"; done | median %.0f) $(m capped "$s" one filter_bytes %.0f) $(m limit "$s" one wasted_per_get) $rw $(m capped "$s" one wasted_per_get) $cw" >> "$csv"
  done
  echo
  echo "Per fill at stage $stages (seed: LevelAware's bytes ÷ limit, wasted reads; Ribbon's corrected; capped's filter + wasted; files per level):"
  for f in $seeds; do
    l=$(run_file limit "$f" "$stages" one)
    echo "- $f: $(field "$l" bytes_x_limit), $(field "$l" wasted_per_get); $(ribbon_wasted "$f" "$stages"); $(capped_reads "$f" "$stages"); LevelAware $(field "$l" files), bits/key $(field "$l" level_bits_per_key)"
  done
  echo
  echo "LevelAware's live filters while each stage grew (each flush's and compaction's line of the runs' trace, all fills): live bytes ÷ limit after a job, lowest and highest; jobs that built tables without a filter, and of them flushes and compactions into a level above the bottom:"
  echo
  echo "| stage | live ÷ limit while growing | jobs | without a filter | of them flushes and upper levels |"
  echo "|---:|---:|---:|---:|---:|"
  for f in $seeds; do trace_stages limit "$f"; done | awk '{s = $1; if (!(s in lo) || $2 < lo[s]) lo[s] = $2; if ($3 > hi[s]) hi[s] = $3; j[s] += $4; n[s] += $5; u[s] += $6; if (s > last) last = s}
    END {for (s = 1; s <= last; s++) printf "| %d | %.3f–%.3f | %d | %d | %d |\n", s, lo[s], hi[s], j[s], n[s], u[s]}'
  echo
  echo "Two DBs of $(m two_shared "$stages" busy keys %.0f) keys each, the busy one read $ratio times as often (interleaved absent Gets), at the last stage:"
  echo
  echo "| limit | total bytes ÷ limit | busy DB's share of them | wasted reads per Get: busy | quiet | both | × split |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  for r in two_shared two_split; do
    x=$(for f in $seeds; do awk -v a="$(field "$(run_file "$r" "$f" "$stages" all)" wasted_per_get)" -v b="$(field "$(run_file two_split "$f" "$stages" all)" wasted_per_get)" 'BEGIN {if (b > 0) printf "%.3f\n", a / b}'; done | median %.2f)
    echo "| $([ "$r" = two_shared ] && echo "one object, $limit" || echo "two objects, $((limit / 2)) each") | $(m "$r" "$stages" all bytes_x_limit %.3f) | $(for f in $seeds; do two_ratio "$r" "$f" filter_bytes busy all; done | median %.3f) | $(m "$r" "$stages" busy wasted_per_get) | $(m "$r" "$stages" quiet wasted_per_get) | $(m "$r" "$stages" all wasted_per_get) | $x |"
  done
  echo
  echo "Targets:"
  lo=$(for s in $(seq 1 "$stages"); do per_fill limit "$s" one bytes_x_limit; done | sort -g | head -1)
  hi=$(for s in $(seq 1 "$stages"); do per_fill limit "$s" one bytes_x_limit; done | sort -g | tail -1)
  # "**met**" or "missed" for the awk condition $1; "not measured" where a
  # figure is missing.
  verdict() { if [[ "$1" == *–* ]]; then echo "not measured"; else awk "BEGIN {print ($1) ? \"**met**\" : \"missed\"}"; fi; }
  echo "- live filter bytes within 0.95–1.03× the limit at every stage (from stage 1, where the limit is first reached), every fill: $lo–$hi, $(verdict "$lo >= 0.95 && $hi <= 1.03")"
  x=$(ratio_to "$stages" wasted_per_get ribbon_wasted | median %.3f)
  echo "- at the end, wasted reads ≤ 0.8× Ribbon's at equal bytes: ${x}×, $(verdict "$x <= 0.8")"
  x=$(ratio_to "$stages" wasted_per_get capped_reads | median %.3f)
  echo "- at the end, fewer filter-block plus wasted reads than the cache-capped $capped: ${x}×, $(verdict "$x < 1")"
  g=$(m limit "$stages" one gets_per_s %.0f); gr=$(for f in $seeds; do ribbon_gets "$f" "$stages"; done | median %.0f); gc=$(m capped "$stages" one gets_per_s %.0f)
  echo "- at the end, absent Gets/s from disk ≥ both: $g against $gr (Ribbon) and $gc (capped), $(verdict "$g >= $gr && $g >= $gc")"
  t=$(m two_shared "$stages" all bytes_x_limit %.3f)
  echo "- two DBs, total within the limit: ${t}×, $(verdict "$t <= 1")"
  sh=$(for f in $seeds; do two_ratio two_shared "$f" filter_bytes busy all; done | median %.3f)
  echo "- two DBs, the busier DB's share larger: $sh of the bytes, $(verdict "$sh > 0.5")"
  x=$(for f in $seeds; do awk -v a="$(field "$(run_file two_shared "$f" "$stages" all)" wasted_per_get)" -v b="$(field "$(run_file two_split "$f" "$stages" all)" wasted_per_get)" 'BEGIN {if (b > 0) printf "%.3f\n", a / b}'; done | median %.3f)
  echo "- two DBs, summed wasted reads ≤ 0.8× an even split's: ${x}×, $(verdict "$x <= 0.8")"
} | tee "$out/memory_limit.md"

command -v gnuplot >/dev/null || [ "$smoke" = 0 ] || exit 0
gnuplot_to "$png" 1200,480 <<GP
set termoption noenhanced
set multiplot layout 1,2 title "A DB growing past sstfilter.LevelAware's memory_limit=$limit (medians of $(echo $seeds | wc -w) fill(s))"
set xlabel "keys"
set grid
set key top left
set logscale y
set ylabel "live filter bytes"
plot "$csv" using 1:2 with lines lw 2 lc rgb "black" title "the limit", \
     "" using 1:3 with linespoints title "LevelAware, memory_limit", \
     "" using 1:4 with linespoints title "ribbonfilter at equal bytes", \
     "" using 1:5 with linespoints title "$capped (on disk; cached within the limit)"
set ylabel "data-block (and filter-block) reads per absent Get"
set key bottom right
plot "$csv" using 1:6 with linespoints title "LevelAware, memory_limit: wasted", \
     "" using 1:7 with linespoints title "ribbonfilter at equal bytes: wasted (corrected)", \
     "" using 1:8 with linespoints title "$capped, cache-capped: wasted", \
     "" using 1:9 with linespoints title "$capped, cache-capped: filter-block + wasted"
unset multiplot
GP
echo "$tool: $out/memory_limit.md, $png" >&2
