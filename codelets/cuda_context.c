/* Per-CUDA-worker state: a cuSOLVER handle on the worker's stream, scratch
 * for the codelets that have no StarPU scratch buffer yet (QR, batched), and
 * a ring of pinned host slots through which asynchronous codelets hand small
 * results (info, pivots) to host code that runs in stream order. Plus one
 * cuSOLVER handle on the submitting side, to size StarPU scratch buffers.
 * StarPU 1.3 has no starpu_cusolver_init.
 * And an urgent stream per worker, of the device's highest priority, with its
 * own cuBLAS and cuSOLVER handles, for the critical path (ss_cuda_urgent_begin),
 * and a side stream for small results on their way to the host
 * (ss_cuda_side_stream).
 * And lanes (ss_cuda_lane_*): streams of their own, each with a cuBLAS handle
 * and device scratch, for a codelet that keeps independent pieces of work in
 * flight at once (the variable-size batches' front). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "codelets.h"

#ifdef STARSOLVE_USE_CUDA
struct cuda_worker_state {
    cusolverDnHandle_t cusolver;
    cusolverDnParams_t params;     /* default options of cuSOLVER's 64-bit (X) API */
    void *dwork[2];
    size_t dwork_bytes[2];
    void *hwork;
    size_t hwork_bytes;
    struct ss_staging staging[SS_STAGING_SLOTS];
    int next_staging;
    void **pointers;               /* device array of pointers for batched cuBLAS calls */
    int pointers_capacity;
    /* the urgent stream, its handles, and the events that hand work over between it and StarPU's stream */
    cudaStream_t urgent;
    cublasHandle_t urgent_blas;
    cusolverDnHandle_t urgent_solver;
    cudaEvent_t enter_urgent, leave_urgent;
    int in_urgent;
    cudaStream_t side;
    cudaEvent_t enter_side;
    struct cuda_lane { cudaStream_t stream; cublasHandle_t blas; void *dwork; size_t dwork_bytes; } lane[SS_CUDA_LANES];
};
static struct cuda_worker_state worker_state[STARPU_NMAXWORKERS];

void ss_cuda_fail(const char *what, int status, const char *file, int line)
{
    fprintf(stderr, "starsolve: %s failed with status %d at %s:%d\n", what, status, file, line);
    abort();
}

static void cusolver_init_worker(void *arg)
{
    (void)arg;
    struct cuda_worker_state *w = &worker_state[starpu_worker_get_id_check()];
    SS_CUSOLVER(cusolverDnCreate(&w->cusolver));
    SS_CUSOLVER(cusolverDnSetStream(w->cusolver, starpu_cuda_get_local_stream()));
    SS_CUSOLVER(cusolverDnCreateParams(&w->params));
    int least, greatest;   /* numerically lower is more urgent */
    SS_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    SS_CUDA(cudaStreamCreateWithPriority(&w->urgent, cudaStreamNonBlocking, greatest));
    SS_CUBLAS(cublasCreate(&w->urgent_blas));
    SS_CUBLAS(cublasSetStream(w->urgent_blas, w->urgent));
    SS_CUSOLVER(cusolverDnCreate(&w->urgent_solver));
    SS_CUSOLVER(cusolverDnSetStream(w->urgent_solver, w->urgent));
    SS_CUDA(cudaEventCreateWithFlags(&w->enter_urgent, cudaEventDisableTiming));
    SS_CUDA(cudaEventCreateWithFlags(&w->leave_urgent, cudaEventDisableTiming));
    SS_CUDA(cudaStreamCreateWithFlags(&w->side, cudaStreamNonBlocking));
    SS_CUDA(cudaEventCreateWithFlags(&w->enter_side, cudaEventDisableTiming));
}

static void cusolver_shutdown_worker(void *arg)
{
    (void)arg;
    struct cuda_worker_state *w = &worker_state[starpu_worker_get_id_check()];
    if (w->params)
        cusolverDnDestroyParams(w->params);
    if (w->cusolver)
        cusolverDnDestroy(w->cusolver);
    if (w->urgent_solver)
        cusolverDnDestroy(w->urgent_solver);
    if (w->urgent_blas)
        cublasDestroy(w->urgent_blas);
    if (w->enter_urgent)
        cudaEventDestroy(w->enter_urgent);
    if (w->leave_urgent)
        cudaEventDestroy(w->leave_urgent);
    if (w->urgent)
        cudaStreamDestroy(w->urgent);
    if (w->side) {
        cudaStreamSynchronize(w->side);
        cudaStreamDestroy(w->side);
    }
    if (w->enter_side)
        cudaEventDestroy(w->enter_side);
    for (int i = 0; i < SS_CUDA_LANES; i++) {
        struct cuda_lane *l = &w->lane[i];
        if (!l->stream)
            continue;
        cudaStreamSynchronize(l->stream);
        cublasDestroy(l->blas);
        cudaStreamDestroy(l->stream);
        if (l->dwork)
            cudaFree(l->dwork);
    }
    for (int slot = 0; slot < 2; slot++)
        if (w->dwork[slot])
            cudaFree(w->dwork[slot]);
    if (w->hwork)
        cudaFreeHost(w->hwork);
    if (w->pointers)
        cudaFree(w->pointers);
    for (int slot = 0; slot < SS_STAGING_SLOTS; slot++) {
        if (w->staging[slot].host)
            cudaFreeHost(w->staging[slot].host);
        if (w->staging[slot].device)
            cudaFree(w->staging[slot].device);
        if (w->staging[slot].done)
            cudaEventDestroy(w->staging[slot].done);
    }
    *w = (struct cuda_worker_state){ 0 };
}

