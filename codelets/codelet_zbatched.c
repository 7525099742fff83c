/* Batched factorizations and solves: one task factors (or solves with) a chunk
 * of `count` consecutive matrices of a strided batch. The chunk's matrices,
 * pivots, tau and infos are each one StarPU vector (the bytes from the first
 * matrix to the end of the last), so StarPU moves a chunk in one transfer.
 * CPU: a loop of LAPACKE calls on one core, the next small matrix prefetched meanwhile; on CPU
 * workers alone one task a worker instead, claiming runs of the batch (run_zbatch_claims).
 * CUDA, factorizations: our kernels
 * (zbatched_cuda.c, codelets/cuda/batched.cu) on every shape whose panel fits
 * in a thread block's shared memory (m up to about 1024), or with
 * starsolve_set_batch_vendor(1) the vendor's batched routines (cuBLAS
 * getrfBatched, geqrfBatched; cuSOLVER potrfBatched) where they apply: square
 * getrf, m >= n geqrf. Solves: the vendor's (cuBLAS getrsBatched, cuSOLVER
 * potrsBatched: square getrs, one right-hand side in potrs). Chunks no GPU
 * variant takes run on CPUs. */
#include <complex.h>
#include <stdlib.h>
#include <string.h>
#include "codelets.h"

/* item k of an array whose item 0 is at base (a chunk's StarPU vector, or a claim's first item) */
static starsolve_complex64_t *matrix(void *base, long stride, int k) { return (starsolve_complex64_t *)base + (size_t)k * (size_t)stride; }
static int *ints(void *base, long stride, int k) { return (int *)base + (size_t)k * (size_t)stride; }

/* ---- CPU variants: LAPACKE on `count` consecutive matrices, item 0 of each array at base[i] (the arrays
 * in the codelet's order: codelets_z.h.in, insert_zbatch); one core. On a chunk's buffers (zbatch_chunk_cpu)
 * or on the claims of a batch shared by the CPU workers (zbatch_claims_cpu). */

/* Matrices up to this size have the next one prefetched (into every cache level) before their
 * factorization: small factorizations start on a cold matrix each time, and the hardware
 * prefetcher has too few lines of one column to learn the stream. On 2 cores of an EPYC
 * (1 MiB L2 a core), 256 MiB of matrices (bench/batched.sh), potrf of order 64 went from
 * 26 to 32-33 GF/s and getrf of order 64 and 128 gained 2-6 %; from order 256 on, prefetching
 * the whole next matrix or its first 128 KiB gained nothing (bench/NOTES.md, session 32). */
#define PREFETCH_MAX_BYTES ((size_t)128 << 10)

/* Ask for the m x n matrix A (leading dimension lda) in cache, for writing, if it is small.
 * noipa: GCC 12 finds a function of prefetches alone free of side effects (pure-const) and
 * drops every call to it at -O2. */
__attribute__((noipa)) static void prefetch_matrix(const starsolve_complex64_t *A, int m, int n, int lda)
{
    size_t column_bytes = (size_t)m * sizeof *A;
    if (column_bytes * n > PREFETCH_MAX_BYTES)
        return;
    for (int j = 0; j < n; j++) {
        const char *column = (const char *)(A + (size_t)j * lda);
        for (size_t b = 0; b < column_bytes; b += 64)
            __builtin_prefetch(column + b, 1, 3);
    }
}

/* the range's matrix k + 1 in cache while matrix k is factored; after the last, `after` (the next claim's
 * first matrix; NULL: none) */
static void prefetch_next(const struct ss_batch_args *a, void *matrices, int k, int count, const void *after)
{
    if (k + 1 < count)
        prefetch_matrix(matrix(matrices, a->strideA, k + 1), a->m, a->n, a->lda);
    else if (after)
        prefetch_matrix(after, a->m, a->n, a->lda);
}

static void zgetrf_batch_range(const struct ss_batch_args *a, void *const base[], int count, const void *after)
{
    for (int k = 0; k < count; k++) {
        prefetch_next(a, base[0], k, count, after);
        *ints(base[2], 1, k) = LAPACKE_zgetrf_work(LAPACK_COL_MAJOR, a->m, a->n, matrix(base[0], a->strideA, k),
                                                   a->lda, ints(base[1], a->strideIpiv, k));
    }
}

static void zpotrf_batch_range(const struct ss_batch_args *a, void *const base[], int count, const void *after)
{
    for (int k = 0; k < count; k++) {
        prefetch_next(a, base[0], k, count, after);
        *ints(base[1], 1, k) = LAPACKE_zpotrf_work(LAPACK_COL_MAJOR, a->uplo, a->n, matrix(base[0], a->strideA, k),
                                                   a->lda);
    }
}

static void zgeqrf_batch_range(const struct ss_batch_args *a, void *const base[], int count, const void *after)
{
    starsolve_complex64_t query;
    LAPACKE_zgeqrf_work(LAPACK_COL_MAJOR, a->m, a->n, NULL, a->lda, NULL, &query, -1);
    int lwork = (int)creal(query) > 1 ? (int)creal(query) : 1;
    starsolve_complex64_t *work = malloc((size_t)lwork * sizeof *work);
    STARPU_ASSERT_MSG(work, "zgeqrf_batch: out of memory");
    for (int k = 0; k < count; k++) {
        prefetch_next(a, base[0], k, count, after);
        *ints(base[2], 1, k) = LAPACKE_zgeqrf_work(LAPACK_COL_MAJOR, a->m, a->n, matrix(base[0], a->strideA, k),
                                                   a->lda, matrix(base[1], a->strideTau, k), work, lwork);
    }
    free(work);
}

