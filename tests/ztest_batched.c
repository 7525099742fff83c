/* Batched routine tests of one precision (generic source, see scripts/genprec.sh).
 *
 * For sizes 1, 7, 32, 33, 100 and 512 (and rectangular shapes), a strided batch
 * with padding between matrices (lda > m, strideA > lda n) is factored, and
 * each member is judged alone against the residual bounds of checks/ (<= 30):
 * getrf + getrs, potrf (L and U) + potrs, geqrf (+ geqrs when m >= n). One member
 * is singular (a zero column) or not positive definite: its info must be
 * LAPACK's and the others must not suffer; the gaps of ipiv and tau between members
 * stay the caller's. Chunks of 1, 3 and automatic size. With STARSOLVE_TEST_GPUS=1 the
 * scheduler shares the chunks with the CUDA worker (our kernels; bench/batched_gpu -test
 * runs them on every chunk, outside StarPU).
 * The variable-size routines (vbatched) get a mix of shapes from 0 x 0 to 90 x 76. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include <lapacke.h>
#include "../tests/testing.h"

static int batch_for(int n) { return n <= 33 ? 12 : n <= 100 ? 6 : 3; }

static void lu_batch(int m, int n, int nrhs, int chunk)
{
    int batch = batch_for(m > n ? m : n), lda = m + 1, k = m < n ? m : n, bad = batch / 2;
    long sA = (long)lda * n + 3, sP = k + 2, sB = (long)(n + 1) * nrhs + 1;
    starsolve_complex64_t *A0 = testing_alloc((size_t)sA * batch * sizeof *A0), *A = testing_alloc((size_t)sA * batch * sizeof *A);
    starsolve_complex64_t *B0 = testing_alloc((size_t)sB * batch * sizeof *B0), *X = testing_alloc((size_t)sB * batch * sizeof *X);
    int *ipiv = testing_alloc((size_t)sP * batch * sizeof *ipiv), *info = testing_alloc((size_t)batch * sizeof *info);
    for (int b = 0; b < batch; b++) {
        gen_zmatrix(m, n, A0 + b * sA, lda, 900 + b);
        gen_zmatrix(n, nrhs, B0 + b * sB, n + 1, 950 + b);
    }
    int zero_col = k / 2;
    for (int i = 0; i < m; i++)
        A0[bad * sA + i + (size_t)zero_col * lda] = 0;   /* member `bad`: U(zero_col, zero_col) = 0 */
    memcpy(A, A0, (size_t)sA * batch * sizeof *A);
    starsolve_set_batch_chunk(chunk);
    int ret = starsolve_zgetrf_batched(m, n, A, lda, sA, ipiv, sP, info, batch);
    int worst_info = 0;
    double worst = 0;
    for (int b = 0; b < batch; b++) {
        if (b == bad)
            continue;
        worst_info |= info[b];
        double r = check_zgetrf(m, n, A0 + b * sA, lda, A + b * sA, lda, ipiv + b * sP, 1);
        worst = r > worst || isnan(r) ? r : worst;
    }
    int gaps_kept = 1;   /* ipiv between members (stride > k) is the caller's: still zero */
    for (int b = 0; b + 1 < batch; b++)
        for (long g = k; g < sP; g++)
            gaps_kept &= ipiv[b * sP + g] == 0;
    TEST_CHECK(gaps_kept, "starsolve_zgetrf_batched m=%d n=%d chunk=%d: the pivots' gaps between members untouched",
               m, n, chunk);
    TEST_CHECK(ret == 0 && worst_info == 0 && check_passes(worst) && info[bad] == zero_col + 1,
               "starsolve_zgetrf_batched m=%d n=%d batch=%d chunk=%d: ret %d, worst ||PA-LU||/(||A|| n eps) = %.3g, "
               "infos of the good members %s, singular member's info %d (want %d: its column stays zero)", m, n, batch,
               chunk, ret, worst, worst_info ? "not 0" : "0", info[bad], zero_col + 1);
    for (const char *trans = "NTC"; m == n && *trans; trans++) {
        memcpy(X, B0, (size_t)sB * batch * sizeof *X);
        ret = starsolve_zgetrs_batched(*trans, n, nrhs, A, lda, sA, ipiv, sP, X, n + 1, sB, batch);
        worst = 0;
        for (int b = 0; b < batch; b++)
            if (b != bad) {
                double r = check_zsolve(*trans, n, nrhs, A0 + b * sA, lda, X + b * sB, n + 1, B0 + b * sB, n + 1);
                worst = r > worst || isnan(r) ? r : worst;
            }
        TEST_CHECK(ret == 0 && check_passes(worst), "starsolve_zgetrs_batched trans=%c n=%d nrhs=%d batch=%d: ret %d, "
                   "worst resid %.3g", *trans, n, nrhs, batch, ret, worst);
    }
    free(A0); free(A); free(B0); free(X); free(ipiv); free(info);
}

/* LAPACK's pivot: izamax's first largest |re| + |im| (|a| in real precisions). Column 0 holds 3 + 3i and 5: the
 * first is larger by |re| + |im| (6), the second by modulus (5) and by real part */
static void lu_pivot_choice(void)
{
    starsolve_complex64_t A[4] = { 3, 5, 1, 2 };
    int ipiv[2] = { 0, 0 }, info = -1, want = 2;
#if defined(STARSOLVE_PRECISION_Z) || defined(STARSOLVE_PRECISION_C)
    A[0] += 3 * I;
    want = 1;
#endif
    int ret = starsolve_zgetrf_batched(2, 2, A, 2, 4, ipiv, 2, &info, 1);
    TEST_CHECK(ret == 0 && info == 0 && ipiv[0] == want, "starsolve_zgetrf_batched 2 x 2: ret %d, info %d, first pivot "
               "row %d (want %d, izamax's)", ret, info, ipiv[0], want);
}

