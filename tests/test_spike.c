/* make check: the SPIKE banded solver in the four precisions. The tests
 * themselves are in the generic tests/ztest_spike.c. */
#include <stdio.h>
#include "testing.h"

struct testing_counts testing_counts;

int main(void)
{
    if (testing_init(32) != 0)
        return TESTING_HARD_ERROR;
    int failed[4] = { test_sspike(), test_dspike(), test_cspike(), test_zspike() };
    printf("failures by precision: s %d, d %d, c %d, z %d\n", failed[0], failed[1], failed[2], failed[3]);
    starsolve_finalize();
    return testing_summary();
}
