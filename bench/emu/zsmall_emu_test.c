/* The small-size batched kernels through their host emulation (bench/emu/small_emu.cc),
 * one precision (generic source, scripts/genprec.sh): every shape 1..64 square and a set of
 * rectangular ones where the library uses them (batched_small.cuh's small_most_order), padded
 * strided batches with a singular (getrf) / not positive definite (potrf L and U) /
 * zero-subcolumn (geqrf) member; each member's backward error <= 30,
 * LAPACK's info, the padding and the other triangle untouched, getrf's ipiv equal to
 * LAPACK's (random matrices: no ties); then the tiled kernels' sizes, and the register panels of
 * the LU and Cholesky in panels of 16 and 32 columns (with the GEMMs between panels on the host).
 * Built and run by bench/emu/run.sh. */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lapacke.h>
#include <cuda_runtime_api.h>
#include "check.h"

void ss_cuda_zbatch_getrf_small(int m, int n, void *A, int lda, long long sA, int *ipiv, long long sP, int *info,
                                int count, cudaStream_t stream);
void ss_cuda_zbatch_potrf_small(int n, int upper, void *A, int lda, long long sA, int *info, int count,
                                cudaStream_t stream);
void ss_cuda_zbatch_geqrf_small(int m, int n, void *A, int lda, long long sA, void *tau, long long sT, int *info,
                                int count, cudaStream_t stream);

int ss_cuda_zbatch_getrf_tiled_fits(int m, int n);
int ss_cuda_zbatch_potrf_tiled_plan(int n, int large, int *ch);
void ss_cuda_zbatch_getrf_tiled(int m, int n, void *A, int lda, long long sA, int *ipiv, long long sP, int *info,
                                int count, cudaStream_t stream);
void ss_cuda_zbatch_potrf_tiled_all(int n, int upper, void *A, int lda, long long sA, int *info, int count);
int ss_cuda_batch_small_taken(int op, int m, int n, size_t es, int complex_arith);
/* codelets.h's (not included here: no StarPU in this build) */
#if defined(STARSOLVE_PRECISION_Z) || defined(STARSOLVE_PRECISION_C)
#define SS_COMPLEX_ARITH 1
#else
#define SS_COMPLEX_ARITH 0
#endif
int ss_cuda_zbatch_getrf_regpanel_all(int m, int n, int nb, void *A, int lda, long long sA, int *ipiv, long long sP,
                                      int *info, int count);
int ss_cuda_zbatch_potrf_regpanel_all(int n, int nb, int upper, void *A, int lda, long long sA, int *info, int count);

static int failures, checks, tiled_checks, regpanel_checks;
static int regpanel_nb;   /* > 0: the register panels of that width (and the host's GEMMs) instead */

/* the dispatch of zbatched_cuda.c (nb 0) between the tiled and the small kernels; 0: neither */
static int do_getrf(int m, int n, void *A, int lda, long long sA, int *ipiv, long long sP, int *info, int count)
{
    if (regpanel_nb > 0) {
        int done = ss_cuda_zbatch_getrf_regpanel_all(m, n, regpanel_nb, A, lda, sA, ipiv, sP, info, count);
        regpanel_checks += done;
        return done;
    }
    if (ss_cuda_zbatch_getrf_tiled_fits(m, n)) {
        ss_cuda_zbatch_getrf_tiled(m, n, A, lda, sA, ipiv, sP, info, count, NULL);
        tiled_checks++;
        return 1;
    }
    if (!ss_cuda_batch_small_taken(0, m, n, sizeof(starsolve_complex64_t), SS_COMPLEX_ARITH))
        return 0;
    ss_cuda_zbatch_getrf_small(m, n, A, lda, sA, ipiv, sP, info, count, NULL);
    return 1;
}

