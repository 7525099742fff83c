#!/bin/bash
# The SPIKE banded solver against LAPACK's dgbsv (OpenBLAS), in one command, on the same matrices.
#
#   bash bench/spike.sh [--n 1000000] [--ks "1 32 64 128"] [--dd 1] [--niter 3] [--resolve 5] [--ngpus 0] [--psize 0]
#                       [--table-n 200000] [--table-k 32] BUILD_DIR|BIN_DIR
#
# Speed: for each K, starpu_spike -n N -k K -dd D -vendor -check -niter R -resolve S (double, one right-hand
# side, the defaults: automatic partitions (--psize P: about N / P), double-precision factors): each run times
# starsolve_dgbtrf_spike + dgbtrs_spike (what dgbsv_spike runs), then S further right-hand sides solved with
# the kept factorization (its data stays on the GPU), each checked; then dgbsv (as dgbtrf + dgbtrs) on a copy of
# the same band and dgbtrs on the same further right-hand sides, with StarPU's workers paused; best of
# each. One calibration run (STARPU_CALIBRATE=1, -niter 1) per K first, not counted.
# Prints K, the partitions and chunks (tasks per stage) SPIKE used, BiCGStab iterations, dgbsv s, SPIKE s, ratio (dgbsv / SPIKE: > 1 means SPIKE is faster),
# SPIKE's bandwidth against the N (2K+1) 8 bytes one pass over the band must read; then the second
# solve: SPIKE's best further solve (solve_s), dgbtrs's best (gbtrs_s), and dgbsv / solve_s, dgbtrs / solve_s
# (issue 7's target: dgbsv / solve_s >= 100 on one GPU).
# K = 1 with --ngpus > 0: also cuSPARSE's gtsv2 (bench/cusparse_ref, built with cuSPARSE) on the same
# tridiagonal matrix, host arrays page-locked as the driver's, with and without its host <-> GPU copies,
# and gtsv2 / SPIKE (> 1: SPIKE is faster; issue 7's target: >= 1), SPIKE as one dgbsv_spike call (what gtsv2
# does: one solve; a further starpu_spike run without -resolve, best of --niter) and as gbtrf + gbtrs; and
# both with the data already in GPU memory (gtsv2 against the library's tridiagonal kernels, no copies).
# Then the seed's Table 1 trend: the truncated-SPIKE solution alone (-maxit 0 -nofallback, the
# preconditioner in double: -mixed 0; partitions of 4K rows, short enough that the spikes are still far from
# zero where truncated SPIKE drops them: on the library's longer partitions they have decayed to rounding level
# there from dominance 1 or 2 on) at dominance 0.5, 1, 2, 5, 10, 100: ||b - Ax||_inf / ||b||_inf
# before any refinement (it must shrink as the dominance grows).
# Exit 1 if a speed run failed its check.
set -u
n=1000000 ks="1 32 64 128" dd=1 niter=3 resolve=5 ngpus=0 psize=0 tn=200000 tk=32
usage() { echo "usage: bash bench/spike.sh [--n N] [--ks \"K ...\"] [--dd D] [--niter R] [--resolve S] [--ngpus G] [--psize P] [--table-n N] [--table-k K] BUILD_DIR" >&2; exit 2; }
while [ $# -gt 1 ]; do
  case $1 in
    --n) n=$2; shift 2 ;;
    --ks) ks=$2; shift 2 ;;
    --dd) dd=$2; shift 2 ;;
    --niter) niter=$2; shift 2 ;;
    --resolve) resolve=$2; shift 2 ;;
    --ngpus) ngpus=$2; shift 2 ;;
    --psize) psize=$2; shift 2 ;;
    --table-n) tn=$2; shift 2 ;;
    --table-k) tk=$2; shift 2 ;;
    *) usage ;;
  esac
