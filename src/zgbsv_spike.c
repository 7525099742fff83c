/* Banded solver: truncated SPIKE as the preconditioner of BiCGStab (Li, Seidl, Negrut,
 * "SPIKE::GPU"), on LAPACK's gbsv band layout. Every step is a StarPU task
 * (codelets/codelet_zspike.c); this thread only registers data, submits, and reads
 * BiCGStab's few scalars once per iteration to decide whether to go on.
 *
 * A is cut into p partitions whose sizes differ by at most one row (no straggler
 * whatever n is), each of at least 2K rows, K = max(kl, ku). Per partition one task
 * factors the diagonal block A_i (LAPACK gbtrf, partial pivoting) and computes the
 * spike tips only: Vb_i, the bottom K x K of A_i^-1 [0; B_i], exactly from the LU's last
 * rows, and Wt_i, the top K x K of A_i^-1 [C_i; 0], from the partition's leading block
 * (the seed's UL of the top block; the argument is at the factor codelet). Per interface
 * j one task factors the truncated reduced system [I Vb_j; Wt_{j+1} I] (2K x 2K).
 * The preconditioner x = M^-1 f, on f's partitions: g_i = A_i^-1 f_i keeping only its
 * top and bottom K rows (tip solve), the reduced systems for [x_j^b; x_{j+1}^t], then
 * the retrieval x_i = A_i^-1 (f_i - C_i x_{i-1}^b - B_i x_{i+1}^t) (purification).
 *
 * BiCGStab in working precision, preconditioned on the right, one right-hand side
 * after the other, until ||b - A x||_inf <= tol ||b||_inf, tol = max(1e-12, 100 eps);
 * the stopping test is then redone on the true residual b - A x (a last product),
 * never taken from the recurrence. Mixed precision (starsolve_set_spike_mixed, on by
 * default in d and z): the partition factors and their solves in single precision
 * (float for d, complex float for z), which halves the bytes every solve reads, the
 * Krylov vectors, the products with A and the reduced systems in working precision.
 *
 * Not diagonally dominant input: the factor tasks measure each row's dominance
 * |a_ii| / sum_{j != i} |a_ij|. Below SPIKE_MIN_DOMINANCE, or with a singular partition
 * or reduced system, truncated SPIKE is not used at all; otherwise BiCGStab runs and
 * stops early when it stagnates or breaks down. Either way the solver falls back to
 * LAPACK's banded LU with partial pivoting (gbsv, on a copy of the band) for the
 * right-hand sides not yet solved and says so: *iters = -2 (not dominant, SPIKE not
 * tried) or -1 (BiCGStab did not converge). With the fallback off
 * (starsolve_set_spike_fallback(0)) the solver returns n + 1 instead and leaves the
 * last iterate in B. AB is only read. */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <lapacke.h>
#include "algorithms.h"
#include "codelets.h"

/* Below this row dominance ratio truncated SPIKE is not tried (bench/NOTES.md: at
 * d = 0.1 BiCGStab needs tens of iterations or stagnates, gbsv is cheaper) */
#define SPIKE_MIN_DOMINANCE 0.5
/* stagnation: after this many iterations, the residual must have shrunk by half over
 * the last SPIKE_WINDOW of them */
#define SPIKE_WINDOW 8

/* BiCGStab's vectors, each cut into the partitions */
enum { VB, VX, VR, VRH, VP, VV, VPH, VS, VSH, VT, NVEC };

struct spike {
    int n, kl, ku, K, p, mixed;
    struct ss_spike_part *part;
    starpu_data_handle_t *band, *F, *ipiv, *tips, *S, *ipivS, *gt, *y, *partial, *Bh, *vec[NVEC];
    starpu_data_handle_t scratch, scalars;
    void *Fmem;
    int *ipivmem, *ipivSmem;
    starsolve_complex64_t *tipsmem, *Smem, *gtmem, *ymem, *partmem, *vecmem, scal[SS_SCAL_COUNT];
    starsolve_request_t *req;
};

