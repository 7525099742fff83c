/* Runtime start and stop, requests (numerical info of a task chain), errors. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cblas.h>
#include <starpu_heteroprio.h>
#include "internal.h"
#include "codelets.h"

/* the SPIKE solver's mixed precision and gbsv fallback are on until turned off */
struct ss_context ss_ctx = { .spike_mixed = -1, .spike_fallback = 1, .spike_maxit = 100 };

void starsolve_config_init(starsolve_config_t *cfg)
{
    *cfg = (starsolve_config_t){ .ncpus = -1, .ngpus = -1, .sched = NULL, .gpu_sched = NULL, .nb = 0, .verbose = 0,
                                 .gpu_only_tile = 512, .pin_lapack = 1, .batch_chunk = 0,
                                 .cuda_streams = 2, .gpu_panel_leaf = 0, .update_tiles = 0,
                                 .disk_swap = NULL, .host_memory_mb = 0, .mpi = 0, .gpu_prefetch = 1,
                                 .mpi_gather_panel = 0, .idle_pause_ms = 100 };
}

/* heteroprio's buckets (internal.h's ss_bucket), called by that policy alone
 * while StarPU starts. CPU workers take panels and solves first and leave the
 * GEMM-like updates for last; GPU workers the other way round, and a CPU takes
 * an update only when the GPUs have a long queue of them (slow factor). */
static void heteroprio_buckets(unsigned sched_ctx)
{
    /* Tasks only one kind of worker can run have buckets of their own (ss_task_submit_built):
     * bucket + SS_GPU_ONLY (GPU-sized tiles, CUDA-only codelets), taken by CUDA workers alone,
     * and bucket + SS_CPU_ONLY (codelets with a CPU variant only), taken by CPU workers alone;
     * each kind of work comes just before its shared twin in the worker's order. */
    enum { G = SS_GPU_ONLY, C = SS_CPU_ONLY };
    static const unsigned cpu_order[2 * SS_NBUCKETS] = { C + SS_BUCKET_PANEL, SS_BUCKET_PANEL, C + SS_BUCKET_SOLVE, SS_BUCKET_SOLVE,
                                                         C + SS_BUCKET_OTHER, SS_BUCKET_OTHER, C + SS_BUCKET_UPDATE, SS_BUCKET_UPDATE };
    static const unsigned gpu_order[2 * SS_NBUCKETS] = { G + SS_BUCKET_UPDATE, SS_BUCKET_UPDATE, G + SS_BUCKET_SOLVE, SS_BUCKET_SOLVE,
                                                         G + SS_BUCKET_PANEL, SS_BUCKET_PANEL, G + SS_BUCKET_OTHER, SS_BUCKET_OTHER };
    if (starpu_cpu_worker_get_count() > 0) {
        starpu_heteroprio_set_nb_prios(sched_ctx, STARPU_CPU_IDX, 2 * SS_NBUCKETS);
        for (unsigned p = 0; p < 2 * SS_NBUCKETS; p++)
            starpu_heteroprio_set_mapping(sched_ctx, STARPU_CPU_IDX, p, cpu_order[p]);
    }
    if (starpu_cuda_worker_get_count() > 0) {
        starpu_heteroprio_set_nb_prios(sched_ctx, STARPU_CUDA_IDX, 2 * SS_NBUCKETS);
        for (unsigned p = 0; p < 2 * SS_NBUCKETS; p++)
            starpu_heteroprio_set_mapping(sched_ctx, STARPU_CUDA_IDX, p, gpu_order[p]);
        starpu_heteroprio_set_faster_arch(sched_ctx, STARPU_CUDA_IDX, SS_BUCKET_UPDATE);
        starpu_heteroprio_set_arch_slow_factor(sched_ctx, STARPU_CPU_IDX, SS_BUCKET_UPDATE, 30.0f);
    }
}

/* Will StarPU start CUDA workers: asked for none (ngpus 0, STARPU_NCUDA=0, out of
 * core) or no device visible means no. */
static int expects_gpus(const starsolve_config_t *cfg)
{
    const char *ncuda = getenv("STARPU_NCUDA");
    if (cfg->disk_swap || (ncuda ? atoi(ncuda) == 0 : cfg->ngpus == 0))
        return 0;
#ifdef STARSOLVE_USE_CUDA
    int devices = 0;
    return cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
#else
    return 0;
#endif
}

/* Cores StarPU leaves to the application when it picks the number of CPU workers.
 * With GPUs, one: the calling thread submits the tasks and registers and
 * unregisters the tiles, and the CUDA runtime has threads of its own; with a
 * CPU worker (which spins while idle) on every core besides the GPU's driver
 * thread, an LU of order 40000 on an H100 took 1.44-2.11 s from run to run and
 * its solve 0.64-0.69 s, against 1.44-1.53 s and 0.32 s with one core left
 * free (bench/NOTES.md, session 10). Without GPUs the workers are the work. */
static int reserved_cores(const starsolve_config_t *cfg, int gpus)
{
    if (cfg->ncpus >= 0 || getenv("STARPU_NCPU") || getenv("STARPU_NCPUS"))
        return 0;
    return gpus ? 1 : 0;
}

/* The policy when the caller names none: with CUDA workers cfg->gpu_sched if set, else dmdas (data-
 * and priority-aware). Why a separate choice for GPUs: dmdas puts a task in one worker's queue the
 * moment it becomes ready and never moves it, so an LU panel that became ready waited behind a
 * low-priority update already queued on its CUDA worker while the other worker sat idle (183 ms over
 * 13 panels at order 40000). modular-heft-prio keeps ready tasks in one priority queue and moves them,
 * by predicted completion time, into short per-worker queues sorted by priority, so a panel passes the
 * updates queued before it: on an H100 LU 40000 1.224-1.228 s against dmdas 1.262-1.303, Cholesky and
 * LU without pivoting 1-9% faster. But RBT at 20000 took 0.29-0.48 s against 0.26 and a batched LU of
 * order 64 on CPU and GPU workers 0.13-0.18 against 0.10-0.11 (bench/NOTES.md, session 20), so it is
 * not everyone's default: starpu_lu and starpu_cholesky ask for it. */
