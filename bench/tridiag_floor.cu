// The least time a StarPU call moving SPIKE's K = 1 data can take on one GPU: the band (4 x n doubles, LAPACK's
// gbsv layout as whole columns, page-locked) and one right-hand side up, a trivial kernel, x down; against the
// same copies by plain CUDA, and with the variants that bench/NOTES.md (session 36) compares: two dependent
// tasks, the band kept on the GPU, an 18 MB work handle registered per call or kept; and the streamed task
// (session 37): band and b left in main memory (STARPU_SPECIFIC_NODE_CPU), the codelet copies them up in
// chunks on a second stream while a kernel runs on each chunk that has arrived, and x down chunk by chunk
// (plain CUDA the same way for its floor). The tridiagonal path's floor against cuSPARSE gtsv2 (bench/cusparse_ref).
//   make bench/tridiag_floor (CUDA builds); STARPU_NCUDA=1 bench/tridiag_floor [n [runs]]
#include <starpu.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }

__global__ void diag_solve(int n, const double *band, double *b, double *f)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        double v = b[i] / band[2 + 4 * (size_t)i];
        if (f) f[i] = v; else b[i] = v;
    }
}
static void cuda_one(void *buffers[], void *arg)
{
    (void)arg;
    int n = STARPU_MATRIX_GET_NY(buffers[0]);
    diag_solve<<<528, 256, 0, starpu_cuda_get_local_stream()>>>(n, (double *)STARPU_MATRIX_GET_PTR(buffers[0]),
                                                                  (double *)STARPU_VECTOR_GET_PTR(buffers[1]), NULL);
    CK(cudaGetLastError());
}
static void cuda_factor(void *buffers[], void *arg)
{
    (void)arg;
    int n = STARPU_MATRIX_GET_NY(buffers[0]);
    diag_solve<<<528, 256, 0, starpu_cuda_get_local_stream()>>>(n, (double *)STARPU_MATRIX_GET_PTR(buffers[0]),
                                                                  (double *)STARPU_VECTOR_GET_PTR(buffers[1]) + 2 * n,
                                                                  (double *)STARPU_VECTOR_GET_PTR(buffers[1]));
    CK(cudaGetLastError());
}
static void cuda_solve(void *buffers[], void *arg)
{
    (void)arg;
    int n = STARPU_VECTOR_GET_NX(buffers[1]);
    diag_solve<<<528, 256, 0, starpu_cuda_get_local_stream()>>>(n, (double *)STARPU_VECTOR_GET_PTR(buffers[0]) - 2,
                                                                  (double *)STARPU_VECTOR_GET_PTR(buffers[1]), NULL);
    CK(cudaGetLastError());
}
// the streamed task: buffers 0 band, 1 b in main memory, 2 work on the GPU (a band copy, then b's)
#define CHUNKS 8
static cudaStream_t copy_stream;
static cudaEvent_t ev_in[CHUNKS], ev_out[CHUNKS];
static void stream_setup(void)
{
    CK(cudaStreamCreateWithFlags(&copy_stream, cudaStreamNonBlocking));
    for (int c = 0; c < CHUNKS; c++) {
        CK(cudaEventCreateWithFlags(&ev_in[c], cudaEventDisableTiming));
        CK(cudaEventCreateWithFlags(&ev_out[c], cudaEventDisableTiming));
    }
}
static void streamed(int n, const double *band, double *b, double *dband, double *db, cudaStream_t st)
{
    for (int c = 0; c < CHUNKS; c++) {
        size_t r0 = (size_t)n * c / CHUNKS, r1 = (size_t)n * (c + 1) / CHUNKS;
        CK(cudaMemcpyAsync(dband + 4 * r0, band + 4 * r0, 4 * (r1 - r0) * sizeof(double), cudaMemcpyHostToDevice, copy_stream));
        CK(cudaMemcpyAsync(db + r0, b + r0, (r1 - r0) * sizeof(double), cudaMemcpyHostToDevice, copy_stream));
        CK(cudaEventRecord(ev_in[c], copy_stream));
    }
    for (int c = 0; c < CHUNKS; c++) {
        size_t r0 = (size_t)n * c / CHUNKS, r1 = (size_t)n * (c + 1) / CHUNKS;
        CK(cudaStreamWaitEvent(st, ev_in[c], 0));
        diag_solve<<<132, 256, 0, st>>>((int)(r1 - r0), dband + 4 * r0, db + r0, NULL);
    }
    for (int c = 0; c < CHUNKS; c++) {
        size_t r0 = (size_t)n * c / CHUNKS, r1 = (size_t)n * (c + 1) / CHUNKS;
        diag_solve<<<132, 256, 0, st>>>((int)(r1 - r0), dband + 4 * r0, db + r0, NULL);
        CK(cudaEventRecord(ev_out[c], st));
        CK(cudaStreamWaitEvent(copy_stream, ev_out[c], 0));
        CK(cudaMemcpyAsync(b + r0, db + r0, (r1 - r0) * sizeof(double), cudaMemcpyDeviceToHost, copy_stream));
    }
    CK(cudaStreamSynchronize(copy_stream));
    CK(cudaStreamSynchronize(st));
}
static void cuda_streamed(void *buffers[], void *arg)
{
    (void)arg;
    int n = STARPU_MATRIX_GET_NY(buffers[0]);
    if (!copy_stream) stream_setup();
    double *w = (double *)STARPU_VECTOR_GET_PTR(buffers[2]);
    streamed(n, (const double *)STARPU_MATRIX_GET_PTR(buffers[0]), (double *)STARPU_VECTOR_GET_PTR(buffers[1]), w, w + 4 * (size_t)n,
             starpu_cuda_get_local_stream());
}
static struct starpu_codelet cl_streamed = { .cuda_funcs = { cuda_streamed }, .nbuffers = 3, .modes = { STARPU_R, STARPU_RW, STARPU_W },
                                             .specific_nodes = 1,
                                             .nodes = { STARPU_SPECIFIC_NODE_CPU, STARPU_SPECIFIC_NODE_CPU, STARPU_SPECIFIC_NODE_LOCAL } };
