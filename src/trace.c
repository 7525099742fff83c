/* A record of the tasks that ran between starsolve_trace_start and
 * starsolve_trace_stop, for scheduling research: a per-worker Gantt chart in
 * SVG, and the critical-path bound of the recorded task graph.
 *
 * Every codelet names ss_trace_task_done as its callback (StarPU runs it on
 * the host after the task); while a trace is on, it keeps the task's worker,
 * start and end (StarPU's task profiling), its data accesses, and the fastest
 * time its perfmodels predict on any worker that may run it. The graph's
 * edges are not recorded: they follow from the accesses in submission order
 * (job ids), as StarPU's sequential consistency derives them (read after
 * write, write after read, write after write). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "internal.h"

struct trace_task {
    unsigned long job;
    const char *name;
    int worker;
    double start_us, end_us;       /* since StarPU started */
    double fastest_us;             /* smallest perfmodel prediction over the workers that can run it; < 0: none */
    int first_access, naccesses;   /* in trace.accesses */
};
struct trace_access { uintptr_t handle; enum starpu_data_access_mode mode; };

static struct {
    pthread_mutex_t lock;
    int on;
    int profiling_before;          /* StarPU's profiling status when the trace started, restored at stop */
    struct trace_task *tasks;
    size_t ntasks, tasks_cap;
    struct trace_access *accesses;
    size_t naccesses, accesses_cap;
} trace = { .lock = PTHREAD_MUTEX_INITIALIZER };

static double timespec_us(const struct timespec *t) { return t->tv_sec * 1e6 + t->tv_nsec * 1e-3; }

/* The fastest any worker allowed to run the task is predicted to take, in us; -1 when no model answers. */
static double fastest_prediction(struct starpu_task *task)
{
    double best = -1;
    unsigned ctx = task->sched_ctx;
    for (unsigned w = 0; w < starpu_worker_get_count(); w++) {
        if (!starpu_worker_can_execute_task(w, task, 0))
            continue;
        double us = starpu_task_expected_length(task, starpu_worker_get_perf_archtype((int)w, ctx), 0);
        if (isfinite(us) && us > 0 && (best < 0 || us < best))
            best = us;
    }
    return best;
}

void ss_trace_task_done(void *arg)
{
    (void)arg;
    if (!__atomic_load_n(&trace.on, __ATOMIC_ACQUIRE))
        return;
    struct starpu_task *task = starpu_task_get_current();
    if (!task || !task->profiling_info)
        return;
    const struct starpu_profiling_task_info *p = task->profiling_info;
    unsigned nbuffers = STARPU_TASK_GET_NBUFFERS(task);
    double fastest = fastest_prediction(task);
    pthread_mutex_lock(&trace.lock);
    if (trace.ntasks == trace.tasks_cap) {
        size_t cap = trace.tasks_cap ? 2 * trace.tasks_cap : 4096;
        struct trace_task *grown = realloc(trace.tasks, cap * sizeof *grown);
        if (!grown)
            goto out;
        trace.tasks = grown;
        trace.tasks_cap = cap;
    }
    if (trace.naccesses + nbuffers > trace.accesses_cap) {
        size_t cap = trace.accesses_cap ? 2 * trace.accesses_cap : 16384;
        while (cap < trace.naccesses + nbuffers)
            cap *= 2;
        struct trace_access *grown = realloc(trace.accesses, cap * sizeof *grown);
        if (!grown)
            goto out;
        trace.accesses = grown;
        trace.accesses_cap = cap;
    }
    struct trace_task *t = &trace.tasks[trace.ntasks++];
    *t = (struct trace_task){ starpu_task_get_job_id(task), task->name ? task->name : task->cl->name, p->workerid,
                              timespec_us(&p->start_time), timespec_us(&p->end_time), fastest,
                              (int)trace.naccesses, (int)nbuffers };
    for (unsigned b = 0; b < nbuffers; b++)
        trace.accesses[trace.naccesses++] =
            (struct trace_access){ (uintptr_t)STARPU_TASK_GET_HANDLE(task, b), STARPU_TASK_GET_MODE(task, b) };
out:
    pthread_mutex_unlock(&trace.lock);
}

