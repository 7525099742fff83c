// Triangle copies and fills of one tile in GPU memory, as LAPACK's lacpy and
// laset: cuBLAS has neither. The QR codelets need them to stack a triangle on
// a tile (tpqrt) and to pad Householder vectors with zeros and ones so that
// applying them is plain GEMM (unmqr).
// One source for all precisions: only the element size matters.
#include <cuda_runtime.h>
#include "cuda_check.cuh"

template <int BYTES> struct element { unsigned char b[BYTES]; };
template <> struct element<4> { float v; };
template <> struct element<8> { double v; };
template <> struct element<16> { double2 v; };

// uplo 'U': i <= j, 'L': i >= j, anything else: the whole tile
__device__ inline bool in_part(char uplo, int i, int j)
{
    return uplo == 'U' ? i <= j : uplo == 'L' ? i >= j : true;
}

template <typename T>
__global__ void lacpy_kernel(char uplo, int m, int n, const T *A, int lda, T *B, int ldb)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < m && j < n && in_part(uplo, i, j))
        B[i + (size_t)j * ldb] = A[i + (size_t)j * lda];
}

// the strict uplo part gets offdiag, the diagonal gets diag ('A': every off-diagonal entry)
template <typename T>
__global__ void laset_kernel(char uplo, int m, int n, T offdiag, T diag, T *A, int lda)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= m || j >= n)
        return;
    if (i == j)
        A[i + (size_t)j * lda] = diag;
    else if (in_part(uplo, i, j))
        A[i + (size_t)j * lda] = offdiag;
}

template <typename T>
static void lacpy(char uplo, int m, int n, const void *A, int lda, void *B, int ldb, cudaStream_t stream)
{
    dim3 block(32, 8), grid((m + 31) / 32, (n + 7) / 8);
    lacpy_kernel<T><<<grid, block, 0, stream>>>(uplo, m, n, (const T *)A, lda, (T *)B, ldb);
    SS_CHECK_LAUNCH("lacpy kernel launch");
}

template <typename T>
static void laset(char uplo, int m, int n, const void *offdiag, const void *diag, void *A, int lda,
                  cudaStream_t stream)
{
    dim3 block(32, 8), grid((m + 31) / 32, (n + 7) / 8);
    laset_kernel<T><<<grid, block, 0, stream>>>(uplo, m, n, *(const T *)offdiag, *(const T *)diag, (T *)A, lda);
    SS_CHECK_LAUNCH("laset kernel launch");
}

extern "C" void ss_cuda_lacpy(char uplo, size_t elemsize, int m, int n, const void *A, int lda, void *B, int ldb,
                              cudaStream_t stream)
{
    if (m <= 0 || n <= 0)
        return;
    switch (elemsize) {
    case 4:  lacpy<element<4>>(uplo, m, n, A, lda, B, ldb, stream); break;
    case 8:  lacpy<element<8>>(uplo, m, n, A, lda, B, ldb, stream); break;
    case 16: lacpy<element<16>>(uplo, m, n, A, lda, B, ldb, stream); break;
    default: ss_cuda_fail("ss_cuda_lacpy: element size", (int)elemsize, __FILE__, __LINE__);
    }
}

extern "C" void ss_cuda_laset(char uplo, size_t elemsize, int m, int n, const void *offdiag, const void *diag,
                              void *A, int lda, cudaStream_t stream)
{
    if (m <= 0 || n <= 0)
        return;
    switch (elemsize) {
    case 4:  laset<element<4>>(uplo, m, n, offdiag, diag, A, lda, stream); break;
    case 8:  laset<element<8>>(uplo, m, n, offdiag, diag, A, lda, stream); break;
    case 16: laset<element<16>>(uplo, m, n, offdiag, diag, A, lda, stream); break;
    default: ss_cuda_fail("ss_cuda_laset: element size", (int)elemsize, __FILE__, __LINE__);
    }
}
