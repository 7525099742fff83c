// Row interchanges on a column of tiles in GPU memory: the swaps of one or
// more LU panels in one launch. Thread c owns column c of the tiles and applies
// the swaps in order, so no two threads touch the same element.
// One source for all precisions: only the element size matters for a swap.
#include <cuda_runtime.h>

#define SS_LASWP_MAX_TILES 1024    // kernel parameters may take 32 KB on CUDA >= 12.1
#define SS_LASWP_MAX_PANELS 512

struct laswp_params {
    void *tile[SS_LASWP_MAX_TILES];
    int ld[SS_LASWP_MAX_TILES];
    const int *ipiv[SS_LASWP_MAX_PANELS];
    int npiv[SS_LASWP_MAX_PANELS];
    int ncols, nb, offset, forward;
    int first_panel, npanels;      // this launch's panels: first_panel .. first_panel+npanels-1
};

template <typename T>
__global__ void laswp_kernel(const __grid_constant__ laswp_params p)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= p.ncols)
        return;
    for (int pp = 0; pp < p.npanels; pp++) {
        int panel = p.forward ? pp : p.npanels - 1 - pp;
        for (int s = 0; s < p.npiv[panel]; s++) {
            int k = p.forward ? s : p.npiv[panel] - 1 - s;
            int i = (p.first_panel + panel) * p.nb + k;       // row of the column of tiles
            int q = p.ipiv[panel][k] - 1 - p.offset;         // the row it swaps with
            if (q == i)
                continue;
            T *ri = (T *)p.tile[i / p.nb] + (i % p.nb) + (size_t)c * p.ld[i / p.nb];
            T *rq = (T *)p.tile[q / p.nb] + (q % p.nb) + (size_t)c * p.ld[q / p.nb];
            T tmp = *ri;
            *ri = *rq;
            *rq = tmp;
        }
    }
}

extern "C" void ss_cuda_fail(const char *what, int status, const char *file, int line);

extern "C" void ss_cuda_laswp(size_t elemsize, int ncols, int ntiles, void *const *tiles, const int *ld, int nb,
                              int npanels, const int *const *ipiv, const int *npiv, int offset, int forward,
                              cudaStream_t stream)
{
    if (ntiles > SS_LASWP_MAX_TILES)
        ss_cuda_fail("ss_cuda_laswp: more tile rows than one launch takes", ntiles, __FILE__, __LINE__);
    static thread_local laswp_params p;    // 27 KB: off the worker's stack, one per worker thread
    for (int i = 0; i < ntiles; i++) {
        p.tile[i] = tiles[i];
        p.ld[i] = ld[i];
    }
    p.ncols = ncols;
    p.nb = nb;
    p.offset = offset;
    p.forward = forward;
    dim3 block(128), grid((ncols + 127) / 128);
    // more panels than one launch takes: several launches, in the order the swaps go
    int nchunks = (npanels + SS_LASWP_MAX_PANELS - 1) / SS_LASWP_MAX_PANELS;
    for (int cc = 0; cc < nchunks; cc++) {
        int chunk = forward ? cc : nchunks - 1 - cc;
        p.first_panel = chunk * SS_LASWP_MAX_PANELS;
        p.npanels = npanels - p.first_panel < SS_LASWP_MAX_PANELS ? npanels - p.first_panel : SS_LASWP_MAX_PANELS;
        for (int i = 0; i < p.npanels; i++) {
            p.ipiv[i] = ipiv[p.first_panel + i];
            p.npiv[i] = npiv[p.first_panel + i];
        }
        switch (elemsize) {
        case 4:  laswp_kernel<float><<<grid, block, 0, stream>>>(p); break;
        case 8:  laswp_kernel<double><<<grid, block, 0, stream>>>(p); break;
        case 16: laswp_kernel<double2><<<grid, block, 0, stream>>>(p); break;
        default: ss_cuda_fail("ss_cuda_laswp: element size", (int)elemsize, __FILE__, __LINE__);
        }
        cudaError_t err = cudaGetLastError();
        if (err != cudaSuccess)
            ss_cuda_fail("laswp_kernel launch", (int)err, __FILE__, __LINE__);
    }
}
