/* LU tests of one precision. Generic source: written once in double complex,
 * turned into s, d, c, z by scripts/genprec.sh at build time.
 *
 * Results are judged by the scaled residuals of checks/ against DESIGN.md's bound
 * (check_passes: <= 30, NaN fails), never by equality with LAPACK's output, except
 * where the contract is exact:
 * - info: LAPACK's value on exactly singular matrices;
 * - ipiv: on matrices whose column maxima are far apart, partial pivoting has one
 *   answer, and it must be LAPACK's (starsolve_zgetrf is a drop-in for getrf);
 * - rows lda > m of the caller's arrays and read-only arguments are never written;
 * - a NaN in A is never lost: info != 0 or the solution is not finite.
 * The tile size of the LAPACK-layout routines changes between calls
 * (starsolve_set_nb) so that one, several and partial tiles are all exercised. */
#include <complex.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include <lapacke.h>
/* gen/tests/ has no testing.h: found as $(srcdir)/include/../tests/testing.h */
#include "../tests/testing.h"
#include "codelets.h"   /* cpu_ztrsm, the tile codelets' CPU TRSM, checked here against cblas_ztrsm */

/* A + shift I on the leading min(m,n) diagonal: with shift > the column sums of
 * |A| the matrix is diagonally dominant by columns, so LU without pivoting is
 * stable and partial pivoting keeps every row where it is. */
static void add_diagonal(int m, int n, starsolve_complex64_t *A, int lda, double shift)
{
    for (int j = 0; j < m && j < n; j++)
        A[j + (size_t)j * lda] += shift;
}

/* LAPACK's ipiv property that getrs relies on: row i swaps with a row at or below it. */
static int ipiv_valid(int m, int n, const int *ipiv)
{
    for (int i = 0; i < m && i < n; i++)
        if (ipiv[i] < i + 1 || ipiv[i] > m)
            return 0;
    return 1;
}

/* Square LU on a random matrix: getrf, getrs in every trans, gesv, and LAPACK
 * interoperability both ways. lda and ldb differ so that a mixed-up leading
 * dimension shows. */
