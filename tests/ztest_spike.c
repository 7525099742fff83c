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
 * the fallback off, a matrix SPIKE does not solve gives info n + 1. Fewer rows than 2K: the banded
 * LU (iters = -2), n + 1 without the fallback. Dominant rows scaled apart (every third times 1000), so that
 * gbtrf interchanges rows inside the partitions, are solved by SPIKE too, and so is the widest band whose GPU band LU
 * fits the 48 KB of shared memory a block gets without asking. A NaN in A or an Inf in B gives n + 1 (the
 * banded LU's solution is not finite). AB must not change; bad arguments give LAPACK's negative info.
 *
 * The split API (?gbtrf_spike, ?gbtrs_spike, starsolve_spike_free): several solves of one
 * factorization, one to three right-hand sides each, partitions that do not divide n, two
 * factorizations alive at once; the fallbacks (at the factorization for a matrix far from
 * dominance, at a solve whose BiCGStab fails) and the solves after them; bad arguments. */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "../tests/testing.h"

/* psize 0: automatic; mixed: starsolve_set_spike_mixed */
/* AB in LAPACK's gbsv layout, with 3 rows to spare (ldab > 2 kl + ku + 1) where psize is odd, and NaN in every
 * row outside the band (the kl rows of fill-in space on top, the spare ones): nothing may read them, whether the
 * band goes to a GPU as whole columns or as its rows alone (src/zgbsv_spike.c, spike_band_whole) */
/* big != 1: every third row times big, which keeps each row's dominance but makes gbtrf's partial pivoting
 * interchange rows inside the partitions (their solves then take gbtrs, not the two tbsv of a factorization
 * without interchanges: codelets/codelet_zspike.c, band_solve) */
static void spike_case_rows(int n, int kl, int ku, double dominance, int nrhs, int psize, int mixed, double big)
{
    int ldab = 2 * kl + ku + 1 + (psize % 2 ? 3 : 0), ldb = n + 1, iters = -7;
    starsolve_complex64_t *AB = testing_alloc((size_t)ldab * n * sizeof *AB), *AB0 = testing_alloc((size_t)ldab * n * sizeof *AB0);
    starsolve_complex64_t *B = testing_alloc((size_t)ldb * nrhs * sizeof *B), *X = testing_alloc((size_t)ldb * nrhs * sizeof *X);
    gen_zband(n, kl, ku, dominance, AB0, ldab, 11u * (unsigned)n + (unsigned)kl);
    for (int i = 0; big != 1 && i < n; i += 3)   /* A(i, j) at AB[kl + ku + i - j + j ldab] */
        for (int j = i > kl ? i - kl : 0; j <= (i + ku < n - 1 ? i + ku : n - 1); j++)
            AB0[kl + ku + i - j + (size_t)j * ldab] *= big;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < ldab; i++)
            if (i < kl || i > 2 * kl + ku)
                AB0[i + (size_t)j * ldab] = NAN;
    memcpy(AB, AB0, (size_t)ldab * n * sizeof *AB);
    gen_zmatrix(n, nrhs, B, ldb, 77);
    memcpy(X, B, (size_t)ldb * nrhs * sizeof *X);
    starsolve_set_spike_psize(psize);
    starsolve_set_spike_mixed(mixed);
    int info = starsolve_zgbsv_spike(n, kl, ku, nrhs, AB, ldab, X, ldb, &iters);
    starsolve_set_spike_psize(0);
    starsolve_set_spike_mixed(-1);
    double relative, scaled = check_zgbsolve(n, kl, ku, nrhs, AB0, ldab, X, ldb, B, ldb, &relative);
    /* every precision: the scaled residual of checks/ (<= 30); double precisions also the issue's
     * relative residual <= 1e-10 (in single precision a relative residual depends on the
     * conditioning: for d = 0.1 LAPACK's own gbsv leaves 3e-5 .. 1.2e-4) */
    int single = sizeof(double) == sizeof(float);   /* the generator turns double into float in s and c */
    int path_ok = dominance < 0.5 ? iters == -2 : dominance < 1.0 ? iters != -7 : single ? iters >= -1 : iters >= 0;
    TEST_CHECK(info == 0 && check_passes(scaled) && (single || relative <= 1e-10) && path_ok
               && memcmp(AB, AB0, (size_t)ldab * n * sizeof *AB) == 0,
               "starsolve_zgbsv_spike n=%d kl=%d ku=%d d=%g nrhs=%d psize=%d mixed=%d rows x%g: info %d, iters %d%s, "
               "||b-Ax||/(||A|| ||x|| n eps) = %.3g, ||b-Ax||/||b|| = %.3g%s", n, kl, ku, dominance, nrhs, psize, mixed, big,
               info, iters, iters == -1 ? " (BiCGStab gave up: gbsv)" : iters == -2 ? " (not dominant: gbsv)" : "",
               scaled, relative, single ? "" : " (bound 1e-10)");
    free(AB); free(AB0); free(B); free(X);
}
static void spike_case(int n, int kl, int ku, double dominance, int nrhs, int psize, int mixed)
{
    spike_case_rows(n, kl, ku, dominance, nrhs, psize, mixed, 1);
}

