/* The frame shared by every driver: flags, runtime start, timing, result lines. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* sched_getaffinity, CPU_COUNT */
#endif
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <starpu.h>
#include "starsolve.h"
#include "check.h"
#include "driver.h"

void driver_opts_init(struct driver_opts *o, const struct driver_spec *spec)
{
    *o = (struct driver_opts){
        .spec = spec, .n = 4096, .nb = 0, .nrhs = 1, .ncpus = -1, .ngpus = -1, .sched = NULL,
        .check = 0, .niter = 1, .seed = 1, .streams = 2, .panel_leaf = 0, .prefetch = 1, .gpu_only_tile = 512, .update_tiles = 0, .prec = 'd', .csv = 0, .m = -1,
    };
}

/* ---- flags ------------------------------------------------------------ */

enum { MAX_FLAGS = 64 };

/* Append a flag to the parser's table; a table too small is a bug of ours, never a flag quietly
 * ignored (32 once dropped starpu_spike's last flag, -trace-resolve, as "unknown") */
static void add_flag(struct driver_flag *flags, int *nflags, const struct driver_flag *f)
{
    if (*nflags >= MAX_FLAGS) {
        fprintf(stderr, "driver: more than %d flags: raise MAX_FLAGS in examples/driver.c\n", MAX_FLAGS);
        abort();
    }
    flags[(*nflags)++] = *f;
}

/* The flags of DESIGN.md, described like a driver's own flags so that one loop
 * parses both and --help lists both. Returns how many were written to f. */
static int shared_flags(struct driver_opts *o, struct driver_flag *f)
{
    const struct driver_flag list[] = {
        { "-n", DRIVER_FLAG_INT, &o->n, 1, NULL, "N", "order of A; default 4096" },
        { "-nb", DRIVER_FLAG_INT, &o->nb, 0, NULL, "NB", "tile size; 0: the library's default (256 CPU-only, 1024 with GPUs, 2048 with GPUs from order\n"
          "              32768 (LU with partial pivoting: 2048 from 12288, 3072 from 32768), 512 out of core where\n"
          "              memory allows)" },
        { "-nrhs", DRIVER_FLAG_INT, &o->nrhs, 0, NULL, "R", "right-hand sides; 0: factorization only; default 1" },
        { "-ncpus", DRIVER_FLAG_INT, &o->ncpus, -1, NULL, "C", "CPU workers; -1: StarPU's choice (STARPU_NCPU, else all free cores, one left to the\n"
          "              program with GPUs)" },
        { "-ngpus", DRIVER_FLAG_INT, &o->ngpus, -1, NULL, "G",
          "GPUs (-streams CUDA workers each); -1: StarPU's choice (STARPU_NCUDA, else all);\n"
          "              more than StarPU finds is an error" },
        { "-sched", DRIVER_FLAG_STRING, &o->sched, 0, NULL, "S",
          "StarPU scheduler; default STARPU_SCHED, else dmdas (with GPUs starpu_lu and starpu_cholesky:\n"
          "              modular-heft-prio); STARPU_SCHED, when set, wins" },
        { "-niter", DRIVER_FLAG_INT, &o->niter, 1, NULL, "K", "timed runs, each on a fresh copy of the matrix; default 1" },
        { "-seed", DRIVER_FLAG_INT, &o->seed, 0, NULL, "S", "seed of the random matrices; default 1" },
        { "-prec", DRIVER_FLAG_CHOICE, &o->prec, 0, "sdcz", "P", "precision: s, d, c or z; default d" },
        { "-check", DRIVER_FLAG_SWITCH, &o->check, 0, NULL, NULL,
          "check every run: factorization backward error (exact for max(m,n) <= 4096, else a\n"
          "              randomized estimate) and solve residual; a value above 30 fails" },
        { "-nopin", DRIVER_FLAG_SWITCH, &o->nopin, 0, NULL, NULL,
          "with GPUs, keep the matrices in pageable memory: by default the driver allocates them\n"
          "              page-locked (starsolve_malloc), as an application feeding GPUs would, and the\n"
          "              library would otherwise pin them for each call (starsolve_config_t.pin_lapack)" },
        { "-streams", DRIVER_FLAG_INT, &o->streams, 1, NULL, "K",
          "CUDA workers, each with its own stream, per GPU; default 2 (STARPU_NWORKER_PER_CUDA wins)" },
        { "-panel-leaf", DRIVER_FLAG_INT, &o->panel_leaf, 0, NULL, "W",
          "GPU LU panel: ours, recursive down to one-kernel leaves of W columns (at most 64);\n"
          "              0 (default): cuSOLVER getrf (starsolve_config_t.gpu_panel_leaf)" },
        { "-prefetch", DRIVER_FLAG_INT, &o->prefetch, 0, NULL, "0|1",
          "with one GPU, LU, Cholesky and RBT queue the matrix's upload in the order they read it\n"
          "              before their first task (starsolve_config_t.gpu_prefetch); default 1" },
        { "-gpu-only-tile", DRIVER_FLAG_INT, &o->gpu_only_tile, 0, NULL, "T",
          "with GPUs, tasks on tiles of order T and up run on GPUs only; 1: CPU workers take no\n"
          "              tile task; 0: any; default 512 (starsolve_config_t.gpu_only_tile)" },
        { "-update-tiles", DRIVER_FLAG_INT, &o->update_tiles, 0, NULL, "K",
          "LU and Cholesky trailing updates: at most K tile GEMMs per task; 0 (default): one per\n"
          "              task on CPUs only, a whole tile column with GPUs (starsolve_config_t.update_tiles);\n"
          "              QR factors by panels of whole tile columns when K > 1, by tiles otherwise" },
        { "-bound", DRIVER_FLAG_SWITCH, &o->bound, 0, NULL, NULL,
          "also print two lower bounds on each factorization and time / bound: StarPU's (a linear\n"
          "              program over the workers and the calibrated task times, no dependencies; GLPK)\n"
          "              and the critical path of the task graph at the fastest predicted task times" },
        { "-trace", DRIVER_FLAG_STRING, &o->trace, 0, NULL, "FILE",
          "write a Gantt chart (SVG, one row per worker, task names and times as tooltips) of the\n"
          "              last run's factorization to FILE, from StarPU's task profiling" },
        { "-gather-panel", DRIVER_FLAG_SWITCH, &o->gather_panel, 0, NULL, NULL,
          "under mpirun, LU's panel column goes to one process instead of a pivot search spread\n"
          "              over the processes of the column (starsolve_config_t.mpi_gather_panel)" },
        { "-stats", DRIVER_FLAG_SWITCH, &o->stats, 0, NULL, NULL,
          "at the end, on stderr: each worker's executing, sleeping and total time and tasks, and\n"
          "              the bytes moved between memory nodes (StarPU's profiling, on for the whole run)" },
        { "-fxt", DRIVER_FLAG_STRING, &o->fxt, 0, NULL, "DIR",
          "with a StarPU built with FxT: write its trace (prof_file_*) into DIR, for starpu_fxt_tool;\n"
          "              without -fxt the drivers turn FxT tracing off (unless STARPU_FXT_TRACE is set)" },
        { "--csv", DRIVER_FLAG_SWITCH, &o->csv, 0, NULL, NULL,
          "stdout: a CSV header, then one CSV line per run; human-readable lines go to stderr" },
    };
    int count = (int)(sizeof list / sizeof list[0]);
    memcpy(f, list, sizeof list);
    return count;
}

