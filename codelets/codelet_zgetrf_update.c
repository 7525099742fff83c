/* Step k of tile LU on one tile column j right of the panel, as one task:
 *   1. the panel's row interchanges on A(k:, j) (LU with partial pivoting only),
 *   2. U(k,j) = L(k,k)^-1 A(k,j): with partial pivoting a GEMM with the inverse
 *      the panel left, through the scratch buffer since GEMM is out of place;
 *      without pivoting a TRSM with the diagonal tile's unit lower triangle
 *      itself (its entries have no bound there: codelet_ztrsm_column.c says why;
 *      on GPUs by our TRSM, cuda_ztrsm_recursive),
 *   3. A(i,j) -= L(i,k) U(k,j) for i > k (codelet_zgemm_tiles.c).
 * With GPUs this replaces three tasks per column and step (laswp, TRSM, column
 * GEMM): each of them waited for the previous one's end to be noticed by
 * StarPU, and cuBLAS's TRSM of a 1024 tile took about as long as the GEMMs
 * below it (bench/NOTES.md, trace of LU 40000 on an H100). Inverting L(k,k),
 * whose entries are at most 1 in modulus with partial pivoting, is what
 * MAGMA's and the batched LUs' TRSM does on GPUs. The two forms are two
 * codelets, so that each has its own performance model. */
#include <complex.h>
#include <stdlib.h>
#include <string.h>
#include "codelets.h"

struct zgetrf_update_args { int ntiles, pivoting, nb, inverse; };

/* buffers: [0] L(k,k)^-1 (r x r, r = rows of A(k,j)) if inverse, else the diagonal
 * tile A(k,k) holding L(k,k) in its unit lower triangle; then the panel's pivots if
 * pivoting, the column A(k.., j) (ntiles tiles), L(k+1.., k) (ntiles - 1 tiles) and,
 * if pivoting or inverse, the scratch buffer (ss_zgetrf_update_scratch_bytes). */
struct update_buffers {
    void *linv, *piv, **column, **lower, *scratch;
};

static struct update_buffers unpack(void *buffers[], const struct zgetrf_update_args *a)
{
    struct update_buffers b;
    int at = 0;
    b.linv = buffers[at++];
    b.piv = a->pivoting ? buffers[at++] : NULL;
    b.column = buffers + at;
    b.lower = buffers + at + a->ntiles;
    b.scratch = a->pivoting || a->inverse ? buffers[at + 2 * a->ntiles - 1] : NULL;
    return b;
}

static void zgetrf_update_cpu(void *buffers[], void *cl_arg)
{
    const struct zgetrf_update_args *a = cl_arg;
    struct update_buffers b = unpack(buffers, a);
    if (a->pivoting)
        cpu_zlaswp(1, &b.piv, b.column, a->nb, 1);
    void *U = b.column[0];
    int r = SS_ROWS(U), c = SS_COLS(U);
    const starsolve_complex64_t one = 1.0, zero = 0.0, mone = -1.0;
    starsolve_complex64_t *L = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(b.linv);
    starsolve_complex64_t *Ukj = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(U);
    if (a->inverse) {
        starsolve_complex64_t *T = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(b.scratch);
        STARPU_ASSERT_MSG((size_t)r * c * sizeof *T <= SS_SCRATCH_BYTES(b.scratch), "zgetrf_update: scratch too small");
        cblas_zgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, r, c, r, CBLAS_SADDR(one), L, SS_LD(b.linv),
                    Ukj, SS_LD(U), CBLAS_SADDR(zero), T, r);
        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', r, c, T, r, Ukj, SS_LD(U));
    } else {
        cpu_ztrsm('L', 'L', 'N', 'U', r, c, one, L, SS_LD(b.linv), Ukj, SS_LD(U));
    }
    cpu_zgemm_tiles('N', 'N', mone, U, 0, a->ntiles - 1, b.lower, one, b.column + 1);
}

#ifdef STARSOLVE_USE_CUDA
static void zgetrf_update_cuda(void *buffers[], void *cl_arg)
{
    const struct zgetrf_update_args *a = cl_arg;
    struct update_buffers b = unpack(buffers, a);
    cudaStream_t stream = ss_cuda_stream();
    void *U = b.column[0];
    int r = SS_ROWS(U), c = SS_COLS(U);
    size_t esz = sizeof(starsolve_complex64_t), swap_bytes = a->pivoting ? ss_zlaswp_scratch_bytes(a->nb, c) : 0;
    STARPU_ASSERT_MSG(!b.scratch || swap_bytes + (a->inverse ? (size_t)r * c * esz : 0) <= SS_SCRATCH_BYTES(b.scratch),
                      "zgetrf_update: scratch too small");
    char *scratch = b.scratch ? (char *)STARPU_VECTOR_GET_PTR(b.scratch) : NULL;
    if (a->pivoting) {
        void *tile_ptr[a->ntiles];
        int ld[a->ntiles];
        for (int t = 0; t < a->ntiles; t++) {
            tile_ptr[t] = (void *)STARPU_MATRIX_GET_PTR(b.column[t]);
            ld[t] = SS_LD(b.column[t]);
        }
        const int *piv = (const int *)STARPU_VECTOR_GET_PTR(b.piv);
        int npiv = (int)((STARPU_VECTOR_GET_NX(b.piv) - 2) / 5);   /* the vector holds ss_piv_ints(npiv) */
        ss_cuda_laswp(esz, c, a->ntiles, tile_ptr, ld, a->nb, 1, &piv, &npiv, 1, scratch, stream);
    }
    SS_CUBLAS_SCALAR const starsolve_complex64_t one = 1.0, zero = 0.0;
    const cuDoubleComplex *L = (const cuDoubleComplex *)STARPU_MATRIX_GET_PTR(b.linv);
    cuDoubleComplex *Ukj = (cuDoubleComplex *)STARPU_MATRIX_GET_PTR(U);
    if (a->inverse) {
        cuDoubleComplex *T = (cuDoubleComplex *)(scratch + swap_bytes);
        SS_CUBLAS(cublasZgemm(ss_cublas_handle(), CUBLAS_OP_N, CUBLAS_OP_N, r, c, r, (const cuDoubleComplex *)&one,
                              L, SS_LD(b.linv), Ukj, SS_LD(U), (const cuDoubleComplex *)&zero, T, r));
        SS_CUDA(cudaMemcpy2DAsync(Ukj, (size_t)SS_LD(U) * esz, T, (size_t)r * esz, (size_t)r * esz, c,
                                  cudaMemcpyDeviceToDevice, stream));
    } else {   /* LU without pivoting: the triangle itself (codelet_ztrsm_column.c) */
        cuda_ztrsm_recursive('L', 'U', r, c, L, SS_LD(b.linv), Ukj, SS_LD(U));
    }
    if (a->ntiles > 1)
        cuda_zgemm_tiles('N', 'N', -1.0, U, 0, a->ntiles - 1, b.lower, 1.0, b.column + 1);
}
#endif