static void zgetrs_batch_range(const struct ss_batch_args *a, void *const base[], int count, const void *after)
{
    (void)after;   /* solves read each matrix once: nothing to prefetch for */
    for (int k = 0; k < count; k++)
        LAPACKE_zgetrs_work(LAPACK_COL_MAJOR, ss_lapack_trans(a->trans), a->n, a->nrhs, matrix(base[0], a->strideA, k),
                            a->lda, ints(base[1], a->strideIpiv, k), matrix(base[2], a->strideB, k), a->ldb);
}

static void zpotrs_batch_range(const struct ss_batch_args *a, void *const base[], int count, const void *after)
{
    (void)after;   /* solves read each matrix once: nothing to prefetch for */
    for (int k = 0; k < count; k++)
        LAPACKE_zpotrs_work(LAPACK_COL_MAJOR, a->uplo, a->n, a->nrhs, matrix(base[0], a->strideA, k), a->lda,
                            matrix(base[1], a->strideB, k), a->ldb);
}

/* least squares with geqrf's factors (m >= n): B(1:n) = R^-1 (Q^H B)(1:n) */
static void zgeqrs_batch_range(const struct ss_batch_args *a, void *const base[], int count, const void *after)
{
    (void)after;
    const starsolve_complex64_t one = 1.0;
    starsolve_complex64_t query;
    LAPACKE_zunmqr_work(LAPACK_COL_MAJOR, 'L', ss_lapack_trans('C'), a->m, a->nrhs, a->n, NULL, a->lda, NULL, NULL,
                        a->ldb, &query, -1);
    int lwork = (int)creal(query) > 1 ? (int)creal(query) : 1;
    starsolve_complex64_t *work = malloc((size_t)lwork * sizeof *work);
    STARPU_ASSERT_MSG(work, "zgeqrs_batch: out of memory");
    for (int k = 0; k < count; k++) {
        starsolve_complex64_t *A = matrix(base[0], a->strideA, k), *B = matrix(base[2], a->strideB, k);
        LAPACKE_zunmqr_work(LAPACK_COL_MAJOR, 'L', ss_lapack_trans('C'), a->m, a->nrhs, a->n, A, a->lda,
                            matrix(base[1], a->strideTau, k), B, a->ldb, work, lwork);
        cblas_ztrsm(CblasColMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, a->n, a->nrhs,
                    CBLAS_SADDR(one), A, a->lda, B, a->ldb);
    }
    free(work);
}

typedef void (*zbatch_range_fn)(const struct ss_batch_args *a, void *const base[], int count, const void *after);
static const zbatch_range_fn zbatch_range[] = {
    [SS_BATCH_GETRF] = zgetrf_batch_range, [SS_BATCH_POTRF] = zpotrf_batch_range, [SS_BATCH_GEQRF] = zgeqrf_batch_range,
    [SS_BATCH_GETRS] = zgetrs_batch_range, [SS_BATCH_POTRS] = zpotrs_batch_range, [SS_BATCH_GEQRS] = zgeqrs_batch_range,
};

/* a chunk task on a CPU: its buffers are the arrays' parts, one StarPU vector each */
static void zbatch_chunk_cpu(void *buffers[], void *cl_arg)
{
    const struct ss_batch_args *a = cl_arg;
    void *base[3] = { NULL, NULL, NULL };
    unsigned nbuffers = STARPU_TASK_GET_NBUFFERS(starpu_task_get_current());
    for (unsigned i = 0; i < nbuffers && i < 3; i++)
        base[i] = (void *)STARPU_VECTOR_GET_PTR(buffers[i]);
    zbatch_range[a->op](a, base, a->count, NULL);
}

/* ---- CPU workers alone: one task a worker shares the whole batch. Each claims `claim` consecutive
 * matrices at a time from a common counter until none is left, as an OpenMP loop's dynamic schedule does.
 * Chunks cut ahead, 4 tasks a worker, ran at 0.71-0.93x a dynamic OpenMP loop of the same LAPACKE calls on
 * the H100 machine's 16 cores, 1 GiB batches, where these claims ran at 0.98-1.07x; that loop with a static
 * schedule was as slow as the chunks: the VM's cores do not run at one speed, and only a late split
 * follows them. Finer chunks cost a StarPU task each (8192 of them: 0.27x). On 2 cores both ran at the
 * loop's speed (bench/NOTES.md, session 38). The arrays live in main memory and only these tasks touch
 * them during the call, so the tasks take plain pointers, not StarPU handles; each task runs on its own
 * worker, so the split never waits for a perfmodel's calibration. */
struct zbatch_claims {
    struct ss_batch_args a;
    void *base[3];            /* item 0 of each array, in insert_zbatch's order (NULL past the op's arrays) */
    size_t item_bytes[3];     /* bytes from one item of the array to the next */
    long batch, claim;
    long next;                /* the first unclaimed matrix (atomic) */
};

