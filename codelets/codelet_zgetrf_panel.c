/* LU with partial pivoting of a whole panel: the column of tiles from the
 * diagonal down. The pivot of each column is searched in every tile row of the
 * panel (true partial pivoting), so the panel is one task: it gathers its tiles
 * into one tall matrix, factors it (CPU: LAPACKE getrf, CUDA: cuSOLVER getrf)
 * and scatters the factors back. ipiv receives global 1-based rows.
 * Optionally the panel also leaves the inverse of its unit lower triangle
 * L11 (the top npiv x npiv) in a tile of its own, so that the updates right
 * of it solve with L11 by a GEMM (codelet_zgetrf_update.c): cuBLAS's TRSM on
 * a 1024 tile runs several times slower than a GEMM of the same shape.
 * Optionally it also copies its factored tiles below the diagonal one into
 * tiles of their own, which the updates of this step read while the later
 * panels' swaps rewrite the panel's own tiles (pzgetrf.c, with GPUs). */
#include <complex.h>
#include <stdlib.h>
#include <string.h>
#include "codelets.h"
#include "pivots.h"

/* leaf: the GPU variant's recursion width (starsolve_config_t.gpu_panel_leaf) */
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
/* Recursive LU of the m x n block A (m >= n) in GPU memory, after Toledo:
 * factor the left half, apply its swaps to the right half, solve for U12,
 * update A22 with one GEMM, factor A22's columns, apply their swaps to the
 * left half. Most flops land in GEMMs of depth n/2, n/4, ..., where cuSOLVER's
 * getrf on a whole tall panel runs its own narrow blocked updates (9 ms for
 * 16384 x 1024 on an H100, about 2 TF/s). Blocks of width <= leaf go to
 * cuSOLVER; leaf 0 sends the whole panel there (the default: with cuSOLVER's
 * own laswp, which applies the swaps one after the other, the recursion was
 * slower at n = 16384, 0.30 against 0.26 s; bench/NOTES.md). ipiv gets LAPACK's 1-based pivots relative to A's first row; each
 * leaf writes its info to the next entry of leaf_info and its first column to
 * leaf_col (host memory), in column order. */
#define SS_PANEL_MAX_LEAVES 64
struct panel_recursion {
    cusolverDnHandle_t solver;
    cublasHandle_t blas;
    cudaStream_t stream;
    cuDoubleComplex *work;
    size_t work_elems;
    int leaf, nleaves;
    int *leaf_info;                      /* GPU memory, SS_PANEL_MAX_LEAVES ints */
    int leaf_col[SS_PANEL_MAX_LEAVES];
};

static void getrf_recursive(struct panel_recursion *r, int m, int n, int col, cuDoubleComplex *A, int lda, int *ipiv)
{
    if (r->leaf <= 0 || n <= r->leaf || m < n || r->nleaves + 2 > SS_PANEL_MAX_LEAVES) {
        int lwork = 0;
        SS_CUSOLVER(cusolverDnZgetrf_bufferSize(r->solver, m, n, A, lda, &lwork));
        STARPU_ASSERT_MSG((size_t)lwork <= r->work_elems, "zgetrf_panel: a %d x %d leaf needs more workspace", m, n);
        r->leaf_col[r->nleaves] = col;
        SS_CUSOLVER(cusolverDnZgetrf(r->solver, m, n, A, lda, r->work, ipiv, r->leaf_info + r->nleaves));
        r->nleaves++;
        return;
    }
    SS_CUBLAS_SCALAR const starsolve_complex64_t one = 1.0, mone = -1.0;
    int n1 = n / 2, n2 = n - n1;
    cuDoubleComplex *A12 = A + (size_t)n1 * lda, *A21 = A + n1, *A22 = A12 + n1;
    getrf_recursive(r, m, n1, col, A, lda, ipiv);
    SS_CUSOLVER(cusolverDnZlaswp(r->solver, n2, A12, lda, 1, n1, ipiv, 1));
    SS_CUBLAS(cublasZtrsm(r->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT,
                          n1, n2, (const cuDoubleComplex *)&one, A, lda, A12, lda));
    SS_CUBLAS(cublasZgemm(r->blas, CUBLAS_OP_N, CUBLAS_OP_N, m - n1, n2, n1, (const cuDoubleComplex *)&mone, A21, lda,
                          A12, lda, (const cuDoubleComplex *)&one, A22, lda));
    getrf_recursive(r, m - n1, n2, col + n1, A22, lda, ipiv + n1);   /* m - n1 >= n2 since m >= n */
    SS_CUSOLVER(cusolverDnZlaswp(r->solver, n1, A21, lda, 1, n2, ipiv + n1, 1));
    ss_cuda_shift_pivots(ipiv + n1, n2, n1, r->stream);
}

/* The leaves' infos on their way to the host (on the side stream); the
 * pivots stay on the GPU, composed there (ss_cuda_finish_panel_pivots). */
struct panel_infos {
    int offset, nleaves;
    starsolve_request_t *req;
    int leaf_col[SS_PANEL_MAX_LEAVES], leaf_info[SS_PANEL_MAX_LEAVES];
};

