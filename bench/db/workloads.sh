# bench/db/workloads.sh, the driver's scenario workloads: filter policies on leveled DBs that compact under
# a read workload, side by side. Each policy x fill x workload is one run of
# `sstfilter-db-bench workload` (see the header of bench/db/workload.cc:
# a fill, phase A reads, an overwrite of half the keys with reads between
# the writes, then the measured phase B), with a DB of its own; runs go one
# at a time, the policies interleaved within each fill and workload. Fill f
# uses seed first-seed + f - 1 for every policy and workload.
#
# Per workload and policy it prints medians over the fills of wasted
# data-block reads per Get, filter checks per Get, filter bytes, bits/key
# and Gets/s, and the medians of the per-fill ratios against ribbonfilter:15
# and bloomfilter:10 of the same fill (wasted reads x, bytes x, Gets/s x),
# then each fill's figures. Results: OUT/workload.md; each run's RESULT
# line in OUT/runs/, its log in OUT/logs/.
#
# usage: bench/db/db_bench_driver workloads [--num N] [--reads N]
#          [--fills F] [--first-seed S] [--workloads LIST] [--policies LIST]
#          [--static] [--restart] [--direct-io] [--small] [--smoke]
#          [--resume] [--report] [common flags: --build, --out]
#   --num N         unique keys per DB (default 2,000,000)
#   --reads N       Gets of phase A and of phase B (default 400,000)
#   --fills F       fills (seeds) per policy and workload (default 5)
#   --first-seed S  the first fill's seed (default 1)
#   --workloads     space-separated, of absent hits50 hits90 hits99
#                   hot-hits hot-absent shift (default: all)
#   --policies      space-separated filter_policy ids (default below)
#   --static        level_compaction_dynamic_level_bytes=false
#   --restart       close and reopen each DB between fill and workload
#   --direct-io     use_direct_reads; adds data blocks read from disk per
#                   Get (block.cache.data.miss / Gets)
#   --small         200,000 keys, 50,000 reads, 1 fill (a minute or two
#                   per workload)
#   --smoke         20,000 keys, 2,000 reads, 1 fill, absent and shift,
#                   with a restart (seconds)
#   --resume        keep OUT/runs and skip the runs already there
#   --report        only print the table from OUT/runs
num=2000000; reads=400000; fills=5; first_seed=1
workloads="absent hits50 hits90 hits99 hot-hits hot-absent shift"
policies="bloomfilter:10 ribbonfilter:15 sstfilter.LevelAware:10"
refs="ribbonfilter:15 bloomfilter:10"
flags=()
resume=0; report_only=0; direct=0
while [ $# -gt 0 ]; do
  case "$1" in
    --static|--restart) flags+=("$1") ;;
    --direct-io) flags+=("$1"); direct=1 ;;
    --small) num=200000; reads=50000; fills=1 ;;
    --smoke) num=20000; reads=2000; fills=1; workloads="absent shift"; flags+=(--restart) ;;
    *) sweep_flag "$1" "${2-}" || { echo "$tool: unknown argument $1 (see bench/db/workloads.sh)" >&2; exit 2; }
       shift "$sweep_shift" ;;
  esac
  shift
done
seeds=$(seq "$first_seed" $((first_seed + fills - 1)))
label() { echo "$1" | tr ':.;={} ' '_______'; }
run_file() { echo "$out/runs/$1__$(label "$2")__$3.result"; }

# A workload's flags for sstfilter-db-bench workload, one a line.
workload_flags() { printf '%s\n' --workload "$1" "${flags[@]}"; }
[ "$report_only" = 1 ] || workload_runs "$workloads" workload_flags

