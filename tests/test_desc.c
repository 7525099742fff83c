/* make check: tile descriptors. Not generic: a descriptor is untyped storage,
 * so double covers the layout, and one byte-exact round trip per precision
 * covers the element sizes.
 *
 * - owned descriptors: from_lapack / to_lapack round trips with lda > m, n not a
 *   multiple of nb, nb > n, m != n, m = 0, n = 0; the accessors;
 * - borrowed descriptors (create_lapack): a factorization through the view lands
 *   in the caller's array, and nothing outside the m x n matrix is written;
 * - bad arguments of the descriptor API;
 * - 64-bit offsets: a LAPACK array whose columns start beyond 2^31 elements,
 *   mapped but mostly never touched (cheap, always run); an owned descriptor of
 *   more than 2^31 elements only with STARSOLVE_BIG_TESTS=1 (17 GB of memory). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <lapacke.h>
#include "testing.h"

struct testing_counts testing_counts;

#define PAD_IN (-777.0)    /* rows m..lda-1 of a source array */
#define PAD_OUT (-555.0)   /* what a destination holds before a copy */

/* Entry (i, j) of the round-trip matrices: distinct everywhere, exact. */
static double value_at(int i, int j) { return i + 1000.0 * j + 0.5; }

static void round_trip(int m, int n, int nb, int lda, int ldc)
{
    double *A = testing_alloc(((size_t)lda * n + 1) * sizeof *A), *C = testing_alloc(((size_t)ldc * n + 1) * sizeof *C);
    for (int j = 0; j < n; j++) {
        for (int i = 0; i < lda; i++)
            A[i + (size_t)j * lda] = i < m ? value_at(i, j) : PAD_IN;
        for (int i = 0; i < ldc; i++)
            C[i + (size_t)j * ldc] = PAD_OUT;
    }
    starsolve_desc_t *d = NULL;
    int ret = starsolve_desc_create(&d, STARSOLVE_D, m, n, nb);
    if (!TEST_CHECK(ret == 0 && d != NULL, "starsolve_desc_create(D, m=%d, n=%d, nb=%d) = %d", m, n, nb, ret))
        goto out;
    TEST_CHECK(starsolve_desc_m(d) == m && starsolve_desc_n(d) == n && starsolve_desc_nb(d) == nb,
               "descriptor %dx%d nb=%d: accessors say %dx%d nb=%d", m, n, nb, starsolve_desc_m(d), starsolve_desc_n(d),
               starsolve_desc_nb(d));
    int ret_from = starsolve_desc_from_lapack(d, A, lda);
    int ret_to = starsolve_desc_to_lapack(d, C, ldc);
    TEST_CHECK(ret_from == 0 && ret_to == 0, "round trip m=%d n=%d nb=%d lda=%d ldc=%d: from_lapack %d, to_lapack %d",
               m, n, nb, lda, ldc, ret_from, ret_to);
    int bad_i = -1, bad_j = -1;
    for (int j = 0; j < n && bad_i < 0; j++)
        for (int i = 0; i < ldc && bad_i < 0; i++)
            if (C[i + (size_t)j * ldc] != (i < m ? value_at(i, j) : PAD_OUT)) {
                bad_i = i;
                bad_j = j;
            }
    TEST_CHECK(bad_i < 0, "round trip m=%d n=%d nb=%d lda=%d ldc=%d: C(%d,%d) = %g, expected %g", m, n, nb, lda, ldc,
               bad_i, bad_j, bad_i >= 0 ? C[bad_i + (size_t)bad_j * ldc] : 0.0,
               bad_i >= 0 ? (bad_i < m ? value_at(bad_i, bad_j) : PAD_OUT) : 0.0);
    int changed = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < lda; i++)
            changed |= A[i + (size_t)j * lda] != (i < m ? value_at(i, j) : PAD_IN);
    TEST_CHECK(!changed, "starsolve_desc_from_lapack m=%d n=%d lda=%d wrote into its source", m, n, lda);
