/* Row interchanges of a tiled LU applied to the tile columns of B: panel by
 * panel in order (forward), or undone in reverse order (backward). */
#include <stdlib.h>
#include "algorithms.h"
#include "codelets.h"

void pzlaswp(const starsolve_pivots_t *piv, starsolve_desc_t *B, int forward)
{
    /* every panel in one task per tile column of B: one pass over the column */
    starpu_data_handle_t *column = malloc((size_t)B->mt * sizeof *column);
    starpu_data_handle_t scratch = ss_scratch_buffer(ss_zlaswp_scratch_bytes(piv->nb, B->nb));
    for (int j = 0; j < B->nt; j++) {
        for (int i = 0; i < B->mt; i++)
            column[i] = ss_tile(B, i, j);
        insert_zlaswp(B->mt, column, piv->npanels, piv->panels, scratch, 0, forward, B->nt - j);
    }
    ss_workspace_release(scratch);
    free(column);
}
