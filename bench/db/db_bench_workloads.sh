# bench/db/db_bench_workloads.sh, the driver's scenario db-workloads: filter policies under read workloads on leveled
# DBs that are rewritten and compacted under those reads, measured through
# RocksDB's own db_bench only: an OPTIONS file per policy and db_bench's
# flags, no code of ours in the client. LevelAware's listener is turned on
# by name there (listeners={sstfilter.LevelAwareListener} in [DBOptions]).
# The db_bench is Debian's (rocksdb-tools 7.8.3) with LD_PRELOAD of
# libsstfilter_rocksdb.so, or with --rocksdb DIR that of a RocksDB built
# with the plugin compiled in (tools/build_rocksdb_with_plugin.sh).
#
# Per workload, fill and policy, one DB and three db_bench processes:
#   1. workload: the fill, then ROUNDS rounds of (a chunk of the workload's
#      Gets, then a chunk of writes), then flush and waitforcompaction. The
#      writes total num/2, uniform over the key space (so 39% of the keys are
#      overwritten). db_bench runs one benchmark at a time: Gets and writes
#      alternate chunk by chunk, and the compactions the writes trigger run
#      in the background under the next chunk's Gets. With --restart the fill
#      is a process of its own (fill, flush), and the rounds start in a new one.
#   2. measure: a new process, --use_existing_db and --statistics, --reads
#      Gets of the workload and nothing else, so the counters are theirs.
#   3. verify: a new process, --use_existing_keys (db_bench reads every key
#      the DB holds first): readrandom of present keys, each must be found.
# Workloads (db_bench's keys: the key number big-endian, padded with '0' to
# 16 bytes; 100-byte values; num = the keys the DB ends with):
#   absent  every key number of [0,num) (filluniquerandom). Gets: readmissing
#           (the key plus one '0': never present, inside every file's range,
#           uniform). Writes: mixgraph with puts only (uniform, 100 bytes).
#   hits90  key space num/0.9, filluniquerandom of 83.5% of it, so that the
#           writes (as absent's) leave 90% present. Gets: readrandom, uniform
#           over the key space (83.5% -> 90% hits in the rounds, 90% measured).
#   hot     key space num/0.8, filled by random writes with replacement
#           (fillrandom, overwrite) to 70% present, 80% after the rounds'
#           writes (overwrite). Gets: mixgraph, puts 0, over 40 key ranges
#           whose access shares are exp(-0.7 i) + 0.001 (--keyrange_dist_a=1
#           _b=-0.7 _c=0.001 _d=0): 91% of the Gets fall in 4 ranges (10% of
#           the keys); uniform within a range (--key_dist_a=1e-7 _b=1).
# Fill f has seed S + f - 1 (S = --first-seed, 101: 101-105 by default) for
# every policy and workload; its measure process has that seed + 5000
# (other keys than the rounds').
#
# Per run: wasted data-block reads per Get ((rocksdb.bloom.filter.full.
# positive - full.true.positive) / Gets; hits count in the denominator),
# filter checks per Get (full.positive + bloom.filter.useful), filter blocks
# missed in the block cache per Get (block.cache.filter.miss), data blocks
# missed per Get with --direct-io (block.cache.data.miss), Gets/s, the share
# of Gets that found their key, and the live filters' bytes and bits/key
# (sst_dump --show_properties: filter block size, # entries for filter) in
# all and per level (sstfilter-inspect --db --json), and each process's wall
# time. The report (OUT/db_bench_workloads.md) gives, per workload, medians
# over the fills with each fill's figure, the medians of per-fill ratios
# against ribbonfilter:15 (xR) and bloomfilter:10 (xB) of the same fill,
# filter bytes xR, and xR with ribbonfilter:15 moved to each policy's bytes:
# Ribbon's FPR doubles for every 1.04 bits/key less, so its wasted reads are
# scaled by 2^(delta / 1.04), delta = its bits/key minus the policy's bytes
# over its keys; fills whose bytes differ by more than 1% are marked *.
#
# With --bounded (the configuration of the block-cache scenario) the
# measure process runs its Gets twice (db_bench's [W1]: the first pass
# warms the new process's block cache) and reports, of the second, the
# blocks read from disk per Get by kind (--perf_level=2: PERF_CONTEXT's
# block_read_count less its filter and index parts, and those parts); the
# tickers' figures are then per Get of both passes.
#
# Exits 1 if any db_bench fails, a Get of a present key misses (the verify
# readrandom, and absent's DB, where every readrandom key is present), an
# absent key is found, a DB did not keep its policy, or a listener policy's
# LOG lacks "sstfilter.LevelAwareListener watches this column family" or has
# "no sstfilter.LevelAwareListener watches" (and the listener-less run lacks
# the latter).
#
# usage: bench/db/db_bench_driver db-workloads [--num N] [--reads N]
#          [--fills F] [--first-seed S] [--rounds R] [--workloads LIST]
#          [--policies LIST] [--static] [--partitioned]
#          [--cache-filters FRACTION] [--bounded] [--cache-of-data F]
#          [--restart] [--direct-io] [--file-kib K] [--small] [--smoke] [--resume] [--report]
#          [common flags: --rocksdb, --preload, --inspect, --out]
#   --num N          keys each DB ends with (default 2,000,000)
#   --reads N        measured Gets per run (default 400,000)
#   --fills F        fills (seeds S..S+F-1) per workload and policy (5)
#   --first-seed S   the first fill's seed (default 101)
#   --rounds R       rounds of Gets and writes (default 10; each round's
#                    chunk: num/(2R) Gets, num/(2R) writes)
#   --workloads      of absent hits90 hot (default: all three)
#   --policies       filter_policy ids; "+listener" after an id adds the
#                    listener (default: ribbonfilter:15 bloomfilter:10
#                    sstfilter.LevelAware:10+listener sstfilter.LevelAware:10)
#   --static         level_compaction_dynamic_level_bytes=false (default:
#                    the dynamic layout)
#   --partitioned    partition_filters=true, index_type=kTwoLevelIndexSearch,
#                    metadata_block_size=4096
#   --cache-filters FRACTION
#                    cache_index_and_filter_blocks=true with a block cache of
#                    FRACTION x num x 10 bits / 8 (the bytes of the full
#                    filters at the 10 bits/key every policy is near), e.g.
#                    0.25; default: filters held by the table readers, an
#                    8 MiB block cache (one shard either way)
#   --bounded        the bounded-memory configuration services run (Kafka
#                    Streams, Flink, TiKV): --partitioned, index and filter
#                    blocks in the block cache at high priority (a high-
#                    priority pool of 0.5, RocksDB's LRUCache default), the
#                    top levels pinned, no compression
#   --cache-of-data F
#                    cache_index_and_filter_blocks=true with a block cache
#                    of F x num x 121.3 bytes (the uncompressed data blocks
#                    of num keys: kDataBlockBytesPerKey of bench/db/
#                    workload.cc), e.g. 0.25 or 1/16
#   --restart        a new process between fill and rounds
#   --direct-io      use_direct_reads=true
#   --file-kib K     write buffer, target file size and level base (default
#                    1024: L0 and three levels at 2*10^6 keys; --small 256,
#                    --smoke 64)
#   (--inspect: per-level figures are "-" where it cannot read a DB)
#   --small          200,000 keys, 50,000 Gets, 1 fill (minutes)
#   --smoke          20,000 keys, 2,000 Gets, 1 fill, 2 rounds (a minute or
#                    two; the ctest bench-smoke run)
#   --resume         keep OUT/runs and skip the runs already there
#   --report         only write the report from OUT/runs (of its fills;
#                    the workloads and policies given)
num=2000000; reads=400000; fills=5; first_seed=101; rounds=10; file_kib=""
workloads="absent hits90 hot"
policies="ribbonfilter:15 bloomfilter:10 sstfilter.LevelAware:10+listener sstfilter.LevelAware:10"
dynamic=true; partitioned=0; cache_fraction=""; data_fraction=""; bounded=0
restart=0; direct=0
resume=0; report_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift ;;
    --static) dynamic=false ;;
    --partitioned) partitioned=1 ;;
    --cache-filters) cache_fraction="$2"; shift ;;
    --cache-of-data) data_fraction="$2"; shift ;;
    --bounded) bounded=1; partitioned=1 ;;
    --restart) restart=1 ;;
    --direct-io) direct=1 ;;
    --file-kib) file_kib="$2"; shift ;;
    --small) num=200000; reads=50000; fills=1; file_kib=${file_kib:-256} ;;
    --smoke) num=20000; reads=2000; fills=1; rounds=2; file_kib=${file_kib:-64} ;;
    *) sweep_flag "$1" "${2-}" || { echo "$tool: unknown argument $1 (see bench/db/db_bench_workloads.sh)" >&2; exit 2; }
       shift "$sweep_shift" ;;
  esac
  shift
