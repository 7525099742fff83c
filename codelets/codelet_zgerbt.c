/* Random butterfly transformation (RBT) on tiles: the "elementary
 * multiplications" of Baboulin, Khabou and Remy's randomized solver.
 *
 * A butterfly of order 2h is W = (1/sqrt 2) [R S; R -S], R and S diagonal with
 * random positive entries; a recursive butterfly of depth d applies such
 * butterflies at d levels, with blocks of order N, N/2, ... Its diagonals are
 * packed in one vector of N reals per level: u[i] = R(i) for the top half of
 * a block, u[i + h] = S(i) for the bottom half.
 *
 * two-sided (gerbt): the tiles at (i, j), (i, j+h), (i+h, j), (i+h, j+h) of one
 * block of A become those of W_u^T A W_v. With p = a11 + a21, q = a11 - a21,
 * r = a12 + a22, s = a12 - a22 (entrywise):
 *     a11 = (p + r) ur vr / 2     a12 = (p - r) ur vs / 2
 *     a21 = (q + s) us vr / 2     a22 = (q - s) us vs / 2
 * gerbt2: two consecutive levels on the 16 tiles they mix, in one pass (below).
 * one-sided (gerbt_rhs), on a pair of tiles of right-hand sides:
 *     W^T b = ( ur (b1 + b2), us (b1 - b2) ) / sqrt 2      (forward)
 *     W b   = ( ur b1 + us b2, ur b1 - us b2 ) / sqrt 2    (backward)
 * The entries are real in every precision, so W^T = W^H.
 * local (gerbt_local, gerbt_rhs_local): a deep level, whose blocks are smaller than a tile, on one
 * tile: the same formulas on each of the tile's blocks. Without them every butterfly half had to be
 * whole tiles, and a depth d left tiles of at most n / 2^d rows (depth 6 at n = 4096: 64).
 * CPU: plain loops, contiguous down the columns, vectorized (`omp simd`, AVX-512 / AVX2 clones);
 * CUDA: our kernels in codelets/cuda/rbt.cu. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include "codelets.h"

struct zgerbt_args { int row0, col0, h; };

/* One level's butterfly on the four tiles of a block (same shape and leading dimension);
 * ur, us, vr, vs: the level's entries from the tiles' first row and column on. The four
 * columns of a j never overlap (four tiles, or a tile's four quadrants), which `omp simd`
 * states: without it GCC 12 left the loop scalar at -O2 and -O3 (it cannot rule the
 * overlap out itself). */
SS_SIMD_CLONES_AVX512 static void gerbt_block_cpu(int m, int n, int lda, starsolve_complex64_t *A11,
                                                  starsolve_complex64_t *A12, starsolve_complex64_t *A21,
                                                  starsolve_complex64_t *A22, const double *ur, const double *us,
                                                  const double *vr, const double *vs)
{
    for (int j = 0; j < n; j++) {
        double cr = 0.5 * vr[j], cs = 0.5 * vs[j];
        starsolve_complex64_t *c11 = A11 + (size_t)j * lda, *c12 = A12 + (size_t)j * lda;
        starsolve_complex64_t *c21 = A21 + (size_t)j * lda, *c22 = A22 + (size_t)j * lda;
#pragma omp simd
        for (int i = 0; i < m; i++) {
            starsolve_complex64_t p = c11[i] + c21[i], q = c11[i] - c21[i];
            starsolve_complex64_t r = c12[i] + c22[i], s = c12[i] - c22[i];
            c11[i] = (p + r) * (ur[i] * cr);
            c12[i] = (p - r) * (ur[i] * cs);
            c21[i] = (q + s) * (us[i] * cr);
            c22[i] = (q - s) * (us[i] * cs);
        }
    }
}

