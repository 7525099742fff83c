/* The vendor reference for bench/: cuSOLVER on one GPU, on the same random
 * matrix our drivers factor (same generator and seed), timed two ways:
 *   - with copies: host (pageable, as a user's malloc) -> GPU, factor, GPU -> host;
 *   - without: the factorization alone, matrix already in GPU memory.
 * Prints one CSV line per run: op,n,seconds_with_copies,seconds_no_copies,tflops_no_copies,berr
 *   cusolver_ref -op getrf|getrf_nopiv|potrf -n N [-niter K] [-seed S]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include "check.h"

#define CUDA_OK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "cusolver_ref: %s: %s\n", #call, cudaGetErrorString(e_)); exit(1); } } while (0)
#define CUSOLVER_OK(call) do { cusolverStatus_t s_ = (call); if (s_ != CUSOLVER_STATUS_SUCCESS) { \
    fprintf(stderr, "cusolver_ref: %s: status %d\n", #call, (int)s_); exit(1); } } while (0)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv)
{
    const char *op = "getrf";
    int n = 8192, niter = 1;
    unsigned seed = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-op") && i + 1 < argc) op = argv[++i];
        else if (!strcmp(argv[i], "-n") && i + 1 < argc) n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-niter") && i + 1 < argc) niter = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-seed") && i + 1 < argc) seed = (unsigned)atoi(argv[++i]);
        else { fprintf(stderr, "cusolver_ref: unknown argument %s\n", argv[i]); return 2; }
    }
    int chol = !strcmp(op, "potrf"), nopiv = !strcmp(op, "getrf_nopiv");
    if (n < 1 || niter < 1 || (!chol && !nopiv && strcmp(op, "getrf"))) {
        fprintf(stderr, "cusolver_ref: bad -op or -n or -niter\n");
        return 2;
    }
    size_t nn = (size_t)n * n;
    double *A0 = malloc(nn * sizeof *A0), *A = malloc(nn * sizeof *A);
    int64_t *ipiv64 = malloc((size_t)n * sizeof *ipiv64);
    int *ipiv = malloc((size_t)n * sizeof *ipiv);
    if (!A0 || !A || !ipiv || !ipiv64) { fprintf(stderr, "cusolver_ref: out of host memory\n"); return 1; }
    if (chol) gen_dhpd(n, A0, n, seed); else gen_dmatrix(n, n, A0, n, seed);

    cusolverDnHandle_t h;
    cusolverDnParams_t params;
    CUSOLVER_OK(cusolverDnCreate(&h));
    CUSOLVER_OK(cusolverDnCreateParams(&params));
    double *dA;
    int64_t *dpiv;
    int *dinfo;
    CUDA_OK(cudaMalloc((void **)&dA, nn * sizeof *dA));
    CUDA_OK(cudaMalloc((void **)&dpiv, (size_t)n * sizeof *dpiv));
    CUDA_OK(cudaMalloc((void **)&dinfo, sizeof *dinfo));
    size_t dbytes = 0, hbytes = 0;
    if (chol)
        CUSOLVER_OK(cusolverDnXpotrf_bufferSize(h, params, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, dA, n,
                                                CUDA_R_64F, &dbytes, &hbytes));
    else
        CUSOLVER_OK(cusolverDnXgetrf_bufferSize(h, params, n, n, CUDA_R_64F, dA, n, CUDA_R_64F, &dbytes, &hbytes));
    void *dwork, *hwork = malloc(hbytes + 1);
    CUDA_OK(cudaMalloc(&dwork, dbytes + 1));
    cudaEvent_t e0, e1;
    CUDA_OK(cudaEventCreate(&e0));
    CUDA_OK(cudaEventCreate(&e1));

    for (int it = 0; it < niter; it++) {
        memcpy(A, A0, nn * sizeof *A);
        CUDA_OK(cudaDeviceSynchronize());
        double t0 = now();
        CUDA_OK(cudaMemcpy(dA, A, nn * sizeof *A, cudaMemcpyHostToDevice));
        CUDA_OK(cudaEventRecord(e0, 0));
        if (chol)
            CUSOLVER_OK(cusolverDnXpotrf(h, params, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, dA, n, CUDA_R_64F,
                                         dwork, dbytes, hwork, hbytes, dinfo));
        else
            CUSOLVER_OK(cusolverDnXgetrf(h, params, n, n, CUDA_R_64F, dA, n, nopiv ? NULL : dpiv, CUDA_R_64F,
                                         dwork, dbytes, hwork, hbytes, dinfo));
        CUDA_OK(cudaEventRecord(e1, 0));
        CUDA_OK(cudaMemcpy(A, dA, nn * sizeof *A, cudaMemcpyDeviceToHost));
        if (!chol && !nopiv)
            CUDA_OK(cudaMemcpy(ipiv64, dpiv, (size_t)n * sizeof *ipiv64, cudaMemcpyDeviceToHost));
        int info;
        CUDA_OK(cudaMemcpy(&info, dinfo, sizeof info, cudaMemcpyDeviceToHost));
        double with_copies = now() - t0;
        float ms;
        CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
        double alone = ms * 1e-3;
        double flops = chol ? (double)n * n * n / 3.0 : 2.0 * n * (double)n * n / 3.0;
        for (int i = 0; i < n; i++) ipiv[i] = (int)ipiv64[i];
        /* the randomized estimate: an O(n^3) product would dwarf the run at these sizes */
        double berr = chol ? check_dpotrf('L', n, A0, n, A, n, 0)
                           : check_dgetrf(n, n, A0, n, A, n, nopiv ? NULL : ipiv, 0);
        printf("cusolver,%s,%d,%.4f,%.4f,%.2f,%.3g,%d\n", op, n, with_copies, alone, flops / alone * 1e-12, berr, info);
        fflush(stdout);
    }
    cudaFree(dA); cudaFree(dpiv); cudaFree(dinfo); cudaFree(dwork);
    cusolverDnDestroyParams(params);
    cusolverDnDestroy(h);
    free(A0); free(A); free(ipiv); free(ipiv64); free(hwork);
    return 0;
}
