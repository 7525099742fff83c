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
 * is paused: another process's messages may need this one's workers between its calls. */
#include <limits.h>
#include <stdlib.h>
#include <time.h>
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
} idle = { .lock = PTHREAD_MUTEX_INITIALIZER };

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
