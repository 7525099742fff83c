/* starpu_spike: time and check the SPIKE banded solver (starsolve_<p>gbsv_spike) on a
 * random band matrix of a chosen degree of diagonal dominance, and with -vendor
 * LAPACK's gbsv (OpenBLAS) on the same matrix. */
#include <stdio.h>
#include "driver.h"
#include "starsolve.h"

/* a banded LU's leading term, 2 n kl (kl + ku) (the gbsv count), for GF/s */
static double spike_flops(const struct driver_opts *o)
{
    double n = o->n, kl = o->kl, ku = o->ku;
    return 2.0 * n * (kl > 0 ? kl : 1) * (kl + ku + 1) + 2.0 * n * (2 * kl + ku + 1) * o->nrhs;
}

int main(int argc, char **argv)
{
    struct driver_opts o;
    int k = -1, mixed = -1, maxit = 100, nofallback = 0;
    const struct driver_flag flags[] = {
        { "-k", DRIVER_FLAG_INT, &k, 0, NULL, "K", "half-bandwidth: kl = ku = K; default 32" },
        { "-kl", DRIVER_FLAG_INT, &o.kl, 0, NULL, "KL", "subdiagonals (after -k)" },
        { "-ku", DRIVER_FLAG_INT, &o.ku, 0, NULL, "KU", "superdiagonals (after -k)" },
        { "-dd", DRIVER_FLAG_REAL, &o.dominance, 0, NULL, "D",
          "degree of diagonal dominance: diagonal = D times the sum of the row's other entries; default 1" },
        { "-psize", DRIVER_FLAG_INT, &o.psize, 0, NULL, "P", "rows per partition; 0 (default): automatic" },
        { "-mixed", DRIVER_FLAG_INT, &mixed, -1, NULL, "-1|0|1",
          "d, z: partition factors in single precision (1), in double (0), or the library's choice (-1, default:\n              double)" },
        { "-maxit", DRIVER_FLAG_INT, &maxit, 0, NULL, "K", "most BiCGStab iterations (100); 0: the truncated-SPIKE solution alone" },
        { "-nofallback", DRIVER_FLAG_SWITCH, &nofallback, 0, NULL, NULL,
          "no gbsv when SPIKE does not converge: info n+1, the last iterate is checked" },
        { "-vendor", DRIVER_FLAG_SWITCH, &o.vendor, 0, NULL, NULL,
          "also time LAPACK's gbsv (OpenBLAS) on the same matrix (with -resolve, and its gbtrs on the further right-hand sides)" },
        { "-resolve", DRIVER_FLAG_INT, &o.resolve, 0, NULL, "R",
          "time gbtrf_spike + gbtrs_spike instead of gbsv_spike, then R further solves of new right-hand sides with the kept "
          "factorization, each timed (and checked with -check); 0 (default): none" },
        { "-trace-resolve", DRIVER_FLAG_STRING, &o.trace_resolve, 0, NULL, "FILE.svg",
          "with -resolve: a Gantt chart of the last run's last further solve" },
        { NULL },
    };
    const struct driver_spec spec = {
        .name = "starpu_spike",
        .purpose = "SPIKE banded solver (starsolve_<p>gbsv_spike): -n order, -k (or -kl, -ku) band, -dd diagonal\n"
                   "dominance, -nrhs right-hand sides. The time is the whole solve. -check: resid =\n"
                   "||b - Ax||_1/(||A|| ||x|| n eps), and the relative residual ||b - Ax||_inf/||b||_inf.\n"
                   "-resolve R: the factorization kept for R further solves (the result line's solve: the best).",
        .flags = flags,
        .flops = spike_flops,
    };
    driver_opts_init(&o, &spec);
    o.n = 100000;
    o.kl = o.ku = -1;
    o.dominance = 1.0;
    int ret = driver_parse(argc, argv, &o);
    if (ret != DRIVER_OK)
        return ret < 0 ? DRIVER_OK : ret;     /* < 0: --help was printed */
    if (k < 0)
        k = 32;
    if (o.kl < 0) o.kl = k;
    if (o.ku < 0) o.ku = k;
    if (o.nrhs < 1) {
        fprintf(stderr, "starpu_spike: -nrhs must be at least 1\n");
        return DRIVER_USAGE;
    }
    if (starsolve_set_spike_mixed(mixed) || starsolve_set_spike_maxit(maxit) || starsolve_set_spike_fallback(!nofallback)) {
        fprintf(stderr, "starpu_spike: -mixed must be -1, 0 or 1, -maxit 0 .. 1000\n");
        return DRIVER_USAGE;
    }
    switch (o.prec) {
    case 's': return driver_main(&o, run_sspike);
    case 'c': return driver_main(&o, run_cspike);
    case 'z': return driver_main(&o, run_zspike);
    default:  return driver_main(&o, run_dspike);
    }
}
