/* Test matrices: random, and Hermitian positive definite. */
#include <complex.h>
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
