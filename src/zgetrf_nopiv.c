/* LU without pivoting: LAPACK-layout and tile entry points. */
#include "algorithms.h"

int starsolve_zgetrf_nopiv_tile_async(starsolve_desc_t *A, starsolve_request_t *req)
{
    SS_PUBLIC_CALL;
    if (!A || A->prec != STARSOLVE_Z) return ss_arg_error("starsolve_zgetrf_nopiv_tile_async", -1);
    if (!req) return ss_arg_error("starsolve_zgetrf_nopiv_tile_async", -2);
    pzgetrf_nopiv(A, 1, req);
    return 0;
}

int starsolve_zgetrf_nopiv(int m, int n, starsolve_complex64_t *A, int lda)
{
    SS_PUBLIC_CALL;
    const char *me = "starsolve_zgetrf_nopiv";
    if (m < 0) return ss_arg_error(me, -1);
    if (n < 0) return ss_arg_error(me, -2);
    if (!A && m > 0 && n > 0) return ss_arg_error(me, -3);
    if (lda < ss_max(1, m)) return ss_arg_error(me, -4);
    if (m == 0 || n == 0) return 0;
    if (ss_ensure_init()) return -1000;

    starsolve_desc_t *dA;
    starsolve_request_t *req = starsolve_request_create();
    starsolve_desc_create_lapack(&dA, STARSOLVE_Z, m, n, starsolve_get_nb_for(STARSOLVE_GETRF_NOPIV, n), A, lda);
    pzgetrf_nopiv(dA, 1, req);
    int info = starsolve_request_wait(req);
    starsolve_desc_destroy(dA);
    starsolve_request_destroy(req);
    return info;
}
