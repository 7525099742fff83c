#!/bin/bash
# CPU benchmark: starsolve against OpenBLAS's own LAPACK, in one run, on the same cores.
#
#   bash bench/cpu.sh [--log FILE] [--sizes "4096 8192"] [--ops "getrf potrf geqrf"] [--niter 3] [--rounds 1] [BUILD_DIR]
#
# For each size n and operation: OpenBLAS (bench/lapack_ref) then starsolve:
# getrf: OpenBLAS dgetrf, starpu_lu (partial pivoting); potrf: OpenBLAS dpotrf,
# starpu_cholesky; geqrf: OpenBLAS dgeqrf, starpu_qr. Double precision, -check on every
# timed run, the best of --niter runs kept. Both sides use every core: OpenBLAS
# with OPENBLAS_NUM_THREADS = nproc threads, StarPU with nproc CPU workers and
# no GPU. Before its timed runs each driver runs once at that size with
# STARPU_CALIBRATE=1 (not timed) so that dmdas schedules with measured task
# costs; the perfmodels go to a private STARPU_HOME under BUILD_DIR, never ~/.starpu.
# --rounds R repeats the whole sequence R times (calibrating in the first round
# only) and keeps the best over all rounds: on a machine whose load comes and
# goes, both sides then get the same chances of a quiet moment.
# The script measures how busy the cores are before it starts and warns when
# something else is running: such numbers compare nothing.
#
# Output: the runs as they go (stderr), then a table n, op, OpenBLAS GF/s,
# starsolve GF/s, ratio. Every CSV line of every run (calibration included, first
# column `phase`) goes to the log file (default BUILD_DIR/bench/cpu-DATE.csv).
# Exit status: 0 if every run succeeded and passed its check, 1 otherwise, 2 bad usage.
set -u

usage() { echo "usage: bash bench/cpu.sh [--log FILE] [--sizes \"4096 8192\"] [--ops \"getrf potrf geqrf\"] [--niter K] [--rounds R] [BUILD_DIR]" >&2; exit 2; }

builddir=./ log='' sizes="4096 8192" ops="getrf potrf geqrf" niter=3 rounds=1
while [ $# -gt 0 ]; do
  case $1 in
    --log)   [ $# -ge 2 ] || usage; log=$2; shift 2 ;;
    --sizes) [ $# -ge 2 ] || usage; sizes=$2; shift 2 ;;
    --ops)   [ $# -ge 2 ] || usage; ops=$2; shift 2 ;;
    --niter) [ $# -ge 2 ] || usage; niter=$2; shift 2 ;;
    --rounds) [ $# -ge 2 ] || usage; rounds=$2; shift 2 ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    -*) usage ;;
    *) builddir=$1; shift ;;
  esac
done
case $niter in ''|*[!0-9]*|0) usage ;; esac
case $rounds in ''|*[!0-9]*|0) usage ;; esac
for n in $sizes; do case $n in *[!0-9]*|0) usage ;; esac; done
for op in $ops; do case $op in getrf|potrf|geqrf) ;; *) usage ;; esac; done
[ -d "$builddir" ] || { echo "cpu.sh: no build directory $builddir" >&2; exit 2; }
builddir=$(cd "$builddir" && pwd)
lu=$builddir/examples/starpu_lu chol=$builddir/examples/starpu_cholesky qr=$builddir/examples/starpu_qr
ref=$builddir/bench/lapack_ref
for p in "$lu" "$chol" "$qr" "$ref"; do
  [ -x "$p" ] || { echo "cpu.sh: $p not built (make in $builddir; bench/lapack_ref: make bench/lapack_ref)" >&2; exit 2; }
done
mkdir -p "$builddir/bench"
[ -n "$log" ] || log=$builddir/bench/cpu-$(date +%Y%m%d-%H%M%S).csv
: > "$log" || exit 2

# The same cores for both sides, and nothing from the caller's environment
# silently changing worker counts, the scheduler or the calibration.
ncores=$(nproc)
unset STARPU_NCPU STARPU_NCPUS STARPU_SCHED STARPU_CALIBRATE STARPU_WORKERS_CPUID
export STARPU_NCUDA=0 STARPU_NOPENCL=0 STARPU_SILENT=1
export STARPU_HOME=$builddir/bench/starpu-home
export OPENBLAS_NUM_THREADS=$ncores
mkdir -p "$STARPU_HOME"

echo "cpu.sh: $ncores cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')):" \
     "OpenBLAS with $ncores threads, StarPU with $ncores CPU workers, no GPU"
echo "cpu.sh: sizes $sizes, $rounds round(s) of $niter runs each, best kept, -check on every timed run"

