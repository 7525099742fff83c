/* Test matrices: random, Hermitian positive definite, and band matrices of a given diagonal dominance. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <lapacke.h>
#include "check.h"

void gen_zmatrix(int m, int n, starsolve_complex64_t *A, int lda, unsigned seed)
{
    /* LAPACK's generator wants 4 ints in 0..4095, the last odd */
    int iseed[4] = { (int)(seed & 4095), (int)((seed >> 12) & 4095), (int)((seed >> 24) & 255), 1 + 2 * (int)(seed % 2000) };
    for (int j = 0; j < n; j++)   /* column by column: m*n may exceed an int */
        LAPACKE_zlarnv_work(2, iseed, m, A + (size_t)j * lda);
}

void gen_zhpd(int n, starsolve_complex64_t *A, int lda, unsigned seed)
{
    gen_zmatrix(n, n, A, lda, seed);
    for (int j = 0; j < n; j++) {
        for (int i = j + 1; i < n; i++)
            A[i + (size_t)j * lda] = conj(A[j + (size_t)i * lda]);
        A[j + (size_t)j * lda] = creal(A[j + (size_t)j * lda]) + n;
    }
}

void gen_zband(int n, int kl, int ku, double dominance, starsolve_complex64_t *AB, int ldab, unsigned seed)
{
    starsolve_complex64_t *col = malloc((size_t)(kl + ku + 1) * sizeof *col);
    double *rowsum = calloc((size_t)n + 1, sizeof *rowsum);
    for (int j = 0; j < n; j++) {
        for (int i = 0; i < ldab; i++)
            AB[i + (size_t)j * ldab] = 0;
        gen_zmatrix(kl + ku + 1, 1, col, kl + ku + 1, seed + (unsigned)j);
        for (int i = (j - ku > 0 ? j - ku : 0); i <= (j + kl < n - 1 ? j + kl : n - 1); i++)
            if (i != j) {
                AB[kl + ku + i - j + (size_t)j * ldab] = col[ku + i - j];
                rowsum[i] += cabs(col[ku + i - j]);
            }
    }
    for (int i = 0; i < n; i++)
        AB[kl + ku + (size_t)i * ldab] = dominance * (rowsum[i] > 0 ? rowsum[i] : 1.0);
    free(col);
    free(rowsum);
}
