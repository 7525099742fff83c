/* The vendor reference of bench/spike.sh at K = 1: cuSPARSE's tridiagonal solver
 * (cusparseDgtsv2, with pivoting) on the tridiagonal matrix starpu_spike -k 1 solves (the
 * same generator and seed: gen_dband with kl = ku = 1 and dominance D, right-hand sides
 * gen_dmatrix with seed + 1), double only, on one GPU, timed two ways:
 *   - with copies: the three diagonals and B host -> GPU, gtsv2, X GPU -> host; the host arrays
 *     pageable (a user's malloc), or page-locked with -pinned (cudaMallocHost, as starpu_spike
 *     allocates its band unless -nopin);
 *   - without: gtsv2 alone on data already in GPU memory (CUDA events around it).
 * With -ours, also both solvers on data already in GPU memory, run after run, wall clock around each
 * call and its synchronization: gtsv2 on its three diagonals, and the library's tridiagonal kernels (what a
 * dgbsv_spike call at K = 1 runs on a GPU: ss_cuda_tridiag_solve, with its dominance check, residual and
 * refinement, at gbsv_spike's residual goal) on the band in LAPACK's layout; both answers checked.
 * Taking the diagonals out of LAPACK's band layout (gtsv2's input format) and allocating the
 * GPU arrays and gtsv2's buffer (gtsv2_bufferSizeExt) happen once, outside both times.
 * Every run is checked against the band: scaled residual ||b - Ax||_1/(||A|| ||x|| n eps)
 * (exit 1 above 30 or NaN) and ||b - Ax||_inf / ||b||_inf.
 *   cusparse_ref -n N [-dd D] [-nrhs R] [-niter K] [-seed S] [-pinned] [-ours]
 * Prints one CSV line per run, cusparse,gtsv2,n,nrhs,seconds_with_copies,seconds_no_copies,resid,relative,
 * then the best of each (bench/spike.sh reads that line); with -ours one more line, the best of each on
 * GPU data.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime.h>
#include <cusparse.h>
#include "check.h"
#include "tridiag_result.h"

/* the library's tridiagonal solve on GPU data (codelets/cuda/tridiag.cu; libstarsolve exports it) */
size_t ss_cuda_tridiag_work(size_t es, long n);
void ss_cuda_tridiag_solve(char p, const struct ss_tridiag_args *a, const void *band, int ldband, int nrhs, void *B, int ldb,
                           void *work, cudaStream_t st, struct ss_tridiag_result *res);