static void chol_batch(char uplo, int n, int nrhs, int chunk)
{
    int batch = batch_for(n), lda = n + 2, bad = batch - 1;
    long sA = (long)lda * n + 1, sB = (long)n * nrhs + 2;
    starsolve_complex64_t *A0 = testing_alloc((size_t)sA * batch * sizeof *A0), *A = testing_alloc((size_t)sA * batch * sizeof *A);
    starsolve_complex64_t *B0 = testing_alloc((size_t)sB * batch * sizeof *B0), *X = testing_alloc((size_t)sB * batch * sizeof *X);
    int *info = testing_alloc((size_t)batch * sizeof *info);
    for (int b = 0; b < batch; b++) {
        gen_zhpd(n, A0 + b * sA, lda, 700 + b);
        gen_zmatrix(n, nrhs, B0 + b * sB, n, 750 + b);
    }
    int j = n / 2;
    A0[bad * sA + j + (size_t)j * lda] = -100.0 * n;   /* leading minor j+1 is not positive definite */
    memcpy(A, A0, (size_t)sA * batch * sizeof *A);
    starsolve_set_batch_chunk(chunk);
    int ret = starsolve_zpotrf_batched(uplo, n, A, lda, sA, info, batch);
    int worst_info = 0;
    double worst = 0;
    for (int b = 0; b < batch - 1; b++) {
        worst_info |= info[b];
        double r = check_zpotrf(uplo, n, A0 + b * sA, lda, A + b * sA, lda, 1);
        worst = r > worst || isnan(r) ? r : worst;
    }
    TEST_CHECK(ret == 0 && worst_info == 0 && check_passes(worst) && info[bad] == j + 1,
               "starsolve_zpotrf_batched uplo=%c n=%d batch=%d chunk=%d: ret %d, worst ||A-LL^H||/(||A|| n eps) = %.3g, "
               "good infos %s, non-SPD member's info %d (want %d)", uplo, n, batch, chunk, ret, worst,
               worst_info ? "not 0" : "0", info[bad], j + 1);
    /* as LAPACK: the other triangle, the rows past n and the gaps between members as they were */
    long changed = 0;
    for (int b = 0; b < batch; b++)
        for (long e = 0; e < sA; e++) {
            long r = e % lda, c = e / lda;
            int factor = c < n && r < n && (uplo == 'L' ? r >= c : r <= c);
            changed += !factor && A[b * sA + e] != A0[b * sA + e];
        }
    TEST_CHECK(changed == 0, "starsolve_zpotrf_batched uplo=%c n=%d chunk=%d: %ld elements outside the factor changed",
               uplo, n, chunk, changed);
    memcpy(X, B0, (size_t)sB * batch * sizeof *X);
    ret = starsolve_zpotrs_batched(uplo, n, nrhs, A, lda, sA, X, n, sB, batch - 1);
    worst = 0;
    for (int b = 0; b < batch - 1; b++) {
        double r = check_zsolve('N', n, nrhs, A0 + b * sA, lda, X + b * sB, n, B0 + b * sB, n);
        worst = r > worst || isnan(r) ? r : worst;
    }
    TEST_CHECK(ret == 0 && check_passes(worst), "starsolve_zpotrs_batched uplo=%c n=%d nrhs=%d: ret %d, worst resid %.3g",
               uplo, n, nrhs, ret, worst);
    free(A0); free(A); free(B0); free(X); free(info);
}

