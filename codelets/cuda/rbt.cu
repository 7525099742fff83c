// Random butterfly transformation on tiles in GPU memory (codelets/codelet_zgerbt.c
// has the CPU side and the formulas). A butterfly W = (1/sqrt 2) [R S; R -S] with
// R, S diagonal mixes row i of a block with row i + h; its diagonals are packed
// in one vector per level, u[i] = R(i) for the top half of a block and
// u[i + h] = S(i) for the bottom half.
//  - two-sided: the four tiles at (i, j), (i, j+h), (i+h, j), (i+h, j+h) of a
//    block become those of W_u^T A W_v, in one pass, each thread one (i, j);
//    the butterfly entries of the tile rows and columns sit in shared memory;
//  - two levels fused: the sixteen tiles that two consecutive levels l, l+1 mix
//    (rows and columns at offsets 0, h/2, h, h + h/2 of a level-l block, h its
//    half) read once, both levels applied in registers, written once: half the
//    memory traffic of two one-level passes;
//  - one-sided, on right-hand sides: W^T B (forward) or W B (backward);
//  - local: a level whose blocks lie inside one tile (deep levels, smaller than a tile), one pass
//    over the tile, each thread the four (two-sided) or two (one-sided) entries of one block it mixes.
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

// The butterfly of one level on four values: a11 a12 / a21 a22 at rows (r, r+h) and
// columns (c, c+h) of a block; ur, us and vr, vs the level's entries for those rows and columns.
template <typename T, typename R>
__device__ inline void butterfly4(T &a11, T &a12, T &a21, T &a22, R ur, R us, R vr, R vs)
{
    T p = add(a11, a21), q = sub(a11, a21), r = add(a12, a22), s = sub(a12, a22);
    R half = R(0.5);
    a11 = ops<T, R>::scale(add(p, r), half * ur * vr);
    a12 = ops<T, R>::scale(sub(p, r), half * ur * vs);
    a21 = ops<T, R>::scale(add(q, s), half * us * vr);
    a22 = ops<T, R>::scale(sub(q, s), half * us * vs);
}

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
        butterfly4(a11, a12, a21, a22, ur[threadIdx.x], us[threadIdx.x], vr[jj], vs[jj]);
        A11[k] = a11;
        A12[k] = a12;
        A21[k] = a21;
        A22[k] = a22;
    }
}

// the sixteen tiles of two fused levels: t[4 a + b] at row offset off(a), column offset off(b),
// off = 0, h/2, h, h + h/2
template <typename T> struct tiles16 { T *t[16]; };

template <typename T, typename R>
__global__ void gerbt2_two_sided(int m, int n, tiles16<T> A, int lda, const R *u0, const R *v0, const R *u1,
                                 const R *v1, int row0, int col0, int h)
{
    // level l's and level l+1's entries of this block's rows and columns, at the four offsets
    __shared__ R su0[4][TILE], su1[4][TILE], sv0[4][TILE], sv1[4][TILE];
    int i0 = blockIdx.x * TILE, j0 = blockIdx.y * TILE, t = threadIdx.x + threadIdx.y * TILE;
    if (t < 4 * TILE) {
        int a = t / TILE, c = t % TILE, off = (a & 1) * (h / 2) + (a >> 1) * h;
        su0[a][c] = i0 + c < m ? u0[row0 + off + i0 + c] : R(0);
        su1[a][c] = i0 + c < m ? u1[row0 + off + i0 + c] : R(0);
        sv0[a][c] = j0 + c < n ? v0[col0 + off + j0 + c] : R(0);
        sv1[a][c] = j0 + c < n ? v1[col0 + off + j0 + c] : R(0);
    }
    __syncthreads();
    int i = i0 + threadIdx.x, ti = threadIdx.x;
    if (i >= m)
        return;
    for (int jj = threadIdx.y; jj < TILE; jj += ROWS) {
        int j = j0 + jj;
        if (j >= n)
            break;
        size_t k = i + (size_t)j * lda;
        T x[16];
#pragma unroll
        for (int e = 0; e < 16; e++)
            x[e] = A.t[e][k];
        // level l: offsets a and a + 2 (distance h)
#pragma unroll
        for (int a = 0; a < 2; a++)
#pragma unroll
            for (int b = 0; b < 2; b++)
                butterfly4(x[4 * a + b], x[4 * a + b + 2], x[4 * (a + 2) + b], x[4 * (a + 2) + b + 2], su0[a][ti],
                           su0[a + 2][ti], sv0[b][jj], sv0[b + 2][jj]);
        // level l+1, in each half: offsets a and a + 1 (distance h/2)
#pragma unroll
        for (int a = 0; a < 4; a += 2)
#pragma unroll
            for (int b = 0; b < 4; b += 2)
                butterfly4(x[4 * a + b], x[4 * a + b + 1], x[4 * (a + 1) + b], x[4 * (a + 1) + b + 1], su1[a][ti],
                           su1[a + 1][ti], sv1[b][jj], sv1[b + 1][jj]);
#pragma unroll
        for (int e = 0; e < 16; e++)
            A.t[e][k] = x[e];
    }
}

