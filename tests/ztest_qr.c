/* QR tests of one precision (generic source, see scripts/genprec.sh).
 *
 * The tile API (geqrf, ungqr, unmqr both ways) is judged by ||A - QR|| and
 * ||I - Q^H Q||; gels by LAPACK's least-squares ratios (xQRT16, xQRT17) or, for
 * minimum-norm solutions, by the distance of X to op(A)^H's range; all
 * against DESIGN.md's bound (check_passes: <= 30, NaN fails). Shapes: square,
 * tall, tall-skinny, wide, n = 1, sizes that nb does not divide, nb > n,
 * lda > m. A matrix without full rank gives info > 0 and no NaN; bad
 * arguments give LAPACK's negative info. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include <lapacke.h>
#include "../tests/testing.h"

/* geqrf, ungqr and unmqr ('C' then 'N' gives C back) on owned descriptors */
static void qr_tile(int m, int n, int nb, unsigned seed)
{
    int lda = m + 3, k = m < n ? m : n, nrhs = 3;
    starsolve_complex64_t *A0 = test_znew_matrix(lda, n), *QR = test_znew_matrix(lda, n);
    starsolve_complex64_t *Q = test_znew_matrix(m, k), *C0 = test_znew_matrix(m, nrhs), *C = test_znew_matrix(m, nrhs);
    gen_zmatrix(m, n, A0, lda, seed);
    gen_zmatrix(m, nrhs, C0, m, seed + 1);

    starsolve_desc_t *dA, *dT, *dQ, *dC;
    starsolve_desc_create(&dA, STARSOLVE_Z, m, n, nb);
    starsolve_desc_create(&dQ, STARSOLVE_Z, m, k, nb);
    starsolve_desc_create(&dC, STARSOLVE_Z, m, nrhs, nb);
    starsolve_desc_from_lapack(dA, A0, lda);
    starsolve_desc_from_lapack(dC, C0, m);
    int ws = starsolve_qr_workspace_create(&dT, dA);
    starsolve_request_t *req = starsolve_request_create();
    int i1 = starsolve_zgeqrf_tile_async(dA, dT, req);
    int i2 = starsolve_zungqr_tile_async(dA, dT, dQ, req);
    int i3 = starsolve_zunmqr_tile_async('L', 'C', dA, dT, dC, req);
    int i4 = starsolve_zunmqr_tile_async('L', 'N', dA, dT, dC, req);
    int info = starsolve_request_wait(req);
    TEST_CHECK(ws == 0 && i1 == 0 && i2 == 0 && i3 == 0 && i4 == 0 && info == 0,
               "zgeqrf/ungqr/unmqr tile m=%d n=%d nb=%d: workspace %d, calls %d %d %d %d, info %d",
               m, n, nb, ws, i1, i2, i3, i4, info);
    starsolve_desc_to_lapack(dA, QR, lda);
    starsolve_desc_to_lapack(dQ, Q, m);
    starsolve_desc_to_lapack(dC, C, m);
    double orth, r = check_zgeqrf(m, n, A0, lda, QR, lda, Q, m, &orth);
    TEST_CHECK(check_passes(r) && check_passes(orth),
               "starsolve_zgeqrf_tile m=%d n=%d nb=%d: ||A-QR||/(||A|| n eps) = %.3g, ||I-Q^HQ||/(n eps) = %.3g",
               m, n, nb, r, orth);
    /* Q Q^H C = C */
    double diff = 0, cnorm = 0, eps = LAPACKE_dlamch_work('E');
    for (int j = 0; j < nrhs; j++)
        for (int i = 0; i < m; i++) {
            diff = fmax(diff, cabs(C[i + (size_t)j * m] - C0[i + (size_t)j * m]));
            cnorm = fmax(cnorm, cabs(C0[i + (size_t)j * m]));
        }
    double rc = diff / (cnorm * (m > n ? m : n) * eps);
    TEST_CHECK(check_passes(rc), "starsolve_zunmqr_tile 'C' then 'N', m=%d n=%d nb=%d: max|QQ^HC - C|/(max|C| max(m,n) eps) = %.3g",
               m, n, nb, rc);

    /* Q from the right, against the full Q formed by ungqr: D Q and D Q^H */
    int p = 5;
    starsolve_complex64_t *Qf = test_znew_matrix(m, m), *D0 = test_znew_matrix(p, m), *D = test_znew_matrix(p, m);
    starsolve_complex64_t *E = test_znew_matrix(p, m);
    const starsolve_complex64_t one = 1.0, zero = 0.0;
    gen_zmatrix(p, m, D0, p, seed + 2);
    starsolve_desc_t *dQf, *dD;
    starsolve_desc_create(&dQf, STARSOLVE_Z, m, m, nb);
    starsolve_desc_create(&dD, STARSOLVE_Z, p, m, nb);
    for (int t = 0; t < 2; t++) {
        char tr = t ? 'C' : 'N';
        starsolve_desc_from_lapack(dD, D0, p);
        int ia = starsolve_zungqr_tile_async(dA, dT, dQf, req), ib = starsolve_zunmqr_tile_async('R', tr, dA, dT, dD, req);
        info = starsolve_request_wait(req);
        starsolve_desc_to_lapack(dQf, Qf, m);
        starsolve_desc_to_lapack(dD, D, p);
        cblas_zgemm(CblasColMajor, CblasNoTrans, tr == 'N' ? CblasNoTrans : CblasConjTrans, p, m, m, CBLAS_SADDR(one),
                    D0, p, Qf, m, CBLAS_SADDR(zero), E, p);
        double dmax = 0, emax = 0;
        for (size_t q = 0; q < (size_t)p * m; q++) {
            dmax = fmax(dmax, cabs(D[q] - E[q]));
            emax = fmax(emax, cabs(D0[q]));
        }
        double rr = dmax / (emax * m * eps);
        TEST_CHECK(ia == 0 && ib == 0 && info == 0 && check_passes(rr),
                   "starsolve_zunmqr_tile side R trans %c, m=%d n=%d nb=%d: calls %d %d, max|D op(Q) - D Qfull|/(max|D| m eps) = %.3g",
                   tr, m, n, nb, ia, ib, rr);
    }
    starsolve_desc_destroy(dD);
    starsolve_desc_destroy(dQf);
    free(Qf); free(D0); free(D); free(E);
    starsolve_request_destroy(req);
    starsolve_desc_destroy(dT);
    starsolve_desc_destroy(dC);
    starsolve_desc_destroy(dQ);
    starsolve_desc_destroy(dA);
    free(A0); free(QR); free(Q); free(C0); free(C);
}