static void lu_square(int n, int nb, int pad, int nrhs, unsigned seed)
{
    int lda = n + pad, ldb = n + pad + 1;
    starsolve_complex64_t *A0 = test_znew_matrix(lda, n), *A = test_znew_matrix(lda, n), *LU = test_znew_matrix(lda, n);
    starsolve_complex64_t *B0 = test_znew_matrix(ldb, nrhs), *X = test_znew_matrix(ldb, nrhs);
    int *ipiv = testing_alloc((size_t)n * sizeof *ipiv), *ipiv1 = testing_alloc((size_t)n * sizeof *ipiv1);
    gen_zmatrix(n, n, A0, lda, seed);
    gen_zmatrix(n, nrhs, B0, ldb, seed + 1);
    testing_set_nb(nb);

    test_zcopy_matrix(n, n, A0, lda, A, lda);
    int info = starsolve_zgetrf(n, n, A, lda, ipiv);
    TEST_CHECK(info == 0, "starsolve_zgetrf n=%d nb=%d lda=%d: info = %d", n, nb, lda, info);
    double r = check_zgetrf(n, n, A0, lda, A, lda, ipiv, 1);
    TEST_CHECK(check_passes(r), "starsolve_zgetrf n=%d nb=%d lda=%d: ||PA-LU||/(||A|| n eps) = %.3g", n, nb, lda, r);
    TEST_CHECK(ipiv_valid(n, n, ipiv), "starsolve_zgetrf n=%d nb=%d: ipiv outside i+1..n", n, nb);
    TEST_CHECK(test_zpad_intact(n, n, A, lda), "starsolve_zgetrf n=%d nb=%d lda=%d: wrote rows n..lda-1", n, nb, lda);

    /* drop-in (DESIGN.md): LAPACK's getrs solves with our factors and pivots */
    test_zcopy_matrix(n, nrhs, B0, ldb, X, ldb);
    LAPACKE_zgetrs_work(LAPACK_COL_MAJOR, 'N', n, nrhs, A, lda, ipiv, X, ldb);
    r = check_zsolve('N', n, nrhs, A0, lda, X, ldb, B0, ldb);
    TEST_CHECK(check_passes(r), "LAPACKE_zgetrs on starsolve_zgetrf's factors, n=%d nb=%d: ||b-Ax||/(||A|| ||x|| n eps) = %.3g",
               n, nb, r);

    test_zcopy_matrix(n, n, A, lda, LU, lda);
    memcpy(ipiv1, ipiv, (size_t)n * sizeof *ipiv);
    for (const char *t = "NTC"; *t; t++) {
        test_zcopy_matrix(n, nrhs, B0, ldb, X, ldb);
        info = starsolve_zgetrs(*t, n, nrhs, A, lda, ipiv, X, ldb);
        TEST_CHECK(info == 0, "starsolve_zgetrs trans=%c n=%d nrhs=%d nb=%d: info = %d", *t, n, nrhs, nb, info);
        r = check_zsolve(*t, n, nrhs, A0, lda, X, ldb, B0, ldb);
        TEST_CHECK(check_passes(r), "starsolve_zgetrs trans=%c n=%d nrhs=%d nb=%d ldb=%d: ||b-op(A)x||/(||A|| ||x|| n eps) = %.3g",
                   *t, n, nrhs, nb, ldb, r);
        TEST_CHECK(test_zpad_intact(n, nrhs, X, ldb), "starsolve_zgetrs trans=%c n=%d ldb=%d: wrote rows n..ldb-1", *t, n, ldb);
    }
    TEST_CHECK(test_zsame_matrix(n, n, A, lda, LU, lda) && test_zpad_intact(n, n, A, lda) &&
               memcmp(ipiv, ipiv1, (size_t)n * sizeof *ipiv) == 0,
               "starsolve_zgetrs n=%d nb=%d: changed its read-only A or ipiv", n, nb);

    /* LAPACK-layout factors do not depend on the tiling: solve under another tile size */
    int nb2 = nb > 3 ? nb / 2 + 1 : nb + 2;
    testing_set_nb(nb2);
    test_zcopy_matrix(n, nrhs, B0, ldb, X, ldb);
    info = starsolve_zgetrs('N', n, nrhs, A, lda, ipiv, X, ldb);
    r = check_zsolve('N', n, nrhs, A0, lda, X, ldb, B0, ldb);
    TEST_CHECK(info == 0 && check_passes(r),
               "starsolve_zgetrs nb=%d on factors from nb=%d, n=%d: info = %d, ||b-Ax||/(||A|| ||x|| n eps) = %.3g",
               nb2, nb, n, info, r);
    testing_set_nb(nb);

    /* the other direction: LAPACK's factors and pivots through our getrs */
    test_zcopy_matrix(n, n, A0, lda, A, lda);
    LAPACKE_zgetrf_work(LAPACK_COL_MAJOR, n, n, A, lda, ipiv);
    test_zcopy_matrix(n, nrhs, B0, ldb, X, ldb);
    info = starsolve_zgetrs('N', n, nrhs, A, lda, ipiv, X, ldb);
    r = check_zsolve('N', n, nrhs, A0, lda, X, ldb, B0, ldb);
    TEST_CHECK(info == 0 && check_passes(r),
               "starsolve_zgetrs on LAPACKE_zgetrf's factors, n=%d nb=%d: info = %d, ||b-Ax||/(||A|| ||x|| n eps) = %.3g",
               n, nb, info, r);

    test_zcopy_matrix(n, n, A0, lda, A, lda);
    test_zcopy_matrix(n, nrhs, B0, ldb, X, ldb);
    info = starsolve_zgesv(n, nrhs, A, lda, ipiv, X, ldb);
    TEST_CHECK(info == 0, "starsolve_zgesv n=%d nrhs=%d nb=%d: info = %d", n, nrhs, nb, info);
    r = check_zsolve('N', n, nrhs, A0, lda, X, ldb, B0, ldb);
    TEST_CHECK(check_passes(r), "starsolve_zgesv n=%d nrhs=%d nb=%d lda=%d ldb=%d: ||b-Ax||/(||A|| ||x|| n eps) = %.3g",
               n, nrhs, nb, lda, ldb, r);
    r = check_zgetrf(n, n, A0, lda, A, lda, ipiv, 1);
    TEST_CHECK(check_passes(r), "starsolve_zgesv n=%d nb=%d: factors ||PA-LU||/(||A|| n eps) = %.3g", n, nb, r);
    TEST_CHECK(test_zpad_intact(n, n, A, lda) && test_zpad_intact(n, nrhs, X, ldb),
               "starsolve_zgesv n=%d nb=%d: wrote rows below n of A or B", n, nb);

    /* nrhs = 0: as LAPACK, gesv still factors A */
    test_zcopy_matrix(n, n, A0, lda, A, lda);
    info = starsolve_zgesv(n, 0, A, lda, ipiv, X, ldb);
    r = check_zgetrf(n, n, A0, lda, A, lda, ipiv, 1);
    TEST_CHECK(info == 0 && check_passes(r), "starsolve_zgesv n=%d nrhs=0 nb=%d: info = %d, ||PA-LU||/(||A|| n eps) = %.3g",
               n, nb, info, r);

    free(A0); free(A); free(LU); free(B0); free(X); free(ipiv); free(ipiv1);
}

/* getrf on an m x n random matrix (tall, wide or square) */
static void lu_shape(int m, int n, int nb, int pad, unsigned seed)
{
    int lda = m + pad, k = m < n ? m : n;
    starsolve_complex64_t *A0 = test_znew_matrix(lda, n), *A = test_znew_matrix(lda, n);
    int *ipiv = testing_alloc((size_t)(k + 1) * sizeof *ipiv);
    gen_zmatrix(m, n, A0, lda, seed);
    test_zcopy_matrix(m, n, A0, lda, A, lda);
    testing_set_nb(nb);
    int info = starsolve_zgetrf(m, n, A, lda, ipiv);
    TEST_CHECK(info == 0, "starsolve_zgetrf m=%d n=%d nb=%d: info = %d", m, n, nb, info);
    double r = check_zgetrf(m, n, A0, lda, A, lda, ipiv, 1);
    TEST_CHECK(check_passes(r), "starsolve_zgetrf m=%d n=%d nb=%d lda=%d: ||PA-LU||/(||A|| max(m,n) eps) = %.3g",
               m, n, nb, lda, r);
    TEST_CHECK(ipiv_valid(m, n, ipiv), "starsolve_zgetrf m=%d n=%d nb=%d: ipiv outside i+1..m", m, n, nb);
    TEST_CHECK(test_zpad_intact(m, n, A, lda), "starsolve_zgetrf m=%d n=%d lda=%d: wrote rows m..lda-1", m, n, lda);
    free(A0); free(A); free(ipiv);
}

