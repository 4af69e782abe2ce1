#!/usr/bin/env bash
# The main job: set up, build, and run the demo.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/tools/build.sh"
"$root/build/release/tools/sstfilter-filter-demo" "$@"
