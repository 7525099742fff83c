/* Right-looking tile Cholesky, A = L L^H (uplo 'L') or U^H U (uplo 'U'). */
#include "algorithms.h"
#include "codelets.h"

void pzpotrf(char uplo, starsolve_desc_t *A, starsolve_request_t *req)
{
    const starsolve_complex64_t one = 1.0, mone = -1.0;
    int nt = A->nt;
    starpu_data_handle_t scratch = ss_scratch_buffer(ss_zpotrf_scratch_bytes(uplo, A->nb));
    for (int k = 0; k < nt; k++) {
        int step = 3 * (nt - k);
        insert_zpotrf(uplo, ss_tile(A, k, k), scratch, k * A->nb, req, step + 3);
        for (int i = k + 1; i < nt; i++) {
            if (uplo == 'L')
                insert_ztrsm('R', 'L', 'C', 'N', one, ss_tile(A, k, k), ss_tile(A, i, k), step + 2);
            else
                insert_ztrsm('L', 'U', 'C', 'N', one, ss_tile(A, k, k), ss_tile(A, k, i), step + 2);
        }
        for (int j = k + 1; j < nt; j++) {
            int prio = j == k + 1 ? step + 1 : step;
            if (uplo == 'L') {
                insert_zherk('L', 'N', -1.0, ss_tile(A, j, k), 1.0, ss_tile(A, j, j), prio);
                for (int i = j + 1; i < nt; i++)
                    insert_zgemm('N', 'C', mone, ss_tile(A, i, k), ss_tile(A, j, k), one, ss_tile(A, i, j), prio);
            } else {
                insert_zherk('U', 'C', -1.0, ss_tile(A, k, j), 1.0, ss_tile(A, j, j), prio);
                for (int i = j + 1; i < nt; i++)
                    insert_zgemm('C', 'N', mone, ss_tile(A, k, j), ss_tile(A, k, i), one, ss_tile(A, j, i), prio);
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
}
