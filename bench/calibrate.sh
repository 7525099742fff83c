#!/bin/bash
# Fill StarPU's performance models for this machine before measuring, then show them.
#
#   bash bench/calibrate.sh [--ops "getrf getrf_nopiv potrf geqrf"] [--sizes "2048 4096"] [--nb NB]
#                           [--ngpus G] [--runs 11] [BINDIR]
#
# Every factorization runs --runs times (default 11: StarPU trusts a history-based
# model after 10 measurements of one task size) at each size with STARPU_CALIBRATE=1,
# in double precision, with the library's tile size unless --nb. The models land in
# StarPU's home ($STARPU_HOME/.starpu, default ~/.starpu), where every later run on this
# machine (drivers, bench scripts with the same STARPU_HOME) finds them. Calibrate at
# the sizes you will measure: LU's panel and the column updates have one task size per
# step, so a size calibrates the steps of smaller ones only in part.
# Then, per starsolve codelet, the model's entries (task size footprint, mean us, samples)
# for each kind of worker, with starpu_perfmodel_display (Debian: starpu-tools); without
# it, the list of model files.
# BINDIR holds the drivers (a build's examples/, default ./examples).
set -u
ops="getrf getrf_nopiv potrf geqrf" sizes="2048 4096" nb=0 ngpus=-1 runs=11
usage="usage: bash bench/calibrate.sh [--ops O] [--sizes S] [--nb NB] [--ngpus G] [--runs K] [BINDIR]"
while [ $# -gt 0 ]; do
  case $1 in
    --ops) ops=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --nb) nb=$2; shift 2 ;;
    --ngpus) ngpus=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --*) echo "$usage" >&2; exit 2 ;;
    *) break ;;
  esac
done
bin=${1:-./examples}
# shellcheck source=bench/drivers.sh
. "$(dirname "$0")/drivers.sh"
home=${STARPU_HOME:-$HOME}/.starpu
status=0
for op in $ops; do
  driver=$(driver_of "$op" "$bin") || { echo "calibrate.sh: unknown op $op" >&2; echo "$usage" >&2; exit 2; }
  for n in $sizes; do
    start=$(date +%s.%N)
    # shellcheck disable=SC2086 # driver is a list of words
    if STARPU_CALIBRATE=1 $driver -n "$n" -nb "$nb" -ngpus "$ngpus" -niter "$runs" --csv > /dev/null 2> /tmp/calibrate.$$; then
      printf "calibrate.sh: %-12s n=%-6s %3d runs, %.1f s\n" "$op" "$n" "$runs" "$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')"
    else
      echo "calibrate.sh: $op n=$n failed:" >&2
      tail -3 /tmp/calibrate.$$ >&2
      status=1
    fi
  done
done
rm -f /tmp/calibrate.$$

echo
echo "perfmodels in $home/sampling/codelets:"
if command -v starpu_perfmodel_display > /dev/null; then
  for symbol in $(starpu_perfmodel_display -l 2>/dev/null | sed -n 's/.*<\(starsolve_[a-z_]*\)\.[^>]*>.*/\1/p' | sort -u); do
    echo "== $symbol (per kind of worker: footprint, data bytes, flops, mean us, stddev us, samples)"
    starpu_perfmodel_display -s "$symbol" 2>/dev/null | grep -v '^#' | awk 'NF' | head -40
  done
else
  echo "(starpu_perfmodel_display not found: apt-get install starpu-tools; the model files are:)"
  find "$home/sampling/codelets" -name 'starsolve_*' 2>/dev/null | sort
fi
exit $status
