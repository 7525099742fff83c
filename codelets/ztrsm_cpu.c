/* The CPU TRSM of every tile codelet: B = alpha op(A)^-1 B (side 'L') or alpha B op(A)^-1 (side 'R'),
 * by halving the triangle with a GEMM between the halves (as ReLAPACK's recursive TRSM), down to
 * OpenBLAS's TRSM on triangles of at most TRSM_LEAF (the left side in real precisions: left_leaf, plain C, up to
 * PLAIN_LEFT_LEAF rows, transposed PLAIN_LEFT_LEAF_TRANS).
 *
 * Why: OpenBLAS 0.3.21's TRSM runs at a third of its GEMM. One core of the 2-core CI machine
 * (AVX-512 kernels), order 512, GF/s: GEMM 60-77; cblas_dtrsm 22-30 in all eight side / uplo /
 * trans variants; this recursion 45-49 on the right side, 32-35 on the left; order 256 right
 * 40 against 24, left 30-32 against 17. The tile LU without pivoting (RBT's factorization) spent a
 * third of its task time in TRSMs at 4096; with this, on 2 cores LU without pivoting at 4096 went
 * from 0.50 to 0.41-0.43 s, Cholesky from 0.24 to 0.22, gesv from 0.50-0.55 to 0.48-0.50; on 16
 * cores (H200 machine) at 8192 4-8 % (bench/NOTES.md, session 59). The halving is
 * the same substitution reordered: every product that a plain TRSM forms one row at a time is
 * formed here by a GEMM, with the same operands (no inverse of a triangle is formed).
 *
 * Leaves of 8: the left side's leaves are the slow part (OpenBLAS solves 16 x 512 at 2.3 GF/s);
 * leaves of 8 gave 3.8 ms at 512 against 4.5-4.8 with 16-64, the right side the same 2.8-2.9 ms
 * from 8 to 64. With one column (a solve's vector) the recursion's GEMMs are vectors and
 * OpenBLAS's TRSV is twice as fast, so it is called directly; from two columns the recursion
 * wins (512 x 2: 0.065 against 0.124 ms). */
#include <complex.h>
#include "codelets.h"

#define TRSM_LEAF 8

#if !defined(STARSOLVE_PRECISION_Z) && !defined(STARSOLVE_PRECISION_C)
/* Real precisions: the left side's leaves in plain C, up to PLAIN_LEFT_LEAF rows, each column of B solved in the
 * lanes of a vector (`omp simd` across the columns; op(A)'s triangle and its diagonal's reciprocals, as OpenBLAS's
 * kernels use them, in a local array). OpenBLAS's TRSM on 8 x 512 blocks runs at ~5 GF/s. One core of the 2-core
 * CI machine, double, the left lower TRSM of a square B (this recursion), ms with OpenBLAS's leaves of 8 / these
 * leaves of 8 / of 16 / of 32: 512 3.66 / 3.01 / 2.88 / 2.88 (the leaves alone 0.88 / 0.38 / 0.35); 256 0.51 / 0.37 /
 * 0.33 / 0.36; 1024 26.4 with leaves of 16 against 21.8 (bench/NOTES.md, session 62). In complex GCC's
 * multiplications do not vectorize (zbatch_one_cpu.c): OpenBLAS's leaves of TRSM_LEAF there. */
#define PLAIN_LEFT_LEAF 16
/* Transposed solves (op(A) = A^T: potrs's second solve, getrs 'T') of at most NARROW_TRANS_WIDTH columns, the
 * batched solves' shapes, take leaves of up to 32 rows (left_leaf_split), and their recursion solves a multiple of 32
 * rows first (cpu_ztrsm), so that none of its GEMMs has k < 32. Those GEMMs read A's off-diagonal block transposed
 * (TN), and OpenBLAS's TN GEMM with a small k runs 5-6x slower than NN when many threads call at once (the H200
 * machine's 16 threads, us a call: 16 x 16 x 16 NN 2.85, TN 15.5; 32 x 16 x 32 3.64 / 4.08). Halves rounded to 8
 * (first_half) split 96 into 48 + 48, then 24 + 24, and the GEMM between those (k = 24) lost as k = 16 does. The 16
 * CPU workers, batched solve time ratio to LAPACKE's loop, two rounds each, leaves of 16 / leaves of 32 with halves /
 * the multiple of 32 first: potrs 96 x 16 0.43 0.42 / 1.24 0.95 (another run 1.06 1.13) / 1.74 1.73, 128 x 2 0.52
 * 0.47 / 1.67 1.77, 192 x 16 0.54 0.64 / 1.33 1.28; getrs 'T' 64 x 16 0.37 0.38 / 1.51 1.52, 96 x 16 0.24 0.22 / 0.62
 * 0.65 / 1.34 1.57, 192 x 16 0.29 0.29 / 0.66 0.77 / 1.02 1.23. On 2 cores the three are within 5 % at most orders
 * (potrs 96 x 16 1.13 / 1.37 / 1.44). Alone on one core this way is 10-35 % slower than leaves of 16 at orders 64-512
 * (their OpenBLAS GEMMs are fast there; 512 x 64 0.345 ms against 0.286), so wider right-hand sides, whose GEMMs
 * are larger, keep leaves of 16, with their small GEMMs made NN (left_update) (bench/NOTES.md, sessions 64-65). */
