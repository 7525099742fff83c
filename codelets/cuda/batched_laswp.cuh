// Row interchanges of the batched LU on the GPU, applied all at once (Haidar et al.: a panel's
// swaps composed into one permutation, the rows gathered then written, never one swap after
// the other at memory latency). Included by batched.cu and by bench/emu's host emulation.
//   apply_row_moves: inside a panel kernel, that panel's moves on a range of columns;
//   batch_laswp: a kernel of its own for the moves of many panels at once, which the nested
//     LU (zbatched_cuda.c) defers: the outer block's pivots on the columns right of it, and at
//     the end every block's later pivots on its own columns (the L part).
#ifndef STARSOLVE_BATCHED_LASWP_CUH
#define STARSOLVE_BATCHED_LASWP_CUH
#include "batched_scalar.cuh"

// a kernel's dynamic shared memory (bench/emu defines its own: one buffer per emulated block)
#ifndef SS_DYNAMIC_SHARED
#define SS_DYNAMIC_SHARED(name) extern __shared__ __align__(16) unsigned char name[]
#endif

// A panel's row moves on columns c0..c1-1 except the panel's own (j0..j0+jb-1): after the
// panel, row r of the rows from j0 is the one perm[r] was before; moved[0..nmoved-1] lists the
// rows r with perm[r] != r (at most 2 jb <= 128: 4 a lane). A warp takes two columns at a time
// and issues all their loads before any store (one memory latency per two columns).
template <typename T>
__device__ void apply_row_moves(T *A, int lda, int c0, int c1, int j0, int jb, const int *perm, const int *moved,
                                int nmoved)
{
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, nw = blockDim.x / 32;
    if (nmoved <= 0)
        return;
    // the columns to move, numbered without the panel's
    const int left = j0 > c0 ? (j0 < c1 ? j0 : c1) - c0 : 0, right0 = j0 + jb > c0 ? j0 + jb : c0;
    const int total = left + (c1 > right0 ? c1 - right0 : 0);
    for (int q0 = 2 * warp; q0 < total; q0 += 2 * nw) {
        T v[2][4];
        T *a[2];
#pragma unroll
        for (int u = 0; u < 2; u++) {
            const int q = q0 + u, col = q < left ? c0 + q : right0 + (q - left);
            a[u] = q < total ? A + (size_t)col * lda + j0 : nullptr;
#pragma unroll
            for (int i = 0; i < 4; i++)
                if (a[u] && lane + 32 * i < nmoved)
                    v[u][i] = a[u][perm[moved[lane + 32 * i]]];
        }
        __syncwarp();
#pragma unroll
        for (int u = 0; u < 2; u++)
#pragma unroll
            for (int i = 0; i < 4; i++)
                if (a[u] && lane + 32 * i < nmoved)
                    a[u][moved[lane + 32 * i]] = v[u][i];
        __syncwarp();
    }
}

// threads of a batch_laswp block, and its shared memory for rows m - first: the permutation,
// the moved rows, and a gather buffer per warp
#define LASWP_THREADS 128
__host__ __device__ inline size_t batch_laswp_index_bytes(int mr) { return (2 * (size_t)mr * sizeof(int) + 15) & ~(size_t)15; }
inline size_t batch_laswp_bytes(int mr, size_t es)
{
    return batch_laswp_index_bytes(mr) + (size_t)(LASWP_THREADS / 32) * mr * es;
}

// LAPACK's interchanges ipiv[first..k-1] (1-based, global rows, applied in order) on columns
// of every matrix, composed first: block (x, y) takes matrix x, the columns
// c0 + y cw .. min(c0 + (y + 1) cw, c1) - 1 and first = p0 + y pstep (the deferred pass gives
// each panel's columns the pivots after that panel: pstep = cw). Rows below `first` do not move.
template <typename T>
__global__ void __launch_bounds__(LASWP_THREADS)
    batch_laswp(int m, int k, int p0, int pstep, int c0, int cw, int c1, T *Aall, int lda, long long sA,
                const int *ipiv_all, long long sP)
{
    SS_DYNAMIC_SHARED(smem);
    __shared__ int nmoved;
    const int y = blockIdx.y, first = p0 + y * pstep, cb = c0 + y * cw, ce = cb + cw < c1 ? cb + cw : c1;
    if (first >= k || cb >= ce)   // the same in the whole block
        return;
    const int mr = m - first, tid = threadIdx.x, lane = tid % 32, warp = tid / 32, nw = blockDim.x / 32;
    int *perm = (int *)smem, *moved = perm + mr;
    T *buf = (T *)(smem + batch_laswp_index_bytes(mr)) + (size_t)warp * mr;
    const int *ipiv = ipiv_all + (size_t)blockIdx.x * sP;
    T *A = Aall + (size_t)blockIdx.x * sA;
    for (int r = tid; r < mr; r += blockDim.x)
        perm[r] = r;
    if (tid == 0)
        nmoved = 0;
    __syncthreads();
    if (tid == 0)   // the swaps in order: row r of the result is row perm[r] before them
        for (int j = first; j < k; j++) {
            const int p = ipiv[j] - 1 - first, t = perm[j - first];
            perm[j - first] = perm[p];
            perm[p] = t;
        }
    __syncthreads();
    for (int r = tid; r < mr; r += blockDim.x)   // in any order: each moved row is written once
        if (perm[r] != r)
            moved[atomicAdd(&nmoved, 1)] = r;
    __syncthreads();
    const int nm = nmoved;
    for (int col = cb + warp; col < ce; col += nw) {   // a warp per column: gather, then write
        T *a = A + (size_t)col * lda + first;
        for (int i = lane; i < nm; i += 32)
            buf[i] = a[perm[moved[i]]];
        __syncwarp();
        for (int i = lane; i < nm; i += 32)
            a[moved[i]] = buf[i];
        __syncwarp();
    }
}

#endif
