#!/bin/bash
# On the GPU machine: unpack a scripts/device-bundle.sh archive and run the
# chosen sections, logs in OUTDIR. Each device call is limited to 10 minutes, so
# a call picks the sections it has time for.
#   bash bench/device-check.sh BUNDLE.tar.xz OUTDIR [--do "tests checks stats rbt gpu"] [gpu.sh options...]
# Sections:
#   tests   the test programs with one CUDA worker (small tiles: CPU and GPU codelets both run);
#           SS_TESTS="test_lu ..." picks some; SS_TEST_CPUS=0: with no CPU worker (every task on the GPU)
#   checks  the drivers' residual checks on one GPU: LU and Cholesky at n=8192 in
#           all four precisions, QR/RBT/batched/SPIKE in d and z
#   stats   starpu_lu and starpu_cholesky -n 16384 -stats after calibration:
#           StarPU's per-worker busy/idle time and the bytes moved (where time goes)
#   rbt     bench/rbt.sh at 20000 and 40000 (RBT_SIZES) on one GPU, library tile sizes, best of RBT_NITER (2)
#   panel   bench/panel_cost: one LU panel, one potrf tile, one column GEMM, each alone
#   trace   for each of TRACE_OPS (default "getrf potrf getrf_nopiv") at n = TRACE_N
#           (default 40000), driver flags TRACE_FLAGS (e.g. "-nb 3072"): calibrate at 8192 and TRACE_N,
#           TRACE_NITER (default 2) runs under FxT, then
#           bench/trace-summary.sh on the second run (trace-OP.txt: per worker,
#           per codelet in stream order, panel overlap, 50 ms timeline)
#   batched our batched GPU kernels (issue 6): bench/batched_gpu -test in s, d, c, z (LU,
#           Cholesky L/U, QR at 1..512 with singular / non-SPD members, small-size kernels and
#           forced panel widths), then the table ours vs cuBLAS/cuSOLVER's batched routines,
#           in BATCHED_PRECS (default d; session 51's weak orders showed in s, c, z only),
#           m = BATCHED_SIZES (default 8 16 24 32 48 64 128 256 512), about BATCHED_MIB
#           (1024) MiB of matrices in GPU memory, no host copies; then test_batched with a
#           CUDA worker and starpu_batched -vendor -ngpus 1 at m = 64 and 256 (the library
#           call, transfers included, ours vs the vendor's routines in the CUDA variant)
#   spike   SPIKE on one GPU (issue 7): test_spike with a CUDA worker, a small run of the GPU
#           kernels under compute-sanitizer (racecheck, then memcheck; with further solves of a kept
#           factorization), then bench/spike.sh at N = 1e6, K = SPIKE_KS (default "1 32 64 128") with
#           one GPU (second solves against dgbsv / dgbtrs, and cuSPARSE gtsv2 at K = 1)
#   bigger  larger than GPU memory (issue 8 item 3): starpu_lu and starpu_cholesky at
#           n = BIG_N (default 110000, 97 GB in double) on one GPU, -check regenerating A
#           (no room for a copy), -stats for the bytes moved; then the in-core n = 40000
#           run of each for the TF/s ratio
#   gpu     bench/gpu.sh with the remaining options (e.g. --ops "getrf potrf")
#   variants bench/variants.sh with the remaining arguments: its options, then one
#           flag set per variant (not together with gpu: both take the rest of the line)
set -u
bundle=$1 out=$2
shift 2
sections="tests checks"
if [ "${1:-}" = --do ]; then sections=$2; shift 2; fi
root=/tmp/starsolve-bundle
rm -rf "$root" && mkdir -p "$root" && tar xJf "$bundle" -C "$root" || exit 1
export LD_LIBRARY_PATH=$root/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PATH=$root/bin:$PATH
# Debian's OpenBLAS misdetects this CPU (BASELINES.md): name the core type
export OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-SkylakeX}
export STARPU_HOME=/tmp/starsolve-starpu-home STARPU_SILENT=1
# A run in which no task ends for 2 minutes is stuck (session 34: a degenerate perfmodel made
# modular-heft-prio hold a task for good, and two calls spent their 10 minutes waiting): StarPU's
# watchdog then names it and ends the program, and the call goes on with its other sections.
# The longest task here (a 5000-tile GEMM column on one core, out of core) is well under that.
export STARPU_WATCHDOG_TIMEOUT=${STARPU_WATCHDOG_TIMEOUT:-120000000} STARPU_WATCHDOG_CRASH=${STARPU_WATCHDOG_CRASH:-1}
mkdir -p "$out" "$STARPU_HOME"
nvidia-smi -L; nproc
here=$(cd "$(dirname "$0")" && pwd)
wants() { [[ " $sections " == *" $1 "* ]]; }
stamp() { echo "--- $(date +%T) $*"; }

