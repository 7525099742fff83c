/* The tridiagonal path of gbsv_spike: what its task is asked (the task's cl_arg) and what it reports
 * back, shared by the C codelet (codelets/codelet_ztridiag.c) and the CUDA one (codelets/cuda/tridiag.cu). */
#ifndef STARSOLVE_TRIDIAG_RESULT_H
#define STARSOLVE_TRIDIAG_RESULT_H

/* Filled by the task, in the caller's memory (the codelets run on the host thread of their worker): */
struct ss_tridiag_result {
    int usable;        /* 0: a row's dominance below min_dominance, a zero pivot or a non-finite entry: nothing solved */
    int solved;        /* the columns of B solved (in order); the first one not solved keeps b */
    int steps;         /* the most refinement steps a column took */
    double dominance;  /* the smallest row dominance |a_ii| / (|a_i,i-1| + |a_i,i+1|) */
};

/* The least row dominance |a_ii| / (|a_i,i-1| + |a_i,i+1|) the tridiagonal path accepts (weak dominance, to
 * rounding): below it elimination without pivoting may grow, and gbsv_spike takes the general path
 * (src/zgbsv_spike.c). The benchmarks that call the kernels directly pass the same. */
#define SS_TRI_MIN_DOMINANCE 0.999

struct ss_tridiag_args {
    int n, kl, ku;           /* kl, ku <= 1 */
    int diag_row;            /* the row of the band handle that holds the diagonal */
    double min_dominance;    /* below it the matrix is not solved without pivoting */
    double tol;              /* a column is solved when max |b - A x| <= tol max |b| */
    int maxit;               /* refinement steps at most */
    struct ss_tridiag_result *result;
};

/* The tridiagonal path on CPU workers, cut into chunks of rows (a few per worker; codelets/codelet_ztridiag.c):
 * what each chunk is. Inside a chunk, the partition method runs on sub-partitions of about
 * SS_TRI_SUB_ROWS rows (sizes within a chunk differ by at most one; ss_tri_subs), several of them swept in step as
 * the lanes of vectors (codelet_ztridiag.c: ZTRI_LANES): each row's elimination waits for the previous row's
 * division, so one sweep at a time runs at the division's latency. Every sub-partition leaves its first and last
 * rows in the reduced system, which one chunk task solves whole (2 rows per sub-partition of every chunk), one row
 * after the other: with 512-row sub-partitions it took 88 us of a 1.2 ms call at n = 1e6 on the H200 machine's 16
 * cores; 2048 rows cut it fourfold on 2 cores, the sweeps as fast (bench/NOTES.md, session 56). */
#define SS_TRI_SUB_ROWS 2048
struct ss_tri_chunk {
    int n, kl, ku, diag_row;   /* as ss_tridiag_args */
    int c, nchunks;            /* this chunk, of how many */
    int first, rows;           /* its rows (and columns) */
    int subs;                  /* its sub-partitions in red and sol: ss_tri_subs(rows) on a CPU worker; 1 for the GPU's chunk
                                * (the last one, when the call has one: codelet_ztridiag.c, ztri_gpu_chunk_cuda) */
    int col0;                  /* the first column its sweeps read (first - 1, or 0) */
    int nrhs;                  /* the columns of B (0: the check, the reduce sweeps and the reduced system only) */
    double min_dominance;
    /* the band and the call's arrays, every chunk's, in host memory: the chunk tasks run on CPU workers only, so
     * they take pointers rather than handles (a handle costs a registration and an unregistration: with a handle
     * per chunk's band and a scratch handle, a gbsv call at n = 1e6 on the H200 machine's 16 workers took 1.09-1.17
     * ms, without them 0.90-0.97; bench/NOTES.md, session 57) */
    const void *band;          /* the matrix's band (LAPACK's layout) from one of its rows on: its diagonal at diag_row */
    size_t ldband;
    void *B, *save;            /* n x nrhs, leading dimensions ldb and lds (B NULL: the check) */
    size_t ldb, lds;
    void *red, *sol, *stat;    /* chunk c's at red + c red_stride, sol + c sol_stride, stat + c SS_TRI_STAT_COUNT(nrhs) */
    int red_stride, sol_stride;
};

/* What the GPU's chunk measured of its rows (codelets/cuda/tridiag.cu, ss_cuda_tri_chunk_reduce_end): the smallest row
 * dominance (its first row's without the subdiagonal) and whether a pivot was zero or an entry not finite */