int starsolve_trace_start(void)
{
    SS_PUBLIC_CALL;
    if (ss_ensure_init())
        return -1;
    starpu_task_wait_for_all();   /* a trace holds whole tasks: none of an earlier call */
    int before = starpu_profiling_status_set(STARPU_PROFILING_ENABLE);   /* returns the previous status */
    if (before < 0)
        return -1;
    if (!__atomic_load_n(&trace.on, __ATOMIC_ACQUIRE))
        trace.profiling_before = before;
    pthread_mutex_lock(&trace.lock);
    trace.ntasks = trace.naccesses = 0;
    pthread_mutex_unlock(&trace.lock);
    __atomic_store_n(&trace.on, 1, __ATOMIC_RELEASE);
    return 0;
}

int starsolve_trace_stop(void)
{
    SS_PUBLIC_CALL;
    if (!ss_ctx.initialized)
        return -1;
    starpu_task_wait_for_all();
    if (__atomic_exchange_n(&trace.on, 0, __ATOMIC_ACQ_REL) && trace.profiling_before == STARPU_PROFILING_DISABLE)
        starpu_profiling_status_set(STARPU_PROFILING_DISABLE);   /* its cost stays with the traced runs */
    return (int)trace.ntasks;
}

static int by_job(const void *a, const void *b)
{
    unsigned long x = ((const struct trace_task *)a)->job, y = ((const struct trace_task *)b)->job;
    return (x > y) - (x < y);
}

/* Does this access order tasks? Scratch buffers are private to each worker, and
 * an access without R or W touches nothing. */
static int orders_tasks(enum starpu_data_access_mode mode)
{
    return !(mode & STARPU_SCRATCH) && (mode & STARPU_RW);
}

/* Per data handle, the last writer and the readers since (indices into the sorted tasks). */
struct handle_state { uintptr_t handle; int writer; int *readers; int nreaders, cap; };

static struct handle_state *state_of(struct handle_state *table, size_t size, uintptr_t h)
{
    size_t i = (h >> 4) * 2654435761u % size;
    while (table[i].handle && table[i].handle != h)
        i = (i + 1) % size;
    if (!table[i].handle)
        table[i] = (struct handle_state){ h, -1, NULL, 0, 0 };
    return &table[i];
}

double starsolve_trace_critical_path(void)
{
    pthread_mutex_lock(&trace.lock);
    size_t n = trace.ntasks;
    qsort(trace.tasks, n, sizeof *trace.tasks, by_job);
    double *finish = calloc(n ? n : 1, sizeof *finish);
    size_t size = 2 * trace.naccesses + 16;
    struct handle_state *table = calloc(size, sizeof *table);
    double longest = -1;
    if (finish && table) {
        longest = 0;
        for (size_t t = 0; t < n; t++) {
            const struct trace_task *task = &trace.tasks[t];
            double ready = 0;   /* when every task it depends on can have finished */
            for (int a = 0; a < task->naccesses; a++) {
                const struct trace_access *acc = &trace.accesses[task->first_access + a];
                if (!orders_tasks(acc->mode))
                    continue;
                struct handle_state *s = state_of(table, size, acc->handle);
                if (s->writer >= 0 && finish[s->writer] > ready)
                    ready = finish[s->writer];
                if (acc->mode & STARPU_W) {
                    for (int r = 0; r < s->nreaders; r++)
                        if (finish[s->readers[r]] > ready)
                            ready = finish[s->readers[r]];
                }
            }
            double us = task->fastest_us > 0 ? task->fastest_us : task->end_us - task->start_us;
            finish[t] = ready + us;
            if (finish[t] > longest)
                longest = finish[t];
            /* then record this task's accesses */
            for (int a = 0; a < task->naccesses; a++) {
                const struct trace_access *acc = &trace.accesses[task->first_access + a];
                if (!orders_tasks(acc->mode))
                    continue;
                struct handle_state *s = state_of(table, size, acc->handle);
                if (acc->mode & STARPU_W) {
                    s->writer = (int)t;
                    s->nreaders = 0;
                } else {
                    if (s->nreaders == s->cap) {
                        s->cap = s->cap ? 2 * s->cap : 8;
                        int *grown = realloc(s->readers, (size_t)s->cap * sizeof *grown);
                        if (!grown) { longest = -1; goto done; }
                        s->readers = grown;
                    }
                    s->readers[s->nreaders++] = (int)t;
                }
            }
        }
    }
done:
    if (table)
        for (size_t i = 0; i < size; i++)
            free(table[i].readers);
    free(table);
    free(finish);
    pthread_mutex_unlock(&trace.lock);
    return longest < 0 ? -1 : longest * 1e-6;
}

