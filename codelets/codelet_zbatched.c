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
#include <pthread.h>
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

/* one task of cl pinned to worker id, not yet waited for */
static struct starpu_task *submit_on_worker(struct starpu_codelet *cl, void *arg, int id)
{
    struct starpu_task *t = starpu_task_create();
    t->cl = cl;
    t->cl_arg = arg;
    t->detach = 0;
    t->execute_on_a_specific_worker = 1;
    t->workerid = (unsigned)id;
    int ret = starpu_task_submit(t);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_submit (%s)", cl->name);
    return t;
}

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
    for (int w = 0; w < n; w++)
        tasks[w] = submit_on_worker(cl, arg, ids[w]);
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

/* Variable-size solves: as run_zbatch_claims, one task a CPU worker claiming runs of the list of matrices
 * (the caller's arrays in place, no StarPU handle per matrix) */
struct zvbatch_claims {
    const struct ss_zvbatch_solve *solve;
    const int *idx;                    /* the matrices to solve with, in order */
    long count, claim;
    long next;                         /* the first unclaimed entry of idx (atomic) */
};

void ss_zvbatch_solve_one(const struct ss_zvbatch_solve *s, int b)
{
    const int n = s->n[b], nrhs = s->nrhs[b];
    if (s->op == SS_BATCH_GETRS) {
        LAPACKE_zgetrs_work(LAPACK_COL_MAJOR, ss_lapack_trans(s->trans), n, nrhs, s->A[b], s->lda[b],
                            (const int *)s->aux[b], s->B[b], s->ldb[b]);
    } else if (s->op == SS_BATCH_POTRS) {
        LAPACKE_zpotrs_work(LAPACK_COL_MAJOR, s->uplo, n, nrhs, s->A[b], s->lda[b], s->B[b], s->ldb[b]);
    } else {   /* least squares, m >= n: B(1:n) = R^-1 (Q^H B)(1:n); LAPACKE sizes the work per matrix */
        const starsolve_complex64_t one = 1.0;
        LAPACKE_zunmqr(LAPACK_COL_MAJOR, 'L', ss_lapack_trans('C'), s->m[b], nrhs, n, s->A[b], s->lda[b],
                       (const starsolve_complex64_t *)s->aux[b], s->B[b], s->ldb[b]);
        cblas_ztrsm(CblasColMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, n, nrhs, CBLAS_SADDR(one),
                    s->A[b], s->lda[b], s->B[b], s->ldb[b]);
    }
}

static void zvbatch_claims_cpu(void *buffers[], void *cl_arg)
{
    (void)buffers;
    struct zvbatch_claims *c = cl_arg;
    for (;;) {
        long first = __atomic_fetch_add(&c->next, c->claim, __ATOMIC_RELAXED);
        if (first >= c->count)
            return;
        long last = first + c->claim < c->count ? first + c->claim : c->count;
        for (long p = first; p < last; p++)   /* a solve reads its factors once: nothing to prefetch for */
            ss_zvbatch_solve_one(c->solve, c->idx[p]);
    }
}

static struct starpu_codelet cl_zvbatch_claims = {
    .where = STARPU_CPU, .cpu_funcs = { zvbatch_claims_cpu }, .nbuffers = 0, .name = "zvbatch_claims",
    .callback_func = ss_trace_task_done,
};

void run_zvbatch_solve_claims(const struct ss_zvbatch_solve *s, const int *idx, int count, int claim)
{
    struct zvbatch_claims c = { .solve = s, .idx = idx, .count = count, .claim = claim > 0 ? claim : 1 };
    run_on_cpu_workers(&cl_zvbatch_claims, &c, (c.count + c.claim - 1) / c.claim);
}

/* Variable-size factorizations: the list of matrices is shared from both ends. Each CPU worker claims runs from
 * the back and factors them in place (the caller's arrays, no StarPU handle per matrix: a handle per matrix
 * took 1.36 s on 2 cores for 100000 matrices of orders 4-16, against 0.07 s for an OpenMP loop of the same
 * LAPACKE calls, bench/NOTES.md, session 38). With GPUs the list is sorted by shape (src/zbatched.c) and each
 * CUDA worker takes chunks from the front (the smallest matrices, where a CPU spends its time in LAPACKE's call
 * overhead), copies each chunk into one pinned buffer, factors it on its GPU (one call of the fixed-size kernels
 * per run of equal shapes) and copies the results back. The two meet where their speeds put them, with no model
 * to calibrate, and the CPUs' part costs no copy. With a StarPU handle per matrix (until session 39) adding an
 * H100 to the 16-core machine made every shape 4-14x slower (bench/NOTES.md, session 39). */

