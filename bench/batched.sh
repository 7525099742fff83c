#!/bin/bash
# Batched factorizations against the CPU reference, in one run, on the same cores.
#
#   bash bench/batched.sh [--sizes "16 32 64 128 256 512"] [--ops "getrf potrf geqrf"] [--mib 256] [--niter 5]
#                         [--nrhs R] [--trans N|T|C] [--vsizes 0|1] [--uplo L|U] [--prec s|d|c|z] BUILD_DIR
#
# For each op and size m (square matrices), a batch of about --mib MiB of matrices in precision --prec (default d):
# starpu_batched -vendor times starsolve_dgetrf_batched (potrf, geqrf; s, c, z alike) and, right after each run, the
# reference, an OpenMP loop of LAPACKE calls over as many threads as starsolve
# has CPU workers (StarPU's workers paused meanwhile), best of --niter each.
# The first starpu_batched run per size calibrates StarPU's perfmodels (not timed).
# Prints a table: op, m, batch, starsolve GF/s, reference GF/s, ratio (target >= 1). With --nrhs R > 0
# (default 0) each run also solves R right-hand sides a matrix with the factors (getrs / potrs / geqrs batched;
# the reference loop: LAPACKE getrs / potrs / unmqr + trtrs), and the table gains both solves' best seconds and
# their ratio. --uplo U: potrf (and potrs) on the upper triangle, on both sides (default L). --trans T or C: getrf's
# solves with A^T or A^H, on both sides (default N).
# Then, where BUILD_DIR/bench/vbatched_cpu is built, the variable-size LU (starsolve_dgetrf_vbatched) against
# the same kind of loop: 100000 matrices of orders 1..16 and 4000 of orders 32..128 (--vsizes 0: not run).
set -u
sizes="16 32 64 128 256 512" ops="getrf potrf geqrf" mib=256 niter=5 vsizes=1 nrhs=0 uplo=L trans=N prec=d
while [ $# -gt 1 ]; do
  case $1 in
    --sizes) sizes=$2; shift 2 ;;
    --ops) ops=$2; shift 2 ;;
    --mib) mib=$2; shift 2 ;;
    --niter) niter=$2; shift 2 ;;
    --nrhs) nrhs=$2; shift 2 ;;
    --vsizes) vsizes=$2; shift 2 ;;
    --uplo) uplo=$2; shift 2 ;;
    --trans) trans=$2; shift 2 ;;
    --prec) prec=$2; shift 2 ;;
    *) echo "usage: bash bench/batched.sh [--sizes S] [--ops O] [--mib MIB] [--niter K] [--nrhs R] [--trans N|T|C] [--vsizes 0|1] [--uplo L|U] [--prec s|d|c|z] BUILD_DIR" >&2; exit 2 ;;
  esac
done
case $prec in s) elem=4 ;; d|c) elem=8 ;; z) elem=16 ;; *) echo "batched.sh: --prec takes s, d, c or z" >&2; exit 2 ;; esac
[ $# -eq 1 ] && [ -x "$1/examples/starpu_batched" ] || { echo "usage: bash bench/batched.sh [...] BUILD_DIR (with examples/starpu_batched built)" >&2; exit 2; }
drv=$1/examples/starpu_batched
export STARPU_SILENT=1 STARPU_HOME=$1/bench/starpu-home STARPU_NCUDA=0
mkdir -p "$STARPU_HOME"
failed=0
if [ "$nrhs" -gt 0 ]; then
  printf "%-6s %5s %8s %15s %15s %7s %13s %13s %7s\n" op m batch "starsolve GF/s" "reference GF/s" ratio \
    "solve ours s" "solve ref s" ratio
else
  printf "%-6s %5s %8s %15s %15s %7s\n" op m batch "starsolve GF/s" "reference GF/s" ratio
fi
for op in $ops; do
  for m in $sizes; do
    batch=$(( mib * 1024 * 1024 / (elem * m * m) ))
    [ "$batch" -ge 1 ] || batch=1
    optrans=""   # -trans: getrf's solves only
    [ "$op" = getrf ] && [ "$nrhs" -gt 0 ] && optrans="-trans $trans"
    STARPU_CALIBRATE=1 "$drv" -op "$op" -prec "$prec" -m "$m" -batch "$batch" -nrhs "$nrhs" -uplo "$uplo" $optrans > /dev/null 2>&1
    out=$("$drv" -op "$op" -prec "$prec" -m "$m" -batch "$batch" -nrhs "$nrhs" -uplo "$uplo" $optrans -niter "$niter" -vendor 2>&1)
    line=$(echo "$out" | grep '^starpu_batched: reference (')
    if [ -z "$line" ]; then failed=1; echo "batched.sh: starpu_batched -op $op -m $m failed" >&2; continue; fi
    factor=$(echo "$line" | sed -n 's/.*best [0-9.]* s \([0-9.]*\) GF\/s; starsolve best [0-9.]* s \([0-9.]*\) GF\/s; ratio \([0-9.]*\).*/\2 \1 \3/p')
    solve=""
    if [ "$nrhs" -gt 0 ]; then   # the solve line: reference best, ours best, ratio
      solve=$(echo "$out" | grep '^starpu_batched: solve reference (' |
              sed -n 's/.*best \([0-9.]*\) s; starsolve best \([0-9.]*\) s; ratio \([0-9.]*\).*/\2 \1 \3/p')
      [ -n "$solve" ] || { failed=1; solve="- - -"; }
    fi
    echo "$factor $solve" | awk -v op="$op" -v m="$m" -v b="$batch" '
      { printf "%-6s %5d %8d %15s %15s %7s", op, m, b, $1, $2, $3
        if (NF > 3) printf " %13s %13s %7s", $4, $5, $6
        printf "\n" }'
  done
done
echo "(precision $prec; potrf's triangle $uplo; getrs's op $trans; reference = OpenMP loop of LAPACKE on the same cores; ratio = starsolve / reference, target >= 1)"
if [ "$vsizes" != 0 ] && [ -x "$1/bench/vbatched_cpu" ]; then
  for shape in "100000 1 16" "4000 32 128"; do
    out=$("$1/bench/vbatched_cpu" $shape "$niter" 2>&1) || failed=1
    echo "$out" | tail -1
  done
fi
exit $failed
