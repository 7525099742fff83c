/* starpu_batched, one precision (generic source): time the batched factorization
 * as a user calls it, check every matrix, and time the reference with -vendor:
 * without CUDA workers an OpenMP loop of LAPACKE calls on the same cores; with
 * them the same library call with the vendor's batched routines in the CUDA
 * variant (starsolve_set_batch_vendor(1)), CPU workers and transfers alike. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <lapacke.h>
#include <omp.h>
#include <starpu.h>
#include "starsolve.h"
#include "check.h"
#include "../examples/driver.h"

enum batched_op { OP_GETRF, OP_POTRF, OP_GEQRF };

/* the reference: one LAPACKE call per matrix, an OpenMP loop over the cores
 * (OpenBLAS single-threaded inside, as starsolve_init left it) */
static void reference(enum batched_op op, int m, int n, starsolve_complex64_t *A, long sA, int *ipiv,
                      starsolve_complex64_t *tau, int *info, int batch)
{
    int k = m < n ? m : n;
#pragma omp parallel for schedule(dynamic, 4)
    for (int b = 0; b < batch; b++) {
        starsolve_complex64_t *Ab = A + (size_t)b * sA;
        if (op == OP_GETRF)
            info[b] = LAPACKE_zgetrf_work(LAPACK_COL_MAJOR, m, n, Ab, m, ipiv + (size_t)b * k);
        else if (op == OP_POTRF)
            info[b] = LAPACKE_zpotrf_work(LAPACK_COL_MAJOR, 'L', n, Ab, m);
        else
            info[b] = LAPACKE_zgeqrf(LAPACK_COL_MAJOR, m, n, Ab, m, tau + (size_t)b * k);
    }
}

/* Let the cores go quiet before a timed section. After the reference's parallel loop,
 * libgomp's threads spin (GOMP_SPINCOUNT, 300000 iterations of a pause by default: several
 * milliseconds on these CPUs) before they sleep; a starsolve run started at once shared a
 * core with one of them. 2 cores, potrf m = 256, batch 64: starsolve 5.5-8.1 ms right
 * after the reference, 4.5-4.7 ms with OMP_WAIT_POLICY=passive (bench/NOTES.md, session 24). */
static void settle(void)
{
    struct timespec pause = { 0, 50 * 1000 * 1000 };
    nanosleep(&pause, NULL);
}

static void generate(enum batched_op op, int m, int n, starsolve_complex64_t *A, long sA, int batch, unsigned seed)
{
    for (int b = 0; b < batch; b++) {
        if (op == OP_POTRF)
            gen_zhpd(n, A + (size_t)b * sA, m, seed + b);
        else
            gen_zmatrix(m, n, A + (size_t)b * sA, m, seed + b);
    }
}

/* worst backward error over the batch, and whether every info is 0 */
static driver_ratio_t check_batch(enum batched_op op, int m, int n, const starsolve_complex64_t *A0,
                                  const starsolve_complex64_t *F, long sA, const int *ipiv,
                                  const starsolve_complex64_t *tau, const int *info, int batch, int *infos_ok)
{
    int k = m < n ? m : n;
    double worst = 0;
    starsolve_complex64_t *Q = op == OP_GEQRF ? malloc((size_t)m * k * sizeof *Q) : NULL;
    *infos_ok = 1;
    for (int b = 0; b < batch; b++) {
        double r, orth = 0;
        *infos_ok &= info[b] == 0;
        const starsolve_complex64_t *A0b = A0 + (size_t)b * sA, *Fb = F + (size_t)b * sA;
        if (op == OP_GETRF) {
            r = check_zgetrf(m, n, A0b, m, Fb, m, ipiv + (size_t)b * k, 1);
        } else if (op == OP_POTRF) {
            r = check_zpotrf('L', n, A0b, m, Fb, m, 1);
        } else {
            LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', m, k, Fb, m, Q, m);
            LAPACKE_zungqr(LAPACK_COL_MAJOR, m, k, k, Q, m, tau + (size_t)b * k);
            r = check_zgeqrf(m, n, A0b, m, Fb, m, Q, m, &orth);
            r = orth > r || orth != orth ? orth : r;
        }
        if (r > worst || r != r)
            worst = r;
    }
    free(Q);
    return worst;
}

