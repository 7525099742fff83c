/* LU with partial pivoting of a whole panel: the column of tiles from the
 * diagonal down. The pivot of each column is searched in every tile row of the
 * panel (true partial pivoting), so the panel is one task: it gathers its tiles
 * into one tall matrix, factors it (CPU: LAPACKE getrf, CUDA: cuSOLVER getrf)
 * and scatters the factors back. ipiv receives global 1-based rows. */
#include <complex.h>
#include <stdlib.h>
#include <string.h>
#include "codelets.h"
#include "pivots.h"

struct zgetrf_panel_args { int ntiles, offset; starsolve_request_t *req; };

/* buffers[0] is ipiv, the panel is buffers[1..ntiles], then the scratch
 * buffer (ss_zgetrf_panel_scratch_bytes; the CPU gathers a panel there too
 * unless its tiles are one block already). */
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
        for (int t = 0, row = 0; t < a->ntiles; row += SS_ROWS(buffers[1 + t]), t++)
            LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', SS_ROWS(buffers[1 + t]), n,
                                (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[1 + t]), SS_LD(buffers[1 + t]),
                                panel + row, m);
        info = LAPACKE_zgetrf_work(LAPACK_COL_MAJOR, m, n, panel, m, ipiv);
        for (int t = 0, row = 0; t < a->ntiles; row += SS_ROWS(buffers[1 + t]), t++)
            LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', SS_ROWS(buffers[1 + t]), n, panel + row, m,
                                (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[1 + t]), SS_LD(buffers[1 + t]));
    }
    ss_piv_finish_panel(v, npiv, a->offset);
    if (info > 0)
        ss_request_report(a->req, a->offset + info);
}

#ifdef STARSOLVE_USE_CUDA
/* Gather the panel's tiles into one m x n column-major block in GPU memory
 * (to_tiles = 0) or scatter the block back (to_tiles = 1). */
static void copy_panel(void *buffers[], int ntiles, int m, int n, void *panel, int to_tiles, cudaStream_t stream)
{
    size_t esz = sizeof(starsolve_complex64_t);
    for (int t = 0, row = 0; t < ntiles; row += SS_ROWS(buffers[1 + t]), t++) {
        char *block = (char *)panel + (size_t)row * esz, *tile = (char *)STARPU_MATRIX_GET_PTR(buffers[1 + t]);
        size_t ldtile = (size_t)SS_LD(buffers[1 + t]) * esz, rows = SS_ROWS(buffers[1 + t]) * esz;
        if (to_tiles)
            SS_CUDA(cudaMemcpy2DAsync(tile, ldtile, block, (size_t)m * esz, rows, n, cudaMemcpyDeviceToDevice, stream));
        else
            SS_CUDA(cudaMemcpy2DAsync(block, (size_t)m * esz, tile, ldtile, rows, n, cudaMemcpyDeviceToDevice, stream));
    }
}

/* The GPU panel's results on their way through the host: info and the pivots
 * come from the GPU, the host makes the pivots global and composes them
 * (pivots.h, too branchy for a kernel), and the whole vector goes back. */
struct panel_results { int info, npiv, offset; starsolve_request_t *req; int v[]; };

static void CUDART_CB finish_panel_on_host(void *arg)
{
    struct panel_results *r = arg;
    ss_piv_finish_panel(r->v, r->npiv, r->offset);
    if (r->info > 0)
        ss_request_report(r->req, r->offset + r->info);
}

/* The scratch buffer: ints (info, the NaN flag, two spare, the pivots; a
 * multiple of 4 so that what follows is 16-byte aligned), the gathered panel,
 * cuSOLVER's workspace. */
static size_t panel_scratch_ints(int npiv) { return ((size_t)npiv + 4 + 3) & ~(size_t)3; }

/* Asynchronous: nothing here waits for the GPU. The host part of the pivots
 * and the info report run as a host function in stream order, and the worker
 * goes on to queue the next tasks (the updates of the lookahead column). */
