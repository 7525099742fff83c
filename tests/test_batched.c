/* make check: the batched routines in the four precisions. The tests
 * themselves are in the generic tests/ztest_batched.c. */
#include "testing.h"

struct testing_counts testing_counts;

int main(void)
{
    static int (*const tests[4])(void) = { test_sbatched, test_dbatched, test_cbatched, test_zbatched };
    return testing_run_precisions(tests);
}
