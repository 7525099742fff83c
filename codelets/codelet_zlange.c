/* Norms for the RBT solver's stopping criterion:
 *  - row sums of |a_ij| over a row of tiles: the pieces of ||A||_inf =
 *    max_i sum_j |a_ij|. The tiles of one tile row go to one task, so each
 *    task owns its rows' sums. It runs on the cores while the GPUs factor:
 *    LAPACK's lange on the calling thread took longer than the factorization
 *    (3.5 s for 40000 on the H100 machine, bench/NOTES.md);
 *  - the largest of those row sums, ||A||_inf itself, as a running maximum over
 *    the row vectors (one small task a vector, in a chain): the RBT solver scales
 *    its augmentation diag(A, alpha I) by it (src/zgesv_rbt.c) before the
 *    butterflies run, so where A is augmented the row sums go first;
 *  - the largest |a_ij| of each column of a few tall tiles (residuals and
 *    iterates, n x nrhs): one task, so that the caller acquires one small
 *    vector instead of every tile (each acquire of a tile cost milliseconds).
 * They run on CPU workers whenever there are any (STARPU_EXECUTE_WHERE at the insert), so that they never take
 * a GPU's time from the factorization; their CUDA variants (codelets/cuda/lange.cu) serve a library started
 * with GPUs and no CPU worker, where the tasks had no worker at all: StarPU refused them (ENODEV) and
 * starpu_rbt -ncpus 0 -ngpus 1 aborted (bench/NOTES.md, session 49). */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include "codelets.h"

struct zlange_rowsums_args { int ntiles, row0; };

/* sums[i] += |a[i]|, i < m: one column of a tile, vectorized (codelets.h). Each row's sum still adds the
 * columns in order. */
static SS_SIMD_CLONES_AVX512 void add_abs_column(int m, const starsolve_complex64_t *a, double *sums)
{
#pragma omp simd
    for (int i = 0; i < m; i++)
        sums[i] += cabs(a[i]);
}

/* buffers[0..ntiles-1] the tiles of one tile row, buffers[ntiles] the vector of the sums of their rows
 * row0 .. row0 + (the vector's length) - 1 */
static void zlange_rowsums_cpu(void *buffers[], void *cl_arg)
{
    const struct zlange_rowsums_args *a = cl_arg;
    double *sums = (double *)STARPU_VECTOR_GET_PTR(buffers[a->ntiles]);
    int m = (int)STARPU_VECTOR_GET_NX(buffers[a->ntiles]);
    for (int i = 0; i < m; i++)
        sums[i] = 0;
    for (int t = 0; t < a->ntiles; t++) {
        const starsolve_complex64_t *A = (const starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[t]) + a->row0;
        size_t ld = SS_LD(buffers[t]);
        for (int j = 0; j < SS_COLS(buffers[t]); j++)
            add_abs_column(m, A + j * ld, sums);
    }
}

#ifdef STARSOLVE_USE_CUDA
/* entries are sizeof(double)-byte reals, two an entry in complex precisions */
static const int complex_entries = sizeof(starsolve_complex64_t) / sizeof(double) == 2;

static void zlange_rowsums_cuda(void *buffers[], void *cl_arg)
{
    const struct zlange_rowsums_args *a = cl_arg;
    double *sums = (double *)STARPU_VECTOR_GET_PTR(buffers[a->ntiles]);
    int m = (int)STARPU_VECTOR_GET_NX(buffers[a->ntiles]);
    cudaStream_t stream = ss_cuda_stream();
    SS_CUDA(cudaMemsetAsync(sums, 0, (size_t)m * sizeof *sums, stream));
    for (int t = 0; t < a->ntiles; t++)
        ss_cuda_abs_rowsums_add(sizeof(double), complex_entries, m, SS_COLS(buffers[t]),
                                (const starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[t]) + a->row0,
                                (size_t)SS_LD(buffers[t]), sums, stream);
}
#endif

static struct starpu_perfmodel model_zlange_rowsums = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "starsolve_zlange_rowsums",
};

static struct starpu_codelet cl_zlange_rowsums = {
    .where = SS_WHERE_CPU_CUDA,
    .cpu_funcs = { zlange_rowsums_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zlange_rowsums_cuda }, .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &model_zlange_rowsums,
    .name = "zlange_rowsums",
    .callback_func = ss_trace_task_done,
};

