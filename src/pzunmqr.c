/* Apply the Q of pzgeqrf to C from the left: C = Q^H C (trans 'C') replays the
 * factorization's reflectors in the order they were made; C = Q C (trans 'N')
 * replays them backwards. C has A's tile rows; its columns are any. */
#include "algorithms.h"
#include "codelets.h"

/* the reflectors of diagonal tile k as a padded matrix (see pzgeqrf.c) */
static starpu_data_handle_t diagonal_reflectors(const starsolve_desc_t *A, int k)
{
    int refl = ss_min(ss_tile_rows(A, k), ss_tile_cols(A, k));
    starpu_data_handle_t V = ss_workspace_tile(A, ss_tile_rows(A, k), refl);
    insert_zlacpy_v(ss_tile(A, k, k), V, 0);
    return V;
}

void pzunmqr(char trans, const starsolve_desc_t *A, const starsolve_desc_t *T, starsolve_desc_t *C)
{
    int mt = A->mt, kt = ss_min(A->mt, A->nt), nt = C->nt;
    if (trans == 'C') {
        for (int k = 0; k < kt; k++) {
            starpu_data_handle_t V = diagonal_reflectors(A, k);
            for (int j = 0; j < nt; j++)
                insert_zunmqr('C', V, ss_tile(T, k, k), ss_tile(C, k, j), kt - k);
            ss_workspace_release(V);
            for (int i = k + 1; i < mt; i++)
                for (int j = 0; j < nt; j++)
                    insert_ztpmqrt('C', ss_tile(A, i, k), ss_tile(T, i, k), ss_tile(C, k, j), ss_tile(C, i, j), kt - k);
        }
    } else {
        for (int k = kt - 1; k >= 0; k--) {
            for (int i = mt - 1; i > k; i--)
                for (int j = 0; j < nt; j++)
                    insert_ztpmqrt('N', ss_tile(A, i, k), ss_tile(T, i, k), ss_tile(C, k, j), ss_tile(C, i, j), k + 1);
            starpu_data_handle_t V = diagonal_reflectors(A, k);
            for (int j = 0; j < nt; j++)
                insert_zunmqr('N', V, ss_tile(T, k, k), ss_tile(C, k, j), k + 1);
            ss_workspace_release(V);
        }
    }
}

void pzungqr(const starsolve_desc_t *A, const starsolve_desc_t *T, starsolve_desc_t *Q)
{
    for (int j = 0; j < Q->nt; j++)
        for (int i = 0; i < Q->mt; i++)
            insert_zlaset(0.0, i == j ? 1.0 : 0.0, ss_tile(Q, i, j), 0);
    pzunmqr('N', A, T, Q);
}
