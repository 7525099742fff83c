/* Banded solver: truncated SPIKE as a preconditioner of BiCGStab (Li, Seidl,
 * Negrut, "SPIKE::GPU"), on LAPACK's gbsv band layout.
 *
 * The matrix is cut into p partitions whose sizes differ by at most one row
 * (no straggler whatever n is), each at least 2K rows, K = max(kl, ku). One
 * task per partition factors its diagonal block (LU with partial pivoting,
 * so a partition that is not diagonally dominant still factors) and computes
 * its spikes (codelets/codelet_zspike.c). Applying the preconditioner to a
 * block of vectors F: per-partition solves G_i = A_i^-1 F_i (tasks), then per
 * interface the 2K x 2K reduced system [I V_i^b; W_{i+1}^t I] (the truncated
 * SPIKE: couplings beyond neighbours dropped), then X_i = G_i - V_i X_{i+1}^t -
 * W_i X_{i-1}^b. BiCGStab in working precision, preconditioned on the right,
 * until ||b - A x||_inf <= tol ||b||_inf, tol = max(1e-12, 100 eps).
 * If it does not converge (matrices far from diagonal dominance) the solver
 * falls back to LAPACK's banded LU with partial pivoting (gbsv) and says so
 * with *iters = -1.
 * Not yet: CUDA variants, mixed precision, the reduced systems and the
 * retrieval as tasks (issue 7). AB is only read. */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <lapacke.h>
#include "algorithms.h"
#include "codelets.h"

struct spike {
    int n, kl, ku, K, p;
    int *first, *size;
    starsolve_complex64_t **F, **V, **W;
    int **ipiv;
    starpu_data_handle_t *hF, *hP;
    starsolve_complex64_t *S;   /* p-1 reduced systems, 2K x 2K each, LU-factored */
    int *ipivS;
};

/* p partitions of at least 2K rows (sizes then differ by at most one): about
 * n / psize with starsolve_set_spike_psize, else 2 per CPU worker (each worker
 * then has a second partition to take while the slowest finishes) */
static int partition_count(int n, int K)
{
    int most = ss_max(1, n / ss_max(1, 2 * K));
    int wanted = ss_ctx.spike_psize > 0 ? ss_max(1, n / ss_ctx.spike_psize) : 2 * (int)starpu_cpu_worker_get_count();
    return ss_max(1, ss_min(most, wanted));
}

static void spike_free(struct spike *s)
{
    for (int i = 0; i < s->p; i++) {
        if (s->hF) { starpu_data_unregister(s->hF[i]); starpu_data_unregister(s->hP[i]); }
        free(s->F[i]); free(s->V[i]); free(s->W[i]); free(s->ipiv[i]);
    }
    free(s->first); free(s->size); free(s->F); free(s->V); free(s->W); free(s->ipiv);
    free(s->hF); free(s->hP); free(s->S); free(s->ipivS);
}