static void zbatch_claims_cpu(void *buffers[], void *cl_arg)
{
    (void)buffers;
    struct zbatch_claims *c = cl_arg;
    /* one claim ahead, so that the current claim's last matrix has the next one's first prefetched */
    long first = __atomic_fetch_add(&c->next, c->claim, __ATOMIC_RELAXED);
    while (first < c->batch) {
        long following = __atomic_fetch_add(&c->next, c->claim, __ATOMIC_RELAXED);
        void *base[3];
        for (int i = 0; i < 3; i++)
            base[i] = c->base[i] ? (char *)c->base[i] + (size_t)first * c->item_bytes[i] : NULL;
        const void *after = following < c->batch ? (char *)c->base[0] + (size_t)following * c->item_bytes[0] : NULL;
        zbatch_range[c->a.op](&c->a, base, (int)(first + c->claim <= c->batch ? c->claim : c->batch - first), after);
        first = following;
    }
}

static struct starpu_codelet cl_zbatch_claims = {
    .where = STARPU_CPU, .cpu_funcs = { zbatch_claims_cpu }, .nbuffers = 0, .name = "zbatch_claims",
    .callback_func = ss_trace_task_done,
};

/* one task of codelet cl (cl_arg arg, shared: on the caller's stack) on each CPU worker, on `most` of them at
 * most (none if most <= 0), pinned to it whatever the scheduler's models say; returns when all have run */
static void run_on_cpu_workers(struct starpu_codelet *cl, void *arg, long most)
{
    if (most <= 0)
        return;
    int ids[STARPU_NMAXWORKERS], n = starpu_worker_get_ids_by_type(STARPU_CPU_WORKER, ids, STARPU_NMAXWORKERS);
    if (n > most)
        n = (int)most;
    STARPU_ASSERT_MSG(n > 0, "%s: no CPU worker", cl->name);
    struct starpu_task *tasks[STARPU_NMAXWORKERS];
    for (int w = 0; w < n; w++) {
        struct starpu_task *t = tasks[w] = starpu_task_create();
        t->cl = cl;
        t->cl_arg = arg;
        t->detach = 0;
        t->execute_on_a_specific_worker = 1;
        t->workerid = (unsigned)ids[w];
        int ret = starpu_task_submit(t);
        STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_submit (%s)", cl->name);
    }
    for (int w = 0; w < n; w++) {
        int ret = starpu_task_wait(tasks[w]);
        STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_wait (%s)", cl->name);
    }
}

void run_zbatch_claims(const struct ss_batch_args *args, void *const base[], const size_t item_bytes[], int batch,
                       int claim)
{
    struct zbatch_claims c = { .a = *args, .batch = batch, .claim = claim > 0 ? claim : 1 };
    for (int i = 0; i < 3; i++) {
        c.base[i] = base[i];
        c.item_bytes[i] = base[i] ? item_bytes[i] : 0;
    }
    run_on_cpu_workers(&cl_zbatch_claims, &c, (c.batch + c.claim - 1) / c.claim);
}

/* ---- CUDA variants: the vendor's batched routines on the chunk */
#ifdef STARSOLVE_USE_CUDA
/* device array of the chunk's matrix addresses (in the first device scratch);
 * the stream is synchronized before the host array is reused */
static cuDoubleComplex **device_pointers(void *buf, long stride, int count, int slot)
{
    cudaStream_t stream = ss_cuda_stream();
    cuDoubleComplex **h = ss_cuda_hwork((size_t)count * sizeof *h), *base = (cuDoubleComplex *)STARPU_VECTOR_GET_PTR(buf);
    for (int k = 0; k < count; k++)
        h[k] = base + (size_t)k * (size_t)stride;
    cuDoubleComplex **d = (cuDoubleComplex **)((char *)ss_cuda_dwork((size_t)3 * count * sizeof *d + 256) + (size_t)slot * count * sizeof *d);
    SS_CUDA(cudaMemcpyAsync(d, h, (size_t)count * sizeof *h, cudaMemcpyHostToDevice, stream));
    SS_CUDA(cudaStreamSynchronize(stream));
    return d;
}

static void zgetrf_batch_vendor(void *buffers[], void *cl_arg)
{
    const struct ss_batch_args *a = cl_arg;
    cudaStream_t stream = ss_cuda_stream();
    cuDoubleComplex **dA = device_pointers(buffers[0], a->strideA, a->count, 0);
    /* cuBLAS wants n pivots per matrix, contiguous: a scratch, then copied with our stride */
    int *piv = ss_cuda_dwork2((size_t)a->count * a->n * sizeof *piv);
    SS_CUBLAS(cublasZgetrfBatched(ss_cublas_handle(), a->n, dA, a->lda, piv,
                                  (int *)STARPU_VECTOR_GET_PTR(buffers[2]), a->count));
    SS_CUDA(cudaMemcpy2DAsync((void *)STARPU_VECTOR_GET_PTR(buffers[1]), (size_t)a->strideIpiv * sizeof(int), piv,
                              (size_t)a->n * sizeof(int), (size_t)a->n * sizeof(int), a->count,
                              cudaMemcpyDeviceToDevice, stream));
    SS_CUDA(cudaStreamSynchronize(stream));
}

