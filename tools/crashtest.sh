#!/usr/bin/env bash
# tools/crashtest.sh: RocksDB's own crash test (tools/db_crashtest.py, with
# its db_stress) with sstfilter's policies.
#
#   tools/crashtest.sh [--rocksdb-build DIR] [--duration S] [--interval S]
#                      [--modes "blackbox whitebox"] [--configs N]
#                      [--policy ID] [--kill-odd N] [--work DIR]
#                      [-- DB_CRASHTEST_ARGS...]
#
# For each configuration (a policy, partitioned filters or not, a prefix
# extractor or not) and each mode, db_crashtest.py runs db_stress from the
# RocksDB built with the plugin compiled in (default: the cache folder of
# tools/build_rocksdb_with_plugin.sh) on an OPTIONS file that names the
# policy, for --duration seconds:
#   blackbox  kills db_stress with SIGKILL every --interval seconds;
#   whitebox  lets db_stress kill itself at random kill points inside
#             RocksDB (flush, compaction, file and MANIFEST writes).
# Kill points exist only in a db_stress built without NDEBUG. The default
# build is Release: there whitebox would only run db_stress to the end of
# its ops (no kills, and past --duration), so the driver skips whitebox
# and says so, and pins read-fault injection (also debug-only) off. The
# --tsan build of build_rocksdb_with_plugin.sh has no NDEBUG: with
#   --rocksdb-build "$(bash tools/build_rocksdb_with_plugin.sh --tsan --print-dir)"
# whitebox runs (and read faults are injected), under ThreadSanitizer.
# After every kill db_stress reopens the DB and verifies it against its
# expected state; db_crashtest.py fails on any verification error. Since
# db_stress silently substitutes its own Bloom filter for a policy the
# OPTIONS file fails to create, a short db_stress run first checks with
# sst_dump that its SSTs carry the policy's filter.
#
# db_stress builds every DB option from the OPTIONS file when given one, so
# the file also carries small write buffers and files (flushes and
# compactions, so filter construction, all the time). The flags that would
# swap the policy or depend on options the file sets are pinned:
#   --set_options_one_in=0  (SetOptions would switch to RocksDB's filters)
#   --prefix_size           (the OPTIONS file's prefix extractor length)
#   --use_multiscan=0       (db_crashtest.py turns --prefix_size to -1 when
#                            it picks use_multiscan=1, one run in four; then
#                            db_stress's verification Seeks once and calls
#                            Next across the file's 8-byte prefixes in
#                            prefix mode, which RocksDB leaves undefined: an
#                            L0 file whose filter rules out the first
#                            prefix is skipped, whatever filter it has.
#                            Found on 2026-11-23 as "Iterator verification:
#                            Value not found" after a kill; every filter in
#                            that DB matched the key and its prefix. After
#                            each run the driver checks that db_stress ran
#                            with the OPTIONS file's prefix length.)
#   --disable_wal=0, --enable_blob_files=0, --enable_blob_direct_write=0
#                           (db_crashtest.py's WAL-less profiles expect DB
#                            options, e.g. atomic_flush, that the file does
#                            not set)
#   --use_merge=0, --use_full_merge_v1=0, --enable_compaction_filter=0,
#   --inplace_update_support=0, --unordered_write=0
#                           (db_stress sets the merge operator, compaction
#                            filter and these options only from flags)
# --kill-odd N is whitebox's chance of a kill at each kill point, 1 in N
# (db_crashtest.py's --random_kill_odd, default 888887). Under
# ThreadSanitizer db_stress runs some 10x slower, so at the default a
# db_stress run can pass a short --duration before it reaches a kill.
# Arguments after -- go to db_crashtest.py as they are, after the pinned
# ones. Under ThreadSanitizer, whitebox's second half (runs without kills,
# each of --ops_per_thread ops on --threads threads, 200000 x 32 by
# default) would run into db_crashtest.py's own timeout of --duration plus
# 15 minutes; the TSan whitebox run of the README passes
#   -- --ops_per_thread=2000 --threads=8
# (a kill run does 100 x ops_per_thread per thread, until a kill point
# fires).
# --policy ID replaces the policy of every configuration, e.g. RocksDB's own
# bloomfilter:10 as a control run of this driver.
#
# Short (the ctest rocksdb_crashtest_short, blackbox, ~4 min):
#   tools/crashtest.sh --duration 40 --interval 10 --configs 3
# Soak (6 configurations x 10 min blackbox = 1 hour; whitebox needs the
# --tsan build, above):
#   tools/crashtest.sh --duration 600 --interval 30
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rocksdb_build=""
duration=40
interval=10
modes="blackbox whitebox"
num_configs=6
work=""
policy_override=""
kill_odd_flags=()
extra_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rocksdb-build) rocksdb_build="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --interval) interval="$2"; shift 2 ;;
    --modes) modes="$2"; shift 2 ;;
    --configs) num_configs="$2"; shift 2 ;;
    --policy) policy_override="$2"; shift 2 ;;
    --kill-odd) kill_odd_flags=(--random_kill_odd="$2"); shift 2 ;;
    --) shift; extra_args=("$@"); break ;;
    --work) work="$2"; shift 2 ;;
    *) sed -n '2,51p' "$0" >&2; exit 2 ;;
  esac