static const char *default_scheduler(const starsolve_config_t *cfg, int gpus)
{
    return gpus && cfg->gpu_sched ? cfg->gpu_sched : "dmdas";
}

/* The tile size when the caller names none: 1024 with GPUs, 256 on CPU workers alone, and out of core
 * on CPU workers 1024 where the host memory StarPU may use holds at least 16 such tiles (in double) per
 * worker, else 512 where it holds 12, else 256. StarPU's disk swap moves one tile per request, so large
 * tiles mean fewer requests, as long as every worker finds room for the three tiles a task holds and a
 * few to evict. Measured (bench/NOTES.md, sessions 15, 17, 20), a quarter of the matrix in memory:
 *   - H100 machine, 16 CPU workers: LU 16000 (488 MiB) at 260 GF/s with 512 and 33 GF/s or less with
 *     256, while 1024 (61 tiles in that memory) did not finish in 60 s; LU 40000 (3051 MiB, 381 tiles of
 *     1024, 24 per worker) in 94 s with 1024 and not in 158 s with 512, Cholesky 40000 in 41 s with 1024;
 *   - 2 cores, 8192: 512 in 128 MiB 77-89 GF/s, 1024 in 193 MiB (12 tiles per worker) 74-83, 256 81. */
static int default_nb(const starsolve_config_t *cfg)
{
    if (cfg->nb > 0)
        return cfg->nb;
    if (starpu_cuda_worker_get_count() > 0)
        return 1024;
    if (cfg->disk_swap) {
        const double memory = cfg->host_memory_mb > 0 ? cfg->host_memory_mb * 1048576.0 : INFINITY;
        const double workers = starpu_cpu_worker_get_count(), big = 1024.0 * 1024 * sizeof(double);
        if (memory >= 16 * big * workers)
            return 1024;
        if (memory >= 12 * (big / 4) * workers)
            return 512;
    }
    return 256;
}

/* starsolve_init and starsolve_finalize run one at a time: an application that never calls
 * starsolve_init may make its first calls from several threads at once (each one starts the
 * library through ss_ensure_init), and starsolve_init sets environment variables for StarPU. */
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;

