/* Internal state shared by the API, algorithm and codelet layers. */
#ifndef STARSOLVE_INTERNAL_H
#define STARSOLVE_INTERNAL_H

#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <starpu.h>
#include "starsolve.h"

/* A tiled matrix. Tile (i, j) covers rows i*nb .. i*nb+ss_tile_rows(A,i)-1 and
 * the same for columns; tiles are stored by tile column, so tile column j is
 * one m x ss_tile_cols(A,j) slab and tile (i, j) in it is contiguous. */
struct starsolve_desc {
    starsolve_prec_t prec;
    size_t elemsize;
    int m, n, nb;
    int mt, nt;                    /* tile rows and tile columns */
    int owned;                     /* 1: tiles in our allocation (pinned, or kept), or StarPU's (ooc); 0: views of a LAPACK array */
    int ooc;                       /* 1: no home copy: StarPU allocates each tile where it is used and may swap it to disk */
    int kept;                      /* 1: owned storage from ss_alloc_large_reused, kept for the next call when destroyed */
    char *base;                    /* owned: our storage; borrowed: the caller's array */
    size_t lda;                    /* borrowed: the caller's leading dimension */
    size_t pinned_bytes;           /* borrowed: bytes of the caller's array we page-locked, 0 if none */
    starpu_data_handle_t *tiles;   /* mt*nt handles, tile (i,j) at i + j*mt */
    /* a QR workspace T: which of pzgeqrf's algorithms filled it (none yet: unmqr and ungqr refuse it) */
    enum { SS_QR_NONE, SS_QR_TILES, SS_QR_PANELS } qr_algorithm;
    int P, Q;                      /* process grid of a distributed descriptor (src/mpi.c); 1 x 1 otherwise */
    /* Which process owns tile (i,j): 0 in one process, 2D block-cyclic over P x Q with StarPU-MPI */
    int (*owner)(const struct starsolve_desc *A, int i, int j);
};

static inline starpu_data_handle_t ss_tile(const starsolve_desc_t *A, int i, int j)
{
    return A->tiles[(size_t)i + (size_t)j * (size_t)A->mt];
}
static inline int ss_tile_rows(const starsolve_desc_t *A, int i)
{
    return i == A->mt - 1 ? A->m - i * A->nb : A->nb;
}

static inline int ss_tile_cols(const starsolve_desc_t *A, int j)
{
    return j == A->nt - 1 ? A->n - j * A->nb : A->nb;
}
/* An m x n scratch tile of A's precision, allocated by StarPU where it is
 * used, and (StarPU-MPI) owned by the process of A's tile (i, j); release it
 * after submitting the last task that uses it. */
starpu_data_handle_t ss_workspace_tile(const starsolve_desc_t *A, int i, int j, int m, int n);
/* The same for a buffer of bytes (a vector of 1-byte elements), for tasks that exchange small records */
starpu_data_handle_t ss_workspace_bytes(const starsolve_desc_t *A, int i, int j, size_t bytes);
/* Tiles i0 .. i1-1 of tile column j grouped by the process that owns them (StarPU-MPI): group_of[i - i0]
 * = the index of tile i's owner among the distinct owners in order of first appearance; returns their count */
int ss_tile_groups(const starsolve_desc_t *A, int i0, int i1, int j, int *group_of);
void ss_workspace_release(starpu_data_handle_t h);
/* Tile (i, j) is final once the tasks submitted so far have run: copy it home
 * then, while the factorization goes on, rather than with every other tile
 * after the last task. No-op without CUDA workers (tiles never leave home) and
 * for a descriptor without home copies (starsolve_desc_create_ooc). */
void ss_tile_send_home(const starsolve_desc_t *A, int i, int j);
/* Before a factorization's first task: with one GPU (every CUDA worker on one memory node),
 * starsolve_config_t.gpu_prefetch on, and A's tiles fitting in half the GPU's memory, queue the
 * upload of the tiles it reads in the order it first needs them: part 'L' the lower triangle by
 * tile columns, 'U' the upper by tile rows, 'A' all by tile columns. Without it the link idles
 * until tasks become ready and their inputs are fetched a step at a time; Cholesky at 40000 on an
 * H100 had its GPU 12-68% busy for the first 100 ms (bench/NOTES.md, session 14). No-op for
 * out-of-core and distributed descriptors. */