static void print_help(const struct driver_opts *o, const struct driver_flag *flags, int nflags)
{
    const struct driver_spec *s = o->spec;
    printf("usage: %s [flags]\n%s\n\n", s->name, s->purpose);
    printf("Every run is timed and printed on its own: no hidden warm-up run, no best or mean\n"
           "(the first runs show StarPU's calibration; compare the later ones). GF/s count the\n"
           "factorization alone, as LAPACK counts its flops; the solve is timed apart.\n\nflags:\n");
    for (int i = 0; i < nflags; i++) {
        const struct driver_flag *f = &flags[i];
        printf("  %-7s %-3s %s\n", f->name, f->kind == DRIVER_FLAG_SWITCH ? "" : f->arg, f->help);
    }
    printf("  %-7s %-3s %s\n", "--help", "", "this text");
    printf("\nCSV fields: driver,prec,m,n,nb,nrhs,ncpus,ngpus,sched,seconds,gflops,solve_seconds,\n"
           "berr,berr_kind,resid,info (\"-\" where not measured; seconds: the factorization).\n"
           "Exit status: 0 success, 1 a run failed (info != 0, or a check above 30 or NaN), 2 bad flags.\n");
}

/* The cores this process may run on (its affinity mask), or 0 if unknown */
static int cores_available(void)
{
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
}

/* Whether dir is a directory this process may create files in (-ooc, -trace) */
static int writable_directory(const char *dir)
{
    struct stat st;
    return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && access(dir, W_OK | X_OK) == 0;
}