/* gels on op(A) X = B, A m x n with lda = m + pad and B with ldb = max(m,n) + pad + 1.
 * As LAPACK's xDRVLS: B = op(A) Xtrue is consistent, so ||B - op(A) X|| must be
 * small (xQRT16); a least-squares problem is also solved with a random B, whose
 * residual must be orthogonal to op(A)'s range (xQRT17). */
static void gels_random(char trans, int m, int n, int nrhs, int nb, int pad, unsigned seed)
{
    const starsolve_complex64_t one = 1.0, zero = 0.0;
    int lda = m + pad, mn = m > n ? m : n, ldb = mn + pad + 1;
    int brows = trans == 'N' ? m : n, xrows = trans == 'N' ? n : m;
    starsolve_complex64_t *A0 = test_znew_matrix(lda, n), *A = test_znew_matrix(lda, n);
    starsolve_complex64_t *B0 = test_znew_matrix(ldb, nrhs), *X = test_znew_matrix(ldb, nrhs);
    starsolve_complex64_t *Xt = test_znew_matrix(xrows, nrhs);
    gen_zmatrix(m, n, A0, lda, seed);
    gen_zmatrix(xrows, nrhs, Xt, xrows, seed + 1);
    gen_zmatrix(mn, nrhs, B0, ldb, seed + 2);   /* rows brows..mn-1: filler that gels must not use */
    cblas_zgemm(CblasColMajor, trans == 'N' ? CblasNoTrans : CblasConjTrans, CblasNoTrans, brows, nrhs, xrows,
                CBLAS_SADDR(one), A0, lda, Xt, xrows, CBLAS_SADDR(zero), B0, ldb);
    testing_set_nb(nb);
    for (int consistent = 1; consistent >= 0; consistent--) {
        if (!consistent) {
            if (brows <= xrows)
                break;            /* a wide system is always consistent */
            gen_zmatrix(mn, nrhs, B0, ldb, seed + 3);
        }
        test_zcopy_matrix(m, n, A0, lda, A, lda);
        test_zcopy_matrix(mn, nrhs, B0, ldb, X, ldb);
        int info = starsolve_zgels(trans, m, n, nrhs, A, lda, X, ldb);
        double second, r = check_zgels(trans, m, n, nrhs, A0, lda, X, ldb, B0, ldb, &second);
        if (!consistent)
            r = 0;                /* the residual of an inconsistent system is not small */
        TEST_CHECK(info == 0 && check_passes(r) && check_passes(second),
                   "starsolve_zgels trans=%c m=%d n=%d nrhs=%d nb=%d lda=%d ldb=%d %s B: info = %d, "
                   "||B-op(A)X||/(||A|| ||X|| max(m,n) eps) = %.3g, %s = %.3g",
                   trans, m, n, nrhs, nb, lda, ldb, consistent ? "consistent" : "random", info, r,
                   brows >= xrows ? "||op(A)^H R||/(||A|| ||B|| max eps)" : "dist(X, range op(A)^H)", second);
        TEST_CHECK(test_zpad_intact(m, n, A, lda) && test_zpad_intact(mn, nrhs, X, ldb),
                   "starsolve_zgels trans=%c m=%d n=%d: wrote past row m of A or row max(m,n) of B", trans, m, n);
    }
    free(A0); free(A); free(B0); free(X); free(Xt);
}