/* getrf_nopiv on a diagonally dominant m x n matrix (where no pivoting is stable) */
static void lu_nopiv(int m, int n, int nb, int pad, unsigned seed)
{
    int lda = m + pad;
    starsolve_complex64_t *A0 = test_znew_matrix(lda, n), *A = test_znew_matrix(lda, n);
    gen_zmatrix(m, n, A0, lda, seed);
    add_diagonal(m, n, A0, lda, 2.0 * (m > n ? m : n));
    test_zcopy_matrix(m, n, A0, lda, A, lda);
    testing_set_nb(nb);
    int info = starsolve_zgetrf_nopiv(m, n, A, lda);
    TEST_CHECK(info == 0, "starsolve_zgetrf_nopiv m=%d n=%d nb=%d: info = %d", m, n, nb, info);
    /* ipiv NULL: A0 = L U itself, so a hidden row swap would fail here */
    double r = check_zgetrf(m, n, A0, lda, A, lda, NULL, 1);
    TEST_CHECK(check_passes(r), "starsolve_zgetrf_nopiv m=%d n=%d nb=%d lda=%d: ||A-LU||/(||A|| max(m,n) eps) = %.3g",
               m, n, nb, lda, r);
    TEST_CHECK(test_zpad_intact(m, n, A, lda), "starsolve_zgetrf_nopiv m=%d n=%d lda=%d: wrote rows m..lda-1", m, n, lda);
    free(A0); free(A);
}

/* The whole first diagonal tile is zero: every pivot of the first nb columns
 * must come from another tile row (n >= 2 nb keeps the matrix nonsingular). */
static void lu_zero_diagonal_tile(int n, int nb, unsigned seed)
{
    int lda = n, nrhs = 2;
    starsolve_complex64_t *A0 = test_znew_matrix(lda, n), *A = test_znew_matrix(lda, n);
    starsolve_complex64_t *B0 = test_znew_matrix(n, nrhs), *X = test_znew_matrix(n, nrhs);
    int *ipiv = testing_alloc((size_t)n * sizeof *ipiv);
    gen_zmatrix(n, n, A0, lda, seed);
    for (int j = 0; j < nb; j++)
        for (int i = 0; i < nb; i++)
            A0[i + (size_t)j * lda] = 0.0;
    gen_zmatrix(n, nrhs, B0, n, seed + 1);
    testing_set_nb(nb);

    test_zcopy_matrix(n, n, A0, lda, A, lda);
    int info = starsolve_zgetrf(n, n, A, lda, ipiv);
    TEST_CHECK(info == 0, "starsolve_zgetrf, first %dx%d tile zero, n=%d: info = %d (only tile-local pivoting fails here)",
               nb, nb, n, info);
    double r = check_zgetrf(n, n, A0, lda, A, lda, ipiv, 1);
    TEST_CHECK(check_passes(r), "starsolve_zgetrf, first %dx%d tile zero, n=%d: ||PA-LU||/(||A|| n eps) = %.3g", nb, nb, n, r);
    /* rows 1..nb hold zeros in these columns all along the elimination */
    int local = -1;
    for (int j = 0; j < nb && local < 0; j++)
        if (ipiv[j] <= nb)
            local = j;
    TEST_CHECK(local < 0, "starsolve_zgetrf, first %dx%d tile zero, n=%d: ipiv[%d] = %d picks a zero row of the tile",
               nb, nb, n, local, local >= 0 ? ipiv[local] : 0);

    test_zcopy_matrix(n, n, A0, lda, A, lda);
    test_zcopy_matrix(n, nrhs, B0, n, X, n);
    info = starsolve_zgesv(n, nrhs, A, lda, ipiv, X, n);
    r = check_zsolve('N', n, nrhs, A0, lda, X, n, B0, n);
    TEST_CHECK(info == 0 && check_passes(r),
               "starsolve_zgesv, first %dx%d tile zero, n=%d: info = %d, ||b-Ax||/(||A|| ||x|| n eps) = %.3g",
               nb, nb, n, info, r);
    free(A0); free(A); free(B0); free(X); free(ipiv);
}

/* A pseudo-random permutation of 0..n-1 (Fisher-Yates with a fixed LCG: the
 * same matrix on every machine). */
