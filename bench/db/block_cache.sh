# bench/db/block_cache.sh, the driver's scenario block-cache: filter
# policies in the bounded-memory configuration services run RocksDB in
# (Kafka Streams, Flink, TiKV: one LRU block cache for data, index and
# filter blocks), on a DB many times its cache, measured by what a Get
# reads from disk (issue 45). Each cache x workload x policy x fill is one
# run of `sstfilter-db-bench workload --bounded --direct-io --cache-of-data
# F` (see the header of bench/db/workload.cc: a fill, phase A reads, an
# overwrite of half the keys with reads between the writes, then the
# measured phase B), with a DB of its own, one at a time. Fill f uses seed
# first-seed + f - 1 for every run. The configuration (DbSetup's
# bounded_memory): cache_index_and_filter_blocks with high priority,
# partition_filters, kTwoLevelIndexSearch, pin_top_level_index_and_filter,
# no compression, use_direct_reads; the cache one LRU shard, high-priority
# pool ratio 0.5 (RocksDB's default), F times the data blocks' bytes of
# --num keys.
#
# Per cell (cache, workload) and policy it gives medians over the fills of
# the blocks each Get read from disk, data, filter and index, counted by the
# Get thread's PerfContext (block_read_count and its filter and index
# parts; the block cache's miss tickers, beside them in the table of every
# policy, count other threads' reads too, none in phase B here),
# Gets/s, filter, index and data bytes of the live SST files, the filters'
# bytes over the cache's capacity, bits/key. Each policy that is not
# RocksDB's (ribbonfilter:B, bloomfilter:B) stands beside the best
# ribbonfilter:B of the sweep by hindsight for that cell (the lowest median
# of disk reads per Get), ribbonfilter:15 and bloomfilter:10, with the
# medians of the per-fill ratios of disk reads per Get. Results:
# OUT/block_cache.md; each run's RESULT line in OUT/runs/, its log in
# OUT/logs/.
#
# usage: bench/db/db_bench_driver block-cache [--num N] [--reads N]
#          [--fills F] [--first-seed S] [--caches LIST] [--workloads LIST]
#          [--policies LIST] [--smoke] [--resume] [--report]
#          [common flags: --build, --out]
#   --num N         unique keys per DB (default 200,000: 24 MB of data
#                   blocks, L0 and three levels; the default sweep, 156
#                   runs, took 29 minutes on 2 shared cores)
#   --reads N       Gets of phase A and of phase B (default 50,000)
#   --fills F       fills (seeds) per cell and policy (default 1)
#   --first-seed S  the first fill's seed (default 1)
#   --caches LIST   block cache capacities as fractions of the data
#                   blocks' bytes, a/b or decimal (default "1/4 1/16 1/64")
#   --workloads     of sstfilter-db-bench workload's (default "absent
#                   hits90 hot-hits zipf")
#   --policies      filter_policy ids (default: ribbonfilter 4 6 8 10 12 15
#                   20, bloomfilter 6 10 15 20, sstfilter.LevelAware:10 and
#                   sstfilter.LevelAware:10:size_for_cache=true)
#   --smoke         20,000 keys, 2,000 reads, 1 fill, caches 1/4 and 1/64,
#                   absent and zipf, ribbonfilter 6 and 15, bloomfilter:10,
#                   sstfilter.LevelAware:10 (seconds)
#   --resume        keep OUT/runs and skip the runs already there
#   --report        only print the table from OUT/runs
num=200000; reads=50000; fills=1; first_seed=1
caches="1/4 1/16 1/64"
workloads="absent hits90 hot-hits zipf"
policies="ribbonfilter:4 ribbonfilter:6 ribbonfilter:8 ribbonfilter:10 ribbonfilter:12"
policies="$policies ribbonfilter:15 ribbonfilter:20 bloomfilter:6 bloomfilter:10"
policies="$policies bloomfilter:15 bloomfilter:20 sstfilter.LevelAware:10"
policies="$policies sstfilter.LevelAware:10:size_for_cache=true"
resume=0; report_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    --caches) caches="$2"; shift ;;
    --smoke) num=20000; reads=2000; fills=1; caches="1/4 1/64"; workloads="absent zipf"
             policies="ribbonfilter:6 ribbonfilter:15 bloomfilter:10 sstfilter.LevelAware:10" ;;
    *) sweep_flag "$1" "${2-}" || { echo "$tool: unknown argument $1 (see bench/db/block_cache.sh)" >&2; exit 2; }
       shift "$sweep_shift" ;;
  esac
  shift
