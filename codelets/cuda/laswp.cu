// Row interchanges on a column of tiles in GPU memory. Each LU panel's swaps
// come composed into one permutation of the rows they touch (src/pivots.h):
// a gather kernel copies those rows out, a scatter kernel writes them to their
// places. Every (row, column) pair is a thread, so the work runs at memory
// bandwidth, where applying the npiv swaps one after the other runs at memory
// latency (about 1 ms for a 1024-wide panel).
// One source for all precisions: only the element size matters.
#include <cuda_runtime.h>
#include "cuda_check.cuh"

#define SS_LASWP_MAX_TILES 1024    // kernel parameters may take 32 KB on CUDA >= 12.1

struct laswp_tiles {
    void *tile[SS_LASWP_MAX_TILES];
    int ld[SS_LASWP_MAX_TILES];
};

// v: the panel's pivot vector: v[0] npiv, v[1] nmoved, ipiv, moved, from
__device__ inline const int *moved_rows(const int *v) { return v + 2 + v[0]; }
__device__ inline const int *from_rows(const int *v) { return v + 2 + 3 * v[0]; }

template <typename T>
__device__ inline T *element(const laswp_tiles &t, int nb, int row, int col)
{
    return (T *)t.tile[row / nb] + (row % nb) + (size_t)col * t.ld[row / nb];
}

// tmp[j + c*ldtmp] = the row that moved row j receives (forward) or holds (backward)
template <typename T>
__global__ void laswp_gather(const __grid_constant__ laswp_tiles t, int nb, int base, const int *v,
                             int ncols, int forward, T *tmp, int ldtmp)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x, c = blockIdx.y * blockDim.y + threadIdx.y;
    if (j >= v[1] || c >= ncols)
        return;
    int r = base + (forward ? from_rows(v)[j] : moved_rows(v)[j]);
    tmp[j + (size_t)c * ldtmp] = *element<T>(t, nb, r, c);
}

template <typename T>
__global__ void laswp_scatter(const __grid_constant__ laswp_tiles t, int nb, int base, const int *v,
                              int ncols, int forward, const T *tmp, int ldtmp)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x, c = blockIdx.y * blockDim.y + threadIdx.y;
    if (j >= v[1] || c >= ncols)
        return;
    int w = base + (forward ? moved_rows(v)[j] : from_rows(v)[j]);
    *element<T>(t, nb, w, c) = tmp[j + (size_t)c * ldtmp];
}

template <typename T>
static void launch(const laswp_tiles &t, int ncols, int nb, int npanels, const int *const *piv, const int *npiv,
                   int forward, void *work, cudaStream_t stream)
{
    dim3 block(32, 8);
    for (int pp = 0; pp < npanels; pp++) {
        int p = forward ? pp : npanels - 1 - pp;
        int ldtmp = 2 * npiv[p];                     // at most 2*npiv rows move
        if (ldtmp == 0)
            continue;
        dim3 grid((ldtmp + 31) / 32, (ncols + 7) / 8);
        laswp_gather<T><<<grid, block, 0, stream>>>(t, nb, p * nb, piv[p], ncols, forward, (T *)work, ldtmp);
        laswp_scatter<T><<<grid, block, 0, stream>>>(t, nb, p * nb, piv[p], ncols, forward, (const T *)work, ldtmp);
    }
}

extern "C" void ss_cuda_laswp(size_t elemsize, int ncols, int ntiles, void *const *tiles, const int *ld, int nb,
                              int npanels, const int *const *piv, const int *npiv, int forward, void *work,
                              cudaStream_t stream)
{
    if (ntiles > SS_LASWP_MAX_TILES)
        ss_cuda_fail("ss_cuda_laswp: more tile rows than one launch takes", ntiles, __FILE__, __LINE__);
    static thread_local laswp_tiles t;    // 12 KB: off the worker's stack, one per worker thread
    for (int i = 0; i < ntiles; i++) {
        t.tile[i] = tiles[i];
        t.ld[i] = ld[i];
    }
    // work holds the moved rows of one panel; kernels on this stream are ordered, so it serves every panel
    switch (elemsize) {
    case 4:  launch<float>(t, ncols, nb, npanels, piv, npiv, forward, work, stream); break;
    case 8:  launch<double>(t, ncols, nb, npanels, piv, npiv, forward, work, stream); break;
    case 16: launch<double2>(t, ncols, nb, npanels, piv, npiv, forward, work, stream); break;
    default: ss_cuda_fail("ss_cuda_laswp: element size", (int)elemsize, __FILE__, __LINE__);
    }
    SS_CHECK_LAUNCH("laswp kernel launch");
}
