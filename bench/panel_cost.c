/* What one step of a tile factorization costs on the GPU, each kernel alone
 * (matrix already in GPU memory, one stream, nothing else running): cuSOLVER's
 * getrf on an m x b panel (the LU panel task), potrf on a b x b tile (the
 * Cholesky diagonal task), and the update GEMM of one tile column,
 * (m - b) x b x b. Compare the panel's time with the column GEMM's: with n/b
 * columns per step, the panel is hidden only while it costs less than the
 * updates that can run beside it.
 * Then the same column update on separate b x b tiles (how StarPU holds them):
 * one cublasDgemmBatched over the tiles against one cublasDgemm per tile in a
 * loop, for the codelets' choice (codelet_zgemm_tiles.c).
 * Then (-ours "LEAF/BLOCKS ...") the LU panel on a random m x b panel (real pivoting, no diagonal
 * boost): cuSOLVER's getrf against ours (codelet_zgetrf_panel.c: recursion over one-kernel leaves of
 * LEAF columns on grids of at most BLOCKS blocks, 0: one per SM), with ours checked against cuSOLVER's
 * (the same pivots, factors within a relative 1e-10).
 *   bench/panel_cost [-m "40000 32768 16384"] [-b "256 512 1024 2048"] [-niter 5] [-ours "32/0 16/0 64/0"]
 * Prints milliseconds (best of niter after one warm-up call) and TF/s. Double precision. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cusolverDn.h>

/* the library's GPU LU panel and its leaves' workspace (codelets/codelets.h; libstarsolve) */
void ss_cuda_dgetrf_panel_leaves(cublasHandle_t blas, cudaStream_t stream, void *P, int m, int n, int leaf,
                                 int max_blocks, int *ipiv, int *info, void *work);
size_t ss_cuda_getrf_leaf_work_bytes(size_t elemsize);
int ss_cuda_getrf_leaf_width(size_t elemsize, int m, int want, int max_blocks);