static void random_permutation(int n, int *perm, unsigned seed)
{
    for (int i = 0; i < n; i++)
        perm[i] = i;
    for (int i = n - 1; i > 0; i--) {
        seed = seed * 1103515245u + 12345u;
        int j = (int)((seed >> 8) % (unsigned)(i + 1));
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
}

/* Rows of a column-dominant matrix, permuted: the largest entry of column j
 * sits in row perm^-1(j), mostly in another tile row than j. The dominance
 * (3n on the diagonal against off-diagonal entries below 1.5) survives
 * elimination, so every pivot is far above the other candidates and partial
 * pivoting has exactly one answer: LAPACK's ipiv. reversed = 0 takes a
 * pseudo-random permutation instead of the reversal. */
static void lu_pivots_like_lapack(int n, int nb, int reversed, unsigned seed)
{
    int lda = n + 1;
    starsolve_complex64_t *D = test_znew_matrix(lda, n), *A0 = test_znew_matrix(lda, n), *A = test_znew_matrix(lda, n);
    int *perm = testing_alloc((size_t)n * sizeof *perm);
    int *ipiv = testing_alloc((size_t)n * sizeof *ipiv), *ipiv_ref = testing_alloc((size_t)n * sizeof *ipiv_ref);
    const char *kind = reversed ? "reversed" : "shuffled";
    gen_zmatrix(n, n, D, lda, seed);
    add_diagonal(n, n, D, lda, 3.0 * n);
    if (reversed)
        for (int i = 0; i < n; i++)
            perm[i] = n - 1 - i;
    else
        random_permutation(n, perm, seed);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            A0[i + (size_t)j * lda] = D[perm[i] + (size_t)j * lda];

    test_zcopy_matrix(n, n, A0, lda, A, lda);
    int info_ref = LAPACKE_zgetrf_work(LAPACK_COL_MAJOR, n, n, A, lda, ipiv_ref);
    int across = 0;   /* is this test what it claims? pivots must cross tile rows */
    for (int j = 0; j < n; j++)
        if ((ipiv_ref[j] - 1) / nb != j / nb)
            across++;
    TEST_CHECK(info_ref == 0 && (n <= nb || across > 0),
               "test matrix (%s rows, n=%d nb=%d): LAPACKE_zgetrf info = %d, %d pivots from another tile row",
               kind, n, nb, info_ref, across);

    testing_set_nb(nb);
    test_zcopy_matrix(n, n, A0, lda, A, lda);
    int info = starsolve_zgetrf(n, n, A, lda, ipiv);
    TEST_CHECK(info == 0, "starsolve_zgetrf, %s dominant rows, n=%d nb=%d: info = %d", kind, n, nb, info);
    int first = -1;
    for (int j = 0; j < n && first < 0; j++)
        if (ipiv[j] != ipiv_ref[j])
            first = j;
    TEST_CHECK(first < 0, "starsolve_zgetrf, %s dominant rows, n=%d nb=%d: ipiv[%d] = %d, LAPACK's = %d",
               kind, n, nb, first, first >= 0 ? ipiv[first] : 0, first >= 0 ? ipiv_ref[first] : 0);
    double r = check_zgetrf(n, n, A0, lda, A, lda, ipiv, 1);
    TEST_CHECK(check_passes(r), "starsolve_zgetrf, %s dominant rows, n=%d nb=%d: ||PA-LU||/(||A|| n eps) = %.3g",
               kind, n, nb, r);
    free(D); free(A0); free(A); free(perm); free(ipiv); free(ipiv_ref);
}

/* Column `col` exactly zero: U(col,col) = 0 exactly, so info = col + 1 (LAPACK's
 * 1-based index) from getrf, gesv and getrf_nopiv. As in LAPACK, getrf still
 * completes the factorization and gesv leaves B alone. */
static void lu_singular(int n, int nb, int col, unsigned seed)
{
    int lda = n, nrhs = 2;
    starsolve_complex64_t *A0 = test_znew_matrix(lda, n), *A = test_znew_matrix(lda, n);
    starsolve_complex64_t *B0 = test_znew_matrix(n, nrhs), *X = test_znew_matrix(n, nrhs);
    int *ipiv = testing_alloc((size_t)n * sizeof *ipiv);
    gen_zmatrix(n, n, A0, lda, seed);
    for (int i = 0; i < n; i++)
        A0[i + (size_t)col * lda] = 0.0;
    gen_zmatrix(n, nrhs, B0, n, seed + 1);
    testing_set_nb(nb);

    test_zcopy_matrix(n, n, A0, lda, A, lda);
    int info_ref = LAPACKE_zgetrf_work(LAPACK_COL_MAJOR, n, n, A, lda, ipiv);
    test_zcopy_matrix(n, n, A0, lda, A, lda);
    int info = starsolve_zgetrf(n, n, A, lda, ipiv);
    TEST_CHECK(info == col + 1 && info == info_ref,
               "starsolve_zgetrf, column %d zero, n=%d nb=%d: info = %d, expected %d (LAPACKE_zgetrf: %d)",
               col, n, nb, info, col + 1, info_ref);
    double r = check_zgetrf(n, n, A0, lda, A, lda, ipiv, 1);
    TEST_CHECK(check_passes(r), "starsolve_zgetrf, column %d zero, n=%d nb=%d: factorization not completed, "
               "||PA-LU||/(||A|| n eps) = %.3g", col, n, nb, r);

    test_zcopy_matrix(n, n, A0, lda, A, lda);
    test_zcopy_matrix(n, nrhs, B0, n, X, n);
    info = starsolve_zgesv(n, nrhs, A, lda, ipiv, X, n);
    TEST_CHECK(info == col + 1, "starsolve_zgesv, column %d zero, n=%d nb=%d: info = %d, expected %d",
               col, n, nb, info, col + 1);
    TEST_CHECK(test_zsame_matrix(n, nrhs, X, n, B0, n), "starsolve_zgesv, column %d zero, n=%d: B changed although info > 0",
               col, n);

    /* without pivoting: diagonally dominant but for the zero column */
    gen_zmatrix(n, n, A, lda, seed + 2);
    add_diagonal(n, n, A, lda, 2.0 * n);
    for (int i = 0; i < n; i++)
        A[i + (size_t)col * lda] = 0.0;
    info = starsolve_zgetrf_nopiv(n, n, A, lda);
    TEST_CHECK(info == col + 1, "starsolve_zgetrf_nopiv, column %d zero, n=%d nb=%d: info = %d, expected %d",
               col, n, nb, info, col + 1);
    free(A0); free(A); free(B0); free(X); free(ipiv);
}

/* A NaN in A must not vanish: the call returns (no hang, no crash), and either
 * info != 0 or the solution holds a NaN or Inf. A finite x with info = 0 means
 * the NaN was dropped somewhere (replaced, or its tile never used). LAPACK's
 * own gesv is held to the same rule first, to show the rule is reachable. */
static void lu_nan(int n, int nb, unsigned seed)
{
    const starsolve_complex64_t one = 1.0;
    int lda = n, nrhs = 2, inan = n - 3, jnan = n / 2;   /* a later tile row and tile column */
    starsolve_complex64_t *A = test_znew_matrix(lda, n), *B0 = test_znew_matrix(n, nrhs), *X = test_znew_matrix(n, nrhs);
    int *ipiv = testing_alloc((size_t)n * sizeof *ipiv);
    gen_zmatrix(n, nrhs, B0, n, seed + 1);
    testing_set_nb(nb);

    gen_zmatrix(n, n, A, lda, seed);
    A[inan + (size_t)jnan * lda] = NAN;
    test_zcopy_matrix(n, nrhs, B0, n, X, n);
    int info = LAPACKE_zgesv_work(LAPACK_COL_MAJOR, n, nrhs, A, lda, ipiv, X, n);
    int bad = test_zcount_nonfinite(n, nrhs, X, n);
    TEST_CHECK(info != 0 || bad > 0, "test matrix: LAPACKE_zgesv with A(%d,%d) = NaN: info = %d, %d entries of x not finite",
               inan, jnan, info, bad);

    gen_zmatrix(n, n, A, lda, seed);
    A[inan + (size_t)jnan * lda] = NAN;
    test_zcopy_matrix(n, nrhs, B0, n, X, n);
    info = starsolve_zgesv(n, nrhs, A, lda, ipiv, X, n);
    bad = test_zcount_nonfinite(n, nrhs, X, n);
    TEST_CHECK(info != 0 || bad > 0, "starsolve_zgesv with A(%d,%d) = NaN, n=%d nb=%d: info = 0 and x is finite: NaN lost",
               inan, jnan, n, nb);

    gen_zmatrix(n, n, A, lda, seed);
    A[inan + (size_t)jnan * lda] = NAN;
    test_zcopy_matrix(n, nrhs, B0, n, X, n);
    info = starsolve_zgetrf(n, n, A, lda, ipiv);
    if (info == 0)
        info = starsolve_zgetrs('N', n, nrhs, A, lda, ipiv, X, n);
    bad = test_zcount_nonfinite(n, nrhs, X, n);
    TEST_CHECK(info != 0 || bad > 0,
               "starsolve_zgetrf + zgetrs with A(%d,%d) = NaN, n=%d nb=%d: info = 0 and x is finite: NaN lost",
               inan, jnan, n, nb);

    /* no pivoting: solve with the factors by hand, L U x = b */
    gen_zmatrix(n, n, A, lda, seed);
    add_diagonal(n, n, A, lda, 2.0 * n);
    A[inan + (size_t)jnan * lda] = NAN;
    test_zcopy_matrix(n, nrhs, B0, n, X, n);
    info = starsolve_zgetrf_nopiv(n, n, A, lda);
    cblas_ztrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, n, nrhs, CBLAS_SADDR(one), A, lda, X, n);
    cblas_ztrsm(CblasColMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, n, nrhs, CBLAS_SADDR(one), A, lda, X, n);
    bad = test_zcount_nonfinite(n, nrhs, X, n);
    TEST_CHECK(info != 0 || bad > 0,
               "starsolve_zgetrf_nopiv with A(%d,%d) = NaN, n=%d nb=%d: info = 0 and x from L U is finite: NaN lost",
               inan, jnan, n, nb);
    free(A); free(B0); free(X); free(ipiv);
}

