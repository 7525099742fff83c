/* Run once before the tests (make check): StarPU measures the machine's buses
 * the first time it starts with a fresh STARPU_HOME and writes the results
 * there. Tests started in parallel would all write and read those files at once
 * (StarPU then fails an assertion reading a half-written file), so this program
 * starts StarPU alone first. */
#include <stdio.h>
#include "starsolve.h"

int main(void)
{
    starsolve_config_t cfg;
    starsolve_config_init(&cfg);
    cfg.ngpus = 0;
    if (starsolve_init(&cfg) != 0) {
        fprintf(stderr, "starpu_warmup: StarPU did not start\n");
        return 1;
    }
    starsolve_finalize();
    return 0;
}
