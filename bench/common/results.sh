# bench/common/results.sh: reading the RESULT lines both instruments print
# ("RESULT key=value ...", bench/common/results.h), one line per file, and
# their medians; sourced by bench/db/db_bench_driver.

# A field of a RESULT file; "" if the run is missing.
field() { if [ -s "$1" ]; then awk -v k="$2" '{for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) {print substr($i, length(k) + 2); exit}}' "$1"; fi; }
# The median of the numbers on stdin, printed with format $1 (default %.2f).
median() { sort -g | awk -v f="${1:-%.2f}" '{a[NR] = $1} END {if (NR == 0) print "–"; else printf f "\n", (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2)}'; }
