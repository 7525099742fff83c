/* Solve A X = B by LU with partial pivoting: one task graph, factor then solve. */
#include "algorithms.h"

int starsolve_zgesv(int n, int nrhs, starsolve_complex64_t *A, int lda, int *ipiv, starsolve_complex64_t *B, int ldb)
{
    SS_PUBLIC_CALL;
    const char *me = "starsolve_zgesv";
    if (n < 0) return ss_arg_error(me, -1);
    if (nrhs < 0) return ss_arg_error(me, -2);
    if (!A && n > 0) return ss_arg_error(me, -3);
    if (lda < ss_max(1, n)) return ss_arg_error(me, -4);
    if (!ipiv && n > 0) return ss_arg_error(me, -5);
    if (!B && n > 0 && nrhs > 0) return ss_arg_error(me, -6);
    if (ldb < ss_max(1, n)) return ss_arg_error(me, -7);
    if (n == 0) return 0;
    if (ss_ensure_init()) return -1000;

    starsolve_desc_t *dA, *dB = NULL;
    starsolve_pivots_t *piv;
    starsolve_request_t *req = starsolve_request_create();
    int nb = starsolve_get_nb_for(STARSOLVE_GETRF, n);
    starsolve_desc_create_lapack(&dA, STARSOLVE_Z, n, n, nb, A, lda);
    starsolve_pivots_create(&piv, dA);
    pzgetrf(dA, piv, req);
    int info = starsolve_request_wait(req);
    /* as LAPACK: no solve with an exactly singular U */
    if (info == 0 && nrhs > 0) {
        starsolve_desc_create_lapack(&dB, STARSOLVE_Z, n, nrhs, nb, B, ldb);
        starsolve_zgetrs_tile_async('N', dA, piv, dB, req);
        info = starsolve_request_wait(req);
    }
    starsolve_pivots_to_lapack(piv, ipiv);
    starsolve_pivots_destroy(piv);
    starsolve_desc_destroy(dB);
    starsolve_desc_destroy(dA);
    starsolve_request_destroy(req);
    return info;
}
