# bench/db/levels.sh, the driver's scenario levels: LevelAware's three choices against RocksDB's
# bloomfilter and ribbonfilter (and any other policies) on settled
# multi-level DBs. Per fill and policy: one DB written by db_bench's
# filluniquerandom (every key once, in random order) with small write
# buffers, files and level base, so that RocksDB's own compactions leave
# three or more populated levels plus L0, then waitforcompaction. Then,
# --repeats times with the policies interleaved, readmissing (absent-key
# Gets) and multireadrandom (MultiGet, batches of 32), with --statistics.
#
# Per policy it reports medians over the fills: filter bytes and bits/key
# (the SSTs' properties, sst_dump), wasted data-block reads per absent Get
# ((bloom.filter.full.positive - full.true.positive) / Gets), the process
# CPU of the fill (user + sys of db_bench: flushes and compactions, of
# which the filter builds are the part that differs between policies),
# absent Gets/s and MultiGet keys/s; and, as ratios, each against the first
# policy and against ribbonfilter (the first policy whose id starts with
# "ribbonfilter"), each fill's or run's ratio taken against the reference's
# of the same fill or repeat, then the median.
#
# usage: bench/db/db_bench_driver levels [--num N] [--reads N]
#          [--repeats R] [--fills F] [--static] [--direct-io]
#          [--write-rate MB_PER_S] [--policies LIST] [--reuse] [--small]
#          [--smoke] [common flags: --rocksdb, --preload, --out]
#   --num N        unique keys (default 4,000,000)
#   --reads N      lookups per read benchmark (default 400,000)
#   --repeats R    runs of each read benchmark per fill (default 3)
#   --fills F      DBs per policy, each filled with another seed (default 3)
#   --static       level_compaction_dynamic_level_bytes=false (default true)
#   --direct-io    the reads go to disk: use_direct_reads, an 8 MiB block
#                  cache; adds data blocks read from disk per absent Get
#                  (block.cache.data.miss / Gets)
#   --write-rate R fill at R MB/s (db_bench --benchmark_write_rate_limit),
#                  a pace compactions keep up with; default: as fast as
#                  db_bench can, which stalls writes and makes the dynamic
#                  layout drain levels by trivial moves
#   --policies     space-separated filter_policy values (default below)
#   (OUT: DBs, logs and level_aware.md)
#   --reuse        keep the DBs in --out and rerun only the reads
#   --small        400,000 keys, 100,000 reads, 1 fill, 1 repeat (minutes)
#   --smoke        20,000 keys in 64 KiB files, 2,000 reads, 1 fill, 1 repeat
num=4000000; reads=400000; repeats=3; fills=3; dynamic=true; direct=0
policies="bloomfilter:10 ribbonfilter:15 sstfilter.LevelAware:10 sstfilter.LevelAware:10:cpu_lean sstfilter.LevelAware:10:portable"
write_rate=""; reuse=0; file_bytes=1048576
while [ $# -gt 0 ]; do
  case "$1" in
    --small) num=400000; reads=100000; fills=1; repeats=1 ;;
    --smoke) num=20000; reads=2000; fills=1; repeats=1; file_bytes=65536 ;;
    --repeats) repeats="$2"; shift ;;
    --static) dynamic=false ;;
    --direct-io) direct=1 ;;
    --write-rate) write_rate="$2"; shift ;;
    --reuse) reuse=1 ;;
    *) sweep_flag "$1" "${2-}" || { echo "$tool: unknown argument $1 (see bench/db/levels.sh)" >&2; exit 2; }
       shift "$sweep_shift" ;;
  esac
  shift
done
if [ "$reuse" = 1 ]; then
  ls "$out"/db_* >/dev/null 2>&1 || { echo "$tool: --reuse: no DBs in $out" >&2; exit 1; }
  rm -f "$out"/logs/readmissing_* "$out"/logs/multireadrandom_*
else
  rm -rf "$out"
