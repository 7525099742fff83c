/* starsolve: dense linear solvers as StarPU task graphs over all CPU cores and GPUs.
 *
 * Column-major storage, LAPACK argument order and LAPACK semantics. Every routine
 * returns LAPACK's info: 0 success, -i the i-th argument is bad, +i a numerical
 * failure (U(i,i) exactly zero, leading minor i not positive definite).
 * The library prints nothing on stdout; with cfg.verbose it explains errors on stderr.
 */
#ifndef STARSOLVE_H
#define STARSOLVE_H

#include <complex.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef float _Complex  starsolve_complex32_t;
typedef double _Complex starsolve_complex64_t;

/* ---- runtime ---------------------------------------------------------- */

typedef struct starsolve_config {
    int ncpus;          /* CPU workers; -1: StarPU's choice (STARPU_NCPU, else all cores not driving a GPU,
                           less one left to the calling thread when GPUs are used) */
    int ngpus;          /* GPUs (each driven by cuda_streams CUDA workers); -1: StarPU's choice (STARPU_NCUDA, else all) */
    const char *sched;  /* StarPU scheduling policy; NULL: STARPU_SCHED, else gpu_sched with CUDA workers,
                           else "dmdas" */
    const char *gpu_sched; /* the policy when sched and STARPU_SCHED name none and CUDA workers run; NULL (default):
                           "dmdas". "modular-heft-prio" makes LU, LU without pivoting and Cholesky 1-9% faster
                           on an H100, but RBT and batched calls slower (bench/NOTES.md, session 20) */
    int nb;             /* tile size used by the LAPACK-layout routines; <= 0: default (256 CPU-only, 1024 with GPUs, 2048 from order 32768 (LU with partial pivoting: 2048 from 12288, 3072 from 32768), out of core on CPUs 1024 or 512 where memory allows: context.c) */
    int verbose;        /* 1: explain bad arguments and failures on stderr */
    int gpu_only_tile;  /* with CUDA workers, tasks on tiles of at least this order run only on GPUs
                           (a CPU core needs ~1000x longer for a 1024 GEMM); 0: CPUs may take any; default 512 */
    int pin_lapack;     /* with CUDA workers, page-lock the caller's LAPACK arrays for the duration of a
                           call, so tiles move by DMA and overlap with work; default 1 */
    int batch_chunk;    /* batched routines: matrices per task where the batch is cut into tasks (with GPUs),
                           matrices per claim where CPU workers claim them (CPU workers alone: one task a
                           worker, each claiming matrices until none is left; with GPUs, the CPUs' end of a
                           batch shared from both ends); 0 (default): chosen from the sizes: about 100 MFLOP
                           a task, every worker getting several tasks; claims of a fixed-size batch on CPU
                           workers alone shrink as it runs out (guided), other claims a worker's share / 32 */
    int cuda_streams;   /* CUDA workers per GPU, each with its own stream, so that an LU or Cholesky
                           panel runs beside the updates (STARPU_NWORKER_PER_CUDA, which wins if set);
                           default 2 */
    int gpu_panel_leaf; /* > 0: the GPU's LU panels are ours, halved recursively (Toledo: factor the
                           left half, solve, one GEMM, factor the right half) down to leaves of this width
                           (at most 64) that one cooperative kernel each factors, a grid barrier a column,
                           where a leaf's rows fit the GPU's shared memory; 0 (default): cuSOLVER getrf on
                           the whole panel, faster on an H100 so far (bench/NOTES.md, session 18) */
    int update_tiles;   /* trailing updates of LU, LU without pivoting and Cholesky: tile GEMMs of one
                           tile column per task. 0 (default): 1 without CUDA workers (CPU cores balance
                           best on single tiles), the whole column with them (an H100 runs a 1024 tile
                           GEMM in about the time StarPU spends on a task); K > 0: at most K.
                           QR (geqrf) factors by panels of whole tile columns when K > 1 (the
                           tile algorithm's chain of small tasks starved a GPU), by tiles otherwise */
    const char *disk_swap; /* a directory where StarPU moves tiles of out-of-core descriptors
                           (starsolve_desc_create_ooc) when host memory runs short: StarPU's disk
                           backend (STARPU_DISK_SWAP); NULL (default): none. With a disk swap StarPU
                           runs CPU workers only (ngpus > 0 or STARPU_NCUDA > 0 is refused): StarPU
                           1.3.10 makes no progress with a disk node beside a GPU (bench/NOTES.md) */
    int host_memory_mb;   /* > 0: StarPU allocates at most this many MiB of host memory for tiles
                           (STARPU_LIMIT_CPU_MEM), and swaps the rest to disk_swap; 0 (default): no limit */
    int mpi;            /* 1: start StarPU-MPI on MPI_COMM_WORLD (and MPI itself unless the caller did):
                           every call is then collective, every process makes the same calls in the
                           same order (their waits synchronize all processes); distributed descriptors
                           (starsolve_desc_create_dist) spread the work over the processes, and each
                           process factors its own copy of any other matrix; 0 (default): one process */
    int gpu_prefetch;   /* with one GPU, LU, LU without pivoting, Cholesky and the RBT solver queue the upload
                           of the matrix in the order they read it before their first task, so the link is
                           busy from the start (if it fits in half the GPU's memory, with RBT's randomized
                           copy); 1 (default) or 0 */
    int mpi_gather_panel; /* StarPU-MPI, LU with partial pivoting: 0 (default) the panel stays where its rows live
                           and its pivot search spreads over the processes of its tile column, a round of
                           messages of one row per column (as ScaLAPACK's pdgetf2); 1 the panel's column is
                           gathered on the diagonal tile's process, factored there and sent back: two messages
                           of the whole column per step, for when messages are slow to start (processes
                           sharing cores: bench/NOTES.md) */
    int idle_pause_ms;  /* StarPU's idle workers poll their cores: after this many milliseconds without a library
                           call or a submitted task they are paused until the next call, so that the application's
                           own work between calls has the cores; < 0: never (the workers poll); default 100.
                           Not with mpi. STARSOLVE_IDLE_PAUSE_MS, a whole number, wins. A program that submits StarPU
                           tasks of its own should set < 0: a pause would hold them until the library's next call.
                           Where the workers hold every core, idle CPU workers also nap between polls, within
                           calls too (src/idle.c; STARSOLVE_IDLE_NAP=0: never) */
} starsolve_config_t;

