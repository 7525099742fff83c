/* Right-looking tile LU with partial pivoting over the whole column.
 * Step k: the panel (tile column k from the diagonal down) is one task that
 * picks every pivot among all its rows; then, for each column j to its right,
 * one task applies the panel's swaps to the column, a TRSM makes U(k,j) and
 * GEMMs update the trailing tiles (one task per tile, or per column with GPUs:
 * starsolve_config_t.update_tiles). At the end the swaps of later panels go to
 * the columns of L on their left, so L comes out as LAPACK's getrf leaves it. */
#include <stdlib.h>
#include "algorithms.h"
#include "codelets.h"

void pzgetrf(starsolve_desc_t *A, starsolve_pivots_t *piv, starsolve_request_t *req)
{
    const starsolve_complex64_t one = 1.0, mone = -1.0;
    int kt = ss_min(A->mt, A->nt);
    starpu_data_handle_t *column = malloc((size_t)A->mt * sizeof *column);
    starpu_data_handle_t *lcolumn = malloc((size_t)A->mt * sizeof *lcolumn);
    starpu_data_handle_t panel_scratch = ss_scratch_buffer(ss_zgetrf_panel_scratch_bytes(A->m, ss_min(A->nb, A->n)));
    starpu_data_handle_t swap_scratch = ss_scratch_buffer(ss_zlaswp_scratch_bytes(A->nb, A->nb));

    for (int k = 0; k < kt; k++) {
        int ntiles = A->mt - k;
        for (int i = k; i < A->mt; i++)
            column[i - k] = ss_tile(A, i, k);
        insert_zgetrf_panel(ntiles, column, piv->panels[k], panel_scratch, k * A->nb, req, ss_prio_panel(A->nt, k));

        for (int j = k + 1; j < A->nt; j++) {
            int prio = ss_prio_update(A->nt, j);
            for (int i = k; i < A->mt; i++)
                column[i - k] = ss_tile(A, i, j);
            insert_zlaswp(ntiles, column, 1, &piv->panels[k], swap_scratch, k * A->nb, 1, prio);
            insert_ztrsm('L', 'L', 'N', 'U', one, ss_tile(A, k, k), ss_tile(A, k, j), prio);
            for (int i = k + 1; i < A->mt; i++)
                lcolumn[i - k - 1] = ss_tile(A, i, k);
            /* A(i,j) -= L(i,k) U(k,j) for i > k: column[1..] still holds A(k+1.., j) */
            insert_zgemm_tiles('N', 'N', mone, ss_tile(A, k, j), 0, ntiles - 1, lcolumn, one, column + 1, prio);
        }
        for (int i = k + 1; i < A->mt; i++)
            starpu_data_wont_use(ss_tile(A, i, k));
        /* row k of U is final (later swaps start below it); L's columns
         * still take the later panels' swaps at the end */
        for (int j = k; j < A->nt; j++)
            ss_tile_send_home(A, k, j);
    }
    /* Off the critical path, once all panels are done: the swaps of the panels
     * right of column j on the finished column j of L, in one pass per column.
     * Each column of L then goes home while the others are swapped (with GPUs, the
     * copies of L used to start only when the call waited for the tiles: 0.3 s
     * after the last task at n = 40000 on an H100). */
    for (int j = 0; j < kt; j++) {
        for (int i = j + 1; i < A->mt; i++)
            column[i - j - 1] = ss_tile(A, i, j);
        if (j + 1 < kt)
            insert_zlaswp(A->mt - j - 1, column, kt - j - 1, &piv->panels[j + 1], swap_scratch, (j + 1) * A->nb, 1, 0);
        for (int i = j + 1; i < A->mt; i++)
            ss_tile_send_home(A, i, j);
    }
    ss_workspace_release(panel_scratch);
    ss_workspace_release(swap_scratch);
    free(column);
    free(lcolumn);
}
