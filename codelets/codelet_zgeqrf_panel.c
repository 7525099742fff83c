/* Householder QR of a whole panel: the column of tiles from the diagonal down,
 * factored as one tall matrix, as LAPACK's geqrf factors its panels. R lands in
 * the diagonal tile's upper triangle, the reflectors V below it (unit diagonal
 * implied), and T, the triangular factor of the panel's block reflector
 * Q = I - V T V^H, in a tile of its own (the updates right of the panel and
 * unmqr multiply by it: codelet_zlarfb_tiles.c).
 * CPU: LAPACKE geqrt with one block (LAPACK's recursive geqrt3, level 3). Not the
 * tiles' ss_zgeqrt_one: on a 4096 x 256 panel it took 23.9 ms from one thread and
 * 49.1 from each of 16 against LAPACKE's 20.8 and 44.3 (bench/NOTES.md, session 45).
 * CUDA: cuSOLVER geqrf, then cuSOLVER larft (cuda_zgeqrt, codelet_zgeqrt.c),
 * on the urgent stream: the panel is the factorization's critical path (on the
 * worker's own stream instead, QR of order 40000 took as long, 3.54 against 3.56 s
 * on an H100: bench/NOTES.md). */
#include <complex.h>
#include <stdlib.h>
#include "codelets.h"

struct zgeqrf_panel_args { int ntiles; };

/* buffers: the panel's ntiles tiles, then T, then the scratch buffer (ss_zgeqrf_panel_scratch_bytes) */
static int panel_rows(void *buffers[], int ntiles)
{
    int m = 0;
    for (int t = 0; t < ntiles; t++)
        m += SS_ROWS(buffers[t]);
    return m;
}

static void zgeqrf_panel_cpu(void *buffers[], void *cl_arg)
{
    const struct zgeqrf_panel_args *a = cl_arg;
    int m = panel_rows(buffers, a->ntiles), n = SS_COLS(buffers[0]), k = ss_min(m, n);
    if (k == 0)
        return;
    void *T = buffers[a->ntiles], *scratch = buffers[a->ntiles + 1];
    starsolve_complex64_t *panel = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(scratch);
    STARPU_ASSERT_MSG((size_t)m * n * sizeof *panel <= SS_SCRATCH_BYTES(scratch),
                      "zgeqrf_panel: a %d x %d panel does not fit the scratch buffer", m, n);
    starsolve_complex64_t *work = malloc((size_t)k * n * sizeof *work);
    STARPU_ASSERT_MSG(work, "zgeqrf_panel: out of memory");
    cpu_zcopy_tile_column(a->ntiles, buffers, n, panel, m, 0);
    int info = LAPACKE_zgeqrt_work(LAPACK_COL_MAJOR, m, n, k, panel, m,
                                   (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(T), SS_LD(T), work);
    STARPU_ASSERT_MSG(info == 0, "LAPACKE_zgeqrt_work: info %d", info);
    cpu_zcopy_tile_column(a->ntiles, buffers, n, panel, m, 1);
    free(work);
}

#ifdef STARSOLVE_USE_CUDA
static void zgeqrf_panel_cuda(void *buffers[], void *cl_arg)
{
    const struct zgeqrf_panel_args *a = cl_arg;
    int m = panel_rows(buffers, a->ntiles), n = SS_COLS(buffers[0]);
    if (ss_min(m, n) == 0)
        return;
    void *T = buffers[a->ntiles], *scratch = buffers[a->ntiles + 1];
    void *panel = (void *)STARPU_VECTOR_GET_PTR(scratch);
    STARPU_ASSERT_MSG((size_t)m * n * sizeof(starsolve_complex64_t) <= SS_SCRATCH_BYTES(scratch),
                      "zgeqrf_panel: a %d x %d panel does not fit the scratch buffer", m, n);
    ss_cuda_urgent_begin();
    cudaStream_t stream = ss_cuda_stream();
    cuda_zcopy_tile_column(a->ntiles, buffers, n, panel, m, 0, stream);
    cuda_zgeqrt(m, n, panel, m, (void *)STARPU_MATRIX_GET_PTR(T), SS_LD(T));
    cuda_zcopy_tile_column(a->ntiles, buffers, n, panel, m, 1, stream);
    ss_cuda_urgent_end();
}
#endif

size_t ss_zgeqrf_panel_scratch_bytes(int m, int n)
{
    return (size_t)m * n * sizeof(starsolve_complex64_t);
}

static struct starpu_perfmodel model_zgeqrf_panel = {
    .type = STARPU_REGRESSION_BASED,   /* panels shrink along a factorization (ss_perfmodel_matrix_elements, internal.h) */
    .size_base = ss_perfmodel_matrix_elements,
    .symbol = "starsolve_zgeqrf_panel",
};

static struct starpu_codelet cl_zgeqrf_panel = {
    .where = SS_WHERE_CPU_CUDA,
    .can_execute = ss_can_execute,
    .cpu_funcs = { zgeqrf_panel_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zgeqrf_panel_cuda },
    .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &model_zgeqrf_panel,
    .name = "zgeqrf_panel",
    .callback_func = ss_trace_task_done,
};

void insert_zgeqrf_panel(int ntiles, const starpu_data_handle_t *tiles, starpu_data_handle_t T,
                         starpu_data_handle_t scratch, int prio)
{
    struct zgeqrf_panel_args *a = malloc(sizeof *a);
    *a = (struct zgeqrf_panel_args){ ntiles };
    int nbuffers = ntiles + 2;
    struct starpu_data_descr *descr = malloc((size_t)nbuffers * sizeof *descr);
    double m = 0, n = starpu_matrix_get_ny(tiles[0]);
    for (int t = 0; t < ntiles; t++) {
        descr[t] = (struct starpu_data_descr){ tiles[t], STARPU_RW };
        m += starpu_matrix_get_nx(tiles[t]);
    }
    descr[ntiles] = (struct starpu_data_descr){ T, STARPU_W };
    descr[ntiles + 1] = (struct starpu_data_descr){ scratch, STARPU_SCRATCH };
    double k = m < n ? m : n;
    /* geqrf's 2mnk - (m+n)k^2 + 2k^3/3, plus larft's ~mk^2 */
    double flops = 2.0 * m * n * k - (m + n) * k * k + 2.0 * k * k * k / 3.0 + m * k * k;
    int ret = ss_task_insert(&cl_zgeqrf_panel,
                                 STARPU_CL_ARGS, a, sizeof *a,
                                 STARPU_DATA_MODE_ARRAY, descr, nbuffers,
                                 STARPU_PRIORITY, ss_priority(SS_BUCKET_PANEL, prio),
                                 STARPU_NAME, "zgeqrf_panel",
                                 STARPU_FLOPS, SS_FLOP_SCALE * flops,
                                 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zgeqrf_panel");
    free(descr);
}
