#!/usr/bin/env bash
# tools/reliability/db_stress_smoke.sh ROCKSDB_BUILD POLICY [POLICY...]
# RocksDB's own db_stress, built with the plugin compiled in, on a DB whose
# OPTIONS file names POLICY: a few seconds of mixed reads and writes with
# reopens, verified by db_stress against its expected state; then every SST
# must carry POLICY's filter (sst_dump) and pass sst_dump's verify.
# With several policies, one db_stress run per policy continues the same DB
# and expected state, e.g. "bloomfilter:10 sstfilter.Cuckoo:12
# bloomfilter:10" for a switch and a rollback: each run first verifies the
# whole DB the previous policy left, read under its own policy; each must
# write SSTs with its own filter, and every SST must carry the filter of
# one of the policies run.
# --continuous_verification_interval=0, as in tools/db_crashtest.py's
# defaults: db_stress's verification thread reads its DB pointer while
# --reopen replaces it, a race in db_stress itself that ThreadSanitizer
# (tools/reliability/tsan.sh) reports.
set -euo pipefail
build="$1/build"
shift
policies=("$@")
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# db_stress's fault-injection logs go there, else to /tmp.
export TEST_TMPDIR="$work"

# The filter policy name of an SST; of each SST in the DB, one per line.
sst_policy() {
  "$build/tools/sst_dump" --file="$1" --show_properties |
    sed -n 's/^ *filter policy name: //p'
}
sst_policies() {
  local sst
  for sst in "$work"/db/*.sst; do
    if [ -e "$sst" ]; then sst_policy "$sst"; fi
  done
}
# "3 bloomfilter, 5 sstfilter.Cuckoo"
tally() { sort | uniq -c | awk '{printf "%s%d %s", (NR > 1 ? ", " : ""), $1, $2}'; }

run=0
for policy in "${policies[@]}"; do
  run=$((run + 1))
  cat >"$work/options.ini" <<OPTIONS
[Version]
  rocksdb_version=11.8.1
  options_file_version=1.1
[DBOptions]
  create_if_missing=true
  listeners={sstfilter.LevelAwareListener}
[CFOptions "default"]
  write_buffer_size=1048576
  target_file_size_base=1048576
  max_bytes_for_level_base=4194304
[TableOptions/BlockBasedTable "default"]
  filter_policy=$policy
OPTIONS
  if [ "$run" -gt 1 ]; then
    echo "switch to $policy, DB holds SSTs of: $(sst_policies | tally)"
  fi
  log="$work/stress-$run.log"
  "$build/db_stress_tool/db_stress" --options_file="$work/options.ini" \
    --db="$work/db" --expected_values_dir="$work/expected" \
    --destroy_db_initially=$([ "$run" = 1 ] && echo 1 || echo 0) \
    --threads=2 --ops_per_thread=20000 \
    --max_key=50000 --reopen=2 --read_fault_one_in=0 --metadata_read_fault_one_in=0 \
    --metadata_write_fault_one_in=0 --continuous_verification_interval=0 \
    --clear_column_family_one_in=0 >"$log" 2>&1 || {
    tail -20 "$log"
    echo "FAIL: db_stress with $policy"
    exit 1
  }
  grep -aoE 'Crash-recovery verification [a-z]+|Verification (successful|failed)|Got errors [0-9]+ times' "$log" || true
  if grep -qiE 'Verification failed|Got errors [1-9]|Corruption' "$log" ||
     ! grep -q 'Crash-recovery verification passed' "$log" ||
     ! grep -q 'Verification successful' "$log"; then
    echo "FAIL: db_stress with $policy reported errors"
    exit 1
  fi
  grep -qx "${policy%%:*}" <<<"$(sst_policies)" ||
    { echo "FAIL: db_stress with $policy wrote no SST with its filter"; exit 1; }
done

count=0
for sst in "$work"/db/*.sst; do
  [ -e "$sst" ] || continue
  name="$(sst_policy "$sst")"
  known=0
  for policy in "${policies[@]}"; do
    [ "$name" = "${policy%%:*}" ] && known=1
  done
  [ "$known" = 1 ] || { echo "FAIL: $sst has filter \"$name\", of no policy run"; exit 1; }
  "$build/tools/sst_dump" --file="$sst" --command=verify | grep -q 'The file is ok' ||
    { echo "FAIL: sst_dump verify $sst"; exit 1; }
  count=$((count + 1))
done
[ "$count" -gt 0 ] || { echo "FAIL: db_stress left no SST"; exit 1; }
echo "ok: db_stress with ${policies[*]}, $count SSTs with their filters" \
  "($(sst_policies | tally)), all verified"
