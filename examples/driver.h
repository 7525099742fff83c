/* The frame every driver shares (starpu_lu, starpu_cholesky, starpu_qr, later
 * starpu_rbt ...): flag parsing, starting the runtime, timing and the result
 * lines. A driver's main fills a struct driver_spec, parses, then calls its
 * run_<p><op> function for the precision asked (generated from one generic
 * source, examples/zrun_<op>.c).
 *
 * Generic sources are rewritten per precision and `double` becomes `float` in
 * s and c, so the types a generic source shares with this file have names of
 * their own: driver_time_t and driver_ratio_t stay double in every precision. */
#ifndef STARSOLVE_DRIVER_H
#define STARSOLVE_DRIVER_H

#include <stddef.h>
#include "starsolve.h"

typedef double driver_time_t;    /* seconds */
typedef double driver_ratio_t;   /* a scaled residual (LAPACK's test ratio) */

/* Driver-specific flags: each driver lists the ones it accepts. */
enum driver_flag_kind {
    DRIVER_FLAG_SWITCH,   /* no value: sets *(int *)value to 1 */
    DRIVER_FLAG_INT,      /* an integer >= min into *(int *)value */
    DRIVER_FLAG_CHOICE,   /* one character out of `choices` into *(char *)value */
    DRIVER_FLAG_STRING,   /* a non-empty string into *(const char **)value */
    DRIVER_FLAG_REAL      /* a positive finite number into *(double *)value */
};

struct driver_flag {
    const char *name;           /* "-nopiv" */
    enum driver_flag_kind kind;
    void *value;
    int min;                    /* DRIVER_FLAG_INT */
    const char *choices;        /* DRIVER_FLAG_CHOICE, e.g. "LU" */
    const char *arg;            /* how --help names the value, e.g. "M" */
    const char *help;           /* one line for --help */
};

struct driver_opts;

/* What makes one driver different from another. */
struct driver_spec {
    const char *name;                 /* "starpu_lu": messages, --help and the `driver` field */
    const char *purpose;              /* one line for --help */
    const struct driver_flag *flags;  /* driver-specific flags, ended by a { NULL } entry */
    /* Floating-point operations of one factorization, counted as for a real
     * matrix; the frame multiplies by 4 for complex precisions. */
    double (*flops)(const struct driver_opts *o);
    /* The tile size the library takes for this run (NULL: starsolve_get_nb()). */
    int (*tile_size)(const struct driver_opts *o);
    /* The scheduling policy with GPUs when neither -sched nor STARPU_SCHED names one
     * (starsolve_config_t.gpu_sched; NULL: the library's, dmdas). */
    const char *gpu_sched;
    int out_of_core;     /* 1: the driver takes -ooc and -host-mb (driver_factor_ooc) */
    int distributed;     /* 1: the driver takes -P and runs under mpirun (driver_factor_dist) */
};