done
fail() { echo "$tool: $*" >&2; exit 1; }
# A cache's fraction as a decimal ("1/16" -> 0.0625).
fraction() { awk -v f="$1" 'BEGIN {n = split(f, p, "/"); printf "%.8g\n", n == 2 ? p[1] / p[2] : f}'; }
for c in $caches; do
  if ! [[ "$c" =~ ^[0-9.]+(/[0-9.]+)?$ ]] || ! awk -v f="$(fraction "$c")" 'BEGIN {exit !(f > 0)}'; then
    fail "bad cache fraction $c"
  fi
done
seeds=$(seq "$first_seed" $((first_seed + fills - 1)))
label() { echo "$1" | tr ':.;={}/ ' '________'; }
# Cell "CACHE,WORKLOAD" $1, policy $2, seed $3.
run_file() { echo "$out/runs/$(label "${1%,*}")__${1#*,}__$(label "$2")__$3.result"; }
rocksdbs() { [[ "$1" == ribbonfilter:* || "$1" == bloomfilter:* ]]; }

# A cell, "CACHE,WORKLOAD": its flags for sstfilter-db-bench workload, one
# a line.
cell_flags() {
  printf '%s\n' --workload "${1#*,}" --bounded --direct-io --cache-of-data "$(fraction "${1%,*}")"
}
[ "$report_only" = 1 ] ||
  workload_runs "$(for c in $caches; do for w in $workloads; do echo "$c,$w"; done; done)" cell_flags

