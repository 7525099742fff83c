/* B = alpha A + B on tiles of the same shape (iterative refinement: x += dx).
 * CPU: one axpy per column; CUDA: cuBLAS geam, in place on B. */
#include <complex.h>
#include <stdlib.h>
#include "codelets.h"

struct zgeadd_args { SS_CUBLAS_SCALAR starsolve_complex64_t alpha; };

static void zgeadd_cpu(void *buffers[], void *cl_arg)
{
    const struct zgeadd_args *a = cl_arg;
    int m = SS_ROWS(buffers[1]), n = SS_COLS(buffers[1]);
    const starsolve_complex64_t *A = (const starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[0]);
    starsolve_complex64_t *B = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[1]);
    for (int j = 0; j < n; j++)
        cblas_zaxpy(m, CBLAS_SADDR(a->alpha), A + (size_t)j * SS_LD(buffers[0]), 1, B + (size_t)j * SS_LD(buffers[1]), 1);
}

#ifdef STARSOLVE_USE_CUDA
static void zgeadd_cuda(void *buffers[], void *cl_arg)
{
    const struct zgeadd_args *a = cl_arg;
    SS_CUBLAS_SCALAR const starsolve_complex64_t one = 1.0;
    cuDoubleComplex *B = (cuDoubleComplex *)STARPU_MATRIX_GET_PTR(buffers[1]);
    SS_CUBLAS(cublasZgeam(ss_cublas_handle(), CUBLAS_OP_N, CUBLAS_OP_N,
                          SS_ROWS(buffers[1]), SS_COLS(buffers[1]), (const cuDoubleComplex *)&a->alpha,
                          (const cuDoubleComplex *)STARPU_MATRIX_GET_PTR(buffers[0]), SS_LD(buffers[0]),
                          (const cuDoubleComplex *)&one, B, SS_LD(buffers[1]), B, SS_LD(buffers[1])));
}
#endif

static struct starpu_perfmodel model_zgeadd = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "starsolve_zgeadd",
};

static struct starpu_codelet cl_zgeadd = {
    .where = SS_WHERE_CPU_CUDA,
    .can_execute = ss_can_execute,
    .cpu_funcs = { zgeadd_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zgeadd_cuda },
    .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = 2,
    .modes = { STARPU_R, STARPU_RW },
    .model = &model_zgeadd,
    .name = "zgeadd",
    .callback_func = ss_trace_task_done,
};

void insert_zgeadd(starsolve_complex64_t alpha, starpu_data_handle_t A, starpu_data_handle_t B, int prio)
{
    struct zgeadd_args *a = malloc(sizeof *a);
    *a = (struct zgeadd_args){ alpha };
    int ret = ss_task_insert(&cl_zgeadd, STARPU_CL_ARGS, a, sizeof *a, STARPU_R, A, STARPU_RW, B,
                                 STARPU_PRIORITY, ss_priority(SS_BUCKET_OTHER, prio), STARPU_NAME, "zgeadd", 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zgeadd");
}
