/* GEMM on tiles: C = alpha op(A) op(B) + beta C. CPU: OpenBLAS, CUDA: cuBLAS. */
#include <complex.h>
#include <stdlib.h>
#include "codelets.h"

struct zgemm_args { char transa, transb; SS_CUBLAS_SCALAR starsolve_complex64_t alpha, beta; };

static void zgemm_cpu(void *buffers[], void *cl_arg)
{
    const struct zgemm_args *a = cl_arg;
    int m = SS_ROWS(buffers[2]), n = SS_COLS(buffers[2]);
    int k = a->transa == 'N' ? SS_COLS(buffers[0]) : SS_ROWS(buffers[0]);
    cblas_zgemm(CblasColMajor, ss_cblas_trans(a->transa), ss_cblas_trans(a->transb), m, n, k,
                CBLAS_SADDR(a->alpha),
                (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[0]), SS_LD(buffers[0]),
                (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[1]), SS_LD(buffers[1]),
                CBLAS_SADDR(a->beta),
                (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[2]), SS_LD(buffers[2]));
}

#ifdef STARSOLVE_USE_CUDA
static void zgemm_cuda(void *buffers[], void *cl_arg)
{
    const struct zgemm_args *a = cl_arg;
    int m = SS_ROWS(buffers[2]), n = SS_COLS(buffers[2]);
    int k = a->transa == 'N' ? SS_COLS(buffers[0]) : SS_ROWS(buffers[0]);
    SS_CUBLAS(cublasZgemm(ss_cublas_handle(), ss_cublas_op(a->transa), ss_cublas_op(a->transb),
                          m, n, k, (const cuDoubleComplex *)&a->alpha,
                          (const cuDoubleComplex *)STARPU_MATRIX_GET_PTR(buffers[0]), SS_LD(buffers[0]),
                          (const cuDoubleComplex *)STARPU_MATRIX_GET_PTR(buffers[1]), SS_LD(buffers[1]),
                          (const cuDoubleComplex *)&a->beta,
                          (cuDoubleComplex *)STARPU_MATRIX_GET_PTR(buffers[2]), SS_LD(buffers[2])));
}
#endif

static struct starpu_perfmodel model_zgemm = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "starsolve_zgemm",
};

static struct starpu_codelet cl_zgemm = {
    .where = SS_WHERE_CPU_CUDA,
    .can_execute = ss_can_execute,
    .cpu_funcs = { zgemm_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zgemm_cuda },
    .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = 3,
    .modes = { STARPU_R, STARPU_R, STARPU_RW },
    .model = &model_zgemm,
    .name = "zgemm",
    .callback_func = ss_trace_task_done,
};

void insert_zgemm(char transa, char transb, starsolve_complex64_t alpha, starpu_data_handle_t A,
                  starpu_data_handle_t B, starsolve_complex64_t beta, starpu_data_handle_t C, int prio)
{
    struct zgemm_args *a = malloc(sizeof *a);
    *a = (struct zgemm_args){ transa, transb, alpha, beta };
    double m = starpu_matrix_get_nx(C), n = starpu_matrix_get_ny(C);
    double k = transa == 'N' ? starpu_matrix_get_ny(A) : starpu_matrix_get_nx(A);
    int ret = ss_task_insert(&cl_zgemm,
                                 STARPU_CL_ARGS, a, sizeof *a,
                                 STARPU_R, A, STARPU_R, B,
                                 STARPU_RW, C,
                                 STARPU_PRIORITY, ss_priority(SS_BUCKET_UPDATE, prio),
                                 STARPU_NAME, "zgemm",
                                 STARPU_FLOPS, SS_FLOP_SCALE * 2.0 * m * n * k,
                                 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zgemm");
}