done
file_kib=${file_kib:-1024}
for w in $workloads; do
  case "$w" in absent|hits90|hot) ;; *) echo "$tool: unknown workload $w" >&2; exit 2 ;; esac
done
seeds=$(seq "$first_seed" $((first_seed + fills - 1)))
fail() { echo "$tool: $*" >&2; exit 1; }
label() { echo "$1" | tr ':.+;={} ' '________'; }
run_file() { echo "$out/runs/$1__$(label "$2")__$3.result"; }
chunk=$((num / (2 * rounds)))
if [ -n "$cache_fraction" ]; then
  cache_bytes=$(awk -v f="$cache_fraction" -v n="$num" 'BEGIN {printf "%d", f * n * 10 / 8}')
elif [ -n "$data_fraction" ]; then
  cache_bytes=$(awk -v f="$data_fraction" -v n="$num" \
    'BEGIN {k = split(f, p, "/"); printf "%d", (k == 2 ? p[1] / p[2] : f) * n * 121.3}')
else
  cache_bytes=$((8 << 20))
fi
if [ -n "$cache_fraction" ]; then
  filters_at="filter and index blocks in a block cache of $cache_bytes bytes ($cache_fraction x num x 10 bits)"
elif [ -n "$data_fraction" ]; then
  filters_at="data, filter and index blocks in a block cache of $cache_bytes bytes ($data_fraction x num x 121.3 bytes of data blocks)"
