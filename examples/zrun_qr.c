/* starpu_qr, one precision (generic source): time the tile QR and gels as a
 * user calls them, check them, report each run. */
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include <lapacke.h>
#include "starsolve.h"
#include "check.h"
/* examples/ is not on the include path; include/ is, for generated sources too */
#include "../examples/driver.h"

struct qr_data {
    starsolve_complex64_t *A, *A0, *B, *B0, *X, *Q;
};

/* the library's tile size for a QR of this shape (its LAPACK-layout gels takes the same) */
static int qr_tile_size(int m, int n)
{
    return starsolve_get_nb_for(STARSOLVE_GEQRF, m < n ? m : n);
}

/* A and B page-locked as starpu_lu's (driver_alloc): pageable, every call paid to pin
 * them (about 1 s of the 3.5 s of a QR of order 40000 on an H100) */
static void qr_free(const struct driver_opts *o, struct qr_data *d)
{
    driver_free(o, d->A); free(d->A0); driver_free(o, d->B); free(d->B0); free(d->X); free(d->Q);
}

/* ||A0 - QR|| and ||I - Q^H Q|| with Q formed from the factors in d->A and T */
static driver_ratio_t check_factors(int m, int n, struct qr_data *d, starsolve_desc_t *T, driver_ratio_t *orth)
{
    int k = m < n ? m : n;
    starsolve_desc_t *dA, *dQ;
    starsolve_request_t *req = starsolve_request_create();
    starsolve_desc_create_lapack(&dA, STARSOLVE_Z, m, n, qr_tile_size(m, n), d->A, m);
    starsolve_desc_create(&dQ, STARSOLVE_Z, m, k, qr_tile_size(m, n));
    starsolve_zungqr_tile_async(dA, T, dQ, req);
    starsolve_request_wait(req);
    starsolve_desc_to_lapack(dQ, d->Q, m);
    starsolve_desc_destroy(dQ);
    starsolve_desc_destroy(dA);
    starsolve_request_destroy(req);
    double o;
    driver_ratio_t berr = check_zgeqrf(m, n, d->A0, m, d->A, m, d->Q, m, &o);
    *orth = o;
    return berr;
}

/* Too big to form Q: ||A0 x - Q (R x)||_1 / (||A0||_1 ||x||_1 max(m, n) eps) for 3 random
 * x, Q applied by unmqr with T, or as the explicit m x k matrix d->Q when T is NULL
 * (a lower estimate of the exact ratio). */
static driver_ratio_t estimate_factors(int m, int n, struct qr_data *d, starsolve_desc_t *T)
{
    const starsolve_complex64_t one = 1.0, zero = 0.0, mone = -1.0;
    const int k = m < n ? m : n, nx = 3;
    starsolve_complex64_t *x = malloc((size_t)n * nx * sizeof *x), *y = calloc((size_t)m * nx, sizeof *y);
    starsolve_complex64_t *w = malloc((size_t)m * nx * sizeof *w);
    if (!x || !y || !w) {
        free(x); free(y); free(w);
        return -1;
    }
    gen_zmatrix(n, nx, x, n, 4242u);
    /* y(1:k) = R x: the triangle, then the columns right of it */
    LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', k, nx, x, n, y, m);
    cblas_ztrmm(CblasColMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, k, nx, CBLAS_SADDR(one),
                d->A, m, y, m);
    if (n > k)
        cblas_zgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, k, nx, n - k, CBLAS_SADDR(one),
                    d->A + (size_t)k * m, m, x + k, n, CBLAS_SADDR(one), y, m);
    if (T) {
        starsolve_desc_t *dA, *dY;
        starsolve_request_t *req = starsolve_request_create();
        starsolve_desc_create_lapack(&dA, STARSOLVE_Z, m, n, qr_tile_size(m, n), d->A, m);
        starsolve_desc_create_lapack(&dY, STARSOLVE_Z, m, nx, qr_tile_size(m, n), y, m);
        starsolve_zunmqr_tile_async('L', 'N', dA, T, dY, req);
        starsolve_request_wait(req);
        starsolve_desc_destroy(dY);
        starsolve_desc_destroy(dA);
        starsolve_request_destroy(req);
    } else {   /* y = Q y(1:k), through w */
        cblas_zgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, nx, k, CBLAS_SADDR(one), d->Q, m, y, m,
                    CBLAS_SADDR(zero), w, m);
        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', m, nx, w, m, y, m);
    }
    cblas_zgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, nx, n, CBLAS_SADDR(one), d->A0, m, x, n,
                CBLAS_SADDR(zero), w, m);
    double anorm = LAPACKE_zlange_work(LAPACK_COL_MAJOR, '1', m, n, d->A0, m, NULL), worst = 0;
    double eps = LAPACKE_dlamch_work('E');
    for (int j = 0; j < nx; j++) {
        cblas_zaxpy(m, CBLAS_SADDR(mone), y + (size_t)j * m, 1, w + (size_t)j * m, 1);
        double r = LAPACKE_zlange_work(LAPACK_COL_MAJOR, '1', m, 1, w + (size_t)j * m, m, NULL)
                   / (anorm * LAPACKE_zlange_work(LAPACK_COL_MAJOR, '1', n, 1, x + (size_t)j * n, n, NULL) * (m > n ? m : n) * eps);
        if (!(r <= worst))
            worst = r;
    }
    free(x); free(y); free(w);
    return worst;
}

