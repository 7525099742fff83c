/* A panel's TRSMs for whole tile columns (GPUs), as one task, in two forms.
 *
 * Through the inverse of the triangle (insert_ztrsm_column). On an H100,
 * cuBLAS's TRSM of a 2048 tile ran at a few TF/s beside the GEMMs of the other
 * stream (Cholesky at n = 40000: 190 TRSM tasks took 410 ms of stream time; the
 * same flops as GEMMs take about 30 ms, bench/NOTES.md). So the diagonal tile's
 * factorization also leaves the inverse of its triangle (ztriangular_inverse
 * below), and one task per panel multiplies every tile of the column (row) by
 * it: B = B op(X) (side 'R') or op(X) B (side 'L'), each a GEMM into a scratch
 * tile and a copy back, since GEMM is out of place. Inverting the diagonal
 * block is how MAGMA's and the batched solvers' TRSM run on GPUs; its error
 * grows with the triangle's condition number, which Cholesky's factor (the
 * square root of the tile's) and partial pivoting's L (entries at most 1 in
 * modulus) keep moderate. The LU panel's unit lower inverse comes from here too.
 *
 * With the triangle itself (insert_ztrsm_column_solve), TRSMs with no inverse.
 * LU without pivoting needs it: its triangles have no such bound (bench/NOTES.md, session 24: RBT's randomized
 * matrices at n = 40000 on an H100 left a residual 1e4 times larger through the
 * whole tiles' inverses, and five refinement steps instead of one; even the
 * inverses of 64-wide diagonal blocks left 100 times TRSM's residual). */
#include <complex.h>
#include <stdlib.h>
#include "codelets.h"

void cpu_ztriangular_inverse(char uplo, char diag, int k, const starsolve_complex64_t *T, int ldt,
                             starsolve_complex64_t *X, int ldx)
{
    LAPACKE_zlaset_work(LAPACK_COL_MAJOR, 'A', k, k, 0.0, 1.0, X, ldx);
    cpu_ztrsm('L', uplo, 'N', diag, k, k, 1.0, T, ldt, X, ldx);
}

#ifdef STARSOLVE_USE_CUDA
void cuda_ztriangular_inverse(char uplo, char diag, int k, const void *T, int ldt, void *X, int ldx)
{
    SS_CUBLAS_SCALAR const starsolve_complex64_t zero = 0.0, one = 1.0;
    ss_cuda_laset('A', sizeof(starsolve_complex64_t), k, k, &zero, &one, X, ldx, ss_cuda_stream());
    SS_CUBLAS(cublasZtrsm(ss_cublas_handle(), CUBLAS_SIDE_LEFT, ss_cublas_uplo(uplo), CUBLAS_OP_N,
                          diag == 'U' ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT, k, k, (const cuDoubleComplex *)&one,
                          (const cuDoubleComplex *)T, ldt, (cuDoubleComplex *)X, ldx));
}
#endif

struct ztrsm_column_args { char side, trans; int ntiles; };

/* buffers: [0] X, [1 .. ntiles] the tiles, [ntiles + 1] the scratch tile */
static void ztrsm_column_cpu(void *buffers[], void *cl_arg)
{
    const struct ztrsm_column_args *a = cl_arg;
    const starsolve_complex64_t one = 1.0, zero = 0.0;
    const starsolve_complex64_t *X = (const starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[0]);
    int ldx = SS_LD(buffers[0]);
    starsolve_complex64_t *T = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[a->ntiles + 1]);
    for (int t = 1; t <= a->ntiles; t++) {
        int m = SS_ROWS(buffers[t]), n = SS_COLS(buffers[t]), ldb = SS_LD(buffers[t]);
        starsolve_complex64_t *B = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[t]);
        STARPU_ASSERT_MSG((size_t)m * n * sizeof *T <= SS_SCRATCH_BYTES(buffers[a->ntiles + 1]),
                          "ztrsm_column: scratch too small");
        if (a->side == 'R')
            cblas_zgemm(CblasColMajor, CblasNoTrans, ss_cblas_trans(a->trans), m, n, n, CBLAS_SADDR(one), B, ldb,
                        X, ldx, CBLAS_SADDR(zero), T, m);
        else
            cblas_zgemm(CblasColMajor, ss_cblas_trans(a->trans), CblasNoTrans, m, n, m, CBLAS_SADDR(one), X, ldx,
                        B, ldb, CBLAS_SADDR(zero), T, m);
        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', m, n, T, m, B, ldb);
    }
}

