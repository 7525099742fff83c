/* Per-CUDA-worker state: a cuSOLVER handle on the worker's stream and scratch
 * memory that grows on demand. StarPU 1.3 has no starpu_cusolver_init. */
#include <stdio.h>
#include <stdlib.h>
#include "codelets.h"

#ifdef STARSOLVE_USE_CUDA
struct cuda_worker_state {
    cusolverDnHandle_t cusolver;
    cusolverDnParams_t params;     /* default options of cuSOLVER's 64-bit (X) API */
    void *dwork[2];
    size_t dwork_bytes[2];
    void *hwork;
    size_t hwork_bytes;
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
}

static void cusolver_shutdown_worker(void *arg)
{
    (void)arg;
    struct cuda_worker_state *w = &worker_state[starpu_worker_get_id_check()];
    if (w->params)
        cusolverDnDestroyParams(w->params);
    if (w->cusolver)
        cusolverDnDestroy(w->cusolver);
    for (int slot = 0; slot < 2; slot++)
        if (w->dwork[slot])
            cudaFree(w->dwork[slot]);
    if (w->hwork)
        cudaFreeHost(w->hwork);
    *w = (struct cuda_worker_state){ 0 };
}

void ss_cusolver_init(void)
{
    starpu_execute_on_each_worker(cusolver_init_worker, NULL, STARPU_CUDA);
}

void ss_cusolver_shutdown(void)
{
    starpu_execute_on_each_worker(cusolver_shutdown_worker, NULL, STARPU_CUDA);
}

cusolverDnHandle_t ss_cusolver_handle(void)
{
    return worker_state[starpu_worker_get_id_check()].cusolver;
}

cusolverDnParams_t ss_cusolver_params(void)
{
    return worker_state[starpu_worker_get_id_check()].params;
}

static void *grow_dwork(int slot, size_t bytes)
{
    struct cuda_worker_state *w = &worker_state[starpu_worker_get_id_check()];
    if (bytes > w->dwork_bytes[slot]) {
        /* work queued on the stream may still use the old buffer */
        SS_CUDA(cudaStreamSynchronize(starpu_cuda_get_local_stream()));
        if (w->dwork[slot])
            SS_CUDA(cudaFree(w->dwork[slot]));
        SS_CUDA(cudaMalloc(&w->dwork[slot], bytes));
        w->dwork_bytes[slot] = bytes;
    }
    return w->dwork[slot];
}

void *ss_cuda_dwork(size_t bytes) { return grow_dwork(0, bytes); }
void *ss_cuda_dwork2(size_t bytes) { return grow_dwork(1, bytes); }

void *ss_cuda_hwork(size_t bytes)
{
    struct cuda_worker_state *w = &worker_state[starpu_worker_get_id_check()];
    if (bytes > w->hwork_bytes) {
        SS_CUDA(cudaStreamSynchronize(starpu_cuda_get_local_stream()));
        if (w->hwork)
            SS_CUDA(cudaFreeHost(w->hwork));
        SS_CUDA(cudaMallocHost(&w->hwork, bytes));
        w->hwork_bytes = bytes;
    }
    return w->hwork;
}
#endif