/* Fill cfg with the defaults above. */
void starsolve_config_init(starsolve_config_t *cfg);
/* Start StarPU with cfg (NULL: defaults). Returns 0, or a negative value if StarPU did not start. */
int  starsolve_init(const starsolve_config_t *cfg);
void starsolve_finalize(void);
/* Host memory for matrices that GPUs will read: page-locked when CUDA workers
 * run (starpu_malloc), so that tiles move by DMA while the GPU works and no
 * call pays to pin it (cudaHostRegister of 1 GB takes ~0.1 s). Plain memory
 * without GPUs. Call after starsolve_init; free with starsolve_free before
 * starsolve_finalize. NULL when out of memory. */
void *starsolve_malloc(size_t bytes);
void starsolve_free(void *ptr);
/* Workers actually running, after starsolve_init. */
int  starsolve_ncpus(void);
int  starsolve_ngpus(void);   /* GPUs in use (each may have several CUDA workers: cuda_streams) */
/* Tile size the LAPACK-layout routines use now, and a way to change it between calls. */
int  starsolve_get_nb(void);
int  starsolve_set_nb(int nb);   /* returns -1 if nb < 1 */
/* The tile size a LAPACK-layout factorization of order n takes (QR: n = min(m, n)). It is
 * starsolve_get_nb() when cfg.nb or starsolve_set_nb chose it, out of core, or with StarPU-MPI;
 * otherwise, on CPU workers alone, the largest of 512, 384 and 256 that leaves at least 25 tiles
 * per CPU worker, e.g. 512 at n = 4096 on 2 cores, 256 there on 16 and 384 at 8192;
 * with GPUs, every factorization takes 2048 from n = 32768 on, LU with and without pivoting
 * 2048 from 12288 and 3072 from 32768 (fewer, larger tasks: on an H100 at n = 40000,
 * 0.79 s against 1.08 s for Cholesky; QR 2.44 s against 2.52 s; LU with pivoting, a chain
 * of panel steps, 1.25 s at 3072, 1.31 s at 2048, 1.41 s at 1024; without pivoting 1.02 s
 * at 3072, 1.09 s at 2048). */
typedef enum { STARSOLVE_GETRF, STARSOLVE_GETRF_NOPIV, STARSOLVE_POTRF, STARSOLVE_GEQRF } starsolve_factorization_t;
int  starsolve_get_nb_for(starsolve_factorization_t factorization, int n);
/* The order of the randomized matrix of the RBT solver for order n, depth and tile size nb (its
 * workspace is that square; -1 for a negative n or depth, or nb < 1): 2^depth ceil(ceil(n / 2^depth) / nb) nb,
 * every butterfly half whole tiles; except deeper than 2, where a half would be at most half a tile and nb
 * is a multiple of 2^(depth - L): then 2^L nb, L the fewest levels with 2^L nb >= n, and the deeper
 * depth - L levels act inside the tiles (depth 6 at n = 4096 with nb 512: 4096, not 32768). */
long starsolve_rbt_order(int n, int depth, int nb);
/* The tile size the RBT solver takes for order n and butterfly depth `depth`
 * (starsolve_<p>gesv_rbt; a good nb for starsolve_<p>gesv_rbt_tile): the tile
 * size of LU without pivoting, lowered so that the padded order (starsolve_rbt_order)
 * exceeds n least, but at depths >= 1 never by exactly
 * one row (a pad of one lines the butterflies up with structures of period n + 1, such as a sine
 * transform's: every draw failed there); with GPUs a multiple of 4 (cuBLAS's GEMMs ran a third
 * slower on tiles of odd order), and from 16384 to 49152 about 8 tiles a side (unless the
 * tile size was set). Deeper than 2, where a butterfly half would be at most half that tile size,
 * tiles of at most that size with the deepest levels inside them, a multiple of their blocks. */
int  starsolve_get_nb_rbt(int n, int depth);
/* The butterfly depths the RBT solver takes for order n: 0 .. STARSOLVE_RBT_MAX_DEPTH, and
 * above the usual 2 only while 2^depth <= n (deeper blocks would hold less than a row of A).
 * Levels whose halves are whole tiles run on tile pairs and quadruples, deeper ones inside the
 * tiles (starsolve_rbt_order): with starsolve_get_nb_rbt's tiles a deep depth costs a few passes
 * over the matrix (Ris at n = 4096, depth 6, 2 cores: 1.2 s with tiles of 512, 2.4 s before, when
 * every half had to be whole tiles: 64 rows; bench/NOTES.md, session 73). 1 if valid, else 0. */
#define STARSOLVE_RBT_MAX_DEPTH 7
int  starsolve_rbt_depth_valid(int n, int depth);
/* Tile GEMMs per trailing-update task of LU and Cholesky (starsolve_config_t.update_tiles):
 * the value in use (INT_MAX: a whole tile column), and a way to change it between calls
 * (0: automatic again). */
int  starsolve_get_update_tiles(void);
int  starsolve_set_update_tiles(int tiles);   /* returns -1 if tiles < 0 */
/* Matrices per task of the batched routines (0: automatic), and a way to change it between calls. */
int  starsolve_get_batch_chunk(void);
int  starsolve_set_batch_chunk(int chunk);   /* returns -1 if chunk < 0 */
/* What the CUDA workers run for the batched factorizations: our kernels (0, the default)
 * or the vendor's batched routines (1: cuBLAS getrfBatched and geqrfBatched, cuSOLVER
 * potrfBatched, where they apply), for comparisons on the same calls. No effect without
 * CUDA workers. Returns -1 if vendor is neither 0 nor 1. */
int  starsolve_get_batch_vendor(void);
int  starsolve_set_batch_vendor(int vendor);
/* How the variable-size routines (?getrf/potrf/geqrf_vbatched) share out their batch: 0 (the default) by
 * claims of the batch's own matrices on CPU workers alone; with GPUs sorted by shape and shared from both ends,
 * each GPU taking packed copies of chunks of the smallest (the CPU workers packing and unpacking them, piece by
 * piece, between their own claims), the CPU workers the largest in place. The fixed-size factorizations take
 * that path with GPUs where it measured faster than chunks as tasks (src/zbatched.c, fixed_by_split). 1: that
 * path always, for both, also on CPU workers alone, one of them factoring the front's chunks in the GPUs' place
 * (for tests and comparisons). Returns -1 if pack is neither 0 nor 1. */
int  starsolve_get_batch_pack(void);
int  starsolve_set_batch_pack(int pack);
/* Rows per partition of the SPIKE solver (0: automatic: one partition per worker, each of at
 * least 2 max(kl, ku) and 65536 / max(kl, ku) rows); with psize P about n / P partitions (still of
 * at least 2 max(kl, ku) rows). Partitions always differ by at most one row. */