static void zpotrf_batch_vendor(void *buffers[], void *cl_arg)
{
    const struct ss_batch_args *a = cl_arg;
    cuDoubleComplex **dA = device_pointers(buffers[0], a->strideA, a->count, 0);
    SS_CUSOLVER(cusolverDnZpotrfBatched(ss_cusolver_handle(), ss_cublas_uplo(a->uplo), a->n, dA, a->lda,
                                        (int *)STARPU_VECTOR_GET_PTR(buffers[1]), a->count));
    SS_CUDA(cudaStreamSynchronize(ss_cuda_stream()));
}

static void zgeqrf_batch_vendor(void *buffers[], void *cl_arg)
{
    const struct ss_batch_args *a = cl_arg;
    cudaStream_t stream = ss_cuda_stream();
    cuDoubleComplex **dA = device_pointers(buffers[0], a->strideA, a->count, 0);
    cuDoubleComplex **dT = device_pointers(buffers[1], a->strideTau, a->count, 1);
    int info = 0;   /* cuBLAS reports only bad arguments here; a QR has no numerical failure */
    SS_CUBLAS(cublasZgeqrfBatched(ss_cublas_handle(), a->m, a->n, dA, a->lda, dT, &info, a->count));
    STARPU_ASSERT_MSG(info == 0, "cublasZgeqrfBatched: argument %d", -info);
    SS_CUDA(cudaMemsetAsync((void *)STARPU_VECTOR_GET_PTR(buffers[2]), 0, (size_t)a->count * sizeof(int), stream));
    SS_CUDA(cudaStreamSynchronize(stream));
}

/* Ours: the whole chunk in one call of the blocked algorithm, asynchronous on the
 * worker's stream (the codelets are STARPU_CUDA_ASYNC); the workspace is the
 * worker's device scratch (growing it waits for the stream's earlier work). */
static void zgetrf_batch_cuda(void *buffers[], void *cl_arg)
{
    const struct ss_batch_args *a = cl_arg;
    if (a->vendor) {
        zgetrf_batch_vendor(buffers, cl_arg);
        return;
    }
    void *work = ss_cuda_dwork(ss_zbatch_cuda_work_bytes(SS_BATCH_GETRF, a->m, a->n, a->count, 0) + 256);
    ss_zbatch_getrf_cuda(ss_cublas_handle(), ss_cuda_stream(), a->m, a->n, (cuDoubleComplex *)STARPU_VECTOR_GET_PTR(buffers[0]),
                         a->lda, a->strideA, (int *)STARPU_VECTOR_GET_PTR(buffers[1]), a->strideIpiv,
                         (int *)STARPU_VECTOR_GET_PTR(buffers[2]), a->count, 0, work);
}

static void zpotrf_batch_cuda(void *buffers[], void *cl_arg)
{
    const struct ss_batch_args *a = cl_arg;
    if (a->vendor) {
        zpotrf_batch_vendor(buffers, cl_arg);
        return;
    }
    void *work = ss_cuda_dwork(ss_zbatch_cuda_work_bytes(SS_BATCH_POTRF, a->n, a->n, a->count, 0) + 256);
    ss_zbatch_potrf_cuda(ss_cublas_handle(), ss_cuda_stream(), a->uplo, a->n, (cuDoubleComplex *)STARPU_VECTOR_GET_PTR(buffers[0]),
                         a->lda, a->strideA, (int *)STARPU_VECTOR_GET_PTR(buffers[1]), a->count, 0, work);
}

static void zgeqrf_batch_cuda(void *buffers[], void *cl_arg)
{
    const struct ss_batch_args *a = cl_arg;
    if (a->vendor) {
        zgeqrf_batch_vendor(buffers, cl_arg);
        return;
    }
    void *work = ss_cuda_dwork(ss_zbatch_cuda_work_bytes(SS_BATCH_GEQRF, a->m, a->n, a->count, 0) + 256);
    ss_zbatch_geqrf_cuda(ss_cublas_handle(), ss_cuda_stream(), a->m, a->n, (cuDoubleComplex *)STARPU_VECTOR_GET_PTR(buffers[0]),
                         a->lda, a->strideA, (cuDoubleComplex *)STARPU_VECTOR_GET_PTR(buffers[1]), a->strideTau,
                         (int *)STARPU_VECTOR_GET_PTR(buffers[2]), a->count, 0, work);
}

static void zgetrs_batch_cuda(void *buffers[], void *cl_arg)
{
    const struct ss_batch_args *a = cl_arg;
    cudaStream_t stream = ss_cuda_stream();
    cuDoubleComplex **dA = device_pointers(buffers[0], a->strideA, a->count, 0);
    cuDoubleComplex **dB = device_pointers(buffers[2], a->strideB, a->count, 1);
    int *piv = ss_cuda_dwork2((size_t)a->count * a->n * sizeof *piv), info = 0;
    SS_CUDA(cudaMemcpy2DAsync(piv, (size_t)a->n * sizeof(int), (const void *)STARPU_VECTOR_GET_PTR(buffers[1]),
                              (size_t)a->strideIpiv * sizeof(int), (size_t)a->n * sizeof(int), a->count,
                              cudaMemcpyDeviceToDevice, stream));
    SS_CUBLAS(cublasZgetrsBatched(ss_cublas_handle(), ss_cublas_op(a->trans), a->n, a->nrhs,
                                  (const cuDoubleComplex *const *)dA, a->lda, piv, dB, a->ldb, &info, a->count));
    STARPU_ASSERT_MSG(info == 0, "cublasZgetrsBatched: argument %d", -info);
    SS_CUDA(cudaStreamSynchronize(stream));
}

