/* The vendor reference for bench/: cuSOLVER on one GPU, on the same random
 * matrix our drivers factor (same generator and seed), timed two ways:
 *   - with copies: host -> GPU, factor, GPU -> host; the host matrix is pageable
 *     (a user's malloc), or page-locked with -pinned (cudaMallocHost, as our
 *     drivers allocate theirs unless -nopin);
 *   - without: the factorization alone, matrix already in GPU memory.
 * Prints one CSV line per run: op,n,seconds_with_copies,seconds_no_copies,tflops_no_copies,berr
 *   cusolver_ref -op getrf|getrf_nopiv|potrf|geqrf -n N [-m M] [-niter K] [-seed S] [-pinned]
 * (-m: rows, geqrf only; n in the output line is then "MxN").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <cblas.h>
#include <lapacke.h>
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

/* QR's backward error without forming Q: ||A0 x - Q (R x)||_1 / (||A0||_1 ||x||_1 n eps)
 * for 3 random x, Q applied on the host by LAPACK's dormqr with cuSOLVER's tau. */
static double check_qr_estimate(int m, int n, const double *A0, const double *QR, const double *tau)
{
    int k = m < n ? m : n;
    double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)m * sizeof *y), *w = malloc((size_t)m * sizeof *w);
    double anorm = LAPACKE_dlange(LAPACK_COL_MAJOR, '1', m, n, A0, m), worst = 0;
    for (int t = 0; t < 3; t++) {
        gen_dmatrix(n, 1, x, n, 7919u * (t + 1));
        for (int i = 0; i < m; i++) y[i] = 0;
        for (int i = 0; i < k; i++) y[i] = x[i];
        cblas_dtrmv(CblasColMajor, CblasUpper, CblasNoTrans, CblasNonUnit, k, QR, m, y, 1);
        if (n > k)
            cblas_dgemv(CblasColMajor, CblasNoTrans, k, n - k, 1.0, QR + (size_t)k * m, m, x + k, 1, 1.0, y, 1);
        LAPACKE_dormqr(LAPACK_COL_MAJOR, 'L', 'N', m, 1, k, QR, m, tau, y, m);
        cblas_dgemv(CblasColMajor, CblasNoTrans, m, n, 1.0, A0, m, x, 1, 0.0, w, 1);
        cblas_daxpy(m, -1.0, y, 1, w, 1);
        double r = cblas_dasum(m, w, 1) / (anorm * cblas_dasum(n, x, 1) * n * LAPACKE_dlamch('E'));
        if (!(r <= worst)) worst = r;
    }
    free(x); free(y); free(w);
    return worst;
}

