/* bench/batched_gpu, one precision (generic source, see scripts/genprec.sh): our
 * batched GPU factorizations (codelets/zbatched_cuda.c) called directly on
 * matrices already in GPU memory, outside StarPU, so that every chunk runs on
 * the GPU and the times compare with the vendor's measured the same way
 * (BASELINES.md).
 *   test:  sizes 1..32 and a few to 64 (the small-size kernels where batched_small.cuh's
 *          small_most_order takes them: to 64 in s's LU and s and d's Cholesky, else 32; panels
 *          above; the tiled kernels only where STARSOLVE_BATCH_TILED_* asks for them, and
 *          the Cholesky from 561 in d, c, z, see zbatched_cuda.c) and 65 .. 1024 (panel
 *          kernels and GEMMs: the register panels up to 512 rows, 700's first panels in shared
 *          memory, batched_regpanel.cuh), rectangular
 *          shapes small and large, padded strided batches with one singular
 *          (getrf), not positive definite (potrf L and U) or zero-subcolumn (geqrf)
 *          member; each member's backward error <= 30, LAPACK's info, the padding
 *          and (potrf) the other triangle untouched; the automatic choice and a
 *          forced panel width of 8 (the panel kernels and
 *          GEMMs at small sizes too; sizes 1, 7, 32 and the large ones).
 *   bench: ours against cuBLAS getrfBatched / cuSOLVER potrfBatched (lower) /
 *          cuBLAS geqrfBatched on the same matrices, best of niter each,
 *          factorization alone (no host copies), a sample of our results checked;
 *          where the small-size kernels run (nb 0, ss_cuda_batch_small_taken) from order 8, also
 *          our panel kernel on the whole matrix (nb = m, the path before them): "panel s". */
#include <complex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lapacke.h>
#include "codelets.h"
#include "check.h"
#include "../bench/batched_gpu.h"

