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

#endif
