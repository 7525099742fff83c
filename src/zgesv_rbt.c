/* Solve A X = B with the random butterfly transformation (RBT): factor
 * A_r = U^T A V without pivoting, solve A_r Y = U^T B, X = V Y, then refine on
 * A itself (Baboulin, Khabou, Remy; MAGMA's gesv_rbt).
 *
 * Sizes: the butterflies need N = 2^depth q', and the tile algorithms need the
 * halves of every butterfly block to be whole tiles of A's nb, or its blocks inside one
 * tile: with q = ceil(n / 2^depth) and k = ceil(q / nb), A is augmented to diag(A, alpha I)
 * of order N = 2^depth k nb, or, deeper than 2 where a half is at most half a tile, of
 * order 2^L nb with the levels from L on inside the tiles (starsolve_rbt_order). There the
 * whole-tile levels end with halves of one tile, so every tile of F mixes all of A's and the
 * LU waits for all of A (at n = 40000 on an H200 depths 4 and 6 ran as fast as gesv, depth 2
 * 1.2x faster; bench/NOTES.md, session 73). The LAPACK-layout routine tiles A with
 * starsolve_get_nb_rbt's nb = ceil(q / k), which pads least (at most
 * 2^depth (k + 1) - 1 rows; four times that with GPUs, where tiles are a multiple
 * of 4 rows for cuBLAS) but never by a single row (see there why). The randomized
 * matrix lives in a tiled copy distributed as A; A itself is only read (by the
 * residuals of the refinement).
 *
 * alpha: ||A||_inf / n cut to a power of two, not 1. With ones, the Fiedler matrix
 * (|i - j|) failed at every n = 2 mod 4 (depths 1-4, every seed), and passed once
 * scaled by 2, by 0.9 or by 1/n: the solver did not do the same on A and on 2A. With
 * alpha it does (scaling by powers of two is exact), and Fiedler passes at those n
 * (bench/NOTES.md, session 70). The padded rows of the solution are 0 whatever alpha is.
 * alpha needs all of A's row sums before the butterflies touch F's padded tiles: with
 * padding, the row sums (which the stopping criterion needs anyway) go first, on the
 * cores, their maximum is taken by a chain of small tasks, and only the butterflies of
 * the padded tiles' class wait for it. Distributed, each process takes ||A||_inf from
 * its partial sums and a reduction first. (Taking the sums in the copy tasks instead
 * made the uploads longer on a GPU: bench/NOTES.md, session 70.)
 *
 * Distributed (StarPU-MPI): every process inserts the same tasks and takes the
 * same decisions. The butterflies are small: each process draws the same ones
 * and holds its own copy. The norms come as partial vectors, one per process
 * that holds tiles of a tile row (row sums) or a tile column (column maxima);
 * each process reads the vectors it owns and the partial results are combined
 * over all processes (ss_mpi_sum_reals, ss_mpi_max_reals), so that the
 * stopping test sees the same numbers everywhere.
 *
 * Refinement in working precision: r = B - A X, stop when every column has
 * ||r||_inf <= ||x||_inf ||A||_inf eps sqrt(n) (LAPACK's criterion), else correct X,
 * at most max_refine times. The first correction is classical, solve A_r dy = U^T r
 * and X += V dy, unless the first solution is poor (a residual above the criterion by
 * more than 1 / sqrt(eps): the factors lost half the digits); the others, and that
 * one then, are GMRES corrections preconditioned by the same factors (pzgmres.c says
 * why); one that does not halve the residual ends the refinement. A well-behaved matrix
 * thus costs what classical refinement costs: at n = 40000
 * one classical step meets the criterion. Residuals and corrections are tasks, so they
 * run where the tiles are; only their columns' norms (and GMRES's dot products) come
 * to the host, and the best iterate at the end. */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include "algorithms.h"

/* The most GMRES steps of one correction: Orthog at n = 8192 took 29 of them, Ris at n = 300 26
 * (bench/NOTES.md, session 72). Each step keeps two more n x nrhs vectors (gmres_steps). */
enum { GMRES_MAX_STEPS = 50 };