static int init_locked(const starsolve_config_t *cfg_in)
{
    starsolve_config_t cfg;
    if (cfg_in)
        cfg = *cfg_in;
    else
        starsolve_config_init(&cfg);
    if (ss_ctx.initialized)
        return 0;
    struct starpu_conf conf;
    starpu_conf_init(&conf);     /* STARPU_NCPU, STARPU_NCUDA, STARPU_SCHED still take precedence */
    conf.ncpus = cfg.ncpus;
    conf.ncuda = cfg.ngpus;
    /* Out of core runs on CPU workers only: with a disk node beside a CUDA node, StarPU
     * 1.3.10 made no progress at all (LU of order 8000 in 128 or 300 MiB of host memory on
     * an H100: no task finished in 20 s, whatever the scheduler, streams, pinning or
     * submission window; the same run on CPU workers took 3 s; bench/NOTES.md, session
     * 13). A hang is worse than no GPU: asked for GPUs, refuse; left to choose, take none. */
    if (cfg.disk_swap) {
        const char *env = getenv("STARPU_NCUDA");
        if (cfg.ngpus > 0 || (env && atoi(env) != 0)) {
            if (cfg.verbose)
                fprintf(stderr, "starsolve: out of core (disk_swap) runs on CPU workers only: ask for 0 GPUs\n");
            return -1;
        }
        conf.ncuda = 0;
    }
    const int gpus = expects_gpus(&cfg);
    conf.reserve_ncpus = reserved_cores(&cfg, gpus);
    conf.nopencl = 0;
    conf.sched_policy_name = cfg.sched ? cfg.sched : default_scheduler(&cfg, gpus);
    conf.sched_policy_init = heteroprio_buckets;
    /* A StarPU built with FxT records a trace of every run unless told not to:
     * traces are opt-in (STARPU_FXT_TRACE=1), they cost time and disk. */
    setenv("STARPU_FXT_TRACE", "0", 0);
    /* Two streams per GPU let a panel (cuSOLVER on a tall block, a few TF/s) run
     * beside the previous step's GEMMs instead of between them: LU at n=16384
     * went from 0.302 to 0.271 s on an H100, 40000 from 3.67 to 2.37 s. */
    int set_streams = cfg.cuda_streams > 0 && !getenv("STARPU_NWORKER_PER_CUDA");
    if (set_streams) {
        char streams[16];
        snprintf(streams, sizeof streams, "%d", cfg.cuda_streams);
        setenv("STARPU_NWORKER_PER_CUDA", streams, 1);
    }
    /* Out of core: StarPU reads these at start (its disk backend and host memory limit).
     * Plain unistd files: StarPU's O_DIRECT variant (STARPU_DISK_SWAP_BACKEND=unistd_o_direct,
     * which keeps the swapped tiles out of the page cache) aborts on a tile whose size is
     * not a multiple of the page size, as the partial tiles at a matrix's edge are. */
    if (cfg.disk_swap) {
        /* StarPU waits forever for host memory when its swap cannot be written */
        struct stat st;
        if (stat(cfg.disk_swap, &st) != 0 || !S_ISDIR(st.st_mode) || access(cfg.disk_swap, W_OK | X_OK) != 0) {
            if (cfg.verbose)
                fprintf(stderr, "starsolve: disk_swap %s is not a writable directory\n", cfg.disk_swap);
            return -1;
        }
        setenv("STARPU_DISK_SWAP", cfg.disk_swap, 1);
        setenv("STARPU_DISK_SWAP_BACKEND", "unistd", 0);
    }
    /* Out of core, a window on submitted tasks: submission waits while that many are
     * pending, so only part of the graph (with pzgetrf's left-looking order, a slab of
     * columns) and the tiles it touches are live. An LU of 8 MB in 4 MiB read 2.7-3.0
     * matrices back from disk with it, 4.9-5.1 without (bench/NOTES.md). Four tasks per
     * core keep the cores fed; STARPU_LIMIT_MAX_SUBMITTED_TASKS, if set, wins. */
    int set_window = cfg.disk_swap && !getenv("STARPU_LIMIT_MAX_SUBMITTED_TASKS");
    if (set_window) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        char window[32], refill[32];
        snprintf(window, sizeof window, "%ld", cores > 4 ? 4 * cores : 16);
        snprintf(refill, sizeof refill, "%ld", cores > 4 ? 2 * cores : 8);
        setenv("STARPU_LIMIT_MAX_SUBMITTED_TASKS", window, 1);
        setenv("STARPU_LIMIT_MIN_SUBMITTED_TASKS", refill, 1);
    }
    if (cfg.host_memory_mb > 0) {
        char mb[32];
        snprintf(mb, sizeof mb, "%d", cfg.host_memory_mb);
        setenv("STARPU_LIMIT_CPU_MEM", mb, 1);
    }
    /* No write-back of dirty GPU buffers ahead of need (StarPU keeps 5 % of a GPU's buffers
     * clean by default). StarPU 1.3.10 counts a buffer of host-registered data as dirty until
     * its tidying walks past it (memalloc.c tests the GPU copy's state, invalid at allocation),
     * so the walk can stop at the workspaces that have no home instead: RBT's F, 200 MB tiles,
     * each given a page-locked host buffer and copied there. RBT at depth 1, n = 40000, one
     * H100: 5.8 GB sent home over 3 calls, 2.35-2.42 s a call against 1.11 s with this off;
     * gesv, Cholesky, RBT at depth 2 and LU in 6 GB of GPU memory unchanged (bench/NOTES.md,
     * session 28). Out of core on disk keeps StarPU's default: there host memory's clean
     * buffers are what the disk swap evicts cheaply. STARPU_MINIMUM_CLEAN_BUFFERS, if set, wins. */
    int set_clean = !cfg.disk_swap && !getenv("STARPU_MINIMUM_CLEAN_BUFFERS");
    if (set_clean)
        setenv("STARPU_MINIMUM_CLEAN_BUFFERS", "0", 1);
    /* Each CPU worker is one core: OpenBLAS must not spawn threads of its own under it. */
    openblas_set_num_threads(1);
    int ret = cfg.mpi ? ss_mpi_start(&conf) : starpu_init(&conf);
    /* read by starpu_init; a later starsolve_init may ask for other values */
    if (set_streams)
        unsetenv("STARPU_NWORKER_PER_CUDA");
    if (cfg.disk_swap)
        unsetenv("STARPU_DISK_SWAP");
    if (set_window) {
        unsetenv("STARPU_LIMIT_MAX_SUBMITTED_TASKS");
        unsetenv("STARPU_LIMIT_MIN_SUBMITTED_TASKS");
    }
    if (cfg.host_memory_mb > 0)
        unsetenv("STARPU_LIMIT_CPU_MEM");
    if (set_clean)
        unsetenv("STARPU_MINIMUM_CLEAN_BUFFERS");
    if (ret != 0) {
        if (cfg.verbose)
            fprintf(stderr, cfg.mpi ? "starsolve: StarPU-MPI did not start (%d%s)\n" : "starsolve: StarPU did not start (%d%s)\n",
                    ret, cfg.mpi && !starsolve_mpi_available() ? ": this build has no StarPU-MPI"
                         : ret == -ENODEV ? ": no worker, check ncpus, ngpus and the STARPU_* variables" : "");
        return ret < 0 ? ret : -1;
    }
#ifdef STARSOLVE_USE_CUDA
    starpu_cublas_init();
    ss_cusolver_init();
#endif
    struct starpu_sched_policy *policy = starpu_sched_ctx_get_sched_policy(0);   /* STARPU_SCHED may have won */
    ss_ctx.heteroprio = policy && policy->policy_name && strcmp(policy->policy_name, "heteroprio") == 0;
    ss_ctx.verbose = cfg.verbose;
    ss_ctx.gpu_only_tile = cfg.gpu_only_tile;
    /* modular-gemm sends to GPUs only the tasks whose perfmodel StarPU's own examples name as
     * GEMMs (gemm, dgemm, chol_model_22, ...) and every other task to CPU workers: a task that
     * refuses CPU workers has no worker at all there, and LU, Cholesky and QR of order 16384
     * hung on the H100 (bench/NOTES.md, session 14). Under that policy CPU workers accept every
     * task: the GPUs idle, which is what the policy does with codelets it does not know. */
    if (policy && policy->policy_name && strcmp(policy->policy_name, "modular-gemm") == 0 && starpu_cpu_worker_get_count() > 0)
        ss_ctx.gpu_only_tile = 0;
    ss_ctx.pin_lapack = cfg.pin_lapack;
    ss_ctx.batch_chunk = cfg.batch_chunk > 0 ? cfg.batch_chunk : 0;
    ss_ctx.gpu_panel_leaf = cfg.gpu_panel_leaf > 0 ? cfg.gpu_panel_leaf : 0;
    ss_ctx.gpu_prefetch = cfg.gpu_prefetch != 0;
    ss_ctx.mpi_gather_panel = cfg.mpi_gather_panel != 0;
    ss_ctx.nb = default_nb(&cfg);
    ss_ctx.nb_fixed = cfg.nb > 0;
    ss_ctx.out_of_core = cfg.disk_swap != NULL;
    starsolve_set_update_tiles(cfg.update_tiles > 0 ? cfg.update_tiles : 0);   /* 0: by the workers started */
    ss_idle_start(cfg.idle_pause_ms, cfg.mpi);
    __atomic_store_n(&ss_ctx.initialized, 1, __ATOMIC_RELEASE);   /* last: see ss_ensure_init */
    return 0;
}

