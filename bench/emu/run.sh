#!/bin/bash
# Build and run the host emulation of the small-size, tiled and register-panel batched kernels (no GPU
# needed; make check runs it through tests/test_emu.sh in d and z):
#   bash bench/emu/run.sh BUILD [PRECS]
# BUILD: a configured build directory whose gen/checks exists (make has run there);
# PRECS: some of sdcz (default all). Two passes: the default choices (but the tiled Cholesky to 64), then the tiled kernels'
# other variants (environment knobs). Exit 1 on a failed check. Slow-ish: one pthread
# per emulated CUDA thread, a barrier per shuffle.
set -e
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
precs=${2:-sdcz}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cuda=${CUDA_HOME:-/usr/local/cuda}
inc="-I$src/include -I$src/checks -I$build/gen/checks -I$cuda/include"
g++ -O1 -std=c++17 -pthread -I$cuda/include -c "$src/bench/emu/small_emu.cc" -o "$out/small_emu.o"
main="$out/main.c"
echo '#include <stdio.h>' > "$main"
for p in s d c z; do echo "int test_${p}small_emu(void);" >> "$main"; done
echo 'int main(int argc, char **argv) { int f = 0; const char *p = argc > 1 ? argv[1] : "sdcz";' >> "$main"
for p in s d c z; do echo "  for (const char *q = p; *q; q++) if (*q == '$p') f += test_${p}small_emu();" >> "$main"; done
echo '  printf("small_emu: %d failed\n", f); return f ? 1 : 0; }' >> "$main"
objs=
for p in s d c z; do
  sh "$src/scripts/genprec.sh" $p "$src/bench/emu/zsmall_emu_test.c" "$out/${p}small_emu_test.c"
  sed -i "s/test_zsmall_emu/test_${p}small_emu/; s/precision z/precision $p/" "$out/${p}small_emu_test.c"
  gcc -O1 -std=gnu11 $inc -c "$out/${p}small_emu_test.c" -o "$out/${p}t.o"
  for f in check matgen; do gcc -O1 -std=gnu11 $inc -c "$build/gen/checks/${p}$f.c" -o "$out/${p}$f.o"; done
  objs="$objs $out/${p}t.o $out/${p}check.o $out/${p}matgen.o"
done
gcc -c "$main" -o "$out/main.o"
g++ -pthread "$out/main.o" "$out/small_emu.o" $objs -llapacke -lopenblas -lm -o "$out/small_emu"
# Both passes keep the tiled Cholesky up to order 64 (STARSOLVE_BATCH_TILED_POTRF_MAX, its default
# share before session 51): the GPUs now take it by default only from order 561, beyond what the
# emulation can run.
STARSOLVE_BATCH_TILED_POTRF_MAX=64 "$out/small_emu" "$precs"
# the tiled kernels' other shapes: 4 x 4 LU tiles, narrow Cholesky panels and chunks, and
# the tiled kernels from order 9 (sizes the small kernels take by default)
STARSOLVE_BATCH_TILE=4 STARSOLVE_BATCH_POTRF_NB=16 STARSOLVE_BATCH_POTRF_CH=24 STARSOLVE_BATCH_TILED_FROM=9 \
  STARSOLVE_BATCH_TILED_POTRF_MAX=64 "$out/small_emu" "$precs"
