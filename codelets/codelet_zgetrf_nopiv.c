/* LU without pivoting of one tile. CPU: a recursive LU built on BLAS
 * (LAPACK has no unpivoted getrf); CUDA: cuSOLVER getrf with no pivot array.
 * An exactly zero U(i,i) is reported to the request as offset + i. The TRSMs
 * right of the tile and below it solve with its triangles themselves, not with
 * inverses, which lose accuracy without pivoting (codelet_ztrsm_column.c). */
#include <complex.h>
#include <stdlib.h>
#include "codelets.h"

/* buffers: the tile, the scratch */
struct zgetrf_nopiv_args { int offset; starsolve_request_t *req; };

/* Recursive right-looking LU of the m x n block A (m >= n). Returns the first
 * zero pivot (1-based) or 0; like LAPACK it goes on past a zero pivot. */
static int zgetrf_nopiv_rec(int m, int n, starsolve_complex64_t *A, int lda)
{
    const starsolve_complex64_t one = 1.0, mone = -1.0;
    if (n == 1) {
        if (A[0] == 0.0)
            return 1;
        starsolve_complex64_t rpiv = 1.0 / A[0];
        cblas_zscal(m - 1, CBLAS_SADDR(rpiv), A + 1, 1);
        return 0;
    }
    int n1 = n / 2, n2 = n - n1;
    starsolve_complex64_t *A12 = A + (size_t)n1 * lda, *A21 = A + n1, *A22 = A12 + n1;
    int info = zgetrf_nopiv_rec(m, n1, A, lda);
    cpu_ztrsm('L', 'L', 'N', 'U', n1, n2, one, A, lda, A12, lda);
    cblas_zgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m - n1, n2, n1,
                CBLAS_SADDR(mone), A21, lda, A12, lda, CBLAS_SADDR(one), A22, lda);
    int info2 = zgetrf_nopiv_rec(m - n1, n2, A22, lda);
    return info ? info : (info2 ? info2 + n1 : 0);
}

static void zgetrf_nopiv_cpu(void *buffers[], void *cl_arg)
{
    const struct zgetrf_nopiv_args *a = cl_arg;
    int m = SS_ROWS(buffers[0]), n = SS_COLS(buffers[0]), k = ss_min(m, n);
    starsolve_complex64_t *A = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[0]);
    int lda = SS_LD(buffers[0]);
    int info = zgetrf_nopiv_rec(m, k, A, lda);
    if (n > m) {   /* wide tile: U's right part is L^-1 A(:, m:n) */
        cpu_ztrsm('L', 'L', 'N', 'U', m, n - m, 1.0, A, lda, A + (size_t)m * lda, lda);
    }
    if (info > 0)
        ss_request_report(a->req, a->offset + info);
}

#ifdef STARSOLVE_USE_CUDA
/* Asynchronous: the info reaches the request through a host function. */
static void zgetrf_nopiv_cuda(void *buffers[], void *cl_arg)
{
    const struct zgetrf_nopiv_args *a = cl_arg;
    ss_cuda_urgent_begin();   /* the diagonal tile is the critical path */
    cusolverDnHandle_t h = ss_cusolver_handle();
    cudaStream_t stream = ss_cuda_stream();
    int m = SS_ROWS(buffers[0]), n = SS_COLS(buffers[0]), lda = SS_LD(buffers[0]), lwork = 0;
    cuDoubleComplex *A = (cuDoubleComplex *)STARPU_MATRIX_GET_PTR(buffers[0]);
    SS_CUSOLVER(cusolverDnZgetrf_bufferSize(h, m, n, A, lda, &lwork));
    /* the scratch buffer: info (padded to 16 bytes), then cuSOLVER's workspace */
    STARPU_ASSERT_MSG(16 + (size_t)lwork * sizeof(cuDoubleComplex) <= SS_SCRATCH_BYTES(buffers[1]),
                      "zgetrf_nopiv: cuSOLVER wants %d elements of workspace, more than the scratch buffer holds",
                      lwork);
    int *dinfo = (int *)STARPU_VECTOR_GET_PTR(buffers[1]);
    SS_CUSOLVER(cusolverDnZgetrf(h, m, n, A, lda, (cuDoubleComplex *)(dinfo + 4), NULL, dinfo));
    ss_cuda_report_info_async(dinfo, a->offset, a->req, stream);
    ss_cuda_urgent_end();
}
#endif

size_t ss_zgetrf_nopiv_scratch_bytes(int nb)
{
    /* info (padded to 16 bytes), then cuSOLVER's workspace */
    return 16 + ss_zgetrf_workspace(nb, nb) * sizeof(starsolve_complex64_t);
}

static struct starpu_perfmodel model_zgetrf_nopiv = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "starsolve_zgetrf_nopiv",
};

static struct starpu_codelet cl_zgetrf_nopiv = {
    .where = SS_WHERE_CPU_CUDA,
    .can_execute = ss_can_execute,
    .cpu_funcs = { zgetrf_nopiv_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zgetrf_nopiv_cuda },
    .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = 2,   /* the tile; cuSOLVER's info and workspace */
    .modes = { STARPU_RW, STARPU_SCRATCH },
    .model = &model_zgetrf_nopiv,
    .name = "zgetrf_nopiv",
    .callback_func = ss_trace_task_done,
};

void insert_zgetrf_nopiv(starpu_data_handle_t A, starpu_data_handle_t scratch, int offset, starsolve_request_t *req,
                         int prio)
{
    struct zgetrf_nopiv_args *a = malloc(sizeof *a);
    *a = (struct zgetrf_nopiv_args){ offset, req };
    int ret = ss_task_insert(&cl_zgetrf_nopiv,
                                 STARPU_CL_ARGS, a, sizeof *a,
                                 STARPU_RW, A, STARPU_SCRATCH, scratch,
                                 STARPU_PRIORITY, ss_priority(SS_BUCKET_PANEL, prio),
                                 STARPU_NAME, "zgetrf_nopiv",
                                 STARPU_FLOPS, SS_FLOP_SCALE * ss_getrf_flops(starpu_matrix_get_nx(A), starpu_matrix_get_ny(A)),
                                 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zgetrf_nopiv");
}