if wants tests; then
  stamp "test programs with one CUDA worker${SS_TEST_CPUS:+ and $SS_TEST_CPUS CPU workers}"
  for t in ${SS_TESTS:-test_desc test_lu test_cholesky test_qr test_rbt test_batched test_spike test_threads}; do
    env STARSOLVE_TEST_GPUS=1 ${SS_TEST_CPUS:+STARSOLVE_TEST_CPUS=$SS_TEST_CPUS} timeout 90 "$t" > "$out/$t.log" 2>&1
    echo "$t rc=$? $(tail -1 "$out/$t.log")"
  done
  # concurrent calls with the tridiagonal path's GPU chunk (the tests' bands are pageable: it is forced)
  env STARSOLVE_SPIKE_TRI_GPU_SHARE=0.5 STARSOLVE_TEST_GPUS=1 ${SS_TEST_CPUS:+STARSOLVE_TEST_CPUS=$SS_TEST_CPUS} timeout 90 test_threads \
    > "$out/test_threads-tri-gpu.log" 2>&1
  echo "test_threads, the tridiagonal path's GPU chunk forced: rc=$? $(tail -1 "$out/test_threads-tri-gpu.log")"
fi

check() {   # one driver run with -check on one GPU, its CSV's last line and rc
  # 120 s: the exact QR checks of a 16384 x 2048 complex matrix take a minute on their own
  csv=$(timeout 120 "$@" -ngpus 1 -check --csv 2>>"$out/checks.err")
  echo "$*: rc=$? $(echo "$csv" | tail -1)"
}
if wants checks; then
  stamp "residual checks on one GPU"
  for p in s d c z; do
    for d in "starpu_lu" "starpu_lu -nopiv" "starpu_cholesky" "starpu_cholesky -uplo U"; do
      check $d -n 8192 -prec $p
    done
  done | tee "$out/checks.log"
  for p in d z; do
    for d in "starpu_qr -n 8192" "starpu_qr -m 16384 -n 2048" "starpu_rbt -n 8192" \
             "starpu_batched -op getrf -m 64 -batch 2000" "starpu_batched -op potrf -m 64 -batch 2000" \
             "starpu_batched -op geqrf -m 64 -batch 2000" "starpu_spike -n 200000 -k 32"; do
      check $d -prec $p
    done
  done | tee -a "$out/checks.log"
fi

if wants stats; then
  stamp "where time goes at n=16384 (calibrated at 8192 first)"
  for d in starpu_lu starpu_cholesky; do
    STARPU_CALIBRATE=1 $d -n 8192 -nb 1024 -ngpus 1 -niter 3 --csv > /dev/null 2>&1
    $d -n 16384 -nb 1024 -ngpus 1 -niter 2 -stats > "$out/stats-$d.log" 2>&1
    echo "$d rc=$?"; grep -E "^driver|seconds|GFlop" "$out/stats-$d.log" | head -5
  done
fi

if wants rbt; then
  stamp "bench/rbt.sh at 20000 and 40000 on one GPU"
  bash "$here/rbt.sh" --sizes "${RBT_SIZES:-20000 40000}" --ngpus 1 --niter "${RBT_NITER:-2}" "$root/bin" | tee "$out/rbt.log"
fi

if wants panel; then
  stamp "bench/panel_cost"
  panel_cost | tee "$out/panel_cost.log"
fi