static void qr_batch(int m, int n, int nrhs, int chunk)
{
    const starsolve_complex64_t one = 1.0, zero = 0.0;
    int batch = batch_for(m > n ? m : n), lda = m + 1, k = m < n ? m : n;
    long sA = (long)lda * n + 2, sT = k + 1, sB = (long)m * nrhs + 1;
    starsolve_complex64_t *A0 = testing_alloc((size_t)sA * batch * sizeof *A0), *A = testing_alloc((size_t)sA * batch * sizeof *A);
    starsolve_complex64_t *tau = testing_alloc((size_t)sT * batch * sizeof *tau), *Q = testing_alloc((size_t)m * (k + 1) * sizeof *Q);
    starsolve_complex64_t *B0 = testing_alloc((size_t)sB * batch * sizeof *B0), *X = testing_alloc((size_t)sB * batch * sizeof *X);
    starsolve_complex64_t *Xt = testing_alloc((size_t)(n + 1) * nrhs * sizeof *Xt);
    int *info = testing_alloc((size_t)batch * sizeof *info);
    for (int b = 0; b < batch; b++)
        gen_zmatrix(m, n, A0 + b * sA, lda, 800 + b);
    memcpy(A, A0, (size_t)sA * batch * sizeof *A);
    starsolve_set_batch_chunk(chunk);
    int ret = starsolve_zgeqrf_batched(m, n, A, lda, sA, tau, sT, info, batch);
    int worst_info = 0;
    double worst = 0, worst_orth = 0;
    for (int b = 0; b < batch; b++) {
        worst_info |= info[b];
        /* Q from LAPACK's ungqr on our factors: they are LAPACK's layout */
        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', m, k, A + b * sA, lda, Q, m);
        LAPACKE_zungqr(LAPACK_COL_MAJOR, m, k, k, Q, m, tau + b * sT);
        double orth, r = check_zgeqrf(m, n, A0 + b * sA, lda, A + b * sA, lda, Q, m, &orth);
        worst = r > worst || isnan(r) ? r : worst;
        worst_orth = orth > worst_orth || isnan(orth) ? orth : worst_orth;
    }
    int gaps_kept = 1;   /* tau between members (stride > k) is the caller's: still zero */
    for (int b = 0; b + 1 < batch; b++)
        for (long g = k; g < sT; g++)
            gaps_kept &= tau[b * sT + g] == 0;
    TEST_CHECK(gaps_kept, "starsolve_zgeqrf_batched m=%d n=%d chunk=%d: tau's gaps between members untouched",
               m, n, chunk);
    TEST_CHECK(ret == 0 && worst_info == 0 && check_passes(worst) && check_passes(worst_orth),
               "starsolve_zgeqrf_batched m=%d n=%d batch=%d chunk=%d: ret %d, worst ||A-QR||/(||A|| n eps) = %.3g, "
               "worst ||I-Q^HQ||/(n eps) = %.3g", m, n, batch, chunk, ret, worst, worst_orth);
    if (m >= n) {   /* geqrs on consistent systems B = A Xt */
        for (int b = 0; b < batch; b++) {
            gen_zmatrix(n, nrhs, Xt, n, 850 + b);
            cblas_zgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, nrhs, n, CBLAS_SADDR(one), A0 + b * sA, lda, Xt, n,
                        CBLAS_SADDR(zero), B0 + b * sB, m);
        }
        memcpy(X, B0, (size_t)sB * batch * sizeof *X);
        ret = starsolve_zgeqrs_batched(m, n, nrhs, A, lda, sA, tau, sT, X, m, sB, batch);
        worst = 0;
        for (int b = 0; b < batch; b++) {
            double second, r = check_zgels('N', m, n, nrhs, A0 + b * sA, lda, X + b * sB, m, B0 + b * sB, m, &second);
            worst = r > worst || isnan(r) ? r : worst;
        }
        TEST_CHECK(ret == 0 && check_passes(worst), "starsolve_zgeqrs_batched m=%d n=%d nrhs=%d: ret %d, worst "
                   "||B-AX||/(||A|| ||X|| max(m,n) eps) = %.3g", m, n, nrhs, ret, worst);
    }
    free(A0); free(A); free(tau); free(Q); free(B0); free(X); free(Xt); free(info);
}

/* variable sizes: a mix from 0 to 90, or (repeats) a few shapes each many times (runs of equal shapes once
 * the packed path sorts them), one failing member per op; Cholesky on the uplo triangle */
