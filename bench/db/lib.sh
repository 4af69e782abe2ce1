# bench/db/lib.sh: the one way the DB scenarios of bench/db/db_bench_driver
# pick their binaries, write a DB's OPTIONS file, check that a DB kept its
# policy and LevelAware's listener, and read db_bench's counters. Sourced
# by the driver, with bench/common/results.sh; not a command.

# db_bench_env
#   From rocksdb_dir (what `tools/build_rocksdb_with_plugin.sh --print-dir`
#   prints) or, if empty, Debian's rocksdb-tools with LD_PRELOAD=$preload:
#   sets db_bench, sst_dump, ldb, with_plugin (the command prefix that runs
#   them with our policies, an array), rocksdb_version (x.y.z) and binary
#   (a line for the reports).
db_bench_env() {
  local version_h
  if [ -n "$rocksdb_dir" ]; then
    db_bench="$rocksdb_dir/build/db_bench"
    sst_dump="$rocksdb_dir/build/tools/sst_dump"
    ldb="$rocksdb_dir/build/tools/ldb"
    version_h="$rocksdb_dir/src/include/rocksdb/version.h"
    with_plugin=()
    [ -x "$db_bench" ] || { echo "no $db_bench (tools/build_rocksdb_with_plugin.sh)" >&2; return 1; }
  else
    db_bench=/usr/bin/db_bench; sst_dump=/usr/bin/sst_dump; ldb=/usr/bin/ldb
    version_h=/usr/include/rocksdb/version.h
    [ -x "$db_bench" ] || { echo "no $db_bench (Debian's rocksdb-tools; tools/setup.sh)" >&2; return 1; }
    [ -f "$preload" ] || { echo "no preload library at $preload (tools/build.sh)" >&2; return 1; }
    preload="$(cd "$(dirname "$preload")" && pwd)/$(basename "$preload")"
    with_plugin=(env "LD_PRELOAD=$preload")
  fi
  rocksdb_version=$(sed -n 's/^#define ROCKSDB_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' \
                      "$version_h" | paste -sd.)
  if [ -n "$rocksdb_dir" ]; then
    binary="db_bench of RocksDB $rocksdb_version built from source in $rocksdb_dir, the plugin compiled in"
  else
    binary="Debian's /usr/bin/db_bench (rocksdb-tools $(dpkg-query -W -f='${Version}' rocksdb-tools 2>/dev/null || echo '?')) with LD_PRELOAD=$(basename "$preload")"
  fi
}

# db_options FILE POLICY [SECTION:NAME=VALUE...]
#   Writes an OPTIONS file for db_bench's --options_file:
#   filter_policy=POLICY ("" for none; "+listener" after the id adds
#   listeners={sstfilter.LevelAwareListener} to [DBOptions]), 4 KiB
#   blocks, two background jobs, and each further NAME=VALUE in its
#   section: db: [DBOptions], cf: [CFOptions "default"], table:
#   [TableOptions/BlockBasedTable "default"]. Unset fields keep RocksDB's
#   defaults.
db_options() {
  local file="$1" policy="${2%+listener}" listener=0 line
  [ "$policy" != "$2" ] && listener=1
  shift 2
  section() {
    local prefix="$1" line
    shift
    for line in "$@"; do
      case "$line" in "$prefix":*) printf '  %s\n' "${line#"$prefix":}" ;; esac
    done
  }
  {
    printf '[Version]\n  rocksdb_version=%s\n  options_file_version=1.1\n' "$rocksdb_version"
    printf '[DBOptions]\n  create_if_missing=true\n  max_background_jobs=2\n'
    [ "$listener" = 1 ] && printf '  listeners={sstfilter.LevelAwareListener}\n'
    section db "$@"
    printf '[CFOptions "default"]\n'
    section cf "$@"
    printf '[TableOptions/BlockBasedTable "default"]\n  block_size=4096\n'
    printf '  filter_policy=%s\n' "${policy:-nullptr}"
    section table "$@"
  } >"$file"
  for line in "$@"; do
    case "$line" in db:*|cf:*|table:*) ;; *) echo "db_options: no section in $line" >&2; return 1 ;; esac
  done
}

# leveled_shape BYTES DYNAMIC: the db_options lines of the leveled tree
# every multi-level scenario (and sstfilter-db-bench's db.h) builds: write
# buffers, files and level base of BYTES, levels 10x apart, RocksDB's L0
# trigger, level_compaction_dynamic_level_bytes=DYNAMIC, Snappy, every
# file open.
leveled_shape() {
  echo "db:max_open_files=-1" "cf:write_buffer_size=$1" "cf:target_file_size_base=$1" \
       "cf:max_bytes_for_level_base=$1" "cf:max_bytes_for_level_multiplier=10" \
       "cf:level0_file_num_compaction_trigger=4" \
       "cf:level_compaction_dynamic_level_bytes=$2" "cf:compression=kSnappyCompression"
}