/* The submitting side's handle: cuSOLVER's workspace sizes need a handle, and
 * StarPU scratch buffers are sized when a task is submitted. Its dummy matrix
 * only gives the size queries a valid pointer; they do not read it. */
static struct {
    pthread_mutex_t lock;
    cusolverDnHandle_t handle;
    void *dummy;
} query = { PTHREAD_MUTEX_INITIALIZER, NULL, NULL };

void ss_cusolver_init(void)
{
    starpu_execute_on_each_worker(cusolver_init_worker, NULL, STARPU_CUDA);
    int worker = starpu_worker_get_by_type(STARPU_CUDA_WORKER, 0);
    if (worker >= 0) {
        int current;
        SS_CUDA(cudaGetDevice(&current));
        SS_CUDA(cudaSetDevice(starpu_worker_get_devid(worker)));
        SS_CUSOLVER(cusolverDnCreate(&query.handle));
        SS_CUDA(cudaMalloc(&query.dummy, 256));
        SS_CUDA(cudaSetDevice(current));
    }
}

void ss_cusolver_shutdown(void)
{
    starpu_execute_on_each_worker(cusolver_shutdown_worker, NULL, STARPU_CUDA);
    if (query.handle) {
        cusolverDnDestroy(query.handle);
        cudaFree(query.dummy);
        query.handle = NULL;
        query.dummy = NULL;
    }
}

cusolverDnHandle_t ss_cusolver_query_begin(void **dummy)
{
    if (!query.handle)
        return NULL;
    pthread_mutex_lock(&query.lock);
    *dummy = query.dummy;
    return query.handle;
}

void ss_cusolver_query_end(void)
{
    pthread_mutex_unlock(&query.lock);
}

cusolverDnHandle_t ss_cusolver_handle(void)
{
    struct cuda_worker_state *w = &worker_state[starpu_worker_get_id_check()];
    return w->in_urgent ? w->urgent_solver : w->cusolver;
}

cudaStream_t ss_cuda_stream(void)
{
    struct cuda_worker_state *w = &worker_state[starpu_worker_get_id_check()];
    return w->in_urgent ? w->urgent : starpu_cuda_get_local_stream();
}

cublasHandle_t ss_cublas_handle(void)
{
    struct cuda_worker_state *w = &worker_state[starpu_worker_get_id_check()];
    return w->in_urgent ? w->urgent_blas : starpu_cublas_get_local_handle();
}

/* StarPU's stream -> urgent stream -> StarPU's stream: the urgent work starts
 * after what the worker queued before and the worker's later work (and
 * StarPU's end-of-task event) comes after it, so the task's order is kept; only
 * the SMs' block scheduler sees a higher priority. */
void ss_cuda_urgent_begin(void)
{
    struct cuda_worker_state *w = &worker_state[starpu_worker_get_id_check()];
    STARPU_ASSERT_MSG(!w->in_urgent, "ss_cuda_urgent_begin: already in an urgent section");
    SS_CUDA(cudaEventRecord(w->enter_urgent, starpu_cuda_get_local_stream()));
    SS_CUDA(cudaStreamWaitEvent(w->urgent, w->enter_urgent, 0));
    w->in_urgent = 1;
}

void ss_cuda_urgent_end(void)
{
    struct cuda_worker_state *w = &worker_state[starpu_worker_get_id_check()];
    STARPU_ASSERT_MSG(w->in_urgent, "ss_cuda_urgent_end: not in an urgent section");
    SS_CUDA(cudaEventRecord(w->leave_urgent, w->urgent));
    SS_CUDA(cudaStreamWaitEvent(starpu_cuda_get_local_stream(), w->leave_urgent, 0));
    w->in_urgent = 0;
}

cusolverDnParams_t ss_cusolver_params(void)
{
    return worker_state[starpu_worker_get_id_check()].params;
}