done
[ $# -eq 1 ] && [ -d "$1" ] || usage
b=$(cd "$1" && pwd)
if [ -x "$b/examples/starpu_spike" ]; then spike=$b/examples/starpu_spike; else spike=$b/starpu_spike; fi
[ -x "$spike" ] || { echo "bench/spike.sh: no starpu_spike under $b" >&2; exit 2; }
if [ -x "$b/bench/cusparse_ref" ]; then gtsv=$b/bench/cusparse_ref; elif [ -x "$b/cusparse_ref" ]; then gtsv=$b/cusparse_ref; else gtsv=; fi
echo "# $(date -u +%FT%TZ) $(uname -n), $(nproc) cores, load average:$(uptime | sed 's/.*load average://')"
echo "# speed: n=$n dd=$dd niter=$niter resolve=$resolve ngpus=$ngpus psize=$psize"
printf "%6s %6s %6s %6s %10s %10s %8s %10s %10s %10s %9s %9s\n" K parts chunks iters dgbsv_s spike_s ratio GB/s solve_s gbtrs_s \
  gbsv/slv gbtrs/slv
status=0 k1=
for k in $ks; do
  STARPU_CALIBRATE=1 "$spike" -n "$n" -k "$k" -dd "$dd" -ngpus "$ngpus" -psize "$psize" -niter 1 -resolve 1 > /dev/null 2>&1
  out=$("$spike" -n "$n" -k "$k" -dd "$dd" -ngpus "$ngpus" -psize "$psize" -niter "$niter" -resolve "$resolve" -vendor -check 2>&1)
  rc=$?
  [ $rc -eq 0 ] || { status=1; echo "# K=$k: starpu_spike exit $rc"; echo "$out" | grep -v '^\[starpu' | tail -5 | sed 's/^/#   /'; }
  line=$(echo "$out" | grep 'LAPACK gbsv')
  iters=$(echo "$out" | grep -o 'iters -\?[0-9]*' | awk '{print $2}' | sort -n | tail -1)
  parts=$(echo "$out" | sed -n 's/.* \([0-9]*\) partitions of .* in \([0-9]*\) chunks.*/\1 \2/p' | tail -1)
  np=${parts% *} nch=${parts#* }
  vs=$(echo "$line" | sed -n 's/.*best \([0-9.]*\) s; starsolve.*/\1/p')
  ss=$(echo "$line" | sed -n 's/.*starsolve best \([0-9.]*\) s.*/\1/p')
  sl=$(echo "$out" | sed -n 's/.*further solves (factorization kept): starsolve best \([0-9.]*\) s.*/\1/p' | tail -1)
  gt=$(echo "$out" | sed -n 's/.*LAPACK gbtrs .*: best \([0-9.]*\) s;.*/\1/p' | tail -1)
  if [ -n "$vs" ] && [ -n "$ss" ]; then
    awk -v k="$k" -v np="${np:--}" -v nc="${nch:--}" -v it="$iters" -v v="$vs" -v s="$ss" -v n="$n" -v sl="$sl" -v gt="$gt" \
      'BEGIN { printf "%6d %6s %6s %6s %10.4f %10.4f %8.2f %10.2f", k, np, nc, it, v, s, v / s, n * (2 * k + 1) * 8 / s / 1e9
               if (sl > 0 && gt > 0) printf " %10.6f %10.6f %9.1f %9.1f\n", sl, gt, v / sl, gt / sl
               else printf " %10s %10s %9s %9s\n", "-", "-", "-", "-" }'
  else
    printf "%6d %6s %6s %6s %10s %10s %8s %10s %10s %10s %9s %9s\n" "$k" "${np:--}" "${nch:--}" "${iters:--}" - - - - - - - -
  fi
  [ "$k" = 1 ] && k1="$ss $sl"
done
# K = 1 on a GPU: cuSPARSE's tridiagonal solver on the same matrix (same generator, seed 1 as the driver's)
if [ -n "$k1" ] && [ "$ngpus" != 0 ]; then
  if [ -z "$gtsv" ]; then
    echo "# K=1: no bench/cusparse_ref under $b (a CUDA build with cuSPARSE makes it): gtsv2 not run"
  else
    gout=$("$gtsv" -n "$n" -dd "$dd" -niter "$niter" -pinned -ours 2>&1)
    [ $? -eq 0 ] || { status=1; echo "# K=1: cusparse_ref failed:"; echo "$gout" | tail -3 | sed 's/^/#   /'; }
    gw=$(echo "$gout" | sed -n 's/.*best with copies \([0-9.]*\) s, without \([0-9.]*\) s.*/\1/p')
    ga=$(echo "$gout" | sed -n 's/.*best with copies \([0-9.]*\) s, without \([0-9.]*\) s.*/\2/p')
    # gtsv2 is one solve: against it, one starsolve_dgbsv_spike call (the driver without -resolve), best of the runs;
    # without -check (the K = 1 row above checked the same calls): the check runs multithreaded OpenBLAS between the
    # timed calls, whose threads then spin beside the CPU workers that solve K = 1 on a machine with many cores
    # (session 57: 1.24 ms a call with -check, 0.88-0.91 without)
    one=$("$spike" -n "$n" -k 1 -dd "$dd" -ngpus "$ngpus" -niter "$niter" --csv 2>/dev/null | awk -F, 'NR > 1 && $10 > 0 { print $10 }' | sort -g | head -1)
    echo "# K=1: cuSPARSE gtsv2 (pinned host arrays) against one dgbsv_spike call (gbsv_s) and gbtrf + gbtrs (spike_s);"
    echo "#      copies/gbsv > 1 means SPIKE is faster (issue 7's target: >= 1)"
    printf "%14s %14s %12s %12s %12s %14s %14s %16s\n" gtsv2_copies_s gtsv2_alone_s gbsv_s spike_s solve_s copies/gbsv copies/spike alone/solve
    set -- $k1
    awk -v gw="$gw" -v ga="$ga" -v g="${one:-0}" -v s="$1" -v sl="${2:-0}" 'BEGIN {
      slv = "-"; per = "-"
      if (sl > 0) { slv = sprintf("%.6f", sl); per = sprintf("%.3f", ga / sl) }
      if (gw > 0 && ga > 0 && s > 0 && g > 0)
        printf "%14.6f %14.6f %12.6f %12.6f %12s %14.3f %14.3f %16s\n", gw, ga, g, s, slv, gw / g, gw / s, per
      else print "# gtsv2 or gbsv_spike gave no time" }'
    # the same two solvers with the data already in GPU memory (cusparse_ref -ours): no copies on either side
    echo "$gout" | sed -n 's/^cusparse_ref: on GPU data, \(.*\)$/# K=1 on GPU data, no copies: \1/p'
  fi
fi
tp=$((4 * tk))   # short partitions: the truncation shows at every dominance
echo "# Table 1 trend: truncated SPIKE alone (-maxit 0 -nofallback -mixed 0), n=$tn K=$tk psize=$tp"
printf "%8s %14s\n" dominance "||b-Ax||/||b||"
for d in 0.5 1 2 5 10 100; do
  r=$("$spike" -n "$tn" -k "$tk" -dd "$d" -ngpus "$ngpus" -psize "$tp" -maxit 0 -nofallback -mixed 0 -check 2>&1 |
      sed -n 's/.*relative residual ||b-Ax||\/||b|| = \([0-9.e+-]*\).*/\1/p' | tail -1)
  printf "%8s %14s\n" "$d" "${r:--}"
done
exit $status