/* Whether a file can be created at path: its directory is writable */
static int file_creatable(const char *path)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (!slash)
        return writable_directory(".");
    size_t len = slash == path ? 1 : (size_t)(slash - path);
    if (len >= sizeof dir)
        return 0;
    memcpy(dir, path, len);
    dir[len] = '\0';
    return writable_directory(dir);
}

/* One line on stderr for a bad command line. */
static int usage_error(const struct driver_opts *o, const char *what, const char *detail)
{
    fprintf(stderr, "%s: %s%s (see --help)\n", o->spec->name, what, detail);
    return DRIVER_USAGE;
}

int driver_parse_int(const char *text, long lo, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end != '\0' || v < lo || v > INT_MAX)
        return -1;
    *out = (int)v;
    return 0;
}

/* Is `name` one of the schedulers this StarPU knows? An unknown name would
 * make StarPU fall back to another policy after a mere warning. */
static int known_scheduler(const char *name)
{
    struct starpu_sched_policy **p = starpu_sched_get_predefined_policies();
    for (; p && *p; p++)
        if ((*p)->policy_name && strcmp((*p)->policy_name, name) == 0)
            return 1;
    return 0;
}

static int set_flag(const struct driver_opts *o, const struct driver_flag *f, const char *value)
{
    char what[160];
    switch (f->kind) {
    case DRIVER_FLAG_SWITCH:
        *(int *)f->value = 1;
        return DRIVER_OK;
    case DRIVER_FLAG_INT:
        if (driver_parse_int(value, f->min, (int *)f->value) == 0)
            return DRIVER_OK;
        snprintf(what, sizeof what, "%s needs an integer from %d to %d, not '%.40s'", f->name, f->min, INT_MAX, value);
        return usage_error(o, what, "");
    case DRIVER_FLAG_CHOICE:
        if (strlen(value) == 1 && strchr(f->choices, value[0])) {
            *(char *)f->value = value[0];
            return DRIVER_OK;
        }
        snprintf(what, sizeof what, "%s needs one of the letters %s, not '%.40s'", f->name, f->choices, value);
        return usage_error(o, what, "");
    case DRIVER_FLAG_STRING:
        if (value[0]) {
            *(const char **)f->value = value;
            return DRIVER_OK;
        }
        return usage_error(o, f->name, " needs a non-empty value");
    case DRIVER_FLAG_REAL: {
        char *end;
        double v = strtod(value, &end);
        if (end != value && !*end && v > 0 && isfinite(v)) {
            *(double *)f->value = v;
            return DRIVER_OK;
        }
        snprintf(what, sizeof what, "%s needs a positive number, not '%.40s'", f->name, value);
        return usage_error(o, what, "");
    }
    }
    return DRIVER_USAGE;
}

int driver_parse(int argc, char **argv, struct driver_opts *o)
{
    struct driver_flag flags[MAX_FLAGS];
    int nflags = shared_flags(o, flags);
    const struct driver_flag ooc_flags[] = {
        { "-ooc", DRIVER_FLAG_STRING, &o->ooc, 0, NULL, "DIR",
          "out of core: factor an out-of-core descriptor whose tiles StarPU swaps to files in DIR\n"
          "              (its disk backend) when the host memory given to it (-host-mb) is full;\n"
          "              CPU workers only (StarPU 1.3.10 stalls with a disk node beside a GPU)" },
        { "-host-mb", DRIVER_FLAG_INT, &o->host_mb, 0, NULL, "MB",
          "with -ooc: host memory StarPU may give the tiles, MiB; 0 (default): a quarter of the\n"
          "              matrix, or three columns of tiles if more" },
    };
    if (o->spec->out_of_core)
        for (size_t k = 0; k < sizeof ooc_flags / sizeof ooc_flags[0]; k++)
            add_flag(flags, &nflags, &ooc_flags[k]);
    const struct driver_flag dist_flag = {
        "-P", DRIVER_FLAG_INT, &o->P, 1, NULL, "P",
        "under mpirun -np N: StarPU-MPI, the matrix in 2D block-cyclic tiles over a P x N/P grid of\n"
        "              processes (process 0 generates, checks and prints); default: one process" };
    if (o->spec->distributed)
        add_flag(flags, &nflags, &dist_flag);
    for (const struct driver_flag *f = o->spec->flags; f && f->name; f++)
        add_flag(flags, &nflags, f);

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-help") || !strcmp(a, "-h")) {
            print_help(o, flags, nflags);
            return -1;
        }
        const struct driver_flag *f = NULL;
        for (int k = 0; k < nflags && !f; k++)
            if (!strcmp(a, flags[k].name))
                f = &flags[k];
        if (!f) {
            char what[120];
            snprintf(what, sizeof what, "unknown flag '%.60s'", a);
            return usage_error(o, what, "");
        }
        const char *value = NULL;
        if (f->kind != DRIVER_FLAG_SWITCH) {
            if (i + 1 >= argc)
                return usage_error(o, a, " needs a value");
            value = argv[++i];
        }
        int ret = set_flag(o, f, value);
        if (ret != DRIVER_OK)
            return ret;
    }
    if (o->sched && !known_scheduler(o->sched)) {
        /* one line that names every policy this StarPU offers */
        char what[1024];
        int len = snprintf(what, sizeof what, "unknown scheduler '%.60s'; StarPU offers:", o->sched);
        for (struct starpu_sched_policy **p = starpu_sched_get_predefined_policies(); p && *p; p++)
            if ((*p)->policy_name && len < (int)sizeof what - 40)
                len += snprintf(what + len, sizeof what - len, " %s", (*p)->policy_name);
        return usage_error(o, what, "");
    }
    if (o->prefetch > 1)
        return usage_error(o, "-prefetch needs 0 or 1", "");
