/* SPIKE (banded solver) tasks, truncated SPIKE of Li, Seidl and Negrut ("SPIKE::GPU").
 * The algorithm (src/zgbsv_spike.c) cuts A into p partitions of size_i >= 2K rows, K =
 * max(kl, ku), and groups them into chunks, contiguous ranges of partitions: a task works on one
 * chunk, looping over its partitions on a CPU, one thread block per partition on a GPU
 * (spike_layout.h: the partition bounds and per-partition layouts). Handles, per chunk c:
 *   band_c  the caller's band on the chunk's columns, gbmv layout: A(r, c) (chunk-local)
 *           at band[ku + r - c + c ld], kl + ku + 1 rows, band_row0 rows below the handle's pointer
 *           (band_of) (a view into LAPACK's gbsv array, read only)
 *   F_c     per partition the LU with partial pivoting of its diagonal block, gbtrf layout (ldf = 2 kl
 *           + ku + 1, the partition's columns), pivots ipiv_c partition-local; in working precision or,
 *           mixed precision, in the single precision of the same kind
 *   tips_c  per partition SS_TIPS(K) elements: the K x K blocks Vb (bottom tip of the right spike),
 *           Wt (top tip of the left spike), Bc = A(last K rows, next partition's first K columns),
 *           Cc = A(first K rows, previous partition's last K columns), then the partition's smallest
 *           diagonal dominance ratio and a status (0, or > 0: the partition or its top block is singular)
 *   S_c     per inner interface (between partitions i and i+1 of the chunk) the reduced system
 *           [I Vb_i; Wt_{i+1} I], 2K x 2K, LU-factored (ipivS_c), then its status (SS_RSYS(K)); the
 *           interface between chunks c and c+1 has its own S, ipivS, y (reduced factor / solve tasks)
 *   gt_c, y_c  per partition the top and bottom K rows of A_i^-1 f_i; per inner interface the reduced
 *           solution [x_i bottom; x_{i+1} top]
 *   stat_c  the chunk's smallest dominance ratio and largest status, what the caller reads back
 * Tasks: factor (per chunk, with its inner reduced systems), reduced factor (per interface between
 * chunks), the preconditioner's three stages (tip solve with the inner reduced solves, reduced
 * solve between chunks, retrieval), the band matrix-vector product with BiCGStab's dot products
 * fused, BiCGStab's vector updates, and the reductions of per-chunk partial sums. Each task has a
 * CPU function and, where CUDA is built, a CUDA one (all but the reductions, a few hundred bytes,
 * which stay on the CPU). */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "codelets.h"

/* The preconditioner's single precision of the same kind: complex float for z, float for d.
 * s and c have none lower: "mixed" there is the working precision (the API never asks for it). */
#if defined(STARSOLVE_PRECISION_Z)
typedef starsolve_complex32_t zspike_low_t;
#elif defined(STARSOLVE_PRECISION_D)
typedef float zspike_low_t;
#else
typedef starsolve_complex64_t zspike_low_t;
#endif

/* The tridiagonal case (kl = ku = 1) in plain loops. LAPACK's gbtrf (gbtf2 below its block size) and
 * gbtrs make one BLAS call per row (i?amax, swap, scal, ger in the factorization, swap and ger in
 * the forward sweep, a tbsv whose inner axpy covers 2 entries), each on 1 or 2 numbers, so at K = 1
 * the calls' overhead is the time: perf showed daxpy_k, dtbsv_NUN and dger on top, and SPIKE at
 * K = 1 ran at 0.86-0.90x LAPACK's dgbsv on 2 cores. These loops do the same operations in the same
 * order on the same gbtrf layout (ldf = 4: F(2, j) the diagonal, F(1, j) and F(0, j) U's first and
 * second superdiagonals, F(3, j) L's multiplier), with the same pivots (1-based, ipiv[j] = j + 1 or
 * j + 2, the first row on ties, |re| + |im| as i?amax) and the same info (the first exactly zero
 * pivot), so the tips, the UL of J T J and the solves read F as they read LAPACK's. Against
 * OpenBLAS's gbtrf the factors and pivots came out bit for bit equal in s, d and z; in c C's complex
 * reciprocal rounds differently from Fortran's, so exact ties may pivot differently. Working
 * precision only (mixed precision keeps LAPACK). */

/* A(r, c) of an n x n band in gbtrf layout with kl = ku = 1 (ld 4): F[2 + r - c + 4 c] */
#define TRI_AT(F, r, c) ((F)[2 + (r) - (c) + 4 * (size_t)(c)])

/* i?amax's measure of a pivot candidate */
static inline double pivot_abs1(starsolve_complex64_t a) { return fabs(creal(a)) + fabs(cimag(a)); }

/* gbtf2 with kl = ku = 1: returns info (0, or j + 1 for the first zero pivot at column j) */
static int tridiag_lu(int n, starsolve_complex64_t *F, int *ipiv)
{
    int info = 0, last_col = 0;   /* last_col: the last column U's rows reach so far (gbtf2's JU) */
    for (int j = 0; j < n; j++) {
        if (j + 2 < n)
            F[4 * (size_t)(j + 2)] = 0;   /* the fill-in row of column j + 2 (U's second superdiagonal) */
        const int has_below = j + 1 < n;
        const int p = has_below && pivot_abs1(TRI_AT(F, j + 1, j)) > pivot_abs1(TRI_AT(F, j, j));   /* pivot row j + p */
        ipiv[j] = j + 1 + p;
        if (TRI_AT(F, j + p, j) == 0) {
            if (info == 0) info = j + 1;
            continue;
        }
        last_col = ss_max(last_col, ss_min(j + 1 + p, n - 1));
        if (p)
            for (int c = j; c <= last_col; c++) {   /* swap rows j and j + 1 */
                starsolve_complex64_t t = TRI_AT(F, j, c);
                TRI_AT(F, j, c) = TRI_AT(F, j + 1, c);
                TRI_AT(F, j + 1, c) = t;
            }
        if (has_below) {
            const starsolve_complex64_t l = TRI_AT(F, j + 1, j) *= 1 / TRI_AT(F, j, j);
            for (int c = j + 1; c <= last_col; c++)
                TRI_AT(F, j + 1, c) -= l * TRI_AT(F, j, c);
        }
    }
    return info;
}

/* gbtrs ('N') with kl = ku = 1 on tridiag_lu's factors: B (n x nrhs, ld ldb) = A^-1 B */
static void tridiag_solve(int n, int nrhs, const starsolve_complex64_t *F, const int *ipiv, starsolve_complex64_t *B,
                          int ldb)
{
    for (int k = 0; k < nrhs; k++) {
        starsolve_complex64_t *x = B + (size_t)k * ldb;
        for (int j = 0; j + 1 < n; j++) {   /* L^-1 P: each step's interchange, then its multiplier */
            if (ipiv[j] != j + 1) {
                starsolve_complex64_t t = x[j];
                x[j] = x[j + 1];
                x[j + 1] = t;
            }
            x[j + 1] -= TRI_AT(F, j + 1, j) * x[j];
        }
        for (int j = n - 1; j >= 0; j--) {   /* U^-1 by columns, as tbsv: U has 2 superdiagonals */
            x[j] /= TRI_AT(F, j, j);
            if (j >= 1) x[j - 1] -= x[j] * TRI_AT(F, j - 1, j);
            if (j >= 2) x[j - 2] -= x[j] * TRI_AT(F, j - 2, j);
        }
    }
}

/* LU with partial pivoting of a band in gbtrf layout, in the factor's precision */
static int band_lu(int mixed, int m, int kl, int ku, void *F, int ldf, int *ipiv)
{
#if defined(STARSOLVE_PRECISION_Z)
    if (mixed) return LAPACKE_cgbtrf_work(LAPACK_COL_MAJOR, m, m, kl, ku, (starsolve_complex32_t *)F, ldf, ipiv);
#elif defined(STARSOLVE_PRECISION_D)
    if (mixed) return LAPACKE_sgbtrf_work(LAPACK_COL_MAJOR, m, m, kl, ku, (float *)F, ldf, ipiv);
#endif
    if (!mixed && kl == 1 && ku == 1 && ldf == 4) return tridiag_lu(m, (starsolve_complex64_t *)F, ipiv);
    return LAPACKE_zgbtrf_work(LAPACK_COL_MAJOR, m, m, kl, ku, (starsolve_complex64_t *)F, ldf, ipiv);
}

/* whether gbtrf chose no row interchange in m steps (0-based step j kept row j: ipiv[j] = j + 1); on a
 * diagonally dominant partition it usually does not interchange */
static int no_interchanges(int m, const int *ipiv)
{
    for (int j = 0; j < m; j++)
        if (ipiv[j] != j + 1)
            return 0;
    return 1;
}

/* B = A^-1 B with band_lu's factors (B in the factor's precision). plain: the whole factorization these
 * factors belong to made no row interchange (no_interchanges over all its steps: a solve on trailing rows
 * only, as the tips', cannot tell from its own pivots, since an interchange just above them fills their U
 * beyond ku superdiagonals). */
