#!/usr/bin/env bash
# tools/check_plugin_compiles.sh VERSION
# Compiles every translation unit of rocksdb_plugin/ against the headers of
# RocksDB VERSION's release source (tools/rocksdb_source.sh unpacks it once
# into the cache), with the C++ standard that release builds with and
# -Werror: a check that the plugin builds there, without building RocksDB.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="$1"
src="$(bash "$root/tools/rocksdb_source.sh" "$version")"
standard="$(sed -nE 's/^ *set\(CMAKE_CXX_STANDARD ([0-9]+)\).*/\1/p;T;q' "$src/CMakeLists.txt")"
sources=$(sed -n 's/^sstfilter_SOURCES = //p' "$root/rocksdb_plugin/sstfilter.mk")
for source in $sources; do
  c++ -std="c++${standard:-17}" -fsyntax-only -Wall -Wextra -Werror \
    -DROCKSDB_PLATFORM_POSIX -DOS_LINUX \
    -isystem "$src/include" -isystem "$src" \
    -I "$root/filter/include" -I "$root/rocksdb_plugin/include" \
    -I "$root/rocksdb_plugin/src" "$root/rocksdb_plugin/$source"
  echo "compiles against RocksDB $version (C++${standard:-17}): rocksdb_plugin/$source"
done
