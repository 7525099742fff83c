/* Idle workers: StarPU's workers paused while the library has nothing to do.
 *
 * Debian's StarPU 1.3 is built without blocking drivers: an idle worker polls its core for tasks
 * for as long as StarPU runs. Between two calls the application's own work then shares every core
 * with a polling thread: on the 2-core CPU machine an application's OpenMP work after one dgesv ran
 * 0.737 s against 0.365 s with the workers paused (bench/NOTES.md, session 25), and starpu_batched
 * drew its matrices 1.6x slower (session 47). OpenMP runtimes and OpenBLAS spin a while, then sleep;
 * this does the same for StarPU's workers.
 *
 * Every public function that submits tasks or waits on StarPU runs as a call (SS_PUBLIC_CALL in
 * internal.h): the first call to begin resumes the workers if they were paused. A thread of ours
 * pauses them (starpu_pause) once no call has run for idle_pause_ms and no task is left submitted,
 * so tasks that an asynchronous tile call left running keep their workers. With StarPU-MPI nothing
 * is paused: another process's messages may need this one's workers between its calls.
 * Where the workers hold every core, an idle CPU worker also naps between its polls (nap_when_idle), within
 * calls too, so that the calling thread gets a core when it wakes. */
#include <limits.h>
#include <sched.h>   /* sched_getaffinity, CPU_COUNT (_GNU_SOURCE: Makefile.am) */
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>
#include <starpu_expert.h>
#include "internal.h"

static struct {
    pthread_mutex_t lock;
    pthread_cond_t changed;      /* a call ended, or stop */
    int calls;                   /* public calls in progress */
    int paused;                  /* 1: the library holds one starpu_pause() */
    int started;                 /* the pausing thread runs */
    int stop;
    int pause_ms;
    struct timespec last_activity;   /* CLOCK_MONOTONIC: the last call's end, or the last check that found tasks */
    pthread_t thread;
    int nap_hook;                /* StarPU's id of nap_when_idle; -1: none */
} idle = { .lock = PTHREAD_MUTEX_INITIALIZER, .nap_hook = -1 };

static struct timespec after_ms(struct timespec t, int ms)
{
    t.tv_sec += ms / 1000;
    t.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

static int reached(struct timespec now, struct timespec due)
{
    return now.tv_sec > due.tv_sec || (now.tv_sec == due.tv_sec && now.tv_nsec >= due.tv_nsec);
}

/* ---- Naps: where StarPU's workers hold every core the process may run on (CPU-only runs on all cores; with GPUs
 * the library leaves the caller a core), a CPU worker that finds no task spins NAP_AFTER_NS, then sleeps, from
 * NAP_FIRST_NS, each nap twice the last up to NAP_MOST_NS, until it finds one (StarPU calls idle hooks from a
 * worker's polling loop whenever it finds no task). The pause above needs idle_pause_ms without a call; within and
 * right after a call, polling workers held every core: on the 2-core machine (Linux 6.18), the thread that called
 * a batched factorization woke 2.4-5 ms after its workers' last task, in 50 ms calls, waiting for a core behind
 * them (0.1-0.3 ms with naps), and `starpu_lu -n 1000 -gesv` took 12-21 ms by whether that happened (12-14 with
 * naps; bench/NOTES.md, session 60).
 * A napping worker takes a new task up to a nap late. CUDA workers never nap: they feed their GPU. */
#define NAP_AFTER_NS 100000LL   /* an idle streak's spin before the first nap */
#define NAP_FIRST_NS 20000LL
#define NAP_MOST_NS 160000LL
#define STREAK_GAP_NS 20000LL   /* a longer gap between two idle polls: the worker ran something, a new streak */

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static unsigned nap_when_idle(void *unused)
{
    (void)unused;
    static __thread int is_cpu = -1;          /* this thread: a CPU worker (1) or another (0) */
    static __thread long long streak_start, last_poll, nap_ns;
    if (is_cpu < 0) {
        int id = starpu_worker_get_id();
        is_cpu = id >= 0 && starpu_worker_get_type(id) == STARPU_CPU_WORKER;
        if (is_cpu)
            prctl(PR_SET_TIMERSLACK, 1UL);    /* naps of NAP_FIRST_NS, not the default 50 us slack on top */
    }
    if (!is_cpu)
        return 1;
    long long now = now_ns();
    if (now - last_poll > STREAK_GAP_NS) {   /* a new idle streak (last_poll is taken after a nap) */
        streak_start = now;
        nap_ns = 0;
    }
    if (now - streak_start >= NAP_AFTER_NS) {
        nap_ns = nap_ns == 0 ? NAP_FIRST_NS : (2 * nap_ns < NAP_MOST_NS ? 2 * nap_ns : NAP_MOST_NS);
        struct timespec nap = { 0, (long)nap_ns };
        nanosleep(&nap, NULL);
        now = now_ns();
    }
    last_poll = now;
    return 1;
}

/* whether StarPU's workers (one thread bound to a core each) leave the calling thread no core of its own */
static int workers_hold_every_core(void)
{
    cpu_set_t allowed;
    long cores = sched_getaffinity(0, sizeof allowed, &allowed) == 0 ? CPU_COUNT(&allowed)
                                                                   : sysconf(_SC_NPROCESSORS_ONLN);
    return (long)starpu_worker_get_count() >= cores;
}

/* naps unless STARSOLVE_IDLE_NAP is 0 */
static int naps_wanted(void)
{
    const char *env = getenv("STARSOLVE_IDLE_NAP");
    return !(env && strcmp(env, "0") == 0) && workers_hold_every_core();
}

static void *pause_when_idle(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&idle.lock);
    while (!idle.stop) {
        if (idle.calls > 0 || idle.paused) {
            pthread_cond_wait(&idle.changed, &idle.lock);
            continue;
        }
        struct timespec now, due = after_ms(idle.last_activity, idle.pause_ms);
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (!reached(now, due)) {
            pthread_cond_timedwait(&idle.changed, &idle.lock, &due);
            continue;
        }
        if (starpu_task_nsubmitted() > 0) {   /* an asynchronous call's tasks still run: look again later */
            idle.last_activity = now;
            continue;
        }
        starpu_pause();
        idle.paused = 1;
    }
    pthread_mutex_unlock(&idle.lock);
    return NULL;
}