/* How many partitions. One per worker: the partitions are equal, so each worker
 * gets one of every stage's tasks, and every further partition adds an interface
 * whose truncation the Krylov iterations have to correct (bench/NOTES.md measured
 * 1 and 2 per worker). A partition keeps at least 2K rows (SPIKE's couplings must
 * reach only the neighbours) and at least SPIKE_MIN_WORK / K rows, so that a task's
 * work (about size K flops) stays far above StarPU's per-task cost of some
 * microseconds. starsolve_set_spike_psize(P) asks for about n / P partitions instead
 * (still at least 2K rows each). */
#define SPIKE_MIN_WORK 65536
static int partition_count(int n, int K)
{
    int most = ss_max(1, n / (2 * K));
    if (ss_ctx.spike_psize > 0)
        return ss_max(1, ss_min(most, n / ss_ctx.spike_psize));
    int workers = (int)(starpu_cpu_worker_get_count() + starpu_cuda_worker_get_count());
    int by_work = ss_max(1, n / ss_max(2 * K, SPIKE_MIN_WORK / K));
    return ss_max(1, ss_min(ss_min(most, by_work), ss_max(1, workers)));
}

static void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size);
    STARPU_ASSERT_MSG(p, "starsolve: gbsv_spike: out of memory");
    return p;
}

static void spike_setup(struct spike *s, starsolve_complex64_t *AB, int ldab, starsolve_complex64_t *B, int ldb, int nrhs)
{
    int p = s->p, K = s->K, ldf = 2 * s->kl + s->ku + 1, maxsize = 0;
    size_t fsz = s->mixed ? sizeof(float) * (sizeof(starsolve_complex64_t) / sizeof(double)) : sizeof(starsolve_complex64_t);
    s->part = xcalloc(p, sizeof *s->part);
    starpu_data_handle_t **hs[] = { &s->band, &s->F, &s->ipiv, &s->tips, &s->S, &s->ipivS, &s->gt, &s->y, &s->partial, &s->Bh };
    for (size_t k = 0; k < sizeof hs / sizeof *hs; k++)
        *hs[k] = xcalloc(p, sizeof(starpu_data_handle_t));
    for (int v = 0; v < NVEC; v++)
        s->vec[v] = xcalloc(p, sizeof(starpu_data_handle_t));
    s->Fmem = xcalloc((size_t)ldf * s->n, fsz);
    s->ipivmem = xcalloc(s->n, sizeof(int));
    s->tipsmem = xcalloc(SS_TIPS(K) * p, sizeof(starsolve_complex64_t));
    s->Smem = xcalloc((size_t)4 * K * K * p, sizeof(starsolve_complex64_t));
    s->ipivSmem = xcalloc((size_t)2 * K * p, sizeof(int));
    s->gtmem = xcalloc((size_t)2 * K * p, sizeof(starsolve_complex64_t));
    s->ymem = xcalloc((size_t)2 * K * p, sizeof(starsolve_complex64_t));
    s->partmem = xcalloc((size_t)SS_PART_COUNT * p, sizeof(starsolve_complex64_t));
    s->vecmem = xcalloc((size_t)NVEC * s->n, sizeof(starsolve_complex64_t));
    for (int i = 0, row = 0; i < p; i++) {
        int sz = s->n / p + (i < s->n % p);
        s->part[i] = (struct ss_spike_part){ .first = row, .size = sz, .kl = s->kl, .ku = s->ku, .K = K,
                                             .has_prev = i > 0, .has_next = i + 1 < p, .mixed = s->mixed,
                                             .nparts = p, .req = s->req };
        maxsize = ss_max(maxsize, sz);
        /* the band's rows kl .. 2 kl + ku (gbmv layout) on the partition's columns: read only */
        s->band[i] = ss_register_matrix(AB + s->kl + (size_t)row * ldab, ldab, s->kl + s->ku + 1, sz, sizeof *AB);
        s->Bh[i] = ss_register_matrix(B + row, ldb, sz, nrhs, sizeof *B);
        s->F[i] = ss_register_vector((char *)s->Fmem + (size_t)row * ldf * fsz, (size_t)ldf * sz, fsz);
        s->ipiv[i] = ss_register_vector(s->ipivmem + row, sz, sizeof(int));
        s->tips[i] = ss_register_vector(s->tipsmem + SS_TIPS(K) * i, SS_TIPS(K), sizeof(starsolve_complex64_t));
        s->S[i] = ss_register_vector(s->Smem + (size_t)4 * K * K * i, (size_t)4 * K * K, sizeof(starsolve_complex64_t));
        s->ipivS[i] = ss_register_vector(s->ipivSmem + (size_t)2 * K * i, 2 * (size_t)K, sizeof(int));
        s->gt[i] = ss_register_vector(s->gtmem + (size_t)2 * K * i, 2 * (size_t)K, sizeof(starsolve_complex64_t));
        s->y[i] = ss_register_vector(s->ymem + (size_t)2 * K * i, 2 * (size_t)K, sizeof(starsolve_complex64_t));
        s->partial[i] = ss_register_vector(s->partmem + (size_t)SS_PART_COUNT * i, SS_PART_COUNT, sizeof(starsolve_complex64_t));
        for (int v = 0; v < NVEC; v++)
            s->vec[v][i] = ss_register_vector(s->vecmem + (size_t)v * s->n + row, sz, sizeof(starsolve_complex64_t));
        row += sz;
    }
    s->scratch = ss_scratch_buffer((size_t)maxsize * fsz);
    s->scalars = ss_register_vector(s->scal, SS_SCAL_COUNT, sizeof(starsolve_complex64_t));
}