fi
mkdir -p "$out/logs"
# 4M keys of 16 + 100 bytes (about 250 MB with Snappy) in 1 MiB files: L0
# plus three levels 10x apart.
shape=$(leveled_shape "$file_bytes" "$dynamic")
[ "$direct" = 1 ] && shape+=" db:use_direct_reads=true"
common=(--num="$num" --key_size=16 --value_size=100 --compression_type=snappy --cache_size=8388608 --threads=1)
read_opts=()
[ "$direct" = 1 ] && read_opts=(--use_direct_reads=1)
fill_pace=()
if [ -n "$write_rate" ]; then
  fill_pace=(--benchmark_write_rate_limit="$(awk -v r="$write_rate" 'BEGIN {printf "%d", r * 1048576}')")
fi
label() { echo "$1" | tr ':.' '__'; }
for p in $policies; do
  l=$(label "$p")
  # shellcheck disable=SC2086 # $shape: words
  db_options "$out/$l.ini" "$p" $shape table:cache_index_and_filter_blocks=false
done
for f in $(seq 1 "$fills"); do
  for p in $policies; do
    l=$(label "$p"); db="$out/db_${l}_$f"
    [ "$reuse" = 1 ] && [ -d "$db" ] && continue
    start=$(date +%s.%N)
    TIMEFORMAT='%U %S'
    { time "${with_plugin[@]}" "$db_bench" --options_file="$out/$l.ini" --db="$db" --seed=$((6 + f)) \
        --benchmarks=filluniquerandom,waitforcompaction "${common[@]}" "${fill_pace[@]}" --disable_wal=1 \
        > "$out/logs/fill_${l}_$f.log" 2>&1 ; } 2> "$out/logs/fill_${l}_$f.cpu"
    # The OPTIONS file holds the canonical id: the policy's name, and a
    # LevelAware choice, if one was given, must be in it.
    why=$(kept "$db" "$p")
    opt=$(grep -h "filter_policy" "$db"/OPTIONS-* | tail -1)
    choice=""; case "$p" in *:cpu_lean|*:portable) choice=":${p##*:}" ;; esac
    case "$opt" in *"$choice"*) ;; *) why="the DB did not keep the choice $choice: $opt" ;; esac
    [ -z "$why" ] || { echo "$tool: $p: $why" >&2; exit 1; }
    echo "fill $f $p: $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN {printf "%.0f", e - s}') s" >&2
  done
done
# One untimed pass per DB first: the first reads after a fill come from
# disk, not the page cache, and ran 2-4x slower.
for f in $(seq 1 "$fills"); do
  for p in $policies; do
    l=$(label "$p")
    "${with_plugin[@]}" "$db_bench" --options_file="$out/$l.ini" --db="$out/db_${l}_$f" --use_existing_db=1 \
      --benchmarks=readmissing "${common[@]}" "${read_opts[@]}" --reads="$reads" > "$out/logs/warmup_${l}_$f.log" 2>&1
  done
done
for f in $(seq 1 "$fills"); do
  for r in $(seq 1 "$repeats"); do
    for p in $policies; do
      l=$(label "$p")
      for b in readmissing multireadrandom; do
        "${with_plugin[@]}" "$db_bench" --options_file="$out/$l.ini" --db="$out/db_${l}_$f" --use_existing_db=1 \
          --benchmarks=$b "${common[@]}" "${read_opts[@]}" --reads="$reads" --statistics=1 --batch_size=32 \
          > "$out/logs/${b}_${l}_${f}_$r.log" 2>&1
      done
    done
  done
done
ops() { awk -v b="$2" '$1==b {print $5}' "$1"; }
ratio() { awk '{ if ($2 > 0) printf "%.4f\n", $1 / $2 }'; }
# Per DB: filter bytes, filter entries, levels (files per level).
declare -A fbytes fkeys levels
for f in $(seq 1 "$fills"); do
  for p in $policies; do
    l=$(label "$p"); db="$out/db_${l}_$f"
    props=$("${with_plugin[@]}" "$sst_dump" --file="$db" --show_properties 2>/dev/null)
    fbytes[$l,$f]=$(echo "$props" | awk -F: '/filter block size/ {s+=$2} END {print s+0}')
    fkeys[$l,$f]=$(echo "$props" | awk -F: '/# entries for filter/ {s+=$2} END {print s+0}')
    levels[$l,$f]=$("${with_plugin[@]}" "$ldb" --db="$db" --try_load_options manifest_dump 2>/dev/null \
      | awk '/^--- level/ {lv=$3} /^ *[0-9]+:[0-9]+\[/ {n[lv]++} END {for (k in n) printf "L%s:%d ", k, n[k]}' || true)
  done