out:
    starsolve_desc_destroy(d);
    free(A);
    free(C);
}

/* Byte-exact round trip in each precision: a wrong element size either drops
 * bytes of the m rows or spills into rows m..lda-1. */
static void round_trip_elemsize(starsolve_prec_t prec, size_t elemsize, const char *name)
{
    enum { M = 5, NC = 3, NB = 2, LDA = 7 };
    size_t bytes = (size_t)LDA * NC * elemsize;
    unsigned char *src = testing_alloc(bytes), *dst = testing_alloc(bytes);
    for (size_t k = 0; k < bytes; k++)
        src[k] = (unsigned char)(k * 7 + 1);
    memset(dst, 0xEE, bytes);
    starsolve_desc_t *d = NULL;
    int ret = starsolve_desc_create(&d, prec, M, NC, NB);
    if (TEST_CHECK(ret == 0, "starsolve_desc_create(%s, %d, %d, %d) = %d", name, M, NC, NB, ret)) {
        starsolve_desc_from_lapack(d, src, LDA);
        starsolve_desc_to_lapack(d, dst, LDA);
        int ok = 1;
        for (int j = 0; j < NC; j++) {
            size_t col = (size_t)j * LDA * elemsize, used = (size_t)M * elemsize;
            ok &= memcmp(dst + col, src + col, used) == 0;
            for (size_t b = used; b < (size_t)LDA * elemsize; b++)
                ok &= dst[col + b] == 0xEE;
        }
        TEST_CHECK(ok, "round trip in %s (element of %zu bytes): bytes differ or rows m..lda-1 were written",
                   name, elemsize);
    }
    starsolve_desc_destroy(d);
    free(src);
    free(dst);
}

/* A borrowed descriptor is a view: a factorization on it lands in the caller's
 * array (after flush), with the rows m..lda-1 and, for Cholesky, the other
 * triangle untouched. */
