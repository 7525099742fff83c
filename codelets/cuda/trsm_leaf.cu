// The leaves of our recursive TRSM on GPUs (cuda_ztrsm_recursive in codelets/codelet_ztrsm_column.c halves
// the triangle, one GEMM between the halves, down to these). cuBLAS's TRSM is itself recursive and spends
// its time in its narrow leaves: on an H100 a 5000-column upper triangle against a stack of 35000 rows ran at
// 34 TF/s through cuBLAS and 43 TF/s with these leaves; the row solve of a 5000 tile with its unit lower
// triangle 26 against 31 TF/s (bench/NOTES.md, session 33). Substitution, no inverse: LU without pivoting
// needs TRSM's accuracy (session 24).
//
// side 'R': X U = B, U k x k upper (k <= SS_TRSM_LEAF_R), B m x k. Every row of B solves on its own: one
//           thread per row, the row in registers, the triangle's coefficients in shared memory.
// side 'L': L X = B, L k x k lower (k <= SS_TRSM_LEAF_L), B k x n. Every column solves on its own: one warp
//           per column (coalesced), two rows of it per lane in registers, x_p broadcast by a shuffle a step.
// diag 'U': unit diagonal (not read), else divided by.
#include <cuComplex.h>
#include <cuda_runtime.h>
#include "cuda_check.cuh"
#include "batched_scalar.cuh"
#include "trsm_leaf.h"

__device__ inline float shfl(float v, int lane) { return __shfl_sync(0xffffffffu, v, lane); }
__device__ inline double shfl(double v, int lane) { return __shfl_sync(0xffffffffu, v, lane); }
__device__ inline float2 shfl(float2 v, int lane) { return make_float2(shfl(v.x, lane), shfl(v.y, lane)); }
__device__ inline double2 shfl(double2 v, int lane) { return make_double2(shfl(v.x, lane), shfl(v.y, lane)); }

// X U = B: c[p][q] = U(q, p) for q < p (column p above the diagonal), d[p] = U(p, p)
template <typename T>
__global__ void __launch_bounds__(128) trsm_leaf_right_upper(int m, int k, bool unit, const T *U, int ldu, T *B, int ldb)
{
    constexpr int K = SS_TRSM_LEAF_R;
    __shared__ T c[K * K];
    __shared__ T d[K];
    const T zero = make<T>(0, 0), one = make<T>(1, 0);
    for (int idx = threadIdx.x; idx < K * K; idx += blockDim.x) {
        int p = idx / K, q = idx % K;
        c[idx] = q < p && p < k ? U[q + (size_t)p * ldu] : zero;
    }
    for (int p = threadIdx.x; p < K; p += blockDim.x)
        d[p] = p < k && !unit ? U[p + (size_t)p * ldu] : one;
    __syncthreads();
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= m)
        return;
    T *b = B + row;
    T x[K];
#pragma unroll
    for (int p = 0; p < K; p++)
        x[p] = p < k ? b[(size_t)p * ldb] : zero;
#pragma unroll
    for (int p = 0; p < K; p++) {
        T s = x[p];
#pragma unroll
        for (int q = 0; q < p; q++)
            s = sub(s, mul(c[p * K + q], x[q]));
        x[p] = unit ? s : div_(s, d[p]);
    }
#pragma unroll
    for (int p = 0; p < K; p++)
        if (p < k)
            b[(size_t)p * ldb] = x[p];
}

