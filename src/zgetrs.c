/* Solve op(A) X = B with the LU factors and pivots of getrf. */
#include "algorithms.h"

static int bad_trans(char trans) { return trans != 'N' && trans != 'T' && trans != 'C'; }

int starsolve_zgetrs_tile_async(char trans, const starsolve_desc_t *A, const starsolve_pivots_t *piv,
                                starsolve_desc_t *B, starsolve_request_t *req)
{
    SS_PUBLIC_CALL;
    trans = ss_upper(trans);
    const char *me = "starsolve_zgetrs_tile_async";
    if (bad_trans(trans)) return ss_arg_error(me, -1);
    if (!A || A->prec != STARSOLVE_Z || A->m != A->n) return ss_arg_error(me, -2);
    if (!piv || piv->nb != A->nb || piv->minmn != A->n) return ss_arg_error(me, -3);
    if (!B || B->prec != STARSOLVE_Z || B->m != A->n || B->nb != A->nb) return ss_arg_error(me, -4);
    if (!req) return ss_arg_error(me, -5);
    if (trans == 'N') {
        pzlaswp(piv, B, 1);
        pztrsm('L', 'N', 'U', A, B);
        pztrsm('U', 'N', 'N', A, B);
    } else {
        pztrsm('U', trans, 'N', A, B);
        pztrsm('L', trans, 'U', A, B);
        pzlaswp(piv, B, 0);
    }
    return 0;
}

/* The tile laswp needs every pivot at or below its own row, as getrf makes them. */
static int bad_ipiv(int n, const int *ipiv)
{
    for (int i = 0; i < n; i++)
        if (ipiv[i] < i + 1 || ipiv[i] > n)
            return 1;
    return 0;
}

int starsolve_zgetrs(char trans, int n, int nrhs, const starsolve_complex64_t *A, int lda, const int *ipiv,
                     starsolve_complex64_t *B, int ldb)
{
    SS_PUBLIC_CALL;
    trans = ss_upper(trans);
    const char *me = "starsolve_zgetrs";
    if (bad_trans(trans)) return ss_arg_error(me, -1);
    if (n < 0) return ss_arg_error(me, -2);
    if (nrhs < 0) return ss_arg_error(me, -3);
    if (!A && n > 0) return ss_arg_error(me, -4);
    if (lda < ss_max(1, n)) return ss_arg_error(me, -5);
    if (n > 0 && (!ipiv || bad_ipiv(n, ipiv))) return ss_arg_error(me, -6);
    if (!B && n > 0 && nrhs > 0) return ss_arg_error(me, -7);
    if (ldb < ss_max(1, n)) return ss_arg_error(me, -8);
    if (n == 0 || nrhs == 0) return 0;
    if (ss_ensure_init()) return -1000;

    starsolve_desc_t *dA, *dB;
    starsolve_pivots_t *piv;
    starsolve_request_t *req = starsolve_request_create();
    /* A is only read: the tasks on it take it in read mode */
    int nb = starsolve_get_nb_for(STARSOLVE_GETRF, n);
    starsolve_desc_create_lapack(&dA, STARSOLVE_Z, n, n, nb, (void *)A, lda);
    starsolve_desc_create_lapack(&dB, STARSOLVE_Z, n, nrhs, nb, B, ldb);
    starsolve_pivots_create(&piv, dA);
    starsolve_pivots_from_lapack(piv, ipiv);
    starsolve_zgetrs_tile_async(trans, dA, piv, dB, req);
    int info = starsolve_request_wait(req);
    starsolve_pivots_destroy(piv);
    starsolve_desc_destroy(dB);
    starsolve_desc_destroy(dA);
    starsolve_request_destroy(req);
    return info;
}
