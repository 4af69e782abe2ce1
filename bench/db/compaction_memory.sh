# bench/db/compaction_memory.sh, the driver's scenario compaction-memory: the peak resident memory of a process that
# compacts tables of about 10^6 keys of 100 bytes, per filter policy, as a
# ratio to ribbonfilter:15's (RocksDB's Ribbon setup at about
# bloomfilter:10's memory). A learning LevelAware builder that kept its
# table's keys (what it did before) held about 100 bytes per key more here.
#
# Per run and policy, one db_bench process on a new DB (auto compactions
# off, the static layout: L0 and L1, the bottom). LevelAware learns only
# from the tables built in its own process, so it is one process:
#   filluniquerandom of --num keys (--key_size=100, --value_size 8, no
#     compression, no WAL) in write buffers of about --keys-per-file keys;
#   compact: all of it into L1, in tables of about --keys-per-file keys
#     (target_file_size_base);
#   overwrite of --num keys, flush: L0 tables over the whole key range;
#   readmissing (--reads absent-key Gets): LevelAware's readers sample L0's
#     and L1's tables, and its next table build learns both levels;
#   compact: the measured step, one compaction of L0 and L1 into L1 (one
#     subcompaction), outputs of about --keys-per-file keys built one after
#     the other, each sized by what was learned (a learning builder that
#     kept its keys, as LevelAware's did before, kept them here).
# The figure is the process's peak resident memory in the last step: its
# high-water mark (VmHWM) is reset to its resident memory once readmissing
# has printed its result (echo 5 > /proc/PID/clear_refs, Linux 4.0 and
# later), then read every 0.1 s until the process ends. db_bench runs with
# glibc's mmap threshold pinned at 128 KiB (MALLOC_MMAP_THRESHOLD_): by
# default glibc raises it to the largest block freed (up to 32 MiB), so
# after the fill the freed memtables stay resident and the compaction's
# builders reuse them unseen (ribbonfilter:15's last compaction then peaked
# at 200 MB, the process's resident memory after the fill). The peak of
# the steps before is reported
# beside it: the high-water mark just before the reset (the fill's
# memtables; the reset clears /usr/bin/time's %M too, which is the same
# mark).
# Policies run interleaved within a run; each ratio is taken against the
# first policy's of the same run, then the median over the runs (min-max).
# The script checks that each DB ran its policy (the OPTIONS file RocksDB
# wrote) and, where asked, the listener (the LOG says it watches the column
# family), and reports the last compaction's output tables and their keys
# (the LOG's table_file_creation events after its compaction_started).
#
# usage: bench/db/db_bench_driver compaction-memory [--num N]
#          [--keys-per-file N] [--reads N] [--runs R] [--policies LIST]
#          [--smoke] [common flags: --rocksdb, --preload, --out]
#   --num N            keys (default 3,000,000: three outputs)
#   --reads N          readmissing's Gets before the last compaction
#                      (default 200,000: about 800,000 probes, six of
#                      LevelAware's learning periods)
#   --keys-per-file N  keys per L0 table and per output (default
#                      1,000,000); sizes from 134 and 116 bytes per key
#                      (7.8.3's memtable and table, measured)
#   --runs R           runs (default 3)
#   --policies LIST    space-separated label,policy,listener (0 or 1);
#                      the first is the reference (default below)
#   --smoke            300,000 keys, 100,000 per file, 50,000 reads, one
#                      run (seconds)
# Writes OUT/compaction_peak_memory.md, OUT/runs.csv and the logs in
# OUT/logs/. Exits 1 if a db_bench fails or a DB did not run its policy or
# listener. Needs root or the same user as db_bench for clear_refs.
num=3000000; per_file=1000000; reads=200000; runs=3
policies="ribbon15,ribbonfilter:15,0 aware10,sstfilter.LevelAware:10,1"
policies+=" aware10-nolearn,sstfilter.LevelAware:10:learn=false,1"
while [ $# -gt 0 ]; do
  case "$1" in
    --num) num="$2"; shift ;;
    --keys-per-file) per_file="$2"; shift ;;
    --reads) reads="$2"; shift ;;
    --runs) runs="$2"; shift ;;
    --policies) policies="$2"; shift ;;
    --smoke) num=300000; per_file=100000; reads=50000; runs=1 ;;
    *) echo "$tool: unknown argument $1 (see bench/db/compaction_memory.sh)" >&2; exit 2 ;;
  esac
  shift
done
rm -rf "$out"; mkdir -p "$out/logs"
shape=("cf:write_buffer_size=$((per_file * 134))"
       "cf:target_file_size_base=$((per_file * 116))"
       cf:disable_auto_compactions=true cf:level_compaction_dynamic_level_bytes=false
       cf:compression=kNoCompression table:cache_index_and_filter_blocks=false)
common=(--num="$num" --key_size=100 --value_size=8 --bloom_bits=-1 --seed=1
        --threads=1 --statistics=0)
labels=()
for entry in $policies; do
  IFS=',' read -r label policy listener <<<"$entry"
  labels+=("$label")
  db_options "$out/$label.ini" "$policy$([ "$listener" = 1 ] && echo +listener)" "${shape[@]}"
done