/* The tile API on owned descriptors: getrf and getrs chained on one request
 * without waiting in between, getrs in every trans, getrf_nopiv, the info of a
 * singular matrix through the request, and LAPACK's factors and pivots loaded
 * into descriptors (pivots_from_lapack) solving through getrs_tile_async. */
static void lu_tile(int n, int nb, int nrhs, unsigned seed)
{
    int lda = n + 2, ldb = n + 1;
    starsolve_complex64_t *A0 = test_znew_matrix(lda, n), *A = test_znew_matrix(lda, n);
    starsolve_complex64_t *B0 = test_znew_matrix(ldb, nrhs), *X = test_znew_matrix(ldb, nrhs);
    int *ipiv = testing_alloc((size_t)n * sizeof *ipiv);
    starsolve_desc_t *dA = NULL, *dB = NULL;
    starsolve_pivots_t *piv = NULL;
    gen_zmatrix(n, n, A0, lda, seed);
    gen_zmatrix(n, nrhs, B0, ldb, seed + 1);

    int ret = starsolve_desc_create(&dA, STARSOLVE_Z, n, n, nb);
    int ret2 = starsolve_desc_create(&dB, STARSOLVE_Z, n, nrhs, nb);
    int ret3 = ret ? -1 : starsolve_pivots_create(&piv, dA);
    if (!TEST_CHECK(ret == 0 && ret2 == 0 && ret3 == 0, "tile LU n=%d nb=%d: desc_create %d, %d, pivots_create %d",
                    n, nb, ret, ret2, ret3))
        goto out;

    starsolve_desc_from_lapack(dA, A0, lda);
    starsolve_desc_from_lapack(dB, B0, ldb);
    starsolve_request_t *req = starsolve_request_create();
    ret = starsolve_zgetrf_tile_async(dA, piv, req);
    ret2 = starsolve_zgetrs_tile_async('N', dA, piv, dB, req);
    int info = starsolve_request_wait(req);
    starsolve_request_destroy(req);
    TEST_CHECK(ret == 0 && ret2 == 0 && info == 0,
               "starsolve_zgetrf_tile_async + zgetrs_tile_async n=%d nb=%d: returned %d, %d, request info %d",
               n, nb, ret, ret2, info);
    starsolve_desc_to_lapack(dA, A, lda);
    starsolve_pivots_to_lapack(piv, ipiv);
    starsolve_desc_to_lapack(dB, X, ldb);
    double r = check_zgetrf(n, n, A0, lda, A, lda, ipiv, 1);
    TEST_CHECK(check_passes(r), "starsolve_zgetrf_tile_async n=%d nb=%d: ||PA-LU||/(||A|| n eps) = %.3g", n, nb, r);
    r = check_zsolve('N', n, nrhs, A0, lda, X, ldb, B0, ldb);
    TEST_CHECK(check_passes(r), "starsolve_zgetrs_tile_async N n=%d nrhs=%d nb=%d: ||b-Ax||/(||A|| ||x|| n eps) = %.3g",
               n, nrhs, nb, r);

    for (const char *t = "TC"; *t; t++) {
        starsolve_desc_from_lapack(dB, B0, ldb);
        req = starsolve_request_create();
        ret = starsolve_zgetrs_tile_async(*t, dA, piv, dB, req);
        info = starsolve_request_wait(req);
        starsolve_request_destroy(req);
        starsolve_desc_to_lapack(dB, X, ldb);
        r = check_zsolve(*t, n, nrhs, A0, lda, X, ldb, B0, ldb);
        TEST_CHECK(ret == 0 && info == 0 && check_passes(r),
                   "starsolve_zgetrs_tile_async %c n=%d nrhs=%d nb=%d: returned %d, info %d, ||b-op(A)x||/(||A|| ||x|| n eps) = %.3g",
                   *t, n, nrhs, nb, ret, info, r);
    }

    /* LAPACK's factorization in, our solve out */
    test_zcopy_matrix(n, n, A0, lda, A, lda);
    LAPACKE_zgetrf_work(LAPACK_COL_MAJOR, n, n, A, lda, ipiv);
    starsolve_desc_from_lapack(dA, A, lda);
    starsolve_pivots_from_lapack(piv, ipiv);
    starsolve_desc_from_lapack(dB, B0, ldb);
    req = starsolve_request_create();
    ret = starsolve_zgetrs_tile_async('N', dA, piv, dB, req);
    info = starsolve_request_wait(req);
    starsolve_request_destroy(req);
    starsolve_desc_to_lapack(dB, X, ldb);
    r = check_zsolve('N', n, nrhs, A0, lda, X, ldb, B0, ldb);
    TEST_CHECK(ret == 0 && info == 0 && check_passes(r),
               "starsolve_zgetrs_tile_async on LAPACKE_zgetrf's factors n=%d nb=%d: returned %d, info %d, resid %.3g",
               n, nb, ret, info, r);

    /* no pivoting, on a diagonally dominant matrix */
    add_diagonal(n, n, A0, lda, 2.0 * n);
    starsolve_desc_from_lapack(dA, A0, lda);
    req = starsolve_request_create();
    ret = starsolve_zgetrf_nopiv_tile_async(dA, req);
    info = starsolve_request_wait(req);
    starsolve_request_destroy(req);
    starsolve_desc_to_lapack(dA, A, lda);
    r = check_zgetrf(n, n, A0, lda, A, lda, NULL, 1);
    TEST_CHECK(ret == 0 && info == 0 && check_passes(r),
               "starsolve_zgetrf_nopiv_tile_async n=%d nb=%d: returned %d, info %d, ||A-LU||/(||A|| n eps) = %.3g",
               n, nb, ret, info, r);

    /* singular: the info comes through the request */
    int col = n - 1 - n / 3;
    for (int i = 0; i < n; i++)
        A0[i + (size_t)col * lda] = 0.0;
    starsolve_desc_from_lapack(dA, A0, lda);
    req = starsolve_request_create();
    ret = starsolve_zgetrf_tile_async(dA, piv, req);
    info = starsolve_request_wait(req);
    starsolve_request_destroy(req);
    TEST_CHECK(ret == 0 && info == col + 1,
               "starsolve_zgetrf_tile_async, column %d zero, n=%d nb=%d: returned %d, request info %d, expected %d",
               col, n, nb, ret, info, col + 1);
out:
    starsolve_pivots_destroy(piv);
    starsolve_desc_destroy(dB);
    starsolve_desc_destroy(dA);
    free(A0); free(A); free(B0); free(X); free(ipiv);
}

