# bench/db_bench_env.sh: sourced by the bench/ scripts that measure a whole
# db_bench process (compaction_peak_memory, listener_cost). Not a command.
#
# db_bench_env ROCKSDB_DIR PRELOAD
#   Picks the db_bench: with ROCKSDB_DIR (what
#   `tools/build_rocksdb_with_plugin.sh --print-dir` prints), that build's
#   own db_bench, the plugin compiled in; else Debian's /usr/bin/db_bench
#   (rocksdb-tools) with LD_PRELOAD=PRELOAD (libsstfilter_rocksdb.so).
#   Sets db_bench, with_plugin (the command prefix, an array),
#   rocksdb_version (x.y.z) and binary (a line for the reports).
# db_bench_options FILE POLICY LISTENER [LINE...]
#   Writes an OPTIONS file: filter_policy=POLICY, 4 KiB blocks, filters
#   held by the table readers, listeners={sstfilter.LevelAwareListener}
#   in [DBOptions] if LISTENER is 1, and each LINE (name=value) under
#   [CFOptions "default"].

db_bench_env() {
  local rocksdb_dir="$1" preload="$2" version_h
  if [ -n "$rocksdb_dir" ]; then
    db_bench="$rocksdb_dir/build/db_bench"
    version_h="$rocksdb_dir/src/include/rocksdb/version.h"
    with_plugin=()
    [ -x "$db_bench" ] || { echo "no $db_bench (tools/build_rocksdb_with_plugin.sh)" >&2; return 1; }
    binary="db_bench of RocksDB built from source in $rocksdb_dir, the plugin compiled in"
  else
    db_bench=/usr/bin/db_bench
    version_h=/usr/include/rocksdb/version.h
    [ -x "$db_bench" ] || { echo "no $db_bench (Debian's rocksdb-tools; tools/setup.sh)" >&2; return 1; }
    [ -f "$preload" ] || { echo "no preload library at $preload (tools/build.sh)" >&2; return 1; }
    with_plugin=(env "LD_PRELOAD=$(cd "$(dirname "$preload")" && pwd)/$(basename "$preload")")
    binary="Debian's /usr/bin/db_bench (rocksdb-tools $(dpkg-query -W -f='${Version}' rocksdb-tools 2>/dev/null || echo '?')) with LD_PRELOAD=$(basename "$preload")"
  fi
  rocksdb_version=$(sed -n 's/^#define ROCKSDB_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' \
                      "$version_h" | paste -sd.)
}

db_bench_options() {
  local file="$1" policy="$2" listener="$3" line
  shift 3
  {
    printf '[Version]\n  rocksdb_version=%s\n  options_file_version=1.1\n' "$rocksdb_version"
    printf '[DBOptions]\n  create_if_missing=true\n  max_background_jobs=2\n'
    [ "$listener" = 1 ] && printf '  listeners={sstfilter.LevelAwareListener}\n'
    printf '[CFOptions "default"]\n'
    for line in "$@"; do printf '  %s\n' "$line"; done
    printf '[TableOptions/BlockBasedTable "default"]\n  block_size=4096\n'
    printf '  cache_index_and_filter_blocks=false\n  filter_policy=%s\n' "$policy"
  } >"$file"
}
