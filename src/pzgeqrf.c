/* Tile QR, A = Q R (PLASMA's tile algorithm with a flat tree).
 *
 * Why tiles and not LAPACK's panel + blocked update: every task touches one
 * to four nb x nb tiles, so the graph has O(nt^3) tasks of GEMM size that
 * StarPU spreads over CPU cores and GPUs, and the panel of step k overlaps the
 * updates of step k-1 (lookahead comes from the priorities, not from code).
 * The price is about 25% more flops in the updates (each carries its T).
 *
 * Step k: QR of the diagonal tile (geqrt); its reflectors update the rest of
 * tile row k (unmqr); then each tile below is annihilated against the
 * diagonal tile's R (tpqrt) and its reflectors update the pair of tile rows
 * (tpmqrt). The diagonal tile's reflectors are first copied to a padded
 * scratch tile (lacpy_v), so that the row updates read the copy while tpqrt
 * rewrites R in the tile itself. T (desc from starsolve_qr_workspace_create)
 * keeps one k x k triangular factor per tile of the lower trapezoid.
 *
 * With whole-column updates (GPUs: starsolve_config_t.update_tiles), LAPACK's
 * algorithm on tiles instead (pzgeqrf_panels below). On an H100 the tile
 * algorithm ran at 3.8 TF/s at n = 40000 (bench/NOTES.md): its tpqrt tasks
 * form a chain of mt - k tasks per step, each too small for the GPU, so the
 * critical path is O(mt nt) small tasks. */
#include <stdlib.h>
#include "algorithms.h"
#include "codelets.h"

/* Step k: Householder QR of the whole tile column k from the diagonal down
 * (one task: cuSOLVER geqrf and larft on the GPU), then, for each tile column
 * j right of it, one task applies the panel's block reflector to the column,
 * two tall GEMMs and a TRMM (codelet_zlarfb_tiles.c). Nothing rewrites a panel
 * after its step (no swaps, unlike LU), so the updates read the panel's tiles
 * in place, and row k of R and column k of V are final: they go home while
 * the factorization runs. T(k,k) keeps panel k's T. The critical path is the
 * nt panels; the priorities run panel k+1's column first (lookahead). */
static void pzgeqrf_panels(starsolve_desc_t *A, starsolve_desc_t *T)
{
    int mt = A->mt, nt = A->nt, kt = ss_min(mt, nt);
    starpu_data_handle_t *V = malloc((size_t)mt * sizeof *V), *C = malloc((size_t)mt * sizeof *C);
    starpu_data_handle_t panel_scratch = ss_scratch_buffer(ss_zgeqrf_panel_scratch_bytes(A->m, ss_min(A->nb, A->n)));
    starpu_data_handle_t update_scratch = ss_scratch_buffer(ss_zlarfb_tiles_scratch_bytes(A->nb));
    for (int k = 0; k < kt; k++) {
        for (int i = k; i < mt; i++)
            V[i - k] = ss_tile(A, i, k);
        insert_zgeqrf_panel(mt - k, V, ss_tile(T, k, k), panel_scratch, ss_prio_panel(nt, k));
        for (int j = k + 1; j < nt; j++) {
            for (int i = k; i < mt; i++)
                C[i - k] = ss_tile(A, i, j);
            insert_zlarfb_tiles('L', 'C', mt - k, V, ss_tile(T, k, k), C, update_scratch, ss_prio_update(nt, j));
        }
        for (int j = k; j < nt; j++)
            ss_tile_send_home(A, k, j);
        for (int i = k + 1; i < mt; i++)
            ss_tile_send_home(A, i, k);
    }
    ss_workspace_release(panel_scratch);
    ss_workspace_release(update_scratch);
    free(V);
    free(C);
}

/* The tile algorithm, as PLASMA (flat tree). */
static void pzgeqrf_tiles(starsolve_desc_t *A, starsolve_desc_t *T)
{
    int mt = A->mt, nt = A->nt, kt = ss_min(mt, nt);
    for (int k = 0; k < kt; k++) {
        int step = 3 * (kt - k);
        insert_zgeqrt(ss_tile(A, k, k), ss_tile(T, k, k), step + 3);
        if (k + 1 < nt) {
            int refl = ss_min(ss_tile_rows(A, k), ss_tile_cols(A, k));
            starpu_data_handle_t V = ss_workspace_tile(A, k, k, ss_tile_rows(A, k), refl);
            insert_zlacpy_v(ss_tile(A, k, k), V, step + 3);
            for (int j = k + 1; j < nt; j++)
                insert_zunmqr('L', 'C', V, ss_tile(T, k, k), ss_tile(A, k, j), j == k + 1 ? step + 2 : step);
            ss_workspace_release(V);
        }
        for (int i = k + 1; i < mt; i++) {
            insert_ztpqrt(ss_tile(A, k, k), ss_tile(A, i, k), ss_tile(T, i, k), step + 2);
            for (int j = k + 1; j < nt; j++)
                insert_ztpmqrt('L', 'C', ss_tile(A, i, k), ss_tile(T, i, k), ss_tile(A, k, j), ss_tile(A, i, j),
                               j == k + 1 ? step + 1 : step);
        }
    }
}

void pzgeqrf(starsolve_desc_t *A, starsolve_desc_t *T)
{
    /* A column task reads and writes whole tile columns: not under StarPU-MPI,
     * where they span processes, nor out of core, where they may not fit. */
    int panels = ss_ctx.update_tiles > 1 && !ss_ctx.mpi && !A->ooc && A->P * A->Q == 1;
    T->qr_algorithm = panels ? SS_QR_PANELS : SS_QR_TILES;
    if (panels)
        pzgeqrf_panels(A, T);
    else
        pzgeqrf_tiles(A, T);
}
