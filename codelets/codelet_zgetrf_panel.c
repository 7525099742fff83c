/* LU with partial pivoting of a whole panel: the column of tiles from the
 * diagonal down. The pivot of each column is searched in every tile row of the
 * panel (true partial pivoting), so the panel is one task: it gathers its tiles
 * into one tall matrix, factors it (CPU: LAPACKE getrf; CUDA: cuSOLVER getrf, or
 * our recursive panel over one-kernel leaves) and scatters the factors back.
 * ipiv receives global 1-based rows.
 * Optionally the panel also leaves the inverse of its unit lower triangle
 * L11 (the top npiv x npiv) in a tile of its own, so that the updates right
 * of it solve with L11 by a GEMM (codelet_zgetrf_update.c): cuBLAS's TRSM on
 * a 1024 tile runs several times slower than a GEMM of the same shape.
 * Optionally it also copies its factored tiles below the diagonal one into
 * tiles of their own, which the updates of this step read while the later
 * panels' swaps rewrite the panel's own tiles (pzgetrf.c, with GPUs). */
#include <complex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "codelets.h"
#include "pivots.h"

/* leaf: > 0 our GPU panel with leaves of this width, 0 cuSOLVER's getrf (starsolve_config_t.gpu_panel_leaf) */
struct zgetrf_panel_args { int ntiles, offset, leaf, with_inverse, with_copies; starsolve_request_t *req; };

/* buffers[0] is ipiv, the panel is buffers[1..ntiles], then the scratch
 * buffer (ss_zgetrf_panel_scratch_bytes; the CPU gathers a panel there too
 * unless its tiles are one block already), then (with_inverse) L11^-1, then
 * (with_copies) the copies of tiles 2..ntiles. */
static void **panel_copies(void *buffers[], const struct zgetrf_panel_args *a)
{
    return buffers + 2 + a->ntiles + a->with_inverse;
}
static int panel_rows(void *buffers[], int ntiles)
{
    int m = 0;
    for (int t = 0; t < ntiles; t++)
        m += SS_ROWS(buffers[1 + t]);
    return m;
}

/* Are the panel's tiles one column-major block already (tiles viewing a LAPACK
 * array)? Then getrf runs in place, with no gather and no scatter. */
static int panel_is_contiguous(void *buffers[], int ntiles)
{
    for (int t = 0; t + 1 < ntiles; t++)
        if (SS_LD(buffers[1 + t]) != SS_LD(buffers[2 + t])
            || STARPU_MATRIX_GET_PTR(buffers[1 + t]) + (size_t)SS_ROWS(buffers[1 + t]) * sizeof(starsolve_complex64_t)
               != STARPU_MATRIX_GET_PTR(buffers[2 + t]))
            return 0;
    return 1;
}

static void zgetrf_panel_cpu(void *buffers[], void *cl_arg)
{
    const struct zgetrf_panel_args *a = cl_arg;
    int m = panel_rows(buffers, a->ntiles), n = SS_COLS(buffers[1]);
    int *v = (int *)STARPU_VECTOR_GET_PTR(buffers[0]);
    int npiv = ss_min(m, n), info;
    int *ipiv = ss_piv_ipiv(v);
    if (panel_is_contiguous(buffers, a->ntiles)) {
        info = LAPACKE_zgetrf_work(LAPACK_COL_MAJOR, m, n, (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[1]),
                                   SS_LD(buffers[1]), ipiv);
    } else {
        starsolve_complex64_t *panel = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[1 + a->ntiles]);
        STARPU_ASSERT_MSG((size_t)m * n * sizeof *panel <= SS_SCRATCH_BYTES(buffers[1 + a->ntiles]),
                          "zgetrf_panel: a %d x %d panel does not fit the scratch buffer", m, n);
        cpu_zcopy_tile_column(a->ntiles, buffers + 1, n, panel, m, 0);
        info = LAPACKE_zgetrf_work(LAPACK_COL_MAJOR, m, n, panel, m, ipiv);
        cpu_zcopy_tile_column(a->ntiles, buffers + 1, n, panel, m, 1);
    }
    ss_piv_finish_panel(v, npiv, a->offset);
    if (info > 0)
        ss_request_report(a->req, a->offset + info);
    if (a->with_inverse) {
        void *linv = buffers[2 + a->ntiles];
        cpu_ztriangular_inverse('L', 'U', npiv, (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[1]), SS_LD(buffers[1]),
                                (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(linv), SS_LD(linv));
    }
    for (int t = 1; t < a->ntiles && a->with_copies; t++) {
        void *tile = buffers[1 + t], *copy = panel_copies(buffers, a)[t - 1];
        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', SS_ROWS(tile), n, (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(tile),
                            SS_LD(tile), (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(copy), SS_LD(copy));
    }
}

