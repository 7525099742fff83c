/* make check: bad arguments of every LAPACK-layout and tile routine, in the
 * four precisions. The tests themselves are in the generic tests/ztest_args.c. */
#include "testing.h"

struct testing_counts testing_counts;

int main(void)
{
    static int (*const tests[4])(void) = { test_sargs, test_dargs, test_cargs, test_zargs };
    return testing_run_precisions(tests);
}