int  starsolve_get_spike_psize(void);
int  starsolve_set_spike_psize(int psize);   /* returns -1 if psize < 0 */
/* SPIKE in d and z: the partition factorizations and solves of the preconditioner in single
 * precision (float, complex float), the refinement in double (1: the solves read half the bytes),
 * everything in double (0), or the library's choice (-1, the default: double at every K on GPUs and
 * CPUs, the faster since session 25: the double preconditioner needs no refinement step at d = 1 where
 * the single one needs one or two, which cost more than half the bytes save; bench/NOTES.md).
 * No effect in s and c. Returns -1 unless -1, 0 or 1. */
int  starsolve_get_spike_mixed(void);
int  starsolve_set_spike_mixed(int on);
/* SPIKE: the most BiCGStab iterations per right-hand side (default 100; 0 leaves the truncated-SPIKE
 * solution itself, which with the fallback off shows the preconditioner's own accuracy).
 * Returns -1 unless 0 <= maxit <= 1000. */
int  starsolve_get_spike_maxit(void);
int  starsolve_set_spike_maxit(int maxit);
/* SPIKE: when BiCGStab does not converge, or the matrix is far from diagonal dominance, solve with
 * LAPACK's gbsv (1, the default; *iters = -1 or -2 says it happened) or return n + 1 (0).
 * Returns -1 unless 0 or 1. */
int  starsolve_get_spike_fallback(void);
int  starsolve_set_spike_fallback(int on);
/* StarPU-MPI, LU with partial pivoting: starsolve_config_t.mpi_gather_panel changed between calls (0: the
 * pivot search spread over the processes of the panel's tile column; 1: the column gathered on one process);
 * panels submitted already keep theirs. Returns -1 unless 0 or 1. */
int  starsolve_get_mpi_gather_panel(void);
int  starsolve_set_mpi_gather_panel(int on);

/* ---- traces, for scheduling research ---------------------------------- */

/* Record every task that runs from now on (after waiting for those already
 * submitted): its worker, start and end (StarPU's task profiling, turned on
 * here), its data accesses and the fastest time its perfmodels predict on a
 * worker that may run it. Returns 0, or -1 when StarPU did not start. */
int    starsolve_trace_start(void);
/* Wait for the submitted tasks and stop recording; returns how many were recorded. */
int    starsolve_trace_stop(void);
/* The recorded run as a per-worker Gantt chart in SVG (one row per worker, one
 * box per task, its name and times as the box's tooltip; a legend with each
 * codelet's total time). Returns 0, or -1 if the file could not be written. */
int    starsolve_trace_write_svg(const char *path);
/* Critical-path bound of the recorded tasks, in seconds: the longest chain of
 * the task graph (dependencies derived from the data accesses in submission
 * order) when each task takes the fastest time its calibrated perfmodels predict
 * (its measured time when no model answers). -1 when nothing can be computed. */
double starsolve_trace_critical_path(void);

/* ---- tile descriptors and the asynchronous tile API -------------------- */

typedef enum { STARSOLVE_S = 0, STARSOLVE_D = 1, STARSOLVE_C = 2, STARSOLVE_Z = 3 } starsolve_prec_t;

/* An m x n matrix cut in nb x nb tiles (the last tile row / column is smaller
 * when nb does not divide m / n). Each tile is one StarPU handle.
 * Storage is either owned (every tile contiguous, in pinned host memory, from
 * starsolve_desc_create) or borrowed (tiles are views of a LAPACK column-major
 * array, from starsolve_desc_create_lapack, no copy made). */
typedef struct starsolve_desc starsolve_desc_t;

int  starsolve_desc_create(starsolve_desc_t **desc, starsolve_prec_t prec, int m, int n, int nb);
int  starsolve_desc_create_lapack(starsolve_desc_t **desc, starsolve_prec_t prec, int m, int n, int nb,
                                  void *A, int lda);
/* Out of core: tiles that StarPU allocates where a task needs them and may move to
 * the disk swap (starsolve_config_t.disk_swap) when host memory is short, so the
 * matrix may be larger than the host memory given to StarPU. Fill it with
 * starsolve_desc_from_lapack (a tile at a time) and read it back with
 * starsolve_desc_to_lapack; the tile routines take it like any descriptor. */
int  starsolve_desc_create_ooc(starsolve_desc_t **desc, starsolve_prec_t prec, int m, int n, int nb);
/* Bytes StarPU moved from its disk swap to host memory (*read) and from host memory to
 * the swap (*written) since the previous call (the first call starts the count): how
 * often out-of-core tiles were evicted and loaded again. Counted while StarPU's task
 * profiling is on (starpu_profiling_status_set); both 0 without a disk swap. */
void starsolve_ooc_traffic(double *read, double *written);
/* Copy between a LAPACK column-major array (lda >= m) and an owned or out-of-core descriptor.
 * Both wait for tasks on the descriptor first. */
int  starsolve_desc_from_lapack(starsolve_desc_t *desc, const void *A, int lda);
int  starsolve_desc_to_lapack(const starsolve_desc_t *desc, void *A, int lda);
/* Bring every tile back to host memory (needed before reading a borrowed array). */
void starsolve_desc_flush(starsolve_desc_t *desc);
void starsolve_desc_destroy(starsolve_desc_t *desc);
int  starsolve_desc_m(const starsolve_desc_t *desc);
int  starsolve_desc_n(const starsolve_desc_t *desc);
int  starsolve_desc_nb(const starsolve_desc_t *desc);

/* ---- distributed memory (StarPU-MPI, starsolve_config_t.mpi = 1) -------------- */
int  starsolve_mpi_available(void);   /* 1 if this build has StarPU-MPI */
int  starsolve_mpi_rank(void);        /* this process in MPI_COMM_WORLD; 0 without MPI */
int  starsolve_mpi_size(void);        /* processes; 1 without MPI */
/* Bytes this process has sent to the others so far (StarPU-MPI's counters: they run
 * only when STARPU_COMM_STATS=1 was in the environment at start); -1 without them. */
double starsolve_mpi_sent_bytes(void);
/* An m x n matrix in nb x nb tiles spread 2D block-cyclically over a P x Q grid of
 * processes: tile (i, j) lives on process (i mod P) * Q + (j mod Q). P * Q must be the
 * number of processes (-6 otherwise). A process holds only the tiles it owns or that
 * its tasks read, allocated where first used. Every process calls it, in the same
 * order as every other registration (tags follow the order of the calls). */
int  starsolve_desc_create_dist(starsolve_desc_t **desc, starsolve_prec_t prec, int m, int n, int nb, int P, int Q);
/* Collective: copy the LAPACK column-major array A (lda >= m; read and written on
 * process root only) into a distributed descriptor, or every tile back to root. */
int  starsolve_desc_scatter(starsolve_desc_t *desc, const void *A, int lda, int root);
int  starsolve_desc_gather(const starsolve_desc_t *desc, void *A, int lda, int root);

