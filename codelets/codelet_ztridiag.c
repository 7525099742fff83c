/* The tridiagonal path of gbsv_spike (kl, ku <= 1): one task solves every column of B.
 * Buffers: 0 the band (R: a matrix handle over the caller's gbsv array, the diagonal in row
 * args->diag_row), 1 B (RW, n x nrhs; absent in the check task), 2 work (ss_ztri_work_bytes; W, not
 * SCRATCH: the factorization keeps it, so that its solves find it allocated where they run).
 * The task reports through args->result (codelets/tridiag_result.h), in the caller's memory.
 *
 * The CPU variant eliminates without pivoting, row after row (Thomas); LAPACK's gttrf and gttrs, which
 * pivot, took 18 of the task's 40 ms at n = 1e6 on one core (bench/NOTES.md, session 36). The CUDA
 * variant (codelets/cuda/tridiag.cu) runs the partition method, also without pivoting. Both accept the
 * matrix only when every row's dominance |a_ii| / (|a_i,i-1| + |a_i,i+1|) reaches
 * args->min_dominance (where elimination without pivoting is stable, so either variant gives a
 * backward-stable answer), both check each column's residual max |b - A x| <= tol max |b| and
 * refine on it, and both leave b in place for a column they could not solve. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "codelets.h"
#include "tridiag_layout.h"
#include "tridiag_result.h"

/* the band's three diagonals: row i is sub(i) x[i-1] + dia(i) x[i] + sup(i) x[i+1] */
struct ztri_band { const starsolve_complex64_t *dg; size_t ld; int n, kl, ku; };
static inline starsolve_complex64_t ztri_sub(const struct ztri_band *A, int i) { return A->kl && i > 0 ? A->dg[(size_t)(i - 1) * A->ld + 1] : 0; }
static inline starsolve_complex64_t ztri_dia(const struct ztri_band *A, int i) { return A->dg[(size_t)i * A->ld]; }
static inline starsolve_complex64_t ztri_sup(const struct ztri_band *A, int i) { return A->ku && i < A->n - 1 ? A->dg[(size_t)(i + 1) * A->ld - 1] : 0; }

/* r = b - A x (r NULL: not stored); returns max |r_i|, NaN counted as infinite */
static double ztri_residual(const struct ztri_band *A, const starsolve_complex64_t *b, const starsolve_complex64_t *x,
                            starsolve_complex64_t *r)
{
    double most = 0;
    for (int i = 0; i < A->n; i++) {
        starsolve_complex64_t v = b[i] - ztri_dia(A, i) * x[i];
        if (i > 0) v -= ztri_sub(A, i) * x[i - 1];
        if (i < A->n - 1) v -= ztri_sup(A, i) * x[i + 1];
        if (r) r[i] = v;
        double m = cabs(v);
        most = isnan(m) ? INFINITY : fmax(most, m);
    }
    return most;
}

static double ztri_max_abs(int n, const starsolve_complex64_t *b)
{
    double most = 0;
    for (int i = 0; i < n; i++) {
        double m = cabs(b[i]);
        most = isnan(m) ? INFINITY : fmax(most, m);
    }
    return most;
}

/* x = A^-1 x by the elimination that ztridiag_cpu factored (inv: 1 / the pivots; up: c_i / pivot_i) */
static void ztri_apply(const struct ztri_band *A, const starsolve_complex64_t *inv, const starsolve_complex64_t *up, starsolve_complex64_t *x)
{
    starsolve_complex64_t prev = 0;
    for (int i = 0; i < A->n; i++)
        x[i] = prev = (x[i] - ztri_sub(A, i) * prev) * inv[i];
    for (int i = A->n - 2; i >= 0; i--)
        x[i] -= up[i] * x[i + 1];
}