static void band_solve(int mixed, int m, int kl, int ku, int nrhs, const void *F, int ldf, const int *ipiv, int plain,
                       void *B, int ldb)
{
#if defined(STARSOLVE_PRECISION_Z)
    if (mixed) { LAPACKE_cgbtrs_work(LAPACK_COL_MAJOR, 'N', m, kl, ku, nrhs, (const starsolve_complex32_t *)F, ldf, ipiv,
                                     (starsolve_complex32_t *)B, ldb); return; }
#elif defined(STARSOLVE_PRECISION_D)
    if (mixed) { LAPACKE_sgbtrs_work(LAPACK_COL_MAJOR, 'N', m, kl, ku, nrhs, (const float *)F, ldf, ipiv, (float *)B, ldb);
                 return; }
#endif
    if (!mixed && kl == 1 && ku == 1 && ldf == 4) {
        tridiag_solve(m, nrhs, (const starsolve_complex64_t *)F, ipiv, (starsolve_complex64_t *)B, ldb);
        return;
    }
    if (!mixed && plain) {
        /* Without row interchanges U keeps ku superdiagonals (F's kl fill-in rows stay zero) and L^-1 is a
         * plain banded unit-triangular solve: two tbsv a column read F's kl + ku + 1 rows that matter, where
         * gbtrs reads all 2 kl + ku + 1 and makes a ger call a row. Same answers (bit for bit at K = 32 in
         * double), 1.4x faster at K = 32, 64 and 128 on one core (bench/NOTES.md, session 37). */
        for (int j = 0; j < nrhs; j++) {
            starsolve_complex64_t *x = (starsolve_complex64_t *)B + (size_t)j * ldb;
            cblas_ztbsv(CblasColMajor, CblasLower, CblasNoTrans, CblasUnit, m, kl, (const starsolve_complex64_t *)F + kl + ku, ldf, x, 1);
            cblas_ztbsv(CblasColMajor, CblasUpper, CblasNoTrans, CblasNonUnit, m, ku, (const starsolve_complex64_t *)F + kl, ldf, x, 1);
        }
        return;
    }
    LAPACKE_zgbtrs_work(LAPACK_COL_MAJOR, 'N', m, kl, ku, nrhs, (const starsolve_complex64_t *)F, ldf, ipiv,
                        (starsolve_complex64_t *)B, ldb);
}

/* element k of a vector in the factor's precision, read and written in working precision */
static inline starsolve_complex64_t fget(int mixed, const void *w, size_t k)
{
    return mixed ? (starsolve_complex64_t)((const zspike_low_t *)w)[k] : ((const starsolve_complex64_t *)w)[k];
}
static inline void fset(int mixed, void *w, size_t k, starsolve_complex64_t v)
{
    if (mixed) ((zspike_low_t *)w)[k] = (zspike_low_t)v;
    else ((starsolve_complex64_t *)w)[k] = v;
}

/* a band handle's gbmv layout (A(r, c) at [ku + r - c + c ld]): its pointer, past the fill-in rows
 * where it holds whole columns (spike_layout.h, band_row0); the same on a GPU */
static inline const starsolve_complex64_t *band_of(void *buffer, const struct ss_spike_chunk *c)
{
    return (const starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffer) + c->band_row0;
}

/* ---- the pieces of one partition and one interface (the chunk tasks loop over them) ---- */

/* Partition of s rows: its band Bi (ld ldi, the partition's first column), the K columns before it
 * (Bp, ld ldp, pointing at column first - K; NULL: no partition above) and the K after it (Bn, ld
 * ldn, pointing at column first + s; NULL: none below). Writes its diagonal block's LU (F, ipiv)
 * and its tips. */
static void factor_partition(int mixed, int s, int kl, int ku, int K, const starsolve_complex64_t *Bp, size_t ldp,
                             const starsolve_complex64_t *Bi, size_t ldi, const starsolve_complex64_t *Bn, size_t ldn,
                             void *F, int *ipiv, starsolve_complex64_t *tips)
{
    const int ldf = 2 * kl + ku + 1;
    starsolve_complex64_t *Vb = tips + SS_TIP_VB(K), *Wt = tips + SS_TIP_WT(K), *Bc = tips + SS_TIP_BC(K), *Cc = tips + SS_TIP_CC(K);
    memset(tips, 0, SS_TIPS(K) * sizeof *tips);

    /* the couplings: Bc(r, c) = A(row s-K+r, next partition's column c), Cc(r, c) = A(row r,
     * previous partition's column c - K), zero outside the band */
    for (int c = 0; c < K; c++)
        for (int r = 0; r < K; r++) {
            int dn = r - K - c, dp = K + r - c;   /* row minus column of the global entry */
            if (Bn && dn >= -ku)
                Bc[r + (size_t)c * K] = Bn[ku + dn + (size_t)c * ldn];
            if (Bp && dp <= kl)
                Cc[r + (size_t)c * K] = Bp[ku + dp + (size_t)c * ldp];
        }

    /* One pass over the partition's band: the diagonal block into F in gbtrf layout (every entry
     * of F written once, zeros outside the block and in the kl fill-in rows on top, in the
     * factor's precision), and each row's |diagonal| and sum of other |entries| for the row
     * dominance min |a_rr| / sum_{j != r} |a_rj| (the couplings' entries added after). */
    size_t fsz = mixed ? sizeof(zspike_low_t) : sizeof(starsolve_complex64_t);
    size_t rows_bytes = 2 * (size_t)s * sizeof(double);   /* fresh pages: see ss_alloc_large */
    double *off = ss_alloc_large(rows_bytes), *dia = off + s;
    STARPU_ASSERT_MSG(off, "starsolve: gbsv_spike: out of memory");
    for (int c = 0; c < s; c++) {
        /* column c of the block holds rows lo .. hi; F(k, c) is row k - kl - ku + c, so they go to
         * F(klo .. klo + len - 1, c), one contiguous segment each side (the band's column is
         * contiguous too). By segments rather than entry by entry with a test on the row: at K = 128
         * on 2 cores the per-entry loop took 0.42-0.47 s a 500000-row partition, 40 % of the factor
         * task, where a copy of those bytes takes ~0.12 s (bench/NOTES.md, session 25). */
        int lo = ss_max(0, c - ku), hi = ss_min(s - 1, c + kl), klo = lo - c + kl + ku, len = hi - lo + 1;
        const starsolve_complex64_t *a = Bi + ku + (lo - c) + (size_t)c * ldi;   /* A(lo .. hi, c) */
        char *f = (char *)F + (size_t)c * ldf * fsz;
        memset(f, 0, (size_t)klo * fsz);
        if (mixed)
            for (int i = 0; i < len; i++)
                ((zspike_low_t *)f)[klo + i] = (zspike_low_t)a[i];
        else
            memcpy(f + (size_t)klo * fsz, a, (size_t)len * fsz);
        memset(f + (size_t)(klo + len) * fsz, 0, (size_t)(ldf - klo - len) * fsz);
        for (int r = lo; r < c; r++)
            off[r] += cabs(a[r - lo]);
        dia[c] = cabs(a[c - lo]);
        for (int r = c + 1; r <= hi; r++)
            off[r] += cabs(a[r - lo]);
    }
    for (int r = 0; r < K; r++)
        for (int c = 0; c < K; c++) {
            off[r] += cabs(Cc[r + (size_t)c * K]);
            off[s - K + r] += cabs(Bc[r + (size_t)c * K]);
        }
    double ratio = INFINITY;
    for (int r = 0; r < s; r++)
        ratio = fmin(ratio, off[r] > 0 ? dia[r] / off[r] : (dia[r] > 0 ? INFINITY : 0));
    ss_free_large(off, rows_bytes);
    tips[SS_TIP_DOM(K)] = ratio;
    int info = band_lu(mixed, s, kl, ku, F, ldf, ipiv);
    if (info > 0) {
        tips[SS_TIP_STATUS(K)] = info;
        return;
    }

    /* Vb, exact: the bottom K rows of A_i^-1 [0; Bc]. The right-hand side is zero above row
     * s - K, and gbtrs's forward sweep with partial pivoting leaves rows below j0 = s - K - kl
     * zero until step j0 (step j only swaps and updates rows j .. j + kl); the backward sweep's
     * last rows need only U's trailing block (U is upper triangular). So gbtrs on the trailing
     * s - j0 rows with the pivots shifted by j0 gives those rows exactly, in O(K^3) instead of the
     * O(s K^2) of the whole spike. */
    if (Bn) {
        int j0 = ss_max(0, s - K - kl), m = s - j0;
        int *piv = malloc((size_t)m * sizeof *piv);
        void *Z = calloc((size_t)m * K, fsz);
        for (int j = 0; j < m; j++)
            piv[j] = ipiv[j0 + j] - j0;
        for (int c = 0; c < K; c++)
            for (int r = 0; r < K; r++)
                fset(mixed, Z, m - K + r + (size_t)c * m, Bc[r + (size_t)c * K]);
        band_solve(mixed, m, kl, ku, K, (const char *)F + (size_t)j0 * ldf * fsz, ldf, piv, no_interchanges(s, ipiv), Z, m);
        for (int c = 0; c < K; c++)
            for (int r = 0; r < K; r++)
                Vb[r + (size_t)c * K] = fget(mixed, Z, m - K + r + (size_t)c * m);
        free(piv); free(Z);
    }

    /* Wt, truncated: the top K rows of A_i^-1 [Cc; 0] need the whole partition (the seed's UL
     * factorization of A_i). As the seed does, we take them from the partition's leading block T
     * alone, of m = ss_spike_wt_rows(K, s) rows, by T's UL factorization: with T = U L the
     * right-hand side, zero below row K, stays zero below row K through U^-1 and only T's top K x K
     * corner of L is needed next, so the tip costs O(K^3) after the UL, where an LU solve costs
     * O(m K^2) per right-hand side, K of them (at K = 128 that solve was the factor's largest part,
     * bench/NOTES.md session 16). LAPACK has no band UL, but T's UL with row interchanges is the LU
     * of J T J (J reverses the order of rows and columns; its bandwidths are T's swapped), and the
     * flipped right-hand side J [Cc; 0] is zero above row m - K: the same trailing-rows solve as
     * Vb's above. For a diagonally dominant A the entries of A_i^-1 decay geometrically away from
     * the diagonal, so the rows beyond m change the tip less the larger m is; we take 6K or 8K
     * rather than the seed's 2K, and at least 64 rows, which small K needs (ss_spike_wt_rows in
     * spike_layout.h, with the measurements). The refinement corrects what the truncation leaves.
     * In the factors' precision, as Vb. */
    if (Bp) {
        const int m = ss_spike_wt_rows(K, s), fl = ku, fu = kl, ldw = 2 * fl + fu + 1;
        const int j0 = ss_max(0, m - K - fl), mm = m - j0;
        void *T = calloc((size_t)ldw * m, fsz), *Z = calloc((size_t)mm * K, fsz);
        int *piv = malloc((size_t)m * sizeof *piv);
        STARPU_ASSERT_MSG(T && Z && piv, "starsolve: gbsv_spike: out of memory");
        for (int c = 0; c < m; c++)   /* J T J (row m-1-r, column m-1-c of T) in gbtrf layout */
            for (int r = ss_max(0, c - fu); r <= ss_min(m - 1, c + fl); r++) {
                int tr = m - 1 - r, tc = m - 1 - c;
                fset(mixed, T, fl + fu + r - c + (size_t)c * ldw, Bi[ku + tr - tc + (size_t)tc * ldi]);
            }
        for (int c = 0; c < K; c++)
            for (int r = 0; r < K; r++)   /* T's row r is the flip's row m-1-r */
                fset(mixed, Z, m - 1 - r - j0 + (size_t)c * mm, Cc[r + (size_t)c * K]);
        if (band_lu(mixed, m, fl, fu, T, ldw, piv) > 0) {
            tips[SS_TIP_STATUS(K)] = 1;
        } else {
            const int plain = no_interchanges(m, piv);
            for (int j = 0; j < mm; j++)
                piv[j0 + j] -= j0;
            band_solve(mixed, mm, fl, fu, K, (const char *)T + (size_t)j0 * ldw * fsz, ldw, piv + j0, plain, Z, mm);
            for (int c = 0; c < K; c++)
                for (int r = 0; r < K; r++)
                    Wt[r + (size_t)c * K] = fget(mixed, Z, m - 1 - r - j0 + (size_t)c * mm);
        }
        free(T); free(Z); free(piv);
    }
}