static void spike_free(struct spike *s)
{
    for (int i = 0; i < s->p; i++) {
        starpu_data_handle_t h[] = { s->band[i], s->Bh[i], s->F[i], s->ipiv[i], s->tips[i], s->S[i], s->ipivS[i],
                                     s->gt[i], s->y[i], s->partial[i] };
        for (size_t k = 0; k < sizeof h / sizeof *h; k++)
            starpu_data_unregister(h[k]);
        for (int v = 0; v < NVEC; v++)
            starpu_data_unregister(s->vec[v][i]);
    }
    starpu_data_unregister(s->scratch);
    starpu_data_unregister(s->scalars);
    free(s->band); free(s->Bh); free(s->F); free(s->ipiv); free(s->tips); free(s->S); free(s->ipivS); free(s->gt);
    free(s->y); free(s->partial);
    for (int v = 0; v < NVEC; v++)
        free(s->vec[v]);
    free(s->Fmem); free(s->ipivmem); free(s->tipsmem); free(s->Smem); free(s->ipivSmem); free(s->gtmem); free(s->ymem);
    free(s->partmem); free(s->vecmem); free(s->part);
}

/* Submit the factorization; wait for it and say whether truncated SPIKE may be used:
 * 0 yes; 1 a singular partition or reduced system; 2 rows too far from dominance */
static int spike_factor(struct spike *s, double *dominance)
{
    int p = s->p;
    for (int i = 0; i < p; i++)
        insert_zspike_factor(&s->part[i], s->band[i > 0 ? i - 1 : i], s->band[i], s->band[i + 1 < p ? i + 1 : i], s->F[i],
                             s->ipiv[i], s->tips[i]);
    for (int j = 0; j + 1 < p; j++)
        insert_zspike_reduced_factor(&s->part[j], s->tips[j], s->tips[j + 1], s->S[j], s->ipivS[j]);
    int singular = 0;
    *dominance = INFINITY;
    for (int i = 0; i < p; i++) {
        starpu_data_acquire(s->tips[i], STARPU_R);
        const starsolve_complex64_t *t = s->tipsmem + SS_TIPS(s->K) * i;
        *dominance = fmin(*dominance, creal(t[SS_TIPS(s->K) - 2]));
        singular |= creal(t[SS_TIPS(s->K) - 1]) != 0;
        starpu_data_release(s->tips[i]);
    }
    for (int j = 0; j + 1 < p; j++) {
        starpu_data_acquire(s->ipivS[j], STARPU_R);
        starpu_data_release(s->ipivS[j]);
    }
    pthread_mutex_lock(&s->req->lock);
    singular |= s->req->info != 0;
    pthread_mutex_unlock(&s->req->lock);
    return singular ? 1 : *dominance < SPIKE_MIN_DOMINANCE ? 2 : 0;
}

