/* Batched factorizations and solves of many small matrices, fixed size, strided
 * (matrix k at A + k strideA, LAPACK layout), and of variable sizes (one size per matrix).
 * With GPUs a fixed-size factorization is cut into chunks of consecutive matrices, one task each
 * (codelets/codelet_zbatched.c), so CPU and GPU workers share the batch (the solves stay on the CPU
 * workers: solve_on_cpu_workers); chunk size:
 * starsolve_set_batch_chunk, else about TASK_FLOPS per task, with at least 4 tasks per worker
 * when the batch allows (chunk_size); except the factorizations fixed_by_split sends the way of
 * the variable sizes: shared from both ends (codelets/codelet_zvbatched.c). On CPU workers
 * alone, one task a worker shares the whole batch, claiming matrices in runs that shrink as the batch
 * runs out (fixed_claim; starsolve_set_batch_chunk sets a fixed claim).
 * Return 0 or a negative argument index; each matrix's LAPACK info goes to info[k]. */
#include <stdlib.h>
#include <string.h>
#include "algorithms.h"
#include "codelets.h"

/* Work a task holds when the chunk is automatic and there are GPUs. 100 MFLOP: with 20 MFLOP, on the 2-core
 * machine against the OpenMP loop of LAPACKE calls, StarPU's cost per task (~10 us there)
 * left potrf of order 64..256 at 0.93-0.96x; 100 MFLOP gave 0.97-0.99x (bench/NOTES.md,
 * session 22). Matrices of more than that go one per task. */
#define TASK_FLOPS 1e8

/* Matrices per task, with GPUs, for matrices of `flops` (real count) each: about TASK_FLOPS, at least 4
 * tasks a worker. The task count is then rounded up to a multiple of the workers and the matrices shared
 * out evenly: with 15 chunks of 142 matrices (the last of 60) on 2 CPU workers, one worker was busy 29.5 ms
 * and the other 28.4 of a 29.8 ms call; with 16 of 128, 28.8 and 28.6 (potrf of order 128, bench/NOTES.md,
 * session 32). */
static int chunk_size(double flops, int batch)
{
    if (ss_ctx.batch_chunk > 0)
        return ss_min(ss_ctx.batch_chunk, batch);
    int workers = (int)starpu_worker_get_count(), spread = (batch + 4 * workers - 1) / (4 * workers);
    double per_task = TASK_FLOPS / (flops > 1 ? flops : 1);
    int chunk = ss_max(1, ss_min(per_task >= batch ? batch : (int)per_task, spread));
    int tasks = (batch + chunk - 1) / chunk;
    if (tasks > 1)
        tasks = (tasks + workers - 1) / workers * workers;
    return (batch + tasks - 1) / tasks;
}

/* Claims a worker's share is cut into where CPU workers claim from a list (run_zvbatch_split,
 * run_zvbatch_solve_claims): enough that the batch's end
 * balances when the cores do not run at one speed (a late claim is 1/32 of a share), few enough that a claim
 * is a long run of consecutive matrices, which the hardware prefetchers follow from one matrix into the next
 * (claims of ~1e5 flops, one matrix of order 64, lost 3-7 % at orders 64-128 on 2 cores: bench/NOTES.md,
 * session 38). */
#define CLAIMS_PER_WORKER 32

/* Matrices a claim from such a list: starsolve_set_batch_chunk, else a share / CLAIMS_PER_WORKER */
static int claim_size(int batch)
{
    if (ss_ctx.batch_chunk > 0)
        return ss_min(ss_ctx.batch_chunk, batch);
    int workers = ss_max(1, (int)starpu_cpu_worker_get_count());
    return ss_max(1, batch / (CLAIMS_PER_WORKER * workers));
}

/* Matrices a claim of a fixed-size batch on CPU workers (run_zbatch_claims): starsolve_set_batch_chunk, else 0,
 * guided claims that shrink as the batch runs out (codelet_zbatched.c) */
static int fixed_claim(int batch)
{
    return ss_ctx.batch_chunk > 0 ? claim_size(batch) : 0;
}

/* One array of the batch: item k (a matrix, its pivots, its tau or its info)
 * starts at base + k stride elements and spans `extent` elements. */
struct batch_array {
    void *base;
    long stride;
    size_t extent, elemsize;
};

/* elements of an m x n LAPACK-layout matrix with leading dimension ld */
static size_t matrix_extent(int ld, int m, int n) { return (size_t)ld * (size_t)(n - 1) + (size_t)m; }