done
# Per-run values: $1 metric (wasted, miss, get, mget), $2 label, $3 fill, $4 repeat.
value() {
  local ra="$out/logs/readmissing_${2}_${3}_$4.log" mr="$out/logs/multireadrandom_${2}_${3}_$4.log"
  case "$1" in
    wasted) echo "$(ticker "$ra" bloom.filter.full.positive) $(ticker "$ra" bloom.filter.full.true.positive) $reads" | awk '{printf "%.6f\n", ($1-$2)/$3}' ;;
    miss) echo "$(ticker "$ra" block.cache.data.miss) $reads" | awk '{printf "%.6f\n", $1/$2}' ;;
    get) ops "$ra" readmissing ;;
    mget) ops "$mr" multireadrandom ;;
  esac
}
per_fill() {  # $1 metric, $2 label: one value per fill
  case "$1" in
    bytes) for f in $(seq 1 "$fills"); do echo "${fbytes[$2,$f]}"; done ;;
    cpu) for f in $(seq 1 "$fills"); do awk '{print $1 + $2}' "$out/logs/fill_${2}_$f.cpu"; done ;;
    *) for f in $(seq 1 "$fills"); do for r in $(seq 1 "$repeats"); do value "$1" "$2" "$f" "$r"; done; done ;;
  esac
}
# The median of the ratios of $2's values to reference $3's, paired by
# fill (and repeat).
paired() { paste <(per_fill "$1" "$2") <(per_fill "$1" "$3") | ratio | median %.15g; }
first_l=$(label "${policies%% *}")
ribbon_l=""
for p in $policies; do case "$p" in ribbonfilter*) ribbon_l=${ribbon_l:-$(label "$p")} ;; esac; done
{
  echo "db_bench_driver levels: $num unique keys, $fills fill(s) x $repeats x $reads lookups, dynamic=$dynamic, direct IO=$direct, fill ${write_rate:-unpaced}${write_rate:+ MB/s}, $binary, $(date -u +%F)"
  echo
  echo "Ratios: x1st against ${policies%% *}, xR against ${ribbon_l:-(no ribbonfilter)}; medians of paired ratios."
  echo
  echo "| policy | levels (files), fill 1 | filter bytes | x1st | xR | bits/key | wasted reads / absent Get | x1st | xR |$([ "$direct" = 1 ] && echo " disk reads / absent Get |") fill CPU s | x1st | xR | absent Get/s | x1st | xR | MultiGet/s | x1st | xR |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---:|$([ "$direct" = 1 ] && echo "---:|")---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for p in $policies; do
    l=$(label "$p")
    bytes=$(per_fill bytes "$l" | median %.15g)
    bpk=$(for f in $(seq 1 "$fills"); do awk -v b="${fbytes[$l,$f]}" -v k="${fkeys[$l,$f]}" 'BEGIN {printf "%.3f\n", k ? b*8/k : 0}'; done | median %.15g)
    row="| $p | ${levels[$l,1]} | $bytes | $(paired bytes "$l" "$first_l") | $([ -n "$ribbon_l" ] && paired bytes "$l" "$ribbon_l") | $bpk"
    row="$row | $(per_fill wasted "$l" | median %.15g) | $(paired wasted "$l" "$first_l") | $([ -n "$ribbon_l" ] && paired wasted "$l" "$ribbon_l")"
    [ "$direct" = 1 ] && row="$row | $(per_fill miss "$l" | median %.15g)"
    for m in cpu get mget; do
      row="$row | $(per_fill $m "$l" | median %.15g) | $(paired $m "$l" "$first_l") | $([ -n "$ribbon_l" ] && paired $m "$l" "$ribbon_l")"
    done
    echo "$row |"
  done
  echo
  echo "Per fill: filter bytes / wasted reads per absent Get (median of repeats)"
  for p in $policies; do
    l=$(label "$p")
    echo -n "- $p:"
    for f in $(seq 1 "$fills"); do
      echo -n " ${fbytes[$l,$f]} / $(for r in $(seq 1 "$repeats"); do value wasted "$l" "$f" "$r"; done | median %.15g);"
    done
    echo
  done
} | tee "$out/level_aware.md"
