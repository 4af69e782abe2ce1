#!/usr/bin/env bash
# tools/reliability/crashtest.sh: RocksDB's own crash test
# (tools/db_crashtest.py, with its db_stress) with sstfilter's policies.
#
#   tools/reliability/crashtest.sh [--rocksdb-build DIR] [--duration S]
#                      [--interval S] [--modes "blackbox whitebox"]
#                      [--configs N] [--policy ID] [--kill-odd N] [--work DIR]
#                      [--switch [--policies "ID ID..."] [--seed N]]
#                      [-- DB_CRASHTEST_ARGS...]
#
# For each configuration (a policy, partitioned filters or not, a prefix
# extractor or not) and each mode, db_crashtest.py runs db_stress from the
# RocksDB built with the plugin compiled in (default: the cache folder of
# tools/build_rocksdb_with_plugin.sh) on an OPTIONS file that names the
# policy, for --duration seconds:
#   blackbox  kills db_stress every --interval seconds (11.8.1: SIGTERM,
#             whose handler in db_stress re-raises it, dying at once);
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
#                            Found as "Iterator verification:
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
# --switch: a live DB switched between filter families. For each
# configuration (its partitioned filters and prefix extractor; its policy
# is not used) one DB goes through --policies in turn (default:
# bloomfilter:10, each sstfilter policy, bloomfilter:10 again: adoption,
# switches between ours, rollback): a blackbox db_crashtest.py run of
# --duration per policy, all on the same --db and --expected_values_dir,
# each with an OPTIONS file naming its policy. At each switch, before the
# new phase writes, the previous phase's last db_stress command (its
# verification-only run) runs again on the new OPTIONS file: the whole DB
# the old policy left, verified against the expected state under the new
# one. Then every run of the phase verifies the DB when it opens it (a
# failure goes to stderr, which fails db_crashtest.py), and the phase ends
# with db_crashtest.py's own verification-only run. To carry the DB over:
# db_crashtest.py destroys its DB after a success, so --stress_cmd is a
# wrapper that skips --destroy_db_and_exit; one
# --initial_random_seed_override (--seed N, default random, printed) for
# every phase keeps the parameters db_crashtest.py draws once per process,
# such as the key lengths, the same in all; --test_batches_snapshots=0 (its
# batched mode has no expected state to verify);
# --compressed_secondary_cache_size=0 (below). After each phase some of
# the DB's SSTs must carry the phase's filter; the filters the DB held at
# each switch are printed. Whitebox is skipped: its second half starts
# every run on a new DB.
#
# Short (the ctest rocksdb_crashtest_short, blackbox, ~4 min; the first
# three configurations, LevelAware's three choices, with the listener every
# configuration has, and portable's under a memory limit so small that
# levels get no filter; BlockedBloom, Cuckoo and Hybrid run in the switch
# test below):
#   tools/reliability/crashtest.sh --duration 30 --interval 10 --configs 3
# Soak (9 configurations x 10 min blackbox = 1.5 hours; whitebox needs the
# --tsan build, above):
#   tools/reliability/crashtest.sh --duration 600 --interval 30 --configs 9
# Switch, short (the ctest rocksdb_crashtest_switch_short, ~3 min) and soak
# (6 configurations x 7 phases of 2 min, ~90 min):
#   tools/reliability/crashtest.sh --switch --duration 15 --interval 8 --configs 1
#   tools/reliability/crashtest.sh --switch --duration 120 --interval 30
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
rocksdb_build=""
duration=40
interval=10
modes="blackbox whitebox"
num_configs=6
work=""
policy_override=""
switch=0
switch_policies="bloomfilter:10 sstfilter.BlockedBloom:10 sstfilter.Cuckoo:12 sstfilter.Hybrid:10:1 sstfilter.LevelAware:10 sstfilter.LevelAware:10:portable bloomfilter:10"
seed=""
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
    --switch) switch=1; shift ;;
    --policies) switch_policies="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --kill-odd) kill_odd_flags=(--random_kill_odd="$2"); shift 2 ;;
    --) shift; extra_args=("$@"); break ;;
    --work) work="$2"; shift 2 ;;
    *) sed -n '2,/^set -euo/{/^set/!p}' "$0" >&2; exit 2 ;;
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
  "sstfilter.LevelAware:10|0|8"
  "sstfilter.LevelAware:10:portable:memory_limit=16K|1|-1"
  "sstfilter.LevelAware:10:cpu_lean|0|5"
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

