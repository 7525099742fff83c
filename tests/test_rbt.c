/* make check: the random butterfly solver (gesv_rbt) in the four precisions.
 * The tests themselves are in the generic tests/ztest_rbt.c. */
#include "testing.h"

struct testing_counts testing_counts;

int main(void)
{
    static int (*const tests[4])(void) = { test_srbt, test_drbt, test_crbt, test_zrbt };
    return testing_run_precisions(tests);
}
