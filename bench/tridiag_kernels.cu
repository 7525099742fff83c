// The tridiagonal path's GPU kernels alone (codelets/cuda/tridiag.cu's ss_cuda_tridiag_solve, compiled in), no
// StarPU: one solve of a column and the check alone, on device buffers, best and mean of 20, wall clock around the
// (synchronous) call; and the cost of allocating its work. Under ncu (gpu__time_duration) it gives the per-kernel
// times of bench/NOTES.md, session 36.
//   make bench/tridiag_kernels (CUDA builds); bench/tridiag_kernels [n]
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "tridiag_result.h"
extern "C" size_t ss_cuda_tridiag_work(size_t es, long n);
extern "C" void ss_cuda_tridiag_solve(char p, const struct ss_tridiag_args *a, const void *band, int ldband, int nrhs, void *B, int ldb,
                                      void *work, cudaStream_t st, struct ss_tridiag_result *res);
// tridiag.cu stops the program on a failed CUDA call through the library's ss_cuda_fail: this program's own
extern "C" void ss_cuda_fail(const char *what, int status, const char *file, int line)
{
    fprintf(stderr, "%s:%d: %s failed (%d)\n", file, line, what, status);
    exit(1);
}
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    double *band = (double *)malloc(4 * n * sizeof(double)), *b = (double *)malloc(n * sizeof(double));
    for (long i = 0; i < n; i++) { band[4*i] = 0; band[4*i+1] = -1; band[4*i+2] = 2.5; band[4*i+3] = -1; b[i] = 1 + (i % 7); }
    double *dband, *db; void *work; size_t wb = ss_cuda_tridiag_work(8, n);
    if (cudaMalloc(&dband, 4 * n * 8) != cudaSuccess || cudaMalloc(&db, n * 8) != cudaSuccess || cudaMalloc(&work, wb) != cudaSuccess ||
        cudaMemcpy(dband, band, 4 * n * 8, cudaMemcpyHostToDevice) != cudaSuccess) {
        fprintf(stderr, "tridiag_kernels: no GPU memory for n = %ld\n", n);
        return 1;
    }
    cudaStream_t st; cudaStreamCreate(&st);
    struct ss_tridiag_result res; struct ss_tridiag_args a = { (int)n, 1, 1, 2, SS_TRI_MIN_DOMINANCE, 1e-12, 100, &res };
    for (int mode = 0; mode < 2; mode++) {
        double best = 1e9, sum = 0;
        for (int it = 0; it < 20; it++) {
            if (cudaMemcpy(db, b, n * 8, cudaMemcpyHostToDevice) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) return 1;
            double t0 = now();
            ss_cuda_tridiag_solve('d', &a, dband, 4, mode == 0 ? 1 : 0, db, (int)n, work, st, &res);
            double t = now() - t0; sum += t; if (t < best) best = t;
        }
        printf("%s: best %.1f us, mean %.1f us (usable %d solved %d steps %d dominance %.3g)\n", mode == 0 ? "solve, 1 column" : "check only",
               best * 1e6, sum / 20 * 1e6, res.usable, res.solved, res.steps, res.dominance);
    }
    double best = 1e9;
    for (int it = 0; it < 10; it++) {
        void *p;
        double t0 = now();
        if (cudaMalloc(&p, wb) != cudaSuccess || cudaFree(p) != cudaSuccess) return 1;
        double t = now() - t0;
        if (t < best) best = t;
    }
    printf("cudaMalloc + cudaFree of the scratch (%zu bytes): best %.1f us\n", wb, best * 1e6);
    return 0;
}
