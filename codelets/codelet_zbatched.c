/* Batched factorizations and solves: one task factors (or solves with) a chunk
 * of `count` consecutive matrices of a strided batch. The chunk's matrices,
 * pivots, tau and infos are each one StarPU vector (the bytes from the first
 * matrix to the end of the last), so StarPU moves a chunk in one transfer.
 * CPU: a loop over the matrices on one core (ss_zgetrf_one ...: LAPACKE, real LU up to order 48 in plain C and
 * blocked above, tiny orders by LAPACK's unblocked steps: zbatch_one_cpu.c), the next small matrix prefetched
 * meanwhile; on CPU workers alone one task a worker instead, claiming runs of the batch (run_zbatch_claims).
 * CUDA, factorizations: our kernels
 * (zbatched_cuda.c, codelets/cuda/batched.cu) on every shape whose panel fits
 * in a thread block's shared memory (m up to about 1024), or with
 * starsolve_set_batch_vendor(1) the vendor's batched routines (cuBLAS
 * getrfBatched, geqrfBatched; cuSOLVER potrfBatched) where they apply: square
 * getrf, m >= n geqrf. Solves: the vendor's (cuBLAS getrsBatched, cuSOLVER
 * potrsBatched: square getrs, one right-hand side in potrs), used only when
 * there is no CPU worker (src/zbatched.c, solve_on_cpu_workers). Chunks no GPU
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

/* the range's matrix k + 1 in cache while matrix k is factored; after the last, `after` (the next claim's
 * first matrix; NULL: none). Not for Cholesky (ss_batch_prefetches) */
static void prefetch_next(const struct ss_batch_args *a, void *matrices, int k, int count, const void *after)
{
    if (!ss_batch_prefetches(a->op))
        return;
    if (k + 1 < count)
        ss_prefetch_matrix(matrix(matrices, a->strideA, k + 1), sizeof(starsolve_complex64_t), a->m, a->n, a->lda);
    else if (after)
        ss_prefetch_matrix(after, sizeof(starsolve_complex64_t), a->m, a->n, a->lda);
}

static void zgetrf_batch_range(const struct ss_batch_args *a, void *const base[], int count, const void *after)
{
    for (int k = 0; k < count; k++) {
        prefetch_next(a, base[0], k, count, after);
        *ints(base[2], 1, k) = ss_zgetrf_one(a->m, a->n, matrix(base[0], a->strideA, k), a->lda,
                                             ints(base[1], a->strideIpiv, k));
    }
}

static void zpotrf_batch_range(const struct ss_batch_args *a, void *const base[], int count, const void *after)
{
    const size_t lwork = ss_zpotrf_one_lwork(a->uplo, a->n);
    starsolve_complex64_t *work = lwork ? malloc(lwork * sizeof *work) : NULL;   /* none: neither copy nor tiles at n */
    for (int k = 0; k < count; k++) {
        prefetch_next(a, base[0], k, count, after);
        *ints(base[1], 1, k) = ss_zpotrf_one(a->uplo, a->n, matrix(base[0], a->strideA, k), a->lda, work);
    }
    free(work);
}

static void zgeqrf_batch_range(const struct ss_batch_args *a, void *const base[], int count, const void *after)
{
    starsolve_complex64_t *work = malloc(ss_zgeqrf_one_lwork(a->n) * sizeof *work);
    STARPU_ASSERT_MSG(work, "zgeqrf_batch: out of memory");
    for (int k = 0; k < count; k++) {
        prefetch_next(a, base[0], k, count, after);
        *ints(base[2], 1, k) = ss_zgeqrf_one(a->m, a->n, matrix(base[0], a->strideA, k), a->lda,
                                             matrix(base[1], a->strideTau, k), work);
    }
    free(work);
}

