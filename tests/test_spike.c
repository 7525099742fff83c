/* make check: the SPIKE banded solver in the four precisions. The tests
 * themselves are in the generic tests/ztest_spike.c. */
#include "testing.h"

struct testing_counts testing_counts;

int main(void)
{
    static int (*const tests[4])(void) = { test_sspike, test_dspike, test_cspike, test_zspike };
    return testing_run_precisions(tests);
}
