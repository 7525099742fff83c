/* Cholesky tests of one precision. Generic source: written once in double
 * complex, turned into s, d, c, z by scripts/genprec.sh at build time.
 *
 * potrf (uplo L and U), potrs, posv and the tile API (potrf_tile_async and
 * potrs_tile_async chained on owned descriptors) are judged by the scaled
 * residuals of checks/ against DESIGN.md's bound (check_passes: <= 30, NaN
 * fails); info on matrices that are not positive definite must be LAPACK's
 * (the order of the first leading minor that is not). As in LAPACK, the
 * triangle opposite to uplo and the rows lda > n are never written. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <lapacke.h>
/* gen/tests/ has no testing.h: found as $(srcdir)/include/../tests/testing.h */
#include "../tests/testing.h"

/* The strict triangle opposite to uplo (LAPACK: "not referenced") is as in A0. */
static int other_triangle_intact(char uplo, int n, const starsolve_complex64_t *A, const starsolve_complex64_t *A0, int lda)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            int other = uplo == 'L' ? i < j : i > j;
            if (other && memcmp(&A[i + (size_t)j * lda], &A0[i + (size_t)j * lda], sizeof *A) != 0)
                return 0;
        }
    return 1;
}

/* potrf, potrs and posv with one uplo on a random Hermitian positive definite matrix */
static void chol_random(char uplo, int n, int nb, int pad, int nrhs, unsigned seed)
{
    int lda = n + pad, ldb = n + pad + 1;   /* different: a mixed-up leading dimension shows */
    starsolve_complex64_t *A0 = test_znew_matrix(lda, n), *A = test_znew_matrix(lda, n), *F = test_znew_matrix(lda, n);
    starsolve_complex64_t *B0 = test_znew_matrix(ldb, nrhs), *X = test_znew_matrix(ldb, nrhs);
    gen_zhpd(n, A0, lda, seed);
    gen_zmatrix(n, nrhs, B0, ldb, seed + 1);
    testing_set_nb(nb);

    test_zcopy_matrix(n, n, A0, lda, A, lda);
    int info = starsolve_zpotrf(uplo, n, A, lda);
    TEST_CHECK(info == 0, "starsolve_zpotrf uplo=%c n=%d nb=%d: info = %d", uplo, n, nb, info);
    double r = check_zpotrf(uplo, n, A0, lda, A, lda, 1);
    TEST_CHECK(check_passes(r), "starsolve_zpotrf uplo=%c n=%d nb=%d lda=%d: ||A-LL^H||/(||A|| n eps) = %.3g",
               uplo, n, nb, lda, r);
    TEST_CHECK(other_triangle_intact(uplo, n, A, A0, lda) && test_zpad_intact(n, n, A, lda),
               "starsolve_zpotrf uplo=%c n=%d nb=%d lda=%d: wrote outside the %c triangle", uplo, n, nb, lda, uplo);

    test_zcopy_matrix(n, n, A, lda, F, lda);
    test_zcopy_matrix(n, nrhs, B0, ldb, X, ldb);
    info = starsolve_zpotrs(uplo, n, nrhs, A, lda, X, ldb);
    TEST_CHECK(info == 0, "starsolve_zpotrs uplo=%c n=%d nrhs=%d nb=%d: info = %d", uplo, n, nrhs, nb, info);
    r = check_zsolve('N', n, nrhs, A0, lda, X, ldb, B0, ldb);
    TEST_CHECK(check_passes(r), "starsolve_zpotrs uplo=%c n=%d nrhs=%d nb=%d ldb=%d: ||b-Ax||/(||A|| ||x|| n eps) = %.3g",
               uplo, n, nrhs, nb, ldb, r);
    TEST_CHECK(test_zsame_matrix(lda, n, A, lda, F, lda) && test_zpad_intact(n, nrhs, X, ldb),
               "starsolve_zpotrs uplo=%c n=%d: changed its read-only A, or rows n..ldb-1 of B", uplo, n);

    /* drop-in both ways: LAPACK's potrs on our factor, our potrs on LAPACK's */
    test_zcopy_matrix(n, nrhs, B0, ldb, X, ldb);
    LAPACKE_zpotrs_work(LAPACK_COL_MAJOR, uplo, n, nrhs, A, lda, X, ldb);
    r = check_zsolve('N', n, nrhs, A0, lda, X, ldb, B0, ldb);
    TEST_CHECK(check_passes(r), "LAPACKE_zpotrs on starsolve_zpotrf's factor, uplo=%c n=%d nb=%d: resid = %.3g",
               uplo, n, nb, r);
    test_zcopy_matrix(n, n, A0, lda, A, lda);
    LAPACKE_zpotrf_work(LAPACK_COL_MAJOR, uplo, n, A, lda);
    test_zcopy_matrix(n, nrhs, B0, ldb, X, ldb);
    info = starsolve_zpotrs(uplo, n, nrhs, A, lda, X, ldb);
    r = check_zsolve('N', n, nrhs, A0, lda, X, ldb, B0, ldb);
    TEST_CHECK(info == 0 && check_passes(r),
               "starsolve_zpotrs on LAPACKE_zpotrf's factor, uplo=%c n=%d nb=%d: info = %d, resid = %.3g",
               uplo, n, nb, info, r);

    test_zcopy_matrix(n, n, A0, lda, A, lda);
    test_zcopy_matrix(n, nrhs, B0, ldb, X, ldb);
    info = starsolve_zposv(uplo, n, nrhs, A, lda, X, ldb);
    TEST_CHECK(info == 0, "starsolve_zposv uplo=%c n=%d nrhs=%d nb=%d: info = %d", uplo, n, nrhs, nb, info);
    r = check_zsolve('N', n, nrhs, A0, lda, X, ldb, B0, ldb);
    TEST_CHECK(check_passes(r), "starsolve_zposv uplo=%c n=%d nrhs=%d nb=%d: ||b-Ax||/(||A|| ||x|| n eps) = %.3g",
               uplo, n, nrhs, nb, r);
    r = check_zpotrf(uplo, n, A0, lda, A, lda, 1);
    TEST_CHECK(check_passes(r), "starsolve_zposv uplo=%c n=%d nb=%d: factor ||A-LL^H||/(||A|| n eps) = %.3g", uplo, n, nb, r);
    TEST_CHECK(other_triangle_intact(uplo, n, A, A0, lda) && test_zpad_intact(n, n, A, lda) && test_zpad_intact(n, nrhs, X, ldb),
               "starsolve_zposv uplo=%c n=%d nb=%d: wrote outside the %c triangle or below row n", uplo, n, nb, uplo);
    free(A0); free(A); free(F); free(B0); free(X);
}