# Says FAIL: MESSAGE and exits, keeping the work directory for its logs.
fail() {
  echo "FAIL: $*"
  trap - EXIT
  exit 1
}

# The OPTIONS file of POLICY in a configuration, to FILE.
write_options() {
  local file="$1" policy="$2" partitioned="$3" prefix="$4"
  {
    echo "[Version]"
    echo "  rocksdb_version=${version:-11.8.1}"
    echo "  options_file_version=1.1"
    echo "[DBOptions]"
    echo "  create_if_missing=true"
    echo "  max_background_jobs=4"
    echo "  listeners={sstfilter.LevelAwareListener}"
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
  } >"$file"
}

# db_crashtest.py MODE on OPTIONS (prefix length PREFIX) with the pinned
# flags, then ARGS, into LOG; on a failure, says so with NAME and exits.
run_crashtest() {
  local mode="$1" options="$2" prefix="$3" log="$4" name="$5" tmp
  shift 5
  tmp="${log%.log}.tmp"
  mkdir -p "$tmp"
  if ! TEST_TMPDIR="$tmp" "$python" "$crashtest" "$mode" \
      --duration="$duration" --interval="$interval" --options_file="$options" \
      --set_options_one_in=0 --prefix_size="$prefix" --use_multiscan=0 --disable_wal=0 \
      --enable_blob_files=0 --enable_blob_direct_write=0 --use_merge=0 \
      --use_full_merge_v1=0 --enable_compaction_filter=0 \
      --inplace_update_support=0 --unordered_write=0 --max_key=100000 \
      "${release_flags[@]}" $([ "$mode" = whitebox ] && echo "${kill_odd_flags[@]}") \
      "$@" "${extra_args[@]}" >"$log" 2>&1; then
    tail -30 "$log"
    check_prefix_size "$log" "$prefix" || true  # names the cause, if it is this
    fail "crash test $name (log: $log)"
  fi
  check_prefix_size "$log" "$prefix" || { trap - EXIT; exit 1; }
}