/* factor the partitions and the reduced systems; returns 0 or a positive info */
static int spike_setup(struct spike *s, const starsolve_complex64_t *AB, int ldab)
{
    int p = s->p, K = s->K, ldf = 2 * s->kl + s->ku + 1;
    s->first = malloc(p * sizeof *s->first); s->size = malloc(p * sizeof *s->size);
    s->F = calloc(p, sizeof *s->F); s->V = calloc(p, sizeof *s->V); s->W = calloc(p, sizeof *s->W);
    s->ipiv = calloc(p, sizeof *s->ipiv);
    s->hF = malloc(p * sizeof *s->hF); s->hP = malloc(p * sizeof *s->hP);
    starpu_data_handle_t *hV = malloc(p * sizeof *hV), *hW = malloc(p * sizeof *hW);
    starsolve_request_t *req = starsolve_request_create();
    for (int i = 0, row = 0; i < p; i++) {
        int sz = s->n / p + (i < s->n % p);
        s->first[i] = row; s->size[i] = sz; row += sz;
        s->F[i] = malloc((size_t)ldf * sz * sizeof **s->F);
        s->V[i] = malloc((size_t)sz * K * sizeof **s->V);
        s->W[i] = malloc((size_t)sz * K * sizeof **s->W);
        s->ipiv[i] = malloc((size_t)sz * sizeof **s->ipiv);
        s->hF[i] = ss_register_vector(s->F[i], (size_t)ldf * sz, sizeof **s->F);
        s->hP[i] = ss_register_vector(s->ipiv[i], sz, sizeof **s->ipiv);
        hV[i] = ss_register_vector(s->V[i], (size_t)sz * K, sizeof **s->V);
        hW[i] = ss_register_vector(s->W[i], (size_t)sz * K, sizeof **s->W);
        insert_zspike_factor(AB, s->n, s->kl, s->ku, ldab, row - sz, sz, K, s->hF[i], s->hP[i], hV[i], hW[i], req);
    }
    int info = starsolve_request_wait(req);
    starsolve_request_destroy(req);
    for (int i = 0; i < p; i++) {
        starpu_data_unregister(hV[i]);
        starpu_data_unregister(hW[i]);
    }
    free(hV); free(hW);
    /* the reduced systems [I V_i^b; W_{i+1}^t I], factored once */
    s->S = calloc((size_t)ss_max(1, p - 1) * 4 * K * K, sizeof *s->S);
    s->ipivS = calloc((size_t)ss_max(1, p - 1) * 2 * K, sizeof *s->ipivS);
    for (int i = 0; i + 1 < p && info == 0; i++) {
        starsolve_complex64_t *S = s->S + (size_t)i * 4 * K * K;
        int l = 2 * K, vb = s->size[i] - K;
        for (int d = 0; d < l; d++)
            S[d + (size_t)d * l] = 1.0;
        for (int c = 0; c < K; c++)
            for (int r = 0; r < K; r++) {
                S[r + (size_t)(K + c) * l] = s->V[i][vb + r + (size_t)c * s->size[i]];
                S[K + r + (size_t)c * l] = s->W[i + 1][r + (size_t)c * s->size[i + 1]];
            }
        if (LAPACKE_zgetrf_work(LAPACK_COL_MAJOR, l, l, S, l, s->ipivS + (size_t)i * l) > 0)
            info = s->first[i + 1];   /* a singular reduced system: no truncated SPIKE here */
    }
    return info;
}

/* X = M^-1 R, the truncated SPIKE solve, for nv vectors of length n (ld n) */
static void spike_apply(const struct spike *s, const starsolve_complex64_t *R, starsolve_complex64_t *X, int nv)
{
    int n = s->n, K = s->K, p = s->p, l = 2 * K;
    starsolve_complex64_t *G = malloc((size_t)n * nv * sizeof *G);
    memcpy(G, R, (size_t)n * nv * sizeof *G);
    starpu_data_handle_t *hG = malloc(p * sizeof *hG);
    for (int i = 0; i < p; i++) {
        hG[i] = ss_register_matrix(G + s->first[i], n, s->size[i], nv, sizeof *G);
        insert_zspike_solve(s->kl, s->ku, s->size[i], nv, s->hF[i], s->hP[i], hG[i]);
    }
    for (int i = 0; i < p; i++)
        starpu_data_unregister(hG[i]);
    free(hG);
    /* the reduced systems: y = [x_i^b; x_{i+1}^t] for each interface */
    starsolve_complex64_t *Y = calloc((size_t)ss_max(1, p - 1) * l * nv, sizeof *Y);
    for (int i = 0; i + 1 < p; i++) {
        starsolve_complex64_t *y = Y + (size_t)i * l * nv;
        for (int v = 0; v < nv; v++)
            for (int r = 0; r < K; r++) {
                y[r + (size_t)v * l] = G[s->first[i] + s->size[i] - K + r + (size_t)v * n];
                y[K + r + (size_t)v * l] = G[s->first[i + 1] + r + (size_t)v * n];
            }
        LAPACKE_zgetrs_work(LAPACK_COL_MAJOR, 'N', l, nv, s->S + (size_t)i * l * l, l, s->ipivS + (size_t)i * l, y, l);
    }
    /* X_i = G_i - V_i x_{i+1}^t - W_i x_{i-1}^b */
    for (int v = 0; v < nv; v++)
        for (int i = 0; i < p; i++) {
            const starsolve_complex64_t *xt_next = i + 1 < p ? Y + (size_t)i * l * nv + K + (size_t)v * l : NULL;
            const starsolve_complex64_t *xb_prev = i > 0 ? Y + (size_t)(i - 1) * l * nv + (size_t)v * l : NULL;
            for (int r = 0; r < s->size[i]; r++) {
                starsolve_complex64_t acc = G[s->first[i] + r + (size_t)v * n];
                for (int c = 0; c < K; c++) {
                    if (xt_next) acc -= s->V[i][r + (size_t)c * s->size[i]] * xt_next[c];
                    if (xb_prev) acc -= s->W[i][r + (size_t)c * s->size[i]] * xb_prev[c];
                }
                X[s->first[i] + r + (size_t)v * n] = acc;
            }
        }
    free(Y);
    free(G);
}