/* GMRES steps a correction may take: at most GMRES_MAX_STEPS, and so few that its 2 steps + 1
 * vectors of n x nrhs take no more entries than the N x N randomized matrix or 2^26 (512 MiB in
 * double), whichever is more (many right-hand sides: at n = 40000, a thousand of them would have
 * needed 32 GB for 50 steps); at least 1 */
static int gmres_steps(int n, int nrhs, int N)
{
    long entries = (long)N * N > (1L << 26) ? (long)N * N : 1L << 26;
    long fit = (entries / ((long)n * nrhs) - 1) / 2;
    return (int)(fit < 1 ? 1 : fit > GMRES_MAX_STEPS ? GMRES_MAX_STEPS : fit);
}

/* Butterfly entries exp(t / 10), t uniform in [-1/2, 1/2) as in MAGMA: positive,
 * near 1, so the transformation is well conditioned. A fixed generator: the
 * same call gives the same answer. */
static void random_butterflies(double *w, size_t count, uint64_t *state)
{
    for (size_t i = 0; i < count; i++) {
        *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
        double t = (double)(*state >> 11) * 0x1.0p-53 - 0.5;
        w[i] = exp(t / 10.0);
    }
}

/* max over columns of ||r_j||_inf / (||x_j||_inf * scale), from the columns' norms; NaN gives +inf. A zero
 * residual is 0 (a zero column of B has x = 0 and r = 0: 0 / 0 made it +inf, and gesv_rbt reported an
 * exact solution as not converged after max_refine steps). */
static double worst_column(int nrhs, const double *rnorm, const double *xnorm, double scale)
{
    double worst = 0;
    for (int j = 0; j < nrhs; j++) {
        double q = rnorm[j] == 0 ? 0 : rnorm[j] / (xnorm[j] * scale);
        if (isnan(q) || isnan(rnorm[j]))
            return INFINITY;
        worst = q > worst ? q : worst;
    }
    return worst;
}

/* seconds: ss_seconds_t stays double in every precision (the generator turns double into float in s and c) */
static ss_seconds_t now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* With times: wait at the end of each phase and add its wall-clock time there
 * (the randomization then no longer overlaps the factorization). */
static void phase_end(ss_seconds_t *slot, ss_seconds_t *t0, starsolve_request_t *req)
{
    if (!slot)
        return;
    starsolve_request_wait(req);
    ss_seconds_t t = now();
    *slot += t - *t0;
    *t0 = t;
}

/* F (N x N): on CPU workers alone in one process its tiles live in a mapping kept between calls,
 * so that only a process's first call faults its pages in. StarPU's own tiles came from malloc,
 * fresh pages on a process's first 2-4 calls: on the 2-core CI VM the copy of A into them took
 * 0.33 s of a 0.9 s call at n = 4096, 0.02 s once the pages were backed (bench/NOTES.md,
 * session 46). With GPUs F lives on them, with no home copy (ss_desc_create_workspace). */
static int randomized_workspace(const starsolve_desc_t *A, starsolve_desc_t **F, int N)
{
    if (A->P * A->Q == 1 && starsolve_ngpus() == 0)
        return ss_desc_create_kept(F, STARSOLVE_Z, N, N, A->nb);
    return ss_desc_create_workspace(F, A, N, N);
}

/* ||A||_inf from the partial row sums (pzlange_rowsums in split parts a tile row, already
 * submitted): the sums this process owns, added over the processes of a distributed A.
 * rows: room for n reals. */
static double inf_norm(const starsolve_desc_t *A, int split, starpu_data_handle_t *parts, const double *values,
                       double *rows)
{
    int n = A->m;
    for (int r = 0; r < n; r++)
        rows[r] = 0;
    for (int q = 0; q < A->Q; q++)
        for (int i = 0; i < A->mt; i++) {
            if (!ss_mpi_owns(A->owner(A, i, q)))
                continue;
            const int nparts = ss_rowsum_parts(ss_tile_rows(A, i), split);
            starpu_data_handle_t *h = parts + ((size_t)i + (size_t)q * A->mt) * split;
            for (int s = 0; s < nparts; s++)
                starpu_data_acquire(h[s], STARPU_R);
            const double *v = values + (size_t)q * n + (size_t)i * A->nb;
            for (int r = 0; r < ss_tile_rows(A, i); r++)
                rows[i * A->nb + r] += v[r];
            for (int s = 0; s < nparts; s++)
                starpu_data_release(h[s]);
        }
    if (A->P * A->Q > 1)
        ss_mpi_sum_reals(rows, n, sizeof *rows);
    double anorm = 0;
    for (int r = 0; r < n; r++)   /* a NaN row sum makes the norm NaN, as lange's */
        anorm = ss_max_nan(anorm, rows[r]);
    return anorm;
}

