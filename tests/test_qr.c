/* make check: QR (geqrf, unmqr, ungqr tile forms) and gels in the four
 * precisions. The tests themselves are in the generic tests/ztest_qr.c. */
#include "testing.h"

struct testing_counts testing_counts;

int main(void)
{
    static int (*const tests[4])(void) = { test_sqr, test_dqr, test_cqr, test_zqr };
    return testing_run_precisions(tests);
}
