#!/usr/bin/env bash
# The main job: set up, build, then
#   1. sstfilter-db-demo: a real RocksDB per policy (ours and RocksDB's
#      built-in Bloom filter at the same bits/key), side by side;
#   2. sstfilter-filter-demo: the filters alone, without RocksDB.
# Arguments go to sstfilter-db-demo (see its --help).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/tools/build.sh"
"$root/build/release/tools/sstfilter-db-demo" "$@"
echo
"$root/build/release/tools/sstfilter-filter-demo"
