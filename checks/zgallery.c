/* Test matrices for the accuracy study of the RBT solver: random ones, given
 * condition numbers, matrices that break LU without pivoting, and classic
 * matrices of Higham's gallery (MATLAB's `gallery`, Higham, "Accuracy and
 * Stability of Numerical Algorithms", 2nd ed., ch. 28). All are real; complex
 * precisions get them with zero imaginary parts, except the random kinds. */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <lapacke.h>
#include "check.h"

static void lapack_seed(unsigned seed, int iseed[4])
{
    iseed[0] = (int)(seed & 4095);
    iseed[1] = (int)((seed >> 12) & 4095);
    iseed[2] = (int)((seed >> 24) & 255);
    iseed[3] = 1 + 2 * (int)(seed % 2000);
}

/* singular values from 1 down to 1/cond, geometrically (LAPACK's latms mode 3),
 * between random orthogonal (unitary) matrices */
static int conditioned(int n, double cond, starsolve_complex64_t *A, int lda, unsigned seed)
{
    int iseed[4];
    lapack_seed(seed, iseed);
    double *d = malloc((size_t)n * sizeof *d);
    starsolve_complex64_t *work = malloc((size_t)3 * n * sizeof *work);
    int info = d && work ? LAPACKE_zlatms_work(LAPACK_COL_MAJOR, n, n, 'U', iseed, 'N', d, 3, cond, 1.0, n - 1, n - 1,
                                               'N', A, lda, work) : -1;
    free(d); free(work);
    return info == 0 ? 0 : -1;
}

/* Chebyshev spectral differentiation matrix of order m (gallery('chebspec', m, 0)), entry (i, j) 0-based */
static double chebspec0(int m, int i, int j)
{
    double xi = cos(M_PI * i / (m - 1)), xj = cos(M_PI * j / (m - 1));
    double ci = (i == 0 || i == m - 1) ? 2 : 1, cj = (j == 0 || j == m - 1) ? 2 : 1;
    if (i != j)
        return ci / cj * (((i + j) % 2) ? -1.0 : 1.0) / (xi - xj);
    double corner = (2.0 * (m - 1) * (m - 1) + 1) / 6.0;
    if (i == 0) return corner;
    if (i == m - 1) return -corner;
    return -xj / (2.0 * (1 - xj * xj));
}

int gen_zgallery(const char *kind, int n, starsolve_complex64_t *A, int lda, unsigned seed)
{
    int iseed[4];
    for (int j = 0; j < n; j++)
        memset(A + (size_t)j * lda, 0, (size_t)n * sizeof *A);
    if (!strcmp(kind, "rand")) {                 /* uniform in (-1, 1) */
        gen_zmatrix(n, n, A, lda, seed);
    } else if (!strcmp(kind, "randn")) {         /* standard normal */
        lapack_seed(seed, iseed);
        for (int j = 0; j < n; j++)
            LAPACKE_zlarnv_work(3, iseed, n, A + (size_t)j * lda);
    } else if (!strcmp(kind, "cond1e8")) {
        return conditioned(n, 1e8, A, lda, seed);
    } else if (!strcmp(kind, "cond1e12")) {
        return conditioned(n, 1e12, A, lda, seed);
    } else if (!strcmp(kind, "zerodiag")) {      /* random, zero diagonal: LU without pivoting fails at once */
        gen_zmatrix(n, n, A, lda, seed);
        for (int j = 0; j < n; j++)
            A[j + (size_t)j * lda] = 0;
    } else if (!strcmp(kind, "zeroblock")) {     /* random, zero leading n/4 x n/4 block */
        gen_zmatrix(n, n, A, lda, seed);
        for (int j = 0; j < (n + 3) / 4; j++)
            for (int i = 0; i < (n + 3) / 4; i++)
                A[i + (size_t)j * lda] = 0;
    } else if (!strcmp(kind, "fiedler")) {       /* |i - j|: symmetric, zero diagonal */
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                A[i + (size_t)j * lda] = abs(i - j);
    } else if (!strcmp(kind, "lotkin")) {        /* Hilbert matrix with its first row set to ones */
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                A[i + (size_t)j * lda] = i == 0 ? 1.0 : 1.0 / (i + j + 1);
    } else if (!strcmp(kind, "chebspec")) {      /* gallery('chebspec', n, 1): order n+1 without its first row and column */
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                A[i + (size_t)j * lda] = chebspec0(n + 1, i + 1, j + 1);
    } else if (!strcmp(kind, "ris")) {           /* 0.5 / (n - i - j + 1.5), 1-based */
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                A[i + (size_t)j * lda] = 0.5 / (n - (i + 1) - (j + 1) + 1.5);
    } else if (!strcmp(kind, "orthog")) {        /* sqrt(2/(n+1)) sin(i j pi / (n+1)), symmetric orthogonal */
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                A[i + (size_t)j * lda] = sqrt(2.0 / (n + 1)) * sin((i + 1) * (j + 1) * M_PI / (n + 1));
    } else if (!strcmp(kind, "kahan")) {
        /* MATLAB's gallery('kahan', n): upper triangular, theta = 1.2, diag(s^i) (I - c triu(1)) plus its
         * diagonal perturbation pert eps diag(n:-1:1), pert = 1e3. Without it s^i underflows: the diagonal
         * is denormal from i = 10066 (0-based) and exactly 0 from i = 10588: singular at n = 20000. */
        double s = sin(1.2), c = cos(1.2), pert = 1e3;
        for (int i = 0; i < n; i++) {
            double si = pow(s, i);
            A[i + (size_t)i * lda] = si + pert * DBL_EPSILON * (n - i);
            for (int j = i + 1; j < n; j++)
                A[i + (size_t)j * lda] = -c * si;
        }
    } else if (!strcmp(kind, "wilkinson")) {     /* growth 2^(n-1) for partial pivoting: 1 on the diagonal, -1 below, last column 1 */
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                A[i + (size_t)j * lda] = j == n - 1 || i == j ? 1.0 : i > j ? -1.0 : 0.0;
    } else {
        return -1;
    }
    return 0;
}