static void vbatched(int chunk, int repeats, char uplo)
{
    enum { B = 23 };
    static const int rm[4] = { 7, 33, 1, 20 }, rn[4] = { 7, 12, 1, 33 };
    int m[B], n[B], lda[B], info[B], sq[B];
    starsolve_complex64_t *A0[B], *A[B], *tau[B];
    int *ipiv[B];
    for (int b = 0; b < B; b++) {
        m[b] = repeats ? rm[b % 4] : (b * 37) % 91;
        n[b] = b % 3 == 0 ? m[b] : repeats ? rn[(b / 4) % 4] : (b * 53) % 77;
        sq[b] = m[b];
        lda[b] = (m[b] > 1 ? m[b] : 1) + b % 2;   /* LAPACK: lda >= max(1, m), also for m = 0 */
        A0[b] = testing_alloc(((size_t)lda[b] * (m[b] > n[b] ? m[b] : n[b]) + 1) * sizeof **A0);
        A[b] = testing_alloc(((size_t)lda[b] * (m[b] > n[b] ? m[b] : n[b]) + 1) * sizeof **A);
        tau[b] = testing_alloc(((size_t)(m[b] < n[b] ? m[b] : n[b]) + 1) * sizeof **tau);
        ipiv[b] = testing_alloc(((size_t)(m[b] < n[b] ? m[b] : n[b]) + 1) * sizeof **ipiv);
    }
    starsolve_set_batch_chunk(chunk);
    /* getrf: member 5 gets a zero first column */
    for (int b = 0; b < B; b++) {
        gen_zmatrix(m[b], n[b], A0[b], lda[b], 300 + b);
        if (b == 5)
            for (int i = 0; i < m[b]; i++) A0[b][i] = 0;
        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', m[b], n[b], A0[b], lda[b], A[b], lda[b]);
    }
    int ret = starsolve_zgetrf_vbatched(m, n, A, lda, ipiv, info, B);
    double worst = 0;
    int infos_ok = 1;
    for (int b = 0; b < B && ret == 0; b++) {   /* no checks on pivots never written */
        if (b == 5) { infos_ok &= info[b] == 1; continue; }
        infos_ok &= info[b] == 0;
        double r = check_zgetrf(m[b], n[b], A0[b], lda[b], A[b], lda[b], ipiv[b], 1);
        worst = r > worst || isnan(r) ? r : worst;
    }
    TEST_CHECK(ret == 0 && infos_ok && check_passes(worst), "starsolve_zgetrf_vbatched %d sizes 0..90 chunk=%d pack=%d repeats=%d: "
               "ret %d, infos %s (member 5 singular: info %d), worst ||PA-LU||/(||A|| n eps) = %.3g", B, chunk,
               starsolve_get_batch_pack(), repeats, ret,
               infos_ok ? "right" : "WRONG", info[5], worst);
    /* potrf on square members (orders m[b]); member 7 is not positive definite at its middle */
    for (int b = 0; b < B; b++) {
        gen_zhpd(sq[b], A0[b], lda[b], 400 + b);
        if (b == 7) A0[b][sq[b] / 2 + (size_t)(sq[b] / 2) * lda[b]] = -1000.0;
        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', sq[b], sq[b], A0[b], lda[b], A[b], lda[b]);
    }
    ret = starsolve_zpotrf_vbatched(uplo, sq, A, lda, info, B);
    worst = 0;
    infos_ok = 1;
    for (int b = 0; b < B && ret == 0; b++) {
        if (b == 7) { infos_ok &= info[b] == sq[b] / 2 + 1; continue; }
        infos_ok &= info[b] == 0;
        double r = check_zpotrf(uplo, sq[b], A0[b], lda[b], A[b], lda[b], 1);
        worst = r > worst || isnan(r) ? r : worst;
    }
    TEST_CHECK(ret == 0 && infos_ok && check_passes(worst), "starsolve_zpotrf_vbatched uplo=%c %d orders 0..90 chunk=%d "
               "pack=%d repeats=%d: ret %d, infos %s (member 7: info %d, want %d), worst ||A-LL^H||/(||A|| n eps) = %.3g",
               uplo, B, chunk, starsolve_get_batch_pack(), repeats, ret,
               infos_ok ? "right" : "WRONG", info[7], sq[7] / 2 + 1, worst);
    /* geqrf */
    for (int b = 0; b < B; b++) {
        gen_zmatrix(m[b], n[b], A0[b], lda[b], 500 + b);
        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', m[b], n[b], A0[b], lda[b], A[b], lda[b]);
    }
    ret = starsolve_zgeqrf_vbatched(m, n, A, lda, tau, info, B);
    worst = 0;
    infos_ok = 1;
    for (int b = 0; b < B && ret == 0; b++) {
        int k = m[b] < n[b] ? m[b] : n[b];
        infos_ok &= info[b] == 0;
        if (k == 0) continue;
        starsolve_complex64_t *Q = testing_alloc((size_t)m[b] * k * sizeof *Q);
        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', m[b], k, A[b], lda[b], Q, m[b]);
        LAPACKE_zungqr(LAPACK_COL_MAJOR, m[b], k, k, Q, m[b], tau[b]);
        double orth, r = check_zgeqrf(m[b], n[b], A0[b], lda[b], A[b], lda[b], Q, m[b], &orth);
        r = orth > r ? orth : r;
        worst = r > worst || isnan(r) ? r : worst;
        free(Q);
    }
    TEST_CHECK(ret == 0 && infos_ok && check_passes(worst), "starsolve_zgeqrf_vbatched %d shapes chunk=%d pack=%d repeats=%d: "
               "ret %d, worst of ||A-QR||/(||A|| n eps) and ||I-Q^HQ||/(n eps) = %.3g", B, chunk, starsolve_get_batch_pack(),
               repeats, ret, worst);
    for (int b = 0; b < B; b++) {
        free(A0[b]); free(A[b]); free(tau[b]); free(ipiv[b]);
    }
    /* every member empty (min(m, n) = 0): nothing to factor, every info 0 */
    {
        int em[2] = { 0, 4 }, en[2] = { 3, 0 }, elda[2] = { 1, 4 }, einfo[2] = { 7, 7 }, epiv[4];
        starsolve_complex64_t cell[16], *eA[2] = { cell, cell };
        int *eipiv[2] = { epiv, epiv };
        int ret = starsolve_zgetrf_vbatched(em, en, eA, elda, eipiv, einfo, 2);
        TEST_CHECK(ret == 0 && einfo[0] == 0 && einfo[1] == 0, "zgetrf_vbatched every member empty: ret %d, infos %d %d",
                   ret, einfo[0], einfo[1]);
        int zero[2] = { 0, 0 };
        einfo[0] = einfo[1] = 7;
        ret = starsolve_zpotrf_vbatched('L', zero, eA, elda, einfo, 2);
        TEST_CHECK(ret == 0 && einfo[0] == 0 && einfo[1] == 0, "zpotrf_vbatched every order 0: ret %d, infos %d %d",
                   ret, einfo[0], einfo[1]);
    }
    /* bad arguments */
    int bad_m[2] = { 3, -1 }, good_n[2] = { 3, 3 }, small_lda[2] = { 3, 1 }, good_lda[2] = { 3, 3 };
    TEST_CHECK(starsolve_zgetrf_vbatched(bad_m, good_n, A, lda, ipiv, info, 2) == -1, "zgetrf_vbatched m[1] < 0: -1");
    TEST_CHECK(starsolve_zgetrf_vbatched(good_n, good_n, A, small_lda, ipiv, info, 2) == -4, "zgetrf_vbatched lda[1] < m[1]: -4");
    TEST_CHECK(starsolve_zgetrf_vbatched(good_n, good_n, A, good_lda, NULL, info, 2) == -5, "zgetrf_vbatched ipiv NULL: -5");
    TEST_CHECK(starsolve_zgetrf_vbatched(good_n, good_n, A, good_lda, ipiv, info, -1) == -7, "zgetrf_vbatched batch < 0: -7");
    TEST_CHECK(starsolve_zpotrf_vbatched('X', good_n, A, good_lda, info, 2) == -1, "zpotrf_vbatched uplo X: -1");
    TEST_CHECK(starsolve_zpotrf_vbatched('L', bad_m, A, good_lda, info, 2) == -2, "zpotrf_vbatched n[1] < 0: -2");
    TEST_CHECK(starsolve_zpotrf_vbatched('L', good_n, A, good_lda, NULL, 2) == -5, "zpotrf_vbatched info NULL: -5");
    TEST_CHECK(starsolve_zpotrf_vbatched('L', good_n, A, good_lda, info, -1) == -6, "zpotrf_vbatched batch < 0: -6");
    TEST_CHECK(starsolve_zgeqrf_vbatched(good_n, good_n, A, good_lda, NULL, info, 2) == -5, "zgeqrf_vbatched tau NULL: -5");
}

