/* Apply the block reflector of a tpqrt (codelet_ztpqrt.c) to a pair of tiles
 * (LAPACK's tpmqrt with l = 0, PLASMA's tsmqr), Q = I - V T V^H, V = [I; V2]:
 *   side 'L':  [C1; C2] = op(Q) [C1; C2], C1 the first k rows of a tile in the
 *              panel's tile row, C2 a tile below;
 *              CUDA: W = C1 + V2^H C2; W = op(T) W; C1 -= W; C2 -= V2 W
 *   side 'R':  [C1 C2] = [C1 C2] op(Q), C1 the first k columns of a tile in the
 *              panel's tile column (of C), C2 a tile to its right;
 *              CUDA: W = C1 + C2 V2; W = W op(T); C1 -= W; C2 -= W V2^H
 * CPU: LAPACKE tpmqrt with one block. CUDA: GEMMs, one TRMM with T, one GEAM. */
#include <complex.h>
#include <stdlib.h>
#include "codelets.h"

struct ztpmqrt_args { char side, trans; };

static void ztpmqrt_cpu(void *buffers[], void *cl_arg)
{
    const struct ztpmqrt_args *a = cl_arg;
    int k = SS_COLS(buffers[0]), m = SS_ROWS(buffers[3]), n = SS_COLS(buffers[3]);
    if (n == 0 || k == 0)
        return;
    starsolve_complex64_t *work = malloc((size_t)k * (a->side == 'L' ? n : m) * sizeof *work);
    STARPU_ASSERT_MSG(work, "ztpmqrt: out of memory");
    int info = LAPACKE_ztpmqrt_work(LAPACK_COL_MAJOR, a->side, ss_lapack_trans(a->trans), m, n, k, 0, k,
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
    cublasHandle_t h = ss_cublas_handle();
    cudaStream_t stream = ss_cuda_stream();
    int k = SS_COLS(buffers[0]), m = SS_ROWS(buffers[3]), n = SS_COLS(buffers[3]);
    const cuDoubleComplex *V = (const cuDoubleComplex *)STARPU_MATRIX_GET_PTR(buffers[0]);
    const cuDoubleComplex *T = (const cuDoubleComplex *)STARPU_MATRIX_GET_PTR(buffers[1]);
    cuDoubleComplex *C1 = (cuDoubleComplex *)STARPU_MATRIX_GET_PTR(buffers[2]);
    cuDoubleComplex *C2 = (cuDoubleComplex *)STARPU_MATRIX_GET_PTR(buffers[3]);
    int ldv = SS_LD(buffers[0]), ldt = SS_LD(buffers[1]), ldc1 = SS_LD(buffers[2]), ldc2 = SS_LD(buffers[3]);
    SS_CUBLAS_SCALAR const starsolve_complex64_t one = 1.0, mone = -1.0;
    if (n == 0 || k == 0)
        return;
    cublasOperation_t opT = a->trans == 'N' ? CUBLAS_OP_N : CUBLAS_OP_C;
    size_t es = sizeof(cuDoubleComplex);
    if (a->side == 'L') {
        cuDoubleComplex *W = ss_cuda_dwork((size_t)k * n * es);
        SS_CUDA(cudaMemcpy2DAsync(W, (size_t)k * es, C1, (size_t)ldc1 * es, (size_t)k * es, n,
                                  cudaMemcpyDeviceToDevice, stream));
        SS_CUBLAS(cublasZgemm(h, CUBLAS_OP_C, CUBLAS_OP_N, k, n, m, scalar(&one), V, ldv, C2, ldc2, scalar(&one), W, k));
        SS_CUBLAS(cublasZtrmm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, opT, CUBLAS_DIAG_NON_UNIT, k, n,
                              scalar(&one), T, ldt, W, k, W, k));
        SS_CUBLAS(cublasZgeam(h, CUBLAS_OP_N, CUBLAS_OP_N, k, n, scalar(&one), C1, ldc1, scalar(&mone), W, k, C1, ldc1));
        SS_CUBLAS(cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, scalar(&mone), V, ldv, W, k, scalar(&one), C2, ldc2));
    } else {
        /* C2 is m x n with n = V2's rows; C1's first k columns take part */
        cuDoubleComplex *W = ss_cuda_dwork((size_t)m * k * es);
        SS_CUDA(cudaMemcpy2DAsync(W, (size_t)m * es, C1, (size_t)ldc1 * es, (size_t)m * es, k,
                                  cudaMemcpyDeviceToDevice, stream));
        SS_CUBLAS(cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, k, n, scalar(&one), C2, ldc2, V, ldv, scalar(&one), W, m));
        SS_CUBLAS(cublasZtrmm(h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, opT, CUBLAS_DIAG_NON_UNIT, m, k,
                              scalar(&one), T, ldt, W, m, W, m));
        SS_CUBLAS(cublasZgeam(h, CUBLAS_OP_N, CUBLAS_OP_N, m, k, scalar(&one), C1, ldc1, scalar(&mone), W, m, C1, ldc1));
        SS_CUBLAS(cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_C, m, n, k, scalar(&mone), W, m, V, ldv, scalar(&one), C2, ldc2));
    }
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
    .callback_func = ss_trace_task_done,
};

void insert_ztpmqrt(char side, char trans, starpu_data_handle_t V2, starpu_data_handle_t T, starpu_data_handle_t C1,
                    starpu_data_handle_t C2, int prio)
{
    struct ztpmqrt_args *a = malloc(sizeof *a);
    *a = (struct ztpmqrt_args){ side, trans };
    double m = starpu_matrix_get_nx(C2), n = starpu_matrix_get_ny(C2), k = starpu_matrix_get_ny(V2);
    int ret = ss_task_insert(&cl_ztpmqrt,
                                 STARPU_CL_ARGS, a, sizeof *a,
                                 STARPU_R, V2, STARPU_R, T, STARPU_RW, C1, STARPU_RW, C2,
                                 STARPU_PRIORITY, ss_priority(SS_BUCKET_UPDATE, prio),
                                 /* its tiles belong to several processes (StarPU-MPI): run it where the first written one lives */
                                 STARPU_EXECUTE_ON_DATA, C2,
                                 STARPU_NAME, "ztpmqrt",
                                 STARPU_FLOPS, SS_FLOP_SCALE * 4.0 * m * n * k,
                                 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert ztpmqrt");
}
