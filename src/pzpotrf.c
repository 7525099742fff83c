/* Right-looking tile Cholesky, A = L L^H (uplo 'L') or U^H U (uplo 'U'). The
 * GEMMs below (right of) a diagonal tile go in one task or several
 * (starsolve_config_t.update_tiles). With whole-column updates (GPUs) the
 * panel's TRSMs are one task too, GEMMs with the inverse of the diagonal
 * tile's factor, which the diagonal task leaves (codelet_ztrsm_column.c). */
#include <stdlib.h>
#include "algorithms.h"
#include "codelets.h"

void pzpotrf(char uplo, starsolve_desc_t *A, starsolve_request_t *req)
{
    const starsolve_complex64_t one = 1.0, mone = -1.0;
    int nt = A->nt;
    ss_desc_prefetch_gpu(A, uplo);
    starpu_data_handle_t scratch = ss_scratch_buffer(ss_zpotrf_scratch_bytes(uplo, A->nb));
    starpu_data_handle_t *panel = malloc((size_t)nt * sizeof *panel);   /* tiles of column (row) k */
    starpu_data_handle_t *target = malloc((size_t)nt * sizeof *target);
    int by_inverse = ss_panel_trsm_by_inverse();
    starpu_data_handle_t trsm_scratch = by_inverse ? ss_scratch_buffer(ss_ztrsm_column_scratch_bytes(A->nb)) : NULL;
    for (int k = 0; k < nt; k++) {
        int panel_prio = ss_prio_panel(nt, k);
        /* the inverse of the factor's tile, one per step like the LU's L(k,k)^-1 */
        starpu_data_handle_t inverse = by_inverse && k + 1 < nt ? ss_workspace_tile(A, k, k, ss_tile_rows(A, k),
                                                                                    ss_tile_rows(A, k)) : NULL;
        insert_zpotrf(uplo, ss_tile(A, k, k), inverse, scratch, k * A->nb, req, panel_prio);
        for (int i = k + 1; i < nt; i++)
            panel[i - k - 1] = uplo == 'L' ? ss_tile(A, i, k) : ss_tile(A, k, i);
        if (inverse) {
            /* A(i,k) = A(i,k) L(k,k)^-H, or A(k,i) = U(k,k)^-H A(k,i) */
            insert_ztrsm_column(uplo == 'L' ? 'R' : 'L', 'C', nt - k - 1, panel, inverse, trsm_scratch, panel_prio);
            ss_workspace_release(inverse);
        }
        for (int i = k + 1; i < nt && !inverse; i++) {
            if (uplo == 'L')
                insert_ztrsm_panel('R', 'L', 'C', 'N', one, ss_tile(A, k, k), ss_tile(A, i, k), panel_prio);
            else
                insert_ztrsm_panel('L', 'U', 'C', 'N', one, ss_tile(A, k, k), ss_tile(A, k, i), panel_prio);
        }
        for (int j = k + 1; j < nt; j++) {
            int prio = ss_prio_update(nt, j);
            if (uplo == 'L') {
                insert_zherk('L', 'N', -1.0, ss_tile(A, j, k), 1.0, ss_tile(A, j, j), prio);
                /* A(i,j) -= A(i,k) A(j,k)^H, i > j */
                for (int i = j + 1; i < nt; i++) {
                    panel[i - j - 1] = ss_tile(A, i, k);
                    target[i - j - 1] = ss_tile(A, i, j);
                }
                insert_zgemm_tiles('N', 'C', mone, ss_tile(A, j, k), 0, nt - j - 1, panel, one, target, prio);
            } else {
                insert_zherk('U', 'C', -1.0, ss_tile(A, k, j), 1.0, ss_tile(A, j, j), prio);
                /* A(j,i) -= A(k,j)^H A(k,i), i > j */
                for (int i = j + 1; i < nt; i++) {
                    panel[i - j - 1] = ss_tile(A, k, i);
                    target[i - j - 1] = ss_tile(A, j, i);
                }
                insert_zgemm_tiles('C', 'N', mone, ss_tile(A, k, j), 1, nt - j - 1, panel, one, target, prio);
            }
        }
        for (int i = k + 1; i < nt; i++)
            starpu_data_wont_use(uplo == 'L' ? ss_tile(A, i, k) : ss_tile(A, k, i));
        /* the factor's tile column (row) k is final */
        for (int i = k; i < nt; i++) {
            if (uplo == 'L')
                ss_tile_send_home(A, i, k);
            else
                ss_tile_send_home(A, k, i);
        }
    }
    ss_workspace_release(scratch);
    if (trsm_scratch)
        ss_workspace_release(trsm_scratch);
    free(panel);
    free(target);
}