/* A(j,j) = -1 in a positive definite matrix: the leading j x j minor is still
 * positive definite, the (j+1) x (j+1) one is not, so info = j + 1, as
 * LAPACKE_zpotrf says too. posv and the tile API report the same; posv leaves
 * B alone, as LAPACK does. */
static void chol_not_spd(char uplo, int n, int nb, int j, unsigned seed)
{
    int lda = n, nrhs = 2;
    starsolve_complex64_t *A0 = test_znew_matrix(lda, n), *A = test_znew_matrix(lda, n);
    starsolve_complex64_t *B0 = test_znew_matrix(n, nrhs), *X = test_znew_matrix(n, nrhs);
    starsolve_desc_t *dA = NULL;
    gen_zhpd(n, A0, lda, seed);
    A0[j + (size_t)j * lda] = -1.0;
    gen_zmatrix(n, nrhs, B0, n, seed + 1);
    testing_set_nb(nb);

    test_zcopy_matrix(n, n, A0, lda, A, lda);
    int info_ref = LAPACKE_zpotrf_work(LAPACK_COL_MAJOR, uplo, n, A, lda);
    test_zcopy_matrix(n, n, A0, lda, A, lda);
    int info = starsolve_zpotrf(uplo, n, A, lda);
    TEST_CHECK(info == j + 1 && info == info_ref,
               "starsolve_zpotrf uplo=%c, A(%d,%d) < 0, n=%d nb=%d: info = %d, expected %d (LAPACKE_zpotrf: %d)",
               uplo, j, j, n, nb, info, j + 1, info_ref);

    test_zcopy_matrix(n, n, A0, lda, A, lda);
    test_zcopy_matrix(n, nrhs, B0, n, X, n);
    info = starsolve_zposv(uplo, n, nrhs, A, lda, X, n);
    TEST_CHECK(info == j + 1, "starsolve_zposv uplo=%c, A(%d,%d) < 0, n=%d nb=%d: info = %d, expected %d",
               uplo, j, j, n, nb, info, j + 1);
    TEST_CHECK(test_zsame_matrix(n, nrhs, X, n, B0, n), "starsolve_zposv uplo=%c, A(%d,%d) < 0: B changed although info > 0",
               uplo, j, j);

    int ret = starsolve_desc_create(&dA, STARSOLVE_Z, n, n, nb);
    if (TEST_CHECK(ret == 0, "starsolve_desc_create n=%d nb=%d: %d", n, nb, ret)) {
        starsolve_desc_from_lapack(dA, A0, lda);
        starsolve_request_t *req = starsolve_request_create();
        ret = starsolve_zpotrf_tile_async(uplo, dA, req);
        info = starsolve_request_wait(req);
        starsolve_request_destroy(req);
        TEST_CHECK(ret == 0 && info == j + 1,
                   "starsolve_zpotrf_tile_async uplo=%c, A(%d,%d) < 0, n=%d nb=%d: returned %d, request info %d, expected %d",
                   uplo, j, j, n, nb, ret, info, j + 1);
        starsolve_desc_destroy(dA);
    }
    free(A0); free(A); free(B0); free(X);
}

