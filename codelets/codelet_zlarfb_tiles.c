/* Apply a panel's block reflector Q = I - V T V^H (codelet_zgeqrf_panel.c) to
 * a column of tiles from the left, or to a row of tiles from the right, as one
 * task: LAPACK's larfb on tiles.
 *   left  (C = op(Q) C, C_t the tiles of one tile column, t < ntiles):
 *     W = sum_t V_t^H C_t;  W = op(T) W;  C_t -= V_t W
 *   right (C = C op(Q), C_t the tiles of one tile row):
 *     W = sum_t C_t V_t;    W = W op(T);  C_t -= W V_t^H
 * op(T) = T for Q, T^H for Q^H. V_t are the panel's tiles; the first holds R
 * above its unit diagonal, so it is copied into the scratch buffer with ones on
 * the diagonal and zeros above, and every product is a plain GEMM (CPU: cblas;
 * CUDA: cuBLAS on the worker's stream). The QR trailing update (pzgeqrf.c)
 * and applying Q (pzunmqr.c) are this codelet, one task per tile column or row. */
#include <complex.h>
#include <stdlib.h>
#include "codelets.h"

struct zlarfb_tiles_args { char side, trans; int ntiles; };

/* buffers: T, then V_0 .. V_{ntiles-1}, then C_0 .. C_{ntiles-1}, then the scratch buffer */
struct larfb_buffers {
    void *T, **V, **C, *scratch;
    int k;   /* reflectors: min(rows, cols) of V_0, the panel's first tile */
};

static struct larfb_buffers unpack(void *buffers[], const struct zlarfb_tiles_args *a)
{
    struct larfb_buffers b = { buffers[0], buffers + 1, buffers + 1 + a->ntiles, buffers[1 + 2 * a->ntiles], 0 };
    b.k = ss_min(SS_ROWS(b.V[0]), SS_COLS(b.V[0]));
    return b;
}

/* the extent of C_t that meets the reflectors (rows on the left, columns on the right), and the other one */
static int c_depth(char side, void *C) { return side == 'L' ? SS_ROWS(C) : SS_COLS(C); }
static int c_width(char side, void *C) { return side == 'L' ? SS_COLS(C) : SS_ROWS(C); }

