/* Tile QR factorization, applying its Q and forming Q (tile API). */
#include "algorithms.h"

/* T must come from starsolve_qr_workspace_create(&T, A). */
static int bad_workspace(const starsolve_desc_t *A, const starsolve_desc_t *T)
{
    return !T || T->prec != A->prec || T->nb != A->nb || T->m != A->mt * A->nb || T->n != A->n;
}
/* and, to apply Q or form it, have been filled by geqrf (its tiles hold nothing before) */
static int unfactored_workspace(const starsolve_desc_t *A, const starsolve_desc_t *T)
{
    return bad_workspace(A, T) || T->qr_algorithm == SS_QR_NONE;
}

int starsolve_zgeqrf_tile_async(starsolve_desc_t *A, starsolve_desc_t *T, starsolve_request_t *req)
{
    SS_PUBLIC_CALL;
    const char *me = "starsolve_zgeqrf_tile_async";
    if (!A || A->prec != STARSOLVE_Z) return ss_arg_error(me, -1);
    if (bad_workspace(A, T)) return ss_arg_error(me, -2);
    if (!req) return ss_arg_error(me, -3);
    pzgeqrf(A, T);
    return 0;
}

int starsolve_zunmqr_tile_async(char side, char trans, const starsolve_desc_t *A, const starsolve_desc_t *T,
                                starsolve_desc_t *C, starsolve_request_t *req)
{
    SS_PUBLIC_CALL;
    const char *me = "starsolve_zunmqr_tile_async";
    side = ss_upper(side);
    trans = ss_upper(trans);
#if defined(STARSOLVE_PRECISION_S) || defined(STARSOLVE_PRECISION_D)
    if (trans == 'T') trans = 'C';   /* for real matrices the transpose is the conjugate transpose */
#endif
    if (side != 'L' && side != 'R') return ss_arg_error(me, -1);
    if (trans != 'N' && trans != 'C') return ss_arg_error(me, -2);
    if (!A || A->prec != STARSOLVE_Z) return ss_arg_error(me, -3);
    if (unfactored_workspace(A, T)) return ss_arg_error(me, -4);
    if (!C || C->prec != STARSOLVE_Z || (side == 'L' ? C->m : C->n) != A->m || C->nb != A->nb)
        return ss_arg_error(me, -5);
    if (!req) return ss_arg_error(me, -6);
    pzunmqr(side, trans, A, T, C);
    return 0;
}

int starsolve_zungqr_tile_async(const starsolve_desc_t *A, const starsolve_desc_t *T, starsolve_desc_t *Q,
                                starsolve_request_t *req)
{
    SS_PUBLIC_CALL;
    const char *me = "starsolve_zungqr_tile_async";
    if (!A || A->prec != STARSOLVE_Z) return ss_arg_error(me, -1);
    if (unfactored_workspace(A, T)) return ss_arg_error(me, -2);
    if (!Q || Q->prec != STARSOLVE_Z || Q->m != A->m || Q->n > A->m || Q->nb != A->nb) return ss_arg_error(me, -3);
    if (!req) return ss_arg_error(me, -4);
    pzungqr(A, T, Q);
    return 0;
}