int main(int argc, char **argv)
{
    const char *op = "getrf";
    int n = 8192, m = -1, niter = 1;
    unsigned seed = 1;
    int pinned = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-pinned")) { pinned = 1; continue; }
        if (!strcmp(argv[i], "-op") && i + 1 < argc) op = argv[++i];
        else if (!strcmp(argv[i], "-n") && i + 1 < argc) n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-m") && i + 1 < argc) m = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-niter") && i + 1 < argc) niter = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-seed") && i + 1 < argc) seed = (unsigned)atoi(argv[++i]);
        else { fprintf(stderr, "cusolver_ref: unknown argument %s\n", argv[i]); return 2; }
    }
    int chol = !strcmp(op, "potrf"), nopiv = !strcmp(op, "getrf_nopiv"), qr = !strcmp(op, "geqrf");
    if (m < 0)
        m = n;
    if (n < 1 || m < 1 || niter < 1 || (!chol && !nopiv && !qr && strcmp(op, "getrf")) || (!qr && m != n)) {
        fprintf(stderr, "cusolver_ref: bad -op, -m, -n or -niter\n");
        return 2;
    }
    size_t nn = (size_t)m * n;
    double *A0 = malloc(nn * sizeof *A0), *A = NULL;
    if (pinned)
        CUDA_OK(cudaMallocHost((void **)&A, nn * sizeof *A));
    else
        A = malloc(nn * sizeof *A);
    int64_t *ipiv64 = malloc((size_t)n * sizeof *ipiv64);
    int *ipiv = malloc((size_t)n * sizeof *ipiv);
    if (!A0 || !A || !ipiv || !ipiv64) { fprintf(stderr, "cusolver_ref: out of host memory\n"); return 1; }
    if (chol) gen_dhpd(n, A0, n, seed); else gen_dmatrix(m, n, A0, m, seed);
    double *tau = malloc((size_t)n * sizeof *tau);

    cusolverDnHandle_t h;
    cusolverDnParams_t params;
    CUSOLVER_OK(cusolverDnCreate(&h));
    CUSOLVER_OK(cusolverDnCreateParams(&params));
    double *dA;
    int64_t *dpiv;
    double *dtau;
    int *dinfo;
    CUDA_OK(cudaMalloc((void **)&dA, nn * sizeof *dA));
    CUDA_OK(cudaMalloc((void **)&dpiv, (size_t)n * sizeof *dpiv));
    CUDA_OK(cudaMalloc((void **)&dinfo, sizeof *dinfo));
    CUDA_OK(cudaMalloc((void **)&dtau, (size_t)n * sizeof *dtau));
    size_t dbytes = 0, hbytes = 0;
    if (chol)
        CUSOLVER_OK(cusolverDnXpotrf_bufferSize(h, params, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, dA, n,
                                                CUDA_R_64F, &dbytes, &hbytes));
    else if (qr)
        CUSOLVER_OK(cusolverDnXgeqrf_bufferSize(h, params, m, n, CUDA_R_64F, dA, m, CUDA_R_64F, dtau, CUDA_R_64F,
                                                &dbytes, &hbytes));
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
        else if (qr)
            CUSOLVER_OK(cusolverDnXgeqrf(h, params, m, n, CUDA_R_64F, dA, m, CUDA_R_64F, dtau, CUDA_R_64F,
                                         dwork, dbytes, hwork, hbytes, dinfo));
        else
            CUSOLVER_OK(cusolverDnXgetrf(h, params, n, n, CUDA_R_64F, dA, n, nopiv ? NULL : dpiv, CUDA_R_64F,
                                         dwork, dbytes, hwork, hbytes, dinfo));
        CUDA_OK(cudaEventRecord(e1, 0));
        CUDA_OK(cudaMemcpy(A, dA, nn * sizeof *A, cudaMemcpyDeviceToHost));
        if (qr)
            CUDA_OK(cudaMemcpy(tau, dtau, (size_t)n * sizeof *tau, cudaMemcpyDeviceToHost));
        if (!chol && !nopiv && !qr)
            CUDA_OK(cudaMemcpy(ipiv64, dpiv, (size_t)n * sizeof *ipiv64, cudaMemcpyDeviceToHost));
        int info;
        CUDA_OK(cudaMemcpy(&info, dinfo, sizeof info, cudaMemcpyDeviceToHost));
        double with_copies = now() - t0;
        float ms;
        CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
        double alone = ms * 1e-3;
        double big = m > n ? m : n, small = m < n ? m : n;
        double flops = chol ? (double)n * n * n / 3.0 : qr ? 2.0 * big * small * small - 2.0 * small * small * small / 3.0
                                                         : 2.0 * n * (double)n * n / 3.0;
        for (int i = 0; i < n; i++) ipiv[i] = (int)ipiv64[i];
        /* the randomized estimate: an O(n^3) product would dwarf the run at these sizes */
        double berr = chol ? check_dpotrf('L', n, A0, n, A, n, 0)
                    : qr   ? check_qr_estimate(m, n, A0, A, tau)
                           : check_dgetrf(n, n, A0, n, A, n, nopiv ? NULL : ipiv, 0);
        char shape[32];
        if (m == n) snprintf(shape, sizeof shape, "%d", n); else snprintf(shape, sizeof shape, "%dx%d", m, n);
        printf("cusolver,%s,%s,%.4f,%.4f,%.2f,%.3g,%d\n", op, shape, with_copies, alone, flops / alone * 1e-12, berr, info);
        fflush(stdout);
    }
    cudaFree(dA); cudaFree(dpiv); cudaFree(dinfo); cudaFree(dwork); cudaFree(dtau);
    cusolverDnDestroyParams(params);
    cusolverDnDestroy(h);
    free(A0);
    if (pinned)
        cudaFreeHost(A);
    else
        free(A);
    free(ipiv); free(ipiv64); free(hwork); free(tau);
    return 0;
}