#define CUDA(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "panel_cost: %s: %s\n", #call, cudaGetErrorString(e_)); exit(1); } } while (0)
#define STATUS(call) do { int s_ = (int)(call); if (s_ != 0) { \
    fprintf(stderr, "panel_cost: %s: status %d\n", #call, s_); exit(1); } } while (0)

enum { MAX_LIST = 16 };

static int parse_list(const char *text, int *out)
{
    int count = 0;
    char *copy = strdup(text), *save = NULL;
    for (char *tok = strtok_r(copy, " ,", &save); tok && count < MAX_LIST; tok = strtok_r(NULL, " ,", &save))
        out[count++] = atoi(tok);
    free(copy);
    return count;
}

/* fills a with uniform values in (low, 1) from the LCG seeded with `seed`, plus (diag) a large
 * diagonal, so that potrf and getrf never stop early; low -1 without diag: a panel whose pivots move rows */
static void fill_from(double *dev, int m, int n, double low, int diag, unsigned seed)
{
    size_t count = (size_t)m * n;
    double *host = malloc(count * sizeof(double));
    unsigned state = seed;
    for (size_t i = 0; i < count; i++) {
        state = state * 1103515245u + 12345u;
        host[i] = low + (1 - low) * ((state >> 8) / 16777216.0);
    }
    for (int j = 0; diag && j < n && j < m; j++)
        host[j + (size_t)j * m] += m;
    CUDA(cudaMemcpy(dev, host, count * sizeof(double), cudaMemcpyHostToDevice));
    free(host);
}

/* uniform (0, 1) values, (diag) plus a large diagonal */
static void fill(double *dev, int m, int n, int diag) { fill_from(dev, m, n, 0, diag, 12345); }

struct timer { cudaEvent_t start, stop; cudaStream_t stream; };

static double elapsed_ms(struct timer *t)
{
    float ms;
    CUDA(cudaEventRecord(t->stop, t->stream));
    CUDA(cudaEventSynchronize(t->stop));
    CUDA(cudaEventElapsedTime(&ms, t->start, t->stop));
    return ms;
}


/* cuSOLVER's getrf against our panel on the same random panel, and ours checked against it */
static void ours_table(struct timer *t, cusolverDnHandle_t solver, cublasHandle_t blas, const int *ms, int nm,
                       const int *bs, int nbs, int niter, char *const *variants, int nvariants)
{
    printf("\n%7s %5s %-10s %6s %12s %9s %12s %8s %s\n", "m", "b", "ours", "leaf", "cusolver ms", "ours ms", "TF/s",
           "ratio", "check against cuSOLVER");
    for (int im = 0; im < nm; im++)
        for (int ib = 0; ib < nbs; ib++) {
            int m = ms[im], b = bs[ib], lwork = 0;
            if (b > m)
                continue;
            size_t count = (size_t)m * b, bytes = count * sizeof(double);
            double *original, *panel, *reference, *work;
            int *ipiv, *ipiv_ref, *info;
            CUDA(cudaMalloc((void **)&original, bytes));
            CUDA(cudaMalloc((void **)&panel, bytes));
            CUDA(cudaMalloc((void **)&reference, bytes));
            CUDA(cudaMalloc((void **)&ipiv, 2 * (size_t)b * sizeof(int)));
            CUDA(cudaMalloc((void **)&info, 2 * sizeof(int)));
            ipiv_ref = ipiv + b;
            fill_from(original, m, b, -1, 0, 777);
            STATUS(cusolverDnDgetrf_bufferSize(solver, m, b, panel, m, &lwork));
            size_t work_bytes = (size_t)lwork * sizeof(double);
            if (work_bytes < ss_cuda_getrf_leaf_work_bytes(sizeof(double)))
                work_bytes = ss_cuda_getrf_leaf_work_bytes(sizeof(double));
            CUDA(cudaMalloc((void **)&work, work_bytes));
            double cus = 1e30;
            for (int it = 0; it <= niter; it++) {
                CUDA(cudaMemcpyAsync(reference, original, bytes, cudaMemcpyDeviceToDevice, t->stream));
                CUDA(cudaEventRecord(t->start, t->stream));
                STATUS(cusolverDnDgetrf(solver, m, b, reference, m, work, ipiv_ref, info + 1));
                double ms_ = elapsed_ms(t);
                cus = it > 0 && ms_ < cus ? ms_ : cus;
            }
            double *host = malloc(2 * bytes);
            int *hpiv = malloc(2 * (size_t)b * sizeof(int));
            CUDA(cudaMemcpy(host + count, reference, bytes, cudaMemcpyDeviceToHost));
            for (int v = 0; v < nvariants; v++) {
                int want = atoi(variants[v]), blocks = strchr(variants[v], '/') ? atoi(strchr(variants[v], '/') + 1) : 0;
                int leaf = ss_cuda_getrf_leaf_width(sizeof(double), m, want, blocks);
                if (leaf == 0) {
                    printf("%7d %5d %-10s %6s (no leaf fits)\n", m, b, variants[v], "-");
                    continue;
                }
                double best = 1e30;
                for (int it = 0; it <= niter; it++) {
                    CUDA(cudaMemcpyAsync(panel, original, bytes, cudaMemcpyDeviceToDevice, t->stream));
                    CUDA(cudaEventRecord(t->start, t->stream));
                    ss_cuda_dgetrf_panel_leaves(blas, t->stream, panel, m, b, leaf, blocks, ipiv, info, work);
                    double ms_ = elapsed_ms(t);
                    best = it > 0 && ms_ < best ? ms_ : best;
                }
                CUDA(cudaMemcpy(host, panel, bytes, cudaMemcpyDeviceToHost));
                CUDA(cudaMemcpy(hpiv, ipiv, 2 * (size_t)b * sizeof(int), cudaMemcpyDeviceToHost));
                int same = 0, infos[2];
                CUDA(cudaMemcpy(infos, info, 2 * sizeof(int), cudaMemcpyDeviceToHost));
                for (int j = 0; j < b; j++)
                    same += hpiv[j] == hpiv[b + j];
                double diff = 0, scale = 0;   /* max |ours - cuSOLVER's|, max |cuSOLVER's| */
                for (size_t i = 0; i < count; i++) {
                    diff = fmax(diff, fabs(host[i] - host[count + i]));
                    scale = fmax(scale, fabs(host[count + i]));
                }
                double flops = (double)m * b * b - (double)b * b * b / 3;
                int ok = same == b && diff <= 1e-10 * scale && infos[0] == infos[1];
                printf("%7d %5d %-10s %6d %12.3f %9.3f %12.2f %8.2f %s (pivots %d/%d, max diff %.1e of %.1e, info %d/%d)\n",
                       m, b, variants[v], leaf, cus, best, flops / best / 1e9, cus / best, ok ? "ok" : "FAILED", same, b,
                       diff, scale, infos[0], infos[1]);
                fflush(stdout);
            }
            free(host);
            free(hpiv);
            CUDA(cudaFree(original));
            CUDA(cudaFree(panel));
            CUDA(cudaFree(reference));
            CUDA(cudaFree(ipiv));
            CUDA(cudaFree(info));
            CUDA(cudaFree(work));
        }
}

int main(int argc, char **argv)
{
    int ms[MAX_LIST] = { 40000, 32768, 16384 }, bs[MAX_LIST] = { 256, 512, 1024, 2048 };
    int nm = 3, nbs = 4, niter = 5, nours = 0;
    char *ours[MAX_LIST];
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-m"))
            nm = parse_list(argv[i + 1], ms);
        else if (!strcmp(argv[i], "-b"))
            nbs = parse_list(argv[i + 1], bs);
        else if (!strcmp(argv[i], "-niter"))
            niter = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-ours")) {
            char *copy = strdup(argv[i + 1]), *save = NULL;
            for (char *tok = strtok_r(copy, " ,", &save); tok && nours < MAX_LIST; tok = strtok_r(NULL, " ,", &save))
                ours[nours++] = tok;
        } else {
            fprintf(stderr, "usage: panel_cost [-m \"M ...\"] [-b \"B ...\"] [-niter K] [-ours \"LEAF/BLOCKS ...\"]\n");
            return 2;
        }
    }
    if (nm < 1 || nbs < 1 || niter < 1) {
        fprintf(stderr, "panel_cost: empty size list or niter < 1\n");
        return 2;
    }
    struct timer t;
    CUDA(cudaStreamCreate(&t.stream));
    CUDA(cudaEventCreate(&t.start));
    CUDA(cudaEventCreate(&t.stop));
    cusolverDnHandle_t solver;
    cublasHandle_t blas;
    STATUS(cusolverDnCreate(&solver));
    STATUS(cusolverDnSetStream(solver, t.stream));
    STATUS(cublasCreate(&blas));
    STATUS(cublasSetStream(blas, t.stream));

    printf("%7s %5s %12s %9s %12s %9s %12s %9s %8s\n", "m", "b", "getrf ms", "TF/s", "potrf ms", "TF/s",
           "gemm ms", "TF/s", "panel/gemm");
    for (int im = 0; im < nm; im++)
        for (int ib = 0; ib < nbs; ib++) {
            int m = ms[im], b = bs[ib];
            if (b > m)
                continue;
            double *panel, *original, *work, *tile, *c;
            int *ipiv, *info, lwork = 0;
            size_t panel_bytes = (size_t)m * b * sizeof(double);
            CUDA(cudaMalloc((void **)&panel, panel_bytes));
            CUDA(cudaMalloc((void **)&original, panel_bytes));
            CUDA(cudaMalloc((void **)&c, panel_bytes));
            CUDA(cudaMalloc((void **)&tile, (size_t)b * b * sizeof(double)));
            CUDA(cudaMalloc((void **)&ipiv, (size_t)b * sizeof(int)));
            CUDA(cudaMalloc((void **)&info, sizeof(int)));
            fill(original, m, b, 1);
            fill(c, m, b, 0);
            STATUS(cusolverDnDgetrf_bufferSize(solver, m, b, panel, m, &lwork));
            int lwork_potrf = 0;
            STATUS(cusolverDnDpotrf_bufferSize(solver, CUBLAS_FILL_MODE_LOWER, b, tile, b, &lwork_potrf));
            if (lwork_potrf > lwork)
                lwork = lwork_potrf;
            CUDA(cudaMalloc((void **)&work, (size_t)lwork * sizeof(double) + 16));

            double best[3] = { 1e30, 1e30, 1e30 };
            const double one = 1.0, mone = -1.0;
            for (int it = 0; it <= niter; it++) {   /* iteration 0 warms up (module loading) */
                CUDA(cudaMemcpyAsync(panel, original, panel_bytes, cudaMemcpyDeviceToDevice, t.stream));
                CUDA(cudaEventRecord(t.start, t.stream));
                STATUS(cusolverDnDgetrf(solver, m, b, panel, m, work, ipiv, info));
                double getrf = elapsed_ms(&t);
                /* the leading b x b block of the diagonally loaded panel is SPD enough for potrf */
                CUDA(cudaMemcpy2DAsync(tile, b * sizeof(double), original, m * sizeof(double), b * sizeof(double), b,
                                       cudaMemcpyDeviceToDevice, t.stream));
                CUDA(cudaEventRecord(t.start, t.stream));
                STATUS(cusolverDnDpotrf(solver, CUBLAS_FILL_MODE_LOWER, b, tile, b, work, lwork, info));
                double potrf = elapsed_ms(&t);
                CUDA(cudaEventRecord(t.start, t.stream));
                STATUS(cublasDgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, m - b, b, b, &mone, original + b, m, original, m,
                                   &one, c + b, m));
                double gemm = elapsed_ms(&t);
                if (it > 0) {
                    best[0] = getrf < best[0] ? getrf : best[0];
                    best[1] = potrf < best[1] ? potrf : best[1];
                    best[2] = gemm < best[2] ? gemm : best[2];
                }
            }
            double fl_getrf = (double)m * b * b - (double)b * b * b / 3, fl_potrf = (double)b * b * b / 3;
            double fl_gemm = 2.0 * (m - b) * b * b;
            printf("%7d %5d %12.3f %9.2f %12.3f %9.2f %12.3f %9.2f %8.2f\n", m, b, best[0], fl_getrf / best[0] / 1e9,
                   best[1], fl_potrf / best[1] / 1e9, best[2], fl_gemm / best[2] / 1e9, best[0] / best[2]);
            fflush(stdout);
            CUDA(cudaFree(panel));
            CUDA(cudaFree(original));
            CUDA(cudaFree(c));
            CUDA(cudaFree(tile));
            CUDA(cudaFree(ipiv));
            CUDA(cudaFree(info));
            CUDA(cudaFree(work));
        }
    printf("\n%7s %5s %6s %12s %9s %12s %9s\n", "m", "b", "tiles", "batched ms", "TF/s", "loop ms", "TF/s");
    for (int im = 0; im < nm; im++)
        for (int ib = 0; ib < nbs; ib++) {
            int b = bs[ib], tiles = ms[im] / b - 1;   /* the tiles below the diagonal of the first step */
            if (tiles < 1)
                continue;
            size_t tile = (size_t)b * b;
            double *a, *bt, *c, **ptr, **dptr;
            CUDA(cudaMalloc((void **)&a, tile * tiles * sizeof(double)));
            CUDA(cudaMalloc((void **)&c, tile * tiles * sizeof(double)));
            CUDA(cudaMalloc((void **)&bt, tile * sizeof(double)));
            CUDA(cudaMalloc((void **)&dptr, 3 * (size_t)tiles * sizeof(double *)));
            ptr = malloc(3 * (size_t)tiles * sizeof(double *));
            fill(a, b, b * tiles, 0);
            fill(c, b, b * tiles, 0);
            fill(bt, b, b, 0);
            for (int t = 0; t < tiles; t++) {
                ptr[t] = a + t * tile;
                ptr[tiles + t] = bt;
                ptr[2 * tiles + t] = c + t * tile;
            }
            CUDA(cudaMemcpy(dptr, ptr, 3 * (size_t)tiles * sizeof(double *), cudaMemcpyHostToDevice));
            const double one = 1.0, mone = -1.0;
            double best[2] = { 1e30, 1e30 };
            for (int it = 0; it <= niter; it++) {
                CUDA(cudaEventRecord(t.start, t.stream));
                STATUS(cublasDgemmBatched(blas, CUBLAS_OP_N, CUBLAS_OP_T, b, b, b, &mone,
                                          (const double *const *)dptr, b, (const double *const *)(dptr + tiles), b,
                                          &one, dptr + 2 * tiles, b, tiles));
                double batched = elapsed_ms(&t);
                CUDA(cudaEventRecord(t.start, t.stream));
                for (int k = 0; k < tiles; k++)
                    STATUS(cublasDgemm(blas, CUBLAS_OP_N, CUBLAS_OP_T, b, b, b, &mone, ptr[k], b, bt, b, &one,
                                       ptr[2 * tiles + k], b));
                double loop = elapsed_ms(&t);
                if (it > 0) {
                    best[0] = batched < best[0] ? batched : best[0];
                    best[1] = loop < best[1] ? loop : best[1];
                }
            }
            double flops = 2.0 * b * b * (double)b * tiles;
            printf("%7d %5d %6d %12.3f %9.2f %12.3f %9.2f\n", ms[im], b, tiles, best[0], flops / best[0] / 1e9,
                   best[1], flops / best[1] / 1e9);
            fflush(stdout);
            free(ptr);
            CUDA(cudaFree(a));
            CUDA(cudaFree(c));
            CUDA(cudaFree(bt));
            CUDA(cudaFree(dptr));
        }
    if (nours > 0)
        ours_table(&t, solver, blas, ms, nm, bs, nbs, niter, ours, nours);
    cusolverDnDestroy(solver);
    cublasDestroy(blas);
    return 0;
}