done
[ -n "$rocksdb_build" ] ||
  rocksdb_build="$(bash "$root/tools/build_rocksdb_with_plugin.sh" --print-dir)"
db_stress="$rocksdb_build/build/db_stress_tool/db_stress"
sst_dump="$rocksdb_build/build/tools/sst_dump"
crashtest="$rocksdb_build/src/tools/db_crashtest.py"
for file in "$db_stress" "$sst_dump" "$crashtest"; do
  [ -e "$file" ] || { echo "crashtest: no $file" >&2; exit 2; }
done
version="$(basename "$rocksdb_build" | sed -n 's/^rocksdb-\([0-9.]*\)-.*/\1/p')"
python="$(command -v python3)"
release_flags=()
# Built with NDEBUG? The flags of its build type say (the --tsan flavour of
# build_rocksdb_with_plugin.sh is RelWithDebInfo without NDEBUG).
build_type="$(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$rocksdb_build/build/CMakeCache.txt" 2>/dev/null)"
type_flags="$(sed -n "s/^CMAKE_CXX_FLAGS_${build_type^^}:STRING=//p" "$rocksdb_build/build/CMakeCache.txt" 2>/dev/null)"
if [ -z "$build_type" ] || [[ "$type_flags" == *NDEBUG* ]]; then
  release_flags=(--read_fault_one_in=0 --metadata_read_fault_one_in=0)
  if [[ " $modes " == *" whitebox "* ]]; then
    echo "crashtest: SKIPPED whitebox: $db_stress is a release build, without" \
      "kill points; use the build of build_rocksdb_with_plugin.sh --tsan" \
      "(--rocksdb-build \"\$(tools/build_rocksdb_with_plugin.sh --tsan --print-dir)\")"
  fi
  modes="${modes//whitebox/}"
fi
if [ -z "$work" ]; then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"

# policy|partitioned (0/1)|prefix length (-1: no prefix extractor)
configs=(
  "sstfilter.BlockedBloom:10|0|-1"
  "sstfilter.Cuckoo:12|1|8"
  "sstfilter.Hybrid:10:1|0|8"
  "sstfilter.BlockedBloom:10|1|5"
  "sstfilter.Cuckoo:12|0|-1"
  "sstfilter.Hybrid:10:2|1|-1"
)

# Did every db_stress run of LOG take the OPTIONS file's prefix length?
# (db_crashtest.py rewrites some flags it was given; see --use_multiscan.)
check_prefix_size() {
  local log="$1" prefix="$2" other
  [ "$prefix" -gt 0 ] || return 0
  other="$(grep -E '^Running' "$log" | grep -oE -- '--prefix_size=-?[0-9]+' |
    grep -vx -- "--prefix_size=$prefix" | sort -u | tr '\n' ' ')"
  [ -z "$other" ] && return 0
  echo "FAIL: db_crashtest.py ran db_stress with ${other}but the OPTIONS file's" \
    "prefix extractor is $prefix bytes: its verification would then iterate" \
    "across prefixes in prefix mode, which RocksDB leaves undefined"
  return 1
}