void ss_desc_prefetch_gpu(const starsolve_desc_t *A, char part);
/* The same for all of A by tile columns, queued only once the tasks submitted so far on the handle
 * `after` are done (a callback of starpu_data_acquire_on_node_cb; nothing is fetched for it).
 * `copies`: how many matrices of A's size the computation keeps on the GPU (A and the randomized
 * F: 2), all of which must fit in half its memory. The RBT solver uploads A into F by its own
 * tasks (lacpy_pad_upload) and needs A itself on the GPU only for the refinement's residuals:
 * queued after F's last tile, A's upload runs while the GPU factors, instead of sharing the bus
 * with F's tiles, which the first panels wait for. */
void ss_desc_prefetch_gpu_after(const starsolve_desc_t *A, starpu_data_handle_t after, int copies);
/* Queue the upload of a handle that many GPU tasks read (a small vector in pageable host memory)
 * to every GPU now, while the transfer queues are empty. From pageable memory CUDA performs a
 * stream sync before the copy starts (the runtime's documented behaviour), so fetched later, behind
 * tile uploads, the copy waits for them on the thread that drives the GPU. Measured (RBT's
 * butterflies, n = 20000, one H100): the randomization timed alone took 34-38 ms before, 6 ms
 * after; the overlapped call did not change beyond its spread (bench/NOTES.md, session 27). */
void ss_handle_prefetch_gpus(starpu_data_handle_t h);
/* The memory nodes of the GPUs that CUDA workers drive, each once (several workers may drive one
 * GPU: starsolve_config_t.cuda_streams); returns how many. */
unsigned ss_gpu_memory_nodes(unsigned nodes[STARPU_MAXNODES]);
/* starsolve_desc_destroy for a workspace whose contents are not wanted: no tile is brought home;
 * a descriptor without home copies in one process goes without waiting (its tiles are released
 * once the tasks already submitted on them are done) */
void ss_desc_discard(starsolve_desc_t *A);
/* A workspace of a solver, m x n, distributed as like (same nb, same process grid, like's precision). In one
 * process no home copy: StarPU allocates its tiles where they are used (with GPUs, there only) instead of
 * page-locking host allocations per call, and its final tiles are not sent home (ss_tile_send_home). */
int ss_desc_create_workspace(starsolve_desc_t **desc, const starsolve_desc_t *like, int m, int n);
/* An owned workspace for CPU workers alone, its tiles in one ss_alloc_large_reused mapping, kept for
 * the next call of the same size when the descriptor goes: a repeated call writes into pages already
 * backed instead of faulting fresh ones in (an N x N workspace is hundreds of MB). Its contents start
 * as whatever the previous call left; tasks must write a tile before reading it. */
int ss_desc_create_kept(starsolve_desc_t **desc, starsolve_prec_t prec, int m, int n, int nb);
/* Where tile (i, j) of A starts in a LAPACK column-major array (leading dimension lda). */
static inline char *ss_lapack_tile(const starsolve_desc_t *A, char *lapack, size_t lda, int i, int j)
{
    return lapack + ((size_t)i * A->nb + (size_t)j * A->nb * lda) * A->elemsize;
}
/* Copy tile (i, j) (this process's copy, brought to host memory) to its place in the
 * LAPACK array `lapack` (leading dimension lda) or from there (to_lapack 0). */
void ss_tile_copy_lapack(const starsolve_desc_t *A, int i, int j, char *lapack, size_t lda, int to_lapack);
/* A StarPU scratch buffer of at least `bytes` bytes (16-byte units) for tasks
 * that take it STARPU_SCRATCH: each worker gets its own copy on its memory
 * node, allocated on first use and kept until ss_workspace_release. */
starpu_data_handle_t ss_scratch_buffer(size_t bytes);
#define SS_SCRATCH_BYTES(buf) ((size_t)STARPU_VECTOR_GET_NX(buf) * STARPU_VECTOR_GET_ELEMSIZE(buf))

/* A vector of count values in host memory as a StarPU handle (unregister with
 * starpu_data_unregister before freeing the values). */
starpu_data_handle_t ss_register_vector(void *values, size_t count, size_t elemsize);
/* The same, owned by process `owner` under StarPU-MPI (a distributed descriptor's
 * A->owner(A, i, j)): the tasks that write it run there. Every process registers
 * it, in the same order as every other distributed registration (tags). */
starpu_data_handle_t ss_register_vector_owned(void *values, size_t count, size_t elemsize, int owner);
/* An m x n LAPACK-layout matrix (leading dimension ld) in host memory as a StarPU handle. */
starpu_data_handle_t ss_register_matrix(void *values, int ld, int m, int n, size_t elemsize);

/* Wall-clock seconds; a name of its own so that generic sources keep it double in s and c. */
typedef double ss_seconds_t;

