#!/usr/bin/env bash
# The plugin-folder route end to end (issue 3, section 2b): RocksDB built
# from source with rocksdb_plugin/ dropped in as plugin/sstfilter, so that
# its own db_bench, ldb, sst_dump and db_stress know the sstfilter.*
# policies with no LD_PRELOAD. Long: RocksDB's whole library is compiled
# (16 min on a 2-core machine), so it is not part of tools/test.sh; the
# ctest packaging.rocksdb_cmake_accepts_and_compiles_the_plugin_folder
# covers the configure step and the plugin's own sources.
#
#   tools/build_rocksdb_with_plugin.sh [WORK_DIR]     (default build/rocksdb-plugin)
#
# Steps:
#   1. builds and installs sstfilter's core library into WORK_DIR/prefix
#      (the plugin folder takes it from there with find_package);
#   2. copies the RocksDB source tree that tools/setup.sh fetched and copies
#      rocksdb_plugin/ into its plugin/sstfilter;
#   3. configures it with -DROCKSDB_PLUGINS=sstfilter and builds db_bench,
#      ldb, sst_dump and db_stress;
#   4. runs db_bench with an OPTIONS file naming sstfilter.Cuckoo:12 and
#      checks the DB's OPTIONS file and SSTs, then ldb and a short db_stress.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(realpath -m "${1:-$root/build/rocksdb-plugin}")"
jobs="$(nproc)"
bash "$root/tools/setup.sh"

rocksdb_version="$(dpkg-query -W -f='${Version}' librocksdb-dev)"
rocksdb_version="${rocksdb_version%%-*}"
rocksdb_version="${rocksdb_version#*:}"
rocksdb_src="$root/.deps/rocksdb-$rocksdb_version"
prefix="$work/prefix"
tree="$work/rocksdb-$rocksdb_version"
build="$work/rocksdb-build"
mkdir -p "$work"

step() { echo "== $(date +%T) $*"; }
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

step "1. sstfilter's core into $prefix"
cmake -S "$root" -B "$work/sstfilter-build" -DCMAKE_BUILD_TYPE=Release \
  -DSSTFILTER_WITH_ROCKSDB=OFF >/dev/null
cmake --build "$work/sstfilter-build" -j "$jobs" --target sstfilter_core
cmake --install "$work/sstfilter-build" --prefix "$prefix" >/dev/null

step "2. $tree with plugin/sstfilter"
if [ ! -d "$tree" ]; then
  cp -a "$rocksdb_src" "$tree.tmp"
  mv "$tree.tmp" "$tree"
fi
rm -rf "$tree/plugin/sstfilter"
cp -a "$root/rocksdb_plugin" "$tree/plugin/sstfilter"

step "3. RocksDB with ROCKSDB_PLUGINS=sstfilter ($jobs jobs)"
# RocksDB 7.8.3's own trace_replay.cc trips GCC 12's -Wmaybe-uninitialized,
# so -Werror stays off here (as in Debian's build); the ctest compiles the
# plugin's sources with RocksDB's -Werror.
cmake -S "$tree" -B "$build" -DCMAKE_BUILD_TYPE=Release -DPORTABLE=ON \
  -DFAIL_ON_WARNINGS=OFF \
  -DROCKSDB_PLUGINS=sstfilter -DCMAKE_PREFIX_PATH="$prefix" \
  -DWITH_GFLAGS=ON -DWITH_SNAPPY=ON -DWITH_TESTS=OFF -DWITH_TRACE_TOOLS=OFF \
  -DWITH_LIBURING=OFF -DROCKSDB_BUILD_SHARED=OFF >"$work/configure.log"
grep '^-- PLUGIN sstfilter' "$work/configure.log"
time cmake --build "$build" -j "$jobs" --target db_bench ldb sst_dump db_stress

step "4. the built tools with sstfilter.Cuckoo:12, no LD_PRELOAD"
# Fails unless every SST of DB $1 has a filter of sstfilter.Cuckoo.
expect_cuckoo_ssts() {
  local sst count=0
  for sst in "$1"/*.sst; do
    "$build/tools/sst_dump" --file="$sst" --show_properties |
      grep 'filter policy name: sstfilter.Cuckoo$' >/dev/null ||
      fail "$sst has no sstfilter.Cuckoo filter"
    count=$((count + 1))
  done
  [ "$count" -gt 0 ] || fail "no SST in $1"
  echo "$1: all $count SSTs have filter policy sstfilter.Cuckoo"
}
# Fails unless the latest OPTIONS file of DB $1 names sstfilter.Cuckoo:12.
expect_cuckoo_options() {
  local options
  options="$(ls "$1"/OPTIONS-* | sort | tail -1)"
  grep '^ *filter_policy=' "$options" | sort -u
  grep -q '^ *filter_policy={id=sstfilter.Cuckoo:12;' "$options" ||
    fail "$options does not name sstfilter.Cuckoo:12"
}

db="$work/db"
rm -rf "$db" "$work/stress-db"
cat >"$work/options.ini" <<'EOF'
[Version]
  rocksdb_version=7.8.3
  options_file_version=1.1

[DBOptions]
  create_if_missing=true

[CFOptions "default"]
  write_buffer_size=4194304
  target_file_size_base=4194304

[TableOptions/BlockBasedTable "default"]
  filter_policy=sstfilter.Cuckoo:12
EOF
echo "-- db_bench"
"$build/db_bench" --options_file="$work/options.ini" --db="$db" \
  --benchmarks=fillrandom,readrandom --num=200000 --statistics 2>&1 |
  grep -E '^(fillrandom|readrandom) |bloom.filter.(useful|full)'
expect_cuckoo_options "$db"
expect_cuckoo_ssts "$db"

echo "-- ldb compact"
"$build/tools/ldb" --db="$db" --try_load_options compact
expect_cuckoo_ssts "$db"

echo "-- db_stress"
"$build/db_stress_tool/db_stress" --options_file="$work/options.ini" \
  --db="$work/stress-db" --destroy_db_initially=1 --threads=2 \
  --ops_per_thread=20000 --max_key=100000 --reopen=1 \
  --read_fault_one_in=0 --clear_column_family_one_in=0 2>&1 |
  grep -E 'Verification|Got errors'
expect_cuckoo_options "$work/stress-db"
expect_cuckoo_ssts "$work/stress-db"
step "done"