# listener_lines DB: "W M", the DB's LOG lines that say LevelAware's
# listener watches a column family (W) and that say none does (M).
listener_lines() {
  local watched missing
  watched=$(cat "$1"/LOG* | grep "sstfilter.LevelAwareListener watches this column family" |
              grep -vc "no sstfilter.LevelAwareListener" || true)
  missing=$(cat "$1"/LOG* | grep -c "no sstfilter.LevelAwareListener watches" || true)
  echo "$watched $missing"
}

# kept DB POLICY: "" if the DB's newest OPTIONS file names POLICY's family
# in filter_policy and, for LevelAware, its LOG says the listener watches
# the column family ("+listener" after the id) or says that none does
# (without); else why not.
kept() {
  local db="$1" id="${2%+listener}" family written watched missing
  family="${id%%:*}"; family="${family#\{id=}"; family="${family#id=}"
  written=$(sed -n 's/^ *filter_policy=//p' "$(ls -t "$db"/OPTIONS-* | head -1)")
  case "$written" in
    *"$family"*) ;;
    *) echo "the DB did not keep its policy: filter_policy=$written"; return ;;
  esac
  [[ "$id" == sstfilter.LevelAware* ]] || return 0
  read -r watched missing < <(listener_lines "$db")
  if [ "$id" != "$2" ]; then
    [ "$watched" -gt 0 ] && [ "$missing" = 0 ] ||
      echo "listener not kept ($watched LOG lines of it watching, $missing without)"
  else
    [ "$missing" -gt 0 ] || echo "no LOG line saying LevelAware runs without its listener"
  fi
}

# ticker LOG NAME: the counter rocksdb.NAME of db_bench's --statistics
# output in LOG (nothing if it has none).
ticker() { awk -v t="rocksdb.$2 COUNT" 'index($0, t) == 1 {print $4}' "$1"; }

# workload_runs CELLS FLAGS_OF: one run of `sstfilter-db-bench workload`
# on the DB OUT/db per seed of $seeds, cell of CELLS (words) and policy of
# $policies, skipping those whose result (run_file CELL POLICY SEED) holds a
# RESULT line already; FLAGS_OF CELL prints the cell's flags, one a line.
# Each run's log goes to OUT/logs/<its result's name>.log and its last line,
# with the seconds it took, to stderr. OUT/runs and OUT/logs are emptied
# first unless --resume. Exits the driver if a run fails.
workload_runs() {
  local cells="$1" flags_of="$2" seed cell p result log t0 started cell_flags
  [ "$resume" = 1 ] || rm -rf "$out/runs" "$out/logs"
  mkdir -p "$out/runs" "$out/logs"
  started=$(date +%s)
  for seed in $seeds; do
    for cell in $cells; do
      mapfile -t cell_flags < <("$flags_of" "$cell")
      for p in $policies; do
        result=$(run_file "$cell" "$p" "$seed")
        [ -s "$result" ] && continue
        log="$out/logs/$(basename "$result" .result).log"
        t0=$(date +%s)
        if ! "$db_bench_bin" workload --policy "$p" --seed "$seed" --num "$num" --reads "$reads" \
            "${cell_flags[@]}" --db "$out/db" > "$log" 2>&1; then
          echo "$tool: $p, $cell, seed $seed failed; see $log" >&2; tail -3 "$log" >&2; exit 1
        fi
        grep '^RESULT ' "$log" > "$result"
        echo "$cell: $(grep -v '^RESULT ' "$log" | tail -1) ($(( $(date +%s) - t0 )) s)" >&2
      done
    done
  done
  echo "$tool: $(( $(date +%s) - started )) s for the runs" >&2
}

# perf_counts LOG NAME...: the counters NAME of the last PERF_CONTEXT that
# db_bench printed in LOG (--perf_level=2, after each benchmark), on one
# line in the order asked (0 for one it lacks).
perf_counts() {
  local log="$1"
  shift
  awk -v names="$*" '/PERF_CONTEXT:/ {text = ""; on = 1; next}
    on && /^[a-z_]+ = / {text = text ", " $0; next} on {on = 0}
    END {
      n = split(text, pairs, /, */)
      for (i = 1; i <= n; i++) if (split(pairs[i], kv, / = /) == 2 && !(kv[1] in v)) v[kv[1]] = kv[2] + 0
      k = split(names, want, " ")
      for (i = 1; i <= k; i++) printf "%s%d", (i > 1 ? " " : ""), v[want[i]]
      print ""
    }' "$log"
}

# sweep_flag FLAG VALUE: takes one of the flags every sweep over policies,
# fills and workloads reads alike (--num, --reads, --fills, --first-seed,
# --workloads, --policies with a value; --resume, --report alone) and sets
# sweep_shift to the words it took beyond FLAG; 1 if FLAG is none of them.
sweep_flag() {
  sweep_shift=1
  case "$1" in
    --num) num="$2" ;;
    --reads) reads="$2" ;;
    --fills) fills="$2" ;;
    --first-seed) first_seed="$2" ;;
    --workloads) workloads="$2" ;;
    --policies) policies="$2" ;;
    --resume) resume=1; sweep_shift=0 ;;
    --report) report_only=1; sweep_shift=0 ;;
    *) return 1 ;;
  esac
}
