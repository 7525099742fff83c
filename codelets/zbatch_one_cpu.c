/* One matrix factored or solved with on a CPU core, for the batched CPU variants (codelet_zbatched.c,
 * codelet_zvbatched.c) and the tile QR's CPU geqrt and tpqrt tasks (ss_zgeqrt_one, ss_ztpqrt_one): LAPACKE, except for
 * LU up to order PLAIN_LU_ORDER and lower Cholesky up to PLAIN_CHOL_ORDER (getrf_plain, potrf_plain_lower: plain C,
 * faster than OpenBLAS's getrf and potrf there), real LU above that order (getrf_blocked: LAPACK's blocked algorithm on
 * that code's panels, the tile TRSM and one GEMM a block), lower Cholesky above TILED_CHOL_AFTER up to TILED_CHOL_TO
 * (potrf_tiled_lower: LAPACK's blocked algorithm on packed tiles, kernels of our own) and for other orders up to
 * SMALL_ORDER, where OpenBLAS serializes concurrent callers of its getrf, potrf, getrs, potrs and triangular solves:
 * there LAPACK's unblocked Cholesky (zpotf2) by level-1 and 2 BLAS calls, with the same results and infos, and
 * (complex) the triangular solves by substitution.
 * From the 16 cores of the H100 machine (one OpenBLAS thread each, as the library sets it), 200000 LUs of order 16 took
 * 268 ms through LAPACKE_dgetrf (one thread alone: 483 ms) against 46 ms by these steps, Cholesky 261 against 21 ms; at
 * order 32 70 against 43 and 66 against 18 ms; at 64 about even. On 2 cores 262144 solves of order 8 took 70 ms through
 * LAPACKE_dgetrs against 11 (bench/NOTES.md, session 42). Solves with one right-hand side go by substitution (plain
 * loops; the transposed ones' dots by level-1 calls above SMALL_ORDER) up to order LEVEL1_ORDER, the other real getrs
 * and potrs by the tile TRSM (trsm_tile), complex ones up to
 * PLANAR_ORDER by substitution on a planar copy of the right-hand sides (trsm_planar; solve_for); least squares with
 * few right-hand sides applies Q^H by LAPACK's unblocked algorithm at every order (FEW_RHS, below), with more by its
 * blocked one with T by level-1 calls; real QR up to m + n = QR_UNBLOCKED_SUM is LAPACK's unblocked algorithm in
 * plain C (geqr2_plain), complex QR there LAPACKE's; above, QR is LAPACK's blocked algorithm with its panels by that
 * plain code (real) or level-1 calls (complex) and T by level-1 calls (ss_zgeqrf_one). QR with its whole T
 * (ss_zgeqrt_one) is LAPACK's recursive zgeqrt3 stopped at QRT_LEAF columns, which go by level-1 calls: zgeqrt3
 * recurses down to single columns, hundreds of small level-3 calls a tile, each taking a buffer from OpenBLAS's locked
 * pool; from each of the 16 cores of the H100 machine a LAPACKE_dgeqrt of a 256 x 256 tile took 29.5 ms against 1.9
 * from one core (QRT_LEAF's numbers). ss_ztpqrt_one is the same recursion on a triangle stacked on a matrix (LAPACK's
 * ztpqrt), without the zeros under the triangle. */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include "codelets.h"

/* the largest order taken by the unblocked steps and substitution: faster from many cores up to 32, even at 64 */
#define SMALL_ORDER 32
/* The most right-hand sides for which least squares applies Q^H one reflector at a time (LAPACK's unblocked zunm2r)
 * whatever the order: LAPACK's zunmqr takes its blocked path from 33 reflectors on, and forms each block's T
 * (O(n^2 nb) flops a call) however few the columns. One core, dormqr against the unblocked steps at orders
 * 64-512: 2.7-3.7x slower with one right-hand side, 2.2-2.7x with 4, 1.0-1.5x with 16; 1.2-1.5x faster with 64
 * (bench/NOTES.md, session 43). */
#define FEW_RHS 16
/* The largest order whose one-column solves (getrs, potrs, least squares' R^-1) go by substitution (trsm_subst: plain
 * loops, level-1 dots for the transposed ones) instead of LAPACKE / cblas_ztrsm, which take a buffer from OpenBLAS's
 * locked pool each call. One core, dgetrs with one right-hand side against the level-1 steps (an axpy or a dot a
 * column), us a solve: order 64 3.40 / 3.49 from one
 * thread, 3.66 / 2.90 from each of two; 128 15.4 / 15.0, 12.5 / 11.1; 256 51.4 / 54.4, 46.0 / 38.5; 512 150 / 210,
 * 161 / 212 (more columns: 4 at order 64, 6.8 / 9.9: A is read once a column) (bench/NOTES.md, session 43). */
#define LEVEL1_ORDER 256

/* QR: up to this m + n the unblocked algorithm (LAPACK's zgeqrf is unblocked there too: its crossover is 128
 * columns), in real precisions in plain C (geqr2_plain), in complex LAPACKE's zgeqrf, whose gemv and gerc on such
 * small matrices work from OpenBLAS's stack. Above, the blocked factorization of ss_zgeqrf_one. Double, us a
 * factorization from one thread / each of sixteen, LAPACKE against ss_zgeqrf_one's steps with level-1 panels: 64 x
 * 64 85 / 95 against 99 / 110; 128 x 64 144 / 251 against 136 / 164; 96 x 96 221 / 386 against 200 / 333; 256 x 16
 * 23 / 414 against 21 / 38; 512 x 512 9220 / 22300 against 8178 / 8724 (bench/NOTES.md, session 44). With the plain
 * steps, 2 cores, 256 MiB, against the LAPACKE loop: unblocked up to 128 / blocked from 64, 48 1.49-1.50x / 0.89-0.91x,
 * 64 1.39-1.45x / 1.18-1.24x; unblocked up to 256, 96 1.32x and 128 1.38x against 1.42-1.56x blocked (session 67). */
#define QR_UNBLOCKED_SUM 128
/* QR's block width, LAPACK's zgeqrf's */
#define QR_NB 32
/* The narrowest panel of QR with its whole T (ss_zgeqrt_one), factored by level-1 calls. On the H100 machine, us a
 * factorization from one thread / each of 16, LAPACKE_dgeqrt against halving down to 16 and to 32 columns: 256 x 256
 * 1927 / 29549 against 1693 / 2838 and 1919 / 2708; 384 x 384 4777 / 46229 against 4414 / 6167 and 4799 / 7443;
 * 768 x 384 7593 / 47574 against 7255 / 14720 and 7928 / 12869; 512 x 512 10236 / 62393 against 10536 / 15754 and
 * 10744 / 15619. Inside starpu_qr on the 16 CPU workers the mean geqrt task went from 3.39 to 2.46 ms (256) and
 * from 6.90 to 6.72 (384), tpqrt (ss_ztpqrt_one) from 5.80 to 2.80 and from 13.3 to 8.92; on the 2-core machine,
 * where tiles are 512 wide and LAPACKE_dgeqrt from one thread was 10-15 % faster, geqrt went from 11.5 to 12.5 ms
 * and tpqrt from 27.4 to 15.1 (bench/NOTES.md, session 45) */
#define QRT_LEAF 16

/* a b; in complex by its real and imaginary parts, as LAPACK's Fortran multiplies: C's complex multiplication (Annex
 * G) checks its product for NaNs to recover infinities, and GCC does not vectorize it */
static inline starsolve_complex64_t times(starsolve_complex64_t a, starsolve_complex64_t b)
{
#if defined(STARSOLVE_PRECISION_Z) || defined(STARSOLVE_PRECISION_C)
    return CMPLX(creal(a) * creal(b) - cimag(a) * cimag(b), creal(a) * cimag(b) + cimag(a) * creal(b));
#else
    return a * b;
#endif
}

/* |re| + |im|, the size izamax compares (|x| in real precisions) */
static inline double abs1(starsolve_complex64_t x)
{
#if defined(STARSOLVE_PRECISION_Z) || defined(STARSOLVE_PRECISION_C)
    return fabs(creal(x)) + fabs(cimag(x));
#else
    return fabs(x);
#endif
}

/* LU of orders up to PLAIN_LU_ORDER in plain C, without BLAS calls: LAPACK's right-looking algorithm with its pivots
 * (the first largest |a|, as izamax), its sfmin test and its info, by PLAIN_LU_PANEL-column panels whose trailing
 * update is one pass over each later column (a rank-8 update: eight multiply-adds a load and a store), the panel's row
 * swaps reaching the other columns column by column where LAPACK swaps whole rows at lda strides; up to
 * PLAIN_LU_UNBLOCKED columns the whole matrix is one panel. At these orders OpenBLAS's getrf spends its time in
 * per-call set-up and strided swaps (and its smallest orders serialize concurrent callers: SMALL_ORDER's comment). One
 * core of the 2-core CI machine, double, 64 MiB of matrices, GF/s of LAPACKE_dgetrf / this code (the AVX2 clone up to
 * 40 columns, the AVX-512 one above, where the AVX2 one is slower; on short columns the other way round): 8 0.74 /
 * 1.19, 16 1.57 / 2.61, 32 3.33 / 4.85, 48 5.27 / 6.61, 64 6.51 / 8.44, 96 9.60 / 11.62, 128 11.79 / 13.98, 192 15.24 /
 * 17.04, 256 17.93 / 18.47. Both cores, 1 GiB, the library against the OpenMP loop of LAPACKE: 16 2.45x, 32 1.52x, 64
 * 1.36x, 128 1.23x, 192 1.20x, 256 1.08x (single: 1.45x at 32, 1.07x at 128, 1.01x at 256). Panels of 4 and 16 columns
 * were no faster (bench/NOTES.md, session 62). In real precisions the blocked LU (getrf_blocked, whose panels are this
 * code) takes over above order 48: 2 cores, 1 GiB, the plain LU / blocked, 48 1.32x / 1.33x, 64 1.30x / 1.46x, 128
 * 1.21x / 1.54x, 256 1.06x / 1.36x (session 64). In complex the products go by times() (C's own do not vectorize) and
 * izamax's |re| + |im| picks the pivots; the unblocked steps by level-1 and 2 calls (zgetf2) took complex LU up to
 * order 32 before. Ratios to the loop, 256 MiB, those steps up to 32 and LAPACKE above / this code: 2 cores c 16 1.30 /
 * 1.83, 32 0.66 / 1.41, 48 0.93 / 1.12, 64 0.96 / 1.07, 80 0.96 / 1.05, 96 0.98 / 0.99, 128 0.98 / 0.93; z 16 1.14 /
 * 1.60, 32 0.90 / 1.23, 48 0.99 / 1.02-1.05, 56 0.98 / 1.01, 64 0.98 / 0.93; the 16 CPU workers of the H200 machine,
 * two rounds, c 16 4.3-4.8 / 7.1-7.3, 32 0.80-0.90 / 2.07-2.17, 64 0.99 / 1.05-1.09, 96 0.94-1.06 / 1.08-1.11; z 32
 * 0.96-1.06 / 1.62-1.64, 48 0.82-0.90 / 1.02-1.12, 64 0.93-0.94 / 1.01-1.03, 96 0.97-0.99 / 0.88-0.90 (bench/NOTES.md,
 * session 63). */
#if defined(STARSOLVE_PRECISION_C)
#define PLAIN_LU_ORDER 96
#elif defined(STARSOLVE_PRECISION_Z)
#define PLAIN_LU_ORDER 56
#else
#define PLAIN_LU_ORDER 48
#endif
#define PLAIN_LU_UNBLOCKED 40
#define PLAIN_LU_PANEL 8

/* column d's rows permuted by the pivots of rows j0 .. j1 - 1, in order */
static inline void swap_rows_in_column(starsolve_complex64_t *d, int j0, int j1, const int *ipiv)
{
    for (int j = j0; j < j1; j++) {
        const int p = ipiv[j] - 1;
        const starsolve_complex64_t t = d[j];
        d[j] = d[p];
        d[p] = t;
    }
}

/* swap_rows_in_column undone: the same swaps, last to first (P^T) */
static inline void unswap_rows_in_column(starsolve_complex64_t *d, int j0, int j1, const int *ipiv)
{
    for (int j = j1 - 1; j >= j0; j--) {
        const int p = ipiv[j] - 1;
        const starsolve_complex64_t t = d[j];
        d[j] = d[p];
        d[p] = t;
    }
}

/* the first i with abs1(x[i]) largest (0 when every one is NaN): izamax's choice, its search vectorized */
static inline int first_largest(int n, const starsolve_complex64_t *x)
{
    double largest = 0;
#pragma omp simd reduction(max : largest)
    for (int i = 0; i < n; i++) {
        const double v = abs1(x[i]);
        largest = v > largest ? v : largest;
    }
    for (int i = 0; i < n; i++)
        if (abs1(x[i]) == largest)
            return i;
    return 0;
}

