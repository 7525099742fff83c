// Random butterfly transformation on tiles in GPU memory (codelets/codelet_zgerbt.c
// has the CPU side and the formulas). A butterfly W = (1/sqrt 2) [R S; R -S] with
// R, S diagonal mixes row i of a block with row i + h; its diagonals are packed
// in one vector per level, u[i] = R(i) for the top half of a block and
// u[i + h] = S(i) for the bottom half.
//  - two-sided: the four tiles at (i, j), (i, j+h), (i+h, j), (i+h, j+h) of a
//    block become those of W_u^T A W_v, in one pass, each thread one (i, j);
//    the butterfly entries of the tile rows and columns sit in shared memory;
//  - one-sided, on right-hand sides: W^T B (forward) or W B (backward).
// Butterfly entries are real in every precision (T complex: R is its real type).
#include <cuda_runtime.h>
#include "cuda_check.cuh"

template <typename T, typename R> struct ops;
template <> struct ops<float, float> {
    __device__ static float scale(float a, float s) { return a * s; }
};
template <> struct ops<double, double> {
    __device__ static double scale(double a, double s) { return a * s; }
};
template <> struct ops<float2, float> {
    __device__ static float2 scale(float2 a, float s) { return make_float2(a.x * s, a.y * s); }
};
template <> struct ops<double2, double> {
    __device__ static double2 scale(double2 a, double s) { return make_double2(a.x * s, a.y * s); }
};
__device__ inline float add(float a, float b) { return a + b; }
__device__ inline double add(double a, double b) { return a + b; }
__device__ inline float2 add(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
__device__ inline double2 add(double2 a, double2 b) { return make_double2(a.x + b.x, a.y + b.y); }
__device__ inline float sub(float a, float b) { return a - b; }
__device__ inline double sub(double a, double b) { return a - b; }
__device__ inline float2 sub(float2 a, float2 b) { return make_float2(a.x - b.x, a.y - b.y); }
__device__ inline double2 sub(double2 a, double2 b) { return make_double2(a.x - b.x, a.y - b.y); }

#define TILE 32
#define ROWS 8

template <typename T, typename R>
__global__ void gerbt_two_sided(int m, int n, T *A11, T *A12, T *A21, T *A22, int lda, const R *u, const R *v,
                                int row0, int col0, int h)
{
    __shared__ R ur[TILE], us[TILE], vr[TILE], vs[TILE];
    int i0 = blockIdx.x * TILE, j0 = blockIdx.y * TILE, t = threadIdx.x + threadIdx.y * TILE;
    if (t < TILE) {
        ur[t] = i0 + t < m ? u[row0 + i0 + t] : R(0);
        us[t] = i0 + t < m ? u[row0 + i0 + t + h] : R(0);
    } else if (t < 2 * TILE) {
        int c = t - TILE;
        vr[c] = j0 + c < n ? v[col0 + j0 + c] : R(0);
        vs[c] = j0 + c < n ? v[col0 + j0 + c + h] : R(0);
    }
    __syncthreads();
    int i = i0 + threadIdx.x;
    if (i >= m)
        return;
    for (int jj = threadIdx.y; jj < TILE; jj += ROWS) {
        int j = j0 + jj;
        if (j >= n)
            break;
        size_t k = i + (size_t)j * lda;
        T a11 = A11[k], a12 = A12[k], a21 = A21[k], a22 = A22[k];
        T p = add(a11, a21), q = sub(a11, a21), r = add(a12, a22), s = sub(a12, a22);
        R half = R(0.5);
        A11[k] = ops<T, R>::scale(add(p, r), half * ur[threadIdx.x] * vr[jj]);
        A12[k] = ops<T, R>::scale(sub(p, r), half * ur[threadIdx.x] * vs[jj]);
        A21[k] = ops<T, R>::scale(add(q, s), half * us[threadIdx.x] * vr[jj]);
        A22[k] = ops<T, R>::scale(sub(q, s), half * us[threadIdx.x] * vs[jj]);
    }
}

template <typename T, typename R>
__global__ void gerbt_one_sided(int m, int n, T *B1, T *B2, int ldb, const R *u, int row0, int h, int transposed)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= m || j >= n)
        return;
    size_t k = i + (size_t)j * ldb;
    R c = R(0.70710678118654752440), r = u[row0 + i], s = u[row0 + i + h];
    T b1 = B1[k], b2 = B2[k];
    if (transposed) {            // W^T b: (r (b1 + b2), s (b1 - b2)) / sqrt 2
        B1[k] = ops<T, R>::scale(add(b1, b2), c * r);
        B2[k] = ops<T, R>::scale(sub(b1, b2), c * s);
    } else {                     // W b: (r b1 + s b2, r b1 - s b2) / sqrt 2
        T x = ops<T, R>::scale(b1, r), y = ops<T, R>::scale(b2, s);
        B1[k] = ops<T, R>::scale(add(x, y), c);
        B2[k] = ops<T, R>::scale(sub(x, y), c);
    }
}