static struct starpu_codelet cl_one = { .cuda_funcs = { cuda_one }, .cuda_flags = { STARPU_CUDA_ASYNC }, .nbuffers = 2,
                                        .modes = { STARPU_R, STARPU_RW } };
static struct starpu_codelet cl_one_w = { .cuda_funcs = { cuda_one }, .cuda_flags = { STARPU_CUDA_ASYNC }, .nbuffers = 3,
                                        .modes = { STARPU_R, STARPU_RW, STARPU_W } };
static struct starpu_codelet cl_factor = { .cuda_funcs = { cuda_factor }, .cuda_flags = { STARPU_CUDA_ASYNC }, .nbuffers = 2,
                                           .modes = { STARPU_R, STARPU_W } };
static struct starpu_codelet cl_solve = { .cuda_funcs = { cuda_solve }, .cuda_flags = { STARPU_CUDA_ASYNC }, .nbuffers = 2,
                                          .modes = { STARPU_R, STARPU_RW } };

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000000, iters = argc > 2 ? atoi(argv[2]) : 20;
    if (starpu_init(NULL) != 0) return 1;
    double *band, *b, *f;
    starpu_malloc((void **)&band, 4 * sizeof(double) * n);
    starpu_malloc((void **)&b, sizeof(double) * n);
    f = (double *)malloc(sizeof(double) * n * 4);
    for (int i = 0; i < n; i++) { band[4 * i] = 0; band[4 * i + 1] = -1; band[4 * i + 2] = 4; band[4 * i + 3] = -1; b[i] = 1; }
    // A: plain CUDA, the same bytes
    double *dband, *db;
    CK(cudaMalloc(&dband, 4 * sizeof(double) * n)); CK(cudaMalloc(&db, sizeof(double) * n));
    double best = 1e9;
    for (int it = 0; it < iters; it++) {
        CK(cudaDeviceSynchronize());
        double t0 = now();
        CK(cudaMemcpy(dband, band, 4 * sizeof(double) * n, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(db, b, sizeof(double) * n, cudaMemcpyHostToDevice));
        diag_solve<<<528, 256>>>(n, dband, db, NULL);
        CK(cudaMemcpy(b, db, sizeof(double) * n, cudaMemcpyDeviceToHost));
        double t = now() - t0; if (t < best) best = t;
    }
    printf("plain CUDA, band 32 MB + b up, b down: best %.3f ms\n", best * 1e3);
    stream_setup();
    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    best = 1e9;
    for (int it = 0; it < iters; it++) {
        CK(cudaDeviceSynchronize());
        double t0 = now();
        streamed(n, band, b, dband, db, st);
        double t = now() - t0; if (t < best) best = t;
    }
    printf("plain CUDA streamed in %d chunks (copies on a second stream, a kernel per chunk): best %.3f ms\n", CHUNKS, best * 1e3);
    CK(cudaStreamDestroy(st));
    for (int c = 0; c < CHUNKS; c++) { CK(cudaEventDestroy(ev_in[c])); CK(cudaEventDestroy(ev_out[c])); }
    CK(cudaStreamDestroy(copy_stream));
    copy_stream = NULL;
    CK(cudaFree(dband)); CK(cudaFree(db));
    starpu_data_handle_t hw_kept = NULL;
    for (int variant = 0; variant < 6; variant++) {
        best = 1e9; double sum = 0, ibest = 1e9;
        starpu_data_handle_t hband = NULL, hf = NULL, hb;
        if (variant == 2) {
            starpu_matrix_data_register(&hband, STARPU_MAIN_RAM, (uintptr_t)band, 4, 4, n, sizeof(double));
            starpu_vector_data_register(&hf, STARPU_MAIN_RAM, (uintptr_t)f, 4 * n, sizeof(double));
        }
        for (int it = 0; it < iters; it++) {
            double t0 = now();
            if (variant != 2)
                starpu_matrix_data_register(&hband, STARPU_MAIN_RAM, (uintptr_t)band, 4, 4, n, sizeof(double));
            starpu_vector_data_register(&hb, STARPU_MAIN_RAM, (uintptr_t)b, n, sizeof(double));
            starpu_data_handle_t hw = NULL;
            double ti = now();
            if (variant == 5) {   // the streamed task: a kept work handle of band + b
                if (!hw_kept) starpu_vector_data_register(&hw_kept, -1, 0, 5 * (size_t)n, 8);
                starpu_task_insert(&cl_streamed, STARPU_R, hband, STARPU_RW, hb, STARPU_W, hw_kept, 0);
            } else if (variant >= 3) {
                if (variant == 3 || !hw_kept) starpu_vector_data_register(&hw, -1, 0, 18136320 / 8, 8);
                if (variant == 4) { if (!hw_kept) hw_kept = hw; hw = hw_kept; }
                starpu_task_insert(&cl_one_w, STARPU_R, hband, STARPU_RW, hb, STARPU_W, hw, 0);
            } else if (variant == 0) {
                starpu_task_insert(&cl_one, STARPU_R, hband, STARPU_RW, hb, 0);
            } else {
                if (variant == 1)
                    starpu_vector_data_register(&hf, STARPU_MAIN_RAM, (uintptr_t)f, 4 * n, sizeof(double));
                if (variant == 1 || it == 0)
                    starpu_task_insert(&cl_factor, STARPU_R, hband, STARPU_W, hf, 0);
                starpu_task_insert(&cl_solve, STARPU_R, hf, STARPU_RW, hb, 0);
            }
            ti = now() - ti; if (ti < ibest) ibest = ti;
            starpu_task_wait_for_all();
            starpu_data_unregister(hb);
            if (variant == 1) starpu_data_unregister_no_coherency(hf);
            if (variant < 2 || variant >= 3) starpu_data_unregister(hband);
            if (variant == 3) starpu_data_unregister(hw);
            double t = now() - t0; sum += t; if (t < best) best = t;
        }
        if (variant == 2) { starpu_data_unregister(hband); starpu_data_unregister_no_coherency(hf); }
        if (variant >= 4) { starpu_data_unregister(hw_kept); hw_kept = NULL; }
        printf("StarPU %s: best %.3f ms, mean %.3f ms, submission best %.1f us\n",
               variant == 0 ? "one task (band, b registered per call)" : variant == 1 ? "two dependent tasks (factor to f, solve)"
               : variant == 2 ? "solve only, factors kept on the GPU" : variant == 3 ? "one task + an 18 MB W work handle registered per call"
               : variant == 4 ? "one task + an 18 MB W work handle kept across calls"
               : "streamed task (band, b in main memory; chunks copied by the codelet; work kept)",
               best * 1e3, sum / iters * 1e3, ibest * 1e6);
    }
    starpu_free(band); starpu_free(b); free(f);
    starpu_shutdown();
    return 0;
}
