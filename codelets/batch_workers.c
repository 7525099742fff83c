/* What the batched codelets of every precision share (codelet_?batched.c, codelet_?vbatched.c): a small matrix
 * asked into cache before its factorization (not Cholesky's), and tasks pinned to workers, which the batches
 * shared by claims use (each such task takes plain pointers to the caller's arrays, no StarPU handle). */
#include "codelets.h"

/* Matrices up to this size have the next one prefetched (into every cache level) before their
 * factorization (LU and QR: ss_batch_prefetches): small factorizations start on a cold matrix
 * each time, and the hardware prefetcher has too few lines of one column to learn the stream.
 * On 2 cores of an EPYC (1 MiB L2 a core), 256 MiB of matrices (bench/batched.sh), potrf of
 * order 64 went from 26 to 32-33 GF/s and getrf of order 64 and 128 gained 2-6 %; from order
 * 256 on, prefetching the whole next matrix or its first 128 KiB gained nothing (bench/NOTES.md,
 * session 32). */
#define PREFETCH_MAX_BYTES ((size_t)128 << 10)

/* Whether a CPU variant of op asks for the next matrix before each factorization: LU and QR, not Cholesky. On
 * Intel Xeons Cholesky ran faster without, against the OpenMP loop of LAPACKE calls: the GPU machine's 16 cores
 * (an H200 host), 1 GiB, orders 32 / 64 / 128 at 5.3-5.5 / 0.94-1.00 / 0.92-0.98x with none, 5.0-5.3 / 0.87-0.91
 * / 0.83-0.93x with the whole next matrix, 5.2-5.4 / 0.86-0.89 / 0.88-0.95x with its lower triangle (the part
 * Cholesky reads); 2 cores, 256 MiB, order 128: 1.00-1.03x with none against 0.91-0.95x, while LU of order 128
 * gained 4-6 % there (bench/NOTES.md, sessions 59-60). Session 32's AMD EPYC had measured potrf of order 64 24 %
 * faster with it; AMD has not been measured since. */
int ss_batch_prefetches(int op)
{
    return op != SS_BATCH_POTRF;
}

/* Ask for the m x n matrix A (leading dimension lda) in cache, for writing, if it is small.
 * noipa: GCC 12 finds a function of prefetches alone free of side effects (pure-const) and
 * drops every call to it at -O2. */
__attribute__((noipa)) void ss_prefetch_matrix(const void *A, size_t elemsize, int m, int n, int lda)
{
    size_t column_bytes = (size_t)m * elemsize;
    if (column_bytes * n > PREFETCH_MAX_BYTES)
        return;
    for (int j = 0; j < n; j++) {
        const char *column = (const char *)A + (size_t)j * lda * elemsize;
        for (size_t b = 0; b < column_bytes; b += 64)
            __builtin_prefetch(column + b, 1, 3);
    }
}

/* one task of cl pinned to worker id, not yet waited for */
struct starpu_task *ss_submit_on_worker(struct starpu_codelet *cl, void *arg, int id)
{
    struct starpu_task *t = starpu_task_create();
    t->cl = cl;
    t->cl_arg = arg;
    t->detach = 0;
    t->execute_on_a_specific_worker = 1;
    t->workerid = (unsigned)id;
    int ret = starpu_task_submit(t);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_submit (%s)", cl->name);
    return t;
}

/* one task of codelet cl (cl_arg arg, shared: on the caller's stack) on each CPU worker, on `most` of them at
 * most (none if most <= 0), pinned to it whatever the scheduler's models say; returns when all have run. With
 * no CPU worker (GPUs only) the calling thread runs cl's CPU function itself: the claims' functions read only
 * their cl_arg, and a task no worker can run would abort the call. */
void ss_run_on_cpu_workers(struct starpu_codelet *cl, void *arg, long most)
{
    if (most <= 0)
        return;
    int ids[STARPU_NMAXWORKERS], n = starpu_worker_get_ids_by_type(STARPU_CPU_WORKER, ids, STARPU_NMAXWORKERS);
    if (n == 0) {
        cl->cpu_funcs[0](NULL, arg);
        return;
    }
    if (n > most)
        n = (int)most;
    struct starpu_task *tasks[STARPU_NMAXWORKERS];
    for (int w = 0; w < n; w++)
        tasks[w] = ss_submit_on_worker(cl, arg, ids[w]);
    for (int w = 0; w < n; w++) {
        int ret = starpu_task_wait(tasks[w]);
        STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_wait (%s)", cl->name);
    }
}