#ifdef STARSOLVE_USE_CUDA
/* Our LU of a whole panel (starsolve_config_t.gpu_panel_leaf > 0), after Toledo: factor the left
 * half, solve for U12, update A22 with one GEMM, factor the right half, recursively down to leaves of
 * at most `leaf` columns, each factored by one cooperative kernel (codelets/cuda/getrf_leaf.cu: a
 * grid barrier a column, where cuSOLVER's getrf runs several kernels a column). A leaf applies its
 * row interchanges to every other column of the panel P (m x ncols, ld m) itself, so there is no
 * swap pass here, and it writes its pivots as panel rows; *info gets the first zero pivot.
 * Measured on an H100 (bench/panel_cost, bench/NOTES.md session 18): as fast as cuSOLVER's getrf
 * on 40000 x 1024 (8.0 against 8.3 ms), slower on shorter panels (16384 rows 6.4 against 5.3 ms;
 * 4096 rows 5.9 against 3.6: about 5.5 us a column whatever the height), so it is not the default. */
struct panel_recursion {
    cublasHandle_t blas;
    cudaStream_t stream;
    void *work;
    int leaf, max_blocks;
    int *info;
};

static void getrf_recursive_leaves(const struct panel_recursion *r, cuDoubleComplex *P, int m, int ncols, int col,
                                   int n, int *ipiv)
{
    if (n <= r->leaf) {
        ss_cuda_zgetrf_leaf(P, m, m, ncols, col, n, ipiv, r->info, r->work, r->max_blocks, r->stream);
        return;
    }
    SS_CUBLAS_SCALAR const starsolve_complex64_t one = 1.0, mone = -1.0;
    int n1 = n / 2, n2 = n - n1;
    cuDoubleComplex *A = P + col + (size_t)col * m, *A12 = A + (size_t)n1 * m, *A21 = A + n1, *A22 = A12 + n1;
    getrf_recursive_leaves(r, P, m, ncols, col, n1, ipiv);
    SS_CUBLAS(cublasZtrsm(r->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT,
                          n1, n2, (const cuDoubleComplex *)&one, A, m, A12, m));
    SS_CUBLAS(cublasZgemm(r->blas, CUBLAS_OP_N, CUBLAS_OP_N, m - col - n1, n2, n1, (const cuDoubleComplex *)&mone,
                          A21, m, A12, m, (const cuDoubleComplex *)&one, A22, m));
    getrf_recursive_leaves(r, P, m, ncols, col + n1, n2, ipiv);
}

/* Our LU of the m x n panel P (GPU memory, ld m, m >= n) on stream (blas bound to it), leaves of leaf
 * columns (ss_cuda_getrf_leaf_width) on grids of at most max_blocks blocks (0: one per SM): ipiv gets
 * 1-based panel rows, *info (GPU memory) LAPACK's info; work: ss_cuda_getrf_leaf_work_bytes, 16-byte
 * aligned. Also called by bench/panel_cost. */
void ss_cuda_zgetrf_panel_leaves(cublasHandle_t blas, cudaStream_t stream, void *P, int m, int n, int leaf,
                                 int max_blocks, int *ipiv, int *info, void *work)
{
    struct panel_recursion rec = { .blas = blas, .stream = stream, .work = work, .leaf = leaf,
                                   .max_blocks = max_blocks, .info = info };
    SS_CUDA(cudaMemsetAsync(info, 0, sizeof(int), stream));
    getrf_recursive_leaves(&rec, P, m, n, 0, n, ipiv);
}

/* The scratch buffer: ints (the NaN flag, the info, two spare, the pivots,
 * one slot per panel row for composing the pivots; a multiple of 4 so that
 * what follows is 16-byte aligned), the gathered panel, then cuSOLVER's or
 * our leaves' workspace. */
static size_t panel_scratch_ints(int m, int npiv)
{
    return ((size_t)npiv + 4 + (size_t)m + 3) & ~(size_t)3;
}

