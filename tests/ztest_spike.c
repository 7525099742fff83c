/* SPIKE banded solver tests of one precision (generic source, see scripts/genprec.sh).
 *
 * Band matrices with kl, ku in {1, 2, 32, 100} (and kl != ku, kl or ku zero), degree of diagonal
 * dominance d in {0.1, 1, 10, 100} (diagonal = d times the sum of the row's other entries), each
 * with the automatic partitions and with a psize that makes several partitions whose sizes do not
 * divide n (and, for K = 1, 2, 32 at d = 1, 10, 100, hundreds of partitions: several per chunk), one and several right-hand sides, mixed precision on and off (d, z): the scaled
 * residual ||b - Ax||_1/(||A|| ||x|| n eps) must be at most 30 and, in double precisions, the
 * relative residual ||b - Ax||_inf / ||b||_inf at most 1e-10. d = 0.1 must be detected as not
 * dominant (iters = -2: solved by gbsv); d >= 1 must be solved by SPIKE itself in double
 * precisions (iters >= 0); in single precision BiCGStab may give up at d = 1 (iters = -1). With
 * the fallback off, a matrix SPIKE does not solve gives info n + 1. AB must not change; bad
 * arguments give LAPACK's negative info. */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "../tests/testing.h"

/* psize 0: automatic; mixed: starsolve_set_spike_mixed */
static void spike_case(int n, int kl, int ku, double dominance, int nrhs, int psize, int mixed)
{
    int ldab = 2 * kl + ku + 1, ldb = n + 1, iters = -7;
    starsolve_complex64_t *AB = testing_alloc((size_t)ldab * n * sizeof *AB), *AB0 = testing_alloc((size_t)ldab * n * sizeof *AB0);
    starsolve_complex64_t *B = testing_alloc((size_t)ldb * nrhs * sizeof *B), *X = testing_alloc((size_t)ldb * nrhs * sizeof *X);
    gen_zband(n, kl, ku, dominance, AB0, ldab, 11u * (unsigned)n + (unsigned)kl);
    memcpy(AB, AB0, (size_t)ldab * n * sizeof *AB);
    gen_zmatrix(n, nrhs, B, ldb, 77);
    memcpy(X, B, (size_t)ldb * nrhs * sizeof *X);
    starsolve_set_spike_psize(psize);
    starsolve_set_spike_mixed(mixed);
    int info = starsolve_zgbsv_spike(n, kl, ku, nrhs, AB, ldab, X, ldb, &iters);
    starsolve_set_spike_psize(0);
    starsolve_set_spike_mixed(1);
    double relative, scaled = check_zgbsolve(n, kl, ku, nrhs, AB0, ldab, X, ldb, B, ldb, &relative);
    /* every precision: the scaled residual of checks/ (<= 30); double precisions also the issue's
     * relative residual <= 1e-10 (in single precision a relative residual depends on the
     * conditioning: for d = 0.1 LAPACK's own gbsv leaves 3e-5 .. 1.2e-4) */
    int single = sizeof(double) == sizeof(float);   /* the generator turns double into float in s and c */
    int path_ok = dominance < 0.5 ? iters == -2 : dominance < 1.0 ? iters != -7 : single ? iters >= -1 : iters >= 0;
    TEST_CHECK(info == 0 && check_passes(scaled) && (single || relative <= 1e-10) && path_ok
               && memcmp(AB, AB0, (size_t)ldab * n * sizeof *AB) == 0,
               "starsolve_zgbsv_spike n=%d kl=%d ku=%d d=%g nrhs=%d psize=%d mixed=%d: info %d, iters %d%s, "
               "||b-Ax||/(||A|| ||x|| n eps) = %.3g, ||b-Ax||/||b|| = %.3g%s", n, kl, ku, dominance, nrhs, psize, mixed,
               info, iters, iters == -1 ? " (BiCGStab gave up: gbsv)" : iters == -2 ? " (not dominant: gbsv)" : "",
               scaled, relative, single ? "" : " (bound 1e-10)");
    free(AB); free(AB0); free(B); free(X);
}

/* fallback off: a matrix far from dominance gives n + 1 and leaves B alone; a dominant one
 * still solves; the truncated-SPIKE solution alone (maxit 0) of a strongly dominant matrix is
 * already close, of a weakly dominant one not yet (the seed's Table 1 trend, in double) */
