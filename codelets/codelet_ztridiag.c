/* The tridiagonal path of gbsv_spike (kl, ku <= 1): with CUDA workers, or a single CPU worker, one task solves
 * every column of B (this part); on several CPU workers alone, chunks of rows with three stages of tasks (the
 * part further below). One task's buffers: 0 the band (R: a matrix handle over the caller's gbsv array, the diagonal in row
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

/* the band's three diagonals: row i is sub(i) x[i-1] + dia(i) x[i] + sup(i) x[i+1]; dg points at the diagonal
 * of column col0 (0, or a chunk's first column: the handle then covers columns col0 .. of the whole band) */
struct ztri_band { const starsolve_complex64_t *dg; size_t ld; int n, kl, ku, col0; };
static inline starsolve_complex64_t ztri_sub(const struct ztri_band *A, int i)
{
    return A->kl && i > 0 ? A->dg[(size_t)(i - 1 - A->col0) * A->ld + 1] : 0;
}
static inline starsolve_complex64_t ztri_dia(const struct ztri_band *A, int i) { return A->dg[(size_t)(i - A->col0) * A->ld]; }
static inline starsolve_complex64_t ztri_sup(const struct ztri_band *A, int i)
{
    return A->ku && i < A->n - 1 ? A->dg[(size_t)(i + 1 - A->col0) * A->ld - 1] : 0;
}

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
                                 STARPU_MATRIX_GET_LD(buffers[0]), n, a->kl, a->ku, 0 };
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

/* ---- on CPU workers alone: chunks of rows, one task each (the partition method at chunk size) -------------
 * One task on one core solved n = 1e6 in 50 ms on the H100 machine's cores against 86 ms for LAPACK's dgbsv
 * (bench/NOTES.md, session 36); the chunks' three stages use them all: reduce (per chunk, its first and last rows
 * coupled only to each other and to the neighbours' last and first, as tridiag.cu's forward kernel does per
 * partition), reduced (one task: the 2 x chunks rows by Thomas), back (per chunk: the interior rows, the residual
 * of every row, b saved before x overwrites it). */

/* the chunk's band: its handle covers columns col0 .. first + rows (one past its rows on each side where there is one) */
static struct ztri_band ztri_chunk_band(const struct ss_tri_chunk *a, void *buffer)
{
    return (struct ztri_band){ (const starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffer) + a->diag_row, STARPU_MATRIX_GET_LD(buffer),
                               a->n, a->kl, a->ku, a->col0 };
}

/* buffers: 0 the chunk's band (R), 1 its rows of B (R; absent when nrhs is 0), last: red (W, SS_TRI_RED_COUNT) */
static void ztri_reduce_cpu(void *buffers[], void *cl_arg)
{
    const struct ss_tri_chunk *a = cl_arg;
    const struct ztri_band A = ztri_chunk_band(a, buffers[0]);
    const starsolve_complex64_t *B = a->nrhs ? (const starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[1]) : NULL;
    const size_t ldb = a->nrhs ? STARPU_MATRIX_GET_LD(buffers[1]) : 0;
    starsolve_complex64_t *red = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[a->nrhs ? 2 : 1]);
    const int s = a->first, e = a->first + a->rows - 1;   /* rows >= 3 (tri_chunk_count) */
    double dominance = INFINITY;
    int bad = 0;
    for (int i = s; i <= e; i++) {
        double off = cabs(ztri_sub(&A, i)) + cabs(ztri_sup(&A, i)), diag = cabs(ztri_dia(&A, i));
        bad |= !isfinite(off + diag);
        if (off > 0) dominance = fmin(dominance, diag / off);
    }
    /* downward: the last row in terms of the first */
    starsolve_complex64_t al = ztri_sub(&A, s + 1), be = ztri_dia(&A, s + 1);
    for (int j = 0; j < a->nrhs; j++)
        red[SS_TRI_RED_RHS + 2 * j + 1] = B[1 + j * ldb];
    for (int i = s + 2; i <= e; i++) {
        bad |= be == 0;
        starsolve_complex64_t l = ztri_sub(&A, i) / be;
        al = -l * al;
        be = ztri_dia(&A, i) - l * ztri_sup(&A, i - 1);
        for (int j = 0; j < a->nrhs; j++)
            red[SS_TRI_RED_RHS + 2 * j + 1] = B[i - s + j * ldb] - l * red[SS_TRI_RED_RHS + 2 * j + 1];
    }
    /* upward: the first row in terms of the last */
    starsolve_complex64_t bu = ztri_dia(&A, e - 1), ga = ztri_sup(&A, e - 1);
    for (int j = 0; j < a->nrhs; j++)
        red[SS_TRI_RED_RHS + 2 * j] = B[e - 1 - s + j * ldb];
    for (int i = e - 2; i >= s; i--) {
        bad |= bu == 0;
        starsolve_complex64_t f = ztri_sup(&A, i) / bu;
        bu = ztri_dia(&A, i) - f * ztri_sub(&A, i + 1);
        ga = -f * ga;
        for (int j = 0; j < a->nrhs; j++)
            red[SS_TRI_RED_RHS + 2 * j] = B[i - s + j * ldb] - f * red[SS_TRI_RED_RHS + 2 * j];
    }
    red[SS_TRI_RED_A] = ztri_sub(&A, s); red[SS_TRI_RED_B] = bu; red[SS_TRI_RED_C] = ga;
    red[SS_TRI_RED_AL] = al; red[SS_TRI_RED_BE] = be; red[SS_TRI_RED_CE] = ztri_sup(&A, e);
    red[SS_TRI_RED_DOM] = dominance;
    red[SS_TRI_RED_BAD] = bad;
}

