/* make check (built with StarPU-MPI): distributed factorizations in the four
 * precisions, run by tests/test_mpi.sh as 4 processes under mpirun. The tests
 * are in the generic tests/ztest_mpi.c; every process runs them, process 0
 * judges the results and prints the summary. */
#include "testing.h"

struct testing_counts testing_counts;

int main(void)
{
    testing_start_watchdog();
    starsolve_config_t cfg;
    starsolve_config_init(&cfg);
    cfg.mpi = 1;
    cfg.ngpus = 0;
    cfg.ncpus = 1;   /* 4 processes share the CI machine's 2 cores */
    cfg.verbose = 0;
    if (starsolve_init(&cfg) != 0) {
        fprintf(stderr, "test_mpi: starsolve_init with StarPU-MPI failed\n");
        return TESTING_HARD_ERROR;
    }
    TEST_CHECK(starsolve_mpi_available() && starsolve_mpi_size() >= 1, "StarPU-MPI started: %d processes",
               starsolve_mpi_size());
    static int (*const tests[4])(void) = { test_smpi, test_dmpi, test_cmpi, test_zmpi };
    int failed[4];
    for (int p = 0; p < 4; p++)
        failed[p] = tests[p]();
    int me = starsolve_mpi_rank();
    starsolve_finalize();
    if (me != 0)   /* only process 0 judged the results */
        return testing_counts.failed ? 1 : 0;
    printf("failures by precision: s %d, d %d, c %d, z %d\n", failed[0], failed[1], failed[2], failed[3]);
    return testing_summary();
}
