// Error checks shared by the CUDA sources. They are C++ compiled by nvcc and do not include
// codelets.h (a C header with StarPU's and cuBLAS's declarations), so its SS_CUDA macros have this
// twin here; both end in ss_cuda_fail (src/context.c), which names the call and stops the program.
#ifndef STARSOLVE_CUDA_CHECK_CUH
#define STARSOLVE_CUDA_CHECK_CUH
#include <cuda_runtime.h>

extern "C" void ss_cuda_fail(const char *what, int status, const char *file, int line);

// a CUDA runtime call that must succeed
#define SS_CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) ss_cuda_fail(#call, (int)e_, __FILE__, __LINE__); } while (0)

// right after a kernel launch: a launch that failed (bad configuration, no image for this GPU) stops
// the program at the caller's line instead of leaving an error for a later, unrelated call to meet
#define SS_CHECK_LAUNCH(what) do { cudaError_t e_ = cudaGetLastError(); if (e_ != cudaSuccess) ss_cuda_fail((what), (int)e_, __FILE__, __LINE__); } while (0)

// Lets kernel's blocks have `dynamic` bytes of dynamic shared memory; false when the device cannot give that
// much beside the kernel's static arrays. A block gets 48 KB without asking, static arrays included, so the
// dynamic bytes alone under 48 KB do not tell (SPIKE's band LU asked 48896 beside 384 static bytes, the batched
// panels 49140-49152 beside 16, and failed to launch: bench/NOTES.md, sessions 49 and 50). The attribute belongs
// to the current device: ask before each launch, as each worker thread drives its own GPU; always for all the
// device allows, so that two workers launching with different needs never lower it under each other.
template <typename K>
inline bool ss_cuda_allow_smem(K *kernel, size_t dynamic)
{
    cudaFuncAttributes attr;
    SS_CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel));
    if (dynamic + attr.sharedSizeBytes <= 48 * 1024)
        return true;
    int dev = 0, optin = 0;
    SS_CUDA_CHECK(cudaGetDevice(&dev));
    SS_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    if (dynamic + attr.sharedSizeBytes > (size_t)optin)
        return false;
    SS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin - (int)attr.sharedSizeBytes));
    return true;
}

// ss_cuda_allow_smem for a launch that has no other way: stops the program, naming the launch (`what`) and
// the bytes, when the device cannot give them
template <typename K>
inline void ss_cuda_require_smem(K *kernel, size_t dynamic, const char *what)
{
    if (!ss_cuda_allow_smem(kernel, dynamic))
        ss_cuda_fail(what, (int)dynamic, __FILE__, __LINE__);
}

#endif
