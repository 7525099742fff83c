/* HERK on tiles (SYRK in real precisions): C = alpha op(A) op(A)^H + beta C on one triangle. */
#include <complex.h>
#include <stdlib.h>
#include "codelets.h"

struct zherk_args { char uplo, trans; double alpha, beta; };

static void zherk_cpu(void *buffers[], void *cl_arg)
{
    const struct zherk_args *a = cl_arg;
    int n = SS_ROWS(buffers[1]);
    int k = a->trans == 'N' ? SS_COLS(buffers[0]) : SS_ROWS(buffers[0]);
    cblas_zherk(CblasColMajor, ss_cblas_uplo(a->uplo), ss_cblas_trans(a->trans), n, k, a->alpha,
                (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[0]), SS_LD(buffers[0]), a->beta,
                (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[1]), SS_LD(buffers[1]));
}

#ifdef STARSOLVE_USE_CUDA
static void zherk_cuda(void *buffers[], void *cl_arg)
{
    const struct zherk_args *a = cl_arg;
    int n = SS_ROWS(buffers[1]);
    int k = a->trans == 'N' ? SS_COLS(buffers[0]) : SS_ROWS(buffers[0]);
    /* written with OP_C: the real precisions' generated code says OP_T, which syrk requires */
    cublasOperation_t trans = a->trans == 'N' ? CUBLAS_OP_N : CUBLAS_OP_C;
    SS_CUBLAS(cublasZherk(ss_cublas_handle(), ss_cublas_uplo(a->uplo), trans,
                          n, k, &a->alpha, (const cuDoubleComplex *)STARPU_MATRIX_GET_PTR(buffers[0]),
                          SS_LD(buffers[0]), &a->beta,
                          (cuDoubleComplex *)STARPU_MATRIX_GET_PTR(buffers[1]), SS_LD(buffers[1])));
}
#endif

static struct starpu_perfmodel model_zherk = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "starsolve_zherk",
};

static struct starpu_codelet cl_zherk = {
    .where = SS_WHERE_CPU_CUDA,
    .can_execute = ss_can_execute,
    .cpu_funcs = { zherk_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zherk_cuda },
    .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = 2,
    .modes = { STARPU_R, STARPU_RW },
    .model = &model_zherk,
    .name = "zherk",
    .callback_func = ss_trace_task_done,
};

void insert_zherk(char uplo, char trans, double alpha, starpu_data_handle_t A, double beta,
                  starpu_data_handle_t C, int prio)
{
    struct zherk_args *a = malloc(sizeof *a);
    *a = (struct zherk_args){ uplo, trans, alpha, beta };
    double n = starpu_matrix_get_nx(C);
    double k = trans == 'N' ? starpu_matrix_get_ny(A) : starpu_matrix_get_nx(A);
    int ret = ss_task_insert(&cl_zherk,
                                 STARPU_CL_ARGS, a, sizeof *a,
                                 STARPU_R, A, STARPU_RW, C,
                                 STARPU_PRIORITY, ss_priority(SS_BUCKET_UPDATE, prio),
                                 STARPU_NAME, "zherk",
                                 STARPU_FLOPS, SS_FLOP_SCALE * n * n * k,
                                 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zherk");
}
