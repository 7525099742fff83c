/* Tile triangular solve on the left, B = op(A)^-1 B, with the uplo triangle of A.
 * op(A) is lower triangular when (uplo 'L', no transpose) or (uplo 'U', transposed):
 * then rows of B are solved top-down, otherwise bottom-up. */
#include "algorithms.h"
#include "codelets.h"

void pztrsm(char uplo, char trans, char diag, const starsolve_desc_t *A, starsolve_desc_t *B)
{
    const starsolve_complex64_t one = 1.0, mone = -1.0;
    int nt = A->nt;
    int top_down = (uplo == 'L') == (trans == 'N');
    for (int s = 0; s < nt; s++) {
        int k = top_down ? s : nt - 1 - s;
        int prio = nt - s;
        for (int j = 0; j < B->nt; j++) {
            insert_ztrsm('L', uplo, trans, diag, one, ss_tile(A, k, k), ss_tile(B, k, j), prio + 1);
            int first = top_down ? k + 1 : 0, last = top_down ? nt : k;
            for (int i = first; i < last; i++) {
                starpu_data_handle_t Aik = trans == 'N' ? ss_tile(A, i, k) : ss_tile(A, k, i);
                insert_zgemm(trans, 'N', mone, Aik, ss_tile(B, k, j), one, ss_tile(B, i, j), prio);
            }
        }
    }
}
