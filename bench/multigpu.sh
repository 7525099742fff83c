#!/bin/bash
# Speedup over GPUs: each factorization on 1, 2, ... GPUs of one machine, in one command.
#
#   bash bench/multigpu.sh [--ops "getrf potrf geqrf"] [--sizes 60000] [--gpus "1 2"] [--niter 2] BINDIR OUTDIR
#
# For each op (double precision; drivers from bench/drivers.sh), every GPU count first
# calibrates the perfmodels at n=8192 (three untimed runs with STARPU_CALIBRATE=1,
# perfmodels in OUTDIR/starpu-home), then each size runs --niter times per GPU count
# in one process, every run checked (-check); the first run of a size is dropped (it
# calibrates the new size and loads the libraries), the table keeps the best of the rest.
# -stats on the timed runs: bytes moved between memory nodes go to OUTDIR/OP-N-gG.log.
# Output: one line per op, size and GPU count: seconds, TF/s, speedup over the first
# GPU count of the list, backward error; raw CSV in OUTDIR/multigpu.csv.
set -u
ops="getrf potrf geqrf" sizes=60000 gpus="1 2" niter=2
usage="usage: bash bench/multigpu.sh [--ops O] [--sizes S] [--gpus G] [--niter K] BINDIR OUTDIR"
while [ $# -gt 0 ]; do
  case $1 in
    --ops) ops=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --gpus) gpus=$2; shift 2 ;;
    --niter) niter=$2; shift 2 ;;
    --*) echo "$usage" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -eq 2 ] || { echo "$usage" >&2; exit 2; }
[ "$niter" -ge 2 ] || { echo "multigpu.sh: --niter must be at least 2 (the first run of a size calibrates)" >&2; exit 2; }
bin=$1 out=$2
# shellcheck source=bench/drivers.sh
. "$(dirname "$0")/drivers.sh"
mkdir -p "$out"
export STARPU_HOME=${STARPU_HOME:-$out/starpu-home} STARPU_SILENT=1
mkdir -p "$STARPU_HOME"
csv=$out/multigpu.csv

printf "%-12s %-6s %-5s %9s %8s %8s  %s\n" op n gpus seconds TF/s speedup berr
for op in $ops; do
  driver=$(driver_of "$op" "$bin") || { echo "$usage" >&2; exit 2; }
  for g in $gpus; do
    # shellcheck disable=SC2086 # driver is a list of words
    STARPU_CALIBRATE=1 $driver -n 8192 -ngpus "$g" -niter 3 --csv > /dev/null 2>&1
  done
  for n in $sizes; do
    base=''
    for g in $gpus; do
      log=$out/$op-$n-g$g.log
      # shellcheck disable=SC2086
      line=$($driver -n "$n" -ngpus "$g" -niter "$niter" -check -stats --csv 2> "$log" \
             | tee -a "$csv" | grep -v '^driver' | tail -n +2 | sort -t, -k10 -g | head -1)
      if [ -z "$line" ]; then
        printf "%-12s %-6s %-5s failed (see %s)\n" "$op" "$n" "$g" "$log"
        continue
      fi
      seconds=$(echo "$line" | cut -d, -f10)
      [ -n "$base" ] || base=$seconds
      echo "$line" | awk -F, -v op="$op" -v n="$n" -v g="$g" -v base="$base" \
        '{ printf "%-12s %-6s %-5s %9.3f %8.2f %8.2f  %s\n", op, n, g, $10, $11 / 1000, base / $10, $13 }'
    done
  done
done
