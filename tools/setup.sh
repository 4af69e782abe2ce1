#!/usr/bin/env bash
# One-time (and idempotent) set-up for sstfilter on a Debian bookworm machine:
#  1. installs the Debian packages the build, tests and tools need;
#  2. fetches Debian's source package of the *installed* rocksdb version into
#     .deps/ (git-ignored), because FilterBitsBuilder/FilterBitsReader live in
#     table/block_based/filter_policy_internal.h, which librocksdb-dev does not
#     ship.
# Safe to run twice; takes about a second when everything is present.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
deps="$root/.deps"

packages=(
  cmake make g++ pkg-config
  librocksdb-dev libsnappy-dev libgflags-dev
  liblz4-dev libzstd-dev     # RocksDB built from source (build_rocksdb_with_plugin.sh)
  curl                       # its release archive, where no local copy is given
  libgtest-dev libgmock-dev libbenchmark-dev libxxhash-dev
  rocksdb-tools
  clang libclang-rt-14-dev   # libFuzzer and sanitizer runtimes
  dpkg-dev                   # dpkg-source, used by apt-get source
  gnuplot-nox                # bench plots
  openjdk-17-jdk-headless    # RocksJava and the Java API (build_rocksdb_with_plugin.sh)
  junit4 libhamcrest-java    # the Java tests; with the three below, the names
  libmockito-java libcglib-java libassertj-core-java  # RocksJava's CMake checks
)

sudo_cmd=()
if [ "$(id -u)" != 0 ]; then sudo_cmd=(sudo); fi

missing=()
for p in "${packages[@]}"; do
  status="$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)"
  [ "$status" = "install ok installed" ] || missing+=("$p")
done

apt_updated=0
apt_update() {
  if [ "$apt_updated" = 0 ]; then
    "${sudo_cmd[@]}" apt-get update -qq
    apt_updated=1
  fi
}

if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  apt_update
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq \
    --no-install-recommends "${missing[@]}"
fi

# The source package must match the installed library exactly.
rocksdb_version="$(dpkg-query -W -f='${Version}' librocksdb-dev)"
upstream="${rocksdb_version%%-*}"
upstream="${upstream#*:}"
src_dir="$deps/rocksdb-$upstream"
header="$src_dir/table/block_based/filter_policy_internal.h"

if [ ! -f "$header" ]; then
  # apt-get source needs a deb-src entry; add one mirroring the deb entries.
  if ! grep -rqs '^Types:.*deb-src\|^deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    echo "setup: adding a deb-src entry for apt-get source"
    src_list=/etc/apt/sources.list.d/sstfilter-deb-src.sources
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
      sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources |
        "${sudo_cmd[@]}" tee "$src_list" >/dev/null
    else
      grep -h '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' |
        "${sudo_cmd[@]}" tee /etc/apt/sources.list.d/sstfilter-deb-src.list >/dev/null
    fi
    apt_updated=0
  fi
  apt_update
  echo "setup: fetching Debian's rocksdb $rocksdb_version source into .deps/"
  rm -rf "$deps/fetch"
  mkdir -p "$deps/fetch"
  (cd "$deps/fetch" && apt-get source -qq "rocksdb=$rocksdb_version" >/dev/null)
  unpacked="$(find "$deps/fetch" -mindepth 1 -maxdepth 1 -type d -name 'rocksdb-*' | head -n 1)"
  [ -n "$unpacked" ] || { echo "setup: apt-get source rocksdb produced no tree" >&2; exit 1; }
  rm -rf "$src_dir"
  mv "$unpacked" "$src_dir"
  rm -rf "$deps/fetch"
  [ -f "$header" ] || { echo "setup: $header missing from the source package" >&2; exit 1; }
fi
echo "setup: ok (rocksdb $rocksdb_version, source in ${src_dir#$root/})"
