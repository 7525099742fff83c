/* SPIKE (banded solver) tasks, truncated SPIKE of Li, Seidl and Negrut ("SPIKE::GPU").
 * The algorithm (src/zgbsv_spike.c) cuts A into p partitions; partition i owns rows and
 * columns first_i .. first_i + size_i - 1, size_i >= 2K, K = max(kl, ku). Handles:
 *   band_i  the caller's band on the partition's columns, gbmv layout: A(r, c) (partition-local)
 *           at band[ku + r - c + c ld], kl + ku + 1 rows (a view into LAPACK's gbsv array, read only)
 *   F_i     LU with partial pivoting of the diagonal block, gbtrf layout (ldf = 2 kl + ku + 1),
 *           in working precision or, mixed precision, in the single precision of the same kind
 *   tips_i  SS_TIPS(K) elements: the K x K blocks Vb (bottom tip of the right spike), Wt (top tip of
 *           the left spike), Bc = A(last K rows, next partition's first K columns), Cc = A(first K
 *           rows, previous partition's last K columns), then the partition's smallest diagonal
 *           dominance ratio and a status (0, or > 0: the partition or its top block is singular)
 *   S_j     the reduced system of interface j (between partitions j and j+1), [I Vb_j; Wt_{j+1} I],
 *           2K x 2K, LU-factored (ipivS_j), always in working precision (it is small)
 * Tasks: factor (per partition), reduced factor (per interface), the preconditioner's three stages
 * (tip solve, reduced solve, retrieval), the band matrix-vector product with BiCGStab's dot
 * products fused, BiCGStab's vector updates, and the reductions of per-partition partial sums.
 * Each task has a CPU function and, where CUDA is built, a CUDA one (all but the reduced
 * factorization and the reductions, a few hundred bytes each, which stay on the CPU). */
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

/* LU with partial pivoting of a band in gbtrf layout, in the factor's precision */
static int band_lu(int mixed, int m, int kl, int ku, void *F, int ldf, int *ipiv)
{
#if defined(STARSOLVE_PRECISION_Z)
    if (mixed) return LAPACKE_cgbtrf_work(LAPACK_COL_MAJOR, m, m, kl, ku, (starsolve_complex32_t *)F, ldf, ipiv);
#elif defined(STARSOLVE_PRECISION_D)
    if (mixed) return LAPACKE_sgbtrf_work(LAPACK_COL_MAJOR, m, m, kl, ku, (float *)F, ldf, ipiv);
#endif
    (void)mixed;
    return LAPACKE_zgbtrf_work(LAPACK_COL_MAJOR, m, m, kl, ku, (starsolve_complex64_t *)F, ldf, ipiv);
}

