/* starpu_spike, one precision (generic source): time gbsv_spike as a user calls
 * it, check it, and with -vendor time LAPACK's gbsv on the same matrix. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lapacke.h>
#include <starpu.h>
#include "starsolve.h"
#include "check.h"
#include "../examples/driver.h"

int run_zspike(const struct driver_opts *o)
{
    const int n = o->n, kl = o->kl, ku = o->ku, nrhs = o->nrhs, ldab = 2 * kl + ku + 1;
    const size_t asize = (size_t)ldab * n, bsize = (size_t)n * nrhs;
    const size_t need = (asize * (o->vendor ? 2 : 1) + 3 * bsize) * sizeof(starsolve_complex64_t);
    if (!driver_memory_fits(o, need))
        return DRIVER_FAILED;
    /* the band and the solution page-locked as starpu_lu's matrices (driver_alloc; -nopin: pageable, and
     * the library pins them for each call) */
    starsolve_complex64_t *AB = driver_alloc(o, asize * sizeof *AB), *B = malloc(bsize * sizeof *B);
    starsolve_complex64_t *X = driver_alloc(o, bsize * sizeof *X);
    starsolve_complex64_t *F = o->vendor ? malloc(asize * sizeof *F) : NULL;
    int *ipiv = o->vendor ? malloc((size_t)n * sizeof *ipiv) : NULL;
    if (!AB || !B || !X || (o->vendor && (!F || !ipiv))) {
        driver_error(o, "not enough memory for the band");
        driver_free(o, AB); free(B); driver_free(o, X); free(F); free(ipiv);
        return DRIVER_FAILED;
    }
    gen_zband(n, kl, ku, o->dominance, AB, ldab, (unsigned)o->seed);
    gen_zmatrix(n, nrhs, B, n, (unsigned)o->seed + 1u);
    starsolve_set_spike_psize(o->psize);
    FILE *h = o->csv ? stderr : stdout;
    int status = DRIVER_OK;
    double best = 0, vbest = 0;
    for (int run = 1; run <= o->niter; run++) {
        struct driver_result r = driver_result_init(run);
        memcpy(X, B, bsize * sizeof *X);
        driver_bound_begin(o);   /* -trace, -bound */
        driver_time_t t0 = driver_now();
        r.info = starsolve_zgbsv_spike(n, kl, ku, nrhs, AB, ldab, X, n, &r.iters);
        r.seconds = driver_now() - t0;
        driver_bound_end(o, &r);
        best = run == 1 || r.seconds < best ? r.seconds : best;
        if (r.iters == -1)
            fprintf(h, "starpu_spike: BiCGStab did not converge; solved by LAPACK's banded LU with pivoting (gbsv)\n");
        if (r.iters == -2)
            fprintf(h, "starpu_spike: not diagonally dominant; solved by LAPACK's banded LU with pivoting (gbsv)\n");
        if (r.info == n + 1)
            fprintf(h, "starpu_spike: did not converge (info n+1, no fallback); checking the last iterate\n");
        if (o->check && (r.info == 0 || r.info == n + 1)) {
            double relative;
            r.checked = 1;
            r.no_berr = 1;
            r.solved = 1;
            r.resid = check_zgbsolve(n, kl, ku, nrhs, AB, ldab, X, n, B, n, &relative);
            fprintf(h, "starpu_spike: relative residual ||b-Ax||/||b|| = %.2e\n", relative);
        }
        if (driver_report(o, &r) != DRIVER_OK)
            status = DRIVER_FAILED;
        if (o->vendor) {
            /* gbsv on a copy, right after, with StarPU's workers paused (they poll their cores) */
            memcpy(F, AB, asize * sizeof *F);
            memcpy(X, B, bsize * sizeof *X);
            starpu_pause();
            t0 = driver_now();
            int vinfo = LAPACKE_zgbsv_work(LAPACK_COL_MAJOR, n, kl, ku, nrhs, F, ldab, ipiv, X, n);
            double t = driver_now() - t0;
            starpu_resume();
            if (vinfo != 0)
                status = DRIVER_FAILED;
            vbest = run == 1 || t < vbest ? t : vbest;
        }
    }
    if (o->vendor)
        fprintf(h, "starpu_spike: LAPACK gbsv (OpenBLAS): best %.4f s; starsolve best %.4f s; speedup %.2f\n",
                vbest, best, vbest / best);
    driver_free(o, AB); free(B); driver_free(o, X); free(F); free(ipiv);
    return status;
}
