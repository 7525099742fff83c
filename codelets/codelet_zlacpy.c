/* Copies and fills of tiles for the QR algorithms:
 *  - lacpy_v: the Householder vectors of a factored tile as a plain matrix,
 *    ones on the diagonal and zeros above (so that applying them is GEMM, and
 *    so that the update tasks do not wait on tasks rewriting the tile's R);
 *  - laset: A = offdiag everywhere but the diagonal, which gets diag
 *    (forming Q starts from the identity);
 *  - lacpy_pad: a tile of a LAPACK array into a (larger) tile of an augmented
 *    matrix diag(A, I) (the RBT solver); lacpy_pad_upload the same from A's
 *    tile in main memory, uploaded by the task itself on a GPU;
 *  - laset_pad_diagonal: that identity's diagonal scaled to A's size, so that
 *    the matrix factored is diag(A, alpha I) (why: src/zgesv_rbt.c). */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include "codelets.h"

static void zlacpy_v_cpu(void *buffers[], void *cl_arg)
{
    (void)cl_arg;
    int m = SS_ROWS(buffers[1]), k = SS_COLS(buffers[1]);
    starsolve_complex64_t *V = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[1]);
    LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'L', m, k, (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[0]),
                        SS_LD(buffers[0]), V, SS_LD(buffers[1]));
    LAPACKE_zlaset_work(LAPACK_COL_MAJOR, 'U', m, k, 0.0, 1.0, V, SS_LD(buffers[1]));
}

#ifdef STARSOLVE_USE_CUDA
static void zlacpy_v_cuda(void *buffers[], void *cl_arg)
{
    (void)cl_arg;
    cudaStream_t stream = ss_cuda_stream();
    int m = SS_ROWS(buffers[1]), k = SS_COLS(buffers[1]);
    SS_CUBLAS_SCALAR const starsolve_complex64_t zero = 0.0, one = 1.0;
    void *V = (void *)STARPU_MATRIX_GET_PTR(buffers[1]);
    ss_cuda_lacpy('L', sizeof zero, m, k, (void *)STARPU_MATRIX_GET_PTR(buffers[0]), SS_LD(buffers[0]),
                  V, SS_LD(buffers[1]), stream);
    ss_cuda_laset('U', sizeof zero, m, k, &zero, &one, V, SS_LD(buffers[1]), stream);
}
#endif

static struct starpu_perfmodel model_zlacpy_v = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "starsolve_zlacpy_v",
};

static struct starpu_codelet cl_zlacpy_v = {
    .where = SS_WHERE_CPU_CUDA,
    .can_execute = ss_can_execute,
    .cpu_funcs = { zlacpy_v_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zlacpy_v_cuda },
    .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = 2,
    .modes = { STARPU_R, STARPU_W },
    .model = &model_zlacpy_v,
    .name = "zlacpy_v",
    .callback_func = ss_trace_task_done,
};

void insert_zlacpy_v(starpu_data_handle_t A, starpu_data_handle_t V, int prio)
{
    int ret = ss_task_insert(&cl_zlacpy_v, STARPU_R, A, STARPU_W, V, STARPU_PRIORITY, ss_priority(SS_BUCKET_OTHER, prio),
                                 STARPU_NAME, "zlacpy_v", 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zlacpy_v");
}

struct zlaset_args { SS_CUBLAS_SCALAR starsolve_complex64_t offdiag, diag; };

static void zlaset_cpu(void *buffers[], void *cl_arg)
{
    const struct zlaset_args *a = cl_arg;
    LAPACKE_zlaset_work(LAPACK_COL_MAJOR, 'A', SS_ROWS(buffers[0]), SS_COLS(buffers[0]), a->offdiag, a->diag,
                        (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[0]), SS_LD(buffers[0]));
}

#ifdef STARSOLVE_USE_CUDA
static void zlaset_cuda(void *buffers[], void *cl_arg)
{
    const struct zlaset_args *a = cl_arg;
    ss_cuda_laset('A', sizeof a->diag, SS_ROWS(buffers[0]), SS_COLS(buffers[0]), &a->offdiag, &a->diag,
                  (void *)STARPU_MATRIX_GET_PTR(buffers[0]), SS_LD(buffers[0]), ss_cuda_stream());
}
#endif

static struct starpu_perfmodel model_zlaset = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "starsolve_zlaset",
};