#ifndef STARPU_USE_FXT
    if (o->fxt)   /* StarPU would ignore it: no trace, and no word of why */
        return usage_error(o, "-fxt needs a StarPU built with FxT; this one has none", "");
#endif
    if (o->trace && !file_creatable(o->trace)) {   /* say so now, not after the run */
        char what[160];
        snprintf(what, sizeof what, "-trace %.100s: its directory is not writable", o->trace);
        return usage_error(o, what, "");
    }
    /* more CPU workers than cores: StarPU would start them, and time them sharing cores */
    int cores = cores_available();
    if (o->ncpus > 0 && cores > 0 && o->ncpus > cores) {
        char what[120];
        snprintf(what, sizeof what, "-ncpus %d, but this process may run on %d cores", o->ncpus, cores);
        return usage_error(o, what, "");
    }
    if (o->m < 0)      /* no -m: square */
        o->m = o->n;
    return DRIVER_OK;
}

/* ---- runtime ---------------------------------------------------------- */

static size_t element_bytes(char prec)
{
    return prec == 's' ? 4 : prec == 'z' ? 16 : 8;
}
static int ooc_least_mb(const struct driver_opts *o);

/* The policy StarPU actually runs: STARPU_SCHED overrides the configured name,
 * so asking StarPU is the only answer that is always right. */
static const char *running_scheduler(const struct driver_opts *o)
{
    /* the context starpu_init creates has id 0 (StarPU's internal STARPU_GLOBAL_SCHED_CTX) */
    struct starpu_sched_policy *p = starpu_sched_ctx_get_sched_policy(0);
    if (p && p->policy_name)
        return p->policy_name;
    const char *env = getenv("STARPU_SCHED");
    return env ? env : o->sched ? o->sched : "default";
}

