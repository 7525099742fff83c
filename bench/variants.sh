#!/bin/bash
# Compare variants of one factorization in one command: the same driver, the
# same matrix, one set of extra flags per variant, rounds interleaved so that a
# drift of the machine falls on every variant alike.
#
#   bash bench/variants.sh [--op getrf|getrf_nopiv|potrf|geqrf] [--sizes "16384 40000"] [--niter 2]
#                          [--rounds 1] [--ngpus 1] BINDIR OUTDIR "FLAGS 1" "FLAGS 2" ...
#
# e.g. bash bench/variants.sh --op getrf --sizes 40000 bin out "-update-tiles 1" "-update-tiles 0"
# Every run is checked (-check). Before timing, each variant runs once at n=8192
# with STARPU_CALIBRATE=1 (perfmodels in OUTDIR/starpu-home), and the first run of
# every size counts as calibration too: the table keeps the best of the later ones
# (--niter 2: one calibrating, one timed; raise it for more).
# Output: one line per size and variant (best seconds, TF/s, berr), raw CSV in OUTDIR/variants.csv.
set -u
op=getrf sizes="16384 40000" niter=2 rounds=1 ngpus=1
usage="usage: bash bench/variants.sh [--op OP] [--sizes S] [--niter K] [--rounds R] [--ngpus G] BINDIR OUTDIR FLAGS..."
while [ $# -gt 0 ]; do
  case $1 in
    --op) op=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --niter) niter=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --ngpus) ngpus=$2; shift 2 ;;
    --*) echo "$usage" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -ge 3 ] || { echo "$usage" >&2; exit 2; }
bin=$1 out=$2
shift 2
# shellcheck source=bench/drivers.sh
. "$(dirname "$0")/drivers.sh"
driver=$(driver_of "$op" "$bin") || { echo "$usage" >&2; exit 2; }
[ "$niter" -ge 2 ] || { echo "variants.sh: --niter must be at least 2 (the first run of a size calibrates)" >&2; exit 2; }
mkdir -p "$out"
export STARPU_HOME=${STARPU_HOME:-$out/starpu-home} STARPU_SILENT=1
mkdir -p "$STARPU_HOME"
csv=$out/variants.csv

for flags in "$@"; do
  # shellcheck disable=SC2086 # flags and driver are lists of words
  STARPU_CALIBRATE=1 $driver -n 8192 -ngpus "$ngpus" $flags -niter 3 --csv > /dev/null 2>&1
done
declare -A best
for n in $sizes; do
  for r in $(seq "$rounds"); do
    for flags in "$@"; do
      # shellcheck disable=SC2086
      line=$($driver -n "$n" -ngpus "$ngpus" $flags -niter "$niter" -check --csv 2>>"$out/variants.err" \
             | tee -a "$csv" | grep -v '^driver' | tail -n +2 | sort -t, -k10 -g | head -1)
      [ -n "$line" ] || line="failed"
      key="$n|$flags"
      old=${best[$key]:-}
      if [ -z "$old" ] || [ "$old" = failed ] || { [ "$line" != failed ] && \
           awk -F, -v a="$line" -v b="$old" 'BEGIN { split(a, x, ","); split(b, y, ","); exit !(x[10] < y[10]) }'; }; then
        best[$key]=$line
      fi
    done
  done
  for flags in "$@"; do
    printf "%-12s %-6s %-36s " "$op" "$n" "$flags"
    echo "${best[$n|$flags]}" | awk -F, '$0 == "failed" { print "failed (see variants.err)"; next }
        { printf "%8.3f s %7.2f TF/s  nb %-5s berr %s\n", $10, $11 / 1000, $5, $13 }'
  done
done
