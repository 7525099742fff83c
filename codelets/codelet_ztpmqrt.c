/* Apply the block reflector of a tpqrt (codelet_ztpqrt.c) to a pair of tiles
 * from the left (LAPACK's tpmqrt with l = 0, PLASMA's tsmqr):
 *     [ C1 ]          [ C1 ]                        [ I  ]
 *     [ C2 ] = op(Q)  [ C2 ],   Q = I - V T V^H,  V = [ V2 ]
 * C1 is the first k rows of a tile in the panel's tile row, C2 a tile below.
 * CPU: LAPACKE tpmqrt with one block. CUDA: W = C1 + V2^H C2; W = op(T) W;
 * C1 -= W; C2 -= V2 W (GEMMs, one TRMM with T, one GEAM). */
#include <complex.h>
#include <stdlib.h>
#include "codelets.h"

struct ztpmqrt_args { char trans; };

static void ztpmqrt_cpu(void *buffers[], void *cl_arg)
{
    const struct ztpmqrt_args *a = cl_arg;
    int k = SS_COLS(buffers[0]), m = SS_ROWS(buffers[3]), n = SS_COLS(buffers[3]);
    if (n == 0 || k == 0)
        return;
    starsolve_complex64_t *work = malloc((size_t)k * n * sizeof *work);
    STARPU_ASSERT_MSG(work, "ztpmqrt: out of memory");
    int info = LAPACKE_ztpmqrt_work(LAPACK_COL_MAJOR, 'L', ss_lapack_trans(a->trans), m, n, k, 0, k,
                                    (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[0]), SS_LD(buffers[0]),
                                    (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[1]), SS_LD(buffers[1]),
                                    (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[2]), SS_LD(buffers[2]),
                                    (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[3]), SS_LD(buffers[3]),
                                    work);
    STARPU_ASSERT_MSG(info == 0, "LAPACKE_ztpmqrt_work: info %d", info);
    free(work);
}

#ifdef STARSOLVE_USE_CUDA
static const cuDoubleComplex *scalar(const starsolve_complex64_t *x) { return (const cuDoubleComplex *)x; }

static void ztpmqrt_cuda(void *buffers[], void *cl_arg)
{
    const struct ztpmqrt_args *a = cl_arg;
    cublasHandle_t h = starpu_cublas_get_local_handle();
    cudaStream_t stream = starpu_cuda_get_local_stream();
    int k = SS_COLS(buffers[0]), m = SS_ROWS(buffers[3]), n = SS_COLS(buffers[3]);
    const cuDoubleComplex *V = (const cuDoubleComplex *)STARPU_MATRIX_GET_PTR(buffers[0]);
    const cuDoubleComplex *T = (const cuDoubleComplex *)STARPU_MATRIX_GET_PTR(buffers[1]);
    cuDoubleComplex *C1 = (cuDoubleComplex *)STARPU_MATRIX_GET_PTR(buffers[2]);
    cuDoubleComplex *C2 = (cuDoubleComplex *)STARPU_MATRIX_GET_PTR(buffers[3]);
    int ldv = SS_LD(buffers[0]), ldt = SS_LD(buffers[1]), ldc1 = SS_LD(buffers[2]), ldc2 = SS_LD(buffers[3]);
    const starsolve_complex64_t one = 1.0, mone = -1.0;
    if (n == 0 || k == 0)
        return;
    cuDoubleComplex *W = ss_cuda_dwork((size_t)k * n * sizeof *W);
    SS_CUDA(cudaMemcpy2DAsync(W, (size_t)k * sizeof *W, C1, (size_t)ldc1 * sizeof *W, (size_t)k * sizeof *W, n,
                              cudaMemcpyDeviceToDevice, stream));
    SS_CUBLAS(cublasZgemm(h, CUBLAS_OP_C, CUBLAS_OP_N, k, n, m, scalar(&one), V, ldv, C2, ldc2, scalar(&one), W, k));
    SS_CUBLAS(cublasZtrmm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, a->trans == 'N' ? CUBLAS_OP_N : CUBLAS_OP_C,
                          CUBLAS_DIAG_NON_UNIT, k, n, scalar(&one), T, ldt, W, k, W, k));
    SS_CUBLAS(cublasZgeam(h, CUBLAS_OP_N, CUBLAS_OP_N, k, n, scalar(&one), C1, ldc1, scalar(&mone), W, k, C1, ldc1));
    SS_CUBLAS(cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, scalar(&mone), V, ldv, W, k, scalar(&one), C2, ldc2));
}
#endif

static struct starpu_perfmodel model_ztpmqrt = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "starsolve_ztpmqrt",
};

static struct starpu_codelet cl_ztpmqrt = {
    .where = SS_WHERE_CPU_CUDA,
    .can_execute = ss_can_execute,
    .cpu_funcs = { ztpmqrt_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { ztpmqrt_cuda },
    .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = 4,
    .modes = { STARPU_R, STARPU_R, STARPU_RW, STARPU_RW },
    .model = &model_ztpmqrt,
    .name = "ztpmqrt",
};

void insert_ztpmqrt(char trans, starpu_data_handle_t V2, starpu_data_handle_t T, starpu_data_handle_t C1,
                    starpu_data_handle_t C2, int prio)
{
    struct ztpmqrt_args *a = malloc(sizeof *a);
    *a = (struct ztpmqrt_args){ trans };
    double m = starpu_matrix_get_nx(C2), n = starpu_matrix_get_ny(C2), k = starpu_matrix_get_ny(V2);
    int ret = starpu_task_insert(&cl_ztpmqrt,
                                 STARPU_CL_ARGS, a, sizeof *a,
                                 STARPU_R, V2, STARPU_R, T, STARPU_RW, C1, STARPU_RW, C2,
                                 STARPU_PRIORITY, prio,
                                 STARPU_NAME, "ztpmqrt",
                                 STARPU_FLOPS, SS_FLOP_SCALE * 4.0 * m * n * k,
                                 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert ztpmqrt");
}