/* Row interchanges of an LU factorization in tiles: one vector per panel. */
typedef struct starsolve_pivots starsolve_pivots_t;
int  starsolve_pivots_create(starsolve_pivots_t **piv, const starsolve_desc_t *A);
/* Copy to LAPACK's 1-based ipiv (min(m,n) entries); waits for the factorization. */
void starsolve_pivots_to_lapack(starsolve_pivots_t *piv, int *ipiv);
int  starsolve_pivots_from_lapack(starsolve_pivots_t *piv, const int *ipiv);
void starsolve_pivots_destroy(starsolve_pivots_t *piv);
/* Collective, distributed LU: LAPACK's ipiv on process root (each panel's vector lives with its diagonal tile). */
int  starsolve_pivots_gather(starsolve_pivots_t *piv, int *ipiv, int root);

/* A chain of asynchronous calls shares one request: it collects the first
 * numerical failure (LAPACK's positive info) of the tasks submitted with it. */
typedef struct starsolve_request starsolve_request_t;
starsolve_request_t *starsolve_request_create(void);
/* Wait for every task submitted so far and return the request's info. */
int  starsolve_request_wait(starsolve_request_t *req);
void starsolve_request_destroy(starsolve_request_t *req);

/* Tile routines: submit the task graph and return at once (negative info on
 * bad arguments, else 0); the numerical info arrives in the request. The
 * descriptor's precision must match the routine's. */
int starsolve_sgetrf_tile_async(starsolve_desc_t *A, starsolve_pivots_t *piv, starsolve_request_t *req);
int starsolve_dgetrf_tile_async(starsolve_desc_t *A, starsolve_pivots_t *piv, starsolve_request_t *req);
int starsolve_cgetrf_tile_async(starsolve_desc_t *A, starsolve_pivots_t *piv, starsolve_request_t *req);
int starsolve_zgetrf_tile_async(starsolve_desc_t *A, starsolve_pivots_t *piv, starsolve_request_t *req);

int starsolve_sgetrf_nopiv_tile_async(starsolve_desc_t *A, starsolve_request_t *req);
int starsolve_dgetrf_nopiv_tile_async(starsolve_desc_t *A, starsolve_request_t *req);
int starsolve_cgetrf_nopiv_tile_async(starsolve_desc_t *A, starsolve_request_t *req);
int starsolve_zgetrf_nopiv_tile_async(starsolve_desc_t *A, starsolve_request_t *req);

int starsolve_sgetrs_tile_async(char trans, const starsolve_desc_t *A, const starsolve_pivots_t *piv, starsolve_desc_t *B, starsolve_request_t *req);
int starsolve_dgetrs_tile_async(char trans, const starsolve_desc_t *A, const starsolve_pivots_t *piv, starsolve_desc_t *B, starsolve_request_t *req);
int starsolve_cgetrs_tile_async(char trans, const starsolve_desc_t *A, const starsolve_pivots_t *piv, starsolve_desc_t *B, starsolve_request_t *req);
int starsolve_zgetrs_tile_async(char trans, const starsolve_desc_t *A, const starsolve_pivots_t *piv, starsolve_desc_t *B, starsolve_request_t *req);

int starsolve_spotrf_tile_async(char uplo, starsolve_desc_t *A, starsolve_request_t *req);
int starsolve_dpotrf_tile_async(char uplo, starsolve_desc_t *A, starsolve_request_t *req);
int starsolve_cpotrf_tile_async(char uplo, starsolve_desc_t *A, starsolve_request_t *req);
int starsolve_zpotrf_tile_async(char uplo, starsolve_desc_t *A, starsolve_request_t *req);

int starsolve_spotrs_tile_async(char uplo, const starsolve_desc_t *A, starsolve_desc_t *B, starsolve_request_t *req);
int starsolve_dpotrs_tile_async(char uplo, const starsolve_desc_t *A, starsolve_desc_t *B, starsolve_request_t *req);
int starsolve_cpotrs_tile_async(char uplo, const starsolve_desc_t *A, starsolve_desc_t *B, starsolve_request_t *req);
int starsolve_zpotrs_tile_async(char uplo, const starsolve_desc_t *A, starsolve_desc_t *B, starsolve_request_t *req);

/* QR: A = Q R by tiles. T holds the triangular factors of the block
 * reflectors, one tile per tile of A: create it with starsolve_qr_workspace_create
 * (StarPU allocates its tiles where geqrf writes them). With GPUs (whole-column
 * updates, starsolve_config_t.update_tiles) geqrf factors panels of whole tile
 * columns as LAPACK's geqrf does, on CPU workers alone PLASMA's tile algorithm;
 * T records which, and unmqr/ungqr follow it (a T that geqrf has not filled is a bad argument).
 * unmqr/ormqr: C = op(Q) C (side 'L', C with A's rows) or C op(Q) (side 'R', C with A's
 * rows as its columns); trans 'N' or 'C' ('T' for real types); C with A's nb. ungqr/orgqr: Q (A's rows, at most m
 * columns) = the leading columns of the factorization's Q. */
int starsolve_qr_workspace_create(starsolve_desc_t **T, const starsolve_desc_t *A);
int starsolve_sgeqrf_tile_async(starsolve_desc_t *A, starsolve_desc_t *T, starsolve_request_t *req);
int starsolve_dgeqrf_tile_async(starsolve_desc_t *A, starsolve_desc_t *T, starsolve_request_t *req);
int starsolve_cgeqrf_tile_async(starsolve_desc_t *A, starsolve_desc_t *T, starsolve_request_t *req);
int starsolve_zgeqrf_tile_async(starsolve_desc_t *A, starsolve_desc_t *T, starsolve_request_t *req);
int starsolve_sormqr_tile_async(char side, char trans, const starsolve_desc_t *A, const starsolve_desc_t *T,
                                starsolve_desc_t *C, starsolve_request_t *req);
int starsolve_dormqr_tile_async(char side, char trans, const starsolve_desc_t *A, const starsolve_desc_t *T,
                                starsolve_desc_t *C, starsolve_request_t *req);
int starsolve_cunmqr_tile_async(char side, char trans, const starsolve_desc_t *A, const starsolve_desc_t *T,
                                starsolve_desc_t *C, starsolve_request_t *req);
int starsolve_zunmqr_tile_async(char side, char trans, const starsolve_desc_t *A, const starsolve_desc_t *T,
                                starsolve_desc_t *C, starsolve_request_t *req);
int starsolve_sorgqr_tile_async(const starsolve_desc_t *A, const starsolve_desc_t *T, starsolve_desc_t *Q,
                                starsolve_request_t *req);
int starsolve_dorgqr_tile_async(const starsolve_desc_t *A, const starsolve_desc_t *T, starsolve_desc_t *Q,
                                starsolve_request_t *req);
