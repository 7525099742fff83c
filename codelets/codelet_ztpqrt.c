/* QR of a triangle stacked on a tile (LAPACK's tpqrt with l = 0, PLASMA's tsqrt):
 *     [ R ]   [ I  ]           [ R' ]
 *     [ A ] = ( [ V2 ] block reflector with T ) [ 0  ]
 * R is the n x n upper triangle at the top of the diagonal tile (its lower part,
 * the diagonal tile's own Householder vectors, is left alone), A an m x n tile
 * below it, overwritten by V2; T gets the n x n triangular factor.
 *
 * CPU: ss_ztpqrt_one (zbatch_one_cpu.c) on the tiles in place: LAPACK's recursive
 * halving down to 16-column panels by level-1 calls, 2 m n^2 flops. CUDA: [triu(R); A]
 * gathered into one (n + m) x n matrix factored by the one-tile QR (cuda_zgeqrt,
 * codelet_zgeqrt.c), level 3 all the way, at (5/3)x the flops: the zeros under R
 * stay exactly zero, so the Householder vectors are exactly [e_i; V2(:,i)] and T is
 * tpqrt's T. (The CPU did the same with LAPACKE_zgeqrt until the recursion, whose
 * dgeqrt3 made hundreds of small calls into OpenBLAS's locked buffer pool; LAPACK's
 * own tpqrt with one block runs its level-2 tpqrt2 over all n columns, several
 * times slower at n = 256.) */
#include <complex.h>
#include <stdlib.h>
#include "codelets.h"

static void ztpqrt_cpu(void *buffers[], void *cl_arg)
{
    (void)cl_arg;
    starsolve_complex64_t *R = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[0]);
    starsolve_complex64_t *A = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[1]);
    starsolve_complex64_t *T = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[2]);
    int ldr = SS_LD(buffers[0]), lda = SS_LD(buffers[1]), ldt = SS_LD(buffers[2]);
    int m = SS_ROWS(buffers[1]), n = SS_COLS(buffers[1]);
    if (n == 0)
        return;
    starsolve_complex64_t *work = malloc(ss_ztpqrt_one_lwork(n) * sizeof *work);
    STARPU_ASSERT_MSG(work, "ztpqrt: out of memory");
    ss_ztpqrt_one(m, n, R, ldr, A, lda, T, ldt, work);
    free(work);
}

#ifdef STARSOLVE_USE_CUDA
static void ztpqrt_cuda(void *buffers[], void *cl_arg)
{
    (void)cl_arg;
    cudaStream_t stream = ss_cuda_stream();
    void *R = (void *)STARPU_MATRIX_GET_PTR(buffers[0]), *A = (void *)STARPU_MATRIX_GET_PTR(buffers[1]);
    int ldr = SS_LD(buffers[0]), lda = SS_LD(buffers[1]);
    int m = SS_ROWS(buffers[1]), n = SS_COLS(buffers[1]), lds = n + m;
    size_t esz = sizeof(cuDoubleComplex);
    if (n == 0)
        return;
    /* the stacked matrix lives in the second scratch: cuda_zgeqrt uses the first */
    char *S = ss_cuda_dwork2((size_t)lds * n * esz);
    SS_CUDA(cudaMemset2DAsync(S, (size_t)lds * esz, 0, (size_t)n * esz, n, stream));
    ss_cuda_lacpy('U', esz, n, n, R, ldr, S, lds, stream);
    SS_CUDA(cudaMemcpy2DAsync(S + n * esz, (size_t)lds * esz, A, (size_t)lda * esz, (size_t)m * esz, n,
                              cudaMemcpyDeviceToDevice, stream));
    cuda_zgeqrt(lds, n, S, lds, (void *)STARPU_MATRIX_GET_PTR(buffers[2]), SS_LD(buffers[2]));
    ss_cuda_lacpy('U', esz, n, n, S, lds, R, ldr, stream);
    SS_CUDA(cudaMemcpy2DAsync(A, (size_t)lda * esz, S + n * esz, (size_t)lds * esz, (size_t)m * esz, n,
                              cudaMemcpyDeviceToDevice, stream));
}
#endif

static struct starpu_perfmodel model_ztpqrt = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "starsolve_ztpqrt",
};

static struct starpu_codelet cl_ztpqrt = {
    .where = SS_WHERE_CPU_CUDA,
    .can_execute = ss_can_execute,
    .cpu_funcs = { ztpqrt_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { ztpqrt_cuda },
    .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = 3,
    .modes = { STARPU_RW, STARPU_RW, STARPU_W },
    .model = &model_ztpqrt,
    .name = "ztpqrt",
    .callback_func = ss_trace_task_done,
};

void insert_ztpqrt(starpu_data_handle_t R, starpu_data_handle_t A, starpu_data_handle_t T, int prio)
{
    double m = starpu_matrix_get_nx(A), n = starpu_matrix_get_ny(A);
    int ret = ss_task_insert(&cl_ztpqrt,
                                 STARPU_RW, R, STARPU_RW, A, STARPU_W, T,
                                 STARPU_PRIORITY, ss_priority(SS_BUCKET_PANEL, prio),
                                 /* its tiles belong to several processes (StarPU-MPI): run it where the first written one lives */
                                 STARPU_EXECUTE_ON_DATA, A,
                                 STARPU_NAME, "ztpqrt",
                                 STARPU_FLOPS, SS_FLOP_SCALE * 2.0 * m * n * n,   /* tpqrt's count, not the gather's */
                                 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert ztpqrt");
}