/* buffers: red_0 .. red_{p-1} (R), then sol_0 .. sol_{p-1} (W): the 2p-row reduced system by Thomas, per column */
static void ztri_reduced_cpu(void *buffers[], void *cl_arg)
{
    const struct ss_tri_chunk *a = cl_arg;
    const int p = a->nchunks, N = 2 * p;
    starsolve_complex64_t *up = malloc((size_t)N * sizeof *up), *inv = malloc((size_t)N * sizeof *inv), *y = malloc((size_t)N * sizeof *y);
    STARPU_ASSERT_MSG(up && inv && y, "starsolve: tridiagonal reduced system: out of memory");
    int usable = 1;
    for (int c = 0; c < p; c++) {
        const starsolve_complex64_t *red = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[c]);
        usable &= creal(red[SS_TRI_RED_BAD]) == 0 && creal(red[SS_TRI_RED_DOM]) >= a->min_dominance;
    }
    /* row 2c: chunk c's first row, 2c + 1 its last (ztri_reduce_cpu's coefficients) */
#define RED(r, k) (((const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[(r) / 2]))[(r) % 2 ? SS_TRI_RED_AL + (k) : SS_TRI_RED_A + (k)])
    starsolve_complex64_t prev_up = 0;
    for (int r = 0; r < N; r++) {
        starsolve_complex64_t pivot = RED(r, 1) - RED(r, 0) * prev_up;
        usable &= pivot != 0;
        inv[r] = pivot != 0 ? 1 / pivot : 0;
        up[r] = prev_up = RED(r, 2) * inv[r];
    }
    for (int j = 0; j < a->nrhs; j++) {
        starsolve_complex64_t prev = 0;
        for (int r = 0; r < N; r++) {
            const starsolve_complex64_t *red = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[r / 2]);
            y[r] = prev = (red[SS_TRI_RED_RHS + 2 * j + r % 2] - RED(r, 0) * prev) * inv[r];
        }
        for (int r = N - 2; r >= 0; r--)
            y[r] -= up[r] * y[r + 1];
        for (int c = 0; c < p; c++) {
            starsolve_complex64_t *sol = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[p + c]);
            sol[1 + 2 * j] = y[2 * c];
            sol[2 + 2 * j] = y[2 * c + 1];
        }
    }
#undef RED
    for (int c = 0; c < p; c++)
        ((starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[p + c]))[0] = usable;
    free(up); free(inv); free(y);
}

