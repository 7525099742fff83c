/* Apply the Q of pzgeqrf to C: op(Q) C (side 'L', C has A's tile rows) or
 * C op(Q) (side 'R', C has A's tile rows as its tile columns). */
#include <stdlib.h>
#include "algorithms.h"
#include "codelets.h"

/* the reflectors of diagonal tile k as a padded matrix (see pzgeqrf.c) */
static starpu_data_handle_t diagonal_reflectors(const starsolve_desc_t *A, int k)
{
    int refl = ss_min(ss_tile_rows(A, k), ss_tile_cols(A, k));
    starpu_data_handle_t V = ss_workspace_tile(A, k, k, ss_tile_rows(A, k), refl);
    insert_zlacpy_v(ss_tile(A, k, k), V, 0);
    return V;
}

/* the tile of C that the reflectors of A's tile row r meet, j-th of them:
 * C(r, j) on the left, C(j, r) on the right */
static starpu_data_handle_t c_tile(char side, const starsolve_desc_t *C, int r, int j)
{
    return side == 'L' ? ss_tile(C, r, j) : ss_tile(C, j, r);
}

/* Q of pzgeqrf's panel algorithm: Q = Q_0 Q_1 ... Q_{kt-1}, Q_k = I - V_k T_k V_k^H
 * with V_k the tiles of column k from the diagonal down; one task per tile
 * column (left) or tile row (right) of C and panel (codelet_zlarfb_tiles.c). */
static void pzunmqr_panels(char side, char trans, const starsolve_desc_t *A, const starsolve_desc_t *T,
                           starsolve_desc_t *C)
{
    int mt = A->mt, kt = ss_min(A->mt, A->nt), forward = (side == 'L') == (trans == 'C');
    int others = side == 'L' ? C->nt : C->mt;
    starpu_data_handle_t *V = malloc((size_t)mt * sizeof *V), *Ct = malloc((size_t)mt * sizeof *Ct);
    starpu_data_handle_t scratch = ss_scratch_buffer(ss_zlarfb_tiles_scratch_bytes(A->nb));
    for (int s = 0; s < kt; s++) {
        int k = forward ? s : kt - 1 - s;
        for (int i = k; i < mt; i++)
            V[i - k] = ss_tile(A, i, k);
        for (int j = 0; j < others; j++) {
            for (int i = k; i < mt; i++)
                Ct[i - k] = c_tile(side, C, i, j);
            insert_zlarfb_tiles(side, trans, mt - k, V, ss_tile(T, k, k), Ct, scratch, kt - s);
        }
    }
    ss_workspace_release(scratch);
    free(V);
    free(Ct);
}

void pzunmqr(char side, char trans, const starsolve_desc_t *A, const starsolve_desc_t *T, starsolve_desc_t *C)
{
    if (T->qr_algorithm == SS_QR_PANELS) {
        pzunmqr_panels(side, trans, A, T, C);
        return;
    }
    int mt = A->mt, kt = ss_min(A->mt, A->nt);
    /* Q = Q_0 Q_1 ... Q_{kt-1}, Q_k = H(geqrt k) H(tpqrt k+1, k) ... H(tpqrt mt-1, k).
     * Q^H C and C Q replay the reflectors in the order they were made; Q C and C Q^H backwards. */
    int forward = (side == 'L') == (trans == 'C');
    int others = side == 'L' ? C->nt : C->mt;
    for (int s = 0; s < kt; s++) {
        int k = forward ? s : kt - 1 - s, prio = kt - s;
        if (forward) {
            starpu_data_handle_t V = diagonal_reflectors(A, k);
            for (int j = 0; j < others; j++)
                insert_zunmqr(side, trans, V, ss_tile(T, k, k), c_tile(side, C, k, j), prio);
            ss_workspace_release(V);
        }
        for (int t = k + 1; t < mt; t++) {
            int i = forward ? t : mt + k - t;   /* forward: k+1 .. mt-1; backward: mt-1 .. k+1 */
            for (int j = 0; j < others; j++)
                insert_ztpmqrt(side, trans, ss_tile(A, i, k), ss_tile(T, i, k), c_tile(side, C, k, j), c_tile(side, C, i, j), prio);
        }
        if (!forward) {
            starpu_data_handle_t V = diagonal_reflectors(A, k);
            for (int j = 0; j < others; j++)
                insert_zunmqr(side, trans, V, ss_tile(T, k, k), c_tile(side, C, k, j), prio);
            ss_workspace_release(V);
        }
    }
}

void pzungqr(const starsolve_desc_t *A, const starsolve_desc_t *T, starsolve_desc_t *Q)
{
    for (int j = 0; j < Q->nt; j++)
        for (int i = 0; i < Q->mt; i++)
            insert_zlaset(0.0, i == j ? 1.0 : 0.0, ss_tile(Q, i, j), 0);
    pzunmqr('L', 'N', A, T, Q);
}
