/* Row interchanges of a tiled LU applied to the tile columns of B: panel by
 * panel in order (forward), or undone in reverse order (backward). */
#include <stdlib.h>
#include "algorithms.h"
#include "codelets.h"

void pzlaswp(const starsolve_pivots_t *piv, starsolve_desc_t *B, int forward)
{
    starpu_data_handle_t *column = malloc((size_t)B->mt * sizeof *column);
    for (int s = 0; s < piv->npanels; s++) {
        int k = forward ? s : piv->npanels - 1 - s;
        for (int j = 0; j < B->nt; j++) {
            for (int i = k; i < B->mt; i++)
                column[i - k] = ss_tile(B, i, j);
            insert_zlaswp(B->mt - k, column, piv->panels[k], k * piv->nb, forward, piv->npanels - s);
        }
    }
    free(column);
}