static void zpotrs_batch_cuda(void *buffers[], void *cl_arg)
{
    const struct ss_batch_args *a = cl_arg;
    cudaStream_t stream = ss_cuda_stream();
    cuDoubleComplex **dA = device_pointers(buffers[0], a->strideA, a->count, 0);
    cuDoubleComplex **dB = device_pointers(buffers[1], a->strideB, a->count, 1);
    int *dinfo = ss_cuda_dwork2(sizeof *dinfo);
    SS_CUSOLVER(cusolverDnZpotrsBatched(ss_cusolver_handle(), ss_cublas_uplo(a->uplo), a->n, a->nrhs, dA, a->lda,
                                        dB, a->ldb, dinfo, a->count));
    SS_CUDA(cudaStreamSynchronize(stream));
}
#endif

/* Where the GPU variant does not apply (our kernels: the panel does not fit in
 * shared memory; the vendor's: the shapes above), only CPUs take the chunk. */
static int vendor_applies(unsigned workerid, struct starpu_task *task, unsigned nimpl)
{
    (void)nimpl;
    if (starpu_worker_get_type((int)workerid) != STARPU_CUDA_WORKER)
        return 1;
    const struct ss_batch_args *a = task->cl_arg;
#ifdef STARSOLVE_USE_CUDA
    if (!a->vendor && (a->op == SS_BATCH_GETRF || a->op == SS_BATCH_POTRF || a->op == SS_BATCH_GEQRF))
        return ss_zbatch_cuda_applies(a->op, a->m, a->n, 0);
#endif
    switch (a->op) {
    case SS_BATCH_GETRF: case SS_BATCH_GETRS: return a->m == a->n;
    case SS_BATCH_GEQRF: return a->m >= a->n;
    case SS_BATCH_POTRS: return a->nrhs == 1;
    case SS_BATCH_POTRF: return 1;
    default: return 0;
    }
}

static struct starpu_perfmodel model_zgetrf_batch = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_zgetrf_batch" };
static struct starpu_perfmodel model_zpotrf_batch = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_zpotrf_batch" };
static struct starpu_perfmodel model_zgeqrf_batch = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_zgeqrf_batch" };
static struct starpu_perfmodel model_zgetrs_batch = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_zgetrs_batch" };
static struct starpu_perfmodel model_zpotrs_batch = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_zpotrs_batch" };
static struct starpu_perfmodel model_zgeqrs_batch = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_zgeqrs_batch" };

/* ipiv and tau are RW although every value in them is written: a chunk's vector
 * spans the gaps between matrices' pivots or tau (stride > min(m, n)), and on a GPU
 * a W buffer would come back to the caller's gaps uninitialized. */
static struct starpu_codelet cl_zgetrf_batch = {
    .where = SS_WHERE_CPU_CUDA, .can_execute = vendor_applies,
    .cpu_funcs = { zbatch_chunk_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zgetrf_batch_cuda }, .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = 3, .modes = { STARPU_RW, STARPU_RW, STARPU_W }, .model = &model_zgetrf_batch, .name = "zgetrf_batch", .callback_func = ss_trace_task_done,
};
static struct starpu_codelet cl_zpotrf_batch = {
    .where = SS_WHERE_CPU_CUDA, .can_execute = vendor_applies,
    .cpu_funcs = { zbatch_chunk_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zpotrf_batch_cuda }, .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = 2, .modes = { STARPU_RW, STARPU_W }, .model = &model_zpotrf_batch, .name = "zpotrf_batch", .callback_func = ss_trace_task_done,
};
static struct starpu_codelet cl_zgeqrf_batch = {
    .where = SS_WHERE_CPU_CUDA, .can_execute = vendor_applies,
    .cpu_funcs = { zbatch_chunk_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zgeqrf_batch_cuda }, .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = 3, .modes = { STARPU_RW, STARPU_RW, STARPU_W }, .model = &model_zgeqrf_batch, .name = "zgeqrf_batch", .callback_func = ss_trace_task_done,
};
static struct starpu_codelet cl_zgetrs_batch = {
    .where = SS_WHERE_CPU_CUDA, .can_execute = vendor_applies,
    .cpu_funcs = { zbatch_chunk_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zgetrs_batch_cuda },
#endif
    .nbuffers = 3, .modes = { STARPU_R, STARPU_R, STARPU_RW }, .model = &model_zgetrs_batch, .name = "zgetrs_batch", .callback_func = ss_trace_task_done,
};
static struct starpu_codelet cl_zpotrs_batch = {
    .where = SS_WHERE_CPU_CUDA, .can_execute = vendor_applies,
    .cpu_funcs = { zbatch_chunk_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zpotrs_batch_cuda },
#endif
    .nbuffers = 2, .modes = { STARPU_R, STARPU_RW }, .model = &model_zpotrs_batch, .name = "zpotrs_batch", .callback_func = ss_trace_task_done,
};
static struct starpu_codelet cl_zgeqrs_batch = {   /* no CUDA variant yet */
    .where = STARPU_CPU,
    .cpu_funcs = { zbatch_chunk_cpu },
    .nbuffers = 3, .modes = { STARPU_R, STARPU_R, STARPU_RW }, .model = &model_zgeqrs_batch, .name = "zgeqrs_batch", .callback_func = ss_trace_task_done,
};

