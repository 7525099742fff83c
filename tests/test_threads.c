/* make check: the library called from several application threads at once, as a
 * program that links it in place of LAPACK may (double precision: the threads and
 * the shared state are the same for the four).
 *
 * The threads make the library's first calls themselves, with no starsolve_init
 * before them, so that they race to start it (ss_ensure_init). Each thread then
 * solves its own systems, one routine family per thread and round: gesv, posv,
 * gesv_rbt, gbsv_spike and getrf_batched, each checked against its backward-error
 * bound. starsolve_finalize must then stop StarPU (started once, not once per
 * thread), and a second round's first calls must start the library again.
 * Last, the idle workers: paused between calls (the application's sleep costs no CPU time), polling
 * with idle_pause_ms < 0, napping between polls where they hold every core (less than half the polling's CPU
 * time), a call after a pause solves, and an asynchronous call's tasks keep their workers. */
#include <pthread.h>
#include <sched.h>   /* sched_getaffinity, CPU_COUNT (_GNU_SOURCE: Makefile.am) */
#include <sys/resource.h>
#include <unistd.h>
#include <starpu.h>
#include "testing.h"

struct testing_counts testing_counts;
static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;

#define NTHREADS 5

/* one check from a thread: TEST_CHECK's counters are plain longs */
#define THREAD_CHECK(cond, ...)                                                                                        \
    do {                                                                                                               \
        pthread_mutex_lock(&count_lock);                                                                               \
        TEST_CHECK(cond, __VA_ARGS__);                                                                                 \
        pthread_mutex_unlock(&count_lock);                                                                             \
    } while (0)

static void dense(int which, int n, unsigned seed)
{
    double *A = testing_alloc((size_t)n * n * sizeof *A), *A0 = testing_alloc((size_t)n * n * sizeof *A0);
    double *B = testing_alloc((size_t)n * 2 * sizeof *B), *X = testing_alloc((size_t)n * 2 * sizeof *X);
    int *ipiv = testing_alloc((size_t)n * sizeof *ipiv), iters = 0, info;
    if (which == 1)
        gen_dhpd(n, A0, n, seed);
    else
        gen_dmatrix(n, n, A0, n, seed);
    gen_dmatrix(n, 2, B, n, seed + 1);
    memcpy(A, A0, (size_t)n * n * sizeof *A);
    memcpy(X, B, (size_t)n * 2 * sizeof *X);
    const char *name = which == 0 ? "dgesv" : which == 1 ? "dposv" : "dgesv_rbt";
    info = which == 0 ? starsolve_dgesv(n, 2, A, n, ipiv, X, n)
         : which == 1 ? starsolve_dposv('L', n, 2, A, n, X, n)
                      : starsolve_dgesv_rbt(n, 2, A, n, X, n, 2, 5, &iters);
    double r = check_dsolve('N', n, 2, A0, n, X, n, B, n);
    THREAD_CHECK(info == 0 && check_passes(r), "%s n=%d from a thread: info %d, scaled residual %.3g", name, n, info, r);
    free(A); free(A0); free(B); free(X); free(ipiv);
}

static void banded(int n, unsigned seed)
{
    const int k = 3, ldab = 3 * k + 1;
    double *AB = testing_alloc((size_t)ldab * n * sizeof *AB), *B = testing_alloc((size_t)n * sizeof *B),
           *X = testing_alloc((size_t)n * sizeof *X);
    gen_dband(n, k, k, 10, AB, ldab, seed);
    gen_dmatrix(n, 1, B, n, seed + 1);
    memcpy(X, B, (size_t)n * sizeof *X);
    int iters = 0, info = starsolve_dgbsv_spike(n, k, k, 1, AB, ldab, X, n, &iters);
    double relative, r = check_dgbsolve(n, k, k, 1, AB, ldab, X, n, B, n, &relative);
    THREAD_CHECK(info == 0 && check_passes(r) && relative <= 1e-10,
                 "dgbsv_spike n=%d K=%d from a thread: info %d, iters %d, scaled residual %.3g, relative %.3g", n, k, info,
                 iters, r, relative);
    free(AB); free(B); free(X);
}

