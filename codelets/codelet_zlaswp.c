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
    .type = STARPU_REGRESSION_BASED,   /* sizes vary within a factorization (ss_perfmodel_matrix_elements, internal.h) */
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

/* ---- One panel's interchanges on a column of tiles spread over processes (StarPU-MPI) ----
 * insert_zlaswp's task takes the whole column to one process and back: per step and column
 * the m - k nb rows travel twice, where the swaps move at most 2 npiv rows (bench/NOTES.md,
 * session 7: LU sent 17x the volume of a 2D block-cyclic factorization on 2 x 2). Here the
 * rows move where they live. In the composed permutation (pivots.h) a row below the first
 * npiv receives a row of the top tile, never one of another tile, and what leaves a lower tile
 * goes to the top tile. So each process owning tiles below the top one runs one task
 * (zlaswp_rows_out) that reads the top tile, copies its rows bound for the top into an exchange
 * tile X (row w of X: what row w of the top receives) and writes the top rows its tiles receive;
 * then the top tile's owner (zlaswp_rows_in) assembles the top from itself and the X tiles.
 * What travels: the top tile to each other process of the column, and an X back from each. */

struct zlaswp_out_args { int nb, count, rel[]; };              /* rel: the group's tiles, counted from the top */
struct zlaswp_in_args { int nb, ntiles, ngroups, group_of[]; }; /* group_of[t]: whose X holds tile t's rows (-1: the top) */

/* which of a group's tiles holds row `row` of the column (local: tile -> index in the group, -1 if none) */
static int local_tile(const int *local, int span, int nb, int row)
{
    return row / nb < span ? local[row / nb] : -1;
}

/* buffers: the pivot vector, the top tile (R), the group's count tiles (RW), X (W) */
static void zlaswp_rows_out_cpu(void *buffers[], void *cl_arg)
{
    const struct zlaswp_out_args *a = cl_arg;
    int *v = (int *)STARPU_VECTOR_GET_PTR(buffers[0]);
    const int *moved = ss_piv_moved(v), *from = ss_piv_from(v);
    const starsolve_complex64_t *top = (const starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[1]);
    void *const *tiles = buffers + 2;
    starsolve_complex64_t *X = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[2 + a->count]);
    int ldt = SS_LD(buffers[1]), ldx = SS_LD(buffers[2 + a->count]), ncols = SS_COLS(buffers[1]);
    /* local index of tile t of the column in this group, or -1 */
    int span = 0;
    for (int g = 0; g < a->count; g++)
        span = ss_max(span, a->rel[g] + 1);
    int *local = malloc((size_t)span * sizeof *local);
    for (int t = 0; t < span; t++)
        local[t] = -1;
    for (int g = 0; g < a->count; g++)
        local[a->rel[g]] = g;
    /* first what leaves (a row may leave and receive), then what arrives */
    for (int t = 0; t < v[1]; t++) {
        int w = moved[t], f = from[t], g = local_tile(local, span, a->nb, f);
        if (w < a->nb && f >= a->nb && g >= 0) {
            const starsolve_complex64_t *src = (const starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(tiles[g]) + f % a->nb;
            int lds = SS_LD(tiles[g]);
            for (int c = 0; c < ncols; c++)
                X[w + (size_t)c * ldx] = src[(size_t)c * lds];
        }
    }
    for (int t = 0; t < v[1]; t++) {
        int w = moved[t], f = from[t], g = w >= a->nb ? local_tile(local, span, a->nb, w) : -1;
        if (g < 0)
            continue;
        STARPU_ASSERT_MSG(f < a->nb, "zlaswp_rows_out: row %d receives row %d, not one of the top tile", w, f);
        starsolve_complex64_t *dst = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(tiles[g]) + w % a->nb;
        int ldd = SS_LD(tiles[g]);
        for (int c = 0; c < ncols; c++)
            dst[(size_t)c * ldd] = top[f + (size_t)c * ldt];
    }
    free(local);
}

/* buffers: the pivot vector, the top tile (RW), the ngroups X tiles (R) */
static void zlaswp_rows_in_cpu(void *buffers[], void *cl_arg)
{
    const struct zlaswp_in_args *a = cl_arg;
    int *v = (int *)STARPU_VECTOR_GET_PTR(buffers[0]);
    const int *moved = ss_piv_moved(v), *from = ss_piv_from(v);
    starsolve_complex64_t *top = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[1]);
    int ldt = SS_LD(buffers[1]), ncols = SS_COLS(buffers[1]);
    starsolve_complex64_t *tmp = malloc((size_t)v[1] * sizeof *tmp);
    for (int c = 0; c < ncols; c++) {   /* gather every arriving row's entry, then scatter */
        int n = 0;
        for (int t = 0; t < v[1]; t++) {
            int w = moved[t], f = from[t];
            if (w >= a->nb)
                continue;
            if (f < a->nb) {
                tmp[n++] = top[f + (size_t)c * ldt];
            } else {
                int g = a->group_of[f / a->nb];
                STARPU_ASSERT_MSG(f / a->nb < a->ntiles && g >= 0, "zlaswp_rows_in: row %d outside the column", f);
                void *x = buffers[2 + g];
                tmp[n++] = ((const starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(x))[w + (size_t)c * SS_LD(x)];
            }
        }
        n = 0;
        for (int t = 0; t < v[1]; t++)
            if (moved[t] < a->nb)
                top[moved[t] + (size_t)c * ldt] = tmp[n++];
    }
    free(tmp);
}

