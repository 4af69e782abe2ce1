#!/usr/bin/env bash
# Prints one sha256 over the sources a RocksDB build with the plugin compiled
# in is made from (rocksdb_plugin/ and filter/), so that a build can be
# matched to the sources it must test.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
find rocksdb_plugin filter -type f \( -name '*.cc' -o -name '*.h' -o -name '*.mk' \
  -o -name '*.map' -o -name CMakeLists.txt \) -print0 |
  LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1