/* LAPACK accepts option letters in either case. */
static inline char ss_upper(char c) { return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c; }
static inline int ss_min(int a, int b) { return a < b ? a : b; }
static inline int ss_max(int a, int b) { return a > b ? a : b; }
/* The RBT's butterfly levels whose halves are whole tiles, for a randomized matrix of `tiles` tiles a side
 * and depth levels: all of them where it has 2^depth k tiles a side (every half k tiles or more); where it has
 * 2^L < 2^depth (a level-L block is one tile), the first L, and the deeper ones act inside the tiles
 * (insert_zgerbt_local). */
static inline int ss_rbt_tile_levels(int tiles, int depth)
{
    int levels = 0;
    while (levels < depth && (2L << levels) <= tiles)
        levels++;
    return levels;
}
/* The tile classes of the RBT's randomized matrix (src/pzgerbt.c, pzgerbt_copy): the tiles a half of the smallest
 * whole-tile butterfly holds, k = tiles / 2^L; tile (i, j) mixes only tiles of its class (i mod k, j mod k) */
static inline int ss_rbt_tile_classes(int tiles, int depth) { return tiles >> ss_rbt_tile_levels(tiles, depth); }

/* The row sums of |A| (pzlange_rowsums) in up to `split` tasks a tile row, so that more cores take part
 * where tile rows are fewer than cores: a tile row of `rows` rows in ss_rowsum_parts parts, part s
 * from row ss_rowsum_part_start(rows, parts, s) (the next part's start ends it; none is empty) */
static inline int ss_rowsum_parts(int rows, int split) { return ss_min(split, rows); }
static inline int ss_rowsum_part_start(int rows, int parts, int s) { return (int)((long)s * rows / parts); }
/* The larger of two reals, NaN once either is (the RBT norms: lange's norm of a matrix with a NaN is NaN) */
static inline double ss_max_nan(double a, double b) { return isnan(a) || isnan(b) ? NAN : a > b ? a : b; }

/* Pivots of a tiled LU: one vector per panel (layout in pivots.h), panel k's
 * at data + k*stride, its ipiv entries global 1-based rows like LAPACK's. */
struct starsolve_pivots {
    int npanels, nb, minmn;
    size_t stride;
    int *data;
    starpu_data_handle_t *panels;
};

/* Collects the first numerical failure of a chain of tasks (tasks report
 * with ss_request_report). Like LAPACK, later tasks still run. */
struct starsolve_request {
    pthread_mutex_t lock;
    int info;                      /* 0 or the smallest positive info reported */
};
void ss_request_report(starsolve_request_t *req, int info);

/* Library state set by starsolve_init (not a hidden global: every choice in
 * it comes from the caller's starsolve_config_t or starsolve_set_nb). */
struct ss_context {
    int initialized;
    int nb;
    int nb_fixed;      /* nb came from cfg.nb or starsolve_set_nb: starsolve_get_nb_for keeps it */
    int out_of_core;   /* started with cfg.disk_swap: nb was chosen for the disk's requests (default_nb) */
    int verbose;
    int gpu_only_tile;
    int pin_lapack;
    int batch_vendor;  /* batched factorizations on CUDA workers: 1 the vendor's routines, 0 ours */
    int batch_pack;    /* variable-size batches: 1 packed chunks also on CPU workers alone (starsolve_set_batch_pack) */
    int batch_chunk;   /* matrices per task of the batched routines; 0: chosen from the sizes */
    int gpu_panel_leaf;  /* > 0: our GPU LU panel with leaves of this width; 0: cuSOLVER's getrf */
    int gpu_prefetch;    /* 1: factorizations queue the upload of A in the order they read it (ss_desc_prefetch_gpu) */
    int mpi_gather_panel; /* StarPU-MPI LU: 1 the panel's column goes to one process, 0 the search spreads (pzgetrf.c) */
    int update_tiles;    /* tile GEMMs per trailing-update task (>= 1; INT_MAX: a whole tile column) */
    int heteroprio;      /* the running policy is heteroprio: task priorities are its buckets */
    int spike_psize;   /* rows per partition of the SPIKE solver; 0: chosen from n, the band and the workers */
    int spike_mixed;   /* SPIKE (d, z): partition factors in single precision (1), not (0), or by K (-1, the default) */
    int spike_maxit;   /* SPIKE: most BiCGStab iterations per right-hand side (100) */
    int spike_fallback;   /* SPIKE: solve with gbsv when BiCGStab does not converge (1, the default) or return n+1 (0) */
    int mpi;           /* started with StarPU-MPI (starsolve_config_t.mpi): tasks go through starpu_mpi_task_insert */
    int mpi_rank, mpi_size;
    long long mpi_next_tag;   /* the next free StarPU-MPI tag: every process registers the same handles in the same order */
    int mpi_started_mpi;      /* we called MPI_Init_thread, so we call MPI_Finalize */
};
extern struct ss_context ss_ctx;