/* One task of cl on ntiles tiles read and one vector written (both codelets' buffer layout) */
static void insert_tiles_to_vector(struct starpu_codelet *cl, void *args, size_t args_size, int ntiles,
                                   const starpu_data_handle_t *tiles, starpu_data_handle_t out, int prio)
{
    struct starpu_data_descr *descr = malloc(((size_t)ntiles + 1) * sizeof *descr);
    for (int t = 0; t < ntiles; t++)
        descr[t] = (struct starpu_data_descr){ tiles[t], STARPU_R };
    descr[ntiles] = (struct starpu_data_descr){ out, STARPU_W };
    /* the cores when there are any (see the top of this file) */
    unsigned long long where = starpu_cpu_worker_get_count() > 0 ? STARPU_CPU : SS_WHERE_CPU_CUDA;
    int ret = ss_task_insert(cl, STARPU_CL_ARGS, args, args_size,
                                 STARPU_EXECUTE_WHERE, where,
                                 STARPU_DATA_MODE_ARRAY, descr, ntiles + 1,
                                 STARPU_PRIORITY, ss_priority(SS_BUCKET_OTHER, prio),
                                 STARPU_NAME, cl->name, 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert of a norm codelet");
    free(descr);
}

void insert_zlange_rowsums(int ntiles, const starpu_data_handle_t *tiles, int row0, starpu_data_handle_t sums, int prio)
{
    struct zlange_rowsums_args *a = malloc(sizeof *a);
    *a = (struct zlange_rowsums_args){ ntiles, row0 };
    insert_tiles_to_vector(&cl_zlange_rowsums, a, sizeof *a, ntiles, tiles, sums, prio);
}

struct zlange_colmax_args { int mt, nt, nb, nrows; };

/* buffers[0..mt*nt-1] the tiles (tile (i, j) at i + j * mt), buffers[mt*nt] the vector of column maxima */
static void zlange_colmax_cpu(void *buffers[], void *cl_arg)
{
    const struct zlange_colmax_args *a = cl_arg;
    int ntiles = a->mt * a->nt;
    double *out = (double *)STARPU_VECTOR_GET_PTR(buffers[ntiles]);
    int ncols = (int)STARPU_VECTOR_GET_NX(buffers[ntiles]);
    for (int c = 0; c < ncols; c++)
        out[c] = 0;
    for (int j = 0; j < a->nt; j++)
        for (int i = 0; i < a->mt; i++) {
            void *t = buffers[i + j * a->mt];
            const starsolve_complex64_t *A = (const starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(t);
            int rows = ss_min(SS_ROWS(t), a->nrows - i * a->nb);
            for (int c = 0; c < SS_COLS(t); c++) {
                double *o = &out[j * a->nb + c];
                for (int r = 0; r < rows; r++)
                    *o = ss_max_nan(*o, cabs(A[r + (size_t)c * SS_LD(t)]));
            }
        }
}

#ifdef STARSOLVE_USE_CUDA
static void zlange_colmax_cuda(void *buffers[], void *cl_arg)
{
    const struct zlange_colmax_args *a = cl_arg;
    int ntiles = a->mt * a->nt;
    double *out = (double *)STARPU_VECTOR_GET_PTR(buffers[ntiles]);
    int ncols = (int)STARPU_VECTOR_GET_NX(buffers[ntiles]);
    cudaStream_t stream = ss_cuda_stream();
    SS_CUDA(cudaMemsetAsync(out, 0, (size_t)ncols * sizeof *out, stream));
    for (int j = 0; j < a->nt; j++)
        for (int i = 0; i < a->mt; i++) {
            void *t = buffers[i + j * a->mt];
            ss_cuda_abs_colmax_join(sizeof(double), complex_entries, ss_min(SS_ROWS(t), a->nrows - i * a->nb), SS_COLS(t),
                                    (const void *)STARPU_MATRIX_GET_PTR(t), (size_t)SS_LD(t), out + (size_t)j * a->nb, stream);
        }
}
#endif

static struct starpu_perfmodel model_zlange_colmax = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "starsolve_zlange_colmax",
};

static struct starpu_codelet cl_zlange_colmax = {
    .where = SS_WHERE_CPU_CUDA,
    .cpu_funcs = { zlange_colmax_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zlange_colmax_cuda }, .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &model_zlange_colmax,
    .name = "zlange_colmax",
    .callback_func = ss_trace_task_done,
};

void insert_zlange_colmax(int mt, int nt, int nb, int nrows, const starpu_data_handle_t *tiles, starpu_data_handle_t out,
                          int prio)
{
    struct zlange_colmax_args *a = malloc(sizeof *a);
    *a = (struct zlange_colmax_args){ mt, nt, nb, nrows };
    insert_tiles_to_vector(&cl_zlange_colmax, a, sizeof *a, mt * nt, tiles, out, prio);
}

/* buffers[0] a vector of row sums, buffers[1] the running maximum (one real), both in main memory:
 * *anorm = max(*anorm, max_i sums[i]), a NaN, once met, stays (lange's norm of a matrix with a NaN is NaN).
 * The same host code serves a CUDA worker (no CPU worker): it only reads and writes main memory. */
static void zlange_rowsums_max_host(void *buffers[], void *cl_arg)
{
    (void)cl_arg;
    const double *sums = (const double *)STARPU_VECTOR_GET_PTR(buffers[0]);
    int m = (int)STARPU_VECTOR_GET_NX(buffers[0]);
    double *anorm = (double *)STARPU_VECTOR_GET_PTR(buffers[1]);
    for (int i = 0; i < m; i++)
        *anorm = ss_max_nan(*anorm, sums[i]);
}

static struct starpu_perfmodel model_zlange_rowsums_max = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "starsolve_zlange_rowsums_max",
};

static struct starpu_codelet cl_zlange_rowsums_max = {
    .where = SS_WHERE_CPU_CUDA,
    .cpu_funcs = { zlange_rowsums_max_host },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zlange_rowsums_max_host },
#endif
    .nbuffers = 2,
    .modes = { STARPU_R, STARPU_RW },
    .specific_nodes = 1,
    .nodes = { STARPU_SPECIFIC_NODE_CPU, STARPU_SPECIFIC_NODE_CPU },
    .model = &model_zlange_rowsums_max,
    .name = "zlange_rowsums_max",
    .callback_func = ss_trace_task_done,
};

void insert_zlange_rowsums_max(starpu_data_handle_t sums, starpu_data_handle_t anorm, int prio)
{
    /* the cores when there are any (see the top of this file) */
    unsigned long long where = starpu_cpu_worker_get_count() > 0 ? STARPU_CPU : SS_WHERE_CPU_CUDA;
    int ret = ss_task_insert(&cl_zlange_rowsums_max, STARPU_R, sums, STARPU_RW, anorm, STARPU_EXECUTE_WHERE, where,
                             STARPU_PRIORITY, ss_priority(SS_BUCKET_OTHER, prio), STARPU_NAME, "zlange_rowsums_max", 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zlange_rowsums_max");
}
