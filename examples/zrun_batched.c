/* starpu_batched, one precision (generic source): time the batched factorization
 * as a user calls it and, with -nrhs, the matching batched solve on its factors
 * (getrs, potrs, geqrs); check every matrix, and time the reference with -vendor:
 * without CUDA workers an OpenMP loop of LAPACKE calls on the same cores (factor,
 * then solve); with them the same library call with the vendor's batched routines
 * in the CUDA variant (starsolve_set_batch_vendor(1)), CPU workers and transfers
 * alike (with GPUs the solves run on the CPU workers: no second timing). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <lapacke.h>
#include <math.h>
#include <omp.h>
#include <starpu.h>
#include "starsolve.h"
#include "check.h"
#include "../examples/driver.h"

enum batched_op { OP_GETRF, OP_POTRF, OP_GEQRF };

/* Q^H for unmqr: 'C' in complex precisions, 'T' in real ones (LAPACK's ormqr takes no 'C') */
#if defined(STARSOLVE_PRECISION_S) || defined(STARSOLVE_PRECISION_D)
static const char conj_trans = 'T';
#else
static const char conj_trans = 'C';
#endif

/* the reference: one LAPACKE call per matrix, an OpenMP loop over the cores
 * (OpenBLAS single-threaded inside, as starsolve_init left it) */
static void reference(enum batched_op op, char uplo, int m, int n, starsolve_complex64_t *A, long sA, int *ipiv,
                      starsolve_complex64_t *tau, int *info, int batch)
{
    int k = m < n ? m : n;
#pragma omp parallel for schedule(dynamic, 4)
    for (int b = 0; b < batch; b++) {
        starsolve_complex64_t *Ab = A + (size_t)b * sA;
        if (op == OP_GETRF)
            info[b] = LAPACKE_zgetrf_work(LAPACK_COL_MAJOR, m, n, Ab, m, ipiv + (size_t)b * k);
        else if (op == OP_POTRF)
            info[b] = LAPACKE_zpotrf_work(LAPACK_COL_MAJOR, uplo, n, Ab, m);
        else
            info[b] = LAPACKE_zgeqrf(LAPACK_COL_MAJOR, m, n, Ab, m, tau + (size_t)b * k);
    }
}

/* the reference's solves on its own factors, the same loop: getrs, potrs, or for QR
 * Q^H b by unmqr then R x = (Q^H b)(1:n) by trtrs; B is m x nrhs per matrix */
