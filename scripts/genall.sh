#!/bin/sh
# Generate the s, d, c, z versions of generic sources.
#   genall.sh SRCDIR OUTDIR TEMPLATE...
# A template's name carries a z where the precision goes (src/pzgetrf.c,
# codelets/codelets_z.h.in): OUTDIR/src/pdgetrf.c, OUTDIR/codelets/codelets_d.h ...
set -e
srcdir=$1; out=$2; shift 2
for t in "$@"; do
  dir=$(dirname "$t"); base=$(basename "$t" .in)
  mkdir -p "$out/$dir"
  for p in s d c z; do
    name=$(echo "$base" | sed "s/z/$p/")
    sh "$srcdir/scripts/genprec.sh" "$p" "$srcdir/$t" "$out/$dir/$name.tmp"
    # keep the old file (and its timestamp) when nothing changed: no needless rebuilds
    if cmp -s "$out/$dir/$name.tmp" "$out/$dir/$name"; then rm "$out/$dir/$name.tmp"; else mv "$out/$dir/$name.tmp" "$out/$dir/$name"; fi
  done
done