int run_zbatched(const struct driver_opts *o)
{
    enum batched_op op = !strcmp(o->op, "potrf") ? OP_POTRF : !strcmp(o->op, "geqrf") ? OP_GEQRF : OP_GETRF;
    const int m = o->m, n = o->n, batch = o->batch, k = m < n ? m : n;
    const long sA = (long)m * n;
    const size_t asize = (size_t)sA * batch;
    const size_t need = asize * (o->check || o->vendor ? 2 : 1) * sizeof(starsolve_complex64_t);
    if (!driver_memory_fits(o, need))
        return DRIVER_FAILED;
    starsolve_complex64_t *A = malloc(asize * sizeof *A), *A0 = o->check || o->vendor ? malloc(asize * sizeof *A0) : NULL;
    starsolve_complex64_t *tau = malloc(((size_t)k * batch + 1) * sizeof *tau);
    int *ipiv = malloc(((size_t)k * batch + 1) * sizeof *ipiv), *info = malloc((size_t)batch * sizeof *info);
    if (!A || ((o->check || o->vendor) && !A0) || !tau || !ipiv || !info) {
        driver_error(o, "not enough memory for the batch");
        free(A); free(A0); free(tau); free(ipiv); free(info);
        return DRIVER_FAILED;
    }
    if (A0)
        generate(op, m, n, A0, sA, batch, (unsigned)o->seed);
    starsolve_set_batch_chunk(o->chunk);
    starsolve_set_batch_pack(o->pack);
    omp_set_num_threads(starsolve_ncpus() > 0 ? starsolve_ncpus() : 1);
    int status = DRIVER_OK;
    double best = 0, vbest = 0;
    for (int run = 1; run <= o->niter; run++) {
        struct driver_result r = driver_result_init(run);
        if (A0)
            memcpy(A, A0, asize * sizeof *A);
        else
            generate(op, m, n, A, sA, batch, (unsigned)o->seed);
        if (o->vendor)
            settle();
        driver_bound_begin(o);   /* -trace, -bound */
        driver_time_t t0 = driver_now();
        int ret = op == OP_GETRF ? starsolve_zgetrf_batched(m, n, A, m, sA, ipiv, k, info, batch)
                : op == OP_POTRF ? starsolve_zpotrf_batched('L', n, A, m, sA, info, batch)
                                 : starsolve_zgeqrf_batched(m, n, A, m, sA, tau, k, info, batch);
        r.seconds = driver_now() - t0;
        driver_bound_end(o, &r);
        best = run == 1 || r.seconds < best ? r.seconds : best;
        r.info = ret;
        if (o->check && ret == 0) {
            int infos_ok;
            r.checked = 1;
            r.exact = 1;
            r.berr = check_batch(op, m, n, A0, A, sA, ipiv, tau, info, batch, &infos_ok);
            if (!infos_ok)
                r.info = 1;   /* a random member reported a failure: say so */
        }
        if (driver_report(o, &r) != DRIVER_OK)
            status = DRIVER_FAILED;
        if (o->vendor) {
            /* the reference right after, on the same data: both see the same machine.
             * StarPU's idle workers poll their cores: paused, the reference gets the cores alone */
            memcpy(A, A0, asize * sizeof *A);
            settle();
            double t;
            if (starsolve_ngpus() > 0) {
                starsolve_set_batch_vendor(1);
                t0 = driver_now();
                if (op == OP_GETRF)
                    starsolve_zgetrf_batched(m, n, A, m, sA, ipiv, k, info, batch);
                else if (op == OP_POTRF)
                    starsolve_zpotrf_batched('L', n, A, m, sA, info, batch);
                else
                    starsolve_zgeqrf_batched(m, n, A, m, sA, tau, k, info, batch);
                t = driver_now() - t0;
                starsolve_set_batch_vendor(0);
            } else {
                starpu_pause();
                t0 = driver_now();
                reference(op, m, n, A, sA, ipiv, tau, info, batch);
                t = driver_now() - t0;
                starpu_resume();
            }
            vbest = run == 1 || t < vbest ? t : vbest;
        }
    }
    if (o->vendor) {
        double flops = o->spec->flops(o) * (o->prec == 'c' || o->prec == 'z' ? 4.0 : 1.0);
        FILE *h = o->csv ? stderr : stdout;
        char what[96];
        if (starsolve_ngpus() > 0)
            snprintf(what, sizeof what, "starsolve with the vendor's batched routines on %d GPUs", starsolve_ngpus());
        else
            snprintf(what, sizeof what, "OpenMP loop of LAPACKE_%c%s, %d threads", o->prec, o->op, starsolve_ncpus());
        fprintf(h, "starpu_batched: reference (%s): best %.4f s %.2f GF/s; "
                "starsolve best %.4f s %.2f GF/s; ratio %.2f\n", what, vbest,
                flops / vbest * 1e-9, best, flops / best * 1e-9, vbest / best);
        fflush(h);
    }
    free(A); free(A0); free(tau); free(ipiv); free(info);
    return status;
}