# Busy cores before we start (from /proc/stat over 2 s): another job on them
# takes cycles from whichever side happens to run at that moment.
busy_percent() {
  local a b
  a=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat)
  sleep 2
  b=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat)
  echo "$a $b" | awk '{ t = $4 - $2; print (t > 0 ? int(100 * ($3 - $1) / t + 0.5) : 0) }'
}
busy=$(busy_percent)
echo "cpu.sh: cores busy before the benchmark: $busy% (load average $(cut -d' ' -f1-3 /proc/loadavg))"
if [ "$busy" -gt 10 ]; then
  echo "cpu.sh: WARNING: something else is using the cores; these numbers will not compare the libraries:"
  ps -eo pcpu=,args= --sort=-pcpu | awk '$1 > 5' | head -n 5 | cut -c1-100 | sed 's/^/cpu.sh:   /'
fi
echo "cpu.sh: StarPU perfmodels in $STARPU_HOME; each driver is calibrated first (STARPU_CALIBRATE=1, one untimed run per size)"
echo "cpu.sh: raw CSV -> $log"

failed=0
# run PHASE COMMAND...: run with --csv, append its CSV lines to the log, first column PHASE
run() {
  local phase=$1 out rc
  shift
  out=$("$@" --csv)
  rc=$?
  if [ ! -s "$log" ]; then printf '%s\n' "$out" | head -n 1 | sed 's/^/phase,/' >> "$log"; fi
  printf '%s\n' "$out" | tail -n +2 | sed "s/^/$phase,/" >> "$log"
  if [ $rc -ne 0 ]; then
    echo "cpu.sh: FAILED (exit status $rc): $*" >&2
    failed=1
  fi
}

# the starsolve driver of each operation
driver_of() { case $1 in getrf) echo "$lu" ;; potrf) echo "$chol" ;; geqrf) echo "$qr" ;; esac; }

for round in $(seq "$rounds"); do
  for n in $sizes; do
    for op in $ops; do
      ours=$(driver_of "$op")
      run timed "$ref" -op "$op" -n "$n" -niter "$niter" -check
      if [ "$round" -eq 1 ]; then
        echo "cpu.sh: calibrating $(basename "$ours") at n=$n (not timed)" >&2
        run calibrate env STARPU_CALIBRATE=1 "$ours" -n "$n" -ncpus "$ncores" -ngpus 0
      fi
      run timed "$ours" -n "$n" -ncpus "$ncores" -ngpus 0 -niter "$niter" -check
    done
  done
done

# The table: best GF/s of the timed runs that succeeded (info 0, check passed).
echo
awk -F, -v sizes="$sizes" -v ops="$ops" '
  NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  $col["phase"] != "timed" { next }
  {
    berr = $col["berr"]; resid = $col["resid"]
    ok = $col["info"] == 0 && (berr == "-" || (berr != "nan" && berr + 0 <= 30)) && (resid == "-" || (resid != "nan" && resid + 0 <= 30))
    if (!ok) next
    key = $col["driver"] SUBSEP $col["n"]
    if (!(key in best) || $col["gflops"] + 0 > best[key]) best[key] = $col["gflops"] + 0
  }
  END {
    printf "%-6s %-6s %14s %15s %7s\n", "n", "op", "OpenBLAS GF/s", "starsolve GF/s", "ratio"
    split(sizes, ns, " ")
    for (k = 1; k in ns; k++) {
      n = ns[k]
      nops = split(ops, op, " ")
      for (o = 1; o <= nops; o++) {
        drv = op[o] == "getrf" ? "starpu_lu" : op[o] == "potrf" ? "starpu_cholesky" : "starpu_qr"
        ref = (("openblas_" op[o]) SUBSEP n); ours = (drv SUBSEP n)
        r = (ref in best) ? sprintf("%.2f", best[ref]) : "-"
        s = (ours in best) ? sprintf("%.2f", best[ours]) : "-"
        q = (ref in best) && (ours in best) && best[ref] > 0 ? sprintf("%.2f", best[ours] / best[ref]) : "-"
        printf "%-6s %-6s %14s %15s %7s\n", n, op[o], r, s, q
      }
    }
  }' "$log"
echo "(best of $((rounds * niter)) runs; getrf = partial pivoting on both sides; target: ratio >= 0.80)"
echo "cpu.sh: cores busy before: $busy%; load average now $(cut -d' ' -f1-3 /proc/loadavg)"
[ $failed -eq 0 ] || echo "cpu.sh: some runs FAILED: see above and $log"
exit $failed
