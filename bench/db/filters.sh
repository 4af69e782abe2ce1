# bench/db/filters.sh, the driver's scenario db-filters: one db_bench with
# each filter policy, side by side:
# ours, RocksDB's built-in Bloom and Ribbon at the same bits/key, and no
# filter. The db_bench is either Debian's stock one (rocksdb-tools), which
# gets our policies through LD_PRELOAD of the plugin's registration library,
# or (--rocksdb DIR) the db_bench of a RocksDB built from source for this
# machine with the plugin compiled in (tools/build_rocksdb_with_plugin.sh).
#
# Per policy it writes an OPTIONS file (filter_policy=..., direct reads,
# 4 KiB blocks, filters outside the block cache), then
#   fillrandom of N keys, compact            (one db_bench run)
#   readrandom, readmissing, multireadrandom (one run each, --statistics,
#                                             a small block cache)
# and repeats the reads (policies interleaved) to report medians. It checks
# that the DB really used the policy: the OPTIONS file RocksDB wrote for the
# DB and the rocksdb.filter.policy property of its SST files.
#
# usage: bench/db/db_bench_driver db-filters [--large] [--smoke] [--num N]
#          [--reads N] [--missing N] [--bits B] [--repeats R]
#          [--cache-bytes B] [--policies LIST] [common flags]
#   --large        50M keys, 200k/1M lookups (long; not the default)
#   --smoke        20k keys, 2k lookups, one repeat (seconds; for ctest)
#   --num N        keys written by fillrandom (default 1,000,000)
#   --reads N      lookups of readrandom and multireadrandom (default
#                  50,000; with direct reads each costs a disk read)
#   --missing N    lookups of readmissing (default 20x --reads); the
#                  policy without a filter, where each is a disk read,
#                  does --reads of them
#   --bits B       bits/key of every policy (default 10)
#   --repeats R    runs of each read benchmark (default 3; medians)
#   --cache-bytes  block cache size (default 4 MiB)
#   --policies     space-separated "label=filter_policy" pairs; an empty
#                  filter_policy means no filter
# Writes OUT/db_bench.{md,csv} and the raw logs in OUT/logs/.
num=1000000
reads=50000
missing=""
bits=10
repeats=3
cache_bytes=$((4 << 20))
policies=""
while [ $# -gt 0 ]; do
  case "$1" in
    --large) num=50000000; reads=200000 ;;
    --smoke) num=20000; reads=2000; repeats=1 ;;
    --missing) missing="$2"; shift ;;
    --bits) bits="$2"; shift ;;
    --repeats) repeats="$2"; shift ;;
    --cache-bytes) cache_bytes="$2"; shift ;;
    *) sweep_flag "$1" "${2-}" || { echo "$tool: unknown argument $1 (see bench/db/filters.sh)" >&2; exit 2; }
       shift "$sweep_shift" ;;
  esac
  shift
done
missing="${missing:-$((20 * reads))}"
if [ -z "$policies" ]; then
  policies="none= bloomfilter=bloomfilter:$bits ribbonfilter=ribbonfilter:$bits"
  policies+=" BlockedBloom=sstfilter.BlockedBloom:$bits"
  policies+=" Cuckoo=sstfilter.Cuckoo:$bits Hybrid=sstfilter.Hybrid:$bits"
fi