void insert_zbatch(const struct ss_batch_args *args, int count, const starpu_data_handle_t *h)
{
    static struct starpu_codelet *const codelet[] = {
        [SS_BATCH_GETRF] = &cl_zgetrf_batch, [SS_BATCH_POTRF] = &cl_zpotrf_batch, [SS_BATCH_GEQRF] = &cl_zgeqrf_batch,
        [SS_BATCH_GETRS] = &cl_zgetrs_batch, [SS_BATCH_POTRS] = &cl_zpotrs_batch, [SS_BATCH_GEQRS] = &cl_zgeqrs_batch,
    };
    struct ss_batch_args *a = malloc(sizeof *a);
    *a = *args;
    a->count = count;
    a->vendor = ss_ctx.batch_vendor;
    struct starpu_task *task = starpu_task_create();
    task->cl = codelet[a->op];
    task->cl_arg = a;
    task->cl_arg_size = sizeof *a;
    task->cl_arg_free = 1;
    for (unsigned i = 0; i < (unsigned)task->cl->nbuffers; i++)
        task->handles[i] = h[i];
    task->flops = SS_FLOP_SCALE * count * ss_batch_flops(a);
    int ret = starpu_task_submit(task);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_submit (batched)");
}

/* ---- variable sizes */

/* one matrix of a variable-size batch on a CPU: its LAPACK info; aux its pivots (getrf) or tau (geqrf) */
static int zvbatch_one(int op, char uplo, int m, int n, starsolve_complex64_t *A, int lda, void *aux)
{
    if (op == SS_BATCH_GETRF)
        return LAPACKE_zgetrf_work(LAPACK_COL_MAJOR, m, n, A, lda, (int *)aux);
    if (op == SS_BATCH_POTRF)
        return LAPACKE_zpotrf_work(LAPACK_COL_MAJOR, uplo, n, A, lda);
    return LAPACKE_zgeqrf(LAPACK_COL_MAJOR, m, n, A, lda, (starsolve_complex64_t *)aux);
}

/* Variable sizes on CPU workers alone: as run_zbatch_claims, one task a CPU worker claiming runs of the
 * list of matrices. Chunk tasks there need a StarPU handle per matrix, registered and unregistered by the
 * calling thread: 100000 matrices of orders 4-16 took 1.36 s on 2 cores against 0.07 s for an OpenMP loop
 * of the same LAPACKE calls, 4000 of orders 32-128 0.69-0.78x the loop (bench/NOTES.md, session 38). */
struct zvbatch_claims {
    int op;
    char uplo;
    const int *idx;                    /* the matrices to factor (non-empty), in order */
    const int *m, *n, *lda;
    starsolve_complex64_t *const *A;
    void *const *aux;                  /* per matrix its pivots or tau; NULL for potrf */
    int *info;
    long count, claim;
    long next;                         /* the first unclaimed entry of idx (atomic) */
};

static void zvbatch_claims_cpu(void *buffers[], void *cl_arg)
{
    (void)buffers;
    struct zvbatch_claims *c = cl_arg;
    for (;;) {
        long first = __atomic_fetch_add(&c->next, c->claim, __ATOMIC_RELAXED);
        if (first >= c->count)
            return;
        long last = first + c->claim < c->count ? first + c->claim : c->count;
        for (long p = first; p < last; p++) {
            int b = c->idx[p];
            if (p + 1 < last)
                prefetch_matrix(c->A[c->idx[p + 1]], c->m[c->idx[p + 1]], c->n[c->idx[p + 1]], c->lda[c->idx[p + 1]]);
            c->info[b] = zvbatch_one(c->op, c->uplo, c->m[b], c->n[b], c->A[b], c->lda[b], c->aux ? c->aux[b] : NULL);
        }
    }
}

static struct starpu_codelet cl_zvbatch_claims = {
    .where = STARPU_CPU, .cpu_funcs = { zvbatch_claims_cpu }, .nbuffers = 0, .name = "zvbatch_claims",
    .callback_func = ss_trace_task_done,
};

void run_zvbatch_claims(int op, char uplo, const int *idx, int count, const int *m, const int *n,
                        starsolve_complex64_t *const *A, const int *lda, void *const *aux, int *info, int claim)
{
    struct zvbatch_claims c = { .op = op, .uplo = uplo, .idx = idx, .m = m, .n = n, .lda = lda, .A = A, .aux = aux,
                                .info = info, .count = count, .claim = claim > 0 ? claim : 1 };
    run_on_cpu_workers(&cl_zvbatch_claims, &c, (c.count + c.claim - 1) / c.claim);
}