/* fewer rows than twice the half-bandwidth: no partition fits (n = 1 with K = 3 read past the band
 * before session 19), so the banded LU solves (iters -2), or n + 1 with the fallback off */
static void spike_too_small(int n, int kl, int ku)
{
    int ldab = 2 * kl + ku + 1, iters = -7;
    starsolve_complex64_t *AB = testing_alloc((size_t)ldab * n * sizeof *AB), *B = testing_alloc((size_t)n * 2 * sizeof *B);
    starsolve_complex64_t *X = testing_alloc((size_t)n * 2 * sizeof *X);
    gen_zband(n, kl, ku, 10, AB, ldab, 5u);
    gen_zmatrix(n, 2, B, n, 3);
    memcpy(X, B, (size_t)n * 2 * sizeof *X);
    int info = starsolve_zgbsv_spike(n, kl, ku, 2, AB, ldab, X, n, &iters);
    double relative, scaled = check_zgbsolve(n, kl, ku, 2, AB, ldab, X, n, B, n, &relative);
    TEST_CHECK(info == 0 && iters == -2 && check_passes(scaled),
               "starsolve_zgbsv_spike n=%d kl=%d ku=%d (n < 2K): info %d, iters %d (want -2), scaled residual %.3g",
               n, kl, ku, info, iters, scaled);
    memcpy(X, B, (size_t)n * 2 * sizeof *X);
    starsolve_set_spike_fallback(0);
    info = starsolve_zgbsv_spike(n, kl, ku, 2, AB, ldab, X, n, &iters);
    starsolve_set_spike_fallback(1);
    TEST_CHECK(info == n + 1 && memcmp(X, B, (size_t)n * 2 * sizeof *X) == 0,
               "starsolve_zgbsv_spike n=%d kl=%d ku=%d (n < 2K), fallback off: info %d (want n + 1), B untouched", n, kl, ku, info);
    free(AB); free(B); free(X);
}

/* fallback off: a matrix far from dominance gives n + 1 and leaves B alone; a dominant one
 * still solves; the truncated-SPIKE solution alone (maxit 0) of a strongly dominant matrix is
 * already close, of a weakly dominant one not yet (the seed's Table 1 trend, in double; at K = 4
 * with Wt from 64 rows, d = 1 is already at rounding level, so the weak end is d = 0.5) */
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
        gen_zband(n, k, k, t ? 100 : 0.5, AB, ldab, 5);
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
               "zgbsv_spike truncated SPIKE alone (maxit 0, 10 partitions): ||b-Ax||/||b|| %.3g at d=0.5, %.3g at d=100 "
               "(want d=100 below 1e-4 and, in double, 1000x below d=0.5)", relative[0], relative[1]);
    gen_zband(n, k, k, 10, AB, ldab, 5);
    memcpy(X, B, (size_t)n * sizeof *X);
    info = starsolve_zgbsv_spike(n, k, k, 1, AB, ldab, X, n, &iters);
    check_zgbsolve(n, k, k, 1, AB, ldab, X, n, B, n, &relative[0]);
    TEST_CHECK(info == 0 && iters >= 0 && relative[0] <= 1e-4, "zgbsv_spike d=10 without fallback: info %d, iters %d, "
               "||b-Ax||/||b|| %.3g", info, iters, relative[0]);
    starsolve_set_spike_psize(0);
    starsolve_set_spike_mixed(-1);
    starsolve_set_spike_fallback(1);
    free(AB); free(B); free(X);
}

