/* starpu_lu: time and check LU factorization (starsolve_<p>getrf, partial
 * pivoting, or starsolve_<p>getrf_nopiv) and the solve with it (getrs). */
#include <stdio.h>
#include "driver.h"
#include "starsolve.h"

/* LAPACK's count for getrf, leading terms: m n^2 - n^3/3 (m >= n), 2/3 n^3 when square. */
static double lu_flops(const struct driver_opts *o)
{
    double big = o->m > o->n ? o->m : o->n, small = o->m < o->n ? o->m : o->n;
    return big * small * small - small * small * small / 3.0;
}

static int lu_tile_size(const struct driver_opts *o)
{
    return starsolve_get_nb_for(o->nopiv ? STARSOLVE_GETRF_NOPIV : STARSOLVE_GETRF, o->n);
}

int main(int argc, char **argv)
{
    struct driver_opts o;
    const struct driver_flag flags[] = {
        { "-m", DRIVER_FLAG_INT, &o.m, 1, NULL, "M",
          "rows of A (default n); m != n times and checks the factorization only" },
        { "-nopiv", DRIVER_FLAG_SWITCH, &o.nopiv, 0, NULL, NULL,
          "LU without pivoting (getrf_nopiv), on a diagonally dominant matrix: random + max(m,n) I" },
        { "-gesv", DRIVER_FLAG_SWITCH, &o.gesv, 0, NULL, NULL,
          "time starsolve_<p>gesv instead: factor and solve in one call, the factors kept where\n"
          "              they are between the two (getrf then getrs hand A back and register it again)" },
        { "-regen", DRIVER_FLAG_SWITCH, &o.regen, 0, NULL, NULL, driver_regen_help },
        { NULL },
    };
    const struct driver_spec spec = {
        .name = "starpu_lu",
        .purpose = "LU factorization with partial pivoting (starsolve_<p>getrf) of a random matrix,\n"
                   "then the solve (starsolve_<p>getrs) for nrhs random right-hand sides.",
        .flags = flags,
        .flops = lu_flops,
        /* 1-9% faster than dmdas on an H100 (src/context.c, default_scheduler) */
        .gpu_sched = "modular-heft-prio",
        .out_of_core = 1,
        .distributed = 1,
        .tile_size = lu_tile_size,
    };
    driver_opts_init(&o, &spec);
    int ret = driver_parse(argc, argv, &o);
    if (ret != DRIVER_OK)
        return ret < 0 ? DRIVER_OK : ret;     /* < 0: --help was printed */
    if (o.gesv && (o.nopiv || o.m != o.n || o.ooc || o.P > 0)) {
        driver_error(&o, "-gesv solves a square system in core: not with -nopiv, -m, -ooc or -P");
        return DRIVER_USAGE;
    }
    if (o.m != o.n)          /* rectangular: no system to solve, and the result lines say so */
        o.nrhs = 0;
    switch (o.prec) {
    case 's': return driver_main(&o, run_slu);
    case 'c': return driver_main(&o, run_clu);
    case 'z': return driver_main(&o, run_zlu);
    default:  return driver_main(&o, run_dlu);
    }
}