/* Asynchronous: nothing here waits for the GPU; the worker goes on to queue the
 * next tasks (the updates of the lookahead column). */
static void zgetrf_panel_cuda(void *buffers[], void *cl_arg)
{
    const struct zgetrf_panel_args *a = cl_arg;
    ss_cuda_urgent_begin();   /* the panel is the critical path */
    cudaStream_t stream = ss_cuda_stream();
    int m = panel_rows(buffers, a->ntiles), n = SS_COLS(buffers[1]);
    int npiv = ss_min(m, n);
    size_t esz = sizeof(cuDoubleComplex), ints = panel_scratch_ints(m, npiv);
    size_t used = ints * sizeof(int) + (size_t)m * n * esz + 16, bytes = SS_SCRATCH_BYTES(buffers[1 + a->ntiles]);
    STARPU_ASSERT_MSG(used <= bytes, "zgetrf_panel: a %d x %d panel does not fit the scratch buffer", m, n);
    char *scratch = (char *)STARPU_VECTOR_GET_PTR(buffers[1 + a->ntiles]);
    int *dnan = (int *)scratch, *dinfo = dnan + 1, *dpiv = dnan + 4, *rowslot = dpiv + npiv;
    cuDoubleComplex *panel = (cuDoubleComplex *)(scratch + ints * sizeof(int));
    void *work = (void *)(((uintptr_t)(panel + (size_t)m * n) + 15) & ~(uintptr_t)15);
    size_t work_bytes = bytes - (size_t)((char *)work - scratch);
    int leaf = a->leaf > 0 && m >= n ? ss_cuda_getrf_leaf_width(esz, m, a->leaf, 0) : 0;
    if (leaf && work_bytes < ss_cuda_getrf_leaf_work_bytes(esz))
        leaf = 0;
    cuda_zcopy_tile_column(a->ntiles, buffers + 1, n, panel, m, 0, stream);
    /* cuSOLVER's getrf drops NaNs (a panel with one comes back NaN-free with
     * info 0); LAPACK lets them spread. So a panel that holds a NaN leaves
     * getrf all NaN, and the NaN reaches the trailing matrix and the solution.
     * The same rule covers our panel, which treats a column of NaNs as a zero one. */
    size_t reals = (size_t)m * n * (sizeof(starsolve_complex64_t) / sizeof(double));
    SS_CUDA(cudaMemsetAsync(dnan, 0, sizeof(int), stream));
    ss_cuda_find_nan(sizeof(double), reals, panel, dnan, stream);
    if (leaf) {
        ss_cuda_zgetrf_panel_leaves(ss_cublas_handle(), stream, panel, m, n, leaf, 0, dpiv, dinfo, work);
    } else {
        int lwork = 0;
        cusolverDnHandle_t h = ss_cusolver_handle();
        SS_CUSOLVER(cusolverDnZgetrf_bufferSize(h, m, n, panel, m, &lwork));
        STARPU_ASSERT_MSG((size_t)lwork * esz <= work_bytes, "zgetrf_panel: a %d x %d panel needs more workspace", m, n);
        SS_CUSOLVER(cusolverDnZgetrf(h, m, n, panel, m, work, dpiv, dinfo));
    }
    ss_cuda_fill_nan_if(sizeof(double), reals, panel, dnan, stream);
    cuda_zcopy_tile_column(a->ntiles, buffers + 1, n, panel, m, 1, stream);
    for (int t = 1, row = SS_ROWS(buffers[1]); t < a->ntiles && a->with_copies; row += SS_ROWS(buffers[1 + t]), t++) {
        void *copy = panel_copies(buffers, a)[t - 1];
        SS_CUDA(cudaMemcpy2DAsync((void *)STARPU_MATRIX_GET_PTR(copy), (size_t)SS_LD(copy) * esz, panel + row,
                                  (size_t)m * esz, SS_ROWS(copy) * esz, n, cudaMemcpyDeviceToDevice, stream));
    }
    if (a->with_inverse) {
        void *linv = buffers[2 + a->ntiles];
        cuda_ztriangular_inverse('L', 'U', npiv, panel, m, (void *)STARPU_MATRIX_GET_PTR(linv), SS_LD(linv));
    }
    /* the pivots stay on the GPU, composed there; the info goes to the host on the side stream */
    ss_cuda_finish_panel_pivots((int *)STARPU_VECTOR_GET_PTR(buffers[0]), dpiv, npiv, a->offset, rowslot, stream);
    ss_cuda_report_info_async(dinfo, a->offset, a->req, stream);
    ss_cuda_urgent_end();
}
#endif