int starsolve_cungqr_tile_async(const starsolve_desc_t *A, const starsolve_desc_t *T, starsolve_desc_t *Q,
                                starsolve_request_t *req);
int starsolve_zungqr_tile_async(const starsolve_desc_t *A, const starsolve_desc_t *T, starsolve_desc_t *Q,
                                starsolve_request_t *req);

/* ---- LAPACK-layout routines ------------------------------------------- */

int starsolve_sgetrf(int m, int n, float *A, int lda, int *ipiv);
int starsolve_dgetrf(int m, int n, double *A, int lda, int *ipiv);
int starsolve_cgetrf(int m, int n, starsolve_complex32_t *A, int lda, int *ipiv);
int starsolve_zgetrf(int m, int n, starsolve_complex64_t *A, int lda, int *ipiv);

int starsolve_sgetrs(char trans, int n, int nrhs, const float *A, int lda, const int *ipiv, float *B, int ldb);
int starsolve_dgetrs(char trans, int n, int nrhs, const double *A, int lda, const int *ipiv, double *B, int ldb);
int starsolve_cgetrs(char trans, int n, int nrhs, const starsolve_complex32_t *A, int lda, const int *ipiv,
                     starsolve_complex32_t *B, int ldb);
int starsolve_zgetrs(char trans, int n, int nrhs, const starsolve_complex64_t *A, int lda, const int *ipiv,
                     starsolve_complex64_t *B, int ldb);

int starsolve_sgesv(int n, int nrhs, float *A, int lda, int *ipiv, float *B, int ldb);
int starsolve_dgesv(int n, int nrhs, double *A, int lda, int *ipiv, double *B, int ldb);
int starsolve_cgesv(int n, int nrhs, starsolve_complex32_t *A, int lda, int *ipiv, starsolve_complex32_t *B, int ldb);
int starsolve_zgesv(int n, int nrhs, starsolve_complex64_t *A, int lda, int *ipiv, starsolve_complex64_t *B, int ldb);

int starsolve_sgetrf_nopiv(int m, int n, float *A, int lda);
int starsolve_dgetrf_nopiv(int m, int n, double *A, int lda);
int starsolve_cgetrf_nopiv(int m, int n, starsolve_complex32_t *A, int lda);
int starsolve_zgetrf_nopiv(int m, int n, starsolve_complex64_t *A, int lda);

int starsolve_spotrf(char uplo, int n, float *A, int lda);
int starsolve_dpotrf(char uplo, int n, double *A, int lda);
int starsolve_cpotrf(char uplo, int n, starsolve_complex32_t *A, int lda);
int starsolve_zpotrf(char uplo, int n, starsolve_complex64_t *A, int lda);

int starsolve_spotrs(char uplo, int n, int nrhs, const float *A, int lda, float *B, int ldb);
int starsolve_dpotrs(char uplo, int n, int nrhs, const double *A, int lda, double *B, int ldb);
int starsolve_cpotrs(char uplo, int n, int nrhs, const starsolve_complex32_t *A, int lda,
                     starsolve_complex32_t *B, int ldb);
int starsolve_zpotrs(char uplo, int n, int nrhs, const starsolve_complex64_t *A, int lda,
                     starsolve_complex64_t *B, int ldb);

int starsolve_sposv(char uplo, int n, int nrhs, float *A, int lda, float *B, int ldb);
int starsolve_dposv(char uplo, int n, int nrhs, double *A, int lda, double *B, int ldb);
int starsolve_cposv(char uplo, int n, int nrhs, starsolve_complex32_t *A, int lda, starsolve_complex32_t *B, int ldb);
int starsolve_zposv(char uplo, int n, int nrhs, starsolve_complex64_t *A, int lda, starsolve_complex64_t *B, int ldb);

/* Random butterfly transformation solver: A_r = U^T A V with recursive butterflies
 * of depth `depth` (2 is the usual choice; 0: no randomization, plain LU without
 * pivoting), LU of A_r without pivoting, then iterative refinement on A in working
 * precision until ||r||_inf <= ||x||_inf ||A||_inf eps sqrt(n) or max_refine steps: a
 * classical step first (one solve with the factors), then GMRES corrections (up to 50
 * GMRES steps each, fewer where their vectors would outgrow the randomized matrix: many
 * right-hand sides; preconditioned by the factors), which converge where the factors are
 * too poor for classical steps (Ris, Orthog, Kahan); a poor first solution goes to GMRES
 * at once. A GMRES correction that does not halve the residual (relative to the criterion)
 * ends the refinement, as in LAPACK's xGERFS. A zero column of B gives x = 0 at once.
 * Where n does not fill the butterflies' tiles, A is augmented to diag(A, alpha I),
 * alpha = ||A||_inf / n cut to a power of two (so 2^k A gives 2^-k X: the same steps).
 * A is only read. B (ldb >= n) is overwritten by X. Returns 0; i > 0 when U(i,i) of
 * the (augmented) randomized matrix is exactly zero, B unchanged; n+1 when
 * refinement did not meet the criterion (B then holds the best iterate).
 * *iters (if not NULL) = refinement steps run. -7: a depth starsolve_rbt_depth_valid refuses. */
int starsolve_sgesv_rbt(int n, int nrhs, float *A, int lda, float *B, int ldb, int depth, int max_refine, int *iters);
int starsolve_dgesv_rbt(int n, int nrhs, double *A, int lda, double *B, int ldb, int depth, int max_refine, int *iters);
int starsolve_cgesv_rbt(int n, int nrhs, starsolve_complex32_t *A, int lda, starsolve_complex32_t *B, int ldb,
                        int depth, int max_refine, int *iters);
int starsolve_zgesv_rbt(int n, int nrhs, starsolve_complex64_t *A, int lda, starsolve_complex64_t *B, int ldb,
                        int depth, int max_refine, int *iters);
/* The same, timing its phases (seconds of wall clock): the routine then waits at the
 * end of each phase, so the randomization no longer overlaps the factorization. */
typedef struct starsolve_rbt_times {
    double copy;        /* the copy of A into the augmented tiles (with GPUs: its upload, which gesv pays too) */
    double randomize;   /* U^T A V on those tiles (the butterflies alone) */
    double factor;      /* LU without pivoting */
    double solve;       /* the first solve, X = V A_r^-1 U^T B */
    double refine;      /* residuals and corrections */
    double setup;       /* before the randomization: workspaces, butterflies, registrations (augmented: A's row sums) */
    double cleanup;     /* after the refinement: unregistering and freeing the workspaces */
} starsolve_rbt_times_t;
int starsolve_sgesv_rbt_timed(int n, int nrhs, float *A, int lda, float *B, int ldb, int depth, int max_refine,
                              int *iters, starsolve_rbt_times_t *times);