/* dst[from .. to - 1] less L(from .. to - 1, 0 .. w - 1) u, L's columns lda apart: one pass over dst, unrolled for
 * a whole panel (w = PLAIN_LU_PANEL) */
static inline __attribute__((always_inline)) void less_panel_times(int from, int to, const starsolve_complex64_t *L,
                                                                   int lda, const starsolve_complex64_t *u, int w,
                                                                   starsolve_complex64_t *dst)
{
    if (w == PLAIN_LU_PANEL) {
#pragma omp simd
        for (int i = from; i < to; i++) {
            starsolve_complex64_t s = dst[i];
#pragma GCC unroll 8
            for (int q = 0; q < PLAIN_LU_PANEL; q++)
                s -= times(L[i + (size_t)q * lda], u[q]);
            dst[i] = s;
        }
    } else {   /* the last, narrower panel */
        for (int q = 0; q < w; q++)
#pragma omp simd
            for (int i = from; i < to; i++)
                dst[i] -= times(L[i + (size_t)q * lda], u[q]);
    }
}

/* the LU of getrf_plain_unblocked / getrf_plain_panels, panel (<= n) columns at a time; inlined in each, where panel
 * is a constant */
static inline __attribute__((always_inline)) int getrf_plain(int m, int n, starsolve_complex64_t *A, int lda,
                                                             int *ipiv, int panel)
{
    const int k = ss_min(m, n);
    int info = 0;
    for (int jb = 0; jb < k; jb += panel) {
        /* the panel's pivots are in columns jb .. jend - 1, its columns jb .. pend - 1 (more when m < n: the last
         * panel takes the columns right of the last pivot that fit in it; with panel >= n it is all of A) */
        const int jend = ss_min(jb + panel, k), pend = ss_min(jb + panel, n), w = jend - jb;
        for (int j = jb; j < jend; j++) {   /* the panel, unblocked, its own columns swapped at once */
            starsolve_complex64_t *col = A + j + (size_t)j * lda;   /* A(j, j) */
            const int p = j + first_largest(m - j, col);
            ipiv[j] = p + 1;
            if (A[p + (size_t)j * lda] != 0) {
                if (p != j)
                    for (int c = jb; c < pend; c++) {
                        const starsolve_complex64_t t = A[j + (size_t)c * lda];
                        A[j + (size_t)c * lda] = A[p + (size_t)c * lda];
                        A[p + (size_t)c * lda] = t;
                    }
                if (cabs(*col) >= DBL_MIN) {   /* LAPACK's sfmin test: 1 / pivot does not overflow */
                    const starsolve_complex64_t r = 1 / *col;   /* C's division, scaled as LAPACK's */
#pragma omp simd
                    for (int i = 1; i < m - j; i++)
                        col[i] = times(col[i], r);
                } else {
                    for (int i = 1; i < m - j; i++)
                        col[i] /= *col;
                }
            } else if (info == 0) {
                info = j + 1;   /* U(j, j) is exactly zero: the factorization goes on, as LAPACK's */
            }
            for (int c = j + 1; c < pend; c++) {
                starsolve_complex64_t *dst = A + (size_t)c * lda;
                const starsolve_complex64_t u = dst[j];
#pragma omp simd
                for (int i = j + 1; i < m; i++)
                    dst[i] -= times(col[i - j], u);
            }
        }
        for (int c = 0; c < jb; c++)   /* L's columns left of the panel take its swaps */
            swap_rows_in_column(A + (size_t)c * lda, jb, jend, ipiv);
        const starsolve_complex64_t *L = A + jb + (size_t)jb * lda;   /* the panel from its diagonal down */
        for (int c = pend; c < n; c++) {   /* each later column: swaps, U's rows by L's unit triangle, rank-w update */
            starsolve_complex64_t *col = A + (size_t)c * lda, u[PLAIN_LU_PANEL];
            swap_rows_in_column(col, jb, jend, ipiv);
            starsolve_complex64_t *dst = col + jb;
            for (int t = 0; t < w; t++) {
                starsolve_complex64_t s = dst[t];
                for (int q = 0; q < t; q++)
                    s -= times(L[t + (size_t)q * lda], u[q]);
                u[t] = dst[t] = s;
            }
            less_panel_times(w, m - jb, L, lda, u, w, dst);
        }
    }
    return info;
}

/* up to PLAIN_LU_UNBLOCKED columns: one panel, so no later columns (getrf_plain's u[] holds PLAIN_LU_PANEL rows) */
SS_SIMD_CLONES_AVX2 static int getrf_plain_unblocked(int m, int n, starsolve_complex64_t *A, int lda, int *ipiv)
{
    return getrf_plain(m, n, A, lda, ipiv, PLAIN_LU_UNBLOCKED);
}

SS_SIMD_CLONES_AVX512 static int getrf_plain_panels(int m, int n, starsolve_complex64_t *A, int lda, int *ipiv)
{
    return getrf_plain(m, n, A, lda, ipiv, PLAIN_LU_PANEL);
}

/* Cholesky of the lower triangle up to order PLAIN_CHOL_ORDER the same way (getrf_plain's comment): 8-column
 * panels, right-looking, each later column updated by the panel in one pass (rank 8), no BLAS call; info and the
 * factored leading block as LAPACK's potrf. One core, double, 64 MiB, GF/s of LAPACKE_dpotrf / this code: 16 2.33 /
 * 2.28, 32 5.16 / 4.92, 48 5.55 / 7.41, 64 8.13 / 9.23, 96 12.02 / 12.87, 128 14.57 / 14.37, 256 22.36 / 19.36.
 * Both cores, 1 GiB, the library against the OpenMP loop of LAPACKE: 16 2.18x, 32 1.19x (LAPACK's unblocked steps,
 * potf2_small, before: 2.00x, 1.15x), 48 1.42x, 64 1.17x, 96 1.11x, 128 1.05x, 160 1.04x, 192 0.97x. On the 16 CPU
 * workers of the H200 machine 64 1.44-1.52x, but at 128 and 160 about 8 % behind LAPACKE's call (the same library
 * with LAPACKE there, three rounds each), hence 96 then (session 62). In real precisions the packed tiles
 * (potrf_tiled_lower) now take over above 40, their first tile being this code: 2 cores, 256 MiB, against the loop, 48
 * 1.31x -> 1.40x, 64 1.16-1.19x -> 1.35x, 96 1.10-1.14x -> 1.31x; at 40, even within the noise (session 67). The
 * upper triangle's copy (UPPER_VIA_LOWER_FROM) is factored here too up to this order. In complex (L L^H: the panel's
 * row conjugated, times() for the products) only up to 24, against LAPACK's unblocked steps (potf2_small): 2 cores, 256
 * MiB, c 8 3.4-3.8x -> 4.8x, 16 1.5-1.7x -> 2.0-2.1x, 24 1.15-1.20x -> 1.14-1.22x, 32 1.02-1.08x -> 0.98-0.99x, 64
 * 0.98-1.00x -> 0.82x; z 8 3.2-3.3x -> 3.3-4.1x, 16 1.55x -> 1.6-1.7x, 24 1.23-1.27x -> 1.17-1.25x, 32 1.04-1.14x ->
 * 1.00x; 16 CPU workers of the H200 machine, c 24 5.6-6.0x -> 6.9-7.3x, 32 3.0-3.2x -> 3.4-3.9x, z 24 4.1-4.3x -> 5.5x,
 * 32 2.0-2.3x -> 2.1-2.8x (session 63). */
#if defined(STARSOLVE_PRECISION_Z) || defined(STARSOLVE_PRECISION_C)
#define PLAIN_CHOL_ORDER 24
#else
#define PLAIN_CHOL_ORDER 40
#endif
SS_SIMD_CLONES_AVX512 static int potrf_plain_lower(int n, starsolve_complex64_t *A, int lda)
{
    for (int jb = 0; jb < n; jb += PLAIN_LU_PANEL) {
        const int jend = ss_min(jb + PLAIN_LU_PANEL, n), w = jend - jb;
        for (int j = jb; j < jend; j++) {   /* the panel, unblocked */
            starsolve_complex64_t *col = A + j + (size_t)j * lda;   /* A(j, j) */
            const double d = creal(*col);   /* Hermitian: the diagonal's imaginary part is not read, as LAPACK's */
            if (!(d > 0))   /* not positive (or NaN): A(j, j) keeps it, the leading j x j block is factored */
                return j + 1;
            const double root = sqrt(d), r = 1 / root;
            *col = root;
#pragma omp simd
            for (int i = 1; i < n - j; i++)
                col[i] *= r;
            for (int c = j + 1; c < jend; c++) {
                starsolve_complex64_t *dst = A + (size_t)c * lda;
                const starsolve_complex64_t u = conj(A[c + (size_t)j * lda]);
#pragma omp simd
                for (int i = c; i < n; i++)
                    dst[i] -= times(A[i + (size_t)j * lda], u);
            }
        }
        const starsolve_complex64_t *L = A + (size_t)jb * lda;   /* the panel's columns, from row 0 */
        /* each later column c, from its diagonal down: less L(c:n, panel) L(c, panel)^H */
        for (int c = jend; c < n; c++) {
            starsolve_complex64_t *dst = A + (size_t)c * lda, u[PLAIN_LU_PANEL];
            for (int q = 0; q < w; q++)
                u[q] = conj(L[c + (size_t)q * lda]);
            less_panel_times(c, n, L, lda, u, w, dst);
        }
    }
    return 0;
}

/* Lower Cholesky above TILED_CHOL_AFTER up to TILED_CHOL_TO: LAPACK's right-looking blocked algorithm by
 * CHOL_TILE columns with kernels of our own, no BLAS call. Each diagonal block goes by potrf_plain_lower; the block
 * column under it is copied (packed) by CHOL_ROWS-row chunks, each chunk's columns CHOL_ROWS apart, solved there
 * (trsm_packed_below) and copied back; the trailing matrix's lower triangle takes the packed column's product by
 * 2 x 4 vector tiles kept in registers (syrk_packed_lower). Why packed: A's columns are n elements apart, and at
 * orders 256 and 512 (2 and 4 KiB) a tile's 32 columns fall in too few sets of the first-level cache; unpacked, the
 * same kernels ran at 0.78x (256) and 0.66x (512) OpenBLAS's potrf, packed at 1.35x and 1.29x. Why not OpenBLAS's
 * TRSM and SYRK (potrf_blocked_lower, sessions 59-64): at these orders they are no faster than its potrf, which they
 * make up. One core of the 2-core CI machine (AVX-512), double, 64 MiB, GF/s of LAPACKE_dpotrf / this code: 64 7.7 /
 * 10.5, 128 13.6 / 18.5, 256 20.6 / 27.7, 512 27.8 / 35.9; both cores, an OpenMP loop over 256 MiB: 48 9.9 / 14.9, 96
 * 21.7 / 29.9, 128 27.9 / 38.7, 256 43.7 / 56.6, 512 57.8 / 79.2, 1024 69.0 / 87.5 (tiles of 16: 1.21-1.40x; of 64:
 * 1.19-1.41x; bench/NOTES.md, session 67). In complex the packed copy is planar (below). */
#define TILED_CHOL_TO 1024
#define CHOL_TILE 32
/* a vector of real numbers (real and imaginary parts in complex) of A or the packed copy, read and written in place:
 * at any address of an element, and aliasing the elements */
typedef double chol_vector __attribute__((vector_size(64), aligned(sizeof(double)), may_alias));
enum { CHOL_LANES = sizeof(chol_vector) / sizeof(double), CHOL_ROWS = 2 * CHOL_LANES };

/* elements of potrf_tiled_lower's packed block column at order n: its rows in whole chunks, CHOL_TILE columns (a
 * complex element's parts in two vectors), and a vector's worth more to start it on a vector's boundary (a work array
 * from malloc is 16-byte aligned: chunks off the 64-byte boundary made every vector load touch two cache lines, and
 * order 512 ran at 0.78x the aligned speed) */
static size_t potrf_tiled_lwork(int n)
{
    return (size_t)((n + CHOL_ROWS - 1) / CHOL_ROWS) * CHOL_ROWS * CHOL_TILE + CHOL_LANES;
}

#if !defined(STARSOLVE_PRECISION_Z) && !defined(STARSOLVE_PRECISION_C)
#define TILED_CHOL_AFTER PLAIN_CHOL_ORDER

/* to[0 .. len - 1] = from[0 .. len - 1], len <= CHOL_ROWS: one chunk's column into or out of the packed copy */
static inline __attribute__((always_inline)) void copy_chunk_column(int len, const double *from, double *to)
{
    if (len == CHOL_ROWS) {
#pragma omp simd
        for (int t = 0; t < CHOL_ROWS; t++)
            to[t] = from[t];
    } else {
        for (int t = 0; t < len; t++)
            to[t] = from[t];
    }
}

/* B (rows x kb, leading dimension lda) copied into P by CHOL_ROWS-row chunks: chunk r's column q at
 * P + (r kb + q) CHOL_ROWS, the last chunk's rows past B's zero (never written back: finite is all they need be) */