static void borrowed_view(void)
{
    const int n = 37, nb = 8, lda = n + 3;
    double *A0 = testing_alloc((size_t)lda * n * sizeof *A0), *A = testing_alloc((size_t)lda * n * sizeof *A);
    for (size_t k = 0; k < (size_t)lda * n; k++)
        A0[k] = PAD_IN;
    gen_dhpd(n, A0, lda, 7);
    memcpy(A, A0, (size_t)lda * n * sizeof *A);
    starsolve_desc_t *d = NULL;
    int ret = starsolve_desc_create_lapack(&d, STARSOLVE_D, n, n, nb, A, lda);
    if (TEST_CHECK(ret == 0, "starsolve_desc_create_lapack(D, %d, %d, %d, lda=%d) = %d", n, n, nb, lda, ret)) {
        TEST_CHECK(starsolve_desc_m(d) == n && starsolve_desc_n(d) == n && starsolve_desc_nb(d) == nb,
                   "borrowed descriptor: accessors say %dx%d nb=%d", starsolve_desc_m(d), starsolve_desc_n(d),
                   starsolve_desc_nb(d));
        double dummy[4];
        TEST_CHECK(starsolve_desc_from_lapack(d, dummy, 4) < 0 && starsolve_desc_to_lapack(d, dummy, 4) < 0,
                   "from_lapack / to_lapack accepted a borrowed descriptor (they copy into owned storage only)");
        starsolve_request_t *req = starsolve_request_create();
        ret = starsolve_dpotrf_tile_async('L', d, req);
        int info = starsolve_request_wait(req);
        starsolve_request_destroy(req);
        starsolve_desc_flush(d);
        double r = check_dpotrf('L', n, A0, lda, A, lda, 1);
        TEST_CHECK(ret == 0 && info == 0 && check_passes(r),
                   "dpotrf_tile_async on a borrowed %dx%d (nb=%d lda=%d): returned %d, info %d, ||A-LL^T||/(||A|| n eps) = %.3g",
                   n, n, nb, lda, ret, info, r);
        int outside = 0;
        for (int j = 0; j < n; j++)
            for (int i = 0; i < lda; i++)
                if (i < j || i >= n)
                    outside |= A[i + (size_t)j * lda] != A0[i + (size_t)j * lda];
        TEST_CHECK(!outside, "dpotrf_tile_async on a borrowed descriptor wrote above the diagonal or below row n");
        starsolve_desc_destroy(d);
    }

    /* a wide view, n not a multiple of nb, m != n: LU through the view */
    const int m2 = 19, n2 = 45, lda2 = 23;
    double *B0 = testing_alloc((size_t)lda2 * n2 * sizeof *B0), *B = testing_alloc((size_t)lda2 * n2 * sizeof *B);
    int ipiv[19];
    for (size_t k = 0; k < (size_t)lda2 * n2; k++)
        B0[k] = PAD_IN;
    gen_dmatrix(m2, n2, B0, lda2, 8);
    memcpy(B, B0, (size_t)lda2 * n2 * sizeof *B);
    starsolve_pivots_t *piv = NULL;
    ret = starsolve_desc_create_lapack(&d, STARSOLVE_D, m2, n2, nb, B, lda2);
    int ret2 = ret ? -1 : starsolve_pivots_create(&piv, d);
    if (TEST_CHECK(ret == 0 && ret2 == 0, "create_lapack(D, %d, %d, %d, lda=%d) = %d, pivots_create = %d", m2, n2, nb,
                   lda2, ret, ret2)) {
        starsolve_request_t *req = starsolve_request_create();
        ret = starsolve_dgetrf_tile_async(d, piv, req);
        int info = starsolve_request_wait(req);
        starsolve_request_destroy(req);
        starsolve_pivots_to_lapack(piv, ipiv);
        starsolve_pivots_destroy(piv);
        starsolve_desc_destroy(d);   /* unregistering brings the tiles home too */
        double r = check_dgetrf(m2, n2, B0, lda2, B, lda2, ipiv, 1);
        TEST_CHECK(ret == 0 && info == 0 && check_passes(r),
                   "dgetrf_tile_async on a borrowed %dx%d (nb=%d lda=%d): returned %d, info %d, ||PA-LU||/(||A|| n eps) = %.3g",
                   m2, n2, nb, lda2, ret, info, r);
        int pad_changed = 0;
        for (int j = 0; j < n2; j++)
            for (int i = m2; i < lda2; i++)
                pad_changed |= B[i + (size_t)j * lda2] != PAD_IN;
        TEST_CHECK(!pad_changed, "dgetrf_tile_async on a borrowed descriptor wrote rows m..lda-1");
    }
    free(A0); free(A); free(B0); free(B);
}

