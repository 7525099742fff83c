/* The leaf sizes of our recursive TRSM on GPUs, shared by its kernels (trsm_leaf.cu) and the
 * recursion that stops at them (cuda_ztrsm_recursive, codelets/codelet_ztrsm_column.c).
 * Side 'R' (X U = B): a row of B per thread in registers, so 32 columns at most (64 were slower
 * on an H100: 40.2 against 42.9 TF/s stacked at 5000). Side 'L' (L X = B): a column per warp,
 * 64 rows (128: 29.2 against 30.9 TF/s on a 5000 tile; bench/NOTES.md, session 33). */
#ifndef STARSOLVE_TRSM_LEAF_H
#define STARSOLVE_TRSM_LEAF_H
#define SS_TRSM_LEAF_R 32
#define SS_TRSM_LEAF_L 64
#endif