/* The reduced system of one interface, [I Vb; Wt I] (2K x 2K, Vb the upper partition's bottom
 * tip, Wt the lower one's top tip), LU-factored into S (SS_RSYS(K): the LU, then the status:
 * 0, or the first zero pivot; the caller then does not use SPIKE) */
static void reduced_factor(int K, const starsolve_complex64_t *Vb, const starsolve_complex64_t *Wt, starsolve_complex64_t *S,
                           int *ipiv)
{
    const int l = 2 * K;
    memset(S, 0, SS_RSYS(K) * sizeof *S);
    for (int d = 0; d < l; d++)
        S[d + (size_t)d * l] = 1;
    for (int c = 0; c < K; c++)
        for (int r = 0; r < K; r++) {
            S[r + (size_t)(K + c) * l] = Vb[r + (size_t)c * K];
            S[K + r + (size_t)c * l] = Wt[r + (size_t)c * K];
        }
    int info = LAPACKE_zgetrf_work(LAPACK_COL_MAJOR, l, l, S, l, ipiv);
    S[(size_t)l * l] = info > 0 ? info : 0;
}

/* y = [x_j bottom; x_{j+1} top] from the reduced system S of interface j: gb the bottom K rows
 * of A_j^-1 f_j, gtop the top K rows of A_{j+1}^-1 f_{j+1} */
static void reduced_solve(int K, const starsolve_complex64_t *S, const int *ipiv, const starsolve_complex64_t *gb,
                          const starsolve_complex64_t *gtop, starsolve_complex64_t *y)
{
    memcpy(y, gb, (size_t)K * sizeof *y);
    memcpy(y + K, gtop, (size_t)K * sizeof *y);
    LAPACKE_zgetrs_work(LAPACK_COL_MAJOR, 'N', 2 * K, 1, S, 2 * K, ipiv, y, 2 * K);
}

/* x (s entries, working precision) = A_i^-1 x with partition i's factors; w: s entries of scratch
 * in the factor's precision (used in mixed precision only) */
static void partition_solve(int mixed, int s, int kl, int ku, const void *F, const int *ipiv, starsolve_complex64_t *x,
                            void *w)
{
    if (!mixed) {
        band_solve(0, s, kl, ku, 1, F, 2 * kl + ku + 1, ipiv, no_interchanges(s, ipiv), x, s);
        return;
    }
    for (int r = 0; r < s; r++)
        fset(1, w, r, x[r]);
    band_solve(1, s, kl, ku, 1, F, 2 * kl + ku + 1, ipiv, 0, w, s);
    for (int r = 0; r < s; r++)
        x[r] = fget(1, w, r);
}

/* ---- factor: one chunk ------------------------------------------------------ */

/* buffers: 0 band_{c-1} (at least its last K columns: src/zgbsv_spike.c passes a handle of just
 * those), 1 band_c, 2 band_{c+1} (at least its first K columns) (the chunk's own when it has no such
 * neighbour),
 * 3 F_c (W), 4 ipiv_c (W), 5 tips_c (W), 6 S_c (W: the chunk's inner interfaces), 7 ipivS_c (W),
 * 8 stat_c (W: the smallest dominance ratio and the largest status of the chunk) */
static void zspike_factor_cpu(void *buffers[], void *cl_arg)
{
    const struct ss_spike_part *a = cl_arg;
    const struct ss_spike_chunk *c = &a->c;
    const int K = c->K, ldf = 2 * c->kl + c->ku + 1, mixed = a->mixed;
    const size_t fsz = mixed ? sizeof(zspike_low_t) : sizeof(starsolve_complex64_t);
    const starsolve_complex64_t *Bp = band_of(buffers[0], c);
    const starsolve_complex64_t *Bi = band_of(buffers[1], c);
    const starsolve_complex64_t *Bn = band_of(buffers[2], c);
    const size_t ldp = SS_LD(buffers[0]), ldi = SS_LD(buffers[1]), ldn = SS_LD(buffers[2]);
    const int sp = SS_COLS(buffers[0]);
    char *F = (char *)STARPU_VECTOR_GET_PTR(buffers[3]);
    int *ipiv = (int *)STARPU_VECTOR_GET_PTR(buffers[4]);
    starsolve_complex64_t *tips = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[5]);
    starsolve_complex64_t *S = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[6]);
    int *ipivS = (int *)STARPU_VECTOR_GET_PTR(buffers[7]);
    starsolve_complex64_t *stat = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[8]);
    for (int i = 0; i < c->np; i++) {
        int off = ss_spike_chunk_off(c, i), s = ss_spike_chunk_psize(c, i);
        const starsolve_complex64_t *bi = Bi + (size_t)off * ldi;
        const starsolve_complex64_t *bp = i > 0 ? bi - (size_t)K * ldi : c->has_prev ? Bp + (size_t)(sp - K) * ldp : NULL;
        const starsolve_complex64_t *bn = i + 1 < c->np ? bi + (size_t)s * ldi : c->has_next ? Bn : NULL;
        factor_partition(mixed, s, c->kl, c->ku, K, bp, i > 0 ? ldi : ldp, bi, ldi, bn, i + 1 < c->np ? ldi : ldn,
                         F + (size_t)off * ldf * fsz, ipiv + off, tips + SS_TIPS(K) * i);
    }
    for (int i = 0; i + 1 < c->np; i++)
        reduced_factor(K, tips + SS_TIPS(K) * i + SS_TIP_VB(K), tips + SS_TIPS(K) * (i + 1) + SS_TIP_WT(K),
                       S + SS_RSYS(K) * i, ipivS + (size_t)2 * K * i);
    /* the chunk's summary, the only thing the submitting thread reads back */
    double dom = INFINITY, status = 0;
    for (int i = 0; i < c->np; i++) {
        dom = fmin(dom, creal(tips[SS_TIPS(K) * i + SS_TIP_DOM(K)]));
        status = fmax(status, creal(tips[SS_TIPS(K) * i + SS_TIP_STATUS(K)]));
        if (i + 1 < c->np)
            status = fmax(status, creal(S[SS_RSYS(K) * i + 4 * (size_t)K * K]));
    }
    stat[0] = dom;
    stat[1] = status;
}

/* ---- reduced system of the interface between two chunks ---------------------- */

/* buffers: 0 tips_c (the upper chunk's: Vb of its last partition), 1 tips_{c+1} (Wt of its first),
 * 2 S (W, SS_RSYS(K)), 3 ipivS (W) */
static void zspike_reduced_factor_cpu(void *buffers[], void *cl_arg)
{
    const struct ss_spike_part *a = cl_arg;
    const int K = a->c.K;
    const starsolve_complex64_t *t0 = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[0]);
    const starsolve_complex64_t *t1 = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
    reduced_factor(K, t0 + SS_TIPS(K) * (a->c.np - 1) + SS_TIP_VB(K), t1 + SS_TIP_WT(K),
                   (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[2]), (int *)STARPU_VECTOR_GET_PTR(buffers[3]));
}

/* ---- the preconditioner: tip solve, reduced solve, retrieval ---------------- */

/* buffers: 0 F_c, 1 ipiv_c, 2 f_c (a vector of the chunk's rows), 3 S_c, 4 ipivS_c, 5 gt_c (W: per
 * partition the top and the bottom K rows of A_i^-1 f_i), 6 y_c (W: the inner interfaces'
 * [x_i bottom; x_{i+1} top]), 7 scratch (the largest chunk's rows in the factor's precision), 8 x_c (W:
 * in working-precision factors, the whole of g_i = A_i^-1 f_i, which the retrieval starts from; in
 * mixed precision not written) */
