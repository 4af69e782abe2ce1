#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) into build/fuzz and
# runs them:
#   tools/reliability/fuzz.sh [SECONDS]
#       each fuzzer for SECONDS of wall time (default 30): the CI run, which
#       keeps nothing it finds but a crash;
#   tools/reliability/fuzz.sh --soak CPU_SECONDS [NAME...]
#       each named fuzzer (filter, sst, options, range; default all) until its
#       process has used CPU_SECONDS of CPU time (read from /proc/PID/stat:
#       on a shared machine wall time is not CPU time), two at a time, at
#       nice 19. Its corpus stays in build/fuzz/corpus-NAME for the next
#       run; at the end it is minimized into build/fuzz/corpus-NAME-min,
#       which is what tests/fuzz/corpus/NAME holds when it is small.
# Every run starts from the seeds (make_seeds.cc's filters and the golden
# filters, tests/fuzz/options_seeds.txt) and tests/fuzz/corpus/NAME.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dir="$root/build/fuzz"
all=(filter sst options range)

soak=""
if [ "${1:-}" = "--soak" ]; then
  soak="${2:?usage: tools/reliability/fuzz.sh --soak CPU_SECONDS [NAME...]}"
  shift 2
  if [ "$#" -gt 0 ]; then names=("$@"); else names=("${all[@]}"); fi
else
  seconds="${1:-30}"
  names=("${all[@]}")
fi

bash "$root/tools/setup.sh" >/dev/null
# With the plugin, for the options fuzzer, which links Debian's librocksdb.
CXX=clang++ cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSSTFILTER_FUZZ=ON -DSSTFILTER_SANITIZE=ON -DSSTFILTER_WITH_ROCKSDB=ON >/dev/null
targets=(sstfilter_fuzz_seeds)
for name in "${names[@]}"; do targets+=("sstfilter_${name}_fuzzer"); done
nice -n 19 cmake --build "$dir" -j "$(nproc)" --target "${targets[@]}"

# Seeds, written afresh each run.
seeds="$dir/seeds"
rm -rf "$seeds"
mkdir -p "$seeds/filter" "$seeds/options"
"$dir/tests/fuzz/sstfilter_fuzz_seeds" "$seeds/filter" >/dev/null
grep -v '^#' "$root/tests/fuzz/options_seeds.txt" | while IFS= read -r seed; do
  printf '%s' "$seed" >"$seeds/options/$(printf '%s' "$seed" | sha1sum | cut -c1-40)"
done

# The flags and input directories of fuzzer NAME.
fuzzer_args() {
  local name="$1" committed="$root/tests/fuzz/corpus/$1"
  case "$name" in
    filter | sst) echo "$seeds/filter $root/tests/golden/v1" ;;
    options) echo "-dict=$root/tests/fuzz/options.dict $seeds/options" ;;
    range) ;;  # it builds its own filters from the input
  esac
  if [ -d "$committed" ]; then echo "$committed"; fi
}

# The last coverage line of a libFuzzer log: "cov: N ft: N corp: N/SIZE".
coverage() {
  grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[0-9]+[a-zA-Z]*' "$1" | tail -n 1
}

stat_of() { sed -nE "s/^stat::$2: *//p" "$1" | tail -n 1; }

# CPU seconds used so far by process PID (user + system).
cpu_seconds() {
  local fields
  fields="$(sed -E 's/^.*\) //' "/proc/$1/stat" 2>/dev/null)" || return 1
  # After "pid (comm) ", utime and stime are fields 12 and 13.
  awk -v tick="$(getconf CLK_TCK)" '{ printf "%d\n", ($12 + $13) / tick }' <<<"$fields"
}

# Runs fuzzer NAME until it has used $soak CPU seconds; prints its summary.
soak_one() {
  local name="$1" fuzzer="$dir/tests/fuzz/sstfilter_$1_fuzzer"
  local corpus="$dir/corpus-$name" artifacts="$dir/artifacts-$name/"
  local log="$dir/soak-$name.log" used=0 pid rc=0
  mkdir -p "$corpus" "$artifacts"
  # shellcheck disable=SC2046 # fuzzer_args is a list of words
  nice -n 19 "$fuzzer" -print_final_stats=1 -artifact_prefix="$artifacts" \
    "$corpus" $(fuzzer_args "$name") >"$log" 2>&1 &
  pid=$!
  echo "soak: $name started, pid $pid, log $log"
  while kill -0 "$pid" 2>/dev/null; do
    used="$(cpu_seconds "$pid" || echo "$used")"
    if [ "$used" -ge "$soak" ]; then
      kill -INT "$pid"  # libFuzzer prints its final stats and exits (72)
      break
    fi
    sleep 10
  done
  wait "$pid" || rc=$?
  local crash="none"
  if [ "$rc" != 0 ] && [ "$rc" != 72 ]; then
    crash="$(sed -nE 's/.*Test unit written to (.*)$/\1/p' "$log" | tail -n 1)"
    crash="exit $rc, reproducer ${crash:-not written; see $log}"
  fi
  # The fewest inputs that add to the seeds' coverage what the corpus adds:
  # the seeds go in first, and are taken out again after the merge.
  local min="$corpus-min" input
  rm -rf "$min"
  mkdir -p "$min"
  for input in $(fuzzer_args "$name"); do
    if [ -d "$input" ] && [ "$input" != "$root/tests/fuzz/corpus/$name" ]; then
      cp "$input"/* "$min/"
    fi
  done
  local seed_names
  seed_names="$(ls "$min")"
  local committed=()
  [ -d "$root/tests/fuzz/corpus/$name" ] && committed=("$root/tests/fuzz/corpus/$name")
  nice -n 19 "$fuzzer" -merge=1 "$min" "$corpus" "${committed[@]}" \
    >"$dir/merge-$name.log" 2>&1 || true
  (cd "$min" && xargs -r rm -f <<<"$seed_names")
  echo "soak: $name: cpu ${used}s, execs $(stat_of "$log" number_of_executed_units)," \
    "$(coverage "$log"), minimized corpus $(find "$min" -type f | wc -l) files" \
    "$(find "$min" -type f -printf '%s\n' | awk '{ n += $1 } END { print n + 0 }')" \
    "bytes ($min), crashes: $crash"
}

if [ -n "$soak" ]; then
  # Two at a time: this machine has two cores, shared.
  running=0
  for name in "${names[@]}"; do
    if [ "$running" -ge 2 ]; then
      wait -n || true
      running=$((running - 1))
    fi
    soak_one "$name" &
    running=$((running + 1))
  done
  wait
  exit 0
fi

artifacts="$dir/artifacts/"
mkdir -p "$artifacts"
for name in "${names[@]}"; do
  echo "fuzz: $name for ${seconds}s"
  log="$dir/$name.log"
  rm -rf "$dir/short-corpus-$name"
  mkdir -p "$dir/short-corpus-$name"
  # shellcheck disable=SC2046
  if ! "$dir/tests/fuzz/sstfilter_${name}_fuzzer" -max_total_time="$seconds" \
      -print_final_stats=1 -artifact_prefix="$artifacts" \
      "$dir/short-corpus-$name" $(fuzzer_args "$name") >"$log" 2>&1; then
    tail -n 40 "$log"
    echo "fuzz: $name FAILED; reproducer in $artifacts" >&2
    exit 1
  fi
  echo "fuzz: $name: execs $(stat_of "$log" number_of_executed_units), $(coverage "$log")"
done
echo "fuzz: no crash"