/* out = M^-1 f, the truncated SPIKE solve (vectors VB .. VT) */
static void spike_apply(struct spike *s, int f, int out)
{
    int p = s->p;
    if (p > 1) {
        for (int i = 0; i < p; i++)
            insert_zspike_tipsolve(&s->part[i], s->F[i], s->ipiv[i], s->vec[f][i], s->gt[i], s->scratch);
        for (int j = 0; j + 1 < p; j++)
            insert_zspike_reduced_solve(&s->part[j], s->S[j], s->ipivS[j], s->gt[j], s->gt[j + 1], s->y[j]);
    }
    for (int i = 0; i < p; i++)   /* a missing interface's handle is not read: the partition's own gt stands in */
        insert_zspike_retrieve(&s->part[i], s->F[i], s->ipiv[i], s->vec[f][i], s->tips[i], i > 0 ? s->y[i - 1] : s->gt[i],
                               i + 1 < p ? s->y[i] : s->gt[i], s->vec[out][i], s->scratch);
}

static void spike_matvec(struct spike *s, int op, int x, int aux, int out)
{
    int p = s->p;
    for (int i = 0; i < p; i++)
        insert_zspike_matvec(&s->part[i], op, s->band[i], s->tips[i], s->vec[x][i > 0 ? i - 1 : i], s->vec[x][i],
                             s->vec[x][i + 1 < p ? i + 1 : i], s->vec[aux][i], s->vec[out][i], s->partial[i]);
}

static void spike_update(struct spike *s, int op, int col, const int *v, int nv)
{
    for (int i = 0; i < s->p; i++) {
        starpu_data_handle_t h[9];
        for (int k = 0; k < nv; k++)
            h[k] = v[k] == -1 ? s->scalars : v[k] == -2 ? s->partial[i] : v[k] == -3 ? s->Bh[i] : s->vec[v[k]][i];
        insert_zspike_update(&s->part[i], op, col, nv, h);
    }
}
#define SCAL -1
#define PART -2
#define BMAT -3

static void spike_reduce(struct spike *s, int op)
{
    insert_zspike_reduce(&s->part[0], op, s->partial, s->scalars);
}

/* BiCGStab's scalars, after the tasks submitted so far */
static void read_scalars(struct spike *s, double *rnorm, int *broke)
{
    starpu_data_acquire(s->scalars, STARPU_R);
    *rnorm = creal(s->scal[SS_SCAL_RNORM]);
    *broke = creal(s->scal[SS_SCAL_BREAK]) != 0;
    starpu_data_release(s->scalars);
}

/* Right-preconditioned BiCGStab on column col of B, from the truncated SPIKE solution.
 * Returns the iterations, or -1 if the true residual misses the goal. The solution goes
 * to B(:, col) either way. */