static void zspike_tipsolve_cpu(void *buffers[], void *cl_arg)
{
    const struct ss_spike_part *a = cl_arg;
    const struct ss_spike_chunk *c = &a->c;
    const int K = c->K, mixed = a->mixed, ldf = 2 * c->kl + c->ku + 1;
    const size_t fsz = mixed ? sizeof(zspike_low_t) : sizeof(starsolve_complex64_t);
    const char *F = (const char *)STARPU_VECTOR_GET_PTR(buffers[0]);
    const int *ipiv = (const int *)STARPU_VECTOR_GET_PTR(buffers[1]);
    const starsolve_complex64_t *f = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[2]);
    const starsolve_complex64_t *S = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[3]);
    const int *ipivS = (const int *)STARPU_VECTOR_GET_PTR(buffers[4]);
    starsolve_complex64_t *gt = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[5]);
    starsolve_complex64_t *y = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[6]);
    starsolve_complex64_t *x = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[8]);
    for (int i = 0; i < c->np; i++) {
        int off = ss_spike_chunk_off(c, i), s = ss_spike_chunk_psize(c, i);
        /* in working precision the solve runs in x itself: g_i stays there for the retrieval */
        void *w = mixed ? (void *)STARPU_VECTOR_GET_PTR(buffers[7]) : (void *)(x + off);
        for (int r = 0; r < s; r++)
            fset(mixed, w, r, f[off + r]);
        band_solve(mixed, s, c->kl, c->ku, 1, F + (size_t)off * ldf * fsz, ldf, ipiv + off, no_interchanges(s, ipiv + off), w, s);
        for (int r = 0; r < K; r++) {
            gt[2 * (size_t)K * i + r] = fget(mixed, w, r);
            gt[2 * (size_t)K * i + K + r] = fget(mixed, w, s - K + r);
        }
    }
    for (int i = 0; i + 1 < c->np; i++)
        reduced_solve(K, S + SS_RSYS(K) * i, ipivS + (size_t)2 * K * i, gt + 2 * (size_t)K * i + K,
                      gt + 2 * (size_t)K * (i + 1), y + 2 * (size_t)K * i);
}

/* the interface between chunks c and c + 1.
 * buffers: 0 S, 1 ipivS, 2 gt_c, 3 gt_{c+1}, 4 y (W: [x bottom of c's last partition; x top of
 * c+1's first]) */
static void zspike_reduced_solve_cpu(void *buffers[], void *cl_arg)
{
    const struct ss_spike_part *a = cl_arg;
    const int K = a->c.K;
    const starsolve_complex64_t *g0 = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[2]);
    reduced_solve(K, (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[0]), (const int *)STARPU_VECTOR_GET_PTR(buffers[1]),
                  g0 + 2 * (size_t)K * (a->c.np - 1) + K, (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[3]),
                  (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[4]));
}

/* The largest |z_k| of a vector */
static double max_abs(int n, const starsolve_complex64_t *z)
{
    double m = 0;
    for (int k = 0; k < n; k++)
        m = fmax(m, cabs(z[k]));
    return m;
}

/* One spike's share of a partition's solution from its K-entry coupling v: z = the leading (top = 1:
 * A_i^-1 [v; 0]) or the trailing (top = 0: A_i^-1 [0; v]) m of the s rows of the solution, by
 * band_lu's factors without row interchanges (the caller checked: L unit lower with kl, U upper with ku
 * diagonals). On the top, L^-1 runs down the leading m rows and U^-1 over the same rows is then exact
 * for them (U is upper triangular); on the bottom, L^-1 touches only the last K rows and U^-1 runs up
 * the trailing m rows. What the sweep leaves out is what lies past its far end; returns 1 when that is
 * below rounding: the sweep reached the partition's other end, or the far end's last kl (top, after
 * L^-1) / first ku (bottom, after U^-1) entries, which carry the sweep on, are under DBL_EPSILON times
 * the largest entry. */
static int spike_sweep(int top, int s, int m, int kl, int ku, int K, const starsolve_complex64_t *F, int ldf,
                       const starsolve_complex64_t *v, starsolve_complex64_t *z)
{
    const int kv = kl + ku;
    const starsolve_complex64_t *Fm = F + (size_t)(top ? 0 : s - m) * ldf;   /* the m rows' block */
    memset(z, 0, (size_t)m * sizeof *z);
    int decayed;
    if (top) {
        memcpy(z, v, (size_t)K * sizeof *z);
        cblas_ztbsv(CblasColMajor, CblasLower, CblasNoTrans, CblasUnit, m, kl, Fm + kv, ldf, z, 1);
        decayed = m == s || max_abs(ss_min(kl, m), z + m - ss_min(kl, m)) <= DBL_EPSILON * max_abs(m, z);
        cblas_ztbsv(CblasColMajor, CblasUpper, CblasNoTrans, CblasNonUnit, m, ku, Fm + kl, ldf, z, 1);
    } else {
        memcpy(z + m - K, v, (size_t)K * sizeof *z);
        cblas_ztbsv(CblasColMajor, CblasLower, CblasNoTrans, CblasUnit, K, kl, Fm + (size_t)(m - K) * ldf + kv, ldf,
                    z + m - K, 1);
        cblas_ztbsv(CblasColMajor, CblasUpper, CblasNoTrans, CblasNonUnit, m, ku, Fm + kl, ldf, z, 1);
        decayed = m == s || max_abs(ss_min(ku, m), z) <= DBL_EPSILON * max_abs(m, z);
    }
    return decayed;
}

/* x (the partition's s rows, holding g_i) -= one spike's share (spike_sweep), on as few rows as the
 * spike needs: from ss_spike_wt_rows' count (the rows the top tip's truncation already relies on),
 * doubling while the far end has not decayed. Returns 0, x untouched, where it has not decayed within
 * a quarter of the partition (a weakly dominant matrix): the caller then solves the whole partition. z:
 * scratch of s / 4 entries. */
static int subtract_spike(int top, int s, int kl, int ku, int K, const starsolve_complex64_t *F, int ldf,
                          const starsolve_complex64_t *v, starsolve_complex64_t *x, starsolve_complex64_t *z)
{
    const int cap = s / 4;
    int m = ss_spike_wt_rows(K, s);
    if (m > cap)
        return 0;
    while (!spike_sweep(top, s, m, kl, ku, K, F, ldf, v, z)) {
        if (m == cap)
            return 0;
        m = ss_min(cap, 2 * m);
    }
    starsolve_complex64_t *xm = top ? x : x + s - m;
    for (int r = 0; r < m; r++)
        xm[r] -= z[r];
    return 1;
}

/* Retrieval by purification: x_i = A_i^-1 (f_i - Cc x_{i-1}^b - Bc x_{i+1}^t). After a tip solve in
 * working precision (op 1), x_i already holds g_i = A_i^-1 f_i, and where the partition's LU made no
 * row interchange x_i = g_i - A_i^-1 [Cc x_{i-1}^b; 0] - A_i^-1 [0; Bc x_{i+1}^t] by two short sweeps
 * (subtract_spike) instead of a solve over the whole partition, which reads all of its factors: on 16
 * cores, where the memory bandwidth bounds SPIKE, that solve was 11 ms of a 99 ms call at n = 1e6,
 * K = 32 (bench/NOTES.md, session 38). Otherwise (mixed precision, interchanges, a spike that does
 * not decay, or no tip solve: one partition) the partition is solved again from the purified f_i.
 * buffers: 0 F_c, 1 ipiv_c, 2 f_c, 3 tips_c, 4 y_c (the inner interfaces), 5 y of the interface
 * above the chunk, 6 y of the one below (y_c when there is no such interface: not read), 7 x_c (RW:
 * g_c after a tip solve in working precision), 8 scratch */