else
  filters_at="filters held by the table readers, an 8 MiB block cache"
fi
config="$num keys, $reads measured Gets, $rounds rounds of $chunk Gets + $chunk writes, $file_kib KiB files and level base, dynamic layout $dynamic, partitioned filters $partitioned, $filters_at, bounded memory $bounded, restart $restart, direct reads $direct; $binary"
# Under --bounded the measure process warms its cache with a first pass.
passes=$((bounded + 1))

# ---------------------------------------------------------------- options
# write_options FILE POLICY: the OPTIONS file of one policy ("+listener"
# after the id adds LevelAware's listener).
write_options() {
  local lines
  read -ra lines <<<"$(leveled_shape $((file_kib * 1024)) "$dynamic")"
  [ "$direct" = 1 ] && lines+=(db:use_direct_reads=true)
  lines+=(table:format_version=5)
  if [ "$bounded" = 1 ]; then
    lines=("${lines[@]/%compression=kSnappyCompression/compression=kNoCompression}")
    lines+=(table:cache_index_and_filter_blocks_with_high_priority=true
            table:pin_top_level_index_and_filter=true)
  fi
  if [ -n "$cache_fraction$data_fraction" ] || [ "$bounded" = 1 ]; then
    lines+=(table:cache_index_and_filter_blocks=true)
  else
    lines+=(table:cache_index_and_filter_blocks=false)
  fi
  [ "$partitioned" = 1 ] && lines+=(table:partition_filters=true
    table:index_type=kTwoLevelIndexSearch table:metadata_block_size=4096)
  db_options "$1" "$2" "${lines[@]}"
}

# ---------------------------------------------------------------- workloads
# setup_workload W sets space (key numbers [0,space)), fill_writes (the
# fill's --writes), fill (benchmarks), rounds_list, measured (the Gets'
# benchmark) and wflags (flags of every process of the workload).
setup_workload() {
  local puts=(--mix_get_ratio=0 --mix_put_ratio=1 --mix_seek_ratio=0
              --value_theta=100 --value_k=0 --value_sigma=0)
  local round
  case "$1" in
    absent)
      space=$num; fill_writes=$num; fill=filluniquerandom
      round="readmissing,mixgraph"; measured=readmissing; wflags=("${puts[@]}") ;;
    hits90)
      space=$((num * 10 / 9))
      fill_writes=$(awk -v s="$space" 'BEGIN {printf "%d", s * (1 - 0.1 * exp(0.5))}')
      fill=filluniquerandom; round="readrandom,mixgraph"; measured=readrandom; wflags=("${puts[@]}") ;;
    hot)
      # (fill + rounds' writes) / space = ln 5: 80% of the key space present.
      space=$((num * 5 / 4)); fill_writes=$chunk
      local k
      k=$(awk -v s="$space" -v n="$num" -v c="$chunk" 'BEGIN {printf "%d", (s * log(5) - n / 2) / c + 0.5}')
      fill="fillrandom$(for _ in $(seq 2 "$k"); do printf ',overwrite'; done)"
      round="mixgraph,overwrite"; measured=mixgraph
      wflags=(--mix_get_ratio=1 --mix_put_ratio=0 --mix_seek_ratio=0 --keyrange_num=40
              --keyrange_dist_a=1 --keyrange_dist_b=-0.7 --keyrange_dist_c=0.001 --keyrange_dist_d=0
              --key_dist_a=1e-7 --key_dist_b=1) ;;
  esac
  rounds_list=$(for _ in $(seq "$rounds"); do printf ',%s' "$round"; done)
  rounds_list=${rounds_list#,}
}