# ---------------------------------------------------------------- report
# The table covers every fill in OUT/runs.
seeds=$(ls "$out/runs" 2>/dev/null | sed -n 's/.*__\([0-9]*\)\.result$/\1/p' | sort -n -u)
[ -n "$seeds" ] || fail "no runs in $out/runs"
first_seed=${seeds%%$'\n'*}
# Cell $1 $2, policy $3: metric $4's median over the fills (format $5).
med() { for s in $seeds; do field "$(run_file "$1,$2" "$3" "$s")" "$4"; done | median "${5:-%.4f}"; }
# The ratio a / b (4 decimals); nothing where either is missing or b is 0.
over() { if [ -n "$1" ] && [ -n "$2" ]; then awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.4f\n", a / b}'; fi; }
# Cell $1 $2: the median over the fills of policy $3's disk reads per Get
# over policy $4's of the same fill; "–" where neither ran.
ratio() {
  local s a b
  for s in $seeds; do
    a=$(field "$(run_file "$1,$2" "$3" "$s")" disk_per_get)
    b=$(field "$(run_file "$1,$2" "$4" "$s")" disk_per_get)
    over "$a" "$b"
  done | median %.3f
}
# Cell $1 $2, policy $3: "total (data / filter / index)" disk reads per Get.
reads_of() {
  echo "$(med "$1" "$2" "$3" disk_per_get) ($(med "$1" "$2" "$3" disk_data_per_get) /" \
       "$(med "$1" "$2" "$3" disk_filter_per_get) / $(med "$1" "$2" "$3" disk_index_per_get))"
}
# Cell $1 $2: the ribbonfilter:B with the lowest median disk reads per Get.
best_ribbon() {
  local p
  for p in $policies; do
    [[ "$p" == ribbonfilter:* ]] || continue
    echo "$(med "$1" "$2" "$p" disk_per_get %.6f) $p"
  done | awk '$1 != "–"' | sort -g | awk 'NR == 1 {print $2}'
}
# Cell $1 $2, policy $3: a cell of the summary for policy $3 against ours $4.
beside() {
  if [[ " $policies " != *" $3 "* ]]; then echo "– | –"; return; fi
  echo "\`$3\` $(reads_of "$1" "$2" "$3") | $(ratio "$1" "$2" "$4" "$3")"
}
# "|| true": head's early exit can fail ls with SIGPIPE (pipefail) once the
# listing outgrows one write.
any=$(ls "$out"/runs/*.result | head -1 || true)
{
  echo "$tool, $(date -u +%F): $(field "$any" num) keys, $(field "$any" reads) Gets per phase, seeds $(echo $seeds | tr ' ' ','), RocksDB $(field "$any" rocksdb); bounded-memory configuration (data, index and filter blocks in one LRU block cache, one shard, high-priority pool 0.5; partitioned filters and index, top levels pinned; no compression; direct reads)."
  echo
  echo "Disk reads per Get: blocks the Gets of phase B read from disk, counted by the Get thread's PerfContext: total (data / filter / index). Medians over the fills; ÷ columns are medians of per-fill ratios of disk reads per Get. The best ribbonfilter is chosen per cell by hindsight: the lowest median of the sweep."
  echo
  echo "| cache | capacity, bytes | data bytes (median of all runs) |"
  echo "|---|---:|---:|"
  for c in $caches; do
    echo "| $c | $(field "$(run_file "$c,${workloads%% *}" "${policies%% *}" "$first_seed")" cache_bytes) |" \
         "$(for w in $workloads; do for p in $policies; do for s in $seeds; do
              field "$(run_file "$c,$w" "$p" "$s")" data_bytes; done; done; done | median %.0f) |"
  done
  for ours in $policies; do
    rocksdbs "$ours" && continue
    echo
    echo "### \`$ours\` beside RocksDB's"
    echo
    echo "| cache | workload | \`$ours\`: disk reads / Get | best ribbonfilter (hindsight): disk reads / Get | ÷ | ribbonfilter:15 | ÷ | bloomfilter:10 | ÷ | filters / cache: ours, best | Gets/s: ours, best |"
    echo "|---|---|---|---|---:|---|---:|---|---:|---|---|"
    for c in $caches; do
      for w in $workloads; do
        best=$(best_ribbon "$c" "$w")
        echo "| $c | $w | $(reads_of "$c" "$w" "$ours") | $(beside "$c" "$w" "$best" "$ours") |" \
             "$(beside "$c" "$w" ribbonfilter:15 "$ours") | $(beside "$c" "$w" bloomfilter:10 "$ours") |" \
             "$(med "$c" "$w" "$ours" filter_cache_share %.3f), $(med "$c" "$w" "$best" filter_cache_share %.3f) |" \
             "$(med "$c" "$w" "$ours" gets_per_s %.0f), $(med "$c" "$w" "$best" gets_per_s %.0f) |"
      done
    done
  done
  echo
  echo "### Every policy"
  echo
  echo "Block-cache misses: block.cache.{data,filter,index}.miss per Get, the tickers, beside the Gets' own reads. Files: the first fill's."
  for c in $caches; do
    for w in $workloads; do
      best=$(best_ribbon "$c" "$w")
      echo
      echo "#### cache $c, $w"
      echo
      echo "| policy | disk reads / Get | data | filter | index | ÷ $best | block-cache misses / Get | bits/key | filter bytes | filters / cache | index bytes | data bytes | Gets/s | files |"
      echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
      for p in $policies; do
        misses=$(for s in $seeds; do
          awk -v d="$(field "$(run_file "$c,$w" "$p" "$s")" data_misses_per_get)" \
              -v f="$(field "$(run_file "$c,$w" "$p" "$s")" filter_misses_per_get)" \
              -v i="$(field "$(run_file "$c,$w" "$p" "$s")" index_misses_per_get)" \
              'BEGIN {if (d != "") printf "%.6f\n", d + f + i}'
        done | median %.4f)
        echo "| \`$p\` | $(med "$c" "$w" "$p" disk_per_get) | $(med "$c" "$w" "$p" disk_data_per_get)" \
             "| $(med "$c" "$w" "$p" disk_filter_per_get) | $(med "$c" "$w" "$p" disk_index_per_get)" \
             "| $(ratio "$c" "$w" "$p" "$best") | $misses | $(med "$c" "$w" "$p" bits_per_key %.2f)" \
             "| $(med "$c" "$w" "$p" filter_bytes %.0f) | $(med "$c" "$w" "$p" filter_cache_share %.3f)" \
             "| $(med "$c" "$w" "$p" index_bytes %.0f) | $(med "$c" "$w" "$p" data_bytes %.0f)" \
             "| $(med "$c" "$w" "$p" gets_per_s %.0f) | $(field "$(run_file "$c,$w" "$p" "$first_seed")" files) |"
      done
    done
  done
} | tee "$out/block_cache.md"