#define CUDA_OK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "cusparse_ref: %s: %s\n", #call, cudaGetErrorString(e_)); exit(1); } } while (0)
#define CUSPARSE_OK(call) do { cusparseStatus_t s_ = (call); if (s_ != CUSPARSE_STATUS_SUCCESS) { \
    fprintf(stderr, "cusparse_ref: %s: %s (status %d)\n", #call, cusparseGetErrorString(s_), (int)s_); exit(1); } } while (0)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void *host_alloc(size_t bytes, int pinned)
{
    void *p = NULL;
    if (pinned)
        CUDA_OK(cudaMallocHost(&p, bytes));
    else if (!(p = malloc(bytes))) {
        fprintf(stderr, "cusparse_ref: out of host memory\n");
        exit(1);
    }
    return p;
}

static void host_free(void *p, int pinned)
{
    if (pinned)
        cudaFreeHost(p);
    else
        free(p);
}

/* -ours: gtsv2 and the library's kernels on data already in GPU memory, alternately, best of niter each (wall
 * clock around the call and a device synchronization); returns 1 if an answer fails its check. Before each
 * call, untimed: B back from a device copy, and gtsv2's diagonals again from the host. */
static int device_resident(cusparseHandle_t h, int n, int nrhs, const double *AB, int ldab, const double *B, double *ddl, double *dd_,
                           double *ddu, double *dB, void *work, const double *dl, const double *d, const double *du, int niter)
{
    const size_t vb = (size_t)n * sizeof(double), bb = (size_t)n * nrhs * sizeof(double);
    double *dAB, *dB0, *X = malloc(bb);
    void *tri_work;
    CUDA_OK(cudaMalloc((void **)&dAB, (size_t)ldab * vb));
    CUDA_OK(cudaMalloc((void **)&dB0, bb));
    CUDA_OK(cudaMalloc(&tri_work, ss_cuda_tridiag_work(sizeof(double), n)));
    if (!X) { fprintf(stderr, "cusparse_ref: out of host memory\n"); exit(1); }
    CUDA_OK(cudaMemcpy(dAB, AB, (size_t)ldab * vb, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(dB0, B, bb, cudaMemcpyHostToDevice));
    cudaStream_t st;
    CUDA_OK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    /* gbsv_spike's goal and limits for this n in double (src/zgbsv_spike.c, tri_args) */
    struct ss_tridiag_result res;
    const double eps = 2.220446049250313e-16, goal = 10.0 * n * eps < 1e-12 ? 10.0 * n * eps : 1e-12;
    struct ss_tridiag_args a = { .n = n, .kl = 1, .ku = 1, .diag_row = 2, .min_dominance = SS_TRI_MIN_DOMINANCE,
                                 .tol = goal > 100 * eps ? goal : 100 * eps, .maxit = 100, .result = &res };
    double best_g = 0, best_o = 0;
    int status = 0, steps = 0;
    for (int it = 0; it < niter; it++) {
        for (int who = 0; who < 2; who++) {
            CUDA_OK(cudaMemcpy(dB, dB0, bb, cudaMemcpyDeviceToDevice));
            if (who == 0) {
                CUDA_OK(cudaMemcpy(ddl, dl, vb, cudaMemcpyHostToDevice));
                CUDA_OK(cudaMemcpy(dd_, d, vb, cudaMemcpyHostToDevice));
                CUDA_OK(cudaMemcpy(ddu, du, vb, cudaMemcpyHostToDevice));
            }
            CUDA_OK(cudaDeviceSynchronize());
            double t0 = now();
            if (who == 0) {
                CUSPARSE_OK(cusparseDgtsv2(h, n, nrhs, ddl, dd_, ddu, dB, n, work));
            } else {
                ss_cuda_tridiag_solve('d', &a, dAB, ldab, nrhs, dB, n, tri_work, st, &res);   /* synchronous */
                if (!res.usable || res.solved < nrhs) {
                    fprintf(stderr, "cusparse_ref: the library's kernels did not solve it (usable %d, solved %d)\n", res.usable, res.solved);
                    status = 1;
                }
                steps = res.steps > steps ? res.steps : steps;
            }
            CUDA_OK(cudaDeviceSynchronize());
            double t = now() - t0, relative;
            CUDA_OK(cudaMemcpy(X, dB, bb, cudaMemcpyDeviceToHost));
            if (!check_passes(check_dgbsolve(n, 1, 1, nrhs, AB, ldab, X, n, B, n, &relative)))
                status = 1;
            if (who == 0) best_g = it == 0 || t < best_g ? t : best_g;
            else best_o = it == 0 || t < best_o ? t : best_o;
        }
    }
    printf("cusparse_ref: on GPU data, n=%d nrhs=%d: gtsv2 best %.6f s, the library's kernels best %.6f s (refinement steps %d); "
           "gtsv2 / ours %.3f%s\n", n, nrhs, best_g, best_o, steps, best_g / best_o, status ? " (a check FAILED)" : "");
    cudaStreamDestroy(st);
    cudaFree(dAB); cudaFree(dB0); cudaFree(tri_work);
    free(X);
    return status;
}

int main(int argc, char **argv)
{
    int n = 1000000, nrhs = 1, niter = 3, pinned = 0, ours = 0;
    double dd = 1;
    unsigned seed = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-pinned")) { pinned = 1; continue; }
        if (!strcmp(argv[i], "-ours")) { ours = 1; continue; }
        if (!strcmp(argv[i], "-n") && i + 1 < argc) n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-nrhs") && i + 1 < argc) nrhs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-niter") && i + 1 < argc) niter = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-dd") && i + 1 < argc) dd = atof(argv[++i]);
        else if (!strcmp(argv[i], "-seed") && i + 1 < argc) seed = (unsigned)atoi(argv[++i]);
        else { fprintf(stderr, "cusparse_ref: unknown argument %s\n", argv[i]); return 2; }
    }
    if (n < 3 || nrhs < 1 || niter < 1 || !(dd > 0)) {   /* gtsv2 needs m >= 3 */
        fprintf(stderr, "cusparse_ref: -n must be at least 3, -nrhs and -niter at least 1, -dd positive\n");
        return 2;
    }
    const int ldab = 4;   /* LAPACK's gbsv layout for kl = ku = 1: A(i, j) at AB[2 + i - j + j ldab] */
    const size_t vb = (size_t)n * sizeof(double), bb = (size_t)n * nrhs * sizeof(double);
    double *AB = malloc((size_t)ldab * n * sizeof *AB), *B = malloc(bb);
    double *dl = host_alloc(vb, pinned), *d = host_alloc(vb, pinned), *du = host_alloc(vb, pinned), *X = host_alloc(bb, pinned);
    if (!AB || !B) { fprintf(stderr, "cusparse_ref: out of host memory\n"); return 1; }
    gen_dband(n, 1, 1, dd, AB, ldab, seed);
    gen_dmatrix(n, nrhs, B, n, seed + 1u);
    for (int i = 0; i < n; i++) {
        d[i] = AB[2 + (size_t)i * ldab];
        du[i] = i + 1 < n ? AB[1 + (size_t)(i + 1) * ldab] : 0;   /* A(i, i+1); gtsv2 wants du[n-1] = 0 */
        dl[i] = i > 0 ? AB[3 + (size_t)(i - 1) * ldab] : 0;       /* A(i, i-1); and dl[0] = 0 */
    }

    cusparseHandle_t h;
    CUSPARSE_OK(cusparseCreate(&h));
    double *ddl, *dd_, *ddu, *dB;
    CUDA_OK(cudaMalloc((void **)&ddl, vb));
    CUDA_OK(cudaMalloc((void **)&dd_, vb));
    CUDA_OK(cudaMalloc((void **)&ddu, vb));
    CUDA_OK(cudaMalloc((void **)&dB, bb));
    size_t wbytes = 0;
    CUSPARSE_OK(cusparseDgtsv2_bufferSizeExt(h, n, nrhs, ddl, dd_, ddu, dB, n, &wbytes));
    void *work;
    CUDA_OK(cudaMalloc(&work, wbytes + 1));
    cudaEvent_t e0, e1;
    CUDA_OK(cudaEventCreate(&e0));
    CUDA_OK(cudaEventCreate(&e1));

    double best = 0, best_alone = 0;
    int status = 0;
    for (int it = 0; it < niter; it++) {
        memcpy(X, B, bb);
        CUDA_OK(cudaDeviceSynchronize());
        double t0 = now();
        CUDA_OK(cudaMemcpy(ddl, dl, vb, cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemcpy(dd_, d, vb, cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemcpy(ddu, du, vb, cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemcpy(dB, X, bb, cudaMemcpyHostToDevice));
        CUDA_OK(cudaEventRecord(e0, 0));
        CUSPARSE_OK(cusparseDgtsv2(h, n, nrhs, ddl, dd_, ddu, dB, n, work));
        CUDA_OK(cudaEventRecord(e1, 0));
        CUDA_OK(cudaMemcpy(X, dB, bb, cudaMemcpyDeviceToHost));
        double with_copies = now() - t0;
        float ms;
        CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
        double alone = ms * 1e-3, relative;
        double resid = check_dgbsolve(n, 1, 1, nrhs, AB, ldab, X, n, B, n, &relative);
        if (!check_passes(resid))
            status = 1;
        best = it == 0 || with_copies < best ? with_copies : best;
        best_alone = it == 0 || alone < best_alone ? alone : best_alone;
        printf("cusparse,gtsv2,%d,%d,%.6f,%.6f,%.3g,%.3g\n", n, nrhs, with_copies, alone, resid, relative);
        fflush(stdout);
    }
    printf("cusparse_ref: gtsv2 n=%d nrhs=%d dd=%g %s: best with copies %.6f s, without %.6f s%s\n", n, nrhs, dd,
           pinned ? "pinned" : "pageable", best, best_alone, status ? " (a check FAILED)" : "");
    if (ours && device_resident(h, n, nrhs, AB, ldab, B, ddl, dd_, ddu, dB, work, dl, d, du, niter))
        status = 1;
    cudaEventDestroy(e0); cudaEventDestroy(e1);
    cudaFree(ddl); cudaFree(dd_); cudaFree(ddu); cudaFree(dB); cudaFree(work);
    CUSPARSE_OK(cusparseDestroy(h));
    host_free(dl, pinned); host_free(d, pinned); host_free(du, pinned); host_free(X, pinned);
    free(AB); free(B);
    return status;
}
