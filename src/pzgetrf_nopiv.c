/* Right-looking tile LU without pivoting: the textbook tile loop (the GEMMs of
 * a tile column in one task or several: starsolve_config_t.update_tiles).
 * With whole-column updates (GPUs) the TRSM of U(k,j) and the GEMMs below it
 * are one task (codelet_zgetrf_update.c), which solves with the inverse of
 * L(k,k) that the diagonal tile's LU leaves; the TRSMs of the tiles below the
 * diagonal are one task as well, GEMMs with U(k,k)^-1 (codelet_ztrsm_column.c). */
#include <stdlib.h>
#include "algorithms.h"
#include "codelets.h"

void pzgetrf_nopiv(starsolve_desc_t *A, starsolve_request_t *req)
{
    const starsolve_complex64_t one = 1.0, mone = -1.0;
    int kt = ss_min(A->mt, A->nt);
    ss_desc_prefetch_gpu(A, 'A');
    starpu_data_handle_t scratch = ss_scratch_buffer(ss_zgetrf_nopiv_scratch_bytes(A->nb));
    starpu_data_handle_t *lcolumn = malloc((size_t)A->mt * sizeof *lcolumn);
    starpu_data_handle_t *column = malloc((size_t)A->mt * sizeof *column);
    int fused = ss_ctx.update_tiles > 1;
    starpu_data_handle_t update_scratch = fused ? ss_scratch_buffer(ss_zgetrf_update_scratch_bytes(A->nb, 0)) : NULL;
    int by_inverse = ss_panel_trsm_by_inverse();
    starpu_data_handle_t trsm_scratch = by_inverse ? ss_scratch_buffer(ss_ztrsm_column_scratch_bytes(A->nb)) : NULL;
    for (int k = 0; k < kt; k++) {
        int panel_prio = ss_prio_panel(A->nt, k);
        int npiv = ss_min(ss_tile_rows(A, k), ss_tile_cols(A, k));
        /* L(k,k)^-1 and U(k,k)^-1, one per step: the next diagonal tile writes its own while this step's tasks read them */
        starpu_data_handle_t linv = fused && k + 1 < A->nt ? ss_workspace_tile(A, k, k, npiv, npiv) : NULL;
        starpu_data_handle_t uinv = by_inverse && k + 1 < A->mt ? ss_workspace_tile(A, k, k, npiv, npiv) : NULL;
        insert_zgetrf_nopiv(ss_tile(A, k, k), linv, uinv, scratch, k * A->nb, req, panel_prio);
        for (int i = k + 1; i < A->mt; i++) {
            if (!uinv)
                insert_ztrsm_panel('R', 'U', 'N', 'N', one, ss_tile(A, k, k), ss_tile(A, i, k), panel_prio);
            lcolumn[i - k - 1] = ss_tile(A, i, k);
        }
        if (uinv) {   /* A(i,k) = A(i,k) U(k,k)^-1 */
            insert_ztrsm_column('R', 'N', A->mt - k - 1, lcolumn, uinv, trsm_scratch, panel_prio);
            ss_workspace_release(uinv);
        }
        for (int j = k + 1; j < A->nt; j++) {
            int prio = ss_prio_update(A->nt, j);
            for (int i = k; i < A->mt; i++)
                column[i - k] = ss_tile(A, i, j);
            if (fused) {
                insert_zgetrf_update(A->mt - k, column, lcolumn, linv, NULL, update_scratch, prio);
                continue;
            }
            insert_ztrsm('L', 'L', 'N', 'U', one, ss_tile(A, k, k), ss_tile(A, k, j), prio);
            /* A(i,j) -= L(i,k) U(k,j) for i > k */
            insert_zgemm_tiles('N', 'N', mone, ss_tile(A, k, j), 0, A->mt - k - 1, lcolumn, one, column + 1, prio);
        }
        if (linv)
            ss_workspace_release(linv);
        for (int i = k + 1; i < A->mt; i++)
            starpu_data_wont_use(ss_tile(A, i, k));
        /* row k of U and column k of L are final */
        for (int j = k; j < A->nt; j++)
            ss_tile_send_home(A, k, j);
        for (int i = k + 1; i < A->mt; i++)
            ss_tile_send_home(A, i, k);
    }
    ss_workspace_release(scratch);
    if (update_scratch)
        ss_workspace_release(update_scratch);
    if (trsm_scratch)
        ss_workspace_release(trsm_scratch);
    free(lcolumn);
    free(column);
}
