/* starpu_qr: time and check the tile QR factorization (starsolve_<p>geqrf_tile_async
 * on the caller's array) and the least-squares solve (starsolve_<p>gels). */
#include <stdio.h>
#include "driver.h"

/* LAPACK's count for geqrf, leading terms: 2 m n^2 - 2 n^3 / 3 (m >= n), 2 n m^2 - 2 m^3 / 3 (m < n). */
static double qr_flops(const struct driver_opts *o)
{
    double big = o->m > o->n ? o->m : o->n, small = o->m < o->n ? o->m : o->n;
    return 2.0 * big * small * small - 2.0 * small * small * small / 3.0;
}

/* the tile size run_<p>qr takes (the library's choice for a QR of this shape) */
static int qr_tile_size(const struct driver_opts *o)
{
    return starsolve_get_nb_for(STARSOLVE_GEQRF, o->m < o->n ? o->m : o->n);
}

int main(int argc, char **argv)
{
    struct driver_opts o;
    const struct driver_flag flags[] = {
        { "-m", DRIVER_FLAG_INT, &o.m, 1, NULL, "M",
          "rows of A (default n): m > n is a least-squares problem, m < n a minimum-norm one" },
        { NULL },
    };
    const struct driver_spec spec = {
        .name = "starpu_qr",
        .purpose = "Tile QR factorization (starsolve_<p>geqrf_tile_async on a view of the caller's m x n\n"
                   "array; the time includes the view and its T workspace), then starsolve_<p>gels for nrhs\n"
                   "right-hand sides B = A X (gels factors again: its time is the whole solve).\n"
                   "-check prints berr = ||A - QR||/(||A|| max(m,n) eps), orth = ||I - Q^H Q||/(max(m,n) eps) and\n"
                   "resid = ||B - A X||/(||A|| ||X|| max(m,n) eps) (LAPACK's xQRT16).\n"
                   "Under mpirun with -P: the QR of A scattered over a P x (processes/P) grid, timed; with\n"
                   "-check Q is formed by a distributed ungqr and process 0 checks the factors (no gels).",
        .flags = flags,
        .distributed = 1,
        .flops = qr_flops,
        .tile_size = qr_tile_size,
    };
    driver_opts_init(&o, &spec);
    int ret = driver_parse(argc, argv, &o);
    if (ret != DRIVER_OK)
        return ret < 0 ? DRIVER_OK : ret;     /* < 0: --help was printed */
    switch (o.prec) {
    case 's': return driver_main(&o, run_sqr);
    case 'c': return driver_main(&o, run_cqr);
    case 'z': return driver_main(&o, run_zqr);
    default:  return driver_main(&o, run_dqr);
    }
}
