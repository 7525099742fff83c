/* starpu_cholesky: time and check Cholesky factorization (starsolve_<p>potrf)
 * and the solve with it (starsolve_<p>potrs). */
#include <stdio.h>
#include "driver.h"
#include "starsolve.h"

/* LAPACK's count for potrf, leading term: n^3 / 3. */
static double cholesky_flops(const struct driver_opts *o)
{
    double n = o->n;
    return n * n * n / 3.0;
}

static int cholesky_tile_size(const struct driver_opts *o) { return starsolve_get_nb_for(STARSOLVE_POTRF, o->n); }

int main(int argc, char **argv)
{
    struct driver_opts o;
    const struct driver_flag flags[] = {
        { "-uplo", DRIVER_FLAG_CHOICE, &o.uplo, 0, "LU", "L|U", "triangle to factor: L (A = L L^H) or U (A = U^H U); default L" },
        { "-regen", DRIVER_FLAG_SWITCH, &o.regen, 0, NULL, NULL, driver_regen_help },
        { NULL },
    };
    const struct driver_spec spec = {
        .name = "starpu_cholesky",
        .purpose = "Cholesky factorization (starsolve_<p>potrf) of a random Hermitian positive definite\n"
                   "matrix (random + n I, 2n I in complex precisions), then the solve (starsolve_<p>potrs) for nrhs right-hand sides.",
        .flags = flags,
        .flops = cholesky_flops,
        /* 1-9% faster than dmdas on an H100 (src/context.c, default_scheduler) */
        .gpu_sched = "modular-heft-prio",
        .out_of_core = 1,
        .distributed = 1,
        .tile_size = cholesky_tile_size,
    };
    driver_opts_init(&o, &spec);
    o.uplo = 'L';
    int ret = driver_parse(argc, argv, &o);
    if (ret != DRIVER_OK)
        return ret < 0 ? DRIVER_OK : ret;     /* < 0: --help was printed */
    switch (o.prec) {
    case 's': return driver_main(&o, run_scholesky);
    case 'c': return driver_main(&o, run_ccholesky);
    case 'z': return driver_main(&o, run_zcholesky);
    default:  return driver_main(&o, run_dcholesky);
    }
}