/* The drivers' checks without a copy of A (-regen, or a matrix that fills memory):
 * the estimate on A regenerated from its recipe must match the estimate on a
 * stored copy, for a factor that is right and for one spoiled by one entry.
 * m x n = 16000 x 1000 takes the per-column generator of large matrices, 1200 x
 * 1200 (with a diagonal shift, as -nopiv's matrix) the single sequence; both span
 * several of the regeneration's slabs. Factors from LAPACK: this tests the checks. */
static void lu_check_regenerated(int m, int n, double shift, unsigned seed)
{
    struct matgen g = { MATGEN_RANDOM, m, n, seed, shift };
    int k = m < n ? m : n, nrhs = 2;
    starsolve_complex64_t *A0 = test_znew_matrix(m, n), *LU = test_znew_matrix(m, n);
    starsolve_complex64_t *B = test_znew_matrix(n, nrhs), *X = test_znew_matrix(n, nrhs);
    int *ipiv = malloc((size_t)k * sizeof *ipiv);
    gen_zmatrix(m, n, A0, m, seed);
    add_diagonal(m, n, A0, m, shift);
    memcpy(LU, A0, (size_t)m * n * sizeof *LU);
    int info = LAPACKE_zgetrf_work(LAPACK_COL_MAJOR, m, n, LU, m, ipiv);
    double stored = check_zgetrf(m, n, A0, m, LU, m, ipiv, 0), regen = check_zgetrf_matgen(&g, LU, m, ipiv);
    TEST_CHECK(info == 0 && check_passes(stored) && check_passes(regen) && regen <= 2 * stored && stored <= 2 * regen,
               "check_zgetrf_matgen %d x %d shift %g: %.3g, on a stored copy %.3g (both <= 30, within 2x)", m, n, shift,
               regen, stored);
    if (m == n) {
        gen_zmatrix(n, nrhs, B, n, seed + 1);
        memcpy(X, B, (size_t)n * nrhs * sizeof *X);
        LAPACKE_zgetrs_work(LAPACK_COL_MAJOR, 'N', n, nrhs, LU, m, ipiv, X, n);
        stored = check_zsolve('N', n, nrhs, A0, m, X, n, B, n);
        regen = check_zsolve_matgen(&g, nrhs, X, n, B, n);
        TEST_CHECK(check_passes(stored) && check_passes(regen) && regen <= 2 * stored && stored <= 2 * regen,
                   "check_zsolve_matgen n %d: %.3g, on a stored copy %.3g", n, regen, stored);
    }
    /* one wrong entry of U, large enough to be seen through random vectors in single precision too */
    LU[k / 3 + (size_t)(k / 3) * m] += (double)m * n;
    stored = check_zgetrf(m, n, A0, m, LU, m, ipiv, 0);
    regen = check_zgetrf_matgen(&g, LU, m, ipiv);
    TEST_CHECK(!check_passes(stored) && !check_passes(regen), "check_zgetrf_matgen %d x %d on a spoiled factor: %.3g, "
               "on a stored copy %.3g (both must fail)", m, n, regen, stored);
    free(A0); free(LU); free(B); free(X); free(ipiv);
}