static struct starpu_codelet cl_zlaset = {
    .where = SS_WHERE_CPU_CUDA,
    .can_execute = ss_can_execute,
    .cpu_funcs = { zlaset_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zlaset_cuda },
    .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = 1,
    .modes = { STARPU_W },
    .model = &model_zlaset,
    .name = "zlaset",
    .callback_func = ss_trace_task_done,
};

void insert_zlaset(starsolve_complex64_t offdiag, starsolve_complex64_t diag, starpu_data_handle_t A, int prio)
{
    struct zlaset_args *a = malloc(sizeof *a);
    *a = (struct zlaset_args){ offdiag, diag };
    int ret = ss_task_insert(&cl_zlaset, STARPU_CL_ARGS, a, sizeof *a, STARPU_W, A, STARPU_PRIORITY, ss_priority(SS_BUCKET_OTHER, prio),
                                 STARPU_NAME, "zlaset", 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zlaset");
}

/* lacpy_pad: F = [A 0; 0 0] for a tile A smaller than (or as large as) the tile F,
 * with ones on F's diagonal from local index pad_from on (-1: none). The copy
 * of a LAPACK array into an augmented matrix diag(A, I), tile by tile. */
struct zlacpy_pad_args { int pad_from; };

static void zlacpy_pad_cpu(void *buffers[], void *cl_arg)
{
    const struct zlacpy_pad_args *a = cl_arg;
    int m = SS_ROWS(buffers[0]), n = SS_COLS(buffers[0]), fm = SS_ROWS(buffers[1]), fn = SS_COLS(buffers[1]);
    starsolve_complex64_t *F = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[1]);
    int ldf = SS_LD(buffers[1]);
    if (m < fm || n < fn)
        LAPACKE_zlaset_work(LAPACK_COL_MAJOR, 'A', fm, fn, 0.0, 0.0, F, ldf);
    LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', m, n, (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[0]),
                        SS_LD(buffers[0]), F, ldf);
    if (a->pad_from >= 0 && a->pad_from < ss_min(fm, fn))
        LAPACKE_zlaset_work(LAPACK_COL_MAJOR, 'A', fm - a->pad_from, fn - a->pad_from, 0.0, 1.0,
                            F + a->pad_from + (size_t)a->pad_from * ldf, ldf);
}

#ifdef STARSOLVE_USE_CUDA
/* kind: where A's tile is (device memory, or main memory for lacpy_pad_upload) */
static void lacpy_pad_cuda(void *buffers[], const struct zlacpy_pad_args *a, enum cudaMemcpyKind kind)
{
    cudaStream_t stream = ss_cuda_stream();
    int m = SS_ROWS(buffers[0]), n = SS_COLS(buffers[0]), fm = SS_ROWS(buffers[1]), fn = SS_COLS(buffers[1]);
    starsolve_complex64_t *F = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[1]);
    int ldf = SS_LD(buffers[1]);
    SS_CUBLAS_SCALAR const starsolve_complex64_t zero = 0.0, one = 1.0;
    if (m < fm || n < fn)
        ss_cuda_laset('A', sizeof zero, fm, fn, &zero, &zero, F, ldf, stream);
    SS_CUDA(cudaMemcpy2DAsync(F, (size_t)ldf * sizeof zero, (const void *)STARPU_MATRIX_GET_PTR(buffers[0]),
                              (size_t)SS_LD(buffers[0]) * sizeof zero, (size_t)m * sizeof zero, n, kind, stream));
    if (a->pad_from >= 0 && a->pad_from < ss_min(fm, fn))
        ss_cuda_laset('A', sizeof zero, fm - a->pad_from, fn - a->pad_from, &zero, &one,
                      F + a->pad_from + (size_t)a->pad_from * ldf, ldf, stream);
}

static void zlacpy_pad_cuda(void *buffers[], void *cl_arg)
{
    lacpy_pad_cuda(buffers, cl_arg, cudaMemcpyDeviceToDevice);
}

static void zlacpy_pad_upload_cuda(void *buffers[], void *cl_arg)
{
    lacpy_pad_cuda(buffers, cl_arg, cudaMemcpyHostToDevice);
}
#endif

static struct starpu_perfmodel model_zlacpy_pad = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "starsolve_zlacpy_pad",
};

static struct starpu_codelet cl_zlacpy_pad = {
    .where = SS_WHERE_CPU_CUDA,
    .can_execute = ss_can_execute,
    .cpu_funcs = { zlacpy_pad_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zlacpy_pad_cuda },
    .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = 2,
    .modes = { STARPU_R, STARPU_W },
    .model = &model_zlacpy_pad,
    .name = "zlacpy_pad",
    .callback_func = ss_trace_task_done,
};

