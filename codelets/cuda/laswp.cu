// Row interchanges on a column of tiles in GPU memory: every swap of one LU
// panel in one launch. Thread c owns column c of the tiles and applies the
// swaps in order, so no two threads touch the same element.
// One source for all precisions: only the element size matters for a swap.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define SS_LASWP_MAX_TILES 1024   // kernel parameters may take 32 KB on CUDA >= 12.1

struct laswp_tiles {
    void *ptr[SS_LASWP_MAX_TILES];
    int ld[SS_LASWP_MAX_TILES];
};

template <typename T>
__global__ void laswp_kernel(const __grid_constant__ laswp_tiles tiles, int ncols, int nb, const int *ipiv,
                             int npiv, int offset, int forward)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= ncols)
        return;
    for (int s = 0; s < npiv; s++) {
        int i = forward ? s : npiv - 1 - s;
        int p = ipiv[i] - 1 - offset;
        if (p == i)
            continue;
        T *ri = (T *)tiles.ptr[i / nb] + (i % nb) + (size_t)c * tiles.ld[i / nb];
        T *rp = (T *)tiles.ptr[p / nb] + (p % nb) + (size_t)c * tiles.ld[p / nb];
        T tmp = *ri;
        *ri = *rp;
        *rp = tmp;
    }
}

extern "C" void ss_cuda_fail(const char *what, int status, const char *file, int line);

extern "C" void ss_cuda_laswp(size_t elemsize, int ncols, int ntiles, void *const *tiles, const int *ld, int nb,
                              const int *ipiv, int npiv, int offset, int forward, cudaStream_t stream)
{
    if (ntiles > SS_LASWP_MAX_TILES)
        ss_cuda_fail("ss_cuda_laswp: too many tile rows", ntiles, __FILE__, __LINE__);
    laswp_tiles t;
    for (int i = 0; i < ntiles; i++) {
        t.ptr[i] = tiles[i];
        t.ld[i] = ld[i];
    }
    dim3 block(128), grid((ncols + 127) / 128);
    switch (elemsize) {
    case 4:  laswp_kernel<float><<<grid, block, 0, stream>>>(t, ncols, nb, ipiv, npiv, offset, forward); break;
    case 8:  laswp_kernel<double><<<grid, block, 0, stream>>>(t, ncols, nb, ipiv, npiv, offset, forward); break;
    case 16: laswp_kernel<double2><<<grid, block, 0, stream>>>(t, ncols, nb, ipiv, npiv, offset, forward); break;
    default: ss_cuda_fail("ss_cuda_laswp: element size", (int)elemsize, __FILE__, __LINE__);
    }
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        ss_cuda_fail("laswp_kernel launch", (int)err, __FILE__, __LINE__);
}