size_t ss_zgetrf_update_scratch_bytes(int nb, int pivoting)
{
    return (pivoting ? ss_zlaswp_scratch_bytes(nb, nb) : 0) + (size_t)nb * nb * sizeof(starsolve_complex64_t);
}

static struct starpu_perfmodel model_zgetrf_update = {
    .type = STARPU_REGRESSION_BASED,   /* sizes vary within a factorization (ss_perfmodel_matrix_elements, internal.h) */
    .size_base = ss_perfmodel_matrix_elements,
    .symbol = "starsolve_zgetrf_update",
};

static struct starpu_codelet cl_zgetrf_update = {
    .where = SS_WHERE_CPU_CUDA,
    .can_execute = ss_can_execute,
    .cpu_funcs = { zgetrf_update_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zgetrf_update_cuda },
    .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &model_zgetrf_update,
    .name = "zgetrf_update",
    .callback_func = ss_trace_task_done,
};

static struct starpu_perfmodel model_zgetrf_update_trsm = {
    .type = STARPU_REGRESSION_BASED,
    .size_base = ss_perfmodel_matrix_elements,
    .symbol = "starsolve_zgetrf_update_trsm",
};

static struct starpu_codelet cl_zgetrf_update_trsm = {
    .where = SS_WHERE_CPU_CUDA,
    .can_execute = ss_can_execute,
    .cpu_funcs = { zgetrf_update_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zgetrf_update_cuda },
    .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &model_zgetrf_update_trsm,
    .name = "zgetrf_update_trsm",
    .callback_func = ss_trace_task_done,
};

void insert_zgetrf_update(int ntiles, const starpu_data_handle_t *column, const starpu_data_handle_t *lower,
                          starpu_data_handle_t lkk, int inverse, starpu_data_handle_t ipiv, starpu_data_handle_t scratch,
                          int prio)
{
    struct zgetrf_update_args *a = malloc(sizeof *a);
    *a = (struct zgetrf_update_args){ ntiles, ipiv != NULL, (int)starpu_matrix_get_nx(column[0]), inverse };
    int with_scratch = ipiv != NULL || inverse;
    int nbuffers = 2 * ntiles + with_scratch + (ipiv != NULL), at = 0;
    struct starpu_data_descr *descr = malloc((size_t)nbuffers * sizeof *descr);
    descr[at++] = (struct starpu_data_descr){ lkk, STARPU_R };
    if (ipiv)
        descr[at++] = (struct starpu_data_descr){ ipiv, STARPU_R };
    for (int t = 0; t < ntiles; t++)
        descr[at++] = (struct starpu_data_descr){ column[t], STARPU_RW };
    for (int t = 0; t + 1 < ntiles; t++)
        descr[at++] = (struct starpu_data_descr){ lower[t], STARPU_R };
    if (with_scratch)
        descr[at++] = (struct starpu_data_descr){ scratch, STARPU_SCRATCH };
    double r = starpu_matrix_get_nx(column[0]), c = starpu_matrix_get_ny(column[0]);
    double flops = (inverse ? 2.0 : 1.0) * r * r * c;
    for (int t = 1; t < ntiles; t++)
        flops += 2.0 * starpu_matrix_get_nx(column[t]) * c * r;
    int ret = ss_task_insert(inverse ? &cl_zgetrf_update : &cl_zgetrf_update_trsm,
                                 STARPU_CL_ARGS, a, sizeof *a,
                                 STARPU_DATA_MODE_ARRAY, descr, nbuffers,
                                 STARPU_PRIORITY, ss_priority(SS_BUCKET_UPDATE, prio),
                                 /* its tiles belong to several processes (StarPU-MPI): run it where the first written one lives */
                                 STARPU_EXECUTE_ON_DATA, column[0],
                                 STARPU_NAME, inverse ? "zgetrf_update" : "zgetrf_update_trsm",
                                 STARPU_FLOPS, SS_FLOP_SCALE * flops,
                                 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zgetrf_update");
    free(descr);
}