static void bad_arguments(void)
{
    starsolve_desc_t *d = NULL;
    double A[16] = { 0 };
    TEST_CHECK(starsolve_desc_create(NULL, STARSOLVE_D, 4, 4, 2) == -1, "desc_create(NULL, ...) != -1");
    TEST_CHECK(starsolve_desc_create(&d, (starsolve_prec_t)4, 4, 4, 2) == -2, "desc_create with precision 4 != -2");
    TEST_CHECK(starsolve_desc_create(&d, (starsolve_prec_t)-1, 4, 4, 2) == -2, "desc_create with precision -1 != -2");
    TEST_CHECK(starsolve_desc_create(&d, STARSOLVE_D, -1, 4, 2) == -3, "desc_create with m = -1 != -3");
    TEST_CHECK(starsolve_desc_create(&d, STARSOLVE_D, 4, -1, 2) == -4, "desc_create with n = -1 != -4");
    TEST_CHECK(starsolve_desc_create(&d, STARSOLVE_D, 4, 4, 0) == -5, "desc_create with nb = 0 != -5");
    TEST_CHECK(starsolve_desc_create_lapack(NULL, STARSOLVE_D, 4, 4, 2, A, 4) == -1, "desc_create_lapack(NULL, ...) != -1");
    TEST_CHECK(starsolve_desc_create_lapack(&d, (starsolve_prec_t)7, 4, 4, 2, A, 4) == -2,
               "desc_create_lapack with precision 7 != -2");
    TEST_CHECK(starsolve_desc_create_lapack(&d, STARSOLVE_D, -1, 4, 2, A, 4) == -3, "desc_create_lapack with m = -1 != -3");
    TEST_CHECK(starsolve_desc_create_lapack(&d, STARSOLVE_D, 4, -1, 2, A, 4) == -4, "desc_create_lapack with n = -1 != -4");
    TEST_CHECK(starsolve_desc_create_lapack(&d, STARSOLVE_D, 4, 4, 0, A, 4) == -5, "desc_create_lapack with nb = 0 != -5");
    TEST_CHECK(starsolve_desc_create_lapack(&d, STARSOLVE_D, 4, 4, 2, NULL, 4) == -6, "desc_create_lapack with A = NULL != -6");
    TEST_CHECK(starsolve_desc_create_lapack(&d, STARSOLVE_D, 4, 4, 2, A, 3) == -7, "desc_create_lapack with lda < m != -7");
    TEST_CHECK(starsolve_desc_create_lapack(&d, STARSOLVE_D, 0, 4, 2, A, 0) == -7, "desc_create_lapack with m = 0, lda = 0 != -7");

    if (TEST_CHECK(starsolve_desc_create(&d, STARSOLVE_D, 4, 4, 2) == 0, "desc_create(D, 4, 4, 2) failed")) {
        TEST_CHECK(starsolve_desc_from_lapack(d, NULL, 4) == -2, "desc_from_lapack(d, NULL, 4) != -2");
        TEST_CHECK(starsolve_desc_from_lapack(d, A, 3) == -3, "desc_from_lapack with lda < m != -3");
        TEST_CHECK(starsolve_desc_to_lapack(d, NULL, 4) == -2, "desc_to_lapack(d, NULL, 4) != -2");
        TEST_CHECK(starsolve_desc_to_lapack(d, A, 3) == -3, "desc_to_lapack with lda < m != -3");
        starsolve_pivots_t *piv = NULL;
        TEST_CHECK(starsolve_pivots_create(NULL, d) < 0 && starsolve_pivots_create(&piv, NULL) < 0,
                   "pivots_create accepted a NULL argument");
        starsolve_desc_destroy(d);
    }
    TEST_CHECK(starsolve_desc_from_lapack(NULL, A, 4) == -1, "desc_from_lapack(NULL, ...) != -1");
    TEST_CHECK(starsolve_desc_to_lapack(NULL, A, 4) == -1, "desc_to_lapack(NULL, ...) != -1");

    int nb = starsolve_get_nb();
    TEST_CHECK(starsolve_set_nb(0) == -1 && starsolve_set_nb(-3) == -1 && starsolve_get_nb() == nb,
               "starsolve_set_nb(0) / (-3) not refused, or changed nb (%d -> %d)", nb, starsolve_get_nb());
}

/* Columns that start beyond 2^31 elements, without 8.8 GB of memory: a 3 x 2100
 * float matrix with lda = 2^20 spans 2.2e9 elements of address space, mapped
 * with MAP_NORESERVE; only the pages holding the 3 rows of each column are ever
 * touched (about 8 MB). A 32-bit offset anywhere on the LAPACK side (copies in
 * and out of an owned descriptor, the views of a borrowed one in sgetrf) lands
 * on the wrong column or outside the mapping. Offsets inside owned storage are
 * not reached by this: see big_owned_descriptor. */
