/* Cholesky of a diagonal tile. CPU: LAPACKE, CUDA: cuSOLVER.
 * A non-positive-definite minor is reported to the request as offset + info.
 * Optionally the task also leaves the inverse of the factor's triangle, for
 * the panel's TRSMs done as GEMMs (codelet_ztrsm_column.c). */
#include <complex.h>
#include <stdlib.h>
#include "codelets.h"

struct zpotrf_args { char uplo; int offset, with_inverse; starsolve_request_t *req; };

static void zpotrf_cpu(void *buffers[], void *cl_arg)
{
    const struct zpotrf_args *a = cl_arg;
    int info = LAPACKE_zpotrf_work(LAPACK_COL_MAJOR, a->uplo, SS_ROWS(buffers[0]),
                                   (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[0]), SS_LD(buffers[0]));
    if (info > 0)
        ss_request_report(a->req, a->offset + info);
    if (a->with_inverse)
        cpu_ztriangular_inverse(a->uplo, 'N', SS_ROWS(buffers[0]), (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[0]),
                                SS_LD(buffers[0]), (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[2]),
                                SS_LD(buffers[2]));
}

#ifdef STARSOLVE_USE_CUDA
/* Asynchronous: the info goes to the request through a host function queued
 * behind cuSOLVER, so the worker goes on queueing the next tasks. */
static void zpotrf_cuda(void *buffers[], void *cl_arg)
{
    const struct zpotrf_args *a = cl_arg;
    ss_cuda_urgent_begin();   /* the diagonal tile is the critical path */
    cusolverDnHandle_t h = ss_cusolver_handle();
    cudaStream_t stream = ss_cuda_stream();
    int n = SS_ROWS(buffers[0]), lda = SS_LD(buffers[0]), lwork = 0;
    cuDoubleComplex *A = (cuDoubleComplex *)STARPU_MATRIX_GET_PTR(buffers[0]);
    cublasFillMode_t uplo = ss_cublas_uplo(a->uplo);
    SS_CUSOLVER(cusolverDnZpotrf_bufferSize(h, uplo, n, A, lda, &lwork));
    /* the scratch buffer: info (padded to 16 bytes), then cuSOLVER's workspace */
    STARPU_ASSERT_MSG(16 + (size_t)lwork * sizeof(cuDoubleComplex) <= SS_SCRATCH_BYTES(buffers[1]),
                      "zpotrf: cuSOLVER wants %d elements of workspace, more than the scratch buffer holds", lwork);
    int *dinfo = (int *)STARPU_VECTOR_GET_PTR(buffers[1]);
    SS_CUSOLVER(cusolverDnZpotrf(h, uplo, n, A, lda, (cuDoubleComplex *)(dinfo + 4), lwork, dinfo));
    ss_cuda_report_info_async(dinfo, a->offset, a->req, stream);
    if (a->with_inverse)
        cuda_ztriangular_inverse(a->uplo, 'N', n, A, lda, (void *)STARPU_MATRIX_GET_PTR(buffers[2]), SS_LD(buffers[2]));
    ss_cuda_urgent_end();
}
#endif

size_t ss_zpotrf_scratch_bytes(char uplo, int nb)
{
    size_t bytes = 16;
#ifdef STARSOLVE_USE_CUDA
    void *A;
    cusolverDnHandle_t h = ss_cusolver_query_begin(&A);
    if (h) {
        int lwork = 0;
        SS_CUSOLVER(cusolverDnZpotrf_bufferSize(h, ss_cublas_uplo(uplo), nb, A, nb, &lwork));
        ss_cusolver_query_end();
        bytes += (size_t)lwork * sizeof(cuDoubleComplex);
    }
#else
    (void)uplo;
    (void)nb;
#endif
    return bytes;
}

static struct starpu_perfmodel model_zpotrf = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "starsolve_zpotrf",
};

static struct starpu_codelet cl_zpotrf = {
    .where = SS_WHERE_CPU_CUDA,
    .can_execute = ss_can_execute,
    .cpu_funcs = { zpotrf_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zpotrf_cuda },
    .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = STARPU_VARIABLE_NBUFFERS,   /* the tile; cuSOLVER's info and workspace; the inverse if asked */
    .model = &model_zpotrf,
    .name = "zpotrf",
    .callback_func = ss_trace_task_done,
};

void insert_zpotrf(char uplo, starpu_data_handle_t A, starpu_data_handle_t inverse, starpu_data_handle_t scratch,
                   int offset, starsolve_request_t *req, int prio)
{
    struct zpotrf_args *a = malloc(sizeof *a);
    *a = (struct zpotrf_args){ uplo, offset, inverse != NULL, req };
    struct starpu_data_descr descr[3] = { { A, STARPU_RW }, { scratch, STARPU_SCRATCH }, { inverse, STARPU_W } };
    double n = starpu_matrix_get_nx(A);
    int ret = ss_task_insert(&cl_zpotrf,
                                 STARPU_CL_ARGS, a, sizeof *a,
                                 STARPU_DATA_MODE_ARRAY, descr, inverse ? 3 : 2,
                                 STARPU_PRIORITY, ss_priority(SS_BUCKET_PANEL, prio),
                                 STARPU_NAME, "zpotrf",
                                 STARPU_FLOPS, SS_FLOP_SCALE * n * n * n * (inverse ? 2.0 : 1.0) / 3.0,
                                 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zpotrf");
}
