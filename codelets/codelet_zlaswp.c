/* Row interchanges of one or more consecutive LU panels applied to a column of
 * tiles that starts at the first panel's first row. A swap can move a row
 * between any two tile rows, so the whole column of tiles is one task; several
 * panels in one task make one pass over the column instead of one per panel
 * (the left-hand columns of L at the end of getrf, B in getrs).
 * Each panel's swaps are applied as the permutation they compose (pivots.h):
 * gather the moved rows, scatter them to their places.
 * CPU: plain loops, CUDA: our kernels (codelets/cuda/laswp.cu). */
#include <complex.h>
#include <stdlib.h>
#include "codelets.h"
#include "pivots.h"

struct zlaswp_args { int ntiles, npanels, nb, offset, forward; };

/* buffers[0..npanels-1] are the panels' pivot vectors, then the ntiles tiles,
 * then a scratch buffer for the moved rows (GPU only: ss_zlaswp_scratch_bytes).
 * Panel p covers rows p*nb.. of the column of tiles. */
void cpu_zlaswp(int npanels, void *const *pivs, void *const *tiles, int nb, int forward)
{
    int ncols = SS_COLS(tiles[0]), total = 0;
    for (int p = 0; p < npanels; p++)
        total += ((int *)STARPU_VECTOR_GET_PTR(pivs[p]))[1];
    /* every moved row of every panel, in the order they apply: where to read, where to write */
    starsolve_complex64_t **src = malloc(2 * (size_t)total * sizeof *src), **dst = src + total;
    size_t *ld = malloc(2 * (size_t)total * sizeof *ld);
    int *count = malloc((size_t)npanels * sizeof *count), at = 0, widest = 1;
    for (int pp = 0; pp < npanels; pp++) {
        int p = forward ? pp : npanels - 1 - pp;
        int *v = (int *)STARPU_VECTOR_GET_PTR(pivs[p]);
        const int *moved = ss_piv_moved(v), *from = ss_piv_from(v);
        int base = p * nb;                        /* the panel's first row in the column of tiles */
        count[pp] = v[1];
        widest = ss_max(widest, v[1]);
        for (int j = 0; j < v[1]; j++, at++) {
            /* forward: row moved[j] receives row from[j]; backward undoes it */
            int r = base + (forward ? from[j] : moved[j]), w = base + (forward ? moved[j] : from[j]);
            src[at] = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(tiles[r / nb]) + r % nb;
            dst[at] = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(tiles[w / nb]) + w % nb;
            ld[2 * at] = SS_LD(tiles[r / nb]);
            ld[2 * at + 1] = SS_LD(tiles[w / nb]);
        }
    }
    starsolve_complex64_t *tmp = malloc((size_t)widest * sizeof *tmp);
    /* Column by column: one column of the tiles stays in cache while every
     * panel permutes it (row by row across all columns misses the cache on
     * each element: 2.2 ms instead of 0.9 ms for 4096 x 256 tiles, ld 4096). */
    for (size_t c = 0; c < (size_t)ncols; c++) {
        at = 0;
        for (int pp = 0; pp < npanels; pp++) {
            for (int j = 0; j < count[pp]; j++)
                tmp[j] = src[at + j][c * ld[2 * (at + j)]];
            for (int j = 0; j < count[pp]; j++)
                dst[at + j][c * ld[2 * (at + j) + 1]] = tmp[j];
            at += count[pp];
        }
    }
    free(tmp);
    free(count);
    free(src);
    free(ld);
}

static void zlaswp_cpu(void *buffers[], void *cl_arg)
{
    const struct zlaswp_args *a = cl_arg;
    cpu_zlaswp(a->npanels, buffers, buffers + a->npanels, a->nb, a->forward);
}

#ifdef STARSOLVE_USE_CUDA
/* On the urgent stream: the swaps are short and memory-bound, and behind the
 * other stream's batched GEMMs they waited for SMs (0.44 ms per swap task of
 * LU 40000 on an H100 instead of tens of microseconds) while holding their
 * own stream. */
