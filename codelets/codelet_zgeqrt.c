/* QR of one tile, A = Q R with Q = I - V T V^H: R in the upper triangle of A,
 * the Householder vectors V (unit lower trapezoid) below it, and the
 * k x k upper triangular T of the compact WY form (k = min(m, n) reflectors,
 * one block: T is what the update codelets multiply by).
 * CPU: ss_zgeqrt_one (zbatch_one_cpu.c), LAPACK's recursive geqrt3 down to 16-column panels by level-1 calls
 * (LAPACKE geqrt with one block recurses down to single columns, whose small level-3 calls serialized the cores
 * on OpenBLAS's buffer pool).
 * CUDA: cuSOLVER geqrf for V and tau, then cuSOLVER larft for T. */
#include <complex.h>
#include <stdlib.h>
#include "codelets.h"

static void zgeqrt_cpu(void *buffers[], void *cl_arg)
{
    (void)cl_arg;
    int m = SS_ROWS(buffers[0]), n = SS_COLS(buffers[0]), k = ss_min(m, n);
    if (k == 0)
        return;
    starsolve_complex64_t *work = malloc(ss_zgeqrt_one_lwork(m, n) * sizeof *work);
    STARPU_ASSERT_MSG(work, "zgeqrt: out of memory");
    ss_zgeqrt_one(m, n, (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[0]), SS_LD(buffers[0]),
                  (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[1]), SS_LD(buffers[1]), work);
    free(work);
}

#ifdef STARSOLVE_USE_CUDA
/* QR of an m x n matrix in GPU memory with its T factor (k = min(m, n)
 * reflectors). Shared with the tpqrt codelet, which factors a triangle stacked
 * on a tile. Uses ss_cuda_dwork and ss_cuda_hwork. */
void cuda_zgeqrt(int m, int n, void *A, int lda, void *T, int ldt)
{
    cusolverDnHandle_t h = ss_cusolver_handle();
    cusolverDnParams_t params = ss_cusolver_params();
    int64_t k = ss_min(m, n);
    size_t qr_dev = 0, qr_host = 0, ft_dev = 0, ft_host = 0;
    SS_CUSOLVER(cusolverDnXgeqrf_bufferSize(h, params, m, n, CUDA_C_64F, A, lda, CUDA_C_64F, NULL, CUDA_C_64F,
                                            &qr_dev, &qr_host));
    SS_CUSOLVER(cusolverDnXlarft_bufferSize(h, params, CUBLAS_DIRECT_FORWARD, CUBLAS_STOREV_COLUMNWISE, m, k,
                                            CUDA_C_64F, A, lda, CUDA_C_64F, NULL, CUDA_C_64F, T, ldt, CUDA_C_64F,
                                            &ft_dev, &ft_host));
    /* device scratch: info, tau, then cuSOLVER's buffer (one serves both calls, which run in order) */
    size_t tau_bytes = ss_align((size_t)k * sizeof(cuDoubleComplex));
    size_t dev = (qr_dev > ft_dev ? qr_dev : ft_dev) + 1, host = (qr_host > ft_host ? qr_host : ft_host) + 1;
    char *dw = ss_cuda_dwork(256 + tau_bytes + dev);
    int *dinfo = (int *)dw;   /* geqrf reports only bad arguments there, which the status reports too */
    void *tau = dw + 256, *dbuf = dw + 256 + tau_bytes;
    void *hbuf = ss_cuda_hwork(host);
    SS_CUSOLVER(cusolverDnXgeqrf(h, params, m, n, CUDA_C_64F, A, lda, CUDA_C_64F, tau, CUDA_C_64F,
                                 dbuf, dev, hbuf, host, dinfo));
    SS_CUSOLVER(cusolverDnXlarft(h, params, CUBLAS_DIRECT_FORWARD, CUBLAS_STOREV_COLUMNWISE, m, k,
                                 CUDA_C_64F, A, lda, CUDA_C_64F, tau, CUDA_C_64F, T, ldt, CUDA_C_64F,
                                 dbuf, dev, hbuf, host));
}

static void zgeqrt_cuda(void *buffers[], void *cl_arg)
{
    (void)cl_arg;
    int m = SS_ROWS(buffers[0]), n = SS_COLS(buffers[0]);
    if (ss_min(m, n) == 0)
        return;
    cuda_zgeqrt(m, n, (void *)STARPU_MATRIX_GET_PTR(buffers[0]), SS_LD(buffers[0]),
                (void *)STARPU_MATRIX_GET_PTR(buffers[1]), SS_LD(buffers[1]));
}
#endif

static struct starpu_perfmodel model_zgeqrt = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "starsolve_zgeqrt",
};

static struct starpu_codelet cl_zgeqrt = {
    .where = SS_WHERE_CPU_CUDA,
    .can_execute = ss_can_execute,
    .cpu_funcs = { zgeqrt_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zgeqrt_cuda },
    .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = 2,
    .modes = { STARPU_RW, STARPU_W },
    .model = &model_zgeqrt,
    .name = "zgeqrt",
    .callback_func = ss_trace_task_done,
};

void insert_zgeqrt(starpu_data_handle_t A, starpu_data_handle_t T, int prio)
{
    double m = starpu_matrix_get_nx(A), n = starpu_matrix_get_ny(A);
    double flops = m >= n ? 2.0 * m * n * n - 2.0 * n * n * n / 3.0 : 2.0 * n * m * m - 2.0 * m * m * m / 3.0;
    int ret = ss_task_insert(&cl_zgeqrt,
                                 STARPU_RW, A, STARPU_W, T,
                                 STARPU_PRIORITY, ss_priority(SS_BUCKET_PANEL, prio),
                                 STARPU_NAME, "zgeqrt",
                                 STARPU_FLOPS, SS_FLOP_SCALE * flops,
                                 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zgeqrt");
}