int starsolve_dgesv_rbt_timed(int n, int nrhs, double *A, int lda, double *B, int ldb, int depth, int max_refine,
                              int *iters, starsolve_rbt_times_t *times);
int starsolve_cgesv_rbt_timed(int n, int nrhs, starsolve_complex32_t *A, int lda, starsolve_complex32_t *B, int ldb,
                              int depth, int max_refine, int *iters, starsolve_rbt_times_t *times);
int starsolve_zgesv_rbt_timed(int n, int nrhs, starsolve_complex64_t *A, int lda, starsolve_complex64_t *B, int ldb,
                              int depth, int max_refine, int *iters, starsolve_rbt_times_t *times);

/* The RBT solver on tile descriptors, on one process or distributed (starsolve_desc_create_dist,
 * every process calls it): A (n x n, only read) and B (n x nrhs, the same nb and process grid)
 * hold A and B; B gets X. The same algorithm, returns and *iters as gesv_rbt, with the tiles
 * of A: the randomized matrix has order N = starsolve_rbt_order(n, depth, nb) (nb from
 * starsolve_get_nb_rbt pads least, and never by one row). Synchronous, unlike the *_tile_async routines: each
 * refinement step's stopping test waits for the residual's norms (combined over the
 * processes, so that all of them take the same decision). times: NULL, or as *_timed's.
 * Negative returns: -1 A, -2 B, -3 depth (starsolve_rbt_depth_valid), -4 max_refine. */
int starsolve_sgesv_rbt_tile(const starsolve_desc_t *A, starsolve_desc_t *B, int depth, int max_refine, int *iters,
                             starsolve_rbt_times_t *times);
int starsolve_dgesv_rbt_tile(const starsolve_desc_t *A, starsolve_desc_t *B, int depth, int max_refine, int *iters,
                             starsolve_rbt_times_t *times);
int starsolve_cgesv_rbt_tile(const starsolve_desc_t *A, starsolve_desc_t *B, int depth, int max_refine, int *iters,
                             starsolve_rbt_times_t *times);
int starsolve_zgesv_rbt_tile(const starsolve_desc_t *A, starsolve_desc_t *B, int depth, int max_refine, int *iters,
                             starsolve_rbt_times_t *times);

/* Least squares (op(A) tall) or minimum-norm solution (op(A) wide) of op(A) X = B,
 * A m x n, op 'N' or 'C' ('T' for real types); B is ldb x nrhs, ldb >= max(m, n),
 * and holds X on exit. Returns i > 0 when R(i,i) is exactly zero (A has not full rank). */
int starsolve_sgels(char trans, int m, int n, int nrhs, float *A, int lda, float *B, int ldb);
int starsolve_dgels(char trans, int m, int n, int nrhs, double *A, int lda, double *B, int ldb);
int starsolve_cgels(char trans, int m, int n, int nrhs, starsolve_complex32_t *A, int lda,
                    starsolve_complex32_t *B, int ldb);
int starsolve_zgels(char trans, int m, int n, int nrhs, starsolve_complex64_t *A, int lda,
                    starsolve_complex64_t *B, int ldb);

/* ---- batched routines: many small matrices, matrix k at A + k*strideA (LAPACK layout),
 * the same m, n for all. With GPUs the batch is cut into chunks of consecutive matrices, one
 * StarPU task each (starsolve_set_batch_chunk), shared by CPU and GPU workers; except the
 * factorizations with at least 8 CPU workers a GPU, or of min(m, n) >= 256, which are shared
 * from both ends as the variable-size ones are (starsolve_set_batch_pack), and the solves, which
 * stay on the CPU workers (measured faster than moving the factors to a GPU) unless there are none;
 * on CPU workers alone one task a worker claims consecutive matrices until none is left. Return 0
 * or a negative argument index; each matrix's LAPACK info goes to info[k]; ipiv is 1-based
 * per matrix; geqrf leaves R, the Householder vectors and tau as LAPACK's geqrf (LAPACK's
 * orgqr/ormqr accept them). geqrs: least squares with geqrf's factors (m >= n), B(1:n) = X. */
int starsolve_sgetrf_batched(int m, int n, float *A, int lda, long strideA, int *ipiv, long strideIpiv, int *info,
                             int batch);
int starsolve_dgetrf_batched(int m, int n, double *A, int lda, long strideA, int *ipiv, long strideIpiv, int *info,
                             int batch);
int starsolve_cgetrf_batched(int m, int n, starsolve_complex32_t *A, int lda, long strideA, int *ipiv, long strideIpiv, int *info,
                             int batch);
int starsolve_zgetrf_batched(int m, int n, starsolve_complex64_t *A, int lda, long strideA, int *ipiv, long strideIpiv, int *info,
                             int batch);
int starsolve_spotrf_batched(char uplo, int n, float *A, int lda, long strideA, int *info, int batch);
int starsolve_dpotrf_batched(char uplo, int n, double *A, int lda, long strideA, int *info, int batch);
int starsolve_cpotrf_batched(char uplo, int n, starsolve_complex32_t *A, int lda, long strideA, int *info, int batch);
int starsolve_zpotrf_batched(char uplo, int n, starsolve_complex64_t *A, int lda, long strideA, int *info, int batch);
int starsolve_sgeqrf_batched(int m, int n, float *A, int lda, long strideA, float *tau, long strideTau, int *info,
                             int batch);
int starsolve_dgeqrf_batched(int m, int n, double *A, int lda, long strideA, double *tau, long strideTau, int *info,
                             int batch);
int starsolve_cgeqrf_batched(int m, int n, starsolve_complex32_t *A, int lda, long strideA, starsolve_complex32_t *tau, long strideTau, int *info,
                             int batch);
int starsolve_zgeqrf_batched(int m, int n, starsolve_complex64_t *A, int lda, long strideA, starsolve_complex64_t *tau, long strideTau, int *info,
                             int batch);
int starsolve_sgetrs_batched(char trans, int n, int nrhs, const float *A, int lda, long strideA, const int *ipiv,
                             long strideIpiv, float *B, int ldb, long strideB, int batch);
int starsolve_dgetrs_batched(char trans, int n, int nrhs, const double *A, int lda, long strideA, const int *ipiv,
                             long strideIpiv, double *B, int ldb, long strideB, int batch);
int starsolve_cgetrs_batched(char trans, int n, int nrhs, const starsolve_complex32_t *A, int lda, long strideA, const int *ipiv,
                             long strideIpiv, starsolve_complex32_t *B, int ldb, long strideB, int batch);