static void offsets_beyond_2_31(void)
{
    const int m = 3, n = 2100, lda = 1 << 20, nb = 64;
    size_t bytes = (size_t)lda * n * sizeof(float);
    float *A = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (A == MAP_FAILED) {
        testing_skip("64-bit offsets: cannot map %zu bytes of address space here (overcommit refused)", bytes);
        return;
    }
    /* huge pages would make every touched column cost 2 MB instead of 4 kB */
    madvise(A, bytes, MADV_NOHUGEPAGE);
    float *A0 = testing_alloc((size_t)m * n * sizeof *A0), *LU = testing_alloc((size_t)m * n * sizeof *LU);
    int ipiv[3];
    gen_smatrix(m, n, A, lda, 31);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++)
            A0[i + (size_t)j * m] = A[i + (size_t)j * lda];

    starsolve_desc_t *d = NULL;
    if (TEST_CHECK(starsolve_desc_create(&d, STARSOLVE_S, m, n, nb) == 0, "desc_create(S, %d, %d, %d) failed", m, n, nb)) {
        int ret_from = starsolve_desc_from_lapack(d, A, lda);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++)
                A[i + (size_t)j * lda] = -1.0f;
        int ret_to = starsolve_desc_to_lapack(d, A, lda);
        int bad_j = -1;
        for (int j = 0; j < n && bad_j < 0; j++)
            for (int i = 0; i < m; i++)
                if (A[i + (size_t)j * lda] != A0[i + (size_t)j * m])
                    bad_j = j;
        TEST_CHECK(ret_from == 0 && ret_to == 0 && bad_j < 0,
                   "round trip %dx%d with lda = 2^20 (offsets past 2^31 elements): from %d, to %d, first wrong column %d",
                   m, n, ret_from, ret_to, bad_j);
        starsolve_desc_destroy(d);
    }

    starsolve_set_nb(nb);
    int info = starsolve_sgetrf(m, n, A, lda, ipiv);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++)
            LU[i + (size_t)j * m] = A[i + (size_t)j * lda];
    double r = check_sgetrf(m, n, A0, m, LU, m, ipiv, 1);
    TEST_CHECK(info == 0 && check_passes(r),
               "starsolve_sgetrf %dx%d with lda = 2^20 (offsets past 2^31 elements): info %d, ||PA-LU||/(||A|| n eps) = %.3g",
               m, n, info, r);
    munmap(A, bytes);
    free(A0);
    free(LU);
}

/* An owned float descriptor of 46400 x 46400 (2.15e9 elements > 2^31, 8.6 GB)
 * and its 8.6 GB LAPACK array: too much for CI, so only with STARSOLVE_BIG_TESTS=1. */
static void big_owned_descriptor(void)
{
    const char *big = getenv("STARSOLVE_BIG_TESTS");
    const int n = 46400, nb = 512;
    if (!big || strcmp(big, "1") != 0) {
        testing_skip("owned descriptor of %d x %d floats (> 2^31 elements, 17 GB in all): set STARSOLVE_BIG_TESTS=1", n, n);
        return;
    }
    size_t count = (size_t)n * n;
    float *A = malloc(count * sizeof *A);
    if (!A) {
        testing_skip("owned descriptor of %d x %d floats: cannot allocate the %zu-byte LAPACK array", n, n,
                     count * sizeof *A);
        return;
    }
    /* entries are small integers, exact in float, that differ between neighbours and between columns */
    for (size_t j = 0; j < (size_t)n; j++)
        for (size_t i = 0; i < (size_t)n; i++)
            A[i + j * n] = (float)((i * 31 + j * 17) % 65521);
    starsolve_desc_t *d = NULL;
    int ret = starsolve_desc_create(&d, STARSOLVE_S, n, n, nb);
    if (TEST_CHECK(ret == 0, "starsolve_desc_create(S, %d, %d, %d) = %d", n, n, nb, ret)) {
        int ret_from = starsolve_desc_from_lapack(d, A, n);
        memset(A, 0, count * sizeof *A);
        int ret_to = starsolve_desc_to_lapack(d, A, n);
        size_t bad = count;
        for (size_t j = 0; j < (size_t)n && bad == count; j++)
            for (size_t i = 0; i < (size_t)n; i++)
                if (A[i + j * n] != (float)((i * 31 + j * 17) % 65521)) {
                    bad = i + j * n;
                    break;
                }
        TEST_CHECK(ret_from == 0 && ret_to == 0 && bad == count,
                   "round trip of a %d x %d float descriptor: from %d, to %d, first wrong element at offset %zu", n, n,
                   ret_from, ret_to, bad);
        starsolve_desc_destroy(d);
    }
    free(A);
}

