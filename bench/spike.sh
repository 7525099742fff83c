#!/bin/bash
# The SPIKE banded solver against LAPACK's dgbsv (OpenBLAS), in one command, on the same matrices.
#
#   bash bench/spike.sh [--n 1000000] [--ks "1 32 64 128"] [--dd 1] [--niter 3] [--ngpus 0] [--psize 0]
#                       [--table-n 200000] [--table-k 32] BUILD_DIR|BIN_DIR
#
# Speed: for each K, starpu_spike -n N -k K -dd D -vendor -check -niter R (double, one right-hand
# side, the defaults: automatic partitions (--psize P: about N / P), mixed precision): each run of starsolve_dgbsv_spike is
# followed by dgbsv on a copy of the same band with StarPU's workers paused; best of R for both.
# One calibration run (STARPU_CALIBRATE=1, -niter 1) per K first, not counted.
# Prints K, the partitions and chunks (tasks per stage) SPIKE used, BiCGStab iterations, dgbsv s, SPIKE s, ratio (dgbsv / SPIKE: > 1 means SPIKE is faster),
# and SPIKE's bandwidth against the N (2K+1) 8 bytes one pass over the band must read.
# Then the seed's Table 1 trend: the truncated-SPIKE solution alone (-maxit 0 -nofallback, the
# preconditioner in double: -mixed 0; 16 partitions) at dominance 0.5, 1, 2, 5, 10, 100: ||b - Ax||_inf / ||b||_inf
# before any refinement (it must shrink as the dominance grows).
# Exit 1 if a speed run failed its check.
set -u
n=1000000 ks="1 32 64 128" dd=1 niter=3 ngpus=0 psize=0 tn=200000 tk=32
usage() { echo "usage: bash bench/spike.sh [--n N] [--ks \"K ...\"] [--dd D] [--niter R] [--ngpus G] [--psize P] [--table-n N] [--table-k K] BUILD_DIR" >&2; exit 2; }
while [ $# -gt 1 ]; do
  case $1 in
    --n) n=$2; shift 2 ;;
    --ks) ks=$2; shift 2 ;;
    --dd) dd=$2; shift 2 ;;
    --niter) niter=$2; shift 2 ;;
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
echo "# $(date -u +%FT%TZ) $(uname -n), $(nproc) cores, load average:$(uptime | sed 's/.*load average://')"
echo "# speed: n=$n dd=$dd niter=$niter ngpus=$ngpus psize=$psize"
printf "%6s %6s %6s %6s %10s %10s %8s %10s\n" K parts chunks iters dgbsv_s spike_s ratio GB/s
status=0
for k in $ks; do
  STARPU_CALIBRATE=1 "$spike" -n "$n" -k "$k" -dd "$dd" -ngpus "$ngpus" -psize "$psize" -niter 1 > /dev/null 2>&1
  out=$("$spike" -n "$n" -k "$k" -dd "$dd" -ngpus "$ngpus" -psize "$psize" -niter "$niter" -vendor -check 2>&1)
  rc=$?
  [ $rc -eq 0 ] || { status=1; echo "# K=$k: starpu_spike exit $rc"; echo "$out" | grep -v '^\[starpu' | tail -5 | sed 's/^/#   /'; }
  line=$(echo "$out" | grep 'LAPACK gbsv')
  iters=$(echo "$out" | grep -o 'iters -\?[0-9]*' | awk '{print $2}' | sort -n | tail -1)
  parts=$(echo "$out" | sed -n 's/.* \([0-9]*\) partitions of .* in \([0-9]*\) chunks.*/\1 \2/p' | tail -1)
  np=${parts% *} nch=${parts#* }
  vs=$(echo "$line" | sed -n 's/.*best \([0-9.]*\) s; starsolve.*/\1/p')
  ss=$(echo "$line" | sed -n 's/.*starsolve best \([0-9.]*\) s.*/\1/p')
  if [ -n "$vs" ] && [ -n "$ss" ]; then
    awk -v k="$k" -v np="${np:--}" -v nc="${nch:--}" -v it="$iters" -v v="$vs" -v s="$ss" -v n="$n" \
      'BEGIN { printf "%6d %6s %6s %6s %10.4f %10.4f %8.2f %10.2f\n", k, np, nc, it, v, s, v / s, n * (2 * k + 1) * 8 / s / 1e9 }'
  else
    printf "%6d %6s %6s %6s %10s %10s %8s %10s\n" "$k" "${np:--}" "${nch:--}" "${iters:--}" - - - -
  fi
done
tp=$((tn / 16))   # 16 partitions: 15 interfaces whose truncation shows
echo "# Table 1 trend: truncated SPIKE alone (-maxit 0 -nofallback -mixed 0), n=$tn K=$tk psize=$tp"
printf "%8s %14s\n" dominance "||b-Ax||/||b||"
for d in 0.5 1 2 5 10 100; do
  r=$("$spike" -n "$tn" -k "$tk" -dd "$d" -ngpus "$ngpus" -psize "$tp" -maxit 0 -nofallback -mixed 0 -check 2>&1 |
      sed -n 's/.*relative residual ||b-Ax||\/||b|| = \([0-9.e+-]*\).*/\1/p' | tail -1)
  printf "%8s %14s\n" "$d" "${r:--}"
done
exit $status
