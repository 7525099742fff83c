/* Tile loops of iterative refinement: residuals and corrections as tasks, so
 * they run where the tiles are, and the row sums behind ||A||_inf. */
#include <stdlib.h>
#include "algorithms.h"
#include "codelets.h"

/* R = R - A X. A's tiles use the first rows of X's (X may have more rows:
 * an augmented system), so X must have A's nb. */
void pzresidual(const starsolve_desc_t *A, const starsolve_desc_t *X, starsolve_desc_t *R)
{
    const starsolve_complex64_t one = 1.0, mone = -1.0;
    for (int j = 0; j < R->nt; j++)
        for (int i = 0; i < R->mt; i++)
            for (int l = 0; l < A->nt; l++)
                insert_zgemm('N', 'N', mone, ss_tile(A, i, l), ss_tile(X, l, j), one, ss_tile(R, i, j), 0);
}

/* B = alpha A + B, same tiling */
void pzgeadd(starsolve_complex64_t alpha, const starsolve_desc_t *A, starsolve_desc_t *B)
{
    for (int j = 0; j < B->nt; j++)
        for (int i = 0; i < B->mt; i++)
            insert_zgeadd(alpha, ss_tile(A, i, j), ss_tile(B, i, j), 0);
}

void pzlange_rowsums(const starsolve_desc_t *A, starpu_data_handle_t *sums)
{
    starpu_data_handle_t *row = malloc((size_t)A->nt * sizeof *row);
    for (int i = 0; i < A->mt; i++) {
        for (int j = 0; j < A->nt; j++)
            row[j] = ss_tile(A, i, j);
        insert_zlange_rowsums(A->nt, row, sums[i], 0);
    }
    free(row);
}

void pzlange_colmax(const starsolve_desc_t *A, int nrows, starpu_data_handle_t out)
{
    insert_zlange_colmax(A->mt, A->nt, A->nb, nrows, A->tiles, out, 0);
}

void pzlacpy_pad_rows(const starsolve_desc_t *A, starsolve_desc_t *B)
{
    for (int j = 0; j < B->nt; j++)
        for (int i = 0; i < B->mt; i++) {
            if (i < A->mt)
                insert_zlacpy_pad(ss_tile(A, i, j), ss_tile(B, i, j), -1, 0);
            else
                insert_zlaset(0.0, 0.0, ss_tile(B, i, j), 0);
        }
}