/* The classes of tasks heteroprio tells apart. That policy reads a task's
 * priority as the index of its bucket and gives each kind of worker its own
 * order of buckets (src/context.c: CPUs take panels first, GPUs updates);
 * every other policy gets the critical-path priority `prio`. Tasks inserted
 * without a priority (0) fall in SS_BUCKET_OTHER. */
enum ss_bucket { SS_BUCKET_OTHER, SS_BUCKET_PANEL, SS_BUCKET_SOLVE, SS_BUCKET_UPDATE, SS_NBUCKETS };
static inline int ss_priority(enum ss_bucket bucket, int prio)
{
    return ss_ctx.heteroprio ? (int)bucket : prio;
}
/* heteroprio assumes that every task of a bucket can run on every kind of worker that takes the
 * bucket (StarPU 1.3.10 asserts it when a worker pops), but with CUDA workers the tasks on
 * GPU-sized tiles refuse CPU workers (ss_can_execute), and some codelets have a CPU variant only.
 * So under heteroprio ss_task_insert builds the task and ss_task_submit_built moves it to its
 * bucket's twin for the one kind of worker that can run it: bucket + SS_GPU_ONLY or + SS_CPU_ONLY
 * (src/context.c maps them), then submits it. */
enum { SS_GPU_ONLY = SS_NBUCKETS, SS_CPU_ONLY = 2 * SS_NBUCKETS };
int ss_task_submit_built(struct starpu_task *task);

/* Page-lock [ptr, ptr + bytes) for one call's transfers, when CUDA workers exist and
 * starsolve_config_t.pin_lapack is on: pageable memory makes StarPU's copies staged and
 * blocking. Memory that is page-locked already (starsolve_malloc) is left alone (asking
 * CUDA to register it again is an error). Returns the bytes pinned, for ss_unpin_host;
 * 0 when nothing was pinned. */
size_t ss_pin_host(void *ptr, size_t bytes);
/* 1 when ptr is in page-locked host memory (CUDA's word for it), else 0 (always 0 without CUDA) */
int ss_host_pinned(const void *ptr);
void ss_unpin_host(void *ptr, size_t pinned);

/* The head of every precision's SPIKE factorization (src/zgbsv_spike.c), the public
 * starsolve_spike_t: its precision lets ?gbtrs_spike refuse another precision's factors, and its
 * destroy lets one starsolve_spike_free release any of the four. */
struct starsolve_spike {
    starsolve_prec_t prec;
    void (*destroy)(struct starsolve_spike *factors);
};

/* A large zero-filled work array (hundreds of MB: SPIKE's factors and vectors) in transparent
 * huge pages where the kernel offers them. Fresh memory costs a page fault per 4 KiB page on
 * first touch: 400 MB took 3.0 s on the 2-core CI VM in 4 KiB pages and 0.04 s in huge pages
 * (bench/NOTES.md, session 14), more than LAPACK's whole dgbsv on the same band. NULL when out of
 * memory; ss_free_large takes the same byte count. */
void *ss_alloc_large(size_t bytes);
void ss_free_large(void *ptr, size_t bytes);
/* The same, for an array whose every entry the caller writes before reading (SPIKE's factors):
 * ss_free_large_kept keeps the mapping for the next ss_alloc_large_reused of the same byte count,
 * which returns it with the previous call's contents (else a fresh zero-filled one, in huge pages
 * only if huge_pages: see ss_desc_create_kept for where 4 KiB pages fault in faster);
 * ss_free_large_kept_now unmaps the kept one (starsolve_finalize). */
void *ss_alloc_large_reused(size_t bytes, int huge_pages);
void ss_free_large_kept(void *ptr, size_t bytes);
void ss_free_large_kept_now(void);
/* A work handle (ss_scratch_buffer's kind) kept between calls in the same way: ss_work_kept keeps h for the
 * next ss_work_reused of the same byte count, which returns it (else a new one); starsolve_finalize
 * unregisters the kept one. */
starpu_data_handle_t ss_work_reused(size_t bytes);
void ss_work_kept(starpu_data_handle_t h, size_t bytes);
void ss_work_kept_now(void);