# The filter policy name of each SST in DIR, one per line.
sst_policies() {
  local sst
  for sst in "$1"/*.sst; do
    if [ -e "$sst" ]; then
      "$sst_dump" --file="$sst" --show_properties |
        sed -n 's/^ *filter policy name: //p'
    fi
  done
}
# "3 bloomfilter, 5 sstfilter.Cuckoo"
tally() { sort | uniq -c | awk '{printf "%s%d %s", (NR > 1 ? ", " : ""), $1, $2}'; }

# The switch's verification: the verification-only db_stress run that
# ended the phase of LOG, again on OPTIONS, the next phase's policy, before
# that phase writes (db_crashtest.py prints each command with its values
# shell-quoted). The whole DB must pass; output into OUT.
verify_switch() {
  local log="$1" options="$2" out="$3" line i
  line="$(sed -n 's/^Running db_stress with pid=[0-9]*: //p' "$log" | tail -1)"
  if [[ "$line" != *" --verification_only=1"* ]]; then
    fail "no verification-only run at the end of $log"
  fi
  eval "local -a command=($line)"
  for i in "${!command[@]}"; do
    if [[ "${command[i]}" == --options_file=* ]]; then
      command[i]="--options_file=$options"
    fi
  done
  mkdir -p "${out%.log}.tmp"
  if ! TEST_TMPDIR="${out%.log}.tmp" "${command[@]}" >"$out" 2>"$out.stderr" ||
     [ -s "$out.stderr" ] ||
     ! grep -q 'Crash-recovery verification passed' "$out" ||
     ! grep -q 'Verification successful' "$out"; then
    tail -20 "$out" "$out.stderr"
    fail "verification of the DB at the switch to $options (log: $out)"
  fi
}

# --switch for one configuration: one DB through $switch_policies.
run_switch() {
  local c="$1" partitioned="$2" prefix="$3" db expected phase=0
  local previous="" previous_log policy name before after options log
  local runs_of_db_stress
  db="$work/switch-$c/db"
  expected="$work/switch-$c/expected"
  mkdir -p "$expected"
  for policy in $switch_policies; do
    phase=$((phase + 1))
    name="switch $previous${previous:+ -> }$policy partitioned=$partitioned prefix=$prefix"
    options="$work/options-$c-$phase.ini"
    write_options "$options" "$policy" "$partitioned" "$prefix"
    before=""
    if [ -n "$previous" ]; then
      before="$(sst_policies "$db" | tally)"
      verify_switch "$previous_log" "$options" "$work/verify-$c-$phase.log"
    fi
    log="$work/crashtest-$c-switch-$phase.log"
    # No compressed secondary cache: db_stress's thread that resizes it
    # sleeps 30 s and 10 s in turn, and every run that ends, as the
    # verification-only ones do, waits for it to wake.
    run_crashtest blackbox "$options" "$prefix" "$log" "$name" \
      --stress_cmd="$keep_db" --db="$db" --expected_values_dir="$expected" \
      --initial_random_seed_override="$seed" --test_batches_snapshots=0 \
      --compressed_secondary_cache_size=0
    runs_of_db_stress=$(grep -c '^Running db_stress with pid' "$log" || true)
    after="$(sst_policies "$db")"
    if ! grep -qx "${policy%%:*}" <<<"$after"; then
      fail "crash test $name: no SST with the ${policy%%:*} filter (log: $log)"
    fi
    echo "ok: crash test $name, $duration s, $runs_of_db_stress db_stress runs" \
      "verified${before:+, and the DB of the switch ($before) verified first};" \
      "after: $(tally <<<"$after")"
    runs=$((runs + 1))
    previous="$policy"
    previous_log="$log"
  done
}

start=$SECONDS
runs=0
if [ "$switch" = 1 ]; then
  if [[ " $modes " == *" whitebox "* ]]; then
    echo "crashtest: SKIPPED whitebox in --switch: its second half starts each run on a new DB"
  fi
  seed="${seed:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}"
  echo "crashtest: --switch through: $switch_policies (--seed $seed)"
  # db_crashtest.py's cleanup after a success would destroy the DB.
  keep_db="$work/db_stress_keeping_the_db"
  {
    echo '#!/usr/bin/env bash'
    echo 'for arg; do [ "$arg" = --destroy_db_and_exit=1 ] && exit 0; done'
    echo "exec \"$db_stress\" \"\$@\""
  } >"$keep_db"
  chmod +x "$keep_db"
fi
for ((c = 0; c < num_configs && c < ${#configs[@]}; ++c)); do
  IFS='|' read -r policy partitioned prefix <<<"${configs[c]}"
  if [ "$switch" = 1 ]; then
    run_switch "$c" "$partitioned" "$prefix"
    continue
  fi
  policy="${policy_override:-$policy}"
  options="$work/options-$c.ini"
  write_options "$options" "$policy" "$partitioned" "$prefix"
  probe="$work/probe-$c"
  mkdir -p "$probe"
  TEST_TMPDIR="$probe" "$db_stress" --options_file="$options" --db="$probe/db" \
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
    log="$work/crashtest-$c-$mode.log"
    run_crashtest "$mode" "$options" "$prefix" "$log" "$name" \
      --stress_cmd="$db_stress"
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