#define PLAIN_LEFT_LEAF_TRANS 32
#define NARROW_TRANS_WIDTH 32

/* B's rows off .. off + k - 1 (n columns) = alpha op(T)^-1 of them, op(T) lower (forward) or upper (backward) in
 * rows and columns off .. off + k - 1 of t, with its reciprocal diagonal inv; inlined with k = PLAIN_LEFT_LEAF, where
 * the loops unroll */
static inline __attribute__((always_inline)) void left_leaf_columns(int off, int k, int n, int lower,
                                                                    const double t[][PLAIN_LEFT_LEAF_TRANS],
                                                                    const double *inv, double alpha, double *B,
                                                                    int ldb)
{
#pragma omp simd
    for (int j = 0; j < n; j++) {
        double *b = B + off + (size_t)j * ldb, x[PLAIN_LEFT_LEAF];
        if (lower) {
#pragma GCC unroll 16
            for (int i = 0; i < k; i++) {
                double s = alpha * b[i];
#pragma GCC unroll 16
                for (int q = 0; q < i; q++)
                    s -= t[off + i][off + q] * x[q];
                b[i] = x[i] = s * inv[off + i];
            }
        } else {
#pragma GCC unroll 16
            for (int i = k - 1; i >= 0; i--) {
                double s = alpha * b[i];
#pragma GCC unroll 16
                for (int q = i + 1; q < k; q++)
                    s -= t[off + i][off + q] * x[q];
                b[i] = x[i] = s * inv[off + i];
            }
        }
    }
}

/* B (k x n, PLAIN_LEFT_LEAF < k <= PLAIN_LEFT_LEAF_TRANS) = alpha op(T)^-1 B by two leaves with the product between
 * them in plain loops too, where the recursion would call a GEMM: PLAIN_LEFT_LEAF rows solved first (lower: the top
 * ones; upper: the bottom ones), the other k2 rows updated by them, then solved. One k x k leaf in a single loop
 * (up to 32 solved values live a column, more than the vector registers) was no faster at 128 and 512 (2 cores, potrs
 * x 16, ratio to the loop: 1.67, 1.46 against 1.63, 1.46) and much slower on odd orders, whose leaves took the generic
 * loop (96 x 16: 0.84 against 1.37); the update inside the first leaf's loop was slower too (one core, 512 x 512: 4.1
 * ms against 2.8). */
static inline __attribute__((always_inline)) void left_leaf_split(int k, int n, int lower,
                                                                  const double t[][PLAIN_LEFT_LEAF_TRANS],
                                                                  const double *inv, double alpha, double *B, int ldb)
{
    const int k1 = PLAIN_LEFT_LEAF, k2 = k - k1;
    const int first = lower ? 0 : k2, second = lower ? k1 : 0;   /* the rows solved first, and the others */
    left_leaf_columns(first, k1, n, lower, t, inv, alpha, B, ldb);
#pragma omp simd
    for (int j = 0; j < n; j++) {
        double *b = B + (size_t)j * ldb, x[PLAIN_LEFT_LEAF];
#pragma GCC unroll 16
        for (int q = 0; q < k1; q++)
            x[q] = b[first + q];
        for (int i = second; i < second + k2; i++) {
            double s = alpha * b[i];
#pragma GCC unroll 16
            for (int q = 0; q < k1; q++)
                s -= t[i][first + q] * x[q];
            b[i] = s;
        }
    }
    if (k2 == PLAIN_LEFT_LEAF)
        left_leaf_columns(second, PLAIN_LEFT_LEAF, n, lower, t, inv, 1, B, ldb);
    else
        left_leaf_columns(second, k2, n, lower, t, inv, 1, B, ldb);
}

/* the left side's leaf (k <= PLAIN_LEFT_LEAF; transposed, k <= PLAIN_LEFT_LEAF_TRANS): op(A)'s triangle read from
 * the stored one only */