/* many tiny matrices: with a front (pack 1) a chunk is cut into pieces of at most a few hundred matrices, and a
 * chunk ends at its last piece, so this batch makes many pieces in more than one chunk; one singular member */
static void vbatched_many(void)
{
    enum { B = 20000 };
    int *m = testing_alloc(B * sizeof *m), *lda = testing_alloc(B * sizeof *lda), *info = testing_alloc(B * sizeof *info);
    starsolve_complex64_t **A0 = testing_alloc(B * sizeof *A0), **A = testing_alloc(B * sizeof *A);
    int **ipiv = testing_alloc(B * sizeof *ipiv);
    for (int b = 0; b < B; b++) {
        m[b] = 1 + (b * 7) % 6;
        lda[b] = m[b] + b % 2;
        A0[b] = testing_alloc((size_t)lda[b] * m[b] * sizeof **A0);
        A[b] = testing_alloc((size_t)lda[b] * m[b] * sizeof **A);
        ipiv[b] = testing_alloc((size_t)m[b] * sizeof **ipiv);
        gen_zmatrix(m[b], m[b], A0[b], lda[b], 700 + b);
        if (b == 12345)
            for (int i = 0; i < m[b]; i++) A0[b][i] = 0;
        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', m[b], m[b], A0[b], lda[b], A[b], lda[b]);
    }
    starsolve_set_batch_chunk(0);
    int ret = starsolve_zgetrf_vbatched(m, m, A, lda, ipiv, info, B), infos_ok = 1;
    double worst = 0;
    for (int b = 0; b < B && ret == 0; b++) {
        if (b == 12345) { infos_ok &= info[b] == 1; continue; }
        infos_ok &= info[b] == 0;
        double r = check_zgetrf(m[b], m[b], A0[b], lda[b], A[b], lda[b], ipiv[b], 1);
        worst = r > worst || isnan(r) ? r : worst;
    }
    TEST_CHECK(ret == 0 && infos_ok && check_passes(worst), "starsolve_zgetrf_vbatched %d orders 1..6 pack=%d: ret %d, "
               "infos %s (member 12345 singular: info %d), worst ||PA-LU||/(||A|| n eps) = %.3g", B,
               starsolve_get_batch_pack(), ret, infos_ok ? "right" : "WRONG", info[12345], worst);
    for (int b = 0; b < B; b++) {
        free(A0[b]); free(A[b]); free(ipiv[b]);
    }
    free(m); free(lda); free(info); free(A0); free(A); free(ipiv);
}

/* variable-size solves after the variable-size factorizations: orders 0..60 (lda, ldb above the minimum on
 * some), 0..3 right-hand sides, trans N, C or T for getrs; geqrs on tall members (m = n + b % 5) with consistent
 * right-hand sides B = A Xt */
