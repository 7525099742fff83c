/* Scaled residuals of factorizations and solves (LAPACK's test ratios). */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include <lapacke.h>
#include "check.h"

/* 1-norm of an m x n matrix, with 64-bit offsets (n*lda may exceed 2^31). */
static double znorm1(int m, int n, const starsolve_complex64_t *A, int lda)
{
    double best = 0;
    for (int j = 0; j < n; j++) {
        double s = 0;
        for (int i = 0; i < m; i++)
            s += cabs(A[i + (size_t)j * lda]);
        if (s > best || isnan(s))
            best = s;
    }
    return best;
}

/* 1-norm of the transpose (the infinity norm). */
static double znormi(int m, int n, const starsolve_complex64_t *A, int lda)
{
    double *rows = calloc((size_t)m + 1, sizeof *rows), best = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++)
            rows[i] += cabs(A[i + (size_t)j * lda]);
    for (int i = 0; i < m; i++)
        if (rows[i] > best || isnan(rows[i]))
            best = rows[i];
    free(rows);
    return best;
}

static double zeps(void) { return LAPACKE_dlamch_work('E'); }

/* Copy the triangle `uplo` of F (n x n), zeros elsewhere, unit diagonal if asked. */
static starsolve_complex64_t *triangle(char uplo, int m, int n, const starsolve_complex64_t *F, int ldf, int unit)
{
    starsolve_complex64_t *T = calloc((size_t)m * n + 1, sizeof *T);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            starsolve_complex64_t v = F[i + (size_t)j * ldf];
            if (i == j)
                T[i + (size_t)j * m] = unit ? 1.0 : v;
            else if ((uplo == 'L') == (i > j))
                T[i + (size_t)j * m] = v;
        }
    return T;
}

double check_zgetrf(int m, int n, const starsolve_complex64_t *A0, int lda0, const starsolve_complex64_t *LU,
                    int ldlu, const int *ipiv, int exact)
{
    const starsolve_complex64_t one = 1.0, zero = 0.0, mone = -1.0;
    int k = m < n ? m : n, mn = m > n ? m : n;
    double anorm = znorm1(m, n, A0, lda0), resid;
    if (m == 0 || n == 0)
        return 0;
    if (exact) {
        starsolve_complex64_t *L = triangle('L', m, k, LU, ldlu, 1), *U = triangle('U', k, n, LU, ldlu, 0);
        starsolve_complex64_t *R = malloc((size_t)m * n * sizeof *R);
        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', m, n, A0, lda0, R, m);
        if (ipiv)
            LAPACKE_zlaswp_work(LAPACK_COL_MAJOR, n, R, m, 1, k, ipiv, 1);
        cblas_zgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, CBLAS_SADDR(mone), L, m, U, k,
                    CBLAS_SADDR(one), R, m);
        resid = znorm1(m, n, R, m);
        free(L); free(U); free(R);
        return resid / (anorm * mn * zeps());
    }
    /* estimate: compare P A0 x with L (U x) for a few random x */
    starsolve_complex64_t *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)mn * sizeof *y);
    starsolve_complex64_t *w = malloc((size_t)m * sizeof *w);
    double worst = 0;
    for (int t = 0; t < 3; t++) {
        gen_zmatrix(n, 1, x, n, 7919u * (t + 1));
        memset(y, 0, (size_t)mn * sizeof *y);
        memcpy(y, x, (size_t)k * sizeof *y);                       /* y = U x */
        cblas_ztrmv(CblasColMajor, CblasUpper, CblasNoTrans, CblasNonUnit, k, LU, ldlu, y, 1);
        if (n > k)
            cblas_zgemv(CblasColMajor, CblasNoTrans, k, n - k, CBLAS_SADDR(one), LU + (size_t)k * ldlu, ldlu,
                        x + k, 1, CBLAS_SADDR(one), y, 1);
        if (m > k)                                                  /* rows below k: L21 y */
            cblas_zgemv(CblasColMajor, CblasNoTrans, m - k, k, CBLAS_SADDR(one), LU + k, ldlu, y, 1,
                        CBLAS_SADDR(zero), y + k, 1);
        cblas_ztrmv(CblasColMajor, CblasLower, CblasNoTrans, CblasUnit, k, LU, ldlu, y, 1);
        cblas_zgemv(CblasColMajor, CblasNoTrans, m, n, CBLAS_SADDR(one), A0, lda0, x, 1, CBLAS_SADDR(zero), w, 1);
        if (ipiv)
            LAPACKE_zlaswp_work(LAPACK_COL_MAJOR, 1, w, m, 1, k, ipiv, 1);
        cblas_zaxpy(m, CBLAS_SADDR(mone), y, 1, w, 1);
        double r = znorm1(m, 1, w, m) / (anorm * znorm1(n, 1, x, n) * mn * zeps());
        if (r > worst || isnan(r))
            worst = r;
    }
    free(x); free(y); free(w);
    return worst;
}

