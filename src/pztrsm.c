/* Tile triangular solve on the left, B = op(A)^-1 B, with the uplo triangle of A.
 * op(A) is lower triangular when (uplo 'L', no transpose) or (uplo 'U', transposed):
 * then rows of B are solved top-down, otherwise bottom-up. */
#include <stdlib.h>
#include "algorithms.h"
#include "codelets.h"

void pztrsm(char uplo, char trans, char diag, const starsolve_desc_t *A, starsolve_desc_t *B)
{
    const starsolve_complex64_t one = 1.0, mone = -1.0;
    int nt = A->nt;
    int top_down = (uplo == 'L') == (trans == 'N');
    /* with whole-column updates (GPUs, one process), the GEMMs below (or above) a
     * diagonal tile go as one task per update_tiles tiles: a solve with few right-hand
     * sides is a chain of tile GEMVs of ~10 us each on a GPU, shorter than StarPU's cost
     * per task (RBT's refinement at n = 40000: 4680 such tasks, bench/NOTES.md) */
    starpu_data_handle_t *Acol = ss_column_tasks() ? malloc(2 * (size_t)nt * sizeof *Acol) : NULL;
    for (int s = 0; s < nt; s++) {
        int k = top_down ? s : nt - 1 - s;
        int prio = nt - s;
        int first = top_down ? k + 1 : 0, last = top_down ? nt : k;
        for (int j = 0; j < B->nt; j++) {
            insert_ztrsm('L', uplo, trans, diag, one, ss_tile(A, k, k), ss_tile(B, k, j), prio + 1);
            for (int i = first; i < last; i++) {
                starpu_data_handle_t Aik = trans == 'N' ? ss_tile(A, i, k) : ss_tile(A, k, i);
                if (Acol) {   /* gathered for one column task below */
                    Acol[i - first] = Aik;
                    Acol[nt + i - first] = ss_tile(B, i, j);
                } else {
                    insert_zgemm(trans, 'N', mone, Aik, ss_tile(B, k, j), one, ss_tile(B, i, j), prio);
                }
            }
            if (Acol && last > first)
                insert_zgemm_tiles(trans, 'N', mone, ss_tile(B, k, j), 0, last - first, Acol, one, Acol + nt, prio);
        }
    }
    free(Acol);
}