int starsolve_zgetrs_batched(char trans, int n, int nrhs, const starsolve_complex64_t *A, int lda, long strideA, const int *ipiv,
                             long strideIpiv, starsolve_complex64_t *B, int ldb, long strideB, int batch);
int starsolve_spotrs_batched(char uplo, int n, int nrhs, const float *A, int lda, long strideA, float *B, int ldb,
                             long strideB, int batch);
int starsolve_dpotrs_batched(char uplo, int n, int nrhs, const double *A, int lda, long strideA, double *B, int ldb,
                             long strideB, int batch);
int starsolve_cpotrs_batched(char uplo, int n, int nrhs, const starsolve_complex32_t *A, int lda, long strideA, starsolve_complex32_t *B, int ldb,
                             long strideB, int batch);
int starsolve_zpotrs_batched(char uplo, int n, int nrhs, const starsolve_complex64_t *A, int lda, long strideA, starsolve_complex64_t *B, int ldb,
                             long strideB, int batch);
int starsolve_sgeqrs_batched(int m, int n, int nrhs, const float *A, int lda, long strideA, const float *tau,
                             long strideTau, float *B, int ldb, long strideB, int batch);
int starsolve_dgeqrs_batched(int m, int n, int nrhs, const double *A, int lda, long strideA, const double *tau,
                             long strideTau, double *B, int ldb, long strideB, int batch);
int starsolve_cgeqrs_batched(int m, int n, int nrhs, const starsolve_complex32_t *A, int lda, long strideA, const starsolve_complex32_t *tau,
                             long strideTau, starsolve_complex32_t *B, int ldb, long strideB, int batch);
int starsolve_zgeqrs_batched(int m, int n, int nrhs, const starsolve_complex64_t *A, int lda, long strideA, const starsolve_complex64_t *tau,
                             long strideTau, starsolve_complex64_t *B, int ldb, long strideB, int batch);

/* Variable sizes: matrix k is m[k] x n[k] at A[k], leading dimension lda[k]; ipiv[k] and tau[k]
 * hold min(m[k], n[k]) entries. On CPU workers alone one task a worker claims runs of matrices until none
 * is left (starsolve_set_batch_chunk: matrices a claim). With GPUs the batch is sorted by shape; each GPU
 * takes chunks of the smallest matrices, copied a chunk at a time into pinned memory (our kernels, one call
 * per run of equal shapes), while the CPU workers claim runs of the largest and factor them in place
 * (starsolve_set_batch_pack). A GPU short of memory (each keeps 8 x 32 MB pinned and as much on the GPU between
 * calls, and 64 MB free beside them) takes fewer matrices a kernel call, or none: the CPUs factor the rest. */
int starsolve_sgetrf_vbatched(const int *m, const int *n, float *const *A, const int *lda, int *const *ipiv,
                              int *info, int batch);
int starsolve_dgetrf_vbatched(const int *m, const int *n, double *const *A, const int *lda, int *const *ipiv,
                              int *info, int batch);
int starsolve_cgetrf_vbatched(const int *m, const int *n, starsolve_complex32_t *const *A, const int *lda, int *const *ipiv,
                              int *info, int batch);
int starsolve_zgetrf_vbatched(const int *m, const int *n, starsolve_complex64_t *const *A, const int *lda, int *const *ipiv,
                              int *info, int batch);
int starsolve_spotrf_vbatched(char uplo, const int *n, float *const *A, const int *lda, int *info, int batch);
int starsolve_dpotrf_vbatched(char uplo, const int *n, double *const *A, const int *lda, int *info, int batch);
int starsolve_cpotrf_vbatched(char uplo, const int *n, starsolve_complex32_t *const *A, const int *lda, int *info, int batch);
int starsolve_zpotrf_vbatched(char uplo, const int *n, starsolve_complex64_t *const *A, const int *lda, int *info, int batch);
int starsolve_sgeqrf_vbatched(const int *m, const int *n, float *const *A, const int *lda, float *const *tau,
                              int *info, int batch);
int starsolve_dgeqrf_vbatched(const int *m, const int *n, double *const *A, const int *lda, double *const *tau,
                              int *info, int batch);
int starsolve_cgeqrf_vbatched(const int *m, const int *n, starsolve_complex32_t *const *A, const int *lda, starsolve_complex32_t *const *tau,
                              int *info, int batch);
int starsolve_zgeqrf_vbatched(const int *m, const int *n, starsolve_complex64_t *const *A, const int *lda, starsolve_complex64_t *const *tau,
                              int *info, int batch);
/* Variable-size solves with the factors above: matrix k is n[k] x n[k] (geqrs: m[k] x n[k], m[k] >= n[k], the
 * least squares solution in B's first n[k] rows), B[k] has nrhs[k] columns and leading dimension ldb[k] (>= the
 * matrix's rows) and is overwritten by the solution. They run on CPU workers, also with GPUs: a solve reads its
 * factors once, and sending them to a GPU costs more than the solve. No info: as LAPACK's getrs, potrs. */
int starsolve_sgetrs_vbatched(char trans, const int *n, const int *nrhs, const float *const *A, const int *lda,
                              const int *const *ipiv, float *const *B, const int *ldb, int batch);
int starsolve_dgetrs_vbatched(char trans, const int *n, const int *nrhs, const double *const *A, const int *lda,
                              const int *const *ipiv, double *const *B, const int *ldb, int batch);
int starsolve_cgetrs_vbatched(char trans, const int *n, const int *nrhs, const starsolve_complex32_t *const *A, const int *lda,
                              const int *const *ipiv, starsolve_complex32_t *const *B, const int *ldb, int batch);
int starsolve_zgetrs_vbatched(char trans, const int *n, const int *nrhs, const starsolve_complex64_t *const *A, const int *lda,
                              const int *const *ipiv, starsolve_complex64_t *const *B, const int *ldb, int batch);
int starsolve_spotrs_vbatched(char uplo, const int *n, const int *nrhs, const float *const *A, const int *lda,
                              float *const *B, const int *ldb, int batch);
int starsolve_dpotrs_vbatched(char uplo, const int *n, const int *nrhs, const double *const *A, const int *lda,
                              double *const *B, const int *ldb, int batch);
int starsolve_cpotrs_vbatched(char uplo, const int *n, const int *nrhs, const starsolve_complex32_t *const *A, const int *lda,
                              starsolve_complex32_t *const *B, const int *ldb, int batch);
int starsolve_zpotrs_vbatched(char uplo, const int *n, const int *nrhs, const starsolve_complex64_t *const *A, const int *lda,
                              starsolve_complex64_t *const *B, const int *ldb, int batch);
int starsolve_sgeqrs_vbatched(const int *m, const int *n, const int *nrhs, const float *const *A, const int *lda,
                              const float *const *tau, float *const *B, const int *ldb, int batch);