static int bicgstab(struct spike *s, int col, double tol)
{
    spike_update(s, SS_UP_COPYIN, col, (int[]){ BMAT, VB, PART }, 3);
    spike_reduce(s, SS_RED_BNORM);
    spike_apply(s, VB, VX);
    spike_matvec(s, SS_MV_RES, VX, VB, VR);
    spike_update(s, SS_UP_INIT, col, (int[]){ VR, VRH, VP, VV, PART }, 5);
    spike_reduce(s, SS_RED_START);
    double rnorm, *history = xcalloc((size_t)ss_ctx.spike_maxit + 1, sizeof *history);
    int broke, it = 0;
    read_scalars(s, &rnorm, &broke);
    double bnorm = creal(s->scal[SS_SCAL_BNORM]), goal = tol * (bnorm > 0 ? bnorm : 1);
    history[0] = rnorm;
    while (rnorm > goal && !broke && it < ss_ctx.spike_maxit && !isnan(rnorm)) {
        if (it >= SPIKE_WINDOW && rnorm > 0.5 * history[it - SPIKE_WINDOW])
            break;   /* stagnation */
        spike_update(s, SS_UP_P, col, (int[]){ VR, VV, SCAL, VP }, 4);
        spike_apply(s, VP, VPH);
        spike_matvec(s, SS_MV_V, VPH, VRH, VV);
        spike_reduce(s, SS_RED_ALPHA);
        spike_update(s, SS_UP_S, col, (int[]){ VR, VV, SCAL, VS }, 4);
        spike_apply(s, VS, VSH);
        spike_matvec(s, SS_MV_T, VSH, VS, VT);
        spike_reduce(s, SS_RED_OMEGA);
        spike_update(s, SS_UP_XR, col, (int[]){ VPH, VSH, VS, VT, VRH, SCAL, VX, VR, PART }, 9);
        spike_reduce(s, SS_RED_END);
        it++;
        read_scalars(s, &rnorm, &broke);
        history[it] = rnorm;
    }
    /* trust only the true residual */
    spike_matvec(s, SS_MV_RES, VX, VB, VR);
    spike_reduce(s, SS_RED_RESID);
    read_scalars(s, &rnorm, &broke);
    spike_update(s, SS_UP_COPYOUT, col, (int[]){ VX, BMAT }, 2);
    free(history);
    return rnorm <= goal ? it : -1;   /* NaN fails */
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
#if defined(STARSOLVE_PRECISION_Z) || defined(STARSOLVE_PRECISION_D)
    s.mixed = ss_ctx.spike_mixed;
#endif
    s.p = partition_count(n, s.K);
    s.req = starsolve_request_create();
    spike_setup(&s, AB, ldab, B, ldb, nrhs);
    double dominance, tol = fmax(1e-12, 100 * DBL_EPSILON);
    int usable = spike_factor(&s, &dominance);
    int worst = 0, solved = 0, info = 0;
    for (; usable == 0 && solved < nrhs; solved++) {
        int it = bicgstab(&s, solved, tol);
        if (it < 0) {
            if (ss_ctx.spike_fallback)
                break;   /* this column and the rest go to gbsv */
            info = n + 1;
        }
        worst = ss_max(worst, it < 0 ? ss_ctx.spike_maxit : it);
    }
    starpu_task_wait_for_all();
    spike_free(&s);
    starsolve_request_destroy(s.req);
    if (iters)
        *iters = worst;
    if (usable != 0 && !ss_ctx.spike_fallback)
        return n + 1;
    if (solved < nrhs) {
        /* far from diagonal dominance, a singular partition, or BiCGStab did not converge:
         * banded LU with partial pivoting on a copy of the band, LAPACK's gbsv, and say so */
        starsolve_complex64_t *F = malloc((size_t)ldab * n * sizeof *F);
        int *ipiv = malloc((size_t)n * sizeof *ipiv);
        if (!F || !ipiv) {
            free(F); free(ipiv);
            return ss_arg_error(me, -1000);
        }
        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', ldab, n, AB, ldab, F, ldab);
        info = LAPACKE_zgbsv_work(LAPACK_COL_MAJOR, n, kl, ku, nrhs - solved, F, ldab, ipiv, B + (size_t)solved * ldb, ldb);
        if (ss_ctx.verbose)
            fprintf(stderr, "starsolve: %s: %s; columns %d .. %d solved by banded LU with pivoting (gbsv info %d)\n", me,
                    usable == 2 ? "not diagonally dominant" : usable == 1 ? "a singular partition" : "BiCGStab did not converge",
                    solved + 1, nrhs, info);
        if (iters)
            *iters = usable ? -2 : -1;
        free(F); free(ipiv);
    }
    return info;
}