static void vbatched_solves(int chunk, char trans)
{
    enum { B = 17 };
    const starsolve_complex64_t one = 1.0, zero = 0.0;
    int m[B], n[B], nrhs[B], lda[B], ldb[B], info[B];
    starsolve_complex64_t *A0[B], *A[B], *B0[B], *X[B], *tau[B];
    int *ipiv[B];
    for (int b = 0; b < B; b++) {
        n[b] = (b * 29) % 61;
        m[b] = n[b] + b % 5;
        nrhs[b] = (b + 1) % 4;   /* the one-column members (orders 37-55) go by level-1 substitution */
        lda[b] = (m[b] > 1 ? m[b] : 1) + b % 2;
        ldb[b] = (m[b] > 1 ? m[b] : 1) + b % 3;
        A0[b] = testing_alloc(((size_t)lda[b] * (n[b] + 1)) * sizeof **A0);
        A[b] = testing_alloc(((size_t)lda[b] * (n[b] + 1)) * sizeof **A);
        B0[b] = testing_alloc(((size_t)ldb[b] * (nrhs[b] + 1)) * sizeof **B0);
        X[b] = testing_alloc(((size_t)ldb[b] * (nrhs[b] + 1)) * sizeof **X);
        tau[b] = testing_alloc(((size_t)n[b] + 1) * sizeof **tau);
        ipiv[b] = testing_alloc(((size_t)n[b] + 1) * sizeof **ipiv);
    }
    starsolve_set_batch_chunk(chunk);
    /* getrf, getrs */
    for (int b = 0; b < B; b++) {
        gen_zmatrix(n[b], n[b], A0[b], lda[b], 900 + b);
        gen_zmatrix(n[b], nrhs[b], B0[b], ldb[b], 950 + b);
        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', n[b], n[b], A0[b], lda[b], A[b], lda[b]);
        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', n[b], nrhs[b], B0[b], ldb[b], X[b], ldb[b]);
    }
    int ret = starsolve_zgetrf_vbatched(n, n, A, lda, ipiv, info, B);
    int ret2 = starsolve_zgetrs_vbatched(trans, n, nrhs, (const starsolve_complex64_t *const *)A, lda,
                                         (const int *const *)ipiv, X, ldb, B);
    double worst = 0;
    for (int b = 0; b < B; b++)
        if (n[b] > 0 && nrhs[b] > 0) {
            double r = check_zsolve(trans, n[b], nrhs[b], A0[b], lda[b], X[b], ldb[b], B0[b], ldb[b]);
            worst = r > worst || isnan(r) ? r : worst;
        }
    TEST_CHECK(ret == 0 && ret2 == 0 && check_passes(worst), "starsolve_zgetrs_vbatched trans=%c %d orders 0..60 "
               "nrhs 0..3 chunk=%d pack=%d: ret %d %d, worst resid %.3g", trans, B, chunk, starsolve_get_batch_pack(),
               ret, ret2, worst);
    /* potrf, potrs */
    for (int b = 0; b < B; b++) {
        gen_zhpd(n[b], A0[b], lda[b], 1000 + b);
        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', n[b], n[b], A0[b], lda[b], A[b], lda[b]);
        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', n[b], nrhs[b], B0[b], ldb[b], X[b], ldb[b]);
    }
    char uplo = trans == 'N' ? 'L' : 'U';
    ret = starsolve_zpotrf_vbatched(uplo, n, A, lda, info, B);
    ret2 = starsolve_zpotrs_vbatched(uplo, n, nrhs, (const starsolve_complex64_t *const *)A, lda, X, ldb, B);
    worst = 0;
    for (int b = 0; b < B; b++)
        if (n[b] > 0 && nrhs[b] > 0) {
            double r = check_zsolve('N', n[b], nrhs[b], A0[b], lda[b], X[b], ldb[b], B0[b], ldb[b]);
            worst = r > worst || isnan(r) ? r : worst;
        }
    TEST_CHECK(ret == 0 && ret2 == 0 && check_passes(worst), "starsolve_zpotrs_vbatched uplo=%c %d orders 0..60 nrhs "
               "0..3 chunk=%d pack=%d: ret %d %d, worst resid %.3g", uplo, B, chunk, starsolve_get_batch_pack(), ret,
               ret2, worst);
    /* geqrf, geqrs on tall members */
    for (int b = 0; b < B; b++) {
        gen_zmatrix(m[b], n[b], A0[b], lda[b], 1100 + b);
        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', m[b], n[b], A0[b], lda[b], A[b], lda[b]);
        starsolve_complex64_t *Xt = testing_alloc(((size_t)n[b] + 1) * (nrhs[b] + 1) * sizeof *Xt);
        gen_zmatrix(n[b], nrhs[b], Xt, n[b] > 1 ? n[b] : 1, 1150 + b);
        if (m[b] > 0 && nrhs[b] > 0)
            cblas_zgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m[b], nrhs[b], n[b], CBLAS_SADDR(one), A0[b], lda[b], Xt,
                        n[b] > 1 ? n[b] : 1, CBLAS_SADDR(zero), B0[b], ldb[b]);
        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', m[b], nrhs[b], B0[b], ldb[b], X[b], ldb[b]);
        free(Xt);
    }
    ret = starsolve_zgeqrf_vbatched(m, n, A, lda, tau, info, B);
    ret2 = starsolve_zgeqrs_vbatched(m, n, nrhs, (const starsolve_complex64_t *const *)A, lda,
                                     (const starsolve_complex64_t *const *)tau, X, ldb, B);
    worst = 0;
    for (int b = 0; b < B; b++)
        if (n[b] > 0 && nrhs[b] > 0) {
            double second, r = check_zgels('N', m[b], n[b], nrhs[b], A0[b], lda[b], X[b], ldb[b], B0[b], ldb[b], &second);
            worst = r > worst || isnan(r) ? r : worst;
        }
    TEST_CHECK(ret == 0 && ret2 == 0 && check_passes(worst), "starsolve_zgeqrs_vbatched %d shapes m = n + 0..4, nrhs "
               "0..3 chunk=%d pack=%d: ret %d %d, worst ||B-AX||/(||A|| ||X|| m eps) = %.3g", B, chunk,
               starsolve_get_batch_pack(), ret, ret2, worst);
    for (int b = 0; b < B; b++) {
        free(A0[b]); free(A[b]); free(B0[b]); free(X[b]); free(tau[b]); free(ipiv[b]);
    }
    /* bad arguments: the first bad one by position */
    int two[2] = { 2, 2 }, one_rhs[2] = { 1, 1 }, neg[2] = { 2, -1 }, small[2] = { 2, 1 }, three[2] = { 3, 3 };
    starsolve_complex64_t cell[16] = { 0 }, *cells[2] = { cell, cell };
    const starsolve_complex64_t *ccells[2] = { cell, cell };
    int p4[4];
    const int *cpivs[2] = { p4, p4 };
    TEST_CHECK(starsolve_zgetrs_vbatched('X', two, one_rhs, ccells, two, cpivs, cells, two, 2) == -1, "zgetrs_vbatched trans X: -1");
    TEST_CHECK(starsolve_zgetrs_vbatched('N', neg, one_rhs, ccells, two, cpivs, cells, two, 2) == -2, "zgetrs_vbatched n[1] < 0: -2");
    TEST_CHECK(starsolve_zgetrs_vbatched('N', two, neg, ccells, two, cpivs, cells, two, 2) == -3, "zgetrs_vbatched nrhs[1] < 0: -3");
    TEST_CHECK(starsolve_zgetrs_vbatched('N', two, one_rhs, ccells, small, cpivs, cells, two, 2) == -5, "zgetrs_vbatched lda[1] < n: -5");
    TEST_CHECK(starsolve_zgetrs_vbatched('N', two, one_rhs, ccells, two, NULL, cells, two, 2) == -6, "zgetrs_vbatched ipiv NULL: -6");
    TEST_CHECK(starsolve_zgetrs_vbatched('N', two, one_rhs, ccells, two, cpivs, cells, small, 2) == -8, "zgetrs_vbatched ldb[1] < n: -8");
    TEST_CHECK(starsolve_zgetrs_vbatched('N', two, one_rhs, ccells, two, cpivs, cells, two, -1) == -9, "zgetrs_vbatched batch < 0: -9");
    TEST_CHECK(starsolve_zpotrs_vbatched('X', two, one_rhs, ccells, two, cells, two, 2) == -1, "zpotrs_vbatched uplo X: -1");
    TEST_CHECK(starsolve_zpotrs_vbatched('L', two, one_rhs, ccells, two, NULL, two, 2) == -6, "zpotrs_vbatched B NULL: -6");
    TEST_CHECK(starsolve_zpotrs_vbatched('L', two, one_rhs, ccells, two, cells, two, -1) == -8, "zpotrs_vbatched batch < 0: -8");
    TEST_CHECK(starsolve_zgeqrs_vbatched(two, three, one_rhs, ccells, three, (const starsolve_complex64_t *const *)ccells,
                                         cells, three, 2) == -2, "zgeqrs_vbatched n[0] > m[0]: -2");
    TEST_CHECK(starsolve_zgeqrs_vbatched(two, two, one_rhs, ccells, two, NULL, cells, two, 2) == -6, "zgeqrs_vbatched tau NULL: -6");
    TEST_CHECK(starsolve_zgeqrs_vbatched(three, two, one_rhs, ccells, two, (const starsolve_complex64_t *const *)ccells,
                                         cells, three, 2) == -5, "zgeqrs_vbatched lda[0] < m[0]: -5");
    TEST_CHECK(starsolve_zgetrs_vbatched('N', two, one_rhs, ccells, two, cpivs, cells, two, 0) == 0, "zgetrs_vbatched batch = 0: 0");
}