/* B = A^-1 B with band_lu's factors (B in the factor's precision) */
static void band_solve(int mixed, int m, int kl, int ku, int nrhs, const void *F, int ldf, const int *ipiv, void *B,
                       int ldb)
{
#if defined(STARSOLVE_PRECISION_Z)
    if (mixed) { LAPACKE_cgbtrs_work(LAPACK_COL_MAJOR, 'N', m, kl, ku, nrhs, (const starsolve_complex32_t *)F, ldf, ipiv,
                                     (starsolve_complex32_t *)B, ldb); return; }
#elif defined(STARSOLVE_PRECISION_D)
    if (mixed) { LAPACKE_sgbtrs_work(LAPACK_COL_MAJOR, 'N', m, kl, ku, nrhs, (const float *)F, ldf, ipiv, (float *)B, ldb);
                 return; }
#endif
    (void)mixed;
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

/* ---- factor: one partition ------------------------------------------------ */

/* buffers: 0 band_{i-1}, 1 band_i, 2 band_{i+1} (the partition's own when it has no such
 * neighbour), 3 F_i (W), 4 ipiv_i (W), 5 tips_i (W) */
static void zspike_factor_cpu(void *buffers[], void *cl_arg)
{
    const struct ss_spike_part *a = cl_arg;
    const int s = a->size, kl = a->kl, ku = a->ku, K = a->K, ldf = 2 * kl + ku + 1, mixed = a->mixed;
    const starsolve_complex64_t *Bp = (const starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[0]);
    const starsolve_complex64_t *Bi = (const starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[1]);
    const starsolve_complex64_t *Bn = (const starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[2]);
    const size_t ldp = SS_LD(buffers[0]), ldi = SS_LD(buffers[1]), ldn = SS_LD(buffers[2]);
    const int sp = SS_COLS(buffers[0]);
    void *F = (void *)STARPU_VECTOR_GET_PTR(buffers[3]);
    int *ipiv = (int *)STARPU_VECTOR_GET_PTR(buffers[4]);
    starsolve_complex64_t *tips = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[5]);
    starsolve_complex64_t *Vb = tips, *Wt = tips + (size_t)K * K, *Bc = Wt + (size_t)K * K, *Cc = Bc + (size_t)K * K;
    memset(tips, 0, SS_TIPS(K) * sizeof *tips);

    /* the couplings: Bc(r, c) = A(row s-K+r, next partition's column c), Cc(r, c) = A(row r,
     * previous partition's column sp-K+c), zero outside the band */
    for (int c = 0; c < K; c++)
        for (int r = 0; r < K; r++) {
            int dn = r - K - c, dp = K + r - c;   /* row minus column of the global entry */
            if (a->has_next && dn >= -ku)
                Bc[r + (size_t)c * K] = Bn[ku + dn + (size_t)c * ldn];
            if (a->has_prev && dp <= kl)
                Cc[r + (size_t)c * K] = Bp[ku + dp + (size_t)(sp - K + c) * ldp];
        }

    /* One pass over the partition's band: the diagonal block into F in gbtrf layout (every entry
     * of F written once, zeros outside the block and in the kl fill-in rows on top, in the
     * factor's precision), and each row's |diagonal| and sum of other |entries| for the row
     * dominance min |a_rr| / sum_{j != r} |a_rj| (the couplings' entries added after). */
    size_t fsz = mixed ? sizeof(zspike_low_t) : sizeof(starsolve_complex64_t);
    double *off = calloc((size_t)s, sizeof *off), *dia = calloc((size_t)s, sizeof *dia);
    for (int c = 0; c < s; c++) {
        int lo = ss_max(0, c - ku), hi = ss_min(s - 1, c + kl);
        for (int k = 0; k < ldf; k++) {
            int r = k - kl - ku + c;   /* the row of F(k, c) */
            starsolve_complex64_t v = r >= lo && r <= hi ? Bi[ku + r - c + (size_t)c * ldi] : 0;
            fset(mixed, F, k + (size_t)c * ldf, v);
            if (r >= lo && r <= hi) {
                if (r == c) dia[r] = cabs(v); else off[r] += cabs(v);
            }
        }
    }
    for (int r = 0; r < K; r++)
        for (int c = 0; c < K; c++) {
            off[r] += cabs(Cc[r + (size_t)c * K]);
            off[s - K + r] += cabs(Bc[r + (size_t)c * K]);
        }
    double ratio = INFINITY;
    for (int r = 0; r < s; r++)
        ratio = fmin(ratio, off[r] > 0 ? dia[r] / off[r] : (dia[r] > 0 ? INFINITY : 0));
    free(off); free(dia);
    tips[SS_TIPS(K) - 2] = ratio;
    int info = band_lu(mixed, s, kl, ku, F, ldf, ipiv);
    if (info > 0) {
        tips[SS_TIPS(K) - 1] = info;
        return;
    }

    /* Vb, exact: the bottom K rows of A_i^-1 [0; Bc]. The right-hand side is zero above row
     * s - K, and gbtrs's forward sweep with partial pivoting leaves rows below j0 = s - K - kl
     * zero until step j0 (step j only swaps and updates rows j .. j + kl); the backward sweep's
     * last rows need only U's trailing block (U is upper triangular). So gbtrs on the trailing
     * s - j0 rows with the pivots shifted by j0 gives those rows exactly, in O(K^3) instead of the
     * O(s K^2) of the whole spike. */
    if (a->has_next) {
        int j0 = ss_max(0, s - K - kl), m = s - j0;
        int *piv = malloc((size_t)m * sizeof *piv);
        void *Z = calloc((size_t)m * K, fsz);
        for (int j = 0; j < m; j++)
            piv[j] = ipiv[j0 + j] - j0;
        for (int c = 0; c < K; c++)
            for (int r = 0; r < K; r++)
                fset(mixed, Z, m - K + r + (size_t)c * m, Bc[r + (size_t)c * K]);
        band_solve(mixed, m, kl, ku, K, (const char *)F + (size_t)j0 * ldf * fsz, ldf, piv, Z, m);
        for (int c = 0; c < K; c++)
            for (int r = 0; r < K; r++)
                Vb[r + (size_t)c * K] = fget(mixed, Z, m - K + r + (size_t)c * m);
        free(piv); free(Z);
    }

    /* Wt, truncated: the top K rows of A_i^-1 [Cc; 0] need the whole partition (the seed's UL
     * factorization of A_i). As the seed does, we take them from the partition's leading block
     * alone, of m = min(s, 4K) rows: the seed's UL of the top block gives exactly
     * top_K(T^-1 [Cc; 0]) for that block T, and so does an LU solve with T, which LAPACK has.
     * For a diagonally dominant A the entries of A_i^-1 decay geometrically away from the
     * diagonal, so the rows beyond m change the tip by about (1/d)^(m/K); we take 4K rather than
     * the seed's 2K because the cost, O(K^3) per partition, is noise next to the partition's
     * O(s K^2) LU. BiCGStab corrects what the truncation leaves. In working precision. */
    if (a->has_prev) {
        int m = ss_min(s, 4 * K);
        starsolve_complex64_t *T = calloc((size_t)ldf * m, sizeof *T), *Z = calloc((size_t)m * K, sizeof *Z);
        int *piv = malloc((size_t)m * sizeof *piv);
        for (int c = 0; c < m; c++)
            for (int r = ss_max(0, c - ku); r <= ss_min(m - 1, c + kl); r++)
                T[kl + ku + r - c + (size_t)c * ldf] = Bi[ku + r - c + (size_t)c * ldi];
        for (int c = 0; c < K; c++)
            for (int r = 0; r < K; r++)
                Z[r + (size_t)c * m] = Cc[r + (size_t)c * K];
        if (band_lu(0, m, kl, ku, T, ldf, piv) > 0) {
            tips[SS_TIPS(K) - 1] = 1;
        } else {
            band_solve(0, m, kl, ku, K, T, ldf, piv, Z, m);
            for (int c = 0; c < K; c++)
                for (int r = 0; r < K; r++)
                    Wt[r + (size_t)c * K] = Z[r + (size_t)c * m];
        }
        free(T); free(Z); free(piv);
    }
}

/* ---- reduced system of one interface -------------------------------------- */

/* buffers: 0 tips_j, 1 tips_{j+1}, 2 S_j (W, 2K x 2K), 3 ipivS_j (W) */
static void zspike_reduced_factor_cpu(void *buffers[], void *cl_arg)
{
    const struct ss_spike_part *a = cl_arg;
    const int K = a->K, l = 2 * K;
    const starsolve_complex64_t *t0 = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[0]);
    const starsolve_complex64_t *t1 = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
    starsolve_complex64_t *S = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[2]);
    int *ipiv = (int *)STARPU_VECTOR_GET_PTR(buffers[3]);
    const starsolve_complex64_t *Vb = t0, *Wt = t1 + (size_t)K * K;
    memset(S, 0, (size_t)l * l * sizeof *S);
    for (int d = 0; d < l; d++)
        S[d + (size_t)d * l] = 1;
    for (int c = 0; c < K; c++)
        for (int r = 0; r < K; r++) {
            S[r + (size_t)(K + c) * l] = Vb[r + (size_t)c * K];
            S[K + r + (size_t)c * l] = Wt[r + (size_t)c * K];
        }
    /* singular: the caller sees it through the request and does not use SPIKE */
    int info = LAPACKE_zgetrf_work(LAPACK_COL_MAJOR, l, l, S, l, ipiv);
    if (info > 0)
        ss_request_report(a->req, 1);
}