/* The solve on tile descriptors whose arguments were checked: A n x n, B n x nrhs,
 * n, nrhs > 0, the same nb and process grid. t0: when the call began (times). */
static int gesv_rbt_tiles(const starsolve_desc_t *A, starsolve_desc_t *B, int depth, int max_refine, int *iters,
                          starsolve_rbt_times_t *times, ss_seconds_t t0)
{
    const int n = A->n, nrhs = B->n, N = (int)starsolve_rbt_order(n, depth, A->nb);
    const size_t P = A->P, Q = A->Q;
    const starsolve_complex64_t one = 1.0;

    /* the butterflies: depth levels of N entries, for U and for V */
    double *wu = malloc(((size_t)2 * depth * N + 1) * sizeof *wu);
    starpu_data_handle_t hu[16], hv[16];
    /* host memory of the norms: the partial column maxima of R and of X (P vectors of
     * a tile column each, nrhs entries per process row), the partial row sums (Q vectors
     * of a tile row, n entries per process column), the combined row sums (n) and column
     * norms (||r_j||_inf, then ||x_j||_inf), the GMRES corrections' targets and ||b_j||_inf (nrhs each) */
    double *normvals = malloc((2 * P * nrhs + Q * n + (size_t)n + 4 * (size_t)nrhs) * sizeof *normvals);
    double *rowvals = normvals + 2 * P * nrhs, *rows = rowvals + Q * n, *norms = rows + n;
    double *target = norms + 2 * nrhs, *bnorm = target + nrhs;
    /* the row sums in more tasks than tile rows where the cores outnumber them (one process): at n = 40001
     * with one GPU, 8 tile rows for 14 cores; cut in two, alpha's row sums took 0.19 s there instead of 0.28
     * (bench/NOTES.md, session 71) */
    const int split = P * Q > 1 ? 1 : ss_min(8, ss_max(1, ((int)starpu_cpu_worker_get_count() + A->mt - 1) / A->mt));
    const size_t nhandles = 2 * P * B->nt + (size_t)A->mt * Q * split;
    starpu_data_handle_t *hcol = malloc(nhandles * sizeof *hcol);
    starpu_data_handle_t *hrow = hcol + 2 * P * B->nt;
    /* F the randomized matrix, X the iterate (N rows, the padding included), Xbest the best
     * one so far, W a correction, R a residual (n rows) */
    starsolve_desc_t *F = NULL, *X = NULL, *Xbest = NULL, *W = NULL, *R = NULL;
    /* none has a home copy (but F on CPU workers alone: its kept mapping): only tasks touch them (B gets
     * Xbest by one), and no pinned host memory is allocated or freed per call */
    if (!wu || !normvals || !hcol || randomized_workspace(A, &F, N) || ss_desc_create_workspace(&X, A, N, nrhs)
        || ss_desc_create_workspace(&Xbest, A, N, nrhs) || ss_desc_create_workspace(&W, A, N, nrhs)
        || ss_desc_create_workspace(&R, A, n, nrhs)) {
        free(wu); free(normvals); free(hcol);
        starsolve_desc_destroy(F); starsolve_desc_destroy(X); starsolve_desc_destroy(Xbest);
        starsolve_desc_destroy(W); starsolve_desc_destroy(R);
        return -1000;   /* out of memory */
    }
    /* each partial vector lives with the tiles it is computed from (pzlange_colmax, pzlange_rowsums) */
    pzcolumn_parts_register(R, 2, normvals, sizeof(double), hcol);
    for (size_t q = 0; q < Q; q++)
        for (int i = 0; i < A->mt; i++) {
            const int rows = ss_tile_rows(A, i), parts = ss_rowsum_parts(rows, split);
            starpu_data_handle_t *h = hrow + (i + q * A->mt) * split;
            for (int s = 0; s < split; s++)   /* NULL: no such part (a tile row of fewer rows than split) */
                h[s] = NULL;
            for (int s = 0; s < parts; s++) {
                const int from = ss_rowsum_part_start(rows, parts, s), to = ss_rowsum_part_start(rows, parts, s + 1);
                h[s] = ss_register_vector_owned(rowvals + q * n + (size_t)i * A->nb + from, to - from, sizeof(double),
                                                A->owner(A, i, (int)q));
            }
        }
    /* every process draws the same butterflies and keeps its own copy */
    double *wv = wu + (size_t)depth * N;
    uint64_t state = 0x5eed5eed2026ULL;
    random_butterflies(wu, (size_t)2 * depth * N, &state);
    for (int l = 0; l < depth; l++) {
        hu[l] = ss_register_vector(wu + (size_t)l * N, N, sizeof(double));
        hv[l] = ss_register_vector(wv + (size_t)l * N, N, sizeof(double));
        /* before A's tiles queue up: every butterfly task reads them (pageable memory) */
        ss_handle_prefetch_gpus(hu[l]);
        ss_handle_prefetch_gpus(hv[l]);
    }
    /* ||A||_inf: the row sums go first where F is padded (alpha needs them), else they run on
     * the cores while the GPUs factor (A is only read by both) */
    const int padded = N > n;
    double anormval = 0;   /* alpha's ||A||_inf where F is padded (main memory) */
    starpu_data_handle_t hanorm = NULL;
    if (padded) {
        pzlange_rowsums(A, split, hrow);
        if (P * Q > 1)   /* every process the same value */
            anormval = inf_norm(A, split, hrow, rowvals, rows);
        hanorm = ss_register_vector(&anormval, 1, sizeof anormval);
        if (P * Q == 1)   /* by tasks: only the butterflies of the padded tiles' class wait for it */
            pzlange_rowsums_max(A, split, hrow, hanorm);
    }
    starsolve_request_t *req = starsolve_request_create();
    phase_end(times ? &times->setup : NULL, &t0, req);

    /* F = U^T diag(A, alpha I) V, factored without pivoting; timed, the copy (upload) and the
     * butterflies apart, else they overlap class by class */
    pzgerbt_copy(A, F, depth);
    if (padded)
        pzgerbt_pad_diagonal(A, F, depth, hanorm);
    phase_end(times ? &times->copy : NULL, &t0, req);
    pzgerbt_butterflies(A, F, depth, hu, hv);
    phase_end(times ? &times->randomize : NULL, &t0, req);
    /* F arrives by tile classes (pzgerbt_copy): the LU's column tasks split along its row classes */
    pzgetrf_nopiv(F, depth > 0 ? ss_rbt_tile_classes(F->nt, depth) : 1, req);
    if (!padded)
        pzlange_rowsums(A, split, hrow);
    int info = starsolve_request_wait(req);
    phase_end(times ? &times->factor : NULL, &t0, req);
    /* ||A||_inf for the stopping criterion: where F is padded, the one alpha came from */
    double anorm;
    if (hanorm) {
        starpu_data_acquire(hanorm, STARPU_R);
        anorm = anormval;
        starpu_data_release(hanorm);
    } else {
        anorm = inf_norm(A, split, hrow, rowvals, rows);
    }
    if (info == 0) {
        /* X = V A_r^-1 U^T [B; 0] */
        pzlacpy_pad_rows(B, X);
        pzgerbt_solve(F, X, depth, hu, hv);
        phase_end(times ? &times->solve : NULL, &t0, req);

        /* Everything stays in tasks but the column norms: acquiring the residual's
         * and the iterate's tiles one by one cost 150-300 ms per step at n = 40000
         * on an H100 (bench/NOTES.md). */
        double scale = anorm * DBL_EPSILON * sqrt((double)n);   /* LAPACK's criterion */
        /* a ratio to the criterion above this: the iterate lost half its digits (a poor one) */
        const double poor_ratio = 1 / sqrt(DBL_EPSILON);
        double best_ratio = INFINITY, gmres_from = -1;   /* the ratio the last GMRES correction started from */
        for (int step = 0;; step++) {
            /* R = B - A X (X's first n rows: A's tiles use the first rows of X's) */
            pzlacpy_pad_rows(B, R);
            pzresidual(A, X, R);
            pzlange_colmax(R, n, hcol);
            pzlange_colmax(X, n, hcol + P * R->nt);
            pzcolumn_parts_combine(R, 2, hcol, normvals, 1, 1, norms);   /* X's columns are R's */
            if (R->P * R->Q > 1)   /* one reduction for both: every process then takes the same decision */
                ss_mpi_max_reals(norms, 2 * nrhs, sizeof *norms);
            double ratio = worst_column(nrhs, norms, norms + nrhs, scale);
            if (ratio < best_ratio || step == 0) {
                best_ratio = ratio;
                pzlacpy_pad_rows(X, Xbest);
            }
            if (ratio <= 1.0)
                break;
            /* Not converged: B gets the best iterate. A GMRES correction that did not halve the ratio
             * ends the refinement, as a step that does not halve the backward error ends LAPACK's
             * xGERFS: the next would start from about the same residual with the same factors (Ris
             * at n = 1000: ratios 7.3, 7.5, 6.8, 6.2 after 50 GMRES steps each). */
            if (step == max_refine || (gmres_from >= 0 && ratio > 0.5 * gmres_from)) {
                info = n + 1;
                break;
            }
            /* classical first, unless the first solution is poor; an infinite ratio (a NaN) gets the
             * classical step as before: GMRES could not mend it either */
            if (step == 0 && (ratio <= poor_ratio || isinf(ratio))) {
                /* X += V A_r^-1 U^T [R; 0] */
                pzlacpy_pad_rows(R, W);
                pzgerbt_solve(F, W, depth, hu, hv);
                pzgeadd(one, W, X);
            } else {
                /* GMRES on A d = R preconditioned by the same factors, to the criterion in the 2-norm
                 * with a margin of 2 (columns that meet it already stay as they are). Where x_c is still
                 * poor, its norm is no guide to the solution's (Orthog at n = 8192: 45 times it; single
                 * precision Ris at n = 200: 2400 times), so ||b_c|| / ||A||, at most the solution's
                 * norm, takes its place when smaller: a target never laxer than the solution's. */
                const double poor = poor_ratio * scale;
                int any_poor = 0;
                for (int c = 0; c < nrhs; c++)
                    any_poor |= norms[c] > poor * norms[nrhs + c];
                if (any_poor) {
                    pzlange_colmax(B, n, hcol);
                    pzcolumn_parts_combine(B, 1, hcol, normvals, 1, 1, bnorm);
                    if (B->P * B->Q > 1)
                        ss_mpi_max_reals(bnorm, nrhs, sizeof *bnorm);
                }
                for (int c = 0; c < nrhs; c++) {
                    double xnorm = norms[nrhs + c];
                    if (norms[c] > poor * xnorm)
                        xnorm = fmin(xnorm, bnorm[c] / anorm);
                    target[c] = norms[c] <= scale * norms[nrhs + c] ? INFINITY : 0.5 * scale * xnorm;
                }
                gmres_from = ratio;
                if (pzgmres_correction(A, F, depth, hu, hv, R, X, target, gmres_steps(n, nrhs, N)) == -1000) {
                    info = -1000;
                    break;
                }
            }
            if (iters)
                *iters = step + 1;
        }
        pzlacpy_head(Xbest, B);
        phase_end(times ? &times->refine : NULL, &t0, req);
    }
    starsolve_request_wait(req);
    starsolve_request_destroy(req);
    ss_seconds_t cleanup_from = now();
    if (hanorm)
        starpu_data_unregister(hanorm);
    for (int l = 0; l < depth; l++) {
        starpu_data_unregister(hu[l]);
        starpu_data_unregister(hv[l]);
    }
    for (size_t h = 0; h < nhandles; h++)
        if (hcol[h])
            starpu_data_unregister(hcol[h]);
    /* The workspaces' contents are not wanted any more: nothing to bring anywhere when their tiles
     * go. (F's was starpu_data_invalidate_submit on each tile, then the unregistering at once: the
     * invalidation's callback, on a StarPU thread, could still touch a tile that the unregistering
     * freed; a suspect for the rare test_rbt crash of bench/NOTES.md, session 17.) */
    ss_desc_discard(R); ss_desc_discard(W);
    ss_desc_discard(Xbest); ss_desc_discard(X);
    ss_desc_discard(F);
    free(wu); free(normvals); free(hcol);
    if (times)
        times->cleanup = now() - cleanup_from;
    return info;
}

