// Pivot indices in GPU memory: a panel's pivots composed into one permutation,
// and small copies of ints in stream order.
#include <cuda_runtime.h>
#include "cuda_check.cuh"

// The GPU side of ss_piv_finish_panel (src/pivots.c has the same algorithm on
// the host): the composition of a panel's swaps is sequential, so one thread
// runs it, with the permutation in shared memory; the rest of the block fills
// and copies in parallel. Pivot rows below the panel's first npiv rows find
// their slot through rowslot (one int per panel row; only the rows named are
// touched, so it needs no clearing between calls). Doing it here keeps the
// pivots off the copy engines, whose queues hold StarPU's tile transfers.
__global__ void finish_panel_pivots_kernel(int *v, const int *dpiv, int npiv, int offset, int *rowslot)
{
    extern __shared__ int from[];   // 2 * npiv
    int *ipiv = v + 2, *moved = v + 2 + npiv, *from_out = v + 2 + 3 * npiv;
    for (int i = threadIdx.x; i < npiv; i += blockDim.x) {
        int p = dpiv[i] - 1;
        if (p >= npiv)
            rowslot[p] = -1;
        from[i] = i;
        moved[i] = i;
        ipiv[i] = dpiv[i] + offset;
    }
    __syncthreads();
    __shared__ int nmoved;
    if (threadIdx.x == 0) {
        int count = npiv;
        for (int i = 0; i < npiv; i++) {
            int p = dpiv[i] - 1, slot;
            if (p == i)
                continue;
            if (p < npiv) {
                slot = p;
            } else {
                slot = rowslot[p];
                if (slot < 0) {
                    slot = count++;
                    rowslot[p] = slot;
                    moved[slot] = p;
                    from[slot] = p;
                }
            }
            int t = from[i];
            from[i] = from[slot];
            from[slot] = t;
        }
        nmoved = count;
        v[0] = npiv;
        v[1] = count;
    }
    __syncthreads();
    for (int j = threadIdx.x; j < nmoved; j += blockDim.x)
        from_out[j] = from[j];
}

extern "C" void ss_cuda_finish_panel_pivots(int *v, const int *dpiv, int npiv, int offset, int *rowslot,
                                            cudaStream_t stream)
{
    if (npiv <= 0)
        return;
    // 48 KB from 6144 columns on (starsolve_set_nb allows any tile size); up to ~29000 with the 227 KB an H100 or H200 block may ask for
    size_t shared = 2 * (size_t)npiv * sizeof(int);
    ss_cuda_require_smem(finish_panel_pivots_kernel, shared,
                         "ss_cuda_finish_panel_pivots: a panel too wide for a block's shared memory");
    finish_panel_pivots_kernel<<<1, 256, shared, stream>>>(v, dpiv, npiv, offset, rowslot);
    SS_CHECK_LAUNCH("finish_panel_pivots kernel launch");
}

// count ints from src to dst in stream order (a kernel, not a copy engine)
__global__ void copy_ints_kernel(int *dst, const int *src, int count)
{
    for (int i = threadIdx.x; i < count; i += blockDim.x)
        dst[i] = src[i];
}

extern "C" void ss_cuda_copy_ints(int *dst, const int *src, int count, cudaStream_t stream)
{
    if (count <= 0)
        return;
    copy_ints_kernel<<<1, 128, 0, stream>>>(dst, src, count);
    SS_CHECK_LAUNCH("copy_ints kernel launch");
}
