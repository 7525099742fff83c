#!/bin/bash
# The scheduling-policy report, docs/scheduling.md, in one command.
#
#   bash bench/scheduling-report.sh --machine NAME [--ops "getrf potrf geqrf"] [--n 2048] [--nb NB]
#                                   [--runs 3] [--ngpus G] [--policies P] [--timeout S] [--docs DIR] [BINDIR]
#
# On the machine named NAME (a folder name: cpu-2cores, h100, 2xh200 ...), for each
# factorization: bench/sched-sweep over every StarPU policy (calibrated first, --runs
# checked runs per policy, -bound on each), then one more run of the best and of the
# worst policy with -trace, their Gantt charts. Results go to DIR/scheduling/NAME/OP/
# (default DIR: docs). Then docs/scheduling.md is written anew from every machine's
# folder found there, so runs made on other machines (copy their folder in) appear
# beside this one, with the words of DIR/scheduling/NAME/notes.md (what the runs show,
# written by whoever ran them). --report-only rewrites the page without running anything.
# --timeout S: sched-sweep's limit per driver process (default 600 s). A sweep made where
# gnuplot is missing (the GPU machines) has no plot; the page's writing draws it from the CSV
# (bench/sweep-plot.sh) wherever gnuplot is, --report-only included.
# BINDIR holds the drivers (a build's examples/, default ./examples).
set -u
here=$(cd "$(dirname "$0")" && pwd)
machine='' ops="getrf potrf geqrf" n=2048 nb=0 runs=3 ngpus=0 policies='' limit=600 docs=$here/../docs bin=./examples run=1
usage() { echo "usage: bash bench/scheduling-report.sh --machine NAME [--ops O] [--n N] [--nb NB] [--runs K] [--ngpus G] [--policies P] [--timeout S] [--docs DIR] [--report-only] [BINDIR]" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --machine) machine=$2; shift 2 ;;
    --ops) ops=$2; shift 2 ;;
    --n) n=$2; shift 2 ;;
    --nb) nb=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --ngpus) ngpus=$2; shift 2 ;;
    --policies) policies=$2; shift 2 ;;
    --timeout) limit=$2; shift 2 ;;
    --docs) docs=$2; shift 2 ;;
    --report-only) run=0; shift ;;
    -*) usage ;;
    *) bin=$1; shift ;;
  esac
done
mkdir -p "$docs/scheduling"
docs=$(cd "$docs" && pwd)

# shellcheck source=bench/drivers.sh
. "$here/drivers.sh"