int driver_main(const struct driver_opts *o, int (*run)(const struct driver_opts *o))
{
    starsolve_config_t cfg;
    starsolve_config_init(&cfg);
    cfg.ncpus = o->ncpus;
    cfg.ngpus = o->ngpus;
    cfg.sched = o->sched;
    cfg.gpu_sched = o->spec->gpu_sched;
    cfg.nb = o->nb;
    cfg.pin_lapack = !o->nopin;
    cfg.cuda_streams = o->streams;
    cfg.gpu_panel_leaf = o->panel_leaf;
    cfg.gpu_prefetch = o->prefetch;
    cfg.mpi_gather_panel = o->gather_panel;
    cfg.gpu_only_tile = o->gpu_only_tile;
    cfg.update_tiles = o->update_tiles;
    if (o->ooc) {
        if (!writable_directory(o->ooc)) {
            char why[160];
            snprintf(why, sizeof why, "-ooc %.100s is not a writable directory", o->ooc);
            driver_error(o, why);
            return DRIVER_USAGE;
        }
        if (o->ngpus > 0) {
            driver_error(o, "-ooc runs on CPU workers only (StarPU 1.3.10 stalls with a disk node beside a GPU): "
                            "use -ngpus 0");
            return DRIVER_USAGE;
        }
        cfg.disk_swap = o->ooc;
        cfg.host_memory_mb = driver_ooc_host_mb(o);
        if (cfg.host_memory_mb < ooc_least_mb(o)) {
            char why[160];
            snprintf(why, sizeof why, "-host-mb %d is too small for this matrix: -ooc needs at least %d MiB "
                     "(three columns of tiles)", cfg.host_memory_mb, ooc_least_mb(o));
            driver_error(o, why);
            return DRIVER_USAGE;
        }
    }
    if (o->P > 0 && o->ooc) {
        driver_error(o, "-P and -ooc do not go together");
        return DRIVER_USAGE;
    }
    cfg.mpi = o->P > 0;
    if (o->P > 0 && o->stats)   /* StarPU-MPI counts the bytes each process sends (starsolve_mpi_sent_bytes) */
        setenv("STARPU_COMM_STATS", "1", 1);
    cfg.verbose = 1;
    if (o->stats) {
        /* StarPU's own profiling and its summaries at shutdown, on stderr */
        setenv("STARPU_PROFILING", "1", 1);
        setenv("STARPU_WORKER_STATS", "1", 1);
        setenv("STARPU_BUS_STATS", "1", 1);
    }
    /* starsolve_init turns FxT tracing off unless STARPU_FXT_TRACE says otherwise */
    if (o->fxt) {
        setenv("STARPU_FXT_TRACE", "1", 1);
        setenv("STARPU_FXT_PREFIX", o->fxt, 1);
    }
    /* cfg.verbose: the library's one line says why (no worker, no StarPU-MPI in this build) */
    if (starsolve_init(&cfg) != 0)
        return DRIVER_FAILED;
    int gpus_found = starsolve_ngpus();
    if (o->ngpus > 0 && gpus_found < o->ngpus) {
        /* StarPU starts what it finds: a benchmark asked for GPUs must not time CPU workers alone unsaid */
        char why[160];
        snprintf(why, sizeof why, "-ngpus %d, but StarPU found %d GPU(s) (a CUDA build of StarPU and starsolve, "
                 "and a visible device, are needed)", o->ngpus, gpus_found);
        driver_error(o, why);
        starsolve_finalize();
        return DRIVER_FAILED;
    }
    if (o->P > 0 && starsolve_mpi_size() % o->P != 0) {
        if (starsolve_mpi_rank() == 0) {
            char why[120];
            snprintf(why, sizeof why, "-P %d does not divide the %d processes", o->P, starsolve_mpi_size());
            driver_error(o, why);
        }
        starsolve_finalize();
        return DRIVER_USAGE;
    }
    if (o->csv && starsolve_mpi_rank() == 0)
        driver_print_csv_header();
    int status = run(o);
    starsolve_finalize();   /* with -stats, StarPU prints its worker and bus summaries here */
    return status;
}

void *driver_alloc(const struct driver_opts *o, size_t bytes)
{
    return o->nopin ? malloc(bytes) : starsolve_malloc(bytes);
}

void driver_free(const struct driver_opts *o, void *p)
{
    if (o->nopin)
        free(p);
    else
        starsolve_free(p);
}

driver_time_t driver_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* bytes of physical memory, 0 if unknown */
static double physical_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (double)pages * (double)page : 0;
}

int driver_memory_fits(const struct driver_opts *o, size_t bytes)
{
    double have = physical_bytes();
    if (have == 0 || (double)bytes <= have)   /* unknown: let malloc decide */
        return 1;
    fprintf(stderr, "%s: the matrices need %.1f GiB, the machine has %.1f GiB\n", o->spec->name,
            (double)bytes / (1 << 30), have / (1 << 30));
    return 0;
}

const char driver_regen_help[] =
    "-check keeps no copy of A and regenerates it from its seed, a slab of columns at a time,\n"
    "              against the estimate's random vectors (automatic when A and a copy do not fit)";

int driver_check_regenerates(const struct driver_opts *o, size_t matrix_bytes, size_t other_bytes)
{
    if (!o->check)
        return 0;
    double have = physical_bytes();
    int copy_fits = have == 0 || 2.0 * matrix_bytes + other_bytes <= 0.9 * have;   /* room left for the rest */
    if (o->regen || !copy_fits) {
        fprintf(stderr, "%s: -check regenerates A from its seed, a slab of columns at a time (%s)\n", o->spec->name,
                o->regen ? "-regen" : "no room for a copy of A");
        return 1;
    }
    return 0;
}

void driver_error(const struct driver_opts *o, const char *message)
{
    fprintf(stderr, "%s: %s\n", o->spec->name, message);
}

/* ---- out of core (-ooc) ----------------------------------------------- */

/* A panel (a whole column of tiles) and the tiles it updates must fit in host memory
 * at once, or StarPU waits for memory that never frees: three columns of tiles, in
 * MiB. The library's tile size is known only once it runs: take its largest default. */