static void ztridiag_cpu(void *buffers[], void *cl_arg, int has_b)
{
    const struct ss_tridiag_args *a = cl_arg;
    struct ss_tridiag_result *res = a->result;
    const int n = a->n;
    const struct ztri_band A = { (const starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[0]) + a->diag_row,
                                 STARPU_MATRIX_GET_LD(buffers[0]), n, a->kl, a->ku };
    starsolve_complex64_t *save = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[has_b ? 2 : 1]);
    starsolve_complex64_t *r = save + n, *inv = r + n, *up = inv + n;
    *res = (struct ss_tridiag_result){ .usable = 1 };
    /* the elimination without pivoting (Thomas), the rows' dominance beside it */
    double dominance = INFINITY;
    int finite = 1, zero_pivot = 0;
    starsolve_complex64_t prev_up = 0;
    for (int i = 0; i < n; i++) {
        starsolve_complex64_t lo = ztri_sub(&A, i), di = ztri_dia(&A, i), hi = ztri_sup(&A, i);
        double off = cabs(lo) + cabs(hi), diag = cabs(di);
        finite &= isfinite(off + diag);
        if (off > 0) dominance = fmin(dominance, diag / off);
        starsolve_complex64_t pivot = di - lo * prev_up;
        zero_pivot |= pivot == 0;
        inv[i] = 1 / pivot;
        up[i] = prev_up = hi * inv[i];
    }
    res->dominance = dominance;
    if (!finite || zero_pivot || !(dominance >= a->min_dominance)) {
        res->usable = 0;
        return;
    }
    if (!has_b)
        return;
    starsolve_complex64_t *B = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[1]);
    const size_t ldb = STARPU_MATRIX_GET_LD(buffers[1]);
    const int nrhs = (int)STARPU_MATRIX_GET_NY(buffers[1]);
    for (int col = 0; col < nrhs; col++) {
        starsolve_complex64_t *x = B + (size_t)col * ldb;
        memcpy(save, x, (size_t)n * sizeof *x);
        ztri_apply(&A, inv, up, x);
        const double bnorm = ztri_max_abs(n, save), goal = a->tol * (bnorm > 0 ? bnorm : 1);
        double rnorm = ztri_residual(&A, save, x, NULL);
        int steps = 0;
        /* refinement on the true residual, while it shrinks at least twofold a step */
        while (!(rnorm <= goal) && steps < a->maxit && isfinite(rnorm)) {
            ztri_residual(&A, save, x, r);
            ztri_apply(&A, inv, up, r);
            for (int i = 0; i < n; i++)
                x[i] += r[i];
            double next = ztri_residual(&A, save, x, NULL);
            steps++;
            int slow = !(next <= 0.5 * rnorm);
            rnorm = next;
            if (slow)
                break;
        }
        res->steps = ss_max(res->steps, steps);
        if (!(isfinite(rnorm) && rnorm <= goal)) {   /* not solved (an Inf in b too): b back for the caller's fallback */
            memcpy(x, save, (size_t)n * sizeof *x);
            return;
        }
        res->solved = col + 1;
    }
}

static void ztridiag_solve_cpu(void *buffers[], void *cl_arg) { ztridiag_cpu(buffers, cl_arg, 1); }
static void ztridiag_check_cpu(void *buffers[], void *cl_arg) { ztridiag_cpu(buffers, cl_arg, 0); }

#ifdef STARSOLVE_USE_CUDA
#if defined(STARSOLVE_PRECISION_Z)
static const char prec_tri = 'z';
#elif defined(STARSOLVE_PRECISION_D)
static const char prec_tri = 'd';
#elif defined(STARSOLVE_PRECISION_C)
static const char prec_tri = 'c';
#else
static const char prec_tri = 's';
#endif
/* the kernels' flags, read inside the task, decide on refinement; the stream is idle when it returns (StarPU's
 * completion of an asynchronous codelet, an event polled, cost ~30 us more a call: bench/NOTES.md, session 36) */