/* A zero column (m >= n) or zero row (m < n): R has an exact zero, info > 0, no NaN */
static void gels_rank_deficient(int m, int n, int nb)
{
    int lda = m, mn = m > n ? m : n, nrhs = 2, bad = (m < n ? m : n) / 2;
    starsolve_complex64_t *A = test_znew_matrix(lda, n), *B = test_znew_matrix(mn, nrhs);
    gen_zmatrix(m, n, A, lda, 11);
    gen_zmatrix(mn, nrhs, B, mn, 12);
    if (m >= n)
        for (int i = 0; i < m; i++) A[i + (size_t)bad * lda] = 0;
    else
        for (int j = 0; j < n; j++) A[bad + (size_t)j * lda] = 0;
    testing_set_nb(nb);
    int info = starsolve_zgels('N', m, n, nrhs, A, lda, B, mn);
    int nonfinite = test_zcount_nonfinite(mn, nrhs, B, mn) + test_zcount_nonfinite(m, n, A, lda);
    TEST_CHECK(info > 0 && info <= bad + 1 && nonfinite == 0,
               "starsolve_zgels m=%d n=%d with a zero %s at %d: info = %d (want 1..%d), %d NaN/Inf",
               m, n, m >= n ? "column" : "row", bad, info, bad + 1, nonfinite);
    free(A); free(B);
}

static void gels_bad_arguments(void)
{
    starsolve_complex64_t A[16] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 }, B[8] = { 0 };
    struct { char trans; int m, n, nrhs, lda, ldb, want; } c[] = {
        { 'X', 4, 4, 1, 4, 4, -1 }, { 'N', -1, 4, 1, 4, 4, -2 }, { 'N', 4, -1, 1, 4, 4, -3 },
        { 'N', 4, 4, -1, 4, 4, -4 }, { 'N', 4, 4, 1, 3, 4, -6 }, { 'N', 2, 4, 1, 2, 3, -8 },
    };
    for (size_t t = 0; t < sizeof c / sizeof c[0]; t++) {
        int info = starsolve_zgels(c[t].trans, c[t].m, c[t].n, c[t].nrhs, A, c[t].lda, B, c[t].ldb);
        TEST_CHECK(info == c[t].want, "starsolve_zgels(trans=%c m=%d n=%d nrhs=%d lda=%d ldb=%d) = %d, want %d",
                   c[t].trans, c[t].m, c[t].n, c[t].nrhs, c[t].lda, c[t].ldb, info, c[t].want);
    }
    int info = starsolve_zgels('N', 4, 4, 1, NULL, 4, B, 4);
    TEST_CHECK(info == -5, "starsolve_zgels with A = NULL: %d, want -5", info);
    /* an empty A: the solution is zero, as LAPACK */
    B[0] = B[1] = B[2] = 5;
    info = starsolve_zgels('N', 0, 3, 1, A, 1, B, 3);
    TEST_CHECK(info == 0 && B[0] == 0.0 && B[1] == 0.0 && B[2] == 0.0, "starsolve_zgels m=0 n=3: info %d, X = 0", info);

    starsolve_desc_t *dA, *dT, *dC, *dWrong;
    starsolve_desc_create(&dA, STARSOLVE_Z, 8, 6, 4);
    starsolve_desc_create(&dC, STARSOLVE_Z, 8, 2, 4);
    starsolve_desc_create(&dWrong, STARSOLVE_Z, 4, 6, 4);
    starsolve_qr_workspace_create(&dT, dA);
    starsolve_request_t *req = starsolve_request_create();
    TEST_CHECK(starsolve_zgeqrf_tile_async(dA, dWrong, req) == -2, "zgeqrf_tile with a 4 x 6 T for an 8 x 6 A: -2");
    TEST_CHECK(starsolve_zgeqrf_tile_async(dA, dT, NULL) == -3, "zgeqrf_tile without a request: -3");
    TEST_CHECK(starsolve_zungqr_tile_async(dA, dT, dC, req) == -2, "zungqr_tile with a T that geqrf has not filled: -2");
    TEST_CHECK(starsolve_zunmqr_tile_async('L', 'N', dA, dT, dC, req) == -4, "zunmqr_tile with a T that geqrf has not filled: -4");
    starsolve_desc_from_lapack(dA, (starsolve_complex64_t[48]){ 1, 2, 3, 4, 5, 6, 7, 8, 0, 1 }, 8);
    TEST_CHECK(starsolve_zgeqrf_tile_async(dA, dT, req) == 0, "zgeqrf_tile of an 8 x 6 A: 0");
    TEST_CHECK(starsolve_zunmqr_tile_async('X', 'N', dA, dT, dC, req) == -1, "zunmqr_tile side 'X': -1");
    TEST_CHECK(starsolve_zunmqr_tile_async('R', 'N', dA, dT, dC, req) == -5, "zunmqr_tile side 'R' with C of A's rows, not columns: -5");
    TEST_CHECK(starsolve_zunmqr_tile_async('L', 'X', dA, dT, dC, req) == -2, "zunmqr_tile trans 'X': -2");
    TEST_CHECK(starsolve_zunmqr_tile_async('L', 'N', dA, dT, NULL, req) == -5, "zunmqr_tile without C: -5");
    TEST_CHECK(starsolve_zungqr_tile_async(dA, dT, dC, req) == 0, "zungqr_tile into an 8 x 2 Q: 0");
    starsolve_request_wait(req);
    starsolve_request_destroy(req);
    starsolve_desc_destroy(dT); starsolve_desc_destroy(dWrong); starsolve_desc_destroy(dC); starsolve_desc_destroy(dA);
}