static inline __attribute__((always_inline)) void pack_below(int rows, int kb, const starsolve_complex64_t *B, int lda,
                                                             double *P)
{
    for (int i0 = 0; i0 < rows; i0 += CHOL_ROWS) {
        const int len = ss_min(rows - i0, CHOL_ROWS);
        double *chunk = P + (size_t)i0 * kb;
        for (int q = 0; q < kb; q++) {
            double *p = chunk + q * CHOL_ROWS;
            copy_chunk_column(len, B + i0 + (size_t)q * lda, p);
            for (int t = len; t < CHOL_ROWS; t++)
                p[t] = 0;
        }
    }
}

/* P = P L^-T, P pack_below's copy of B, L kb x kb lower triangular (leading dimension lda): each chunk's columns
 * left to right, two vectors of rows in registers; then copied back to B */
static inline __attribute__((always_inline)) void trsm_packed_below(int rows, int kb, const starsolve_complex64_t *L,
                                                                    int lda, double *P, starsolve_complex64_t *B)
{
    double inverse[CHOL_TILE];   /* 1 / L(j, j): a multiply a column, as LAPACK's TRSM */
    for (int j = 0; j < kb; j++)
        inverse[j] = 1 / L[j + (size_t)j * lda];
    for (int i0 = 0; i0 < rows; i0 += CHOL_ROWS) {
        double *chunk = P + (size_t)i0 * kb;
        for (int j = 0; j < kb; j++) {
            chol_vector x0 = *(chol_vector *)(chunk + j * CHOL_ROWS);
            chol_vector x1 = *(chol_vector *)(chunk + j * CHOL_ROWS + CHOL_LANES);
            for (int q = 0; q < j; q++) {
                const double l = L[j + (size_t)q * lda];
                x0 -= *(chol_vector *)(chunk + q * CHOL_ROWS) * l;
                x1 -= *(chol_vector *)(chunk + q * CHOL_ROWS + CHOL_LANES) * l;
            }
            *(chol_vector *)(chunk + j * CHOL_ROWS) = x0 * inverse[j];
            *(chol_vector *)(chunk + j * CHOL_ROWS + CHOL_LANES) = x1 * inverse[j];
        }
        const int len = ss_min(rows - i0, CHOL_ROWS);
        for (int q = 0; q < kb; q++)
            copy_chunk_column(len, chunk + q * CHOL_ROWS, B + i0 + (size_t)q * lda);
    }
}

/* C's lower triangle (h x h, leading dimension lda) less X X^T, X (h x kb) packed as by pack_below: for each four
 * columns j .. j + 3, the chunks from the one holding row j down, each a 2 x 4 tile of vectors summed over X's kb
 * columns in registers. Tiles that reach above the diagonal or past row h are written element by element. */
static inline __attribute__((always_inline)) void syrk_packed_lower(int h, int kb, const double *X,
                                                                    starsolve_complex64_t *C, int lda)
{
    for (int j = 0; j < h; j += 4) {
        /* X's rows j .. j + 3 (in one chunk: CHOL_ROWS is a multiple of 4), column q at x_j[q CHOL_ROWS] */
        const double *x_j = X + (size_t)(j / CHOL_ROWS) * CHOL_ROWS * kb + j % CHOL_ROWS;
        for (int i0 = j / CHOL_ROWS * CHOL_ROWS; i0 < h; i0 += CHOL_ROWS) {
            const double *chunk = X + (size_t)i0 * kb;
            chol_vector s00 = {0}, s01 = {0}, s02 = {0}, s03 = {0}, s10 = {0}, s11 = {0}, s12 = {0}, s13 = {0};
            for (int q = 0; q < kb; q++) {
                const chol_vector x0 = *(const chol_vector *)(chunk + q * CHOL_ROWS);
                const chol_vector x1 = *(const chol_vector *)(chunk + q * CHOL_ROWS + CHOL_LANES);
                const double *y = x_j + q * CHOL_ROWS;
                s00 += x0 * y[0], s01 += x0 * y[1], s02 += x0 * y[2], s03 += x0 * y[3];
                s10 += x1 * y[0], s11 += x1 * y[1], s12 += x1 * y[2], s13 += x1 * y[3];
            }
            starsolve_complex64_t *c = C + i0 + (size_t)j * lda;
            if (i0 >= j + 4 && i0 + CHOL_ROWS <= h) {   /* wholly below the diagonal and inside C */
                *(chol_vector *)c -= s00, *(chol_vector *)(c + CHOL_LANES) -= s10;
                *(chol_vector *)(c + lda) -= s01, *(chol_vector *)(c + lda + CHOL_LANES) -= s11;
                *(chol_vector *)(c + 2 * (size_t)lda) -= s02, *(chol_vector *)(c + 2 * (size_t)lda + CHOL_LANES) -= s12;
                *(chol_vector *)(c + 3 * (size_t)lda) -= s03, *(chol_vector *)(c + 3 * (size_t)lda + CHOL_LANES) -= s13;
            } else {
                const chol_vector sums[4][2] = {{s00, s10}, {s01, s11}, {s02, s12}, {s03, s13}};
                for (int t = 0; t < 4; t++)   /* columns past h: no row r with j + t <= i0 + r < h */
                    for (int r = ss_max(j + t - i0, 0); r < ss_min(h - i0, CHOL_ROWS); r++)
                        c[r + (size_t)t * lda] -= sums[t][r / CHOL_LANES][r % CHOL_LANES];
            }
        }
    }
}

#else
/* Complex lower Cholesky above TILED_CHOL_AFTER up to TILED_CHOL_TO: the real algorithm and tiles
 * (potrf_tiled_lower), the packed copy planar: a chunk's column q holds the real parts of its CHOL_ROWS rows,
 * then their imaginary parts, so that every multiply-add covers a whole vector of one part (the products written as
 * one multiply-add each: as sums of two products GCC made a multiply, a multiply-add and an add). The trailing
 * update's sums go back to C's interleaved elements by a vectorized loop where the tile is wholly below the diagonal
 * (element by element, 20 % of the time went there). LAPACKE's complex potrf runs nearer its GEMM than the real one,
 * so the margin is smaller and starts later: 2 cores, 256 MiB, against the LAPACKE loop, LAPACKE's call (or LAPACK's
 * unblocked steps up to 32) / this code: c 32 1.06 / 0.96, 40 1.02 / 1.18, 48 1.00 / 1.15, 64 1.01 / 1.04, 96 0.98 /
 * 1.14, 128 0.98 / 1.10, 256 1.01 / 1.22, 512 1.00 / 1.23, 1024 1.16; z 32 1.29 / 1.13, 40 1.00 / 0.91, 48 1.01 /
 * 0.94, 64 0.97 / 0.98, 96 1.00 / 1.06, 128 1.04 / 1.11, 256 1.01 / 1.24, 512 0.99 / 1.21, 1024 1.08 (bench/NOTES.md,
 * session 67). */
#if defined(STARSOLVE_PRECISION_C)
#define TILED_CHOL_AFTER 32
#else
#define TILED_CHOL_AFTER 64
#endif

/* B (rows x kb) into P planar by CHOL_ROWS-row chunks: chunk r's column q's real parts at P + 2 (r kb + q) CHOL_ROWS,
 * its imaginary parts CHOL_ROWS further, the rows past B zero */
static inline __attribute__((always_inline)) void pack_below(int rows, int kb, const starsolve_complex64_t *B, int lda,
                                                             double *P)
{
    for (int i0 = 0; i0 < rows; i0 += CHOL_ROWS) {
        const int len = ss_min(rows - i0, CHOL_ROWS);
        double *chunk = P + 2 * (size_t)i0 * kb;
        for (int q = 0; q < kb; q++) {
            const starsolve_complex64_t *b = B + i0 + (size_t)q * lda;
            double *re = chunk + 2 * q * CHOL_ROWS, *im = re + CHOL_ROWS;
            for (int t = 0; t < len; t++)
                re[t] = creal(b[t]), im[t] = cimag(b[t]);
            for (int t = len; t < CHOL_ROWS; t++)
                re[t] = im[t] = 0;
        }
    }
}

/* P = P L^-H (P planar as by pack_below, L kb x kb lower triangular, its diagonal real), then copied back to B */
static inline __attribute__((always_inline)) void trsm_packed_below(int rows, int kb, const starsolve_complex64_t *L,
                                                                    int lda, double *P, starsolve_complex64_t *B)
{
    double inverse[CHOL_TILE];
    for (int j = 0; j < kb; j++)
        inverse[j] = 1 / creal(L[j + (size_t)j * lda]);
    for (int i0 = 0; i0 < rows; i0 += CHOL_ROWS) {
        double *chunk = P + 2 * (size_t)i0 * kb;
        for (int j = 0; j < kb; j++) {
            double *xj = chunk + 2 * j * CHOL_ROWS;
            chol_vector r0 = *(chol_vector *)xj, r1 = *(chol_vector *)(xj + CHOL_LANES);
            chol_vector i0v = *(chol_vector *)(xj + CHOL_ROWS), i1v = *(chol_vector *)(xj + CHOL_ROWS + CHOL_LANES);
            for (int q = 0; q < j; q++) {   /* x_j less x_q conj(L(j, q)) */
                const double lr = creal(L[j + (size_t)q * lda]), li = cimag(L[j + (size_t)q * lda]);
                const double *xq = chunk + 2 * q * CHOL_ROWS;
                const chol_vector qr0 = *(const chol_vector *)xq, qr1 = *(const chol_vector *)(xq + CHOL_LANES);
                const chol_vector qi0 = *(const chol_vector *)(xq + CHOL_ROWS);
                const chol_vector qi1 = *(const chol_vector *)(xq + CHOL_ROWS + CHOL_LANES);
                r0 -= qr0 * lr, r1 -= qr1 * lr;   /* a multiply-add each */
                r0 -= qi0 * li, r1 -= qi1 * li;
                i0v -= qi0 * lr, i1v -= qi1 * lr;
                i0v += qr0 * li, i1v += qr1 * li;
            }
            *(chol_vector *)xj = r0 * inverse[j], *(chol_vector *)(xj + CHOL_LANES) = r1 * inverse[j];
            *(chol_vector *)(xj + CHOL_ROWS) = i0v * inverse[j];
            *(chol_vector *)(xj + CHOL_ROWS + CHOL_LANES) = i1v * inverse[j];
        }
        const int len = ss_min(rows - i0, CHOL_ROWS);
        for (int q = 0; q < kb; q++) {
            const double *re = chunk + 2 * q * CHOL_ROWS, *im = re + CHOL_ROWS;
            starsolve_complex64_t *b = B + i0 + (size_t)q * lda;
            for (int t = 0; t < len; t++)
                b[t] = re[t] + I * im[t];
        }
    }
}

/* C's lower triangle (h x h) less X X^H, X planar (as by pack_below): syrk_packed_lower's tiles, each element's sum
 * X(i, :) conj(X(j, :)) by its real and imaginary parts */
static inline __attribute__((always_inline)) void syrk_packed_lower(int h, int kb, const double *X,
                                                                    starsolve_complex64_t *C, int lda)
{
    for (int j = 0; j < h; j += 4) {
        const double *x_j = X + 2 * (size_t)(j / CHOL_ROWS) * CHOL_ROWS * kb + j % CHOL_ROWS;
        for (int i0 = j / CHOL_ROWS * CHOL_ROWS; i0 < h; i0 += CHOL_ROWS) {
            const double *chunk = X + 2 * (size_t)i0 * kb;
            chol_vector sr[4][2] = {{{0}}}, si[4][2] = {{{0}}};
            for (int q = 0; q < kb; q++) {
                const double *x = chunk + 2 * q * CHOL_ROWS, *y = x_j + 2 * q * CHOL_ROWS;
                const chol_vector xr0 = *(const chol_vector *)x, xr1 = *(const chol_vector *)(x + CHOL_LANES);
                const chol_vector xi0 = *(const chol_vector *)(x + CHOL_ROWS);
                const chol_vector xi1 = *(const chol_vector *)(x + CHOL_ROWS + CHOL_LANES);
#pragma GCC unroll 4
                for (int t = 0; t < 4; t++) {
                    const double yr = y[t], yi = y[t + CHOL_ROWS];
                    sr[t][0] += xr0 * yr, sr[t][1] += xr1 * yr;   /* a multiply-add each */
                    sr[t][0] += xi0 * yi, sr[t][1] += xi1 * yi;
                    si[t][0] += xi0 * yr, si[t][1] += xi1 * yr;
                    si[t][0] -= xr0 * yi, si[t][1] -= xr1 * yi;
                }
            }
            double re[4][CHOL_ROWS], im[4][CHOL_ROWS];   /* the sums out of registers, for the element writes */
#pragma GCC unroll 4
            for (int t = 0; t < 4; t++) {
                *(chol_vector *)re[t] = sr[t][0], *(chol_vector *)(re[t] + CHOL_LANES) = sr[t][1];
                *(chol_vector *)im[t] = si[t][0], *(chol_vector *)(im[t] + CHOL_LANES) = si[t][1];
            }
            starsolve_complex64_t *c = C + i0 + (size_t)j * lda;
            if (i0 >= j + 4 && i0 + CHOL_ROWS <= h) {   /* wholly below the diagonal and inside C */
                for (int t = 0; t < 4; t++) {
                    double *ct = (double *)(c + (size_t)t * lda);   /* C99: a complex is its real and imaginary parts */
#pragma omp simd
                    for (int r = 0; r < CHOL_ROWS; r++)
                        ct[2 * r] -= re[t][r], ct[2 * r + 1] -= im[t][r];
                }
            } else {
                for (int t = 0; t < 4; t++)   /* columns past h: no row r with j + t <= i0 + r < h */
                    for (int r = ss_max(j + t - i0, 0); r < ss_min(h - i0, CHOL_ROWS); r++)
                        c[r + (size_t)t * lda] -= re[t][r] + I * im[t][r];
            }
        }
    }
}

