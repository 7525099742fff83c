/* The CPU TRSM of every tile codelet: B = alpha op(A)^-1 B (side 'L') or alpha B op(A)^-1 (side 'R'),
 * by halving the triangle with a GEMM between the halves (as ReLAPACK's recursive TRSM), down to
 * OpenBLAS's TRSM on triangles of at most TRSM_LEAF.
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
