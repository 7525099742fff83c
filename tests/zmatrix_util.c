/* Matrix helpers shared by the LU and Cholesky tests of one precision (generic
 * source, see scripts/genprec.sh): padded allocation, copies, comparisons. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <lapacke.h>
#include "../tests/testing.h"

/* ld x n matrix filled with PAD_VALUE: generators and copies then write the
 * first m rows of each column, and the rest is padding to watch. */
starsolve_complex64_t *test_znew_matrix(int ld, int n)
{
    size_t count = (size_t)ld * (size_t)n;
    starsolve_complex64_t *A = testing_alloc(count * sizeof *A);
    for (size_t k = 0; k < count; k++)
        A[k] = PAD_VALUE;
    return A;
}

void test_zcopy_matrix(int m, int n, const starsolve_complex64_t *src, int lds, starsolve_complex64_t *dst, int ldd)
{
    LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', m, n, src, lds, dst, ldd);
}

/* Bitwise equality of two m x n matrices (for "left untouched"). */
int test_zsame_matrix(int m, int n, const starsolve_complex64_t *A, int lda, const starsolve_complex64_t *B, int ldb)
{
    for (int j = 0; j < n; j++)
        if (memcmp(A + (size_t)j * lda, B + (size_t)j * ldb, (size_t)m * sizeof *A) != 0)
            return 0;
    return 1;
}

int test_zpad_intact(int m, int n, const starsolve_complex64_t *A, int lda)
{
    for (int j = 0; j < n; j++)
        for (int i = m; i < lda; i++)
            if (A[i + (size_t)j * lda] != PAD_VALUE)
                return 0;
    return 1;
}

/* Entries that are NaN or infinite. */
int test_zcount_nonfinite(int m, int n, const starsolve_complex64_t *A, int lda)
{
    int count = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++)
            count += !isfinite(cabs(A[i + (size_t)j * lda]));   /* cabs of a NaN or Inf part is not finite */
    return count;
}