static void zspike_retrieve_cpu(void *buffers[], void *cl_arg)
{
    const struct ss_spike_part *a = cl_arg;
    const struct ss_spike_chunk *c = &a->c;
    const int K = c->K, mixed = a->mixed, ldf = 2 * c->kl + c->ku + 1;
    const size_t fsz = mixed ? sizeof(zspike_low_t) : sizeof(starsolve_complex64_t);
    const char *F = (const char *)STARPU_VECTOR_GET_PTR(buffers[0]);
    const int *ipiv = (const int *)STARPU_VECTOR_GET_PTR(buffers[1]);
    const starsolve_complex64_t *f = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[2]);
    const starsolve_complex64_t *tips = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[3]);
    const starsolve_complex64_t *y = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[4]);
    const starsolve_complex64_t *yup = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[5]);
    const starsolve_complex64_t *ydown = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[6]);
    starsolve_complex64_t *x = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[7]);
    void *w = (void *)STARPU_VECTOR_GET_PTR(buffers[8]);
    const starsolve_complex64_t one = 1, minus = -1;
    const int have_g = a->op == 1 && !mixed;
    for (int i = 0; i < c->np; i++) {
        int off = ss_spike_chunk_off(c, i), s = ss_spike_chunk_psize(c, i);
        const starsolve_complex64_t *t = tips + SS_TIPS(K) * i;
        const starsolve_complex64_t *Fi = (const starsolve_complex64_t *)(F + (size_t)off * ldf * fsz);
        /* x_{i-1}^b = y[0 .. K) of the interface above, x_{i+1}^t = y[K .. 2K) of the one below */
        const starsolve_complex64_t *yp = i > 0 ? y + 2 * (size_t)K * (i - 1) : c->has_prev ? yup : NULL;
        const starsolve_complex64_t *yn = i + 1 < c->np ? y + 2 * (size_t)K * i : c->has_next ? ydown : NULL;
        if (have_g && no_interchanges(s, ipiv + off)) {
            starsolve_complex64_t *v = w, *z = v + K;   /* the coupling, then the sweep's rows */
            const starsolve_complex64_t zero = 0;
            int done = 1;
            if (yp) {
                cblas_zgemv(CblasColMajor, CblasNoTrans, K, K, CBLAS_SADDR(one), t + SS_TIP_CC(K), K, yp, 1, CBLAS_SADDR(zero), v, 1);
                done = subtract_spike(1, s, c->kl, c->ku, K, Fi, ldf, v, x + off, z);
            }
            if (done && yn) {
                cblas_zgemv(CblasColMajor, CblasNoTrans, K, K, CBLAS_SADDR(one), t + SS_TIP_BC(K), K, yn + K, 1, CBLAS_SADDR(zero), v, 1);
                done = subtract_spike(0, s, c->kl, c->ku, K, Fi, ldf, v, x + off, z);
            }
            if (done)
                continue;
        }
        memcpy(x + off, f + off, (size_t)s * sizeof *x);
        if (yp)
            cblas_zgemv(CblasColMajor, CblasNoTrans, K, K, CBLAS_SADDR(minus), t + SS_TIP_CC(K), K, yp, 1, CBLAS_SADDR(one),
                        x + off, 1);
        if (yn)
            cblas_zgemv(CblasColMajor, CblasNoTrans, K, K, CBLAS_SADDR(minus), t + SS_TIP_BC(K), K, yn + K, 1,
                        CBLAS_SADDR(one), x + off + s - K, 1);
        partition_solve(mixed, s, c->kl, c->ku, F + (size_t)off * ldf * fsz, ipiv + off, x + off, w);
    }
}

/* ---- band matrix-vector product with BiCGStab's reductions fused --------- */

/* y = A x on the chunk's rows: the band on the chunk's columns (gbmv: the couplings between its
 * partitions included), plus the first partition's Cc times the previous chunk's last K entries
 * and the last partition's Bc times the next chunk's first K.
 * buffers: 0 band_c, 1 tips_c, 2 x_{c-1}, 3 x_c, 4 x_{c+1}, 5 aux (R), 6 out (W), 7 partial (RW).
 * SS_MV_RES: out = aux - A x, partial[NORM] = ||out||_inf (aux = b);
 * SS_MV_V:   out = A x, partial[RV] = aux^H out (aux = rh);
 * SS_MV_T:   out = A x, partial[TS] = out^H aux, partial[TT] = out^H out (aux = s). */
static void zspike_matvec_cpu(void *buffers[], void *cl_arg)
{
    const struct ss_spike_part *a = cl_arg;
    const int s = a->c.size, K = a->c.K;
    const starsolve_complex64_t *band = band_of(buffers[0], &a->c);
    const starsolve_complex64_t *tips = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
    const starsolve_complex64_t *xp = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[2]);
    const starsolve_complex64_t *x = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[3]);
    const starsolve_complex64_t *xn = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[4]);
    const starsolve_complex64_t *aux = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[5]);
    starsolve_complex64_t *y = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[6]);
    starsolve_complex64_t *part = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[7]);
    const int sp = (int)STARPU_VECTOR_GET_NX(buffers[2]);
    const starsolve_complex64_t one = 1, zero = 0, minus = -1;
    const starsolve_complex64_t alpha = a->op == SS_MV_RES ? minus : one;
    if (a->op == SS_MV_RES)
        memcpy(y, aux, (size_t)s * sizeof *y);
    cblas_zgbmv(CblasColMajor, CblasNoTrans, s, s, a->c.kl, a->c.ku, CBLAS_SADDR(alpha), band, SS_LD(buffers[0]), x, 1,
                a->op == SS_MV_RES ? CBLAS_SADDR(one) : CBLAS_SADDR(zero), y, 1);
    if (a->c.has_prev)   /* the first partition's Cc */
        cblas_zgemv(CblasColMajor, CblasNoTrans, K, K, CBLAS_SADDR(alpha), tips + SS_TIP_CC(K), K, xp + sp - K, 1,
                    CBLAS_SADDR(one), y, 1);
    if (a->c.has_next)   /* the last partition's Bc */
        cblas_zgemv(CblasColMajor, CblasNoTrans, K, K, CBLAS_SADDR(alpha), tips + SS_TIPS(K) * (a->c.np - 1) + SS_TIP_BC(K), K, xn, 1,
                    CBLAS_SADDR(one), y + s - K, 1);
    if (a->op == SS_MV_RES) {
        double m = 0;
        for (int r = 0; r < s; r++) {
            double v = cabs(y[r]);
            if (v > m || isnan(v)) m = v;
        }
        part[SS_PART_NORM] = m;
    } else if (a->op == SS_MV_V) {
        starsolve_complex64_t d = 0;
        for (int r = 0; r < s; r++) d += conj(aux[r]) * y[r];
        part[SS_PART_RV] = d;
    } else {
        starsolve_complex64_t ts = 0, tt = 0;
        for (int r = 0; r < s; r++) { ts += conj(y[r]) * aux[r]; tt += conj(y[r]) * y[r]; }
        part[SS_PART_TS] = ts;
        part[SS_PART_TT] = tt;
    }
}

/* ---- BiCGStab's vector updates on one chunk ---------------------------- */

/* The buffers depend on the operation (insert_zspike_update lists them); the scalars
 * (SS_SCAL_*) are the reductions' results, the partial sums this chunk's share. */
static void zspike_update_cpu(void *buffers[], void *cl_arg)
{
    const struct ss_spike_part *a = cl_arg;
    const int s = a->c.size;
#define V(k) ((starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[k]))
    switch (a->op) {
    case SS_UP_INIT: {   /* 0 r (R), 1 rh (W), 2 p (W), 3 v (W), 4 partial: rh = r, p = v = 0, rho = r^H r */
        starsolve_complex64_t *r = V(0), *rh = V(1), *p = V(2), *v = V(3), d = 0;
        for (int i = 0; i < s; i++) { rh[i] = r[i]; p[i] = 0; v[i] = 0; d += conj(r[i]) * r[i]; }
        V(4)[SS_PART_RHO] = d;
        break;
    }
    case SS_UP_P: {      /* 0 r, 1 v, 2 scalars, 3 p (RW): p = r + beta (p - omega v) */
        const starsolve_complex64_t *r = V(0), *v = V(1), *sc = V(2);
        starsolve_complex64_t *p = V(3), beta = sc[SS_SCAL_BETA], omega = sc[SS_SCAL_OMEGA];
        for (int i = 0; i < s; i++) p[i] = r[i] + beta * (p[i] - omega * v[i]);
        break;
    }
    case SS_UP_S: {      /* 0 r, 1 v, 2 scalars, 3 s (W): s = r - alpha v */
        const starsolve_complex64_t *r = V(0), *v = V(1), alpha = V(2)[SS_SCAL_ALPHA];
        starsolve_complex64_t *sv = V(3);
        for (int i = 0; i < s; i++) sv[i] = r[i] - alpha * v[i];
        break;
    }
    case SS_UP_XR: {     /* 0 ph, 1 sh, 2 s, 3 t, 4 rh, 5 scalars, 6 x (RW), 7 r (W), 8 partial:
                          * x += alpha ph + omega sh, r = s - omega t, ||r||_inf, rh^H r */
        const starsolve_complex64_t *ph = V(0), *sh = V(1), *sv = V(2), *t = V(3), *rh = V(4), *sc = V(5);
        starsolve_complex64_t *x = V(6), *r = V(7), alpha = sc[SS_SCAL_ALPHA], omega = sc[SS_SCAL_OMEGA], d = 0;
        double m = 0;
        for (int i = 0; i < s; i++) {
            x[i] += alpha * ph[i] + omega * sh[i];
            r[i] = sv[i] - omega * t[i];
            d += conj(rh[i]) * r[i];
            double e = cabs(r[i]);
            if (e > m || isnan(e)) m = e;
        }
        V(8)[SS_PART_NORM] = m;
        V(8)[SS_PART_RHO] = d;
        break;
    }
    case SS_UP_COPYIN: { /* 0 B's rows of the partition (matrix), 1 b (W), 2 partial: b = B(:, col), ||b||_inf */
        const starsolve_complex64_t *B = (const starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[0])
                                         + (size_t)a->col * SS_LD(buffers[0]);
        starsolve_complex64_t *b = V(1);
        double m = 0;
        for (int i = 0; i < s; i++) {
            b[i] = B[i];
            double e = cabs(b[i]);
            if (e > m || isnan(e)) m = e;
        }
        V(2)[SS_PART_NORM] = m;
        break;
    }
    case SS_UP_ADD: {    /* 0 z, 1 x (RW): x += z */
        const starsolve_complex64_t *zv = V(0);
        starsolve_complex64_t *x = V(1);
        for (int i = 0; i < s; i++) x[i] += zv[i];
        break;
    }
    default: {           /* SS_UP_COPYOUT: 0 x, 1 B's rows (matrix, RW): B(:, col) = x */
        starsolve_complex64_t *B = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[1]) + (size_t)a->col * SS_LD(buffers[1]);
        memcpy(B, V(0), (size_t)s * sizeof *B);
        break;
    }
    }
#undef V
}

/* ---- the reductions: per-chunk partial sums into BiCGStab's scalars ---- */

