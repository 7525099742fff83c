/* SPIKE (banded solver) tasks on one partition of a band matrix:
 *  - spike_factor: LU with partial pivoting of the partition's diagonal block
 *    (LAPACK gbtrf on a copy of its band), then its right and left spikes
 *    V = A_i^-1 [0; B_i] and W = A_i^-1 [C_i; 0] (K columns each, K = max(kl, ku)),
 *    B_i and C_i the couplings to the next and the previous partition;
 *  - spike_solve: G = A_i^-1 F on the partition's rows of a block of vectors.
 * The caller's band (LAPACK's gbsv layout, A(i,j) at AB[kl + ku + i - j + j ldab])
 * is only read. CPU only for now. */
#include <complex.h>
#include <stdlib.h>
#include <string.h>
#include "codelets.h"

struct zspike_args {
    const starsolve_complex64_t *AB;   /* the whole band, caller's memory, read only */
    int n, kl, ku, ldab;               /* the whole matrix */
    int first, size, K;                /* the partition: rows first .. first+size-1 */
    int nrhs;                          /* spike_solve: vectors in the block */
    starsolve_request_t *req;
};

static starsolve_complex64_t band_entry(const struct zspike_args *a, int i, int j)
{
    if (i < 0 || j < 0 || i >= a->n || j >= a->n || i - j > a->kl || j - i > a->ku)
        return 0;
    return a->AB[a->kl + a->ku + i - j + (size_t)j * a->ldab];
}

/* buffers: 0 the factored band (ldf = 2 kl + ku + 1, size columns), 1 ipiv, 2 V (size x K), 3 W (size x K) */
static void zspike_factor_cpu(void *buffers[], void *cl_arg)
{
    const struct zspike_args *a = cl_arg;
    int s = a->size, kl = a->kl, ku = a->ku, ldf = 2 * kl + ku + 1, K = a->K;
    starsolve_complex64_t *F = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[0]);
    int *ipiv = (int *)STARPU_VECTOR_GET_PTR(buffers[1]);
    starsolve_complex64_t *V = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[2]);
    starsolve_complex64_t *W = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[3]);
    /* the diagonal block's band, with gbtrf's kl rows of room for fill-in on top */
    memset(F, 0, (size_t)ldf * s * sizeof *F);
    for (int j = 0; j < s; j++)
        for (int i = ss_max(0, j - ku); i <= ss_min(s - 1, j + kl); i++)
            F[kl + ku + i - j + (size_t)j * ldf] = band_entry(a, a->first + i, a->first + j);
    int info = LAPACKE_zgbtrf_work(LAPACK_COL_MAJOR, s, s, kl, ku, F, ldf, ipiv);
    if (info > 0)
        ss_request_report(a->req, a->first + info);
    /* right-hand sides of the spikes: the couplings, zero elsewhere */
    memset(V, 0, (size_t)s * K * sizeof *V);
    memset(W, 0, (size_t)s * K * sizeof *W);
    int next = a->first + s, prev = a->first - K;
    for (int c = 0; c < K; c++)
        for (int r = ss_max(0, s - K); r < s; r++)
            V[r + (size_t)c * s] = band_entry(a, a->first + r, next + c);
    for (int c = 0; c < K; c++)
        for (int r = 0; r < ss_min(K, s); r++)
            W[r + (size_t)c * s] = band_entry(a, a->first + r, prev + c);
    if (info == 0) {
        LAPACKE_zgbtrs_work(LAPACK_COL_MAJOR, 'N', s, kl, ku, K, F, ldf, ipiv, V, s);
        LAPACKE_zgbtrs_work(LAPACK_COL_MAJOR, 'N', s, kl, ku, K, F, ldf, ipiv, W, s);
    }
}

/* buffers: 0 factored band, 1 ipiv, 2 the block of vectors (the partition's rows, ld = n) */
static void zspike_solve_cpu(void *buffers[], void *cl_arg)
{
    const struct zspike_args *a = cl_arg;
    int ldf = 2 * a->kl + a->ku + 1;
    LAPACKE_zgbtrs_work(LAPACK_COL_MAJOR, 'N', a->size, a->kl, a->ku, a->nrhs,
                        (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[0]), ldf,
                        (int *)STARPU_VECTOR_GET_PTR(buffers[1]), (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[2]),
                        SS_LD(buffers[2]));
}

static struct starpu_perfmodel model_zspike_factor = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_zspike_factor" };
static struct starpu_perfmodel model_zspike_solve = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_zspike_solve" };

static struct starpu_codelet cl_zspike_factor = {
    .where = STARPU_CPU,
    .cpu_funcs = { zspike_factor_cpu },
    .nbuffers = 4,
    .modes = { STARPU_W, STARPU_W, STARPU_W, STARPU_W },
    .model = &model_zspike_factor,
    .name = "zspike_factor",
    .callback_func = ss_trace_task_done,
};

static struct starpu_codelet cl_zspike_solve = {
    .where = STARPU_CPU,
    .cpu_funcs = { zspike_solve_cpu },
    .nbuffers = 3,
    .modes = { STARPU_R, STARPU_R, STARPU_RW },
    .model = &model_zspike_solve,
    .name = "zspike_solve",
    .callback_func = ss_trace_task_done,
};

void insert_zspike_factor(const starsolve_complex64_t *AB, int n, int kl, int ku, int ldab, int first, int size, int K,
                          starpu_data_handle_t F, starpu_data_handle_t ipiv, starpu_data_handle_t V,
                          starpu_data_handle_t W, starsolve_request_t *req)
{
    struct zspike_args *a = malloc(sizeof *a);
    *a = (struct zspike_args){ AB, n, kl, ku, ldab, first, size, K, 0, req };
    int ret = ss_task_insert(&cl_zspike_factor, STARPU_CL_ARGS, a, sizeof *a, STARPU_W, F, STARPU_W, ipiv,
                                 STARPU_W, V, STARPU_W, W, STARPU_NAME, "zspike_factor",
                                 STARPU_FLOPS, SS_FLOP_SCALE * 2.0 * size * (kl + 1.0) * (kl + ku + 1.0 + 4.0 * K), 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zspike_factor");
}

void insert_zspike_solve(int kl, int ku, int size, int nrhs, starpu_data_handle_t F, starpu_data_handle_t ipiv,
                         starpu_data_handle_t X)
{
    struct zspike_args *a = malloc(sizeof *a);
    *a = (struct zspike_args){ .kl = kl, .ku = ku, .size = size, .nrhs = nrhs };
    int ret = ss_task_insert(&cl_zspike_solve, STARPU_CL_ARGS, a, sizeof *a, STARPU_R, F, STARPU_R, ipiv,
                                 STARPU_RW, X, STARPU_NAME, "zspike_solve",
                                 STARPU_FLOPS, SS_FLOP_SCALE * 2.0 * size * nrhs * (2.0 * kl + ku + 1.0), 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zspike_solve");
}