/* Packed bytes a GPU chunk holds (its last matrix may pass the mark). Each chunk costs the fixed-size kernels'
 * calls once per shape it holds, each on the chunk's few matrices of that shape: with 4 MB chunks the GPU alone
 * took 0.72-0.75 s for 2000 matrices of order 330 and 1.07 s for orders 128-512; 16 MB took 14-18 % off those
 * and added 17 % at orders 32-128 (bench/NOTES.md, session 39). Two chunks' room stays pinned per CUDA worker
 * (ss_cuda_hwork), and as much GPU memory (ss_cuda_dwork2). */
#define FRONT_CHUNK_BYTES ((size_t)16 << 20)

struct zvbatch_split {
    int op;
    char uplo;
    const int *idx;                    /* the non-empty matrices, sorted by shape */
    const int *m, *n, *lda;
    starsolve_complex64_t *const *A;
    void *const *aux;                  /* per matrix its pivots or tau; NULL for potrf */
    size_t aux_elemsize;
    int *info;
    int claim;                         /* matrices a CPU claim from the back */
    size_t largest;                    /* the largest packed_bytes of one matrix of the batch */
    pthread_mutex_t lock;
    int lo, hi;                        /* idx[lo .. hi) not taken yet (under lock) */
};

/* Matrix b's order in a packed chunk. A square LU or Cholesky of order n > 16 is packed as [A 0; 0 I] of the next
 * multiple of 8 (n < 64), 16 (n < 256) or 32: its factors are A's factors and I, exactly (the padding's rows are
 * zero in A's columns, so no pivot comes from them and no update reaches them), its info is A's, its first n
 * pivots are A's. Few orders make long runs of one shape: the fixed-size kernels then get their batch (a chunk
 * of ~5 matrices of each of many orders left the GPU mostly idle, bench/NOTES.md, session 39), at the cost of
 * up to (1 + 8/17)^2 more bytes. Other shapes as they are. */
static void packed_dims(const struct zvbatch_split *s, int b, int *pm, int *pn)
{
    int m = s->m[b], n = s->n[b];
    *pm = m;
    *pn = n;
    if (m == n && n > 16 && (s->op == SS_BATCH_GETRF || s->op == SS_BATCH_POTRF)) {
        int step = n < 64 ? 8 : n < 256 ? 16 : 32;
        *pm = *pn = (n + step - 1) / step * step;
    }
}

/* what matrix b takes in a packed chunk (struct packed_layout): itself (padded), its pivots or tau, its info */
static size_t packed_bytes(const struct zvbatch_split *s, int b)
{
    int pm, pn;
    packed_dims(s, b, &pm, &pn);
    return (size_t)pm * pn * sizeof(starsolve_complex64_t) + (s->aux ? (size_t)ss_min(pm, pn) * s->aux_elemsize : 0) +
           sizeof(int);
}

/* the next chunk from the front: [*first, *first + count), up to FRONT_CHUNK_BYTES packed (the last matrix
 * may pass it), each matrix fitting our GPU kernels when gpu (ss_zbatch_cuda_applies); returns count, 0 when
 * none is left */
static int take_front(struct zvbatch_split *s, int gpu, int *first)
{
    pthread_mutex_lock(&s->lock);
    int k = s->lo;
    size_t bytes = 0;
    while (k < s->hi && bytes < FRONT_CHUNK_BYTES) {
        int b = s->idx[k];
#ifdef STARSOLVE_USE_CUDA
        int pm, pn;
        packed_dims(s, b, &pm, &pn);
        if (gpu && !ss_zbatch_cuda_applies(s->op, pm, pn, 0))
            break;
#else
        (void)gpu;
#endif
        bytes += packed_bytes(s, b);
        k++;
    }
    *first = s->lo;
    int count = k - s->lo;
    s->lo = k;
    pthread_mutex_unlock(&s->lock);
    return count;
}

/* the next claim from the back: [*first, *first + count); 0 when none is left */
static int take_back(struct zvbatch_split *s, int *first)
{
    pthread_mutex_lock(&s->lock);
    int count = ss_min(s->claim, s->hi - s->lo);
    s->hi -= count;
    *first = s->hi;
    pthread_mutex_unlock(&s->lock);
    return count;
}

