#!/bin/bash
# The plot of one bench/sched-sweep: seconds per policy, every run a point, the best run of each
# policy marked, from DIR/sweep.csv into DIR/sweep.png and DIR/sweep.svg (gnuplot, Debian's
# gnuplot-nox; without it the CSV alone, and a note). sched-sweep calls it; so does
# bench/scheduling-report.sh --report-only for sweeps made on a machine without gnuplot (the device).
#
#   bash bench/sweep-plot.sh DIR OP N RUNS
set -u
[ $# -eq 4 ] && [ -f "$1/sweep.csv" ] || { echo "usage: bash bench/sweep-plot.sh DIR OP N RUNS (DIR/sweep.csv from sched-sweep)" >&2; exit 2; }
out=$1 op=$2 n=$3 runs=$4
csv=$out/sweep.csv
if ! command -v gnuplot > /dev/null; then
  echo "sweep-plot: gnuplot not found (apt-get install gnuplot-nox): $csv only" >&2
  exit 0
fi
# one x position per policy, in the order of the sweep; the best run of each as a larger mark
awk -F, 'NR > 1 && $7 == "ok" { if (!($1 in x)) { x[$1] = ++k; print k, $1 > "/dev/stderr" } print x[$1], $3, $1 }' \
  "$csv" 2> "$out/policies.dat" > "$out/points.dat"
awk '{ if (!($1 in b) || $2 < b[$1]) b[$1] = $2 } END { for (k in b) print k, b[k] }' "$out/points.dat" \
  | sort -n > "$out/best.dat"
if [ ! -s "$out/points.dat" ]; then
  echo "sweep-plot: every policy failed, nothing to plot" >&2
  exit 1
fi
for term in "pngcairo size 1200,600" "svg size 1200,600"; do
  ext=${term%% *}; ext=${ext%cairo}
  gnuplot <<EOF
set terminal $term
set output "$out/sweep.$ext"
set title "$op, n = $n: seconds per StarPU policy ($runs runs each; lower is better)"
set ylabel "seconds"
set xtics rotate by -60 ()
set grid ytics
set key bottom right
set offsets 0, 0, graph 0.1, 0
set xrange [0.5:$(wc -l < "$out/policies.dat").5]
set yrange [0:*]
$(awk '{ printf "set xtics add (\"%s\" %d)\n", $2, $1 }' "$out/policies.dat")
plot "$out/points.dat" using 1:2 with points pt 7 ps 0.8 title "runs", \
     "$out/best.dat" using 1:2 with points pt 6 ps 2 title "best"
EOF
done
echo "sweep-plot: $csv, $out/sweep.png, $out/sweep.svg" >&2