static void zgerbt_cpu(void *buffers[], void *cl_arg)
{
    const struct zgerbt_args *a = cl_arg;
    int m = SS_ROWS(buffers[0]), n = SS_COLS(buffers[0]), lda = SS_LD(buffers[0]);
    const double *ur = (const double *)STARPU_VECTOR_GET_PTR(buffers[4]) + a->row0, *us = ur + a->h;
    const double *vr = (const double *)STARPU_VECTOR_GET_PTR(buffers[5]) + a->col0, *vs = vr + a->h;
    /* the four tiles of one block have the same shape and leading dimension (owned tiles) */
    STARPU_ASSERT(SS_LD(buffers[1]) == lda && SS_LD(buffers[2]) == lda && SS_LD(buffers[3]) == lda);
    gerbt_block_cpu(m, n, lda, (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[0]),
                    (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[1]),
                    (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[2]),
                    (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[3]), ur, us, vr, vs);
}

#ifdef STARSOLVE_USE_CUDA
static void zgerbt_cuda(void *buffers[], void *cl_arg)
{
    const struct zgerbt_args *a = cl_arg;
    ss_cuda_zgerbt(SS_ROWS(buffers[0]), SS_COLS(buffers[0]), (void *)STARPU_MATRIX_GET_PTR(buffers[0]),
                   (void *)STARPU_MATRIX_GET_PTR(buffers[1]), (void *)STARPU_MATRIX_GET_PTR(buffers[2]),
                   (void *)STARPU_MATRIX_GET_PTR(buffers[3]), SS_LD(buffers[0]),
                   (const void *)STARPU_VECTOR_GET_PTR(buffers[4]), (const void *)STARPU_VECTOR_GET_PTR(buffers[5]),
                   a->row0, a->col0, a->h, ss_cuda_stream());
}
#endif

static struct starpu_perfmodel model_zgerbt = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "starsolve_zgerbt",
};

static struct starpu_codelet cl_zgerbt = {
    .where = SS_WHERE_CPU_CUDA,
    .can_execute = ss_can_execute,
    .cpu_funcs = { zgerbt_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zgerbt_cuda },
    .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = 6,
    .modes = { STARPU_RW, STARPU_RW, STARPU_RW, STARPU_RW, STARPU_R, STARPU_R },
    .model = &model_zgerbt,
    .name = "zgerbt",
    .callback_func = ss_trace_task_done,
};