int starsolve_init(const starsolve_config_t *cfg_in)
{
    pthread_mutex_lock(&init_lock);
    int ret = init_locked(cfg_in);
    pthread_mutex_unlock(&init_lock);
    return ret;
}

static void finalize_locked(void)
{
    if (!ss_ctx.initialized)
        return;
    ss_idle_stop();   /* first: what follows waits on the workers */
    ss_mpi_wait_for_all();
#ifdef STARSOLVE_USE_CUDA
    ss_cusolver_shutdown();
    starpu_cublas_shutdown();
#endif
    if (starpu_is_initialized())
        ss_work_kept_now();
    ss_mpi_stop();
    if (starpu_is_initialized())   /* StarPU-MPI may have stopped StarPU with itself */
        starpu_shutdown();
    ss_free_large_kept_now();
    __atomic_store_n(&ss_ctx.initialized, 0, __ATOMIC_RELEASE);   /* ss_ensure_init's unlocked read */
}

void starsolve_finalize(void)
{
    pthread_mutex_lock(&init_lock);
    finalize_locked();
    pthread_mutex_unlock(&init_lock);
}

void *starsolve_malloc(size_t bytes)
{
    SS_PUBLIC_CALL;
    void *p = NULL;
    if (ss_ensure_init() || starpu_malloc(&p, bytes ? bytes : 1) != 0)
        return NULL;
    return p;
}

void starsolve_free(void *ptr)
{
    SS_PUBLIC_CALL;
    if (ptr)
        starpu_free(ptr);
}

int starsolve_ncpus(void) { return ss_ctx.initialized ? (int)starpu_cpu_worker_get_count() : 0; }
unsigned ss_gpu_memory_nodes(unsigned nodes[STARPU_MAXNODES])
{
    int ids[STARPU_NMAXWORKERS];
    unsigned ncuda = starpu_worker_get_ids_by_type(STARPU_CUDA_WORKER, ids, STARPU_NMAXWORKERS), count = 0;
    for (unsigned w = 0; w < ncuda; w++) {
        unsigned node = starpu_worker_get_memory_node(ids[w]), seen = 0;
        for (unsigned v = 0; v < count && !seen; v++)
            seen = nodes[v] == node;
        if (!seen)
            nodes[count++] = node;
    }
    return count;
}

int ss_cuda_worker_uploads(unsigned workerid)
{
    int ids[STARPU_NMAXWORKERS];
    unsigned ncuda = starpu_worker_get_ids_by_type(STARPU_CUDA_WORKER, ids, STARPU_NMAXWORKERS);
    unsigned node = starpu_worker_get_memory_node(workerid);
    int last = -1;
    for (unsigned w = 0; w < ncuda; w++)
        if (starpu_worker_get_memory_node(ids[w]) == node && ids[w] > last)
            last = ids[w];
    return last == (int)workerid;
}

/* GPUs, not CUDA workers: with cuda_streams > 1 several workers drive one device. */
int starsolve_ngpus(void)
{
    unsigned nodes[STARPU_MAXNODES];
    return ss_ctx.initialized ? (int)ss_gpu_memory_nodes(nodes) : 0;
}
int starsolve_get_nb(void) { return ss_ctx.nb; }

int starsolve_set_nb(int nb)
{
    if (nb < 1)
        return -1;
    ss_ctx.nb = nb;
    ss_ctx.nb_fixed = 1;
    return 0;
}

/* CPU workers alone, in core, one process: the largest of 512, 384 and 256 (the default) that leaves
 * at least 25 tiles per CPU worker. Larger tiles make each task's BLAS faster, smaller ones keep every
 * worker busy to the end of the factorization. With StarPU-MPI the default stays: every process must
 * take the same tile size, and processes may run different numbers of workers.
 * Measured with bench/variants.sh, -nb 256 / 384 / 512 (/ 768), rounds interleaved, factor seconds
 * (bench/NOTES.md, session 35):
 *   - 2 cores: 3072 LU 0.195 / 0.184 / 0.196; 4096 LU 0.487 / 0.468 / 0.466, LU without pivoting 0.415 /
 *     0.401 / 0.399, Cholesky 0.205 / 0.200 / 0.199, QR 1.369 / 1.304 / 1.277; 8192 LU 3.661 / 3.387 / 3.312,
 *     without pivoting 3.254 / 3.186 / 3.166, Cholesky 1.629 / 1.544 / 1.523, QR 9.733 / 9.117 / 9.122;
 *   - 16 cores: 4096 LU 0.160 / 0.230 / 0.265, without pivoting 0.106 / 0.114 / 0.137, Cholesky 0.061 /
 *     0.090 / 0.102, QR 0.259 / 0.295 / 0.367; 8192 LU 0.833 / 0.796 / 0.886, without pivoting 0.679 / 0.610 /
 *     0.635, Cholesky 0.409 / 0.382 / 0.380, QR 1.738 / 1.589 / 1.834;
 *     16384 LU 5.449 / 5.564 / 4.802 / 4.997, without pivoting 4.709 / 3.811 / 3.568, Cholesky 2.755 /
 *     2.641 / 2.468 / 2.477.
 * The rule picks the fastest (or one within 1 %) in each of these. Above 512 gained at most 1 % where measured
 * (768: LU 8192 on 2 cores 3.270 against 3.293 s; LU 16384 on 16 cores 4 % slower, Cholesky the same). */
