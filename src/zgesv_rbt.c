/* Solve A X = B with the random butterfly transformation (RBT): factor
 * A_r = U^T A V without pivoting, solve A_r Y = U^T B, X = V Y, then refine on
 * A itself (Baboulin, Khabou, Remy; MAGMA's gesv_rbt).
 *
 * Sizes: the butterflies need N = 2^depth q, and the tile algorithms need the
 * halves of every butterfly block to be whole tiles: q is cut in k tiles of
 * order nbr = ceil(q / k), k = ceil(q / nb) (nb: LU without pivoting's tile size
 * for order n, starsolve_get_nb_for), and A is augmented to
 * diag(A, I) of order N = 2^depth k nbr (at most 2^depth (k + 1) - 1 more than n).
 * The randomized matrix lives in an owned tiled copy; A itself is only read
 * (by the residuals of the refinement) and is not modified.
 *
 * Refinement in working precision: r = B - A X, stop when every column has
 * ||r||_inf <= ||x||_inf ||A||_inf eps sqrt(n) (LAPACK's criterion), else solve
 * A_r dy = U^T r, X += V dy, at most max_refine times. Residuals and corrections
 * are tasks, so they run where the tiles are; only their columns' norms come
 * to the host, and the best iterate at the end. */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <lapacke.h>
#include "algorithms.h"

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

/* max over columns of ||r_j||_inf / (||x_j||_inf * scale), from the columns' norms; NaN gives +inf */
static double worst_column(int nrhs, const double *rnorm, const double *xnorm, double scale)
{
    double worst = 0;
    for (int j = 0; j < nrhs; j++) {
        double q = rnorm[j] / (xnorm[j] * scale);
        if (isnan(q) || isnan(rnorm[j]))
            return INFINITY;
        worst = q > worst ? q : worst;
    }
    return worst;
}

