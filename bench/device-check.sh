#!/bin/bash
# On the GPU machine: unpack a scripts/device-bundle.sh archive, run the test
# programs with one CUDA worker, the drivers' residual checks in all four
# precisions at n=8192 on one GPU (LU, Cholesky, QR, RBT, batched), then
# bench/gpu.sh (e.g. --ops "getrf potrf geqrf" --tall 1000000x512). Logs go to OUTDIR.
#   bash bench/device-check.sh BUNDLE.tar.xz OUTDIR [gpu.sh options...]
set -u
bundle=$1 out=$2
shift 2
root=/tmp/starsolve-bundle
rm -rf "$root" && mkdir -p "$root" && tar xJf "$bundle" -C "$root" || exit 1
export LD_LIBRARY_PATH=$root/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PATH=$root/bin:$PATH
# Debian's OpenBLAS misdetects this CPU (BASELINES.md): name the core type
export OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-SkylakeX}
export STARPU_HOME=/tmp/starsolve-starpu-home STARPU_SILENT=1
mkdir -p "$out" "$STARPU_HOME"
nvidia-smi -L; nproc
here=$(cd "$(dirname "$0")" && pwd)

echo "=== test programs with one CUDA worker (small tiles: CPU and GPU codelets both run)"
for t in test_desc test_lu test_cholesky test_qr test_rbt test_batched; do
  STARSOLVE_TEST_GPUS=1 timeout 300 "$t" > "$out/$t.log" 2>&1
  echo "$t rc=$? $(tail -1 "$out/$t.log")"
done

echo "=== residual checks at n=8192 on one GPU, every precision"
for p in s d c z; do
  for d in "starpu_lu" "starpu_lu -nopiv" "starpu_cholesky" "starpu_cholesky -uplo U"; do
    csv=$($d -n 8192 -ngpus 1 -prec $p -check --csv 2>>"$out/checks.err")
    echo "$p $d: rc=$? $(echo "$csv" | tail -1)"
  done
done | tee "$out/checks.log"
for p in s d c z; do
  for d in "starpu_qr -n 8192" "starpu_qr -m 16384 -n 2048" "starpu_rbt -n 8192" "starpu_batched -op getrf -m 64 -batch 2000" \
           "starpu_batched -op potrf -m 64 -batch 2000" "starpu_batched -op geqrf -m 64 -batch 2000"; do
    csv=$($d -ngpus 1 -prec $p -check --csv 2>>"$out/checks.err")
    echo "$p $d: rc=$? $(echo "$csv" | tail -1)"
  done
done | tee -a "$out/checks.log"

echo "=== bench/rbt.sh at 20000 and 40000 on one GPU"
bash "$here/rbt.sh" --sizes "20000 40000" --ngpus 1 --nb 1024 --niter 2 "$root/bin" | tee "$out/rbt.log"

echo "=== bench/gpu.sh $*"
bash "$here/gpu.sh" "$@" "$root/bin" "$out"