if wants trace; then
  . "$here/drivers.sh"
  for op in ${TRACE_OPS:-getrf potrf getrf_nopiv}; do
    stamp "FxT trace of $op at n=${TRACE_N:-40000}"
    for i in 1 2 3; do
      STARPU_CALIBRATE=1 $(driver_of $op "$root/bin") -n 8192 -ngpus 1 ${TRACE_FLAGS:-} --csv > /dev/null 2>&1
    done
    # the panels' and updates' regression models predict within the sizes seen (gpu.sh)
    STARPU_CALIBRATE=1 $(driver_of $op "$root/bin") -n "${TRACE_N:-40000}" -ngpus 1 ${TRACE_FLAGS:-} --csv > /dev/null 2>&1
    rm -rf "$out/fxt-$op" && mkdir -p "$out/fxt-$op"
    $(driver_of $op "$root/bin") -n "${TRACE_N:-40000}" -ngpus 1 -niter "${TRACE_NITER:-2}" ${TRACE_FLAGS:-} -fxt "$out/fxt-$op" 2>&1 | grep -v '^\[starpu'
    LAST_RUN=1 bash "$here/trace-summary.sh" "$out/fxt-$op" 50 > "$out/trace-$op.txt" 2>&1
    grep -A30 '^GPU workers' "$out/trace-$op.txt"
    # keep the task records (compressed) and drop the rest: a device call returns few files
    gzip -c "$out/fxt-$op/tasks.rec" > "$out/tasks-$op.rec.gz" 2>/dev/null
    # and what the GPU workers' threads did between tasks (trace.rec: FetchingInput,
    # Progressing, Sleeping, ...), and the bus transfers (paje links): latencies
    gpus=$(awk -F'\t' '$1 == 7 && $4 == "W" && $6 !~ /^CPU/ { sub(/^w/, "", $3); print $3 }' "$out/fxt-$op/paje.trace")
    awk -v gpus="$gpus" 'BEGIN { RS = ""; n = split(gpus, g, "\n"); for (i = 1; i <= n; i++) keep["W: " g[i]] = 1 }
         { for (f = 1; f <= NF; f++) if ($f in keep) { print $0 "\n"; break } }' FS='\n' "$out/fxt-$op/trace.rec" |
      gzip > "$out/states-$op.rec.gz"
    awk -F'\t' '$1 == 18 || $1 == 19' "$out/fxt-$op/paje.trace" | gzip > "$out/links-$op.gz"
    rm -rf "$out/fxt-$op"
  done
fi

if wants batched; then
  stamp "batched: kernel tests (s d c z)"
  timeout 300 batched_gpu -test > "$out/batched-test.log" 2>&1
  echo "batched_gpu -test rc=$? $(grep -c '^ok' "$out/batched-test.log") ok, $(grep -c '^FAIL' "$out/batched-test.log") FAIL"
  grep -E '^FAIL|failed$' "$out/batched-test.log" | head -20
  for prec in ${BATCHED_PRECS:-d}; do
    stamp "batched: ours vs the vendor's on the GPU, precision $prec, no copies"
    timeout 300 batched_gpu -sizes "${BATCHED_SIZES:-8 16 24 32 48 64 128 256 512}" -mib "${BATCHED_MIB:-1024}" -niter 3 \
      -prec "$prec" 2>&1 | tee -a "$out/batched-gpu.log"
  done
  stamp "batched: test_batched with one CUDA worker; starpu_batched -vendor -ngpus 1"
  STARSOLVE_TEST_GPUS=1 timeout 90 test_batched > "$out/test_batched-gpu.log" 2>&1
  echo "test_batched rc=$? $(tail -1 "$out/test_batched-gpu.log")"
  for op in getrf potrf geqrf; do
    for m in 64 256; do
      # within one 10-minute device call: no new driver run past 8 minutes
      [ "$SECONDS" -lt 480 ] || { echo "$op m=$m: skipped (time)"; continue; }
      batch=$(( 256 * 1024 * 1024 / (8 * m * m) ))
      STARPU_CALIBRATE=1 timeout 40 starpu_batched -op $op -m $m -batch $batch -ngpus 1 > /dev/null 2>&1
      echo "$op m=$m batch=$batch: $(timeout 40 starpu_batched -op $op -m $m -batch $batch -ngpus 1 -niter 3 -check -vendor 2>&1 |
        grep -E 'reference \(|FAIL|rror' | tail -2)"
    done
  done | tee "$out/batched-driver.log"
