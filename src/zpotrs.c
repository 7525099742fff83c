/* Solve A X = B with the Cholesky factor of potrf. */
#include "algorithms.h"

int starsolve_zpotrs_tile_async(char uplo, const starsolve_desc_t *A, starsolve_desc_t *B, starsolve_request_t *req)
{
    SS_PUBLIC_CALL;
    uplo = ss_upper(uplo);
    const char *me = "starsolve_zpotrs_tile_async";
    if (uplo != 'L' && uplo != 'U') return ss_arg_error(me, -1);
    if (!A || A->prec != STARSOLVE_Z || A->m != A->n) return ss_arg_error(me, -2);
    if (!B || B->prec != STARSOLVE_Z || B->m != A->n || B->nb != A->nb) return ss_arg_error(me, -3);
    if (!req) return ss_arg_error(me, -4);
    /* A = L L^H: solve with L then L^H; A = U^H U: with U^H then U */
    if (uplo == 'L') {
        pztrsm('L', 'N', 'N', A, B);
        pztrsm('L', 'C', 'N', A, B);
    } else {
        pztrsm('U', 'C', 'N', A, B);
        pztrsm('U', 'N', 'N', A, B);
    }
    return 0;
}

int starsolve_zpotrs(char uplo, int n, int nrhs, const starsolve_complex64_t *A, int lda,
                     starsolve_complex64_t *B, int ldb)
{
    SS_PUBLIC_CALL;
    uplo = ss_upper(uplo);
    const char *me = "starsolve_zpotrs";
    if (uplo != 'L' && uplo != 'U') return ss_arg_error(me, -1);
    if (n < 0) return ss_arg_error(me, -2);
    if (nrhs < 0) return ss_arg_error(me, -3);
    if (!A && n > 0) return ss_arg_error(me, -4);
    if (lda < ss_max(1, n)) return ss_arg_error(me, -5);
    if (!B && n > 0 && nrhs > 0) return ss_arg_error(me, -6);
    if (ldb < ss_max(1, n)) return ss_arg_error(me, -7);
    if (n == 0 || nrhs == 0) return 0;
    if (ss_ensure_init()) return -1000;

    starsolve_desc_t *dA, *dB;
    starsolve_request_t *req = starsolve_request_create();
    starsolve_desc_create_lapack(&dA, STARSOLVE_Z, n, n, ss_ctx.nb, (void *)A, lda);
    starsolve_desc_create_lapack(&dB, STARSOLVE_Z, n, nrhs, ss_ctx.nb, B, ldb);
    starsolve_zpotrs_tile_async(uplo, dA, dB, req);
    int info = starsolve_request_wait(req);
    starsolve_desc_destroy(dB);
    starsolve_desc_destroy(dA);
    starsolve_request_destroy(req);
    return info;
}
