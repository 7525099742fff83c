#!/usr/bin/env bash
# Build StarPU 1.3.10 from Debian's source package, with CUDA when nvcc exists
# and with up to 256 CPU workers (Debian's libstarpu-dev has no CUDA and at most 4).
#   scripts/build-starpu.sh PREFIX
# Then: ./configure --with-starpu=PREFIX
set -euo pipefail
prefix=${1:?usage: build-starpu.sh PREFIX}
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
jobs=$(nproc)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Debian only hands out sources with a deb-src line for the archive we run on.
if ! apt-get source --print-uris starpu >/dev/null 2>&1; then
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
      > /etc/apt/sources.list.d/starsolve-deb-src.sources
  else
    grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' > /etc/apt/sources.list.d/starsolve-deb-src.list
  fi
  apt-get update -qq
fi
cd "$work"
apt-get source -qq starpu=1.3.10+dfsg-2 >/dev/null 2>&1 || apt-get source -qq starpu
cd starpu-1.3.10*
# CUDA 13 removed the legacy cuBLAS API (cublas.h) and cudaDeviceProp.computeMode.
patch -p1 < "$here/starpu-1.3.10-cuda13.patch"

opts=(--prefix="$prefix" --enable-maxcpus=256 --disable-opencl --disable-build-doc
      --disable-build-examples --disable-build-tests --disable-fortran --disable-socl
      --disable-starpufft --disable-mpi --disable-openmp --disable-starpurm)
if command -v nvcc >/dev/null 2>&1; then
  # The toolkit's root as nvcc reports it: nvcc may be a wrapper script
  # outside the toolkit (/usr/local/bin/nvcc on our machines).
  cuda_dir=$(nvcc --dryrun -c -x cu /dev/null -o /dev/null 2>&1 | sed -n 's/^#\$ TOP=//p' | head -n 1)
  [ -n "$cuda_dir" ] || cuda_dir=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
  cuda_dir=$(cd "$cuda_dir" && pwd -P)
  opts+=(--enable-cuda --with-cuda-dir="$cuda_dir")
else
  opts+=(--disable-cuda)
fi
if dpkg -s libfxt-dev >/dev/null 2>&1; then opts+=(--with-fxt); fi

echo "build-starpu: configure ${opts[*]}"
./configure "${opts[@]}" > configure.log 2>&1 || { tail -40 configure.log; exit 1; }
grep -E "CUDA enabled|Maximum number of CPUs|FxT" configure.log || true
make -j"$jobs" > make.log 2>&1 || { grep -B5 -A5 -m5 'error' make.log; exit 1; }
make install > install.log 2>&1
echo "build-starpu: installed in $prefix"
