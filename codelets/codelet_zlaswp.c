/* Row interchanges of one LU panel applied to a column of tiles that starts at
 * the panel's first row: all swaps of the panel in one task, since a swap can
 * move a row between any two tile rows. CPU: plain loop, CUDA: our kernel. */
#include <complex.h>
#include <stdlib.h>
#include "codelets.h"

struct zlaswp_args { int ntiles, nb, offset, forward; };

/* buffers[0] is ipiv (global 1-based rows), buffers[1..ntiles] the tiles. */
static void zlaswp_cpu(void *buffers[], void *cl_arg)
{
    const struct zlaswp_args *a = cl_arg;
    const int *ipiv = (const int *)STARPU_VECTOR_GET_PTR(buffers[0]);
    int npiv = (int)STARPU_VECTOR_GET_NX(buffers[0]);
    int ncols = SS_COLS(buffers[1]);
    for (int s = 0; s < npiv; s++) {
        int i = a->forward ? s : npiv - 1 - s;
        int p = ipiv[i] - 1 - a->offset;       /* row of the column of tiles that row i swaps with */
        if (p == i)
            continue;
        starsolve_complex64_t *ti = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[1 + i / a->nb]);
        starsolve_complex64_t *tp = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[1 + p / a->nb]);
        size_t ldi = SS_LD(buffers[1 + i / a->nb]), ldp = SS_LD(buffers[1 + p / a->nb]);
        ti += i % a->nb;
        tp += p % a->nb;
        for (int c = 0; c < ncols; c++) {
            starsolve_complex64_t tmp = ti[c * ldi];
            ti[c * ldi] = tp[c * ldp];
            tp[c * ldp] = tmp;
        }
    }
}

#ifdef STARSOLVE_USE_CUDA
static void zlaswp_cuda(void *buffers[], void *cl_arg)
{
    const struct zlaswp_args *a = cl_arg;
    void *tiles[a->ntiles];
    int ld[a->ntiles];
    for (int t = 0; t < a->ntiles; t++) {
        tiles[t] = (void *)STARPU_MATRIX_GET_PTR(buffers[1 + t]);
        ld[t] = SS_LD(buffers[1 + t]);
    }
    ss_cuda_laswp(sizeof(starsolve_complex64_t), SS_COLS(buffers[1]), a->ntiles, tiles, ld, a->nb,
                  (const int *)STARPU_VECTOR_GET_PTR(buffers[0]), (int)STARPU_VECTOR_GET_NX(buffers[0]),
                  a->offset, a->forward, starpu_cuda_get_local_stream());
}
#endif

static struct starpu_perfmodel model_zlaswp = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "starsolve_zlaswp",
};

static struct starpu_codelet cl_zlaswp = {
    .where = SS_WHERE_CPU_CUDA,
    .cpu_funcs = { zlaswp_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zlaswp_cuda },
    .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &model_zlaswp,
    .name = "zlaswp",
};

void insert_zlaswp(int ntiles, const starpu_data_handle_t *tiles, starpu_data_handle_t ipiv,
                   int offset, int forward, int prio)
{
    struct zlaswp_args *a = malloc(sizeof *a);
    *a = (struct zlaswp_args){ ntiles, (int)starpu_matrix_get_nx(tiles[0]), offset, forward };
    struct starpu_data_descr *descr = malloc((size_t)(ntiles + 1) * sizeof *descr);
    descr[0] = (struct starpu_data_descr){ ipiv, STARPU_R };
    for (int t = 0; t < ntiles; t++)
        descr[1 + t] = (struct starpu_data_descr){ tiles[t], STARPU_RW };
    int ret = starpu_task_insert(&cl_zlaswp,
                                 STARPU_CL_ARGS, a, sizeof *a,
                                 STARPU_DATA_MODE_ARRAY, descr, ntiles + 1,
                                 STARPU_PRIORITY, prio,
                                 STARPU_NAME, "zlaswp",
                                 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zlaswp");
    free(descr);
}