static double inf_norm(int n, const starsolve_complex64_t *x)
{
    double m = 0;
    for (int i = 0; i < n; i++) {
        double a = cabs(x[i]);
        if (a > m || isnan(a)) m = a;
    }
    return m;
}

static starsolve_complex64_t dotc(int n, const starsolve_complex64_t *x, const starsolve_complex64_t *y)
{
    starsolve_complex64_t s = 0;
    for (int i = 0; i < n; i++)
        s += conj(x[i]) * y[i];
    return s;
}

/* y = A x on the band */
static void band_mv(int n, int kl, int ku, const starsolve_complex64_t *AB, int ldab, const starsolve_complex64_t *x,
                    starsolve_complex64_t *y)
{
    const starsolve_complex64_t one = 1.0, zero = 0.0;
    cblas_zgbmv(CblasColMajor, CblasNoTrans, n, n, kl, ku, CBLAS_SADDR(one), AB + kl, ldab, x, 1, CBLAS_SADDR(zero), y, 1);
}

/* right-preconditioned BiCGStab on one column, from the truncated SPIKE solution;
 * returns the iterations, or -1 if the true residual misses the goal after maxit */
static int bicgstab(const struct spike *s, const starsolve_complex64_t *AB, int ldab, const starsolve_complex64_t *b,
                    starsolve_complex64_t *x, double tol, int maxit)
{
    int n = s->n;
    starsolve_complex64_t *r = malloc((size_t)8 * n * sizeof *r);
    starsolve_complex64_t *rh = r + n, *p = rh + n, *v = p + n, *ph = v + n, *sv = ph + n, *sh = sv + n, *t = sh + n;
    double bnorm = inf_norm(n, b), goal = tol * (bnorm > 0 ? bnorm : 1);
    spike_apply(s, b, x, 1);
    band_mv(n, s->kl, s->ku, AB, ldab, x, r);
    for (int i = 0; i < n; i++) { r[i] = b[i] - r[i]; rh[i] = r[i]; p[i] = 0; v[i] = 0; }
    starsolve_complex64_t rho = 1, alpha = 1, omega = 1;
    int it = 0;
    while (inf_norm(n, r) > goal && it < maxit) {
        it++;
        starsolve_complex64_t rho1 = dotc(n, rh, r);
        if (rho1 == 0.0 || omega == 0.0)
            break;   /* breakdown: the residual check below decides */
        starsolve_complex64_t beta = rho1 / rho * (alpha / omega);
        for (int i = 0; i < n; i++) p[i] = r[i] + beta * (p[i] - omega * v[i]);
        spike_apply(s, p, ph, 1);
        band_mv(n, s->kl, s->ku, AB, ldab, ph, v);
        starsolve_complex64_t d = dotc(n, rh, v);
        if (d == 0.0)
            break;
        alpha = rho1 / d;
        for (int i = 0; i < n; i++) sv[i] = r[i] - alpha * v[i];
        if (inf_norm(n, sv) <= goal) {
            for (int i = 0; i < n; i++) { x[i] += alpha * ph[i]; r[i] = sv[i]; }
            break;
        }
        spike_apply(s, sv, sh, 1);
        band_mv(n, s->kl, s->ku, AB, ldab, sh, t);
        double tt = creal(dotc(n, t, t));
        omega = tt > 0 ? dotc(n, t, sv) / tt : 0;
        for (int i = 0; i < n; i++) {
            x[i] += alpha * ph[i] + omega * sh[i];
            r[i] = sv[i] - omega * t[i];
        }
        rho = rho1;
    }
    /* trust only the true residual */
    band_mv(n, s->kl, s->ku, AB, ldab, x, r);
    for (int i = 0; i < n; i++) r[i] = b[i] - r[i];
    int ok = inf_norm(n, r) <= goal;
    free(r);
    return ok ? it : -1;
}