if [ "$run" = 1 ]; then
  [[ $machine =~ ^[A-Za-z0-9._-]+$ ]] || usage
  for op in $ops; do
    dir=$docs/scheduling/$machine/$op
    rm -rf "$dir" && mkdir -p "$dir"
    args=("$op" "$n" --runs "$runs" --nb "$nb" --ngpus "$ngpus" --timeout "$limit" --out "$dir")
    [ -n "$policies" ] && args+=(--policies "$policies")
    bash "$here/sched-sweep" "${args[@]}" "$bin" 2> "$dir/sweep.log"
    # best and worst policy by their best run; one traced run of each (calibrated models in $dir/starpu-home)
    read -r best worst < <(awk -F, 'NR > 1 && $7 == "ok" { if (!($1 in b) || $3 < b[$1]) b[$1] = $3 }
        END { for (p in b) print b[p], p }' "$dir/sweep.csv" | sort -g | awk 'NR == 1 { f = $2 } { l = $2 } END { print f, l }')
    for p in $best $worst; do
      # shellcheck disable=SC2046 # driver_of gives a list of words
      STARPU_HOME=$dir/starpu-home STARPU_SILENT=1 $(driver_of "$op" "$bin") -n "$n" -nb "$nb" -ngpus "$ngpus" -sched "$p" \
        -niter 2 -trace "$dir/gantt-$p.svg" > "$dir/gantt-$p.log" 2>&1
    done
    echo "$best $worst" > "$dir/best-worst.txt"
    # every policy's run lines in one log, instead of a file per policy
    for f in "$dir"/*.err; do
      [ -f "$f" ] || continue
      echo "== $(basename "$f" .err)"
      cat "$f"
    done > "$dir/runs.log"
    rm -rf "$dir/starpu-home" "$dir"/*.dat "$dir"/*.err
  done
fi

# ---- the page, from every machine's folder
page=$docs/scheduling.md
{
  echo "# Scheduling policies on starsolve's factorizations"
  echo
  echo "Written by \`bash bench/scheduling-report.sh --machine NAME BINDIR\` (one machine's"
  echo "sweeps; the page lists every machine under \`docs/scheduling/\`). For each factorization"
  echo "and StarPU policy: the best of the checked runs after calibration, its speed, and how"
  echo "far it is from two lower bounds of the same run (drivers' \`-bound\`): StarPU's linear"
  echo "program over the workers (area bound, no dependencies) and the critical path of the"
  echo "task graph at the fastest predicted task times. A ratio near 1 for one of them says"
  echo "which limit the run meets; both well above 1 say the schedule leaves time on the table."
  echo "Every run's numbers are in the CSV beside each plot; Gantt charts of the best and worst"
  echo "policy are SVG (open in a browser, hover a box for the task)."
  for mdir in "$docs"/scheduling/*/; do
    [ -d "$mdir" ] || continue
    m=$(basename "$mdir")
    echo
    echo "## $m"
    # what the runs show, in words: written by whoever ran them, kept across regenerations
    if [ -f "$mdir/notes.md" ]; then echo; cat "$mdir/notes.md"; fi
    for odir in "$mdir"*/; do
      [ -f "$odir/sweep.csv" ] || continue
      op=$(basename "$odir")
      size=$(sed -n 's/^sched-sweep: calibrating the perfmodels (.* -n \([0-9]*\),.*/\1/p' "$odir/sweep.log" | head -1)
      if [ ! -f "$odir/sweep.svg" ] && command -v gnuplot > /dev/null; then   # swept where gnuplot was missing
        nruns=$(awk -F, 'NR > 1 && $2 + 0 > r { r = $2 + 0 } END { print r + 0 }' "$odir/sweep.csv")
        bash "$here/sweep-plot.sh" "$odir" "$op" "${size:-?}" "$nruns" >&2 && rm -f "$odir"/*.dat
      fi
      echo
      echo "### $op, n = ${size:-?}"
      echo
      echo "| policy | best s | GFLOP/s | time / LP bound | time / critical path | runs ok |"
      echo "|---|---|---|---|---|---|"
      awk -F, 'NR > 1 {
          if ($7 == "ok") { ok[$1]++; if (!($1 in b) || $3 < b[$1]) { b[$1] = $3; g[$1] = $4; r[$1] = $5; c[$1] = $6 } }
          else seen[$1] = 1
          seen[$1] = 1 }
        END { for (p in seen) printf "%s|%s|%s|%s|%s|%d\n", p, (p in b) ? b[p] : "failed", (p in b) ? g[p] : "-",
                                         (p in b) ? r[p] : "-", (p in b) ? c[p] : "-", ok[p] }' "$odir/sweep.csv" \
        | sort -t'|' -k2,2g | awk -F'|' '{ printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6 }'
      echo
      read -r best worst < "$odir/best-worst.txt" 2>/dev/null || { best=''; worst=''; }
      rel=scheduling/$m/$op
      [ -f "$odir/sweep.svg" ] && echo "Time per policy (every run a point, the best marked): ![sweep]($rel/sweep.svg)"
      if [ -n "$best" ]; then
        echo
        summary=$(awk -F, -v b="$best" -v w="$worst" 'NR > 1 && $7 == "ok" {
            if ($1 == b && (!tb || $3 < tb)) tb = $3; if ($1 == w && (!tw || $3 < tw)) tw = $3 }
          END { if (tb > 0) printf "%.2f", tw / tb }' "$odir/sweep.csv")
        echo "Best policy **$best**, worst **$worst** (${summary:-?}x slower). Gantt charts of one run each:"
        echo "[$best]($rel/gantt-$best.svg), [$worst]($rel/gantt-$worst.svg)."
      fi
    done
  done
} > "$page"
echo "scheduling-report: wrote $page" >&2