static void CUDART_CB report_panel_info(void *arg)
{
    struct panel_infos *r = arg;
    for (int l = 0; l < r->nleaves; l++)   /* leaves in column order: the first zero pivot wins */
        if (r->leaf_info[l] > 0) {
            ss_request_report(r->req, r->offset + r->leaf_col[l] + r->leaf_info[l]);
            break;
        }
}

/* The scratch buffer: ints (the NaN flag, three spare, the leaves' infos, the
 * pivots, one slot per panel row for composing the pivots; a multiple of 4 so
 * that what follows is 16-byte aligned), the gathered panel, cuSOLVER's workspace. */
static size_t panel_scratch_ints(int m, int npiv)
{
    return ((size_t)npiv + 4 + SS_PANEL_MAX_LEAVES + (size_t)m + 3) & ~(size_t)3;
}

/* Asynchronous: nothing here waits for the GPU. The pivots are composed on the
 * GPU, the infos go to the host on the side stream, and the worker goes on to
 * queue the next tasks (the updates of the lookahead column). */
static void zgetrf_panel_cuda(void *buffers[], void *cl_arg)
{
    const struct zgetrf_panel_args *a = cl_arg;
    ss_cuda_urgent_begin();   /* the panel is the critical path */
    cusolverDnHandle_t h = ss_cusolver_handle();
    cudaStream_t stream = ss_cuda_stream();
    int m = panel_rows(buffers, a->ntiles), n = SS_COLS(buffers[1]);
    int npiv = ss_min(m, n);
    size_t esz = sizeof(cuDoubleComplex), ints = panel_scratch_ints(m, npiv);
    size_t used = ints * sizeof(int) + (size_t)m * n * esz, bytes = SS_SCRATCH_BYTES(buffers[1 + a->ntiles]);
    STARPU_ASSERT_MSG(used <= bytes, "zgetrf_panel: a %d x %d panel does not fit the scratch buffer", m, n);
    char *scratch = (char *)STARPU_VECTOR_GET_PTR(buffers[1 + a->ntiles]);
    int *dnan = (int *)scratch, *dinfo = dnan + 4, *dpiv = dinfo + SS_PANEL_MAX_LEAVES, *rowslot = dpiv + npiv;
    cuDoubleComplex *panel = (cuDoubleComplex *)(scratch + ints * sizeof(int));
    /* the rest is cuSOLVER's workspace: each getrf call checks that it fits */
    cuDoubleComplex *work = panel + (size_t)m * n;
    size_t work_elems = (bytes - used) / esz;
    cuda_zcopy_tile_column(a->ntiles, buffers + 1, n, panel, m, 0, stream);
    /* cuSOLVER's getrf drops NaNs (a panel with one comes back NaN-free with
     * info 0); LAPACK lets them spread. So a panel that holds a NaN leaves
     * getrf all NaN, and the NaN reaches the trailing matrix and the solution. */
    size_t reals = (size_t)m * n * (sizeof(starsolve_complex64_t) / sizeof(double));
    SS_CUDA(cudaMemsetAsync(dnan, 0, sizeof(int), stream));
    ss_cuda_find_nan(sizeof(double), reals, panel, dnan, stream);
    struct panel_recursion rec = { .solver = h, .blas = ss_cublas_handle(), .stream = stream,
                                   .work = work, .work_elems = work_elems, .leaf = a->leaf, .leaf_info = dinfo };
    getrf_recursive(&rec, m, n, 0, panel, m, dpiv);
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
    ss_cuda_finish_panel_pivots((int *)STARPU_VECTOR_GET_PTR(buffers[0]), dpiv, npiv, a->offset, rowslot, stream);

    struct ss_staging *s = ss_cuda_staging(sizeof(struct panel_infos));
    struct panel_infos *r = s->host;
    r->offset = a->offset;
    r->req = a->req;
    r->nleaves = rec.nleaves;
    memcpy(r->leaf_col, rec.leaf_col, sizeof r->leaf_col);
    ss_cuda_ints_to_host_async(s, r->leaf_info, dinfo, rec.nleaves, report_panel_info, stream);
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
    if (starpu_cuda_worker_get_count() > 0)
        bytes += panel_scratch_ints(m, ss_min(m, n)) * sizeof(int) + ss_zgetrf_workspace(m, n) * sizeof(cuDoubleComplex);
#endif
    return bytes;
}

static struct starpu_perfmodel model_zgetrf_panel = {
    .type = STARPU_NL_REGRESSION_BASED,   /* sizes vary within a factorization (ss_perfmodel_matrix_elements) */
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
    double k = m < n ? m : n;
    int ret = ss_task_insert(&cl_zgetrf_panel,
                                 STARPU_CL_ARGS, a, sizeof *a,
                                 STARPU_DATA_MODE_ARRAY, descr, nbuffers,
                                 STARPU_PRIORITY, ss_priority(SS_BUCKET_PANEL, prio),
                                 /* its tiles belong to several processes (StarPU-MPI): run it where the first written one lives */
                                 STARPU_EXECUTE_ON_DATA, tiles[0],
                                 STARPU_NAME, "zgetrf_panel",
                                 STARPU_FLOPS, SS_FLOP_SCALE * (m * n * k - (m + n) * k * k / 2.0 + k * k * k / 3.0),
                                 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zgetrf_panel");
    free(descr);
}