/* Whether the solves stay on the CPU workers with GPUs too. A solve reads each matrix once for 2 n^2 nrhs flops
 * (geqrs 4 m n nrhs): the caller's arrays cross the bus at a fraction of the host memory's speed, and cuBLAS /
 * cuSOLVER's batched solves are no faster once there. On the H100 machine (double, 64 MiB batches, best solve of
 * runs 4-10, chunks shared by 14 CPU workers and the GPU against claims on 14 CPU workers alone): getrs 1.1-4x
 * slower and potrs 1.3-3x at orders 32, 128 and 512 with 1, 4, 16 and 64 right-hand sides, every case slower
 * (bench/NOTES.md, session 43). With no CPU worker the GPU variant still takes them. */
static int solve_on_cpu_workers(const struct ss_batch_args *args)
{
    const int solve = args->op == SS_BATCH_GETRS || args->op == SS_BATCH_POTRS || args->op == SS_BATCH_GEQRS;
    return solve && starpu_cpu_worker_get_count() > 0;
}

/* Run the batch, wait for all: on CPU workers alone, and for the solves wherever there are CPU workers, by claims
 * (run_zbatch_claims), else cut in chunks, one task each (handles: each array's part of the chunk, in the
 * codelet's order); arrays[pinned] (the one the tasks write most) is then page-locked for the call. A batch the
 * GPUs do not take (ss_zbatch_cuda_takes), with no CPU worker, runs on the calling thread (run_zbatch_claims,
 * ss_run_on_cpu_workers): a task no worker can run would abort the call. */
static void run_batch(const struct ss_batch_args *args, int batch, int narrays, const struct batch_array *arrays,
                       int pinned)
{
    if (starpu_cuda_worker_get_count() == 0 || solve_on_cpu_workers(args)
        || (starpu_cpu_worker_get_count() == 0 && !ss_zbatch_cuda_takes(args))) {
        void *base[3] = { NULL, NULL, NULL };
        size_t item_bytes[3] = { 0, 0, 0 };
        for (int a = 0; a < narrays && a < 3; a++) {
            base[a] = arrays[a].base;
            item_bytes[a] = (size_t)arrays[a].stride * arrays[a].elemsize;
        }
        run_zbatch_claims(args, base, item_bytes, batch, fixed_claim(batch));
        return;
    }
    const struct batch_array *pa = &arrays[pinned];
    size_t pin_bytes = ss_pin_host(pa->base, ((size_t)(batch - 1) * pa->stride + pa->extent) * pa->elemsize);
    int chunk = chunk_size(ss_batch_flops(args), batch), nchunks = (batch + chunk - 1) / chunk;
    starpu_data_handle_t *h = malloc((size_t)narrays * nchunks * sizeof *h);
    for (int c = 0; c < nchunks; c++) {
        int first = c * chunk, count = ss_min(chunk, batch - first);
        for (int a = 0; a < narrays; a++) {
            const struct batch_array *x = &arrays[a];
            h[c * narrays + a] = ss_register_vector((char *)x->base + (size_t)first * x->stride * x->elemsize,
                                                    (size_t)(count - 1) * x->stride + x->extent, x->elemsize);
        }
        insert_zbatch(args, count, h + c * narrays);
    }
    for (int i = 0; i < narrays * nchunks; i++)
        starpu_data_unregister(h[i]);   /* waits for the chunk's task, brings the results home */
    free(h);
    ss_unpin_host(pa->base, pin_bytes);
}

/* With GPUs, a fixed-size factorization goes the variable-size way (run_zvbatch_split: the GPUs' front packs chunks
 * from one end, the CPU workers claim from the other and help the front copy) where that measured faster than
 * chunks as StarPU tasks (run_batch), which move the caller's memory to the GPU with no copy on the host but leave
 * the scheduler to balance the CPUs and the GPU. On the H100 machine (bench/NOTES.md, 512 MiB-1 GiB batches,
 * split / tasks):
 *   session 40, 14 CPU workers + the GPU, orders 32-512: getrf 0.40-0.70, potrf 0.48-0.84, geqrf 0.37-0.72
 *     (getrf at 64-512 took 0.52-0.62x the 16 CPU workers' time alone, the tasks 1.0-1.5x); session 41, after
 *     the split's chunks became pieces many CPUs copy: order 16 getrf 0.67 (it was 1.95);
 *   2 CPU workers + the GPU, orders 256-512: session 40 getrf 0.54-0.81, potrf 0.90-1.12, geqrf 0.31-0.42 (the
 *     split's getrf 512 twice as fast since, session 41); below 256 slower (session 41: getrf 16 / 64 / 128
 *     2.2 / 1.2 / 1.35, potrf 64 1.5, geqrf 64 1.0);
 *   no CPU worker: getrf 512 0.38, 256 1.02, 128 1.43 (session 40), 64 1.8 (session 41).
 * So: every order with at least 8 CPU workers a GPU, and orders of 256 up with any. starsolve_set_batch_pack(1)
 * takes the split always (on CPU workers alone too: tests reach it there), except the vendor's routines
 * (starsolve_set_batch_vendor), which take chunks as tasks. */