SS_SIMD_CLONES_AVX512 static void left_leaf(char uplo, char transa, char diag, int k, int n, double alpha,
                                            const double *A, int lda, double *B, int ldb)
{
    double t[PLAIN_LEFT_LEAF_TRANS][PLAIN_LEFT_LEAF_TRANS], inv[PLAIN_LEFT_LEAF_TRANS];
    const int lower = (uplo == 'L') == (transa == 'N');
    for (int i = 0; i < k; i++) {
        for (int q = lower ? 0 : i + 1; q < (lower ? i : k); q++)   /* op(A)(i, q) */
            t[i][q] = transa == 'N' ? A[i + (size_t)q * lda] : A[q + (size_t)i * lda];
        inv[i] = diag == 'U' ? 1 : 1 / A[i + (size_t)i * lda];
    }
    if (k == PLAIN_LEFT_LEAF && lower)
        left_leaf_columns(0, PLAIN_LEFT_LEAF, n, 1, t, inv, alpha, B, ldb);
    else if (k == PLAIN_LEFT_LEAF)
        left_leaf_columns(0, PLAIN_LEFT_LEAF, n, 0, t, inv, alpha, B, ldb);
    else if (k > PLAIN_LEFT_LEAF && lower)
        left_leaf_split(k, n, 1, t, inv, alpha, B, ldb);
    else if (k > PLAIN_LEFT_LEAF)
        left_leaf_split(k, n, 0, t, inv, alpha, B, ldb);
    else
        left_leaf_columns(0, k, n, lower, t, inv, alpha, B, ldb);
}
#endif

/* The first half of k rows or columns: a multiple of 8 from 16 on, so that the GEMMs' blocks stay aligned */
static int first_half(int k)
{
    int k1 = k / 2;
    return k1 >= 16 ? k1 / 8 * 8 : k1;
}

#if !defined(STARSOLVE_PRECISION_Z) && !defined(STARSOLVE_PRECISION_C)
/* The largest off-diagonal block (rows x inner) that wide transposed solves copy transposed for an NN GEMM */
#define NN_COPY_MAX (64 * 64)
#endif

/* C (rows x n) = beta C - op(Aoff) X, op(Aoff) rows x inner (Aoff stored inner x rows when transposed): the left
 * recursion's GEMM. With `nn_on_copy` (cpu_ztrsm: real transposed solves wider than NARROW_TRANS_WIDTH, whose leaves
 * stay at 16) a small op(Aoff) is copied transposed for the NN GEMM: OpenBLAS's TN GEMM with small m and k loses to NN
 * from one thread and far more from 16 (PLAIN_LEFT_LEAF_TRANS's comment). The 16 CPU workers, batched solve time ratio
 * to LAPACKE's loop, two rounds, TN / NN: getrs 'T' 64 x 64 0.70 0.70 / 2.68 2.69, 128 x 64 0.78 0.81 / 1.98 2.08;
 * potrs 128 x 64 1.85 1.59 / 2.72 2.70; 2 cores getrs 'T' 64 x 64 2.03 / 2.45, 128 x 64 1.68 / 1.88; one core,
 * cpu_dtrsm L L T, ms: 128 x 128 0.055 / 0.040, 512 x 512 2.21 / 2.08. Narrow solves keep TN (their copy costs as much
 * as the GEMM: 128 x 2 on the 16 workers 1.20 1.23 / 0.97 0.97; bench/NOTES.md, session 65). Kept apart (noinline) so
 * that the copy's stack array lives only during the call. */
static __attribute__((noinline)) void left_update(int nn_on_copy, CBLAS_TRANSPOSE op, int rows, int n, int inner,
                                                  const starsolve_complex64_t *Aoff, int lda,
                                                  const starsolve_complex64_t *X, int ldb, starsolve_complex64_t beta,
                                                  starsolve_complex64_t *C)
{
    const starsolve_complex64_t mone = -1.0;
#if !defined(STARSOLVE_PRECISION_Z) && !defined(STARSOLVE_PRECISION_C)
    if (nn_on_copy && rows * inner <= NN_COPY_MAX) {
        starsolve_complex64_t W[NN_COPY_MAX];   /* op(Aoff), rows x inner, leading dimension rows */
        for (int r = 0; r < rows; r++)
            for (int c = 0; c < inner; c++)
                W[r + (size_t)c * rows] = Aoff[c + (size_t)r * lda];
        cblas_zgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, rows, n, inner, CBLAS_SADDR(mone), W, rows, X, ldb,
                    CBLAS_SADDR(beta), C, ldb);
        return;
    }
#endif
    cblas_zgemm(CblasColMajor, op, CblasNoTrans, rows, n, inner, CBLAS_SADDR(mone), Aoff, lda, X, ldb,
                CBLAS_SADDR(beta), C, ldb);
}

