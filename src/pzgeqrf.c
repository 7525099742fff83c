/* Tile QR, A = Q R (PLASMA's tile algorithm with a flat tree).
 *
 * Why tiles and not LAPACK's panel + blocked update: every task touches one
 * to four nb x nb tiles, so the graph has O(nt^3) tasks of GEMM size that
 * StarPU spreads over CPU cores and GPUs, and the panel of step k overlaps the
 * updates of step k-1 (lookahead comes from the priorities, not from code).
 * The price is about 25% more flops in the updates (each carries its T).
 *
 * Step k: QR of the diagonal tile (geqrt); its reflectors update the rest of
 * tile row k (unmqr); then each tile below is annihilated against the
 * diagonal tile's R (tpqrt) and its reflectors update the pair of tile rows
 * (tpmqrt). The diagonal tile's reflectors are first copied to a padded
 * scratch tile (lacpy_v), so that the row updates read the copy while tpqrt
 * rewrites R in the tile itself. T (desc from starsolve_qr_workspace_create)
 * keeps one k x k triangular factor per tile of the lower trapezoid. */
#include "algorithms.h"
#include "codelets.h"

void pzgeqrf(starsolve_desc_t *A, starsolve_desc_t *T)
{
    int mt = A->mt, nt = A->nt, kt = ss_min(mt, nt);
    for (int k = 0; k < kt; k++) {
        int step = 3 * (kt - k);
        insert_zgeqrt(ss_tile(A, k, k), ss_tile(T, k, k), step + 3);
        if (k + 1 < nt) {
            int refl = ss_min(ss_tile_rows(A, k), ss_tile_cols(A, k));
            starpu_data_handle_t V = ss_workspace_tile(A, k, k, ss_tile_rows(A, k), refl);
            insert_zlacpy_v(ss_tile(A, k, k), V, step + 3);
            for (int j = k + 1; j < nt; j++)
                insert_zunmqr('L', 'C', V, ss_tile(T, k, k), ss_tile(A, k, j), j == k + 1 ? step + 2 : step);
            ss_workspace_release(V);
        }
        for (int i = k + 1; i < mt; i++) {
            insert_ztpqrt(ss_tile(A, k, k), ss_tile(A, i, k), ss_tile(T, i, k), step + 2);
            for (int j = k + 1; j < nt; j++)
                insert_ztpmqrt('L', 'C', ss_tile(A, i, k), ss_tile(T, i, k), ss_tile(A, k, j), ss_tile(A, i, j),
                               j == k + 1 ? step + 1 : step);
        }
    }
}