// One level's butterfly on two values b1, b2 at rows r and r + h of a block: W^T b (transposed) or W b
template <typename T, typename R>
__device__ inline void butterfly2(T &b1, T &b2, R ur, R us, int transposed)
{
    R c = R(0.70710678118654752440);
    if (transposed) {            // W^T b: (r (b1 + b2), s (b1 - b2)) / sqrt 2
        T x = ops<T, R>::scale(add(b1, b2), c * ur), y = ops<T, R>::scale(sub(b1, b2), c * us);
        b1 = x;
        b2 = y;
    } else {                     // W b: (r b1 + s b2, r b1 - s b2) / sqrt 2
        T x = ops<T, R>::scale(b1, ur), y = ops<T, R>::scale(b2, us);
        b1 = ops<T, R>::scale(add(x, y), c);
        b2 = ops<T, R>::scale(sub(x, y), c);
    }
}

template <typename T, typename R>
__global__ void gerbt_one_sided(int m, int n, T *B1, T *B2, int ldb, const R *u, int row0, int h, int transposed)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= m || j >= n)
        return;
    size_t k = i + (size_t)j * ldb;
    T b1 = B1[k], b2 = B2[k];
    butterfly2(b1, b2, u[row0 + i], u[row0 + i + h], transposed);
    B1[k] = b1;
    B2[k] = b2;
}

// A level of half h < the tile's order: the m x n tile (m, n multiples of 2h) holds (m / 2h) x (n / 2h) of its
// blocks; thread (i, j) of the m / 2 x n / 2 top-left quadrant entries takes row r = the i-th top-half row,
// column c likewise, and mixes (r, c), (r, c + h), (r + h, c), (r + h, c + h). row0, col0: the tile's first
// row and column in the butterfly vectors.
template <typename T, typename R>
__global__ void gerbt_local_two_sided(int m, int n, T *A, int lda, const R *u, const R *v, int row0, int col0, int h)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= m / 2 || j >= n / 2)
        return;
    int r = i / h * 2 * h + i % h, c = j / h * 2 * h + j % h;
    T *a11 = A + r + (size_t)c * lda, *a12 = a11 + (size_t)h * lda, *a21 = a11 + h, *a22 = a12 + h;
    T x11 = *a11, x12 = *a12, x21 = *a21, x22 = *a22;
    butterfly4(x11, x12, x21, x22, u[row0 + r], u[row0 + r + h], v[col0 + c], v[col0 + c + h]);
    *a11 = x11;
    *a12 = x12;
    *a21 = x21;
    *a22 = x22;
}