void cpu_ztrsm(char side, char uplo, char transa, char diag, int m, int n, starsolve_complex64_t alpha,
               const starsolve_complex64_t *A, int lda, starsolve_complex64_t *B, int ldb)
{
    const int left = side == 'L', k = left ? m : n, width = left ? n : m;
#if !defined(STARSOLVE_PRECISION_Z) && !defined(STARSOLVE_PRECISION_C)
    /* real transposed left solves: narrow ones take leaves of 32, wider ones NN GEMMs on copies (left_update) */
    const int narrow_transposed = left && transa != 'N' && width <= NARROW_TRANS_WIDTH;
    const int nn_on_copy = left && transa != 'N' && !narrow_transposed;
    const int plain_leaf = narrow_transposed ? PLAIN_LEFT_LEAF_TRANS : PLAIN_LEFT_LEAF;
    if (left && k <= plain_leaf && width >= 2 && alpha != 0) {   /* alpha 0: B = 0 by BLAS's rule, below */
        left_leaf(uplo, transa, diag, m, n, alpha, A, lda, B, ldb);
        return;
    }
#else
    const int nn_on_copy = 0;
#endif
    if (k <= TRSM_LEAF || width < 2) {
        cblas_ztrsm(CblasColMajor, ss_cblas_side(side), ss_cblas_uplo(uplo), ss_cblas_trans(transa),
                    ss_cblas_diag(diag), m, n, CBLAS_SADDR(alpha), A, lda, B, ldb);
        return;
    }
    const starsolve_complex64_t one = 1.0, mone = -1.0;
    /* op(A) = [T11 0; T21 T22] (lower) or [T11 T12; 0 T22] (upper); its off-diagonal block is
     * op() of A's stored one: A21 (uplo 'L') or A12 (uplo 'U') */
    const int lower = (uplo == 'L') == (transa == 'N');
    int k1 = first_half(k);
#if !defined(STARSOLVE_PRECISION_Z) && !defined(STARSOLVE_PRECISION_C)
    if (narrow_transposed && k > PLAIN_LEFT_LEAF_TRANS) {   /* the part solved first: whole leaves */
        int solved_first = k / 2 / PLAIN_LEFT_LEAF_TRANS * PLAIN_LEFT_LEAF_TRANS;
        if (solved_first < PLAIN_LEFT_LEAF_TRANS)
            solved_first = PLAIN_LEFT_LEAF_TRANS;
        k1 = lower ? solved_first : k - solved_first;
    }
#endif
    const int k2 = k - k1;
    const starsolve_complex64_t *A11 = A, *A22 = A + k1 + (size_t)k1 * lda;
    const starsolve_complex64_t *Aoff = uplo == 'L' ? A + k1 : A + (size_t)k1 * lda;
    const CBLAS_TRANSPOSE op = ss_cblas_trans(transa);
    if (left) {
        starsolve_complex64_t *B1 = B, *B2 = B + k1;
        if (lower) {   /* X1 = T11^-1 alpha B1; X2 = T22^-1 (alpha B2 - T21 X1) */
            cpu_ztrsm(side, uplo, transa, diag, k1, n, alpha, A11, lda, B1, ldb);
            left_update(nn_on_copy, op, k2, n, k1, Aoff, lda, B1, ldb, alpha, B2);
            cpu_ztrsm(side, uplo, transa, diag, k2, n, one, A22, lda, B2, ldb);
        } else {       /* X2 = T22^-1 alpha B2; X1 = T11^-1 (alpha B1 - T12 X2) */
            cpu_ztrsm(side, uplo, transa, diag, k2, n, alpha, A22, lda, B2, ldb);
            left_update(nn_on_copy, op, k1, n, k2, Aoff, lda, B2, ldb, alpha, B1);
            cpu_ztrsm(side, uplo, transa, diag, k1, n, one, A11, lda, B1, ldb);
        }
    } else {
        starsolve_complex64_t *B1 = B, *B2 = B + (size_t)k1 * ldb;
        if (!lower) {  /* X1 = alpha B1 T11^-1; X2 = (alpha B2 - X1 T12) T22^-1 */
            cpu_ztrsm(side, uplo, transa, diag, m, k1, alpha, A11, lda, B1, ldb);
            cblas_zgemm(CblasColMajor, CblasNoTrans, op, m, k2, k1, CBLAS_SADDR(mone), B1, ldb, Aoff, lda,
                        CBLAS_SADDR(alpha), B2, ldb);
            cpu_ztrsm(side, uplo, transa, diag, m, k2, one, A22, lda, B2, ldb);
        } else {       /* X2 = alpha B2 T22^-1; X1 = (alpha B1 - X2 T21) T11^-1 */
            cpu_ztrsm(side, uplo, transa, diag, m, k2, alpha, A22, lda, B2, ldb);
            cblas_zgemm(CblasColMajor, CblasNoTrans, op, m, k1, k2, CBLAS_SADDR(mone), B2, ldb, Aoff, lda,
                        CBLAS_SADDR(alpha), B1, ldb);
            cpu_ztrsm(side, uplo, transa, diag, m, k1, one, A11, lda, B1, ldb);
        }
    }
}