/* buffers: 0 the chunk's band (R), 1 its rows of B (RW), 2 sol of the previous chunk (R; its own for chunk 0),
 * 3 its sol (R), 4 sol of the next chunk (R; its own for the last), 5 its rows of save (W: b), 6 stat (W),
 * 7 scratch (4 x rows): x on the interior rows from the chunk's first and last unknowns, the residual of
 * every row; nothing written to B when the reduced task found the matrix not usable */
static void ztri_back_cpu(void *buffers[], void *cl_arg)
{
    const struct ss_tri_chunk *a = cl_arg;
    const struct ztri_band A = ztri_chunk_band(a, buffers[0]);
    starsolve_complex64_t *B = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[1]);
    const size_t ldb = STARPU_MATRIX_GET_LD(buffers[1]);
    const starsolve_complex64_t *prev = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[2]);
    const starsolve_complex64_t *sol = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[3]);
    const starsolve_complex64_t *next = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[4]);
    starsolve_complex64_t *save = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[5]);
    const size_t lds = STARPU_MATRIX_GET_LD(buffers[5]);
    starsolve_complex64_t *stat = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[6]);
    starsolve_complex64_t *inv = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[7]), *g = inv + a->rows, *x = g + a->rows;
    const int s = a->first, e = a->first + a->rows - 1, m = a->rows;
    if (creal(sol[0]) == 0)
        return;
    for (int j = 0; j < a->nrhs; j++) {
        starsolve_complex64_t *b = B + j * ldb;
        const starsolve_complex64_t xs = sol[1 + 2 * j], xe = sol[2 + 2 * j];
        /* upward over the interior rows, as the reduce task's, keeping 1 / pivot, the fill and the right-hand side */
        starsolve_complex64_t bu = ztri_dia(&A, e - 1), ga = ztri_sup(&A, e - 1), du = b[m - 2];
        for (int i = e - 1; i > s; i--) {
            if (i < e - 1) {
                starsolve_complex64_t f = ztri_sup(&A, i) * inv[i + 1 - s];
                bu = ztri_dia(&A, i) - f * ztri_sub(&A, i + 1);
                ga = -f * ga;
                du = b[i - s] - f * du;
            }
            inv[i - s] = 1 / bu; g[i - s] = ga; x[i - s] = du;
        }
        x[0] = xs; x[m - 1] = xe;
        for (int i = s + 1; i < e; i++)
            x[i - s] = (x[i - s] - ztri_sub(&A, i) * x[i - 1 - s] - g[i - s] * xe) * inv[i - s];
        /* the residual of every row (the neighbours' unknowns across the chunk's ends), b kept, x in its place */
        const starsolve_complex64_t before = a->c > 0 ? prev[2 + 2 * j] : 0, after = a->c + 1 < a->nchunks ? next[1 + 2 * j] : 0;
        double rmax = 0, bmax = 0;
        for (int i = s; i <= e; i++) {
            const starsolve_complex64_t xm = i > s ? x[i - 1 - s] : before, xn = i < e ? x[i + 1 - s] : after;
            const starsolve_complex64_t r = b[i - s] - ztri_sub(&A, i) * xm - ztri_dia(&A, i) * x[i - s] - ztri_sup(&A, i) * xn;
            const double rm = cabs(r), bm = cabs(b[i - s]);
            rmax = isnan(rm) ? INFINITY : fmax(rmax, rm);
            bmax = isnan(bm) ? INFINITY : fmax(bmax, bm);
        }
        memcpy(save + j * lds, b, (size_t)m * sizeof *b);
        memcpy(b, x, (size_t)m * sizeof *b);
        stat[2 * j] = rmax;
        stat[2 * j + 1] = bmax;
    }
}

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

/* ---- the chunk tasks (CPU workers alone) ---- */
static uint32_t footprint_tri_chunk(struct starpu_task *task)
{
    const struct ss_tri_chunk *a = task->cl_arg;
    return starpu_hash_crc32c_be((uint32_t)a->rows, starpu_hash_crc32c_be((uint32_t)a->nrhs, starpu_hash_crc32c_be((uint32_t)a->nchunks, 0)));
}
static struct starpu_perfmodel model_ztri_reduce = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_ztri_reduce",
                                                     .footprint = footprint_tri_chunk };
