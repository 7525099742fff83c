#!/bin/bash
# GPU benchmark: starsolve on one GPU against cuSOLVER on the same GPU, in one command.
#
#   bash bench/gpu.sh [--sizes "8192 16384 32768 40000"] [--ops "getrf getrf_nopiv potrf geqrf"] [--tall "1000000x512"] [--nb NB] [--niter 2] [--streams 2] BINDIR OUTDIR
# (--streams K: CUDA workers, hence streams, per GPU: STARPU_NWORKER_PER_CUDA; default 2, the library's)
# (--nb 0, the default: the library's tile size for each routine and order, starsolve_get_nb_for)
#
# BINDIR holds starpu_lu, starpu_cholesky and cusolver_ref (a build's examples/ and
# bench/, or an unpacked scripts/device-bundle.sh archive's bin/). For each size and
# each of getrf (partial pivoting), getrf_nopiv and potrf (lower), double precision:
#   - cusolver_ref: cuSOLVER's 64-bit API, timed with its host<->GPU copies and
#     without; its host matrix is page-locked (-pinned), like the drivers' (they
#     allocate with starsolve_malloc unless -nopin), so both copy at DMA speed;
#   - starsolve: the LAPACK-layout call with -ngpus 1 (all other cores as CPU
#     workers), transfers included since the matrix starts and ends in host memory.
# Before timing, every driver runs untimed with STARPU_CALIBRATE=1, three times at
# n=8192 and once at the largest size, so that the scheduler (modular-heft-prio with
# GPUs) works with measured task
# costs (perfmodels in OUTDIR/starpu-home).
# Every timed run is checked (-check: randomized backward-error estimate above n=4096).
# Output: a table (best of --niter runs per side) and the raw CSV in OUTDIR/gpu.csv.
set -u
sizes="8192 16384 32768 40000" ops="getrf getrf_nopiv potrf" nb=0 niter=2 tall='' streams=2
while [ $# -gt 2 ]; do
  case $1 in
    --sizes) sizes=$2; shift 2 ;;
    --ops) ops=$2; shift 2 ;;
    --tall) tall=$2; shift 2 ;;
    --nb) nb=$2; shift 2 ;;
    --niter) niter=$2; shift 2 ;;
    --streams) streams=$2; shift 2 ;;
    *) echo "usage: bash bench/gpu.sh [--sizes S] [--ops O] [--tall MxN...] [--nb NB] [--niter K] [--streams K] BINDIR OUTDIR" >&2; exit 2 ;;
  esac
done
[ $# -eq 2 ] || { echo "usage: bash bench/gpu.sh [--sizes S] [--ops O] [--tall MxN...] [--nb NB] [--niter K] [--streams K] BINDIR OUTDIR" >&2; exit 2; }
bin=$1 out=$2
mkdir -p "$out"
export STARPU_HOME=$out/starpu-home STARPU_SILENT=1 STARPU_NCUDA=1 STARPU_NWORKER_PER_CUDA=$streams
mkdir -p "$STARPU_HOME"
csv=$out/gpu.csv
: > "$csv"

# shellcheck source=bench/drivers.sh
. "$(dirname "$0")/drivers.sh"

# The panels and column updates have regression models (a size^b + c, fitted when
# a process ends) that predict within the sizes seen: one run at the largest order
# covers every smaller one; the tile kernels' history models need the 8192 runs.
largest=$(printf '%s\n' $sizes | sort -g | tail -1)
echo "gpu.sh: calibrating the perfmodels at n=8192 (three runs) and n=$largest (one), nb=$nb (untimed)" >&2
for op in $ops; do
  STARPU_CALIBRATE=1 $(driver_of $op "$bin") -n 8192 -nb "$nb" -ngpus 1 -niter 3 --csv > /dev/null 2>&1
  [ "${largest:-8192}" -gt 8192 ] && STARPU_CALIBRATE=1 $(driver_of $op "$bin") -n "$largest" -nb "$nb" -ngpus 1 -niter 1 --csv > /dev/null 2>&1
done

best() { sort -t, -k"$1" -g | head -1; }
printf "%-6s %-12s %10s %10s %10s %10s %8s %8s %10s %10s\n" n op "ss s" "ss TF/s" "cus+cp s" "cus s" "ratio+cp" "ratio" "ss berr" "cus berr"
for n in $sizes; do
  for op in $ops; do
    ref=$("$bin/cusolver_ref" -pinned -op "$op" -n "$n" -niter "$niter" 2>&1 | tee -a "$csv" | grep '^cusolver' | best 5)
    ours=$($(driver_of $op "$bin") -n "$n" -nb "$nb" -ngpus 1 -niter "$niter" -check --csv 2>>"$out/gpu.err" \
           | tee -a "$csv" | grep -v '^driver' | best 10)
    # cusolver,op,n,with_copies,alone,tflops,berr,info / driver,...,seconds(10),gflops(11),...,berr(13)
    awk -F, -v n="$n" -v op="$op" -v r="$ref" 'BEGIN { split(r, c, ",") } {
        printf "%-6s %-12s %10.3f %10.2f %10.3f %10.3f %8.2f %8.2f %10s %10s\n", n, op, $10, $11 / 1000,
               c[4], c[5], c[4] / $10, c[5] / $10, $13, c[7] }' <<< "$ours"
  done
done
# tall-skinny QR: --tall "MxN ..." (geqrf only)
for shape in $tall; do
  m=${shape%x*} n=${shape#*x}
  ref=$("$bin/cusolver_ref" -pinned -op geqrf -m "$m" -n "$n" -niter "$niter" 2>&1 | tee -a "$csv" | grep '^cusolver' | best 5)
  ours=$("$bin/starpu_qr" -nrhs 0 -m "$m" -n "$n" -nb "$nb" -ngpus 1 -niter "$niter" -check --csv 2>>"$out/gpu.err" \
         | tee -a "$csv" | grep -v '^driver' | best 10)
  awk -F, -v n="$shape" -v op=geqrf -v r="$ref" 'BEGIN { split(r, c, ",") } {
      printf "%-6s %-12s %10.3f %10.2f %10.3f %10.3f %8.2f %8.2f %10s %10s\n", n, op, $10, $11 / 1000,
             c[4], c[5], c[4] / $10, c[5] / $10, $13, c[7] }' <<< "$ours"
done
echo "(ratio = cuSOLVER time / starsolve time: above 1, starsolve is faster; +cp: cuSOLVER with its copies)"