/* STARSOLVE_IDLE_PAUSE_MS when it is a whole number, else the configuration's value */
static int pause_ms_from_env(int configured)
{
    const char *env = getenv("STARSOLVE_IDLE_PAUSE_MS");
    if (!env || !*env)
        return configured;
    char *end;
    long ms = strtol(env, &end, 10);
    return *end == '\0' && ms >= INT_MIN && ms <= INT_MAX ? (int)ms : configured;
}

void ss_idle_start(int pause_ms, int mpi)
{
    idle.nap_hook = naps_wanted() ? starpu_idle_hook_register(nap_when_idle, NULL) : -1;
    pause_ms = pause_ms_from_env(pause_ms);
    if (pause_ms < 0 || mpi)
        return;
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_mutex_lock(&idle.lock);
    pthread_cond_init(&idle.changed, &attr);
    idle.pause_ms = pause_ms;
    idle.stop = 0;
    idle.paused = 0;
    clock_gettime(CLOCK_MONOTONIC, &idle.last_activity);
    idle.started = pthread_create(&idle.thread, NULL, pause_when_idle, NULL) == 0;   /* none: the workers poll, as before */
    pthread_mutex_unlock(&idle.lock);
    pthread_condattr_destroy(&attr);
}

void ss_idle_stop(void)
{
    if (idle.nap_hook >= 0)
        starpu_idle_hook_deregister(idle.nap_hook);
    idle.nap_hook = -1;
    pthread_mutex_lock(&idle.lock);
    int started = idle.started;
    idle.stop = 1;
    if (started)
        pthread_cond_broadcast(&idle.changed);
    pthread_mutex_unlock(&idle.lock);
    if (!started)
        return;
    pthread_join(idle.thread, NULL);
    pthread_mutex_lock(&idle.lock);
    if (idle.paused)   /* starpu_shutdown wants running workers */
        starpu_resume();
    idle.paused = 0;
    idle.started = 0;
    pthread_cond_destroy(&idle.changed);
    pthread_mutex_unlock(&idle.lock);
}

int ss_call_begin(void)
{
    pthread_mutex_lock(&idle.lock);
    idle.calls++;
    if (idle.paused) {
        starpu_resume();
        idle.paused = 0;
    }
    pthread_mutex_unlock(&idle.lock);
    return 1;
}

void ss_call_end(const int *call)
{
    (void)call;
    pthread_mutex_lock(&idle.lock);
    idle.calls--;
    clock_gettime(CLOCK_MONOTONIC, &idle.last_activity);
    if (idle.calls == 0 && idle.started)
        pthread_cond_signal(&idle.changed);
    pthread_mutex_unlock(&idle.lock);
}