/* Panels at the edge of the 48 KB of shared memory a GPU block gets without asking: the launches
 * asked for more only when the dynamic bytes alone passed 48 KB, and the panel kernels' 16 static
 * bytes made those in the last 16 bytes fail (bench/NOTES.md, session 50). Here the first LU shape
 * whose whole-matrix panel (m n entries and 3 n + m ints) falls there, beyond the register panels'
 * reach (512 rows, 32 columns; complex double 16): 1021 x 11 in single, 108 x 28 in complex double,
 * none in d and c; and Cholesky of order 192, whose last panel of 32 columns is 48 KB in complex single. */
static void shared_memory_edge(void)
{
    const int es = (int)sizeof(starsolve_complex64_t), reg_cols = es > 8 ? 16 : 32;
    for (int n = 8; n <= 64; n++) {
        int m = (48 * 1024 - 12 * n) / (n * es + 4);
        long bytes = (long)m * n * es + (3L * n + m) * 4;
        if (m >= n && m <= 1024 && bytes > 48 * 1024 - 16 && (m > 512 || n > reg_cols)) {
            lu_batch(m, n, 1, 0);
            break;
        }
    }
    chol_batch('L', 192, 1, 0);
}

static void batched_bad_arguments(void)
{
    starsolve_complex64_t A[16] = { 0 }, tau[4];
    int ipiv[4], info[2];
    TEST_CHECK(starsolve_zgetrf_batched(-1, 2, A, 2, 4, ipiv, 2, info, 2) == -1, "zgetrf_batched m < 0: -1");
    TEST_CHECK(starsolve_zgetrf_batched(2, 2, A, 1, 4, ipiv, 2, info, 2) == -4, "zgetrf_batched lda < m: -4");
    TEST_CHECK(starsolve_zgetrf_batched(2, 2, A, 2, 3, ipiv, 2, info, 2) == -5, "zgetrf_batched strideA < lda n: -5");
    TEST_CHECK(starsolve_zgetrf_batched(2, 2, A, 2, 4, ipiv, 1, info, 2) == -7, "zgetrf_batched strideIpiv < min(m,n): -7");
    TEST_CHECK(starsolve_zgetrf_batched(2, 2, A, 2, 4, ipiv, 2, NULL, 2) == -8, "zgetrf_batched info NULL: -8");
    TEST_CHECK(starsolve_zgetrf_batched(2, 2, A, 2, 4, ipiv, 2, info, -1) == -9, "zgetrf_batched batch < 0: -9");
    TEST_CHECK(starsolve_zpotrf_batched('X', 2, A, 2, 4, info, 2) == -1, "zpotrf_batched uplo X: -1");
    TEST_CHECK(starsolve_zpotrf_batched('L', 2, A, 2, 3, info, 2) == -5, "zpotrf_batched strideA < lda n: -5");
    TEST_CHECK(starsolve_zgeqrf_batched(2, 2, A, 2, 4, tau, 1, info, 2) == -7, "zgeqrf_batched strideTau < min(m,n): -7");
    TEST_CHECK(starsolve_zgetrs_batched('X', 2, 1, A, 2, 4, ipiv, 2, A, 2, 2, 2) == -1, "zgetrs_batched trans X: -1");
    TEST_CHECK(starsolve_zpotrs_batched('L', 2, 1, A, 2, 4, A, 1, 2, 2) == -8, "zpotrs_batched ldb < n: -8");
    TEST_CHECK(starsolve_zgeqrs_batched(2, 3, 1, A, 2, 6, tau, 2, A, 2, 2, 1) == -2, "zgeqrs_batched n > m: -2");
    TEST_CHECK(starsolve_zgetrf_batched(2, 2, A, 2, 4, ipiv, 2, info, 0) == 0, "zgetrf_batched batch = 0: 0");
}