double check_zpotrf(char uplo, int n, const starsolve_complex64_t *A0, int lda0, const starsolve_complex64_t *F,
                    int ldf, int exact)
{
    const starsolve_complex64_t one = 1.0, zero = 0.0, mone = -1.0;
    if (n == 0)
        return 0;
    double anorm = znorm1(n, n, A0, lda0), resid;
    /* A = L L^H = T T^H with T = L, or A = U^H U = T^H T with T = U */
    CBLAS_TRANSPOSE first = uplo == 'L' ? CblasNoTrans : CblasConjTrans;
    CBLAS_TRANSPOSE second = uplo == 'L' ? CblasConjTrans : CblasNoTrans;
    if (exact) {
        starsolve_complex64_t *T = triangle(uplo, n, n, F, ldf, 0);
        starsolve_complex64_t *R = malloc((size_t)n * n * sizeof *R);
        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', n, n, A0, lda0, R, n);
        cblas_zgemm(CblasColMajor, first, second, n, n, n, CBLAS_SADDR(mone), T, n, T, n, CBLAS_SADDR(one), R, n);
        resid = znorm1(n, n, R, n);
        free(T); free(R);
        return resid / (anorm * n * zeps());
    }
    starsolve_complex64_t *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    starsolve_complex64_t *w = malloc((size_t)n * sizeof *w);
    CBLAS_UPLO tu = uplo == 'L' ? CblasLower : CblasUpper;
    double worst = 0;
    for (int t = 0; t < 3; t++) {
        gen_zmatrix(n, 1, x, n, 7919u * (t + 1));
        memcpy(y, x, (size_t)n * sizeof *y);
        cblas_ztrmv(CblasColMajor, tu, second, CblasNonUnit, n, F, ldf, y, 1);
        cblas_ztrmv(CblasColMajor, tu, first, CblasNonUnit, n, F, ldf, y, 1);
        cblas_zgemv(CblasColMajor, CblasNoTrans, n, n, CBLAS_SADDR(one), A0, lda0, x, 1, CBLAS_SADDR(zero), w, 1);
        cblas_zaxpy(n, CBLAS_SADDR(mone), y, 1, w, 1);
        double r = znorm1(n, 1, w, n) / (anorm * znorm1(n, 1, x, n) * n * zeps());
        if (r > worst || isnan(r))
            worst = r;
    }
    free(x); free(y); free(w);
    return worst;
}

double check_zsolve(char trans, int n, int nrhs, const starsolve_complex64_t *A0, int lda0,
                    const starsolve_complex64_t *X, int ldx, const starsolve_complex64_t *B0, int ldb0)
{
    const starsolve_complex64_t one = 1.0, mone = -1.0;
    if (n == 0 || nrhs == 0)
        return 0;
    double anorm = trans == 'N' ? znorm1(n, n, A0, lda0) : znormi(n, n, A0, lda0);
    starsolve_complex64_t *R = malloc((size_t)n * nrhs * sizeof *R);
    LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', n, nrhs, B0, ldb0, R, n);
    CBLAS_TRANSPOSE t = trans == 'N' ? CblasNoTrans : trans == 'T' ? CblasTrans : CblasConjTrans;
    cblas_zgemm(CblasColMajor, t, CblasNoTrans, n, nrhs, n, CBLAS_SADDR(mone), A0, lda0, X, ldx,
                CBLAS_SADDR(one), R, n);
    double worst = 0;
    for (int j = 0; j < nrhs; j++) {
        double r = znorm1(n, 1, R + (size_t)j * n, n) / (anorm * znorm1(n, 1, X + (size_t)j * ldx, n) * n * zeps());
        if (r > worst || isnan(r))
            worst = r;
    }
    free(R);
    return worst;
}