/* ---- the preconditioner: tip solve, reduced solve, retrieval ---------------- */

/* buffers: 0 F_i, 1 ipiv_i, 2 f_i (a vector of the partition's rows), 3 gt_i (W: 2K, the top and
 * the bottom K rows of A_i^-1 f_i), 4 scratch (size_i elements of the factor's precision) */
static void zspike_tipsolve_cpu(void *buffers[], void *cl_arg)
{
    const struct ss_spike_part *a = cl_arg;
    const int s = a->size, K = a->K, mixed = a->mixed;
    const starsolve_complex64_t *f = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[2]);
    starsolve_complex64_t *gt = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[3]);
    void *w = (void *)STARPU_VECTOR_GET_PTR(buffers[4]);
    for (int r = 0; r < s; r++)
        fset(mixed, w, r, f[r]);
    band_solve(mixed, s, a->kl, a->ku, 1, (const void *)STARPU_VECTOR_GET_PTR(buffers[0]), 2 * a->kl + a->ku + 1,
               (const int *)STARPU_VECTOR_GET_PTR(buffers[1]), w, s);
    for (int r = 0; r < K; r++) {
        gt[r] = fget(mixed, w, r);
        gt[K + r] = fget(mixed, w, s - K + r);
    }
}

/* buffers: 0 S_j, 1 ipivS_j, 2 gt_j, 3 gt_{j+1}, 4 y_j (W: [x_j bottom; x_{j+1} top]) */
static void zspike_reduced_solve_cpu(void *buffers[], void *cl_arg)
{
    const struct ss_spike_part *a = cl_arg;
    const int K = a->K;
    const starsolve_complex64_t *g0 = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[2]);
    const starsolve_complex64_t *g1 = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[3]);
    starsolve_complex64_t *y = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[4]);
    memcpy(y, g0 + K, (size_t)K * sizeof *y);
    memcpy(y + K, g1, (size_t)K * sizeof *y);
    LAPACKE_zgetrs_work(LAPACK_COL_MAJOR, 'N', 2 * K, 1, (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[0]),
                        2 * K, (const int *)STARPU_VECTOR_GET_PTR(buffers[1]), y, 2 * K);
}

/* Retrieval by purification: x_i = A_i^-1 (f_i - Cc x_{i-1}^b - Bc x_{i+1}^t), one more partition
 * solve instead of the full spikes' x_i = g_i - V_i x_{i+1}^t - W_i x_{i-1}^b.
 * buffers: 0 F_i, 1 ipiv_i, 2 f_i, 3 tips_i, 4 y_{i-1}, 5 y_i (the partition's own gt when there is
 * no such interface: not read), 6 x_i (W), 7 scratch */
static void zspike_retrieve_cpu(void *buffers[], void *cl_arg)
{
    const struct ss_spike_part *a = cl_arg;
    const int s = a->size, K = a->K, mixed = a->mixed;
    const starsolve_complex64_t *f = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[2]);
    const starsolve_complex64_t *tips = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[3]);
    const starsolve_complex64_t *Bc = tips + 2 * (size_t)K * K, *Cc = Bc + (size_t)K * K;
    const starsolve_complex64_t *yp = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[4]);
    const starsolve_complex64_t *yn = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[5]);
    starsolve_complex64_t *x = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[6]);
    void *w = (void *)STARPU_VECTOR_GET_PTR(buffers[7]);
    memcpy(x, f, (size_t)s * sizeof *x);
    const starsolve_complex64_t one = 1, minus = -1;
    if (a->has_prev)   /* x_{i-1}^b = y_{i-1}[0 .. K) */
        cblas_zgemv(CblasColMajor, CblasNoTrans, K, K, CBLAS_SADDR(minus), Cc, K, yp, 1, CBLAS_SADDR(one), x, 1);
    if (a->has_next)   /* x_{i+1}^t = y_i[K .. 2K) */
        cblas_zgemv(CblasColMajor, CblasNoTrans, K, K, CBLAS_SADDR(minus), Bc, K, yn + K, 1, CBLAS_SADDR(one), x + s - K, 1);
    if (!mixed) {
        band_solve(0, s, a->kl, a->ku, 1, (const void *)STARPU_VECTOR_GET_PTR(buffers[0]), 2 * a->kl + a->ku + 1,
                   (const int *)STARPU_VECTOR_GET_PTR(buffers[1]), x, s);
        return;
    }
    for (int r = 0; r < s; r++)
        fset(1, w, r, x[r]);
    band_solve(1, s, a->kl, a->ku, 1, (const void *)STARPU_VECTOR_GET_PTR(buffers[0]), 2 * a->kl + a->ku + 1,
               (const int *)STARPU_VECTOR_GET_PTR(buffers[1]), w, s);
    for (int r = 0; r < s; r++)
        x[r] = fget(1, w, r);
}

/* ---- band matrix-vector product with BiCGStab's reductions fused --------- */

/* y = A x on the partition's rows: the diagonal block's band (gbmv), plus Cc times the
 * previous partition's last K entries and Bc times the next partition's first K.
 * buffers: 0 band_i, 1 tips_i, 2 x_{i-1}, 3 x_i, 4 x_{i+1}, 5 aux (R), 6 out (W), 7 partial (RW).
 * SS_MV_RES: out = aux - A x, partial[NORM] = ||out||_inf (aux = b);
 * SS_MV_V:   out = A x, partial[RV] = aux^H out (aux = rh);
 * SS_MV_T:   out = A x, partial[TS] = out^H aux, partial[TT] = out^H out (aux = s). */