start=$SECONDS
runs=0
for ((c = 0; c < num_configs && c < ${#configs[@]}; ++c)); do
  IFS='|' read -r policy partitioned prefix <<<"${configs[c]}"
  policy="${policy_override:-$policy}"
  options="$work/options-$c.ini"
  {
    echo "[Version]"
    echo "  rocksdb_version=${version:-11.8.1}"
    echo "  options_file_version=1.1"
    echo "[DBOptions]"
    echo "  create_if_missing=true"
    echo "  max_background_jobs=4"
    echo "[CFOptions \"default\"]"
    echo "  write_buffer_size=262144"
    echo "  target_file_size_base=262144"
    echo "  max_bytes_for_level_base=1048576"
    echo "  level0_file_num_compaction_trigger=2"
    [ "$prefix" -gt 0 ] && echo "  prefix_extractor=rocksdb.FixedPrefix.$prefix"
    echo "[TableOptions/BlockBasedTable \"default\"]"
    echo "  filter_policy=$policy"
    if [ "$partitioned" = 1 ]; then
      echo "  index_type=kTwoLevelIndexSearch"
      echo "  partition_filters=true"
      echo "  metadata_block_size=1024"
    fi
  } >"$options"
  probe="$work/probe-$c"
  mkdir -p "$probe"
  "$db_stress" --options_file="$options" --db="$probe/db" \
    --expected_values_dir="$probe/expected" --destroy_db_initially=1 \
    --threads=1 --ops_per_thread=5000 --max_key=10000 --reopen=0 \
    --set_options_one_in=0 --prefix_size="$prefix" --prefixpercent=0 \
    --readpercent=30 --clear_column_family_one_in=0 \
    --read_fault_one_in=0 --metadata_read_fault_one_in=0 \
    --metadata_write_fault_one_in=0 --flush_one_in=1000 >"$probe.log" 2>&1 ||
    { tail -5 "$probe.log"; echo "FAIL: db_stress probe of $policy"; exit 1; }
  sst="$(find "$probe/db" -name '*.sst' | head -1)"
  [ -n "$sst" ] && "$sst_dump" --file="$sst" --show_properties |
    grep -q "filter policy name: ${policy%%:*}\$" ||
    { echo "FAIL: db_stress did not build ${policy%%:*} filters"; exit 1; }
  rm -rf "$probe"
  for mode in $modes; do
    name="$mode $policy partitioned=$partitioned prefix=$prefix"
    mkdir -p "$work/tmp-$c-$mode"
    log="$work/crashtest-$c-$mode.log"
    if ! TEST_TMPDIR="$work/tmp-$c-$mode" "$python" "$crashtest" "$mode" \
        --stress_cmd="$db_stress" --duration="$duration" \
        --interval="$interval" --options_file="$options" \
        --set_options_one_in=0 --prefix_size="$prefix" --use_multiscan=0 --disable_wal=0 \
        --enable_blob_files=0 --enable_blob_direct_write=0 --use_merge=0 \
        --use_full_merge_v1=0 --enable_compaction_filter=0 \
        --inplace_update_support=0 --unordered_write=0 --max_key=100000 \
        "${release_flags[@]}" $([ "$mode" = whitebox ] && echo "${kill_odd_flags[@]}") \
        "${extra_args[@]}" >"$log" 2>&1; then
      tail -30 "$log"
      check_prefix_size "$log" "$prefix" || true  # names the cause, if it is this
      echo "FAIL: crash test $name (log: $log)"
      trap - EXIT
      exit 1
    fi
    check_prefix_size "$log" "$prefix" || { trap - EXIT; exit 1; }
    if [ "$mode" = whitebox ]; then
      # One "check_mode=M, kill option=K, exitcode=E" line per db_stress run;
      # a negative exit code is a kill at a kill point (exit 0: the run
      # reached its last op first). A run that reopens a killed run's DB
      # first checks it against the expected state ("Crash-recovery
      # verification passed"); after half of --duration, db_crashtest.py
      # starts each run on a new DB.
      runs_of_db_stress=$(grep -c '^check_mode=' "$log" || true)
      kills=$(grep -cE '^check_mode=.*exitcode=-' "$log" || true)
      recovered=$(grep -c 'Crash-recovery verification passed' "$log" || true)
      echo "ok: crash test $name, $duration s, $runs_of_db_stress db_stress runs" \
        "($kills killed at a kill point), $recovered crash-recovery verifications passed"
    else
      runs_of_db_stress=$(grep -c '^Running db_stress with pid' "$log" || true)
      echo "ok: crash test $name, $duration s, $runs_of_db_stress db_stress runs" \
        "verified after each kill or crash"
    fi
    runs=$((runs + 1))
  done
done
echo "ok: $runs crash-test runs, $((SECONDS - start)) s"
