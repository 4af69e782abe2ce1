#!/usr/bin/env bash
# tests/rocksdb_db_stress_smoke.sh ROCKSDB_BUILD POLICY
# RocksDB's own db_stress, built with the plugin compiled in, on a DB whose
# OPTIONS file names POLICY: a few seconds of mixed reads and writes with
# reopens, verified by db_stress against its expected state; then every SST
# must carry POLICY's filter (sst_dump) and pass sst_dump's verify.
# --continuous_verification_interval=0, as in tools/db_crashtest.py's
# defaults: db_stress's verification thread reads its DB pointer while
# --reopen replaces it, a race in db_stress itself that ThreadSanitizer
# (tools/tsan.sh) reports.
set -euo pipefail
build="$1/build"
policy="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat >"$work/options.ini" <<OPTIONS
[Version]
  rocksdb_version=11.8.1
  options_file_version=1.1
[DBOptions]
  create_if_missing=true
[CFOptions "default"]
  write_buffer_size=1048576
  target_file_size_base=1048576
  max_bytes_for_level_base=4194304
[TableOptions/BlockBasedTable "default"]
  filter_policy=$policy
OPTIONS
"$build/db_stress_tool/db_stress" --options_file="$work/options.ini" \
  --db="$work/db" --expected_values_dir="$work/expected" \
  --destroy_db_initially=1 --threads=2 --ops_per_thread=20000 \
  --max_key=50000 --reopen=2 --read_fault_one_in=0 --metadata_read_fault_one_in=0 \
  --metadata_write_fault_one_in=0 --continuous_verification_interval=0 \
  --clear_column_family_one_in=0 >"$work/stress.log" 2>&1 || {
  tail -20 "$work/stress.log"
  echo "FAIL: db_stress with $policy"
  exit 1
}
grep -E 'Verification|Got errors' "$work/stress.log" || true
if grep -qiE 'Verification failed|Got errors [1-9]|Corruption' "$work/stress.log" ||
   ! grep -q 'Verification successful' "$work/stress.log"; then
  echo "FAIL: db_stress reported errors"
  exit 1
fi
name="${policy%%:*}"
count=0
for sst in "$work"/db/*.sst; do
  [ -e "$sst" ] || continue
  properties="$("$build/tools/sst_dump" --file="$sst" --show_properties)"
  grep -q "filter policy name: $name\$" <<<"$properties" ||
    { echo "FAIL: $sst has no $name filter"; exit 1; }
  "$build/tools/sst_dump" --file="$sst" --command=verify | grep -q 'The file is ok' ||
    { echo "FAIL: sst_dump verify $sst"; exit 1; }
  count=$((count + 1))
done
[ "$count" -gt 0 ] || { echo "FAIL: db_stress left no SST"; exit 1; }
echo "ok: db_stress with $policy, $count SSTs with its filter, all verified"