/* the layout of a packed chunk of idx[first .. first + count): the matrices one after another in their packed
 * dims (packed_dims; leading dimension their packed rows), then their pivots or tau, then their infos; offsets
 * in bytes */
struct packed_layout { size_t aux, info, bytes; };

static struct packed_layout packed_layout(const struct zvbatch_split *s, int first, int count)
{
    size_t a = 0, x = 0;
    for (int k = first; k < first + count; k++) {
        int pm, pn;
        packed_dims(s, s->idx[k], &pm, &pn);
        a += (size_t)pm * pn;
        x += (size_t)ss_min(pm, pn);
    }
    struct packed_layout l;
    l.aux = a * sizeof(starsolve_complex64_t);
    l.info = (l.aux + (s->aux ? x * s->aux_elemsize : 0) + 15) / 16 * 16;   /* ints aligned */
    l.bytes = l.info + (size_t)count * sizeof(int);
    return l;
}

/* One matrix of a packed chunk (buf, laid out as l), met in the chunk's order: its packed dims, where it, its
 * pivots or tau and its info sit. packed_next gives the chunk's next one (c->k from first). */
struct packed_item {
    int k, b, pm, pn;                  /* entry k of idx, matrix b of the caller's arrays */
    starsolve_complex64_t *A;
    char *aux;
    int *info;
};
struct packed_cursor { int k; size_t a, x; };   /* the next entry; elements of matrices and items of aux before it */

static struct packed_item packed_next(const struct zvbatch_split *s, const struct packed_layout *l, char *buf,
                                      struct packed_cursor *c, int first)
{
    struct packed_item it = { .k = c->k, .b = s->idx[c->k] };
    packed_dims(s, it.b, &it.pm, &it.pn);
    it.A = (starsolve_complex64_t *)buf + c->a;
    it.aux = buf + l->aux + c->x * s->aux_elemsize;
    it.info = (int *)(buf + l->info) + (c->k - first);
    c->k++;
    c->a += (size_t)it.pm * it.pn;
    c->x += (size_t)ss_min(it.pm, it.pn);
    return it;
}

/* the chunk's matrices into buf, padded (packed_dims) with zeros and ones on the diagonal (pivots, tau and infos
 * are outputs only) */
static void pack_chunk(const struct zvbatch_split *s, int first, int count, const struct packed_layout *l, char *buf)
{
    struct packed_cursor c = { first, 0, 0 };
    while (c.k < first + count) {
        struct packed_item it = packed_next(s, l, buf, &c, first);
        const int m = s->m[it.b], n = s->n[it.b];
        if (it.pm != m || it.pn != n) {
            memset(it.A, 0, (size_t)it.pm * it.pn * sizeof *it.A);
            for (int d = ss_min(m, n); d < ss_min(it.pm, it.pn); d++)
                it.A[d + (size_t)d * it.pm] = 1;
        }
        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', m, n, s->A[it.b], s->lda[it.b], it.A, it.pm);
    }
}

static void unpack_chunk(const struct zvbatch_split *s, int first, int count, const struct packed_layout *l, char *buf)
{
    struct packed_cursor c = { first, 0, 0 };
    while (c.k < first + count) {
        struct packed_item it = packed_next(s, l, buf, &c, first);
        const int m = s->m[it.b], n = s->n[it.b];
        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', m, n, it.A, it.pm, s->A[it.b], s->lda[it.b]);
        if (s->aux)   /* a padded LU's first min(m, n) pivots are A's */
            memcpy(s->aux[it.b], it.aux, (size_t)ss_min(m, n) * s->aux_elemsize);
        s->info[it.b] = *it.info;
    }
}

/* matrix b factored in place, in the caller's arrays */
static void factor_in_place(const struct zvbatch_split *s, int b)
{
    s->info[b] = zvbatch_one(s->op, s->uplo, s->m[b], s->n[b], s->A[b], s->lda[b], s->aux ? s->aux[b] : NULL);
}

/* the packed chunk (buf, laid out as l) factored on this CPU, matrix by matrix in its packed dims */
static void factor_packed_cpu(const struct zvbatch_split *s, int first, int count, const struct packed_layout *l, char *buf)
{
    struct packed_cursor c = { first, 0, 0 };
    while (c.k < first + count) {
        struct packed_item it = packed_next(s, l, buf, &c, first);
        *it.info = zvbatch_one(s->op, s->uplo, it.pm, it.pn, it.A, it.pm, s->aux ? it.aux : NULL);
    }
}

