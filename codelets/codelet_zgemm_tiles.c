/* GEMM over several tiles that share one operand, as one task:
 *   C_i = alpha op(X_i) op(S) + beta C_i   (shared operand on the right), or
 *   C_i = alpha op(S) op(X_i) + beta C_i   (shared operand on the left),
 * for i = 0 .. ntiles-1. The trailing update of a tile column in LU and
 * Cholesky is exactly this (S = U(k,j) or L(j,k)). With GPUs, one task per
 * column instead of one per tile cuts the task count by the number of tile
 * rows: at n = 40000, nb = 1024 an H100 finishes a tile GEMM in ~40 us, about
 * what StarPU spends on a task on the one thread that drives the GPU
 * (bench/NOTES.md). CPU: OpenBLAS, one call per tile; CUDA: cuBLAS, one
 * batched call for the tiles of one shape. */
#include <complex.h>
#include <stdlib.h>
#include "codelets.h"

struct zgemm_tiles_args {
    int ntiles, shared_left;
    char transa, transb;
    SS_CUBLAS_SCALAR starsolve_complex64_t alpha, beta;
};

/* The operands of product i: S is shared, X_i and C_i are tile i's. */
static void operands(int shared_left, void *S, void *X, void **A, void **B)
{
    *A = shared_left ? S : X;
    *B = shared_left ? X : S;
}

