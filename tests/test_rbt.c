/* make check: the random butterfly solver (gesv_rbt) in the four precisions.
 * The tests themselves are in the generic tests/ztest_rbt.c. */
#include <stdio.h>
#include "testing.h"

struct testing_counts testing_counts;

int main(void)
{
    if (testing_init(32) != 0)
        return TESTING_HARD_ERROR;
    int failed[4] = { test_srbt(), test_drbt(), test_crbt(), test_zrbt() };
    printf("failures by precision: s %d, d %d, c %d, z %d\n", failed[0], failed[1], failed[2], failed[3]);
    starsolve_finalize();
    return testing_summary();
}
