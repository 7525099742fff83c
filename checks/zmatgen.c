/* Test matrices: random, Hermitian positive definite, and band matrices of a given diagonal dominance. */
#include <complex.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
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

/* columns first .. last-1 of the large matrices' sequence; A holds column `first` */
static void *fill_columns(void *arg)
{
    const struct column_range *r = arg;
    for (int j = r->first; j < r->last; j++) {
        int iseed[4];
        column_seed(r->seed, j, iseed);
        LAPACKE_zlarnv_work(2, iseed, r->m, r->A + (size_t)(j - r->first) * r->lda);
    }
    return NULL;
}

enum { MAX_THREADS = 64 };

/* the threads a generator may use for `work` independent pieces */
static int generator_threads(int work)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int nthreads = (int)(cores < 1 ? 1 : cores > MAX_THREADS ? MAX_THREADS : cores);
    return nthreads > work ? (work > 0 ? work : 1) : nthreads;
}

/* Run body(&args[t]) for t < nthreads, on threads (the last one, or one whose
 * thread did not start, on the calling thread). */
static void run_threads(void *(*body)(void *), void *args, size_t arg_size, int nthreads)
{
    pthread_t thread[MAX_THREADS];
    int running[MAX_THREADS] = { 0 };
    for (int t = 0; t < nthreads; t++) {
        void *arg = (char *)args + (size_t)t * arg_size;
        running[t] = t + 1 < nthreads && pthread_create(&thread[t], NULL, body, arg) == 0;
        if (!running[t])
            body(arg);
    }
    for (int t = 0; t < nthreads; t++)
        if (running[t])
            pthread_join(thread[t], NULL);
}

/* columns first .. first+count-1 of a large matrix, on all cores */
static void fill_columns_threaded(int m, int first, int count, starsolve_complex64_t *A, int lda, unsigned seed)
{
    int nthreads = generator_threads(count);
    struct column_range range[MAX_THREADS];
    for (int t = 0; t < nthreads; t++) {
        int lo = first + (int)((long)count * t / nthreads), hi = first + (int)((long)count * (t + 1) / nthreads);
        range[t] = (struct column_range){ m, lda, lo, hi, A + (size_t)(lo - first) * lda, seed };
    }
    run_threads(fill_columns, range, sizeof range[0], nthreads);
}

/* below this many entries a matrix is one sequence down its columns */
static int one_sequence(int m, int n) { return (double)m * n < 16e6; }

void gen_zmatrix(int m, int n, starsolve_complex64_t *A, int lda, unsigned seed)
{
    if (one_sequence(m, n)) {
        /* small: one sequence down the columns, the matrices the tests' cases were chosen on
         * (test_spike's single-precision d = 1 case falls back to gbsv on some other draws) */
        int iseed[4] = { (int)(seed & 4095), (int)((seed >> 12) & 4095), (int)((seed >> 24) & 255),
                         1 + 2 * (int)(seed % 2000) };
        for (int j = 0; j < n; j++)   /* column by column: m*n may exceed an int */
            LAPACKE_zlarnv_work(2, iseed, m, A + (size_t)j * lda);
        return;
    }
    fill_columns_threaded(m, 0, n, A, lda, seed);
}

void gen_zmatrix_columns(int m, int n, int first, int count, starsolve_complex64_t *A, int lda, unsigned seed)
{
    if (!one_sequence(m, n)) {
        fill_columns_threaded(m, first, count, A, lda, seed);
        return;
    }
    /* one sequence: the columns before `first` must be drawn too (small: cheap) */
    starsolve_complex64_t *all = malloc(((size_t)m * (first + count) + 1) * sizeof *all);
    gen_zmatrix(m, first + count, all, m, seed);
    LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', m, count, all + (size_t)first * m, m, A, lda);
    free(all);
}

/* gen_zhpd's mirror of the upper triangle into the lower one, by blocks so that
 * the strided reads of rows stay in cache, block columns dealt out to threads */
struct mirror_range { int n, lda, t, nthreads; starsolve_complex64_t *A; };
enum { MIRROR_BLOCK = 64 };

static void *mirror_blocks(void *arg)
{
    const struct mirror_range *r = arg;
    const int n = r->n, lda = r->lda, B = MIRROR_BLOCK;
    starsolve_complex64_t *A = r->A;
    for (int jb = r->t * B; jb < n; jb += r->nthreads * B)   /* interleaved: the work shrinks with jb */
        for (int ib = jb; ib < n; ib += B)
            for (int j = jb; j < jb + B && j < n; j++)
                for (int i = ib > j + 1 ? ib : j + 1; i < ib + B && i < n; i++)
                    A[i + (size_t)j * lda] = conj(A[j + (size_t)i * lda]);
    return NULL;
}