#define CUDA_OK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "batched_gpu: %s: %s\n", #call, cudaGetErrorString(e_)); exit(1); } } while (0)
#define STATUS_OK(call) do { int s_ = (int)(call); if (s_ != 0) { \
    fprintf(stderr, "batched_gpu: %s: status %d\n", #call, s_); exit(1); } } while (0)

static int failures;

static void verdict(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void verdict(int ok, const char *fmt, ...)
{
    va_list ap;
    printf("%s ", ok ? "ok  " : "FAIL");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    failures += !ok;
}

static void *host(size_t bytes)
{
    void *p = calloc(bytes ? bytes : 1, 1);
    if (!p) { fprintf(stderr, "batched_gpu: out of host memory (%zu bytes)\n", bytes); exit(1); }
    return p;
}

static void *device(size_t bytes)
{
    void *p;
    CUDA_OK(cudaMalloc(&p, bytes ? bytes : 1));
    return p;
}

static double worse(double worst, double r) { return r > worst || r != r ? r : worst; }

/* every element of the batch array outside the m x n matrices (padding, gaps) is as it was */
static int padding_kept(const starsolve_complex64_t *A0, const starsolve_complex64_t *A, int m, int n, int lda,
                        long sA, int batch)
{
    for (long e = 0; e < sA * batch; e++) {
        long inside = e % sA, col = inside / lda, row = inside % lda;
        if ((col >= n || row >= m) && memcmp(&A0[e], &A[e], sizeof *A) != 0)
            return 0;
    }
    return 1;
}

static void test_getrf(cublasHandle_t h, cudaStream_t s, int m, int n, int nb)
{
    int batch = (m > n ? m : n) <= 33 ? 13 : (m > n ? m : n) <= 100 ? 6 : 3, lda = m + 1, k = m < n ? m : n;
    int bad = batch / 2, zero_col = k / 2;
    long sA = (long)lda * n + 3, sP = k + 2;
    size_t abytes = (size_t)sA * batch * sizeof(starsolve_complex64_t);
    starsolve_complex64_t *A0 = host(abytes), *A = host(abytes);
    int *ipiv = host((size_t)sP * batch * sizeof *ipiv), *info = host((size_t)batch * sizeof *info);
    for (int b = 0; b < batch; b++)
        gen_zmatrix(m, n, A0 + b * sA, lda, 900 + b);
    for (int i = 0; i < m; i++)
        A0[bad * sA + i + (size_t)zero_col * lda] = 0;   /* U(zero_col, zero_col) = 0 in member `bad` */
    cuDoubleComplex *dA = device(abytes);
    int *dP = device((size_t)sP * batch * sizeof *dP), *dI = device((size_t)batch * sizeof *dI);
    void *work = device(ss_zbatch_cuda_work_bytes(SS_BATCH_GETRF, m, n, batch, nb));
    CUDA_OK(cudaMemcpy(dA, A0, abytes, cudaMemcpyHostToDevice));
    ss_zbatch_getrf_cuda(h, s, m, n, dA, lda, sA, dP, sP, dI, batch, nb, work);
    CUDA_OK(cudaStreamSynchronize(s));
    CUDA_OK(cudaMemcpy(A, dA, abytes, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(ipiv, dP, (size_t)sP * batch * sizeof *ipiv, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(info, dI, (size_t)batch * sizeof *info, cudaMemcpyDeviceToHost));
    double worst = 0;
    int infos_ok = info[bad] >= 1 && info[bad] <= zero_col + 1;
    for (int b = 0; b < batch; b++)
        if (b != bad) {
            infos_ok &= info[b] == 0;
            worst = worse(worst, check_zgetrf(m, n, A0 + b * sA, lda, A + b * sA, lda, ipiv + b * sP, 1));
        }
    int kept = padding_kept(A0, A, m, n, lda, sA, batch);
    verdict(infos_ok && kept && worst <= 30, "zgetrf m=%d n=%d nb=%d batch=%d: worst ||PA-LU||/(||A|| n eps) %.3g, "
            "infos %s (singular member: %d, want 1..%d), padding %s", m, n, nb, batch, worst,
            infos_ok ? "right" : "WRONG", info[bad], zero_col + 1, kept ? "kept" : "CHANGED");
    free(A0); free(A); free(ipiv); free(info);
    cudaFree(dA); cudaFree(dP); cudaFree(dI); cudaFree(work);
}

static void test_potrf(cublasHandle_t h, cudaStream_t s, char uplo, int n, int nb)
{
    int batch = n <= 33 ? 13 : n <= 100 ? 6 : 3, lda = n + 2, bad = batch - 1, j = n / 2;
    long sA = (long)lda * n + 1;
    size_t abytes = (size_t)sA * batch * sizeof(starsolve_complex64_t);
    starsolve_complex64_t *A0 = host(abytes), *A = host(abytes);
    int *info = host((size_t)batch * sizeof *info);
    for (int b = 0; b < batch; b++)
        gen_zhpd(n, A0 + b * sA, lda, 700 + b);
    A0[bad * sA + j + (size_t)j * lda] = -100.0 * n;   /* leading minor j+1 is not positive definite */
    cuDoubleComplex *dA = device(abytes);
    int *dI = device((size_t)batch * sizeof *dI);
    void *work = device(ss_zbatch_cuda_work_bytes(SS_BATCH_POTRF, n, n, batch, nb));
    CUDA_OK(cudaMemcpy(dA, A0, abytes, cudaMemcpyHostToDevice));
    ss_zbatch_potrf_cuda(h, s, uplo, n, dA, lda, sA, dI, batch, nb, work);
    CUDA_OK(cudaStreamSynchronize(s));
    CUDA_OK(cudaMemcpy(A, dA, abytes, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(info, dI, (size_t)batch * sizeof *info, cudaMemcpyDeviceToHost));
    double worst = 0;
    int infos_ok = info[bad] == j + 1, other_kept = 1;
    for (int b = 0; b < batch; b++) {
        for (int c = 0; c < n; c++)   /* the triangle potrf does not own, in every member */
            for (int r = 0; r < n; r++)
                if ((uplo == 'L' ? r < c : r > c) &&
                    memcmp(&A0[b * sA + r + (size_t)c * lda], &A[b * sA + r + (size_t)c * lda], sizeof *A) != 0)
                    other_kept = 0;
        if (b != bad) {
            infos_ok &= info[b] == 0;
            worst = worse(worst, check_zpotrf(uplo, n, A0 + b * sA, lda, A + b * sA, lda, 1));
        }
    }
    int kept = padding_kept(A0, A, n, n, lda, sA, batch);
    verdict(infos_ok && kept && other_kept && worst <= 30, "zpotrf uplo=%c n=%d nb=%d batch=%d: worst "
            "||A-LL^H||/(||A|| n eps) %.3g, infos %s (non-SPD member: %d, want %d), other triangle %s, padding %s",
            uplo, n, nb, batch, worst, infos_ok ? "right" : "WRONG", info[bad], j + 1,
            other_kept ? "kept" : "CHANGED", kept ? "kept" : "CHANGED");
    free(A0); free(A); free(info);
    cudaFree(dA); cudaFree(dI); cudaFree(work);
}

static void test_geqrf(cublasHandle_t h, cudaStream_t s, int m, int n, int nb)
{
    int batch = (m > n ? m : n) <= 33 ? 13 : (m > n ? m : n) <= 100 ? 6 : 3, lda = m + 1, k = m < n ? m : n;
    long sA = (long)lda * n + 2, sT = k + 1;
    size_t abytes = (size_t)sA * batch * sizeof(starsolve_complex64_t), tbytes = (size_t)sT * batch * sizeof(starsolve_complex64_t);
    starsolve_complex64_t *A0 = host(abytes), *A = host(abytes), *tau = host(tbytes), *Q = host((size_t)m * k * sizeof *Q);
    int *info = host((size_t)batch * sizeof *info);
    for (int b = 0; b < batch; b++)
        gen_zmatrix(m, n, A0 + b * sA, lda, 800 + b);
    for (int i = 1; i < m; i++)   /* member 1: the first column zero below the diagonal (larfg's xnorm = 0) */
        A0[1 * sA + i] = 0;
    cuDoubleComplex *dA = device(abytes), *dT = device(tbytes);
    int *dI = device((size_t)batch * sizeof *dI);
    void *work = device(ss_zbatch_cuda_work_bytes(SS_BATCH_GEQRF, m, n, batch, nb));
    CUDA_OK(cudaMemcpy(dA, A0, abytes, cudaMemcpyHostToDevice));
    ss_zbatch_geqrf_cuda(h, s, m, n, dA, lda, sA, dT, sT, dI, batch, nb, work);
    CUDA_OK(cudaStreamSynchronize(s));
    CUDA_OK(cudaMemcpy(A, dA, abytes, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(tau, dT, tbytes, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(info, dI, (size_t)batch * sizeof *info, cudaMemcpyDeviceToHost));
    double worst = 0, worst_orth = 0;
    int infos_ok = 1;
    for (int b = 0; b < batch; b++) {
        double orth;
        infos_ok &= info[b] == 0;
        /* Q by LAPACK's ungqr from our V and tau: LAPACK's layout or nothing */
        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', m, k, A + b * sA, lda, Q, m);
        LAPACKE_zungqr(LAPACK_COL_MAJOR, m, k, k, Q, m, tau + b * sT);
        worst = worse(worst, check_zgeqrf(m, n, A0 + b * sA, lda, A + b * sA, lda, Q, m, &orth));
        worst_orth = worse(worst_orth, orth);
    }
    int kept = padding_kept(A0, A, m, n, lda, sA, batch);
    verdict(infos_ok && kept && worst <= 30 && worst_orth <= 30, "zgeqrf m=%d n=%d nb=%d batch=%d: worst "
            "||A-QR||/(||A|| n eps) %.3g, ||I-Q^HQ||/(n eps) %.3g (Q from LAPACK's ungqr), infos %s, padding %s",
            m, n, nb, batch, worst, worst_orth, infos_ok ? "0" : "WRONG", kept ? "kept" : "CHANGED");
    free(A0); free(A); free(tau); free(Q); free(info);
    cudaFree(dA); cudaFree(dT); cudaFree(dI); cudaFree(work);
}

int test_zbatched_gpu(void)
{
    cublasHandle_t h;
    cudaStream_t s;
    STATUS_OK(cublasCreate(&h));
    CUDA_OK(cudaStreamCreate(&s));
    STATUS_OK(cublasSetStream(h, s));
    failures = 0;
    /* 1..64: the small-size kernels with nb 0 where they are used (segments of 1 to 32 lanes, 64 = two
     * warps; small_most_order), panels beyond;
     * 36 / 37: the last order of the whole-matrix LU panel and the first of panels; 65, 97, 129: a
     * Cholesky panel one column short of 32 so that the last is not one column (33 in z: of 16);
     * 72: the LU not nested (below 96); forced width 8: a few; 560 / 561: the last order of the
     * Cholesky panels of 32 (d, c) or 16 (z) columns and the first of the tiled Cholesky above 512
     * (d, c, z; 1024 its largest); 577: its last panel of 33 columns (tiled_potrf_width) */
    static const int sizes[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
                                 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 36, 37, 40, 47, 55, 63, 64, 65, 72, 97, 100,
                                 128, 129, 150, 256, 300, 512, 560, 561, 577, 700, 1024 };
    static const int shapes[][2] = { { 2, 1 }, { 1, 2 }, { 32, 5 }, { 5, 32 }, { 17, 9 }, { 9, 17 }, { 32, 31 },
                                     { 31, 32 }, { 16, 8 }, { 8, 16 }, { 64, 33 }, { 33, 64 }, { 64, 63 },
                                     { 40, 25 }, { 25, 40 }, { 60, 20 }, { 20, 60 }, { 300, 70 }, { 70, 300 },
                                     { 128, 100 }, { 100, 128 }, { 128, 40 }, { 40, 128 } };
    for (int forced = 0; forced <= 1; forced++) {
        int nb = forced ? 8 : 0;   /* 8: panels of 8 columns, the blocked path on small matrices too */
        for (size_t t = 0; t < sizeof sizes / sizeof *sizes; t++) {
            if (forced && sizes[t] != 1 && sizes[t] != 7 && sizes[t] < 32)
                continue;
            test_getrf(h, s, sizes[t], sizes[t], nb);
            test_potrf(h, s, 'L', sizes[t], nb);
            test_potrf(h, s, 'U', sizes[t], nb);
            test_geqrf(h, s, sizes[t], sizes[t], nb);
        }
        for (size_t t = 0; t < sizeof shapes / sizeof *shapes; t++) {
            test_getrf(h, s, shapes[t][0], shapes[t][1], nb);
            test_geqrf(h, s, shapes[t][0], shapes[t][1], nb);
        }
    }
    cublasDestroy(h);
    cudaStreamDestroy(s);
    return failures;
}

/* ---- bench: square m x m matrices, about `mib` MiB of them */
static double elapsed(cudaEvent_t a, cudaEvent_t b)
{
    float ms;
    CUDA_OK(cudaEventElapsedTime(&ms, a, b));
    return ms * 1e-3;
}

int run_zbatched_gpu(const char *op_name, int m, int mib, int niter, int nb)
{
    int op = !strcmp(op_name, "potrf") ? SS_BATCH_POTRF : !strcmp(op_name, "geqrf") ? SS_BATCH_GEQRF : SS_BATCH_GETRF;
    if (!ss_zbatch_cuda_applies(op, m, m, nb)) {   /* -nb too wide for a block: StarPU would run it on CPUs */
        printf("# %s m=%d: panels of %d columns do not fit in a thread block, skipped\n", op_name, m, nb);
        return 0;
    }
    const long sA = (long)m * m;
    int batch = (int)(mib * 1048576.0 / ((double)sA * sizeof(starsolve_complex64_t)));
    batch = batch < 1 ? 1 : batch;
    size_t abytes = (size_t)sA * batch * sizeof(starsolve_complex64_t);
    /* 64 distinct matrices repeated over the batch: generating a GiB on the host takes long */
    int distinct = batch < 64 ? batch : 64;
    starsolve_complex64_t *A0 = host((size_t)sA * distinct * sizeof *A0), *A = host((size_t)sA * distinct * sizeof *A);
    for (int b = 0; b < distinct; b++) {
        if (op == SS_BATCH_POTRF)
            gen_zhpd(m, A0 + b * sA, m, 100 + b);
        else
            gen_zmatrix(m, m, A0 + b * sA, m, 100 + b);
    }
    cuDoubleComplex *dA0 = device(abytes), *dA = device(abytes), *dT = device((size_t)m * batch * sizeof *dT);
    int *dP = device((size_t)m * batch * sizeof *dP), *dI = device((size_t)batch * sizeof *dI);
    for (int b = 0; b < batch; b += distinct)
        CUDA_OK(cudaMemcpy(dA0 + (size_t)b * sA, A0, (size_t)sA * (batch - b < distinct ? batch - b : distinct) * sizeof *A0,
                           cudaMemcpyHostToDevice));
    void *work = device(ss_zbatch_cuda_work_bytes(op, m, m, batch, nb));
    cuDoubleComplex **ptrs = host((size_t)batch * sizeof *ptrs), **tptrs = host((size_t)batch * sizeof *tptrs);
    for (int b = 0; b < batch; b++) {
        ptrs[b] = dA + (size_t)b * sA;
        tptrs[b] = dT + (size_t)b * m;
    }
    cuDoubleComplex **dptrs = device((size_t)batch * sizeof *dptrs), **dtptrs = device((size_t)batch * sizeof *dtptrs);
    CUDA_OK(cudaMemcpy(dptrs, ptrs, (size_t)batch * sizeof *ptrs, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(dtptrs, tptrs, (size_t)batch * sizeof *tptrs, cudaMemcpyHostToDevice));
    cublasHandle_t h;
    cusolverDnHandle_t sol;
    cudaStream_t s;
    cudaEvent_t e0, e1;
    STATUS_OK(cublasCreate(&h));
    STATUS_OK(cusolverDnCreate(&sol));
    CUDA_OK(cudaStreamCreate(&s));
    STATUS_OK(cublasSetStream(h, s));
    STATUS_OK(cusolverDnSetStream(sol, s));
    CUDA_OK(cudaEventCreate(&e0));
    CUDA_OK(cudaEventCreate(&e1));
    double ours = 0, vendor = 0, panel = 0;
    int info_sum = 0;
    /* nb 0 on a size the small-size kernels take: also the panel kernel on the whole matrix (nb = m); not
     * below order 8, where a GiB is tens of millions of matrices and that side took 0.02-0.17 s a run (H200) */
    int sides = nb == 0 && m >= 8 && ss_cuda_batch_small_taken(op, m, m, sizeof(starsolve_complex64_t), SS_COMPLEX_ARITH)
                    ? 3 : 2;
    void *pwork = sides == 3 ? device(ss_zbatch_cuda_work_bytes(op, m, m, batch, m)) : NULL;
    for (int side = 0; side < sides; side++)      /* 0 ours, 1 the vendor's, 2 our panel kernel */
        for (int run = 0; run <= niter; run++) {  /* run 0: warm-up, not timed */
            CUDA_OK(cudaMemcpyAsync(dA, dA0, abytes, cudaMemcpyDeviceToDevice, s));
            CUDA_OK(cudaEventRecord(e0, s));
            if (side == 0 || side == 2) {
                int snb = side == 2 ? m : nb;
                void *swork = side == 2 ? pwork : work;
                if (op == SS_BATCH_GETRF)
                    ss_zbatch_getrf_cuda(h, s, m, m, dA, m, sA, dP, m, dI, batch, snb, swork);
                else if (op == SS_BATCH_POTRF)
                    ss_zbatch_potrf_cuda(h, s, 'L', m, dA, m, sA, dI, batch, snb, swork);
                else
                    ss_zbatch_geqrf_cuda(h, s, m, m, dA, m, sA, dT, m, dI, batch, snb, swork);
            } else {
                int qinfo = 0;
                if (op == SS_BATCH_GETRF)
                    STATUS_OK(cublasZgetrfBatched(h, m, dptrs, m, dP, dI, batch));
                else if (op == SS_BATCH_POTRF)
                    STATUS_OK(cusolverDnZpotrfBatched(sol, CUBLAS_FILL_MODE_LOWER, m, dptrs, m, dI, batch));
                else
                    STATUS_OK(cublasZgeqrfBatched(h, m, m, dptrs, m, dtptrs, &qinfo, batch));
                if (qinfo != 0) { fprintf(stderr, "batched_gpu: cublasZgeqrfBatched argument %d\n", -qinfo); exit(1); }
            }
            CUDA_OK(cudaEventRecord(e1, s));
            CUDA_OK(cudaEventSynchronize(e1));
            double t = elapsed(e0, e1);
            if (run > 0 && side == 0)
                ours = run == 1 || t < ours ? t : ours;
            if (run > 0 && side == 1)
                vendor = run == 1 || t < vendor ? t : vendor;
            if (run > 0 && side == 2)
                panel = run == 1 || t < panel ? t : panel;
            if (side == 0 && run == niter) {   /* check our last run on the distinct matrices */
                int *info = host((size_t)distinct * sizeof *info), *ipiv = host((size_t)m * distinct * sizeof *ipiv);
                starsolve_complex64_t *tau = host((size_t)m * distinct * sizeof *tau), *Q = host((size_t)sA * sizeof *Q);
                CUDA_OK(cudaMemcpy(A, dA, (size_t)sA * distinct * sizeof *A, cudaMemcpyDeviceToHost));
                CUDA_OK(cudaMemcpy(info, dI, (size_t)distinct * sizeof *info, cudaMemcpyDeviceToHost));
                CUDA_OK(cudaMemcpy(ipiv, dP, (size_t)m * distinct * sizeof *ipiv, cudaMemcpyDeviceToHost));
                CUDA_OK(cudaMemcpy(tau, dT, (size_t)m * distinct * sizeof *tau, cudaMemcpyDeviceToHost));
                double worst = 0;
                int checked = distinct < 8 ? distinct : 8;
                for (int b = 0; b < checked; b++) {
                    double orth = 0, r;
                    info_sum |= info[b];
                    if (op == SS_BATCH_GETRF) {
                        r = check_zgetrf(m, m, A0 + b * sA, m, A + b * sA, m, ipiv + (size_t)b * m, 1);
                    } else if (op == SS_BATCH_POTRF) {
                        r = check_zpotrf('L', m, A0 + b * sA, m, A + b * sA, m, 1);
                    } else {
                        LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', m, m, A + b * sA, m, Q, m);
                        LAPACKE_zungqr(LAPACK_COL_MAJOR, m, m, m, Q, m, tau + (size_t)b * m);
                        r = check_zgeqrf(m, m, A0 + b * sA, m, A + b * sA, m, Q, m, &orth);
                    }
                    worst = worse(worse(worst, r), orth);
                }
                if (!(worst <= 30) || info_sum)
                    failures++;
                printf("# %s m=%d: %d of our results checked: worst backward error %.3g, infos %s\n", op_name, m,
                       checked, worst, info_sum ? "NOT 0" : "0");
                free(info); free(ipiv); free(tau); free(Q);
            }
        }
    struct ss_batch_args fa = { .op = op, .m = m, .n = m };
    double flops = ss_batch_flops(&fa) * SS_FLOP_SCALE * batch;
    printf("%-6s %5d %7d %10.4f %8.3f %10.4f %8.3f %7.2f", op_name, m, batch, ours, flops / ours * 1e-12, vendor,
           flops / vendor * 1e-12, vendor / ours);
    if (sides == 3)
        printf(" %10.4f %8.2f\n", panel, panel / ours);
    else
        printf(" %10s %8s\n", "-", "-");
    fflush(stdout);
    cublasDestroy(h); cusolverDnDestroy(sol); cudaStreamDestroy(s); cudaEventDestroy(e0); cudaEventDestroy(e1);
    cudaFree(dA0); cudaFree(dA); cudaFree(dT); cudaFree(dP); cudaFree(dI); cudaFree(work); cudaFree(pwork); cudaFree(dptrs); cudaFree(dtptrs);
    free(A0); free(A); free(ptrs); free(tptrs);
    return failures;
}