#endif

/* info as LAPACK's potrf: the diagonal blocks' (potrf_plain_lower's), offset by the columns before */
SS_SIMD_CLONES_AVX512 static int potrf_tiled_lower(int n, starsolve_complex64_t *A, int lda,
                                                   starsolve_complex64_t *work)
{
    double *packed = (double *)(((uintptr_t)work + sizeof(chol_vector) - 1) / sizeof(chol_vector) *
                                sizeof(chol_vector));
    for (int k = 0; k < n; k += CHOL_TILE) {
        const int kb = ss_min(CHOL_TILE, n - k), rest = n - k - kb;
        starsolve_complex64_t *diag = A + k + (size_t)k * lda, *below = diag + kb;
        const int info = potrf_plain_lower(kb, diag, lda);
        if (info)   /* the leading k + info - 1 columns factored, as LAPACK's */
            return k + info;
        if (rest == 0)
            break;
        pack_below(rest, kb, below, lda, packed);
        trsm_packed_below(rest, kb, diag, lda, packed, below);
        syrk_packed_lower(rest, kb, packed, below + (size_t)kb * lda, lda);
    }
    return 0;
}

/* x conjugated in place (nothing in real precisions) */
static void conj_vector(int n, starsolve_complex64_t *x, int inc)
{
    for (int i = 0; i < n; i++)
        x[(size_t)i * inc] = conj(x[(size_t)i * inc]);
}

static int potf2_small(char uplo, int n, starsolve_complex64_t *A, int lda)
{
    const starsolve_complex64_t one = 1, minus_one = -1;
    const int lower = uplo == 'L' || uplo == 'l';
    /* L's row j (U's column j) is at A + j * rinc, its elements `step` apart; the rest of column j of L (row j of
     * U) is at d + cinc */
    const int step = lower ? lda : 1, rinc = lower ? 1 : lda, cinc = lower ? 1 : lda;
    for (int j = 0; j < n; j++) {
        starsolve_complex64_t *row = A + (size_t)j * rinc, *d = A + j + (size_t)j * lda;
        double ajj = creal(*d);
        for (int k = 0; k < j; k++)   /* less the squares of L's row j so far: LAPACK's zdotc */
            ajj -= creal(conj(row[(size_t)k * step]) * row[(size_t)k * step]);
        if (!(ajj > 0)) {   /* not positive (or NaN): the leading j x j block stays factored, as LAPACK's */
            *d = ajj;
            return j + 1;
        }
        ajj = sqrt(ajj);
        *d = ajj;
        const int rest = n - j - 1;
        if (rest == 0)
            break;
        /* the rest of column j of L, less L(j+1:n, 0:j) conj(L(j, 0:j))^T (for U: the rest of row j less
         * U(0:j, j)^H U(0:j, j+1:n)), then scaled: LAPACK's zlacgv, zgemv, zlacgv, zdscal */
        conj_vector(j, row, step);
        if (lower)
            cblas_zgemv(CblasColMajor, CblasNoTrans, rest, j, CBLAS_SADDR(minus_one), A + j + 1, lda, row, step,
                        CBLAS_SADDR(one), d + cinc, cinc);
        else
            cblas_zgemv(CblasColMajor, CblasTrans, j, rest, CBLAS_SADDR(minus_one), A + (size_t)(j + 1) * lda, lda,
                        row, step, CBLAS_SADDR(one), d + cinc, cinc);
        conj_vector(j, row, step);
        starsolve_complex64_t r = 1 / ajj;
        cblas_zscal(rest, CBLAS_SADDR(r), d + cinc, cinc);
    }
    return 0;
}

/* op(A)(i, k) of a stored A: itself ('N'), transposed ('T') or conjugate-transposed ('C') */
static inline starsolve_complex64_t op_at(char trans, const starsolve_complex64_t *A, int lda, int i, int k)
{
    if (trans == 'N')
        return A[i + (size_t)k * lda];
    return trans == 'T' ? A[k + (size_t)i * lda] : conj(A[k + (size_t)i * lda]);
}

/* sum over r of x_r y_r, x conjugated (conj_x) or not: BLAS's dot. Level-1 calls scale over the cores; OpenBLAS's
 * gemv did not at order 512 (one thread 281 us a solve of unm2r_few's loop by gemv, 16 threads 385 us each: its
 * work buffer, above a stack limit, comes from a pool behind one lock), nor do its getrs, potrs and trsm, which
 * take such a buffer every call (bench/NOTES.md, sessions 42-43) */
static starsolve_complex64_t dot(int conj_x, int n, const starsolve_complex64_t *x, const starsolve_complex64_t *y)
{
#if defined(STARSOLVE_PRECISION_Z) || defined(STARSOLVE_PRECISION_C)
    starsolve_complex64_t s;
    if (conj_x)
        cblas_zdotc_sub(n, x, 1, y, 1, &s);
    else
        cblas_zdotu_sub(n, x, 1, y, 1, &s);
    return s;
#else
    (void)conj_x;
    return cblas_zdot(n, x, 1, y, 1);
#endif
}

/* b overwritten by op(A)^-1 b, op(A) = A^T or A^H with A triangular (uplo), unit diagonal or not: b(j) less a dot of
 * A's column j (op(A)'s row j) with the part already final */
static void trsv_level1(char uplo, char trans, int unit, int n, const starsolve_complex64_t *A, int lda,
                        starsolve_complex64_t *b)
{
    const int forward = uplo == 'U';   /* op(A) lower triangular */
    for (int t = 0; t < n; t++) {
        const int j = forward ? t : n - 1 - t;
        const starsolve_complex64_t *col = A + (size_t)j * lda, diag = trans == 'C' ? conj(col[j]) : col[j];
        /* A's column j above (uplo U) or below (L) the diagonal */
        const int lo = uplo == 'L' ? j + 1 : 0, len = uplo == 'L' ? n - j - 1 : j;
        if (len > 0)
            b[j] -= dot(trans == 'C', len, col + lo, b + lo);
        if (!unit)
            b[j] /= diag;
    }
}

/* B (n x nrhs) overwritten by op(A)^-1 B, A triangular (uplo) with a unit diagonal or not, by substitution in plain
 * loops; the BLAS triangular solves (cblas_ztrsv too) serialize concurrent callers like getrf (session 42). One column
 * with op(A) = A: down A's columns (b(j) final, taken out of the rest under `omp simd`, the complex products written
 * out in real arithmetic: times). Before, A's rows at lda strides as below up to SMALL_ORDER and a level-1 axpy a
 * column above; 2 cores, one right-hand side, solve time ratio to the LAPACKE loop, medians of three, rows / columns,
 * 256 MiB of matrices: d getrs 8 2.91 / 3.82, 16 2.29 / 2.67, 32 0.94 / 1.45; z getrs 8 2.62 / 2.93, 16 1.41 / 1.79, 32
 * 0.79 / 1.29; 1000 matrices, level-1 axpys / columns: d getrs 64 0.94 / 1.03, 128 1.00 / 1.12, 256 1.03 / 1.09; d
 * potrs 128 1.24 / 1.43; z getrs 128 0.93 / 1.01, 256 1.02 / 1.05. Otherwise, up to SMALL_ORDER, a row of every column
 * at once (`omp simd` across the columns, AVX-512 / AVX2 clones) by the diagonal's reciprocal: with several columns
 * (single complex takes two or three here; more go by trsm_planar: solve_for) it beat the columns' form, 256 MiB, rows
 * / columns: c getrs 8 x 2 2.73 / 1.81, 16 x 2 1.92 / 1.12, 24 x 2 1.35 / 1.12, 32 x 2 1.14 / 1.14, 32 x 3 1.24 / 1.10;
 * against a column at a time with C's complex products and division, 2 cores, 16 right-hand sides, z getrs 16 0.59 /
 * 1.15, 32 0.36 / 0.75; c potrs 16 0.37 / 1.35, 32 0.25 / 0.62 (session 65). The transposed solves above SMALL_ORDER: a
 * level-1 dot a row (trsv_level1) (bench/NOTES.md, sessions 65-66). */
SS_SIMD_CLONES_AVX512 static void trsm_subst(char uplo, char trans, int unit, int n, int nrhs,
                                             const starsolve_complex64_t *A, int lda, starsolve_complex64_t *B, int ldb)
{
    if (trans == 'N' && (nrhs == 1 || n > SMALL_ORDER)) {
        const int lower = uplo == 'L';
        for (int r = 0; r < nrhs; r++) {
            starsolve_complex64_t *b = B + (size_t)r * ldb;
            for (int t = 0; t < n; t++) {
                const int j = lower ? t : n - 1 - t, k0 = lower ? j + 1 : 0, k1 = lower ? n : j;
                const starsolve_complex64_t *col = A + (size_t)j * lda;
                if (!unit)
                    b[j] /= col[j];
                const starsolve_complex64_t x = b[j];
#pragma omp simd
                for (int k = k0; k < k1; k++)
                    b[k] -= times(col[k], x);
            }
        }
        return;
    }
    if (n > SMALL_ORDER) {
        for (int r = 0; r < nrhs; r++)
            trsv_level1(uplo, trans, unit, n, A, lda, B + (size_t)r * ldb);
        return;
    }
    const int lower = (uplo == 'L') == (trans == 'N');   /* op(A) lower triangular: forward substitution */
    for (int t = 0; t < n; t++) {
        const int i = lower ? t : n - 1 - t;
        const starsolve_complex64_t inv = unit ? 1 : 1 / op_at(trans, A, lda, i, i);
#pragma omp simd
        for (int r = 0; r < nrhs; r++) {
            starsolve_complex64_t *b = B + (size_t)r * ldb, s = b[i];
            for (int k = lower ? 0 : i + 1; k < (lower ? i : n); k++)
                s -= times(op_at(trans, A, lda, i, k), b[k]);
            b[i] = times(s, inv);
        }
    }
}

/* B = op(T)^-1 B, T the upper or (unit if `unit`) lower triangle of A: trsm_subst or trsm_tile, for getrs_by */
typedef void triangular_solve(char uplo, char trans, int unit, int n, int nrhs, const starsolve_complex64_t *A, int lda,
                              starsolve_complex64_t *B, int ldb);

#if !defined(STARSOLVE_PRECISION_Z) && !defined(STARSOLVE_PRECISION_C)
/* Real LU and Cholesky solves and least squares' R^-1 above the substitution's orders go by the tile TRSM (cpu_ztrsm:
 * a GEMM between halves of the triangle, plain C leaves; the same substitution reordered, no inverse formed) rather
 * than LAPACKE's getrs / potrs and cblas_dtrsm, which runs at a third of OpenBLAS's GEMM (getrf_blocked's comment).
 * Ratio of the solves to the OpenMP loop of LAPACKE's getrs / potrs, 256 MiB, double, through cblas_dtrsm / this:
 * 2 cores, getrs 64 with 2 right-hand sides 1.00 / 1.10, 16 1.05 / 1.81, 64 1.01 / 2.59; 128 x 16 1.02 / 1.76; 256 x 2
 * 1.00 / 1.96; 512 x 2 1.11 / 1.73, x 16 1.01 / 1.74, x 64 0.98 / 1.81 (single 256 x 16 0.96 / 1.74); getrs 'T' x 16:
 * 64 0.99 / 1.41, 96 0.98 / 1.31, 192 1.01 / 1.35, 512 0.99 / 1.03-1.09; potrs x 16: 64 0.95 / 1.58, 96 0.99 / 1.44,
 * 128 0.97 / 1.63, 192 1.02 / 1.45, 256 1.00 / 1.57, 512 0.98 / 1.43; potrs x 2: 128 0.98 / 1.36, 256 1.01 / 1.49;
 * the H200 machine's 16 CPU workers, two rounds: getrs 48 x 16 0.55 0.56 / 1.57 1.52, 64 x 2 0.47 0.47 / 2.14 2.26,
 * 128 x 16 1.04 0.94 / 1.79 1.64, 512 x 16 1.02 1.03 / 1.88 1.86; getrs 'T' 96 x 16 1.10 1.00 / 1.34 1.57, 160 x 4
 * 0.96 0.85 / 1.36 1.34, 192 x 16 1.02 1.08 / 1.02 1.23; potrs 96 x 16 1.04 1.04 / 1.74 1.73, 100 x 4 0.96 0.94 /
 * 2.39 2.28, 160 x 16 1.01 0.96 / 1.62 1.62. The transposed solves (potrs's second, getrs 'T') need the tile TRSM's
 * transposed leaves of 32 (ztrsm_cpu.c): with leaves of 16 the 16 workers lost (potrs 96 x 16 0.43, getrs 'T' 96 x
 * 16 0.24). geqrs with 16 right-hand sides, 2 cores, 256 1.51 / 1.73, 512 1.29 / 1.60; 16 CPU workers 512 10.1 11.4
 * / 12.4 11.7. Not in complex, whose tile TRSM has OpenBLAS's leaves: 2 cores, z getrs 128 x 16 1.01 / 0.83
 * (bench/NOTES.md, sessions 64-65). */
