/* starpu_spike, one precision (generic source): time gbsv_spike as a user calls
 * it, check it, and with -vendor time LAPACK's gbsv on the same matrix. With
 * -resolve R the call is gbtrf_spike + gbtrs_spike (what gbsv_spike runs, without
 * the free), and R further right-hand sides are then solved with the kept
 * factorization, each timed (the factors stay where the tasks left them: on the
 * GPU) and, with -check, checked; with -vendor LAPACK's gbtrs solves the same ones
 * with gbtrf's factors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lapacke.h>
#include <starpu.h>
#include "starsolve.h"
#include "check.h"
#include "../examples/driver.h"

static int cmp_time(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* the right-hand sides of further solve i (the same in every run, for ours and LAPACK's) */
static unsigned resolve_seed(const struct driver_opts *o, int i) { return (unsigned)o->seed + 2u + (unsigned)i; }

int run_zspike(const struct driver_opts *o)
{
    const int n = o->n, kl = o->kl, ku = o->ku, nrhs = o->nrhs, ldab = 2 * kl + ku + 1, R = o->resolve;
    const size_t asize = (size_t)ldab * n, bsize = (size_t)n * nrhs;
    const size_t need = (asize * (o->vendor ? 2 : 1) + (R > 0 ? 5 : 3) * bsize) * sizeof(starsolve_complex64_t);
    if (!driver_memory_fits(o, need))
        return DRIVER_FAILED;
    /* the band and the solutions page-locked as starpu_lu's matrices (driver_alloc; -nopin: pageable, and
     * the library pins them for each call) */
    starsolve_complex64_t *AB = driver_alloc(o, asize * sizeof *AB), *B = malloc(bsize * sizeof *B);
    starsolve_complex64_t *X = driver_alloc(o, bsize * sizeof *X);
    starsolve_complex64_t *B2 = R > 0 ? malloc(bsize * sizeof *B2) : NULL, *X2 = R > 0 ? driver_alloc(o, bsize * sizeof *X2) : NULL;
    starsolve_complex64_t *F = o->vendor ? malloc(asize * sizeof *F) : NULL;
    int *ipiv = o->vendor ? malloc((size_t)n * sizeof *ipiv) : NULL;
    double *times = R > 0 ? malloc((size_t)R * sizeof *times) : NULL;
    if (!AB || !B || !X || (R > 0 && (!B2 || !X2 || !times)) || (o->vendor && (!F || !ipiv))) {
        driver_error(o, "not enough memory for the band");
        driver_free(o, AB); free(B); driver_free(o, X); free(B2); driver_free(o, X2); free(F); free(ipiv); free(times);
        return DRIVER_FAILED;
    }
    gen_zband(n, kl, ku, o->dominance, AB, ldab, (unsigned)o->seed);
    gen_zmatrix(n, nrhs, B, n, (unsigned)o->seed + 1u);
    starsolve_set_spike_psize(o->psize);
    FILE *h = o->csv ? stderr : stdout;
    int status = DRIVER_OK;
    double best = 0, vbest = 0, sbest = -1, vsbest = -1;
    for (int run = 1; run <= o->niter; run++) {
        struct driver_result r = driver_result_init(run);
        starsolve_spike_t *factors = NULL;
        double tfactor = 0;
        memcpy(X, B, bsize * sizeof *X);
        driver_bound_begin(o);   /* -trace, -bound */
        driver_time_t t0 = driver_now();
        if (R > 0) {
            r.info = starsolve_zgbtrf_spike(n, kl, ku, AB, ldab, &factors);
            tfactor = driver_now() - t0;
            if (r.info == 0)
                r.info = starsolve_zgbtrs_spike(factors, nrhs, X, n, &r.iters);
            else if (r.info <= n)   /* the fallback's LU is singular: gbsv_spike's -2 */
                r.iters = -2;
        } else {
            r.info = starsolve_zgbsv_spike(n, kl, ku, nrhs, AB, ldab, X, n, &r.iters);
        }
        r.seconds = driver_now() - t0;
        driver_bound_end(o, &r);
        best = run == 1 || r.seconds < best ? r.seconds : best;
        if (r.iters == -1)
            fprintf(h, "starpu_spike: SPIKE missed its residual goal (BiCGStab, or the tridiagonal solve's refinement); solved by LAPACK's "
                    "banded LU with pivoting (gbsv)\n");
        if (r.iters == -2)
            fprintf(h, "starpu_spike: SPIKE not used (a row far from diagonal dominance, a singular partition, or n < 2 max(kl, ku));"
                       " solved by LAPACK's banded LU with pivoting (gbsv)\n");
        if (r.info == n + 1 && r.iters < 0)   /* the banded LU answered, with an overflow or a NaN or Inf of A or B */
            fprintf(h, "starpu_spike: the banded LU's solution is not finite (info n+1: an overflow, or a NaN or Inf in A or B)\n");
        else if (r.info == n + 1)
            fprintf(h, "starpu_spike: did not converge (info n+1, no fallback); checking the last iterate\n");
        if (o->check && (r.info == 0 || r.info == n + 1)) {
            double relative;
            r.checked = 1;
            r.no_berr = 1;
            r.solved = 1;
            r.resid = check_zgbsolve(n, kl, ku, nrhs, AB, ldab, X, n, B, n, &relative);
            fprintf(h, "starpu_spike: relative residual ||b-Ax||/||b|| = %.2e\n", relative);
        }
        /* -resolve: R further solves with the kept factorization, each its own right-hand sides */
        int rstatus = DRIVER_OK, itmin = 0, itmax = 0;
        double rworst = 0, relworst = 0;
        for (int i = 0; factors && i < R; i++) {
            gen_zmatrix(n, nrhs, B2, n, resolve_seed(o, i));
            memcpy(X2, B2, bsize * sizeof *X2);
            int last = run == o->niter && i == R - 1 && o->trace_resolve;
            if (last)
                starsolve_trace_start();
            int it = 0;
            t0 = driver_now();
            int info = starsolve_zgbtrs_spike(factors, nrhs, X2, n, &it);
            times[i] = driver_now() - t0;
            if (last) {
                starsolve_trace_stop();
                if (starsolve_trace_write_svg(o->trace_resolve) != 0)
                    fprintf(stderr, "starpu_spike: could not write %s\n", o->trace_resolve);
            }
            itmin = i == 0 || it < itmin ? it : itmin;
            itmax = i == 0 || it > itmax ? it : itmax;
            if (info != 0) {
                fprintf(h, "starpu_spike: further solve %d: info %d\n", i + 1, info);
                rstatus = DRIVER_FAILED;
            }
            if (o->check && (info == 0 || info == n + 1)) {
                double relative, resid = check_zgbsolve(n, kl, ku, nrhs, AB, ldab, X2, n, B2, n, &relative);
                if (!check_passes(resid))
                    rstatus = DRIVER_FAILED;
                rworst = resid > rworst || resid != resid ? resid : rworst;
                relworst = relative > relworst || relative != relative ? relative : relworst;
            }
        }
        starsolve_spike_free(factors);
        if (R > 0 && r.info == 0) {
            qsort(times, (size_t)R, sizeof *times, cmp_time);
            r.solved = 1;
            r.solve_seconds = times[0];   /* the result line's solve: the best further solve */
            sbest = sbest < 0 || times[0] < sbest ? times[0] : sbest;
            fprintf(h, "starpu_spike: run %d: gbtrf_spike %.4f s + gbtrs_spike %.4f s; %d further solves, factorization kept: "
                    "best %.4f s, median %.4f s, worst %.4f s, iters %d..%d", run, tfactor, r.seconds - tfactor, R, times[0],
                    times[R / 2], times[R - 1], itmin, itmax);
            if (o->check)
                fprintf(h, ", worst resid %.2e, relative %.2e%s", rworst, relworst, rstatus == DRIVER_OK ? "" : " FAILED");
            fprintf(h, "\n");
        }
        if (driver_report(o, &r) != DRIVER_OK || rstatus != DRIVER_OK)
            status = DRIVER_FAILED;
        if (o->vendor) {
            /* gbsv (= gbtrf + gbtrs, as LAPACK's dgbsv calls them) on a copy, right after, with StarPU's
             * workers paused (they poll their cores); then gbtrs alone on the further right-hand sides */
            memcpy(F, AB, asize * sizeof *F);
            memcpy(X, B, bsize * sizeof *X);
            starpu_pause();
            t0 = driver_now();
            int vinfo = LAPACKE_zgbtrf_work(LAPACK_COL_MAJOR, n, n, kl, ku, F, ldab, ipiv);
            if (vinfo == 0)
                vinfo = LAPACKE_zgbtrs_work(LAPACK_COL_MAJOR, 'N', n, kl, ku, nrhs, F, ldab, ipiv, X, n);
            double t = driver_now() - t0;
            starpu_resume();
            if (vinfo != 0)
                status = DRIVER_FAILED;
            vbest = run == 1 || t < vbest ? t : vbest;
            if (o->check && vinfo == 0 && run == 1) {   /* the accuracy the reference reaches, beside ours */
                double vrelative, vresid = check_zgbsolve(n, kl, ku, nrhs, AB, ldab, X, n, B, n, &vrelative);
                fprintf(h, "starpu_spike: LAPACK gbsv: resid %.2e, relative residual ||b-Ax||/||b|| = %.2e\n", vresid, vrelative);
            }
            for (int i = 0; vinfo == 0 && i < R; i++) {
                gen_zmatrix(n, nrhs, B2, n, resolve_seed(o, i));
                memcpy(X2, B2, bsize * sizeof *X2);
                starpu_pause();
                t0 = driver_now();
                LAPACKE_zgbtrs_work(LAPACK_COL_MAJOR, 'N', n, kl, ku, nrhs, F, ldab, ipiv, X2, n);
                t = driver_now() - t0;
                starpu_resume();
                vsbest = vsbest < 0 || t < vsbest ? t : vsbest;
            }
        }
    }
    if (o->vendor)
        fprintf(h, "starpu_spike: LAPACK gbsv (OpenBLAS): best %.6f s; starsolve best %.6f s; speedup %.2f\n",
                vbest, best, vbest / best);
    if (sbest > 0)   /* bench/spike.sh reads these two lines */
        fprintf(h, "starpu_spike: further solves (factorization kept): starsolve best %.6f s\n", sbest);
    if (o->vendor && sbest > 0 && vsbest > 0)
        fprintf(h, "starpu_spike: LAPACK gbtrs (OpenBLAS, gbtrf's factors): best %.6f s; gbsv / starsolve solve %.1f; "
                "gbtrs / starsolve solve %.1f\n", vsbest, vbest / sbest, vsbest / sbest);
    driver_free(o, AB); free(B); driver_free(o, X); free(B2); driver_free(o, X2); free(F); free(ipiv); free(times);
    return status;
}