static void batched(int m, unsigned seed)
{
    const int batch = 200;
    const size_t sA = (size_t)m * m;
    double *A = testing_alloc(sA * batch * sizeof *A), *A0 = testing_alloc(sA * batch * sizeof *A0);
    int *ipiv = testing_alloc((size_t)m * batch * sizeof *ipiv), *info = testing_alloc(batch * sizeof *info);
    for (int b = 0; b < batch; b++)
        gen_dmatrix(m, m, A0 + b * sA, m, seed + (unsigned)b);
    memcpy(A, A0, sA * batch * sizeof *A);
    int ret = starsolve_dgetrf_batched(m, m, A, m, (long)sA, ipiv, m, info, batch), infos = 0;
    double worst = 0;
    for (int b = 0; b < batch; b++) {
        infos |= info[b];
        double r = check_dgetrf(m, m, A0 + b * sA, m, A + b * sA, m, ipiv + (size_t)b * m, 1);
        worst = r > worst || r != r ? r : worst;
    }
    THREAD_CHECK(ret == 0 && infos == 0 && check_passes(worst), "dgetrf_batched m=%d batch=%d from a thread: %d, infos %s, worst %.3g",
                 m, batch, ret, infos ? "not 0" : "0", worst);
    free(A); free(A0); free(ipiv); free(info);
}

struct job {
    int thread, round;
};

static void *run_job(void *arg)
{
    const struct job *j = arg;
    unsigned seed = 100u * (unsigned)j->round + 10u * (unsigned)j->thread;
    switch ((j->thread + j->round) % NTHREADS) {
    case 0: dense(0, 301 + j->thread, seed); break;
    case 1: dense(1, 257 + j->thread, seed); break;
    case 2: dense(2, 199 + j->thread, seed); break;
    case 3: banded(20011 + j->thread, seed); break;
    default: batched(24 + j->thread, seed); break;
    }
    return NULL;
}

static void round_of_threads(int round)
{
    pthread_t threads[NTHREADS];
    struct job jobs[NTHREADS];
    int started[NTHREADS];
    for (int t = 0; t < NTHREADS; t++) {
        jobs[t] = (struct job){ t, round };
        started[t] = pthread_create(&threads[t], NULL, run_job, &jobs[t]) == 0;
        THREAD_CHECK(started[t], "pthread_create, round %d thread %d", round, t);   /* the earlier threads count too */
    }
    for (int t = 0; t < NTHREADS; t++)
        if (started[t])
            pthread_join(threads[t], NULL);
}

/* user and system CPU seconds of the whole process so far */
static double process_cpu_seconds(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_utime.tv_sec + 1e-6 * (double)u.ru_utime.tv_usec + (double)u.ru_stime.tv_sec +
           1e-6 * (double)u.ru_stime.tv_usec;
}

/* The library started with this idle_pause_ms (STARSOLVE_IDLE_PAUSE_MS removed: it would win over cfg) */
static void init_with_idle_pause(int pause_ms)
{
    starsolve_config_t cfg;
    starsolve_config_init(&cfg);
    cfg.idle_pause_ms = pause_ms;
    unsetenv("STARSOLVE_IDLE_PAUSE_MS");
    TEST_CHECK(starsolve_init(&cfg) == 0, "idle_pause_ms %d: starsolve_init", pause_ms);
}

/* whether StarPU's workers hold every core this process may run on: the library's idle CPU workers nap then */
static int workers_hold_every_core(void)
{
    cpu_set_t allowed;
    long cores = sched_getaffinity(0, sizeof allowed, &allowed) == 0 ? CPU_COUNT(&allowed)
                                                                   : sysconf(_SC_NPROCESSORS_ONLN);
    return (long)starpu_worker_get_count() >= cores;
}

/* A call, then the application sleeps past idle_pause_ms: the CPU time the process spends over 0.3 s
 * more of sleep is the idle workers' (StarPU 1.3's workers poll while they have no task; the library's nap
 * between polls where they hold every core, unless STARSOLVE_IDLE_NAP is 0). Then another call, which must
 * resume paused workers and solve. Returns the CPU time; *napping: whether the workers held every core. */