static void trsm_tile(char uplo, char trans, int unit, int n, int nrhs, const starsolve_complex64_t *A, int lda,
                      starsolve_complex64_t *B, int ldb)
{
    cpu_ztrsm('L', uplo, trans, unit ? 'U' : 'N', n, nrhs, 1.0, A, lda, B, ldb);
}
#endif

#if defined(STARSOLVE_PRECISION_Z) || defined(STARSOLVE_PRECISION_C)
/* The highest order of a planar solve (trsm_planar) */
#define PLANAR_ORDER 128
/* The fewest right-hand sides a planar solve takes above SMALL_ORDER (below, two or more) */
#define PLANAR_MIN_RHS 8

/* A planar copy's vector: 64 bytes, 8 (z) or 16 (c) right-hand sides of one row, real or imaginary parts */
typedef double planar_vector __attribute__((vector_size(64)));
enum { PLANAR_LANES = sizeof(planar_vector) / sizeof(double) };

/* the triangular solve of trsm_planar on B's planar copy: row k in Pr[k nv .. k nv + nv - 1] (real parts) and Pi
 * (imaginary), nv vectors a row; A is read down its columns. op(A) = A: the column form, x_j final taken out of the
 * other rows; op(A) = A^T or A^H: the row form, row i less op(A)'s row i (A's column i) times the rows already final,
 * in two sums for the real and two for the imaginary part so that more multiply-adds are in flight. */
static inline __attribute__((always_inline)) void planar_solve(const int nv, char uplo, char trans, int unit, int n,
                                                               const starsolve_complex64_t *A, int lda,
                                                               planar_vector *restrict Pr, planar_vector *restrict Pi)
{
    if (trans == 'N') {
        const int lower = uplo == 'L';
        for (int t = 0; t < n; t++) {
            const int j = lower ? t : n - 1 - t, k0 = lower ? j + 1 : 0, k1 = lower ? n : j;
            const starsolve_complex64_t *col = A + (size_t)j * lda, inv = unit ? 1 : 1 / col[j];
            for (int h = 0; h < nv; h++) {
                planar_vector xr = Pr[j * nv + h], xi = Pi[j * nv + h];
                if (!unit) {
                    const planar_vector yr = xr * creal(inv) - xi * cimag(inv);
                    xi = xr * cimag(inv) + xi * creal(inv);
                    xr = yr;
                    Pr[j * nv + h] = xr;
                    Pi[j * nv + h] = xi;
                }
                for (int k = k0; k < k1; k++) {
                    const double ar = creal(col[k]), ai = cimag(col[k]);
                    planar_vector yr = Pr[k * nv + h], yi = Pi[k * nv + h];
                    yr -= ar * xr;
                    yr += ai * xi;
                    yi -= ar * xi;
                    yi -= ai * xr;
                    Pr[k * nv + h] = yr;
                    Pi[k * nv + h] = yi;
                }
            }
        }
        return;
    }
    const int lower = uplo == 'U';   /* op(A) lower triangular: forward */
    const double sign = trans == 'C' ? -1 : 1;
    for (int t = 0; t < n; t++) {
        const int i = lower ? t : n - 1 - t, k0 = lower ? 0 : i + 1, k1 = lower ? i : n;
        const starsolve_complex64_t *col = A + (size_t)i * lda;
        /* the row's sums: in registers only if the loops over the row's vectors are unrolled (perf showed them stored
         * and reloaded at every step otherwise) */
        planar_vector r1[2], r2[2], i1[2], i2[2];
#pragma GCC unroll 2
        for (int h = 0; h < nv; h++) {
            r1[h] = Pr[i * nv + h];
            i1[h] = Pi[i * nv + h];
            r2[h] = i2[h] = (planar_vector){0};
        }
        for (int k = k0; k < k1; k++) {
            const double ar = creal(col[k]), ai = sign * cimag(col[k]);
#pragma GCC unroll 2
            for (int h = 0; h < nv; h++) {
                const planar_vector xr = Pr[k * nv + h], xi = Pi[k * nv + h];
                r1[h] -= ar * xr;
                r2[h] += ai * xi;
                i1[h] -= ar * xi;
                i2[h] -= ai * xr;
            }
        }
        const starsolve_complex64_t inv = unit ? 1 : 1 / CMPLX(creal(col[i]), sign * cimag(col[i]));
#pragma GCC unroll 2
        for (int h = 0; h < nv; h++) {
            const planar_vector sr = r1[h] + r2[h], si = i1[h] + i2[h];
            Pr[i * nv + h] = sr * creal(inv) - si * cimag(inv);
            Pi[i * nv + h] = sr * cimag(inv) + si * creal(inv);
        }
    }
}

/* B (n x nrhs, n <= PLANAR_ORDER) overwritten by op(A)^-1 B, A triangular (uplo) with a unit diagonal or not, by
 * substitution on a planar copy of B: up to 2 PLANAR_LANES columns at a time, each row's real parts in vectors apart
 * from its imaginary parts (zero past the last column), so that every multiply-add is a whole vector's and A's elements
 * are scalars; trsm_subst's `omp simd` across interleaved columns gathers every element. One core, us a zgetrs of 16
 * right-hand sides (LAPACKE / trsm_subst / this): 16 5.0 / 4.5 / 2.4, 32 12.7 / 17.6 / 7.2, 64 36 / 77 / 27, 128 106 /
 * 275 / 89, 256 331 / 1261 / 382; with 4 at 64 15.2 / 30.4 / 16.9, with 2 at 32 3.4 / 6.3 / 4.0 (at 16 1.1 / 1.3 /
 * 1.2). The batched solves on 2 cores, 16 right-hand sides, 1000 matrices, solve time ratio to the LAPACKE loop, before
 * (up to SMALL_ORDER trsm_subst, above LAPACKE) / this: z getrs 32 0.73 / 1.72-1.89, 64 1.02 / 1.45, 128 1.00 / 1.21; z
 * getrs 'C' 128 1.00 / 1.14; z potrs U 128 1.02 / 1.18; c getrs 32 0.69 / 2.23, 128 1.02 / 2.00; c potrs L 128 1.02 /
 * 1.67. The row form's sums stay in registers only with its loops over the row's vectors unrolled: z getrs 'C' 128 went
 * from 0.83 to 1.14 with them (bench/NOTES.md, session 66). */
SS_SIMD_CLONES_AVX512 static void trsm_planar(char uplo, char trans, int unit, int n, int nrhs,
                                              const starsolve_complex64_t *A, int lda, starsolve_complex64_t *B,
                                              int ldb)
{
    planar_vector Pr[2 * PLANAR_ORDER], Pi[2 * PLANAR_ORDER];
    for (int c = 0; c < nrhs; c += 2 * PLANAR_LANES) {
        const int w = ss_min(nrhs - c, 2 * PLANAR_LANES), nv = w > PLANAR_LANES ? 2 : 1;
        starsolve_complex64_t *Bc = B + (size_t)c * ldb;
        for (int k = 0; k < n; k++)
            for (int r = 0; r < nv * PLANAR_LANES; r++) {
                const starsolve_complex64_t x = r < w ? Bc[k + (size_t)r * ldb] : 0;
                Pr[k * nv + r / PLANAR_LANES][r % PLANAR_LANES] = creal(x);
                Pi[k * nv + r / PLANAR_LANES][r % PLANAR_LANES] = cimag(x);
            }
        if (nv == 1)
            planar_solve(1, uplo, trans, unit, n, A, lda, Pr, Pi);
        else
            planar_solve(2, uplo, trans, unit, n, A, lda, Pr, Pi);
        for (int r = 0; r < w; r++)
            for (int k = 0; k < n; k++)
                Bc[k + (size_t)r * ldb] = CMPLX(Pr[k * nv + r / PLANAR_LANES][r % PLANAR_LANES],
                                                Pi[k * nv + r / PLANAR_LANES][r % PLANAR_LANES]);
    }
}
#endif

/* The triangular solves of one matrix's getrs, potrs and geqrs with nrhs columns at order n; NULL where LAPACKE's own
 * are used. One column: trsm_subst up to LEVEL1_ORDER (above, LAPACKE). More columns: in real precisions the tile TRSM
 * at every order, whose leaves up to SMALL_ORDER are plain C loops across the columns (trsm_subst took one column at a
 * time: 2 cores, solve time ratio to the LAPACKE loop, trsm_subst / trsm_tile, getrs 16 x 16 0.92 / 2.24, 32 x 16 0.58
 * / 2.09, 32 x 4 0.73 / 1.14, 32 x 2 0.86 / 0.96, getrs 'T' 32 x 16 0.68 / 1.52, potrs 32 x 16 0.59 / 1.85, 32 x 2
 * 1.47 / 1.45; the H200 machine's 16 CPU workers (two rounds) getrs 16 x 16 3.42 3.31 / 11.77 11.92, 32 x 16 1.19 1.08
 * / 4.42 4.04, 16 x 2 19.24 18.93 / 18.46 16.69, 32 x 2 5.09 5.44 / 6.14 6.41, getrs 'T' 32 x 2 6.58 6.29 / 5.90 6.19,
 * potrs 32 x 16 2.12 1.92 / 7.23 7.97, 32 x 2 9.55 9.40 / 12.65 11.39; bench/NOTES.md, session 65); in complex
 * trsm_planar up to SMALL_ORDER, and up to PLANAR_ORDER with PLANAR_MIN_RHS columns or more (trsm_planar's numbers),
 * unless the columns fill less than a quarter of its vector: 2 cores, 256 MiB of matrices, ratios as above,
 * trsm_subst / trsm_planar, c getrs 16 x 2 1.90 / 1.22, 32 x 2 1.19 / 1.09, 16 x 3 1.76 / 1.45, 16 x 4 1.60 / 1.50, 32
 * x 4 0.99 / 1.49; z 16 x 2 1.24 / 1.32, 32 x 2 1.05 / 0.99 (session 66). */
static triangular_solve *solve_for(int n, int nrhs)
{
    if (nrhs == 1)
        return n <= LEVEL1_ORDER ? trsm_subst : NULL;
#if defined(STARSOLVE_PRECISION_Z) || defined(STARSOLVE_PRECISION_C)
    if (4 * nrhs < PLANAR_LANES)   /* most of a vector's lanes would be padding */
        return n <= SMALL_ORDER ? trsm_subst : NULL;
    return n <= SMALL_ORDER || (nrhs >= PLANAR_MIN_RHS && n <= PLANAR_ORDER) ? trsm_planar : NULL;
#else
    return trsm_tile;
#endif
}

/* B's rows permuted by P (forward) or P^T: LAPACK's zlaswp. One column by plain swaps, more by a BLAS swap a row (2
 * cores, one column, 256 MiB of matrices, solve time ratio to the LAPACKE loop, a BLAS call a row / plain swaps,
 * medians of three: d getrs 16 2.20 / 2.30, 32 1.44 / 1.56; z getrs 32 1.25 / 1.31; with 16 columns, 1000 matrices, a
 * column at a time was even or behind: z 16 1.98 / 1.76, 128 1.21 / 1.19; bench/NOTES.md, session 66) */
static void permute_rows(int forward, int n, int nrhs, const int *ipiv, starsolve_complex64_t *B, int ldb)
{
    if (nrhs == 1) {
        if (forward)
            swap_rows_in_column(B, 0, n, ipiv);
        else
            unswap_rows_in_column(B, 0, n, ipiv);
        return;
    }
    for (int t = 0; t < n; t++) {
        const int i = forward ? t : n - 1 - t;
        if (ipiv[i] - 1 != i)
            cblas_zswap(nrhs, B + i, ldb, B + ipiv[i] - 1, ldb);
    }
}