static void zlarfb_tiles_cpu(void *buffers[], void *cl_arg)
{
    const struct zlarfb_tiles_args *a = cl_arg;
    struct larfb_buffers b = unpack(buffers, a);
    int k = b.k, w = c_width(a->side, b.C[0]), r0 = SS_ROWS(b.V[0]);
    if (k == 0 || w == 0)
        return;
    starsolve_complex64_t *V0 = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(b.scratch), *W = V0 + (size_t)r0 * k;
    STARPU_ASSERT_MSG(((size_t)r0 * k + (size_t)k * w) * sizeof *V0 <= SS_SCRATCH_BYTES(b.scratch),
                      "zlarfb_tiles: scratch too small");
    LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'L', r0, k, (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(b.V[0]),
                        SS_LD(b.V[0]), V0, r0);
    LAPACKE_zlaset_work(LAPACK_COL_MAJOR, 'U', r0, k, 0.0, 1.0, V0, r0);
    const starsolve_complex64_t one = 1.0, zero = 0.0, mone = -1.0;
    int left = a->side == 'L', ldw = left ? k : w;
    for (int t = 0; t < a->ntiles; t++) {
        const starsolve_complex64_t *V = t ? (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(b.V[t]) : V0;
        int ldv = t ? SS_LD(b.V[t]) : r0, depth = c_depth(a->side, b.C[t]);
        starsolve_complex64_t *C = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(b.C[t]);
        if (left)
            cblas_zgemm(CblasColMajor, CblasConjTrans, CblasNoTrans, k, w, depth, CBLAS_SADDR(one), V, ldv,
                        C, SS_LD(b.C[t]), t ? CBLAS_SADDR(one) : CBLAS_SADDR(zero), W, ldw);
        else
            cblas_zgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, w, k, depth, CBLAS_SADDR(one), C, SS_LD(b.C[t]),
                        V, ldv, t ? CBLAS_SADDR(one) : CBLAS_SADDR(zero), W, ldw);
    }
    cblas_ztrmm(CblasColMajor, left ? CblasLeft : CblasRight, CblasUpper, ss_cblas_trans(a->trans), CblasNonUnit,
                left ? k : w, left ? w : k, CBLAS_SADDR(one), (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(b.T),
                SS_LD(b.T), W, ldw);
    for (int t = 0; t < a->ntiles; t++) {
        const starsolve_complex64_t *V = t ? (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(b.V[t]) : V0;
        int ldv = t ? SS_LD(b.V[t]) : r0, depth = c_depth(a->side, b.C[t]);
        starsolve_complex64_t *C = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(b.C[t]);
        if (left)
            cblas_zgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, depth, w, k, CBLAS_SADDR(mone), V, ldv, W, ldw,
                        CBLAS_SADDR(one), C, SS_LD(b.C[t]));
        else
            cblas_zgemm(CblasColMajor, CblasNoTrans, CblasConjTrans, w, depth, k, CBLAS_SADDR(mone), W, ldw, V, ldv,
                        CBLAS_SADDR(one), C, SS_LD(b.C[t]));
    }
}

#ifdef STARSOLVE_USE_CUDA
static const cuDoubleComplex *scalar(const starsolve_complex64_t *x) { return (const cuDoubleComplex *)x; }

/* One cuBLAS GEMM per tile, in a row on the worker's stream. Batched calls instead
 * (one for the partial products V_t^H C_t side by side, summed by a product with
 * ones, one for the updates) made the factorization slower on an H100, 3.75
 * against 3.49 s at n = 40000 (bench/NOTES.md): a 1024 GEMM alone already runs
 * at 43-52 TF/s, and the partial products cost memory traffic. */
static void zlarfb_tiles_cuda(void *buffers[], void *cl_arg)
{
    const struct zlarfb_tiles_args *a = cl_arg;
    struct larfb_buffers b = unpack(buffers, a);
    int k = b.k, w = c_width(a->side, b.C[0]), r0 = SS_ROWS(b.V[0]);
    if (k == 0 || w == 0)
        return;
    cudaStream_t stream = ss_cuda_stream();
    cublasHandle_t h = ss_cublas_handle();
    cuDoubleComplex *V0 = (cuDoubleComplex *)STARPU_VECTOR_GET_PTR(b.scratch), *W = V0 + (size_t)r0 * k;
    STARPU_ASSERT_MSG(((size_t)r0 * k + (size_t)k * w) * sizeof *V0 <= SS_SCRATCH_BYTES(b.scratch),
                      "zlarfb_tiles: scratch too small");
    SS_CUBLAS_SCALAR const starsolve_complex64_t one = 1.0, zero = 0.0, mone = -1.0;
    ss_cuda_lacpy('L', sizeof one, r0, k, (const void *)STARPU_MATRIX_GET_PTR(b.V[0]), SS_LD(b.V[0]), V0, r0, stream);
    ss_cuda_laset('U', sizeof one, r0, k, &zero, &one, V0, r0, stream);
    int left = a->side == 'L', ldw = left ? k : w;
    for (int t = 0; t < a->ntiles; t++) {
        const cuDoubleComplex *V = t ? (const cuDoubleComplex *)STARPU_MATRIX_GET_PTR(b.V[t]) : V0;
        const cuDoubleComplex *C = (const cuDoubleComplex *)STARPU_MATRIX_GET_PTR(b.C[t]);
        int ldv = t ? SS_LD(b.V[t]) : r0, depth = c_depth(a->side, b.C[t]);
        if (left)
            SS_CUBLAS(cublasZgemm(h, CUBLAS_OP_C, CUBLAS_OP_N, k, w, depth, scalar(&one), V, ldv, C, SS_LD(b.C[t]),
                                  t ? scalar(&one) : scalar(&zero), W, ldw));
        else
            SS_CUBLAS(cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, w, k, depth, scalar(&one), C, SS_LD(b.C[t]), V, ldv,
                                  t ? scalar(&one) : scalar(&zero), W, ldw));
    }
    /* in place, as codelet_zunmqr.c does */
    SS_CUBLAS(cublasZtrmm(h, left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER,
                          a->trans == 'N' ? CUBLAS_OP_N : CUBLAS_OP_C, CUBLAS_DIAG_NON_UNIT, left ? k : w,
                          left ? w : k, scalar(&one), (const cuDoubleComplex *)STARPU_MATRIX_GET_PTR(b.T), SS_LD(b.T),
                          W, ldw, W, ldw));
    for (int t = 0; t < a->ntiles; t++) {
        const cuDoubleComplex *V = t ? (const cuDoubleComplex *)STARPU_MATRIX_GET_PTR(b.V[t]) : V0;
        cuDoubleComplex *C = (cuDoubleComplex *)STARPU_MATRIX_GET_PTR(b.C[t]);
        int ldv = t ? SS_LD(b.V[t]) : r0, depth = c_depth(a->side, b.C[t]);
        if (left)
            SS_CUBLAS(cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, depth, w, k, scalar(&mone), V, ldv, W, ldw,
                                  scalar(&one), C, SS_LD(b.C[t])));
        else
            SS_CUBLAS(cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_C, w, depth, k, scalar(&mone), W, ldw, V, ldv,
                                  scalar(&one), C, SS_LD(b.C[t])));
    }
}
#endif