static void spike_no_fallback(void)
{
    int n = 1003, k = 4, ldab = 3 * k + 1, iters;
    starsolve_complex64_t *AB = testing_alloc((size_t)ldab * n * sizeof *AB), *B = testing_alloc((size_t)n * sizeof *B);
    starsolve_complex64_t *X = testing_alloc((size_t)n * sizeof *X);
    double relative[2];
    starsolve_set_spike_fallback(0);
    gen_zband(n, k, k, 0.1, AB, ldab, 5);
    gen_zmatrix(n, 1, B, n, 6);
    memcpy(X, B, (size_t)n * sizeof *X);
    int info = starsolve_zgbsv_spike(n, k, k, 1, AB, ldab, X, n, &iters);
    TEST_CHECK(info == n + 1 && memcmp(X, B, (size_t)n * sizeof *X) == 0,
               "zgbsv_spike d=0.1 without fallback: info %d (want n+1 = %d), B untouched", info, n + 1);
    starsolve_set_spike_psize(100);
    starsolve_set_spike_mixed(0);
    starsolve_set_spike_maxit(0);
    for (int t = 0; t < 2; t++) {
        gen_zband(n, k, k, t ? 100 : 1, AB, ldab, 5);
        memcpy(X, B, (size_t)n * sizeof *X);
        starsolve_zgbsv_spike(n, k, k, 1, AB, ldab, X, n, &iters);
        check_zgbsolve(n, k, k, 1, AB, ldab, X, n, B, n, &relative[t]);
    }
    /* the same, d = 100, with 59 partitions of 17 rows: the chunks' inner interfaces are solved
     * by the tip-solve task and the truncated solution alone must stay as close (a wrong inner
     * reduced system would leave an O(1) error there, which BiCGStab could otherwise hide) */
    double many;
    starsolve_set_spike_psize(17);
    gen_zband(n, k, k, 100, AB, ldab, 5);
    memcpy(X, B, (size_t)n * sizeof *X);
    starsolve_zgbsv_spike(n, k, k, 1, AB, ldab, X, n, &iters);
    check_zgbsolve(n, k, k, 1, AB, ldab, X, n, B, n, &many);
    starsolve_set_spike_psize(100);
    starsolve_set_spike_maxit(100);
    /* in single precision both sit at the precision's own floor (about 3e-7): only the bound */
    int single = sizeof(double) == sizeof(float);
    TEST_CHECK(many < 1e-4 && (single || many < 1e-10),
               "zgbsv_spike truncated SPIKE alone (maxit 0, 59 partitions, d=100): ||b-Ax||/||b|| %.3g (want below 1e-4 "
               "and, in double, 1e-10)", many);
    TEST_CHECK((single || relative[1] < 1e-3 * relative[0]) && relative[1] < 1e-4,
               "zgbsv_spike truncated SPIKE alone (maxit 0, 10 partitions): ||b-Ax||/||b|| %.3g at d=1, %.3g at d=100 "
               "(want d=100 below 1e-4 and, in double, 1000x below d=1)", relative[0], relative[1]);
    gen_zband(n, k, k, 10, AB, ldab, 5);
    memcpy(X, B, (size_t)n * sizeof *X);
    info = starsolve_zgbsv_spike(n, k, k, 1, AB, ldab, X, n, &iters);
    check_zgbsolve(n, k, k, 1, AB, ldab, X, n, B, n, &relative[0]);
    TEST_CHECK(info == 0 && iters >= 0 && relative[0] <= 1e-4, "zgbsv_spike d=10 without fallback: info %d, iters %d, "
               "||b-Ax||/||b|| %.3g", info, iters, relative[0]);
    starsolve_set_spike_psize(0);
    starsolve_set_spike_mixed(1);
    starsolve_set_spike_fallback(1);
    free(AB); free(B); free(X);
}