static int fixed_by_split(int m, int n)
{
    if (ss_ctx.batch_vendor)   /* the vendor's routines run in tasks only */
        return 0;
    if (ss_ctx.batch_pack)
        return 1;
    int gpus = starsolve_ngpus();
    if (gpus == 0)
        return 0;
    return (int)starpu_cpu_worker_get_count() >= 8 * gpus || ss_min(m, n) >= 256;
}

/* op on the batch of m x n matrices at A + b strideA, pivots or tau (aux_elemsize bytes each; NULL for potrf) at
 * aux + b strideAux, by run_zvbatch_split: each matrix's dims and addresses in the arrays it takes */
static void fixed_split_run(int op, char uplo, int m, int n, starsolve_complex64_t *A, int lda, long strideA, void *aux,
                            long strideAux, size_t aux_elemsize, int *info, int batch)
{
    int *idx = malloc(4 * (size_t)batch * sizeof *idx);
    starsolve_complex64_t **As = malloc((size_t)batch * sizeof *As);
    void **auxs = malloc((size_t)batch * sizeof *auxs);
    STARPU_ASSERT_MSG(idx && As && auxs, "starsolve: batched: out of memory");
    int *ms = idx + batch, *ns = idx + 2 * (size_t)batch, *ldas = idx + 3 * (size_t)batch;
    for (int b = 0; b < batch; b++) {
        idx[b] = b;
        ms[b] = m;
        ns[b] = n;
        ldas[b] = lda;
        As[b] = A + (size_t)b * strideA;
        auxs[b] = aux ? (char *)aux + (size_t)b * strideAux * aux_elemsize : NULL;
    }
    /* one shape: no padding */
    run_zvbatch_split(op, uplo, idx, batch, ms, ns, As, ldas, aux ? auxs : NULL, aux_elemsize, info, claim_size(batch),
                      ss_ctx.batch_pack, 0);
    free(idx);
    free(As);
    free(auxs);
}

/* The arguments getrf and geqrf share, at the same positions (m, n, A, lda, strideA,
 * ipiv or tau, its stride, info, batch): 0 or LAPACK's negative index. Zeroes info. */
static int check_factor_args(const char *me, int m, int n, const void *A, int lda, long strideA, const void *aux,
                             long strideAux, int *info, int batch)
{
    int k = ss_min(m, n);
    if (m < 0) return ss_arg_error(me, -1);
    if (n < 0) return ss_arg_error(me, -2);
    if (!A && batch > 0 && k > 0) return ss_arg_error(me, -3);
    if (lda < ss_max(1, m)) return ss_arg_error(me, -4);
    if (strideA < (long)lda * n) return ss_arg_error(me, -5);
    if (!aux && batch > 0 && k > 0) return ss_arg_error(me, -6);
    if (strideAux < k) return ss_arg_error(me, -7);
    if (!info && batch > 0) return ss_arg_error(me, -8);
    if (batch < 0) return ss_arg_error(me, -9);
    for (int b = 0; b < batch; b++)
        info[b] = 0;
    return 0;
}

int starsolve_zgetrf_batched(int m, int n, starsolve_complex64_t *A, int lda, long strideA, int *ipiv, long strideIpiv,
                             int *info, int batch)
{
    SS_PUBLIC_CALL;
    int bad = check_factor_args("starsolve_zgetrf_batched", m, n, A, lda, strideA, ipiv, strideIpiv, info, batch);
    int k = ss_min(m, n);
    if (bad || batch == 0 || k == 0) return bad;
    if (ss_ensure_init()) return -1000;
    if (fixed_by_split(m, n)) {
        fixed_split_run(SS_BATCH_GETRF, 'L', m, n, A, lda, strideA, ipiv, strideIpiv, sizeof *ipiv, info, batch);
        return 0;
    }
    struct ss_batch_args args = { .op = SS_BATCH_GETRF, .m = m, .n = n, .lda = lda, .strideA = strideA,
                                  .strideIpiv = strideIpiv };
    struct batch_array arrays[] = {
        { A, strideA, matrix_extent(lda, m, n), sizeof *A },
        { ipiv, strideIpiv, (size_t)k, sizeof *ipiv },
        { info, 1, 1, sizeof *info },
    };
    run_batch(&args, batch, 3, arrays, 0);
    return 0;
}

