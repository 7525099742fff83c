/* Solve A X = B for Hermitian positive definite A by Cholesky. */
#include "algorithms.h"

int starsolve_zposv(char uplo, int n, int nrhs, starsolve_complex64_t *A, int lda, starsolve_complex64_t *B, int ldb)
{
    SS_PUBLIC_CALL;
    uplo = ss_upper(uplo);
    const char *me = "starsolve_zposv";
    if (uplo != 'L' && uplo != 'U') return ss_arg_error(me, -1);
    if (n < 0) return ss_arg_error(me, -2);
    if (nrhs < 0) return ss_arg_error(me, -3);
    if (!A && n > 0) return ss_arg_error(me, -4);
    if (lda < ss_max(1, n)) return ss_arg_error(me, -5);
    if (!B && n > 0 && nrhs > 0) return ss_arg_error(me, -6);
    if (ldb < ss_max(1, n)) return ss_arg_error(me, -7);
    if (n == 0) return 0;
    if (ss_ensure_init()) return -1000;

    starsolve_desc_t *dA, *dB = NULL;
    starsolve_request_t *req = starsolve_request_create();
    starsolve_desc_create_lapack(&dA, STARSOLVE_Z, n, n, starsolve_get_nb_for(STARSOLVE_POTRF, n), A, lda);
    pzpotrf(uplo, dA, req);
    int info = starsolve_request_wait(req);
    /* as LAPACK: no solve when A is not positive definite */
    if (info == 0 && nrhs > 0) {
        starsolve_desc_create_lapack(&dB, STARSOLVE_Z, n, nrhs, starsolve_get_nb_for(STARSOLVE_POTRF, n), B, ldb);
        starsolve_zpotrs_tile_async(uplo, dA, dB, req);
        info = starsolve_request_wait(req);
    }
    starsolve_desc_destroy(dB);
    starsolve_desc_destroy(dA);
    starsolve_request_destroy(req);
    return info;
}