/* LAPACK's getrs by the triangular solves `solve` */
static void getrs_by(triangular_solve *solve, char trans, int n, int nrhs, const starsolve_complex64_t *A, int lda,
                     const int *ipiv, starsolve_complex64_t *B, int ldb)
{
    if (trans == 'N') {   /* P A = L U: x = U^-1 L^-1 P b */
        permute_rows(1, n, nrhs, ipiv, B, ldb);
        solve('L', 'N', 1, n, nrhs, A, lda, B, ldb);
        solve('U', 'N', 0, n, nrhs, A, lda, B, ldb);
    } else {              /* op(A) = op(U) op(L) P: x = P^T op(L)^-1 op(U)^-1 b */
        solve('U', trans, 0, n, nrhs, A, lda, B, ldb);
        solve('L', trans, 1, n, nrhs, A, lda, B, ldb);
        permute_rows(0, n, nrhs, ipiv, B, ldb);
    }
}

/* LAPACK's potrs by the triangular solves `solve` */
static void potrs_by(triangular_solve *solve, char uplo, int n, int nrhs, const starsolve_complex64_t *A, int lda,
                     starsolve_complex64_t *B, int ldb)
{
    if (uplo == 'L' || uplo == 'l') {   /* A = L L^H */
        solve('L', 'N', 0, n, nrhs, A, lda, B, ldb);
        solve('L', 'C', 0, n, nrhs, A, lda, B, ldb);
    } else {                             /* A = U^H U */
        solve('U', 'C', 0, n, nrhs, A, lda, B, ldb);
        solve('U', 'N', 0, n, nrhs, A, lda, B, ldb);
    }
}

/* Real LU above PLAIN_LU_ORDER: LAPACK's right-looking blocked getrf by lu_block(n) columns. Each panel, from its
 * diagonal down, by getrf_plain (8-column steps; one 32-column step was 10-30 % slower); its row interchanges on the
 * columns right of it by laswp; U's block row by the tile TRSM, cpu_ztrsm (a GEMM between halves of the triangle and
 * plain C leaves); the trailing matrix by one GEMM. The columns left of a block take its interchanges at the end, each
 * column all of the later blocks' at once while it is in cache (LAPACK swaps them block by block: the same result; 2
 * cores, 1 GiB, 128 1.47x -> 1.50x, 512 1.22x -> 1.29x). Why: OpenBLAS 0.3.21's dgetrf runs at 25-30 GF/s at order 512
 * on one core of the 2-core CI machine, its GEMM at 67, and its TRSM at 9 on a 64 x 448 block (one core, 512, ms a
 * matrix, blocks of 32: panels 0.33, swaps 0.53, TRSM 0.26, GEMM 1.4; the TRSM with blocks of 64: 0.34 through
 * cpu_ztrsm, 0.86 through cblas_dtrsm, 0.44 by the diagonal block's inverse and a GEMM; cpu_ztrsm, the fastest, forms
 * no inverse either). Ratio to the OpenMP loop of LAPACKE_dgetrf, 1 GiB, LAPACKE's call (or the plain LU up to 256) /
 * this code without the deferred interchanges: 2 cores, three runs' medians, 320 0.99 / 1.40, 512 0.98 / 1.19, 768 1.00
 * / 1.22, 1024 0.99 / 1.12 (single 128 1.08 / 1.30, 512 1.00 / 1.22); the 16 CPU workers of the H200 machine, two
 * rounds, 96 1.16 1.29 / 1.50 1.47, 256 0.90 0.97 / 1.50 1.44, 512 1.03 1.10 / 1.32 1.30, 1024 1.24 1.13 / 1.23 1.36
 * (single 512 1.01 1.04 / 1.25 1.24); with them, 16 CPU workers, 256 1.35 1.25, 512 1.41 1.53, 1024 1.35 1.48. Blocks
 * of 16 lost from 512 on, of 64 up to 512 (2 cores, 512: 16 1.11, 32 1.20, 64 1.18; 1024: 32 0.98, 64 1.08). Not in
 * complex: even or behind LAPACKE (2 cores, z 512 0.93x, c 0.97x), whose complex kernels run nearer their GEMM
 * (bench/NOTES.md, session 64). */
#if !defined(STARSOLVE_PRECISION_Z) && !defined(STARSOLVE_PRECISION_C)
#define LU_BLOCK_SMALL 32
#define LU_BLOCK_LARGE 64
static int lu_block(int n) { return n <= 512 ? LU_BLOCK_SMALL : LU_BLOCK_LARGE; }

static int getrf_blocked(int m, int n, starsolve_complex64_t *A, int lda, int *ipiv)
{
    const starsolve_complex64_t one = 1.0, mone = -1.0;
    const int k = ss_min(m, n), nb = lu_block(n);
    int info = 0;
    for (int j = 0; j < k; j += nb) {
        const int jb = ss_min(nb, k - j), right = n - j - jb, below = m - j - jb;
        starsolve_complex64_t *diag = A + j + (size_t)j * lda, *row = diag + (size_t)jb * lda;
        const int panel_info = getrf_plain_panels(m - j, jb, diag, lda, ipiv + j);
        if (panel_info && !info)
            info = j + panel_info;
        for (int i = j; i < j + jb; i++)   /* the panel's pivots, made A's rows */
            ipiv[i] += j;
        if (right == 0)
            continue;
        LAPACKE_zlaswp_work(LAPACK_COL_MAJOR, right, row - j, lda, j + 1, j + jb, ipiv, 1);
        cpu_ztrsm('L', 'L', 'N', 'U', jb, right, one, diag, lda, row, lda);
        if (below > 0)
            cblas_zgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, below, right, jb, CBLAS_SADDR(mone), diag + jb, lda,
                        row, lda, CBLAS_SADDR(one), row + jb, lda);
    }
    for (int c = 0; c < k; c++) {   /* L's columns take the later blocks' interchanges, all at once */
        const int later = (c / nb + 1) * nb;
        if (later < k)
            swap_rows_in_column(A + (size_t)c * lda, later, k, ipiv);
    }
    return info;
}
#endif

int ss_zgetrf_one(int m, int n, starsolve_complex64_t *A, int lda, int *ipiv)
{
    if (m <= PLAIN_LU_ORDER && n <= PLAIN_LU_ORDER)
        return n <= PLAIN_LU_UNBLOCKED ? getrf_plain_unblocked(m, n, A, lda, ipiv)
                                       : getrf_plain_panels(m, n, A, lda, ipiv);
#if !defined(STARSOLVE_PRECISION_Z) && !defined(STARSOLVE_PRECISION_C)
    return getrf_blocked(m, n, A, lda, ipiv);
#else
    return LAPACKE_zgetrf_work(LAPACK_COL_MAJOR, m, n, A, lda, ipiv);
#endif
}

/* Cholesky of the upper triangle by the lower one's code, for orders UPPER_VIA_LOWER_FROM .. UPPER_VIA_LOWER_TO.
 * OpenBLAS 0.3.21's potrf runs well behind on the upper triangle from order 64 on: one core of the 2-core CI machine
 * (AVX-512), us a factorization, lower / upper: double 48 4.2 / 5.1, 64 6.4 / 12.1, 128 32 / 57, 256 198 / 313, 384
 * 559 / 783, 512 1356 / 1861; at 256 single 134 / 202, complex 331 / 431, double complex 593 / 705. So A's upper
 * triangle is copied, conjugate-transposed, into the lower triangle of work, factored there (A = L L^H, so U = L^H)
 * and copied back: the same factor up to rounding, the same info, A's lower triangle untouched, as LAPACK leaves
 * it. One core, double, us through the lower triangle with the copies: 48 5.2, 64 8.4, 256 238, 384 638, 512 1567
 * (the copies 1, 2, 24, 64, 200); both cores of a batch, 512 MiB, GF/s against LAPACKE's upper: 128 23.0 / 17.8, 256
 * 36.9 / 27.6, 512 44.5 / 43.5, the copies eating the gain at 512 (bench/NOTES.md, session 61). In real precisions
 * the copy goes to potrf_plain_lower up to its order, which pays for the copies from order 33 on: both cores, 1 GiB,
 * against the LAPACKE loop with uplo U, 33 1.40x, 40 1.22x, 48 1.12x (1.01x through LAPACKE's upper), 56 1.17x
 * (session 62); in complex, through LAPACKE's lower, from 64 (48: 0.87x, session 61). Above, in real precisions, the
 * copy goes to potrf_tiled_lower, which pays for the copies up to 1024: 2 cores, 256 MiB, against the loop with uplo
 * U, double 128 1.62x, 256 1.65x, 512 1.53x, 1024 1.24x; single 448 1.44x, 512 1.32x and 1024 1.07x, where LAPACKE's
 * upper made 0.97x and 0.96x (session 67; before, double's blocked code with OpenBLAS's TRSM and SYRK made 512 1.16x,
 * 1024 1.10x, session 63). Above UPPER_VIA_LOWER_TO (unmeasured) the copy's work array would pass 8 MiB a worker (16
 * MiB in double complex at 1024 already). In complex the copy to LAPACKE's lower lost from 512 on (2 cores: z 512
 * 0.96x), so it stopped at 448 until the packed tiles took complex orders too: with them, 512 z 1.00x -> 1.14x, c 0.98x
 * -> 1.21x, 1024 z 1.01x -> 1.06x, c 1.00x -> 1.03x (session 67). From 33 in single complex (below 64 the lower code is
 * LAPACKE's or the unblocked steps): 40 1.01-1.02x -> 0.95x, so 64 stays. */
#if !defined(STARSOLVE_PRECISION_Z) && !defined(STARSOLVE_PRECISION_C)
#define UPPER_VIA_LOWER_FROM (SMALL_ORDER + 1)
#define UPPER_VIA_LOWER_TO 1024
#else
#define UPPER_VIA_LOWER_FROM 64
#define UPPER_VIA_LOWER_TO 1024
#endif
/* The copies go by COPY_BLOCK x COPY_BLOCK blocks, so that the strided side stays in the first-level cache, and work's
 * leading dimension is n + WORK_LD_PAD, off the powers of two whose columns share cache sets: double, order 256, both
 * copies 24 us, 27 without the padding, ~100 with blocks of 32 and no padding. */
#define COPY_BLOCK 16
#define WORK_LD_PAD 8

/* W(j, i) = conj(A(i, j)) for i <= j (upper to lower) or, with to_upper, A(i, j) = conj(W(j, i)) */
static void copy_triangle_conj_transposed(int n, starsolve_complex64_t *A, int lda, starsolve_complex64_t *W, int ldw,
                                          int to_upper)
{
    for (int jb = 0; jb < n; jb += COPY_BLOCK)
        for (int ib = 0; ib <= jb; ib += COPY_BLOCK) {
            const int jend = jb + COPY_BLOCK < n ? jb + COPY_BLOCK : n, iend = ib + COPY_BLOCK < n ? ib + COPY_BLOCK : n;
            for (int j = jb; j < jend; j++)
                for (int i = ib; i < iend && i <= j; i++) {
                    starsolve_complex64_t *a = A + i + (size_t)j * lda, *w = W + j + (size_t)i * ldw;
                    if (to_upper)
                        *a = conj(*w);
                    else
                        *w = conj(*a);
                }
        }
}

/* elements of the upper triangle's copy at order n (0: none, the upper triangle factored in place) */
static size_t upper_copy_lwork(int n)
{
    return n >= UPPER_VIA_LOWER_FROM && n <= UPPER_VIA_LOWER_TO ? (size_t)(n + WORK_LD_PAD) * n : 0;
}

/* elements of the packed block column potrf_lower takes at order n (0: none) */
static size_t packed_lwork(int n)
{
    return n > TILED_CHOL_AFTER && n <= TILED_CHOL_TO ? potrf_tiled_lwork(n) : 0;
}

/* work: the upper triangle's copy, then the packed block column */
size_t ss_zpotrf_one_lwork(char uplo, int n)
{
    if (uplo == 'L' || uplo == 'l')
        return packed_lwork(n);
    const size_t copy = upper_copy_lwork(n);
    return copy ? copy + packed_lwork(n) : 0;
}

/* A's lower Cholesky factor: getrf_plain's way up to PLAIN_CHOL_ORDER, by packed tiles above TILED_CHOL_AFTER up to
 * TILED_CHOL_TO (packed: NULL or packed_lwork(n) elements; NULL there, LAPACKE), else LAPACK's unblocked steps up to
 * SMALL_ORDER, else LAPACKE */
static int potrf_lower(int n, starsolve_complex64_t *A, int lda, starsolve_complex64_t *packed)
{
    if (n <= PLAIN_CHOL_ORDER)
        return potrf_plain_lower(n, A, lda);
    if (packed)
        return potrf_tiled_lower(n, A, lda, packed);
    if (n <= SMALL_ORDER)
        return potf2_small('L', n, A, lda);
    return LAPACKE_zpotrf_work(LAPACK_COL_MAJOR, 'L', n, A, lda);
}

