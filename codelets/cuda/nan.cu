// Is there a NaN among count reals in GPU memory? The LU panel asks before
// cuSOLVER's getrf, which drops NaNs: on CUDA 13 a panel with a NaN comes back
// NaN-free with info 0 (measured; LAPACK lets the NaN spread to the solution),
// and afterwards fills such a panel with NaN, on the GPU, without asking the host.
// A complex array is handled as twice as many reals.
#include <cuda_runtime.h>
#include "cuda_check.cuh"

template <typename R>
__global__ void find_nan_kernel(size_t count, const R *x, int *flag)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
        if (x[i] != x[i]) {
            *flag = 1;   // every writer writes 1: no atomic needed
            return;
        }
}

// Where the search found a NaN, the whole array becomes NaN (see the LU panel)
template <typename R>
__global__ void fill_nan_if_kernel(size_t count, R *x, const int *flag)
{
    if (*flag == 0)
        return;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
        x[i] = (R)NAN;
}

// *flag (device memory) becomes 1 if a NaN is found; the caller zeroes it first
extern "C" void ss_cuda_find_nan(size_t realsize, size_t count, const void *x, int *flag, cudaStream_t stream)
{
    if (count == 0)
        return;
    size_t blocks = (count + 255) / 256;
    unsigned grid = blocks < 1024 ? (unsigned)blocks : 1024u;
    if (realsize == sizeof(float))
        find_nan_kernel<float><<<grid, 256, 0, stream>>>(count, (const float *)x, flag);
    else if (realsize == sizeof(double))
        find_nan_kernel<double><<<grid, 256, 0, stream>>>(count, (const double *)x, flag);
    else
        ss_cuda_fail("ss_cuda_find_nan: real size", (int)realsize, __FILE__, __LINE__);
    SS_CHECK_LAUNCH("find_nan kernel launch");
}

extern "C" void ss_cuda_fill_nan_if(size_t realsize, size_t count, void *x, const int *flag, cudaStream_t stream)
{
    if (count == 0)
        return;
    size_t blocks = (count + 255) / 256;
    unsigned grid = blocks < 1024 ? (unsigned)blocks : 1024u;
    if (realsize == sizeof(float))
        fill_nan_if_kernel<float><<<grid, 256, 0, stream>>>(count, (float *)x, flag);
    else if (realsize == sizeof(double))
        fill_nan_if_kernel<double><<<grid, 256, 0, stream>>>(count, (double *)x, flag);
    else
        ss_cuda_fail("ss_cuda_fill_nan_if: real size", (int)realsize, __FILE__, __LINE__);
    SS_CHECK_LAUNCH("fill_nan_if kernel launch");
}