/* With CUDA workers and starsolve_config_t.gpu_only_tile > 0, GPU-sized work (large tiles,
 * SPIKE's chunks) refuses CPU workers (ss_can_execute, SPIKE's codelets) */
static inline int ss_gpu_work_gpu_only(void)
{
    return ss_ctx.gpu_only_tile > 0 && starpu_cuda_worker_get_count() > 0;
}

/* Every codelet's callback (src/trace.c): while a trace is on, records the task
 * that just ran (worker, start, end, data accesses, fastest prediction). */
void ss_trace_task_done(void *arg);

/* Codelet hook: may this worker run this task? With CUDA workers, tiles of
 * order >= starsolve_config_t.gpu_only_tile are GPU work only. */
int ss_can_execute(unsigned workerid, struct starpu_task *task, unsigned nimpl);
/* Whether CUDA worker `workerid` runs the uploads of main-memory tiles by its own tasks
 * (lacpy_pad_upload): the last CUDA worker of its GPU, the only one where the GPU has one.
 * A stream of uploads then runs back to back beside the other workers' kernels, as StarPU's
 * transfer stream would, instead of taking turns with kernels on every stream. */
int ss_cuda_worker_uploads(unsigned workerid);
/* Perfmodel size of a task whose tiles vary in number or height within one
 * factorization (a panel of the rows left, a column update over the tiles
 * below the diagonal): the elements of its matrix buffers. Those codelets use
 * StarPU's regression models (a size^b, fitted in log-log) on it: a history-based
 * model keys on the exact shape and counts as calibrated after ten runs of that
 * shape, which a panel of a given height gets once per factorization, so at
 * n = 40000 every panel ran uncalibrated and dmdas placed it by queue length
 * (bench/NOTES.md, session 10). The regression is valid from ten samples over
 * different sizes, within 0.9x to 1.1x of the sizes seen: one calibrating run
 * at the largest order covers all smaller ones.
 * Not the non-linear one (a size^b + c): StarPU 1.3 fits it by a search on c
 * that can end in nonsense on noisy samples (laswp's, with B's vectors and
 * matrix columns: a = 1.7e69, b = -8.1, predicting 2e34 us for a vector), and
 * modular-heft-prio's worker queues refuse a task predicted above 1e9 us for
 * ever: starpu_lu stalled (bench/NOTES.md, session 34). */
size_t ss_perfmodel_matrix_elements(struct starpu_task *task, unsigned nimpl);
/* StarPU-MPI (src/mpi.c). Under MPI every handle a task touches needs an owner
 * process and a tag; these are no-ops in one process. */
void ss_mpi_register(starpu_data_handle_t h, int owner);
int ss_mpi_local_owner(void);                   /* the owner of data every process has its own copy of */
int ss_mpi_owns(int owner);                     /* does this process hold data of that owner? */
int ss_mpi_start(struct starpu_conf *conf);     /* starpu_mpi_init_conf; -1 if built without StarPU-MPI */
void ss_mpi_stop(void);
void ss_mpi_wait_for_all(void);
int ss_mpi_reduce_info(int info);               /* the smallest positive info over the processes */
/* Elementwise over the processes, in place, for host-side results that every
 * process must see the same (a distributed solver's stopping test): the sum,
 * and the largest value with a NaN anywhere giving NaN (MPI_MAX leaves NaNs to
 * the implementation). v: count reals of realsize bytes (float or double: generic
 * sources hold their precision's real type). No-ops in one process. */
void ss_mpi_sum_reals(void *v, int count, size_t realsize);
void ss_mpi_max_reals(void *v, int count, size_t realsize);
/* Start StarPU with defaults if the caller did not (LAPACK drop-in use). */
int ss_ensure_init(void);
/* Public calls and idle workers (idle.c). SS_PUBLIC_CALL, the first statement of every public function
 * that submits tasks or waits on StarPU, makes the function a call: the workers are awake from there to
 * its return (a cleanup attribute ends the call on every return path). */
int ss_call_begin(void);
void ss_call_end(const int *call);
#define SS_PUBLIC_CALL const int ss_public_call __attribute__((cleanup(ss_call_end), unused)) = ss_call_begin()
void ss_idle_start(int pause_ms, int mpi);   /* STARSOLVE_IDLE_PAUSE_MS wins; pause_ms < 0 or mpi: never pause */
void ss_idle_stop(void);                     /* the workers running again, for starpu_shutdown */

/* Message on stderr when verbose; returns info so callers can `return ss_arg_error(...)`. */
int ss_arg_error(const char *routine, int info);

#endif