fi

if wants spike; then
  stamp "spike: bench/spike_gpu -test (band matvec and updates against a host reference, s d c z), then timed"
  timeout 60 spike_gpu -test 2>&1 | tail -6
  timeout 60 spike_gpu -n 500000 -k 32 -prec dz 2>&1 | tee "$out/spike_gpu.log"
  stamp "spike: test_spike with one CUDA worker"
  STARSOLVE_TEST_GPUS=1 timeout 120 test_spike > "$out/test_spike-gpu.log" 2>&1
  echo "test_spike rc=$? $(tail -1 "$out/test_spike-gpu.log")"
  # the tests' bands are pageable, so the tridiagonal path runs on the CPU chunks there (src/zgbsv_spike.c:
  # tri_gpu_share): its GPU chunk beside them and its GPU task (share 1) forced too
  for share in 0.5 1; do
    STARSOLVE_SPIKE_TRI_GPU_SHARE=$share STARSOLVE_TEST_GPUS=1 timeout 120 test_spike > "$out/test_spike-gpu-tri$share.log" 2>&1
    echo "test_spike, the tridiagonal path's GPU share $share: rc=$? $(tail -1 "$out/test_spike-gpu-tri$share.log")"
  done
  sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for tool in racecheck memcheck; do
    stamp "spike: compute-sanitizer --tool $tool, n 8000, k 4, 80 partitions on the GPU"
    STARPU_NCPU=1 timeout 75 "$sanitizer" --tool $tool --error-exitcode 9 starpu_spike -n 8000 -k 4 -ngpus 1 \
      -psize 100 -check -resolve 2 > "$out/spike-$tool.log" 2>&1
    echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|resid' "$out/spike-$tool.log" | tail -2 | tr '\n' ' ')"
    timeout 75 "$sanitizer" --tool $tool --error-exitcode 9 spike_gpu -test > "$out/spike_gpu-$tool.log" 2>&1
    echo "spike_gpu -test $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/spike_gpu-$tool.log" | tail -1)"
  done
  stamp "spike: starpu_spike -n 1000000 -k 32 -ngpus 1 -niter 4 -check -stats (per-call times, bytes moved)"
  timeout 120 starpu_spike -n 1000000 -k 32 -ngpus 1 -niter 4 -check -stats > "$out/spike-stats.log" 2>&1
  grep -vE '^\[starpu' "$out/spike-stats.log" | grep -E 'run |resid|GB|MB|rror' | head -30
  stamp "spike: bench/spike.sh, one GPU"
  timeout 300 bash "$here/spike.sh" --n 1000000 --ks "${SPIKE_KS:-1 32 64 128}" --niter 3 --ngpus 1 "$root/bin" |
    tee "$out/spike-gpu.log"
fi

if wants bigger; then
  big=${BIG_N:-110000}
  for d in starpu_lu starpu_cholesky; do
    stamp "bigger: $d -n $big on one GPU (calibrated at 40000 first), -check regenerating A, -stats"
    STARPU_CALIBRATE=1 timeout 100 $d -n 40000 -ngpus 1 --csv > /dev/null 2>&1
    timeout 100 $d -n 40000 -ngpus 1 -niter 2 2>&1 | grep -v '^\[starpu' | tee -a "$out/bigger.log"
    timeout "${BIG_TIMEOUT:-230}" $d -n "$big" -ngpus 1 -check -stats > "$out/bigger-$d.log" 2>&1
    echo "$d -n $big rc=$?"; grep -E "run 1/|regenerat|GiB|rror" "$out/bigger-$d.log" | tee -a "$out/bigger.log"
  done
fi

if wants gpu; then
  stamp "bench/gpu.sh $*"
  bash "$here/gpu.sh" "$@" "$root/bin" "$out"
fi
if wants variants; then
  stamp "bench/variants.sh $*"
  opts=()
  while [ $# -gt 0 ] && [[ $1 == --* ]]; do opts+=("$1" "$2"); shift 2; done
  bash "$here/variants.sh" "${opts[@]}" "$root/bin" "$out" "$@" 2>&1 | tee -a "$out/variants.log"
fi
stamp done