static void qr_all_shapes(void);

int test_zqr(void)
{
    long before = testing_counts.failed;
    /* 1: PLASMA's tile algorithm (CPU workers' default); 1000: LAPACK's panels with
     * whole-column updates (GPUs' default, pzgeqrf.c); then automatic again */
    static const int update_tiles[] = { 1, 1000 };
    for (size_t u = 0; u < sizeof update_tiles / sizeof update_tiles[0]; u++) {
        TEST_CHECK(starsolve_set_update_tiles(update_tiles[u]) == 0, "starsolve_set_update_tiles(%d)", update_tiles[u]);
        qr_all_shapes();
    }
    TEST_CHECK(starsolve_set_update_tiles(0) == 0, "starsolve_set_update_tiles(0)");
    gels_bad_arguments();
    return (int)(testing_counts.failed - before);
}

static void qr_all_shapes(void)
{
    static const struct { int m, n, nb; } tile[] = {
        { 1, 1, 32 }, { 50, 50, 16 }, { 200, 120, 32 }, { 120, 200, 32 }, { 1000, 20, 64 },
        { 37, 1, 8 }, { 30, 30, 64 }, { 130, 130, 32 },
        /* tiles wider than the CPU geqrt's 16-column leaves (its recursion merges their T): 96-wide with a 12 x 8
         * corner, a wide 70 x 96 diagonal tile, a 17 x 17 corner (a 16-column half and a 1-column one) */
        { 300, 200, 96 }, { 70, 150, 96 }, { 81, 81, 64 },
    };
    for (size_t t = 0; t < sizeof tile / sizeof tile[0]; t++)
        qr_tile(tile[t].m, tile[t].n, tile[t].nb, 100 + (unsigned)t);
    static const struct { int m, n, nrhs, nb, pad; } ls[] = {
        { 1, 1, 1, 32, 0 }, { 60, 60, 2, 16, 1 }, { 150, 70, 3, 32, 2 }, { 70, 150, 3, 32, 0 },
        { 2000, 12, 1, 64, 0 }, { 40, 1, 2, 8, 3 }, { 1, 40, 1, 8, 0 }, { 45, 30, 5, 64, 1 },
        { 250, 130, 4, 96, 1 },
    };
    for (size_t t = 0; t < sizeof ls / sizeof ls[0]; t++) {
        gels_random('N', ls[t].m, ls[t].n, ls[t].nrhs, ls[t].nb, ls[t].pad, 200 + (unsigned)t);
        gels_random('C', ls[t].m, ls[t].n, ls[t].nrhs, ls[t].nb, ls[t].pad, 300 + (unsigned)t);
    }
    gels_rank_deficient(80, 50, 16);
    gels_rank_deficient(50, 80, 16);
}