static void zspike_matvec_cpu(void *buffers[], void *cl_arg)
{
    const struct ss_spike_part *a = cl_arg;
    const int s = a->size, K = a->K;
    const starsolve_complex64_t *band = (const starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[0]);
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
    cblas_zgbmv(CblasColMajor, CblasNoTrans, s, s, a->kl, a->ku, CBLAS_SADDR(alpha), band, SS_LD(buffers[0]), x, 1,
                a->op == SS_MV_RES ? CBLAS_SADDR(one) : CBLAS_SADDR(zero), y, 1);
    if (a->has_prev)
        cblas_zgemv(CblasColMajor, CblasNoTrans, K, K, CBLAS_SADDR(alpha), tips + 3 * (size_t)K * K, K, xp + sp - K, 1,
                    CBLAS_SADDR(one), y, 1);
    if (a->has_next)
        cblas_zgemv(CblasColMajor, CblasNoTrans, K, K, CBLAS_SADDR(alpha), tips + 2 * (size_t)K * K, K, xn, 1,
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

/* ---- BiCGStab's vector updates on one partition ---------------------------- */

/* The buffers depend on the operation (insert_zspike_update lists them); the scalars
 * (SS_SCAL_*) are the reductions' results, the partial sums this partition's share. */
static void zspike_update_cpu(void *buffers[], void *cl_arg)
{
    const struct ss_spike_part *a = cl_arg;
    const int s = a->size;
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
    default: {           /* SS_UP_COPYOUT: 0 x, 1 B's rows (matrix, RW): B(:, col) = x */
        starsolve_complex64_t *B = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[1]) + (size_t)a->col * SS_LD(buffers[1]);
        memcpy(B, V(0), (size_t)s * sizeof *B);
        break;
    }
    }
#undef V
}

/* ---- the reductions: per-partition partial sums into BiCGStab's scalars ---- */

/* buffers[0 .. p-1] the partials, buffers[p] the scalars (RW). Runs on a CPU: p small numbers. */
static void zspike_reduce_cpu(void *buffers[], void *cl_arg)
{
    const struct ss_spike_part *a = cl_arg;
    const int p = a->nparts;
    starsolve_complex64_t *sc = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[p]);
    double norm = 0;
    starsolve_complex64_t sum[SS_PART_COUNT] = { 0 };
    for (int i = 0; i < p; i++) {   /* in partition order: the same sums on every run */
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

/* ---- CUDA variants (codelets/cuda/spike.cu; cuBLAS for the products) ------------ */
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

/* the same steps as zspike_factor_cpu, on the GPU: couplings and dominance, the block in gbtrf
 * layout, gbtf2, Vb by gbtrs on the trailing rows, Wt from the leading block's LU */
static void zspike_factor_cuda(void *buffers[], void *cl_arg)
{
    const struct ss_spike_part *a = cl_arg;
    const int s = a->size, kl = a->kl, ku = a->ku, K = a->K, ldf = 2 * kl + ku + 1;
    const char fp = a->mixed ? prec_low : prec_work;
    const size_t fsz = a->mixed ? sizeof(zspike_low_t) : sizeof(starsolve_complex64_t);
    cudaStream_t st = ss_cuda_stream();
    const void *Bp = (const void *)STARPU_MATRIX_GET_PTR(buffers[0]), *Bi = (const void *)STARPU_MATRIX_GET_PTR(buffers[1]);
    const void *Bn = (const void *)STARPU_MATRIX_GET_PTR(buffers[2]);
    void *F = (void *)STARPU_VECTOR_GET_PTR(buffers[3]);
    int *ipiv = (int *)STARPU_VECTOR_GET_PTR(buffers[4]);
    starsolve_complex64_t *tips = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[5]);
    starsolve_complex64_t *Vb = tips, *Wt = tips + (size_t)K * K, *Bc = Wt + (size_t)K * K, *Cc = Bc + (size_t)K * K;
    starsolve_complex64_t *status = tips + SS_TIPS(K) - 1;
    int mv = s - ss_max(0, s - K - kl), mw = ss_min(s, 4 * K);
    /* scratch: two infos, the shifted pivots, Z for Vb (factor precision), T, its pivots and Z for Wt */
    size_t o_piv = ss_align(2 * sizeof(int)), o_zv = o_piv + ss_align((size_t)ss_max(mv, mw) * sizeof(int));
    size_t o_t = o_zv + ss_align((size_t)mv * K * fsz), o_zw = o_t + ss_align((size_t)ldf * mw * sizeof(starsolve_complex64_t));
    size_t o_pw = o_zw + ss_align((size_t)mw * K * sizeof(starsolve_complex64_t));
    char *w = ss_cuda_dwork(o_pw + ss_align((size_t)mw * sizeof(int)));
    int *info = (int *)w;
    ss_cuda_spike_tips_prep(prec_work, s, kl, ku, K, a->has_prev, a->has_next, Bp, SS_LD(buffers[0]), SS_COLS(buffers[0]),
                            Bi, SS_LD(buffers[1]), Bn, SS_LD(buffers[2]), tips, st);
    ss_cuda_spike_band_to_lu(prec_work, fp, s, kl, ku, Bi, SS_LD(buffers[1]), F, ldf, st);
    ss_cuda_spike_gbtf2(fp, s, kl, ku, F, ldf, ipiv, info, st);
    ss_cuda_spike_status(prec_work, info, status, st);
    /* a singular partition leaves zero or infinite tips: the status tells the caller not to use them */
    if (a->has_next) {   /* Vb: see zspike_factor_cpu */
        int j0 = s - mv, *piv = (int *)(w + o_piv);
        void *Z = w + o_zv;
        ss_cuda_spike_shift_pivots(mv, j0, ipiv, piv, st);
        ss_cuda_spike_place_block(prec_work, fp, mv, K, mv - K, Bc, Z, st);
        ss_cuda_spike_gbtrs(fp, mv, kl, ku, K, (const char *)F + (size_t)j0 * ldf * fsz, ldf, piv, Z, mv, st);
        ss_cuda_spike_take_block(prec_work, fp, mv, K, mv - K, Z, Vb, st);
    }
    if (a->has_prev) {   /* Wt: the leading mw x mw block, in working precision */
        void *T = w + o_t, *Z = w + o_zw;
        int *piv = (int *)(w + o_pw);
        ss_cuda_spike_band_to_lu(prec_work, prec_work, mw, kl, ku, Bi, SS_LD(buffers[1]), T, ldf, st);
        ss_cuda_spike_gbtf2(prec_work, mw, kl, ku, T, ldf, piv, info + 1, st);
        ss_cuda_spike_status(prec_work, info + 1, status, st);
        ss_cuda_spike_place_block(prec_work, prec_work, mw, K, 0, Cc, Z, st);
        ss_cuda_spike_gbtrs(prec_work, mw, kl, ku, K, T, ldf, piv, Z, mw, st);
        ss_cuda_spike_take_block(prec_work, prec_work, mw, K, 0, Z, Wt, st);
    }
}

