/* Random butterfly transformation of a tiled matrix and of right-hand sides
 * (Baboulin, Khabou, Remy). A recursive butterfly of depth d applies, at level
 * l = 0 .. d-1, one butterfly to each block of order N / 2^l; the two halves of
 * a block are whole tiles (the caller picks N and nb so), so each butterfly
 * is a set of tasks on tile quadruples (matrix) or tile pairs (right-hand
 * sides). u[l] and v[l]: level l's packed diagonals (codelets/codelet_zgerbt.c).
 *
 * U = W_0 W_1 ... W_{d-1} (level 0: the whole matrix), and likewise V, so
 *     U^T A V   applies level 0 first, then level 1, ...;
 *     U^T b     the same order;
 *     V y       the last level first. */
#include "algorithms.h"
#include "codelets.h"

void pzgerbt(starsolve_desc_t *A, int depth, starpu_data_handle_t *u, starpu_data_handle_t *v)
{
    int nb = A->nb;
    for (int l = 0; l < depth; l++) {
        int h = (A->m >> l) / 2, ht = h / nb, nblocks = 1 << l;
        for (int bj = 0; bj < nblocks; bj++)
            for (int bi = 0; bi < nblocks; bi++)
                for (int tj = 0; tj < ht; tj++)
                    for (int ti = 0; ti < ht; ti++) {
                        int i = bi * 2 * ht + ti, j = bj * 2 * ht + tj;
                        insert_zgerbt(ss_tile(A, i, j), ss_tile(A, i, j + ht), ss_tile(A, i + ht, j),
                                      ss_tile(A, i + ht, j + ht), u[l], v[l], i * nb, j * nb, h, depth - l);
                    }
    }
}

void pzgerbt_rhs(int transposed, starsolve_desc_t *B, int depth, starpu_data_handle_t *u)
{
    int nb = B->nb;
    for (int s = 0; s < depth; s++) {
        int l = transposed ? s : depth - 1 - s;
        int h = (B->m >> l) / 2, ht = h / nb, nblocks = 1 << l;
        for (int bi = 0; bi < nblocks; bi++)
            for (int ti = 0; ti < ht; ti++)
                for (int j = 0; j < B->nt; j++) {
                    int i = bi * 2 * ht + ti;
                    insert_zgerbt_rhs(ss_tile(B, i, j), ss_tile(B, i + ht, j), u[l], i * nb, h, transposed, 0);
                }
    }
}
