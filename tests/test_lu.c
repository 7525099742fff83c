/* make check: LU (getrf, getrs, gesv, getrf_nopiv and their tile forms) in the
 * four precisions. The tests themselves are in the generic tests/ztest_lu.c;
 * here only what concerns the runtime as a whole. */
#include <stdio.h>
#include <string.h>
#include "testing.h"

struct testing_counts testing_counts;

/* Drop-in use (DESIGN.md): a LAPACK user never calls starsolve_init, so the
 * first call must start the runtime by itself; and a runtime stopped by
 * starsolve_finalize must start again. */
static void dropin_without_init(void)
{
    enum { N = 50 };
    static double A0[N * N], A[N * N];
    int ipiv[N];
    gen_dmatrix(N, N, A0, N, 3);
    memcpy(A, A0, sizeof A);
    int info = starsolve_dgetrf(N, N, A, N, ipiv);
    double r = check_dgetrf(N, N, A0, N, A, N, ipiv, 1);
    TEST_CHECK(info == 0 && check_passes(r),
               "starsolve_dgetrf before any starsolve_init: info = %d, ||PA-LU||/(||A|| n eps) = %.3g", info, r);
    starsolve_finalize();
}

int main(void)
{
    testing_start_watchdog();
    dropin_without_init();
    static int (*const tests[4])(void) = { test_slu, test_dlu, test_clu, test_zlu };
    return testing_run_precisions(tests);
}