struct driver_opts {
    const struct driver_spec *spec;
    /* flags shared by every driver (DESIGN.md) */
    int n, nb, nrhs, ncpus, ngpus;
    const char *sched;    /* NULL: the library's choice */
    int check, niter;
    int seed;             /* >= 0, handed to the generators as unsigned */
    char prec;            /* 's', 'd', 'c' or 'z' */
    int csv;
    int nopin;            /* -nopin: leave the matrix pageable (GPU runs) */
    int streams;          /* -streams: CUDA workers per GPU (starsolve_config_t.cuda_streams) */
    int panel_leaf;       /* -panel-leaf: the GPU LU panel's recursion width */
    int prefetch;         /* -prefetch: starsolve_config_t.gpu_prefetch */
    int gather_panel;     /* -gather-panel: starsolve_config_t.mpi_gather_panel */
    int gpu_only_tile;    /* -gpu-only-tile: with GPUs, tiles of this order and up are GPU work only */
    int update_tiles;     /* -update-tiles: tile GEMMs per trailing-update task (0: the library's choice) */
    const char *fxt;      /* -fxt DIR: StarPU's FxT trace file goes there (NULL: tracing off) */
    int stats;            /* -stats: per-worker busy time and bytes moved between memory nodes, from StarPU */
    int bound;            /* -bound: StarPU's linear-programming lower bound of each timed factorization */
    const char *trace;    /* -trace FILE.svg: Gantt chart of the last run's factorization (NULL: none) */
    /* driver-specific values, set only through the flags a driver registers */
    int m;                /* starpu_lu, starpu_qr -m: rows; -1 (the default, and every driver without -m): m = n */
    int nopiv;            /* starpu_lu -nopiv */
    int gesv;             /* starpu_lu -gesv: time starsolve_<p>gesv, factor and solve in one call */
    char uplo;            /* starpu_cholesky -uplo */
    char trans;           /* starpu_batched -trans: op(A) of getrf's solves (getrs_batched) */
    int regen;            /* starpu_lu, starpu_cholesky -regen: -check regenerates A instead of copying it */
    const char *ooc;      /* starpu_lu, starpu_cholesky -ooc DIR: out-of-core descriptor, tiles swapped to DIR */
    int host_mb;          /* -host-mb: host memory StarPU may give the tiles with -ooc (0: driver_ooc_host_mb's choice) */
    int P;                /* -P: process-grid rows under mpirun (StarPU-MPI); 0: one process */
    int depth, refine;    /* starpu_rbt -depth, -refine */
    const char *matrix;   /* starpu_rbt -matrix: a kind of checks/zgallery.c */
    int fallback;         /* starpu_rbt -fallback: partial pivoting when RBT fails */
    int phases;           /* starpu_rbt -phases: time the phases (they no longer overlap) */
    const char *op;       /* starpu_batched -op: getrf, potrf or geqrf */
    int batch;            /* starpu_batched -batch: matrices in the batch */
    int vendor;           /* starpu_batched -vendor: also time the reference on the same data */
    int chunk;            /* starpu_batched -chunk: matrices per task (0: automatic) */
    int pack;             /* starpu_batched -pack: the packed path whatever the rule (starsolve_set_batch_pack) */
    int kl, ku;           /* starpu_spike -kl, -ku (or -k for both): the band */
    double dominance;     /* starpu_spike -dd: degree of diagonal dominance */
    int psize;            /* starpu_spike -psize: rows per partition (0: automatic) */
    int resolve;          /* starpu_spike -resolve: further solves with the kept factorization (0: none) */
    const char *trace_resolve;   /* starpu_spike -trace-resolve FILE.svg: Gantt chart of the last further solve */
};

/* The measurements of one run, filled by run_<p><op>. */
struct driver_result {
    int run;                       /* 1 .. niter */
    int info;                      /* the library's info (factorization, else solve) */
    driver_time_t seconds;         /* the factorization, as a user calls it */
    int solved;                    /* 0: no solve was run (nrhs = 0, m != n, or info != 0) */
    driver_time_t solve_seconds;
    int checked;                   /* 0: no -check, or nothing to check */
    int exact;                     /* berr computed exactly (1) or estimated by random vectors (0) */
    driver_ratio_t berr;           /* factorization backward error, e.g. ||PA - LU|| / (||A|| n eps) */
    driver_ratio_t resid;          /* ||b - Ax|| / (||A|| ||x|| n eps), when solved and checked */
    int no_berr;                   /* 1: the driver has no factorization error to print (starpu_rbt) */
    int iters;                     /* refinement steps, printed when >= 0 (starpu_rbt) */
    int has_orth;                  /* starpu_qr: orth was computed */
    driver_ratio_t orth;           /* ||I - Q^H Q|| / (n eps) */
    double bound;                  /* -bound: StarPU's lower bound in seconds; <= 0: none */
    double cp_bound;               /* -bound: the critical-path bound in seconds; <= 0: none */
    double disk_read, disk_written; /* -ooc: bytes StarPU moved from and to its disk swap while factoring */
};

/* One line of the CSV output, as printed. The drivers fill it through
 * driver_report; bench/lapack_ref fills it by hand so that its lines read the same. */
