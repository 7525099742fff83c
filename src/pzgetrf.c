/* Tile LU with partial pivoting over the whole column, submitted right-looking
 * (in core) or left-looking (out of core: the same graph, see pzgetrf below).
 * Step k: the panel (tile column k from the diagonal down) is one task that
 * picks every pivot among all its rows; then, for each column j to its right,
 * one task applies the panel's swaps to the column, a TRSM makes U(k,j) and
 * GEMMs update the trailing tiles (one task per tile, or per column with GPUs:
 * starsolve_config_t.update_tiles). With whole-column updates (GPUs) the
 * swaps, the TRSM and the GEMMs of a column are one task instead
 * (codelet_zgetrf_update.c), which solves with the inverse of L(k,k) that
 * the panel leaves. The swaps of later panels go to the columns of L on their
 * left, so L comes out as LAPACK's getrf leaves it: without GPUs at the end,
 * in one pass per column; with GPUs or StarPU-MPI at each step (finish_step).
 * Under StarPU-MPI the panel and the swaps move rows between processes, not
 * whole tile columns (codelet_zgetrf_panel_dist.c, insert_zlaswp_distributed). */
#include <stdlib.h>
#include "algorithms.h"
#include "codelets.h"

/* What every step needs at hand: scratch buffers, the panels' L(k,k)^-1, two columns of handles. */
struct getrf_step {
    starsolve_desc_t *A;
    starsolve_pivots_t *piv;
    starsolve_request_t *req;
    int kt, fused;
    /* each panel's swaps go to L's columns on its left at its step (else at the end) */
    int swaps_per_step;
    /* the updates of step k read a copy of L(:,k) (GPUs, see submit_panel) */
    int copy_panel;
    starpu_data_handle_t panel_scratch, swap_scratch, update_scratch;
    starpu_data_handle_t *linv;       /* per panel: L(k,k)^-1 (whole-column updates only), else NULL */
    starpu_data_handle_t *column, *lcolumn;
    starpu_data_handle_t *lcopy;      /* the current step's copy of L(k+1:, k) (copy_panel) */
};

/* Under StarPU-MPI: do tiles k.. of column k belong to more than one process? Then the panel
 * searches its pivots where the rows live (insert_zgetrf_panel_distributed) rather than take
 * the column to one process and back. */
static int column_spans_processes(const starsolve_desc_t *A, int k)
{
    if (!ss_ctx.mpi || ss_ctx.mpi_gather_panel)   /* starsolve_config_t.mpi_gather_panel */
        return 0;
    for (int i = k + 1; i < A->mt; i++)
        if (A->owner(A, i, k) != A->owner(A, k, k))
            return 1;
    return 0;
}

/* Panel k: the pivots of tile column k from the diagonal down. */
static void submit_panel(struct getrf_step *s, int k)
{
    starsolve_desc_t *A = s->A;
    for (int i = k; i < A->mt; i++)
        s->column[i - k] = ss_tile(A, i, k);
    int npiv = ss_min(ss_tile_rows(A, k), ss_tile_cols(A, k));
    /* L(k,k)^-1, one per step: the next panel writes its own while this step's updates read it */
    s->linv[k] = s->fused && k + 1 < A->nt ? ss_workspace_tile(A, k, k, npiv, npiv) : NULL;
    /* With GPUs, L's tiles go home while the factorization runs: tile row i of L
     * is final once panel i's swaps reach it, so each panel's swaps go to L's
     * columns on its left at its step. Those swaps write L(:,k), which the
     * updates of step k read; column priorities run the right-most columns'
     * updates last, so the swaps (and every tile of L behind them) waited
     * for those reads until the end (bench/NOTES.md, session 8). The updates
     * read a copy of L(:,k) instead, which the panel leaves (a copy task of
     * its own put one more task between the panel and the next column's update). */
    int copies = s->copy_panel && k + 1 < A->mt;
    for (int i = k + 1; i < A->mt && copies; i++)
        s->lcopy[i - k - 1] = ss_workspace_tile(A, i, k, ss_tile_rows(A, i), ss_tile_cols(A, k));
    if (column_spans_processes(A, k)) {
        insert_zgetrf_panel_distributed(A, k, s->piv->panels[k], s->req, ss_prio_panel(A->nt, k));
        return;
    }
    insert_zgetrf_panel(A->mt - k, s->column, s->piv->panels[k], s->linv[k], copies ? s->lcopy : NULL,
                        s->panel_scratch, k * A->nb, s->req, ss_prio_panel(A->nt, k));
}

/* Panel k's interchanges on tile column j (rows k*nb on). Under StarPU-MPI the rows move
 * between the processes that hold them (insert_zlaswp_distributed); one task on the whole
 * column would take it to one process and back at every step. */