void insert_zgerbt(starpu_data_handle_t A11, starpu_data_handle_t A12, starpu_data_handle_t A21,
                   starpu_data_handle_t A22, starpu_data_handle_t u, starpu_data_handle_t v, int row0, int col0,
                   int h, int prio)
{
    struct zgerbt_args *a = malloc(sizeof *a);
    *a = (struct zgerbt_args){ row0, col0, h };
    double m = starpu_matrix_get_nx(A11), n = starpu_matrix_get_ny(A11);
    /* Distributed, the four tiles may live on up to four processes. The task runs with
     * A11 (STARPU_EXECUTE_ON_DATA, ignored by plain starpu_task_insert): left to choose,
     * StarPU-MPI 1.3 weighs each handle's owner and indexes its per-process sizes with
     * the butterflies' owner STARPU_MPI_PER_NODE (-2), writing before its array (heap
     * corruption, crashes at random later). */
    int ret = ss_task_insert(&cl_zgerbt,
                                 STARPU_EXECUTE_ON_DATA, A11,
                                 STARPU_CL_ARGS, a, sizeof *a,
                                 STARPU_RW, A11, STARPU_RW, A12, STARPU_RW, A21, STARPU_RW, A22,
                                 STARPU_R, u, STARPU_R, v,
                                 STARPU_PRIORITY, ss_priority(SS_BUCKET_OTHER, prio),
                                 STARPU_NAME, "zgerbt",
                                 STARPU_FLOPS, SS_FLOP_SCALE * 12.0 * m * n,
                                 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zgerbt");
}

/* ---- two consecutive levels l, l+1 at once (gerbt2): the 16 tiles A(4 a + b) at row offset
 * off(a) and column offset off(b) of a level-l block, off = 0, h/2, h, h + h/2 (h: level l's
 * half). Level l mixes offsets a and a + 2, level l+1 offsets a and a + 1 within each half.
 * On a GPU one pass reads and writes each tile once (codelets/cuda/rbt.cu), where two one-level
 * passes did so twice: the butterflies are memory-bound. */
struct zgerbt2_args { int row0, col0, h; };

/* buffers: [0 .. 16) the tiles, [16] u_l, [17] v_l, [18] u_l+1, [19] v_l+1 */
static void zgerbt2_cpu(void *buffers[], void *cl_arg)
{
    const struct zgerbt2_args *a = cl_arg;
    int m = SS_ROWS(buffers[0]), n = SS_COLS(buffers[0]), lda = SS_LD(buffers[0]);
    const int off[4] = { 0, a->h / 2, a->h, a->h + a->h / 2 };
    starsolve_complex64_t *t[16];
    for (int e = 0; e < 16; e++) {
        STARPU_ASSERT(SS_LD(buffers[e]) == lda);
        t[e] = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[e]);
    }
    const double *u[2] = { (const double *)STARPU_VECTOR_GET_PTR(buffers[16]) + a->row0,
                           (const double *)STARPU_VECTOR_GET_PTR(buffers[18]) + a->row0 };
    const double *v[2] = { (const double *)STARPU_VECTOR_GET_PTR(buffers[17]) + a->col0,
                           (const double *)STARPU_VECTOR_GET_PTR(buffers[19]) + a->col0 };
    for (int r = 0; r < 2; r++)   /* level l */
        for (int c = 0; c < 2; c++)
            gerbt_block_cpu(m, n, lda, t[4 * r + c], t[4 * r + c + 2], t[4 * (r + 2) + c], t[4 * (r + 2) + c + 2],
                            u[0] + off[r], u[0] + off[r + 2], v[0] + off[c], v[0] + off[c + 2]);
    for (int r = 0; r < 4; r += 2)   /* level l+1 */
        for (int c = 0; c < 4; c += 2)
            gerbt_block_cpu(m, n, lda, t[4 * r + c], t[4 * r + c + 1], t[4 * (r + 1) + c], t[4 * (r + 1) + c + 1],
                            u[1] + off[r], u[1] + off[r + 1], v[1] + off[c], v[1] + off[c + 1]);
}

#ifdef STARSOLVE_USE_CUDA
static void zgerbt2_cuda(void *buffers[], void *cl_arg)
{
    const struct zgerbt2_args *a = cl_arg;
    void *t[16];
    for (int e = 0; e < 16; e++)
        t[e] = (void *)STARPU_MATRIX_GET_PTR(buffers[e]);
    ss_cuda_zgerbt2(SS_ROWS(buffers[0]), SS_COLS(buffers[0]), t, SS_LD(buffers[0]),
                    (const void *)STARPU_VECTOR_GET_PTR(buffers[16]), (const void *)STARPU_VECTOR_GET_PTR(buffers[17]),
                    (const void *)STARPU_VECTOR_GET_PTR(buffers[18]), (const void *)STARPU_VECTOR_GET_PTR(buffers[19]),
                    a->row0, a->col0, a->h, ss_cuda_stream());
}
#endif

static struct starpu_perfmodel model_zgerbt2 = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "starsolve_zgerbt2",
};

static struct starpu_codelet cl_zgerbt2 = {
    .where = SS_WHERE_CPU_CUDA,
    .can_execute = ss_can_execute,
    .cpu_funcs = { zgerbt2_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zgerbt2_cuda },
    .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &model_zgerbt2,
    .name = "zgerbt2",
    .callback_func = ss_trace_task_done,
};