int ss_zpotrf_one(char uplo, int n, starsolve_complex64_t *A, int lda, starsolve_complex64_t *work)
{
    if (uplo == 'L' || uplo == 'l')
        return potrf_lower(n, A, lda, packed_lwork(n) ? work : NULL);
    const size_t copy = upper_copy_lwork(n);
    if (work && copy) {   /* the upper triangle through the lower one's code */
        const int ldw = n + WORK_LD_PAD;
        copy_triangle_conj_transposed(n, A, lda, work, ldw, 0);
        const int info = potrf_lower(n, work, ldw, packed_lwork(n) ? work + copy : NULL);
        copy_triangle_conj_transposed(n, A, lda, work, ldw, 1);
        return info;
    }
    if (n <= SMALL_ORDER)
        return potf2_small(uplo, n, A, lda);
    return LAPACKE_zpotrf_work(LAPACK_COL_MAJOR, uplo, n, A, lda);
}

void ss_zgetrs_one(char trans, int n, int nrhs, const starsolve_complex64_t *A, int lda, const int *ipiv,
                   starsolve_complex64_t *B, int ldb)
{
    triangular_solve *solve = solve_for(n, nrhs);
    if (solve)
        getrs_by(solve, trans, n, nrhs, A, lda, ipiv, B, ldb);
    else
        LAPACKE_zgetrs_work(LAPACK_COL_MAJOR, ss_lapack_trans(trans), n, nrhs, A, lda, ipiv, B, ldb);
}

void ss_zpotrs_one(char uplo, int n, int nrhs, const starsolve_complex64_t *A, int lda, starsolve_complex64_t *B,
                   int ldb)
{
    triangular_solve *solve = solve_for(n, nrhs);
    if (solve)
        potrs_by(solve, uplo, n, nrhs, A, lda, B, ldb);
    else
        LAPACKE_zpotrs_work(LAPACK_COL_MAJOR, uplo, n, nrhs, A, lda, B, ldb);
}

/* b = [head; tail] (tail: below elements) overwritten by H^H b, H = I - tau u u^H with u = [1; v]:
 * b - conj(tau) u (u^H b), by a dot and an axpy (zlarf's gemv and gerc for one column), v untouched (u's 1 handled
 * apart). A column of one matrix passes head = b, tail = b + 1; tpqrt's head is in R, its tail in the tile below */
static void reflect_column(int below, const starsolve_complex64_t *v, starsolve_complex64_t tau,
                           starsolve_complex64_t *head, starsolve_complex64_t *tail)
{
    starsolve_complex64_t alpha = -conj(tau) * (*head + (below > 0 ? dot(1, below, v, tail) : 0));
    *head += alpha;
    if (below > 0)
        cblas_zaxpy(below, CBLAS_SADDR(alpha), v, 1, tail, 1);
}

/* B (m x nrhs) overwritten by Q^H B, Q = H(0) ... H(k-1) from geqrf's A and tau, for nrhs <= FEW_RHS (and as
 * unmqr_blocked's fallback): LAPACK's zunm2r, one reflector at a time, a column at a time (reflect_column).
 * Level-1 calls, as zlarf's gemv serializes concurrent callers at these lengths (above); one core, order 512, one
 * right-hand side: 150 us a solve with gemv from one thread, 206 from each of two, against 134 and 66 with a dot a
 * column (bench/NOTES.md, session 43). */
static void unm2r_few(int m, int k, int nrhs, const starsolve_complex64_t *A, int lda, const starsolve_complex64_t *tau,
                      starsolve_complex64_t *B, int ldb)
{
    for (int i = 0; i < k; i++)
        if (tau[i] != 0)   /* else H(i) = I */
            for (int j = 0; j < nrhs; j++)
                reflect_column(m - i - 1, A + i + 1 + (size_t)i * lda, tau[i], B + i + (size_t)j * ldb,
                               B + i + 1 + (size_t)j * ldb);
}

/* LAPACK's zgeqr2 on an m x nb panel (m >= nb): H(j) from zlarfg, H(j)^H applied to the panel's later columns by
 * reflect_column where zlarf calls gemv and gerc. OpenBLAS's gemv takes its buffer (m + n + 16
 * elements) from the stack up to MAX_STACK_ALLOC bytes (2048 by default), else from its locked pool: from the 16
 * cores of the H100 machine a LAPACKE_dgeqrf of order 512 took 22.3 ms against 9.2 from one thread alone
 * (bench/NOTES.md, sessions 43-44). */
static void geqr2_level1(int m, int nb, starsolve_complex64_t *A, int lda, starsolve_complex64_t *tau)
{
    for (int j = 0; j < nb; j++) {
        starsolve_complex64_t *d = A + j + (size_t)j * lda;   /* H(j) = I - tau u u^H, u = [1; A(j+1:m, j)] */
        LAPACKE_zlarfg_work(m - j, d, d + 1, 1, tau + j);
        for (int c = j + 1; c < nb && tau[j] != 0; c++)   /* tau 0: H(j) = I */
            reflect_column(m - j - 1, d + 1, tau[j], A + j + (size_t)c * lda, A + j + 1 + (size_t)c * lda);
    }
}

#if !defined(STARSOLVE_PRECISION_Z) && !defined(STARSOLVE_PRECISION_C)
/* a0 .. a3 (four columns of `below` + 1 rows) overwritten by H^T a, H = I - tau u u^T with u = [1; v]: four dots
 * sharing v's loads, then four axpys */
static inline __attribute__((always_inline)) void reflect_four_columns(int below, const starsolve_complex64_t *v,
                                                                       starsolve_complex64_t tau,
                                                                       starsolve_complex64_t *a0,
                                                                       starsolve_complex64_t *a1,
                                                                       starsolve_complex64_t *a2,
                                                                       starsolve_complex64_t *a3)
{
    starsolve_complex64_t s0 = a0[0], s1 = a1[0], s2 = a2[0], s3 = a3[0];
#pragma omp simd reduction(+ : s0, s1, s2, s3)
    for (int i = 0; i < below; i++) {
        s0 += v[i] * a0[i + 1];
        s1 += v[i] * a1[i + 1];
        s2 += v[i] * a2[i + 1];
        s3 += v[i] * a3[i + 1];
    }
    s0 *= -tau, s1 *= -tau, s2 *= -tau, s3 *= -tau;
    a0[0] += s0, a1[0] += s1, a2[0] += s2, a3[0] += s3;
#pragma omp simd
    for (int i = 0; i < below; i++) {
        a0[i + 1] += s0 * v[i];
        a1[i + 1] += s1 * v[i];
        a2[i + 1] += s2 * v[i];
        a3[i + 1] += s3 * v[i];
    }
}

/* one column the same way */
static inline __attribute__((always_inline)) void reflect_one_column(int below, const starsolve_complex64_t *v,
                                                                     starsolve_complex64_t tau,
                                                                     starsolve_complex64_t *a)
{
    starsolve_complex64_t s = a[0];
#pragma omp simd reduction(+ : s)
    for (int i = 0; i < below; i++)
        s += v[i] * a[i + 1];
    s *= -tau;
    a[0] += s;
#pragma omp simd
    for (int i = 0; i < below; i++)
        a[i + 1] += s * v[i];
}

/* Real QR's unblocked steps (LAPACK's dgeqr2 on m x n, min(m, n) reflectors) in plain C: H(j) from dlarfg, applied to
 * the later columns four at a time by reflect_four_columns where dlarf calls gemv and ger (LAPACKE's dgeqrf, at these
 * orders unblocked) or geqr2_level1 a dot and an axpy a column, each a call. 2 cores, 256 MiB, double, against the
 * LAPACKE loop: the whole QR up to m + n = QR_UNBLOCKED_SUM, LAPACKE's unblocked call / this code, 16 1.17-1.20x /
 * 1.83-1.88x, 32 1.06-1.07x / 1.59-1.64x, 48 1.03-1.06x / 1.48-1.50x, 64 0.98-1.03x / 1.37-1.40x; as the blocked QR's
 * panels, geqr2_level1 / this code, 96 1.10-1.18x / 1.42-1.47x, 128 1.34-1.39x / 1.51-1.56x, 256 1.11-1.12x /
 * 1.15-1.16x, 512 1.08-1.13x / 1.09-1.10x. One core, a 32-column panel (AVX-512 clone), us: 64 rows 16.0 / 10.2, 256
 * 43.1 / 33.9, 512 79.0 / 73.2, 1024 150.7 / 152.4. Not in the tile QR's geqrt (geqrt_recursive's leaves): there
 * starpu_qr at 4096 on 2 cores took 1.25 s with it against 1.15 s. The AVX2 clone rather than AVX-512, as the columns
 * are short: single 16-128 1.09-1.54x -> 1.71-1.93x, double 16 1.77x -> 2.14x, 32 1.63x -> 1.83x, 64-512 even (two
 * rounds at 64 and 128: 1.44-1.46 / 1.51-1.54 against 1.47-1.51 / 1.50-1.53) (bench/NOTES.md, session 67). */
SS_SIMD_CLONES_AVX2 static void geqr2_plain(int m, int n, starsolve_complex64_t *A, int lda,
                                              starsolve_complex64_t *tau)
{
    const int k = ss_min(m, n);
    for (int j = 0; j < k; j++) {
        starsolve_complex64_t *d = A + j + (size_t)j * lda;   /* H(j) = I - tau u u^T, u = [1; A(j+1:m, j)] */
        LAPACKE_zlarfg_work(m - j, d, d + 1, 1, tau + j);
        if (tau[j] == 0)   /* H(j) = I */
            continue;
        const int below = m - j - 1;
        int c = j + 1;
        for (; c + 4 <= n; c += 4)
            reflect_four_columns(below, d + 1, tau[j], A + j + (size_t)c * lda, A + j + (size_t)(c + 1) * lda,
                                 A + j + (size_t)(c + 2) * lda, A + j + (size_t)(c + 3) * lda);
        for (; c < n; c++)
            reflect_one_column(below, d + 1, tau[j], A + j + (size_t)c * lda);
    }
}
#endif

/* T(0:j, j) = T(0:j, 0:j) T(0:j, j), T upper triangular (zlarft's trmv), top down: row i reads rows >= i of the
 * column, not yet overwritten; then T(j, j) = tau */
static void larft_column_finish(int j, starsolve_complex64_t *T, int ldt, starsolve_complex64_t tau)
{
    starsolve_complex64_t *tj = T + (size_t)j * ldt;
    for (int i = 0; i < j; i++) {
        starsolve_complex64_t s = 0;
        for (int l = i; l < j; l++)
            s += T[i + (size_t)l * ldt] * tj[l];
        tj[i] = s;
    }
    tj[j] = tau;
}

/* T (nb x nb, upper triangular, leading dimension ldt) of H(0) ... H(nb-1) = I - V T V^H for an m x nb panel
 * factored by geqr2_level1: LAPACK's zlarft (forward, columnwise), its gemv by dots (as above) and its trmv by a
 * loop on the small triangle */
static void larft_level1(int m, int nb, const starsolve_complex64_t *V, int lda, const starsolve_complex64_t *tau,
                         starsolve_complex64_t *T, int ldt)
{
    for (int j = 0; j < nb; j++) {
        const starsolve_complex64_t *vj = V + (size_t)j * lda;
        starsolve_complex64_t *tj = T + (size_t)j * ldt;
        /* T(0:j, j) = -tau_j V(j:m, 0:j)^H v_j, with v_j's 1 at row j */
        for (int i = 0; i < j; i++) {
            const starsolve_complex64_t *vi = V + (size_t)i * lda;
            starsolve_complex64_t s = conj(vi[j]) + (j + 1 < m ? dot(1, m - j - 1, vi + j + 1, vj + j + 1) : 0);
            tj[i] = -tau[j] * s;
        }
        larft_column_finish(j, T, ldt, tau[j]);
    }
}

/* C (rows x ncols) overwritten by H^H C, H = H(0) ... H(nb-1) = I - V T V^H the block reflector of an rows x nb
 * panel factored by geqr2_level1 (V below its diagonal, tau): T (leading dimension ldt) by larft_level1, then
 * zlarfb (a few level-3 calls). work: ncols x nb */
static void apply_block_reflector(int rows, int nb, const starsolve_complex64_t *V, int lda,
                                  const starsolve_complex64_t *tau, starsolve_complex64_t *T, int ldt, int ncols,
                                  starsolve_complex64_t *C, int ldc, starsolve_complex64_t *work)
{
    larft_level1(rows, nb, V, lda, tau, T, ldt);
    LAPACKE_zlarfb_work(LAPACK_COL_MAJOR, 'L', ss_lapack_trans('C'), 'F', 'C', rows, ncols, nb, V, lda, T, ldt, C,
                        ldc, work, ncols);
}

size_t ss_zgeqrf_one_lwork(int n) { return (size_t)(QR_NB + (n > 1 ? n : 1)) * QR_NB; }