static int cpu_tile_size(int n)
{
    static const int sizes[] = { 512, 384 };
    long workers = (long)starpu_cpu_worker_get_count();
    if (ss_ctx.mpi || workers < 1)
        return ss_ctx.nb;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        long tiles = ((long)n + sizes[i] - 1) / sizes[i];
        if (tiles * tiles >= 25 * workers)
            return sizes[i];
    }
    return ss_ctx.nb;
}

int starsolve_get_nb_for(starsolve_factorization_t factorization, int n)
{
    if (ss_ctx.nb_fixed || ss_ctx.out_of_core)
        return ss_ctx.nb;
    if (starpu_cuda_worker_get_count() == 0)
        return cpu_tile_size(n);
    /* one StarPU driver thread feeds each GPU: at nb = 1024 an H100 GEMM task takes
     * ~50 us, near what the runtime spends per task; QR's panels at 2048 are half as
     * many, beside column updates twice as long. LU with partial pivoting too: at
     * n = 40000 it is a chain of panel steps (each panel beside the GEMMs, then the
     * look-ahead column, then the next panel: ~33 ms a step at 1024), and 20 steps of
     * 2048 beat 39 of 1024: 1.27-1.31 s against 1.41-1.43 s, 1536 1.42 s, 1280 1.37 s
     * (bench/NOTES.md, session 18; session 5's code had lost with 2048, 2.74 against 2.24 s).
     * Its 13 steps of 3072 are shorter still: 1.245-1.264 s at 40000, 3584 1.28 s, 4096
     * 1.29 s; at 32768 3072 and 2048 tie, 2560 is slower (session 19). Below 32768 too,
     * gesv with 2048 against 1024: 12288 0.103 / 0.107 s, 16384 0.176 / 0.178, 20000
     * 0.263 / 0.277, 24576 0.389 / 0.435, 28672 0.553 / 0.638 (3072: 0.559; session 24).
     * LU without pivoting the same way (measured at two sizes, the rule taken from gesv's; session 26,
     * starpu_lu -nopiv factor s): 20000 nb 1024 / 2048 / 2500 0.210-0.213 / 0.176-0.179 / 0.184-0.187,
     * 40000 nb 2048 / 3072 / 5000 1.088-1.095 / 1.018-1.030 / 1.032-1.036. */
    if ((factorization == STARSOLVE_GETRF || factorization == STARSOLVE_GETRF_NOPIV) && n >= 12288)
        return n >= 32768 ? 3072 : 2048;
    if (n < 32768)
        return ss_ctx.nb;
    return 2048;
}

int starsolve_rbt_depth_valid(int n, int depth)
{
    return depth >= 0 && depth <= STARSOLVE_RBT_MAX_DEPTH && (depth <= 2 || (1L << depth) <= n);
}

/* The rows of the randomized matrix's tiles, for q rows a butterfly half cut in k tiles of at
 * most most_rows: the first of
 * - ceil(q / k), which pads least, rounded up to a multiple of align (4 with CUDA workers:
 *   cuBLAS's DGEMM on tiles of 5001 rows ran at 45 TF/s on an H200, 5002 at 57, 5000, 5004 and
 *   5008 at 63-64, and RBT at n = 40001 took 1.26 s with tiles of 5001 against 1.03-1.10 s with
 *   5008 (40000: 1.04 s); OpenBLAS ran 500 to 512 rows alike; bench/NOTES.md, session 71);
 * - taller tiles, then up to twice as many tiles a half, where that size would pad by one row;
 * - the same without the rounding, where a tile size set that small leaves no aligned choice.
 * With butterflies, N = 2^depth ceil(q / rows) rows is n + 1 exactly when 2^depth q = n + 1 and
 * rows divides q; there the butterflies' fixed sum-and-difference stages line up with any
 * structure of period n + 1, such as the sine transform sin(i j pi / (n + 1)) (Higham's
 * orthog), whose randomized leading minors were then singular for every draw (n = 7 mod 8 at
 * depths 2-7; sessions 69 and 71). */
static long rbt_tile_rows(long n, int depth, long q, long k, long most_rows, long align)
{
    const long parts = 1L << depth, steps[2] = { align, 1 };
    const int may_pad_by_one = depth >= 1 && parts * q == n + 1;
    for (int s = 0; s < 2; s++)
        for (long tiles = k; tiles <= 2 * k; tiles++)
            for (long rows = ((q + tiles - 1) / tiles + steps[s] - 1) / steps[s] * steps[s]; rows <= most_rows;
                 rows += steps[s])
                if (!may_pad_by_one || q % rows != 0)
                    return rows;
    return (q + k - 1) / k;   /* a tile size of 1 or 2 set: pad least */
}

/* 2^depth k nb, every butterfly half k whole tiles; but deeper than 2, where a half would be at most half
 * a tile (2 ceil(n / 2^depth) <= nb) and nb divides into the deeper levels' blocks, 2^L nb >= n with the
 * first L levels on whole tiles and the others inside them (ss_rbt_tile_levels), rather than 2^depth nb:
 * at depth 6, n = 4096 and nb 512, 4096 instead of 32768. Depths 1 and 2 keep the first form (their
 * tile sizes from rbt_tile_rows, which may exceed a half to avoid a pad of one, then mean the same). */
long starsolve_rbt_order(int n, int depth, int nb)
{
    if (n < 0 || nb < 1 || depth < 0 || depth > 62)
        return -1;
    long parts = 1L << depth, q = ((long)n + parts - 1) / parts, k = (q + nb - 1) / nb;
    if (depth > 2 && 2 * q <= nb) {
        int levels = 0;
        while (((long)nb << levels) < n)
            levels++;
        if (levels < depth && nb % (1L << (depth - levels)) == 0)
            return (long)nb << levels;
    }
    return parts * k * nb;
}