/* A NaN in the referenced triangle must not vanish: the call returns (no hang,
 * no crash), and either info != 0 or the solution holds a NaN or Inf. A finite
 * x with info = 0 means the NaN was dropped somewhere. LAPACK's posv is held to
 * the same rule first, to show the rule is reachable. */
static void chol_nan(char uplo, int n, int nb, unsigned seed)
{
    int lda = n, nrhs = 2, i = n - 4, j = n / 3;   /* A(i,j) and A(j,i), i > j: both triangles */
    starsolve_complex64_t *A = test_znew_matrix(lda, n), *B0 = test_znew_matrix(n, nrhs), *X = test_znew_matrix(n, nrhs);
    gen_zmatrix(n, nrhs, B0, n, seed + 1);
    testing_set_nb(nb);

    gen_zhpd(n, A, lda, seed);
    A[i + (size_t)j * lda] = A[j + (size_t)i * lda] = NAN;
    test_zcopy_matrix(n, nrhs, B0, n, X, n);
    int info = LAPACKE_zposv_work(LAPACK_COL_MAJOR, uplo, n, nrhs, A, lda, X, n);
    int bad = test_zcount_nonfinite(n, nrhs, X, n);
    TEST_CHECK(info != 0 || bad > 0, "test matrix: LAPACKE_zposv uplo=%c with A(%d,%d) = NaN: info = %d, %d entries of x not finite",
               uplo, i, j, info, bad);

    gen_zhpd(n, A, lda, seed);
    A[i + (size_t)j * lda] = A[j + (size_t)i * lda] = NAN;
    test_zcopy_matrix(n, nrhs, B0, n, X, n);
    info = starsolve_zposv(uplo, n, nrhs, A, lda, X, n);
    bad = test_zcount_nonfinite(n, nrhs, X, n);
    TEST_CHECK(info != 0 || bad > 0, "starsolve_zposv uplo=%c with A(%d,%d) = NaN, n=%d nb=%d: info = 0 and x is finite: NaN lost",
               uplo, i, j, n, nb);

    gen_zhpd(n, A, lda, seed);
    A[i + (size_t)j * lda] = A[j + (size_t)i * lda] = NAN;
    test_zcopy_matrix(n, nrhs, B0, n, X, n);
    info = starsolve_zpotrf(uplo, n, A, lda);
    if (info == 0)
        info = starsolve_zpotrs(uplo, n, nrhs, A, lda, X, n);
    bad = test_zcount_nonfinite(n, nrhs, X, n);
    TEST_CHECK(info != 0 || bad > 0,
               "starsolve_zpotrf + zpotrs uplo=%c with A(%d,%d) = NaN, n=%d nb=%d: info = 0 and x is finite: NaN lost",
               uplo, i, j, n, nb);

    /* NaN on the diagonal: LAPACK's potrf reports it as a minor that is not positive definite */
    gen_zhpd(n, A, lda, seed);
    A[j + (size_t)j * lda] = NAN;
    test_zcopy_matrix(n, nrhs, B0, n, X, n);
    info = starsolve_zposv(uplo, n, nrhs, A, lda, X, n);
    bad = test_zcount_nonfinite(n, nrhs, X, n);
    TEST_CHECK(info != 0 || bad > 0,
               "starsolve_zposv uplo=%c with A(%d,%d) = NaN, n=%d nb=%d: info = 0 and x is finite: NaN lost",
               uplo, j, j, n, nb);
    free(A); free(B0); free(X);
}