double check_zgeqrf(int m, int n, const starsolve_complex64_t *A0, int lda0, const starsolve_complex64_t *QR,
                    int ldqr, const starsolve_complex64_t *Q, int ldq, double *orth)
{
    const starsolve_complex64_t one = 1.0, mone = -1.0;
    int k = m < n ? m : n;
    *orth = 0;
    if (k == 0)
        return 0;
    /* A0 - Q R, R the k x n upper trapezoid at the top of QR */
    starsolve_complex64_t *R = triangle('U', k, n, QR, ldqr, 0), *D = malloc((size_t)m * n * sizeof *D);
    LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', m, n, A0, lda0, D, m);
    cblas_zgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, CBLAS_SADDR(mone), Q, ldq, R, k,
                CBLAS_SADDR(one), D, m);
    double resid = znorm1(m, n, D, m) / (znorm1(m, n, A0, lda0) * n * zeps());
    /* I - Q^H Q */
    starsolve_complex64_t *E = malloc((size_t)k * k * sizeof *E);
    LAPACKE_zlaset_work(LAPACK_COL_MAJOR, 'A', k, k, 0.0, 1.0, E, k);
    cblas_zgemm(CblasColMajor, CblasConjTrans, CblasNoTrans, k, k, m, CBLAS_SADDR(mone), Q, ldq, Q, ldq,
                CBLAS_SADDR(one), E, k);
    *orth = znorm1(k, k, E, k) / (n * zeps());
    free(R); free(D); free(E);
    return resid;
}

