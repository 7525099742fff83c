#!/bin/sh
# The batched GPU kernels' logic on a machine without a GPU (CI): bench/emu/run.sh compiles the
# small-size, tiled and register-panel kernels' own text for the host, one pthread per CUDA thread,
# and checks them against LAPACK (backward errors, info, pivots, untouched padding) in double and
# complex double. It needs only the CUDA headers; without them the test is skipped (77).
cuda=${CUDA_HOME:-/usr/local/cuda}
if [ ! -f "$cuda/include/cuda_runtime_api.h" ]; then
  echo "test_emu: no CUDA headers in $cuda/include: skipped"
  exit 77
fi
exec bash "${srcdir:-.}/bench/emu/run.sh" "${top_builddir:-.}" dz