/* Variable sizes with GPUs: packed chunks (struct ss_zvbatch_chunk). A handle per matrix, as this was until
 * session 39, made StarPU move each matrix alone and the GPU factor each with its own launches: with one H100
 * and 14 CPU workers, 100000 matrices of orders 1-16 took 2.1 s where the CPU workers alone took 0.15 s, 20000
 * of orders 32-128 1.5 s against 0.13 s (bench/NOTES.md, session 39). Packed, a chunk is one transfer each way
 * and one call of the fixed-size kernels per run of equal shapes. Three tasks a chunk: pack (a CPU copies the
 * chunk's matrices in), factor (a CPU or a GPU, on the packed copy), unpack (a CPU copies the results out). */

/* the chunk's matrix k, its pivots or tau, in the packed buffers */
static starsolve_complex64_t *packed_matrix(const struct ss_zvbatch_chunk *c, void *P, int k)
{
    return (starsolve_complex64_t *)P + c->offA[k];
}
static void *packed_aux(const struct ss_zvbatch_chunk *c, void *X, int k)
{
    return (char *)X + c->offX[k] * c->aux_elemsize;
}

void ss_zvbatch_pack(const struct ss_zvbatch_chunk *c, void *P)
{
    for (int k = 0; k < c->count; k++) {
        int b = c->idx[k];
        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', c->m[b], c->n[b], c->A[b], c->lda[b], packed_matrix(c, P, k), c->m[b]);
    }
}

void ss_zvbatch_unpack(const struct ss_zvbatch_chunk *c, void *P, const void *X, const int *info)
{
    for (int k = 0; k < c->count; k++) {
        int b = c->idx[k];
        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', c->m[b], c->n[b], packed_matrix(c, P, k), c->m[b], c->A[b], c->lda[b]);
        if (c->aux)
            memcpy(c->aux[b], packed_aux(c, (void *)X, k), (size_t)ss_min(c->m[b], c->n[b]) * c->aux_elemsize);
        c->info[b] = info[k];
    }
}

/* buffers: 0 P (W) */
static void zvbatch_pack_cpu(void *buffers[], void *cl_arg)
{
    ss_zvbatch_pack(cl_arg, (void *)STARPU_VECTOR_GET_PTR(buffers[0]));
}

/* buffers: 0 P, 1 infos, 2 X (pivots or tau; not for potrf), all R */
static void zvbatch_unpack_cpu(void *buffers[], void *cl_arg)
{
    const struct ss_zvbatch_chunk *c = cl_arg;
    ss_zvbatch_unpack(c, (void *)STARPU_VECTOR_GET_PTR(buffers[0]), c->aux ? (const void *)STARPU_VECTOR_GET_PTR(buffers[2]) : NULL,
                   (const int *)STARPU_VECTOR_GET_PTR(buffers[1]));
}

/* buffers: 0 P (RW), 1 infos (W), 2 X (RW; not for potrf) */
static void zvbatch_factor_cpu(void *buffers[], void *cl_arg)
{
    const struct ss_zvbatch_chunk *c = cl_arg;
    void *P = (void *)STARPU_VECTOR_GET_PTR(buffers[0]), *X = c->aux ? (void *)STARPU_VECTOR_GET_PTR(buffers[2]) : NULL;
    int *info = (int *)STARPU_VECTOR_GET_PTR(buffers[1]);
    for (int k = 0; k < c->count; k++) {
        int b = c->idx[k], m = c->m[b], n = c->n[b];
        if (k + 1 < c->count)
            prefetch_matrix(packed_matrix(c, P, k + 1), c->m[c->idx[k + 1]], c->n[c->idx[k + 1]], c->m[c->idx[k + 1]]);
        info[k] = zvbatch_one(c->op, c->uplo, m, n, packed_matrix(c, P, k), m, X ? packed_aux(c, X, k) : NULL);
    }
}

#ifdef STARSOLVE_USE_CUDA
/* the chunk's runs of equal shapes (vbatched_run sorts the batch by shape), each one call of the fixed-size
 * kernels on the packed, strided run */