/* A colour per codelet name, the same in every chart. */
static void colour_of(const char *name, char out[8])
{
    unsigned h = 2166136261u;
    for (const char *c = name; *c; c++)
        h = (h ^ (unsigned char)*c) * 16777619u;
    snprintf(out, 8, "#%02x%02x%02x", 64 + (h & 0x7f) + 32, 64 + ((h >> 8) & 0x7f), 64 + ((h >> 16) & 0x7f) + 32);
}

static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        default: fputc(*s, f);
        }
    }
}

int starsolve_trace_write_svg(const char *path)
{
    SS_PUBLIC_CALL;
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    pthread_mutex_lock(&trace.lock);
    double first = 0, last = 0;
    for (size_t t = 0; t < trace.ntasks; t++) {
        if (t == 0 || trace.tasks[t].start_us < first)
            first = trace.tasks[t].start_us;
        if (trace.tasks[t].end_us > last)
            last = trace.tasks[t].end_us;
    }
    int nworkers = (int)starpu_worker_get_count();
    const int left = 140, width = 1200, row = 22, top = 40;
    double span = last > first ? last - first : 1, scale = width / span;
    int legend_top = top + nworkers * row + 40;
    /* the codelets that ran, for the legend: name and total time */
    const char *names[64];
    double total[64];
    int nnames = 0;
    for (size_t t = 0; t < trace.ntasks; t++) {
        int k = 0;
        while (k < nnames && strcmp(names[k], trace.tasks[t].name) != 0)
            k++;
        if (k == nnames && nnames < 64) {
            names[nnames] = trace.tasks[t].name;
            total[nnames++] = 0;
        }
        if (k < nnames)
            total[k] += trace.tasks[t].end_us - trace.tasks[t].start_us;
    }
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
               "font-size=\"12\">\n", left + width + 20, legend_top + (nnames + 1) * 18 + 10);
    fprintf(f, "<text x=\"%d\" y=\"20\">%zu tasks over %.3f ms (hover a task for its name and times)</text>\n", left,
            trace.ntasks, span * 1e-3);
    for (int w = 0; w < nworkers; w++) {
        char wname[64];
        starpu_worker_get_name(w, wname, sizeof wname);
        fprintf(f, "<text x=\"4\" y=\"%d\">", top + w * row + 15);
        xml_text(f, wname);
        fprintf(f, "</text>\n<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f4f4f4\"/>\n", left,
                top + w * row, width, row - 4);
    }
    for (int tick = 0; tick <= 10; tick++) {   /* time axis */
        int x = left + tick * width / 10;
        fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#bbb\"/>"
                   "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%.1f ms</text>\n",
                x, top - 4, x, top + nworkers * row, x, top + nworkers * row + 16, span * tick / 10 * 1e-3);
    }
    for (size_t t = 0; t < trace.ntasks; t++) {
        const struct trace_task *task = &trace.tasks[t];
        if (task->worker < 0 || task->worker >= nworkers)
            continue;
        char colour[8];
        colour_of(task->name, colour);
        double x = left + (task->start_us - first) * scale, w = (task->end_us - task->start_us) * scale;
        fprintf(f, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\"><title>", x,
                top + task->worker * row, w > 0.3 ? w : 0.3, row - 4, colour);
        xml_text(f, task->name);
        fprintf(f, " on worker %d: %.3f .. %.3f ms (%.3f ms)</title></rect>\n", task->worker,
                (task->start_us - first) * 1e-3, (task->end_us - first) * 1e-3, (task->end_us - task->start_us) * 1e-3);
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\">codelet: time in tasks (all workers)</text>\n", left, legend_top);
    for (int k = 0; k < nnames; k++) {
        char colour[8];
        colour_of(names[k], colour);
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">", left,
                legend_top + 8 + k * 18, colour, left + 20, legend_top + 18 + k * 18);
        xml_text(f, names[k]);
        fprintf(f, ": %.3f ms</text>\n", total[k] * 1e-3);
    }
    fprintf(f, "</svg>\n");
    pthread_mutex_unlock(&trace.lock);
    return fclose(f) == 0 ? 0 : -1;
}
