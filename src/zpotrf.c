/* Cholesky factorization: LAPACK-layout and tile entry points. */
#include "algorithms.h"

int starsolve_zpotrf_tile_async(char uplo, starsolve_desc_t *A, starsolve_request_t *req)
{
    SS_PUBLIC_CALL;
    uplo = ss_upper(uplo);
    const char *me = "starsolve_zpotrf_tile_async";
    if (uplo != 'L' && uplo != 'U') return ss_arg_error(me, -1);
    if (!A || A->prec != STARSOLVE_Z || A->m != A->n) return ss_arg_error(me, -2);
    if (!req) return ss_arg_error(me, -3);
    pzpotrf(uplo, A, req);
    return 0;
}

int starsolve_zpotrf(char uplo, int n, starsolve_complex64_t *A, int lda)
{
    SS_PUBLIC_CALL;
    uplo = ss_upper(uplo);
    const char *me = "starsolve_zpotrf";
    if (uplo != 'L' && uplo != 'U') return ss_arg_error(me, -1);
    if (n < 0) return ss_arg_error(me, -2);
    if (!A && n > 0) return ss_arg_error(me, -3);
    if (lda < ss_max(1, n)) return ss_arg_error(me, -4);
    if (n == 0) return 0;
    if (ss_ensure_init()) return -1000;

    starsolve_desc_t *dA;
    starsolve_request_t *req = starsolve_request_create();
    starsolve_desc_create_lapack(&dA, STARSOLVE_Z, n, n, starsolve_get_nb_for(STARSOLVE_POTRF, n), A, lda);
    pzpotrf(uplo, dA, req);
    int info = starsolve_request_wait(req);
    starsolve_desc_destroy(dA);
    starsolve_request_destroy(req);
    return info;
}