/* CPU: claims from the back, factored in place */
static void zvbatch_back_cpu(void *buffers[], void *cl_arg)
{
    (void)buffers;
    struct zvbatch_split *s = cl_arg;
    int first, count;
    while ((count = take_back(s, &first)) > 0)
        for (int k = first + count - 1; k >= first; k--) {   /* downwards, the way the claims go */
            if (k > first)
                prefetch_matrix(s->A[s->idx[k - 1]], s->m[s->idx[k - 1]], s->n[s->idx[k - 1]], s->lda[s->idx[k - 1]]);
            factor_in_place(s, s->idx[k]);
        }
}

/* The front's work on a CPU worker (starsolve_set_batch_pack(1) on CPU workers alone: the GPUs' path, packing
 * included, where a test can reach it): chunks from the front, packed, factored there, unpacked */
static void zvbatch_front_cpu(void *buffers[], void *cl_arg)
{
    (void)buffers;
    struct zvbatch_split *s = cl_arg;
    int first, count;
    while ((count = take_front(s, 0, &first)) > 0) {
        struct packed_layout l = packed_layout(s, first, count);
        char *buf = malloc(l.bytes);
        STARPU_ASSERT_MSG(buf, "starsolve: vbatched: out of memory");
        pack_chunk(s, first, count, &l, buf);
        factor_packed_cpu(s, first, count, &l, buf);
        unpack_chunk(s, first, count, &l, buf);
        free(buf);
    }
}

#ifdef STARSOLVE_USE_CUDA
/* the end of the run of equal packed shapes (*m x *n) that starts at entry k, before end */
static int run_end(const struct zvbatch_split *s, int k, int end, int *m, int *n)
{
    packed_dims(s, s->idx[k], m, n);
    int e = k + 1;
    for (int pm, pn; e < end; e++) {
        packed_dims(s, s->idx[e], &pm, &pn);
        if (pm != *m || pn != *n)
            break;
    }
    return e;
}

/* the packed chunk in GPU memory (dev, laid out as l), factored: one call of the fixed-size kernels per run of
 * equal packed shapes */
static void factor_packed_cuda(const struct zvbatch_split *s, int first, int count, const struct packed_layout *l, char *dev)
{
    size_t bytes = 0;   /* the largest run's workspace, taken once (growing it waits for the stream) */
    for (int k = first, e; k < first + count; k = e) {
        int m, n;
        e = run_end(s, k, first + count, &m, &n);
        size_t w = ss_zbatch_cuda_work_bytes(s->op, m, n, e - k, 0);
        bytes = w > bytes ? w : bytes;
    }
    void *work = ss_cuda_dwork(bytes + 256);
    cublasHandle_t h = ss_cublas_handle();
    cudaStream_t st = ss_cuda_stream();
    size_t a = 0, x = 0;
    int *info = (int *)(dev + l->info);
    for (int k = first, e; k < first + count; k = e) {
        int m, n;
        e = run_end(s, k, first + count, &m, &n);
        const int mn = ss_min(m, n);
        cuDoubleComplex *A = (cuDoubleComplex *)dev + a;
        char *X = dev + l->aux + x * s->aux_elemsize;
        long long sA = (long long)m * n;
        if (s->op == SS_BATCH_GETRF)
            ss_zbatch_getrf_cuda(h, st, m, n, A, m, sA, (int *)X, mn, info + (k - first), e - k, 0, work);
        else if (s->op == SS_BATCH_POTRF)
            ss_zbatch_potrf_cuda(h, st, s->uplo, n, A, m, sA, info + (k - first), e - k, 0, work);
        else
            ss_zbatch_geqrf_cuda(h, st, m, n, A, m, sA, (cuDoubleComplex *)X, mn, info + (k - first), e - k, 0, work);
        a += (size_t)(e - k) * m * n;
        x += (size_t)(e - k) * mn;
    }
}

/* CUDA: chunks from the front, in two halves of the worker's pinned host and device scratch. Chunk i is packed
 * into half i % 2, sent, factored and sent back on the worker's stream; meanwhile this thread unpacks chunk
 * i - 1 (the other half) and then packs chunk i + 1 into it. */