static int ooc_least_mb(const struct driver_opts *o)
{
    double column = (double)o->m * (o->nb > 0 ? o->nb : 1024) * element_bytes(o->prec);
    double mb = 3 * column / (1 << 20) + 1;
    return mb > INT_MAX ? INT_MAX : (int)mb;
}

int driver_ooc_host_mb(const struct driver_opts *o)
{
    if (o->host_mb > 0)
        return o->host_mb;
    double quarter = (double)o->m * o->n * element_bytes(o->prec) / 4 / (1 << 20);
    int least = ooc_least_mb(o);
    return quarter < least ? least : quarter > INT_MAX ? INT_MAX : (int)quarter;
}

int driver_factor_ooc(const struct driver_opts *o, starsolve_prec_t prec, void *A, int lda, int *ipiv,
                      driver_ooc_submit_t submit, struct driver_result *r)
{
    starsolve_desc_t *dA = NULL;
    starsolve_pivots_t *piv = NULL;
    starsolve_request_t *req = starsolve_request_create();
    int nb = o->spec->tile_size ? o->spec->tile_size(o) : starsolve_get_nb();
    int info = req ? starsolve_desc_create_ooc(&dA, prec, o->m, o->n, nb) : -1;
    if (info == 0)
        info = starsolve_desc_from_lapack(dA, A, lda);
    if (info == 0 && ipiv)
        info = starsolve_pivots_create(&piv, dA);
    if (info == 0) {
        int profiling = starpu_profiling_status_set(STARPU_PROFILING_ENABLE);
        starsolve_ooc_traffic(&r->disk_read, &r->disk_written);   /* from zero */
        driver_time_t t0 = driver_now();
        info = submit(o, dA, piv, req);
        if (info == 0)
            info = starsolve_request_wait(req);
        r->seconds = driver_now() - t0;
        starsolve_ooc_traffic(&r->disk_read, &r->disk_written);
        if (profiling == STARPU_PROFILING_DISABLE)
            starpu_profiling_status_set(STARPU_PROFILING_DISABLE);
        starsolve_desc_to_lapack(dA, A, lda);
        if (piv)
            starsolve_pivots_to_lapack(piv, ipiv);
    }
    starsolve_pivots_destroy(piv);
    starsolve_desc_destroy(dA);
    if (req)
        starsolve_request_destroy(req);
    return info;
}

/* ---- distributed (-P) ------------------------------------------------- */

int driver_factor_dist(const struct driver_opts *o, starsolve_prec_t prec, void *A, int lda, void *B, int ldb,
                       int nrhs, int *ipiv, enum driver_pivots pivots, driver_ooc_submit_t factor, driver_dist_solve_t solve,
                       struct driver_result *r)
{
    const int root = 0, P = o->P, Q = starsolve_mpi_size() / o->P;
    int nb = o->spec->tile_size ? o->spec->tile_size(o) : starsolve_get_nb();
    starsolve_desc_t *dA = NULL, *dB = NULL;
    starsolve_pivots_t *piv = NULL;
    starsolve_request_t *req = starsolve_request_create();
    int info = req ? starsolve_desc_create_dist(&dA, prec, o->m, o->n, nb, P, Q) : -1;
    if (info == 0 && solve && nrhs > 0)
        info = starsolve_desc_create_dist(&dB, prec, o->n, nrhs, nb, P, Q);
    if (info == 0 && pivots)
        info = starsolve_pivots_create(&piv, dA);
    if (info == 0)
        info = starsolve_desc_scatter(dA, A, lda, root);
    if (info == 0 && dB)
        info = starsolve_desc_scatter(dB, B, ldb, root);
    if (info == 0) {
        starsolve_request_wait(req);   /* every process ready (it waits on all of them): the clock starts together */
        double sent = starsolve_mpi_sent_bytes();
        driver_time_t t0 = driver_now();
        info = factor(o, dA, piv, req);
        if (info == 0)
            info = starsolve_request_wait(req);
        r->seconds = driver_now() - t0;
        if (o->stats && sent >= 0)   /* each process its own line: what it sent while factoring */
            fprintf(stderr, "%s: process %d of %d (grid %dx%d) sent %.1f MB during the factorization\n", o->spec->name,
                    starsolve_mpi_rank(), starsolve_mpi_size(), P, Q, (starsolve_mpi_sent_bytes() - sent) / 1e6);
        if (info == 0 && dB) {
            t0 = driver_now();
            info = solve(o, dA, piv, dB, req);
            if (info == 0)
                info = starsolve_request_wait(req);
            r->solve_seconds = driver_now() - t0;
            r->solved = 1;
        }
        starsolve_desc_gather(dA, A, lda, root);
        if (dB)
            starsolve_desc_gather(dB, B, ldb, root);
        if (pivots == DRIVER_PIVOTS_GATHERED)   /* collective: every process calls it */
            starsolve_pivots_gather(piv, ipiv, root);
    }
    starsolve_pivots_destroy(piv);
    starsolve_desc_destroy(dB);
    starsolve_desc_destroy(dA);
    if (req)
        starsolve_request_destroy(req);
    return info;
}

