/* starpu_rbt: time and check the random butterfly solver (starsolve_<p>gesv_rbt). */
#include <stdio.h>
#include <string.h>
#include "driver.h"
#include "check.h"

/* gesv's count: the LU, 2/3 n^3 (the butterflies, solves and refinement are O(n^2) each) */
static double rbt_flops(const struct driver_opts *o)
{
    double n = o->n;
    return 2.0 / 3.0 * n * n * n;
}

/* the tile size gesv_rbt takes: the result line reports it, and with -P the distributed tiles have it */
static int rbt_tile_size(const struct driver_opts *o) { return starsolve_get_nb_rbt(o->n, o->depth); }

int main(int argc, char **argv)
{
    struct driver_opts o;
    const struct driver_flag flags[] = {
        { "-depth", DRIVER_FLAG_INT, &o.depth, 0, NULL, "D", "butterfly depth, 0 to 7 and above 2 only while 2^D <= n (0: no randomization; deeper: more matrices\n"
          "              solved, e.g. Ris and Orthog at large n, the LU waiting for all of A); default 2" },
        { "-refine", DRIVER_FLAG_INT, &o.refine, 0, NULL, "K", "at most K refinement steps (a classical step, then GMRES corrections of up to 50 GMRES steps each); default 5" },
        { "-matrix", DRIVER_FLAG_STRING, &o.matrix, 0, NULL, "KIND",
          "test matrix: rand randn cond1e8 cond1e12 zerodiag zeroblock fiedler lotkin chebspec ris\n"
          "                 orthog kahan wilkinson (checks/zgallery.c); default rand" },
        { "-fallback", DRIVER_FLAG_SWITCH, &o.fallback, 0, NULL, NULL,
          "if RBT fails (zero pivot, or refinement does not converge), solve with partial pivoting (gesv)" },
        { "-phases", DRIVER_FLAG_SWITCH, &o.phases, 0, NULL, NULL,
          "time randomization, factorization, solve and refinement apart (the phases then do not overlap)" },
        { NULL },
    };
    const struct driver_spec spec = {
        .name = "starpu_rbt",
        .purpose = "Random butterfly transformation solver (starsolve_<p>gesv_rbt): A_r = U^T A V, LU of A_r\n"
                   "without pivoting, solve, iterative refinement on A. The time is the whole solve; GF/s\n"
                   "count gesv's 2/3 n^3. -check prints resid = ||b - Ax||/(||A|| ||x|| n eps). With -P under\n"
                   "mpirun: starsolve_<p>gesv_rbt_tile on distributed descriptors.",
        .flags = flags,
        .flops = rbt_flops,
        .tile_size = rbt_tile_size,
        .distributed = 1,
    };
    driver_opts_init(&o, &spec);
    o.depth = 2;
    o.refine = 5;
    o.matrix = "rand";
    int ret = driver_parse(argc, argv, &o);
    if (ret != DRIVER_OK)
        return ret < 0 ? DRIVER_OK : ret;     /* < 0: --help was printed */
    int known = 0;
    for (int k = 0; gallery_kinds[k]; k++)
        known |= !strcmp(gallery_kinds[k], o.matrix);
    if (!known) {
        fprintf(stderr, "starpu_rbt: unknown -matrix '%.40s' (see --help)\n", o.matrix);
        return DRIVER_USAGE;
    }
    if (o.depth >= 0 && !starsolve_rbt_depth_valid(o.n, o.depth)) {   /* starsolve_<p>gesv_rbt's argument -7 */
        fprintf(stderr, "starpu_rbt: -depth %d does not go with -n %d: at most %d, and above 2 only while 2^depth <= n\n",
                o.depth, o.n, STARSOLVE_RBT_MAX_DEPTH);
        return DRIVER_USAGE;
    }
    if (o.nrhs < 1) {
        fprintf(stderr, "starpu_rbt: -nrhs must be at least 1 (gesv_rbt solves a system)\n");
        return DRIVER_USAGE;
    }
    if (o.P > 0 && o.fallback) {   /* the fallback is the LAPACK-layout gesv: one process's matrix */
        fprintf(stderr, "starpu_rbt: -fallback does not go with -P\n");
        return DRIVER_USAGE;
    }
    switch (o.prec) {
    case 's': return driver_main(&o, run_srbt);
    case 'c': return driver_main(&o, run_crbt);
    case 'z': return driver_main(&o, run_zrbt);
    default:  return driver_main(&o, run_drbt);
    }
}