template <typename T, typename R>
static void two_sided(int m, int n, void *A11, void *A12, void *A21, void *A22, int lda, const void *u,
                      const void *v, int row0, int col0, int h, cudaStream_t stream)
{
    if (m <= 0 || n <= 0)
        return;
    dim3 block(TILE, ROWS), grid((m + TILE - 1) / TILE, (n + TILE - 1) / TILE);
    gerbt_two_sided<T, R><<<grid, block, 0, stream>>>(m, n, (T *)A11, (T *)A12, (T *)A21, (T *)A22, lda,
                                                      (const R *)u, (const R *)v, row0, col0, h);
    SS_CHECK_LAUNCH("gerbt two-sided kernel launch");
}

template <typename T, typename R>
static void one_sided(int m, int n, void *B1, void *B2, int ldb, const void *u, int row0, int h, int transposed,
                      cudaStream_t stream)
{
    if (m <= 0 || n <= 0)
        return;
    dim3 block(64, 4), grid((m + 63) / 64, (n + 3) / 4);
    gerbt_one_sided<T, R><<<grid, block, 0, stream>>>(m, n, (T *)B1, (T *)B2, ldb, (const R *)u, row0, h, transposed);
    SS_CHECK_LAUNCH("gerbt one-sided kernel launch");
}

// One entry point per precision, as the codelets name them.
extern "C" void ss_cuda_sgerbt(int m, int n, void *A11, void *A12, void *A21, void *A22, int lda, const void *u,
                               const void *v, int row0, int col0, int h, cudaStream_t stream)
{
    two_sided<float, float>(m, n, A11, A12, A21, A22, lda, u, v, row0, col0, h, stream);
}
extern "C" void ss_cuda_sgerbt_rhs(int m, int n, void *B1, void *B2, int ldb, const void *u, int row0, int h,
                                   int transposed, cudaStream_t stream)
{
    one_sided<float, float>(m, n, B1, B2, ldb, u, row0, h, transposed, stream);
}
extern "C" void ss_cuda_dgerbt(int m, int n, void *A11, void *A12, void *A21, void *A22, int lda, const void *u,
                               const void *v, int row0, int col0, int h, cudaStream_t stream)
{
    two_sided<double, double>(m, n, A11, A12, A21, A22, lda, u, v, row0, col0, h, stream);
}
extern "C" void ss_cuda_dgerbt_rhs(int m, int n, void *B1, void *B2, int ldb, const void *u, int row0, int h,
                                   int transposed, cudaStream_t stream)
{
    one_sided<double, double>(m, n, B1, B2, ldb, u, row0, h, transposed, stream);
}
extern "C" void ss_cuda_cgerbt(int m, int n, void *A11, void *A12, void *A21, void *A22, int lda, const void *u,
                               const void *v, int row0, int col0, int h, cudaStream_t stream)
{
    two_sided<float2, float>(m, n, A11, A12, A21, A22, lda, u, v, row0, col0, h, stream);
}
extern "C" void ss_cuda_cgerbt_rhs(int m, int n, void *B1, void *B2, int ldb, const void *u, int row0, int h,
                                   int transposed, cudaStream_t stream)
{
    one_sided<float2, float>(m, n, B1, B2, ldb, u, row0, h, transposed, stream);
}
extern "C" void ss_cuda_zgerbt(int m, int n, void *A11, void *A12, void *A21, void *A22, int lda, const void *u,
                               const void *v, int row0, int col0, int h, cudaStream_t stream)
{
    two_sided<double2, double>(m, n, A11, A12, A21, A22, lda, u, v, row0, col0, h, stream);
}
extern "C" void ss_cuda_zgerbt_rhs(int m, int n, void *B1, void *B2, int ldb, const void *u, int row0, int h,
                                   int transposed, cudaStream_t stream)
{
    one_sided<double2, double>(m, n, B1, B2, ldb, u, row0, h, transposed, stream);
}
