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

/* The panel is buffers[1..ntiles]; buffers[0] is ipiv. */
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
        starsolve_complex64_t *panel = malloc((size_t)m * n * sizeof *panel);
        STARPU_ASSERT_MSG(panel, "zgetrf_panel: out of memory for a %d x %d panel", m, n);
        for (int t = 0, row = 0; t < a->ntiles; row += SS_ROWS(buffers[1 + t]), t++)
            LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', SS_ROWS(buffers[1 + t]), n,
                                (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[1 + t]), SS_LD(buffers[1 + t]),
                                panel + row, m);
        info = LAPACKE_zgetrf_work(LAPACK_COL_MAJOR, m, n, panel, m, ipiv);
        for (int t = 0, row = 0; t < a->ntiles; row += SS_ROWS(buffers[1 + t]), t++)
            LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', SS_ROWS(buffers[1 + t]), n, panel + row, m,
                                (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[1 + t]), SS_LD(buffers[1 + t]));
        free(panel);
    }
    ss_piv_finish_panel(v, npiv, a->offset);
    if (info > 0)
        ss_request_report(a->req, a->offset + info);
}

#ifdef STARSOLVE_USE_CUDA
/* Gather the panel's tiles into one m x n column-major block at panel (to_tiles
 * = 0) or scatter it back (to_tiles = 1); kind says where panel lives. */
static void copy_panel(void *buffers[], int ntiles, int m, int n, void *panel, int to_tiles,
                       enum cudaMemcpyKind kind, cudaStream_t stream)
{
    size_t esz = sizeof(starsolve_complex64_t);
    for (int t = 0, row = 0; t < ntiles; row += SS_ROWS(buffers[1 + t]), t++) {
        char *block = (char *)panel + (size_t)row * esz, *tile = (char *)STARPU_MATRIX_GET_PTR(buffers[1 + t]);
        size_t ldtile = (size_t)SS_LD(buffers[1 + t]) * esz, rows = SS_ROWS(buffers[1 + t]) * esz;
        if (to_tiles)
            SS_CUDA(cudaMemcpy2DAsync(tile, ldtile, block, (size_t)m * esz, rows, n, kind, stream));
        else
            SS_CUDA(cudaMemcpy2DAsync(block, (size_t)m * esz, tile, ldtile, rows, n, kind, stream));
    }
}

/* The rare path of a GPU panel that holds a NaN: copy its tiles to the host,
 * factor there with LAPACK (which lets the NaN spread like on CPU workers),
 * copy the factors back. Returns getrf's info; ipiv gets panel-local pivots. */
static int getrf_nan_panel_on_host(void *buffers[], int ntiles, int m, int n, int *ipiv, cudaStream_t stream)
{
    starsolve_complex64_t *panel = malloc((size_t)m * n * sizeof *panel);
    STARPU_ASSERT_MSG(panel, "zgetrf_panel: out of memory for a %d x %d panel", m, n);
    copy_panel(buffers, ntiles, m, n, panel, 0, cudaMemcpyDeviceToHost, stream);
    SS_CUDA(cudaStreamSynchronize(stream));
    int info = LAPACKE_zgetrf_work(LAPACK_COL_MAJOR, m, n, panel, m, ipiv);
    copy_panel(buffers, ntiles, m, n, panel, 1, cudaMemcpyHostToDevice, stream);
    SS_CUDA(cudaStreamSynchronize(stream));
    free(panel);
    return info;
}

