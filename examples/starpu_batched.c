/* starpu_batched: time and check the batched factorizations (starsolve_<p>getrf_batched,
 * potrf_batched, geqrf_batched) on a batch of random matrices, with -nrhs the batched
 * solves on their factors (getrs_batched, potrs_batched, geqrs_batched), and with -vendor the
 * reference on the same matrices: on CPUs, an OpenMP loop of LAPACKE calls over as
 * many threads as starsolve has CPU workers; with GPUs (-ngpus), the same call with
 * the vendor's batched routines (cuBLAS/cuSOLVER) in place of our kernels. Kernel
 * times alone, matrices already in GPU memory: bench/batched_gpu. */
#include <stdio.h>
#include <string.h>
#include "driver.h"

/* one matrix's LAPACK flop count (real: additions and multiplications, as the dense drivers), times the batch */
static double batched_flops(const struct driver_opts *o)
{
    double m = o->m, n = o->n, k = m < n ? m : n, big = m > n ? m : n, f;
    if (!strcmp(o->op, "potrf"))
        f = n * n * n / 3.0;
    else if (!strcmp(o->op, "geqrf"))
        f = 2.0 * big * k * k - 2.0 * k * k * k / 3.0;
    else
        f = 2.0 * (m * n * k - (m + n) * k * k / 2.0 + k * k * k / 3.0);
    return f * o->batch;
}

int main(int argc, char **argv)
{
    struct driver_opts o;
    const struct driver_flag flags[] = {
        { "-op", DRIVER_FLAG_STRING, &o.op, 0, NULL, "OP", "getrf, potrf or geqrf; default getrf" },
        { "-m", DRIVER_FLAG_INT, &o.m, 1, NULL, "M", "rows of each matrix (default 32; potrf: the order)" },
        { "-batch", DRIVER_FLAG_INT, &o.batch, 1, NULL, "B", "matrices in the batch; default 1000" },
        { "-uplo", DRIVER_FLAG_CHOICE, &o.uplo, 0, "LU", "L|U",
          "potrf: the triangle to factor, L (A = L L^H) or U (A = U^H U); the reference loop factors the same; default L" },
        { "-trans", DRIVER_FLAG_CHOICE, &o.trans, 0, "NTC", "N|T|C",
          "getrf with -nrhs: solve op(A) X = B with op(A) = A (N), A^T (T) or A^H (C); the reference loop solves the same; "
          "default N" },
        { "-chunk", DRIVER_FLAG_INT, &o.chunk, 0, NULL, "C", "matrices per task (with GPUs) or per claim (CPU workers alone); 0 (default): automatic" },
        { "-pack", DRIVER_FLAG_SWITCH, &o.pack, 0, NULL, NULL,
          "take the packed path whatever the library's rule (starsolve_set_batch_pack(1)): the GPUs take packed chunks "
          "from one end of the batch, the CPU workers factor in place from the other; otherwise the library chooses "
          "between that and chunks as StarPU tasks" },
        { "-vendor", DRIVER_FLAG_SWITCH, &o.vendor, 0, NULL, NULL,
          "also time the reference on the same matrices: an OpenMP loop of LAPACKE calls on the CPU workers' cores; "
          "with GPUs, the same call with cuBLAS/cuSOLVER's batched routines instead of our kernels" },
        { NULL },
    };
    const struct driver_spec spec = {
        .name = "starpu_batched",
        .purpose = "Batched factorization of many small matrices (starsolve_<p>getrf_batched, potrf_batched,\n"
                   "geqrf_batched): -m rows, -n columns (default -m), -batch matrices, -chunk matrices per\n"
                   "task, or per claim on CPU workers alone (starsolve_set_batch_chunk). -nb is not used. -check: the worst backward error over the batch.\n"
                   "-nrhs R (default 0): then solve R random right-hand sides a matrix with the factors (getrs_batched, -trans,\n"
                   "potrs_batched; geqrs_batched, least squares, m >= n), timed apart and, with -check, the worst residual;\n"
                   "with -vendor on CPU workers the reference loop solves too (LAPACKE getrs, potrs, unmqr + trtrs).",
        .flags = flags,
        .flops = batched_flops,
    };
    driver_opts_init(&o, &spec);
    o.op = "getrf";
    o.batch = 1000;
    o.n = 0;            /* not given: the same as -m */
    o.uplo = 'L';
    o.trans = 'N';
    o.nrhs = 0;
    int ret = driver_parse(argc, argv, &o);
    if (ret != DRIVER_OK)
        return ret < 0 ? DRIVER_OK : ret;     /* < 0: --help was printed */
    if (strcmp(o.op, "getrf") && strcmp(o.op, "potrf") && strcmp(o.op, "geqrf")) {
        fprintf(stderr, "starpu_batched: -op must be getrf, potrf or geqrf, not '%.20s'\n", o.op);
        return DRIVER_USAGE;
    }
    if (o.m <= 0 && o.n <= 0)
        o.m = o.n = 32;
    else if (o.n <= 0)
        o.n = o.m;
    if (!strcmp(o.op, "potrf")) {   /* square: -m or -n gives the order */
        if (o.m > 0 && o.n > 0 && o.m != o.n) {
            fprintf(stderr, "starpu_batched: potrf factors square matrices: -m %d and -n %d differ\n", o.m, o.n);
            return DRIVER_USAGE;
        }
        o.n = o.m;
    }
    if (o.nrhs > 0 && !strcmp(o.op, "getrf") && o.m != o.n) {
        fprintf(stderr, "starpu_batched: -nrhs solves with getrf's factors of square matrices: -m %d and -n %d differ\n", o.m, o.n);
        return DRIVER_USAGE;
    }
    if (o.trans != 'N' && (strcmp(o.op, "getrf") || o.nrhs <= 0)) {
        fprintf(stderr, "starpu_batched: -trans %c applies to getrf's solves (-op getrf -nrhs R)\n", o.trans);
        return DRIVER_USAGE;
    }
    if (o.nrhs > 0 && !strcmp(o.op, "geqrf") && o.m < o.n) {
        fprintf(stderr, "starpu_batched: -nrhs solves least-squares problems with geqrf's factors: -m %d < -n %d\n", o.m, o.n);
        return DRIVER_USAGE;
    }
    switch (o.prec) {
    case 's': return driver_main(&o, run_sbatched);
    case 'c': return driver_main(&o, run_cbatched);
    case 'z': return driver_main(&o, run_zbatched);
    default:  return driver_main(&o, run_dbatched);
    }
}
