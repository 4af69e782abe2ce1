#!/usr/bin/env bash
# Draws sstfilter-range-scans' CSV: data blocks read per empty scan against
# the range's length, one line per way of reading (none, range, prefix,
# minmax), for ranges next to a key and anywhere (uniform query starts).
#   bench/range_scans_plot.sh RESULTS.csv OUT.png
set -euo pipefail
csv="${1:?usage: bench/range_scans_plot.sh RESULTS.csv OUT.png}"
out="${2:?usage: bench/range_scans_plot.sh RESULTS.csv OUT.png}"
command -v gnuplot >/dev/null || {
  echo "range_scans_plot.sh: gnuplot not found (gnuplot-nox)" >&2
  exit 1
}
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
title="$(awk -F, 'NR == 2 { print "RocksDB " $1 ", " $2 " keys" }' "$csv")"
plots=()
for kind in next any; do
  lines=()
  for mode in none range prefix minmax; do
    awk -F, -v k="$kind" -v m="$mode" \
      'NR > 1 && $3 == "uniform" && $4 == k && $6 == m { print $5, ($8 > 0 ? $8 : 0.0005) }' \
      "$csv" >"$tmp/$kind-$mode.dat"
    if [ -s "$tmp/$kind-$mode.dat" ]; then
      lines+=("'$tmp/$kind-$mode.dat' using 1:2 with linespoints title '$mode'")
    fi
  done
  plots+=("set title '$title: empty ranges, $kind'; plot $(IFS=,; echo "${lines[*]}")")
done
gnuplot <<GNUPLOT
set terminal png size 1100,450
set output '$out'
set multiplot layout 1,2
set logscale xy
set xlabel 'range length (integers)'
set ylabel 'data blocks read per scan'
set key bottom right
set grid
${plots[0]}
${plots[1]}
unset multiplot
GNUPLOT
echo "$out"