int starsolve_zpotrf_batched(char uplo, int n, starsolve_complex64_t *A, int lda, long strideA, int *info, int batch)
{
    SS_PUBLIC_CALL;
    const char *me = "starsolve_zpotrf_batched";
    uplo = ss_upper(uplo);
    if (uplo != 'L' && uplo != 'U') return ss_arg_error(me, -1);
    if (n < 0) return ss_arg_error(me, -2);
    if (!A && batch > 0 && n > 0) return ss_arg_error(me, -3);
    if (lda < ss_max(1, n)) return ss_arg_error(me, -4);
    if (strideA < (long)lda * n) return ss_arg_error(me, -5);
    if (!info && batch > 0) return ss_arg_error(me, -6);
    if (batch < 0) return ss_arg_error(me, -7);
    for (int b = 0; b < batch; b++)
        info[b] = 0;
    if (batch == 0 || n == 0) return 0;
    if (ss_ensure_init()) return -1000;
    if (fixed_by_split(n, n)) {
        fixed_split_run(SS_BATCH_POTRF, uplo, n, n, A, lda, strideA, NULL, 0, 0, info, batch);
        return 0;
    }
    struct ss_batch_args args = { .op = SS_BATCH_POTRF, .m = n, .n = n, .lda = lda, .strideA = strideA, .uplo = uplo };
    struct batch_array arrays[] = {
        { A, strideA, matrix_extent(lda, n, n), sizeof *A },
        { info, 1, 1, sizeof *info },
    };
    run_batch(&args, batch, 2, arrays, 0);
    return 0;
}

int starsolve_zgeqrf_batched(int m, int n, starsolve_complex64_t *A, int lda, long strideA, starsolve_complex64_t *tau,
                             long strideTau, int *info, int batch)
{
    SS_PUBLIC_CALL;
    int bad = check_factor_args("starsolve_zgeqrf_batched", m, n, A, lda, strideA, tau, strideTau, info, batch);
    int k = ss_min(m, n);
    if (bad || batch == 0 || k == 0) return bad;
    if (ss_ensure_init()) return -1000;
    if (fixed_by_split(m, n)) {
        fixed_split_run(SS_BATCH_GEQRF, 'L', m, n, A, lda, strideA, tau, strideTau, sizeof *tau, info, batch);
        return 0;
    }
    struct ss_batch_args args = { .op = SS_BATCH_GEQRF, .m = m, .n = n, .lda = lda, .strideA = strideA,
                                  .strideTau = strideTau };
    struct batch_array arrays[] = {
        { A, strideA, matrix_extent(lda, m, n), sizeof *A },
        { tau, strideTau, (size_t)k, sizeof *tau },
        { info, 1, 1, sizeof *info },
    };
    run_batch(&args, batch, 3, arrays, 0);
    return 0;
}

/* The solves only read A, the pivots and tau: a registration of the caller's
 * const arrays is safe (the tasks access them read-only, nothing is written back). */