/* The truncated-SPIKE solution alone (maxit 0) on long partitions, d = 1: with Wt from 8K rows where
 * the partitions are long (ss_spike_wt_rows, spike_layout.h) it is at rounding level in double, so a
 * solve needs no BiCGStab step; with the 4K rows of before, this case left 5.5e-11 (d) and 2.7e-11 (z) */
static void spike_long_partitions(void)
{
    int n = 32768, k = 16, ldab = 3 * k + 1, iters = -7;
    starsolve_complex64_t *AB = testing_alloc((size_t)ldab * n * sizeof *AB), *B = testing_alloc((size_t)n * sizeof *B);
    starsolve_complex64_t *X = testing_alloc((size_t)n * sizeof *X);
    gen_zband(n, k, k, 1, AB, ldab, 9);
    gen_zmatrix(n, 1, B, n, 10);
    memcpy(X, B, (size_t)n * sizeof *X);
    starsolve_set_spike_psize(2048);
    starsolve_set_spike_mixed(0);
    starsolve_set_spike_maxit(0);
    starsolve_set_spike_fallback(0);
    int info = starsolve_zgbsv_spike(n, k, k, 1, AB, ldab, X, n, &iters);
    starsolve_set_spike_psize(0);
    starsolve_set_spike_mixed(-1);
    starsolve_set_spike_maxit(100);
    starsolve_set_spike_fallback(1);
    double relative;
    check_zgbsolve(n, k, k, 1, AB, ldab, X, n, B, n, &relative);
    int single = sizeof(double) == sizeof(float);
    TEST_CHECK(info == 0 && iters == 0 && relative <= (single ? 1e-4 : 1e-13),
               "zgbsv_spike truncated SPIKE alone (maxit 0, n=%d, K=%d, d=1, 16 partitions of 2048 rows): info %d, iters %d, "
               "||b-Ax||/||b|| %.3g (want at most %g)", n, k, info, iters, relative, single ? 1e-4 : 1e-13);
    free(AB); free(B); free(X);
}

/* Solve nrhs right-hand sides (seed) with factors, check X against the band and say how:
 * returns 1 when the solve returned want_info, left AB alone and passed the residual bounds
 * (the relative one in double precisions only, as spike_case) and *iters is set */
static int split_solve(starsolve_spike_t *factors, int n, int kl, int ku, const starsolve_complex64_t *AB0,
                       const starsolve_complex64_t *AB, int ldab, int nrhs, unsigned seed, int *iters, double *relative)
{
    int ldb = n + 2;
    starsolve_complex64_t *B = testing_alloc((size_t)ldb * nrhs * sizeof *B), *X = testing_alloc((size_t)ldb * nrhs * sizeof *X);
    gen_zmatrix(n, nrhs, B, ldb, seed);
    memcpy(X, B, (size_t)ldb * nrhs * sizeof *X);
    *iters = -7;
    int info = starsolve_zgbtrs_spike(factors, nrhs, X, ldb, iters);
    double scaled = check_zgbsolve(n, kl, ku, nrhs, AB0, ldab, X, ldb, B, ldb, relative);
    int single = sizeof(double) == sizeof(float);
    int ok = info == 0 && *iters != -7 && check_passes(scaled) && (single || *relative <= 1e-10)
             && memcmp(AB, AB0, (size_t)ldab * n * sizeof *AB) == 0;
    if (!ok)
        fprintf(stderr, "    zgbtrs_spike n=%d kl=%d ku=%d nrhs=%d: info %d, iters %d, scaled %.3g, relative %.3g\n", n, kl, ku,
                nrhs, info, *iters, scaled, *relative);
    free(B); free(X);
    return ok;
}

/* one factorization, solves of 1, 3 and 2 right-hand sides; psize 0: automatic. d >= 1: SPIKE
 * solves each (iters >= 0 in double; single precisions may give up at d = 1: -1); d < 0.5: the
 * factorization fell back to the banded LU, every solve says -2 */
