/* TRSM on tiles: B = alpha op(A)^-1 B or alpha B op(A)^-1. CPU: ours by halves (ztrsm_cpu.c), CUDA: cuBLAS. */
#include <complex.h>
#include <stdlib.h>
#include "codelets.h"

/* urgent: a panel's TRSM, on the critical path (ss_cuda_urgent_begin) */
struct ztrsm_args { char side, uplo, transa, diag; int urgent; SS_CUBLAS_SCALAR starsolve_complex64_t alpha; };

static void ztrsm_cpu(void *buffers[], void *cl_arg)
{
    const struct ztrsm_args *a = cl_arg;
    cpu_ztrsm(a->side, a->uplo, a->transa, a->diag, SS_ROWS(buffers[1]), SS_COLS(buffers[1]), a->alpha,
              (const starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[0]), SS_LD(buffers[0]),
              (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[1]), SS_LD(buffers[1]));
}

#ifdef STARSOLVE_USE_CUDA
static void ztrsm_cuda(void *buffers[], void *cl_arg)
{
    const struct ztrsm_args *a = cl_arg;
    if (a->urgent)
        ss_cuda_urgent_begin();
    SS_CUBLAS(cublasZtrsm(ss_cublas_handle(),
                          a->side == 'L' ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT, ss_cublas_uplo(a->uplo),
                          ss_cublas_op(a->transa), a->diag == 'U' ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT,
                          SS_ROWS(buffers[1]), SS_COLS(buffers[1]), (const cuDoubleComplex *)&a->alpha,
                          (const cuDoubleComplex *)STARPU_MATRIX_GET_PTR(buffers[0]), SS_LD(buffers[0]),
                          (cuDoubleComplex *)STARPU_MATRIX_GET_PTR(buffers[1]), SS_LD(buffers[1])));
    if (a->urgent)
        ss_cuda_urgent_end();
}
#endif

static struct starpu_perfmodel model_ztrsm = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "starsolve_ztrsm",
};

static struct starpu_codelet cl_ztrsm = {
    .where = SS_WHERE_CPU_CUDA,
    .can_execute = ss_can_execute,
    .cpu_funcs = { ztrsm_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { ztrsm_cuda },
    .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = 2,
    .modes = { STARPU_R, STARPU_RW },
    .model = &model_ztrsm,
    .name = "ztrsm",
    .callback_func = ss_trace_task_done,
};

static void insert_trsm(char side, char uplo, char transa, char diag, starsolve_complex64_t alpha,
                        starpu_data_handle_t A, starpu_data_handle_t B, int prio, int urgent)
{
    struct ztrsm_args *a = malloc(sizeof *a);
    *a = (struct ztrsm_args){ side, uplo, transa, diag, urgent, alpha };
    double m = starpu_matrix_get_nx(B), n = starpu_matrix_get_ny(B);
    double flops = side == 'L' ? m * m * n : m * n * n;
    int ret = ss_task_insert(&cl_ztrsm,
                                 STARPU_CL_ARGS, a, sizeof *a,
                                 STARPU_R, A, STARPU_RW, B,
                                 STARPU_PRIORITY, ss_priority(SS_BUCKET_SOLVE, prio),
                                 STARPU_NAME, "ztrsm",
                                 STARPU_FLOPS, SS_FLOP_SCALE * flops,
                                 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert ztrsm");
}

void insert_ztrsm(char side, char uplo, char transa, char diag, starsolve_complex64_t alpha,
                  starpu_data_handle_t A, starpu_data_handle_t B, int prio)
{
    insert_trsm(side, uplo, transa, diag, alpha, A, B, prio, 0);
}

void insert_ztrsm_panel(char side, char uplo, char transa, char diag, starsolve_complex64_t alpha,
                        starpu_data_handle_t A, starpu_data_handle_t B, int prio)
{
    insert_trsm(side, uplo, transa, diag, alpha, A, B, prio, 1);
}