int test_zspike(void)
{
    long before = testing_counts.failed;
    static const double dominance[] = { 0.1, 1, 10, 100 };
    static const int bands[] = { 1, 2, 32, 100 };
    for (int b = 0; b < 4; b++)
        for (int d = 0; d < 4; d++) {
            int n = bands[b] < 32 ? 1001 : 2003;
            /* several partitions, n not a multiple of psize: 6 for K = 1, 2, 32; 10 for K = 100 */
            int psize = bands[b] < 32 ? 150 : bands[b] == 32 ? 300 : 200;
            spike_case(n, bands[b], bands[b], dominance[d], d % 2 ? 3 : 1, 0, 1);
            spike_case(n, bands[b], bands[b], dominance[d], d % 2 ? 1 : 2, psize, 1);
        }
    /* many partitions, so that every chunk (as many chunks as workers) holds several and the
     * factor, tip solve and retrieval tasks loop over partitions and solve inner interfaces:
     * K = 1, 2 at partitions of 4K + 1 rows (hundreds), K = 32 of 2K + 7 (about 40); n not a
     * multiple of the size; mixed precision on and off */
    static const int many_k[] = { 1, 2, 32 };
    static const double many_d[] = { 1, 10, 100 };
    for (int b = 0; b < 3; b++)
        for (int d = 0; d < 3; d++) {
            int k = many_k[b], n = k < 32 ? 1201 : 2903, psize = k < 32 ? 4 * k + 1 : 2 * k + 7;
            spike_case(n, k, k, many_d[d], d == 1 ? 1 : 3, psize, d != 2);
        }
    spike_case(2903, 32, 20, 10, 2, 71, 1);    /* kl != ku, many partitions */
    spike_case(2003, 32, 32, 10, 2, 300, 0);   /* the preconditioner in working precision */
    spike_case(997, 3, 7, 10, 2, 100, 1);       /* kl != ku */
    spike_case(997, 7, 3, 1, 1, 100, 1);
    spike_case(1500, 0, 5, 10, 1, 111, 1);     /* upper and lower triangular bands */
    spike_case(1500, 5, 0, 10, 2, 111, 1);
    spike_case(5, 2, 2, 10, 1, 0, 1);          /* fewer rows than two partitions need */
    spike_case(9, 2, 2, 10, 1, 1, 1);          /* psize below 2K: partitions of 2K rows at least */
    spike_case(1, 0, 0, 10, 1, 0, 1);
    spike_no_fallback();
    starsolve_complex64_t AB[9] = { 0 }, B[3] = { 0 };
    int iters;
    TEST_CHECK(starsolve_zgbsv_spike(-1, 1, 1, 1, AB, 4, B, 3, &iters) == -1, "zgbsv_spike n < 0: -1");
    TEST_CHECK(starsolve_zgbsv_spike(3, -1, 1, 1, AB, 4, B, 3, &iters) == -2, "zgbsv_spike kl < 0: -2");
    TEST_CHECK(starsolve_zgbsv_spike(3, 1, -1, 1, AB, 4, B, 3, &iters) == -3, "zgbsv_spike ku < 0: -3");
    TEST_CHECK(starsolve_zgbsv_spike(3, 1, 1, -1, AB, 4, B, 3, &iters) == -4, "zgbsv_spike nrhs < 0: -4");
    TEST_CHECK(starsolve_zgbsv_spike(3, 1, 1, 1, NULL, 4, B, 3, &iters) == -5, "zgbsv_spike AB NULL: -5");
    TEST_CHECK(starsolve_zgbsv_spike(3, 1, 1, 1, AB, 3, B, 3, &iters) == -6, "zgbsv_spike ldab < 2kl+ku+1: -6");
    TEST_CHECK(starsolve_zgbsv_spike(3, 1, 1, 1, AB, 4, NULL, 3, &iters) == -7, "zgbsv_spike B NULL: -7");
    TEST_CHECK(starsolve_zgbsv_spike(3, 1, 1, 1, AB, 4, B, 2, &iters) == -8, "zgbsv_spike ldb < n: -8");
    TEST_CHECK(starsolve_set_spike_psize(-1) == -1 && starsolve_set_spike_mixed(2) == -1 && starsolve_set_spike_maxit(-1) == -1
               && starsolve_set_spike_fallback(-1) == -1 && starsolve_get_spike_psize() == 0 && starsolve_get_spike_mixed() == 1
               && starsolve_get_spike_maxit() == 100 && starsolve_get_spike_fallback() == 1,
               "spike settings: bad values refused, defaults kept");
    return (int)(testing_counts.failed - before);
}