/* A scratch buffer *buf of *have bytes grown to at least `bytes` by alloc / release (cudaMalloc / cudaFree, or
 * cudaMallocHost / cudaFreeHost), once `stream` is idle (work queued on it may still use the old buffer). NULL,
 * with no buffer kept, where there is no room. */
static void *grow_scratch(void **buf, size_t *have, size_t bytes, cudaStream_t stream,
                          cudaError_t (*alloc)(void **, size_t), cudaError_t (*release)(void *))
{
    if (bytes > *have) {
        SS_CUDA(cudaStreamSynchronize(stream));
        if (*buf)
            SS_CUDA(release(*buf));
        *buf = NULL;
        *have = 0;
        cudaError_t e = alloc(buf, bytes);
        if (e == cudaErrorMemoryAllocation) {
            (void)cudaGetLastError();   /* not sticky: clear it for the next call's check */
            *buf = NULL;
            return NULL;
        }
        SS_CUDA(e);
        *have = bytes;
    }
    return *buf;
}

/* the calling worker's device scratch `slot` of at least `bytes`; NULL if the GPU has no room */
static void *grow_dwork(int slot, size_t bytes)
{
    struct cuda_worker_state *w = &worker_state[starpu_worker_get_id_check()];
    return grow_scratch(&w->dwork[slot], &w->dwork_bytes[slot], bytes, ss_cuda_stream(), cudaMalloc, cudaFree);
}

static void *must(void *p, const char *what)
{
    if (!p)
        ss_cuda_fail(what, cudaErrorMemoryAllocation, __FILE__, __LINE__);
    return p;
}

void *ss_cuda_dwork(size_t bytes) { return must(grow_dwork(0, bytes), "cudaMalloc (scratch)"); }
void *ss_cuda_dwork2(size_t bytes) { return must(grow_dwork(1, bytes), "cudaMalloc (scratch)"); }
void *ss_cuda_dwork2_try(size_t bytes) { return grow_dwork(1, bytes); }

/* lane l made (its stream and cuBLAS handle); 0 where the GPU had no room for them, the lane left unmade */
static int lane_make(struct cuda_lane *l)
{
    cudaError_t e = cudaStreamCreateWithFlags(&l->stream, cudaStreamNonBlocking);
    if (e == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        l->stream = NULL;
        return 0;
    }
    SS_CUDA(e);
    cublasStatus_t b = cublasCreate(&l->blas);
    if (b == CUBLAS_STATUS_ALLOC_FAILED || b == CUBLAS_STATUS_NOT_INITIALIZED) {   /* both mean no room here */
        SS_CUDA(cudaStreamDestroy(l->stream));
        l->stream = NULL;
        return 0;
    }
    SS_CUBLAS(b);
    SS_CUBLAS(cublasSetStream(l->blas, l->stream));
    return 1;
}

static struct cuda_lane *lane_slot(int i)
{
    STARPU_ASSERT_MSG(i >= 0 && i < SS_CUDA_LANES, "no CUDA lane %d", i);
    return &worker_state[starpu_worker_get_id_check()].lane[i];
}

int ss_cuda_lanes_try(int count)
{
    for (int i = 0; i < count; i++)
        if (!lane_slot(i)->stream && !lane_make(lane_slot(i)))
            return 0;
    return 1;
}

/* the calling worker's lane i, made on first use (most codelets never take one) */
static struct cuda_lane *lane_of(int i)
{
    struct cuda_lane *l = lane_slot(i);
    if (!l->stream && !lane_make(l))
        ss_cuda_fail("a CUDA lane (stream and cuBLAS handle)", cudaErrorMemoryAllocation, __FILE__, __LINE__);
    return l;
}

cudaStream_t ss_cuda_lane_stream(int lane) { return lane_of(lane)->stream; }
cublasHandle_t ss_cuda_lane_blas(int lane) { return lane_of(lane)->blas; }

size_t ss_cuda_free_bytes(void)
{
    size_t free_bytes, total;
    SS_CUDA(cudaMemGetInfo(&free_bytes, &total));
    return free_bytes;
}

void *ss_cuda_lane_dwork_try(int lane, size_t bytes, size_t keep_free)
{
    struct cuda_lane *l = lane_of(lane);
    if (bytes > l->dwork_bytes && ss_cuda_free_bytes() + l->dwork_bytes < bytes + keep_free)
        return NULL;   /* the old scratch kept: a smaller request may still use it */
    return grow_scratch(&l->dwork, &l->dwork_bytes, bytes, l->stream, cudaMalloc, cudaFree);
}