int starsolve_zgesv_rbt_tile(const starsolve_desc_t *A, starsolve_desc_t *B, int depth, int max_refine, int *iters,
                             starsolve_rbt_times_t *times)
{
    SS_PUBLIC_CALL;
    const char *me = "starsolve_zgesv_rbt_tile";
    if (!A || A->prec != STARSOLVE_Z || A->m != A->n) return ss_arg_error(me, -1);
    if (!B || B->prec != STARSOLVE_Z || B->m != A->n || B->nb != A->nb || B->P != A->P || B->Q != A->Q)
        return ss_arg_error(me, -2);
    if (!starsolve_rbt_depth_valid(A->n, depth)) return ss_arg_error(me, -3);
    if (max_refine < 0) return ss_arg_error(me, -4);
    if (starsolve_rbt_order(A->n, depth, A->nb) > INT32_MAX) return ss_arg_error(me, -1);
    if (iters)
        *iters = 0;
    if (times)
        *times = (starsolve_rbt_times_t){ 0 };
    if (A->n == 0 || B->n == 0) return 0;
    return gesv_rbt_tiles(A, B, depth, max_refine, iters, times, now());
}

int starsolve_zgesv_rbt(int n, int nrhs, starsolve_complex64_t *A, int lda, starsolve_complex64_t *B, int ldb,
                        int depth, int max_refine, int *iters)
{
    SS_PUBLIC_CALL;
    return starsolve_zgesv_rbt_timed(n, nrhs, A, lda, B, ldb, depth, max_refine, iters, NULL);
}

