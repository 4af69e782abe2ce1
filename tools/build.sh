#!/usr/bin/env bash
# Configures and builds sstfilter (Release) into build/release after setup.
#   tools/build.sh [extra cmake -D options]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/tools/setup.sh"
cmake -S "$root" -B "$root/build/release" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$root/build/release" -j "$(nproc)"