static void split_case(int n, int kl, int ku, double dominance, int psize, int mixed)
{
    int ldab = 2 * kl + ku + 1;
    starsolve_complex64_t *AB = testing_alloc((size_t)ldab * n * sizeof *AB), *AB0 = testing_alloc((size_t)ldab * n * sizeof *AB0);
    gen_zband(n, kl, ku, dominance, AB0, ldab, 13u * (unsigned)n + (unsigned)ku);
    memcpy(AB, AB0, (size_t)ldab * n * sizeof *AB);
    starsolve_set_spike_psize(psize);
    starsolve_set_spike_mixed(mixed);
    starsolve_spike_t *f = NULL;
    int info = starsolve_zgbtrf_spike(n, kl, ku, AB, ldab, &f);
    starsolve_set_spike_psize(0);
    starsolve_set_spike_mixed(-1);
    TEST_CHECK(info == 0 && f != NULL, "zgbtrf_spike n=%d kl=%d ku=%d d=%g psize=%d mixed=%d: info %d", n, kl, ku, dominance, psize,
               mixed, info);
    if (info != 0 || !f) {
        free(AB); free(AB0);
        return;
    }
    int single = sizeof(double) == sizeof(float);
    static const int nrhs[] = { 1, 3, 2 };
    for (int k = 0; k < 3; k++) {
        int iters;
        double relative;
        int ok = split_solve(f, n, kl, ku, AB0, AB, ldab, nrhs[k], 101u + (unsigned)k, &iters, &relative);
        int path_ok = dominance < 0.5 ? iters == -2 : single ? iters >= -1 : iters >= 0;
        TEST_CHECK(ok && path_ok, "zgbtrs_spike solve %d of one factorization, n=%d kl=%d ku=%d d=%g psize=%d mixed=%d nrhs=%d: "
                   "iters %d, ||b-Ax||/||b|| = %.3g", k + 1, n, kl, ku, dominance, psize, mixed, nrhs[k], iters, relative);
    }
    starsolve_spike_free(f);
    free(AB); free(AB0);
}

/* BiCGStab fails in a solve (maxit 0 on a weakly dominant band cut into partitions of 2K + 1 rows,
 * where the truncated reduced systems are far off): with the fallback that column and the rest go
 * to the banded LU (-1), and so does every later solve of that factorization, even with BiCGStab
 * allowed its iterations again; without the fallback the solve says n + 1 */
static void split_bicgstab_fails(void)
{
    const int n = 1001, k = 4, ldab = 3 * k + 1;
    starsolve_complex64_t *AB = testing_alloc((size_t)ldab * n * sizeof *AB), *AB0 = testing_alloc((size_t)ldab * n * sizeof *AB0);
    gen_zband(n, k, k, 0.6, AB0, ldab, 21);
    memcpy(AB, AB0, (size_t)ldab * n * sizeof *AB);
    starsolve_set_spike_psize(2 * k + 1);
    /* gbsv_spike alike: the columns from the failing one on come from the banded LU, which must
     * solve for b, not for BiCGStab's iterate */
    {
        starsolve_complex64_t *B = testing_alloc((size_t)n * 2 * sizeof *B), *X = testing_alloc((size_t)n * 2 * sizeof *X);
        gen_zmatrix(n, 2, B, n, 30);
        memcpy(X, B, (size_t)n * 2 * sizeof *X);
        int iters = -7;
        double relative;
        starsolve_set_spike_maxit(0);
        int info = starsolve_zgbsv_spike(n, k, k, 2, AB, ldab, X, n, &iters);
        starsolve_set_spike_maxit(100);
        double scaled = check_zgbsolve(n, k, k, 2, AB0, ldab, X, n, B, n, &relative);
        TEST_CHECK(info == 0 && iters == -1 && check_passes(scaled),
                   "zgbsv_spike d=0.6, BiCGStab failing (maxit 0): info %d, iters %d (want -1), scaled residual %.3g", info, iters,
                   scaled);
        free(B); free(X);
    }
    starsolve_spike_t *f = NULL;
    int info = starsolve_zgbtrf_spike(n, k, k, AB, ldab, &f);
    TEST_CHECK(info == 0 && f, "zgbtrf_spike d=0.6, partitions of 2K+1 rows: info %d", info);
    if (f) {
        int iters[3];
        double relative[3];
        starsolve_set_spike_maxit(0);
        int ok0 = split_solve(f, n, k, k, AB0, AB, ldab, 2, 31, &iters[0], &relative[0]);
        starsolve_set_spike_maxit(100);
        int ok1 = split_solve(f, n, k, k, AB0, AB, ldab, 1, 32, &iters[1], &relative[1]);
        int ok2 = split_solve(f, n, k, k, AB0, AB, ldab, 3, 33, &iters[2], &relative[2]);
        TEST_CHECK(ok0 && ok1 && ok2 && iters[0] == -1 && iters[1] == -1 && iters[2] == -1,
                   "zgbtrs_spike after BiCGStab failed (maxit 0): iters %d, then %d and %d with maxit 100 (want -1: the banded LU "
                   "kept), ||b-Ax||/||b|| %.3g %.3g %.3g", iters[0], iters[1], iters[2], relative[0], relative[1], relative[2]);
        starsolve_spike_free(f);
    }
    /* the same without the fallback: n + 1, and BiCGStab's iterate (here the truncated SPIKE
     * solution) in B, not b */
    starsolve_set_spike_fallback(0);
    info = starsolve_zgbtrf_spike(n, k, k, AB, ldab, &f);
    if (info == 0 && f) {
        starsolve_complex64_t *B = testing_alloc((size_t)n * sizeof *B), *X = testing_alloc((size_t)n * sizeof *X);
        gen_zmatrix(n, 1, B, n, 34);
        memcpy(X, B, (size_t)n * sizeof *X);
        int iters;
        starsolve_set_spike_maxit(0);
        int sinfo = starsolve_zgbtrs_spike(f, 1, X, n, &iters);
        starsolve_set_spike_maxit(100);
        TEST_CHECK(sinfo == n + 1 && memcmp(X, B, (size_t)n * sizeof *X) != 0,
                   "zgbtrs_spike without fallback, BiCGStab failing: info %d (want n+1 = %d), iterate in B", sinfo, n + 1);
        starsolve_spike_free(f);
        free(B); free(X);
    } else {
        TEST_CHECK(0, "zgbtrf_spike d=0.6 without fallback: info %d", info);
    }
    starsolve_set_spike_fallback(1);
    starsolve_set_spike_psize(0);
    free(AB); free(AB0);
}