/* w = f converted to the factor's precision (or copied), solved with the partition's factors */
static void partition_solve_cuda(const struct ss_spike_part *a, void *buffers[], const starsolve_complex64_t *f, void *w,
                                 cudaStream_t st)
{
    const char fp = a->mixed ? prec_low : prec_work;
    ss_cuda_spike_convert(fp, prec_work, a->size, f, w, st);
    ss_cuda_spike_gbtrs(fp, a->size, a->kl, a->ku, 1, (const void *)STARPU_VECTOR_GET_PTR(buffers[0]), 2 * a->kl + a->ku + 1,
                        (const int *)STARPU_VECTOR_GET_PTR(buffers[1]), w, a->size, st);
}

static void zspike_tipsolve_cuda(void *buffers[], void *cl_arg)
{
    const struct ss_spike_part *a = cl_arg;
    const int s = a->size, K = a->K;
    const char fp = a->mixed ? prec_low : prec_work;
    const size_t fsz = a->mixed ? sizeof(zspike_low_t) : sizeof(starsolve_complex64_t);
    cudaStream_t st = ss_cuda_stream();
    starsolve_complex64_t *gt = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[3]);
    char *w = (char *)STARPU_VECTOR_GET_PTR(buffers[4]);
    partition_solve_cuda(a, buffers, (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[2]), w, st);
    ss_cuda_spike_convert(prec_work, fp, K, w, gt, st);
    ss_cuda_spike_convert(prec_work, fp, K, w + (size_t)(s - K) * fsz, gt + K, st);
}

/* the 2K x 2K solve with the CPU's LU factors: cuBLAS's getrs takes LAPACK's pivots on the host
 * side only, so the row interchanges are a few small copies: y is permuted then two TRSVs */
static void zspike_reduced_solve_cuda(void *buffers[], void *cl_arg)
{
    const struct ss_spike_part *a = cl_arg;
    const int K = a->K, l = 2 * K;
    cudaStream_t st = ss_cuda_stream();
    cublasHandle_t h = ss_cublas_handle();
    const cuDoubleComplex *S = (const cuDoubleComplex *)STARPU_VECTOR_GET_PTR(buffers[0]);
    const starsolve_complex64_t *g0 = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[2]);
    const starsolve_complex64_t *g1 = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[3]);
    starsolve_complex64_t *y = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[4]);
    SS_CUDA(cudaMemcpyAsync(y, g0 + K, (size_t)K * sizeof *y, cudaMemcpyDeviceToDevice, st));
    SS_CUDA(cudaMemcpyAsync(y + K, g1, (size_t)K * sizeof *y, cudaMemcpyDeviceToDevice, st));
    /* the pivots (2K ints) to the host, then the interchanges as in LAPACK's laswp, in order */
    int *piv = ss_cuda_hwork((size_t)l * sizeof(int));
    SS_CUDA(cudaMemcpyAsync(piv, (const int *)STARPU_VECTOR_GET_PTR(buffers[1]), (size_t)l * sizeof(int),
                            cudaMemcpyDeviceToHost, st));
    SS_CUDA(cudaStreamSynchronize(st));
    starsolve_complex64_t *tmp = (starsolve_complex64_t *)ss_cuda_dwork(sizeof *tmp);
    for (int i = 0; i < l; i++)
        if (piv[i] - 1 != i) {
            SS_CUDA(cudaMemcpyAsync(tmp, y + i, sizeof *y, cudaMemcpyDeviceToDevice, st));
            SS_CUDA(cudaMemcpyAsync(y + i, y + piv[i] - 1, sizeof *y, cudaMemcpyDeviceToDevice, st));
            SS_CUDA(cudaMemcpyAsync(y + piv[i] - 1, tmp, sizeof *y, cudaMemcpyDeviceToDevice, st));
        }
    SS_CUBLAS(cublasZtrsv(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, l, S, l, (cuDoubleComplex *)y, 1));
    SS_CUBLAS(cublasZtrsv(h, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, l, S, l, (cuDoubleComplex *)y, 1));
}