struct driver_row {
    const char *driver;
    char prec;
    int m, n;
    int nb;                     /* < 0: printed as "-" */
    int nrhs, ncpus, ngpus;
    const char *sched;
    double seconds, gflops;
    double solve_seconds;       /* < 0: "-" */
    double berr;                /* < 0: "-" */
    const char *berr_kind;      /* "exact", "estimate" or "-" */
    double resid;               /* < 0: "-" */
    int info;
    double bound;               /* StarPU's lower bound on the factorization, seconds; <= 0: "-" */
    double cp_bound;            /* its critical-path bound, seconds; <= 0: "-" */
};

/* Exit statuses of the drivers. */
enum { DRIVER_OK = 0, DRIVER_FAILED = 1, DRIVER_USAGE = 2 };

/* Defaults of the shared flags; m = -1 (square), other driver-specific values
 * zeroed: a driver sets its own defaults after this call. */
void driver_opts_init(struct driver_opts *o, const struct driver_spec *spec);
/* Parse argv into o. Returns DRIVER_OK, DRIVER_USAGE after one line on stderr,
 * or -1 after printing --help (the caller then exits with 0). */
int driver_parse(int argc, char **argv, struct driver_opts *o);

/* Start the library from the flags, print the CSV header if --csv, call run
 * (the precision's run_<p><op>), stop the library. Returns the exit status. */
int driver_main(const struct driver_opts *o, int (*run)(const struct driver_opts *o));

/* The matrices handed to the library: page-locked (starsolve_malloc) unless -nopin. */
void *driver_alloc(const struct driver_opts *o, size_t bytes);
void driver_free(const struct driver_opts *o, void *p);
/* -bound and -trace: record the tasks of the factorization about to be
 * submitted (begin), then, after they ran (end), set r->bound to StarPU's lower
 * bound (a linear program over the workers' measured task times, without
 * dependencies: starpu_bound_compute, GLPK) and r->cp_bound to the critical
 * path of the recorded graph (starsolve_trace_critical_path), each -1 without
 * -bound or when it cannot be computed (perfmodels not calibrated yet), and
 * write the -trace chart (each run overwrites it: the last run's stays). */
void driver_bound_begin(const struct driver_opts *o);
void driver_bound_end(const struct driver_opts *o, struct driver_result *r);
/* -ooc: the factorization on an out-of-core descriptor (starsolve_desc_create_ooc,
 * tiles of the run's tile size) holding the m x n matrix A: A goes in and comes back a
 * tile at a time, untimed; r->seconds times submit and the wait, r->disk_read and
 * r->disk_written count the bytes StarPU moved from and to its disk swap meanwhile
 * (how often tiles are reloaded: the eviction thrash). With ipiv, the descriptor gets
 * pivots and ipiv receives them (LAPACK's). Returns the factorization's info, or a
 * negative value when the descriptor could not be made. */
typedef int (*driver_ooc_submit_t)(const struct driver_opts *o, starsolve_desc_t *A, starsolve_pivots_t *piv,
                                   starsolve_request_t *req);
int driver_factor_ooc(const struct driver_opts *o, starsolve_prec_t prec, void *A, int lda, int *ipiv,
                      driver_ooc_submit_t submit, struct driver_result *r);
/* -P (under mpirun): the matrix and right-hand sides, in LAPACK layout on process 0
 * only (NULL elsewhere), are scattered over a P x (processes/P) grid of distributed
 * descriptors; `factor` then `solve` (NULL, or nrhs = 0: none) run on every process and
 * are timed (r->seconds, r->solve_seconds, r->info across processes); the factors and
 * the solution come back to process 0, and the pivots into ipiv there with
 * DRIVER_PIVOTS_GATHERED. Every process calls it with the same arguments but the arrays. */
enum driver_pivots { DRIVER_NO_PIVOTS, DRIVER_PIVOTS, DRIVER_PIVOTS_GATHERED };
typedef int (*driver_dist_solve_t)(const struct driver_opts *o, starsolve_desc_t *A, starsolve_pivots_t *piv,
                                   starsolve_desc_t *B, starsolve_request_t *req);