int driver_solve_dist(const struct driver_opts *o, starsolve_prec_t prec, int nb, const void *A, int lda, void *B,
                      int ldb, int nrhs, driver_dist_solver_t solve, void *arg, struct driver_result *r)
{
    const int root = 0, P = o->P, Q = starsolve_mpi_size() / o->P;
    starsolve_desc_t *dA = NULL, *dB = NULL;
    int info = starsolve_desc_create_dist(&dA, prec, o->n, o->n, nb, P, Q);
    if (info == 0)
        info = starsolve_desc_create_dist(&dB, prec, o->n, nrhs, nb, P, Q);
    if (info == 0)
        info = starsolve_desc_scatter(dA, A, lda, root);
    if (info == 0)
        info = starsolve_desc_scatter(dB, B, ldb, root);
    starsolve_request_t *ready = info == 0 ? starsolve_request_create() : NULL;
    if (ready) {
        starsolve_request_wait(ready);   /* every process ready (it waits on all of them): the clock starts together */
        starsolve_request_destroy(ready);
        driver_time_t t0 = driver_now();
        info = solve(o, dA, dB, r, arg);
        r->seconds = driver_now() - t0;
        starsolve_desc_gather(dB, B, ldb, root);   /* A was only read: root still has it */
    }
    starsolve_desc_destroy(dB);
    starsolve_desc_destroy(dA);
    return info;
}

/* ---- output ----------------------------------------------------------- */

void driver_bound_begin(const struct driver_opts *o)
{
    if (o->bound)
        starpu_bound_start(0, 0);
    if (o->bound || o->trace)
        starsolve_trace_start();
}

void driver_bound_end(const struct driver_opts *o, struct driver_result *r)
{
    r->bound = r->cp_bound = -1;
    if (o->bound || o->trace)
        starsolve_trace_stop();
    if (o->trace && starsolve_trace_write_svg(o->trace) != 0)
        fprintf(stderr, "%s: could not write %s\n", o->spec->name, o->trace);
    if (!o->bound)
        return;
    starpu_bound_stop();
    double ms = 0, integer_ms = 0;
    starpu_bound_compute(&ms, &integer_ms, 0);   /* relaxed LP: fast, and still a lower bound */
    r->bound = ms > 0 ? ms * 1e-3 : -1;          /* 0: a perfmodel is not calibrated */
    r->cp_bound = starsolve_trace_critical_path();
}

struct driver_result driver_result_init(int run)
{
    return (struct driver_result){ .run = run, .info = 0, .seconds = 0, .solved = 0, .solve_seconds = 0,
                                   .checked = 0, .exact = 0, .berr = 0, .resid = 0, .no_berr = 0, .iters = -1,
                                   .has_orth = 0, .orth = 0, .bound = -1, .cp_bound = -1 };
}

void driver_print_csv_header(void)
{
    printf("driver,prec,m,n,nb,nrhs,ncpus,ngpus,sched,seconds,gflops,solve_seconds,berr,berr_kind,resid,info,"
           "bound_seconds,cp_bound_seconds\n");
    fflush(stdout);
}

/* A non-negative value with `fmt`, or "-" for a negative one (not measured). */
static void print_field(const char *fmt, double v)
{
    if (v < 0)
        fputs("-", stdout);
    else
        printf(fmt, v);
}

void driver_print_csv_row(const struct driver_row *w)
{
    printf("%s,%c,%d,%d,", w->driver, w->prec, w->m, w->n);
    if (w->nb < 0)
        fputs("-", stdout);
    else
        printf("%d", w->nb);
    printf(",%d,%d,%d,%s,%.6f,%.3f,", w->nrhs, w->ncpus, w->ngpus, w->sched, w->seconds, w->gflops);
    print_field("%.6f", w->solve_seconds);
    putchar(',');
    /* %.3e: NaN prints as "nan", which a script reads as a failed check */
    if (isnan(w->berr)) fputs("nan", stdout); else print_field("%.3e", w->berr);
    printf(",%s,", w->berr_kind);
    if (isnan(w->resid)) fputs("nan", stdout); else print_field("%.3e", w->resid);
    printf(",%d,", w->info);
    print_field("%.6f", w->bound > 0 ? w->bound : -1);
    putchar(',');
    print_field("%.6f", w->cp_bound > 0 ? w->cp_bound : -1);
    putchar('\n');
    fflush(stdout);    /* a script reading a pipe sees each run as it ends */
}

