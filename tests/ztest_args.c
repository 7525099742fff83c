/* Bad arguments, one precision. Generic source: written once in double complex,
 * turned into s, d, c, z by scripts/genprec.sh at build time.
 *
 * Every argument of every LAPACK-layout routine that can be wrong is made wrong
 * once, alone: the routine must return -i for the i-th argument (LAPACK's order,
 * 1-based) and write nothing. When several are wrong, the first one is reported,
 * as in LAPACK. Quick returns (a zero dimension) are not errors. The tile
 * routines are held to the same rule with their own argument order; a bad call
 * must not submit anything, so the request it was given stays at info 0. */
#include <complex.h>
#include <stdlib.h>
#include <string.h>
#include <lapacke.h>
/* gen/tests/ has no testing.h: found as $(srcdir)/include/../tests/testing.h */
#include "../tests/testing.h"

/* Run `call`; its info must be `want`. The FAIL line quotes the call. */
#define ARG_CHECK(want, call)                                                             \
    do {                                                                                  \
        int got_ = (call);                                                                \
        TEST_CHECK(got_ == (want), "%s = %d, expected %d", #call, got_, (want));          \
    } while (0)

enum { N = 4, LD = 6, NRHS = 2 };

/* The arrays the bad calls get, and copies to show that nothing was written. */
struct operands {
    starsolve_complex64_t A[LD * N], B[LD * NRHS], A0[LD * N], B0[LD * NRHS];
    int ipiv[N], ipiv0[N];
};

static void operands_init(struct operands *o, unsigned seed)
{
    /* Hermitian positive definite, so that a call that wrongly goes ahead still
     * has a well-defined matrix to work on */
    gen_zhpd(N, o->A, LD, seed);
    gen_zmatrix(N, NRHS, o->B, LD, seed + 1);
    for (int i = 0; i < N; i++)
        o->ipiv[i] = i + 1;
    memcpy(o->A0, o->A, sizeof o->A);
    memcpy(o->B0, o->B, sizeof o->B);
    memcpy(o->ipiv0, o->ipiv, sizeof o->ipiv);
}

static void operands_untouched(const struct operands *o, const char *routine)
{
    TEST_CHECK(memcmp(o->A, o->A0, sizeof o->A) == 0 && memcmp(o->B, o->B0, sizeof o->B) == 0 &&
               memcmp(o->ipiv, o->ipiv0, sizeof o->ipiv) == 0,
               "%s: a call with a bad argument wrote into A, B or ipiv", routine);
}

static void args_getrf(void)
{
    struct operands o;
    operands_init(&o, 11);
    starsolve_complex64_t *A = o.A;
    int *ipiv = o.ipiv;
    ARG_CHECK(-1, starsolve_zgetrf(-1, N, A, LD, ipiv));
    ARG_CHECK(-2, starsolve_zgetrf(N, -1, A, LD, ipiv));
    ARG_CHECK(-3, starsolve_zgetrf(N, N, NULL, LD, ipiv));
    ARG_CHECK(-4, starsolve_zgetrf(N, N, A, N - 1, ipiv));
    ARG_CHECK(-4, starsolve_zgetrf(0, N, A, 0, ipiv));       /* lda >= max(1, m) even for m = 0 */
    ARG_CHECK(-5, starsolve_zgetrf(N, N, A, LD, NULL));
    ARG_CHECK(-1, starsolve_zgetrf(-1, -1, NULL, 0, NULL));  /* the first bad argument wins */
    ARG_CHECK(-2, starsolve_zgetrf(N, -1, NULL, 0, NULL));
    ARG_CHECK(-4, starsolve_zgetrf(N, N, A, 1, NULL));
    ARG_CHECK(0, starsolve_zgetrf(0, N, A, 1, ipiv));         /* quick returns */
    ARG_CHECK(0, starsolve_zgetrf(N, 0, A, LD, ipiv));
    operands_untouched(&o, "starsolve_zgetrf");

    ARG_CHECK(-1, starsolve_zgetrf_nopiv(-1, N, A, LD));
    ARG_CHECK(-2, starsolve_zgetrf_nopiv(N, -1, A, LD));
    ARG_CHECK(-3, starsolve_zgetrf_nopiv(N, N, NULL, LD));
    ARG_CHECK(-4, starsolve_zgetrf_nopiv(N, N, A, N - 1));
    ARG_CHECK(-4, starsolve_zgetrf_nopiv(0, N, A, 0));
    ARG_CHECK(-1, starsolve_zgetrf_nopiv(-1, -1, NULL, 0));
    ARG_CHECK(0, starsolve_zgetrf_nopiv(0, N, A, 1));
    ARG_CHECK(0, starsolve_zgetrf_nopiv(N, 0, A, LD));
    operands_untouched(&o, "starsolve_zgetrf_nopiv");
}

static void args_getrs_gesv(void)
{
    struct operands o;
    operands_init(&o, 21);
    starsolve_complex64_t *A = o.A, *B = o.B;
    int *ipiv = o.ipiv;
    /* pivots that point outside 1..n would make the row swaps read out of bounds */
    int ipiv_zero[N] = { 1, 2, 0, 4 }, ipiv_big[N] = { 1, 2, 3, N + 1 };
    ARG_CHECK(-1, starsolve_zgetrs('X', N, NRHS, A, LD, ipiv, B, LD));
    ARG_CHECK(-1, starsolve_zgetrs('\0', N, NRHS, A, LD, ipiv, B, LD));
    ARG_CHECK(-2, starsolve_zgetrs('N', -1, NRHS, A, LD, ipiv, B, LD));
    ARG_CHECK(-3, starsolve_zgetrs('N', N, -1, A, LD, ipiv, B, LD));
    ARG_CHECK(-4, starsolve_zgetrs('N', N, NRHS, NULL, LD, ipiv, B, LD));
    ARG_CHECK(-5, starsolve_zgetrs('T', N, NRHS, A, N - 1, ipiv, B, LD));
    ARG_CHECK(-6, starsolve_zgetrs('N', N, NRHS, A, LD, NULL, B, LD));
    ARG_CHECK(-6, starsolve_zgetrs('N', N, NRHS, A, LD, ipiv_zero, B, LD));
    ARG_CHECK(-6, starsolve_zgetrs('C', N, NRHS, A, LD, ipiv_big, B, LD));
    ARG_CHECK(-7, starsolve_zgetrs('N', N, NRHS, A, LD, ipiv, NULL, LD));
    ARG_CHECK(-8, starsolve_zgetrs('N', N, NRHS, A, LD, ipiv, B, N - 1));
    ARG_CHECK(-8, starsolve_zgetrs('N', 0, NRHS, A, 1, ipiv, B, 0));   /* ldb >= max(1, n) even for n = 0 */
    ARG_CHECK(-1, starsolve_zgetrs('X', -1, -1, NULL, 0, NULL, NULL, 0));
    ARG_CHECK(-3, starsolve_zgetrs('N', N, -1, NULL, 0, NULL, NULL, 0));
    ARG_CHECK(0, starsolve_zgetrs('N', 0, NRHS, A, 1, ipiv, B, 1));
    ARG_CHECK(0, starsolve_zgetrs('N', N, 0, A, LD, ipiv, B, LD));
    operands_untouched(&o, "starsolve_zgetrs");

    ARG_CHECK(-1, starsolve_zgesv(-1, NRHS, A, LD, ipiv, B, LD));
    ARG_CHECK(-2, starsolve_zgesv(N, -1, A, LD, ipiv, B, LD));
    ARG_CHECK(-3, starsolve_zgesv(N, NRHS, NULL, LD, ipiv, B, LD));
    ARG_CHECK(-4, starsolve_zgesv(N, NRHS, A, N - 1, ipiv, B, LD));
    ARG_CHECK(-5, starsolve_zgesv(N, NRHS, A, LD, NULL, B, LD));
    ARG_CHECK(-6, starsolve_zgesv(N, NRHS, A, LD, ipiv, NULL, LD));
    ARG_CHECK(-7, starsolve_zgesv(N, NRHS, A, LD, ipiv, B, N - 1));
    ARG_CHECK(-4, starsolve_zgesv(0, NRHS, A, 0, ipiv, B, 1));
    ARG_CHECK(-7, starsolve_zgesv(0, NRHS, A, 1, ipiv, B, 0));
    ARG_CHECK(-1, starsolve_zgesv(-1, -1, NULL, 0, NULL, NULL, 0));
    ARG_CHECK(-4, starsolve_zgesv(N, NRHS, A, 1, NULL, NULL, 0));
    ARG_CHECK(0, starsolve_zgesv(0, NRHS, A, 1, ipiv, B, 1));
    operands_untouched(&o, "starsolve_zgesv");
}

static void args_cholesky(void)
{
    struct operands o;
    operands_init(&o, 31);
    starsolve_complex64_t *A = o.A, *B = o.B;
    ARG_CHECK(-1, starsolve_zpotrf('X', N, A, LD));
    ARG_CHECK(-1, starsolve_zpotrf('N', N, A, LD));          /* a trans value is not an uplo */
    ARG_CHECK(-2, starsolve_zpotrf('L', -1, A, LD));
    ARG_CHECK(-3, starsolve_zpotrf('U', N, NULL, LD));
    ARG_CHECK(-4, starsolve_zpotrf('L', N, A, N - 1));
    ARG_CHECK(-4, starsolve_zpotrf('L', 0, A, 0));
    ARG_CHECK(-1, starsolve_zpotrf('X', -1, NULL, 0));
    ARG_CHECK(0, starsolve_zpotrf('U', 0, A, 1));
    operands_untouched(&o, "starsolve_zpotrf");

    ARG_CHECK(-1, starsolve_zpotrs('X', N, NRHS, A, LD, B, LD));
    ARG_CHECK(-2, starsolve_zpotrs('L', -1, NRHS, A, LD, B, LD));
    ARG_CHECK(-3, starsolve_zpotrs('L', N, -1, A, LD, B, LD));
    ARG_CHECK(-4, starsolve_zpotrs('U', N, NRHS, NULL, LD, B, LD));
    ARG_CHECK(-5, starsolve_zpotrs('L', N, NRHS, A, N - 1, B, LD));
    ARG_CHECK(-6, starsolve_zpotrs('L', N, NRHS, A, LD, NULL, LD));
    ARG_CHECK(-7, starsolve_zpotrs('U', N, NRHS, A, LD, B, N - 1));
    ARG_CHECK(-7, starsolve_zpotrs('L', 0, NRHS, A, 1, B, 0));
    ARG_CHECK(-2, starsolve_zpotrs('L', -1, -1, NULL, 0, NULL, 0));
    ARG_CHECK(0, starsolve_zpotrs('L', 0, NRHS, A, 1, B, 1));
    ARG_CHECK(0, starsolve_zpotrs('U', N, 0, A, LD, B, LD));
    operands_untouched(&o, "starsolve_zpotrs");

    ARG_CHECK(-1, starsolve_zposv('X', N, NRHS, A, LD, B, LD));
    ARG_CHECK(-2, starsolve_zposv('L', -1, NRHS, A, LD, B, LD));
    ARG_CHECK(-3, starsolve_zposv('U', N, -1, A, LD, B, LD));
    ARG_CHECK(-4, starsolve_zposv('L', N, NRHS, NULL, LD, B, LD));
    ARG_CHECK(-5, starsolve_zposv('L', N, NRHS, A, N - 1, B, LD));
    ARG_CHECK(-6, starsolve_zposv('U', N, NRHS, A, LD, NULL, LD));
    ARG_CHECK(-7, starsolve_zposv('L', N, NRHS, A, LD, B, N - 1));
    ARG_CHECK(-5, starsolve_zposv('L', 0, NRHS, A, 0, B, 1));
    ARG_CHECK(-1, starsolve_zposv('\0', -1, -1, NULL, 0, NULL, 0));
    ARG_CHECK(0, starsolve_zposv('L', 0, NRHS, A, 1, B, 1));
    operands_untouched(&o, "starsolve_zposv");
}

/* LAPACK reads its option characters through lsame, which ignores case:
 * 'n', 't', 'c', 'l', 'u' are valid arguments, not bad ones. */
static void args_lowercase(void)
{
    struct operands o;
    operands_init(&o, 41);
    int info = starsolve_zpotrf('l', N, o.A, LD);
    TEST_CHECK(info == 0, "starsolve_zpotrf('l', ...) = %d: LAPACK accepts lower-case uplo", info);
    operands_init(&o, 41);
    info = starsolve_zpotrf('u', N, o.A, LD);
    TEST_CHECK(info == 0, "starsolve_zpotrf('u', ...) = %d: LAPACK accepts lower-case uplo", info);
    operands_init(&o, 41);
    info = starsolve_zposv('u', N, NRHS, o.A, LD, o.B, LD);
    TEST_CHECK(info == 0, "starsolve_zposv('u', ...) = %d: LAPACK accepts lower-case uplo", info);
    operands_init(&o, 41);
    info = starsolve_zpotrs('l', N, NRHS, o.A, LD, o.B, LD);   /* A is not factored: only info matters */
    TEST_CHECK(info == 0, "starsolve_zpotrs('l', ...) = %d: LAPACK accepts lower-case uplo", info);
    for (const char *t = "ntc"; *t; t++) {
        operands_init(&o, 41);
        info = starsolve_zgetrs(*t, N, NRHS, o.A, LD, o.ipiv, o.B, LD);
        TEST_CHECK(info == 0, "starsolve_zgetrs('%c', ...) = %d: LAPACK accepts lower-case trans", *t, info);
    }
}

/* The tile routines, argument order of starsolve.h. Descriptors that are wrong
 * in one way each: another precision, not square, another tile size, another
 * number of rows. */
static void args_tile(void)
{
    /* any precision but this file's own */
    const starsolve_prec_t other = (starsolve_prec_t)((STARSOLVE_Z + 1) % 4);
    starsolve_complex64_t A[N * N], Aout[N * N];
    starsolve_desc_t *dA = NULL, *dA3 = NULL, *dRect = NULL, *dOther = NULL, *dB = NULL, *dBnb = NULL, *dBm = NULL,
                     *dBother = NULL;
    starsolve_pivots_t *piv = NULL, *piv3 = NULL;
    int ret[8] = {
        starsolve_desc_create(&dA, STARSOLVE_Z, N, N, 2),     starsolve_desc_create(&dA3, STARSOLVE_Z, N, N, 3),
        starsolve_desc_create(&dRect, STARSOLVE_Z, N, N - 1, 2), starsolve_desc_create(&dOther, other, N, N, 2),
        starsolve_desc_create(&dB, STARSOLVE_Z, N, NRHS, 2),  starsolve_desc_create(&dBnb, STARSOLVE_Z, N, NRHS, 3),
        starsolve_desc_create(&dBm, STARSOLVE_Z, N - 1, NRHS, 2), starsolve_desc_create(&dBother, other, N, NRHS, 2),
    };
    int bad = 0;
    for (int k = 0; k < 8; k++)
        bad |= ret[k] != 0;
    if (!TEST_CHECK(!bad, "starsolve_desc_create for the tile argument tests failed"))
        goto out;
    if (!TEST_CHECK(starsolve_pivots_create(&piv, dA) == 0 && starsolve_pivots_create(&piv3, dA3) == 0,
                    "starsolve_pivots_create failed"))
        goto out;
    gen_zhpd(N, A, N, 51);
    starsolve_desc_from_lapack(dA, A, N);
    starsolve_request_t *req = starsolve_request_create();

    ARG_CHECK(-1, starsolve_zgetrf_tile_async(NULL, piv, req));
    ARG_CHECK(-1, starsolve_zgetrf_tile_async(dOther, piv, req));
    ARG_CHECK(-2, starsolve_zgetrf_tile_async(dA, NULL, req));
    ARG_CHECK(-2, starsolve_zgetrf_tile_async(dA, piv3, req));     /* pivots of another tiling */
    ARG_CHECK(-3, starsolve_zgetrf_tile_async(dA, piv, NULL));
    ARG_CHECK(-1, starsolve_zgetrf_tile_async(NULL, NULL, NULL));

    ARG_CHECK(-1, starsolve_zgetrf_nopiv_tile_async(NULL, req));
    ARG_CHECK(-1, starsolve_zgetrf_nopiv_tile_async(dOther, req));
    ARG_CHECK(-2, starsolve_zgetrf_nopiv_tile_async(dA, NULL));

    ARG_CHECK(-1, starsolve_zgetrs_tile_async('X', dA, piv, dB, req));
    ARG_CHECK(-2, starsolve_zgetrs_tile_async('N', NULL, piv, dB, req));
    ARG_CHECK(-2, starsolve_zgetrs_tile_async('N', dOther, piv, dB, req));
    ARG_CHECK(-2, starsolve_zgetrs_tile_async('T', dRect, piv, dB, req));
    ARG_CHECK(-3, starsolve_zgetrs_tile_async('N', dA, NULL, dB, req));
    ARG_CHECK(-3, starsolve_zgetrs_tile_async('N', dA, piv3, dB, req));
    ARG_CHECK(-4, starsolve_zgetrs_tile_async('N', dA, piv, NULL, req));
    ARG_CHECK(-4, starsolve_zgetrs_tile_async('N', dA, piv, dBother, req));
    ARG_CHECK(-4, starsolve_zgetrs_tile_async('C', dA, piv, dBnb, req));
    ARG_CHECK(-4, starsolve_zgetrs_tile_async('N', dA, piv, dBm, req));
    ARG_CHECK(-5, starsolve_zgetrs_tile_async('N', dA, piv, dB, NULL));
    ARG_CHECK(-1, starsolve_zgetrs_tile_async('X', NULL, NULL, NULL, NULL));

    ARG_CHECK(-1, starsolve_zpotrf_tile_async('X', dA, req));
    ARG_CHECK(-2, starsolve_zpotrf_tile_async('L', NULL, req));
    ARG_CHECK(-2, starsolve_zpotrf_tile_async('U', dOther, req));
    ARG_CHECK(-2, starsolve_zpotrf_tile_async('L', dRect, req));
    ARG_CHECK(-3, starsolve_zpotrf_tile_async('L', dA, NULL));

    ARG_CHECK(-1, starsolve_zpotrs_tile_async('X', dA, dB, req));
    ARG_CHECK(-2, starsolve_zpotrs_tile_async('L', NULL, dB, req));
    ARG_CHECK(-2, starsolve_zpotrs_tile_async('L', dOther, dB, req));
    ARG_CHECK(-2, starsolve_zpotrs_tile_async('U', dRect, dB, req));
    ARG_CHECK(-3, starsolve_zpotrs_tile_async('L', dA, NULL, req));
    ARG_CHECK(-3, starsolve_zpotrs_tile_async('L', dA, dBother, req));
    ARG_CHECK(-3, starsolve_zpotrs_tile_async('U', dA, dBnb, req));
    ARG_CHECK(-3, starsolve_zpotrs_tile_async('L', dA, dBm, req));
    ARG_CHECK(-4, starsolve_zpotrs_tile_async('L', dA, dB, NULL));

    /* nothing was submitted: no info in the request, the descriptor as it was */
    int info = starsolve_request_wait(req);
    TEST_CHECK(info == 0, "request after bad tile calls only: info = %d", info);
    starsolve_request_destroy(req);
    starsolve_desc_to_lapack(dA, Aout, N);
    TEST_CHECK(memcmp(A, Aout, sizeof A) == 0, "a tile call with a bad argument changed its descriptor");
out:
    starsolve_pivots_destroy(piv3);
    starsolve_pivots_destroy(piv);
    starsolve_desc_destroy(dBother);
    starsolve_desc_destroy(dBm);
    starsolve_desc_destroy(dBnb);
    starsolve_desc_destroy(dB);
    starsolve_desc_destroy(dOther);
    starsolve_desc_destroy(dRect);
    starsolve_desc_destroy(dA3);
    starsolve_desc_destroy(dA);
}

int test_zargs(void)
{
    long failed_before = testing_counts.failed;
    args_getrf();
    args_getrs_gesv();
    args_cholesky();
    args_lowercase();
    args_tile();
    return (int)(testing_counts.failed - failed_before);
}