/* cpu_ztrsm in every side, uplo, trans and diag against cblas_ztrsm on the same operands: a scalar alpha
 * other than 1 (complex in c and z), orders below, at and above the recursion's leaves (8; 16 on the left side
 * in real precisions), one and several columns, lda and ldb above the order. The triangle is dominant (condition
 * near 1): the two results differ by rounding only, a few eps times the order. The library's factorizations call four of the 24 variants
 * and its solves eight (one of them also a factorization's); this covers them all. */
static void trsm_cpu_against_cblas(void)
{
    static const struct { int m, n; } shapes[] = { { 1, 1 }, { 8, 5 }, { 9, 2 }, { 16, 3 }, { 17, 20 }, { 33, 17 },
                                                    { 100, 1 }, { 100, 64 }, { 70, 131 } };
    const char *sides = "LR", *uplos = "LU", *transes = "NTC", *diags = "NU";
    starsolve_complex64_t alpha = 0.75;
#if defined(STARSOLVE_PRECISION_Z) || defined(STARSOLVE_PRECISION_C)
    alpha -= 0.5 * I;
#endif
    for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; c++) {
        const int m = shapes[c].m, n = shapes[c].n;
        for (int si = 0; si < 2; si++) {
            const char side = sides[si];
            const int k = side == 'L' ? m : n, lda = k + 3, ldb = m + 2;
            starsolve_complex64_t *A = test_znew_matrix(lda, k), *B0 = test_znew_matrix(ldb, n);
            starsolve_complex64_t *X = test_znew_matrix(ldb, n), *Xref = test_znew_matrix(ldb, n);
            gen_zmatrix(k, k, A, lda, 1000 + (unsigned)c);
            gen_zmatrix(m, n, B0, ldb, 1100 + (unsigned)c);
            for (int j = 0; j < k; j++)
                A[j + (size_t)j * lda] += 2.0 * k;   /* dominant either way the triangle is read */
            for (int ui = 0; ui < 2; ui++)
                for (int ti = 0; ti < 3; ti++)
                    for (int di = 0; di < 2; di++) {
                        const char uplo = uplos[ui], trans = transes[ti], diag = diags[di];
                        test_zcopy_matrix(m, n, B0, ldb, X, ldb);
                        test_zcopy_matrix(m, n, B0, ldb, Xref, ldb);
                        cpu_ztrsm(side, uplo, trans, diag, m, n, alpha, A, lda, X, ldb);
                        cblas_ztrsm(CblasColMajor, side == 'L' ? CblasLeft : CblasRight,
                                    uplo == 'L' ? CblasLower : CblasUpper,
                                    trans == 'N' ? CblasNoTrans : trans == 'T' ? CblasTrans : CblasConjTrans,
                                    diag == 'U' ? CblasUnit : CblasNonUnit, m, n, CBLAS_SADDR(alpha), A, lda, Xref,
                                    ldb);
                        double diff = 0, size = 0;
                        for (int j = 0; j < n; j++)
                            for (int i = 0; i < m; i++) {
                                diff = fmax(diff, cabs(X[i + (size_t)j * ldb] - Xref[i + (size_t)j * ldb]));
                                size = fmax(size, cabs(Xref[i + (size_t)j * ldb]));
                            }
                        double r = diff / (size * k * LAPACKE_dlamch('E'));
                        TEST_CHECK(check_passes(r) && test_zpad_intact(m, n, X, ldb),
                                   "cpu_ztrsm %c%c%c%c %d x %d: max |X - cblas's| / (max |X| k eps) = %.3g, or a "
                                   "row past m written", side, uplo, trans, diag, m, n, r);
                    }
            free(A); free(B0); free(X); free(Xref);
        }
    }
}