int driver_factor_dist(const struct driver_opts *o, starsolve_prec_t prec, void *A, int lda, void *B, int ldb,
                       int nrhs, int *ipiv, enum driver_pivots pivots, driver_ooc_submit_t factor, driver_dist_solve_t solve,
                       struct driver_result *r);
/* -P (under mpirun), for a solver that only reads A and overwrites B with X (starpu_rbt):
 * A (n x n) and B (n x nrhs), in LAPACK layout on process 0 only (NULL elsewhere), are
 * scattered over a P x (processes/P) grid of distributed descriptors of tile size nb;
 * `solve` runs on every process, timed (r->seconds), and returns its info (the same on
 * every process); X comes back into B on process 0. arg goes to `solve` as it is.
 * Returns solve's info, or a negative value when the descriptors could not be made. */
typedef int (*driver_dist_solver_t)(const struct driver_opts *o, starsolve_desc_t *A, starsolve_desc_t *B,
                                    struct driver_result *r, void *arg);
int driver_solve_dist(const struct driver_opts *o, starsolve_prec_t prec, int nb, const void *A, int lda, void *B,
                      int ldb, int nrhs, driver_dist_solver_t solve, void *arg, struct driver_result *r);
/* The host memory (MiB) StarPU may use for tiles with -ooc: -host-mb, else a quarter of
 * the matrix or three columns of tiles, whichever is more. */
int driver_ooc_host_mb(const struct driver_opts *o);
/* Wall-clock time in seconds from an arbitrary origin. */
driver_time_t driver_now(void);
/* A result with nothing measured yet, for run number `run`. */
struct driver_result driver_result_init(int run);
/* Print one run (human-readable, and CSV with --csv). Returns DRIVER_FAILED if
 * info != 0 or a check failed, else DRIVER_OK. */
int driver_report(const struct driver_opts *o, const struct driver_result *r);
/* 1 if `bytes` of matrices fit in the machine's memory, else 0 after one line
 * on stderr: better than being killed halfway through by the OOM killer. */
int driver_memory_fits(const struct driver_opts *o, size_t bytes);
/* With -check: 1 when the check must regenerate A from its seed instead of keeping a
 * copy (-regen, or A twice beside other_bytes does not fit in 90% of memory; says so
 * on stderr), 0 when a copy is kept. */
int driver_check_regenerates(const struct driver_opts *o, size_t matrix_bytes, size_t other_bytes);
/* --help text of the -regen flag of the drivers that take it */
extern const char driver_regen_help[];
/* One line on stderr, "<driver>: <message>", for failures inside a run. */
void driver_error(const struct driver_opts *o, const char *message);

/* A whole-string decimal integer in [lo, INT_MAX] into *out: 0, or -1 if text is not one. */
int driver_parse_int(const char *text, long lo, int *out);

/* CSV output shared with bench/lapack_ref. */
void driver_print_csv_header(void);
void driver_print_csv_row(const struct driver_row *row);

/* The generated run functions, one per precision (examples/zrun_lu.c, examples/zrun_cholesky.c). */
int run_slu(const struct driver_opts *o);
int run_dlu(const struct driver_opts *o);
int run_clu(const struct driver_opts *o);
int run_zlu(const struct driver_opts *o);

int run_sspike(const struct driver_opts *o);
int run_dspike(const struct driver_opts *o);
int run_cspike(const struct driver_opts *o);
int run_zspike(const struct driver_opts *o);

int run_sbatched(const struct driver_opts *o);
int run_dbatched(const struct driver_opts *o);
int run_cbatched(const struct driver_opts *o);
int run_zbatched(const struct driver_opts *o);

int run_srbt(const struct driver_opts *o);
int run_drbt(const struct driver_opts *o);
int run_crbt(const struct driver_opts *o);
int run_zrbt(const struct driver_opts *o);

int run_sqr(const struct driver_opts *o);
int run_dqr(const struct driver_opts *o);
int run_cqr(const struct driver_opts *o);
int run_zqr(const struct driver_opts *o);

int run_scholesky(const struct driver_opts *o);
int run_dcholesky(const struct driver_opts *o);
int run_ccholesky(const struct driver_opts *o);
int run_zcholesky(const struct driver_opts *o);

#endif