# db LOG ARGS...: one db_bench process; fails the script if it fails.
db() {
  local log="$1"; shift
  if ! "${with_plugin[@]}" "$db_bench" "$@" > "$log" 2>&1; then
    tail -5 "$log" >&2; fail "db_bench failed, see $log"
  fi
}
# found LOG BENCHMARK: "found gets" of each run of BENCHMARK in LOG.
found() {
  awk -v b="$2" '$1 == b' "$1" | sed -n -e 's/.*(\([0-9]*\) of \([0-9]*\) found).*/\1 \2/p' \
    -e 's/.*reads \([0-9]*\) in \([0-9]*\) found.*/\1 \2/p'
}
now() { date +%s.%N; }
since() { awk -v s="$1" -v e="$(now)" 'BEGIN {printf "%.1f", e - s}'; }

# run W POLICY SEED: one run; its figures to run_file.
run() {
  local w="$1" p="$2" seed="$3" l db ini t0 wall_fill=0 wall_work wall_measure wall_verify
  l=$(label "$p"); db="$out/db"; ini="$out/options/$l.ini"
  local logs="$out/logs/${w}__${l}__$seed"
  setup_workload "$w"
  local common=(--options_file="$ini" --db="$db" --num="$space" --key_size=16 --value_size=100
                --compression_ratio=0.5 --bloom_bits=-1 --threads=1 --cache_size="$cache_bytes"
                --cache_type=lru_cache --cache_numshardbits=0 --histogram=0 "${wflags[@]}")
  local measure=(--benchmarks="$measured" --statistics=1)
  if [ "$bounded" = 1 ]; then
    common+=(--cache_high_pri_pool_ratio=0.5)
    # No progress lines on stderr, which would break stdout's in the log.
    measure=(--benchmarks="${measured}[W1]" --statistics=1 --perf_level=2 --progress_reports=0)
  fi
  rm -rf "$db"
  t0=$(now)
  if [ "$restart" = 1 ]; then
    db "$logs.fill.log" "${common[@]}" --seed="$seed" --writes="$fill_writes" --reads="$chunk" \
      --benchmarks="$fill,flush" --statistics=0
    wall_fill=$(since "$t0"); t0=$(now)
    db "$logs.workload.log" "${common[@]}" --seed="$((seed + 1000))" --use_existing_db=1 \
      --writes="$chunk" --reads="$chunk" --benchmarks="$rounds_list,flush,waitforcompaction" --statistics=0
  else
    # hits90 and absent fill with --writes=fill_writes, and their rounds'
    # writes are mixgraph puts (--reads each); hot's are all --writes=chunk.
    db "$logs.workload.log" "${common[@]}" --seed="$seed" --writes="$fill_writes" --reads="$chunk" \
      --benchmarks="$fill,$rounds_list,flush,waitforcompaction" --statistics=0
  fi
  wall_work=$(since "$t0"); t0=$(now)
  db "$logs.measure.log" "${common[@]}" --seed="$((seed + 5000))" --use_existing_db=1 --reads="$reads" \
    "${measure[@]}"
  wall_measure=$(since "$t0"); t0=$(now)
  local verify_reads=$((reads < 100000 ? reads : 100000))
  db "$logs.verify.log" "${common[@]}" --seed="$((seed + 7000))" --use_existing_db=1 --use_existing_keys=1 \
    --reads="$verify_reads" --benchmarks=readrandom --statistics=0
  wall_verify=$(since "$t0")

  # No false negative, no absent key found.
  local f g
  read -r f g < <(found "$logs.verify.log" readrandom) || true
  [ "${g:-0}" -gt 0 ] && [ "$f" = "$g" ] || fail "$w $p seed $seed: verify found $f of $g present keys ($logs.verify.log)"
  if [ "$w" = absent ]; then
    while read -r f g; do
      [ "$f" = 0 ] || fail "$w $p seed $seed: readmissing found $f of $g absent keys"
    done < <(found "$logs.workload.log" readmissing; found "$logs.measure.log" readmissing)
  fi
  # The DB ran the policy asked for, with the listener or without it.
  local why watched=0 missing=0
  why=$(kept "$db" "$p")
  [ -z "$why" ] || fail "$w $p seed $seed: $why"
  grep -h "LevelAwareListener" "$db"/LOG* > "$logs.listener.log" || true
  [[ "$p" == sstfilter.LevelAware* ]] && read -r watched missing < <(listener_lines "$db")

  # Figures of the measured Gets.
  local m="$logs.measure.log" pos tp useful fmiss dmiss ops hits
  pos=$(ticker "$m" bloom.filter.full.positive); tp=$(ticker "$m" bloom.filter.full.true.positive)
  useful=$(ticker "$m" bloom.filter.useful); fmiss=$(ticker "$m" block.cache.filter.miss)
  dmiss=$(ticker "$m" block.cache.data.miss)
  ops=$(awk -v b="$measured" '$1 == b {print $5}' "$m" | tail -1)
  local round_hits
  round_hits=$(found "$logs.workload.log" "$measured" | awk '{f += $1; g += $2} END {if (g) printf "%.4f", f / g}')
  read -r f g < <(found "$m" "$measured" | tail -1) || true
  [ "${g:-0}" -gt 0 ] || fail "$w $p seed $seed: no $measured result in $m"
  hits=$(awk -v f="$f" -v g="$g" 'BEGIN {printf "%.4f", f / g}')
  # Live filters: sst_dump's properties, in all; sstfilter-inspect, per level.
  local props fbytes fkeys levels="-"
  props=$("${with_plugin[@]}" "$sst_dump" --file="$db" --show_properties 2>/dev/null || true)
  fbytes=$(awk -F: '/filter block size/ {s += $2} END {print s + 0}' <<<"$props")
  fkeys=$(awk -F: '/# entries for filter/ {s += $2} END {print s + 0}' <<<"$props")
  if [ -x "$inspect" ] && "${with_plugin[@]}" "$inspect" --db --json --no-progress "$db" > "$logs.inspect.json" 2>/dev/null; then
    levels=$(jq -r '[.dbs[0].column_families[0].levels[] |
      "L\(.level):\(.num_files):\(.bits_per_key * 100 | round / 100):\(.kinds)"] | join(",")' "$logs.inspect.json")
  fi
  # The last pass's PERF_CONTEXT: block reads by kind.
  local reads=0 freads=0 ireads=0 dreads=0
  if [ "$bounded" = 1 ]; then
    read -r reads freads ireads dreads < <(perf_counts "$m" block_read_count filter_block_read_count \
      index_block_read_count compression_dict_block_read_count)
  fi
  awk -v pos="$pos" -v tp="$tp" -v u="$useful" -v fm="${fmiss:-0}" -v dm="${dmiss:-0}" -v g="$g" \
      -v n="$passes" -v fb="$fbytes" -v fk="$fkeys" -v r="$reads" -v rf="$freads" -v ri="$ireads" \
      -v rd="$dreads" 'BEGIN {
    printf "RESULT wasted=%.6f checks=%.4f filter_miss=%.5f data_miss=%.5f filter_bytes=%d filter_keys=%d bits_per_key=%.3f",
      (pos - tp) / (n * g), (pos + u) / (n * g), fm / (n * g), dm / (n * g), fb, fk, fk ? fb * 8 / fk : 0
    printf " disk=%.6f disk_data=%.6f disk_filter=%.6f disk_index=%.6f", r / g, (r - rf - ri - rd) / g, rf / g, ri / g
  }' > "$(run_file "$w" "$p" "$seed")"
  echo " cache_bytes=$cache_bytes gets_per_s=$ops hits=$hits round_hits=${round_hits:-0} listener_log=$watched/$missing gets=$g levels=$levels wall_fill=$wall_fill wall_work=$wall_work wall_measure=$wall_measure wall_verify=$wall_verify" \
    >> "$(run_file "$w" "$p" "$seed")"
  echo "$w $p seed $seed: wasted $(field "$(run_file "$w" "$p" "$seed")" wasted)/Get, hits $hits," \
    "$fbytes filter bytes; wall ${wall_fill}+${wall_work}+${wall_measure}+${wall_verify} s" | tee -a "$out/runs.log" >&2
  rm -rf "$db"
}