int starsolve_zgbsv_spike(int n, int kl, int ku, int nrhs, starsolve_complex64_t *AB, int ldab, starsolve_complex64_t *B,
                          int ldb, int *iters)
{
    const char *me = "starsolve_zgbsv_spike";
    if (n < 0) return ss_arg_error(me, -1);
    if (kl < 0) return ss_arg_error(me, -2);
    if (ku < 0) return ss_arg_error(me, -3);
    if (nrhs < 0) return ss_arg_error(me, -4);
    if (!AB && n > 0) return ss_arg_error(me, -5);
    if (ldab < 2 * kl + ku + 1) return ss_arg_error(me, -6);
    if (!B && n > 0 && nrhs > 0) return ss_arg_error(me, -7);
    if (ldb < ss_max(1, n)) return ss_arg_error(me, -8);
    if (iters)
        *iters = 0;
    if (n == 0 || nrhs == 0) return 0;
    if (ss_ensure_init()) return -1000;

    struct spike s = { .n = n, .kl = kl, .ku = ku, .K = ss_max(1, ss_max(kl, ku)) };
    s.p = partition_count(n, s.K);
    int info = spike_setup(&s, AB, ldab);
    double tol = fmax(1e-12, 100 * DBL_EPSILON);
    int worst = 0, converged = info == 0;
    starsolve_complex64_t *b = malloc((size_t)n * sizeof *b), *x = malloc((size_t)n * sizeof *x);
    starsolve_complex64_t *X = malloc((size_t)n * nrhs * sizeof *X);
    for (int j = 0; j < nrhs && converged; j++) {
        memcpy(b, B + (size_t)j * ldb, (size_t)n * sizeof *b);
        int it = bicgstab(&s, AB, ldab, b, x, tol, 100);
        converged = it >= 0;
        worst = ss_max(worst, it);
        memcpy(X + (size_t)j * n, x, (size_t)n * sizeof *x);
    }
    spike_free(&s);
    if (converged) {
        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', n, nrhs, X, n, B, ldb);
        if (iters)
            *iters = worst;
        info = 0;
    } else {
        /* far from diagonal dominance (or a singular partition): banded LU with partial
         * pivoting on a copy of the band, LAPACK's gbsv, and say so */
        starsolve_complex64_t *F = malloc((size_t)ldab * n * sizeof *F);
        int *ipiv = malloc((size_t)n * sizeof *ipiv);
        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', ldab, n, AB, ldab, F, ldab);
        info = LAPACKE_zgbsv_work(LAPACK_COL_MAJOR, n, kl, ku, nrhs, F, ldab, ipiv, B, ldb);
        if (ss_ctx.verbose)
            fprintf(stderr, "starsolve: %s: SPIKE did not converge; solved by banded LU with pivoting (info %d)\n",
                    me, info);
        if (iters)
            *iters = -1;
        free(F); free(ipiv);
    }
    free(b); free(x); free(X);
    return info;
}