void insert_zgerbt2(const starpu_data_handle_t *tiles, starpu_data_handle_t u0, starpu_data_handle_t v0,
                    starpu_data_handle_t u1, starpu_data_handle_t v1, int row0, int col0, int h, int prio)
{
    struct zgerbt2_args *a = malloc(sizeof *a);
    *a = (struct zgerbt2_args){ row0, col0, h };
    struct starpu_data_descr descr[20];
    for (int e = 0; e < 16; e++)
        descr[e] = (struct starpu_data_descr){ tiles[e], STARPU_RW };
    descr[16] = (struct starpu_data_descr){ u0, STARPU_R };
    descr[17] = (struct starpu_data_descr){ v0, STARPU_R };
    descr[18] = (struct starpu_data_descr){ u1, STARPU_R };
    descr[19] = (struct starpu_data_descr){ v1, STARPU_R };
    double m = starpu_matrix_get_nx(tiles[0]), n = starpu_matrix_get_ny(tiles[0]);
    /* with the first tile, as zgerbt's tasks (the StarPU-MPI 1.3 defect there) */
    int ret = ss_task_insert(&cl_zgerbt2,
                             STARPU_EXECUTE_ON_DATA, tiles[0],
                             STARPU_CL_ARGS, a, sizeof *a,
                             STARPU_DATA_MODE_ARRAY, descr, 20,
                             STARPU_PRIORITY, ss_priority(SS_BUCKET_OTHER, prio),
                             STARPU_NAME, "zgerbt2",
                             STARPU_FLOPS, SS_FLOP_SCALE * 8 * 12.0 * m * n,
                             0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zgerbt2");
}

struct zgerbt_rhs_args { int row0, h, transposed; };

/* One level on the m x n right-hand sides b1 (rows r) and b2 (rows r + h): W^T b or W b
 * (b1 and b2 never overlap: `omp simd` as in gerbt_block_cpu) */
SS_SIMD_CLONES_AVX512 static void gerbt_rhs_pair_cpu(int m, int n, starsolve_complex64_t *B1, int ld1,
                                                     starsolve_complex64_t *B2, int ld2, const double *ur,
                                                     const double *us, int transposed)
{
    const double c = sqrt(0.5);
    for (int j = 0; j < n; j++) {
        starsolve_complex64_t *b1 = B1 + (size_t)j * ld1, *b2 = B2 + (size_t)j * ld2;
        if (transposed) {
#pragma omp simd
            for (int i = 0; i < m; i++) {
                starsolve_complex64_t x = b1[i], y = b2[i];
                b1[i] = (x + y) * (c * ur[i]);
                b2[i] = (x - y) * (c * us[i]);
            }
        } else {
#pragma omp simd
            for (int i = 0; i < m; i++) {
                starsolve_complex64_t x = b1[i], y = b2[i];
                b1[i] = (x * ur[i] + y * us[i]) * c;
                b2[i] = (x * ur[i] - y * us[i]) * c;
            }
        }
    }
}

static void zgerbt_rhs_cpu(void *buffers[], void *cl_arg)
{
    const struct zgerbt_rhs_args *a = cl_arg;
    const double *ur = (const double *)STARPU_VECTOR_GET_PTR(buffers[2]) + a->row0;
    gerbt_rhs_pair_cpu(SS_ROWS(buffers[0]), SS_COLS(buffers[0]), (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[0]),
                       SS_LD(buffers[0]), (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[1]), SS_LD(buffers[1]),
                       ur, ur + a->h, a->transposed);
}

#ifdef STARSOLVE_USE_CUDA
static void zgerbt_rhs_cuda(void *buffers[], void *cl_arg)
{
    const struct zgerbt_rhs_args *a = cl_arg;
    STARPU_ASSERT(SS_LD(buffers[0]) == SS_LD(buffers[1]));
    ss_cuda_zgerbt_rhs(SS_ROWS(buffers[0]), SS_COLS(buffers[0]), (void *)STARPU_MATRIX_GET_PTR(buffers[0]),
                       (void *)STARPU_MATRIX_GET_PTR(buffers[1]), SS_LD(buffers[0]),
                       (const void *)STARPU_VECTOR_GET_PTR(buffers[2]), a->row0, a->h, a->transposed,
                       ss_cuda_stream());
}
#endif

static struct starpu_perfmodel model_zgerbt_rhs = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "starsolve_zgerbt_rhs",
};