/* The distributed API in one process (no starsolve_config_t.mpi): a 1 x 1 grid is a
 * plain owned descriptor, scatter and gather are plain copies, any other grid is refused. */
static void one_process_grid(void)
{
    enum { M = 9, N = 7, LDA = 11 };
    double A[LDA * N], C[LDA * N];
    for (int k = 0; k < LDA * N; k++) {
        A[k] = k + 1;
        C[k] = -1;
    }
    TEST_CHECK(starsolve_mpi_size() == 1 && starsolve_mpi_rank() == 0, "one process: size %d, rank %d",
               starsolve_mpi_size(), starsolve_mpi_rank());
    starsolve_desc_t *d = NULL;
    int ret = starsolve_desc_create_dist(&d, STARSOLVE_D, M, N, 4, 2, 1);
    TEST_CHECK(ret == -6 && !d, "desc_create_dist with a 2x1 grid in one process: %d", ret);
    ret = starsolve_desc_create_dist(&d, STARSOLVE_D, M, N, 4, 1, 1);
    int sc = ret ? -99 : starsolve_desc_scatter(d, A, LDA, 0);
    int bad_root = ret ? -99 : starsolve_desc_gather(d, C, LDA, 1);
    int ga = ret ? -99 : starsolve_desc_gather(d, C, LDA, 0);
    int same = 1;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < LDA; i++)
            same &= C[i + j * LDA] == (i < M ? A[i + j * LDA] : -1);
    TEST_CHECK(ret == 0 && sc == 0 && ga == 0 && bad_root == -4 && same,
               "1x1 grid: create %d, scatter %d, gather %d, gather to root 1 %d, round trip %s", ret, sc, ga,
               bad_root, same ? "exact" : "wrong");
    starsolve_desc_destroy(d);
}

int main(void)
{
    if (testing_init(32) != 0)
        return TESTING_HARD_ERROR;

    static const struct { int m, n, nb, lda, ldc; } cases[] = {
        { 10, 10, 4, 13, 11 },   /* lda > m, partial last tiles */
        { 7, 13, 5, 9, 7 },      /* m != n, n not a multiple of nb */
        { 3, 5, 8, 3, 4 },       /* nb > m and nb > n: one tile */
        { 20, 6, 7, 25, 20 },    /* tall */
        { 16, 16, 4, 16, 16 },   /* exact tiling */
        { 1, 1, 1, 1, 1 },
        { 0, 5, 4, 1, 1 },       /* m = 0 */
        { 5, 0, 4, 5, 5 },       /* n = 0 */
        { 0, 0, 3, 1, 1 },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        round_trip(cases[c].m, cases[c].n, cases[c].nb, cases[c].lda, cases[c].ldc);
    round_trip_elemsize(STARSOLVE_S, sizeof(float), "float");
    round_trip_elemsize(STARSOLVE_D, sizeof(double), "double");
    round_trip_elemsize(STARSOLVE_C, sizeof(starsolve_complex32_t), "float complex");
    round_trip_elemsize(STARSOLVE_Z, sizeof(starsolve_complex64_t), "double complex");
    borrowed_view();
    bad_arguments();
    offsets_beyond_2_31();
    big_owned_descriptor();
    one_process_grid();

    starsolve_finalize();
    return testing_summary();
}
