/* The LU panel with partial pivoting when its tiles belong to several processes (StarPU-MPI).
 * insert_zgetrf_panel's task takes the whole tile column to one process and back at every
 * step. Here the column stays where it lives and the pivot search spreads over the processes
 * that hold it, as ScaLAPACK's pdgetf2 does: LAPACK's getf2, one column at a time.
 *   - a group task per process holding tiles of the column (zgetrf_panel_group): applies
 *     column c to its rows (the interchange, if its row was the pivot; the multipliers; the
 *     rank-1 update of the columns right of c), then searches column c + 1 in its rows and
 *     sends its candidate, the whole row (LAPACK swaps whole panel rows);
 *   - a pick task on the top tile's process (zgetrf_panel_pick): the first largest of the
 *     candidates (|re| + |im|, LAPACK's izamax) is the pivot; it swaps it into row c of the
 *     top tile and sends the pivot row and the displaced row c to the groups.
 * Rows are counted from the panel's first row; the top tile holds every pivot position
 * (npiv <= its rows). The pivot vector is LAPACK's, composed as the other panel's (pivots.h).
 * Per column two rounds of messages of one row: for an nb-wide panel 2 nb (P - 1) rows, where
 * the gathered panel moves its whole column twice. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "codelets.h"
#include "pivots.h"

/* a group's candidate for the next pivot: header, then its row (w entries) */
struct zpanel_candidate { double value; int row, pad; };   /* row -1: no row of the group can be a pivot */
/* the chosen pivot: header, then the new row c (w entries), then the old row c (w entries) */
struct zpanel_pivot { int row, zero, pad[2]; };

struct zpanel_group_args { int nb, w, npiv, col, count, rel[]; };   /* col: the column applied (-1: none); rel: the group's tiles */
struct zpanel_pick_args { int nb, w, npiv, col, offset, ngroups; starsolve_request_t *req; };

static inline double zpanel_abs1(starsolve_complex64_t x) { return fabs(creal(x)) + fabs(cimag(x)); }