static void zlaswp_cuda(void *buffers[], void *cl_arg)
{
    const struct zlaswp_args *a = cl_arg;
    void **tiles = buffers + a->npanels;
    void *tile_ptr[a->ntiles];
    int ld[a->ntiles];
    const int *piv[a->npanels];
    int npiv[a->npanels];
    for (int t = 0; t < a->ntiles; t++) {
        tile_ptr[t] = (void *)STARPU_MATRIX_GET_PTR(tiles[t]);
        ld[t] = SS_LD(tiles[t]);
    }
    int widest = 0;
    for (int p = 0; p < a->npanels; p++) {
        piv[p] = (const int *)STARPU_VECTOR_GET_PTR(buffers[p]);
        npiv[p] = (int)((STARPU_VECTOR_GET_NX(buffers[p]) - 2) / 5);   /* the vector holds ss_piv_ints(npiv) */
        widest = ss_max(widest, npiv[p]);
    }
    void *scratch = buffers[a->npanels + a->ntiles];
    STARPU_ASSERT_MSG(2 * (size_t)widest * SS_COLS(tiles[0]) * sizeof(starsolve_complex64_t) <= SS_SCRATCH_BYTES(scratch),
                      "zlaswp: %d pivots on %d columns do not fit the scratch buffer", widest, SS_COLS(tiles[0]));
    ss_cuda_urgent_begin();
    ss_cuda_laswp(sizeof(starsolve_complex64_t), SS_COLS(tiles[0]), a->ntiles, tile_ptr, ld, a->nb,
                  a->npanels, piv, npiv, a->forward, (void *)STARPU_VECTOR_GET_PTR(scratch),
                  ss_cuda_stream());
    ss_cuda_urgent_end();
}
#endif

static struct starpu_perfmodel model_zlaswp = {
    .type = STARPU_NL_REGRESSION_BASED,   /* sizes vary within a factorization (ss_perfmodel_matrix_elements) */
    .size_base = ss_perfmodel_matrix_elements,
    .symbol = "starsolve_zlaswp",
};

static struct starpu_codelet cl_zlaswp = {
    .where = SS_WHERE_CPU_CUDA,
    .can_execute = ss_can_execute,
    .cpu_funcs = { zlaswp_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zlaswp_cuda },
    .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &model_zlaswp,
    .name = "zlaswp",
    .callback_func = ss_trace_task_done,
};

size_t ss_zlaswp_scratch_bytes(int npiv, int ncols)
{
#ifdef STARSOLVE_USE_CUDA
    return 2 * (size_t)npiv * ncols * sizeof(starsolve_complex64_t);
#else
    (void)npiv;
    (void)ncols;
    return 0;
#endif
}

void insert_zlaswp(int ntiles, const starpu_data_handle_t *tiles, int npanels, const starpu_data_handle_t *ipivs,
                   starpu_data_handle_t scratch, int offset, int forward, int prio)
{
    struct zlaswp_args *a = malloc(sizeof *a);
    *a = (struct zlaswp_args){ ntiles, npanels, (int)starpu_matrix_get_nx(tiles[0]), offset, forward };
    struct starpu_data_descr *descr = malloc((size_t)(npanels + ntiles + 1) * sizeof *descr);
    for (int p = 0; p < npanels; p++)
        descr[p] = (struct starpu_data_descr){ ipivs[p], STARPU_R };
    for (int t = 0; t < ntiles; t++)
        descr[npanels + t] = (struct starpu_data_descr){ tiles[t], STARPU_RW };
    descr[npanels + ntiles] = (struct starpu_data_descr){ scratch, STARPU_SCRATCH };
    int ret = ss_task_insert(&cl_zlaswp,
                                 STARPU_CL_ARGS, a, sizeof *a,
                                 STARPU_DATA_MODE_ARRAY, descr, npanels + ntiles + 1,
                                 STARPU_PRIORITY, ss_priority(SS_BUCKET_SOLVE, prio),
                                 /* its tiles belong to several processes (StarPU-MPI): run it where the first written one lives */
                                 STARPU_EXECUTE_ON_DATA, tiles[0],
                                 STARPU_NAME, "zlaswp",
                                 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zlaswp");
    free(descr);
}
