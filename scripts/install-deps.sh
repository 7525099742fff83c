#!/usr/bin/env bash
# Install what starsolve needs from Debian's packages (run as root or with sudo).
# libfxt-dev, libglpk-dev and dpkg-dev are for scripts/build-starpu.sh (traces, the
# drivers' -bound linear program, apt-get source); starpu-tools shows the perfmodels
# (bench/calibrate.sh); OpenMPI is for StarPU-MPI (Debian's libstarpu-dev has it): the
# distributed descriptors and tests/test_mpi.sh.
set -euo pipefail
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends \
  build-essential pkg-config autoconf automake libtool make patch \
  libstarpu-dev libhwloc-dev libopenblas-dev liblapacke-dev \
  libfxt-dev libglpk-dev dpkg-dev starpu-tools libopenmpi-dev openmpi-bin > /dev/null
echo "install-deps: done"