/* one task of cl (lacpy_pad or lacpy_pad_upload) */
static void insert_lacpy_pad_task(struct starpu_codelet *cl, starpu_data_handle_t A, starpu_data_handle_t F,
                                  int pad_from, int prio)
{
    struct zlacpy_pad_args *a = malloc(sizeof *a);
    *a = (struct zlacpy_pad_args){ pad_from };
    int ret = ss_task_insert(cl, STARPU_CL_ARGS, a, sizeof *a, STARPU_R, A, STARPU_W, F,
                             STARPU_PRIORITY, ss_priority(SS_BUCKET_OTHER, prio), STARPU_NAME, cl->name, 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert %s", cl->name);
}

void insert_zlacpy_pad(starpu_data_handle_t A, starpu_data_handle_t F, int pad_from, int prio)
{
    insert_lacpy_pad_task(&cl_zlacpy_pad, A, F, pad_from, prio);
}

/* lacpy_pad_upload: the same, but A's tile is read where it lives in main memory
 * (pinned, its home), and on a GPU the task itself uploads it into F's tile.
 * Why: the RBT's second panel waits for all of A. At n = 20000 on an H100, A prefetched by
 * StarPU then copied on the GPU was all up after ~87 ms, by these tasks after ~79 ms and the
 * call ~5 ms shorter (bench/NOTES.md, session 31). On a GPU with several CUDA workers only the
 * last one runs them (ss_cuda_worker_uploads): spread over all, the uploads stopped while
 * every stream ran a 10 ms column update, and nothing was gained. */
static int zlacpy_pad_upload_can_execute(unsigned workerid, struct starpu_task *task, unsigned nimpl)
{
    if (starpu_worker_get_type((int)workerid) == STARPU_CUDA_WORKER)
        return ss_cuda_worker_uploads(workerid);
    return ss_can_execute(workerid, task, nimpl);
}

static struct starpu_perfmodel model_zlacpy_pad_upload = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "starsolve_zlacpy_pad_upload",
};

static struct starpu_codelet cl_zlacpy_pad_upload = {
    .where = SS_WHERE_CPU_CUDA,
    .can_execute = zlacpy_pad_upload_can_execute,
    .cpu_funcs = { zlacpy_pad_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zlacpy_pad_upload_cuda },
    .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = 2,
    .modes = { STARPU_R, STARPU_W },
    .specific_nodes = 1,
    .nodes = { STARPU_SPECIFIC_NODE_CPU, STARPU_SPECIFIC_NODE_LOCAL },
    .model = &model_zlacpy_pad_upload,
    .name = "zlacpy_pad_upload",
    .callback_func = ss_trace_task_done,
};

void insert_zlacpy_pad_upload(starpu_data_handle_t A, starpu_data_handle_t F, int pad_from, int prio)
{
    insert_lacpy_pad_task(&cl_zlacpy_pad_upload, A, F, pad_from, prio);
}

/* The diagonal of the augmentation diag(A, alpha I): alpha = ||A||_inf / n (the average row sum)
 * cut to a power of two, so that the solver does the same on A and on 2^k A; 1 where that is
 * no number (A zero, or with an Inf or NaN: the factorization reports it). */
static double rbt_pad_value(double anorm, int n)
{
    double average = anorm / n;
    if (!(average > 0) || isinf(average))
        return 1;
    return ldexp(1.0, ilogb(average));
}

struct zlaset_pad_diagonal_args { int pad_from, n; };

/* buffers[0] a diagonal tile of F, buffers[1] ||A||_inf (one real, main memory) */
static void zlaset_pad_diagonal_cpu(void *buffers[], void *cl_arg)
{
    const struct zlaset_pad_diagonal_args *a = cl_arg;
    starsolve_complex64_t *F = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[0]);
    const double alpha = rbt_pad_value(*(const double *)STARPU_VECTOR_GET_PTR(buffers[1]), a->n);
    int ldf = SS_LD(buffers[0]), order = ss_min(SS_ROWS(buffers[0]), SS_COLS(buffers[0]));
    for (int i = a->pad_from; i < order; i++)
        F[i + (size_t)i * ldf] = alpha;
}

