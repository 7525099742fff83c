/* SPIKE banded solver tests of one precision (generic source, see scripts/genprec.sh).
 *
 * Band matrices with kl, ku in {1, 2, 32, 100} (and kl != ku), degree of diagonal
 * dominance d in {0.1, 1, 10, 100} (diagonal = d times the sum of the row's other
 * entries), n not a multiple of the partition count, several right-hand sides:
 * the scaled residual ||b - Ax||_1/(||A|| ||x|| n eps) must be at most 30 and, in double
 * precisions, the relative residual ||b - Ax||_inf / ||b||_inf at most 1e-10, whether
 * SPIKE converged or fell back to gbsv (iters = -1, allowed only when d < 1); AB must
 * not change; bad arguments give LAPACK's negative info. */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "../tests/testing.h"

static void spike_case(int n, int kl, int ku, double dominance, int nrhs)
{
    int ldab = 2 * kl + ku + 1, ldb = n + 1, iters = -7;
    starsolve_complex64_t *AB = testing_alloc((size_t)ldab * n * sizeof *AB), *AB0 = testing_alloc((size_t)ldab * n * sizeof *AB0);
    starsolve_complex64_t *B = testing_alloc((size_t)ldb * nrhs * sizeof *B), *X = testing_alloc((size_t)ldb * nrhs * sizeof *X);
    gen_zband(n, kl, ku, dominance, AB0, ldab, 11u * (unsigned)n + (unsigned)kl);
    memcpy(AB, AB0, (size_t)ldab * n * sizeof *AB);
    gen_zmatrix(n, nrhs, B, ldb, 77);
    memcpy(X, B, (size_t)ldb * nrhs * sizeof *X);
    int info = starsolve_zgbsv_spike(n, kl, ku, nrhs, AB, ldab, X, ldb, &iters);
    double relative, scaled = check_zgbsolve(n, kl, ku, nrhs, AB0, ldab, X, ldb, B, ldb, &relative);
    /* every precision: the scaled residual of checks/ (<= 30); double precisions also the issue's
     * relative residual <= 1e-10 (in single precision a relative residual depends on the
     * conditioning: for d = 0.1 LAPACK's own gbsv leaves 3e-5 .. 1.2e-4) */
    int single = sizeof(double) == sizeof(float);   /* the generator turns double into float in s and c */
    TEST_CHECK(info == 0 && check_passes(scaled) && (single || relative <= 1e-10) && (iters >= 0 || dominance < 1.0)
               && memcmp(AB, AB0, (size_t)ldab * n * sizeof *AB) == 0,
               "starsolve_zgbsv_spike n=%d kl=%d ku=%d d=%g nrhs=%d: info %d, iters %d%s, ||b-Ax||/(||A|| ||x|| n eps) = %.3g, "
               "||b-Ax||/||b|| = %.3g%s", n, kl, ku, dominance, nrhs, info, iters, iters < 0 ? " (fell back to gbsv)" : "",
               scaled, relative, single ? "" : " (bound 1e-10)");
    free(AB); free(AB0); free(B); free(X);
}

int test_zspike(void)
{
    long before = testing_counts.failed;
    static const double dominance[] = { 0.1, 1, 10, 100 };
    static const int bands[] = { 1, 2, 32, 100 };
    for (int b = 0; b < 4; b++)
        for (int d = 0; d < 4; d++)
            spike_case(bands[b] < 32 ? 1001 : 2003, bands[b], bands[b], dominance[d], d % 2 ? 3 : 1);
    spike_case(997, 3, 7, 10, 2);    /* kl != ku */
    spike_case(5, 2, 2, 10, 1);      /* fewer rows than two partitions need */
    spike_case(1, 0, 0, 10, 1);
    starsolve_complex64_t AB[9] = { 0 }, B[3] = { 0 };
    int iters;
    TEST_CHECK(starsolve_zgbsv_spike(-1, 1, 1, 1, AB, 4, B, 3, &iters) == -1, "zgbsv_spike n < 0: -1");
    TEST_CHECK(starsolve_zgbsv_spike(3, -1, 1, 1, AB, 4, B, 3, &iters) == -2, "zgbsv_spike kl < 0: -2");
    TEST_CHECK(starsolve_zgbsv_spike(3, 1, 1, 1, AB, 3, B, 3, &iters) == -6, "zgbsv_spike ldab < 2kl+ku+1: -6");
    TEST_CHECK(starsolve_zgbsv_spike(3, 1, 1, 1, AB, 4, B, 2, &iters) == -8, "zgbsv_spike ldb < n: -8");
    return (int)(testing_counts.failed - before);
}