/* Tiles of at most nb rows for butterflies of depth `depth` whose deepest levels act inside the tiles:
 * 2^L tiles a side, L the fewest with ceil(n / 2^L) <= nb, L < depth, each a multiple of the deeper
 * levels' blocks (2^(depth - L) rows) and of align, not padding by one row (rbt_tile_rows says why);
 * 0 where there is no such size. */
static long deep_tile_rows(long n, int depth, long nb, long align)
{
    int levels = 0;
    while ((n + (1L << levels) - 1) >> levels > nb)
        levels++;
    if (levels >= depth)
        return 0;
    const long block = 1L << (depth - levels), step = block > align ? block : align;
    long rows = ((n + (1L << levels) - 1) >> levels) + step - 1;
    rows -= rows % step;
    if (rows << levels == n + 1)
        rows += step;
    /* that size must give the solver this form (not fewer levels on whole tiles, nor a half of tiles) */
    return starsolve_rbt_order((int)n, depth, (int)rows) == rows << levels ? rows : 0;
}

int starsolve_get_nb_rbt(int n, int depth)
{
    int nb = starsolve_get_nb_for(STARSOLVE_GETRF_NOPIV, n);
    if (n < 1 || !starsolve_rbt_depth_valid(n, depth))
        return nb;
    /* the butterflies need N = 2^depth q' with halves of whole tiles: q = ceil(n / 2^depth)
     * cut in k = ceil(q / nb) tiles of ceil(q / k) rows pads least (k tiles of nb could add
     * nearly a tile per butterfly block) */
    const int gpus = starpu_cuda_worker_get_count() > 0;
    long parts = 1L << depth, q = ((long)n + parts - 1) / parts, k = (q + nb - 1) / nb, most_rows = nb;
    /* With GPUs, about 8 tiles a side (k = 8 / 2^depth tiles per butterfly half): LU without pivoting
     * on one H100 took fewer, larger steps, as gesv does. starpu_rbt -niter 3, depth 2, one command
     * (bench/NOTES.md, session 26): n = 20000, nb 1000 / 1667 / 2500: 0.305-0.324 / 0.320-0.343 /
     * 0.256-0.268 s (gesv 0.265-0.271); n = 40000, nb 2000 / 2500 / 3334 / 5000: 1.409-1.416 /
     * 1.351-1.385 / 1.468-1.521 / 1.305-1.314 s (gesv 1.250-1.275). Kept to the sizes measured
     * around, and only where the tile size is the library's to choose (not set: ss_ctx.nb_fixed). */
    long deep_rows = nb;   /* the largest tiles with levels inside them */
    if (!ss_ctx.nb_fixed && gpus && n >= 16384 && n <= 49152) {
        k = ss_max(1, (8 + parts - 1) / parts);
        most_rows = q + 8;   /* room to round up, and to grow past a size that would pad by one */
        deep_rows = ((long)n + 7) / 8 + 8;
    }
    /* Deeper than 2, where a butterfly half is at most half a tile: tiles of at most nb rows (with GPUs
     * from 16384 to 49152 again about 8 a side), the deeper levels inside them (starsolve_rbt_order),
     * instead of tiles of a half's rows (depth 6 at n = 4096: 512 rows, not 64; at n = 40000 on an H200,
     * 5000, not 628). Depths 1 and 2 keep their measured tiling. */
    if (depth > 2 && 2 * q <= deep_rows) {
        long rows = deep_tile_rows(n, depth, deep_rows, gpus ? 4 : 1);
        if (rows > 0)
            return (int)rows;
    }
    return (int)rbt_tile_rows(n, depth, q, k, most_rows, gpus ? 4 : 1);
}

int starsolve_get_update_tiles(void) { return ss_ctx.update_tiles; }

int starsolve_set_update_tiles(int tiles)
{
    if (tiles < 0)
        return -1;
    if (tiles == 0)   /* single tiles balance best over CPU cores; a GPU wants fewer, larger tasks */
        tiles = starpu_is_initialized() && starpu_cuda_worker_get_count() > 0 ? INT_MAX : 1;
    ss_ctx.update_tiles = tiles;
    return 0;
}

int starsolve_get_batch_vendor(void) { return ss_ctx.batch_vendor; }

int starsolve_set_batch_vendor(int vendor)
{
    if (vendor != 0 && vendor != 1)
        return -1;
    ss_ctx.batch_vendor = vendor;
    return 0;
}

int starsolve_get_batch_pack(void) { return ss_ctx.batch_pack; }

int starsolve_set_batch_pack(int pack)
{
    if (pack != 0 && pack != 1)
        return -1;
    ss_ctx.batch_pack = pack;
    return 0;
}

int starsolve_get_batch_chunk(void) { return ss_ctx.batch_chunk; }

int starsolve_set_batch_chunk(int chunk)
{
    if (chunk < 0)
        return -1;
    ss_ctx.batch_chunk = chunk;
    return 0;
}

int starsolve_get_spike_psize(void) { return ss_ctx.spike_psize; }

int starsolve_set_spike_psize(int psize)
{
    if (psize < 0)
        return -1;
    ss_ctx.spike_psize = psize;
    return 0;
}

int starsolve_get_spike_mixed(void) { return ss_ctx.spike_mixed; }

int starsolve_set_spike_mixed(int on)
{
    if (on < -1 || on > 1)
        return -1;
    ss_ctx.spike_mixed = on;
    return 0;
}

int starsolve_get_spike_maxit(void) { return ss_ctx.spike_maxit; }

int starsolve_set_spike_maxit(int maxit)
{
    if (maxit < 0 || maxit > 1000)
        return -1;
    ss_ctx.spike_maxit = maxit;
    return 0;
}

int starsolve_get_spike_fallback(void) { return ss_ctx.spike_fallback; }