/* buffers: [the pivot of column col (R), if col >= 0] the group's tiles (RW) [its candidate (W), if col + 1 < npiv] */
static void zgetrf_panel_group_cpu(void *buffers[], void *cl_arg)
{
    const struct zpanel_group_args *a = cl_arg;
    const int c = a->col, w = a->w, first_tile = c >= 0 ? 1 : 0;
    if (c >= 0) {
        const struct zpanel_pivot *pv = (const struct zpanel_pivot *)STARPU_VECTOR_GET_PTR(buffers[0]);
        const starsolve_complex64_t *u = (const starsolve_complex64_t *)(pv + 1), *old = u + w;
        for (int g = 0; g < a->count; g++) {
            void *tile = buffers[first_tile + g];
            starsolve_complex64_t *T = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(tile);
            int ld = SS_LD(tile), rows = SS_ROWS(tile), r0 = a->rel[g] * a->nb;
            /* the pivot row came from here: row c's old content takes its place (the pick task swaps inside the top tile) */
            if (!pv->zero && pv->row >= a->nb && pv->row >= r0 && pv->row < r0 + rows)
                for (int j = 0; j < w; j++)
                    T[(pv->row - r0) + (size_t)j * ld] = old[j];
            int lo = ss_max(0, c + 1 - r0);   /* the rows below row c */
            if (!pv->zero)
                for (int r = lo; r < rows; r++)
                    T[r + (size_t)c * ld] /= u[c];
            for (int j = c + 1; j < w; j++)
                for (int r = lo; r < rows; r++)
                    T[r + (size_t)j * ld] -= T[r + (size_t)c * ld] * u[j];
        }
    }
    if (c + 1 >= a->npiv)
        return;
    struct zpanel_candidate *cand = (struct zpanel_candidate *)STARPU_VECTOR_GET_PTR(buffers[first_tile + a->count]);
    starsolve_complex64_t *row = (starsolve_complex64_t *)(cand + 1);
    cand->row = -1;
    cand->value = 0;
    void *best_tile = NULL;
    int best_local = 0;
    for (int g = 0; g < a->count; g++) {   /* rows in increasing order: the first largest wins, as izamax */
        void *tile = buffers[first_tile + g];
        const starsolve_complex64_t *T = (const starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(tile);
        int rows = SS_ROWS(tile), r0 = a->rel[g] * a->nb;
        for (int r = ss_max(0, c + 1 - r0); r < rows; r++) {
            double v = zpanel_abs1(T[r + (size_t)(c + 1) * SS_LD(tile)]);
            if (cand->row < 0 || v > cand->value) {
                cand->value = v;
                cand->row = r0 + r;
                best_tile = tile;
                best_local = r;
            }
        }
    }
    if (best_tile)
        for (int j = 0; j < w; j++)
            row[j] = ((const starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(best_tile))[best_local + (size_t)j * SS_LD(best_tile)];
}

/* buffers: the top tile (RW), the pivot (W), the panel's pivot vector (RW), the ngroups candidates (R) */
static void zgetrf_panel_pick_cpu(void *buffers[], void *cl_arg)
{
    const struct zpanel_pick_args *a = cl_arg;
    const int c = a->col, w = a->w;
    starsolve_complex64_t *top = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[0]);
    int ld = SS_LD(buffers[0]);
    struct zpanel_pivot *pv = (struct zpanel_pivot *)STARPU_VECTOR_GET_PTR(buffers[1]);
    starsolve_complex64_t *u = (starsolve_complex64_t *)(pv + 1), *old = u + w;
    int *v = (int *)STARPU_VECTOR_GET_PTR(buffers[2]);
    const struct zpanel_candidate *best = NULL;
    for (int g = 0; g < a->ngroups; g++) {
        const struct zpanel_candidate *cand = (const struct zpanel_candidate *)STARPU_VECTOR_GET_PTR(buffers[3 + g]);
        if (cand->row >= 0 && (!best || cand->value > best->value || (cand->value == best->value && cand->row < best->row)))
            best = cand;
    }
    STARPU_ASSERT_MSG(best, "zgetrf_panel_pick: no candidate for column %d", c);
    pv->row = best->row;
    pv->zero = best->value == 0;   /* LAPACK: no interchange, no scaling, info */
    for (int j = 0; j < w; j++) {
        old[j] = top[c + (size_t)j * ld];
        u[j] = pv->zero ? old[j] : ((const starsolve_complex64_t *)(best + 1))[j];
    }
    if (!pv->zero && best->row != c) {
        for (int j = 0; j < w; j++)
            top[c + (size_t)j * ld] = u[j];
        if (best->row < a->nb)   /* the pivot row is in the top tile too */
            for (int j = 0; j < w; j++)
                top[best->row + (size_t)j * ld] = old[j];
    }
    ss_piv_ipiv(v)[c] = best->row + 1;
    if (pv->zero)
        ss_request_report(a->req, a->offset + c + 1);
    if (c == a->npiv - 1)
        ss_piv_finish_panel(v, a->npiv, a->offset);
}

static struct starpu_perfmodel model_zgetrf_panel_group = {
    .type = STARPU_REGRESSION_BASED,
    .size_base = ss_perfmodel_matrix_elements,
    .symbol = "starsolve_zgetrf_panel_group",
};
static struct starpu_perfmodel model_zgetrf_panel_pick = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "starsolve_zgetrf_panel_pick",
};

/* CPU only: one column's work on a few rows, where a GPU launch would cost more */
static struct starpu_codelet cl_zgetrf_panel_group = {
    .where = STARPU_CPU,
    .cpu_funcs = { zgetrf_panel_group_cpu },
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &model_zgetrf_panel_group,
    .name = "zgetrf_panel_group",
    .callback_func = ss_trace_task_done,
};
static struct starpu_codelet cl_zgetrf_panel_pick = {
    .where = STARPU_CPU,
    .cpu_funcs = { zgetrf_panel_pick_cpu },
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &model_zgetrf_panel_pick,
    .name = "zgetrf_panel_pick",
    .callback_func = ss_trace_task_done,
};

