/* The tridiagonal path of gbsv_spike (kl, ku <= 1): the partition method's levels and the layout of
 * its scratch buffer, shared by the C codelet (codelets/codelet_ztridiag.c, which sizes the buffer)
 * and the CUDA kernels (codelets/cuda/tridiag.cu, which use it). C and CUDA both include it.
 *
 * Level 0 is the matrix itself (n rows). A level of N > SS_TRI_DIRECT rows is cut into P = N /
 * SS_TRI_PART partitions whose sizes differ by at most one row (q or q + 1 rows, q = N / P >=
 * SS_TRI_PART); each partition leaves two rows (its first and last) in the next level, a tridiagonal
 * system of 2 P rows (partition k starts at row k q + min(k, r), r = N % P: tridiag.cu's Blocking). The
 * levels stop at SS_TRI_DIRECT rows at the latest; the kernels stop partitioning as soon as a level fits
 * one block's shared memory (tridiag.cu, tri_tail). */
#ifndef STARSOLVE_TRIDIAG_LAYOUT_H
#define STARSOLVE_TRIDIAG_LAYOUT_H
#include <stddef.h>

#ifdef __CUDACC__
#define SS_TRI_FN __host__ __device__ static inline
#else
#define SS_TRI_FN static inline
#endif

#define SS_TRI_PART 32     /* rows per partition (at least) */
#define SS_TRI_DIRECT 64   /* a level this small is not partitioned */

/* the rows of level l (0: n) */
SS_TRI_FN long ss_tri_level_rows(long n, int l)
{
    for (int i = 0; i < l; i++)
        n = n > SS_TRI_DIRECT ? 2 * (n / SS_TRI_PART) : n;
    return n;
}

/* the number of levels above SS_TRI_DIRECT rows (the scratch holds levels 1 .. this one) */
SS_TRI_FN int ss_tri_levels(long n)
{
    int l = 0;
    while (ss_tri_level_rows(n, l) > SS_TRI_DIRECT)
        l++;
    return l;
}

/* The scratch buffer, in elements of the working precision (es bytes), 256-byte aligned pieces:
 *   flags  SS_TRI_FLAGS 8-byte words (tridiag.cu: the smallest dominance ratio, a bad-pivot flag,
 *          max |r|, max |b|)
 *   save   n: the right-hand side as given, until its solution is accepted
 *   resid  n: the residual of a refinement step, then its correction
 *   then per level l >= 1 of N rows: a, b, c, d (N each): sub-, main and superdiagonal, right-hand
 *   side, the solution overwriting d. */
#define SS_TRI_FLAGS 4
SS_TRI_FN size_t ss_tri_align(size_t bytes) { return (bytes + 255) & ~(size_t)255; }
SS_TRI_FN size_t ss_tri_off_save(void) { return ss_tri_align(SS_TRI_FLAGS * 8); }
SS_TRI_FN size_t ss_tri_off_resid(long n, size_t es) { return ss_tri_off_save() + ss_tri_align((size_t)n * es); }
SS_TRI_FN size_t ss_tri_off_level(long n, int l, size_t es)   /* level l >= 1 */
{
    size_t off = ss_tri_off_resid(n, es) + ss_tri_align((size_t)n * es);
    for (int i = 1; i < l; i++)
        off += 4 * ss_tri_align((size_t)ss_tri_level_rows(n, i) * es);
    return off;
}
SS_TRI_FN size_t ss_tri_gpu_bytes(long n, size_t es) { return ss_tri_off_level(n, ss_tri_levels(n) + 1, es); }

#endif