int starsolve_zgetrs_batched(char trans, int n, int nrhs, const starsolve_complex64_t *A, int lda, long strideA,
                             const int *ipiv, long strideIpiv, starsolve_complex64_t *B, int ldb, long strideB, int batch)
{
    SS_PUBLIC_CALL;
    const char *me = "starsolve_zgetrs_batched";
    trans = ss_upper(trans);
    if (trans != 'N' && trans != 'T' && trans != 'C') return ss_arg_error(me, -1);
    if (n < 0) return ss_arg_error(me, -2);
    if (nrhs < 0) return ss_arg_error(me, -3);
    if (!A && batch > 0 && n > 0) return ss_arg_error(me, -4);
    if (lda < ss_max(1, n)) return ss_arg_error(me, -5);
    if (strideA < (long)lda * n) return ss_arg_error(me, -6);
    if (!ipiv && batch > 0 && n > 0) return ss_arg_error(me, -7);
    if (strideIpiv < n) return ss_arg_error(me, -8);
    if (!B && batch > 0 && n > 0 && nrhs > 0) return ss_arg_error(me, -9);
    if (ldb < ss_max(1, n)) return ss_arg_error(me, -10);
    if (strideB < (long)ldb * nrhs) return ss_arg_error(me, -11);
    if (batch < 0) return ss_arg_error(me, -12);
    if (batch == 0 || n == 0 || nrhs == 0) return 0;
    if (ss_ensure_init()) return -1000;
    struct ss_batch_args args = { .op = SS_BATCH_GETRS, .m = n, .n = n, .nrhs = nrhs, .lda = lda, .ldb = ldb,
                                  .strideA = strideA, .strideB = strideB, .strideIpiv = strideIpiv, .trans = trans };
    struct batch_array arrays[] = {
        { (void *)A, strideA, matrix_extent(lda, n, n), sizeof *A },
        { (void *)ipiv, strideIpiv, (size_t)n, sizeof *ipiv },
        { B, strideB, matrix_extent(ldb, n, nrhs), sizeof *B },
    };
    run_batch(&args, batch, 3, arrays, 2);
    return 0;
}

int starsolve_zpotrs_batched(char uplo, int n, int nrhs, const starsolve_complex64_t *A, int lda, long strideA,
                             starsolve_complex64_t *B, int ldb, long strideB, int batch)
{
    SS_PUBLIC_CALL;
    const char *me = "starsolve_zpotrs_batched";
    uplo = ss_upper(uplo);
    if (uplo != 'L' && uplo != 'U') return ss_arg_error(me, -1);
    if (n < 0) return ss_arg_error(me, -2);
    if (nrhs < 0) return ss_arg_error(me, -3);
    if (!A && batch > 0 && n > 0) return ss_arg_error(me, -4);
    if (lda < ss_max(1, n)) return ss_arg_error(me, -5);
    if (strideA < (long)lda * n) return ss_arg_error(me, -6);
    if (!B && batch > 0 && n > 0 && nrhs > 0) return ss_arg_error(me, -7);
    if (ldb < ss_max(1, n)) return ss_arg_error(me, -8);
    if (strideB < (long)ldb * nrhs) return ss_arg_error(me, -9);
    if (batch < 0) return ss_arg_error(me, -10);
    if (batch == 0 || n == 0 || nrhs == 0) return 0;
    if (ss_ensure_init()) return -1000;
    struct ss_batch_args args = { .op = SS_BATCH_POTRS, .m = n, .n = n, .nrhs = nrhs, .lda = lda, .ldb = ldb,
                                  .strideA = strideA, .strideB = strideB, .uplo = uplo };
    struct batch_array arrays[] = {
        { (void *)A, strideA, matrix_extent(lda, n, n), sizeof *A },
        { B, strideB, matrix_extent(ldb, n, nrhs), sizeof *B },
    };
    run_batch(&args, batch, 2, arrays, 1);
    return 0;
}

int starsolve_zgeqrs_batched(int m, int n, int nrhs, const starsolve_complex64_t *A, int lda, long strideA,
                             const starsolve_complex64_t *tau, long strideTau, starsolve_complex64_t *B, int ldb,
                             long strideB, int batch)
{
    SS_PUBLIC_CALL;
    const char *me = "starsolve_zgeqrs_batched";
    if (m < 0) return ss_arg_error(me, -1);
    if (n < 0 || n > m) return ss_arg_error(me, -2);
    if (nrhs < 0) return ss_arg_error(me, -3);
    if (!A && batch > 0 && n > 0) return ss_arg_error(me, -4);
    if (lda < ss_max(1, m)) return ss_arg_error(me, -5);
    if (strideA < (long)lda * n) return ss_arg_error(me, -6);
    if (!tau && batch > 0 && n > 0) return ss_arg_error(me, -7);
    if (strideTau < n) return ss_arg_error(me, -8);
    if (!B && batch > 0 && m > 0 && nrhs > 0) return ss_arg_error(me, -9);
    if (ldb < ss_max(1, m)) return ss_arg_error(me, -10);
    if (strideB < (long)ldb * nrhs) return ss_arg_error(me, -11);
    if (batch < 0) return ss_arg_error(me, -12);
    if (batch == 0 || n == 0 || nrhs == 0) return 0;
    if (ss_ensure_init()) return -1000;
    struct ss_batch_args args = { .op = SS_BATCH_GEQRS, .m = m, .n = n, .nrhs = nrhs, .lda = lda, .ldb = ldb,
                                  .strideA = strideA, .strideB = strideB, .strideTau = strideTau };
    struct batch_array arrays[] = {
        { (void *)A, strideA, matrix_extent(lda, m, n), sizeof *A },
        { (void *)tau, strideTau, (size_t)n, sizeof *tau },
        { B, strideB, matrix_extent(ldb, m, nrhs), sizeof *B },
    };
    run_batch(&args, batch, 3, arrays, 2);
    return 0;
}