static void zspike_retrieve_cuda(void *buffers[], void *cl_arg)
{
    const struct ss_spike_part *a = cl_arg;
    const int s = a->size, K = a->K;
    const char fp = a->mixed ? prec_low : prec_work;
    cudaStream_t st = ss_cuda_stream();
    cublasHandle_t h = ss_cublas_handle();
    const starsolve_complex64_t *f = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[2]);
    const cuDoubleComplex *tips = (const cuDoubleComplex *)STARPU_VECTOR_GET_PTR(buffers[3]);
    const cuDoubleComplex *yp = (const cuDoubleComplex *)STARPU_VECTOR_GET_PTR(buffers[4]);
    const cuDoubleComplex *yn = (const cuDoubleComplex *)STARPU_VECTOR_GET_PTR(buffers[5]);
    starsolve_complex64_t *x = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[6]);
    void *w = (void *)STARPU_VECTOR_GET_PTR(buffers[7]);
    SS_CUBLAS_SCALAR starsolve_complex64_t one = 1, minus = -1;
    SS_CUDA(cudaMemcpyAsync(x, f, (size_t)s * sizeof *x, cudaMemcpyDeviceToDevice, st));
    if (a->has_prev)
        SS_CUBLAS(cublasZgemv(h, CUBLAS_OP_N, K, K, (const cuDoubleComplex *)&minus, tips + 3 * (size_t)K * K, K, yp, 1,
                              (const cuDoubleComplex *)&one, (cuDoubleComplex *)x, 1));
    if (a->has_next)
        SS_CUBLAS(cublasZgemv(h, CUBLAS_OP_N, K, K, (const cuDoubleComplex *)&minus, tips + 2 * (size_t)K * K, K, yn + K, 1,
                              (const cuDoubleComplex *)&one, (cuDoubleComplex *)x + s - K, 1));
    partition_solve_cuda(a, buffers, x, w, st);
    ss_cuda_spike_convert(prec_work, fp, s, w, x, st);
    /* the scalars above live on this stack frame: wait for the GEMVs before returning */
    SS_CUDA(cudaStreamSynchronize(st));
}

static void zspike_matvec_cuda(void *buffers[], void *cl_arg)
{
    const struct ss_spike_part *a = cl_arg;
    const int s = a->size, K = a->K;
    cudaStream_t st = ss_cuda_stream();
    cublasHandle_t h = ss_cublas_handle();
    const cuDoubleComplex *band = (const cuDoubleComplex *)STARPU_MATRIX_GET_PTR(buffers[0]);
    const cuDoubleComplex *tips = (const cuDoubleComplex *)STARPU_VECTOR_GET_PTR(buffers[1]);
    const cuDoubleComplex *xp = (const cuDoubleComplex *)STARPU_VECTOR_GET_PTR(buffers[2]);
    const cuDoubleComplex *x = (const cuDoubleComplex *)STARPU_VECTOR_GET_PTR(buffers[3]);
    const cuDoubleComplex *xn = (const cuDoubleComplex *)STARPU_VECTOR_GET_PTR(buffers[4]);
    const starsolve_complex64_t *aux = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[5]);
    starsolve_complex64_t *y = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[6]);
    starsolve_complex64_t *part = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[7]);
    const int sp = (int)STARPU_VECTOR_GET_NX(buffers[2]);
    SS_CUBLAS_SCALAR starsolve_complex64_t one = 1, zero = 0, alpha = a->op == SS_MV_RES ? -1 : 1;
    if (a->op == SS_MV_RES)
        SS_CUDA(cudaMemcpyAsync(y, aux, (size_t)s * sizeof *y, cudaMemcpyDeviceToDevice, st));
    SS_CUBLAS(cublasZgbmv(h, CUBLAS_OP_N, s, s, a->kl, a->ku, (const cuDoubleComplex *)&alpha, band, SS_LD(buffers[0]), x, 1,
                          (const cuDoubleComplex *)(a->op == SS_MV_RES ? &one : &zero), (cuDoubleComplex *)y, 1));
    if (a->has_prev)
        SS_CUBLAS(cublasZgemv(h, CUBLAS_OP_N, K, K, (const cuDoubleComplex *)&alpha, tips + 3 * (size_t)K * K, K, xp + sp - K, 1,
                              (const cuDoubleComplex *)&one, (cuDoubleComplex *)y, 1));
    if (a->has_next)
        SS_CUBLAS(cublasZgemv(h, CUBLAS_OP_N, K, K, (const cuDoubleComplex *)&alpha, tips + 2 * (size_t)K * K, K, xn, 1,
                              (const cuDoubleComplex *)&one, (cuDoubleComplex *)y + s - K, 1));
    if (a->op == SS_MV_RES) {
        ss_cuda_spike_reduce(prec_work, 0, s, y, y, part + SS_PART_NORM, st);
    } else if (a->op == SS_MV_V) {
        ss_cuda_spike_reduce(prec_work, 1, s, aux, y, part + SS_PART_RV, st);
    } else {
        ss_cuda_spike_reduce(prec_work, 1, s, y, aux, part + SS_PART_TS, st);
        ss_cuda_spike_reduce(prec_work, 1, s, y, y, part + SS_PART_TT, st);
    }
    SS_CUDA(cudaStreamSynchronize(st));   /* the host scalars above */
}

