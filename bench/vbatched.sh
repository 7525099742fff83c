#!/bin/bash
# The variable-size LU (starsolve_dgetrf_vbatched) with the machine's GPUs, against the same call on CPU workers
# alone and against an OpenMP loop of LAPACKE calls, in one command.
#
#   bash bench/vbatched.sh [--shapes "100000:1:16 20000:32:128 2000:128:512 200:600:1200"] [--niter 4] [--ncpus N]
#                          BUILD_DIR|BIN_DIR
#
# Each shape BATCH:MIN:MAX is BATCH square matrices of orders uniform in MIN..MAX (bench/vbatched_cpu, seed 1),
# run three ways by bench/vbatched_cpu (best of --niter each, every info checked): CPU workers alone
# (STARPU_NCUDA=0), with the GPUs (StarPU's CUDA workers; the batch sorted by shape, the GPUs taking packed chunks
# of the smallest matrices, the CPU workers the largest in place), and the GPUs' front alone (no CPU worker:
# STARPU_NCPU=0, what a GPU's part runs at). The loop runs on as many threads as the call has CPU workers (one
# for the front alone). --ncpus N: N CPU workers in the first two (default: StarPU's choice).
# Prints per shape: the three times, and loop / starsolve for the first two (> 1: starsolve is faster).
set -u -o pipefail
shapes="100000:1:16 20000:32:128 2000:128:512 200:600:1200" niter=4 ncpus=
while [ $# -gt 1 ]; do
  case $1 in
    --shapes) shapes=$2; shift 2 ;;
    --niter) niter=$2; shift 2 ;;
    --ncpus) ncpus=$2; shift 2 ;;
    *) echo "usage: bash bench/vbatched.sh [--shapes S] [--niter K] [--ncpus N] BUILD_DIR" >&2; exit 2 ;;
  esac
done
[ $# -eq 1 ] || { echo "usage: bash bench/vbatched.sh [...] BUILD_DIR|BIN_DIR" >&2; exit 2; }
if [ -x "$1/bench/vbatched_cpu" ]; then prog=$1/bench/vbatched_cpu; else prog=$1/vbatched_cpu; fi
[ -x "$prog" ] || { echo "bench/vbatched.sh: no vbatched_cpu under $1" >&2; exit 2; }
export STARPU_SILENT=1
failed=0
# "starsolve best T s ..., OpenMP loop best L s ..., loop / starsolve R" -> "T R" ("- -": no such line)
field() { local r; r=$(sed -n 's/.*starsolve best \([0-9.]*\) s.*loop \/ starsolve \([0-9.]*\).*/\1 \2/p'); echo "${r:-- -}"; }
printf "%-22s %12s %8s %12s %8s %14s\n" shape cpu_alone_s ratio with_gpus_s ratio gpu_front_s
for s in $shapes; do
  set -- ${s//:/ }
  cpu=$( ( [ -n "$ncpus" ] && export STARPU_NCPU=$ncpus; STARPU_NCUDA=0 "$prog" "$@" "$niter" 2>&1 ) | tail -1) || failed=1
  gpu=$( ( [ -n "$ncpus" ] && export STARPU_NCPU=$ncpus; "$prog" "$@" "$niter" 2>&1 ) | tail -1) || failed=1
  case $gpu in
    *", 0 CUDA,"*) gpu= front= ;;   # no GPU here: only the first column means something
    *) front=$(STARPU_NCPU=0 "$prog" "$@" "$niter" 2>&1 | tail -1) || failed=1 ;;
  esac
  set -- $(echo "$cpu" | field) $(echo "$gpu" | field) $(echo "$front" | field)
  printf "%-22s %12s %8s %12s %8s %14s\n" "$s" "${1:--}" "${2:--}" "${3:--}" "${4:--}" "${5:--}"
done
exit $failed