/* A NaN in A or an Inf in B: no BiCGStab iterate passes its test and the banded LU's solution is
 * not finite, so info n + 1, never 0 (gbsv alone would return 0). Both ways into the banded LU:
 * after BiCGStab (a dominant A) and from the start (d = 0.1). */
static void spike_not_finite(int k, int n)
{
    const int ldab = 3 * k + 1;
    const double dominance[2] = { 10, 0.1 };
    for (int d = 0; d < 2; d++)
        for (int where = 0; where < 3; where++) {
            starsolve_complex64_t *AB = testing_alloc((size_t)ldab * n * sizeof *AB), *X = testing_alloc((size_t)n * sizeof *X);
            gen_zband(n, k, k, dominance[d], AB, ldab, 41);
            gen_zmatrix(n, 1, X, n, 42);
            const int row = where == 2 ? n / 2 : n / 2 + n / 7;   /* where == 2: the middle row, the first chunk's last of 2 */
            if (where != 1)
                AB[2 * k + (size_t)row * ldab] = NAN;   /* A(row, row) */
            else
                X[n / 2 + 99] = INFINITY;
            int iters = 0, info = starsolve_zgbsv_spike(n, k, k, 1, AB, ldab, X, n, &iters);
            TEST_CHECK(info == n + 1, "zgbsv_spike n=%d K=%d d=%g with %s: info %d (want n+1 = %d), iters %d", n, k, dominance[d],
                       where != 1 ? "a NaN in A" : "an Inf in B", info, n + 1, iters);
            free(AB); free(X);
        }
}

/* The tridiagonal path's refinement and fallback, through STARSOLVE_SPIKE_TOL (the residual goal): a goal no
 * solve reaches refines, puts b back and sends the columns to the banded LU (iters -1), which solves them; a
 * goal near rounding level (double) is met, after refinement steps where the first solve misses it, or also
 * handed to the LU. Several right-hand sides, 3 grid levels on a GPU. */