int starsolve_set_spike_fallback(int on)
{
    if (on != 0 && on != 1)
        return -1;
    ss_ctx.spike_fallback = on;
    return 0;
}

int starsolve_get_mpi_gather_panel(void) { return ss_ctx.mpi_gather_panel; }

int starsolve_set_mpi_gather_panel(int on)
{
    if (on != 0 && on != 1)
        return -1;
    ss_ctx.mpi_gather_panel = on;
    return 0;
}

int ss_can_execute(unsigned workerid, struct starpu_task *task, unsigned nimpl)
{
    (void)nimpl;
    if (starpu_worker_get_type((int)workerid) != STARPU_CPU_WORKER || !ss_gpu_work_gpu_only())
        return 1;
    /* judge the task by its largest tile (matrix buffer); vectors (butterflies, pivots)
     * say nothing of the work. Not by the tile it writes alone: a column update that
     * ends on the small corner tile still multiplies full tiles above it (judged by its
     * last tile, CPU workers ran 122 tasks for 2.6 s in a GPU LU of order 40000).
     * A descriptor's tile counts as its matrix's tile size (desc.c), edge tiles too:
     * the last 64 x 64 panel of an LU of order 40000 went to a CPU worker, which waited
     * for the tile to come home, and the factorization ended 100-200 ms later. */
    int order = 0;
    for (unsigned b = 0; b < STARPU_TASK_GET_NBUFFERS(task); b++) {
        starpu_data_handle_t h = STARPU_TASK_GET_HANDLE(task, b);
        if (starpu_data_get_interface_id(h) != STARPU_MATRIX_INTERFACE_ID)
            continue;
        int matrix_nb = (int)(uintptr_t)starpu_data_get_user_data(h);
        order = ss_max(order, matrix_nb > 0 ? matrix_nb
                                            : ss_max((int)starpu_matrix_get_nx(h), (int)starpu_matrix_get_ny(h)));
    }
    return order < ss_ctx.gpu_only_tile;
}

/* may some worker of this kind run the task (codelet variant, can_execute hook); 1 when there is none */
static int kind_runs(struct starpu_task *task, enum starpu_worker_archtype kind)
{
    int id;
    if (starpu_worker_get_ids_by_type(kind, &id, 1) < 1)
        return 1;
    return starpu_worker_can_execute_task((unsigned)id, task, 0) != 0;
}

int ss_task_submit_built(struct starpu_task *task)
{
    if (!task)
        return -ENOMEM;
    if (task->priority >= 0 && task->priority < SS_NBUCKETS) {
        if (!kind_runs(task, STARPU_CUDA_WORKER))
            task->priority += SS_CPU_ONLY;
        else if (!kind_runs(task, STARPU_CPU_WORKER))
            task->priority += SS_GPU_ONLY;
    }
    int ret = starpu_task_submit(task);
    if (ret == -ENODEV) {   /* as starpu_task_insert does: nobody will run it */
        task->destroy = 0;
        starpu_task_destroy(task);
    }
    return ret;
}

size_t ss_perfmodel_matrix_elements(struct starpu_task *task, unsigned nimpl)
{
    (void)nimpl;
    size_t elements = 0;
    for (unsigned b = 0; b < STARPU_TASK_GET_NBUFFERS(task); b++) {
        starpu_data_handle_t h = STARPU_TASK_GET_HANDLE(task, b);
        if (starpu_data_get_interface_id(h) == STARPU_MATRIX_INTERFACE_ID)
            elements += (size_t)starpu_matrix_get_nx(h) * starpu_matrix_get_ny(h);
    }
    return elements;
}

int ss_ensure_init(void)
{
    /* init_locked sets initialized last, with a release store: a thread that sees it set here
     * (acquire) sees every field of a finished initialization; one that does not takes the lock */
    return __atomic_load_n(&ss_ctx.initialized, __ATOMIC_ACQUIRE) ? 0 : starsolve_init(NULL);
}

int ss_arg_error(const char *routine, int info)
{
    if (ss_ctx.verbose)
        fprintf(stderr, "starsolve: %s: parameter %d has an illegal value\n", routine, -info);
    return info;
}

starsolve_request_t *starsolve_request_create(void)
{
    starsolve_request_t *req = malloc(sizeof *req);
    if (!req)
        return NULL;
    pthread_mutex_init(&req->lock, NULL);
    req->info = 0;
    return req;
}

void ss_request_report(starsolve_request_t *req, int info)
{
    pthread_mutex_lock(&req->lock);
    if (info > 0 && (req->info == 0 || info < req->info))
        req->info = info;
    pthread_mutex_unlock(&req->lock);
}

int ss_host_pinned(const void *ptr)
{
#ifdef STARSOLVE_USE_CUDA
    struct cudaPointerAttributes attr;
    if (ptr && cudaPointerGetAttributes(&attr, ptr) == cudaSuccess && attr.type == cudaMemoryTypeHost)
        return 1;
    cudaGetLastError();   /* a failed query must not linger as the thread's last error */
#else
    (void)ptr;
#endif
    return 0;
}

size_t ss_pin_host(void *ptr, size_t bytes)
{
    if (!ss_ctx.pin_lapack || !ptr || bytes == 0 || starpu_cuda_worker_get_count() == 0)
        return 0;
    if (ss_host_pinned(ptr))
        return 0;   /* page-locked already */
    return starpu_memory_pin(ptr, bytes) == 0 ? bytes : 0;
}

void ss_unpin_host(void *ptr, size_t pinned)
{
    if (pinned)
        starpu_memory_unpin(ptr, pinned);
}