int starsolve_zgesv_rbt_timed(int n, int nrhs, starsolve_complex64_t *A, int lda, starsolve_complex64_t *B, int ldb,
                              int depth, int max_refine, int *iters, starsolve_rbt_times_t *times)
{
    SS_PUBLIC_CALL;
    const char *me = "starsolve_zgesv_rbt";
    if (n < 0) return ss_arg_error(me, -1);
    if (nrhs < 0) return ss_arg_error(me, -2);
    if (!A && n > 0) return ss_arg_error(me, -3);
    if (lda < ss_max(1, n)) return ss_arg_error(me, -4);
    if (!B && n > 0 && nrhs > 0) return ss_arg_error(me, -5);
    if (ldb < ss_max(1, n)) return ss_arg_error(me, -6);
    if (!starsolve_rbt_depth_valid(n, depth)) return ss_arg_error(me, -7);   /* 0: no randomization (plain LU without pivoting) */
    if (max_refine < 0) return ss_arg_error(me, -8);
    if (iters)
        *iters = 0;
    if (times)
        *times = (starsolve_rbt_times_t){ 0 };
    if (n == 0 || nrhs == 0) return 0;
    if (ss_ensure_init()) return -1000;
    ss_seconds_t t0 = now();

    /* the tile size that pads least (2048 on GPUs from 32768 on, as LU without pivoting's) */
    const int nb = starsolve_get_nb_rbt(n, depth);
    if (starsolve_rbt_order(n, depth, nb) > INT32_MAX) return ss_arg_error(me, -1);
    /* A, only read, and B, written once at the end (left as it is when the factorization fails) */
    starsolve_desc_t *dA = NULL, *dB = NULL;
    int info = -1000;
    if (!starsolve_desc_create_lapack(&dA, STARSOLVE_Z, n, n, nb, A, lda)
        && !starsolve_desc_create_lapack(&dB, STARSOLVE_Z, n, nrhs, nb, B, ldb))
        info = gesv_rbt_tiles(dA, dB, depth, max_refine, iters, times, t0);
    ss_seconds_t cleanup_from = now();
    starsolve_desc_destroy(dB);   /* brings B's tiles home */
    starsolve_desc_destroy(dA);
    if (times)
        times->cleanup += now() - cleanup_from;
    return info;
}