#ifdef STARSOLVE_USE_CUDA
/* on the urgent stream: the panel's column is what the next step waits for */
static void ztrsm_column_cuda(void *buffers[], void *cl_arg)
{
    const struct ztrsm_column_args *a = cl_arg;
    ss_cuda_urgent_begin();
    SS_CUBLAS_SCALAR const starsolve_complex64_t one = 1.0, zero = 0.0;
    const cuDoubleComplex *X = (const cuDoubleComplex *)STARPU_MATRIX_GET_PTR(buffers[0]);
    int ldx = SS_LD(buffers[0]);
    cuDoubleComplex *T = (cuDoubleComplex *)STARPU_VECTOR_GET_PTR(buffers[a->ntiles + 1]);
    cublasHandle_t blas = ss_cublas_handle();
    cublasOperation_t op = ss_cublas_op(a->trans);
    for (int t = 1; t <= a->ntiles; t++) {
        int m = SS_ROWS(buffers[t]), n = SS_COLS(buffers[t]), ldb = SS_LD(buffers[t]);
        cuDoubleComplex *B = (cuDoubleComplex *)STARPU_MATRIX_GET_PTR(buffers[t]);
        size_t esz = sizeof(cuDoubleComplex);
        STARPU_ASSERT_MSG((size_t)m * n * esz <= SS_SCRATCH_BYTES(buffers[a->ntiles + 1]),
                          "ztrsm_column: scratch too small");
        if (a->side == 'R')
            SS_CUBLAS(cublasZgemm(blas, CUBLAS_OP_N, op, m, n, n, (const cuDoubleComplex *)&one, B, ldb, X, ldx,
                                  (const cuDoubleComplex *)&zero, T, m));
        else
            SS_CUBLAS(cublasZgemm(blas, op, CUBLAS_OP_N, m, n, m, (const cuDoubleComplex *)&one, X, ldx, B, ldb,
                                  (const cuDoubleComplex *)&zero, T, m));
        SS_CUDA(cudaMemcpy2DAsync(B, (size_t)ldb * esz, T, (size_t)m * esz, (size_t)m * esz, n,
                                  cudaMemcpyDeviceToDevice, ss_cuda_stream()));
    }
    ss_cuda_urgent_end();
}
#endif

size_t ss_ztrsm_column_scratch_bytes(int nb)
{
    return (size_t)nb * nb * sizeof(starsolve_complex64_t);
}

static struct starpu_perfmodel model_ztrsm_column = {
    .type = STARPU_REGRESSION_BASED,   /* sizes vary within a factorization (ss_perfmodel_matrix_elements, internal.h) */
    .size_base = ss_perfmodel_matrix_elements,
    .symbol = "starsolve_ztrsm_column",
};