size_t ss_zlarfb_tiles_scratch_bytes(int nb)
{
    return 2 * (size_t)nb * nb * sizeof(starsolve_complex64_t);   /* V_0 padded, and W */
}

static struct starpu_perfmodel model_zlarfb_tiles = {
    .type = STARPU_REGRESSION_BASED,   /* columns shorten along a factorization (ss_perfmodel_matrix_elements, internal.h) */
    .size_base = ss_perfmodel_matrix_elements,
    .symbol = "starsolve_zlarfb_tiles",
};

static struct starpu_codelet cl_zlarfb_tiles = {
    .where = SS_WHERE_CPU_CUDA,
    .can_execute = ss_can_execute,
    .cpu_funcs = { zlarfb_tiles_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zlarfb_tiles_cuda },
    .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &model_zlarfb_tiles,
    .name = "zlarfb_tiles",
    .callback_func = ss_trace_task_done,
};

void insert_zlarfb_tiles(char side, char trans, int ntiles, const starpu_data_handle_t *V, starpu_data_handle_t T,
                         const starpu_data_handle_t *C, starpu_data_handle_t scratch, int prio)
{
    struct zlarfb_tiles_args *a = malloc(sizeof *a);
    *a = (struct zlarfb_tiles_args){ side, trans, ntiles };
    int nbuffers = 2 * ntiles + 2;
    struct starpu_data_descr *descr = malloc((size_t)nbuffers * sizeof *descr);
    descr[0] = (struct starpu_data_descr){ T, STARPU_R };
    double k = ss_min((int)starpu_matrix_get_nx(V[0]), (int)starpu_matrix_get_ny(V[0])), depth = 0;
    double width = side == 'L' ? starpu_matrix_get_ny(C[0]) : starpu_matrix_get_nx(C[0]);
    for (int t = 0; t < ntiles; t++) {
        descr[1 + t] = (struct starpu_data_descr){ V[t], STARPU_R };
        descr[1 + ntiles + t] = (struct starpu_data_descr){ C[t], STARPU_RW };
        depth += starpu_matrix_get_nx(V[t]);
    }
    descr[1 + 2 * ntiles] = (struct starpu_data_descr){ scratch, STARPU_SCRATCH };
    int ret = ss_task_insert(&cl_zlarfb_tiles,
                                 STARPU_CL_ARGS, a, sizeof *a,
                                 STARPU_DATA_MODE_ARRAY, descr, nbuffers,
                                 STARPU_PRIORITY, ss_priority(SS_BUCKET_UPDATE, prio),
                                 STARPU_NAME, "zlarfb_tiles",
                                 /* two GEMMs over the column and the TRMM */
                                 STARPU_FLOPS, SS_FLOP_SCALE * (4.0 * depth * width * k + width * k * k),
                                 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zlarfb_tiles");
    free(descr);
}
