/* starpu_cholesky, one precision (generic source): time potrf and potrs as a
 * user calls them, check them, report each run.
 * Timing arithmetic lives in driver.c: here the real type is rewritten per precision (float in s and c). */
#include <stdlib.h>
#include <string.h>
#include "starsolve.h"
#include "check.h"
/* examples/ is not on the include path; include/ is, for generated sources too */
#include "../examples/driver.h"

/* Room for one run: the matrix, its pristine copy (with -check), the right-hand sides. */
struct cholesky_data {
    starsolve_complex64_t *A, *A0, *B, *B0;
    int regen;   /* -check regenerates A (gen_zhpd's recipe) instead of copying it */
};

static void cholesky_free(const struct driver_opts *o, struct cholesky_data *d)
{
    driver_free(o, d->A); free(d->A0); driver_free(o, d->B); free(d->B0);
}

/* -ooc: what runs on the out-of-core descriptor */
static int cholesky_submit(const struct driver_opts *o, starsolve_desc_t *A, starsolve_pivots_t *piv,
                           starsolve_request_t *req)
{
    (void)piv;
    return starsolve_zpotrf_tile_async(o->uplo, A, req);
}

static int cholesky_solve_dist(const struct driver_opts *o, starsolve_desc_t *A, starsolve_pivots_t *piv,
                               starsolve_desc_t *B, starsolve_request_t *req)
{
    (void)piv;
    return starsolve_zpotrs_tile_async(o->uplo, A, B, req);
}

/* The arrays of a run (and the pristine matrix, generated once); one line on failure. */
static int cholesky_alloc(const struct driver_opts *o, struct cholesky_data *d, size_t asize, size_t bsize, int nrhs)
{
    /* A, a copy of A for the checks (unless they regenerate it), B and its copy */
    const size_t es = sizeof(starsolve_complex64_t);
    d->regen = driver_check_regenerates(o, asize * es, 2 * bsize * es);
    if (!driver_memory_fits(o, (asize + bsize) * (o->check ? 2 : 1) * es - (d->regen ? asize * es : 0)))
        return DRIVER_FAILED;
    d->A = driver_alloc(o, asize * sizeof *d->A);
    if (o->check && !d->regen)
        d->A0 = malloc(asize * sizeof *d->A0);
    if (nrhs > 0) {
        d->B = driver_alloc(o, bsize * sizeof *d->B);
        if (o->check)
            d->B0 = malloc(bsize * sizeof *d->B0);
    }
    if (!d->A || (o->check && !d->regen && !d->A0) || (nrhs > 0 && (!d->B || (o->check && !d->B0)))) {
        driver_error(o, "not enough memory for the matrices");
        cholesky_free(o, d);
        return DRIVER_FAILED;
    }
    if (o->check && !d->regen)   /* generated once; every run factors a copy of it */
        gen_zhpd(o->n, d->A0, o->n, (unsigned)o->seed);
    return DRIVER_OK;
}

int run_zcholesky(const struct driver_opts *o)
{
    const int n = o->n, nrhs = o->nrhs, lda = n, ldb = n;
    const char uplo = o->uplo;
    const size_t asize = (size_t)lda * n, bsize = (size_t)ldb * nrhs;
    /* under mpirun (-P) process 0 alone holds, generates and checks the matrices */
    const int holds = o->P == 0 || starsolve_mpi_rank() == 0;
    struct cholesky_data d = { 0 };
    if (holds && cholesky_alloc(o, &d, asize, bsize, nrhs) != DRIVER_OK)
        return DRIVER_FAILED;   /* under mpirun the others stop at their first collective call */

    int status = DRIVER_OK;
    for (int run = 1; run <= o->niter; run++) {
        struct driver_result r = driver_result_init(run);
        /* a fresh matrix (both triangles: either uplo reads its own) and right-hand sides, not timed */
        if (holds) {
            if (d.A0)
                memcpy(d.A, d.A0, asize * sizeof *d.A);
            else
                gen_zhpd(n, d.A, lda, (unsigned)o->seed);
            if (nrhs > 0) {
                gen_zmatrix(n, nrhs, d.B, ldb, (unsigned)o->seed + 1u);
                if (o->check)
                    memcpy(d.B0, d.B, bsize * sizeof *d.B);
            }
        }

        driver_bound_begin(o);
        driver_time_t t0 = driver_now();
        if (o->P > 0) {   /* distributed: factor and solve, each timed */
            r.info = driver_factor_dist(o, STARSOLVE_Z, d.A, lda, d.B, ldb, nrhs, NULL, DRIVER_NO_PIVOTS,
                                        cholesky_submit, cholesky_solve_dist, &r);
        } else if (o->ooc) {   /* times the factorization alone, not the copies in and out */
            r.info = driver_factor_ooc(o, STARSOLVE_Z, d.A, lda, NULL, cholesky_submit, &r);
        } else {
            r.info = starsolve_zpotrf(uplo, n, d.A, lda);
            r.seconds = driver_now() - t0;
        }
        driver_bound_end(o, &r);

        if (o->P == 0 && r.info == 0 && nrhs > 0) {
            t0 = driver_now();
            r.info = starsolve_zpotrs(uplo, n, nrhs, d.A, lda, d.B, ldb);
            r.solve_seconds = driver_now() - t0;
            r.solved = 1;
        }
        /* info > 0: the factor is incomplete, the ratios would mean nothing */
        if (holds && o->check && r.info == 0) {
            r.checked = 1;
            r.exact = !d.regen && n <= 4096;     /* the exact check is O(n^3): estimate above */
            if (d.regen) {
                struct matgen g = { MATGEN_HPD, n, n, (unsigned)o->seed, 0 };
                r.berr = check_zpotrf_matgen(uplo, &g, d.A, lda);
                if (r.solved)
                    r.resid = check_zsolve_matgen(&g, nrhs, d.B, ldb, d.B0, ldb);
            } else {
                r.berr = check_zpotrf(uplo, n, d.A0, lda, d.A, lda, r.exact);
                if (r.solved)
                    r.resid = check_zsolve('N', n, nrhs, d.A0, lda, d.B, ldb, d.B0, ldb);
            }
        }
        if (driver_report(o, &r) != DRIVER_OK)
            status = DRIVER_FAILED;
    }
    cholesky_free(o, &d);
    return status;
}
