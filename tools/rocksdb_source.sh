#!/usr/bin/env bash
# tools/rocksdb_source.sh VERSION [DEST [TARBALL]]
# Makes DEST (default: the cache's src/rocksdb-VERSION) the unpacked release
# source of RocksDB VERSION, once, and prints DEST: a later call with the
# same archive does nothing. The archive is TARBALL, or
# $SSTFILTER_ROCKSDB_TARBALL, or ../shared/deps/rocksdb-VERSION.tar.gz beside
# the clone (checked against its SHA256SUMS), or else GitHub's archive of tag
# vVERSION, downloaded once into $SSTFILTER_CACHE_DIR/downloads.
# DEST.sha256 records the archive's checksum; exit status 0, or 1 with a
# message on stderr.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="$1"
cache="${SSTFILTER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/sstfilter}"
dest="${2:-$cache/src/rocksdb-$version}"
tarball="${3:-${SSTFILTER_ROCKSDB_TARBALL:-}}"
fail() {
  echo "rocksdb_source: $*" >&2
  exit 1
}

if [ -z "$tarball" ] && [ -f "$root/../shared/deps/rocksdb-$version.tar.gz" ]; then
  tarball="$(realpath "$root/../shared/deps/rocksdb-$version.tar.gz")"
fi
if [ -z "$tarball" ]; then
  tarball="$cache/downloads/rocksdb-$version.tar.gz"
  if [ ! -f "$tarball" ]; then
    url="https://github.com/facebook/rocksdb/archive/refs/tags/v$version.tar.gz"
    echo "rocksdb_source: downloading $url" >&2
    mkdir -p "$cache/downloads"
    curl -fsSL "$url" -o "$tarball.part" ||
      fail "could not download $url; give a local archive (SSTFILTER_ROCKSDB_TARBALL)"
    mv "$tarball.part" "$tarball"
  fi
fi
[ -f "$tarball" ] || fail "no RocksDB source archive at $tarball"
name="$(basename "$tarball")"
sums="$(dirname "$tarball")/SHA256SUMS"
if [ -f "$sums" ] && grep -q " $name\$" "$sums"; then
  (cd "$(dirname "$tarball")" && grep " $name\$" SHA256SUMS | sha256sum -c --quiet) ||
    fail "$tarball does not match its checksum in $sums"
fi

sha="$(sha256sum "$tarball" | cut -d' ' -f1)"
if [ "$(cat "$dest.sha256" 2>/dev/null)" != "$sha" ] || [ ! -d "$dest" ]; then
  rm -rf "$dest" "$dest.sha256" "$dest.unpack"
  mkdir -p "$dest.unpack"
  tar xzf "$tarball" -C "$dest.unpack"
  [ -f "$dest.unpack/rocksdb-$version/include/rocksdb/version.h" ] ||
    fail "$tarball does not unpack to rocksdb-$version/"
  mv "$dest.unpack/rocksdb-$version" "$dest"
  rm -rf "$dest.unpack"
  echo "$sha" >"$dest.sha256"
fi
found="$(sed -nE 's/^#define ROCKSDB_(MAJOR|MINOR|PATCH) ([0-9]+).*/\2/p' \
  "$dest/include/rocksdb/version.h" | paste -sd.)"
[ "$found" = "$version" ] || fail "$tarball holds RocksDB $found, not $version"
echo "$dest"
