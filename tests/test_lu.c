/* make check: LU (getrf, getrs, gesv, getrf_nopiv and their tile forms) in the
 * four precisions. The tests themselves are in the generic tests/ztest_lu.c;
 * here only what concerns the runtime as a whole. */
#include <stdio.h>
#include <string.h>
#include "testing.h"

struct testing_counts testing_counts;

/* The tile sizes of a runtime started without one (starsolve_get_nb_for), on CPU workers alone:
 * the largest of 512, 384 and 256 with at least 25 tiles per worker; a tile size set by the
 * caller wins. Leaves the tile size set (the caller finalizes). */
static void default_tile_sizes(void)
{
    if (starsolve_ngpus() > 0)
        return;   /* with GPUs the rule is another one */
    const starsolve_factorization_t all[] = { STARSOLVE_GETRF, STARSOLVE_GETRF_NOPIV, STARSOLVE_POTRF, STARSOLVE_GEQRF };
    const int workers = starsolve_ncpus(), base = starsolve_get_nb();
    /* k tiles a side give k^2 >= 25 workers from k = ceil(5 sqrt(workers)) on */
    int k = 1;
    while (k * k < 25 * workers)
        k++;
    const int big = 512 * k, middle = 384 * k, small = 100;   /* middle: ceil(0.75 k)^2 < 25 workers */
    for (size_t f = 0; f < sizeof all / sizeof all[0]; f++) {
        TEST_CHECK(starsolve_get_nb_for(all[f], big) == 512, "%d workers, order %d: tile size %d, not 512", workers,
                   big, starsolve_get_nb_for(all[f], big));
        TEST_CHECK(starsolve_get_nb_for(all[f], middle) == 384, "%d workers, order %d: tile size %d, not 384",
                   workers, middle, starsolve_get_nb_for(all[f], middle));
        TEST_CHECK(starsolve_get_nb_for(all[f], small) == base, "%d workers, order %d: tile size %d, not %d", workers,
                   small, starsolve_get_nb_for(all[f], small), base);
    }
    TEST_CHECK(base == 256, "default tile size %d, not 256", base);
    testing_set_nb(300);
    TEST_CHECK(starsolve_get_nb_for(STARSOLVE_GETRF, big) == 300, "starsolve_set_nb(300), order %d: tile size %d", big,
               starsolve_get_nb_for(STARSOLVE_GETRF, big));
}

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
    default_tile_sizes();
    starsolve_finalize();
}

int main(void)
{
    testing_start_watchdog();
    dropin_without_init();
    static int (*const tests[4])(void) = { test_slu, test_dlu, test_clu, test_zlu };
    return testing_run_precisions(tests);
}