# measured LOG ARGS...: db_bench; prints "BEFORE PEAK": the peak resident
# KiB until readmissing's result and after it (see the header). Fails the
# script if db_bench fails or never printed that result.
measured() {
  local log="$1" pid peak="" before="" reset=0 now; shift
  env MALLOC_MMAP_THRESHOLD_=131072 "${with_plugin[@]}" "$db_bench" "$@" >"$log" 2>&1 &
  pid=$!  # db_bench's (env execs it)
  while kill -0 "$pid" 2>/dev/null; do
    # (An exited process's status has no VmHWM.)
    now=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
    if [ "$reset" = 0 ] && grep -q '^readmissing *:' "$log"; then
      before="$now"
      echo 5 2>/dev/null >"/proc/$pid/clear_refs" && reset=1
    elif [ "$reset" = 1 ] && [ -n "$now" ]; then
      peak="$now"
    fi
    sleep 0.02
  done
  if ! wait "$pid"; then
    echo "$tool: db_bench failed, see $log" >&2; tail -5 "$log" >&2; exit 1
  fi
  if [ -z "$peak" ] || [ -z "$before" ]; then
    echo "$tool: the last compaction ended before its peak could be read (see $log): a larger --num" >&2
    exit 1
  fi
  echo "$before $peak"
}

echo "run,label,policy,listener,before_peak_kib,compact_peak_kib,outputs,output_keys,compact_s" >"$out/runs.csv"
for ((r = 1; r <= runs; ++r)); do
  for entry in $policies; do
    IFS=',' read -r label policy listener <<<"$entry"
    db="$out/db"; rm -rf "$db"
    log="$out/logs/$label-$r.log"
    read -r before peak < <(measured "$log" --options_file="$out/$label.ini" --db="$db" "${common[@]}" \
      --benchmarks=filluniquerandom,compact,overwrite,flush,readmissing,compact \
      --reads="$reads" --disable_wal=1)
    [ -n "${peak:-}" ] || exit 1  # measured said why
    why=$(kept "$db" "$policy$([ "$listener" = 1 ] && echo +listener)")
    [ -z "$why" ] || { echo "$tool: $label: $why" >&2; exit 1; }
    # The last compaction's outputs: the tables the LOG reports created
    # after its last compaction_started event.
    keys=$(awk '/"event": "compaction_started"/ { keys = ""; sep = "" }
                /"event": "table_file_creation"/ { match($0, /"num_entries": [0-9]+/)
                  keys = keys sep substr($0, RSTART + 15, RLENGTH - 15); sep = ";" }
                END { print keys }' "$db/LOG")
    seconds=$(awk '$1 == "compact" && $2 == ":" { for (i = 3; i < NF; i++) if ($(i + 1) == "seconds") s = $i } END { print s }' "$log")
    echo "$r,$label,$policy,$listener,$before,$peak,$(echo "$keys" | awk -F';' '{print NF}'),$keys,$seconds" >>"$out/runs.csv"
    echo "run $r $label: peak $peak KiB in the last compaction, outputs $keys" >&2
  done
done
rm -rf "$out/db"

# Per label $1: "median (min-max)" of column $2 divided by $3 or, with $3
# = ratio, of its ratio to the reference's of the same run; format $4.
stat() {
  awk -F, -v label="$1" -v col="$2" -v mode="$3" -v ref="${labels[0]}" -v f="$4" '
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { v[$1, $2] = $c[col] }
    $2 == label { runs[++n] = $1 }
    END {
      for (i = 1; i <= n; i++) a[i] = mode == "ratio" ? v[runs[i], label] / v[runs[i], ref] : v[runs[i], label] / mode
      for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
      m = n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
      s = sprintf(f, m); if (n > 1) s = s sprintf(" (" f "–" f ")", a[1], a[n]); print s
    }' "$out/runs.csv"
}
{
  echo "# compaction_peak_memory"
  echo
  echo "$binary, RocksDB $rocksdb_version; $(date -u +%F), load average $(cut -d' ' -f1-3 /proc/loadavg) at the end."
  echo "One db_bench process per run and policy: filluniquerandom of $num keys (100-byte keys, 8-byte values, no compression), \`compact\` into L1, \`overwrite\` of $num keys and \`flush\` into L0 tables of about $per_file keys, readmissing ($reads Gets), then the measured \`compact\`: one compaction of L0 and L1 into L1, outputs of about $per_file keys. Its peak RSS: VmHWM reset when readmissing ends (/proc/PID/clear_refs), read until the process ends, glibc's mmap threshold pinned at 128 KiB; before: the peak of the steps before it (the fill). $runs run(s), policies interleaved; medians (min–max); × is the median of per-run ratios to ${labels[0]}."
  echo
  echo "| policy | listener | peak RSS in the last compaction (MiB) | × ${labels[0]} | peak RSS before it (MiB) | × ${labels[0]} | its outputs (keys, first run) | its seconds |"
  echo "|---|---|---:|---:|---:|---:|---|---:|"
  for entry in $policies; do
    IFS=',' read -r label policy listener <<<"$entry"
    first=$(awk -F, -v l="$label" '$2 == l { print $8; exit }' "$out/runs.csv")
    echo "| $policy | $([ "$listener" = 1 ] && echo yes || echo no) | $(stat "$label" compact_peak_kib 1024 "%.1f") | $(stat "$label" compact_peak_kib ratio "%.3f") | $(stat "$label" before_peak_kib 1024 "%.0f") | $(stat "$label" before_peak_kib ratio "%.3f") | ${first//;/, } | $(stat "$label" compact_s 1 "%.1f") |"
  done
} | tee "$out/compaction_peak_memory.md"