static void zspike_update_cuda(void *buffers[], void *cl_arg)
{
    const struct ss_spike_part *a = cl_arg;
    const int s = a->size;
    cudaStream_t st = ss_cuda_stream();
    const size_t bytes = (size_t)s * sizeof(starsolve_complex64_t);
#define V(k) ((void *)STARPU_VECTOR_GET_PTR(buffers[k]))
#define SLOT(k, slot) ((starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[k]) + (slot))
    switch (a->op) {
    case SS_UP_INIT:
        SS_CUDA(cudaMemcpyAsync(V(1), V(0), bytes, cudaMemcpyDeviceToDevice, st));
        SS_CUDA(cudaMemsetAsync(V(2), 0, bytes, st));   /* all-zero bytes are 0.0 in IEEE */
        SS_CUDA(cudaMemsetAsync(V(3), 0, bytes, st));
        ss_cuda_spike_reduce(prec_work, 1, s, V(0), V(0), SLOT(4, SS_PART_RHO), st);
        break;
    case SS_UP_P: {
        void *v[6] = { V(0), V(1), V(3), NULL, NULL, NULL };
        ss_cuda_spike_update(prec_work, 1, s, V(2), v, st);
        break;
    }
    case SS_UP_S: {
        void *v[6] = { V(0), V(1), V(3), NULL, NULL, NULL };
        ss_cuda_spike_update(prec_work, 2, s, V(2), v, st);
        break;
    }
    case SS_UP_XR: {
        void *v[6] = { V(0), V(1), V(2), V(3), V(6), V(7) };
        ss_cuda_spike_update(prec_work, 3, s, V(5), v, st);
        ss_cuda_spike_reduce(prec_work, 0, s, V(7), V(7), SLOT(8, SS_PART_NORM), st);
        ss_cuda_spike_reduce(prec_work, 1, s, V(4), V(7), SLOT(8, SS_PART_RHO), st);
        break;
    }
    case SS_UP_COPYIN: {
        const starsolve_complex64_t *B = (const starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[0])
                                         + (size_t)a->col * SS_LD(buffers[0]);
        SS_CUDA(cudaMemcpyAsync(V(1), B, bytes, cudaMemcpyDeviceToDevice, st));
        ss_cuda_spike_reduce(prec_work, 0, s, V(1), V(1), SLOT(2, SS_PART_NORM), st);
        break;
    }
    default: {
        starsolve_complex64_t *B = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[1]) + (size_t)a->col * SS_LD(buffers[1]);
        SS_CUDA(cudaMemcpyAsync(B, V(0), bytes, cudaMemcpyDeviceToDevice, st));
        break;
    }
    }
#undef V
#undef SLOT
}
#endif

/* ---- codelets -------------------------------------------------------------- */

static struct starpu_perfmodel model_zspike_factor = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_zspike_factor2" };
static struct starpu_perfmodel model_zspike_reduced_factor = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_zspike_reduced_factor" };
static struct starpu_perfmodel model_zspike_tipsolve = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_zspike_tipsolve" };
static struct starpu_perfmodel model_zspike_reduced_solve = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_zspike_reduced_solve" };
static struct starpu_perfmodel model_zspike_retrieve = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_zspike_retrieve" };
/* the matvec, update and reduce codelets do different work per operation: the operation is
 * part of their tasks' footprint, beside the partition's size */
static uint32_t footprint_op(struct starpu_task *task)
{
    const struct ss_spike_part *a = task->cl_arg;
    return starpu_hash_crc32c_be(a->op, starpu_hash_crc32c_be(a->size, starpu_hash_crc32c_be(a->nparts, 0)));
}
static struct starpu_perfmodel model_zspike_matvec = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_zspike_matvec",
                                                       .footprint = footprint_op };
static struct starpu_perfmodel model_zspike_update = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_zspike_update",
                                                       .footprint = footprint_op };
static struct starpu_perfmodel model_zspike_reduce = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_zspike_reduce",
                                                       .footprint = footprint_op };

static struct starpu_codelet cl_zspike_factor = {
    .where = SS_WHERE_CPU_CUDA, .cpu_funcs = { zspike_factor_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zspike_factor_cuda }, .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
   
    .nbuffers = 6, .modes = { STARPU_R, STARPU_R, STARPU_R, STARPU_W, STARPU_W, STARPU_W },
    .model = &model_zspike_factor, .name = "zspike_factor", .callback_func = ss_trace_task_done,
};
static struct starpu_codelet cl_zspike_reduced_factor = {
    .where = STARPU_CPU, .cpu_funcs = { zspike_reduced_factor_cpu },
    .nbuffers = 4, .modes = { STARPU_R, STARPU_R, STARPU_W, STARPU_W },
    .model = &model_zspike_reduced_factor, .name = "zspike_reduced_factor", .callback_func = ss_trace_task_done,
};
static struct starpu_codelet cl_zspike_tipsolve = {
    .where = SS_WHERE_CPU_CUDA, .cpu_funcs = { zspike_tipsolve_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zspike_tipsolve_cuda }, .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
   
    .nbuffers = 5, .modes = { STARPU_R, STARPU_R, STARPU_R, STARPU_W, STARPU_SCRATCH },
    .model = &model_zspike_tipsolve, .name = "zspike_tipsolve", .callback_func = ss_trace_task_done,
};
static struct starpu_codelet cl_zspike_reduced_solve = {
    .where = SS_WHERE_CPU_CUDA, .cpu_funcs = { zspike_reduced_solve_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zspike_reduced_solve_cuda }, .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
   
    .nbuffers = 5, .modes = { STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_W },
    .model = &model_zspike_reduced_solve, .name = "zspike_reduced_solve", .callback_func = ss_trace_task_done,
};
static struct starpu_codelet cl_zspike_retrieve = {
    .where = SS_WHERE_CPU_CUDA, .cpu_funcs = { zspike_retrieve_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zspike_retrieve_cuda }, .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
   
    .nbuffers = 8, .modes = { STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_W, STARPU_SCRATCH },
    .model = &model_zspike_retrieve, .name = "zspike_retrieve", .callback_func = ss_trace_task_done,
};
static struct starpu_codelet cl_zspike_matvec = {
    .where = SS_WHERE_CPU_CUDA, .cpu_funcs = { zspike_matvec_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zspike_matvec_cuda }, .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
   
    .nbuffers = 8, .modes = { STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_W, STARPU_RW },
    .model = &model_zspike_matvec, .name = "zspike_matvec", .callback_func = ss_trace_task_done,
};
static struct starpu_codelet cl_zspike_update = {
    .where = SS_WHERE_CPU_CUDA, .cpu_funcs = { zspike_update_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zspike_update_cuda }, .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
   
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &model_zspike_update, .name = "zspike_update", .callback_func = ss_trace_task_done,
};
static struct starpu_codelet cl_zspike_reduce = {
    .where = STARPU_CPU, .cpu_funcs = { zspike_reduce_cpu },
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
                             STARPU_PRIORITY, ss_priority(SS_BUCKET_OTHER, prio),
                             STARPU_NAME, cl->name, STARPU_FLOPS, SS_FLOP_SCALE * flops, 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert %s", cl->name);
}

