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

/* The matrix a check compares with: stored (A0, lda0), or regenerated slab by slab
 * from the recipe `gen` when there is no room for a copy. */
struct zsource {
    const starsolve_complex64_t *A0;
    int lda0;
    const struct matgen *gen;
};

/* W = A0 X (A0 m x n, X n x nrhs); returns ||A0||_1 */
static double source_multiply(const struct zsource *a, int m, int n, int nrhs, const starsolve_complex64_t *X, int ldx,
                              starsolve_complex64_t *W, int ldw)
{
    const starsolve_complex64_t one = 1.0, zero = 0.0;
    if (a->gen)
        return gen_zmatrix_multiply(a->gen, nrhs, X, ldx, W, ldw);
    cblas_zgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, nrhs, n, CBLAS_SADDR(one), a->A0, a->lda0, X, ldx,
                CBLAS_SADDR(zero), W, ldw);
    return znorm1(m, n, a->A0, a->lda0);
}

/* The estimates compare A0 x with the factors' product on a few random vectors. */
enum { ESTIMATE_VECTORS = 3 };

static starsolve_complex64_t *estimate_vectors(int n)
{
    starsolve_complex64_t *X = malloc(((size_t)n * ESTIMATE_VECTORS + 1) * sizeof *X);
    for (int t = 0; t < ESTIMATE_VECTORS && X; t++)
        gen_zmatrix(n, 1, X + (size_t)t * n, n, 7919u * (t + 1));
    return X;
}

/* What the factors get wrong on one vector: given x (n) and w = A0 x (m), leave in w
 * P A0 x - L (U x) or A0 x - T (T^H x); y is scratch of max(m, n) entries. */
typedef void (*estimate_residual)(const void *factors, const starsolve_complex64_t *x, starsolve_complex64_t *w,
                                  starsolve_complex64_t *y);

/* max over the vectors x of ||residual(x)||_1 / (||A0||_1 ||x||_1 max(m,n) eps) */
static double estimate(int m, int n, const struct zsource *a, estimate_residual residual, const void *factors)
{
    int mn = m > n ? m : n;
    starsolve_complex64_t *X = estimate_vectors(n), *W = malloc((size_t)m * ESTIMATE_VECTORS * sizeof *W);
    starsolve_complex64_t *y = malloc((size_t)mn * sizeof *y);
    if (!X || !W || !y) {
        free(X); free(W); free(y);
        return NAN;
    }
    double anorm = source_multiply(a, m, n, ESTIMATE_VECTORS, X, n, W, m), worst = 0;
    for (int t = 0; t < ESTIMATE_VECTORS; t++) {
        const starsolve_complex64_t *x = X + (size_t)t * n;
        starsolve_complex64_t *w = W + (size_t)t * m;
        residual(factors, x, w, y);
        double r = znorm1(m, 1, w, m) / (anorm * znorm1(n, 1, x, n) * mn * zeps());
        if (r > worst || isnan(r))
            worst = r;
    }
    free(X); free(W); free(y);
    return worst;
}

/* LU's factors (ipiv NULL: no pivoting) */
struct lu_factors {
    int m, n, ldlu;
    const starsolve_complex64_t *LU;
    const int *ipiv;
};

static void lu_residual(const void *factors, const starsolve_complex64_t *x, starsolve_complex64_t *w,
                        starsolve_complex64_t *y)
{
    const struct lu_factors *f = factors;
    const starsolve_complex64_t one = 1.0, zero = 0.0, mone = -1.0;
    const int m = f->m, n = f->n, ldlu = f->ldlu, k = m < n ? m : n, mn = m > n ? m : n;
    const starsolve_complex64_t *LU = f->LU;
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
    if (f->ipiv)
        LAPACKE_zlaswp_work(LAPACK_COL_MAJOR, 1, w, m, 1, k, f->ipiv, 1);
    cblas_zaxpy(m, CBLAS_SADDR(mone), y, 1, w, 1);
}

static double getrf_estimate(int m, int n, const struct zsource *a, const starsolve_complex64_t *LU, int ldlu,
                             const int *ipiv)
{
    const struct lu_factors f = { m, n, ldlu, LU, ipiv };
    return estimate(m, n, a, lu_residual, &f);
}

/* Cholesky's factor: A0 = T T^H (uplo L) or T^H T (uplo U) */
struct cholesky_factor {
    char uplo;
    int n, ldf;
    const starsolve_complex64_t *F;
};

static void cholesky_residual(const void *factor, const starsolve_complex64_t *x, starsolve_complex64_t *w,
                              starsolve_complex64_t *y)
{
    const struct cholesky_factor *f = factor;
    const starsolve_complex64_t mone = -1.0;
    CBLAS_TRANSPOSE first = f->uplo == 'L' ? CblasNoTrans : CblasConjTrans;
    CBLAS_TRANSPOSE second = f->uplo == 'L' ? CblasConjTrans : CblasNoTrans;
    CBLAS_UPLO tu = f->uplo == 'L' ? CblasLower : CblasUpper;
    memcpy(y, x, (size_t)f->n * sizeof *y);
    cblas_ztrmv(CblasColMajor, tu, second, CblasNonUnit, f->n, f->F, f->ldf, y, 1);
    cblas_ztrmv(CblasColMajor, tu, first, CblasNonUnit, f->n, f->F, f->ldf, y, 1);
    cblas_zaxpy(f->n, CBLAS_SADDR(mone), y, 1, w, 1);
}

