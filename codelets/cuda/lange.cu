// The pieces of the RBT refinement's norms on a GPU (codelet_zlange.c, which says when they run there):
// row sums of |a_ij| over a tile, added to a vector, and column maxima of |a_ij| over a tile, joined into a
// vector. Every precision: R is the real type, CPLX whether an entry is two of them (re, im); the results
// and sums are R's, as the CPU variants'. |a| of a complex entry is hypot(re, im), as C's cabs.
#include <math.h>
#include <cuda_runtime.h>
#include "cuda_check.cuh"

template <typename R, bool CPLX>
__device__ R abs_entry(const R *A, size_t k)
{
    if (CPLX)
        return hypot(A[2 * k], A[2 * k + 1]);
    return fabs(A[k]);
}

// sums[i] += sum over j of |A(i, j)|, one thread a row, the columns in order (the CPU variant's order)
template <typename R, bool CPLX>
__global__ void rowsums_add_kernel(int m, int n, const R *A, size_t ld, R *sums)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    R s = sums[i];
    for (int j = 0; j < n; j++)
        s += abs_entry<R, CPLX>(A, i + (size_t)j * ld);
    sums[i] = s;
}

// The larger of two maxima; a NaN, once met, stays (the CPU variant's rule)
template <typename R>
__device__ R join_max(R a, R b)
{
    if (isnan(a) || isnan(b))
        return (R)NAN;
    return a > b ? a : b;
}

enum { COLMAX_THREADS = 256 };

// out[c] = join(out[c], max over the m rows of |A(r, c)|): one block a column
template <typename R, bool CPLX>
__global__ void colmax_join_kernel(int m, const R *A, size_t ld, R *out)
{
    __shared__ R part[COLMAX_THREADS];
    const int c = blockIdx.x;
    R v = 0;
    for (int r = threadIdx.x; r < m; r += blockDim.x)
        v = join_max(v, abs_entry<R, CPLX>(A, r + (size_t)c * ld));
    part[threadIdx.x] = v;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            part[threadIdx.x] = join_max(part[threadIdx.x], part[threadIdx.x + half]);
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[c] = join_max(out[c], part[0]);
}

template <typename R, bool CPLX>
static void rowsums_add(int m, int n, const void *A, size_t ld, void *sums, cudaStream_t stream)
{
    rowsums_add_kernel<R, CPLX><<<(m + 127) / 128, 128, 0, stream>>>(m, n, (const R *)A, ld, (R *)sums);
}

template <typename R, bool CPLX>
static void colmax_join(int m, int n, const void *A, size_t ld, void *out, cudaStream_t stream)
{
    colmax_join_kernel<R, CPLX><<<n, COLMAX_THREADS, 0, stream>>>(m, (const R *)A, ld, (R *)out);
}

// A: m x n entries of realsize-byte reals (two a complex entry), leading dimension ld entries; sums and out
// are reals of the same size
extern "C" void ss_cuda_abs_rowsums_add(size_t realsize, int complex_entries, int m, int n, const void *A, size_t ld,
                                        void *sums, cudaStream_t stream)
{
    if (m <= 0 || n <= 0)
        return;
    if (realsize == sizeof(float))
        (complex_entries ? rowsums_add<float, true> : rowsums_add<float, false>)(m, n, A, ld, sums, stream);
    else if (realsize == sizeof(double))
        (complex_entries ? rowsums_add<double, true> : rowsums_add<double, false>)(m, n, A, ld, sums, stream);
    else
        ss_cuda_fail("ss_cuda_abs_rowsums_add: real size", (int)realsize, __FILE__, __LINE__);
    SS_CHECK_LAUNCH("abs_rowsums_add kernel launch");
}

extern "C" void ss_cuda_abs_colmax_join(size_t realsize, int complex_entries, int m, int n, const void *A, size_t ld,
                                        void *out, cudaStream_t stream)
{
    if (m <= 0 || n <= 0)
        return;
    if (realsize == sizeof(float))
        (complex_entries ? colmax_join<float, true> : colmax_join<float, false>)(m, n, A, ld, out, stream);
    else if (realsize == sizeof(double))
        (complex_entries ? colmax_join<double, true> : colmax_join<double, false>)(m, n, A, ld, out, stream);
    else
        ss_cuda_fail("ss_cuda_abs_colmax_join: real size", (int)realsize, __FILE__, __LINE__);
    SS_CHECK_LAUNCH("abs_colmax_join kernel launch");
}