static struct starpu_perfmodel model_zlaswp_rows_out = {
    .type = STARPU_REGRESSION_BASED,
    .size_base = ss_perfmodel_matrix_elements,
    .symbol = "starsolve_zlaswp_rows_out",
};
static struct starpu_perfmodel model_zlaswp_rows_in = {
    .type = STARPU_REGRESSION_BASED,
    .size_base = ss_perfmodel_matrix_elements,
    .symbol = "starsolve_zlaswp_rows_in",
};

/* CPU only: a few rows per tile, where a GPU copy would cost more than the work */
static struct starpu_codelet cl_zlaswp_rows_out = {
    .where = STARPU_CPU,
    .cpu_funcs = { zlaswp_rows_out_cpu },
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &model_zlaswp_rows_out,
    .name = "zlaswp_rows_out",
    .callback_func = ss_trace_task_done,
};
static struct starpu_codelet cl_zlaswp_rows_in = {
    .where = STARPU_CPU,
    .cpu_funcs = { zlaswp_rows_in_cpu },
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &model_zlaswp_rows_in,
    .name = "zlaswp_rows_in",
    .callback_func = ss_trace_task_done,
};

void insert_zlaswp_distributed(const starsolve_desc_t *A, int k, int j, starpu_data_handle_t ipiv, int prio)
{
    const int ntiles = A->mt - k, nb = A->nb;
    starpu_data_handle_t top = ss_tile(A, k, j);
    /* the groups: the owners of tiles k+1.. in order of first appearance */
    struct zlaswp_in_args *in = malloc(sizeof *in + (size_t)ntiles * sizeof(int));
    *in = (struct zlaswp_in_args){ nb, ntiles, 0 };
    in->group_of[0] = -1;
    int ngroups = ss_tile_groups(A, k + 1, A->mt, j, in->group_of + 1);
    in->ngroups = ngroups;
    starpu_data_handle_t *X = malloc((size_t)ngroups * sizeof *X);
    struct starpu_data_descr *descr = malloc((size_t)(ntiles + ngroups + 2) * sizeof *descr);
    for (int g = 0; g < ngroups; g++) {
        struct zlaswp_out_args *out = malloc(sizeof *out + (size_t)ntiles * sizeof(int));
        int n = 0, first = -1;
        out->nb = nb;
        out->count = 0;
        descr[n++] = (struct starpu_data_descr){ ipiv, STARPU_R };
        descr[n++] = (struct starpu_data_descr){ top, STARPU_R };
        for (int t = 1; t < ntiles; t++)
            if (in->group_of[t] == g) {
                if (first < 0)
                    first = t;
                out->rel[out->count++] = t;
                descr[n++] = (struct starpu_data_descr){ ss_tile(A, k + t, j), STARPU_RW };
            }
        /* X: row w = what row w of the top receives from this group; on the group's process */
        X[g] = ss_workspace_tile(A, k + first, j, ss_tile_rows(A, k), ss_tile_cols(A, j));
        descr[n++] = (struct starpu_data_descr){ X[g], STARPU_W };
        int ret = ss_task_insert(&cl_zlaswp_rows_out,
                                 STARPU_CL_ARGS, out, sizeof *out + (size_t)ntiles * sizeof(int),
                                 STARPU_DATA_MODE_ARRAY, descr, n,
                                 STARPU_PRIORITY, ss_priority(SS_BUCKET_SOLVE, prio),
                                 STARPU_EXECUTE_ON_DATA, ss_tile(A, k + first, j),
                                 STARPU_NAME, "zlaswp_rows_out",
                                 0);
        STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zlaswp_rows_out");
    }
    int n = 0;
    descr[n++] = (struct starpu_data_descr){ ipiv, STARPU_R };
    descr[n++] = (struct starpu_data_descr){ top, STARPU_RW };
    for (int g = 0; g < ngroups; g++)
        descr[n++] = (struct starpu_data_descr){ X[g], STARPU_R };
    int ret = ss_task_insert(&cl_zlaswp_rows_in,
                             STARPU_CL_ARGS, in, sizeof *in + (size_t)ntiles * sizeof(int),
                             STARPU_DATA_MODE_ARRAY, descr, n,
                             STARPU_PRIORITY, ss_priority(SS_BUCKET_SOLVE, prio),
                             STARPU_EXECUTE_ON_DATA, top,
                             STARPU_NAME, "zlaswp_rows_in",
                             0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zlaswp_rows_in");
    for (int g = 0; g < ngroups; g++)
        ss_workspace_release(X[g]);
    free(X);
    free(descr);
}
