#!/bin/bash
# Compare variants of one factorization in one command: the same driver, the
# same matrix, one set of extra flags per variant, rounds interleaved so that a
# drift of the machine falls on every variant alike.
#
#   bash bench/variants.sh [--op getrf|getrf_nopiv|potrf|geqrf] [--sizes "16384 40000"] [--niter 2]
#                          [--rounds 1] [--ngpus 1] [--check 1] BINDIR OUTDIR "FLAGS 1" "FLAGS 2" ...
#
# e.g. bash bench/variants.sh --op getrf --sizes 40000 bin out "-update-tiles 1" "-update-tiles 0"
# A flag set may start with NAME=value words: environment settings for its runs.
# Every run is checked (-check) unless --check 0 (timing sweeps: at n = 40000 the
# generation and the check take most of a run's minute; the checks section tests accuracy). Before timing, each variant runs three times at n=8192
# and once at the largest size with STARPU_CALIBRATE=1 (perfmodels in OUTDIR/starpu-home), and the first run of
# every size counts as calibration too: the table keeps the best of the later ones
# (--niter 2: one calibrating, one timed; raise it for more).
# Output: one line per size and variant (best seconds, TF/s, berr), raw CSV in OUTDIR/variants.csv.
set -u
op=getrf sizes="16384 40000" niter=2 rounds=1 ngpus=1 check=1
usage="usage: bash bench/variants.sh [--op OP] [--sizes S] [--niter K] [--rounds R] [--ngpus G] [--check 0|1] BINDIR OUTDIR FLAGS..."
while [ $# -gt 0 ]; do
  case $1 in
    --op) op=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --niter) niter=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --ngpus) ngpus=$2; shift 2 ;;
    --check) check=$2; shift 2 ;;
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

# A flag set's leading NAME=value words are environment settings for its runs
# (e.g. "STARPU_CUDA_THREAD_PER_WORKER=1 -ncpus 4"); run_variant FLAGS ARGS...
run_variant() {
  local envs=() words=()
  # shellcheck disable=SC2086 # a flag set is a list of words
  set -- $1 "${@:2}"
  while [ $# -gt 0 ] && [[ $1 =~ ^[A-Za-z_][A-Za-z0-9_]*= ]]; do envs+=("$1"); shift; done
  words=("$@")
  # shellcheck disable=SC2086 # driver is a list of words
  env "${envs[@]}" $driver "${words[@]}"
}
# the panels' and updates' regression models predict within the sizes seen (gpu.sh)
largest=$(printf '%s\n' $sizes | sort -g | tail -1)
for flags in "$@"; do
  STARPU_CALIBRATE=1 run_variant "$flags" -n 8192 -ngpus "$ngpus" -niter 3 --csv > /dev/null 2>&1
  [ "$largest" -gt 8192 ] && STARPU_CALIBRATE=1 run_variant "$flags" -n "$largest" -ngpus "$ngpus" -niter 1 --csv > /dev/null 2>&1
done
declare -A best
for n in $sizes; do
  for r in $(seq "$rounds"); do
    for flags in "$@"; do
      checkflag=-check
      [ "$check" = 0 ] && checkflag=
      # shellcheck disable=SC2086 # checkflag is empty or one word
      line=$(run_variant "$flags" -n "$n" -ngpus "$ngpus" -niter "$niter" $checkflag --csv 2>>"$out/variants.err" \
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