/* A fresh zero-filled anonymous mapping, advised into huge pages if asked */
static void *map_anonymous(size_t bytes, int huge_pages)
{
    /* an anonymous mapping is zero-filled like calloc's, and madvise may ask for huge pages on it
     * (malloc's own mmap for large blocks cannot be advised before its first touch) */
    void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
#ifdef MADV_HUGEPAGE
    if (huge_pages)
        madvise(p, bytes ? bytes : 1, MADV_HUGEPAGE);   /* advice only: 4 KiB pages if refused */
#else
    (void)huge_pages;
#endif
    return p;
}

void *ss_alloc_large(size_t bytes)
{
    return map_anonymous(bytes, 1);
}

void ss_free_large(void *ptr, size_t bytes)
{
    if (ptr)
        munmap(ptr, bytes ? bytes : 1);
}

/* A slot for one object kept between calls, given to the next call that asks for the same byte count: a
 * mapping (kept_large), a work handle (kept_work). */
struct kept_slot {
    pthread_mutex_t lock;
    void *item;
    size_t bytes;
};

/* the kept item if it has `bytes` bytes (it leaves the slot), else NULL */
static void *kept_take(struct kept_slot *k, size_t bytes)
{
    void *item = NULL;
    pthread_mutex_lock(&k->lock);
    if (k->item && k->bytes == bytes) {
        item = k->item;
        k->item = NULL;
        k->bytes = 0;
    }
    pthread_mutex_unlock(&k->lock);
    return item;
}

/* item (NULL: none) goes into the slot; returns the one it replaces (NULL: none), with its byte count */
static void *kept_swap(struct kept_slot *k, void *item, size_t bytes, size_t *old_bytes)
{
    pthread_mutex_lock(&k->lock);
    void *old = k->item;
    *old_bytes = k->bytes;
    k->item = item;
    k->bytes = item ? bytes : 0;
    pthread_mutex_unlock(&k->lock);
    return old;
}

/* One mapping kept between calls (ss_free_large_kept), for the next call that asks for the same
 * size (ss_alloc_large_reused): a repeated SPIKE call then writes its factors into pages that are
 * already backed. Fresh pages cost each call their faults and the kernel's zeroing: 0.09 s for 3 GB
 * back to back on the 2-core CI VM, 0.7 s a call when other allocations came between (the LAPACK
 * reference's in starpu_spike -vendor), where LAPACK's gbsv factors in the caller's array
 * (bench/NOTES.md, sessions 25 and 28). Held at most a quarter of the machine's memory; starsolve_finalize
 * unmaps it. */
static struct kept_slot kept_large = { PTHREAD_MUTEX_INITIALIZER, NULL, 0 };

void *ss_alloc_large_reused(size_t bytes, int huge_pages)
{
    void *p = kept_take(&kept_large, bytes);
    return p ? p : map_anonymous(bytes, huge_pages);
}

/* ptr (NULL: none) becomes the kept mapping; the one it replaces is unmapped */
static void replace_kept_large(void *ptr, size_t bytes)
{
    size_t old_bytes;
    void *old = kept_swap(&kept_large, ptr, bytes, &old_bytes);
    ss_free_large(old, old_bytes);
}

void ss_free_large_kept(void *ptr, size_t bytes)
{
    if (!ptr)
        return;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    /* after starsolve_finalize nothing would unmap it */
    if (!ss_ctx.initialized || pages <= 0 || page <= 0 || bytes > (size_t)pages / 4 * (size_t)page) {
        ss_free_large(ptr, bytes);
        return;
    }
    replace_kept_large(ptr, bytes);   /* the latest call's size is the likelier next one */
}

void ss_free_large_kept_now(void) { replace_kept_large(NULL, 0); }

/* One work handle kept between calls, as the mapping above: SPIKE's tridiagonal path takes its work
 * (ss_ztri_work_bytes: 18 MB at n = 1e6 in double) as a handle of its own, which StarPU allocates on the GPU
 * at the first task that uses it and frees at its unregistration; a fresh one each call cost ~150 us of
 * a ~1.1-1.2 ms call on an H100 (bench/NOTES.md, session 36). At most SS_WORK_KEPT_MAX bytes are kept;
 * starsolve_finalize unregisters it, before StarPU stops. */
#define SS_WORK_KEPT_MAX ((size_t)512 << 20)
static struct kept_slot kept_work = { PTHREAD_MUTEX_INITIALIZER, NULL, 0 };

starpu_data_handle_t ss_work_reused(size_t bytes)
{
    starpu_data_handle_t h = kept_take(&kept_work, bytes);
    return h ? h : ss_scratch_buffer(bytes);
}

/* h (NULL: none) becomes the kept handle; the one it replaces is unregistered */
static void replace_kept_work(starpu_data_handle_t h, size_t bytes)
{
    size_t old_bytes;
    starpu_data_handle_t old = kept_swap(&kept_work, h, bytes, &old_bytes);
    if (old)
        starpu_data_unregister_submit(old);
}

void ss_work_kept(starpu_data_handle_t h, size_t bytes)
{
    if (!h)
        return;
    if (!ss_ctx.initialized || bytes > SS_WORK_KEPT_MAX)
        starpu_data_unregister_submit(h);
    else
        replace_kept_work(h, bytes);   /* the latest call's size is the likelier next one */
}

void ss_work_kept_now(void) { replace_kept_work(NULL, 0); }

int starsolve_request_wait(starsolve_request_t *req)
{
    SS_PUBLIC_CALL;
    ss_mpi_wait_for_all();
#ifdef STARSOLVE_USE_CUDA
    ss_cuda_side_sync();   /* infos found on GPUs reach the request through the side streams */
#endif
    pthread_mutex_lock(&req->lock);
    int info = req->info;
    pthread_mutex_unlock(&req->lock);
    return ss_mpi_reduce_info(info);
}

void starsolve_request_destroy(starsolve_request_t *req)
{
    if (!req)
        return;
    pthread_mutex_destroy(&req->lock);
    free(req);
}