/* The tile API on owned descriptors: potrf and potrs chained on one request,
 * without waiting in between. */
static void chol_tile(char uplo, int n, int nb, int nrhs, unsigned seed)
{
    int lda = n + 3, ldb = n + 1;
    starsolve_complex64_t *A0 = test_znew_matrix(lda, n), *A = test_znew_matrix(lda, n);
    starsolve_complex64_t *B0 = test_znew_matrix(ldb, nrhs), *X = test_znew_matrix(ldb, nrhs);
    starsolve_desc_t *dA = NULL, *dB = NULL;
    gen_zhpd(n, A0, lda, seed);
    gen_zmatrix(n, nrhs, B0, ldb, seed + 1);

    int ret = starsolve_desc_create(&dA, STARSOLVE_Z, n, n, nb);
    int ret2 = starsolve_desc_create(&dB, STARSOLVE_Z, n, nrhs, nb);
    if (TEST_CHECK(ret == 0 && ret2 == 0, "tile Cholesky n=%d nb=%d: desc_create %d, %d", n, nb, ret, ret2)) {
        starsolve_desc_from_lapack(dA, A0, lda);
        starsolve_desc_from_lapack(dB, B0, ldb);
        starsolve_request_t *req = starsolve_request_create();
        ret = starsolve_zpotrf_tile_async(uplo, dA, req);
        ret2 = starsolve_zpotrs_tile_async(uplo, dA, dB, req);
        int info = starsolve_request_wait(req);
        starsolve_request_destroy(req);
        TEST_CHECK(ret == 0 && ret2 == 0 && info == 0,
                   "starsolve_zpotrf_tile_async + zpotrs_tile_async uplo=%c n=%d nb=%d: returned %d, %d, request info %d",
                   uplo, n, nb, ret, ret2, info);
        starsolve_desc_to_lapack(dA, A, lda);
        starsolve_desc_to_lapack(dB, X, ldb);
        double r = check_zpotrf(uplo, n, A0, lda, A, lda, 1);
        TEST_CHECK(check_passes(r), "starsolve_zpotrf_tile_async uplo=%c n=%d nb=%d: ||A-LL^H||/(||A|| n eps) = %.3g",
                   uplo, n, nb, r);
        r = check_zsolve('N', n, nrhs, A0, lda, X, ldb, B0, ldb);
        TEST_CHECK(check_passes(r), "starsolve_zpotrs_tile_async uplo=%c n=%d nrhs=%d nb=%d: ||b-Ax||/(||A|| ||x|| n eps) = %.3g",
                   uplo, n, nrhs, nb, r);
    }
    starsolve_desc_destroy(dB);
    starsolve_desc_destroy(dA);
    free(A0); free(A); free(B0); free(X);
}

/* The drivers' Cholesky check without a copy of A (-regen): the estimate on gen_zhpd's
 * matrix regenerated slab by slab matches the one on a stored copy, and both catch a
 * spoiled factor. Order 1200: three of the regeneration's slabs. Factor from LAPACK. */