#ifdef STARSOLVE_USE_CUDA
/* the pad's square holds the identity (lacpy_pad, laset): rewritten as alpha I */
static void zlaset_pad_diagonal_cuda(void *buffers[], void *cl_arg)
{
    const struct zlaset_pad_diagonal_args *a = cl_arg;
    starsolve_complex64_t *F = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[0]);
    SS_CUBLAS_SCALAR const starsolve_complex64_t zero = 0.0,
        alpha = rbt_pad_value(*(const double *)STARPU_VECTOR_GET_PTR(buffers[1]), a->n);
    int ldf = SS_LD(buffers[0]), fm = SS_ROWS(buffers[0]), fn = SS_COLS(buffers[0]);
    if (a->pad_from < ss_min(fm, fn))
        ss_cuda_laset('A', sizeof zero, fm - a->pad_from, fn - a->pad_from, &zero, &alpha,
                      F + a->pad_from + (size_t)a->pad_from * ldf, ldf, ss_cuda_stream());
}
#endif

static struct starpu_perfmodel model_zlaset_pad_diagonal = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "starsolve_zlaset_pad_diagonal",
};

static struct starpu_codelet cl_zlaset_pad_diagonal = {
    .where = SS_WHERE_CPU_CUDA,
    .can_execute = ss_can_execute,
    .cpu_funcs = { zlaset_pad_diagonal_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zlaset_pad_diagonal_cuda },
    .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = 2,
    .modes = { STARPU_RW, STARPU_R },
    .specific_nodes = 1,   /* the norm is read on the host: a kernel takes alpha by value */
    .nodes = { STARPU_SPECIFIC_NODE_LOCAL, STARPU_SPECIFIC_NODE_CPU },
    .model = &model_zlaset_pad_diagonal,
    .name = "zlaset_pad_diagonal",
    .callback_func = ss_trace_task_done,
};

void insert_zlaset_pad_diagonal(starpu_data_handle_t F, int pad_from, starpu_data_handle_t anorm, int n, int prio)
{
    struct zlaset_pad_diagonal_args *a = malloc(sizeof *a);
    *a = (struct zlaset_pad_diagonal_args){ pad_from, n };
    int ret = ss_task_insert(&cl_zlaset_pad_diagonal, STARPU_CL_ARGS, a, sizeof *a, STARPU_RW, F, STARPU_R, anorm,
                             STARPU_PRIORITY, ss_priority(SS_BUCKET_OTHER, prio), STARPU_NAME, "zlaset_pad_diagonal", 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zlaset_pad_diagonal");
}

/* A column of tiles (StarPU matrix interfaces, top to bottom, n columns each)
 * to one m x n column-major block of leading dimension ldb (to_tiles 0), or the
 * block back to the tiles (to_tiles 1): the panel codelets factor the column as
 * one tall matrix with LAPACK or cuSOLVER. */
void cpu_zcopy_tile_column(int ntiles, void *const *tiles, int n, starsolve_complex64_t *block, int ldb, int to_tiles)
{
    for (int t = 0, row = 0; t < ntiles; row += SS_ROWS(tiles[t]), t++) {
        starsolve_complex64_t *tile = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(tiles[t]);
        if (to_tiles)
            LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', SS_ROWS(tiles[t]), n, block + row, ldb, tile, SS_LD(tiles[t]));
        else
            LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', SS_ROWS(tiles[t]), n, tile, SS_LD(tiles[t]), block + row, ldb);
    }
}

#ifdef STARSOLVE_USE_CUDA
void cuda_zcopy_tile_column(int ntiles, void *const *tiles, int n, void *block, int ldb, int to_tiles,
                            cudaStream_t stream)
{
    size_t esz = sizeof(starsolve_complex64_t);
    for (int t = 0, row = 0; t < ntiles; row += SS_ROWS(tiles[t]), t++) {
        char *part = (char *)block + (size_t)row * esz, *tile = (char *)STARPU_MATRIX_GET_PTR(tiles[t]);
        size_t ldtile = (size_t)SS_LD(tiles[t]) * esz, rows = (size_t)SS_ROWS(tiles[t]) * esz;
        if (to_tiles)
            SS_CUDA(cudaMemcpy2DAsync(tile, ldtile, part, (size_t)ldb * esz, rows, n, cudaMemcpyDeviceToDevice, stream));
        else
            SS_CUDA(cudaMemcpy2DAsync(part, (size_t)ldb * esz, tile, ldtile, rows, n, cudaMemcpyDeviceToDevice, stream));
    }
}
#endif
