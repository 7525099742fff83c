/* make check: Cholesky (potrf, potrs, posv and their tile forms) in the four
 * precisions. The tests themselves are in the generic tests/ztest_cholesky.c. */
#include "testing.h"

struct testing_counts testing_counts;

int main(void)
{
    static int (*const tests[4])(void) = { test_scholesky, test_dcholesky, test_ccholesky, test_zcholesky };
    return testing_run_precisions(tests);
}