struct ss_tri_gpu_flags {
    double dominance;
    int bad;
};

/* A call's chunk tasks, one per CPU worker used: each takes the call's chunks in turn (ss_tri_sync_next) through the
 * stages, so that a task that starts early or runs fast sweeps more of them */
struct ss_tri_task {
    const struct ss_tri_chunk *chunk;   /* the call's chunks (chunk->nchunks of them) */
    int ntasks, worker;                 /* how many tasks; where this one runs */
    struct ss_tri_sync *sync;           /* where the tasks meet between the stages (codelets/tridiag_sync.c) */
};

/* One call's chunk tasks (codelets/tridiag_sync.c): the caller creates the meeting point for ntasks tasks over
 * nchunks chunks (and holds a process-wide lock: one call's chunk tasks at a time); each task takes chunks for a stage
 * (0 reduce, 1 back) until none is left (-1), arrives after its reduce sweeps (1 for the last one, which solves the
 * reduced system and says so) or waits for the reduced system, and says when it is done; the caller waits for all
 * of them. The last to let go frees it. */
struct ss_tri_sync;
#ifdef __cplusplus
extern "C" {
#endif
struct ss_tri_sync *ss_tri_sync_create(int ntasks, int nchunks);
int ss_tri_sync_next(struct ss_tri_sync *y, int stage);
int ss_tri_sync_arrive(struct ss_tri_sync *y);
void ss_tri_sync_reduced(struct ss_tri_sync *y);
void ss_tri_sync_wait_reduced(struct ss_tri_sync *y);
void ss_tri_sync_chunk_done(struct ss_tri_sync *y);
void ss_tri_sync_wait_all(struct ss_tri_sync *y);
#ifdef __cplusplus
}
#endif
/* The sub-partitions of a chunk of `rows` rows (rows >= 12: each has at least 3 rows; tri_chunks_setup's chunks have
 * thousands): a multiple of 4, as the real precisions' tasks sweep 4 at a time (codelet_ztridiag.c: ZTRI_LANES, a
 * divisor of 4), so that every group is full. Chunks and sub-partitions alike cut their rows into pieces whose sizes
 * differ by at most one, as SPIKE's partitions do (codelets/spike_layout.h: ss_spike_part_first(c, n / p, n % p),
 * ss_spike_part_size). */
static inline int ss_tri_subs(int rows)
{
    const int quads = rows / (4 * SS_TRI_SUB_ROWS);
    return 4 * (quads > 1 ? quads : 1);
}

/* per chunk, the reduce task's output, entries of the working precision: */
#define SS_TRI_RED_DOM 0        /* the chunk's smallest row dominance (over every row when some row is below
                                 * min_dominance or not finite, or a pivot zero; else over its sub-partitions' end rows) */
#define SS_TRI_RED_BAD 1        /* 1: a zero pivot, a non-finite entry, or an interior row below min_dominance */
/* then per sub-partition k, from SS_TRI_RED_SUB(k, nrhs): its first row reduced (coupled to the previous
 * sub-partition's last row and its own last), its last row reduced (coupled to its own first and the next one's
 * first), then per column j the first row's right-hand side (SS_TRI_RED_RHS + 2j) and the last row's (+ 1) */
#define SS_TRI_RED_SUB(k, nrhs) (2 + (k) * (6 + 2 * (nrhs)))
#define SS_TRI_RED_A 0
#define SS_TRI_RED_B 1
#define SS_TRI_RED_C 2
#define SS_TRI_RED_AL 3
#define SS_TRI_RED_BE 4
#define SS_TRI_RED_CE 5
#define SS_TRI_RED_RHS 6
#define SS_TRI_RED_COUNT(subs, nrhs) SS_TRI_RED_SUB(subs, nrhs)
/* per chunk, the reduced solve's output: [0] 1 if the matrix is usable, then per sub-partition k and column j its
 * first row's unknown (SS_TRI_SOL_FIRST(k, j, nrhs)) and its last row's (+ 1) */
#define SS_TRI_SOL_FIRST(k, j, nrhs) (1 + 2 * ((k) * (nrhs) + (j)))
#define SS_TRI_SOL_COUNT(subs, nrhs) (1 + 2 * (subs) * (nrhs))
/* per chunk, the back task's output: per column j max |b - A x| (2j) and max |b| (2j + 1) over its rows */
#define SS_TRI_STAT_COUNT(nrhs) (2 * (nrhs) > 0 ? 2 * (nrhs) : 1)

#endif
