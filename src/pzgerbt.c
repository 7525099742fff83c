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

/* F = diag(A, I): F has A's nb and at least A's order. Tile (i, j) of F gets
 * tile (i, j) of A where there is one, with the identity's diagonal where F's
 * global diagonal index reaches A's order. As tasks: the copy runs on every
 * core (and on a GPU it is the upload of A). */
void pzlacpy_augment(const starsolve_desc_t *A, starsolve_desc_t *F)
{
    int nb = F->nb;
    for (int j = 0; j < F->nt; j++)
        for (int i = 0; i < F->mt; i++) {
            /* first local diagonal index of this tile at or beyond A's order, if it is a diagonal tile */
            int pad_from = i == j ? ss_max(0, A->n - i * nb) : -1;
            if (i < A->mt && j < A->nt)
                insert_zlacpy_pad(ss_tile(A, i, j), ss_tile(F, i, j), pad_from, 0);
            else
                insert_zlaset(0.0, i == j ? 1.0 : 0.0, ss_tile(F, i, j), 0);
        }
}