/* ---- variable sizes: matrix k is m[k] x n[k] at A[k] with leading dimension lda[k].
 * Shared from both ends (run_zvbatch_split): the CPU workers claim runs from the back and factor them in place,
 * no handles; with GPUs the batch is sorted by shape first, and the GPUs take packed chunks of the smallest. */
/* One stable counting pass: idx[0 .. count) into out by key[idx[p]] (0 <= key <= kmax), equal keys in their order */
static void counting_pass(const int *idx, int *out, int count, const int *key, int kmax, int *counts)
{
    memset(counts, 0, ((size_t)kmax + 2) * sizeof *counts);
    for (int p = 0; p < count; p++)
        counts[key[idx[p]] + 1]++;
    for (int k = 0; k <= kmax; k++)
        counts[k + 1] += counts[k];
    for (int p = 0; p < count; p++)
        out[counts[key[idx[p]]]++] = idx[p];
}

/* idx[0 .. count) sorted by m, then n, then the caller's order (idx comes in it): two stable counting passes, by n
 * then by m (qsort took ~8.5 ms for 100000 matrices of orders 1-16, a quarter of the whole call with a GPU:
 * bench/NOTES.md, session 41). The count array has an int per order up to the largest order: as many bytes as
 * one column (or row) of the largest matrix holds in single precision. */
static void sort_by_shape(int *idx, int count, const int *m, const int *n)
{
    int mmax = 0, nmax = 0;
    for (int p = 0; p < count; p++) {
        mmax = ss_max(mmax, m[idx[p]]);
        nmax = ss_max(nmax, n[idx[p]]);
    }
    int *tmp = malloc((size_t)count * sizeof *tmp), *counts = malloc(((size_t)ss_max(mmax, nmax) + 2) * sizeof *counts);
    STARPU_ASSERT_MSG(tmp && counts, "starsolve: vbatched: out of memory");
    counting_pass(idx, tmp, count, n, nmax, counts);
    counting_pass(tmp, idx, count, m, mmax, counts);
    free(counts);
    free(tmp);
}

static void vbatched_run(int op, char uplo, const int *m, const int *n, starsolve_complex64_t *const *A, const int *lda,
                         void *const *aux, size_t aux_elemsize, int *info, int batch)
{
    /* the non-empty matrices, in order */
    int *idx = malloc((size_t)batch * sizeof *idx), nonempty = 0;
    STARPU_ASSERT_MSG(idx, "starsolve: vbatched: out of memory");
    for (int b = 0; b < batch; b++) {
        info[b] = 0;
        if (ss_min(m[b], n[b]) > 0)
            idx[nonempty++] = b;
    }
    if (nonempty > 0 && (starpu_cuda_worker_get_count() > 0 || ss_ctx.batch_pack))   /* a front: sorted by shape */
        sort_by_shape(idx, nonempty, m, n);
    if (nonempty > 0)   /* every member empty: nothing to do, every info 0 */
        run_zvbatch_split(op, uplo, idx, nonempty, m, n, A, lda, aux, aux_elemsize, info, claim_size(nonempty),
                          ss_ctx.batch_pack, 1);
    free(idx);
}

/* checks shared by the variable-size routines: returns 0 or the negative index of the bad argument */
static int vbatched_check(const int *m, const int *n, starsolve_complex64_t *const *A, const int *lda,
                          int has_aux, void *const *aux, const int *info, int batch, int first_arg)
{
    /* argument positions from first_arg: m, n, A, lda, [aux,] info, batch */
    if (batch < 0) return -(first_arg + 5 + has_aux);
    if (batch == 0) return 0;
    if (!m) return -first_arg;
    if (!n) return -(first_arg + 1);
    for (int b = 0; b < batch; b++) {
        if (m[b] < 0) return -first_arg;
        if (n[b] < 0) return -(first_arg + 1);
    }
    if (!A) return -(first_arg + 2);
    if (!lda) return -(first_arg + 3);
    for (int b = 0; b < batch; b++) {
        if (!A[b] && ss_min(m[b], n[b]) > 0) return -(first_arg + 2);
        if (lda[b] < ss_max(1, m[b])) return -(first_arg + 3);
    }
    if (has_aux) {
        if (!aux) return -(first_arg + 4);
        for (int b = 0; b < batch; b++)
            if (!aux[b] && ss_min(m[b], n[b]) > 0) return -(first_arg + 4);
    }
    if (!info) return -(first_arg + 4 + has_aux);
    return 0;
}