/* W = op(A_r)^-1 ... : Y = V (A_r^-1 (U^T W)), in place on W */
static void solve_randomized(starsolve_desc_t *F, starsolve_desc_t *W, int depth, starpu_data_handle_t *u,
                             starpu_data_handle_t *v)
{
    pzgerbt_rhs(1, W, depth, u);
    pztrsm('L', 'N', 'U', F, W);
    pztrsm('U', 'N', 'N', F, W);
    pzgerbt_rhs(0, W, depth, v);
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

int starsolve_zgesv_rbt(int n, int nrhs, starsolve_complex64_t *A, int lda, starsolve_complex64_t *B, int ldb,
                        int depth, int max_refine, int *iters)
{
    return starsolve_zgesv_rbt_timed(n, nrhs, A, lda, B, ldb, depth, max_refine, iters, NULL);
}

int starsolve_zgesv_rbt_timed(int n, int nrhs, starsolve_complex64_t *A, int lda, starsolve_complex64_t *B, int ldb,
                              int depth, int max_refine, int *iters, starsolve_rbt_times_t *times)
{
    const char *me = "starsolve_zgesv_rbt";
    if (n < 0) return ss_arg_error(me, -1);
    if (nrhs < 0) return ss_arg_error(me, -2);
    if (!A && n > 0) return ss_arg_error(me, -3);
    if (lda < ss_max(1, n)) return ss_arg_error(me, -4);
    if (!B && n > 0 && nrhs > 0) return ss_arg_error(me, -5);
    if (ldb < ss_max(1, n)) return ss_arg_error(me, -6);
    if (depth < 0 || depth > 16) return ss_arg_error(me, -7);   /* 0: no randomization (plain LU without pivoting) */
    if (max_refine < 0) return ss_arg_error(me, -8);
    if (iters)
        *iters = 0;
    if (times)
        *times = (starsolve_rbt_times_t){ 0 };
    if (n == 0 || nrhs == 0) return 0;
    if (ss_ensure_init()) return -1000;
    ss_seconds_t t0 = now();

    const int parts = 1 << depth, q = (n + parts - 1) / parts;
    /* the tile size of LU without pivoting at this order (2048 on GPUs from 32768) */
    const int nb = starsolve_get_nb_for(STARSOLVE_GETRF_NOPIV, n);
    const int k = (q + nb - 1) / nb, nbr = (q + k - 1) / k;
    if ((double)parts * k * nbr > INT32_MAX) return ss_arg_error(me, -1);
    const int N = parts * k * nbr;
    const starsolve_complex64_t one = 1.0;

    /* the butterflies: depth levels of N entries, for U and for V */
    double *wu = malloc(((size_t)2 * depth * N + 1) * sizeof *wu), *wv = wu + (size_t)depth * N;
    starpu_data_handle_t hu[16], hv[16];
    /* F the randomized matrix, X the iterate (N rows, the padding included), Xbest the best
     * one so far, W a correction, R a residual and Bd the right-hand sides (n rows) */
    starsolve_desc_t *F = NULL, *X = NULL, *Xbest = NULL, *W = NULL, *R = NULL, *Bd = NULL, *dA = NULL;
    starsolve_complex64_t *x = malloc((size_t)N * nrhs * sizeof *x);   /* the best iterate on its way to B */
    double *norms = malloc(2 * (size_t)nrhs * sizeof *norms);   /* ||r_j||_inf, then ||x_j||_inf */
    if (!wu || !x || !norms
        /* F needs no home copy: StarPU allocates its tiles where they are used (with GPUs,
         * there only) instead of page-locking an N x N host allocation per call, and
         * its final tiles are not sent home (ss_tile_send_home) */
        || starsolve_desc_create_ooc(&F, STARSOLVE_Z, N, N, nbr) || starsolve_desc_create(&X, STARSOLVE_Z, N, nrhs, nbr)
        || starsolve_desc_create(&Xbest, STARSOLVE_Z, N, nrhs, nbr) || starsolve_desc_create(&W, STARSOLVE_Z, N, nrhs, nbr)
        || starsolve_desc_create(&R, STARSOLVE_Z, n, nrhs, nbr) || starsolve_desc_create(&Bd, STARSOLVE_Z, n, nrhs, nbr)) {
        free(wu); free(x); free(norms);
        starsolve_desc_destroy(F); starsolve_desc_destroy(X); starsolve_desc_destroy(Xbest);
        starsolve_desc_destroy(W); starsolve_desc_destroy(R); starsolve_desc_destroy(Bd);
        return -1000;   /* out of memory */
    }
    starpu_data_handle_t hnorms[2];
    for (int v = 0; v < 2; v++)
        hnorms[v] = ss_register_vector(norms + (size_t)v * nrhs, nrhs, sizeof *norms);
    uint64_t state = 0x5eed5eed2026ULL;
    random_butterflies(wu, (size_t)2 * depth * N, &state);
    for (int l = 0; l < depth; l++) {
        hu[l] = ss_register_vector(wu + (size_t)l * N, N, sizeof(double));
        hv[l] = ss_register_vector(wv + (size_t)l * N, N, sizeof(double));
    }
    starsolve_request_t *req = starsolve_request_create();

    phase_end(times ? &times->setup : NULL, &t0, req);
    /* F = U^T diag(A, I) V, factored without pivoting */
    starsolve_desc_create_lapack(&dA, STARSOLVE_Z, n, n, nbr, A, lda);   /* A, read only, tiled as F */
    pzlacpy_augment(dA, F);
    pzgerbt(F, depth, hu, hv);
    phase_end(times ? &times->randomize : NULL, &t0, req);
    pzgetrf_nopiv(F, req);
    /* ||A||_inf for the stopping criterion: row sums by tasks on the CPU cores while the
     * GPUs factor (A is only read by both) */
    double *rowsums = malloc((size_t)n * sizeof *rowsums);
    starpu_data_handle_t *hsums = malloc((size_t)dA->mt * sizeof *hsums);
    int have_norm = rowsums && hsums;
    if (have_norm) {
        for (int i = 0; i < dA->mt; i++)
            hsums[i] = ss_register_vector(rowsums + (size_t)i * nbr, ss_tile_rows(dA, i), sizeof *rowsums);
        pzlange_rowsums(dA, hsums);
    }
    int info = starsolve_request_wait(req);
    phase_end(times ? &times->factor : NULL, &t0, req);
    double anorm = have_norm ? 0 : INFINITY;
    for (int i = 0; have_norm && i < dA->mt; i++)
        starpu_data_unregister(hsums[i]);
    for (int i = 0; have_norm && i < n; i++)   /* a NaN row sum makes the norm NaN, as lange's */
        anorm = rowsums[i] > anorm || isnan(rowsums[i]) ? rowsums[i] : anorm;
    free(rowsums);
    free(hsums);
    if (info == 0) {
        /* X = V A_r^-1 U^T [B; 0] */
        starsolve_desc_from_lapack(Bd, B, ldb);
        pzlacpy_pad_rows(Bd, X);
        solve_randomized(F, X, depth, hu, hv);
        phase_end(times ? &times->solve : NULL, &t0, req);

        /* Everything stays in tasks but the 2 nrhs column norms: acquiring the
         * residual's and the iterate's tiles one by one cost 150-300 ms per
         * step at n = 40000 on an H100 (bench/NOTES.md). */
        double scale = anorm * DBL_EPSILON * sqrt((double)n);   /* LAPACK's criterion */
        double best_ratio = INFINITY;
        for (int step = 0;; step++) {
            /* R = B - A X (X's first n rows: A's tiles use the first rows of X's) */
            pzlacpy_pad_rows(Bd, R);
            pzresidual(dA, X, R);
            pzlange_colmax(R, n, hnorms[0]);
            pzlange_colmax(X, n, hnorms[1]);
            starpu_data_acquire(hnorms[0], STARPU_R);
            starpu_data_acquire(hnorms[1], STARPU_R);
            double ratio = worst_column(nrhs, norms, norms + nrhs, scale);
            starpu_data_release(hnorms[0]);
            starpu_data_release(hnorms[1]);
            if (ratio < best_ratio || step == 0) {
                best_ratio = ratio;
                pzlacpy_pad_rows(X, Xbest);
            }
            if (ratio <= 1.0)
                break;
            if (step == max_refine) {
                info = n + 1;   /* not converged: B gets the best iterate */
                break;
            }
            /* X += V A_r^-1 U^T [R; 0] */
            pzlacpy_pad_rows(R, W);
            solve_randomized(F, W, depth, hu, hv);
            pzgeadd(one, W, X);
            if (iters)
                *iters = step + 1;
        }
        starsolve_desc_to_lapack(Xbest, x, N);
        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', n, nrhs, x, N, B, ldb);
        phase_end(times ? &times->refine : NULL, &t0, req);
    }
    starsolve_request_wait(req);
    starsolve_request_destroy(req);
    /* F's contents are not wanted any more: nothing to bring anywhere when its tiles go */
    for (size_t t = 0; t < (size_t)F->mt * F->nt; t++)
        starpu_data_invalidate_submit(F->tiles[t]);
    ss_seconds_t cleanup_from = now();
    starsolve_desc_destroy(dA);
    for (int l = 0; l < depth; l++) {
        starpu_data_unregister(hu[l]);
        starpu_data_unregister(hv[l]);
    }
    for (int v = 0; v < 2; v++)
        starpu_data_unregister(hnorms[v]);
    starsolve_desc_destroy(Bd); starsolve_desc_destroy(R); starsolve_desc_destroy(W);
    starsolve_desc_destroy(Xbest); starsolve_desc_destroy(X); starsolve_desc_destroy(F);
    free(wu); free(x); free(norms);
    if (times)
        times->cleanup = now() - cleanup_from;
    return info;
}
