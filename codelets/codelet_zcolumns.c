/* Column-by-column level-1 operations on tiles, for the GMRES corrections of the RBT
 * solver's refinement (src/pzgmres.c): every column of a block of right-hand sides has
 * its own Krylov space, so its own scalars.
 *  - dotc: out[c] = sum over the tile pairs of X(:, c)^H Y(:, c), one task per tile column
 *    and process row, so that the caller acquires one small vector per tile column;
 *  - axpy: Y(:, c) += alpha[c] X(:, c), on X's rows (Y may be a taller tile: the augmented
 *    system's iterate);
 *  - scal: Y(:, c) *= alpha[c].
 * CPU: one BLAS call a column. CUDA: the dots as one strided-batched GEMM of 1 x 1 products
 * per tile pair (one call for every column, the results left on the GPU); the others one
 * cuBLAS call a column. */
#include <complex.h>
#include <stdlib.h>
#include <string.h>
#include "codelets.h"

/* the scalars of a column-wise call: ncols of them, aligned for cuBLAS (codelets.h) */
struct zcolumns_args {
    int ncols;
    SS_CUBLAS_SCALAR starsolve_complex64_t alpha[];
};

static struct zcolumns_args *columns_args(int ncols, const starsolve_complex64_t *alpha, size_t *bytes)
{
    *bytes = sizeof(struct zcolumns_args) + (size_t)ncols * sizeof(starsolve_complex64_t);
    struct zcolumns_args *a = aligned_alloc(16, (*bytes + 15) & ~(size_t)15);
    if (!a)
        abort();   /* tens of bytes: nothing sensible left to do */
    a->ncols = ncols;
    memcpy(a->alpha, alpha, (size_t)ncols * sizeof *alpha);
    return a;
}

/* sum over r of conj(x_r) y_r (BLAS's dotc; dot in real precisions) */
static starsolve_complex64_t dotc(int n, const starsolve_complex64_t *x, const starsolve_complex64_t *y)
{
#if defined(STARSOLVE_PRECISION_Z) || defined(STARSOLVE_PRECISION_C)
    starsolve_complex64_t s;
    cblas_zdotc_sub(n, x, 1, y, 1, &s);
    return s;
#else
    return cblas_zdot(n, x, 1, y, 1);
#endif
}

/* buffers: X tiles [0, ntiles), Y tiles [ntiles, 2 ntiles), then the vector out (one entry a column) */
static void zdotc_columns_cpu(void *buffers[], void *cl_arg)
{
    int ntiles;
    starpu_codelet_unpack_args(cl_arg, &ntiles);
    starsolve_complex64_t *out = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[2 * ntiles]);
    int ncols = (int)STARPU_VECTOR_GET_NX(buffers[2 * ntiles]);
    for (int c = 0; c < ncols; c++)
        out[c] = 0;
    for (int t = 0; t < ntiles; t++) {
        void *x = buffers[t], *y = buffers[ntiles + t];
        const starsolve_complex64_t *X = (const starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(x);
        const starsolve_complex64_t *Y = (const starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(y);
        for (int c = 0; c < SS_COLS(x); c++)
            out[c] += dotc(SS_ROWS(x), X + (size_t)c * SS_LD(x), Y + (size_t)c * SS_LD(y));
    }
}

#ifdef STARSOLVE_USE_CUDA
static void zdotc_columns_cuda(void *buffers[], void *cl_arg)
{
    int ntiles;
    starpu_codelet_unpack_args(cl_arg, &ntiles);
    cuDoubleComplex *out = (cuDoubleComplex *)STARPU_VECTOR_GET_PTR(buffers[2 * ntiles]);
    int ncols = (int)STARPU_VECTOR_GET_NX(buffers[2 * ntiles]);
    if (ntiles == 0) {
        SS_CUDA(cudaMemsetAsync(out, 0, (size_t)ncols * sizeof *out, ss_cuda_stream()));
        return;
    }
    SS_CUBLAS_SCALAR const starsolve_complex64_t one = 1.0, zero = 0.0;
    for (int t = 0; t < ntiles; t++) {
        void *x = buffers[t], *y = buffers[ntiles + t];
        /* column c: the 1 x 1 product X(:, c)^H Y(:, c) into out[c], added to the earlier tiles' */
        SS_CUBLAS(cublasZgemmStridedBatched(ss_cublas_handle(), CUBLAS_OP_C, CUBLAS_OP_N, 1, 1, SS_ROWS(x),
                                            (const cuDoubleComplex *)&one,
                                            (const cuDoubleComplex *)STARPU_MATRIX_GET_PTR(x), SS_LD(x), SS_LD(x),
                                            (const cuDoubleComplex *)STARPU_MATRIX_GET_PTR(y), SS_LD(y), SS_LD(y),
                                            (const cuDoubleComplex *)(t ? &one : &zero), out, 1, 1, SS_COLS(x)));
    }
}
#endif

static struct starpu_perfmodel model_zdotc_columns = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "starsolve_zdotc_columns",
};

static struct starpu_codelet cl_zdotc_columns = {
    .where = SS_WHERE_CPU_CUDA,
    .cpu_funcs = { zdotc_columns_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zdotc_columns_cuda }, .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &model_zdotc_columns,
    .name = "zdotc_columns",
    .callback_func = ss_trace_task_done,
};