// L X = B: Ls[p][q] = L(q, p) for q > p (column p below the diagonal), zero elsewhere, so that step p
// leaves the rows at and above p as they are
template <typename T>
__global__ void __launch_bounds__(1024) trsm_leaf_left_lower(int n, int k, bool unit, const T *L, int ldl, T *B, int ldb)
{
    constexpr int K = SS_TRSM_LEAF_L, R = K / 32;
    extern __shared__ unsigned char smem[];
    T *Ls = (T *)smem, *d = Ls + K * K;
    const T zero = make<T>(0, 0), one = make<T>(1, 0);
    for (int idx = threadIdx.x; idx < K * K; idx += blockDim.x) {
        int p = idx / K, q = idx % K;
        Ls[idx] = q > p && q < k ? L[q + (size_t)p * ldl] : zero;
    }
    for (int p = threadIdx.x; p < K; p += blockDim.x)
        d[p] = p < k && !unit ? L[p + (size_t)p * ldl] : one;
    __syncthreads();
    int col = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    if (col >= n)
        return;   // whole warps: the shuffles below see all 32 lanes
    T *b = B + (size_t)col * ldb;
    T x[R];
#pragma unroll
    for (int r = 0; r < R; r++)
        x[r] = lane + 32 * r < k ? b[lane + 32 * r] : zero;
#pragma unroll
    for (int r0 = 0; r0 < R; r0++) {
        for (int pl = 0; pl < 32; pl++) {
            int p = 32 * r0 + pl;
            if (p >= k)
                break;
            if (!unit && lane == pl)
                x[r0] = div_(x[r0], d[p]);
            T xp = shfl(x[r0], pl);
#pragma unroll
            for (int r = r0; r < R; r++)
                x[r] = sub(x[r], mul(Ls[p * K + lane + 32 * r], xp));
        }
    }
#pragma unroll
    for (int r = 0; r < R; r++)
        if (lane + 32 * r < k)
            b[lane + 32 * r] = x[r];
}

template <typename T>
static void trsm_leaf(char side, char diag, int m, int n, const void *tri, int ldt, void *B, int ldb, cudaStream_t st)
{
    if (m <= 0 || n <= 0)
        return;
    bool unit = diag == 'U';
    if (side == 'R') {
        if (n > SS_TRSM_LEAF_R)
            ss_cuda_fail("trsm_leaf: side R, too many columns", n, __FILE__, __LINE__);
        trsm_leaf_right_upper<T><<<(m + 127) / 128, 128, 0, st>>>(m, n, unit, (const T *)tri, ldt, (T *)B, ldb);
        SS_CHECK_LAUNCH("trsm_leaf_right_upper");
    } else {
        if (m > SS_TRSM_LEAF_L)
            ss_cuda_fail("trsm_leaf: side L, too many rows", m, __FILE__, __LINE__);
        size_t shared = ((size_t)SS_TRSM_LEAF_L * SS_TRSM_LEAF_L + SS_TRSM_LEAF_L) * sizeof(T);
        // 64 KB for complex double, above the 48 KB a launch gets unless the function asks for more
        // (asked at each launch: the attribute belongs to the current device); the others stay below
        ss_cuda_require_smem(trsm_leaf_left_lower<T>, shared, "trsm_leaf: shared memory beyond the device's limit");
        int threads = 1024, blocks = (int)(((size_t)n * 32 + threads - 1) / threads);
        trsm_leaf_left_lower<T><<<blocks, threads, shared, st>>>(n, m, unit, (const T *)tri, ldt, (T *)B, ldb);
        SS_CHECK_LAUNCH("trsm_leaf_left_lower");
    }
}

extern "C" void ss_cuda_strsm_leaf(char side, char diag, int m, int n, const void *T, int ldt, void *B, int ldb, cudaStream_t st)
{
    trsm_leaf<float>(side, diag, m, n, T, ldt, B, ldb, st);
}
extern "C" void ss_cuda_dtrsm_leaf(char side, char diag, int m, int n, const void *T, int ldt, void *B, int ldb, cudaStream_t st)
{
    trsm_leaf<double>(side, diag, m, n, T, ldt, B, ldb, st);
}
extern "C" void ss_cuda_ctrsm_leaf(char side, char diag, int m, int n, const void *T, int ldt, void *B, int ldb, cudaStream_t st)
{
    trsm_leaf<cuFloatComplex>(side, diag, m, n, T, ldt, B, ldb, st);
}
extern "C" void ss_cuda_ztrsm_leaf(char side, char diag, int m, int n, const void *T, int ldt, void *B, int ldb, cudaStream_t st)
{
    trsm_leaf<cuDoubleComplex>(side, diag, m, n, T, ldt, B, ldb, st);
}