/* buffers[0 .. p-1] the partials, buffers[p] the scalars (RW). Runs on a CPU: p small numbers. */
static void zspike_reduce_cpu(void *buffers[], void *cl_arg)
{
    const struct ss_spike_part *a = cl_arg;
    const int p = a->nparts;
    starsolve_complex64_t *sc = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[p]);
    double norm = 0;
    starsolve_complex64_t sum[SS_PART_COUNT] = { 0 };
    for (int i = 0; i < p; i++) {   /* in chunk order: the same sums on every run */
        const starsolve_complex64_t *part = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[i]);
        double e = creal(part[SS_PART_NORM]);
        if (e > norm || isnan(e)) norm = e;
        for (int k = 1; k < SS_PART_COUNT; k++) sum[k] += part[k];
    }
    switch (a->op) {
    case SS_RED_BNORM:
        sc[SS_SCAL_BNORM] = norm;
        break;
    case SS_RED_START:   /* after x0 = M^-1 b, r = b - A x0, rh = r: rho = rh^H r, p = v = 0 */
        sc[SS_SCAL_RNORM] = norm;
        sc[SS_SCAL_RHO] = sum[SS_PART_RHO];
        sc[SS_SCAL_ALPHA] = sc[SS_SCAL_OMEGA] = 1;
        sc[SS_SCAL_BETA] = 0;
        sc[SS_SCAL_BREAK] = sum[SS_PART_RHO] == 0 ? 1 : 0;
        break;
    case SS_RED_RESID:
        sc[SS_SCAL_RNORM] = norm;
        break;
    case SS_RED_ALPHA:
        if (sum[SS_PART_RV] == 0) {
            sc[SS_SCAL_ALPHA] = 0;
            sc[SS_SCAL_BREAK] = 1;
        } else {
            sc[SS_SCAL_ALPHA] = sc[SS_SCAL_RHO] / sum[SS_PART_RV];
        }
        break;
    case SS_RED_OMEGA:
        sc[SS_SCAL_OMEGA] = creal(sum[SS_PART_TT]) > 0 ? sum[SS_PART_TS] / sum[SS_PART_TT] : 0;
        break;
    default:             /* SS_RED_END: the new residual's norm, rho and the next step's beta */
        sc[SS_SCAL_RNORM] = norm;
        if (sum[SS_PART_RHO] == 0 || sc[SS_SCAL_OMEGA] == 0 || sc[SS_SCAL_RHO] == 0) {
            sc[SS_SCAL_BREAK] = 1;
            sc[SS_SCAL_BETA] = 0;
        } else {
            sc[SS_SCAL_BETA] = sum[SS_PART_RHO] / sc[SS_SCAL_RHO] * (sc[SS_SCAL_ALPHA] / sc[SS_SCAL_OMEGA]);
        }
        sc[SS_SCAL_RHO] = sum[SS_PART_RHO];
        break;
    }
}

/* ---- CUDA variants (codelets/cuda/spike.cu, our kernels throughout) ------------------ */
/* Each chunk task launches one thread block per partition of its chunk (per inner interface for
 * the reduced systems), so that a chunk of hundreds of partitions fills the GPU (the seed's
 * SPIKE::GPU); everything asynchronous on the worker's stream. */
#ifdef STARSOLVE_USE_CUDA
/* the working precision's and the single precision's LAPACK letters, for spike.cu */
#if defined(STARSOLVE_PRECISION_Z)
static const char prec_work = 'z', prec_low = 'c';
#elif defined(STARSOLVE_PRECISION_D)
static const char prec_work = 'd', prec_low = 's';
#elif defined(STARSOLVE_PRECISION_C)
static const char prec_work = 'c', prec_low = 'c';
#else
static const char prec_work = 's', prec_low = 's';
#endif

/* the same steps as zspike_factor_cpu (buffers alike) */
static void zspike_factor_cuda(void *buffers[], void *cl_arg)
{
    const struct ss_spike_part *a = cl_arg;
    const char fp = a->mixed ? prec_low : prec_work;
    cudaStream_t st = ss_cuda_stream();
    void *w = ss_cuda_dwork(ss_cuda_spike_factor_work(prec_work, fp, &a->c));
    ss_cuda_spike_factor_chunk(prec_work, fp, &a->c, band_of(buffers[0], &a->c), SS_LD(buffers[0]), SS_COLS(buffers[0]),
                               band_of(buffers[1], &a->c), SS_LD(buffers[1]), band_of(buffers[2], &a->c), SS_LD(buffers[2]),
                               (void *)STARPU_VECTOR_GET_PTR(buffers[3]), (int *)STARPU_VECTOR_GET_PTR(buffers[4]),
                               (void *)STARPU_VECTOR_GET_PTR(buffers[5]), (void *)STARPU_VECTOR_GET_PTR(buffers[6]),
                               (int *)STARPU_VECTOR_GET_PTR(buffers[7]), (void *)STARPU_VECTOR_GET_PTR(buffers[8]), w, st);
}

static void zspike_reduced_factor_cuda(void *buffers[], void *cl_arg)
{
    const struct ss_spike_part *a = cl_arg;
    const int K = a->c.K;
    const starsolve_complex64_t *t0 = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[0]);
    const starsolve_complex64_t *t1 = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
    ss_cuda_spike_reduced_factor(prec_work, K, 1, t0 + SS_TIPS(K) * (a->c.np - 1) + SS_TIP_VB(K), 0, t1 + SS_TIP_WT(K), 0,
                                 (void *)STARPU_VECTOR_GET_PTR(buffers[2]), (int *)STARPU_VECTOR_GET_PTR(buffers[3]),
                                 ss_cuda_stream());
}

static void zspike_tipsolve_cuda(void *buffers[], void *cl_arg)
{
    const struct ss_spike_part *a = cl_arg;
    ss_cuda_spike_tipsolve_chunk(prec_work, a->mixed ? prec_low : prec_work, &a->c, (const void *)STARPU_VECTOR_GET_PTR(buffers[0]),
                                 (const int *)STARPU_VECTOR_GET_PTR(buffers[1]), (const void *)STARPU_VECTOR_GET_PTR(buffers[2]),
                                 (const void *)STARPU_VECTOR_GET_PTR(buffers[3]), (const int *)STARPU_VECTOR_GET_PTR(buffers[4]),
                                 (void *)STARPU_VECTOR_GET_PTR(buffers[5]), (void *)STARPU_VECTOR_GET_PTR(buffers[6]),
                                 (void *)STARPU_VECTOR_GET_PTR(buffers[7]),
                                 a->mixed ? NULL : (void *)STARPU_VECTOR_GET_PTR(buffers[8]), ss_cuda_stream());
}

static void zspike_reduced_solve_cuda(void *buffers[], void *cl_arg)
{
    const struct ss_spike_part *a = cl_arg;
    const int K = a->c.K;
    const starsolve_complex64_t *g0 = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[2]);
    ss_cuda_spike_reduced_solve(prec_work, K, 1, (const void *)STARPU_VECTOR_GET_PTR(buffers[0]),
                                (const int *)STARPU_VECTOR_GET_PTR(buffers[1]), g0 + 2 * (size_t)K * (a->c.np - 1) + K, 0,
                                (const void *)STARPU_VECTOR_GET_PTR(buffers[3]), 0, (void *)STARPU_VECTOR_GET_PTR(buffers[4]),
                                ss_cuda_stream());
}

static void zspike_retrieve_cuda(void *buffers[], void *cl_arg)
{
    const struct ss_spike_part *a = cl_arg;
    ss_cuda_spike_retrieve_chunk(prec_work, a->mixed ? prec_low : prec_work, &a->c, (const void *)STARPU_VECTOR_GET_PTR(buffers[0]),
                                 (const int *)STARPU_VECTOR_GET_PTR(buffers[1]), (const void *)STARPU_VECTOR_GET_PTR(buffers[2]),
                                 (const void *)STARPU_VECTOR_GET_PTR(buffers[3]), (const void *)STARPU_VECTOR_GET_PTR(buffers[4]),
                                 a->c.has_prev ? (const void *)STARPU_VECTOR_GET_PTR(buffers[5]) : NULL,
                                 a->c.has_next ? (const void *)STARPU_VECTOR_GET_PTR(buffers[6]) : NULL,
                                 (void *)STARPU_VECTOR_GET_PTR(buffers[7]), (void *)STARPU_VECTOR_GET_PTR(buffers[8]),
                                 ss_cuda_stream());
}

/* zspike_matvec_cpu's product and reduction in one pass over the band (spike.cu's band_mv_kernel
 * then one block for the per-block results): no cuBLAS (its gbmv reads band storage with neighbouring
 * threads ld elements apart) and no synchronization (every scalar stays on the GPU) */
static void zspike_matvec_cuda(void *buffers[], void *cl_arg)
{
    const struct ss_spike_part *a = cl_arg;
    const int s = a->c.size, K = a->c.K;
    const starsolve_complex64_t *tips = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
    const starsolve_complex64_t *xp = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[2]);
    const int sp = (int)STARPU_VECTOR_GET_NX(buffers[2]);
    starsolve_complex64_t *part = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[7]);
    void *w = ss_cuda_dwork(ss_cuda_spike_work(prec_work, s));
    const int kind = a->op == SS_MV_RES ? 0 : a->op == SS_MV_V ? 1 : 2;
    ss_cuda_spike_matvec(prec_work, kind, &a->c, band_of(buffers[0], &a->c), SS_LD(buffers[0]),
                         a->c.has_prev ? tips + SS_TIP_CC(K) : NULL, a->c.has_prev ? xp + sp - K : NULL,
                         a->c.has_next ? tips + SS_TIPS(K) * (a->c.np - 1) + SS_TIP_BC(K) : NULL,
                         a->c.has_next ? (const void *)STARPU_VECTOR_GET_PTR(buffers[4]) : NULL,
                         (const void *)STARPU_VECTOR_GET_PTR(buffers[3]), (const void *)STARPU_VECTOR_GET_PTR(buffers[5]),
                         (void *)STARPU_VECTOR_GET_PTR(buffers[6]), kind == 0 ? part + SS_PART_NORM : NULL,
                         kind == 1 ? part + SS_PART_RV : kind == 2 ? part + SS_PART_TS : NULL,
                         kind == 2 ? part + SS_PART_TT : NULL, w, ss_cuda_stream());
}