int starsolve_zgetrf_vbatched(const int *m, const int *n, starsolve_complex64_t *const *A, const int *lda,
                              int *const *ipiv, int *info, int batch)
{
    SS_PUBLIC_CALL;
    int bad = vbatched_check(m, n, A, lda, 1, (void *const *)ipiv, info, batch, 1);
    if (bad) return ss_arg_error("starsolve_zgetrf_vbatched", bad);
    if (batch == 0) return 0;
    if (ss_ensure_init()) return -1000;
    vbatched_run(SS_BATCH_GETRF, 'L', m, n, A, lda, (void *const *)ipiv, sizeof(int), info, batch);
    return 0;
}

int starsolve_zpotrf_vbatched(char uplo, const int *n, starsolve_complex64_t *const *A, const int *lda, int *info,
                              int batch)
{
    SS_PUBLIC_CALL;
    uplo = ss_upper(uplo);
    if (uplo != 'L' && uplo != 'U') return ss_arg_error("starsolve_zpotrf_vbatched", -1);
    /* n is both the rows and the columns (m = n for the checks); uplo takes m's place, so
     * A, lda, info, batch keep their positions 3, 4, 5, 6 */
    int bad = vbatched_check(n, n, A, lda, 0, NULL, info, batch, 1);
    if (bad) return ss_arg_error("starsolve_zpotrf_vbatched", bad >= -2 ? -2 : bad);
    if (batch == 0) return 0;
    if (ss_ensure_init()) return -1000;
    vbatched_run(SS_BATCH_POTRF, uplo, n, n, A, lda, NULL, 0, info, batch);
    return 0;
}

int starsolve_zgeqrf_vbatched(const int *m, const int *n, starsolve_complex64_t *const *A, const int *lda,
                              starsolve_complex64_t *const *tau, int *info, int batch)
{
    SS_PUBLIC_CALL;
    int bad = vbatched_check(m, n, A, lda, 1, (void *const *)tau, info, batch, 1);
    if (bad) return ss_arg_error("starsolve_zgeqrf_vbatched", bad);
    if (batch == 0) return 0;
    if (ss_ensure_init()) return -1000;
    vbatched_run(SS_BATCH_GEQRF, 'L', m, n, A, lda, (void *const *)tau, sizeof **tau, info, batch);
    return 0;
}

/* ---- variable-size solves with the factors of the routines above. On CPU workers, claims as for the
 * factorizations, also when there are GPUs: a solve reads its factors once (O(n^2) data for O(n^2 nrhs) work),
 * so sending them to a GPU would take longer than solving where they are. */

/* the solves' checks: returns 0 or the negative position of the first bad argument. pos_m: m's position (0: no
 * m, the matrices are n x n), then n, nrhs, A, lda, [aux,] B, ldb, batch follow each other from pos_n. */
static int vsolve_check(int pos_m, int pos_n, const int *m, const int *n, const int *nrhs,
                        const starsolve_complex64_t *const *A, const int *lda, int has_aux, const void *const *aux,
                        starsolve_complex64_t *const *B, const int *ldb, int batch)
{
    const int pos_nrhs = pos_n + 1, pos_A = pos_n + 2, pos_lda = pos_n + 3, pos_aux = pos_n + 4;
    const int pos_B = pos_n + 4 + has_aux, pos_ldb = pos_B + 1, pos_batch = pos_B + 2;
    if (batch < 0) return -pos_batch;
    if (batch == 0) return 0;
    if (pos_m && !m) return -pos_m;
    if (!n) return -pos_n;
    if (!nrhs) return -pos_nrhs;
    if (!A) return -pos_A;
    if (!lda) return -pos_lda;
    if (has_aux && !aux) return -pos_aux;
    if (!B) return -pos_B;
    if (!ldb) return -pos_ldb;
    for (int b = 0; b < batch; b++) {
        int rows = pos_m ? m[b] : n[b];
        if (pos_m && m[b] < 0) return -pos_m;
        if (n[b] < 0 || n[b] > rows) return -pos_n;   /* geqrs: m >= n, as LAPACK's gels without transposition */
        if (nrhs[b] < 0) return -pos_nrhs;
        if (!A[b] && n[b] > 0) return -pos_A;
        if (lda[b] < ss_max(1, rows)) return -pos_lda;
        if (has_aux && !aux[b] && n[b] > 0) return -pos_aux;
        if (!B[b] && rows > 0 && nrhs[b] > 0) return -pos_B;
        if (ldb[b] < ss_max(1, rows)) return -pos_ldb;
    }
    return 0;
}