static struct starpu_codelet cl_zgerbt_rhs = {
    .where = SS_WHERE_CPU_CUDA,
    .can_execute = ss_can_execute,
    .cpu_funcs = { zgerbt_rhs_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zgerbt_rhs_cuda },
    .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = 3,
    .modes = { STARPU_RW, STARPU_RW, STARPU_R },
    .model = &model_zgerbt_rhs,
    .name = "zgerbt_rhs",
    .callback_func = ss_trace_task_done,
};

void insert_zgerbt_rhs(starpu_data_handle_t B1, starpu_data_handle_t B2, starpu_data_handle_t u, int row0, int h,
                       int transposed, int prio)
{
    struct zgerbt_rhs_args *a = malloc(sizeof *a);
    *a = (struct zgerbt_rhs_args){ row0, h, transposed };
    /* with B1, as zgerbt's tasks run with A11 (the same StarPU-MPI 1.3 defect otherwise) */
    int ret = ss_task_insert(&cl_zgerbt_rhs,
                                 STARPU_EXECUTE_ON_DATA, B1,
                                 STARPU_CL_ARGS, a, sizeof *a,
                                 STARPU_RW, B1, STARPU_RW, B2, STARPU_R, u,
                                 STARPU_PRIORITY, ss_priority(SS_BUCKET_OTHER, prio),
                                 STARPU_NAME, "zgerbt_rhs",
                                 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zgerbt_rhs");
}

/* ---- a level inside one tile (gerbt_local, gerbt_rhs_local): the tile's rows (and columns) hold whole
 * blocks of order 2h of the level; the tile starts at row0 (col0) of the level's packed diagonals */
struct zgerbt_local_args { int row0, col0, h; };

static void zgerbt_local_cpu(void *buffers[], void *cl_arg)
{
    const struct zgerbt_local_args *a = cl_arg;
    const int m = SS_ROWS(buffers[0]), n = SS_COLS(buffers[0]), lda = SS_LD(buffers[0]), h = a->h;
    starsolve_complex64_t *A = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[0]);
    const double *u = (const double *)STARPU_VECTOR_GET_PTR(buffers[1]) + a->row0;
    const double *v = (const double *)STARPU_VECTOR_GET_PTR(buffers[2]) + a->col0;
    STARPU_ASSERT(m % (2 * h) == 0 && n % (2 * h) == 0);
    for (int c = 0; c < n; c += 2 * h)
        for (int r = 0; r < m; r += 2 * h) {
            starsolve_complex64_t *A11 = A + r + (size_t)c * lda, *A12 = A11 + (size_t)h * lda;
            gerbt_block_cpu(h, h, lda, A11, A12, A11 + h, A12 + h, u + r, u + r + h, v + c, v + c + h);
        }
}

#ifdef STARSOLVE_USE_CUDA
static void zgerbt_local_cuda(void *buffers[], void *cl_arg)
{
    const struct zgerbt_local_args *a = cl_arg;
    ss_cuda_zgerbt_local(SS_ROWS(buffers[0]), SS_COLS(buffers[0]), (void *)STARPU_MATRIX_GET_PTR(buffers[0]),
                         SS_LD(buffers[0]), (const void *)STARPU_VECTOR_GET_PTR(buffers[1]),
                         (const void *)STARPU_VECTOR_GET_PTR(buffers[2]), a->row0, a->col0, a->h, ss_cuda_stream());
}
#endif

static struct starpu_perfmodel model_zgerbt_local = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "starsolve_zgerbt_local",
};

static struct starpu_codelet cl_zgerbt_local = {
    .where = SS_WHERE_CPU_CUDA,
    .can_execute = ss_can_execute,
    .cpu_funcs = { zgerbt_local_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zgerbt_local_cuda },
    .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = 3,
    .modes = { STARPU_RW, STARPU_R, STARPU_R },
    .model = &model_zgerbt_local,
    .name = "zgerbt_local",
    .callback_func = ss_trace_task_done,
};