mkdir -p "$out/logs"
rm -f "$out"/logs/*.log "$out/logs/verify.csv"

# ---------------------------------------------------------------- options
# use_direct_reads makes a data-block miss a real read. It needs O_DIRECT,
# which e.g. tmpfs lacks: try it once here and fall back if it fails.
direct_reads=true
probe="$out/direct-probe"
rm -rf "$probe"
if ! "$db_bench" --db="$probe" --benchmarks=fillseq,readrandom --num=1000 \
       --use_direct_reads=true --statistics=0 >"$out/logs/direct-probe.log" 2>&1 ||
   grep -qiE "error|invalid|not supported" "$out/logs/direct-probe.log"; then
  direct_reads=false
fi
rm -rf "$probe"

# write_options FILE FILTER_POLICY: a minimal OPTIONS file. Fields not set
# keep RocksDB's defaults (64 MiB memtables and SST files, snappy).
write_options() {
  db_options "$1" "$2" "db:use_direct_reads=$direct_reads" \
    cf:compression=kSnappyCompression cf:level_compaction_dynamic_level_bytes=true \
    table:format_version=5 table:cache_index_and_filter_blocks=false
}

# Flags for every run. --bloom_bits=-1 leaves the OPTIONS file's
# filter_policy alone (db_bench only fills in a policy when the file has
# none); --cache_size replaces the file's block cache with a small one.
common=(--num="$num" --key_size=16 --value_size=100 --seed=1
        --bloom_bits=-1 --cache_size="$cache_bytes" --cache_numshardbits=0
        --compression_ratio=0.5 --threads=1)

run() {  # run LOG ARGS...: db_bench with our policies (preloaded or built in)
  local log="$1"; shift
  if ! "${with_plugin[@]}" "$db_bench" "$@" >"$log" 2>&1; then
    echo "$tool: db_bench failed, see $log" >&2
    tail -5 "$log" >&2
    exit 1
  fi
}

# ---------------------------------------------------------------- fill
labels=()
unfiltered=""
for entry in $policies; do
  label="${entry%%=*}"
  policy="${entry#*=}"
  labels+=("$label")
  [ -z "$policy" ] && unfiltered+=" $label "
  db="$out/db-$label"
  rm -rf "$db"
  write_options "$out/OPTIONS-$label" "$policy"
  echo "fill $label ($policy)" >&2
  run "$out/logs/$label-fill.log" --db="$db" --options_file="$out/OPTIONS-$label" \
      "${common[@]}" --benchmarks=fillrandom,compact --statistics=0

  # The policy RocksDB really used: the OPTIONS file it wrote for the DB,
  # and the filter policy recorded in an SST file.
  latest=$(ls -t "$db"/OPTIONS-* | head -1)
  written=$(sed -n 's/^ *filter_policy=//p' "$latest")
  why=""; [ -z "$policy" ] || why=$(kept "$db" "$policy")
  [ -z "$why" ] || { echo "$tool: $label: $why" >&2; exit 1; }
  if ! grep -q "^ *use_direct_reads=$direct_reads\$" "$latest"; then
    echo "$tool: $label: the DB's OPTIONS do not say use_direct_reads=$direct_reads" >&2
    exit 1
  fi
  sst=$(ls "$db"/*.sst | head -1)
  property=$("${with_plugin[@]}" "$sst_dump" --file="$sst" --show_properties 2>/dev/null |
             sed -n 's/^ *filter policy name: *//p' | head -1)
  # Filter bits per key over all of the DB's SSTs, from their properties.
  bits_per_key=$(for file in "$db"/*.sst; do
                   "${with_plugin[@]}" "$sst_dump" --file="$file" --show_properties 2>/dev/null
                 done | awk -F': *' '
                   /^ *filter block size:/ { bytes += $2 }
                   /^ *# entries for filter:/ { entries += $2 }
                   END { if (entries > 0) printf "%.2f", bytes * 8 / entries; else printf "-" }')
  echo "$label,$written,$property,$bits_per_key" >>"$out/logs/verify.csv"
  if [ -n "$policy" ]; then
    if [ -z "$property" ]; then
      echo "$tool: $label: $sst has no filter policy property" >&2
      exit 1
    fi
  fi
done

# ---------------------------------------------------------------- reads
# Lookups of readmissing: without a filter each one is a disk read, so
# fewer of them.
missing_reads() {
  case "$unfiltered" in *" $1 "*) echo "$reads" ;; *) echo "$missing" ;; esac
}

benches=(readrandom readmissing multireadrandom)
for ((r = 1; r <= repeats; ++r)); do
  for label in "${labels[@]}"; do
    for bench in "${benches[@]}"; do
      echo "repeat $r/$repeats $label $bench" >&2
      extra=(--reads="$reads")
      [ "$bench" = readmissing ] && extra=(--reads="$(missing_reads "$label")")
      [ "$bench" = multireadrandom ] &&
        extra+=(--batch_size=32 --multiread_batched=true)
      run "$out/logs/$label-$bench-$r.log" --db="$out/db-$label" \
          --options_file="$out/OPTIONS-$label" "${common[@]}" \
          --use_existing_db=true --benchmarks="$bench" --statistics=true \
          "${extra[@]}"
    done
  done
done

# ---------------------------------------------------------------- report
# One CSV row per policy, benchmark and repeat.
{
  echo "policy,bench,repeat,ops_per_sec,found,lookups,useful,full_positive,true_positive,data_block_misses"
  for label in "${labels[@]}"; do
    for bench in "${benches[@]}"; do
      for ((r = 1; r <= repeats; ++r)); do
        awk -v label="$label" -v bench="$bench" -v r="$r" \
            -v reads="$([ "$bench" = readmissing ] && missing_reads "$label" || echo "$reads")" '
          $1 == bench && $2 == ":" {
            for (i = 3; i < NF; ++i) if ($(i + 1) == "ops/sec") ops = $i
            if (match($0, /\(([0-9]+) of ([0-9]+) found\)/)) {
              split(substr($0, RSTART + 1, RLENGTH - 2), f, " ")
              found = f[1]; lookups = f[3]
            }
          }
          $1 == "rocksdb.bloom.filter.useful" { useful = $4 }
          $1 == "rocksdb.bloom.filter.full.positive" { positive = $4 }
          $1 == "rocksdb.bloom.filter.full.true.positive" { true_positive = $4 }
          $1 == "rocksdb.block.cache.data.miss" { misses = $4 }
          END {
            if (lookups == "") lookups = reads
            printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", label, bench, r, ops,
                   found, lookups, useful + 0, positive + 0, true_positive + 0,
                   misses + 0
          }' "$out/logs/$label-$bench-$r.log"
      done
    done
  done
} >"$out/db_bench.csv"

if awk -F, 'NR > 1 && $4 == "" { bad = 1 } END { exit !bad }' "$out/db_bench.csv"; then
  echo "$tool: a run printed no ops/sec (see $out/logs)" >&2
  exit 1
fi

load=$(cut -d' ' -f1-3 /proc/loadavg)
{
  echo "# db_bench_driver db-filters"
  echo
  echo "$binary"
  echo "$(awk -F: '/^model name/ { sub(/^ */, "", $2); print $2; exit }' /proc/cpuinfo), $(nproc) CPUs;"
  echo "load average $load at the end (shared machine)."
  echo "fillrandom of $num keys (16-byte keys, 100-byte values, snappy), then compact;"
  echo "$reads lookups per readrandom and multireadrandom, $missing per readmissing ($reads without a filter),"
  echo "median of $repeats runs; block cache $((cache_bytes >> 20)) MiB, 4 KiB blocks,"
  echo "filters held by the table readers (not in the block cache),"
  if [ "$direct_reads" = true ]; then
    echo "use_direct_reads=true (so a data-block miss is a real read)."
  else
    echo "use_direct_reads=false: O_DIRECT failed here (see logs/direct-probe.log), so misses may hit the OS page cache."
  fi
  echo "multireadrandom: MultiGet batches of 32 (--multiread_batched)."
  echo
  echo "Per lookup: useful = rocksdb.bloom.filter.useful (filter said no),"
  echo "positive / true positive = rocksdb.bloom.filter.full.positive / .full.true.positive,"
  echo "FPR = (positive - true positive) / (useful + positive - true positive),"
  echo "data-block reads = rocksdb.block.cache.data.miss. Medians over the runs."
  echo
  echo "| policy | filter bits/key | benchmark | ops/s | x bloomfilter | found | useful/lookup | positive/lookup | true positive/lookup | FPR % | data-block reads/lookup |"
  echo "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  awk -F, '
    function median(list,   n, a, i, j, t) {
      n = split(list, a, " ")
      for (i = 2; i <= n; ++i) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; --j) {
        t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
      }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    NR == FNR { bits_per_key[$1] = $4; next }
    FNR == 1 { next }
    {
      key = $1 SUBSEP $2
      if (!(key in seen)) { seen[key] = 1; order[++rows] = key }
      ops[key] = ops[key] " " $4
      lookups = $6 > 0 ? $6 : 1
      found[key] = $5; n[key] = lookups
      useful[key] = useful[key] " " $7 / lookups
      pos[key] = pos[key] " " $8 / lookups
      tp[key] = tp[key] " " $9 / lookups
      fp = $8 - $9; negatives = $7 + fp
      fpr[key] = fpr[key] " " (negatives > 0 ? fp / negatives * 100 : 0)
      reads[key] = reads[key] " " $10 / lookups
    }
    END {
      for (i = 1; i <= rows; ++i) {
        split(order[i], k, SUBSEP)
        base = "bloomfilter" SUBSEP k[2]
        ratio = (base in ops) ? sprintf("%.2f", median(ops[order[i]]) / median(ops[base])) : "-"
        printf "| %s | %s | %s | %.0f | %s | %s | %.4f | %.4f | %.4f | %.3f | %.4f |\n",
               k[1], bits_per_key[k[1]], k[2], median(ops[order[i]]), ratio,
               found[order[i]] "/" n[order[i]], median(useful[order[i]]),
               median(pos[order[i]]), median(tp[order[i]]), median(fpr[order[i]]),
               median(reads[order[i]])
      }
    }' "$out/logs/verify.csv" "$out/db_bench.csv"
  echo
  echo "Filter bits/key: filter block bytes x 8 / filter entries over all SSTs of the DB."
  echo
  echo "Filter policy the DBs recorded (their OPTIONS file; an SST file's filter policy property):"
  echo
  echo "| policy | OPTIONS filter_policy | SST filter policy |"
  echo "|---|---|---|"
  awk -F, '{ printf "| %s | %s | %s |\n", $1, ($2 == "" ? "-" : $2), ($3 == "" ? "-" : $3) }' \
    "$out/logs/verify.csv"
} >"$out/db_bench.md"
for label in "${labels[@]}"; do rm -rf "$out/db-$label"; done

cat "$out/db_bench.md"
echo
echo "results: $out/db_bench.{md,csv}, logs in $out/logs/"