void insert_zdotc_columns(int ntiles, const starpu_data_handle_t *X, const starpu_data_handle_t *Y,
                          starpu_data_handle_t out, int prio)
{
    struct starpu_data_descr *descr = malloc((2 * (size_t)ntiles + 1) * sizeof *descr);
    if (!descr)
        abort();
    for (int t = 0; t < ntiles; t++) {
        descr[t] = (struct starpu_data_descr){ X[t], STARPU_R };
        descr[ntiles + t] = (struct starpu_data_descr){ Y[t], STARPU_R };
    }
    descr[2 * ntiles] = (struct starpu_data_descr){ out, STARPU_W };
    int ret = ss_task_insert(&cl_zdotc_columns, STARPU_VALUE, &ntiles, sizeof ntiles,
                             STARPU_DATA_MODE_ARRAY, descr, 2 * ntiles + 1,
                             STARPU_PRIORITY, ss_priority(SS_BUCKET_OTHER, prio), STARPU_NAME, "zdotc_columns", 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zdotc_columns");
    free(descr);
}

/* buffers[0] X, buffers[1] Y: Y(0 .. rows of X, c) += alpha[c] X(:, c) */
static void zaxpy_columns_cpu(void *buffers[], void *cl_arg)
{
    const struct zcolumns_args *a = cl_arg;
    const starsolve_complex64_t *X = (const starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[0]);
    starsolve_complex64_t *Y = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[1]);
    for (int c = 0; c < a->ncols; c++)
        cblas_zaxpy(SS_ROWS(buffers[0]), CBLAS_SADDR(a->alpha[c]), X + (size_t)c * SS_LD(buffers[0]), 1,
                    Y + (size_t)c * SS_LD(buffers[1]), 1);
}

#ifdef STARSOLVE_USE_CUDA
static void zaxpy_columns_cuda(void *buffers[], void *cl_arg)
{
    const struct zcolumns_args *a = cl_arg;
    const cuDoubleComplex *X = (const cuDoubleComplex *)STARPU_MATRIX_GET_PTR(buffers[0]);
    cuDoubleComplex *Y = (cuDoubleComplex *)STARPU_MATRIX_GET_PTR(buffers[1]);
    for (int c = 0; c < a->ncols; c++)
        SS_CUBLAS(cublasZaxpy(ss_cublas_handle(), SS_ROWS(buffers[0]), (const cuDoubleComplex *)&a->alpha[c],
                              X + (size_t)c * SS_LD(buffers[0]), 1, Y + (size_t)c * SS_LD(buffers[1]), 1));
}
#endif

static struct starpu_perfmodel model_zaxpy_columns = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "starsolve_zaxpy_columns",
};

static struct starpu_codelet cl_zaxpy_columns = {
    .where = SS_WHERE_CPU_CUDA,
    .cpu_funcs = { zaxpy_columns_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zaxpy_columns_cuda }, .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = 2,
    .modes = { STARPU_R, STARPU_RW },
    .model = &model_zaxpy_columns,
    .name = "zaxpy_columns",
    .callback_func = ss_trace_task_done,
};

void insert_zaxpy_columns(int ncols, const starsolve_complex64_t *alpha, starpu_data_handle_t X,
                          starpu_data_handle_t Y, int prio)
{
    size_t bytes;
    struct zcolumns_args *a = columns_args(ncols, alpha, &bytes);
    int ret = ss_task_insert(&cl_zaxpy_columns, STARPU_CL_ARGS, a, bytes, STARPU_R, X, STARPU_RW, Y,
                             STARPU_PRIORITY, ss_priority(SS_BUCKET_OTHER, prio), STARPU_NAME, "zaxpy_columns", 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zaxpy_columns");
}

/* buffers[0] Y: Y(:, c) *= alpha[c] */
static void zscal_columns_cpu(void *buffers[], void *cl_arg)
{
    const struct zcolumns_args *a = cl_arg;
    starsolve_complex64_t *Y = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[0]);
    for (int c = 0; c < a->ncols; c++)
        cblas_zscal(SS_ROWS(buffers[0]), CBLAS_SADDR(a->alpha[c]), Y + (size_t)c * SS_LD(buffers[0]), 1);
}

#ifdef STARSOLVE_USE_CUDA
static void zscal_columns_cuda(void *buffers[], void *cl_arg)
{
    const struct zcolumns_args *a = cl_arg;
    cuDoubleComplex *Y = (cuDoubleComplex *)STARPU_MATRIX_GET_PTR(buffers[0]);
    for (int c = 0; c < a->ncols; c++)
        SS_CUBLAS(cublasZscal(ss_cublas_handle(), SS_ROWS(buffers[0]), (const cuDoubleComplex *)&a->alpha[c],
                              Y + (size_t)c * SS_LD(buffers[0]), 1));
}
#endif

static struct starpu_perfmodel model_zscal_columns = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "starsolve_zscal_columns",
};

static struct starpu_codelet cl_zscal_columns = {
    .where = SS_WHERE_CPU_CUDA,
    .cpu_funcs = { zscal_columns_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zscal_columns_cuda }, .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = 1,
    .modes = { STARPU_RW },
    .model = &model_zscal_columns,
    .name = "zscal_columns",
    .callback_func = ss_trace_task_done,
};

void insert_zscal_columns(int ncols, const starsolve_complex64_t *alpha, starpu_data_handle_t Y, int prio)
{
    size_t bytes;
    struct zcolumns_args *a = columns_args(ncols, alpha, &bytes);
    int ret = ss_task_insert(&cl_zscal_columns, STARPU_CL_ARGS, a, bytes, STARPU_RW, Y,
                             STARPU_PRIORITY, ss_priority(SS_BUCKET_OTHER, prio), STARPU_NAME, "zscal_columns", 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zscal_columns");
}
