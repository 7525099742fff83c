/* The variable-size batched LU (starsolve_dgetrf_vbatched) against an OpenMP loop of LAPACKE_dgetrf_work over
 * the same matrices and cores (schedule(dynamic, 4), as starpu_batched -vendor's reference), in one process:
 *   bench/vbatched_cpu BATCH MIN MAX [NITER [PACK]]
 * orders uniform in MIN..MAX (seed 1), square, lda = m; PACK 1: starsolve_set_batch_pack(1) (packed chunks, the
 * GPUs' path, also on CPU workers alone; default 0). Each run: ours on fresh copies, then the loop on fresh
 * copies with StarPU's workers paused; every info checked (0 expected: random matrices). Prints each run's
 * times, then the best of each and loop / ours (> 1: ours is faster). Exit 1 on a nonzero info or return. */
#include <lapacke.h>
#include <omp.h>
#include <starpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "starsolve.h"

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: bench/vbatched_cpu BATCH MIN MAX [NITER [PACK]]\n");
        return 2;
    }
    int batch = atoi(argv[1]), lo = atoi(argv[2]), hi = atoi(argv[3]), niter = argc > 4 ? atoi(argv[4]) : 5;
    int pack = argc > 5 ? atoi(argv[5]) : 0;
    if (batch < 1 || lo < 1 || hi < lo || niter < 1 || (pack != 0 && pack != 1)) {
        fprintf(stderr, "vbatched_cpu: need BATCH >= 1, 1 <= MIN <= MAX, NITER >= 1, PACK 0 or 1\n");
        return 2;
    }
    int *m = malloc((size_t)batch * sizeof *m), *info = malloc((size_t)batch * sizeof *info);
    double **A = malloc((size_t)batch * sizeof *A), **A0 = malloc((size_t)batch * sizeof *A0);
    int **ipiv = malloc((size_t)batch * sizeof *ipiv);
    srand(1);
    double flops = 0;
    for (int b = 0; b < batch; b++) {
        m[b] = lo + rand() % (hi - lo + 1);
        size_t count = (size_t)m[b] * m[b];
        A[b] = malloc(count * sizeof **A);
        A0[b] = malloc(count * sizeof **A0);
        ipiv[b] = malloc((size_t)m[b] * sizeof **ipiv);
        for (size_t i = 0; i < count; i++)
            A0[b][i] = rand() / (double)RAND_MAX - 0.5;
        flops += 2.0 * m[b] * m[b] * m[b] / 3;
    }
    if (starsolve_init(NULL) != 0) {
        fprintf(stderr, "vbatched_cpu: starsolve_init failed\n");
        return 1;
    }
    starsolve_set_batch_pack(pack);
    omp_set_num_threads(starsolve_ncpus() > 0 ? starsolve_ncpus() : 1);
    double best_ours = 0, best_loop = 0;
    int failed = 0;
    for (int run = 1; run <= niter; run++) {
        for (int b = 0; b < batch; b++)
            memcpy(A[b], A0[b], (size_t)m[b] * m[b] * sizeof **A);
        double t0 = omp_get_wtime();
        int ret = starsolve_dgetrf_vbatched(m, m, A, m, ipiv, info, batch);
        double ours = omp_get_wtime() - t0;
        for (int b = 0; b < batch; b++)
            failed |= ret != 0 || info[b] != 0;
        for (int b = 0; b < batch; b++)
            memcpy(A[b], A0[b], (size_t)m[b] * m[b] * sizeof **A);
        starpu_pause();
        t0 = omp_get_wtime();
#pragma omp parallel for schedule(dynamic, 4)
        for (int b = 0; b < batch; b++)
            info[b] = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, m[b], m[b], A[b], m[b], ipiv[b]);
        double loop = omp_get_wtime() - t0;
        starpu_resume();
        printf("run %d: starsolve %.4f s, loop %.4f s\n", run, ours, loop);
        best_ours = run == 1 || ours < best_ours ? ours : best_ours;
        best_loop = run == 1 || loop < best_loop ? loop : best_loop;
    }
    printf("dgetrf_vbatched, %d matrices of orders %d..%d, %d CPU workers, %d CUDA, pack %d: starsolve best %.4f s %.2f GF/s, "
           "OpenMP loop best %.4f s %.2f GF/s, loop / starsolve %.2f%s\n", batch, lo, hi, starsolve_ncpus(), (int)starpu_cuda_worker_get_count(), pack, best_ours,
           flops / best_ours / 1e9, best_loop, flops / best_loop / 1e9, best_loop / best_ours,
           failed ? " (FAILED: a nonzero info or return)" : "");
    starsolve_finalize();
    return failed;
}