static void zvbatch_front_cuda(void *buffers[], void *cl_arg)
{
    (void)buffers;
    struct zvbatch_split *s = cl_arg;
    cudaStream_t st = ss_cuda_stream();
    const size_t half = (FRONT_CHUNK_BYTES + s->largest + 16 + 255) / 256 * 256;   /* packed_layout's alignment */
    char *host = ss_cuda_hwork(2 * half), *dev = ss_cuda_dwork2(2 * half);
    cudaEvent_t done[2];
    for (int h = 0; h < 2; h++)
        SS_CUDA(cudaEventCreateWithFlags(&done[h], cudaEventDisableTiming));
    struct { struct packed_layout l; int first, count; } chunk[2];
    int i = 0;
    for (;; i++) {
        const int h = i % 2, p = 1 - h;
        chunk[h].count = take_front(s, 1, &chunk[h].first);
        if (chunk[h].count > 0) {
            chunk[h].l = packed_layout(s, chunk[h].first, chunk[h].count);
            pack_chunk(s, chunk[h].first, chunk[h].count, &chunk[h].l, host + h * half);
            SS_CUDA(cudaMemcpyAsync(dev + h * half, host + h * half, chunk[h].l.info, cudaMemcpyHostToDevice, st));
            factor_packed_cuda(s, chunk[h].first, chunk[h].count, &chunk[h].l, dev + h * half);
            SS_CUDA(cudaMemcpyAsync(host + h * half, dev + h * half, chunk[h].l.bytes, cudaMemcpyDeviceToHost, st));
            SS_CUDA(cudaEventRecord(done[h], st));
        }
        if (i > 0) {   /* the previous chunk, in the other half */
            SS_CUDA(cudaEventSynchronize(done[p]));
            unpack_chunk(s, chunk[p].first, chunk[p].count, &chunk[p].l, host + p * half);
        }
        if (chunk[h].count == 0)
            break;
    }
    for (int h = 0; h < 2; h++)
        SS_CUDA(cudaEventDestroy(done[h]));
}
#endif

static struct starpu_codelet cl_zvbatch_back = {
    .where = STARPU_CPU, .cpu_funcs = { zvbatch_back_cpu }, .nbuffers = 0, .name = "zvbatch_back",
    .callback_func = ss_trace_task_done,
};
static struct starpu_codelet cl_zvbatch_front = {
    .where = SS_WHERE_CPU_CUDA, .cpu_funcs = { zvbatch_front_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { zvbatch_front_cuda },   /* synchronous: it waits for its last chunk */
#endif
    .nbuffers = 0, .name = "zvbatch_front", .callback_func = ss_trace_task_done,
};

void run_zvbatch_split(int op, char uplo, const int *idx, int count, const int *m, const int *n,
                       starsolve_complex64_t *const *A, const int *lda, void *const *aux, size_t aux_elemsize, int *info,
                       int claim, int cpu_front)
{
    struct zvbatch_split s = { .op = op, .uplo = uplo, .idx = idx, .m = m, .n = n, .lda = lda, .A = A, .aux = aux,
                               .aux_elemsize = aux_elemsize, .info = info, .claim = claim > 0 ? claim : 1,
                               .lo = 0, .hi = count };
    pthread_mutex_init(&s.lock, NULL);
    int cpus[STARPU_NMAXWORKERS], gpus[STARPU_NMAXWORKERS];
    int ncpu = starpu_worker_get_ids_by_type(STARPU_CPU_WORKER, cpus, STARPU_NMAXWORKERS);
    int ngpu = starpu_worker_get_ids_by_type(STARPU_CUDA_WORKER, gpus, STARPU_NMAXWORKERS);
    for (int k = 0; ngpu > 0 && k < count; k++) {   /* the CUDA workers' staging room */
        size_t bytes = packed_bytes(&s, idx[k]);
        s.largest = bytes > s.largest ? bytes : s.largest;
    }
    struct starpu_task *tasks[STARPU_NMAXWORKERS];
    int nt = 0;
    for (int g = 0; g < ngpu; g++)
        tasks[nt++] = submit_on_worker(&cl_zvbatch_front, &s, gpus[g]);
    for (int c = 0; c < ncpu; c++)   /* cpu_front without GPUs (tests): the first CPU worker plays the front */
        tasks[nt++] = submit_on_worker(cpu_front && ngpu == 0 && c == 0 && ncpu > 1 ? &cl_zvbatch_front : &cl_zvbatch_back,
                                       &s, cpus[c]);
    for (int t = 0; t < nt; t++) {
        int ret = starpu_task_wait(tasks[t]);
        STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_wait (vbatched)");
    }
    /* what no worker could take (matrices too large for our GPU kernels, and no CPU worker): this thread */
    for (int k = s.lo; k < s.hi; k++)
        factor_in_place(&s, idx[k]);
    pthread_mutex_destroy(&s.lock);
}