if [ "$report_only" = 0 ]; then
  [ "$resume" = 1 ] || rm -rf "$out/runs" "$out/logs"
  mkdir -p "$out/runs" "$out/logs" "$out/options"
  echo "$config" > "$out/runs/config"
  for p in $policies; do write_options "$out/options/$(label "$p").ini" "$p"; done
  started=$(now)
  for seed in $seeds; do
    for w in $workloads; do
      for p in $policies; do
        [ -s "$(run_file "$w" "$p" "$seed")" ] && continue
        run "$w" "$p" "$seed"
      done
    done
  done
  echo "$tool: $(since "$started") s for the runs" >&2
fi

# ---------------------------------------------------------------- report
# Metric $3 of workload $1, policy $2: one line per fill that ran.
per_fill() { for s in $seeds; do v=$(field "$(run_file "$1" "$2" "$s")" "$3"); [ -n "$v" ] && echo "$v"; done; true; }
# Median, then each fill's value: "m (v1, v2, ...)".
with_fills() {  # $1 format, then lines on stdin
  local v; v=$(cat)
  if [ -z "$v" ]; then echo "–"; return; fi
  echo "$(median "$1" <<<"$v") ($(awk -v f="$1" '{printf f "\n", $1}' <<<"$v" | paste -sd, | sed 's/,/, /g'))"
}
# Fill $3's ratio of policy $2's field $4 to reference $5's (workload $1).
ratio_at() {
  local a b
  a=$(field "$(run_file "$1" "$2" "$3")" "$4"); b=$(field "$(run_file "$1" "$5" "$3")" "$4")
  if [ -n "$a" ] && [ -n "$b" ]; then awk -v a="$a" -v b="$b" 'BEGIN {if (b > 0) printf "%.6f\n", a / b}'; fi
}
ratios() { for s in $seeds; do ratio_at "$1" "$2" "$s" "$3" "$4"; done; }
# Fill $3's wasted reads of policy $2 against ribbon's moved to $2's bytes:
# ribbon's wasted reads x 2^(delta / 1.04), delta = (ribbon's bytes - $2's)
# x 8 / ribbon's keys; "*" after it where the bytes differ by over 1%.
equal_bytes_at() {
  local f r
  f=$(run_file "$1" "$2" "$3"); r=$(run_file "$1" "$ref_r" "$3")
  [ -s "$f" ] && [ -s "$r" ] || return 0
  awk -v w="$(field "$f" wasted)" -v b="$(field "$f" filter_bytes)" -v rw="$(field "$r" wasted)" \
      -v rb="$(field "$r" filter_bytes)" -v rk="$(field "$r" filter_keys)" -v mark="${4:-}" 'BEGIN {
    d = (rb - b) * 8 / rk; c = rw * 2 ^ (d / 1.04)
    if (c > 0) printf "%.3f%s\n", w / c, (mark && (b / rb > 1.01 || b / rb < 0.99)) ? "*" : "" }'
}
has() { [[ " $policies " == *" $1 "* ]]; }
ref_r=ribbonfilter:15; ref_b=bloomfilter:10
report() {
  echo "db_bench_workloads, $(date -u +%F): $(cat "$out/runs/config"); fills (seeds) $(echo $seeds | tr ' ' ',')."
  echo
  echo "Medians over the fills, each fill's figure in parentheses. Wasted reads: (bloom.filter.full.positive − full.true.positive) per measured Get. ×R, ×B: medians of per-fill ratios against $ref_r and $ref_b of the same fill. \"×R at equal bytes\": against $ref_r with its wasted reads scaled by 2^(Δ/1.04), Δ its bits/key minus this policy's bytes over its keys; * marks fills whose bytes differ from its by more than 1%. Found: the share of Gets that found their key, measured and in the rounds. Wall: the median run's fill + workload, measure and verify processes, in seconds."
  for w in $workloads; do
    echo
    echo "### $w"
    echo
    echo "| policy | wasted reads / Get | ×R | ×B | ×R at equal bytes | filter bytes ×R | bits/key | filter checks / Get | filter-block misses / Get |$([ "$direct" = 1 ] && echo " data-block misses / Get |")$([ "$bounded" = 1 ] && echo " disk reads / Get (data / filter / index) | ÷ best ribbonfilter |") found: measured / rounds | Gets/s | wall s |"
    echo "|---|---|---|---|---|---|---|---:|---:|$([ "$direct" = 1 ] && echo "---:|")$([ "$bounded" = 1 ] && echo "---|---:|")---:|---:|---|"
    # The ribbonfilter:B of the lowest median disk reads per Get.
    local best=""
    if [ "$bounded" = 1 ]; then
      best=$(for p in $policies; do
        if [[ "$p" == ribbonfilter:* ]]; then echo "$(per_fill "$w" "$p" disk | median %.6f) $p"; fi
      done | awk '$1 != "–"' | sort -g | awk 'NR == 1 {print $2}')
    fi
    for p in $policies; do
      local row="| \`$p\` | $(per_fill "$w" "$p" wasted | with_fills %.5f)"
      if has "$ref_r" && [ "$p" != "$ref_r" ]; then
        row="$row | $(ratios "$w" "$p" wasted "$ref_r" | with_fills %.3f)"
      else row="$row | –"; fi
      if has "$ref_b" && [ "$p" != "$ref_b" ]; then
        row="$row | $(ratios "$w" "$p" wasted "$ref_b" | with_fills %.3f)"
      else row="$row | –"; fi
      if has "$ref_r" && [ "$p" != "$ref_r" ]; then
        local marked
        marked=$(for s in $seeds; do equal_bytes_at "$w" "$p" "$s" mark; done | paste -sd, | sed 's/,/, /g')
        row="$row | $(for s in $seeds; do equal_bytes_at "$w" "$p" "$s"; done | median %.3f)${marked:+ ($marked)}"
        row="$row | $(ratios "$w" "$p" filter_bytes "$ref_r" | with_fills %.3f)"
      else row="$row | – | –"; fi
      row="$row | $(per_fill "$w" "$p" bits_per_key | with_fills %.2f) | $(per_fill "$w" "$p" checks | median %.3f)"
      row="$row | $(per_fill "$w" "$p" filter_miss | median %.4f)"
      [ "$direct" = 1 ] && row="$row | $(per_fill "$w" "$p" data_miss | median %.5f)"
      if [ "$bounded" = 1 ]; then
        row="$row | $(per_fill "$w" "$p" disk | median %.4f) ($(per_fill "$w" "$p" disk_data | median %.4f) /"
        row="$row $(per_fill "$w" "$p" disk_filter | median %.4f) / $(per_fill "$w" "$p" disk_index | median %.4f))"
        row="$row | $(if [ -n "$best" ]; then ratios "$w" "$p" disk "$best"; fi | median %.3f)${best:+ ($best)}"
      fi
      row="$row | $(per_fill "$w" "$p" hits | median %.3f) / $(per_fill "$w" "$p" round_hits | median %.3f)"
      row="$row | $(per_fill "$w" "$p" gets_per_s | median %.0f)"
      local wf ww wm wv
      wf=$(per_fill "$w" "$p" wall_fill | median %.0f); ww=$(per_fill "$w" "$p" wall_work | median %.0f)
      wm=$(per_fill "$w" "$p" wall_measure | median %.0f); wv=$(per_fill "$w" "$p" wall_verify | median %.0f)
      echo "$row | $wf+$ww, $wm, $wv |"
    done
    echo
    echo "Filters per level, first fill (level:files:bits/key:kinds); for LevelAware, its LOG lines \"…Listener watches this column family\" / \"no …Listener watches\" over the run's processes:"
    for p in $policies; do
      local first ll
      first=$(run_file "$w" "$p" "${seeds%%$'\n'*}"); ll=$(field "$first" listener_log)
      echo "- \`$p\`: $(field "$first" levels | sed 's/,/, /g')$([[ "$p" == sstfilter.LevelAware* ]] && echo "; LOG ${ll:-?}")"
    done
  done
}
any=$(ls "$out"/runs/*.result 2>/dev/null | head -1 || true)
[ -n "$any" ] || fail "no runs in $out/runs"
grep -q "direct reads 1" "$out/runs/config" && direct=1
grep -q "bounded memory 1" "$out/runs/config" && bounded=1
# The report covers every fill in OUT/runs.
seeds=$(ls "$out/runs" | sed -n 's/.*__\([0-9]*\)\.result$/\1/p' | sort -n -u)
report | tee "$out/db_bench_workloads.md"
