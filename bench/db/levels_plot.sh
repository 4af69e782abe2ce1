# bench/db/levels_plot.sh, the driver's scenario levels-plot: the plot of wasted reads per absent Get against
# filter bits/key on multi-level DBs, with the fill's CPU beside it, for
# bloomfilter, ribbonfilter, BlockedBloom, Cuckoo and LevelAware's three
# choices. It runs the scenario levels once per size (--fills 1
# --repeats 1; ribbonfilter's sizes are Bloom-equivalent bits/key, chosen
# to land near the others' memory), collects bits/key, wasted reads and
# fill CPU of every DB into level_aware_plot.csv, and draws
# bench/plots/level_aware.png with gnuplot.
#
# usage: bench/db/db_bench_driver levels-plot [--num N] [--reads N]
#          [--sizes "6 8 10 14"] [--plot PNG] [--replot] [--smoke]
#          [common flags: --rocksdb, --preload, --out]
#   --replot   draw the plot again from OUT's level_aware_plot.csv
#   --smoke    levels --smoke at one size, the plot in OUT
num=2000000; reads=200000; sizes="6 8 10 14"; replot=0; size_flags=()
png="$root/bench/plots/level_aware.png"
while [ $# -gt 0 ]; do
  case "$1" in
    --num) num="$2"; shift ;;
    --reads) reads="$2"; shift ;;
    --sizes) sizes="$2"; shift ;;
    --plot) png="$2"; shift ;;
    --replot) replot=1 ;;
    --smoke) sizes=10; size_flags=(--smoke); png="$out/level_aware.png" ;;
    *) echo "$tool: unknown argument $1 (see bench/db/levels_plot.sh)" >&2; exit 2 ;;
  esac
  shift
done
mkdir -p "$out"
csv="$out/level_aware_plot.csv"
if [ "$replot" = 0 ]; then
  echo "family,policy,bits_per_key,wasted_reads,fill_cpu_s" > "$csv"
  for b in $sizes; do
    # ribbonfilter's Bloom-equivalent bits/key for about b bits/key of Ribbon.
    r=$(awk -v b="$b" 'BEGIN {printf "%g", b * 1.5}')
    # Cuckoo takes 6.251 bits/key at least (4-bit fingerprints reach no load).
    c=$(awk -v b="$b" 'BEGIN {printf "%g", b < 7 ? 7 : b}')
    list="bloomfilter:$b ribbonfilter:$r sstfilter.BlockedBloom:$b sstfilter.Cuckoo:$c sstfilter.LevelAware:$b sstfilter.LevelAware:$b:cpu_lean sstfilter.LevelAware:$b:portable"
    "$here/db_bench_driver" levels --build "$build" ${rocksdb_dir:+--rocksdb "$rocksdb_dir"} \
      --preload "$preload" --num "$num" --reads "$reads" "${size_flags[@]}" --fills 1 --repeats 1 \
      --policies "$list" --out "$out/bits_$b" >/dev/null
    # The table's columns: policy, levels, bytes, x1st, xR, bits/key, wasted, x1st, xR, fill CPU, ...
    awk -F'|' 'NR > 5 && $2 ~ /:/ {
        p = $2; gsub(/ /, "", p); f = p
        sub(/:[0-9.]+/, "", f)
        printf "%s,%s,%s,%s,%s\n", f, p, $7 + 0, $8 + 0, $11 + 0 }' "$out/bits_$b/level_aware.md" >> "$csv"
  done
fi
# One data file per family, by bits/key, so that each is one line.
families=""
for f in $(tail -n +2 "$csv" | cut -d, -f1 | sort -u); do
  grep "^$f," "$csv" | sort -t, -k3 -g | tr ',' ' ' > "$out/family_$f.dat"
  families="$families $f"
done
gnuplot_to "$png" 1200,480 <<GP
set termoption noenhanced
set multiplot layout 1,2 title "Multi-level DBs of $num keys (db_bench filluniquerandom, T = 10, unpaced), one fill per point"
set xlabel "filter bits/key (all SSTs)"
set ylabel "wasted data-block reads per absent Get"
set logscale y
set key top right
set grid
plot for [f in "$families"] "$out/family_".f.".dat" using 3:4 with linespoints title f
unset logscale y
set ylabel "CPU of the fill (db_bench user + sys, s; one fill, +-10%)"
plot for [f in "$families"] "$out/family_".f.".dat" using 3:5 with linespoints title f
unset multiplot
GP
echo "$tool: $csv, $png"
