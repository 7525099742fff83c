#!/usr/bin/env bash
# Pack a built starsolve (drivers, bench programs, the library) with StarPU and the
# Debian runtime libraries they need, for a machine that has the CUDA Toolkit and
# glibc but no Debian packages (the lent GPU machine runs Ubuntu 24.04).
#   scripts/device-bundle.sh BUILDDIR OUT.tar.xz
# On the other machine: mkdir -p /tmp/ss && tar xf OUT.tar.xz -C /tmp/ss &&
#   export LD_LIBRARY_PATH=/tmp/ss/lib PATH=/tmp/ss/bin:$PATH
set -euo pipefail
build=$(cd "${1:?usage: device-bundle.sh BUILDDIR OUT.tar.xz}" && pwd)
out=${2:?usage: device-bundle.sh BUILDDIR OUT.tar.xz}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib"
# the test programs are check_PROGRAMS: build them (and nothing else) so the bundle never carries stale ones
make -C "$build" -s check TESTS= > /dev/null

progs=()
for p in examples/starpu_lu examples/starpu_cholesky examples/starpu_qr examples/starpu_rbt examples/starpu_batched examples/starpu_spike \
         bench/lapack_ref bench/cusolver_ref bench/cusparse_ref bench/copy_bw bench/panel_cost bench/rbt_accuracy bench/batched_gpu bench/spike_gpu bench/spike_kernels bench/tridiag_floor bench/tridiag_kernels bench/vbatched_cpu \
         tests/test_lu tests/test_cholesky tests/test_desc tests/test_qr tests/test_rbt tests/test_batched tests/test_spike tests/test_threads; do
  # libtool keeps the real binary in .libs/ (the top-level one is a wrapper script)
  if [ -x "$build/$(dirname $p)/.libs/$(basename $p)" ]; then
    cp "$build/$(dirname $p)/.libs/$(basename $p)" "$stage/bin/"
  elif [ -x "$build/$p" ]; then
    cp "$build/$p" "$stage/bin/"
  else
    continue
  fi
  progs+=("$stage/bin/$(basename $p)")
done
starpu_prefix=$(sed -n 's/^STARPU_PREFIX = //p' "$build/Makefile")
for tool in starpu_perfmodel_display starpu_perfmodel_plot starpu_fxt_tool starpu_calibrate_bus starpu_machine_display; do
  [ -x "$starpu_prefix/bin/$tool" ] && cp "$starpu_prefix/bin/$tool" "$stage/bin/" && progs+=("$stage/bin/$tool")
done

# every shared library they load, except glibc's, the compiler runtime and CUDA's: the device has the
# same CUDA 13 toolkit, whose cuSOLVER, cuBLAS, cuSPARSE (bench/cusparse_ref) and runtime the programs
# find there through their rpath or LD_LIBRARY_PATH (bench/device-check.sh adds /usr/local/cuda/lib64)
skip='^(linux-vdso|ld-linux|libc\.|libm\.|libdl\.|librt\.|libpthread\.|libstdc\+\+|libgcc_s|libcu|libnvJitLink|libnvidia)'
for f in "${progs[@]}" "$build/.libs/libstarsolve.so"; do
  LD_LIBRARY_PATH="$build/.libs:$starpu_prefix/lib" ldd "$f" | awk '$3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r name path; do
  [[ $name =~ $skip ]] && continue
  cp -L "$path" "$stage/lib/$name"
done
strip --strip-unneeded "$stage"/lib/* "$stage"/bin/* 2>/dev/null || true
tar -C "$stage" -cJf "$out" .
echo "device-bundle: $(du -h "$out" | cut -f1) in $out"
