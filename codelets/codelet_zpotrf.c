/* Cholesky of a diagonal tile. CPU: LAPACKE, CUDA: cuSOLVER.
 * A non-positive-definite minor is reported to the request as offset + info. */
#include <complex.h>
#include <stdlib.h>
#include "codelets.h"

struct zpotrf_args { char uplo; int offset; starsolve_request_t *req; };

static void zpotrf_cpu(void *buffers[], void *cl_arg)
{
    const struct zpotrf_args *a = cl_arg;
    int info = LAPACKE_zpotrf_work(LAPACK_COL_MAJOR, a->uplo, SS_ROWS(buffers[0]),
                                   (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[0]), SS_LD(buffers[0]));
    if (info > 0)
        ss_request_report(a->req, a->offset + info);
}

#ifdef STARSOLVE_USE_CUDA
static void zpotrf_cuda(void *buffers[], void *cl_arg)
{
    const struct zpotrf_args *a = cl_arg;
    cusolverDnHandle_t h = ss_cusolver_handle();
    cudaStream_t stream = starpu_cuda_get_local_stream();
    int n = SS_ROWS(buffers[0]), lda = SS_LD(buffers[0]), lwork = 0;
    cuDoubleComplex *A = (cuDoubleComplex *)STARPU_MATRIX_GET_PTR(buffers[0]);
    cublasFillMode_t uplo = ss_cublas_uplo(a->uplo);
    SS_CUSOLVER(cusolverDnZpotrf_bufferSize(h, uplo, n, A, lda, &lwork));
    int *dinfo = ss_cuda_dwork(4 * sizeof(int) + (size_t)lwork * sizeof(cuDoubleComplex));
    cuDoubleComplex *work = (cuDoubleComplex *)(dinfo + 4);   /* keep the workspace 16-byte aligned */
    SS_CUSOLVER(cusolverDnZpotrf(h, uplo, n, A, lda, work, lwork, dinfo));
    int *hinfo = ss_cuda_hwork(sizeof(int));
    SS_CUDA(cudaMemcpyAsync(hinfo, dinfo, sizeof(int), cudaMemcpyDeviceToHost, stream));
    SS_CUDA(cudaStreamSynchronize(stream));
    if (*hinfo > 0)
        ss_request_report(a->req, a->offset + *hinfo);
}
#endif

static struct starpu_perfmodel model_zpotrf = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "starsolve_zpotrf",
};

static struct starpu_codelet cl_zpotrf = {
    .where = SS_WHERE_CPU_CUDA,
    .can_execute = ss_can_execute,
    .cpu_funcs = { zpotrf_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zpotrf_cuda },   /* synchronous: info must be read before the task ends */
#endif
    .nbuffers = 1,
    .modes = { STARPU_RW },
    .model = &model_zpotrf,
    .name = "zpotrf",
};

void insert_zpotrf(char uplo, starpu_data_handle_t A, int offset, starsolve_request_t *req, int prio)
{
    struct zpotrf_args *a = malloc(sizeof *a);
    *a = (struct zpotrf_args){ uplo, offset, req };
    double n = starpu_matrix_get_nx(A);
    int ret = starpu_task_insert(&cl_zpotrf,
                                 STARPU_CL_ARGS, a, sizeof *a,
                                 STARPU_RW, A,
                                 STARPU_PRIORITY, prio,
                                 STARPU_NAME, "zpotrf",
                                 STARPU_FLOPS, SS_FLOP_SCALE * n * n * n / 3.0,
                                 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zpotrf");
}