static void zgetrf_panel_cuda(void *buffers[], void *cl_arg)
{
    const struct zgetrf_panel_args *a = cl_arg;
    cusolverDnHandle_t h = ss_cusolver_handle();
    cudaStream_t stream = starpu_cuda_get_local_stream();
    int m = panel_rows(buffers, a->ntiles), n = SS_COLS(buffers[1]), lwork = 0;
    int npiv = ss_min(m, n);
    size_t esz = sizeof(cuDoubleComplex);
    SS_CUSOLVER(cusolverDnZgetrf_bufferSize(h, m, n, (cuDoubleComplex *)STARPU_MATRIX_GET_PTR(buffers[1]), m, &lwork));
    /* device scratch: info and pivots (ints, padded to 16 bytes), the gathered panel, cuSOLVER's workspace */
    size_t ints = ((size_t)npiv + 8) & ~(size_t)3;
    char *dw = ss_cuda_dwork(ints * sizeof(int) + ((size_t)m * n + (size_t)lwork) * esz);
    int *dinfo = (int *)dw, *dpiv = dinfo + 4;
    cuDoubleComplex *panel = (cuDoubleComplex *)(dw + ints * sizeof(int));
    cuDoubleComplex *work = panel + (size_t)m * n;
    copy_panel(buffers, a->ntiles, m, n, panel, 0, cudaMemcpyDeviceToDevice, stream);
    /* cuSOLVER's getrf drops NaNs (a panel with one comes back NaN-free with
     * info 0); LAPACK lets them spread. dinfo[1] says whether the panel has one. */
    SS_CUDA(cudaMemsetAsync(dinfo + 1, 0, sizeof(int), stream));
    ss_cuda_find_nan(sizeof(double), (size_t)m * n * (sizeof(starsolve_complex64_t) / sizeof(double)), panel,
                     dinfo + 1, stream);
    SS_CUSOLVER(cusolverDnZgetrf(h, m, n, panel, m, work, dpiv, dinfo));
    /* info, the NaN flag and the pivots to the host, which adds the panel's
     * offset, composes the swaps into one permutation and sends the whole
     * pivot vector back */
    int *hw = ss_cuda_hwork((2 + ss_piv_ints(npiv)) * sizeof(int)), *v = hw + 2;
    SS_CUDA(cudaMemcpyAsync(hw, dinfo, 2 * sizeof(int), cudaMemcpyDeviceToHost, stream));
    SS_CUDA(cudaMemcpyAsync(ss_piv_ipiv(v), dpiv, (size_t)npiv * sizeof(int), cudaMemcpyDeviceToHost, stream));
    SS_CUDA(cudaStreamSynchronize(stream));
    int info = hw[0];
    if (hw[1])   /* the tiles still hold the panel as it was: factor it with LAPACK */
        info = getrf_nan_panel_on_host(buffers, a->ntiles, m, n, ss_piv_ipiv(v), stream);
    else
        copy_panel(buffers, a->ntiles, m, n, panel, 1, cudaMemcpyDeviceToDevice, stream);
    ss_piv_finish_panel(v, npiv, a->offset);
    SS_CUDA(cudaMemcpyAsync((void *)STARPU_VECTOR_GET_PTR(buffers[0]), v, ss_piv_ints(npiv) * sizeof(int),
                            cudaMemcpyHostToDevice, stream));
    SS_CUDA(cudaStreamSynchronize(stream));
    if (info > 0)
        ss_request_report(a->req, a->offset + info);
}
#endif

static struct starpu_perfmodel model_zgetrf_panel = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "starsolve_zgetrf_panel",
};

static struct starpu_codelet cl_zgetrf_panel = {
    .where = SS_WHERE_CPU_CUDA,
    .can_execute = ss_can_execute,
    .cpu_funcs = { zgetrf_panel_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zgetrf_panel_cuda },   /* synchronous: info and pivots pass through the host */
#endif
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &model_zgetrf_panel,
    .name = "zgetrf_panel",
};

void insert_zgetrf_panel(int ntiles, const starpu_data_handle_t *tiles, starpu_data_handle_t ipiv,
                         int offset, starsolve_request_t *req, int prio)
{
    struct zgetrf_panel_args *a = malloc(sizeof *a);
    *a = (struct zgetrf_panel_args){ ntiles, offset, req };
    struct starpu_data_descr *descr = malloc((size_t)(ntiles + 1) * sizeof *descr);
    descr[0] = (struct starpu_data_descr){ ipiv, STARPU_W };
    double m = 0, n = starpu_matrix_get_ny(tiles[0]);
    for (int t = 0; t < ntiles; t++) {
        descr[1 + t] = (struct starpu_data_descr){ tiles[t], STARPU_RW };
        m += starpu_matrix_get_nx(tiles[t]);
    }
    double k = m < n ? m : n;
    int ret = starpu_task_insert(&cl_zgetrf_panel,
                                 STARPU_CL_ARGS, a, sizeof *a,
                                 STARPU_DATA_MODE_ARRAY, descr, ntiles + 1,
                                 STARPU_PRIORITY, prio,
                                 STARPU_NAME, "zgetrf_panel",
                                 STARPU_FLOPS, SS_FLOP_SCALE * (m * n * k - (m + n) * k * k / 2.0 + k * k * k / 3.0),
                                 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zgetrf_panel");
    free(descr);
}
