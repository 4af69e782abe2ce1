# bench/common/plot.sh: the plots of bench/, with gnuplot (gnuplot-nox;
# tools/setup.sh). Sourced by bench/db/db_bench_driver; not a command.
#
# gnuplot_to PNG WIDTH,HEIGHT: runs gnuplot on stdin, drawing into PNG.
#
# plot_filter_results RESULTS_DIR PLOTS_DIR: the plots of
# `sstfilter-filter-bench compare --out RESULTS_DIR`'s CSVs, into PLOTS_DIR:
#   fpr_vs_bits.png     measured FPR against stored bits/key, every policy,
#                       with the theoretical curves
#   query_vs_size.png   absent-key query ns against total filter size
#   cuckoo_n.png        the f = 12 cuckoo filter from 1e3 to 1e7 keys
#   scenarios.png       absent-key query ns per scenario at 10 bits/key

gnuplot_to() {
  command -v gnuplot >/dev/null || {
    echo "gnuplot not found (gnuplot-nox; tools/setup.sh)" >&2
    return 1
  }
  mkdir -p "$(dirname "$1")"
  { printf 'set terminal pngcairo size %s font "sans,10"\nset output "%s"\n' "$2" "$1"; cat; } | gnuplot
}

plot_filter_results() {
local results="$1" plots="$2" f scenarios
for f in sweep_fpr.csv theory.csv sweep_size.csv cuckoo_n.csv compare.csv; do
  [ -f "$results/$f" ] || {
    echo "plot: $results/$f missing; run sstfilter-filter-bench compare first" >&2
    return 1
  }
done
mkdir -p "$plots"

# scenarios.png reads one row per policy of the 10 bits/key group.
scenarios="$plots/.scenarios.dat"
awk -F, '
  NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
  $1 == "10" {
    print $2, $(col["a_absent_ns"]), $(col["b_absent_ns"]),
          $(col["c_absent_ns"]), $(col["cb_absent_ns"])
  }' "$results/compare.csv" >"$scenarios"

gnuplot_to "$plots/fpr_vs_bits.png" 900,600 <<EOF
set datafile separator ","
set key top right
set grid

set title "False-positive rate against bits/key (1e6 keys; measured on up to 1e7 absent keys)"
set xlabel "stored bits/key"
set ylabel "FPR"
set logscale y
set format y "10^{%T}"
set xrange [4:24.5]
fpr = "$results/sweep_fpr.csv"
size = "$results/sweep_size.csv"
# The rows of one policy (the CSVs interleave policies).
rows(file, policy) = sprintf("< awk -F, '\$1 == \"%s\"' %s", policy, file)
plot "$results/theory.csv" using 1:2 skip 1 with lines lw 1 dt 2 lc rgb "gray40" title "standard Bloom, best k", \
     "" using 1:3 skip 1 with lines lw 1 dt 3 lc rgb "gray20" title "cache-local Bloom (512-bit blocks), best k", \
     "" using 1:4 skip 1 with lines lw 1 dt 4 lc rgb "dark-violet" title "cuckoo 2b/2^f, b=4, f=0.96c", \
     "" using 1:5 skip 1 with lines lw 2 lc rgb "black" title "lower bound 2^{-c}", \
     rows(fpr, "bloomfilter") using 3:4 with linespoints pt 7 lc rgb "red" title "bloomfilter", \
     rows(fpr, "ribbonfilter") using 3:4 with linespoints pt 5 lc rgb "orange" title "ribbonfilter", \
     rows(fpr, "BlockedBloom") using 3:4 with linespoints pt 9 lc rgb "blue" title "sstfilter.BlockedBloom", \
     rows(fpr, "Cuckoo") using 3:4 with linespoints pt 13 lc rgb "dark-green" title "sstfilter.Cuckoo (f = 4..24)"

set output "$plots/query_vs_size.png"
set title "Absent-key query time against total filter size (10 bits/key, random filter per query)"
set xlabel "total size of the filters (MiB)"
set ylabel "ns per query"
set logscale x
unset logscale y
set format y "%g"
set format x "%g"
set xrange [*:*]
set yrange [0:*]
set key top left
l3_mib = $(($(awk '{ print $1 + 0 }' /sys/devices/system/cpu/cpu0/cache/index3/size 2>/dev/null || echo 32768) / 1024))
set arrow from l3_mib, graph 0 to l3_mib, graph 1 nohead dt 3 lc rgb "gray40"
set label "L3" at l3_mib, graph 0.95 offset 0.5, 0
plot rows(size, "bloomfilter") using 3:4 with linespoints pt 7 lc rgb "red" title "bloomfilter", \
     rows(size, "FastLocalBloom-AVX2") using 3:4 with linespoints pt 6 lc rgb "dark-red" title "FastLocalBloom-AVX2", \
     rows(size, "ribbonfilter") using 3:4 with linespoints pt 5 lc rgb "orange" title "ribbonfilter", \
     rows(size, "BlockedBloom") using 3:4 with linespoints pt 9 lc rgb "blue" title "sstfilter.BlockedBloom", \
     rows(size, "Cuckoo") using 3:4 with linespoints pt 13 lc rgb "dark-green" title "sstfilter.Cuckoo", \
     rows(size, "Hybrid") using 3:4 with linespoints pt 11 lc rgb "cyan" title "sstfilter.Hybrid"

set output "$plots/cuckoo_n.png"
set title "sstfilter.Cuckoo, f = 12, from 1e3 to 1e7 keys"
set xlabel "keys"
set ylabel "FPR %"
set y2label "stored bits/key"
set ytics nomirror
set y2tics
set yrange [0.15:0.22]
set y2range [12.3:12.8]
set logscale x
set format x "10^{%T}"
set key bottom right
plot "$results/cuckoo_n.csv" using 1:(\$3*100) skip 1 with linespoints pt 7 lc rgb "dark-green" title "FPR % (1e7 absent keys)", \
     0.19 with lines dt 2 lc rgb "dark-green" title "FPR target 0.19%", \
     "" using 1:2 skip 1 axes x1y2 with linespoints pt 5 lc rgb "blue" title "stored bits/key", \
     12.7 axes x1y2 with lines dt 2 lc rgb "blue" title "bits/key target 12.7"

reset
set terminal pngcairo size 900,500 font "sans,10"
set output "$plots/scenarios.png"
set title "Absent-key query time per scenario, 10 bits/key (median ns per key)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set ylabel "ns per key"
set yrange [0:*]
set grid ytics
set key top left
set xtics rotate by -20
plot "$scenarios" using 2:xtic(1) title "(a) one cached filter", \
     "" using 3 title "(b) random filter of many", \
     "" using 4 title "(c) batched 32, cached filter", \
     "" using 5 title "(c) batched 32, random filter"
EOF

rm -f "$scenarios"
ls -l "$plots"/*.png
}
