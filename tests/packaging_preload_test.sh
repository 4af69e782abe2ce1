#!/usr/bin/env bash
# Debian's stock RocksDB tools (rocksdb-tools) with libsstfilter_rocksdb.so
# preloaded, as the README shows them:
#   packaging_preload_test.sh LIBRARY CASE
# CASE is one of the functions below; each builds its own DB in a temporary
# directory with db_bench and an OPTIONS file naming sstfilter.Cuckoo:12.
# Exit 77 (ctest SKIP_RETURN_CODE) when the stock tools are not installed.
set -euo pipefail

lib="$1"
case_name="$2"
for tool in db_bench ldb sst_dump readelf nm; do
  command -v "$tool" >/dev/null || { echo "SKIP: no $tool"; exit 77; }
done
work="$(mktemp -d "${TMPDIR:-/tmp}/sstfilter-preload-XXXXXX")"
trap 'rm -rf "$work"' EXIT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# Small memtables and files, so that even a small DB has several SSTs.
cat >"$work/options.ini" <<'EOF'
[Version]
  rocksdb_version=7.8.3
  options_file_version=1.1

[DBOptions]
  create_if_missing=true

[CFOptions "default"]
  write_buffer_size=262144
  target_file_size_base=262144

[TableOptions/BlockBasedTable "default"]
  filter_policy=sstfilter.Cuckoo:12
EOF

# db_bench fillrandom,readrandom into DB $1 with its statistics; "preload"
# as $2 preloads the library. Prints db_bench's output.
db_bench_fill_and_read() {
  local -a env_vars=()
  [ "${2:-}" = preload ] && env_vars=("LD_PRELOAD=$lib")
  env "${env_vars[@]}" db_bench --options_file="$work/options.ini" \
    --db="$1" --benchmarks=fillrandom,readrandom --num=20000 \
    --statistics 2>&1 || fail "db_bench exited with $?"
}

# The filter policy each SST file of DB $1 names, one per line.
sst_filter_policies() {
  local sst
  for sst in "$1"/*.sst; do
    LD_PRELOAD="$lib" sst_dump --file="$sst" --show_properties |
      sed -n 's/^ *filter policy name: //p'
  done
}

ldb_in() {
  LD_PRELOAD="$lib" ldb --db="$1" --try_load_options "${@:2}"
}

# The library depends on the shared librocksdb that the stock tools load
# (it brings no second RocksDB) and exports nothing but the registration.
library_uses_shared_librocksdb_and_exports_only_registration() {
  readelf -d "$lib" | grep 'NEEDED.*\[librocksdb\.so\.' >/dev/null ||
    fail "$lib does not depend on the shared librocksdb"
  local exported
  exported="$(nm -D --defined-only "$lib" | awk '{print $3}')"
  [ "$exported" = RegisterSstfilterPolicies ] ||
    fail "exported symbols: $exported"
}

# With the library, db_bench takes sstfilter.Cuckoo:12 from the OPTIONS
# file: the DB's own OPTIONS file records it, every SST carries it, and
# readrandom's absent keys are rejected by it. Without the library, stock
# db_bench silently drops the unknown policy.
db_bench_builds_and_uses_our_filter() {
  local out
  out="$(db_bench_fill_and_read "$work/db" preload)"
  grep -q '^ *filter_policy={id=sstfilter.Cuckoo:12;' "$work"/db/OPTIONS-* ||
    fail "the DB's OPTIONS file does not name sstfilter.Cuckoo:12"
  local policies
  policies="$(sst_filter_policies "$work/db" | sort -u)"
  [ "$policies" = sstfilter.Cuckoo ] || fail "SST filter policies: $policies"
  local useful
  useful="$(sed -n 's/^rocksdb.bloom.filter.useful COUNT : //p' <<<"$out")"
  [ "${useful:-0}" -gt 0 ] || fail "no lookup was answered by the filter"
  echo "db_bench with the library: bloom.filter.useful = $useful"

  db_bench_fill_and_read "$work/stock" >/dev/null
  grep -q '^ *filter_policy=nullptr' "$work"/stock/OPTIONS-* ||
    fail "stock db_bench kept a filter policy without the library"
}

# With the library, ldb reopens the DB with its OPTIONS file: it reads
# present and absent keys, and a compaction writes our filter again.
ldb_reads_and_compacts_with_our_filter() {
  db_bench_fill_and_read "$work/db" preload >/dev/null
  local first key value
  first="$(ldb_in "$work/db" scan --max_keys=1 --hex)"
  key="${first%% : *}"
  value="${first##* : }"
  [ -n "$key" ] && [ "$key" != "$first" ] || fail "ldb scan printed: $first"
  [ "$(ldb_in "$work/db" get --hex "$key")" = "$value" ] ||
    fail "ldb get $key did not return the scanned value"
  local absent
  absent="$(ldb_in "$work/db" get --hex 0x616273656E74 2>&1 || true)"
  [[ "$absent" == *NotFound* ]] || fail "absent key: $absent"

  ldb_in "$work/db" compact >/dev/null || fail "ldb compact failed"
  local policies
  policies="$(sst_filter_policies "$work/db" | sort -u)"
  [ "$policies" = sstfilter.Cuckoo ] ||
    fail "SST filter policies after ldb compact: $policies"
}

# With the library, sst_dump verifies and reads every table and shows
# the policy that wrote its filter.
sst_dump_reads_our_tables_and_shows_their_policy() {
  db_bench_fill_and_read "$work/db" preload >/dev/null
  local sst count=0
  for sst in "$work"/db/*.sst; do
    LD_PRELOAD="$lib" sst_dump --file="$sst" --command=check \
      --verify_checksum >/dev/null || fail "sst_dump check of $sst failed"
    LD_PRELOAD="$lib" sst_dump --file="$sst" --show_properties |
      grep '^ *filter policy name: sstfilter.Cuckoo$' >/dev/null ||
      fail "sst_dump shows no sstfilter.Cuckoo filter in $sst"
    count=$((count + 1))
  done
  [ "$count" -gt 1 ] || fail "expected several SST files, found $count"
}

"$case_name"
echo "PASS: $case_name"