static void zvbatch_factor_cuda(void *buffers[], void *cl_arg)
{
    const struct ss_zvbatch_chunk *c = cl_arg;
    cuDoubleComplex *P = (cuDoubleComplex *)STARPU_VECTOR_GET_PTR(buffers[0]);
    char *X = c->aux ? (char *)STARPU_VECTOR_GET_PTR(buffers[2]) : NULL;
    int *info = (int *)STARPU_VECTOR_GET_PTR(buffers[1]);
    size_t bytes = 0;   /* the largest run's workspace, taken once (growing it waits for the stream) */
    for (int k = 0, e; k < c->count; k = e) {
        int m = c->m[c->idx[k]], n = c->n[c->idx[k]];
        for (e = k + 1; e < c->count && c->m[c->idx[e]] == m && c->n[c->idx[e]] == n; e++) {}
        size_t w = ss_zbatch_cuda_work_bytes(c->op, m, n, e - k, 0);
        bytes = w > bytes ? w : bytes;
    }
    void *work = ss_cuda_dwork(bytes + 256);
    cublasHandle_t h = ss_cublas_handle();
    cudaStream_t s = ss_cuda_stream();
    for (int k = 0, e; k < c->count; k = e) {
        int m = c->m[c->idx[k]], n = c->n[c->idx[k]], mn = ss_min(m, n);
        for (e = k + 1; e < c->count && c->m[c->idx[e]] == m && c->n[c->idx[e]] == n; e++) {}
        cuDoubleComplex *A = P + c->offA[k];
        long long sA = (long long)m * n;
        if (c->op == SS_BATCH_GETRF)
            ss_zbatch_getrf_cuda(h, s, m, n, A, m, sA, (int *)(X + c->offX[k] * c->aux_elemsize), mn, info + k, e - k, 0, work);
        else if (c->op == SS_BATCH_POTRF)
            ss_zbatch_potrf_cuda(h, s, c->uplo, n, A, m, sA, info + k, e - k, 0, work);
        else
            ss_zbatch_geqrf_cuda(h, s, m, n, A, m, sA, (cuDoubleComplex *)(X + c->offX[k] * c->aux_elemsize), mn, info + k,
                                 e - k, 0, work);
    }
}
#endif

/* a GPU takes the chunk when every matrix's panel fits in a thread block's shared memory (gpu_ok) */
static int zvbatch_fits(unsigned workerid, struct starpu_task *task, unsigned nimpl)
{
    (void)nimpl;
    return starpu_worker_get_type((int)workerid) != STARPU_CUDA_WORKER || ((const struct ss_zvbatch_chunk *)task->cl_arg)->gpu_ok;
}

/* floor(log2(v)) for v >= 1 */
static int floor_log2(int v)
{
    int l = 0;
    while (v >>= 1)
        l++;
    return l;
}

/* Chunks hold different matrices, so StarPU's footprint (the buffers' sizes) would never repeat and the
 * model would stay uncalibrated. Chunks alike in the operation, the order of their largest matrix and
 * their length (each to a power of 2) share a history instead. */
static uint32_t zvbatch_footprint(struct starpu_task *task)
{
    const struct ss_zvbatch_chunk *c = task->cl_arg;
    int order = 1;
    for (int k = 0; k < c->count; k++)
        order = ss_max(order, ss_max(c->m[c->idx[k]], c->n[c->idx[k]]));
    uint32_t key[3] = { (uint32_t)c->op, (uint32_t)floor_log2(order), (uint32_t)floor_log2(c->count) };
    return starpu_hash_crc32c_be_n(key, sizeof key, 0);
}

static struct starpu_perfmodel model_zvbatch = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_zvbatch_packed",
                                                 .footprint = zvbatch_footprint };

static struct starpu_codelet cl_zvbatch_pack = {
    .where = STARPU_CPU, .cpu_funcs = { zvbatch_pack_cpu }, .nbuffers = 1, .modes = { STARPU_W },
    .name = "zvbatch_pack", .callback_func = ss_trace_task_done,
};
static struct starpu_codelet cl_zvbatch_factor = {
    .where = SS_WHERE_CPU_CUDA, .can_execute = zvbatch_fits,
    .cpu_funcs = { zvbatch_factor_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zvbatch_factor_cuda }, .cuda_flags = { STARPU_CUDA_ASYNC },
#endif
    .nbuffers = STARPU_VARIABLE_NBUFFERS,   /* 2 for potrf, 3 with pivots or tau */
    .model = &model_zvbatch, .name = "zvbatch", .callback_func = ss_trace_task_done,
};
static struct starpu_codelet cl_zvbatch_unpack = {
    .where = STARPU_CPU, .cpu_funcs = { zvbatch_unpack_cpu }, .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .name = "zvbatch_unpack", .callback_func = ss_trace_task_done,
};

void insert_zvbatch_chunk(const struct ss_zvbatch_chunk *c, starpu_data_handle_t P, starpu_data_handle_t X,
                          starpu_data_handle_t info, double flops, int with_pack)
{
    int nh = c->aux ? 3 : 2, ret;
    if (with_pack) {
        ret = ss_task_insert(&cl_zvbatch_pack, STARPU_CL_ARGS_NFREE, c, sizeof *c, STARPU_W, P, STARPU_NAME, "zvbatch_pack", 0);
        STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zvbatch_pack");
    }
    struct starpu_data_descr f[3] = { { P, STARPU_RW }, { info, STARPU_W }, { X, STARPU_RW } };
    ret = ss_task_insert(&cl_zvbatch_factor, STARPU_CL_ARGS_NFREE, c, sizeof *c, STARPU_DATA_MODE_ARRAY, f, nh,
                         STARPU_NAME, "zvbatch", STARPU_FLOPS, SS_FLOP_SCALE * flops, 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zvbatch");
    if (with_pack) {
        struct starpu_data_descr u[3] = { { P, STARPU_R }, { info, STARPU_R }, { X, STARPU_R } };
        ret = ss_task_insert(&cl_zvbatch_unpack, STARPU_CL_ARGS_NFREE, c, sizeof *c, STARPU_DATA_MODE_ARRAY, u, nh,
                             STARPU_NAME, "zvbatch_unpack", 0);
        STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert zvbatch_unpack");
    }
}
