#!/usr/bin/env bash
# tools/reliability/kill_test.sh: kill -9 around filter construction.
#
#   tools/reliability/kill_test.sh [--iterations N] [--kills K] [--bin DIR]
#                      [--rocksdb-build DIR] [--seed S] [--work DIR]
#
# Each iteration makes a fresh DB with one configuration (the policies
# BlockedBloom, Cuckoo and Hybrid in turn; partitioned filters and a prefix
# extractor in some) and K times:
#   1. runs sstfilter-crash-writer, which writes synced batches with tiny
#      write buffers, so flushes and compactions build filters all the time,
#      and records every acknowledged batch in a file it fsyncs;
#   2. kills it with SIGKILL after a random 0.2-2 s;
#   3. reopens the DB and checks every acknowledged key with Get and
#      MultiGet, and never-written keys (sstfilter-crash-writer check);
#   4. runs sst_dump --command=verify on every SST of the DB directory and
#      ldb checkconsistency.
# Exits 1 at the first failure (keeping the DB), 0 if all pass.
#
# Binaries: sstfilter-crash-writer from --bin (default build/release/tools).
# ldb and sst_dump: RocksDB's own from --rocksdb-build (the cache folder of
# tools/build_rocksdb_with_plugin.sh, whose tools have the plugin compiled
# in), otherwise sstfilter-ldb and sstfilter-sst-dump from --bin (Debian's
# 7.8.3 with the policies registered).
#
# The test command runs 3 iterations (ctest kill_test_short); the soak is
#   bash tools/reliability/kill_test.sh --iterations 100
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
iterations=3
kills=2
bin="$root/build/release/tools"
rocksdb_build=""
seed="${SSTFILTER_KILL_SEED:-$$}"
work=""
while [ $# -gt 0 ]; do
  case "$1" in
    --iterations) iterations="$2"; shift 2 ;;
    --kills) kills="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    --rocksdb-build) rocksdb_build="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    *) sed -n '2,27p' "$0" >&2; exit 2 ;;
  esac
done
writer="$bin/sstfilter-crash-writer"
if [ -n "$rocksdb_build" ]; then
  ldb="$rocksdb_build/build/tools/ldb"
  sst_dump="$rocksdb_build/build/tools/sst_dump"
else
  ldb="$bin/sstfilter-ldb"
  sst_dump="$bin/sstfilter-sst-dump"
fi
for tool in "$writer" "$ldb" "$sst_dump"; do
  [ -x "$tool" ] || { echo "kill_test: no $tool" >&2; exit 2; }
done
if [ -z "$work" ]; then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
fi
RANDOM=$seed
echo "kill_test: $iterations iterations x $kills kills, seed $seed, in $work"

# Configuration of iteration i: policy, then the writer's extra flags.
configs=(
  "sstfilter.BlockedBloom:10|"
  "sstfilter.Cuckoo:12|--prefix_len 4"
  "sstfilter.Hybrid:10:1|--partitioned"
  "sstfilter.BlockedBloom:10|--partitioned --prefix_len 4"
  "sstfilter.Cuckoo:12|--partitioned"
  "sstfilter.Hybrid:10:2|--prefix_len 4"
)

fail() {
  echo "FAIL: $*"
  trap - EXIT
  echo "kill_test: DB kept in $db"
  exit 1
}

start=$SECONDS
total_keys=0
total_orphans=0
for ((iteration = 0; iteration < iterations; ++iteration)); do
  config="${configs[iteration % ${#configs[@]}]}"
  policy="${config%%|*}"
  read -r -a extra <<<"${config#*|}"
  db="$work/db$iteration"
  rm -rf "$db" "$db.acked"
  for ((kill = 0; kill < kills; ++kill)); do
    "$writer" write --db "$db" --policy "$policy" "${extra[@]}" \
      2>"$work/writer.err" &
    pid=$!
    sleep "$((RANDOM % 19 / 10)).$((2 + RANDOM % 8))"
    kill -0 "$pid" 2>/dev/null ||
      fail "writer exited before the kill: $(cat "$work/writer.err")"
    kill -KILL "$pid"
    wait "$pid" 2>/dev/null || true
    # A kill in the writer's first moments (under ThreadSanitizer it starts
    # slowly) can come before it has created the DB directory.
    before=0
    [ -d "$db" ] && before=$(find "$db" -name '*.sst' | wc -l)
    result="$("$writer" check --db "$db" --policy "$policy" "${extra[@]}" 2>&1)" ||
      fail "$policy ${extra[*]}: $result"
    # What the crash left behind (half-written or obsolete SSTs), which the
    # reopen deleted (the check runs no compaction).
    after=$(find "$db" -name '*.sst' | wc -l)
    orphans=$((before > after ? before - after : 0))
    # (A kill before the first flush leaves no SST, and sst_dump then
    # fails on the empty directory.)
    verified=""
    if [ "$after" -gt 0 ]; then
      verified="$("$sst_dump" --file="$db" --command=verify 2>&1)" ||
        fail "sst_dump verify: $verified"
    fi
    ok=$(grep -c 'The file is ok' <<<"$verified" || true)
    [ "$ok" -eq "$after" ] ||
      fail "sst_dump verified $ok of $after SSTs: $(grep -iv 'ok\|Process\|format' <<<"$verified" | head -5)"
    consistency="$("$ldb" --db="$db" --try_load_options checkconsistency 2>&1)" ||
      fail "ldb checkconsistency: $consistency"
    [ "$consistency" = "OK" ] || fail "ldb checkconsistency: $consistency"
    keys=$(sed -n 's/^ok: \([0-9]*\) acknowledged.*/\1/p' <<<"$result")
    echo "iteration $iteration kill $kill: $policy ${extra[*]}: $result;" \
      "$orphans SSTs left by the kill; sst_dump verify and ldb checkconsistency OK"
    total_orphans=$((total_orphans + orphans))
    total_keys=$((total_keys + keys))
  done
done
echo "ok: $iterations iterations, $((iterations * kills)) kills, $total_keys" \
  "acknowledged-key checks (each by Get and MultiGet), $total_orphans SSTs" \
  "left by the kills, $((SECONDS - start)) s"