int ss_zgeqrf_one(int m, int n, starsolve_complex64_t *A, int lda, starsolve_complex64_t *tau,
                  starsolve_complex64_t *work)
{
    const int k = m < n ? m : n;
    if (m + n <= QR_UNBLOCKED_SUM) {
#if !defined(STARSOLVE_PRECISION_Z) && !defined(STARSOLVE_PRECISION_C)
        geqr2_plain(m, n, A, lda, tau);
        return 0;
#else
        return LAPACKE_zgeqrf_work(LAPACK_COL_MAJOR, m, n, A, lda, tau, work, (int)ss_zgeqrf_one_lwork(n));
#endif
    }
    /* LAPACK's zgeqrf without its unblocked tail: a panel of QR_NB columns (geqr2_plain in real precisions), its T,
     * the block reflector applied to the columns right of it by zlarfb (a few level-3 calls a panel) */
    starsolve_complex64_t *T = work, *larfb_work = work + QR_NB * QR_NB;
    for (int j = 0; j < k; j += QR_NB) {
        const int nb = k - j < QR_NB ? k - j : QR_NB, rows = m - j, right = n - j - nb;
        starsolve_complex64_t *Ajj = A + j + (size_t)j * lda;
#if !defined(STARSOLVE_PRECISION_Z) && !defined(STARSOLVE_PRECISION_C)
        geqr2_plain(rows, nb, Ajj, lda, tau + j);
#else
        geqr2_level1(rows, nb, Ajj, lda, tau + j);
#endif
        if (right > 0)
            apply_block_reflector(rows, nb, Ajj, lda, tau + j, T, QR_NB, right, Ajj + (size_t)nb * lda, lda,
                                  larfb_work);
    }
    return 0;
}

/* the left part of a split in QRT_LEAF-column multiples, about half: geqrt_recursive's and tpqrt_recursive's */
static int left_half(int n) { return (n / 2 + QRT_LEAF - 1) / QRT_LEAF * QRT_LEAF; }

/* T12 (n1 x n2, holding V1^H V2) overwritten by -T11 T12 T22, the block of T that couples two groups of reflectors
 * (T11 = T(0:n1, 0:n1) before, T22 = T(n1:n1+n2, n1:n1+n2) after) */
static void couple_T(int n1, int n2, starsolve_complex64_t *T, int ldt)
{
    const starsolve_complex64_t one = 1, minus_one = -1;
    starsolve_complex64_t *T12 = T + (size_t)n1 * ldt;
    cblas_ztrmm(CblasColMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, n1, n2, CBLAS_SADDR(minus_one), T,
                ldt, T12, ldt);
    cblas_ztrmm(CblasColMajor, CblasRight, CblasUpper, CblasNoTrans, CblasNonUnit, n1, n2, CBLAS_SADDR(one),
                T + n1 + (size_t)n1 * ldt, ldt, T12, ldt);
}

/* T(0:j, j:j+nb) = -T11 (V1^H V2) T22 for reflectors V1 (columns 0..j, T11 = T(0:j, 0:j)) followed by V2 (columns
 * j..j+nb of an m-row matrix, T22 = T(j:j+nb, j:j+nb)): then H = I - V T V^H for all j + nb. V2 is zero above row j
 * and unit lower triangular in rows j..j+nb: V1's rows there against that triangle, then the rows below */
static void merge_T(int m, int j, int nb, const starsolve_complex64_t *A, int lda, starsolve_complex64_t *T, int ldt)
{
    const starsolve_complex64_t one = 1;
    const starsolve_complex64_t *V2 = A + j + (size_t)j * lda;
    starsolve_complex64_t *T12 = T + (size_t)j * ldt;
    for (int c = 0; c < nb; c++)
        for (int r = 0; r < j; r++)
            T12[r + (size_t)c * ldt] = conj(A[j + c + (size_t)r * lda]);
    cblas_ztrmm(CblasColMajor, CblasRight, CblasLower, CblasNoTrans, CblasUnit, j, nb, CBLAS_SADDR(one), V2, lda, T12,
                ldt);
    if (m - j > nb)
        cblas_zgemm(CblasColMajor, CblasConjTrans, CblasNoTrans, j, nb, m - j - nb, CBLAS_SADDR(one), A + j + nb, lda,
                    V2 + nb, lda, CBLAS_SADDR(one), T12, ldt);
    couple_T(j, nb, T, ldt);
}

/* LAPACK's recursive zgeqrt3 on an m x n matrix (m >= n) with its T, the left half factored, its block reflector
 * applied to the right half by zlarfb, the right half factored, the two T merged; down to QRT_LEAF columns, which
 * geqr2_level1 and larft_level1 factor (zgeqrt3 goes down to one column: hundreds of small level-3 calls a tile).
 * work: n x n/2 elements at most */
static void geqrt_recursive(int m, int n, starsolve_complex64_t *A, int lda, starsolve_complex64_t *T, int ldt,
                            starsolve_complex64_t *tau, starsolve_complex64_t *work)
{
    if (n <= QRT_LEAF) {
        geqr2_level1(m, n, A, lda, tau);
        larft_level1(m, n, A, lda, tau, T, ldt);
        return;
    }
    const int n1 = left_half(n), n2 = n - n1;
    geqrt_recursive(m, n1, A, lda, T, ldt, tau, work);
    LAPACKE_zlarfb_work(LAPACK_COL_MAJOR, 'L', ss_lapack_trans('C'), 'F', 'C', m, n2, n1, A, lda, T, ldt,
                        A + (size_t)n1 * lda, lda, work, n2);
    geqrt_recursive(m - n1, n2, A + n1 + (size_t)n1 * lda, lda, T + n1 + (size_t)n1 * ldt, ldt, tau + n1, work);
    merge_T(m, n1, n2, A, lda, T, ldt);
}

size_t ss_zgeqrt_one_lwork(int m, int n)
{
    const int k = ss_min(m, n);
    return (size_t)k * (1 + (size_t)ss_max(n - k, k)) + 1;
}

void ss_zgeqrt_one(int m, int n, starsolve_complex64_t *A, int lda, starsolve_complex64_t *T, int ldt,
                   starsolve_complex64_t *work)
{
    const int k = ss_min(m, n);
    if (k == 0)
        return;
    starsolve_complex64_t *tau = work, *larfb_work = work + k;
    geqrt_recursive(m, k, A, lda, T, ldt, tau, larfb_work);
    if (n > k)   /* a wide matrix: its last n - k columns get H^H */
        LAPACKE_zlarfb_work(LAPACK_COL_MAJOR, 'L', ss_lapack_trans('C'), 'F', 'C', m, n - k, k, A, lda, T, ldt,
                            A + (size_t)k * lda, lda, larfb_work, n - k);
}

/* LAPACK's ztpqrt2 (l = 0) on [R; A], R n x n upper triangular, A m x n: H(j) from zlarfg on R(j, j) and A(:, j),
 * applied to the later columns by reflect_column (the column's head in R's row j), T by dots and
 * larft_column_finish (with V = [I; A] the identity adds nothing to V(:, i)^H V(:, j)) */
static void tpqrt2_level1(int m, int n, starsolve_complex64_t *R, int ldr, starsolve_complex64_t *A, int lda,
                          starsolve_complex64_t *T, int ldt)
{
    for (int j = 0; j < n; j++) {
        starsolve_complex64_t *aj = A + (size_t)j * lda, *tj = T + (size_t)j * ldt, tau;
        LAPACKE_zlarfg_work(m + 1, R + j + (size_t)j * ldr, aj, 1, &tau);
        for (int c = j + 1; c < n && tau != 0; c++)
            reflect_column(m, aj, tau, R + j + (size_t)c * ldr, A + (size_t)c * lda);
        for (int i = 0; i < j; i++)
            tj[i] = -tau * (m > 0 ? dot(1, m, A + (size_t)i * lda, aj) : 0);
        larft_column_finish(j, T, ldt, tau);
    }
}

/* tpqrt on [R; A] (as tpqrt2_level1) by geqrt_recursive's halving: the left half's block reflector, V1 = [I; A1]
 * with T11, applied to [R12; A2] as LAPACK's ztprfb (W = R12 + A1^H A2, W = T11^H W, R12 -= W, A2 -= A1 W), the
 * right half factored, T12 = -T11 (A1^H A2) T22 (V1^H V2 = A1^H A2: the identities' rows do not meet). Only R's
 * upper triangle is read or written. work: n1 x n2 for the top split, at most n x n / 2 */
static void tpqrt_recursive(int m, int n, starsolve_complex64_t *R, int ldr, starsolve_complex64_t *A, int lda,
                            starsolve_complex64_t *T, int ldt, starsolve_complex64_t *work)
{
    if (n <= QRT_LEAF) {
        tpqrt2_level1(m, n, R, ldr, A, lda, T, ldt);
        return;
    }
    const starsolve_complex64_t one = 1, minus_one = -1, zero = 0;
    const int n1 = left_half(n), n2 = n - n1;
    starsolve_complex64_t *R12 = R + (size_t)n1 * ldr, *A2 = A + (size_t)n1 * lda, *W = work;
    tpqrt_recursive(m, n1, R, ldr, A, lda, T, ldt, work);
    LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', n1, n2, R12, ldr, W, n1);
    if (m > 0)
        cblas_zgemm(CblasColMajor, CblasConjTrans, CblasNoTrans, n1, n2, m, CBLAS_SADDR(one), A, lda, A2, lda,
                    CBLAS_SADDR(one), W, n1);
    cblas_ztrmm(CblasColMajor, CblasLeft, CblasUpper, CblasConjTrans, CblasNonUnit, n1, n2, CBLAS_SADDR(one), T, ldt,
                W, n1);
    for (int c = 0; c < n2; c++)
        for (int r = 0; r < n1; r++)
            R12[r + (size_t)c * ldr] -= W[r + (size_t)c * n1];
    if (m > 0)
        cblas_zgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n2, n1, CBLAS_SADDR(minus_one), A, lda, W, n1,
                    CBLAS_SADDR(one), A2, lda);
    tpqrt_recursive(m, n2, R + n1 + (size_t)n1 * ldr, ldr, A2, lda, T + n1 + (size_t)n1 * ldt, ldt, work);
    starsolve_complex64_t *T12 = T + (size_t)n1 * ldt;
    if (m > 0)
        cblas_zgemm(CblasColMajor, CblasConjTrans, CblasNoTrans, n1, n2, m, CBLAS_SADDR(one), A, lda, A2, lda,
                    CBLAS_SADDR(zero), T12, ldt);
    else   /* no rows below R: the reflectors are the identity's columns, orthogonal */
        LAPACKE_zlaset_work(LAPACK_COL_MAJOR, 'A', n1, n2, 0, 0, T12, ldt);
    couple_T(n1, n2, T, ldt);
}

size_t ss_ztpqrt_one_lwork(int n) { return (size_t)n * n / 2 + n + 1; }

void ss_ztpqrt_one(int m, int n, starsolve_complex64_t *R, int ldr, starsolve_complex64_t *A, int lda,
                   starsolve_complex64_t *T, int ldt, starsolve_complex64_t *work)
{
    if (n > 0)
        tpqrt_recursive(m, n, R, ldr, A, lda, T, ldt, work);
}

/* B (m x nrhs) overwritten by Q^H B as by unm2r_few: LAPACK's blocked zunmqr, QR_NB reflectors at a time in the
 * factorization's order (apply_block_reflector: T by larft_level1, as zunmqr's zlarft would take OpenBLAS's locked
 * buffers as in the factorization) */
static void unmqr_blocked(int m, int k, int nrhs, const starsolve_complex64_t *A, int lda,
                          const starsolve_complex64_t *tau, starsolve_complex64_t *B, int ldb)
{
    starsolve_complex64_t *work = malloc((QR_NB * QR_NB + (size_t)nrhs * QR_NB) * sizeof *work);
    if (!work) {   /* the same product a reflector at a time, slower with many columns */
        unm2r_few(m, k, nrhs, A, lda, tau, B, ldb);
        return;
    }
    starsolve_complex64_t *T = work, *larfb_work = work + QR_NB * QR_NB;
    for (int j = 0; j < k; j += QR_NB)
        apply_block_reflector(m - j, ss_min(k - j, QR_NB), A + j + (size_t)j * lda, lda, tau + j, T, QR_NB, nrhs,
                              B + j, ldb, larfb_work);
    free(work);
}

void ss_zgeqrs_one(int m, int n, int nrhs, const starsolve_complex64_t *A, int lda, const starsolve_complex64_t *tau,
                   starsolve_complex64_t *B, int ldb)
{
    if (nrhs <= FEW_RHS)
        unm2r_few(m, n, nrhs, A, lda, tau, B, ldb);
    else
        unmqr_blocked(m, n, nrhs, A, lda, tau, B, ldb);
    triangular_solve *solve = solve_for(n, nrhs);
    if (solve) {
        solve('U', 'N', 0, n, nrhs, A, lda, B, ldb);
        return;
    }
    const starsolve_complex64_t one = 1;
    cblas_ztrsm(CblasColMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, n, nrhs, CBLAS_SADDR(one), A, lda, B,
                ldb);
}