/* What gen_zhpd adds to the diagonal: more than the largest sum of a row's other entries, so that the matrix is
 * strictly diagonally dominant with a positive real diagonal, hence positive definite, whatever the draw. Those
 * entries are below 1 in modulus in real precisions but up to sqrt(2) in complex ones, where n alone let some
 * draws fail: from the 1000 Hermitian 2 x 2 matrices of `starpu_batched -op potrf -m 2 -batch 1000 -prec z`,
 * zpotrf found one not positive definite (bench/NOTES.md, session 49). */
static double hpd_shift(int n)
{
#if defined(STARSOLVE_PRECISION_Z) || defined(STARSOLVE_PRECISION_C)
    return 2.0 * n;
#else
    return n;
#endif
}

void gen_zhpd(int n, starsolve_complex64_t *A, int lda, unsigned seed)
{
    gen_zmatrix(n, n, A, lda, seed);
    int nthreads = n < 1024 ? 1 : generator_threads((n + MIRROR_BLOCK - 1) / MIRROR_BLOCK);
    struct mirror_range range[MAX_THREADS];
    for (int t = 0; t < nthreads; t++)
        range[t] = (struct mirror_range){ n, lda, t, nthreads, A };
    run_threads(mirror_blocks, range, sizeof range[0], nthreads);
    for (int j = 0; j < n; j++)
        A[j + (size_t)j * lda] = creal(A[j + (size_t)j * lda]) + hpd_shift(n);
}

/* Slabs of this many columns are regenerated at a time by gen_zmatrix_multiply. */
enum { REGEN_SLAB = 512 };

double gen_zmatrix_multiply(const struct matgen *g, int nrhs, const starsolve_complex64_t *X, int ldx,
                            starsolve_complex64_t *W, int ldw)
{
    const starsolve_complex64_t one = 1.0;
    const int m = g->m, n = g->n, hpd = g->kind == MATGEN_HPD;
    double anorm = 0;
    for (int k = 0; k < nrhs; k++)
        memset(W + (size_t)k * ldw, 0, (size_t)m * sizeof *W);
    starsolve_complex64_t *S = malloc(((size_t)m * REGEN_SLAB + 1) * sizeof *S);
    double *colsum = calloc((size_t)n + 1, sizeof *colsum);   /* ||A(:, j)||_1, summed slab by slab */
    if (!S || !colsum) {
        free(S); free(colsum);
        return NAN;
    }
    for (int j0 = 0; j0 < n; j0 += REGEN_SLAB) {
        int w = n - j0 < REGEN_SLAB ? n - j0 : REGEN_SLAB;
        gen_zmatrix_columns(m, n, j0, w, S, m, g->seed);
        if (hpd) {
            /* gen_zhpd keeps G's upper triangle, mirrors it below, and puts Re(G_jj) + hpd_shift(n) on the
             * diagonal: A's rows j0 .. j0+w-1 left of the diagonal are G(0:j, j)^H */
            int rows = j0 + w;
            starsolve_complex64_t *diag = malloc((size_t)w * sizeof *diag);
            for (int jj = 0; jj < w; jj++) {
                int j = j0 + jj;
                starsolve_complex64_t *col = S + (size_t)jj * m;
                diag[jj] = creal(col[j]) + hpd_shift(n);
                for (int i = j; i < m; i++)
                    col[i] = 0;   /* G(0:j-1, j): A(j, 0:j-1)^H */
                for (int i = 0; i < j; i++) {
                    colsum[i] += cabs(col[i]);   /* A(j, i), in column i */
                    colsum[j] += cabs(col[i]);   /* A(i, j) */
                }
                colsum[j] += cabs(diag[jj]);
            }
            cblas_zgemm(CblasColMajor, CblasConjTrans, CblasNoTrans, w, nrhs, rows, CBLAS_SADDR(one), S, m, X, ldx,
                        CBLAS_SADDR(one), W + j0, ldw);
            for (int jj = 0; jj < w; jj++)
                S[j0 + jj + (size_t)jj * m] = diag[jj];
            cblas_zgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, rows, nrhs, w, CBLAS_SADDR(one), S, m, X + j0, ldx,
                        CBLAS_SADDR(one), W, ldw);
            free(diag);
        } else {
            for (int jj = 0; jj < w; jj++) {
                int j = j0 + jj;
                if (j < m)
                    S[j + (size_t)jj * m] += g->shift;
                for (int i = 0; i < m; i++)
                    colsum[j] += cabs(S[i + (size_t)jj * m]);
            }
            cblas_zgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, nrhs, w, CBLAS_SADDR(one), S, m, X + j0, ldx,
                        CBLAS_SADDR(one), W, ldw);
        }
    }
    for (int j = 0; j < n; j++)
        if (colsum[j] > anorm || isnan(colsum[j]))
            anorm = colsum[j];
    free(S); free(colsum);
    return anorm;
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