static void zgetrf_panel_cuda(void *buffers[], void *cl_arg)
{
    const struct zgetrf_panel_args *a = cl_arg;
    cusolverDnHandle_t h = ss_cusolver_handle();
    cudaStream_t stream = starpu_cuda_get_local_stream();
    int m = panel_rows(buffers, a->ntiles), n = SS_COLS(buffers[1]), lwork = 0;
    int npiv = ss_min(m, n);
    size_t esz = sizeof(cuDoubleComplex), ints = panel_scratch_ints(npiv);
    char *scratch = (char *)STARPU_VECTOR_GET_PTR(buffers[1 + a->ntiles]);
    cuDoubleComplex *panel = (cuDoubleComplex *)(scratch + ints * sizeof(int));
    SS_CUSOLVER(cusolverDnZgetrf_bufferSize(h, m, n, panel, m, &lwork));
    STARPU_ASSERT_MSG(ints * sizeof(int) + ((size_t)m * n + (size_t)lwork) * esz <= SS_SCRATCH_BYTES(buffers[1 + a->ntiles]),
                      "zgetrf_panel: a %d x %d panel and its workspace do not fit the scratch buffer", m, n);
    int *dinfo = (int *)scratch, *dnan = dinfo + 1, *dpiv = dinfo + 4;
    cuDoubleComplex *work = panel + (size_t)m * n;
    copy_panel(buffers, a->ntiles, m, n, panel, 0, stream);
    /* cuSOLVER's getrf drops NaNs (a panel with one comes back NaN-free with
     * info 0); LAPACK lets them spread. So a panel that holds a NaN leaves
     * getrf all NaN, and the NaN reaches the trailing matrix and the solution. */
    size_t reals = (size_t)m * n * (sizeof(starsolve_complex64_t) / sizeof(double));
    SS_CUDA(cudaMemsetAsync(dnan, 0, sizeof(int), stream));
    ss_cuda_find_nan(sizeof(double), reals, panel, dnan, stream);
    SS_CUSOLVER(cusolverDnZgetrf(h, m, n, panel, m, work, dpiv, dinfo));
    ss_cuda_fill_nan_if(sizeof(double), reals, panel, dnan, stream);
    copy_panel(buffers, a->ntiles, m, n, panel, 1, stream);

    struct ss_staging *s = ss_cuda_staging(sizeof(struct panel_results) + ss_piv_ints(npiv) * sizeof(int));
    struct panel_results *r = s->host;
    r->npiv = npiv;
    r->offset = a->offset;
    r->req = a->req;
    SS_CUDA(cudaMemcpyAsync(&r->info, dinfo, sizeof(int), cudaMemcpyDeviceToHost, stream));
    SS_CUDA(cudaMemcpyAsync(ss_piv_ipiv(r->v), dpiv, (size_t)npiv * sizeof(int), cudaMemcpyDeviceToHost, stream));
    SS_CUDA(cudaLaunchHostFunc(stream, finish_panel_on_host, r));
    SS_CUDA(cudaMemcpyAsync((void *)STARPU_VECTOR_GET_PTR(buffers[0]), r->v, ss_piv_ints(npiv) * sizeof(int),
                            cudaMemcpyHostToDevice, stream));
    ss_cuda_staging_release(s, stream);
}
#endif

size_t ss_zgetrf_panel_scratch_bytes(int m, int n)
{
    size_t bytes = (size_t)m * n * sizeof(starsolve_complex64_t);
#ifdef STARSOLVE_USE_CUDA
    void *A;
    cusolverDnHandle_t h = ss_cusolver_query_begin(&A);
    if (h) {
        int lwork = 0;
        SS_CUSOLVER(cusolverDnZgetrf_bufferSize(h, m, n, A, m, &lwork));
        ss_cusolver_query_end();
        bytes += panel_scratch_ints(ss_min(m, n)) * sizeof(int) + (size_t)lwork * sizeof(cuDoubleComplex);
    }
#endif
    return bytes;
}

static struct starpu_perfmodel model_zgetrf_panel = {
    .type = STARPU_HISTORY_BASED,
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
};

void insert_zgetrf_panel(int ntiles, const starpu_data_handle_t *tiles, starpu_data_handle_t ipiv,
                         starpu_data_handle_t scratch, int offset, starsolve_request_t *req, int prio)
{
    struct zgetrf_panel_args *a = malloc(sizeof *a);
    *a = (struct zgetrf_panel_args){ ntiles, offset, req };
    struct starpu_data_descr *descr = malloc((size_t)(ntiles + 2) * sizeof *descr);
    descr[0] = (struct starpu_data_descr){ ipiv, STARPU_W };
    double m = 0, n = starpu_matrix_get_ny(tiles[0]);
    for (int t = 0; t < ntiles; t++) {
        descr[1 + t] = (struct starpu_data_descr){ tiles[t], STARPU_RW };
        m += starpu_matrix_get_nx(tiles[t]);
    }
    descr[1 + ntiles] = (struct starpu_data_descr){ scratch, STARPU_SCRATCH };
    double k = m < n ? m : n;
    int ret = starpu_task_insert(&cl_zgetrf_panel,
                                 STARPU_CL_ARGS, a, sizeof *a,
                                 STARPU_DATA_MODE_ARRAY, descr, ntiles + 2,
                                 STARPU_PRIORITY, prio,
                                 STARPU_NAME, "zgetrf_panel",
                                 STARPU_FLOPS, SS_FLOP_SCALE * (m * n * k - (m + n) * k * k / 2.0 + k * k * k / 3.0),
                                 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zgetrf_panel");
    free(descr);
}