/* the matrices with something to solve, then the solves (s: the arguments) */
static void vsolve_run(const struct ss_zvbatch_solve *s, int batch)
{
    int *idx = malloc((size_t)batch * sizeof *idx), count = 0;
    STARPU_ASSERT_MSG(idx, "starsolve: vbatched solve: out of memory");
    for (int b = 0; b < batch; b++)
        if (s->n[b] > 0 && s->nrhs[b] > 0)
            idx[count++] = b;
    run_zvbatch_solve_claims(s, idx, count, claim_size(count));   /* no CPU worker: the calling thread */
    free(idx);
}

int starsolve_zgetrs_vbatched(char trans, const int *n, const int *nrhs, const starsolve_complex64_t *const *A,
                              const int *lda, const int *const *ipiv, starsolve_complex64_t *const *B, const int *ldb,
                              int batch)
{
    SS_PUBLIC_CALL;
    const char *me = "starsolve_zgetrs_vbatched";
    trans = ss_upper(trans);
    if (trans != 'N' && trans != 'T' && trans != 'C') return ss_arg_error(me, -1);
    int bad = vsolve_check(0, 2, NULL, n, nrhs, A, lda, 1, (const void *const *)ipiv, B, ldb, batch);
    if (bad) return ss_arg_error(me, bad);
    if (batch == 0) return 0;
    if (ss_ensure_init()) return -1000;
    struct ss_zvbatch_solve s = { .op = SS_BATCH_GETRS, .trans = trans, .m = n, .n = n, .nrhs = nrhs, .lda = lda,
                                  .ldb = ldb, .A = A, .aux = (const void *const *)ipiv, .B = B };
    vsolve_run(&s, batch);
    return 0;
}

int starsolve_zpotrs_vbatched(char uplo, const int *n, const int *nrhs, const starsolve_complex64_t *const *A,
                              const int *lda, starsolve_complex64_t *const *B, const int *ldb, int batch)
{
    SS_PUBLIC_CALL;
    const char *me = "starsolve_zpotrs_vbatched";
    uplo = ss_upper(uplo);
    if (uplo != 'L' && uplo != 'U') return ss_arg_error(me, -1);
    int bad = vsolve_check(0, 2, NULL, n, nrhs, A, lda, 0, NULL, B, ldb, batch);
    if (bad) return ss_arg_error(me, bad);
    if (batch == 0) return 0;
    if (ss_ensure_init()) return -1000;
    struct ss_zvbatch_solve s = { .op = SS_BATCH_POTRS, .uplo = uplo, .m = n, .n = n, .nrhs = nrhs, .lda = lda,
                                  .ldb = ldb, .A = A, .B = B };
    vsolve_run(&s, batch);
    return 0;
}

int starsolve_zgeqrs_vbatched(const int *m, const int *n, const int *nrhs, const starsolve_complex64_t *const *A,
                              const int *lda, const starsolve_complex64_t *const *tau, starsolve_complex64_t *const *B,
                              const int *ldb, int batch)
{
    SS_PUBLIC_CALL;
    int bad = vsolve_check(1, 2, m, n, nrhs, A, lda, 1, (const void *const *)tau, B, ldb, batch);
    if (bad) return ss_arg_error("starsolve_zgeqrs_vbatched", bad);
    if (batch == 0) return 0;
    if (ss_ensure_init()) return -1000;
    struct ss_zvbatch_solve s = { .op = SS_BATCH_GEQRS, .m = m, .n = n, .nrhs = nrhs, .lda = lda, .ldb = ldb, .A = A,
                                  .aux = (const void *const *)tau, .B = B };
    vsolve_run(&s, batch);
    return 0;
}
