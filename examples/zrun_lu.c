/* starpu_lu, one precision (generic source): time getrf (or getrf_nopiv) and
 * getrs as a user calls them, or gesv (-gesv), check them, report each run.
 * Timing arithmetic lives in driver.c: here the real type is rewritten per precision (float in s and c). */
#include <stdlib.h>
#include <string.h>
#include "starsolve.h"
#include "check.h"
/* examples/ is not on the include path; include/ is, for generated sources too */
#include "../examples/driver.h"

/* Room for one run: the matrix, its pristine copy (with -check, unless the check
 * regenerates it: regen), the right-hand sides. */
struct lu_data {
    starsolve_complex64_t *A, *A0, *B, *B0;
    int *ipiv;
    int regen;
};

static void lu_free(const struct driver_opts *o, struct lu_data *d)
{
    driver_free(o, d->A); free(d->A0); driver_free(o, d->B); free(d->B0); free(d->ipiv);
}

/* The matrix of the run, as a recipe the checks can regenerate. Without pivoting,
 * a random matrix would be factored unstably and fail the check: add max(m,n) to
 * the diagonal (diagonally dominant). */
static struct matgen lu_matrix(const struct driver_opts *o)
{
    int mn = o->m > o->n ? o->m : o->n;
    return (struct matgen){ MATGEN_RANDOM, o->m, o->n, (unsigned)o->seed, o->nopiv ? mn : 0 };
}

static void lu_generate(const struct driver_opts *o, starsolve_complex64_t *A, int lda)
{
    struct matgen g = lu_matrix(o);
    gen_zmatrix(g.m, g.n, A, lda, g.seed);
    for (int i = 0; g.shift != 0 && i < g.m && i < g.n; i++)
        A[i + (size_t)i * lda] += g.shift;
}

/* -ooc: what runs on the out-of-core descriptor */
static int lu_submit(const struct driver_opts *o, starsolve_desc_t *A, starsolve_pivots_t *piv, starsolve_request_t *req)
{
    return o->nopiv ? starsolve_zgetrf_nopiv_tile_async(A, req) : starsolve_zgetrf_tile_async(A, piv, req);
}

/* -P: the solve on the distributed descriptors; without pivoting, identity pivots make getrs the solve */
static int lu_solve_dist(const struct driver_opts *o, starsolve_desc_t *A, starsolve_pivots_t *piv,
                         starsolve_desc_t *B, starsolve_request_t *req)
{
    if (o->nopiv) {
        int k = o->m < o->n ? o->m : o->n, *identity = malloc((size_t)k * sizeof *identity);
        if (!identity)
            return -1;
        for (int i = 0; i < k; i++)
            identity[i] = i + 1;
        starsolve_pivots_from_lapack(piv, identity);   /* every process sets its own copy */
        free(identity);
    }
    return starsolve_zgetrs_tile_async('N', A, piv, B, req);
}

/* The arrays of a run (and the pristine matrix, generated once); one line on failure. */
static int lu_alloc(const struct driver_opts *o, struct lu_data *d, size_t asize, size_t bsize, int k, int nrhs)
{
    /* A, a copy of A for the checks (unless they regenerate it), B and its copy */
    const size_t es = sizeof(starsolve_complex64_t);
    d->regen = driver_check_regenerates(o, asize * es, 2 * bsize * es);
    if (!driver_memory_fits(o, (asize + bsize) * (o->check ? 2 : 1) * es - (d->regen ? asize * es : 0)))
        return DRIVER_FAILED;
    d->A = driver_alloc(o, asize * sizeof *d->A);
    d->ipiv = malloc((size_t)k * sizeof *d->ipiv);
    if (o->check && !d->regen)
        d->A0 = malloc(asize * sizeof *d->A0);
    if (nrhs > 0) {
        d->B = driver_alloc(o, bsize * sizeof *d->B);
        if (o->check)
            d->B0 = malloc(bsize * sizeof *d->B0);
    }
    if (!d->A || !d->ipiv || (o->check && !d->regen && !d->A0) || (nrhs > 0 && (!d->B || (o->check && !d->B0)))) {
        driver_error(o, "not enough memory for the matrices");
        lu_free(o, d);
        return DRIVER_FAILED;
    }
    if (o->check && !d->regen)   /* generated once; every run factors a copy of it */
        lu_generate(o, d->A0, o->m);
    return DRIVER_OK;
}

