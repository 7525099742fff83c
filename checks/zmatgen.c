/* Test matrices: random, Hermitian positive definite, and band matrices of a given diagonal dominance. */
#include <complex.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include <lapacke.h>
#include "check.h"

/* Large matrices: each column has a seed of its own, so that several threads can fill
 * the matrix (one thread took about as long as the GPU factorization of a
 * 40000 x 40000 one). LAPACK's generator is a linear congruential one: seeds
 * close to each other give related columns (a 64 x 64 matrix came out
 * singular), so a column's 48-bit seed is a well-mixed hash (splitmix64) of
 * the matrix's seed and the column index. */
static void column_seed(unsigned seed, int j, int iseed[4])
{
    unsigned long long h = ((unsigned long long)seed << 32 | (unsigned)j) + 0x9e3779b97f4a7c15ull;
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
    h ^= h >> 31;
    /* LAPACK wants 4 ints in 0..4095, the last odd */
    for (int k = 0; k < 4; k++)
        iseed[k] = (int)((h >> (12 * k)) & 4095);
    iseed[3] |= 1;
}

struct column_range { int m, lda, first, last; starsolve_complex64_t *A; unsigned seed; };

static void *fill_columns(void *arg)
{
    const struct column_range *r = arg;
    for (int j = r->first; j < r->last; j++) {
        int iseed[4];
        column_seed(r->seed, j, iseed);
        LAPACKE_zlarnv_work(2, iseed, r->m, r->A + (size_t)j * r->lda);
    }
    return NULL;
}

void gen_zmatrix(int m, int n, starsolve_complex64_t *A, int lda, unsigned seed)
{
    if ((double)m * n < 16e6) {
        /* small: one sequence down the columns, the matrices the tests' cases were chosen on
         * (test_spike's single-precision d = 1 case falls back to gbsv on some other draws) */
        int iseed[4] = { (int)(seed & 4095), (int)((seed >> 12) & 4095), (int)((seed >> 24) & 255),
                         1 + 2 * (int)(seed % 2000) };
        for (int j = 0; j < n; j++)   /* column by column: m*n may exceed an int */
            LAPACKE_zlarnv_work(2, iseed, m, A + (size_t)j * lda);
        return;
    }
    enum { MAX_THREADS = 64 };
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int nthreads = (int)(cores < 1 ? 1 : cores > MAX_THREADS ? MAX_THREADS : cores);
    if (nthreads > n)
        nthreads = n > 0 ? n : 1;
    struct column_range range[MAX_THREADS];
    pthread_t thread[MAX_THREADS];
    int running[MAX_THREADS] = { 0 };
    for (int t = 0; t < nthreads; t++) {
        range[t] = (struct column_range){ m, lda, (int)((long)n * t / nthreads), (int)((long)n * (t + 1) / nthreads), A,
                                          seed };
        /* the last range, or one whose thread did not start, runs here */
        running[t] = t + 1 < nthreads && pthread_create(&thread[t], NULL, fill_columns, &range[t]) == 0;
        if (!running[t])
            fill_columns(&range[t]);
    }
    for (int t = 0; t < nthreads; t++)
        if (running[t])
            pthread_join(thread[t], NULL);
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