/* the group task of column col on group g (its tiles from the owner map) */
static void insert_group(const starsolve_desc_t *A, int k, const int *group_of, int g, int col, int npiv,
                         starpu_data_handle_t pivot, starpu_data_handle_t cand, struct starpu_data_descr *descr, int prio)
{
    const int ntiles = A->mt - k;
    struct zpanel_group_args *args = malloc(sizeof *args + (size_t)ntiles * sizeof(int));
    *args = (struct zpanel_group_args){ A->nb, ss_tile_cols(A, k), npiv, col, 0 };
    int n = 0, first = -1;
    if (col >= 0)
        descr[n++] = (struct starpu_data_descr){ pivot, STARPU_R };
    for (int t = 0; t < ntiles; t++)
        if (group_of[t] == g) {
            if (first < 0)
                first = t;
            args->rel[args->count++] = t;
            descr[n++] = (struct starpu_data_descr){ ss_tile(A, k + t, k), STARPU_RW };
        }
    if (col + 1 < npiv)
        descr[n++] = (struct starpu_data_descr){ cand, STARPU_W };
    int ret = ss_task_insert(&cl_zgetrf_panel_group,
                             STARPU_CL_ARGS, args, sizeof *args + (size_t)ntiles * sizeof(int),
                             STARPU_DATA_MODE_ARRAY, descr, n,
                             STARPU_PRIORITY, ss_priority(SS_BUCKET_PANEL, prio),
                             STARPU_EXECUTE_ON_DATA, ss_tile(A, k + first, k),
                             STARPU_NAME, "zgetrf_panel_group",
                             0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zgetrf_panel_group");
}

void insert_zgetrf_panel_distributed(const starsolve_desc_t *A, int k, starpu_data_handle_t ipiv, starsolve_request_t *req,
                                     int prio)
{
    const int ntiles = A->mt - k, w = ss_tile_cols(A, k), npiv = ss_min(ss_tile_rows(A, k), w);
    /* the groups: the owners of the column's tiles in order of first appearance (the top's first) */
    int *group_of = malloc((size_t)ntiles * sizeof *group_of);
    int ngroups = ss_tile_groups(A, k, A->mt, k, group_of);
    /* each group's candidate lives on its process, the pivot on the top's */
    starpu_data_handle_t *cand = malloc((size_t)ngroups * sizeof *cand);
    for (int g = 0; g < ngroups; g++) {
        int t = 0;
        while (group_of[t] != g)
            t++;
        cand[g] = ss_workspace_bytes(A, k + t, k, sizeof(struct zpanel_candidate) + (size_t)w * sizeof(starsolve_complex64_t));
    }
    starpu_data_handle_t pivot = ss_workspace_bytes(A, k, k, sizeof(struct zpanel_pivot) + 2 * (size_t)w * sizeof(starsolve_complex64_t));
    struct starpu_data_descr *descr = malloc((size_t)(ntiles + ngroups + 3) * sizeof *descr);
    for (int g = 0; g < ngroups; g++)
        insert_group(A, k, group_of, g, -1, npiv, pivot, cand[g], descr, prio);
    for (int c = 0; c < npiv; c++) {
        struct zpanel_pick_args *pick = malloc(sizeof *pick);
        *pick = (struct zpanel_pick_args){ A->nb, w, npiv, c, k * A->nb, ngroups, req };
        int n = 0;
        descr[n++] = (struct starpu_data_descr){ ss_tile(A, k, k), STARPU_RW };
        descr[n++] = (struct starpu_data_descr){ pivot, STARPU_W };
        descr[n++] = (struct starpu_data_descr){ ipiv, STARPU_RW };
        for (int g = 0; g < ngroups; g++)
            descr[n++] = (struct starpu_data_descr){ cand[g], STARPU_R };
        int ret = ss_task_insert(&cl_zgetrf_panel_pick,
                                 STARPU_CL_ARGS, pick, sizeof *pick,
                                 STARPU_DATA_MODE_ARRAY, descr, n,
                                 STARPU_PRIORITY, ss_priority(SS_BUCKET_PANEL, prio),
                                 STARPU_EXECUTE_ON_DATA, ss_tile(A, k, k),
                                 STARPU_NAME, "zgetrf_panel_pick",
                                 0);
        STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zgetrf_panel_pick");
        for (int g = 0; g < ngroups; g++)
            insert_group(A, k, group_of, g, c, npiv, pivot, cand[g], descr, prio);
    }
    for (int g = 0; g < ngroups; g++)
        ss_workspace_release(cand[g]);
    ss_workspace_release(pivot);
    free(descr);
    free(cand);
    free(group_of);
}
