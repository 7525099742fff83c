/* SPIKE banded solver tests of one precision (generic source, see scripts/genprec.sh).
 *
 * Band matrices with kl, ku in {1, 2, 32, 100} (and kl != ku), degree of diagonal
 * dominance d in {0.1, 1, 10, 100} (diagonal = d times the sum of the row's other
 * entries), n not a multiple of the partition count, several right-hand sides:
 * the relative residual ||b - Ax||_inf / ||b||_inf must be at most 1e-10 in double
 * precisions (1e-4 in single), whether SPIKE converged or fell back to gbsv
 * (iters = -1, allowed only when d < 1); AB must not change; bad arguments give
 * LAPACK's negative info. */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "../tests/testing.h"

static double rel_residual(int n, int kl, int ku, int nrhs, const starsolve_complex64_t *AB, int ldab,
                           const starsolve_complex64_t *X, const starsolve_complex64_t *B, int ldb)
{
    double worst = 0;
    for (int c = 0; c < nrhs; c++) {
        double rmax = 0, bmax = 0;
        for (int i = 0; i < n; i++) {
            starsolve_complex64_t r = B[i + (size_t)c * ldb];
            for (int j = ss_imax(0, i - kl); j <= ss_imin(n - 1, i + ku); j++)
                r -= AB[kl + ku + i - j + (size_t)j * ldab] * X[j + (size_t)c * ldb];
            rmax = fmax(rmax, cabs(r));
            bmax = fmax(bmax, cabs(B[i + (size_t)c * ldb]));
            if (isnan(cabs(r))) return NAN;
        }
        worst = fmax(worst, rmax / bmax);
    }
    return worst;
}

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
    double r = rel_residual(n, kl, ku, nrhs, AB0, ldab, X, B, ldb);
    double bound = sizeof(double) == sizeof(float) ? 1e-4 : 1e-10;   /* the generator turns double into float in s, c */
    TEST_CHECK(info == 0 && r <= bound && (iters >= 0 || dominance < 1.0)
               && memcmp(AB, AB0, (size_t)ldab * n * sizeof *AB) == 0,
               "starsolve_zgbsv_spike n=%d kl=%d ku=%d d=%g nrhs=%d: info %d, iters %d%s, ||b-Ax||/||b|| = %.3g (bound %g)",
               n, kl, ku, dominance, nrhs, info, iters, iters < 0 ? " (fell back to gbsv)" : "", r, bound);
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