int test_zlu(void)
{
    long failed_before = testing_counts.failed;
    trsm_cpu_against_cblas();
    /* square: n = 1, nb = 1, nb > n, n a multiple of nb or not, lda > n */
    static const struct { int n, nb, pad, nrhs; } square[] = {
        { 1, 1, 0, 1 },   { 1, 32, 2, 2 },   { 5, 1, 0, 3 },    { 5, 7, 3, 1 },     { 5, 64, 0, 2 },
        { 20, 1, 1, 2 },  { 64, 32, 1, 3 },  { 64, 7, 0, 2 },   { 100, 32, 5, 3 },  { 100, 7, 0, 1 },
        { 257, 64, 3, 4 }, { 257, 32, 0, 2 },
    };
    for (size_t c = 0; c < sizeof square / sizeof square[0]; c++)
        lu_square(square[c].n, square[c].nb, square[c].pad, square[c].nrhs, 100 + 10 * (unsigned)c);

    /* tall and wide, for getrf and getrf_nopiv */
    static const struct { int m, n, nb, pad; } shape[] = {
        { 100, 37, 16, 2 }, { 37, 100, 16, 0 }, { 257, 64, 32, 1 }, { 64, 257, 32, 0 }, { 20, 5, 7, 0 },
        { 5, 20, 7, 1 },    { 10, 1, 4, 0 },    { 1, 10, 4, 0 },    { 3, 50, 64, 2 },   { 50, 3, 64, 0 },
    };
    for (size_t c = 0; c < sizeof shape / sizeof shape[0]; c++)
        lu_shape(shape[c].m, shape[c].n, shape[c].nb, shape[c].pad, 300 + 10 * (unsigned)c);
    for (size_t c = 0; c < sizeof shape / sizeof shape[0]; c++)
        lu_nopiv(shape[c].m, shape[c].n, shape[c].nb, shape[c].pad, 400 + 10 * (unsigned)c);
    for (size_t c = 0; c < sizeof square / sizeof square[0]; c++)
        lu_nopiv(square[c].n, square[c].n, square[c].nb, square[c].pad, 500 + 10 * (unsigned)c);

    /* pivots that tile-local pivoting cannot find */
    lu_zero_diagonal_tile(100, 32, 601);
    lu_zero_diagonal_tile(64, 7, 602);
    lu_zero_diagonal_tile(257, 64, 603);
    lu_pivots_like_lapack(100, 32, 1, 611);
    lu_pivots_like_lapack(100, 32, 0, 612);
    lu_pivots_like_lapack(64, 7, 0, 613);
    lu_pivots_like_lapack(257, 64, 0, 614);

    /* exactly singular: zero pivot in the first tile, and in a later one */
    lu_singular(100, 32, 5, 701);
    lu_singular(100, 32, 70, 702);
    lu_singular(257, 64, 200, 703);

    lu_nan(100, 32, 801);
    lu_nan(20, 7, 802);

    lu_check_regenerated(16000, 1000, 0, 811);
    lu_check_regenerated(1200, 1200, 1200, 812);

    /* the tile API: one tile (nb > n), several, partial last tiles */
    lu_tile(1, 1, 1, 901);
    lu_tile(5, 7, 2, 902);
    lu_tile(100, 32, 3, 903);
    lu_tile(257, 64, 5, 904);

    /* the GPU's trailing updates on CPU workers: several tile GEMMs per task
     * (3, and a whole tile column; LU with pivoting then solves with L(k,k)^-1
     * in one task per column), with partial tiles, lda > n, a later zero
     * pivot and a NaN; then the automatic choice again */
    static const int update_tiles[] = { 3, 1000 };
    for (size_t u = 0; u < sizeof update_tiles / sizeof update_tiles[0]; u++) {
        TEST_CHECK(starsolve_set_update_tiles(update_tiles[u]) == 0 && starsolve_get_update_tiles() == update_tiles[u],
                   "starsolve_set_update_tiles(%d)", update_tiles[u]);
        lu_square(100, 7, 2, 2, 1001 + 10 * (unsigned)u);
        lu_square(257, 32, 0, 3, 1002 + 10 * (unsigned)u);
        lu_shape(257, 64, 32, 1, 1003 + 10 * (unsigned)u);
        lu_shape(70, 200, 32, 2, 1009 + 10 * (unsigned)u);   /* wide: the last panel's L(k,k) is 6 x 6 */
        lu_nopiv(100, 100, 7, 3, 1004 + 10 * (unsigned)u);
        lu_nopiv(64, 257, 32, 0, 1005 + 10 * (unsigned)u);
        lu_nopiv(700, 700, 300, 2, 1010 + 10 * (unsigned)u);
        lu_singular(257, 64, 200, 1006 + 10 * (unsigned)u);
        lu_nan(100, 32, 1007 + 10 * (unsigned)u);
        lu_tile(257, 64, 2, 1008 + 10 * (unsigned)u);
    }
    TEST_CHECK(starsolve_set_update_tiles(-1) == -1, "starsolve_set_update_tiles(-1) must fail");
    TEST_CHECK(starsolve_set_update_tiles(0) == 0 && starsolve_get_update_tiles() == (starsolve_ngpus() ? INT_MAX : 1),
               "starsolve_set_update_tiles(0): %d", starsolve_get_update_tiles());

    return (int)(testing_counts.failed - failed_before);
}