static void spike_tridiag_goal(void)
{
    const int n = 100003, ldab = 4, nrhs = 2;
    starsolve_complex64_t *AB = testing_alloc((size_t)ldab * n * sizeof *AB), *B = testing_alloc((size_t)n * nrhs * sizeof *B);
    starsolve_complex64_t *X = testing_alloc((size_t)n * nrhs * sizeof *X);
    gen_zband(n, 1, 1, 1, AB, ldab, 3);
    gen_zmatrix(n, nrhs, B, n, 4);
    const char *goals[2] = { "1e-30", "6e-14" };
    const int single = sizeof(double) == sizeof(float);
    for (int g = 0; g < (single ? 1 : 2); g++) {
        int iters = -7;
        memcpy(X, B, (size_t)n * nrhs * sizeof *X);
        setenv("STARSOLVE_SPIKE_TOL", goals[g], 1);
        int info = starsolve_zgbsv_spike(n, 1, 1, nrhs, AB, ldab, X, n, &iters);
        unsetenv("STARSOLVE_SPIKE_TOL");
        double relative, scaled = check_zgbsolve(n, 1, 1, nrhs, AB, ldab, X, n, B, n, &relative);
        TEST_CHECK(info == 0 && check_passes(scaled) && (g == 0 ? iters == -1 : iters == -1 || (iters >= 0 && relative <= 6e-14)),
                   "zgbsv_spike tridiagonal, goal %s: info %d, iters %d (want %s), scaled residual %.3g, ||b-Ax||/||b|| = %.3g",
                   goals[g], info, iters, g == 0 ? "-1: the banded LU" : ">= 0 and the goal met, or -1", scaled, relative);
    }
    free(AB); free(B); free(X);
}

/* the split API's fallbacks at the factorization, two factorizations alive at once, empty
 * sizes and bad arguments */