static void submit_swaps(struct getrf_step *s, int k, int j, int prio)
{
    starsolve_desc_t *A = s->A;
    if (ss_ctx.mpi && A->mt - k > 1) {
        insert_zlaswp_distributed(A, k, j, s->piv->panels[k], prio);
        return;
    }
    for (int i = k; i < A->mt; i++)
        s->column[i - k] = ss_tile(A, i, j);
    insert_zlaswp(A->mt - k, s->column, 1, &s->piv->panels[k], s->swap_scratch, k * A->nb, 1, prio);
}

/* Step k on tile column j > k: the panel's swaps, U(k,j), and A(i,j) -= L(i,k) U(k,j) below it. */
static void submit_update(struct getrf_step *s, int k, int j)
{
    const starsolve_complex64_t one = 1.0, mone = -1.0;
    starsolve_desc_t *A = s->A;
    int ntiles = A->mt - k, prio = ss_prio_update(A->nt, j);
    for (int i = k; i < A->mt; i++) {
        s->column[i - k] = ss_tile(A, i, j);
        if (i > k)
            s->lcolumn[i - k - 1] = s->copy_panel ? s->lcopy[i - k - 1] : ss_tile(A, i, k);
    }
    if (s->fused) {
        insert_zgetrf_update(ntiles, s->column, s->lcolumn, s->linv[k], 1, s->piv->panels[k], s->update_scratch, prio);
        return;
    }
    submit_swaps(s, k, j, prio);
    insert_ztrsm('L', 'L', 'N', 'U', one, ss_tile(A, k, k), ss_tile(A, k, j), prio);
    /* A(i,j) -= L(i,k) U(k,j) for i > k: column[1..] still holds A(k+1.., j) */
    insert_zgemm_tiles('N', 'N', mone, ss_tile(A, k, j), 0, ntiles - 1, s->lcolumn, one, s->column + 1, prio);
}

/* After panel k's last update: its workspace goes, its column of L is done for now. */
static void finish_step(struct getrf_step *s, int k)
{
    starsolve_desc_t *A = s->A;
    if (s->linv[k])
        ss_workspace_release(s->linv[k]);
    for (int i = k + 1; i < A->mt && s->copy_panel; i++)
        ss_workspace_release(s->lcopy[i - k - 1]);
    /* Let StarPU evict L(:,k) from a GPU that is short of memory: wont_use also
     * copies the tiles home at idle priority. In core with panel copies the GPU
     * keeps them, and later panels' swaps rewrite them before they go home for
     * good, so that copy is wasted (2.9 GB at n = 40000, against the matrix's
     * upload in the first steps; bench/NOTES.md, session 10). */
    for (int i = k + 1; i < A->mt && !s->copy_panel; i++)
        starpu_data_wont_use(ss_tile(A, i, k));
    /* row k of U is final (later swaps start below it) */
    for (int j = k; j < A->nt; j++)
        ss_tile_send_home(A, k, j);
    if (!s->swaps_per_step)
        return;
    /* Panel k's swaps on the columns of L on its left (rows k*nb on), as
     * LAPACK's getrf does; row k of L is final then (later panels swap rows
     * below it). Under StarPU-MPI, deferred to the end (one task per column
     * over several panels' pivots) a 2 x 2 grid never finished: a process
     * waited for a tile that no other one sent (StarPU 1.3.10; cause not found,
     * bench/NOTES.md). They go after the look-ahead: at column k's priority these k
     * short tasks ran first after each panel, one after the other on one worker,
     * while the next panel waited for column k + 1's update (trace at n = 40000,
     * bench/NOTES.md, session 18). */
    int swap_prio = s->copy_panel ? ss_prio_update(A->nt, k + 2) : 0;
    for (int j = 0; j < k; j++) {
        submit_swaps(s, k, j, swap_prio);
        ss_tile_send_home(A, k, j);
    }
}

/* Out of core: tile columns per slab, half the host memory StarPU may use
 * (STARPU_LIMIT_CPU_MEM, starsolve_config_t.host_memory_mb), at least one;
 * all of them when StarPU knows no limit. */
static int ooc_slab_columns(const starsolve_desc_t *A)
{
    starpu_ssize_t total = starpu_memory_get_total(STARPU_MAIN_RAM);
    size_t column = (size_t)A->m * A->nb * A->elemsize;
    if (total <= 0 || column == 0)
        return A->nt;
    size_t width = (size_t)total / 2 / column;
    return (int)ss_max(1, (int)ss_min((size_t)A->nt, width));
}

/* With GPUs, whether the per-step swaps with panel copies (submit_panel) fit: the
 * copies of L's columns live until the updates of their step ran, which column
 * priorities can hold back, so they may take up to half the matrix again on each
 * GPU. Past half of the smallest GPU's memory, the swaps wait for the end instead
 * (no copies; StarPU would otherwise evict tiles to make room for them). */