int test_zbatched(void)
{
    long before = testing_counts.failed;
    static const int sizes[] = { 1, 7, 32, 33, 100, 512 };
    for (int pack = 0; pack <= 1; pack++) {   /* pack 1: the packed chunks GPUs take, also on CPU workers alone */
        starsolve_set_batch_pack(pack);
        for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
            int n = sizes[t], chunk = t % 3 == 0 ? 0 : t % 3 == 1 ? 1 : 3;
            lu_batch(n, n, 2, chunk);
            chol_batch(t % 2 ? 'U' : 'L', n, 3, chunk);
            qr_batch(n, n, 2, chunk);
        }
        lu_batch(40, 25, 2, 0);
        lu_batch(25, 40, 2, 2);
        lu_batch(100, 100, 1, 0);   /* one right-hand side: the level-1 substitution's orders */
        /* real LU by 8-column panels (zbatch_one_cpu.c's getrf_plain): wide, its last panel past the last pivot;
         * tall; the largest order it takes in real precisions (48), and the first of the blocked LU (getrf_blocked:
         * a last block of 17 columns) */
        lu_batch(45, 60, 2, 0);
        lu_batch(150, 50, 1, 0);
        lu_batch(48, 48, 1, 0);
        lu_batch(49, 49, 2, 3);
        /* the blocked LU: blocks of 32, the singular member's zero column inside a block (info with the block's
         * offset); tall (a last block of 8 columns, no columns right of it); wide (blocks of 64: a last block of 8
         * with 400 columns right of it and no rows below); blocks of 64 with a last one of 60 */
        lu_batch(256, 256, 1, 0);
        lu_batch(600, 200, 1, 3);
        lu_batch(200, 600, 2, 0);
        lu_batch(700, 700, 1, 0);
        /* many right-hand sides (more than a vector's lanes) on orders whose tile TRSM (ztrsm_cpu.c) splits into
         * leaves of every kind: getrs in all three ops, potrs on both triangles; more than NARROW_TRANS_WIDTH (32):
         * the transposed solves' NN GEMMs on copies (left_update) */
        lu_batch(150, 150, 17, 3);
        chol_batch('L', 150, 17, 0);
        chol_batch('U', 200, 9, 0);
        lu_batch(100, 100, 40, 0);
        chol_batch('L', 100, 40, 0);
        /* complex solves on planar copies (zbatch_one_cpu.c's trsm_planar): at its highest order with a last chunk of
         * one column; the upper triangle's two solves; below SMALL_ORDER with a second vector one lane full (z) */
        lu_batch(128, 128, 33, 0);
        chol_batch('U', 128, 9, 0);
        lu_batch(20, 20, 17, 3);
        lu_pivot_choice();
        lu_batch(56, 56, 2, 0);   /* the plain LU's largest order in double complex, */
        lu_batch(96, 70, 1, 3);   /* in single complex (tall) */
        chol_batch('U', 100, 1, 0);
        chol_batch('U', 64, 2, 3);   /* the upper triangle through the lower one's code from here in complex, from 33 (above) in real */
        chol_batch('L', 256, 1, 0);
        chol_batch('L', 40, 2, 0);   /* real Cholesky by 8-column panels (zbatch_one_cpu.c): its largest order */
        chol_batch('U', 40, 1, 0);   /* the same code on the upper triangle's copy */
        chol_batch('L', 24, 2, 0);   /* its largest order in complex */
        /* Cholesky by packed 32-column tiles (potrf_tiled_lower: above 40 in s and d, 32 in c, 64 in z; the spread
         * above takes them too): one column of 9 rows below the first tile (a part-filled chunk, a last group of
         * one column), on the upper triangle's copy in real; whole chunks under each tile in real; a last tile of 24
         * columns with the non-SPD member's failure inside a tile, both triangles */
        chol_batch('U', 41, 1, 0);
        chol_batch('L', 96, 2, 0);
        chol_batch('L', 600, 1, 0);
        chol_batch('U', 600, 2, 0);
        qr_batch(120, 100, 1, 0);
        qr_batch(60, 20, 2, 0);
        qr_batch(20, 60, 2, 0);
        qr_batch(70, 45, 17, 0);   /* more right-hand sides than the solve's reflector-at-a-time path takes */
        qr_batch(200, 97, 20, 0);   /* blocked (m + n > 128): a last panel of one column; Q^H blocked too */
        qr_batch(300, 10, 2, 0);   /* one panel, no trailing update */
        qr_batch(80, 130, 2, 1);   /* wide: the last panel's reflectors applied to the columns beyond m */
        shared_memory_edge();
        vbatched(0, 0, 'L');
        vbatched(4, 0, 'U');   /* orders up to 90: the upper triangle through the lower one's code from 64 */
        vbatched(0, 1, 'L');
        vbatched(3, 1, 'U');
        vbatched_many();
        vbatched_solves(0, 'N');   /* the factorizations' other uplo and shapes through both paths too */
        vbatched_solves(3, 'C');
        vbatched_solves(2, 'T');   /* complex: not the same as 'C' */
    }
    starsolve_set_batch_pack(0);
    starsolve_set_batch_chunk(0);
    batched_bad_arguments();
    return (int)(testing_counts.failed - before);
}