static struct starpu_codelet cl_ztrsm_column = {
    .where = SS_WHERE_CPU_CUDA,
    .can_execute = ss_can_execute,
    .cpu_funcs = { ztrsm_column_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { ztrsm_column_cuda },
    .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &model_ztrsm_column,
    .name = "ztrsm_column",
    .callback_func = ss_trace_task_done,
};

/* One task of cl on X (read), the column's tiles (read-write) and, if not NULL, a scratch
 * buffer; flops_per: the products' flops per m n k of a tile (k: n for side 'R', else m).
 * Its tiles may belong to several processes (StarPU-MPI): it runs where the first lives. */
static void insert_column_task(struct starpu_codelet *cl, void *args, size_t args_size, char side, int ntiles,
                               const starpu_data_handle_t *tiles, starpu_data_handle_t X, starpu_data_handle_t scratch,
                               double flops_per, int prio)
{
    int nbuffers = ntiles + 1 + (scratch != NULL);
    struct starpu_data_descr *descr = malloc((size_t)nbuffers * sizeof *descr);
    descr[0] = (struct starpu_data_descr){ X, STARPU_R };
    double flops = 0;
    for (int t = 0; t < ntiles; t++) {
        descr[t + 1] = (struct starpu_data_descr){ tiles[t], STARPU_RW };
        double m = starpu_matrix_get_nx(tiles[t]), n = starpu_matrix_get_ny(tiles[t]);
        flops += flops_per * m * n * (side == 'R' ? n : m);
    }
    if (scratch)
        descr[ntiles + 1] = (struct starpu_data_descr){ scratch, STARPU_SCRATCH };
    int ret = ss_task_insert(cl,
                                 STARPU_CL_ARGS, args, args_size,
                                 STARPU_DATA_MODE_ARRAY, descr, nbuffers,
                                 STARPU_PRIORITY, ss_priority(SS_BUCKET_PANEL, prio),
                                 STARPU_EXECUTE_ON_DATA, tiles[0],
                                 STARPU_NAME, cl->name,
                                 STARPU_FLOPS, SS_FLOP_SCALE * flops,
                                 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert %s", cl->name);
    free(descr);
}

void insert_ztrsm_column(char side, char trans, int ntiles, const starpu_data_handle_t *tiles,
                         starpu_data_handle_t X, starpu_data_handle_t scratch, int prio)
{
    struct ztrsm_column_args *a = malloc(sizeof *a);
    *a = (struct ztrsm_column_args){ side, trans, ntiles };
    insert_column_task(&cl_ztrsm_column, a, sizeof *a, side, ntiles, tiles, X, scratch, 2.0, prio);
}

/* ---- with the triangle itself: tiles[t] = tiles[t] T^-1 (side 'R', T upper) or T^-1 tiles[t]
 * (side 'L', T lower), in place: a TRSM per tile, or on GPUs per stack of tiles (below).
 * LU without pivoting solves its columns L(i,k) with side 'R' and, on GPUs, its look-ahead's
 * row tile U(k,k+1) with side 'L' (src/pzgetrf_nopiv.c).
 * On GPUs the TRSM is ours (cuda_ztrsm_recursive): halves of the triangle with a GEMM between,
 * down to leaf kernels that solve every row (side 'R') or column (side 'L') of a narrow slice
 * at once. cuBLAS's TRSM recurses the same way but its leaves are slow: blocking by 256 columns
 * around it bought nothing (session 24), while our leaves took the stacked column solve from 34
 * to 43 TF/s at 5000 and LU-nopiv 40000 on an H100 from 0.961-0.966 to 0.913-0.919 s, RBT 40000
 * from 1.164-1.171 to 1.069-1.075 s (bench/NOTES.md, session 33). */

struct ztrsm_column_solve_args { char side, diag; int ntiles; };

/* buffers: [0] T, [1 .. ntiles] the tiles */
static void ztrsm_column_solve_cpu(void *buffers[], void *cl_arg)
{
    const struct ztrsm_column_solve_args *a = cl_arg;
    const starsolve_complex64_t one = 1.0;
    for (int t = 1; t <= a->ntiles; t++)
        cpu_ztrsm(a->side, a->side == 'R' ? 'U' : 'L', 'N', a->diag, SS_ROWS(buffers[t]), SS_COLS(buffers[t]), one,
                  (const starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[0]), SS_LD(buffers[0]),
                  (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[t]), SS_LD(buffers[t]));
}

#ifdef STARSOLVE_USE_CUDA
/* A TRSM runs much faster on one tall block than tile by tile (H100, side right, upper, cuBLAS:
 * 2500 x 2500 tiles one by one 9.6 TF/s, seven of them stacked into 17500 rows 21.7 TF/s;
 * 5000 x 5000 tiles 24.2 against 34.6 TF/s, bench/NOTES.md, session 31; ours 9.7 against
 * 29.2 and 24.9 against 42.9, session 33), and this task is on the LU's critical path. So side
 * 'R' copies the column's tiles one under the other into the worker's scratch, at most
 * TRSM_STACK_BYTES at a time, solves each stack with one call and copies it back (the copies
 * run at the memory's speed: ~0.04 ms for a 2500 x 2500 tile). */
#define TRSM_STACK_BYTES ((size_t)1 << 30)

void cuda_ztrsm_recursive(char side, char diag, int m, int n, const void *T, int ldt, void *B, int ldb)
{
    const int k = side == 'R' ? n : m, leaf = side == 'R' ? SS_TRSM_LEAF_R : SS_TRSM_LEAF_L;
    if (k <= leaf) {
        ss_cuda_ztrsm_leaf(side, diag, m, n, T, ldt, B, ldb, ss_cuda_stream());
        return;
    }
    /* halves of whole leaves: the first k1 rows and columns of the triangle, then the rest */
    int k1 = (k / 2 + leaf - 1) / leaf * leaf;
    if (k1 >= k)
        k1 = k - leaf;
    SS_CUBLAS_SCALAR const starsolve_complex64_t one = 1.0, mone = -1.0;
    const cuDoubleComplex *t = T;
    cuDoubleComplex *b = B;
    if (side == 'R') {   /* [X1 X2] [U11 U12; 0 U22] = [B1 B2] */
        cuda_ztrsm_recursive(side, diag, m, k1, t, ldt, b, ldb);
        SS_CUBLAS(cublasZgemm(ss_cublas_handle(), CUBLAS_OP_N, CUBLAS_OP_N, m, n - k1, k1, (const cuDoubleComplex *)&mone,
                              b, ldb, t + (size_t)k1 * ldt, ldt, (const cuDoubleComplex *)&one, b + (size_t)k1 * ldb, ldb));
        cuda_ztrsm_recursive(side, diag, m, n - k1, t + (size_t)k1 * ldt + k1, ldt, b + (size_t)k1 * ldb, ldb);
    } else {             /* [L11 0; L21 L22] [X1; X2] = [B1; B2] */
        cuda_ztrsm_recursive(side, diag, k1, n, t, ldt, b, ldb);
        SS_CUBLAS(cublasZgemm(ss_cublas_handle(), CUBLAS_OP_N, CUBLAS_OP_N, m - k1, n, k1, (const cuDoubleComplex *)&mone,
                              t + k1, ldt, b, ldb, (const cuDoubleComplex *)&one, b + k1, ldb));
        cuda_ztrsm_recursive(side, diag, m - k1, n, t + (size_t)k1 * ldt + k1, ldt, b + k1, ldb);
    }
}

/* on the urgent stream, as the inverse's form */
static void ztrsm_column_solve_cuda(void *buffers[], void *cl_arg)
{
    const struct ztrsm_column_solve_args *a = cl_arg;
    const void *T = (const void *)STARPU_MATRIX_GET_PTR(buffers[0]);
    int ldt = SS_LD(buffers[0]), ntiles = a->ntiles;
    ss_cuda_urgent_begin();
    for (int t0 = 1; t0 <= ntiles;) {
        /* the next stack: tiles t0 .. t1 - 1 (side 'L': one tile) */
        int n = SS_COLS(buffers[t0]), rows = SS_ROWS(buffers[t0]), t1 = t0 + 1;
        size_t row_bytes = (size_t)n * sizeof(starsolve_complex64_t);
        while (a->side == 'R' && t1 <= ntiles && (size_t)(rows + SS_ROWS(buffers[t1])) * row_bytes <= TRSM_STACK_BYTES)
            rows += SS_ROWS(buffers[t1++]);
        if (t1 - t0 == 1) {
            cuda_ztrsm_recursive(a->side, a->diag, rows, n, T, ldt, (void *)STARPU_MATRIX_GET_PTR(buffers[t0]),
                                 SS_LD(buffers[t0]));
        } else {
            void *block = ss_cuda_dwork((size_t)rows * row_bytes);
            cuda_zcopy_tile_column(t1 - t0, buffers + t0, n, block, rows, 0, ss_cuda_stream());
            cuda_ztrsm_recursive('R', a->diag, rows, n, T, ldt, block, rows);
            cuda_zcopy_tile_column(t1 - t0, buffers + t0, n, block, rows, 1, ss_cuda_stream());
        }
        t0 = t1;
    }
    ss_cuda_urgent_end();
}
#endif

static struct starpu_perfmodel model_ztrsm_column_solve = {
    .type = STARPU_REGRESSION_BASED,
    .size_base = ss_perfmodel_matrix_elements,
    .symbol = "starsolve_ztrsm_column_solve",
};

static struct starpu_codelet cl_ztrsm_column_solve = {
    .where = SS_WHERE_CPU_CUDA,
    .can_execute = ss_can_execute,
    .cpu_funcs = { ztrsm_column_solve_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { ztrsm_column_solve_cuda },
    .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &model_ztrsm_column_solve,
    .name = "ztrsm_column_solve",
    .callback_func = ss_trace_task_done,
};

void insert_ztrsm_column_solve(char side, char diag, int ntiles, const starpu_data_handle_t *tiles,
                               starpu_data_handle_t T, int prio)
{
    struct ztrsm_column_solve_args *a = malloc(sizeof *a);
    *a = (struct ztrsm_column_solve_args){ side, diag, ntiles };
    insert_column_task(&cl_ztrsm_column_solve, a, sizeof *a, side, ntiles, tiles, T, NULL, 1.0, prio);
}
