/* Least squares and minimum-norm solutions with the tile QR (LAPACK's xGELS).
 *
 * The QR is always of the tall one of A and A^H (m >= n: A, else A^H, formed
 * explicitly: we have no LQ). With M = that matrix (rows >= cols), M = Q R:
 *  - op(A) = M (trans 'N' with m >= n, or trans 'C' with m < n): least squares,
 *    min ||B - M X||: X = R^-1 (Q^H B)(1:cols);
 *  - op(A) = M^H: minimum-norm solution of M^H X = B: X = Q [R^-H B; 0].
 * The triangular solves run on views of the first cols rows, so the
 * descriptors over A and B are rebuilt between the phases (a descriptor is a
 * registration of memory: two over the same bytes must not be live at once).
 *
 * On exit A holds the tile QR of A (m >= n) or the conjugate transpose of the
 * tile QR of A^H (m < n; then R^H, LAPACK's L, is in A's lower triangle): R
 * (or L) is LAPACK's up to the signs of its rows, the reflectors are those of
 * the tile algorithm, not LAPACK's. */
#include <stdlib.h>
#include <string.h>
#include "algorithms.h"

/* M = A^H, A m x n, M n x m with leading dimension n */
static void conj_transpose(int m, int n, const starsolve_complex64_t *A, int lda, starsolve_complex64_t *M, int ldm)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++)
            M[j + (size_t)i * ldm] = conj(A[i + (size_t)j * lda]);
}

/* rows x cols, in LAPACK layout, as a descriptor of tile size nb that views it */
static starsolve_desc_t *view(int rows, int cols, int nb, void *X, int ldx)
{
    starsolve_desc_t *d = NULL;
    starsolve_desc_create_lapack(&d, STARSOLVE_Z, rows, cols, nb, X, ldx);
    return d;
}

/* B(1:k, :) = op(R)^-1 B(1:k, :), R the k x k upper triangle at the top of M */
static int triangular_solve(char trans, int k, int nrhs, int nb, starsolve_complex64_t *M, int ldm,
                            starsolve_complex64_t *B, int ldb, starsolve_request_t *req)
{
    starsolve_desc_t *dR = view(k, k, nb, M, ldm), *dB = view(k, nrhs, nb, B, ldb);
    pztrsm('U', trans, 'N', dR, dB);
    int info = starsolve_request_wait(req);
    starsolve_desc_destroy(dB);
    starsolve_desc_destroy(dR);
    return info;
}

/* B = op(Q) B with the Q of M's factorization; B has M's rows */
static int apply_q(char trans, int rows, int cols, int nrhs, int nb, starsolve_complex64_t *M, int ldm,
                   starsolve_desc_t *T, starsolve_complex64_t *B, int ldb, starsolve_request_t *req)
{
    starsolve_desc_t *dM = view(rows, cols, nb, M, ldm), *dB = view(rows, nrhs, nb, B, ldb);
    pzunmqr('L', trans, dM, T, dB);
    int info = starsolve_request_wait(req);
    starsolve_desc_destroy(dB);
    starsolve_desc_destroy(dM);
    return info;
}

int starsolve_zgels(char trans, int m, int n, int nrhs, starsolve_complex64_t *A, int lda,
                    starsolve_complex64_t *B, int ldb)
{
    SS_PUBLIC_CALL;
    const char *me = "starsolve_zgels";
    trans = ss_upper(trans);
#if defined(STARSOLVE_PRECISION_S) || defined(STARSOLVE_PRECISION_D)
    if (trans == 'T') trans = 'C';   /* LAPACK's sgels/dgels take 'T': for real A it is A^H */
#endif
    if (trans != 'N' && trans != 'C') return ss_arg_error(me, -1);
    if (m < 0) return ss_arg_error(me, -2);
    if (n < 0) return ss_arg_error(me, -3);
    if (nrhs < 0) return ss_arg_error(me, -4);
    if (!A && m > 0 && n > 0) return ss_arg_error(me, -5);
    if (lda < ss_max(1, m)) return ss_arg_error(me, -6);
    if (!B && ss_max(m, n) > 0 && nrhs > 0) return ss_arg_error(me, -7);
    if (ldb < ss_max(1, ss_max(m, n))) return ss_arg_error(me, -8);
    if (nrhs == 0) return 0;
    if (ss_min(m, n) == 0) {   /* as LAPACK: the solution of an empty system is zero */
        for (int j = 0; j < nrhs; j++)
            memset(B + (size_t)j * ldb, 0, (size_t)ss_max(m, n) * sizeof *B);
        return 0;
    }
    if (ss_ensure_init()) return -1000;

    /* M = A or A^H, rows >= cols */
    int rows = ss_max(m, n), cols = ss_min(m, n), ldm = lda;
    starsolve_complex64_t *M = A;
    if (m < n) {
        M = malloc((size_t)rows * cols * sizeof *M);
        if (!M) return -1000;   /* out of memory, as when StarPU cannot start */
        conj_transpose(m, n, A, lda, M, rows);
        ldm = rows;
    }
    int least_squares = (m >= n) == (trans == 'N');

    starsolve_request_t *req = starsolve_request_create();
    int nb = starsolve_get_nb_for(STARSOLVE_GEQRF, cols);
    starsolve_desc_t *dM = view(rows, cols, nb, M, ldm), *T = NULL;
    starsolve_qr_workspace_create(&T, dM);
    pzgeqrf(dM, T);
    int info = starsolve_request_wait(req);
    starsolve_desc_destroy(dM);
    /* as LAPACK: a zero on R's diagonal means A has not full rank, and there is no solution */
    for (int i = 0; i < cols && info == 0; i++)
        if (M[i + (size_t)i * ldm] == 0.0)
            info = i + 1;
    if (info == 0 && least_squares) {
        info = apply_q('C', rows, cols, nrhs, nb, M, ldm, T, B, ldb, req);
        if (info == 0)
            info = triangular_solve('N', cols, nrhs, nb, M, ldm, B, ldb, req);
    } else if (info == 0) {
        info = triangular_solve('C', cols, nrhs, nb, M, ldm, B, ldb, req);
        for (int j = 0; j < nrhs; j++)
            memset(B + cols + (size_t)j * ldb, 0, (size_t)(rows - cols) * sizeof *B);
        if (info == 0)
            info = apply_q('N', rows, cols, nrhs, nb, M, ldm, T, B, ldb, req);
    }
    starsolve_desc_destroy(T);
    starsolve_request_destroy(req);
    if (M != A) {
        conj_transpose(rows, cols, M, ldm, A, lda);
        free(M);
    }
    return info;
}