static int do_potrf(int n, int upper, void *A, int lda, long long sA, int *info, int count)
{
    int ch;
    if (regpanel_nb > 0) {
        int done = ss_cuda_zbatch_potrf_regpanel_all(n, regpanel_nb, upper, A, lda, sA, info, count);
        regpanel_checks += done;
        return done;
    }
    if (ss_cuda_zbatch_potrf_tiled_plan(n, 0, &ch) > 0) {
        ss_cuda_zbatch_potrf_tiled_all(n, upper, A, lda, sA, info, count);
        tiled_checks++;
        return 1;
    }
    if (!ss_cuda_batch_small_taken(1, n, n, sizeof(starsolve_complex64_t), SS_COMPLEX_ARITH))
        return 0;
    ss_cuda_zbatch_potrf_small(n, upper, A, lda, sA, info, count, NULL);
    return 1;
}

static void verdict(int ok, const char *what, int m, int n, double worst, const char *why)
{
    checks++;
    if (!ok) {
        failures++;
        printf("FAIL %s m=%d n=%d: worst %.3g %s\n", what, m, n, worst, why);
    }
}

static double worse(double w, double r) { return r > w || r != r ? r : w; }

static int padding_kept(const starsolve_complex64_t *A0, const starsolve_complex64_t *A, int m, int n, int lda,
                        long sA, int batch)
{
    for (long e = 0; e < sA * batch; e++) {
        long inside = e % sA, col = inside / lda, row = inside % lda;
        if ((col >= n || row >= m) && memcmp(&A0[e], &A[e], sizeof *A) != 0)
            return 0;
    }
    return 1;
}

static void test_getrf(int m, int n)
{
    int batch = 5, lda = m + 1, k = m < n ? m : n, bad = 2, zc = k / 2;
    long sA = (long)lda * n + 3, sP = k + 2;
    starsolve_complex64_t *A0 = calloc(sA * batch, sizeof *A0), *A = calloc(sA * batch, sizeof *A);
    starsolve_complex64_t *R = calloc((size_t)m * n, sizeof *R);
    int *ipiv = calloc(sP * batch, sizeof *ipiv), *info = calloc(batch, sizeof *info), *rpiv = calloc(k, sizeof *rpiv);
    for (int b = 0; b < batch; b++)
        gen_zmatrix(m, n, A0 + b * sA, lda, 900 + b + 37 * m + n);
    for (int i = 0; i < m; i++)
        A0[bad * sA + i + (size_t)zc * lda] = 0;
    memcpy(A, A0, sA * batch * sizeof *A);
    if (!do_getrf(m, n, A, lda, sA, ipiv, sP, info, batch)) {
        free(A0); free(A); free(R); free(ipiv); free(info); free(rpiv);
        return;
    }
    double worst = 0;
    int ok = info[bad] >= 1 && info[bad] <= zc + 1, piv_same = 1;
    for (int b = 0; b < batch; b++) {
        if (b == bad)
            continue;
        ok &= info[b] == 0;
        worst = worse(worst, check_zgetrf(m, n, A0 + b * sA, lda, A + b * sA, lda, ipiv + b * sP, 1));
        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', m, n, A0 + b * sA, lda, R, m);
        LAPACKE_zgetrf(LAPACK_COL_MAJOR, m, n, R, m, rpiv);
        piv_same &= memcmp(rpiv, ipiv + b * sP, k * sizeof *rpiv) == 0;
    }
    for (int b = 0; b < batch; b++)   /* the gap after ipiv untouched */
        ok &= ipiv[b * sP + k] == 0 && ipiv[b * sP + k + 1] == 0;
    int kept = padding_kept(A0, A, m, n, lda, sA, batch);
    verdict(ok && kept && piv_same && worst <= 30, "zgetrf", m, n, worst,
            !ok ? "info or ipiv gap" : !kept ? "padding" : !piv_same ? "ipiv differs from LAPACK" : "berr");
    free(A0); free(A); free(R); free(ipiv); free(info); free(rpiv);
}

