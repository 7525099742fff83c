#!/bin/sh
# make check: distributed factorizations as 4 MPI processes: tests/test_mpi (the
# library, four precisions, three grids), then the drivers under mpirun with -P.
# More processes than cores is fine for these small matrices (--oversubscribe);
# CI runs as root, which OpenMPI refuses unless told. A hang fails (timeout).
# The limits are wide: on the 2-core machine the 4 processes' 12 threads (main, CPU
# worker, StarPU-MPI's progression thread) all poll, and tests/test_mpi alone took
# from 113 to 256 s in quiet runs and once past 300 s (NOTES, session 45).
top=${top_builddir:-.}
command -v mpirun > /dev/null || { echo "SKIP: no mpirun"; exit 77; }
export STARSOLVE_TEST_TIMEOUT=840   # test_mpi's own watchdog, under mpirun's limit
# Each process binds its CPU worker to the first core and its StarPU-MPI thread to the next, so
# on 2 cores four spinning workers shared core 0 and four MPI threads core 1. Unbound, the kernel
# spreads them: tests/test_mpi took 186-193 s in three runs, against 202-265 s bound (NOTES, session 46).
export STARPU_WORKERS_NOBIND=1 STARPU_MPI_NOBIND=1
run() { timeout 900 mpirun --oversubscribe --allow-run-as-root -np 4 --mca btl self,vader "$@"; }
status=0
run "$top/tests/test_mpi" || status=1
# the drivers: one result line from process 0, checks passed (the drivers exit nonzero otherwise)
for d in "starpu_lu -P 2 -n 130" "starpu_lu -P 2 -gather-panel" "starpu_lu -P 4 -nopiv" "starpu_lu -P 1 -n 333 -nb 64 -nrhs 2" \
         "starpu_cholesky -P 2" "starpu_cholesky -P 4 -uplo U" "starpu_qr -P 1" "starpu_qr -P 1 -m 333 -n 200" \
         "starpu_qr -P 2" "starpu_qr -P 4 -m 333 -n 200 -nb 48" \
         "starpu_rbt -P 2 -nrhs 2" "starpu_rbt -P 1 -n 203 -depth 3" \
         "starpu_rbt -P 2 -matrix ris -n 200 -nb 32 -nrhs 2 -refine 3"; do
  # shellcheck disable=SC2086 # d is a list of words: the driver, then flags that win over the common ones
  set -- $d
  drv=$1
  shift
  out=$(run "$top/examples/$drv" -n 300 -nb 64 -ncpus 1 -check -niter 2 "$@" 2>&1)
  rc=$?
  lines=$(echo "$out" | grep -c "run [12]/2: factor")
  if [ $rc -ne 0 ] || [ "$lines" -ne 2 ]; then
    echo "FAIL: mpirun -np 4 $d: rc=$rc, $lines result lines"; echo "$out" | grep -v '^\[' | tail -5; status=1
  else
    echo "ok   mpirun -np 4 $d: $(echo "$out" | grep 'run 2/2' | sed 's/.*factor/factor/')"
  fi
done
# a grid that does not divide the processes: a one-line message and a usage error, no hang
out=$(run "$top/examples/starpu_lu" -P 3 -n 100 -ncpus 1 2>&1)
rc=$?
if [ $rc -eq 0 ] || ! echo "$out" | grep -q "does not divide"; then
  echo "FAIL: starpu_lu -P 3 on 4 processes: rc=$rc"; status=1
else
  echo "ok   starpu_lu -P 3 on 4 processes refused: $(echo "$out" | grep 'does not divide' | head -1)"
fi
exit $status