static double idle_workers(int pause_ms, int naps, int *napping)
{
    if (naps)
        unsetenv("STARSOLVE_IDLE_NAP");
    else
        setenv("STARSOLVE_IDLE_NAP", "0", 1);
    init_with_idle_pause(pause_ms);
    *napping = naps && workers_hold_every_core();
    dense(0, 301, 7);
    usleep(200000);
    double before = process_cpu_seconds();
    usleep(300000);
    double used = process_cpu_seconds() - before;
    if (pause_ms >= 0)
        TEST_CHECK(used < 0.03, "idle_pause_ms %d: %.3f s of CPU time over 0.3 s after a call (paused workers: ~0)",
                   pause_ms, used);
    else if (!*napping)   /* the measure sees polling workers: at least a fifth of one core's time, even beside
                             other tests (make -j2 check on 2 cores: 0.34 s) */
        TEST_CHECK(used > 0.06, "idle_pause_ms %d, no naps: %.3f s of CPU time over 0.3 s after a call (polling "
                   "workers)", pause_ms, used);
    dense(1, 257, 8);   /* after the pause */
    starsolve_finalize();
    unsetenv("STARSOLVE_IDLE_NAP");
    return used;
}

/* An asynchronous tile call returns with its tasks still submitted; the application then does not call the
 * library until request_wait. The workers must not be paused meanwhile (the idle thread sees the submitted
 * tasks): with idle_pause_ms 1 the tasks must all end while the application sleeps, before request_wait. */
static void idle_async(void)
{
    init_with_idle_pause(1);
    const int n = 1000, nb = 50;   /* 400 tiles, ~1500 tasks: tens of ms on 2 cores */
    double *A0 = testing_alloc((size_t)n * n * sizeof *A0), *A = testing_alloc((size_t)n * n * sizeof *A);
    gen_dhpd(n, A0, n, 11);
    memcpy(A, A0, (size_t)n * n * sizeof *A);
    starsolve_desc_t *d = NULL;
    int ret = starsolve_desc_create_lapack(&d, STARSOLVE_D, n, n, nb, A, n);
    if (TEST_CHECK(ret == 0, "idle_pause_ms 1: starsolve_desc_create_lapack = %d", ret)) {
        starsolve_request_t *req = starsolve_request_create();
        ret = starsolve_dpotrf_tile_async('L', d, req);
        int slept_ms = 0;
        while (starpu_task_nsubmitted() > 0 && slept_ms < 20000) {   /* no library call in this loop */
            usleep(10000);
            slept_ms += 10;
        }
        TEST_CHECK(starpu_task_nsubmitted() == 0,
                   "idle_pause_ms 1: dpotrf_tile_async's tasks still submitted after %d ms without a library call "
                   "(workers paused under them?)", slept_ms);
        int info = starsolve_request_wait(req);
        starsolve_request_destroy(req);
        starsolve_desc_flush(d);
        double r = check_dpotrf('L', n, A0, n, A, n, 1);
        TEST_CHECK(ret == 0 && info == 0 && check_passes(r),
                   "idle_pause_ms 1: dpotrf_tile_async n=%d nb=%d returned %d, info %d, ||A-LL^T||/(||A|| n eps) = %.3g",
                   n, nb, ret, info, r);
        starsolve_desc_destroy(d);
    }
    free(A0); free(A);
    starsolve_finalize();
}

int main(void)
{
    testing_start_watchdog();
    for (int round = 0; round < 2; round++) {
        round_of_threads(round);   /* no starsolve_init: the threads' first calls start the library */
        TEST_CHECK(starsolve_ncpus() >= 1, "round %d: the library started once, %d CPU workers", round, starsolve_ncpus());
        starsolve_finalize();
        /* StarPU counts its starts: one left over (two threads that both started it) would keep
         * its workers running after starsolve_finalize */
        TEST_CHECK(!starpu_is_initialized(), "round %d: StarPU stopped by starsolve_finalize", round);
    }
    int napping;
    idle_workers(50, 1, &napping);
    double polling = idle_workers(-1, 0, &napping);
    double napped = idle_workers(-1, 1, &napping);
    if (napping)   /* 2 cores: ~0.1 s against ~0.6 s polling (bench/NOTES.md, session 60) */
        TEST_CHECK(napped < 0.5 * polling, "idle_pause_ms -1: napping workers used %.3f s of CPU time over 0.3 s "
                   "after a call, polling ones %.3f s", napped, polling);
    idle_async();
    return testing_summary();
}