static void ztridiag_solve_cuda(void *buffers[], void *cl_arg)
{
    const struct ss_tridiag_args *a = cl_arg;
    ss_cuda_tridiag_solve(prec_tri, a, (const void *)STARPU_MATRIX_GET_PTR(buffers[0]), (int)STARPU_MATRIX_GET_LD(buffers[0]),
                          (int)STARPU_MATRIX_GET_NY(buffers[1]), (void *)STARPU_MATRIX_GET_PTR(buffers[1]),
                          (int)STARPU_MATRIX_GET_LD(buffers[1]), (void *)STARPU_VECTOR_GET_PTR(buffers[2]), ss_cuda_stream(), a->result);
}
static void ztridiag_check_cuda(void *buffers[], void *cl_arg)
{
    const struct ss_tridiag_args *a = cl_arg;
    ss_cuda_tridiag_solve(prec_tri, a, (const void *)STARPU_MATRIX_GET_PTR(buffers[0]), (int)STARPU_MATRIX_GET_LD(buffers[0]), 0, NULL, 1,
                          (void *)STARPU_VECTOR_GET_PTR(buffers[1]), ss_cuda_stream(), a->result);
}
#endif

size_t ss_ztri_work_bytes(int n)
{
    const size_t es = sizeof(starsolve_complex64_t);
    size_t cpu = 4 * (size_t)n * es;   /* save, r, inv, up */
#ifdef STARSOLVE_USE_CUDA
    size_t gpu = ss_cuda_tridiag_work(es, n);
    return gpu > cpu ? gpu : cpu;
#else
    return cpu;
#endif
}

/* the work grows with n and the columns */
static uint32_t footprint_tri(struct starpu_task *task)
{
    const struct ss_tridiag_args *a = task->cl_arg;
    uint32_t nrhs = task->cl->nbuffers == 3 ? starpu_matrix_get_ny(STARPU_TASK_GET_HANDLE(task, 1)) : 0;
    return starpu_hash_crc32c_be((uint32_t)a->n, starpu_hash_crc32c_be(nrhs, 0));
}
static struct starpu_perfmodel model_ztridiag_solve = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_ztridiag_solve",
                                                        .footprint = footprint_tri };
static struct starpu_perfmodel model_ztridiag_check = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_ztridiag_check",
                                                        .footprint = footprint_tri };
static struct starpu_codelet cl_ztridiag_solve = {
    .where = SS_WHERE_CPU_CUDA, .cpu_funcs = { ztridiag_solve_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { ztridiag_solve_cuda },   /* synchronous: the task has waited for its flags anyway */
#endif
    .nbuffers = 3, .modes = { STARPU_R, STARPU_RW, STARPU_W },
    .model = &model_ztridiag_solve, .name = "ztridiag_solve", .callback_func = ss_trace_task_done,
};
static struct starpu_codelet cl_ztridiag_check = {
    .where = SS_WHERE_CPU_CUDA, .cpu_funcs = { ztridiag_check_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { ztridiag_check_cuda },
#endif
    .nbuffers = 2, .modes = { STARPU_R, STARPU_W },
    .model = &model_ztridiag_check, .name = "ztridiag_check", .callback_func = ss_trace_task_done,
};

void insert_ztridiag(const struct ss_tridiag_args *args, int worker, starpu_data_handle_t band, starpu_data_handle_t B,
                     starpu_data_handle_t scratch)
{
    struct starpu_codelet *cl = B ? &cl_ztridiag_solve : &cl_ztridiag_check;
    struct starpu_data_descr d[3] = { { band, STARPU_R }, { B, STARPU_RW }, { scratch, STARPU_W } };
    if (!B)
        d[1] = d[2];
    double rhs = B ? starpu_matrix_get_ny(B) : 0;
    struct ss_tridiag_args *a = malloc(sizeof *a);   /* StarPU frees it with the task (STARPU_CL_ARGS) */
    STARPU_ASSERT_MSG(a, "starsolve: tridiagonal solve: out of memory");
    *a = *args;
    int ret = ss_task_insert(cl, STARPU_CL_ARGS, a, sizeof *a, STARPU_DATA_MODE_ARRAY, d, B ? 3 : 2,
                             STARPU_EXECUTE_ON_WORKER, worker, STARPU_NAME, cl->name,
                             STARPU_FLOPS, SS_FLOP_SCALE * 16.0 * args->n * (rhs + 1), 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert %s", cl->name);
}