static int panel_copies_fit(const starsolve_desc_t *A)
{
    int cuda[STARPU_NMAXWORKERS];
    int count = starpu_worker_get_ids_by_type(STARPU_CUDA_WORKER, cuda, STARPU_NMAXWORKERS);
    if (count <= 0)
        return 0;
    double matrix = (double)A->m * A->n * A->elemsize;
    for (int w = 0; w < count; w++) {
        starpu_ssize_t total = starpu_memory_get_total(starpu_worker_get_memory_node(cuda[w]));
        if (total > 0 && matrix > 0.5 * (double)total)
            return 0;
    }
    return 1;
}

void pzgetrf(starsolve_desc_t *A, starsolve_pivots_t *piv, starsolve_request_t *req)
{
    /* under StarPU-MPI a whole-column update would gather the column on one process */
    int kt = ss_min(A->mt, A->nt), fused = ss_ctx.update_tiles > 1 && !ss_ctx.mpi;
    int copy_panel = !A->ooc && !ss_ctx.mpi && panel_copies_fit(A);
    ss_desc_prefetch_gpu(A, 'A');
    struct getrf_step s = {
        .A = A, .piv = piv, .req = req, .kt = kt, .fused = fused,
        .swaps_per_step = copy_panel || ss_ctx.mpi, .copy_panel = copy_panel,
        .lcopy = malloc((size_t)A->mt * sizeof(starpu_data_handle_t)),
        .panel_scratch = ss_scratch_buffer(ss_zgetrf_panel_scratch_bytes(A->m, ss_min(A->nb, A->n))),
        .swap_scratch = ss_scratch_buffer(ss_zlaswp_scratch_bytes(A->nb, A->nb)),
        .update_scratch = fused ? ss_scratch_buffer(ss_zgetrf_update_scratch_bytes(A->nb, 1)) : NULL,
        .linv = calloc((size_t)kt + 1, sizeof(starpu_data_handle_t)),
        .column = malloc((size_t)A->mt * sizeof(starpu_data_handle_t)),
        .lcolumn = malloc((size_t)A->mt * sizeof(starpu_data_handle_t)),
    };
    starpu_data_handle_t *column = s.column;
    if (!A->ooc) {
        /* right-looking: panel k, then its update of every column on the right */
        for (int k = 0; k < kt; k++) {
            submit_panel(&s, k);
            for (int j = k + 1; j < A->nt; j++)
                submit_update(&s, k, j);
            finish_step(&s, k);
        }
    } else {
        /* Out of core, left-looking by slabs: a slab of columns that fits in half of
         * the host memory StarPU may use takes the updates of every panel left of it,
         * panel by panel (each column of L read once for the whole slab), then is
         * factored left-looking inside. The graph is the same (each tile sees its
         * accesses in the same order); what changes is which tasks exist while
         * starsolve_init's window on submitted tasks (cfg.disk_swap) holds back the
         * rest: one slab, not the whole trailing matrix, is live at a time. */
        int width = ooc_slab_columns(A);
        for (int j0 = 0; j0 < A->nt; j0 += width) {
            int j1 = ss_min(j0 + width, A->nt);
            for (int k = 0; k < ss_min(j0, kt); k++)
                for (int j = j0; j < j1; j++)
                    submit_update(&s, k, j);
            for (int j = j0; j < j1; j++) {
                for (int k = j0; k < ss_min(j, kt); k++)
                    submit_update(&s, k, j);
                if (j < kt)
                    submit_panel(&s, j);
            }
        }
        for (int k = 0; k < kt; k++)
            finish_step(&s, k);
    }
    /* Without per-step swaps, off the critical path once all panels are done:
     * the swaps of the panels right of column j on the finished column j of L,
     * in one pass per column. */
    for (int j = 0; j < kt && !s.swaps_per_step; j++) {
        for (int i = j + 1; i < A->mt; i++)
            column[i - j - 1] = ss_tile(A, i, j);
        if (j + 1 < kt)
            insert_zlaswp(A->mt - j - 1, column, kt - j - 1, &piv->panels[j + 1], s.swap_scratch, (j + 1) * A->nb, 1, 0);
        for (int i = j + 1; i < A->mt; i++)
            ss_tile_send_home(A, i, j);
    }
    /* a tall matrix's rows of L below the last panel are final now */
    for (int i = kt; i < A->mt && s.swaps_per_step; i++)
        for (int j = 0; j < kt; j++)
            ss_tile_send_home(A, i, j);
    ss_workspace_release(s.panel_scratch);
    ss_workspace_release(s.swap_scratch);
    if (s.update_scratch)
        ss_workspace_release(s.update_scratch);
    free(s.linv);
    free(s.column);
    free(s.lcolumn);
    free(s.lcopy);
}