# One value per fill of metric $3 for workload $1, policy $2.
per_fill() { for s in $seeds; do v=$(field "$(run_file "$1" "$2" "$s")" "$3"); [ -n "$v" ] && echo "$v"; done; true; }
# Fill $5's ratio of $2's metric $3 to reference $4's (workload $1); ""
# where either did not run or the reference's is 0.
ratio_at() {
  local a b
  a=$(field "$(run_file "$1" "$2" "$5")" "$3"); b=$(field "$(run_file "$1" "$4" "$5")" "$3")
  if [ -n "$a" ] && [ -n "$b" ]; then awk -v a="$a" -v b="$b" 'BEGIN {if (b > 0) printf "%.3f\n", a / b}'; fi
}
ratios() { for s in $seeds; do ratio_at "$@" "$s"; done; }
paired() { if [[ " $policies " == *" $4 "* ]]; then ratios "$@" | median %.3f; else echo "–"; fi; }
any=$(ls "$out"/runs/*.result 2>/dev/null | head -1 || true)
[ -n "$any" ] || { echo "$tool: no runs in $out/runs" >&2; exit 1; }
# The table covers every fill in OUT/runs (with --resume or --report, more
# than this command's --fills).
seeds=$(ls "$out/runs" | sed 's/.*__\([0-9]*\)\.result$/\1/' | sort -n -u)
first_seed=${seeds%%$'\n'*}
r1=${refs%% *}; r2=${refs##* }
{
  echo "$tool: $(field "$any" num) keys, $(field "$any" reads) Gets per phase, seeds $(echo $seeds | tr ' ' ','), layout $(field "$any" layout), restart $(field "$any" restart), direct IO $(field "$any" direct_io), RocksDB $(field "$any" rocksdb), $(date -u +%F)"
  echo
  echo "Medians over the fills; × columns are medians of per-fill ratios against $r1 (×R) and $r2 (×B) of the same fill. Wasted reads: (bloom.filter.full.positive − full.true.positive) per Get of phase B."
  for w in $workloads; do
    echo
    echo "### $w"
    echo
    echo "| policy | files per level (first fill) | filter bytes | ×R | ×B | bits/key | wasted reads / Get | ×R | ×B | filter checks / Get |$([ "$direct" = 1 ] && echo " disk reads / Get | ×R |") Gets/s | ×R | ×B |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|$([ "$direct" = 1 ] && echo "---:|---:|")---:|---:|---:|"
    for p in $policies; do
      row="| $p | $(field "$(run_file "$w" "$p" "$first_seed")" files) | $(per_fill "$w" "$p" filter_bytes | median %.0f)"
      row="$row | $(paired "$w" "$p" filter_bytes "$r1") | $(paired "$w" "$p" filter_bytes "$r2") | $(per_fill "$w" "$p" bits_per_key | median)"
      row="$row | $(per_fill "$w" "$p" wasted_per_get | median %.5f) | $(paired "$w" "$p" wasted_per_get "$r1") | $(paired "$w" "$p" wasted_per_get "$r2")"
      row="$row | $(per_fill "$w" "$p" checks_per_get | median)"
      [ "$direct" = 1 ] && row="$row | $(per_fill "$w" "$p" data_misses_per_get | median %.5f) | $(paired "$w" "$p" data_misses_per_get "$r1")"
      row="$row | $(per_fill "$w" "$p" gets_per_s | median %.0f) | $(paired "$w" "$p" gets_per_s "$r1") | $(paired "$w" "$p" gets_per_s "$r2") |"
      echo "$row"
    done
    echo
    echo "Per fill (seed: wasted reads / Get, filter bytes, wasted reads ×R):"
    for p in $policies; do
      line="- $p:"
      for s in $seeds; do
        f=$(run_file "$w" "$p" "$s")
        [ -s "$f" ] || continue
        x=$(ratio_at "$w" "$p" wasted_per_get "$r1" "$s")
        line="$line $s: $(field "$f" wasted_per_get), $(field "$f" filter_bytes)$([[ " $policies " == *" $r1 "* ]] && echo ", ${x:-–}×");"
      done
      echo "$line"
    done
  done
} | tee "$out/workload.md"