/* zspike_update_cpu's operations, each one kernel with its reductions fused (then one block for
 * the per-block results); the copy out is a copy */
static void zspike_update_cuda(void *buffers[], void *cl_arg)
{
    const struct ss_spike_part *a = cl_arg;
    const int s = a->c.size;
    cudaStream_t st = ss_cuda_stream();
    void *w = ss_cuda_dwork(ss_cuda_spike_work(prec_work, s));
#define V(k) ((void *)STARPU_VECTOR_GET_PTR(buffers[k]))
#define SLOT(k, slot) ((starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[k]) + (slot))
    switch (a->op) {
    case SS_UP_INIT: {
        void *v[7] = { V(0), V(1), V(2), V(3), NULL, NULL, NULL };
        ss_cuda_spike_update(prec_work, 4, s, NULL, v, NULL, SLOT(4, SS_PART_RHO), w, st);
        break;
    }
    case SS_UP_P: {
        void *v[7] = { V(0), V(1), V(3), NULL, NULL, NULL, NULL };
        ss_cuda_spike_update(prec_work, 1, s, V(2), v, NULL, NULL, w, st);
        break;
    }
    case SS_UP_S: {
        void *v[7] = { V(0), V(1), V(3), NULL, NULL, NULL, NULL };
        ss_cuda_spike_update(prec_work, 2, s, V(2), v, NULL, NULL, w, st);
        break;
    }
    case SS_UP_XR: {
        void *v[7] = { V(0), V(1), V(2), V(3), V(6), V(7), V(4) };
        ss_cuda_spike_update(prec_work, 3, s, V(5), v, SLOT(8, SS_PART_NORM), SLOT(8, SS_PART_RHO), w, st);
        break;
    }
    case SS_UP_ADD: {
        void *v[7] = { V(0), V(1), NULL, NULL, NULL, NULL, NULL };
        ss_cuda_spike_update(prec_work, 6, s, NULL, v, NULL, NULL, w, st);
        break;
    }
    case SS_UP_COPYIN: {
        void *v[7] = { (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[0]) + (size_t)a->col * SS_LD(buffers[0]), V(1),
                       NULL, NULL, NULL, NULL, NULL };
        ss_cuda_spike_update(prec_work, 5, s, NULL, v, SLOT(2, SS_PART_NORM), NULL, w, st);
        break;
    }
    default: {
        starsolve_complex64_t *B = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[1]) + (size_t)a->col * SS_LD(buffers[1]);
        SS_CUDA(cudaMemcpyAsync(B, V(0), (size_t)s * sizeof *B, cudaMemcpyDeviceToDevice, st));
        break;
    }
    }
#undef V
#undef SLOT
}
#endif

#ifdef STARSOLVE_USE_CUDA
/* zspike_reduce_cpu's buffers, on the GPU (spike.cu's reduce_kernel) */
static void zspike_reduce_cuda(void *buffers[], void *cl_arg)
{
    const struct ss_spike_part *a = cl_arg;
    const int p = a->nparts;
    const void *parts[SS_SPIKE_MAX_PARTIALS];
    for (int i = 0; i < p; i++)
        parts[i] = (const void *)STARPU_VECTOR_GET_PTR(buffers[i]);
    ss_cuda_spike_reduce(prec_work, a->op, p, parts, (void *)STARPU_VECTOR_GET_PTR(buffers[p]), ss_cuda_stream());
}
#endif

/* ---- codelets -------------------------------------------------------------- */

/* With CUDA workers every chunk was cut for a GPU (src/zgbsv_spike.c, partition_count: one chunk
 * of ~1000 partitions per CUDA worker), and a CPU core takes ~20x longer on it. dmdas gives a task
 * to any worker whose history model for it is not calibrated yet: from the second call on, tip
 * solves and retrievals of whole chunks (500 000 rows at n = 1e6) ran on CPU workers, ~55 ms each
 * plus the chunk's factors (130 MB) to the host and the vectors back. So a chunk task refuses CPU
 * workers then, as ss_can_execute does for large tiles (gpu_only_tile 0 lifts both); without CUDA
 * workers nothing changes. */
static int spike_can_execute(unsigned workerid, struct starpu_task *task, unsigned nimpl)
{
    (void)task; (void)nimpl;
    return starpu_worker_get_type((int)workerid) != STARPU_CPU_WORKER || !ss_gpu_work_gpu_only();
}

/* chunk tasks: the same rows cut into more partitions cost differently (more, smaller LUs and
 * solves, more inner reduced systems): the footprint is the chunk's rows, partitions and band */
static uint32_t footprint_chunk(struct starpu_task *task)
{
    const struct ss_spike_part *a = task->cl_arg;
    return starpu_hash_crc32c_be(a->c.size, starpu_hash_crc32c_be(a->c.np, starpu_hash_crc32c_be(a->c.kl,
                                 starpu_hash_crc32c_be(a->c.ku, starpu_hash_crc32c_be(a->mixed, 0)))));
}
static struct starpu_perfmodel model_zspike_factor = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_zspike_factor3",
                                                       .footprint = footprint_chunk };
static struct starpu_perfmodel model_zspike_reduced_factor = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_zspike_reduced_factor2" };
static struct starpu_perfmodel model_zspike_tipsolve = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_zspike_tipsolve2",
                                                         .footprint = footprint_chunk };
static struct starpu_perfmodel model_zspike_reduced_solve = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_zspike_reduced_solve2" };
static struct starpu_perfmodel model_zspike_retrieve = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_zspike_retrieve3",
                                                         .footprint = footprint_chunk };
/* the matvec, update and reduce codelets do different work per operation: the operation is
 * part of their tasks' footprint, beside the partition's size */
static uint32_t footprint_op(struct starpu_task *task)
{
    const struct ss_spike_part *a = task->cl_arg;
    return starpu_hash_crc32c_be(a->op, starpu_hash_crc32c_be(a->c.size, starpu_hash_crc32c_be(a->nparts, 0)));
}
static struct starpu_perfmodel model_zspike_matvec = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_zspike_matvec2",
                                                       .footprint = footprint_op };
static struct starpu_perfmodel model_zspike_update = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_zspike_update2",
                                                       .footprint = footprint_op };
static struct starpu_perfmodel model_zspike_reduce = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_zspike_reduce",
                                                       .footprint = footprint_op };

static struct starpu_codelet cl_zspike_factor = {
    .where = SS_WHERE_CPU_CUDA, .can_execute = spike_can_execute, .cpu_funcs = { zspike_factor_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zspike_factor_cuda }, .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = STARPU_VARIABLE_NBUFFERS,   /* 9 > STARPU_NMAXBUFS: the modes come with the task (insert_zspike_factor) */
    .model = &model_zspike_factor, .name = "zspike_factor", .callback_func = ss_trace_task_done,
};
static struct starpu_codelet cl_zspike_reduced_factor = {
    .where = SS_WHERE_CPU_CUDA, .can_execute = spike_can_execute, .cpu_funcs = { zspike_reduced_factor_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zspike_reduced_factor_cuda }, .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = 4, .modes = { STARPU_R, STARPU_R, STARPU_W, STARPU_W },
    .model = &model_zspike_reduced_factor, .name = "zspike_reduced_factor", .callback_func = ss_trace_task_done,
};
static struct starpu_codelet cl_zspike_tipsolve = {
    .where = SS_WHERE_CPU_CUDA, .can_execute = spike_can_execute, .cpu_funcs = { zspike_tipsolve_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zspike_tipsolve_cuda }, .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = STARPU_VARIABLE_NBUFFERS,   /* 9 > STARPU_NMAXBUFS: the modes come with the task (insert_zspike_tipsolve) */
    .model = &model_zspike_tipsolve, .name = "zspike_tipsolve", .callback_func = ss_trace_task_done,
};
static struct starpu_codelet cl_zspike_reduced_solve = {
    .where = SS_WHERE_CPU_CUDA, .can_execute = spike_can_execute, .cpu_funcs = { zspike_reduced_solve_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zspike_reduced_solve_cuda }, .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = 5, .modes = { STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_W },
    .model = &model_zspike_reduced_solve, .name = "zspike_reduced_solve", .callback_func = ss_trace_task_done,
};
static struct starpu_codelet cl_zspike_retrieve = {
    .where = SS_WHERE_CPU_CUDA, .can_execute = spike_can_execute, .cpu_funcs = { zspike_retrieve_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zspike_retrieve_cuda }, .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = STARPU_VARIABLE_NBUFFERS,   /* 9 > STARPU_NMAXBUFS: the modes come with the task (insert_zspike_retrieve) */
    .model = &model_zspike_retrieve, .name = "zspike_retrieve", .callback_func = ss_trace_task_done,
};
static struct starpu_codelet cl_zspike_matvec = {
    .where = SS_WHERE_CPU_CUDA, .can_execute = spike_can_execute, .cpu_funcs = { zspike_matvec_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zspike_matvec_cuda }, .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = 8, .modes = { STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_W, STARPU_RW },
    .model = &model_zspike_matvec, .name = "zspike_matvec", .callback_func = ss_trace_task_done,
};
static struct starpu_codelet cl_zspike_update = {
    .where = SS_WHERE_CPU_CUDA, .can_execute = spike_can_execute, .cpu_funcs = { zspike_update_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zspike_update_cuda }, .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &model_zspike_update, .name = "zspike_update", .callback_func = ss_trace_task_done,
};
/* a GPU takes a reduction when the partial sums fit spike.cu's kernel argument */
static int reduce_can_execute(unsigned workerid, struct starpu_task *task, unsigned nimpl)
{
    (void)nimpl;
    const struct ss_spike_part *a = task->cl_arg;
    return starpu_worker_get_type((int)workerid) == STARPU_CPU_WORKER || a->nparts <= SS_SPIKE_MAX_PARTIALS;
}
static struct starpu_codelet cl_zspike_reduce = {
    .where = SS_WHERE_CPU_CUDA, .can_execute = reduce_can_execute, .cpu_funcs = { zspike_reduce_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zspike_reduce_cuda }, .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &model_zspike_reduce, .name = "zspike_reduce", .callback_func = ss_trace_task_done,
};