/* -P (under mpirun): A, in LAPACK layout on process 0, is scattered over a P x
 * (processes / P) grid; geqrf is timed; with -check a distributed ungqr forms Q, and
 * the factors and Q come back to process 0, which checks them. Every process calls it. */
static int qr_dist(const struct driver_opts *o, struct qr_data *d, struct driver_result *r)
{
    const int root = 0, P = o->P, Q = starsolve_mpi_size() / o->P, m = o->m, n = o->n, k = m < n ? m : n;
    const int nb = qr_tile_size(m, n);
    starsolve_desc_t *dA = NULL, *T = NULL, *dQ = NULL;
    starsolve_request_t *req = starsolve_request_create();
    int info = req ? starsolve_desc_create_dist(&dA, STARSOLVE_Z, m, n, nb, P, Q) : -1;
    if (info == 0)
        info = starsolve_qr_workspace_create(&T, dA);
    if (info == 0 && o->check)
        info = starsolve_desc_create_dist(&dQ, STARSOLVE_Z, m, k, nb, P, Q);
    if (info == 0)
        info = starsolve_desc_scatter(dA, d->A, m, root);
    if (info == 0) {
        starsolve_request_wait(req);   /* every process ready: the clock starts together */
        double sent = starsolve_mpi_sent_bytes();
        driver_time_t t0 = driver_now();
        info = starsolve_zgeqrf_tile_async(dA, T, req);
        if (info == 0)
            info = starsolve_request_wait(req);
        r->seconds = driver_now() - t0;
        if (o->stats && sent >= 0)
            fprintf(stderr, "%s: process %d of %d (grid %dx%d) sent %.1f MB during the factorization\n", o->spec->name,
                    starsolve_mpi_rank(), starsolve_mpi_size(), P, Q, (starsolve_mpi_sent_bytes() - sent) / 1e6);
        if (info == 0 && dQ) {
            info = starsolve_zungqr_tile_async(dA, T, dQ, req);
            if (info == 0)
                info = starsolve_request_wait(req);
        }
        starsolve_desc_gather(dA, d->A, m, root);
        if (dQ)
            starsolve_desc_gather(dQ, d->Q, m, root);
    }
    starsolve_desc_destroy(dQ);
    starsolve_desc_destroy(T);
    starsolve_desc_destroy(dA);
    if (req)
        starsolve_request_destroy(req);
    return info;
}