static void reference_solve(enum batched_op op, char uplo, char trans, int m, int n, int nrhs, const starsolve_complex64_t *F, long sA,
                            const int *ipiv, const starsolve_complex64_t *tau, starsolve_complex64_t *B, long sB,
                            int batch)
{
    starsolve_complex64_t query = 0;
    if (op == OP_GEQRF)
        LAPACKE_zunmqr_work(LAPACK_COL_MAJOR, 'L', conj_trans, m, nrhs, n, NULL, m, NULL, NULL, m, &query, -1);
    const size_t lwork = (size_t)creal(query) + 1;
#pragma omp parallel
    {
        starsolve_complex64_t *work = op == OP_GEQRF ? malloc(lwork * sizeof *work) : NULL;
#pragma omp for schedule(dynamic, 4)
        for (int b = 0; b < batch; b++) {
            const starsolve_complex64_t *Fb = F + (size_t)b * sA;
            starsolve_complex64_t *Bb = B + (size_t)b * sB;
            if (op == OP_GETRF) {
                LAPACKE_zgetrs_work(LAPACK_COL_MAJOR, trans, n, nrhs, Fb, m, ipiv + (size_t)b * n, Bb, m);
            } else if (op == OP_POTRF) {
                LAPACKE_zpotrs_work(LAPACK_COL_MAJOR, uplo, n, nrhs, Fb, m, Bb, m);
            } else {
                if (work)
                    LAPACKE_zunmqr_work(LAPACK_COL_MAJOR, 'L', conj_trans, m, nrhs, n, Fb, m,
                                        tau + (size_t)b * n, Bb, m, work, (lapack_int)lwork);
                else   /* no room for this thread's work: LAPACKE finds its own */
                    LAPACKE_zunmqr(LAPACK_COL_MAJOR, 'L', conj_trans, m, nrhs, n, Fb, m, tau + (size_t)b * n, Bb, m);
                LAPACKE_ztrtrs_work(LAPACK_COL_MAJOR, 'U', 'N', 'N', n, nrhs, Fb, m, Bb, m);
            }
        }
        free(work);
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

/* Each matrix has its own seed, so the threads draw the same batch in any order. Drawn on one thread,
 * `-m 1024` (1000 matrices) ran 144 s on the 2-core CPU machine, 14 s of it the factorization; on both
 * cores `-batch 200` went from 21 to 13 s (bench/NOTES.md, session 47). */
static void generate(enum batched_op op, int m, int n, starsolve_complex64_t *A, long sA, int batch, unsigned seed)
{
#pragma omp parallel for schedule(dynamic, 4)
    for (int b = 0; b < batch; b++) {
        if (op == OP_POTRF)
            gen_zhpd(n, A + (size_t)b * sA, m, seed + b);
        else
            gen_zmatrix(m, n, A + (size_t)b * sA, m, seed + b);
    }
}

/* The worst of per-matrix ratios; a NaN (a check that could not run, or a factor with NaNs) wins */
static double worst_of(const double *r, int batch)
{
    double worst = 0;
    for (int b = 0; b < batch; b++)
        if (r[b] > worst || r[b] != r[b])
            worst = r[b];
    return worst;
}

/* The checks run one matrix a thread on every core, StarPU paused (run_zbatched). With one thread,
 * -batch 300 of order 1024 in z with -check ran past 40 s on the H200 machine, 6-11 s now: the exact
 * backward error is a GEMM of the matrix's order per matrix (bench/NOTES.md, session 51). */
static int check_threads(void) { return omp_get_num_procs(); }

/* worst backward error over the batch, and whether every info is 0 */
static driver_ratio_t check_batch(enum batched_op op, char uplo, int m, int n, const starsolve_complex64_t *A0,
                                  const starsolve_complex64_t *F, long sA, const int *ipiv,
                                  const starsolve_complex64_t *tau, const int *info, int batch, int *infos_ok)
{
    int k = m < n ? m : n;
    double *ratio = malloc((size_t)batch * sizeof *ratio);
    *infos_ok = 1;
    if (!ratio)
        return NAN;
    for (int b = 0; b < batch; b++)
        *infos_ok &= info[b] == 0;
#pragma omp parallel num_threads(check_threads())
    {
        starsolve_complex64_t *Q = op == OP_GEQRF ? malloc((size_t)m * k * sizeof *Q) : NULL;
#pragma omp for schedule(dynamic)
        for (int b = 0; b < batch; b++) {
            double r, orth = 0;
            const starsolve_complex64_t *A0b = A0 + (size_t)b * sA, *Fb = F + (size_t)b * sA;
            if (op == OP_GETRF) {
                r = check_zgetrf(m, n, A0b, m, Fb, m, ipiv + (size_t)b * k, 1);
            } else if (op == OP_POTRF) {
                r = check_zpotrf(uplo, n, A0b, m, Fb, m, 1);
            } else if (!Q) {
                r = NAN;   /* no room for this thread's Q: the check says it could not run */
            } else {
                LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', m, k, Fb, m, Q, m);
                LAPACKE_zungqr(LAPACK_COL_MAJOR, m, k, k, Q, m, tau + (size_t)b * k);
                r = check_zgeqrf(m, n, A0b, m, Fb, m, Q, m, &orth);
                r = orth > r || orth != orth ? orth : r;
            }
            ratio[b] = r;
        }
        free(Q);
    }
    double worst = worst_of(ratio, batch);
    free(ratio);
    return worst;
}

/* our batched solve on the factors in F (B: m x nrhs per matrix, X in its first n rows) */
static int solve(enum batched_op op, char uplo, char trans, int m, int n, int nrhs, const starsolve_complex64_t *F, long sA, const int *ipiv,
                 const starsolve_complex64_t *tau, starsolve_complex64_t *B, long sB, int batch)
{
    if (op == OP_GETRF)
        return starsolve_zgetrs_batched(trans, n, nrhs, F, m, sA, ipiv, n, B, m, sB, batch);
    if (op == OP_POTRF)
        return starsolve_zpotrs_batched(uplo, n, nrhs, F, m, sA, B, m, sB, batch);
    return starsolve_zgeqrs_batched(m, n, nrhs, F, m, sA, tau, n, B, m, sB, batch);
}

/* worst residual over the batch: LAPACK's solve ratio for getrs / potrs; for geqrs xQRT16's ratio (B - A X
 * small) on square matrices, xQRT17's (A^H (B - A X) small) on tall ones, where random right-hand sides leave a
 * residual of their own size */
static driver_ratio_t check_solves(enum batched_op op, char trans, int m, int n, int nrhs, const starsolve_complex64_t *A0, long sA,
                                   const starsolve_complex64_t *X, const starsolve_complex64_t *B0, long sB, int batch)
{
    double *ratio = malloc((size_t)batch * sizeof *ratio);
    if (!ratio)
        return NAN;
#pragma omp parallel for schedule(dynamic) num_threads(check_threads())
    for (int b = 0; b < batch; b++) {
        const starsolve_complex64_t *A0b = A0 + (size_t)b * sA, *Xb = X + (size_t)b * sB, *B0b = B0 + (size_t)b * sB;
        double r, second = 0;
        if (op == OP_GEQRF)
            r = check_zgels('N', m, n, nrhs, A0b, m, Xb, m, B0b, m, &second);
        else
            r = check_zsolve(trans, n, nrhs, A0b, m, Xb, m, B0b, m);
        ratio[b] = m > n ? second : r;
    }
    double worst = worst_of(ratio, batch);
    free(ratio);
    return worst;
}

int run_zbatched(const struct driver_opts *o)
{
    enum batched_op op = !strcmp(o->op, "potrf") ? OP_POTRF : !strcmp(o->op, "geqrf") ? OP_GEQRF : OP_GETRF;
    const int m = o->m, n = o->n, batch = o->batch, k = m < n ? m : n, nrhs = o->nrhs;
    const char uplo = o->uplo;   /* potrf's triangle */
    const long sA = (long)m * n, sB = (long)m * nrhs;
    const size_t asize = (size_t)sA * batch, bsize = (size_t)sB * batch;
    const int keep = o->check || o->vendor;   /* a pristine copy of A and B for the check and the reference */
    const size_t need = (asize + bsize) * (keep ? 2 : 1) * sizeof(starsolve_complex64_t);
    if (!driver_memory_fits(o, need))
        return DRIVER_FAILED;
    starsolve_complex64_t *A = malloc(asize * sizeof *A), *A0 = keep ? malloc(asize * sizeof *A0) : NULL;
    starsolve_complex64_t *B = nrhs > 0 ? malloc(bsize * sizeof *B) : NULL, *B0 = nrhs > 0 ? malloc(bsize * sizeof *B0) : NULL;
    starsolve_complex64_t *tau = malloc(((size_t)k * batch + 1) * sizeof *tau);
    int *ipiv = malloc(((size_t)k * batch + 1) * sizeof *ipiv), *info = malloc((size_t)batch * sizeof *info);
    if (!A || (keep && !A0) || (nrhs > 0 && (!B || !B0)) || !tau || !ipiv || !info) {
        driver_error(o, "not enough memory for the batch");
        free(A); free(A0); free(B); free(B0); free(tau); free(ipiv); free(info);
        return DRIVER_FAILED;
    }
    if (A0)
        generate(op, m, n, A0, sA, batch, (unsigned)o->seed);
#pragma omp parallel for schedule(dynamic, 4) if (B0)
    for (int b = 0; b < (B0 ? batch : 0); b++)   /* right-hand sides: seeds apart from the matrices' */
        gen_zmatrix(m, nrhs, B0 + (size_t)b * sB, m, (unsigned)o->seed + (unsigned)batch + (unsigned)b);
    starsolve_set_batch_chunk(o->chunk);
    starsolve_set_batch_pack(o->pack);
    omp_set_num_threads(starsolve_ncpus() > 0 ? starsolve_ncpus() : 1);
    int status = DRIVER_OK;
    double best = 0, vbest = 0, sbest = 0, svbest = 0;
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
                : op == OP_POTRF ? starsolve_zpotrf_batched(uplo, n, A, m, sA, info, batch)
                                 : starsolve_zgeqrf_batched(m, n, A, m, sA, tau, k, info, batch);
        r.seconds = driver_now() - t0;
        driver_bound_end(o, &r);
        best = run == 1 || r.seconds < best ? r.seconds : best;
        r.info = ret;
        if (ret == 0 && nrhs > 0) {
            memcpy(B, B0, bsize * sizeof *B);
            t0 = driver_now();
            r.info = solve(op, uplo, o->trans, m, n, nrhs, A, sA, ipiv, tau, B, sB, batch);
            r.solve_seconds = driver_now() - t0;
            r.solved = 1;
            sbest = sbest == 0 || r.solve_seconds < sbest ? r.solve_seconds : sbest;
        }
        if (o->check && r.info == 0) {
            int infos_ok;
            r.checked = 1;
            r.exact = 1;
            starpu_pause();   /* the checks take every core: StarPU's idle workers would poll theirs */
            r.berr = check_batch(op, uplo, m, n, A0, A, sA, ipiv, tau, info, batch, &infos_ok);
            if (r.solved)
                r.resid = check_solves(op, o->trans, m, n, nrhs, A0, sA, B, B0, sB, batch);
            starpu_resume();
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
                    starsolve_zpotrf_batched(uplo, n, A, m, sA, info, batch);
                else
                    starsolve_zgeqrf_batched(m, n, A, m, sA, tau, k, info, batch);
                t = driver_now() - t0;
                starsolve_set_batch_vendor(0);
            } else {
                starpu_pause();
                t0 = driver_now();
                reference(op, uplo, m, n, A, sA, ipiv, tau, info, batch);
                t = driver_now() - t0;
                if (nrhs > 0) {
                    memcpy(B, B0, bsize * sizeof *B);
                    driver_time_t s0 = driver_now();
                    reference_solve(op, uplo, o->trans, m, n, nrhs, A, sA, ipiv, tau, B, sB, batch);
                    double st = driver_now() - s0;
                    svbest = svbest == 0 || st < svbest ? st : svbest;
                }
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
            snprintf(what, sizeof what, "OpenMP loop of LAPACKE_%c%s%s, %d threads", o->prec, o->op,
                     op != OP_POTRF ? "" : uplo == 'U' ? " 'U'" : " 'L'", starsolve_ncpus());
        fprintf(h, "starpu_batched: reference (%s): best %.4f s %.2f GF/s; "
                "starsolve best %.4f s %.2f GF/s; ratio %.2f\n", what, vbest,
                flops / vbest * 1e-9, best, flops / best * 1e-9, vbest / best);
        if (nrhs > 0 && starsolve_ngpus() == 0 && sbest > 0)
            fprintf(h, "starpu_batched: solve reference (OpenMP loop of LAPACKE_%c%s%s, %d threads): best %.4f s; "
                    "starsolve best %.4f s; ratio %.2f\n", o->prec,
                    op == OP_GETRF ? "getrs" : op == OP_POTRF ? "potrs" : "unmqr + trtrs",
                    op != OP_GETRF ? "" : o->trans == 'N' ? " 'N'" : o->trans == 'T' ? " 'T'" : " 'C'", starsolve_ncpus(),
                    svbest, sbest, svbest / sbest);
        fflush(h);
    }
    free(A); free(A0); free(B); free(B0); free(tau); free(ipiv); free(info);
    return status;
}