static void test_potrf(char uplo, int n)
{
    int batch = 5, lda = n + 2, bad = 4, j = n / 2;
    long sA = (long)lda * n + 1;
    starsolve_complex64_t *A0 = calloc(sA * batch, sizeof *A0), *A = calloc(sA * batch, sizeof *A);
    int *info = calloc(batch, sizeof *info);
    for (int b = 0; b < batch; b++)
        gen_zhpd(n, A0 + b * sA, lda, 700 + b + 31 * n);
    A0[bad * sA + j + (size_t)j * lda] = -100.0 * n;
    memcpy(A, A0, sA * batch * sizeof *A);
    for (int b = 0; b < batch; b++)
        info[b] = -7;   /* every path writes every info */
    if (!do_potrf(n, uplo == 'U', A, lda, sA, info, batch)) {
        free(A0); free(A); free(info);
        return;
    }
    double worst = 0;
    int ok = info[bad] == j + 1, other = 1;
    for (int b = 0; b < batch; b++) {
        for (int c = 0; c < n; c++)
            for (int r = 0; r < n; r++)
                if ((uplo == 'L' ? r < c : r > c) &&
                    memcmp(&A0[b * sA + r + (size_t)c * lda], &A[b * sA + r + (size_t)c * lda], sizeof *A))
                    other = 0;
        if (b != bad) {
            ok &= info[b] == 0;
            worst = worse(worst, check_zpotrf(uplo, n, A0 + b * sA, lda, A + b * sA, lda, 1));
        }
    }
    int kept = padding_kept(A0, A, n, n, lda, sA, batch);
    verdict(ok && kept && other && worst <= 30, uplo == 'L' ? "zpotrf L" : "zpotrf U", n, n, worst,
            !ok ? "info" : !kept ? "padding" : !other ? "other triangle" : "berr");
    free(A0); free(A); free(info);
}

static void test_geqrf(int m, int n)
{
    int batch = 5, lda = m + 1, k = m < n ? m : n, bad = 1;
    if (!ss_cuda_batch_small_taken(2, m, n, sizeof(starsolve_complex64_t), SS_COMPLEX_ARITH))
        return;   /* the panel path's (not emulated) */
    long sA = (long)lda * n + 2, sT = k + 1;
    starsolve_complex64_t *A0 = calloc(sA * batch, sizeof *A0), *A = calloc(sA * batch, sizeof *A);
    starsolve_complex64_t *tau = calloc(sT * batch, sizeof *tau), *Q = calloc((size_t)m * k, sizeof *Q);
    starsolve_complex64_t *R = calloc((size_t)m * n, sizeof *R), *rtau = calloc(k, sizeof *rtau);
    int *info = calloc(batch, sizeof *info);
    for (int b = 0; b < batch; b++)
        gen_zmatrix(m, n, A0 + b * sA, lda, 800 + b + 29 * m + n);
    for (int i = 1; i < m; i++)   /* a first column zero below the diagonal: larfg's xnorm = 0 */
        A0[bad * sA + i] = 0;
    memcpy(A, A0, sA * batch * sizeof *A);
    for (int b = 0; b < batch; b++)
        info[b] = -7;
    ss_cuda_zbatch_geqrf_small(m, n, A, lda, sA, tau, sT, info, batch, NULL);
    double worst = 0, worst_orth = 0, tdiff = 0;
    int ok = 1;
    for (int b = 0; b < batch; b++) {
        double orth;
        ok &= info[b] == 0 && tau[b * sT + k] == 0;
        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', m, k, A + b * sA, lda, Q, m);
        LAPACKE_zungqr(LAPACK_COL_MAJOR, m, k, k, Q, m, tau + b * sT);
        worst = worse(worst, check_zgeqrf(m, n, A0 + b * sA, lda, A + b * sA, lda, Q, m, &orth));
        worst_orth = worse(worst_orth, orth);
        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', m, n, A0 + b * sA, lda, R, m);
        LAPACKE_zgeqrf(LAPACK_COL_MAJOR, m, n, R, m, rtau);
        for (int i = 0; i < k; i++)   /* tau as LAPACK's larfg makes it */
            tdiff = worse(tdiff, cabs(rtau[i] - tau[b * sT + i]));
    }
    int kept = padding_kept(A0, A, m, n, lda, sA, batch);
    verdict(ok && kept && worst <= 30 && worst_orth <= 30 && tdiff < 1e-3, "zgeqrf", m, n, worse(worst, worst_orth),
            !ok ? "info or tau gap" : !kept ? "padding" : tdiff >= 1e-3 ? "tau differs from LAPACK's" : "berr");
    free(A0); free(A); free(tau); free(Q); free(R); free(rtau); free(info);
}