static void chol_check_regenerated(char uplo, int n, unsigned seed)
{
    struct matgen g = { MATGEN_HPD, n, n, seed, 0 };
    int nrhs = 3;
    starsolve_complex64_t *A0 = test_znew_matrix(n, n), *F = test_znew_matrix(n, n);
    starsolve_complex64_t *B = test_znew_matrix(n, nrhs), *X = test_znew_matrix(n, nrhs);
    gen_zhpd(n, A0, n, seed);
    memcpy(F, A0, (size_t)n * n * sizeof *F);
    int info = LAPACKE_zpotrf_work(LAPACK_COL_MAJOR, uplo, n, F, n);
    double stored = check_zpotrf(uplo, n, A0, n, F, n, 0), regen = check_zpotrf_matgen(uplo, &g, F, n);
    TEST_CHECK(info == 0 && check_passes(stored) && check_passes(regen) && regen <= 2 * stored && stored <= 2 * regen,
               "check_zpotrf_matgen uplo %c n %d: %.3g, on a stored copy %.3g (both <= 30, within 2x)", uplo, n, regen,
               stored);
    gen_zmatrix(n, nrhs, B, n, seed + 1);
    memcpy(X, B, (size_t)n * nrhs * sizeof *X);
    LAPACKE_zpotrs_work(LAPACK_COL_MAJOR, uplo, n, nrhs, F, n, X, n);
    stored = check_zsolve('N', n, nrhs, A0, n, X, n, B, n);
    regen = check_zsolve_matgen(&g, nrhs, X, n, B, n);
    TEST_CHECK(check_passes(stored) && check_passes(regen) && regen <= 2 * stored && stored <= 2 * regen,
               "check_zsolve_matgen (HPD) n %d: %.3g, on a stored copy %.3g", n, regen, stored);
    F[n / 3 + (size_t)(n / 3) * n] += (double)n * n;   /* one wrong diagonal entry of the factor */
    stored = check_zpotrf(uplo, n, A0, n, F, n, 0);
    regen = check_zpotrf_matgen(uplo, &g, F, n);
    TEST_CHECK(!check_passes(stored) && !check_passes(regen), "check_zpotrf_matgen uplo %c n %d on a spoiled factor: "
               "%.3g, on a stored copy %.3g (both must fail)", uplo, n, regen, stored);
    free(A0); free(F); free(B); free(X);
}

int test_zcholesky(void)
{
    long failed_before = testing_counts.failed;
    /* n = 1, nb = 1, nb > n, n a multiple of nb or not, lda > n, nrhs > 1 */
    static const struct { int n, nb, pad, nrhs; } cases[] = {
        { 1, 1, 0, 1 },   { 1, 32, 1, 2 },   { 5, 1, 0, 3 },   { 5, 7, 2, 1 },    { 5, 64, 0, 2 },
        { 20, 1, 1, 2 },  { 64, 32, 1, 3 },  { 64, 7, 0, 2 },  { 100, 32, 3, 3 }, { 100, 7, 0, 1 },
        { 257, 64, 2, 4 }, { 257, 32, 0, 2 },
    };
    for (const char *uplo = "LU"; *uplo; uplo++)
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
            chol_random(*uplo, cases[c].n, cases[c].nb, cases[c].pad, cases[c].nrhs, 100 + 10 * (unsigned)c);

    for (const char *uplo = "LU"; *uplo; uplo++) {
        /* the failing minor in the first tile, in a later tile, on a tile's first row */
        chol_not_spd(*uplo, 100, 32, 3, 201);
        chol_not_spd(*uplo, 100, 32, 70, 202);
        chol_not_spd(*uplo, 257, 64, 192, 203);
        chol_not_spd(*uplo, 5, 7, 4, 204);
        chol_nan(*uplo, 100, 32, 301);
        chol_nan(*uplo, 20, 7, 302);
        chol_tile(*uplo, 1, 1, 1, 401);
        chol_tile(*uplo, 5, 7, 2, 402);
        chol_tile(*uplo, 100, 32, 3, 403);
        chol_tile(*uplo, 257, 64, 5, 404);
        chol_check_regenerated(*uplo, 1200, 411);
    }

    /* the GPU's trailing updates on CPU workers: several tile GEMMs per task, then automatic again */
    static const int update_tiles[] = { 3, 1000 };
    for (size_t u = 0; u < sizeof update_tiles / sizeof update_tiles[0]; u++) {
        TEST_CHECK(starsolve_set_update_tiles(update_tiles[u]) == 0, "starsolve_set_update_tiles(%d)", update_tiles[u]);
        for (const char *uplo = "LU"; *uplo; uplo++) {
            chol_random(*uplo, 100, 7, 1, 2, 1001 + 10 * (unsigned)u);
            chol_random(*uplo, 257, 32, 0, 3, 1002 + 10 * (unsigned)u);
            chol_not_spd(*uplo, 257, 64, 192, 1003 + 10 * (unsigned)u);
            chol_tile(*uplo, 257, 64, 2, 1004 + 10 * (unsigned)u);
        }
    }
    TEST_CHECK(starsolve_set_update_tiles(0) == 0, "starsolve_set_update_tiles(0)");
    return (int)(testing_counts.failed - failed_before);
}
