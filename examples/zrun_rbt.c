/* starpu_rbt, one precision (generic source): time gesv_rbt as a user calls it
 * (or, with -P under mpirun, gesv_rbt_tile on distributed descriptors), fall back
 * to gesv if asked, check, report each run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "starsolve.h"
#include "check.h"
#include "../examples/driver.h"

/* -P: the solve on the distributed descriptors; times: NULL, or the phases */
static int rbt_solve_dist(const struct driver_opts *o, starsolve_desc_t *A, starsolve_desc_t *B, struct driver_result *r,
                          void *times)
{
    return starsolve_zgesv_rbt_tile(A, B, o->depth, o->refine, &r->iters, times);
}

int run_zrbt(const struct driver_opts *o)
{
    const int n = o->n, nrhs = o->nrhs, lda = n, ldb = n;
    const size_t asize = (size_t)lda * n, bsize = (size_t)ldb * nrhs;
    /* under mpirun (-P) process 0 alone holds, generates and checks the matrices */
    const int holds = o->P == 0 || starsolve_mpi_rank() == 0;
    starsolve_complex64_t *A = NULL, *X = NULL, *B = NULL, *F = NULL;
    int *ipiv = NULL;
    if (holds) {
        /* A (kept: gesv_rbt only reads it), X, B for the checks, and A's copy for a fallback */
        const size_t need = (asize * (o->fallback ? 2 : 1) + 2 * bsize) * sizeof(starsolve_complex64_t);
        if (!driver_memory_fits(o, need))
            return DRIVER_FAILED;   /* under mpirun the others stop at their first collective call */
        /* page-locked as starpu_lu's (driver_alloc), so gesv and gesv_rbt compare on the same footing */
        A = driver_alloc(o, asize * sizeof *A);
        X = driver_alloc(o, bsize * sizeof *X);
        B = malloc(bsize * sizeof *B);
        F = o->fallback ? malloc(asize * sizeof *F) : NULL;
        ipiv = o->fallback ? malloc((size_t)n * sizeof *ipiv) : NULL;
        if (!A || !X || !B || (o->fallback && (!F || !ipiv))) {
            driver_error(o, "not enough memory for the matrices");
            driver_free(o, A); driver_free(o, X); free(B); free(F); free(ipiv);
            return DRIVER_FAILED;
        }
        if (gen_zgallery(o->matrix, n, A, lda, (unsigned)o->seed) != 0) {
            driver_error(o, "the matrix generator failed");
            driver_free(o, A); driver_free(o, X); free(B); free(F); free(ipiv);
            return DRIVER_FAILED;
        }
        gen_zmatrix(n, nrhs, B, ldb, (unsigned)o->seed + 1u);
    }
    int status = DRIVER_OK;
    for (int run = 1; run <= o->niter; run++) {
        struct driver_result r = driver_result_init(run);
        starsolve_rbt_times_t times;
        if (holds)
            memcpy(X, B, bsize * sizeof *X);
        driver_bound_begin(o);   /* -trace, -bound: the whole solve */
        if (o->P > 0) {   /* the library's tile size for this order, as the LAPACK-layout call takes it */
            r.info = driver_solve_dist(o, STARSOLVE_Z, starsolve_get_nb_rbt(n, o->depth), A, lda, X, ldb, nrhs,
                                       rbt_solve_dist, o->phases ? &times : NULL, &r);
        } else {
            driver_time_t t0 = driver_now();
            r.info = starsolve_zgesv_rbt_timed(n, nrhs, A, lda, X, ldb, o->depth, o->refine, &r.iters,
                                               o->phases ? &times : NULL);
            r.seconds = driver_now() - t0;
        }
        driver_bound_end(o, &r);
        FILE *h = o->csv ? stderr : stdout;
        if (holds && r.info > 0) {
            fprintf(h, "starpu_rbt: RBT failed: %s", r.info <= n ? "a zero pivot in LU without pivoting"
                                                               : "refinement did not reach the criterion");
            /* the depth a matrix needs grows with n (Ris: 5 at n = 1000, 6 at 4096, 7 at 20000; README) */
            int deepest = o->depth;
            while (starsolve_rbt_depth_valid(n, deepest + 1))
                deepest++;
            if (deepest > o->depth)
                fprintf(h, "; a deeper -depth (up to %d at this n) mixes more of A", deepest);
            fprintf(h, "%s\n", o->fallback ? "" : "; -fallback solves with partial pivoting instead");
        }
        if (r.info > 0 && o->fallback) {   /* not with -P (starpu_rbt.c refuses the pair) */
            memcpy(F, A, asize * sizeof *F);
            memcpy(X, B, bsize * sizeof *X);
            driver_time_t t0 = driver_now();
            r.info = starsolve_zgesv(n, nrhs, F, lda, ipiv, X, ldb);
            r.seconds += driver_now() - t0;
            fprintf(h, "starpu_rbt: fell back to partial pivoting (gesv): info %d\n", r.info);
        }
        if (holds && o->phases && r.seconds > 0)   /* under mpirun, process 0's clock */
            fprintf(h, "starpu_rbt: phases: copy %.3f s, randomize %.3f s (%.1f%%), factor %.3f s, solve %.3f s,"
                    " refine %.3f s (setup %.3f s, cleanup %.3f s)\n", times.copy, times.randomize,
                    100 * times.randomize / r.seconds, times.factor, times.solve, times.refine, times.setup,
                    times.cleanup);
        if (holds && o->check && r.info == 0) {   /* under mpirun, on the gathered solution */
            r.checked = 1;
            r.no_berr = 1;
            r.solved = 1;
            r.resid = check_zsolve('N', n, nrhs, A, lda, X, ldb, B, ldb);
        }
        if (driver_report(o, &r) != DRIVER_OK)
            status = DRIVER_FAILED;
    }
    driver_free(o, A); driver_free(o, X); free(B); free(F); free(ipiv);
    return status;
}
