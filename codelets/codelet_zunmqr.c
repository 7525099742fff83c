/* Apply the block reflector of a one-tile QR to a tile:
 * C = op(Q) C (side 'L') or C op(Q) (side 'R'), op(Q) = Q (trans 'N') or Q^H
 * (trans 'C'), Q = I - V T V^H.
 * V is the m x k matrix of Householder vectors padded with ones on the
 * diagonal and zeros above (codelet_zlacpy.c makes it from the factored tile):
 * then V is a plain matrix and the GPU side is GEMM, TRMM (with T), GEMM:
 *   left:  W = V^H C;  W = T W (Q) or T^H W (Q^H);  C -= V W
 *   right: W = C V;    W = W T (Q) or W T^H (Q^H);  C -= W V^H
 * CPU: LAPACKE gemqrt with one block (it reads only V's strict lower part). */
#include <complex.h>
#include <stdlib.h>
#include "codelets.h"

struct zunmqr_args { char side, trans; };

static void zunmqr_cpu(void *buffers[], void *cl_arg)
{
    const struct zunmqr_args *a = cl_arg;
    int m = SS_ROWS(buffers[2]), n = SS_COLS(buffers[2]), k = SS_COLS(buffers[0]);
    if (m == 0 || n == 0 || k == 0)
        return;
    starsolve_complex64_t *work = malloc((size_t)k * (a->side == 'L' ? n : m) * sizeof *work);
    STARPU_ASSERT_MSG(work, "zunmqr: out of memory");
    int info = LAPACKE_zgemqrt_work(LAPACK_COL_MAJOR, a->side, ss_lapack_trans(a->trans), m, n, k, k,
                                    (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[0]), SS_LD(buffers[0]),
                                    (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[1]), SS_LD(buffers[1]),
                                    (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[2]), SS_LD(buffers[2]),
                                    work);
    STARPU_ASSERT_MSG(info == 0, "LAPACKE_zgemqrt_work: info %d", info);
    free(work);
}

#ifdef STARSOLVE_USE_CUDA
static const cuDoubleComplex *scalar(const starsolve_complex64_t *x) { return (const cuDoubleComplex *)x; }

static void zunmqr_cuda(void *buffers[], void *cl_arg)
{
    const struct zunmqr_args *a = cl_arg;
    cublasHandle_t h = ss_cublas_handle();
    int m = SS_ROWS(buffers[2]), n = SS_COLS(buffers[2]), k = SS_COLS(buffers[0]);
    const cuDoubleComplex *V = (const cuDoubleComplex *)STARPU_MATRIX_GET_PTR(buffers[0]);
    const cuDoubleComplex *T = (const cuDoubleComplex *)STARPU_MATRIX_GET_PTR(buffers[1]);
    cuDoubleComplex *C = (cuDoubleComplex *)STARPU_MATRIX_GET_PTR(buffers[2]);
    int ldv = SS_LD(buffers[0]), ldt = SS_LD(buffers[1]), ldc = SS_LD(buffers[2]);
    SS_CUBLAS_SCALAR const starsolve_complex64_t one = 1.0, zero = 0.0, mone = -1.0;
    if (m == 0 || n == 0 || k == 0)
        return;
    cublasOperation_t opT = a->trans == 'N' ? CUBLAS_OP_N : CUBLAS_OP_C;
    if (a->side == 'L') {
        cuDoubleComplex *W = ss_cuda_dwork((size_t)k * n * sizeof *W);
        /* W = V^H C;  W = op(T) W;  C = C - V W */
        SS_CUBLAS(cublasZgemm(h, CUBLAS_OP_C, CUBLAS_OP_N, k, n, m, scalar(&one), V, ldv, C, ldc, scalar(&zero), W, k));
        SS_CUBLAS(cublasZtrmm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, opT, CUBLAS_DIAG_NON_UNIT, k, n,
                              scalar(&one), T, ldt, W, k, W, k));
        SS_CUBLAS(cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, scalar(&mone), V, ldv, W, k, scalar(&one), C, ldc));
    } else {
        cuDoubleComplex *W = ss_cuda_dwork((size_t)m * k * sizeof *W);
        /* W = C V;  W = W op(T);  C = C - W V^H */
        SS_CUBLAS(cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, k, n, scalar(&one), C, ldc, V, ldv, scalar(&zero), W, m));
        SS_CUBLAS(cublasZtrmm(h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, opT, CUBLAS_DIAG_NON_UNIT, m, k,
                              scalar(&one), T, ldt, W, m, W, m));
        SS_CUBLAS(cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_C, m, n, k, scalar(&mone), W, m, V, ldv, scalar(&one), C, ldc));
    }
}
#endif

static struct starpu_perfmodel model_zunmqr = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "starsolve_zunmqr",
};

static struct starpu_codelet cl_zunmqr = {
    .where = SS_WHERE_CPU_CUDA,
    .can_execute = ss_can_execute,
    .cpu_funcs = { zunmqr_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zunmqr_cuda },
    .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = 3,
    .modes = { STARPU_R, STARPU_R, STARPU_RW },
    .model = &model_zunmqr,
    .name = "zunmqr",
    .callback_func = ss_trace_task_done,
};

void insert_zunmqr(char side, char trans, starpu_data_handle_t V, starpu_data_handle_t T, starpu_data_handle_t C,
                   int prio)
{
    struct zunmqr_args *a = malloc(sizeof *a);
    *a = (struct zunmqr_args){ side, trans };
    double m = starpu_matrix_get_nx(C), n = starpu_matrix_get_ny(C), k = starpu_matrix_get_ny(V);
    int ret = ss_task_insert(&cl_zunmqr,
                                 STARPU_CL_ARGS, a, sizeof *a,
                                 STARPU_R, V, STARPU_R, T, STARPU_RW, C,
                                 STARPU_PRIORITY, ss_priority(SS_BUCKET_SOLVE, prio),
                                 STARPU_NAME, "zunmqr",
                                 /* LAPACK's count: the triangle of V saves k^2/2 per column (left) or row (right) */
                                 STARPU_FLOPS, SS_FLOP_SCALE * (4.0 * m * n * k - 2.0 * (side == 'L' ? n : m) * k * k / 2.0),
                                 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zunmqr");
}