int run_zlu(const struct driver_opts *o)
{
    const int m = o->m, n = o->n, lda = m, ldb = n;
    const int k = m < n ? m : n;
    /* A solve needs a square system; -m with m != n times and checks getrf alone. */
    const int nrhs = m == n ? o->nrhs : 0;
    const size_t asize = (size_t)lda * n, bsize = (size_t)ldb * nrhs;
    /* under mpirun (-P) process 0 alone holds, generates and checks the matrices */
    const int holds = o->P == 0 || starsolve_mpi_rank() == 0;
    struct lu_data d = { 0 };
    if (holds && lu_alloc(o, &d, asize, bsize, k, nrhs) != DRIVER_OK)
        return DRIVER_FAILED;   /* under mpirun the others stop at their first collective call */

    int status = DRIVER_OK;
    for (int run = 1; run <= o->niter; run++) {
        struct driver_result r = driver_result_init(run);
        /* a fresh matrix and right-hand sides, not timed */
        if (holds) {
            if (d.A0)
                memcpy(d.A, d.A0, asize * sizeof *d.A);
            else
                lu_generate(o, d.A, lda);
            if (nrhs > 0) {
                gen_zmatrix(n, nrhs, d.B, ldb, (unsigned)o->seed + 1u);
                if (o->check)
                    memcpy(d.B0, d.B, bsize * sizeof *d.B);
            }
        }

        driver_bound_begin(o);
        driver_time_t t0 = driver_now();
        if (o->P > 0) {   /* distributed: factor and solve, each timed; without pivoting the identity pivots serve the solve */
            r.info = driver_factor_dist(o, STARSOLVE_Z, d.A, lda, d.B, ldb, nrhs, d.ipiv,
                                        o->nopiv ? DRIVER_PIVOTS : DRIVER_PIVOTS_GATHERED, lu_submit, lu_solve_dist, &r);
        } else if (o->ooc) {   /* times the factorization alone, not the copies in and out */
            r.info = driver_factor_ooc(o, STARSOLVE_Z, d.A, lda, o->nopiv ? NULL : d.ipiv, lu_submit, &r);
        } else if (o->gesv) {   /* one call: the solve finds the factors still on the GPUs */
            r.info = starsolve_zgesv(n, nrhs, d.A, lda, d.ipiv, d.B, ldb);
            r.seconds = driver_now() - t0;
            r.solved = nrhs > 0;
        } else {
            if (o->nopiv)
                r.info = starsolve_zgetrf_nopiv(m, n, d.A, lda);
            else
                r.info = starsolve_zgetrf(m, n, d.A, lda, d.ipiv);
            r.seconds = driver_now() - t0;
        }
        driver_bound_end(o, &r);

        if (o->P == 0 && !o->gesv && r.info == 0 && nrhs > 0) {
            if (o->nopiv)          /* no public getrs_nopiv: identity pivots make getrs one */
                for (int i = 0; i < k; i++)
                    d.ipiv[i] = i + 1;
            t0 = driver_now();
            r.info = starsolve_zgetrs('N', n, nrhs, d.A, lda, d.ipiv, d.B, ldb);
            r.solve_seconds = driver_now() - t0;
            r.solved = 1;
        }
        /* info > 0 leaves an exactly singular U: the ratios would mean nothing */
        if (holds && o->check && r.info == 0) {
            r.checked = 1;
            r.exact = !d.regen && (m > n ? m : n) <= 4096;   /* the exact check is O(n^3): estimate above */
            if (d.regen) {
                struct matgen g = lu_matrix(o);
                r.berr = check_zgetrf_matgen(&g, d.A, lda, o->nopiv ? NULL : d.ipiv);
                if (r.solved)
                    r.resid = check_zsolve_matgen(&g, nrhs, d.B, ldb, d.B0, ldb);
            } else {
                r.berr = check_zgetrf(m, n, d.A0, lda, d.A, lda, o->nopiv ? NULL : d.ipiv, r.exact);
                if (r.solved)
                    r.resid = check_zsolve('N', n, nrhs, d.A0, lda, d.B, ldb, d.B0, ldb);
            }
        }
        if (driver_report(o, &r) != DRIVER_OK)
            status = DRIVER_FAILED;
    }
    lu_free(o, &d);
    return status;
}
