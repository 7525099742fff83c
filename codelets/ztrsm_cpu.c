/* The CPU TRSM of every tile codelet: B = alpha op(A)^-1 B (side 'L') or alpha B op(A)^-1 (side 'R'),
 * by halving the triangle with a GEMM between the halves (as ReLAPACK's recursive TRSM), down to
 * OpenBLAS's TRSM on triangles of at most TRSM_LEAF (the left side in real precisions: left_leaf, plain C, up to
 * PLAIN_LEFT_LEAF).
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

/* B (k x n) = alpha op(T)^-1 B, op(T) lower (forward) or upper (backward) with its reciprocal diagonal inv; inlined
 * with k = PLAIN_LEFT_LEAF, where the loops unroll */
static inline __attribute__((always_inline)) void left_leaf_columns(int k, int n, int lower,
                                                                    const double t[][PLAIN_LEFT_LEAF],
                                                                    const double *inv, double alpha, double *B,
                                                                    int ldb)
{
#pragma omp simd
    for (int j = 0; j < n; j++) {
        double *b = B + (size_t)j * ldb, x[PLAIN_LEFT_LEAF];
        if (lower) {
#pragma GCC unroll 16
            for (int i = 0; i < k; i++) {
                double s = alpha * b[i];
#pragma GCC unroll 16
                for (int q = 0; q < i; q++)
                    s -= t[i][q] * x[q];
                b[i] = x[i] = s * inv[i];
            }
        } else {
#pragma GCC unroll 16
            for (int i = k - 1; i >= 0; i--) {
                double s = alpha * b[i];
#pragma GCC unroll 16
                for (int q = i + 1; q < k; q++)
                    s -= t[i][q] * x[q];
                b[i] = x[i] = s * inv[i];
            }
        }
    }
}

/* the left side's leaf (k <= PLAIN_LEFT_LEAF): op(A)'s triangle read from the stored one only */
SS_SIMD_CLONES_AVX512 static void left_leaf(char uplo, char transa, char diag, int k, int n, double alpha,
                                            const double *A, int lda, double *B, int ldb)
{
    double t[PLAIN_LEFT_LEAF][PLAIN_LEFT_LEAF], inv[PLAIN_LEFT_LEAF];
    const int lower = (uplo == 'L') == (transa == 'N');
    for (int i = 0; i < k; i++) {
        for (int q = lower ? 0 : i + 1; q < (lower ? i : k); q++)   /* op(A)(i, q) */
            t[i][q] = transa == 'N' ? A[i + (size_t)q * lda] : A[q + (size_t)i * lda];
        inv[i] = diag == 'U' ? 1 : 1 / A[i + (size_t)i * lda];
    }
    if (k == PLAIN_LEFT_LEAF && lower)
        left_leaf_columns(PLAIN_LEFT_LEAF, n, 1, t, inv, alpha, B, ldb);
    else if (k == PLAIN_LEFT_LEAF)
        left_leaf_columns(PLAIN_LEFT_LEAF, n, 0, t, inv, alpha, B, ldb);
    else
        left_leaf_columns(k, n, lower, t, inv, alpha, B, ldb);
}
#endif

/* The first half of k rows or columns: a multiple of 8 from 16 on, so that the GEMMs' blocks stay aligned */
static int first_half(int k)
{
    int k1 = k / 2;
    return k1 >= 16 ? k1 / 8 * 8 : k1;
}

void cpu_ztrsm(char side, char uplo, char transa, char diag, int m, int n, starsolve_complex64_t alpha,
               const starsolve_complex64_t *A, int lda, starsolve_complex64_t *B, int ldb)
{
    const int left = side == 'L', k = left ? m : n, width = left ? n : m;
#if !defined(STARSOLVE_PRECISION_Z) && !defined(STARSOLVE_PRECISION_C)
    if (left && k <= PLAIN_LEFT_LEAF && width >= 2 && alpha != 0) {   /* alpha 0: B = 0 by BLAS's rule, below */
        left_leaf(uplo, transa, diag, m, n, alpha, A, lda, B, ldb);
        return;
    }
#endif
    if (k <= TRSM_LEAF || width < 2) {
        cblas_ztrsm(CblasColMajor, ss_cblas_side(side), ss_cblas_uplo(uplo), ss_cblas_trans(transa),
                    ss_cblas_diag(diag), m, n, CBLAS_SADDR(alpha), A, lda, B, ldb);
        return;
    }
    const starsolve_complex64_t one = 1.0, mone = -1.0;
    const int k1 = first_half(k), k2 = k - k1;
    /* op(A) = [T11 0; T21 T22] (lower) or [T11 T12; 0 T22] (upper); its off-diagonal block is
     * op() of A's stored one: A21 (uplo 'L') or A12 (uplo 'U') */
    const int lower = (uplo == 'L') == (transa == 'N');
    const starsolve_complex64_t *A11 = A, *A22 = A + k1 + (size_t)k1 * lda;
    const starsolve_complex64_t *Aoff = uplo == 'L' ? A + k1 : A + (size_t)k1 * lda;
    const CBLAS_TRANSPOSE op = ss_cblas_trans(transa);
    if (left) {
        starsolve_complex64_t *B1 = B, *B2 = B + k1;
        if (lower) {   /* X1 = T11^-1 alpha B1; X2 = T22^-1 (alpha B2 - T21 X1) */
            cpu_ztrsm(side, uplo, transa, diag, k1, n, alpha, A11, lda, B1, ldb);
            cblas_zgemm(CblasColMajor, op, CblasNoTrans, k2, n, k1, CBLAS_SADDR(mone), Aoff, lda, B1, ldb,
                        CBLAS_SADDR(alpha), B2, ldb);
            cpu_ztrsm(side, uplo, transa, diag, k2, n, one, A22, lda, B2, ldb);
        } else {       /* X2 = T22^-1 alpha B2; X1 = T11^-1 (alpha B1 - T12 X2) */
            cpu_ztrsm(side, uplo, transa, diag, k2, n, alpha, A22, lda, B2, ldb);
            cblas_zgemm(CblasColMajor, op, CblasNoTrans, k1, n, k2, CBLAS_SADDR(mone), Aoff, lda, B2, ldb,
                        CBLAS_SADDR(alpha), B1, ldb);
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