int run_zqr(const struct driver_opts *o)
{
    const starsolve_complex64_t one = 1.0, zero = 0.0;
    /* under mpirun (-P) process 0 alone holds, generates and checks the matrices; no least squares */
    const int dist = o->P > 0, holds = !dist || starsolve_mpi_rank() == 0;
    const int m = o->m, n = o->n, nrhs = dist ? 0 : o->nrhs, mn = m > n ? m : n, k = m < n ? m : n;
    const size_t asize = (size_t)m * n, bsize = (size_t)mn * nrhs;
    /* the exact checks form Q (m x k) and multiply: O(m n k), fine up to a few thousand;
     * distributed, Q is formed anyway (ungqr) and comes back to process 0 */
    const int exact = (double)m * n * k <= 1e11, with_q = o->check && (exact || dist);
    const size_t need = (asize * (o->check ? 2 : 1) + (with_q ? (size_t)m * k : 0)
                         + bsize * 3) * sizeof(starsolve_complex64_t);
    if (holds && !driver_memory_fits(o, need))
        return DRIVER_FAILED;   /* under mpirun the others stop at their first collective call */
    struct qr_data d = { 0 };
    if (holds) {
        d.A = driver_alloc(o, asize * sizeof *d.A);
        if (o->check) {
            d.A0 = malloc(asize * sizeof *d.A0);
            if (with_q)
                d.Q = malloc((size_t)m * k * sizeof *d.Q);
        }
        if (nrhs > 0) {
            d.B = driver_alloc(o, bsize * sizeof *d.B);
            d.B0 = malloc(bsize * sizeof *d.B0);
            d.X = malloc((size_t)n * nrhs * sizeof *d.X);
        }
        if (!d.A || (o->check && (!d.A0 || (with_q && !d.Q))) || (nrhs > 0 && (!d.B || !d.B0 || !d.X))) {
            driver_error(o, "not enough memory for the matrices");
            qr_free(o, &d);
            return DRIVER_FAILED;
        }
        if (o->check)
            gen_zmatrix(m, n, d.A0, m, (unsigned)o->seed);
    }
    int status = DRIVER_OK;
    for (int run = 1; run <= o->niter; run++) {
        struct driver_result r = driver_result_init(run);
        if (holds) {
            if (o->check)
                memcpy(d.A, d.A0, asize * sizeof *d.A);
            else
                gen_zmatrix(m, n, d.A, m, (unsigned)o->seed);
        }
        if (dist) {
            driver_bound_begin(o);
            r.info = qr_dist(o, &d, &r);
            driver_bound_end(o, &r);
            if (holds && o->check && r.info == 0) {
                r.checked = 1;
                r.exact = exact;
                r.has_orth = exact;
                double orth = 0;   /* the check's own precision (float in s and c) */
                r.berr = exact ? check_zgeqrf(m, n, d.A0, m, d.A, m, d.Q, m, &orth) : estimate_factors(m, n, &d, NULL);
                r.orth = orth;
            }
            if (driver_report(o, &r) != DRIVER_OK)
                status = DRIVER_FAILED;
            continue;
        }

        driver_bound_begin(o);
        driver_time_t t0 = driver_now();
        starsolve_desc_t *dA, *T;
        starsolve_request_t *req = starsolve_request_create();
        starsolve_desc_create_lapack(&dA, STARSOLVE_Z, m, n, qr_tile_size(m, n), d.A, m);
        starsolve_qr_workspace_create(&T, dA);
        r.info = starsolve_zgeqrf_tile_async(dA, T, req);
        if (r.info == 0)
            r.info = starsolve_request_wait(req);
        starsolve_desc_destroy(dA);    /* the factors back in the caller's array */
        r.seconds = driver_now() - t0;
        driver_bound_end(o, &r);
        starsolve_request_destroy(req);

        if (o->check && r.info == 0) {
            r.checked = 1;
            r.exact = exact;
            r.has_orth = exact;
            r.berr = exact ? check_factors(m, n, &d, T, &r.orth) : estimate_factors(m, n, &d, T);
        }
        starsolve_desc_destroy(T);

        if (r.info == 0 && nrhs > 0) {
            /* a consistent system B = A X (rows max(m, n), the extra rows free) */
            if (o->check)
                memcpy(d.A, d.A0, asize * sizeof *d.A);
            else
                gen_zmatrix(m, n, d.A, m, (unsigned)o->seed);
            gen_zmatrix(n, nrhs, d.X, n, (unsigned)o->seed + 1u);
            memset(d.B, 0, bsize * sizeof *d.B);
            cblas_zgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, nrhs, n, CBLAS_SADDR(one), d.A, m, d.X, n,
                        CBLAS_SADDR(zero), d.B, mn);
            memcpy(d.B0, d.B, bsize * sizeof *d.B);
            t0 = driver_now();
            r.info = starsolve_zgels('N', m, n, nrhs, d.A, m, d.B, mn);
            r.solve_seconds = driver_now() - t0;
            r.solved = 1;
            if (o->check && r.info == 0) {
                double second;
                r.checked = 1;
                r.resid = check_zgels('N', m, n, nrhs, d.A0, m, d.B, mn, d.B0, mn, &second);
            }
        }
        if (driver_report(o, &r) != DRIVER_OK)
            status = DRIVER_FAILED;
    }
    qr_free(o, &d);
    return status;
}