static int is_complex(char prec) { return prec == 'c' || prec == 'z'; }

int driver_report(const struct driver_opts *o, const struct driver_result *r)
{
    if (starsolve_mpi_rank() != 0)   /* under mpirun process 0 prints the one result line */
        return r->info == 0 ? DRIVER_OK : DRIVER_FAILED;
    double flops = o->spec->flops(o) * (is_complex(o->prec) ? 4.0 : 1.0);
    double gflops = r->seconds > 0 ? flops / r->seconds * 1e-9 : 0;
    int berr_ok = !r->checked || r->no_berr || check_passes(r->berr);
    int resid_ok = !(r->checked && r->solved) || check_passes(r->resid);
    int orth_ok = !(r->checked && r->has_orth) || check_passes(r->orth);
    struct driver_row w = {
        .driver = o->spec->name, .prec = o->prec, .m = o->m, .n = o->n,
        .nb = o->spec->tile_size ? o->spec->tile_size(o) : starsolve_get_nb(),
        .nrhs = o->nrhs, .ncpus = starsolve_ncpus(), .ngpus = starsolve_ngpus(), .sched = running_scheduler(o),
        .seconds = r->seconds, .gflops = gflops, .solve_seconds = r->solved ? r->solve_seconds : -1,
        .berr = r->checked && !r->no_berr ? r->berr : -1,
        .berr_kind = r->checked && !r->no_berr ? (r->exact ? "exact" : "estimate") : "-",
        .resid = r->checked && r->solved ? r->resid : -1, .info = r->info,
        .bound = r->bound, .cp_bound = r->cp_bound,
    };

    /* The human-readable line; on stderr with --csv so that stdout stays CSV only. */
    FILE *h = o->csv ? stderr : stdout;
    fprintf(h, "%s %c m=%d n=%d nb=%d nrhs=%d cpus=%d gpus=%d sched=%s run %d/%d: %s %.3f s %.2f GF/s",
            w.driver, w.prec, w.m, w.n, w.nb, w.nrhs, w.ncpus, w.ngpus, w.sched, r->run, o->niter,
            o->gesv ? "gesv (factor and solve)" : "factor", w.seconds, w.gflops);
    if (r->solved && r->solve_seconds > 0)   /* starpu_rbt times the whole solve as one */
        fprintf(h, ", solve %.3f s", r->solve_seconds);
    if (r->checked) {
        if (!r->no_berr)
            fprintf(h, ", berr %.2e (%s)", r->berr, w.berr_kind);
        if (r->has_orth)
            fprintf(h, ", orth %.2e", r->orth);
        if (r->solved)
            fprintf(h, ", resid %.2e", r->resid);
    }
    if (r->iters >= 0)
        fprintf(h, ", iters %d", r->iters);
    if (o->ooc) {
        double matrix = (double)o->m * o->n * element_bytes(o->prec);
        fprintf(h, ", out of core (%d MiB of host memory, swap in %s: read %.1f MB = %.2f matrices, written %.1f MB)",
                driver_ooc_host_mb(o), o->ooc, r->disk_read * 1e-6, matrix > 0 ? r->disk_read / matrix : 0,
                r->disk_written * 1e-6);
    }
    if (o->bound) {
        if (r->bound > 0)
            fprintf(h, ", bound %.3f s (time/bound %.2f)", r->bound, r->seconds / r->bound);
        else
            fprintf(h, ", bound - (perfmodels not calibrated yet, or a StarPU without GLPK)");
        if (r->cp_bound > 0)
            fprintf(h, ", critical path %.3f s (time/cp %.2f)", r->cp_bound, r->seconds / r->cp_bound);
        else
            fprintf(h, ", critical path -");
    }
    fprintf(h, ", info %d%s\n", r->info, berr_ok && resid_ok && orth_ok ? "" : "  CHECK FAILED");
    fflush(h);
    if (o->csv)
        driver_print_csv_row(&w);
    return r->info == 0 && berr_ok && resid_ok && orth_ok ? DRIVER_OK : DRIVER_FAILED;
}