// the same on right-hand sides: rows r and r + h of every column
template <typename T, typename R>
__global__ void gerbt_local_one_sided(int m, int n, T *B, int ldb, const R *u, int row0, int h, int transposed)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= m / 2 || j >= n)
        return;
    int r = i / h * 2 * h + i % h;
    T *b1 = B + r + (size_t)j * ldb, *b2 = b1 + h;
    T x = *b1, y = *b2;
    butterfly2(x, y, u[row0 + r], u[row0 + r + h], transposed);
    *b1 = x;
    *b2 = y;
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
static void two_sided_fused(int m, int n, void *const *A16, int lda, const void *u0, const void *v0, const void *u1,
                            const void *v1, int row0, int col0, int h, cudaStream_t stream)
{
    if (m <= 0 || n <= 0)
        return;
    tiles16<T> A;
    for (int e = 0; e < 16; e++)
        A.t[e] = (T *)A16[e];
    dim3 block(TILE, ROWS), grid((m + TILE - 1) / TILE, (n + TILE - 1) / TILE);
    gerbt2_two_sided<T, R><<<grid, block, 0, stream>>>(m, n, A, lda, (const R *)u0, (const R *)v0, (const R *)u1,
                                                       (const R *)v1, row0, col0, h);
    SS_CHECK_LAUNCH("gerbt fused two-level kernel launch");
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

template <typename T, typename R>
static void local_two_sided(int m, int n, void *A, int lda, const void *u, const void *v, int row0, int col0, int h,
                            cudaStream_t stream)
{
    if (m <= 1 || n <= 1)
        return;
    dim3 block(64, 4), grid((m / 2 + 63) / 64, (n / 2 + 3) / 4);
    gerbt_local_two_sided<T, R><<<grid, block, 0, stream>>>(m, n, (T *)A, lda, (const R *)u, (const R *)v, row0,
                                                            col0, h);
    SS_CHECK_LAUNCH("gerbt local two-sided kernel launch");
}

template <typename T, typename R>
static void local_one_sided(int m, int n, void *B, int ldb, const void *u, int row0, int h, int transposed,
                            cudaStream_t stream)
{
    if (m <= 1 || n <= 0)
        return;
    dim3 block(64, 4), grid((m / 2 + 63) / 64, (n + 3) / 4);
    gerbt_local_one_sided<T, R><<<grid, block, 0, stream>>>(m, n, (T *)B, ldb, (const R *)u, row0, h, transposed);
    SS_CHECK_LAUNCH("gerbt local one-sided kernel launch");
}

// One entry point per precision, as the codelets name them.
extern "C" void ss_cuda_sgerbt(int m, int n, void *A11, void *A12, void *A21, void *A22, int lda, const void *u,
                               const void *v, int row0, int col0, int h, cudaStream_t stream)
{
    two_sided<float, float>(m, n, A11, A12, A21, A22, lda, u, v, row0, col0, h, stream);
}
extern "C" void ss_cuda_sgerbt2(int m, int n, void *const *A16, int lda, const void *u0, const void *v0,
                                const void *u1, const void *v1, int row0, int col0, int h, cudaStream_t stream)
{
    two_sided_fused<float, float>(m, n, A16, lda, u0, v0, u1, v1, row0, col0, h, stream);
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
extern "C" void ss_cuda_dgerbt2(int m, int n, void *const *A16, int lda, const void *u0, const void *v0,
                                const void *u1, const void *v1, int row0, int col0, int h, cudaStream_t stream)
{
    two_sided_fused<double, double>(m, n, A16, lda, u0, v0, u1, v1, row0, col0, h, stream);
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
extern "C" void ss_cuda_cgerbt2(int m, int n, void *const *A16, int lda, const void *u0, const void *v0,
                                const void *u1, const void *v1, int row0, int col0, int h, cudaStream_t stream)
{
    two_sided_fused<float2, float>(m, n, A16, lda, u0, v0, u1, v1, row0, col0, h, stream);
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
extern "C" void ss_cuda_zgerbt2(int m, int n, void *const *A16, int lda, const void *u0, const void *v0,
                                const void *u1, const void *v1, int row0, int col0, int h, cudaStream_t stream)
{
    two_sided_fused<double2, double>(m, n, A16, lda, u0, v0, u1, v1, row0, col0, h, stream);
}
extern "C" void ss_cuda_zgerbt_rhs(int m, int n, void *B1, void *B2, int ldb, const void *u, int row0, int h,
                                   int transposed, cudaStream_t stream)
{
    one_sided<double2, double>(m, n, B1, B2, ldb, u, row0, h, transposed, stream);
}
extern "C" void ss_cuda_sgerbt_local(int m, int n, void *A, int lda, const void *u, const void *v, int row0,
                                     int col0, int h, cudaStream_t stream)
{
    local_two_sided<float, float>(m, n, A, lda, u, v, row0, col0, h, stream);
}
extern "C" void ss_cuda_sgerbt_rhs_local(int m, int n, void *B, int ldb, const void *u, int row0, int h,
                                         int transposed, cudaStream_t stream)
{
    local_one_sided<float, float>(m, n, B, ldb, u, row0, h, transposed, stream);
}
extern "C" void ss_cuda_dgerbt_local(int m, int n, void *A, int lda, const void *u, const void *v, int row0,
                                     int col0, int h, cudaStream_t stream)
{
    local_two_sided<double, double>(m, n, A, lda, u, v, row0, col0, h, stream);
}
extern "C" void ss_cuda_dgerbt_rhs_local(int m, int n, void *B, int ldb, const void *u, int row0, int h,
                                         int transposed, cudaStream_t stream)
{
    local_one_sided<double, double>(m, n, B, ldb, u, row0, h, transposed, stream);
}
extern "C" void ss_cuda_cgerbt_local(int m, int n, void *A, int lda, const void *u, const void *v, int row0,
                                     int col0, int h, cudaStream_t stream)
{
    local_two_sided<float2, float>(m, n, A, lda, u, v, row0, col0, h, stream);
}
extern "C" void ss_cuda_cgerbt_rhs_local(int m, int n, void *B, int ldb, const void *u, int row0, int h,
                                         int transposed, cudaStream_t stream)
{
    local_one_sided<float2, float>(m, n, B, ldb, u, row0, h, transposed, stream);
}
extern "C" void ss_cuda_zgerbt_local(int m, int n, void *A, int lda, const void *u, const void *v, int row0,
                                     int col0, int h, cudaStream_t stream)
{
    local_two_sided<double2, double>(m, n, A, lda, u, v, row0, col0, h, stream);
}
extern "C" void ss_cuda_zgerbt_rhs_local(int m, int n, void *B, int ldb, const void *u, int row0, int h,
                                         int transposed, cudaStream_t stream)
{
    local_one_sided<double2, double>(m, n, B, ldb, u, row0, h, transposed, stream);
}