size_t ss_zgetrf_workspace(int m, int n)
{
    int lwork = 0;
#ifdef STARSOLVE_USE_CUDA
    void *A;
    cusolverDnHandle_t h = ss_cusolver_query_begin(&A);
    if (h) {
        SS_CUSOLVER(cusolverDnZgetrf_bufferSize(h, m, n, A, m, &lwork));
        ss_cusolver_query_end();
    }
#else
    (void)m;
    (void)n;
#endif
    return (size_t)lwork;
}

size_t ss_zgetrf_panel_scratch_bytes(int m, int n)
{
    size_t bytes = (size_t)m * n * sizeof(starsolve_complex64_t);
#ifdef STARSOLVE_USE_CUDA
    if (starpu_cuda_worker_get_count() > 0) {
        size_t cusolver = ss_zgetrf_workspace(m, n) * sizeof(cuDoubleComplex);
        size_t leaves = ss_cuda_getrf_leaf_work_bytes(sizeof(cuDoubleComplex));
        bytes += panel_scratch_ints(m, ss_min(m, n)) * sizeof(int) + 16 + (cusolver > leaves ? cusolver : leaves);
    }
#endif
    return bytes;
}

static struct starpu_perfmodel model_zgetrf_panel = {
    .type = STARPU_REGRESSION_BASED,   /* sizes vary within a factorization (ss_perfmodel_matrix_elements, internal.h) */
    .size_base = ss_perfmodel_matrix_elements,
    .symbol = "starsolve_zgetrf_panel",
};

static struct starpu_codelet cl_zgetrf_panel = {
    .where = SS_WHERE_CPU_CUDA,
    .can_execute = ss_can_execute,
    .cpu_funcs = { zgetrf_panel_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zgetrf_panel_cuda },
    .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &model_zgetrf_panel,
    .name = "zgetrf_panel",
    .callback_func = ss_trace_task_done,
};

void insert_zgetrf_panel(int ntiles, const starpu_data_handle_t *tiles, starpu_data_handle_t ipiv,
                         starpu_data_handle_t linv, const starpu_data_handle_t *copies, starpu_data_handle_t scratch,
                         int offset, starsolve_request_t *req, int prio)
{
    struct zgetrf_panel_args *a = malloc(sizeof *a);
    int ncopies = copies ? ntiles - 1 : 0;
    *a = (struct zgetrf_panel_args){ ntiles, offset, ss_ctx.gpu_panel_leaf, linv != NULL, copies != NULL, req };
    int nbuffers = ntiles + 2 + (linv != NULL) + ncopies;
    struct starpu_data_descr *descr = malloc((size_t)nbuffers * sizeof *descr);
    descr[0] = (struct starpu_data_descr){ ipiv, STARPU_W };
    double m = 0, n = starpu_matrix_get_ny(tiles[0]);
    for (int t = 0; t < ntiles; t++) {
        descr[1 + t] = (struct starpu_data_descr){ tiles[t], STARPU_RW };
        m += starpu_matrix_get_nx(tiles[t]);
    }
    descr[1 + ntiles] = (struct starpu_data_descr){ scratch, STARPU_SCRATCH };
    if (linv)
        descr[2 + ntiles] = (struct starpu_data_descr){ linv, STARPU_W };
    for (int t = 0; t < ncopies; t++)
        descr[2 + ntiles + (linv != NULL) + t] = (struct starpu_data_descr){ copies[t], STARPU_W };
    int ret = ss_task_insert(&cl_zgetrf_panel,
                                 STARPU_CL_ARGS, a, sizeof *a,
                                 STARPU_DATA_MODE_ARRAY, descr, nbuffers,
                                 STARPU_PRIORITY, ss_priority(SS_BUCKET_PANEL, prio),
                                 /* its tiles belong to several processes (StarPU-MPI): run it where the first written one lives */
                                 STARPU_EXECUTE_ON_DATA, tiles[0],
                                 STARPU_NAME, "zgetrf_panel",
                                 STARPU_FLOPS, SS_FLOP_SCALE * ss_getrf_flops(m, n),
                                 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zgetrf_panel");
    free(descr);
}
