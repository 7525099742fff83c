#!/bin/bash
# RBT against our own partial-pivoting solver, in one run, on the same workers.
#
#   bash bench/rbt.sh [--sizes "4096"] [--niter 3] [--depth 2] [--ngpus 0] [--nb NB] BUILD_DIR|BIN_DIR
# (on a GPU: --sizes "20000 40000" --ngpus 1 --nb 1024, with a device bundle's bin/)
#
# For each n: starpu_lu -gesv (starsolve_dgesv: factor and solve in one call, one
# right-hand side) and starpu_rbt (starsolve_dgesv_rbt: randomization, LU without pivoting,
# solve, refinement), double precision, -check on every timed run, best of
# --niter kept; each driver first runs once with STARPU_CALIBRATE=1 (not timed).
# The randomization's share comes from a -trace run (its second call): the butterfly tasks'
# time over the call's time. Then a -phases run (its second call) times the phases apart
# (they do not overlap there): the copy of A into tiles (with GPUs its upload, which gesv
# pays too), the butterflies U^T A V, the factorization, the solve, the refinement.
# Prints: n, gesv s, rbt s, speedup (gesv / rbt; the target is >= 1.2), the randomization's
# share (%) by trace, the same solver's best time at -depth 0 (no butterflies) and the
# randomization's cost (rbt - depth0) / rbt in %, the refinement steps the timed RBT runs took (each
# distinct count, e.g. 1 or 1/2: a slow run with more steps shows here), and the phases line.
# Exit 1 if a run failed or a check did not pass.
set -u
sizes=4096 niter=3 depth=2 ngpus=0 nb=''
while [ $# -gt 1 ]; do
  case $1 in
    --sizes) sizes=$2; shift 2 ;;
    --niter) niter=$2; shift 2 ;;
    --depth) depth=$2; shift 2 ;;
    --ngpus) ngpus=$2; shift 2 ;;
    --nb) nb="-nb $2"; shift 2 ;;
    *) echo "usage: bash bench/rbt.sh [--sizes S] [--niter K] [--depth D] [--ngpus G] [--nb NB] BUILD_DIR" >&2; exit 2 ;;
  esac
done
[ $# -eq 1 ] && [ -d "$1" ] || { echo "usage: bash bench/rbt.sh [--sizes S] [--niter K] [--depth D] [--ngpus G] [--nb NB] BUILD_DIR" >&2; exit 2; }
b=$(cd "$1" && pwd)
# a build directory (examples/starpu_rbt), or a folder of programs (a device bundle's bin/)
if [ -x "$b/examples/starpu_rbt" ]; then lu=$b/examples/starpu_lu rbt=$b/examples/starpu_rbt
else lu=$b/starpu_lu rbt=$b/starpu_rbt; fi
export STARPU_SILENT=1 STARPU_HOME=$b/bench/starpu-home
mkdir -p "$STARPU_HOME"
failed=0
best() {   # best (smallest) seconds over the CSV lines of a driver, or "-" when a run failed
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
           { if ($c["info"] != 0 || $c["resid"] == "nan" || $c["resid"] + 0 > 30) bad = 1
             if (best == "" || $c["seconds"] + 0 < best) best = $c["seconds"] + 0 }
           END { if (bad || best == "") print "-"; else printf "%.4f\n", best }'
}
printf "%-7s %10s %10s %9s %14s %10s %9s %6s\n" n "gesv s" "rbt s" speedup "randomize %" "depth0 s" "cost %" steps
steps_log=$(mktemp)
for n in $sizes; do
  # shellcheck disable=SC2086 # nb is empty or two words
  STARPU_CALIBRATE=1 "$lu" -n "$n" -ngpus "$ngpus" $nb > /dev/null 2>&1
  # shellcheck disable=SC2086
  STARPU_CALIBRATE=1 "$rbt" -n "$n" -ngpus "$ngpus" -depth "$depth" $nb > /dev/null 2>&1
  # gesv in one call (-gesv). Until session 19 this was getrf then getrs, two calls: the solve
  # registered A again and, with GPUs, uploaded it again (0.27 s at 40000 on an H100)
  # shellcheck disable=SC2086
  g=$("$lu" -n "$n" -ngpus "$ngpus" -niter "$niter" -check -gesv --csv $nb 2>/dev/null | best)
  # shellcheck disable=SC2086
  # (with --csv the result lines, which carry the refinement steps, go to stderr)
  r=$("$rbt" -n "$n" -ngpus "$ngpus" -depth "$depth" -niter "$niter" -check --csv $nb 2>"$steps_log" | best)
  steps=$(sed -n 's/.* iters \([0-9]*\),.*/\1/p' "$steps_log" | sort -n | uniq | paste -sd/ -)
  # The same solver without butterflies (-depth 0: the copy into F, LU without pivoting, solve and
  # refinement as above; the same tile size at 20000 and 40000): what the randomization costs the
  # whole call, overlap included ("cost %" = (rbt - depth0) / rbt)
  # shellcheck disable=SC2086
  r0=$("$rbt" -n "$n" -ngpus "$ngpus" -depth 0 -niter "$niter" -check --csv $nb 2>/dev/null | best)
  # The randomization's share by trace: the butterfly tasks' time in a trace of the timed code (its
  # second call), over that call's time. Two CUDA streams run tasks side by side and an
  # asynchronous task also counts its wait in its stream, so this overstates it.
  trace=$(mktemp --suffix=.svg)
  # shellcheck disable=SC2086
  tr=$("$rbt" -n "$n" -ngpus "$ngpus" -depth "$depth" -niter 2 -trace "$trace" $nb 2>/dev/null |
       sed -n 's/.*run 2\/2: factor \([0-9.]*\) s.*/\1/p')
  # (the butterflies on tiles: gerbt, gerbt2, and gerbt_local for levels inside the tiles; not the solves' gerbt_rhs)
  rand_ms=$(sed -n 's/.*<title>[sdcz]gerbt\(2\|_local\)\{0,1\} on worker [0-9]*: [0-9.]* \.\. [0-9.]* ms (\([0-9.]*\) ms).*/\2/p' "$trace" |
            awk '{ s += $1 } END { printf "%.1f\n", s }')
  rm -f "$trace"
  # shellcheck disable=SC2086
  # the phases timed apart, from a second call (a process's first pays CUDA module loading)
  phases=$("$rbt" -n "$n" -ngpus "$ngpus" -depth "$depth" -phases -niter 2 $nb 2>/dev/null | grep 'phases:' | tail -1)
  [ "$g" = - ] || [ "$r" = - ] || [ "$r0" = - ] && failed=1
  awk -v n="$n" -v g="$g" -v r="$r" -v r0="$r0" -v rms="${rand_ms:--}" -v tr="${tr:--}" -v st="${steps:--}" 'BEGIN {
      sp = (g != "-" && r != "-" && r > 0) ? sprintf("%.2f", g / r) : "-"
      s = (rms != "-" && tr != "-" && tr > 0) ? sprintf("%.1f", 0.1 * rms / tr) : "-"
      c = (r != "-" && r0 != "-" && r > 0) ? sprintf("%.1f", 100 * (r - r0) / r) : "-"
      printf "%-7s %10s %10s %9s %14s %10s %9s %6s\n", n, g, r, sp, s, r0, c, st }'
  echo "        $phases"
done
rm -f "$steps_log"
echo "(gesv = starpu_lu -gesv, factor and solve in one call; rbt = the whole gesv_rbt; speedup = gesv / rbt, target >= 1.2)"
exit $failed