void insert_zspike_factor(const struct ss_spike_part *part, starpu_data_handle_t band_prev, starpu_data_handle_t band,
                          starpu_data_handle_t band_next, starpu_data_handle_t F, starpu_data_handle_t ipiv,
                          starpu_data_handle_t tips)
{
    struct starpu_data_descr d[6] = { { band_prev, STARPU_R }, { band, STARPU_R }, { band_next, STARPU_R },
                                      { F, STARPU_W }, { ipiv, STARPU_W }, { tips, STARPU_W } };
    double s = part->size, kl = part->kl, ku = part->ku, K = part->K;
    insert(&cl_zspike_factor, args_copy(part, 0), d, 6, 2.0 * s * (kl + 1) * (kl + ku + 1) + 40.0 * K * K * K, 1);
}

void insert_zspike_reduced_factor(const struct ss_spike_part *part, starpu_data_handle_t tips0, starpu_data_handle_t tips1,
                                  starpu_data_handle_t S, starpu_data_handle_t ipivS)
{
    struct starpu_data_descr d[4] = { { tips0, STARPU_R }, { tips1, STARPU_R }, { S, STARPU_W }, { ipivS, STARPU_W } };
    double l = 2.0 * part->K;
    insert(&cl_zspike_reduced_factor, args_copy(part, 0), d, 4, 2.0 / 3 * l * l * l, 1);
}

void insert_zspike_tipsolve(const struct ss_spike_part *part, starpu_data_handle_t F, starpu_data_handle_t ipiv,
                            starpu_data_handle_t f, starpu_data_handle_t gt, starpu_data_handle_t scratch)
{
    struct starpu_data_descr d[5] = { { F, STARPU_R }, { ipiv, STARPU_R }, { f, STARPU_R }, { gt, STARPU_W },
                                      { scratch, STARPU_SCRATCH } };
    insert(&cl_zspike_tipsolve, args_copy(part, 0), d, 5, 2.0 * part->size * (2.0 * part->kl + part->ku + 1), 0);
}

void insert_zspike_reduced_solve(const struct ss_spike_part *part, starpu_data_handle_t S, starpu_data_handle_t ipivS,
                                 starpu_data_handle_t gt0, starpu_data_handle_t gt1, starpu_data_handle_t y)
{
    struct starpu_data_descr d[5] = { { S, STARPU_R }, { ipivS, STARPU_R }, { gt0, STARPU_R }, { gt1, STARPU_R }, { y, STARPU_W } };
    double l = 2.0 * part->K;
    insert(&cl_zspike_reduced_solve, args_copy(part, 0), d, 5, 2.0 * l * l, 1);
}

void insert_zspike_retrieve(const struct ss_spike_part *part, starpu_data_handle_t F, starpu_data_handle_t ipiv,
                            starpu_data_handle_t f, starpu_data_handle_t tips, starpu_data_handle_t y_prev,
                            starpu_data_handle_t y_next, starpu_data_handle_t x, starpu_data_handle_t scratch)
{
    struct starpu_data_descr d[8] = { { F, STARPU_R }, { ipiv, STARPU_R }, { f, STARPU_R }, { tips, STARPU_R },
                                      { y_prev, STARPU_R }, { y_next, STARPU_R }, { x, STARPU_W }, { scratch, STARPU_SCRATCH } };
    insert(&cl_zspike_retrieve, args_copy(part, 0), d, 8, 2.0 * part->size * (2.0 * part->kl + part->ku + 1), 0);
}

void insert_zspike_matvec(const struct ss_spike_part *part, int op, starpu_data_handle_t band, starpu_data_handle_t tips,
                          starpu_data_handle_t x_prev, starpu_data_handle_t x, starpu_data_handle_t x_next,
                          starpu_data_handle_t aux, starpu_data_handle_t out, starpu_data_handle_t partial)
{
    struct starpu_data_descr d[8] = { { band, STARPU_R }, { tips, STARPU_R }, { x_prev, STARPU_R }, { x, STARPU_R },
                                      { x_next, STARPU_R }, { aux, STARPU_R }, { out, STARPU_W }, { partial, STARPU_RW } };
    insert(&cl_zspike_matvec, args_copy(part, op), d, 8, 2.0 * part->size * (part->kl + part->ku + 3), 0);
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
    };
    static const int count[] = { [SS_UP_INIT] = 5, [SS_UP_P] = 4, [SS_UP_S] = 4, [SS_UP_XR] = 9,
                                 [SS_UP_COPYIN] = 3, [SS_UP_COPYOUT] = 2 };
    STARPU_ASSERT(nh == count[op]);
    struct starpu_data_descr d[9];
    for (int k = 0; k < nh; k++)
        d[k] = (struct starpu_data_descr){ h[k], modes[op][k] };
    struct ss_spike_part *a = args_copy(part, op);
    a->col = col;
    insert(&cl_zspike_update, a, d, nh, 8.0 * part->size, 0);
}

void insert_zspike_reduce(const struct ss_spike_part *part, int op, const starpu_data_handle_t *partials,
                          starpu_data_handle_t scalars)
{
    int p = part->nparts;
    struct starpu_data_descr *d = malloc(((size_t)p + 1) * sizeof *d);
    for (int i = 0; i < p; i++)
        d[i] = (struct starpu_data_descr){ partials[i], STARPU_R };
    d[p] = (struct starpu_data_descr){ scalars, STARPU_RW };
    insert(&cl_zspike_reduce, args_copy(part, op), d, p + 1, 8.0 * p, 2);
    free(d);
}