struct ss_staging *ss_cuda_staging(size_t bytes)
{
    struct cuda_worker_state *w = &worker_state[starpu_worker_get_id_check()];
    struct ss_staging *s = &w->staging[w->next_staging];
    w->next_staging = (w->next_staging + 1) % SS_STAGING_SLOTS;
    if (s->done)   /* the slot's last user, SS_STAGING_SLOTS calls ago, must be finished with it */
        SS_CUDA(cudaEventSynchronize(s->done));
    else
        SS_CUDA(cudaEventCreateWithFlags(&s->done, cudaEventDisableTiming));
    if (bytes > s->bytes) {
        if (s->host)
            SS_CUDA(cudaFreeHost(s->host));
        if (s->device)
            SS_CUDA(cudaFree(s->device));
        SS_CUDA(cudaMallocHost(&s->host, bytes));
        SS_CUDA(cudaMalloc(&s->device, bytes));
        s->bytes = bytes;
    }
    return s;
}

void ss_cuda_staging_release(struct ss_staging *s, cudaStream_t stream)
{
    SS_CUDA(cudaEventRecord(s->done, stream));
}

cudaStream_t ss_cuda_side_stream(cudaStream_t after)
{
    struct cuda_worker_state *w = &worker_state[starpu_worker_get_id_check()];
    SS_CUDA(cudaEventRecord(w->enter_side, after));
    SS_CUDA(cudaStreamWaitEvent(w->side, w->enter_side, 0));
    return w->side;
}

static void sync_side_stream(void *arg)
{
    (void)arg;
    struct cuda_worker_state *w = &worker_state[starpu_worker_get_id_check()];
    if (w->side)
        SS_CUDA(cudaStreamSynchronize(w->side));
}

void ss_cuda_side_sync(void)
{
    if (starpu_cuda_worker_get_count() > 0)
        starpu_execute_on_each_worker(sync_side_stream, NULL, STARPU_CUDA);
}

void ss_cuda_ints_to_host_async(struct ss_staging *s, int *host_dst, const int *dsrc, int count, cudaHostFn_t fn,
                                cudaStream_t after)
{
    /* first into the slot's GPU memory, in order on `after`: dsrc may be scratch
     * that the worker's next task rewrites before the side stream reads it */
    ss_cuda_copy_ints(s->device, dsrc, count, after);
    cudaStream_t side = ss_cuda_side_stream(after);
    SS_CUDA(cudaMemcpyAsync(host_dst, s->device, (size_t)count * sizeof(int), cudaMemcpyDeviceToHost, side));
    SS_CUDA(cudaLaunchHostFunc(side, fn, s->host));
    ss_cuda_staging_release(s, side);
}

/* The host side of ss_cuda_report_info_async, run by CUDA in stream order. */
struct info_report { int info, offset; starsolve_request_t *req; };

static void CUDART_CB report_info(void *arg)
{
    const struct info_report *r = arg;
    if (r->info > 0)
        ss_request_report(r->req, r->offset + r->info);
}

void ss_cuda_report_info_async(const int *dinfo, int offset, starsolve_request_t *req, cudaStream_t after)
{
    struct ss_staging *s = ss_cuda_staging(sizeof(struct info_report));
    struct info_report *r = s->host;
    r->offset = offset;
    r->req = req;
    ss_cuda_ints_to_host_async(s, &r->info, dinfo, 1, report_info, after);
}

void *ss_cuda_hwork_try(size_t bytes)
{
    struct cuda_worker_state *w = &worker_state[starpu_worker_get_id_check()];
    return grow_scratch(&w->hwork, &w->hwork_bytes, bytes, ss_cuda_stream(), cudaMallocHost, cudaFreeHost);
}

void *ss_cuda_hwork(size_t bytes) { return must(ss_cuda_hwork_try(bytes), "cudaMallocHost (scratch)"); }

void *const *ss_cuda_pointer_array(void *const *host, int count, cudaStream_t stream)
{
    struct cuda_worker_state *w = &worker_state[starpu_worker_get_id_check()];
    if (count > w->pointers_capacity) {
        SS_CUDA(cudaStreamSynchronize(stream));   /* a batched call queued earlier may still read the old array */
        if (w->pointers)
            SS_CUDA(cudaFree(w->pointers));
        int capacity = ss_max(count, 3 * 1024);
        SS_CUDA(cudaMalloc((void **)&w->pointers, (size_t)capacity * sizeof(void *)));
        w->pointers_capacity = capacity;
    }
    /* through a pinned slot, so that the copy is asynchronous; the next user of
     * the device array is later on this stream, after the batched call has read it */
    struct ss_staging *slot = ss_cuda_staging((size_t)count * sizeof(void *));
    memcpy(slot->host, host, (size_t)count * sizeof(void *));
    SS_CUDA(cudaMemcpyAsync(w->pointers, slot->host, (size_t)count * sizeof(void *), cudaMemcpyHostToDevice, stream));
    ss_cuda_staging_release(slot, stream);
    return w->pointers;
}
#endif