static struct starpu_perfmodel model_ztri_reduced = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_ztri_reduced",
                                                      .footprint = footprint_tri_chunk };
static struct starpu_perfmodel model_ztri_back = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_ztri_back",
                                                   .footprint = footprint_tri_chunk };
/* CPU only: with CUDA workers the tridiagonal path is one task (above) */
static struct starpu_codelet cl_ztri_reduce = { .where = STARPU_CPU, .cpu_funcs = { ztri_reduce_cpu }, .nbuffers = STARPU_VARIABLE_NBUFFERS,
                                                .model = &model_ztri_reduce, .name = "ztri_reduce", .callback_func = ss_trace_task_done };
static struct starpu_codelet cl_ztri_reduced = { .where = STARPU_CPU, .cpu_funcs = { ztri_reduced_cpu }, .nbuffers = STARPU_VARIABLE_NBUFFERS,
                                                 .model = &model_ztri_reduced, .name = "ztri_reduced", .callback_func = ss_trace_task_done };
static struct starpu_codelet cl_ztri_back = { .where = STARPU_CPU, .cpu_funcs = { ztri_back_cpu }, .nbuffers = STARPU_VARIABLE_NBUFFERS,
                                              .model = &model_ztri_back, .name = "ztri_back", .callback_func = ss_trace_task_done };

static void insert_chunk_task(struct starpu_codelet *cl, const struct ss_tri_chunk *args, struct starpu_data_descr *d, int nd, double flops)
{
    struct ss_tri_chunk *a = malloc(sizeof *a);   /* StarPU frees it with the task (STARPU_CL_ARGS) */
    STARPU_ASSERT_MSG(a, "starsolve: tridiagonal chunks: out of memory");
    *a = *args;
    int ret = ss_task_insert(cl, STARPU_CL_ARGS, a, sizeof *a, STARPU_DATA_MODE_ARRAY, d, nd, STARPU_EXECUTE_ON_WORKER, a->worker,
                             STARPU_NAME, cl->name, STARPU_FLOPS, SS_FLOP_SCALE * flops, 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert %s", cl->name);
}

void insert_ztri_reduce(const struct ss_tri_chunk *a, starpu_data_handle_t band, starpu_data_handle_t B, starpu_data_handle_t red)
{
    struct starpu_data_descr d[3] = { { band, STARPU_R }, { B, STARPU_R }, { red, STARPU_W } };
    if (!B)
        d[1] = d[2];
    insert_chunk_task(&cl_ztri_reduce, a, d, B ? 3 : 2, 8.0 * a->rows * (a->nrhs + 1));
}

void insert_ztri_reduced(const struct ss_tri_chunk *a, const starpu_data_handle_t *red, const starpu_data_handle_t *sol)
{
    struct starpu_data_descr *d = malloc(2 * (size_t)a->nchunks * sizeof *d);
    STARPU_ASSERT_MSG(d, "starsolve: tridiagonal chunks: out of memory");
    for (int c = 0; c < a->nchunks; c++) {
        d[c] = (struct starpu_data_descr){ red[c], STARPU_R };
        d[a->nchunks + c] = (struct starpu_data_descr){ sol[c], STARPU_W };
    }
    insert_chunk_task(&cl_ztri_reduced, a, d, 2 * a->nchunks, 16.0 * a->nchunks * (a->nrhs + 1));
    free(d);
}

void insert_ztri_back(const struct ss_tri_chunk *a, starpu_data_handle_t band, starpu_data_handle_t B, starpu_data_handle_t sol_prev,
                      starpu_data_handle_t sol, starpu_data_handle_t sol_next, starpu_data_handle_t save, starpu_data_handle_t stat,
                      starpu_data_handle_t scratch)
{
    struct starpu_data_descr d[8] = { { band, STARPU_R }, { B, STARPU_RW }, { sol_prev, STARPU_R }, { sol, STARPU_R }, { sol_next, STARPU_R },
                                      { save, STARPU_W }, { stat, STARPU_W }, { scratch, STARPU_SCRATCH } };
    insert_chunk_task(&cl_ztri_back, a, d, 8, 20.0 * a->rows * a->nrhs);
}