static void zgetrs_batch_range(const struct ss_batch_args *a, void *const base[], int count, const void *after)
{
    (void)after;   /* solves read each matrix once: nothing to prefetch for */
    for (int k = 0; k < count; k++)
        ss_zgetrs_one(a->trans, a->n, a->nrhs, matrix(base[0], a->strideA, k), a->lda, ints(base[1], a->strideIpiv, k),
                      matrix(base[2], a->strideB, k), a->ldb);
}

static void zpotrs_batch_range(const struct ss_batch_args *a, void *const base[], int count, const void *after)
{
    (void)after;   /* solves read each matrix once: nothing to prefetch for */
    for (int k = 0; k < count; k++)
        ss_zpotrs_one(a->uplo, a->n, a->nrhs, matrix(base[0], a->strideA, k), a->lda, matrix(base[1], a->strideB, k),
                      a->ldb);
}

/* least squares with geqrf's factors (m >= n): B(1:n) = R^-1 (Q^H B)(1:n) */
static void zgeqrs_batch_range(const struct ss_batch_args *a, void *const base[], int count, const void *after)
{
    (void)after;   /* solves read each matrix once: nothing to prefetch for */
    for (int k = 0; k < count; k++)
        ss_zgeqrs_one(a->m, a->n, a->nrhs, matrix(base[0], a->strideA, k), a->lda, matrix(base[1], a->strideTau, k),
                      matrix(base[2], a->strideB, k), a->ldb);
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

/* ---- CPU workers alone: one task a worker shares the whole batch. Each claims consecutive matrices from a
 * common counter until none is left, as an OpenMP loop's dynamic or guided schedule does.
 * Chunks cut ahead, 4 tasks a worker, ran at 0.71-0.93x a dynamic OpenMP loop of the same LAPACKE calls on
 * the H100 machine's 16 cores, 1 GiB batches, where these claims ran at 0.98-1.07x; that loop with a static
 * schedule was as slow as the chunks: the VM's cores do not run at one speed, and only a late split
 * follows them. Finer chunks cost a StarPU task each (8192 of them: 0.27x). On 2 cores both ran at the
 * loop's speed (bench/NOTES.md, session 38). The arrays live in main memory and only these tasks touch
 * them during the call, so the tasks take plain pointers, not StarPU handles; each task runs on its own
 * worker, so the split never waits for a perfmodel's calibration.
 * Claims are guided: the unclaimed matrices / (GUIDED_PARTS x workers), at least GUIDED_LEAST_FLOPS' worth.
 * Early claims are long runs of consecutive matrices, which the hardware prefetchers follow from one matrix into
 * the next; the last ones are short, so the workers finish together. Claims of a fixed share / 32 (until session
 * 60) left one worker running up to a claim alone at the end (potrf of order 128 on 2 cores, 2048 matrices: the
 * workers ended up to 1.8 ms apart in 47 ms calls); with guided claims, 1 GiB on 2 cores, alternated, ratio to the
 * OpenMP loop: getrf 256 / 512 1.00-1.01 / 1.01-1.02 against 0.98-1.00 / 0.98-1.01, potrf 128 1.01-1.02 against
 * 0.97-1.00 (bench/NOTES.md, session 60). */
#define GUIDED_PARTS 4
/* The shortest guided claim, in flops (tens of us of a core at these orders), so that the end of a batch of tiny
 * matrices is not a run of lone claims (claims of ~1e5 flops, one matrix of order 64, all the batch long, lost
 * 3-7 % at orders 64-128 on 2 cores: session 38). */
#define GUIDED_LEAST_FLOPS 5e5

struct zbatch_claims {
    struct ss_batch_args a;
    void *base[3];            /* item 0 of each array, in insert_zbatch's order (NULL past the op's arrays) */
    size_t item_bytes[3];     /* bytes from one item of the array to the next */
    long batch;
    long claim;               /* > 0: every claim this long (starsolve_set_batch_chunk); 0: guided */
    long least, workers;      /* the shortest claim; the workers sharing the batch */
    long next;                /* the first unclaimed matrix (atomic) */
};

/* the next claim, [*first, *first + return value); 0 when none is left */
static long next_claim(struct zbatch_claims *c, long *first)
{
    long at = __atomic_load_n(&c->next, __ATOMIC_RELAXED);
    for (;;) {
        long left = c->batch - at;
        if (left <= 0)
            return 0;
        long size = c->claim > 0 ? c->claim : left / (GUIDED_PARTS * c->workers);
        size = size < c->least ? c->least : size;
        size = size > left ? left : size;
        if (__atomic_compare_exchange_n(&c->next, &at, at + size, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
            *first = at;
            return size;
        }
    }
}

static void zbatch_claims_cpu(void *buffers[], void *cl_arg)
{
    (void)buffers;
    struct zbatch_claims *c = cl_arg;
    /* one claim ahead, so that the current claim's last matrix has the next one's first prefetched */
    long first = 0, following = 0;
    long count = next_claim(c, &first);
    while (count > 0) {
        long following_count = next_claim(c, &following);
        void *base[3];
        for (int i = 0; i < 3; i++)
            base[i] = c->base[i] ? (char *)c->base[i] + (size_t)first * c->item_bytes[i] : NULL;
        const void *after = following_count > 0 ? (char *)c->base[0] + (size_t)following * c->item_bytes[0] : NULL;
        zbatch_range[c->a.op](&c->a, base, (int)count, after);
        first = following;
        count = following_count;
    }
}

static struct starpu_codelet cl_zbatch_claims = {
    .where = STARPU_CPU, .cpu_funcs = { zbatch_claims_cpu }, .nbuffers = 0, .name = "zbatch_claims",
    .callback_func = ss_trace_task_done,
};

void run_zbatch_claims(const struct ss_batch_args *args, void *const base[], const size_t item_bytes[], int batch,
                       int claim)
{
    double flops = ss_batch_flops(args);
    long workers = starpu_cpu_worker_get_count() > 0 ? (long)starpu_cpu_worker_get_count() : 1;
    struct zbatch_claims c = { .a = *args, .batch = batch, .claim = claim > 0 ? claim : 0, .workers = workers,
                               .least = claim > 0 ? claim : (long)(GUIDED_LEAST_FLOPS / (flops > 1 ? flops : 1)) + 1 };
    for (int i = 0; i < 3; i++) {
        c.base[i] = base[i];
        c.item_bytes[i] = base[i] ? item_bytes[i] : 0;
    }
    /* no more tasks than claims of the shortest length */
    ss_run_on_cpu_workers(&cl_zbatch_claims, &c, (c.batch + c.least - 1) / c.least);
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

/* Whether the GPU variant applies to a's chunks (vendor: the vendor's routines asked for). Where it does not
 * (our kernels: the panel does not fit in shared memory; the vendor's: the shapes above), only CPUs take them. */
static int cuda_takes(const struct ss_batch_args *a, int vendor)
{
#ifdef STARSOLVE_USE_CUDA
    if (!vendor && (a->op == SS_BATCH_GETRF || a->op == SS_BATCH_POTRF || a->op == SS_BATCH_GEQRF))
        return ss_zbatch_cuda_applies(a->op, a->m, a->n, 0);
#else
    (void)vendor;
#endif
    switch (a->op) {
    case SS_BATCH_GETRF: case SS_BATCH_GETRS: return a->m == a->n;
    case SS_BATCH_GEQRF: return a->m >= a->n;
    case SS_BATCH_POTRS: return a->nrhs == 1;
    case SS_BATCH_POTRF: return 1;
    default: return 0;
    }
}

static int vendor_applies(unsigned workerid, struct starpu_task *task, unsigned nimpl)
{
    (void)nimpl;
    if (starpu_worker_get_type((int)workerid) != STARPU_CUDA_WORKER)
        return 1;
    const struct ss_batch_args *a = task->cl_arg;
    return cuda_takes(a, a->vendor);
}

int ss_zbatch_cuda_takes(const struct ss_batch_args *args)
{
    return starpu_cuda_worker_get_count() > 0 && cuda_takes(args, ss_ctx.batch_vendor);
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