double check_zgels(char trans, int m, int n, int nrhs, const starsolve_complex64_t *A0, int lda0,
                   const starsolve_complex64_t *X, int ldx, const starsolve_complex64_t *B0, int ldb0, double *second)
{
    const starsolve_complex64_t one = 1.0, zero = 0.0, mone = -1.0;
    /* op(A) is rows x cols: X has cols rows, B rows rows */
    int rows = trans == 'N' ? m : n, cols = trans == 'N' ? n : m, mn = m > n ? m : n;
    CBLAS_TRANSPOSE op = trans == 'N' ? CblasNoTrans : trans == 'T' ? CblasTrans : CblasConjTrans;
    *second = 0;
    if (m == 0 || n == 0 || nrhs == 0)
        return 0;
    double anorm = znorm1(m, n, A0, lda0), eps = zeps();
    /* R = B0 - op(A0) X, and the first ratio column by column, as LAPACK's xQRT16 */
    starsolve_complex64_t *R = malloc((size_t)rows * nrhs * sizeof *R);
    LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', rows, nrhs, B0, ldb0, R, rows);
    cblas_zgemm(CblasColMajor, op, CblasNoTrans, rows, nrhs, cols, CBLAS_SADDR(mone), A0, lda0, X, ldx,
                CBLAS_SADDR(one), R, rows);
    double worst = 0;
    for (int j = 0; j < nrhs; j++) {
        double r = znorm1(rows, 1, R + (size_t)j * rows, rows)
                   / (anorm * znorm1(cols, 1, X + (size_t)j * ldx, cols) * mn * eps);
        if (r > worst || isnan(r))
            worst = r;
    }
    if (rows >= cols) {
        /* least squares: the residual is orthogonal to op(A)'s range, ||op(A)^H R|| small (xQRT17) */
        starsolve_complex64_t *C = malloc((size_t)cols * nrhs * sizeof *C);
        CBLAS_TRANSPOSE back = trans == 'N' ? CblasConjTrans : CblasNoTrans;
        cblas_zgemm(CblasColMajor, back, CblasNoTrans, cols, nrhs, rows, CBLAS_SADDR(one), A0, lda0, R, rows,
                    CBLAS_SADDR(zero), C, cols);
        int big = mn > nrhs ? mn : nrhs;
        *second = znorm1(cols, nrhs, C, cols) / (anorm * znorm1(rows, nrhs, B0, ldb0) * big * eps);
        free(C);
    } else {
        /* minimum norm: X lies in op(A)^H's range. Fit X by op(A)^H Z (LAPACK's gels,
         * a tall least-squares problem) and compare: ||X - op(A)^H Z|| / (||X|| max(m,n) eps) */
        starsolve_complex64_t *H = malloc((size_t)cols * rows * sizeof *H), *Z = malloc((size_t)cols * nrhs * sizeof *Z);
        for (int j = 0; j < rows; j++)      /* H = op(A0)^H, cols x rows */
            for (int i = 0; i < cols; i++)
                H[i + (size_t)j * cols] = trans == 'N' ? conj(A0[j + (size_t)i * lda0]) : A0[i + (size_t)j * lda0];
        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', cols, nrhs, X, ldx, Z, cols);
        starsolve_complex64_t *Hc = malloc((size_t)cols * rows * sizeof *Hc);
        memcpy(Hc, H, (size_t)cols * rows * sizeof *H);
        LAPACKE_zgels(LAPACK_COL_MAJOR, 'N', cols, rows, nrhs, Hc, cols, Z, cols);
        starsolve_complex64_t *D = malloc((size_t)cols * nrhs * sizeof *D);
        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', cols, nrhs, X, ldx, D, cols);
        cblas_zgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, cols, nrhs, rows, CBLAS_SADDR(mone), H, cols, Z, cols,
                    CBLAS_SADDR(one), D, cols);
        *second = znorm1(cols, nrhs, D, cols) / (znorm1(cols, nrhs, X, ldx) * mn * eps);
        free(H); free(Z); free(Hc); free(D);
    }
    free(R);
    return worst;
}

double check_zgbsolve(int n, int kl, int ku, int nrhs, const starsolve_complex64_t *AB, int ldab,
                      const starsolve_complex64_t *X, int ldx, const starsolve_complex64_t *B, int ldb, double *relative)
{
    const starsolve_complex64_t one = 1.0, mone = -1.0;
    double anorm = 0, worst = 0;
    *relative = 0;
    if (n == 0 || nrhs == 0)
        return 0;
    for (int j = 0; j < n; j++) {   /* 1-norm of the band */
        double s = 0;
        for (int i = (j - ku > 0 ? j - ku : 0); i <= (j + kl < n - 1 ? j + kl : n - 1); i++)
            s += cabs(AB[kl + ku + i - j + (size_t)j * ldab]);
        anorm = s > anorm || isnan(s) ? s : anorm;
    }
    starsolve_complex64_t *r = malloc((size_t)n * sizeof *r);
    for (int c = 0; c < nrhs; c++) {
        memcpy(r, B + (size_t)c * ldb, (size_t)n * sizeof *r);
        cblas_zgbmv(CblasColMajor, CblasNoTrans, n, n, kl, ku, CBLAS_SADDR(mone), AB + kl, ldab, X + (size_t)c * ldx, 1,
                    CBLAS_SADDR(one), r, 1);
        double q = znorm1(n, 1, r, n) / (anorm * znorm1(n, 1, X + (size_t)c * ldx, n) * n * zeps());
        worst = q > worst || isnan(q) ? q : worst;
        double rmax = znormi(n, 1, r, n), bmax = znormi(n, 1, B + (size_t)c * ldb, n);
        double rel = rmax / bmax;
        *relative = rel > *relative || isnan(rel) ? rel : *relative;
    }
    free(r);
    return worst;
}
