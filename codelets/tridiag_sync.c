/* The meeting point of one call's tridiagonal chunk tasks (codelets/codelet_ztridiag.c, struct ss_tri_sync):
 * the tasks take the chunks in turn and sweep their rows (reduce), the last one to finish solves the reduced
 * system while the others wait for it, then they take the chunks in turn again and sweep them back. One task per
 * CPU worker and no StarPU dependencies between the stages:
 * on the H200 machine a stage's tasks started 20-160 us after the previous stage's end (StarPU releases them
 * one after the other), and StarPU's end of 14-16 tasks kept the caller waiting ~80-130 us past the last sweep
 * (bench/NOTES.md, session 57). Waiting inside a task is safe only while every task of the call gets its
 * worker: the tasks run on distinct CPU workers, and one call at a time uses them (ss_tri_sync_create holds a
 * process-wide lock until ss_tri_sync_wait_all), so no two calls' tasks wait on each other. Another user's task
 * on one of those workers only delays the call. */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <starpu.h>
#include "tridiag_result.h"

struct ss_tri_sync {
    int ntasks, nchunks;
    int next[2];               /* per stage (reduce, back), the next chunk to take */
    int arrived;               /* chunk tasks past their reduce sweeps */
    int ready;                 /* 1: the reduced system is solved */
    int remaining;             /* chunk tasks not finished */
    int refs;                  /* the tasks and the caller: the last to let go frees it */
    pthread_mutex_t lock;
    pthread_cond_t done;
};

static pthread_mutex_t one_call = PTHREAD_MUTEX_INITIALIZER;

struct ss_tri_sync *ss_tri_sync_create(int ntasks, int nchunks)
{
    struct ss_tri_sync *y = malloc(sizeof *y);
    STARPU_ASSERT_MSG(y, "starsolve: tridiagonal chunks: out of memory");
    *y = (struct ss_tri_sync){ .ntasks = ntasks, .nchunks = nchunks, .remaining = ntasks, .refs = ntasks + 1 };
    pthread_mutex_init(&y->lock, NULL);
    pthread_cond_init(&y->done, NULL);
    pthread_mutex_lock(&one_call);
    return y;
}

static void release(struct ss_tri_sync *y)
{
    if (__atomic_sub_fetch(&y->refs, 1, __ATOMIC_ACQ_REL) == 0) {
        pthread_cond_destroy(&y->done);
        pthread_mutex_destroy(&y->lock);
        free(y);
    }
}

int ss_tri_sync_next(struct ss_tri_sync *y, int stage)
{
    const int c = __atomic_fetch_add(&y->next[stage], 1, __ATOMIC_RELAXED);
    return c < y->nchunks ? c : -1;
}

int ss_tri_sync_arrive(struct ss_tri_sync *y)
{
    return __atomic_add_fetch(&y->arrived, 1, __ATOMIC_ACQ_REL) == y->ntasks;
}

void ss_tri_sync_reduced(struct ss_tri_sync *y)
{
    __atomic_store_n(&y->ready, 1, __ATOMIC_RELEASE);
}

/* spin: the tasks finish their sweeps within a chunk's time of each other unless a worker was busy elsewhere */
void ss_tri_sync_wait_reduced(struct ss_tri_sync *y)
{
    for (unsigned long spins = 0; !__atomic_load_n(&y->ready, __ATOMIC_ACQUIRE); spins++) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        if (spins % 4096 == 4095)   /* a worker busy elsewhere: give the core away now and then */
            sched_yield();
    }
}

void ss_tri_sync_chunk_done(struct ss_tri_sync *y)
{
    pthread_mutex_lock(&y->lock);
    if (--y->remaining == 0)
        pthread_cond_signal(&y->done);
    pthread_mutex_unlock(&y->lock);
    release(y);
}

void ss_tri_sync_wait_all(struct ss_tri_sync *y)
{
    pthread_mutex_lock(&y->lock);
    while (y->remaining > 0)
        pthread_cond_wait(&y->done, &y->lock);
    pthread_mutex_unlock(&y->lock);
    release(y);
    pthread_mutex_unlock(&one_call);
}
