#!/bin/sh
# make check: tests/test_mpi (distributed factorizations) as 4 MPI processes.
# More processes than cores is fine for these small matrices (--oversubscribe);
# CI runs as root, which OpenMPI refuses unless told.
bin=${top_builddir:-.}/tests/test_mpi
command -v mpirun > /dev/null || { echo "SKIP: no mpirun"; exit 77; }
exec mpirun --oversubscribe --allow-run-as-root -np 4 --mca btl self,vader "$bin"