/* ---- insert helpers ------------------------------------------------------- */

static struct ss_spike_part *args_copy(const struct ss_spike_part *part, int op)
{
    struct ss_spike_part *a = malloc(sizeof *a);
    *a = *part;
    a->op = op;
    return a;
}

static void insert(struct starpu_codelet *cl, struct ss_spike_part *a, struct starpu_data_descr *d, int nd, double flops,
                   int prio)
{
    int ret = ss_task_insert(cl, STARPU_CL_ARGS, a, sizeof *a, STARPU_DATA_MODE_ARRAY, d, nd,
                             STARPU_PRIORITY, ss_priority(SS_BUCKET_OTHER, prio), STARPU_EXECUTE_ON_WORKER, a->worker,
                             STARPU_NAME, cl->name, STARPU_FLOPS, SS_FLOP_SCALE * flops, 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert %s", cl->name);
}

void insert_zspike_factor(const struct ss_spike_part *part, starpu_data_handle_t band_prev, starpu_data_handle_t band,
                          starpu_data_handle_t band_next, starpu_data_handle_t F, starpu_data_handle_t ipiv,
                          starpu_data_handle_t tips, starpu_data_handle_t S, starpu_data_handle_t ipivS, starpu_data_handle_t stat)
{
    struct starpu_data_descr d[9] = { { band_prev, STARPU_R }, { band, STARPU_R }, { band_next, STARPU_R },
                                      { F, STARPU_W }, { ipiv, STARPU_W }, { tips, STARPU_W },
                                      { S, STARPU_W }, { ipivS, STARPU_W }, { stat, STARPU_W } };
    double s = part->c.size, kl = part->c.kl, ku = part->c.ku, K = part->c.K, np = part->c.np;
    insert(&cl_zspike_factor, args_copy(part, 0), d, 9,
           2.0 * s * (kl + 1) * (kl + ku + 1) + 40.0 * K * K * K * np + 16.0 / 3 * K * K * K * (np - 1), 1);
}

void insert_zspike_reduced_factor(const struct ss_spike_part *part, starpu_data_handle_t tips0, starpu_data_handle_t tips1,
                                  starpu_data_handle_t S, starpu_data_handle_t ipivS)
{
    struct starpu_data_descr d[4] = { { tips0, STARPU_R }, { tips1, STARPU_R }, { S, STARPU_W }, { ipivS, STARPU_W } };
    double l = 2.0 * part->c.K;
    insert(&cl_zspike_reduced_factor, args_copy(part, 0), d, 4, 2.0 / 3 * l * l * l, 1);
}

void insert_zspike_tipsolve(const struct ss_spike_part *part, starpu_data_handle_t F, starpu_data_handle_t ipiv,
                            starpu_data_handle_t f, starpu_data_handle_t S, starpu_data_handle_t ipivS,
                            starpu_data_handle_t gt, starpu_data_handle_t y, starpu_data_handle_t scratch, starpu_data_handle_t x)
{
    struct starpu_data_descr d[9] = { { F, STARPU_R }, { ipiv, STARPU_R }, { f, STARPU_R }, { S, STARPU_R }, { ipivS, STARPU_R },
                                      { gt, STARPU_W }, { y, STARPU_W }, { scratch, STARPU_SCRATCH }, { x, STARPU_W } };
    double l = 2.0 * part->c.K;
    insert(&cl_zspike_tipsolve, args_copy(part, 0), d, 9,
           2.0 * part->c.size * (2.0 * part->c.kl + part->c.ku + 1) + 2.0 * l * l * (part->c.np - 1), 0);
}

void insert_zspike_reduced_solve(const struct ss_spike_part *part, starpu_data_handle_t S, starpu_data_handle_t ipivS,
                                 starpu_data_handle_t gt0, starpu_data_handle_t gt1, starpu_data_handle_t y)
{
    struct starpu_data_descr d[5] = { { S, STARPU_R }, { ipivS, STARPU_R }, { gt0, STARPU_R }, { gt1, STARPU_R }, { y, STARPU_W } };
    double l = 2.0 * part->c.K;
    insert(&cl_zspike_reduced_solve, args_copy(part, 0), d, 5, 2.0 * l * l, 1);
}

void insert_zspike_retrieve(const struct ss_spike_part *part, starpu_data_handle_t F, starpu_data_handle_t ipiv,
                            starpu_data_handle_t f, starpu_data_handle_t tips, starpu_data_handle_t y,
                            starpu_data_handle_t y_prev, starpu_data_handle_t y_next, starpu_data_handle_t x,
                            starpu_data_handle_t scratch, int after_tipsolve)
{
    /* x: g after a tip solve (zspike_retrieve_cpu reads it), written whole otherwise */
    struct starpu_data_descr d[9] = { { F, STARPU_R }, { ipiv, STARPU_R }, { f, STARPU_R }, { tips, STARPU_R }, { y, STARPU_R },
                                      { y_prev, STARPU_R }, { y_next, STARPU_R }, { x, after_tipsolve ? STARPU_RW : STARPU_W },
                                      { scratch, STARPU_SCRATCH } };
    insert(&cl_zspike_retrieve, args_copy(part, after_tipsolve), d, 9, 2.0 * part->c.size * (2.0 * part->c.kl + part->c.ku + 1), 0);
}

void insert_zspike_matvec(const struct ss_spike_part *part, int op, starpu_data_handle_t band, starpu_data_handle_t tips,
                          starpu_data_handle_t x_prev, starpu_data_handle_t x, starpu_data_handle_t x_next,
                          starpu_data_handle_t aux, starpu_data_handle_t out, starpu_data_handle_t partial)
{
    struct starpu_data_descr d[8] = { { band, STARPU_R }, { tips, STARPU_R }, { x_prev, STARPU_R }, { x, STARPU_R },
                                      { x_next, STARPU_R }, { aux, STARPU_R }, { out, STARPU_W }, { partial, STARPU_RW } };
    insert(&cl_zspike_matvec, args_copy(part, op), d, 8, 2.0 * part->c.size * (part->c.kl + part->c.ku + 3), 0);
}

void insert_zspike_update(const struct ss_spike_part *part, int op, int col, int nh, const starpu_data_handle_t *h)
{
    /* the access modes of each operation's buffers, in the order zspike_update_cpu reads them */
    static const enum starpu_data_access_mode modes[][9] = {
        [SS_UP_INIT] = { STARPU_R, STARPU_W, STARPU_W, STARPU_W, STARPU_RW },
        [SS_UP_P] = { STARPU_R, STARPU_R, STARPU_R, STARPU_RW },
        [SS_UP_S] = { STARPU_R, STARPU_R, STARPU_R, STARPU_W },
        [SS_UP_XR] = { STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_RW, STARPU_W, STARPU_RW },
        [SS_UP_COPYIN] = { STARPU_R, STARPU_W, STARPU_RW },
        [SS_UP_COPYOUT] = { STARPU_R, STARPU_RW },
        [SS_UP_ADD] = { STARPU_R, STARPU_RW },
    };
    static const int count[] = { [SS_UP_INIT] = 5, [SS_UP_P] = 4, [SS_UP_S] = 4, [SS_UP_XR] = 9,
                                 [SS_UP_COPYIN] = 3, [SS_UP_COPYOUT] = 2, [SS_UP_ADD] = 2 };
    STARPU_ASSERT(nh == count[op]);
    struct starpu_data_descr d[9];
    for (int k = 0; k < nh; k++)
        d[k] = (struct starpu_data_descr){ h[k], modes[op][k] };
    struct ss_spike_part *a = args_copy(part, op);
    a->col = col;
    insert(&cl_zspike_update, a, d, nh, 8.0 * part->c.size, 0);
}

void insert_zspike_reduce(const struct ss_spike_part *part, int op, const starpu_data_handle_t *partials,
                          starpu_data_handle_t scalars)
{
    int p = part->nparts;
    struct starpu_data_descr *d = malloc(((size_t)p + 1) * sizeof *d);
    for (int i = 0; i < p; i++)
        d[i] = (struct starpu_data_descr){ partials[i], STARPU_R };
    d[p] = (struct starpu_data_descr){ scalars, STARPU_RW };
    struct ss_spike_part *a = args_copy(part, op);
    if (a->worker >= 0 && starpu_worker_get_type(a->worker) != STARPU_CPU_WORKER && p > SS_SPIKE_MAX_PARTIALS)
        a->worker = -1;   /* too many for the GPU's kernel: a CPU worker takes it */
    insert(&cl_zspike_reduce, a, d, p + 1, 8.0 * p, 2);
    free(d);
}