static double potrf_estimate(char uplo, int n, const struct zsource *a, const starsolve_complex64_t *F, int ldf)
{
    const struct cholesky_factor f = { uplo, n, ldf, F };
    return estimate(n, n, a, cholesky_residual, &f);
}

/* max over columns of ||R(:, j)||_1 / (anorm ||X(:, j)||_1 n eps), R = B0 - op(A0) X */
static double solve_ratio(int n, int nrhs, const starsolve_complex64_t *R, int ldr, double anorm,
                          const starsolve_complex64_t *X, int ldx)
{
    double worst = 0;
    for (int j = 0; j < nrhs; j++) {
        double r = znorm1(n, 1, R + (size_t)j * ldr, n) / (anorm * znorm1(n, 1, X + (size_t)j * ldx, n) * n * zeps());
        if (r > worst || isnan(r))
            worst = r;
    }
    return worst;
}

double check_zgetrf(int m, int n, const starsolve_complex64_t *A0, int lda0, const starsolve_complex64_t *LU,
                    int ldlu, const int *ipiv, int exact)
{
    const starsolve_complex64_t one = 1.0, mone = -1.0;
    int k = m < n ? m : n, mn = m > n ? m : n;
    if (m == 0 || n == 0)
        return 0;
    for (int i = 0; ipiv && i < k; i++)   /* a pivot LAPACK cannot give fails the check instead of corrupting it */
        if (ipiv[i] < i + 1 || ipiv[i] > m)
            return INFINITY;
    if (exact) {
        double anorm = znorm1(m, n, A0, lda0), resid;
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
    return getrf_estimate(m, n, &(struct zsource){ A0, lda0, NULL }, LU, ldlu, ipiv);
}

double check_zgetrf_matgen(const struct matgen *g, const starsolve_complex64_t *LU, int ldlu, const int *ipiv)
{
    if (g->m == 0 || g->n == 0)
        return 0;
    return getrf_estimate(g->m, g->n, &(struct zsource){ NULL, 0, g }, LU, ldlu, ipiv);
}

double check_zpotrf(char uplo, int n, const starsolve_complex64_t *A0, int lda0, const starsolve_complex64_t *F,
                    int ldf, int exact)
{
    const starsolve_complex64_t one = 1.0, mone = -1.0;
    if (n == 0)
        return 0;
    if (exact) {
        /* A = L L^H = T T^H with T = L, or A = U^H U = T^H T with T = U */
        CBLAS_TRANSPOSE first = uplo == 'L' ? CblasNoTrans : CblasConjTrans;
        CBLAS_TRANSPOSE second = uplo == 'L' ? CblasConjTrans : CblasNoTrans;
        double anorm = znorm1(n, n, A0, lda0), resid;
        starsolve_complex64_t *T = triangle(uplo, n, n, F, ldf, 0);
        starsolve_complex64_t *R = malloc((size_t)n * n * sizeof *R);
        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', n, n, A0, lda0, R, n);
        cblas_zgemm(CblasColMajor, first, second, n, n, n, CBLAS_SADDR(mone), T, n, T, n, CBLAS_SADDR(one), R, n);
        resid = znorm1(n, n, R, n);
        free(T); free(R);
        return resid / (anorm * n * zeps());
    }
    return potrf_estimate(uplo, n, &(struct zsource){ A0, lda0, NULL }, F, ldf);
}

double check_zpotrf_matgen(char uplo, const struct matgen *g, const starsolve_complex64_t *F, int ldf)
{
    if (g->n == 0)
        return 0;
    return potrf_estimate(uplo, g->n, &(struct zsource){ NULL, 0, g }, F, ldf);
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
    double worst = solve_ratio(n, nrhs, R, n, anorm, X, ldx);
    free(R);
    return worst;
}

double check_zsolve_matgen(const struct matgen *g, int nrhs, const starsolve_complex64_t *X, int ldx,
                           const starsolve_complex64_t *B0, int ldb0)
{
    const int n = g->n;
    if (n == 0 || nrhs == 0)
        return 0;
    starsolve_complex64_t *R = malloc((size_t)n * nrhs * sizeof *R);
    if (!R)
        return NAN;
    double anorm = gen_zmatrix_multiply(g, nrhs, X, ldx, R, n);   /* R = A0 X, then B0 - R */
    for (int j = 0; j < nrhs; j++)
        for (int i = 0; i < n; i++)
            R[i + (size_t)j * n] = B0[i + (size_t)j * ldb0] - R[i + (size_t)j * n];
    double worst = solve_ratio(n, nrhs, R, n, anorm, X, ldx);
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
    /* scaled by max(m, n), as LAPACK's xQRT02 (M): with n, a 100 x 1 matrix in 1-row tiles (a chain of
     * 100 reflector updates) failed at 17 and 44 where LAPACK's test reads 0.17 and 0.44 */
    int mn = m > n ? m : n;
    double resid = znorm1(m, n, D, m) / (znorm1(m, n, A0, lda0) * mn * zeps());
    /* I - Q^H Q */
    starsolve_complex64_t *E = malloc((size_t)k * k * sizeof *E);
    LAPACKE_zlaset_work(LAPACK_COL_MAJOR, 'A', k, k, 0.0, 1.0, E, k);
    cblas_zgemm(CblasColMajor, CblasConjTrans, CblasNoTrans, k, k, m, CBLAS_SADDR(mone), Q, ldq, Q, ldq,
                CBLAS_SADDR(one), E, k);
    *orth = znorm1(k, k, E, k) / (mn * zeps());
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