static void split_misc(void)
{
    /* far from dominance, fallback off: n + 1 and no factorization */
    int n = 1003, k = 4, ldab = 3 * k + 1;
    starsolve_complex64_t *AB = testing_alloc((size_t)ldab * n * sizeof *AB), *AB2 = testing_alloc((size_t)ldab * n * sizeof *AB2);
    starsolve_complex64_t *AB0 = testing_alloc((size_t)ldab * n * sizeof *AB0), *AB20 = testing_alloc((size_t)ldab * n * sizeof *AB20);
    gen_zband(n, k, k, 0.1, AB, ldab, 5);
    starsolve_spike_t *f = (starsolve_spike_t *)AB;   /* must come back NULL */
    starsolve_set_spike_fallback(0);
    int info = starsolve_zgbtrf_spike(n, k, k, AB, ldab, &f);
    starsolve_set_spike_fallback(1);
    TEST_CHECK(info == n + 1 && f == NULL, "zgbtrf_spike d=0.1 without fallback: info %d (want n+1 = %d), factors %s", info, n + 1,
               f ? "set" : "NULL");

    /* two factorizations alive, solves interleaved: each keeps its own data */
    gen_zband(n, k, k, 10, AB0, ldab, 6);
    gen_zband(n, k, 2, 1, AB20, ldab, 7);   /* ldab 3k+1 >= 2k+2+1 */
    memcpy(AB, AB0, (size_t)ldab * n * sizeof *AB);
    memcpy(AB2, AB20, (size_t)ldab * n * sizeof *AB2);
    starsolve_spike_t *f1 = NULL, *f2 = NULL;
    starsolve_set_spike_psize(150);
    int i1 = starsolve_zgbtrf_spike(n, k, k, AB, ldab, &f1);
    int i2 = starsolve_zgbtrf_spike(n, k, 2, AB2, ldab, &f2);
    starsolve_set_spike_psize(0);
    int ok = i1 == 0 && i2 == 0 && f1 && f2;
    int iters[4];
    double rel[4];
    if (ok) {
        ok &= split_solve(f1, n, k, k, AB0, AB, ldab, 1, 41, &iters[0], &rel[0]);
        ok &= split_solve(f2, n, k, 2, AB20, AB2, ldab, 2, 42, &iters[1], &rel[1]);
        ok &= split_solve(f1, n, k, k, AB0, AB, ldab, 2, 43, &iters[2], &rel[2]);
        ok &= split_solve(f2, n, k, 2, AB20, AB2, ldab, 1, 44, &iters[3], &rel[3]);
    }
    TEST_CHECK(ok, "zgbtrs_spike, two factorizations alive, solves interleaved: infos %d %d", i1, i2);
    starsolve_spike_free(f1);
    starsolve_spike_free(f2);
    starsolve_spike_free(NULL);

    /* n = 0 factors nothing and its solves solve nothing; nrhs = 0 leaves B */
    f = NULL;
    info = starsolve_zgbtrf_spike(0, 1, 1, NULL, 4, &f);
    int sinfo = f ? starsolve_zgbtrs_spike(f, 1, NULL, 1, &iters[0]) : -99;
    TEST_CHECK(info == 0 && f && sinfo == 0, "zgbtrf_spike / zgbtrs_spike n=0: %d, %d", info, sinfo);
    starsolve_spike_free(f);

    /* bad arguments; a negative info leaves *factors NULL */
    f = (starsolve_spike_t *)AB;
    TEST_CHECK(starsolve_zgbtrf_spike(-1, 1, 1, AB, 4, &f) == -1 && f == NULL, "zgbtrf_spike n < 0: -1, factors NULL");
    TEST_CHECK(starsolve_zgbtrf_spike(3, -1, 1, AB, 4, &f) == -2, "zgbtrf_spike kl < 0: -2");
    TEST_CHECK(starsolve_zgbtrf_spike(3, 1, -1, AB, 4, &f) == -3, "zgbtrf_spike ku < 0: -3");
    TEST_CHECK(starsolve_zgbtrf_spike(3, 1, 1, NULL, 4, &f) == -4, "zgbtrf_spike AB NULL: -4");
    TEST_CHECK(starsolve_zgbtrf_spike(3, 1, 1, AB, 3, &f) == -5, "zgbtrf_spike ldab < 2kl+ku+1: -5");
    TEST_CHECK(starsolve_zgbtrf_spike(3, 1, 1, AB, 4, NULL) == -6, "zgbtrf_spike factors NULL: -6");
    gen_zband(n, k, k, 10, AB, ldab, 8);
    f = NULL;
    info = starsolve_zgbtrf_spike(n, k, k, AB, ldab, &f);
    /* another precision's factorization is refused as argument 1 */
    starsolve_spike_t *other = NULL;
#if defined(STARSOLVE_PRECISION_S)
    starsolve_complex32_t oab[4] = { 0, 0, 1, 0 };
    int oinfo = starsolve_cgbtrf_spike(1, 1, 1, oab, 4, &other);
#else
    float oab[4] = { 0, 0, 1, 0 };
    int oinfo = starsolve_sgbtrf_spike(1, 1, 1, oab, 4, &other);
#endif
    starsolve_complex64_t *X = testing_alloc((size_t)n * sizeof *X);
    gen_zmatrix(n, 1, X, n, 9);
    TEST_CHECK(info == 0 && f && oinfo == 0 && other, "zgbtrf_spike for the argument checks: %d, %d", info, oinfo);
    if (f && other) {
        TEST_CHECK(starsolve_zgbtrs_spike(NULL, 1, X, n, &iters[0]) == -1, "zgbtrs_spike factors NULL: -1");
        TEST_CHECK(starsolve_zgbtrs_spike(other, 1, X, n, &iters[0]) == -1, "zgbtrs_spike another precision's factors: -1");
        TEST_CHECK(starsolve_zgbtrs_spike(f, -1, X, n, &iters[0]) == -2, "zgbtrs_spike nrhs < 0: -2");
        TEST_CHECK(starsolve_zgbtrs_spike(f, 1, NULL, n, &iters[0]) == -3, "zgbtrs_spike B NULL: -3");
        TEST_CHECK(starsolve_zgbtrs_spike(f, 1, X, n - 1, &iters[0]) == -4, "zgbtrs_spike ldb < n: -4");
        memcpy(AB2, X, (size_t)n * sizeof *X);
        TEST_CHECK(starsolve_zgbtrs_spike(f, 0, X, n, &iters[0]) == 0 && memcmp(AB2, X, (size_t)n * sizeof *X) == 0,
                   "zgbtrs_spike nrhs = 0: 0, B untouched");
        /* after the refusals the factorization still solves */
        int it;
        double relative;
        gen_zband(n, k, k, 10, AB0, ldab, 8);
        TEST_CHECK(split_solve(f, n, k, k, AB0, AB, ldab, 2, 45, &it, &relative), "zgbtrs_spike after bad calls: iters %d", it);
    }
    starsolve_spike_free(f);
    starsolve_spike_free(other);
    free(AB); free(AB2); free(AB0); free(AB20); free(X);
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
    /* the other bands with kl + ku <= 2, whose GPU band LU and solves run one thread per partition */
    spike_case(1201, 1, 0, 10, 1, 9, 1);
    spike_case(1201, 0, 1, 10, 2, 9, 0);
    spike_case(1201, 2, 0, 10, 1, 9, 0);
    spike_case(1201, 0, 2, 100, 2, 9, 1);
    spike_case(1201, 1, 1, 0.1, 1, 9, 1);       /* not dominant: rows swapped inside the partitions */
    /* the widest band whose GPU band LU's dynamic shared memory ((64 + 16 (kl + ku)) entries, codelets/cuda/
     * spike.cu) is still 48 KB: with the factor kernel's static arrays it passes the limit a block gets without
     * asking (z with kl + ku = 187 failed to launch until the kernel asked by both); working precision */
    {
        int width = (int)((48 * 1024 / sizeof(starsolve_complex64_t) - 64) / 16);
        spike_case(8 * width + 3, width / 2, width - width / 2, 10, 1, 2 * width + 5, 0);
    }
    spike_case_rows(2003, 32, 32, 10, 2, 300, 0, 1000);   /* dominant, but gbtrf interchanges rows: gbtrs solves */
    spike_case_rows(997, 3, 7, 10, 1, 100, 0, 1000);
    spike_case(5, 2, 2, 10, 1, 0, 1);          /* fewer rows than two partitions need */
    spike_case(9, 2, 2, 10, 1, 1, 1);          /* psize below 2K: partitions of 2K rows at least */
    spike_case(1, 0, 0, 10, 1, 0, 1);
    spike_too_small(1, 3, 3);
    spike_too_small(2, 1, 3);
    spike_too_small(5, 2, 3);
    spike_no_fallback();
    spike_long_partitions();
    spike_not_finite(2, 1201);
    spike_tridiag_goal();
    spike_not_finite(1, 1201);   /* the tridiagonal path: it declines a NaN in A, and an Inf in B misses its residual goal */
    spike_not_finite(1, 100003);   /* the same on CPU workers' chunks */
    /* the tridiagonal path (one task; on a GPU the partition method, codelets/tridiag_layout.h): the direct
     * level alone (n <= 64), one level and several (n = 100003: 3 levels), several right-hand sides, the band
     * as whole columns and as its rows alone (odd psize: spare rows); below its dominance, the general path */
    spike_case(2, 1, 1, 10, 2, 0, 1);
    spike_case(3, 1, 1, 10, 1, 1, 1);
    spike_case(64, 1, 1, 1, 3, 0, 1);
    spike_case(65, 1, 0, 1, 1, 1, 1);
    spike_case(100003, 1, 1, 1, 2, 0, 1);
    spike_case(100003, 0, 1, 10, 1, 1, 1);
    spike_case(100003, 1, 0, 10, 3, 0, 1);   /* on CPU workers, chunks (16384 rows at least) of sub-partitions */
    spike_case(100003, 1, 1, 100, 1, 0, 1);
    spike_case(100003, 1, 1, 0.9, 1, 0, 1);   /* the chunks' check finds it below the tridiagonal path's dominance */
    spike_case(1201, 1, 1, 0.9, 2, 0, 1);
    /* the split API: one factorization, several solves */
    split_case(2003, 32, 32, 1, 300, 1);       /* n not a multiple of psize */
    split_case(2903, 32, 20, 10, 71, 0);       /* kl != ku, many partitions, working precision */
    split_case(1201, 1, 1, 10, 5, 1);          /* K = 1, hundreds of partitions */
    split_case(70001, 1, 1, 1, 0, 1);          /* the tridiagonal path: chunks of rows on CPU workers, one task on a GPU */
    split_case(997, 3, 7, 100, 0, 1);          /* automatic partitions */
    split_case(1001, 4, 4, 0.1, 100, 1);       /* not dominant: the banded LU from the factorization on */
    split_bicgstab_fails();
    split_misc();
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
    TEST_CHECK(starsolve_set_spike_psize(-1) == -1 && starsolve_set_spike_mixed(2) == -1 && starsolve_set_spike_mixed(-2) == -1 && starsolve_set_spike_maxit(-1) == -1
               && starsolve_set_spike_fallback(-1) == -1 && starsolve_get_spike_psize() == 0 && starsolve_get_spike_mixed() == -1
               && starsolve_get_spike_maxit() == 100 && starsolve_get_spike_fallback() == 1,
               "spike settings: bad values refused, defaults kept");
    return (int)(testing_counts.failed - before);
}