int test_zsmall_emu(void)
{
    static const int shapes[][2] = { { 2, 1 }, { 1, 2 }, { 32, 5 }, { 5, 32 }, { 17, 9 }, { 9, 17 }, { 32, 31 },
                                     { 31, 32 }, { 8, 16 }, { 16, 8 }, { 20, 3 }, { 3, 20 },
                                     { 64, 33 }, { 33, 64 }, { 64, 63 }, { 63, 64 }, { 50, 7 }, { 7, 50 } };
    failures = checks = tiled_checks = regpanel_checks = 0;
    const int most = 64;   /* the small kernels' reach (where they are used: the calls' guards) */
    for (int n = 1; n <= most; n++) {
        test_getrf(n, n);
        test_potrf('L', n);
        test_potrf('U', n);
        test_geqrf(n, n);
    }
    for (size_t t = 0; t < sizeof shapes / sizeof *shapes; t++) {
        test_getrf(shapes[t][0], shapes[t][1]);
        test_geqrf(shapes[t][0], shapes[t][1]);
    }
    /* the tiled kernels' sizes (and, with STARSOLVE_BATCH_TILED_FROM lowered, the ones above too) */
    static const int mid[] = { 40, 48, 57, 64, 65, 72, 100, 127, 128, 129, 150, 200, 257, 300 };
    static const int mid_shapes[][2] = { { 128, 100 }, { 100, 128 }, { 40, 128 }, { 128, 40 }, { 65, 33 },
                                         { 33, 65 }, { 64, 9 }, { 9, 64 } };
    for (size_t t = 0; t < sizeof mid / sizeof *mid; t++) {
        if (mid[t] > most) {
            test_getrf(mid[t], mid[t]);
            test_potrf('L', mid[t]);
            test_potrf('U', mid[t]);
        }
    }
    for (size_t t = 0; t < sizeof mid_shapes / sizeof *mid_shapes; t++)
        test_getrf(mid_shapes[t][0], mid_shapes[t][1]);
    /* the register panels of the larger sizes, with panels of 16 and 32 columns (z: 16 only) */
    static const int reg_sizes[] = { 1, 7, 16, 33, 64, 100, 129, 200 };
    static const int reg_shapes[][2] = { { 128, 100 }, { 100, 128 }, { 40, 128 }, { 128, 40 }, { 300, 20 } };
    for (regpanel_nb = 16; regpanel_nb <= 32; regpanel_nb *= 2) {
        for (size_t t = 0; t < sizeof reg_sizes / sizeof *reg_sizes; t++) {
            test_getrf(reg_sizes[t], reg_sizes[t]);
            test_potrf('L', reg_sizes[t]);
            test_potrf('U', reg_sizes[t]);
        }
        for (size_t t = 0; t < sizeof reg_shapes / sizeof *reg_shapes; t++)
            test_getrf(reg_shapes[t][0], reg_shapes[t][1]);
    }
    regpanel_nb = 0;
    printf("small_emu precision z: %d checks (%d through the tiled kernels, %d through the register panels), "
           "%d failed\n", checks, tiled_checks, regpanel_checks, failures);
    return failures;
}