int starsolve_dgeqrs_vbatched(const int *m, const int *n, const int *nrhs, const double *const *A, const int *lda,
                              const double *const *tau, double *const *B, const int *ldb, int batch);
int starsolve_cgeqrs_vbatched(const int *m, const int *n, const int *nrhs, const starsolve_complex32_t *const *A, const int *lda,
                              const starsolve_complex32_t *const *tau, starsolve_complex32_t *const *B, const int *ldb, int batch);
int starsolve_zgeqrs_vbatched(const int *m, const int *n, const int *nrhs, const starsolve_complex64_t *const *A, const int *lda,
                              const starsolve_complex64_t *const *tau, starsolve_complex64_t *const *B, const int *ldb, int batch);

/* Banded solver (SPIKE, issue 7): A in LAPACK gbsv band layout (ldab >= 2 kl + ku + 1, band in rows
 * kl .. 2 kl + ku), only read. B (ldb >= n) is overwritten by X. Truncated-SPIKE-preconditioned
 * BiCGStab until ||b - Ax||_inf <= max(min(1e-12, 10 n eps), 100 eps) ||b||_inf, checked on the true residual.
 * Returns 0 (or a negative argument index). *iters: the most BiCGStab iterations of a column, or
 * -1: BiCGStab did not converge (stagnation, breakdown or starsolve_get_spike_maxit() iterations) and the columns from that
 * one on were solved by LAPACK's gbsv; -2: a row's dominance |a_ii| / sum_{j!=i} |a_ij| is below 0.5,
 * a partition is singular, or n < 2 max(kl, ku) (no partition fits), so gbsv solved everything (a positive return is then gbsv's:
 * U(i,i) exactly zero). With starsolve_set_spike_fallback(0) it returns n + 1 instead of falling back.
 * n + 1 also when gbsv's solution has a NaN or Inf (one in A or B, or an overflow): it has no residual test.
 * Tridiagonal bands (kl, ku <= 1) with every row's dominance |a_ii| / (|a_i,i-1| + |a_i,i+1|) >= 0.999 are solved
 * exactly instead, one task per solve (elimination without pivoting: the partition method on a GPU), each column's
 * residual checked against the same goal and refined; *iters is then the most refinement steps a column took
 * (usually 0), and -1 as above for the columns from one that missed the goal on.
 * ?gbsv_spike is ?gbtrf_spike, ?gbtrs_spike and starsolve_spike_free below, in one call. */
int starsolve_sgbsv_spike(int n, int kl, int ku, int nrhs, float *AB, int ldab, float *B, int ldb, int *iters);
int starsolve_dgbsv_spike(int n, int kl, int ku, int nrhs, double *AB, int ldab, double *B, int ldb, int *iters);
int starsolve_cgbsv_spike(int n, int kl, int ku, int nrhs, starsolve_complex32_t *AB, int ldab, starsolve_complex32_t *B, int ldb, int *iters);
int starsolve_zgbsv_spike(int n, int kl, int ku, int nrhs, starsolve_complex64_t *AB, int ldab, starsolve_complex64_t *B, int ldb, int *iters);

/* The same solver, factor once and solve many times (as LAPACK's gbtrf / gbtrs). A factorization
 * of one precision; the routines of another refuse it (argument 1).
 *
 * ?gbtrf_spike: the partition factorizations, spike tips and reduced systems of truncated SPIKE, as
 * tasks; they stay where the tasks left them (on the GPUs, with CUDA workers) until
 * starsolve_spike_free, so that a solve moves only B. AB is not overwritten: BiCGStab multiplies by A,
 * so AB must stay valid and unchanged until starsolve_spike_free (with CUDA workers it stays
 * page-locked until then, unless it was already). The partition count (starsolve_set_spike_psize)
 * and the factors' precision (starsolve_set_spike_mixed) are taken at this call.
 * Returns 0 and *factors; or, and then *factors is NULL and there is nothing to free: a negative
 * argument index; n + 1 when A is far from diagonal dominance (a row's |a_ii| / sum_{j!=i} |a_ij| below
 * 0.5), a partition is singular or n < 2 max(kl, ku), and starsolve_get_spike_fallback() is 0; i in 1 .. n when, with the
 * fallback on, such an A went to LAPACK's banded LU with partial pivoting (gbtrf, here, on a copy of
 * the band) and U(i,i) is exactly zero. With the fallback taken, every solve uses that LU (*iters -2).
 *
 * ?gbtrs_spike: B (ldb >= n, nrhs columns) overwritten by X, each column by BiCGStab preconditioned
 * with the factors, as ?gbsv_spike (the iteration limit and the fallback setting are taken at this
 * call). Returns 0 or a negative argument index; *iters as ?gbsv_spike's. When BiCGStab does not
 * converge on a column and the fallback is on, that column and the rest are solved by LAPACK's
 * banded LU with partial pivoting (gbtrf at that moment, gbtrs), *iters = -1, and the factorization
 * keeps that LU: later solves use it directly (*iters -1, BiCGStab is not tried again); a positive
 * return is then gbtrf's (U(i,i) exactly zero; those columns of B are left as they were). With the
 * fallback off it returns n + 1 and leaves BiCGStab's last iterate in those columns. n + 1 also when
 * the banded LU's solution has a NaN or Inf.
 *
 * starsolve_spike_free: releases the factors (NULL: nothing); call it before starsolve_finalize. */
typedef struct starsolve_spike starsolve_spike_t;
int starsolve_sgbtrf_spike(int n, int kl, int ku, const float *AB, int ldab, starsolve_spike_t **factors);
int starsolve_dgbtrf_spike(int n, int kl, int ku, const double *AB, int ldab, starsolve_spike_t **factors);
int starsolve_cgbtrf_spike(int n, int kl, int ku, const starsolve_complex32_t *AB, int ldab, starsolve_spike_t **factors);
int starsolve_zgbtrf_spike(int n, int kl, int ku, const starsolve_complex64_t *AB, int ldab, starsolve_spike_t **factors);
int starsolve_sgbtrs_spike(starsolve_spike_t *factors, int nrhs, float *B, int ldb, int *iters);
int starsolve_dgbtrs_spike(starsolve_spike_t *factors, int nrhs, double *B, int ldb, int *iters);
int starsolve_cgbtrs_spike(starsolve_spike_t *factors, int nrhs, starsolve_complex32_t *B, int ldb, int *iters);
int starsolve_zgbtrs_spike(starsolve_spike_t *factors, int nrhs, starsolve_complex64_t *B, int ldb, int *iters);
void starsolve_spike_free(starsolve_spike_t *factors);

#ifdef __cplusplus
}
#endif
#endif
