// Pivot indices in GPU memory: the recursive LU panel factors its lower right
// part as a block of its own, whose pivots count rows from that block's first
// row; they become the panel's by adding the block's offset.
#include <cuda_runtime.h>

__global__ void shift_pivots_kernel(int *ipiv, int count, int offset)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        ipiv[i] += offset;
}

extern "C" void ss_cuda_fail(const char *what, int status, const char *file, int line);

extern "C" void ss_cuda_shift_pivots(int *ipiv, int count, int offset, cudaStream_t stream)
{
    if (count <= 0)
        return;
    shift_pivots_kernel<<<(count + 255) / 256, 256, 0, stream>>>(ipiv, count, offset);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        ss_cuda_fail("shift_pivots kernel launch", (int)err, __FILE__, __LINE__);
}