void insert_zgerbt_local(starpu_data_handle_t A, starpu_data_handle_t u, starpu_data_handle_t v, int row0, int col0,
                         int h, int prio)
{
    struct zgerbt_local_args *a = malloc(sizeof *a);
    *a = (struct zgerbt_local_args){ row0, col0, h };
    double m = starpu_matrix_get_nx(A), n = starpu_matrix_get_ny(A);
    /* with the tile, as zgerbt's tasks (the StarPU-MPI 1.3 defect there) */
    int ret = ss_task_insert(&cl_zgerbt_local,
                             STARPU_EXECUTE_ON_DATA, A,
                             STARPU_CL_ARGS, a, sizeof *a,
                             STARPU_RW, A, STARPU_R, u, STARPU_R, v,
                             STARPU_PRIORITY, ss_priority(SS_BUCKET_OTHER, prio),
                             STARPU_NAME, "zgerbt_local",
                             STARPU_FLOPS, SS_FLOP_SCALE * 3.0 * m * n,
                             0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zgerbt_local");
}

struct zgerbt_rhs_local_args { int row0, h, transposed; };

static void zgerbt_rhs_local_cpu(void *buffers[], void *cl_arg)
{
    const struct zgerbt_rhs_local_args *a = cl_arg;
    const int m = SS_ROWS(buffers[0]), n = SS_COLS(buffers[0]), ldb = SS_LD(buffers[0]), h = a->h;
    starsolve_complex64_t *B = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[0]);
    const double *u = (const double *)STARPU_VECTOR_GET_PTR(buffers[1]) + a->row0;
    STARPU_ASSERT(m % (2 * h) == 0);
    for (int r = 0; r < m; r += 2 * h)
        gerbt_rhs_pair_cpu(h, n, B + r, ldb, B + r + h, ldb, u + r, u + r + h, a->transposed);
}

#ifdef STARSOLVE_USE_CUDA
static void zgerbt_rhs_local_cuda(void *buffers[], void *cl_arg)
{
    const struct zgerbt_rhs_local_args *a = cl_arg;
    ss_cuda_zgerbt_rhs_local(SS_ROWS(buffers[0]), SS_COLS(buffers[0]), (void *)STARPU_MATRIX_GET_PTR(buffers[0]),
                             SS_LD(buffers[0]), (const void *)STARPU_VECTOR_GET_PTR(buffers[1]), a->row0, a->h,
                             a->transposed, ss_cuda_stream());
}
#endif

static struct starpu_perfmodel model_zgerbt_rhs_local = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "starsolve_zgerbt_rhs_local",
};

static struct starpu_codelet cl_zgerbt_rhs_local = {
    .where = SS_WHERE_CPU_CUDA,
    .can_execute = ss_can_execute,
    .cpu_funcs = { zgerbt_rhs_local_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zgerbt_rhs_local_cuda },
    .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = 2,
    .modes = { STARPU_RW, STARPU_R },
    .model = &model_zgerbt_rhs_local,
    .name = "zgerbt_rhs_local",
    .callback_func = ss_trace_task_done,
};

void insert_zgerbt_rhs_local(starpu_data_handle_t B, starpu_data_handle_t u, int row0, int h, int transposed,
                             int prio)
{
    struct zgerbt_rhs_local_args *a = malloc(sizeof *a);
    *a = (struct zgerbt_rhs_local_args){ row0, h, transposed };
    int ret = ss_task_insert(&cl_zgerbt_rhs_local,
                             STARPU_EXECUTE_ON_DATA, B,
                             STARPU_CL_ARGS, a, sizeof *a,
                             STARPU_RW, B, STARPU_R, u,
                             STARPU_PRIORITY, ss_priority(SS_BUCKET_OTHER, prio),
                             STARPU_NAME, "zgerbt_rhs_local",
                             0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zgerbt_rhs_local");
}