void cpu_zgemm_tiles(char transa, char transb, starsolve_complex64_t alpha, void *S, int shared_left, int ntiles,
                     void *const *X, starsolve_complex64_t beta, void *const *C)
{
    for (int i = 0; i < ntiles; i++) {
        void *A, *B;
        operands(shared_left, S, X[i], &A, &B);
        int k = transa == 'N' ? SS_COLS(A) : SS_ROWS(A);
        cblas_zgemm(CblasColMajor, ss_cblas_trans(transa), ss_cblas_trans(transb), SS_ROWS(C[i]), SS_COLS(C[i]), k,
                    CBLAS_SADDR(alpha),
                    (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(A), SS_LD(A),
                    (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(B), SS_LD(B),
                    CBLAS_SADDR(beta),
                    (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(C[i]), SS_LD(C[i]));
    }
}

/* buffers: [0] S, [1 .. ntiles] X_i, [ntiles+1 .. 2 ntiles] C_i */
static void zgemm_tiles_cpu(void *buffers[], void *cl_arg)
{
    const struct zgemm_tiles_args *a = cl_arg;
    cpu_zgemm_tiles(a->transa, a->transb, a->alpha, buffers[0], a->shared_left, a->ntiles, buffers + 1, a->beta,
                    buffers + 1 + a->ntiles);
}

#ifdef STARSOLVE_USE_CUDA
/* Tiles of one shape (all but a partial last tile row or column) go to one
 * cublasZgemmBatched call: a 1024 GEMM fills half of an H100's SMs (64 thread
 * blocks of 128 x 128), a batch of them fills all. From order 2048 on, one
 * GEMM fills the GPU by itself and cuBLAS's plain GEMM is the faster kernel
 * (bench/panel_cost on an H100, double: 18 tiles of 2048, 59.5 TF/s in a loop
 * of cublasDgemm, 48.8 in one batched call; 1024: 48.2 and 49.7; 512: 22.1
 * and 43.7), so those go one call per tile. */
#define SS_GEMM_LOOP_ORDER 2048
void cuda_zgemm_tiles(char transa, char transb, starsolve_complex64_t alpha, void *S, int shared_left, int ntiles,
                      void *const *X, starsolve_complex64_t beta, void *const *C)
{
    SS_CUBLAS_SCALAR starsolve_complex64_t alpha_ = alpha, beta_ = beta;
    cublasHandle_t handle = ss_cublas_handle();
    cudaStream_t stream = ss_cuda_stream();
    int n = ntiles;
    void *ptr[3 * n];   /* A_i, then B_i, then C_i */
    for (int i = 0; i < n; i++) {
        void *A, *B;
        operands(shared_left, S, X[i], &A, &B);
        ptr[i] = (void *)STARPU_MATRIX_GET_PTR(A);
        ptr[n + i] = (void *)STARPU_MATRIX_GET_PTR(B);
        ptr[2 * n + i] = (void *)STARPU_MATRIX_GET_PTR(C[i]);
    }
    void *const *dptr = NULL;
    for (int i0 = 0, i1; i0 < n; i0 = i1) {
        void *A0, *B0, *C0 = C[i0];
        operands(shared_left, S, X[i0], &A0, &B0);
        /* the run of tiles i0 .. i1-1 with the shape and leading dimensions of tile i0 */
        for (i1 = i0 + 1; i1 < n; i1++) {
            void *A, *B;
            operands(shared_left, S, X[i1], &A, &B);
            if (SS_ROWS(A) != SS_ROWS(A0) || SS_COLS(A) != SS_COLS(A0) || SS_ROWS(B) != SS_ROWS(B0)
                || SS_COLS(B) != SS_COLS(B0) || SS_LD(A) != SS_LD(A0) || SS_LD(B) != SS_LD(B0)
                || SS_LD(C[i1]) != SS_LD(C0))
                break;
        }
        int k = transa == 'N' ? SS_COLS(A0) : SS_ROWS(A0);
        int big = SS_ROWS(C0) >= SS_GEMM_LOOP_ORDER && SS_COLS(C0) >= SS_GEMM_LOOP_ORDER && k >= SS_GEMM_LOOP_ORDER;
        if (i1 - i0 == 1 || big) {
            for (int i = i0; i < i1; i++)
                SS_CUBLAS(cublasZgemm(handle, ss_cublas_op(transa), ss_cublas_op(transb), SS_ROWS(C0), SS_COLS(C0), k,
                                      (const cuDoubleComplex *)&alpha_,
                                      (const cuDoubleComplex *)ptr[i], SS_LD(A0),
                                      (const cuDoubleComplex *)ptr[n + i], SS_LD(B0),
                                      (const cuDoubleComplex *)&beta_,
                                      (cuDoubleComplex *)ptr[2 * n + i], SS_LD(C0)));
            continue;
        }
        if (!dptr)
            dptr = ss_cuda_pointer_array(ptr, 3 * n, stream);
        SS_CUBLAS(cublasZgemmBatched(handle, ss_cublas_op(transa), ss_cublas_op(transb), SS_ROWS(C0), SS_COLS(C0), k,
                                     (const cuDoubleComplex *)&alpha_,
                                     (const cuDoubleComplex *const *)(dptr + i0), SS_LD(A0),
                                     (const cuDoubleComplex *const *)(dptr + n + i0), SS_LD(B0),
                                     (const cuDoubleComplex *)&beta_,
                                     (cuDoubleComplex *const *)(dptr + 2 * n + i0), SS_LD(C0), i1 - i0));
    }
}

static void zgemm_tiles_cuda(void *buffers[], void *cl_arg)
{
    const struct zgemm_tiles_args *a = cl_arg;
    cuda_zgemm_tiles(a->transa, a->transb, a->alpha, buffers[0], a->shared_left, a->ntiles, buffers + 1, a->beta,
                     buffers + 1 + a->ntiles);
}
#endif

static struct starpu_perfmodel model_zgemm_tiles = {
    .type = STARPU_REGRESSION_BASED,   /* sizes vary within a factorization (ss_perfmodel_matrix_elements, internal.h) */
    .size_base = ss_perfmodel_matrix_elements,
    .symbol = "starsolve_zgemm_tiles",
};

static struct starpu_codelet cl_zgemm_tiles = {
    .where = SS_WHERE_CPU_CUDA,
    .can_execute = ss_can_execute,
    .cpu_funcs = { zgemm_tiles_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zgemm_tiles_cuda },
    .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &model_zgemm_tiles,
    .name = "zgemm_tiles",
    .callback_func = ss_trace_task_done,
};

/* One task on X[0..ntiles), C[0..ntiles). */
static void insert_one(char transa, char transb, starsolve_complex64_t alpha, starpu_data_handle_t S,
                       int shared_left, int ntiles, const starpu_data_handle_t *X, starsolve_complex64_t beta,
                       const starpu_data_handle_t *C, int prio)
{
    struct zgemm_tiles_args *a = malloc(sizeof *a);
    *a = (struct zgemm_tiles_args){ ntiles, shared_left, transa, transb, alpha, beta };
    struct starpu_data_descr *descr = malloc((size_t)(2 * ntiles + 1) * sizeof *descr);
    double flops = 0;
    descr[0] = (struct starpu_data_descr){ S, STARPU_R };
    for (int i = 0; i < ntiles; i++) {
        starpu_data_handle_t A = shared_left ? S : X[i];
        double k = transa == 'N' ? starpu_matrix_get_ny(A) : starpu_matrix_get_nx(A);
        flops += 2.0 * starpu_matrix_get_nx(C[i]) * starpu_matrix_get_ny(C[i]) * k;
        descr[1 + i] = (struct starpu_data_descr){ X[i], STARPU_R };
        descr[1 + ntiles + i] = (struct starpu_data_descr){ C[i], STARPU_RW };
    }
    int ret = ss_task_insert(&cl_zgemm_tiles,
                                 STARPU_CL_ARGS, a, sizeof *a,
                                 STARPU_DATA_MODE_ARRAY, descr, 2 * ntiles + 1,
                                 STARPU_PRIORITY, ss_priority(SS_BUCKET_UPDATE, prio),
                                 /* its tiles belong to several processes (StarPU-MPI): run it where the first written one lives */
                                 STARPU_EXECUTE_ON_DATA, C[0],
                                 STARPU_NAME, "zgemm_tiles",
                                 STARPU_FLOPS, SS_FLOP_SCALE * flops,
                                 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zgemm_tiles");
    free(descr);
}

void insert_zgemm_tiles(char transa, char transb, starsolve_complex64_t alpha, starpu_data_handle_t S,
                        int shared_left, int ntiles, const starpu_data_handle_t *X, starsolve_complex64_t beta,
                        const starpu_data_handle_t *C, int prio)
{
    int per_task = ss_ctx.update_tiles;
    for (int i = 0; i < ntiles; i += per_task) {
        int count = ss_min(per_task, ntiles - i);
        if (count == 1)   /* the plain tile GEMM: same codelet and perfmodel as the per-tile updates */
            insert_zgemm(transa, transb, alpha, shared_left ? S : X[i], shared_left ? X[i] : S, beta, C[i], prio);
        else
            insert_one(transa, transb, alpha, S, shared_left, count, X + i, beta, C + i, prio);
    }
}
