/* Banded solver: truncated SPIKE as the preconditioner of BiCGStab (Li, Seidl, Negrut,
 * "SPIKE::GPU"), on LAPACK's gbsv band layout. Every step is a StarPU task
 * (codelets/codelet_zspike.c); this thread only registers data, submits, and reads
 * BiCGStab's few scalars once per iteration to decide whether to go on.
 *
 * A is cut into p partitions whose sizes differ by at most one row (no straggler
 * whatever n is), each of at least 2K rows, K = max(kl, ku), and the partitions into nc
 * chunks, contiguous ranges of partitions: each task handles a chunk (a CPU loops over its
 * partitions, a GPU runs one thread block per partition), so that many partitions (what a GPU
 * needs to be busy) do not mean many tasks (partition_count says how many of each). Per
 * partition the factor task factors the diagonal block A_i (gbtrf, partial pivoting) and
 * computes the spike tips only: Vb_i, the bottom K x K of A_i^-1 [0; B_i], exactly from the
 * LU's last rows, and Wt_i, the top K x K of A_i^-1 [C_i; 0], from the partition's leading
 * block (the seed's UL of the top block; the argument is at the factor codelet); then it
 * factors the truncated reduced systems [I Vb_j; Wt_{j+1} I] (2K x 2K) of the interfaces
 * inside its chunk. The interfaces between chunks have a task each.
 * The preconditioner x = M^-1 f, on f's partitions: g_i = A_i^-1 f_i keeping only its
 * top and bottom K rows (tip solve), the reduced systems for [x_j^b; x_{j+1}^t], then
 * the retrieval x_i = A_i^-1 (f_i - C_i x_{i-1}^b - B_i x_{i+1}^t) (purification).
 *
 * Refinement in working precision, one right-hand side after the other: steps x += M^-1 (b - A x)
 * while they converge fast, then BiCGStab preconditioned on the right (bicgstab() says why), until
 * ||b - A x||_inf <= tol ||b||_inf, tol = max(min(1e-12, 10 n eps), 100 eps); the stopping test is on the true
 * residual b - A x (after BiCGStab, a last product), never taken from the recurrence.
 * Mixed precision (starsolve_set_spike_mixed(1); off by default, see below): the partition factors
 * and their solves in single precision (float for d, complex float for z), which halves the bytes
 * every solve reads, the Krylov vectors, the products with A and the reduced systems in working
 * precision.
 *
 * Not diagonally dominant input: the factor tasks measure each row's dominance
 * |a_ii| / sum_{j != i} |a_ij|. Below SPIKE_MIN_DOMINANCE, or with a singular partition
 * or reduced system, truncated SPIKE is not used at all; otherwise BiCGStab runs and
 * stops early when it stagnates or breaks down. Either way the solver falls back to
 * LAPACK's banded LU with partial pivoting (gbsv, on a copy of the band) for the
 * right-hand sides not yet solved and says so: *iters = -2 (not dominant, SPIKE not
 * tried) or -1 (BiCGStab did not converge). With the fallback off
 * (starsolve_set_spike_fallback(0)) the solver returns n + 1 instead and leaves the
 * last iterate in B. AB is only read.
 *
 * Factor once, solve many times: ?gbtrf_spike registers the band and every array of the
 * solver, factors, and returns them all registered (struct spike, the public
 * starsolve_spike_t); ?gbtrs_spike registers only B's rows, runs BiCGStab on them and
 * unregisters them; starsolve_spike_free unregisters the rest without coherency (dropped where
 * it lies). So the factors, tips, reduced systems, BiCGStab's vectors and StarPU's copy of the
 * band stay on the GPU between solves, and a solve moves B and a few scalars. ?gbsv_spike is the
 * three in one call. The fallback's banded LU, once needed, belongs to the factorization: it is
 * computed once (at the factorization when A is not dominant, at the first solve whose BiCGStab
 * fails otherwise), and every later solve uses it without trying BiCGStab again. */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <lapacke.h>
#include "algorithms.h"
#include "codelets.h"
#include "tridiag_layout.h"

/* Below this row dominance ratio truncated SPIKE is not tried (bench/NOTES.md: at
 * d = 0.1 BiCGStab needs tens of iterations or stagnates, gbsv is cheaper) */
#define SPIKE_MIN_DOMINANCE 0.5
/* stagnation: after this many iterations, the residual must have shrunk by half over
 * the last SPIKE_WINDOW of them */
#define SPIKE_WINDOW 8

/* BiCGStab's vectors, each cut into the chunks */
enum { VB, VX, VR, VRH, VP, VV, VPH, VS, VSH, VT, NVEC };

/* p partitions in nc chunks (per chunk the handles below); the interfaces between chunks have
 * their own reduced systems (Sx, ipivSx) and solutions (yx), nc - 1 of each */
struct spike {
    struct starsolve_spike head;   /* precision and destroy (src/internal.h): must come first */
    int n, kl, ku, K, p, nc, mixed;
    const starsolve_complex64_t *AB;   /* the caller's band, read until the factorization is freed */
    int ldab;
    size_t pinA;                   /* bytes of AB page-locked by us (ss_pin_host), unpinned at the end */
    int registered;                /* the StarPU handles below exist (SPIKE is in use) */
    /* 0: solves by BiCGStab; -2 (not dominant, a singular partition) or -1 (BiCGStab failed): by
     * the banded LU with partial pivoting lu / lupiv (LAPACK's gbtrf layout, ldab), whose info
     * luinfo > 0 means U(luinfo, luinfo) is exactly zero: nothing is solved */
    int method, luinfo;
    starsolve_complex64_t *lu;
    int *lupiv;
    struct ss_spike_part *chunk;
    starpu_data_handle_t *band, *edge_top, *edge_bot, *F, *ipiv, *tips, *S, *ipivS, *gt, *y, *stat, *partial, *Bh, *vec[NVEC];
    starpu_data_handle_t *Sx, *ipivSx, *yx;
    starpu_data_handle_t scratch, scalars;
    /* the tridiagonal path (tri_setup): the band, the task's scratch, its worker and its report; unchecked:
     * gbsv_spike's factorization, whose solve measures the dominance itself (tri_solve) */
    int tri, tri_unchecked, tri_worker, tri_diag_row;   /* tri_diag_row: the band handles' row of the diagonal */
    starpu_data_handle_t tri_band, tri_work;
    size_t tri_work_bytes;
    /* chunks (tri_setup): tri_tasks tasks on CPU workers over tri_chunks chunks of rows, each chunk described without
     * data handles; tri_gpu: the last chunk is a GPU's (CUDA worker tri_worker), beside them */
    int tri_tasks, tri_chunks, tri_gpu;
    struct ss_tri_chunk *tri_chunk;
    struct ss_tridiag_result tri_result;
    void *Fmem;
    size_t Fbytes, ipivbytes, vecbytes;   /* of the ss_alloc_large arrays */
    int *ipivmem, *ipivSmem;
    starsolve_complex64_t *tipsmem, *Smem, *gtmem, *ymem, *statmem, *partmem, *vecmem, scal[SS_SCAL_COUNT];
};

/* Partitions and chunks (tasks).
 *
 * Partitions are the algorithm's unit: each keeps at least 2K rows (SPIKE's couplings must reach
 * only the neighbours), and every further partition adds an interface whose truncation the Krylov
 * iterations have to correct. Chunks are the tasks' unit: a contiguous range of partitions, so
 * that the number of tasks (and StarPU's cost of some microseconds each) does not grow with the
 * partitions.
 *
 * CPU workers only: one partition per worker and one partition per chunk, as before chunks
 * existed (a CPU task loops over its chunk's partitions serially, so more partitions buy no
 * parallelism there, only interfaces; bench/NOTES.md measured 1 and 2 per worker). A partition
 * keeps at least SPIKE_MIN_WORK / K rows, so that a task's work (about size K flops) stays far
 * above the per-task cost.
 *
 * With CUDA workers: a GPU runs a chunk as one thread block per partition (the seed's
 * SPIKE::GPU), and a band LU or solve inside a block is a sequence of K-wide steps, so the GPU is
 * busy only with hundreds of partitions at once: SPIKE_GPU_PARTS per GPU (an H100 has 132 SMs;
 * 1024 blocks are ~8 per SM, enough to hide each block's barriers), each of at least
 * SPIKE_GPU_MIN_ROWS rows so that a block's serial steps stay few against its work, and of at least
 * SPIKE_GPU_ROWS_PER_K x K rows: each partition's spike tips cost the factor task a fixed ~K^3 work
 * (the leading 6K-column block's LU and its K right-hand sides, Vb's K right-hand sides), so at larger K
 * fewer, longer partitions factor faster, while the solves' sweeps get longer (one warp per partition,
 * row after row). bench/NOTES.md (session 15, one H100, n = 1e6): K = 64, 2048 partitions factor in
 * 59.5 ms and a further solve takes 9.6 ms, 1024 partitions 41.6 and 12.0 ms; K = 128, 2048 partitions
 * 818 and 17 ms, 512 of them 305 and 34 ms; K = 32 was best at 2048. About 16 K rows a partition was
 * the best call (factor and solve) at each K measured. The chunks: one per CUDA worker, each holding
 * all its partitions. Why not share with the CPU workers:
 * one CPU core factors a 1000-row partition (K = 32) in about the time the GPU factors its
 * whole chunk of ~1000, so a CPU chunk would be the critical path unless it held ~1/20 of a GPU
 * chunk's partitions; dmdas picks among the chunks by its perfmodels, and with one big chunk per
 * GPU and nothing for the CPUs it cannot make that mistake. (The reductions of BiCGStab's scalars
 * go with chunk 0, on a GPU when it has one.)
 *
 * starsolve_set_spike_psize(P) asks for about n / P partitions instead (still at least 2K rows
 * each), spread over as many chunks as there are workers (CUDA workers present: one per CUDA
 * worker), so that tests on CPU make chunks of several partitions.
 *
 * Chunk c's tasks run on worker c of the kind the chunks were cut for (chunk_worker): CPU worker c
 * with CPU workers only, CUDA worker c otherwise. The chunks are equal by construction, so a static
 * placement is the best one, and it does not depend on calibrated perfmodels: until a chunk's
 * footprint has 10 samples dmdas forces calibration and put both chunks' factorizations, then both
 * tip solves, on one worker of two (bench/NOTES.md, session 14, CPU); with one GPU's two CUDA
 * workers it ran both factor tasks on one of them, one after the other (session 15, K = 64: 2 x 26
 * ms). Each chunk's data also stays with one worker. The reductions go with chunk 0. */
#define SPIKE_MIN_WORK 65536
#define SPIKE_GPU_PARTS 1024
#define SPIKE_GPU_MIN_ROWS 256
#define SPIKE_GPU_ROWS_PER_K 16
/* starsolve_set_spike_mixed(-1), the default: double-precision partition factors at every K, on GPUs and CPUs.
 * Until session 25 it chose single precision for 16 <= K < 64 with CUDA workers and for 16 <= K < 32 on CPU
 * workers alone. Then the spike tips came from more rows (ss_spike_wt_rows, codelets/spike_layout.h), and the
 * double preconditioner needed no refinement step at K = 16 and 32 either, where the single one keeps its one
 * or two (bench/NOTES.md, session 25; n = 1e6, d = 1, call and further solve): one H200, K = 16 32.0-32.4, 1.6-1.7 ms
 * (double) against 32.2-32.3, 2.6-2.9 ms (single); K = 32 21.6-21.8, 3.1 ms against 21.2-21.4, 5.7-5.8 ms
 * (median); K = 64 equal;
 * 2 cores, K = 16, 0.162-0.170 s, 0.040 s against 0.175-0.182 s, 0.070 s. Before that change, for the record:
 * one H100, n = 1e6, d = 1, session 16's factor (bench/NOTES.md; call and further solve, ms, single / double):
 * K = 1 6.4, 2.6 / 5.2, 1.5; K = 16 29.7, 3.1 / 32.1, 3.2; K = 32 21.9, 6.1 / 21.8, 5.6; K = 64 47.8, 12.2 /
 * 47.0, 7.1; K = 128 159.6, 34.2 / 147.1, 12.4: the single preconditioner needs 1-2 refinement steps where the
 * double one needs 0-1, and from K = 64 on the factor, no longer dominated by the tips, gains less from half
 * the bytes than those steps cost. At K = 32 single precision's further solve was the faster in three bench
 * commands (4.0-4.3 ms against 5.6-5.8). On CPU workers (2 cores, session 17; call against dgbsv, further
 * solve, s, single / double): K = 16 0.51-0.90x, 0.075 / 0.74-0.77x, 0.107 (one step each); K = 32 0.59-0.85x,
 * 0.18 (2 steps) / 1.08-1.09x, 0.11 (none); K = 64 0.87-0.90x, 0.33-0.36 / 1.04-1.05x, 0.165: LAPACK's sgbtrf
 * in a partition's factor task saves less than the two refinement steps' solves cost. */
static void partition_count(int n, int K, int *p, int *nc)
{
    int most = ss_max(1, n / (2 * K));
    int ncuda = (int)starpu_cuda_worker_get_count(), workers = (int)starpu_cpu_worker_get_count() + ncuda;
    if (ss_ctx.spike_psize > 0)
        *p = ss_max(1, ss_min(most, n / ss_ctx.spike_psize));
    else if (ncuda > 0)
        *p = ss_max(1, ss_min(most, ss_min(SPIKE_GPU_PARTS * ncuda, n / ss_max(SPIKE_GPU_MIN_ROWS, SPIKE_GPU_ROWS_PER_K * K))));
    else
        *p = ss_max(1, ss_min(ss_min(most, n / ss_max(2 * K, SPIKE_MIN_WORK / K)), ss_max(1, workers)));
    *nc = ss_max(1, ss_min(*p, ncuda > 0 ? ncuda : workers));
}

/* the worker of chunk c: with CUDA workers CUDA worker c (one chunk each), else CPU worker c */
/* worker c (modulo their number) of a kind; -1: none */
static int worker_of_kind(enum starpu_worker_archtype kind, int c)
{
    int ids[STARPU_NMAXWORKERS], count = starpu_worker_get_ids_by_type(kind, ids, STARPU_NMAXWORKERS);
    return count > 0 ? ids[c % count] : -1;
}

static int chunk_worker(int c)
{
    return worker_of_kind(starpu_cuda_worker_get_count() > 0 ? STARPU_CUDA_WORKER : STARPU_CPU_WORKER, c);
}

static void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size);
    STARPU_ASSERT_MSG(p, "starsolve: gbsv_spike: out of memory");
    return p;
}

/* the arrays of n-proportional size: large (ss_alloc_large) */
static void *xcalloc_large(size_t count, size_t size, size_t *bytes)
{
    *bytes = count * size;
    void *p = ss_alloc_large(*bytes);
    STARPU_ASSERT_MSG(p, "starsolve: gbsv_spike: out of memory");
    return p;
}

/* Which rows of AB the band handles hold. A GPU gets a handle's rows of each column as one piece per
 * column (a 2D copy) unless they are whole columns; LAPACK's gbsv array has kl rows of fill-in space
 * on top that SPIKE never reads, but the copy engines move short pieces slowly: one H100, page-locked,
 * n = 1e6 columns (bench/copy_bw -band, bench/NOTES.md session 17), the band's bytes as 2D pieces
 * against whole columns (kl more rows each, one contiguous copy): 24-byte pieces (K = 1, double)
 * 1.54 against 0.58 ms, 72 bytes 2.52 against 1.93, 136 bytes 3.42 against 3.65, 264 bytes 5.6
 * against 7.1. So whole columns go up where the band's piece is under SPIKE_BAND_PIECE_BYTES, as long
 * as they are at most twice the band's bytes (an ldab far above 2 kl + ku + 1 would cost more). */
#define SPIKE_BAND_PIECE_BYTES 128
static int spike_band_whole(int kl, int ku, int ldab, size_t elemsize)
{
    const int rows = kl + ku + 1;
    return (size_t)rows * elemsize < SPIKE_BAND_PIECE_BYTES && ldab <= 2 * rows;
}

/* Register the band and every array of the solver but B (spike_rhs_register, per solve) */
static void spike_setup(struct spike *s)
{
    /* StarPU registers data as writable memory; the band's handles are only ever read (R) */
    starsolve_complex64_t *AB = (starsolve_complex64_t *)s->AB;
    const int ldab = s->ldab;
    const int p = s->p, nc = s->nc, K = s->K, ldf = 2 * s->kl + s->ku + 1, q = s->n / p, r = s->n % p;
    const size_t T = SS_TIPS(K), R = SS_RSYS(K), fsz = s->mixed ? sizeof(float) * (sizeof(starsolve_complex64_t) / sizeof(double))
                                                                : sizeof(starsolve_complex64_t);
    int maxrows = 0;
    /* the band handles' first row in AB and their rows: gbmv layout (rows kl .. 2 kl + ku), or whole columns */
    const int whole = spike_band_whole(s->kl, s->ku, ldab, sizeof *AB), row0 = whole ? 0 : s->kl;
    const int brows = whole ? ldab : s->kl + s->ku + 1;
    s->chunk = xcalloc(nc, sizeof *s->chunk);
    starpu_data_handle_t **hs[] = { &s->band, &s->edge_top, &s->edge_bot, &s->F, &s->ipiv, &s->tips, &s->S, &s->ipivS, &s->gt, &s->y, &s->stat,
                                    &s->partial, &s->Bh, &s->Sx, &s->ipivSx, &s->yx };
    for (size_t k = 0; k < sizeof hs / sizeof *hs; k++)
        *hs[k] = xcalloc(nc, sizeof(starpu_data_handle_t));
    for (int v = 0; v < NVEC; v++)
        s->vec[v] = xcalloc(nc, sizeof(starpu_data_handle_t));
    /* per partition: tips, S (inner interfaces; the last partition's slot is the interface with
     * the next chunk, whose reduced system lives in Sx: that slot stays unused), gt, y */
    /* the factor task writes every entry of F (W access), so the previous call's mapping of the same
     * size serves as well as fresh pages, and is already backed (ss_alloc_large_reused) */
    s->Fbytes = (size_t)ldf * s->n * fsz;
    s->Fmem = ss_alloc_large_reused(s->Fbytes, 1);
    STARPU_ASSERT_MSG(s->Fmem, "starsolve: gbsv_spike: out of memory");
    s->ipivmem = xcalloc_large(s->n, sizeof(int), &s->ipivbytes);
    s->tipsmem = xcalloc(T * p, sizeof(starsolve_complex64_t));
    s->Smem = xcalloc(R * (p + nc), sizeof(starsolve_complex64_t));
    s->ipivSmem = xcalloc((size_t)2 * K * (p + nc), sizeof(int));
    s->gtmem = xcalloc((size_t)2 * K * p, sizeof(starsolve_complex64_t));
    s->ymem = xcalloc((size_t)2 * K * (p + nc), sizeof(starsolve_complex64_t));
    s->statmem = xcalloc((size_t)2 * nc, sizeof(starsolve_complex64_t));
    s->partmem = xcalloc((size_t)SS_PART_COUNT * nc, sizeof(starsolve_complex64_t));
    s->vecmem = xcalloc_large((size_t)NVEC * s->n, sizeof(starsolve_complex64_t), &s->vecbytes);
    for (int c = 0, part0 = 0; c < nc; c++) {
        int np = p / nc + (c < p % nc), row = ss_spike_part_first(part0, q, r);
        int rows = ss_spike_part_first(part0 + np, q, r) - row;
        s->chunk[c] = (struct ss_spike_part){
            .c = { .first = row, .size = rows, .part0 = part0, .np = np, .pq = q, .pr = r, .kl = s->kl, .ku = s->ku,
                   .K = K, .has_prev = c > 0, .has_next = c + 1 < nc, .band_row0 = s->kl - row0 },
            .maxpart = q + (r > 0), .mixed = s->mixed, .nparts = nc, .worker = chunk_worker(c) };
        maxrows = ss_max(maxrows, rows);
        /* the band's rows kl .. 2 kl + ku (gbmv layout) on the chunk's columns, or whole columns: read only */
        s->band[c] = ss_register_matrix(AB + row0 + (size_t)row * ldab, ldab, brows, rows, sizeof *AB);
        /* the chunk's first and last K columns again, read only as band_c is: what the factor tasks of
         * the chunks above and below need of it (their couplings), so that they do not wait for the
         * whole neighbour band to reach their GPU (a chunk with a neighbour has >= 2K rows) */
        if (nc > 1) {
            s->edge_top[c] = ss_register_matrix(AB + row0 + (size_t)row * ldab, ldab, brows, K, sizeof *AB);
            s->edge_bot[c] = ss_register_matrix(AB + row0 + (size_t)(row + rows - K) * ldab, ldab, brows, K, sizeof *AB);
        }
        s->F[c] = ss_register_vector((char *)s->Fmem + (size_t)row * ldf * fsz, (size_t)ldf * rows, fsz);
        s->ipiv[c] = ss_register_vector(s->ipivmem + row, rows, sizeof(int));
        s->tips[c] = ss_register_vector(s->tipsmem + T * part0, T * np, sizeof(starsolve_complex64_t));
        s->S[c] = ss_register_vector(s->Smem + R * part0, R * np, sizeof(starsolve_complex64_t));
        s->ipivS[c] = ss_register_vector(s->ipivSmem + (size_t)2 * K * part0, (size_t)2 * K * np, sizeof(int));
        s->gt[c] = ss_register_vector(s->gtmem + (size_t)2 * K * part0, (size_t)2 * K * np, sizeof(starsolve_complex64_t));
        s->y[c] = ss_register_vector(s->ymem + (size_t)2 * K * part0, (size_t)2 * K * np, sizeof(starsolve_complex64_t));
        s->stat[c] = ss_register_vector(s->statmem + 2 * c, 2, sizeof(starsolve_complex64_t));
        s->partial[c] = ss_register_vector(s->partmem + (size_t)SS_PART_COUNT * c, SS_PART_COUNT, sizeof(starsolve_complex64_t));
        for (int v = 0; v < NVEC; v++)
            s->vec[v][c] = ss_register_vector(s->vecmem + (size_t)v * s->n + row, rows, sizeof(starsolve_complex64_t));
        if (c + 1 < nc) {   /* the interface below the chunk: after the p partitions' slots */
            s->Sx[c] = ss_register_vector(s->Smem + R * (p + c), R, sizeof(starsolve_complex64_t));
            s->ipivSx[c] = ss_register_vector(s->ipivSmem + (size_t)2 * K * (p + c), 2 * (size_t)K, sizeof(int));
            s->yx[c] = ss_register_vector(s->ymem + (size_t)2 * K * (p + c), 2 * (size_t)K, sizeof(starsolve_complex64_t));
        }
        part0 += np;
    }
    /* a CPU task needs one partition's rows, a CUDA task the chunk's */
    s->scratch = ss_scratch_buffer((size_t)maxrows * fsz);
    s->scalars = ss_register_vector(s->scal, SS_SCAL_COUNT, sizeof(starsolve_complex64_t));
    s->registered = 1;
}

/* B's rows of each chunk, for one solve (nrhs columns); unregistered with coherency: X comes home */
static void spike_rhs_register(struct spike *s, starsolve_complex64_t *B, int ldb, int nrhs)
{
    for (int c = 0; c < s->nc; c++)
        s->Bh[c] = ss_register_matrix(B + s->chunk[c].c.first, ldb, s->chunk[c].c.size, nrhs, sizeof *B);
}

static void spike_rhs_unregister(struct spike *s)
{
    for (int c = 0; c < s->nc; c++)
        starpu_data_unregister(s->Bh[c]);
}

/* Every handle but B's (already gone, spike_rhs_unregister) is the solver's own and dropped
 * where it lies: unregistering it with coherency would copy the factors (0.4 GB in float at
 * n = 1e6, K = 32), the tips and the vectors back from a GPU for nothing. The band is only read. */
static void spike_release(struct spike *s)
{
    if (!s->registered)
        return;
    s->registered = 0;
    for (int c = 0; c < s->nc; c++) {
        starpu_data_unregister(s->band[c]);
        if (s->nc > 1) {
            starpu_data_unregister(s->edge_top[c]);
            starpu_data_unregister(s->edge_bot[c]);
        }
        starpu_data_handle_t h[] = { s->F[c], s->ipiv[c], s->tips[c], s->S[c], s->ipivS[c], s->gt[c], s->y[c], s->stat[c],
                                     s->partial[c] };
        for (size_t k = 0; k < sizeof h / sizeof *h; k++)
            starpu_data_unregister_no_coherency(h[k]);
        for (int v = 0; v < NVEC; v++)
            starpu_data_unregister_no_coherency(s->vec[v][c]);
        if (c + 1 < s->nc) {
            starpu_data_unregister_no_coherency(s->Sx[c]);
            starpu_data_unregister_no_coherency(s->ipivSx[c]);
            starpu_data_unregister_no_coherency(s->yx[c]);
        }
    }
    starpu_data_unregister(s->scratch);
    starpu_data_unregister_no_coherency(s->scalars);
    starpu_data_handle_t *arrays[] = { s->band, s->edge_top, s->edge_bot, s->Bh, s->F, s->ipiv, s->tips, s->S, s->ipivS, s->gt, s->y, s->stat,
                                       s->partial, s->Sx, s->ipivSx, s->yx };
    for (size_t k = 0; k < sizeof arrays / sizeof *arrays; k++)
        free(arrays[k]);
    for (int v = 0; v < NVEC; v++)
        free(s->vec[v]);
    ss_free_large_kept(s->Fmem, s->Fbytes); ss_free_large(s->ipivmem, s->ipivbytes); ss_free_large(s->vecmem, s->vecbytes);
    free(s->tipsmem); free(s->Smem); free(s->ipivSmem); free(s->gtmem); free(s->ymem);
    free(s->statmem); free(s->partmem); free(s->chunk);
}

/* Submit the factorization; wait for it and say whether truncated SPIKE may be used:
 * 0 yes; 1 a singular partition or reduced system; 2 rows too far from dominance */
static int spike_factor(struct spike *s, double *dominance)
{
    int nc = s->nc;
    for (int c = 0; c < nc; c++)
        insert_zspike_factor(&s->chunk[c], c > 0 ? s->edge_bot[c - 1] : s->band[c], s->band[c],
                             c + 1 < nc ? s->edge_top[c + 1] : s->band[c], s->F[c],
                             s->ipiv[c], s->tips[c], s->S[c], s->ipivS[c], s->stat[c]);
    for (int c = 0; c + 1 < nc; c++)
        insert_zspike_reduced_factor(&s->chunk[c], s->tips[c], s->tips[c + 1], s->Sx[c], s->ipivSx[c]);
    int singular = 0;
    *dominance = INFINITY;
    for (int c = 0; c < nc; c++) {   /* each chunk's summary: two numbers */
        starpu_data_acquire(s->stat[c], STARPU_R);
        *dominance = fmin(*dominance, creal(s->statmem[2 * c]));
        singular |= creal(s->statmem[2 * c + 1]) != 0;
        starpu_data_release(s->stat[c]);
    }
    for (int c = 0; c + 1 < nc; c++) {   /* the reduced systems between chunks: their status */
        starpu_data_acquire(s->Sx[c], STARPU_R);
        singular |= creal(s->Smem[SS_RSYS(s->K) * (s->p + c) + 4 * (size_t)s->K * s->K]) != 0;
        starpu_data_release(s->Sx[c]);
    }
    return singular ? 1 : *dominance < SPIKE_MIN_DOMINANCE ? 2 : 0;
}

/* out = M^-1 f, the truncated SPIKE solve (vectors VB .. VT) */
static void spike_apply(struct spike *s, int f, int out)
{
    int nc = s->nc;
    if (s->p > 1) {
        for (int c = 0; c < nc; c++)
            insert_zspike_tipsolve(&s->chunk[c], s->F[c], s->ipiv[c], s->vec[f][c], s->S[c], s->ipivS[c], s->gt[c], s->y[c],
                                   s->scratch, s->vec[out][c]);
        for (int c = 0; c + 1 < nc; c++)
            insert_zspike_reduced_solve(&s->chunk[c], s->Sx[c], s->ipivSx[c], s->gt[c], s->gt[c + 1], s->yx[c]);
    }
    for (int c = 0; c < nc; c++)   /* a missing interface's handle is not read: the chunk's own y stands in */
        insert_zspike_retrieve(&s->chunk[c], s->F[c], s->ipiv[c], s->vec[f][c], s->tips[c], s->y[c],
                               c > 0 ? s->yx[c - 1] : s->y[c], c + 1 < nc ? s->yx[c] : s->y[c], s->vec[out][c], s->scratch,
                               s->p > 1);
}

static void spike_matvec(struct spike *s, int op, int x, int aux, int out)
{
    int nc = s->nc;
    for (int c = 0; c < nc; c++)
        insert_zspike_matvec(&s->chunk[c], op, s->band[c], s->tips[c], s->vec[x][c > 0 ? c - 1 : c], s->vec[x][c],
                             s->vec[x][c + 1 < nc ? c + 1 : c], s->vec[aux][c], s->vec[out][c], s->partial[c]);
}

static void spike_update(struct spike *s, int op, int col, const int *v, int nv)
{
    for (int c = 0; c < s->nc; c++) {
        starpu_data_handle_t h[9];
        for (int k = 0; k < nv; k++)
            h[k] = v[k] == -1 ? s->scalars : v[k] == -2 ? s->partial[c] : v[k] == -3 ? s->Bh[c] : s->vec[v[k]][c];
        insert_zspike_update(&s->chunk[c], op, col, nv, h);
    }
}
#define SCAL -1
#define PART -2
#define BMAT -3

static void spike_reduce(struct spike *s, int op)
{
    insert_zspike_reduce(&s->chunk[0], op, s->partial, s->scalars);
}

/* BiCGStab's scalars, after the tasks submitted so far */
static void read_scalars(struct spike *s, double *rnorm, int *broke)
{
    starpu_data_acquire(s->scalars, STARPU_R);
    *rnorm = creal(s->scal[SS_SCAL_RNORM]);
    *broke = creal(s->scal[SS_SCAL_BREAK]) != 0;
    starpu_data_release(s->scalars);
}

/* Column col of B: x0 = M^-1 b, then refinement steps x += M^-1 (b - A x) while each divides the
 * residual by 1 / SPIKE_IR_RATE at least, then right-preconditioned BiCGStab from there, until
 * ||b - A x||_inf <= tol ||b||_inf, ss_ctx.spike_maxit steps in all (a refinement step and a BiCGStab
 * iteration count one each). Why the refinement steps first: on dominant enough input the truncated
 * SPIKE solve in single precision leaves a residual of ~1e-7 that one or two steps take below the goal
 * (1e-12: one step lands near it), each one preconditioner apply and one product, where BiCGStab's first
 * iteration costs two of each and three reductions (bench/NOTES.md, session 15); when a step gains less, the rest is BiCGStab's, which
 * converges where the stationary iteration is slow. Returns the steps, or -1 if the true residual misses
 * the goal. The solution goes to B(:, col), the last iterate too when the fallback is off; with the
 * fallback on, a column that missed keeps b for the banded LU. */
#define SPIKE_IR_RATE 0.1
static int bicgstab(struct spike *s, int col, double tol)
{
    spike_update(s, SS_UP_COPYIN, col, (int[]){ BMAT, VB, PART }, 3);
    spike_reduce(s, SS_RED_BNORM);
    spike_apply(s, VB, VX);
    spike_matvec(s, SS_MV_RES, VX, VB, VR);
    spike_reduce(s, SS_RED_RESID);
    double rnorm, *history = xcalloc((size_t)ss_ctx.spike_maxit + 1, sizeof *history);
    int broke, it = 0, krylov = 0;   /* krylov: BiCGStab iterations ran (r is then the recurrence's) */
    read_scalars(s, &rnorm, &broke);
    double bnorm = creal(s->scal[SS_SCAL_BNORM]), goal = tol * (bnorm > 0 ? bnorm : 1);
    history[0] = rnorm;
    while (rnorm > goal && it < ss_ctx.spike_maxit && !isnan(rnorm)) {
        if (it > 0 && rnorm > SPIKE_IR_RATE * history[it - 1])
            break;   /* too slow for steps of this kind */
        spike_apply(s, VR, VPH);
        spike_update(s, SS_UP_ADD, col, (int[]){ VPH, VX }, 2);
        spike_matvec(s, SS_MV_RES, VX, VB, VR);
        spike_reduce(s, SS_RED_RESID);
        it++;
        read_scalars(s, &rnorm, &broke);
        history[it] = rnorm;
    }
    if (rnorm > goal && it < ss_ctx.spike_maxit && !isnan(rnorm)) {
        spike_update(s, SS_UP_INIT, col, (int[]){ VR, VRH, VP, VV, PART }, 5);
        spike_reduce(s, SS_RED_START);
        read_scalars(s, &rnorm, &broke);
    }
    while (rnorm > goal && !broke && it < ss_ctx.spike_maxit && !isnan(rnorm)) {
        if (it >= SPIKE_WINDOW && rnorm > 0.5 * history[it - SPIKE_WINDOW])
            break;   /* stagnation */
        spike_update(s, SS_UP_P, col, (int[]){ VR, VV, SCAL, VP }, 4);
        spike_apply(s, VP, VPH);
        spike_matvec(s, SS_MV_V, VPH, VRH, VV);
        spike_reduce(s, SS_RED_ALPHA);
        spike_update(s, SS_UP_S, col, (int[]){ VR, VV, SCAL, VS }, 4);
        spike_apply(s, VS, VSH);
        spike_matvec(s, SS_MV_T, VSH, VS, VT);
        spike_reduce(s, SS_RED_OMEGA);
        spike_update(s, SS_UP_XR, col, (int[]){ VPH, VSH, VS, VT, VRH, SCAL, VX, VR, PART }, 9);
        spike_reduce(s, SS_RED_END);
        it++;
        krylov = 1;
        read_scalars(s, &rnorm, &broke);
        history[it] = rnorm;
    }
    if (krylov) {   /* trust only the true residual */
        spike_matvec(s, SS_MV_RES, VX, VB, VR);
        spike_reduce(s, SS_RED_RESID);
        read_scalars(s, &rnorm, &broke);
    }
    int converged = rnorm <= goal;   /* NaN fails */
    if (converged || !ss_ctx.spike_fallback)
        spike_update(s, SS_UP_COPYOUT, col, (int[]){ VX, BMAT }, 2);
    free(history);
    return converged ? it : -1;
}

/* The banded LU with partial pivoting of the fallback (LAPACK's gbtrf on a copy of the band),
 * kept in the factorization; returns gbtrf's info (-1000: out of memory) */
static int spike_lu(struct spike *s)
{
    const int ldab = s->ldab;
    s->lu = malloc((size_t)ldab * s->n * sizeof *s->lu);
    s->lupiv = malloc((size_t)s->n * sizeof *s->lupiv);
    if (!s->lu || !s->lupiv) {
        free(s->lu); free(s->lupiv);
        s->lu = NULL; s->lupiv = NULL;
        return -1000;
    }
    LAPACKE_zlacpy_work(LAPACK_COL_MAJOR, 'A', ldab, s->n, s->AB, ldab, s->lu, ldab);
    s->luinfo = LAPACKE_zgbtrf_work(LAPACK_COL_MAJOR, s->n, s->n, s->kl, s->ku, s->lu, ldab, s->lupiv);
    return s->luinfo;
}

/* ---- the tridiagonal path (kl, ku <= 1) ----------------------------------------------------------
 * At K = 1 a partition's work is a few flops a row, and the general path's dozen dependent tasks and its
 * truncated-SPIKE iterations cost more than the work (bench/NOTES.md, sessions 14-29: ~2.5 ms a call at
 * n = 1e6 on an H100, where cuSPARSE's gtsv2 takes ~1 ms with its copies). So a tridiagonal matrix whose
 * rows are all (weakly) diagonally dominant is solved by one task per solve (codelets/codelet_ztridiag.c):
 * exactly (no truncation) and without pivoting: on a GPU the partition method (codelets/cuda/tridiag.cu), on
 * one CPU worker one elimination sweep, each column's residual checked and refined in the task; on several
 * CPU workers, chunks of rows in three stages, one task per worker taking the chunks in turn (tri_setup), with CUDA
 * workers a GPU's chunk of the last rows beside them. The factorization keeps only the band (on the GPU, once the first task has run): recomputing the
 * elimination costs a pass over the band, less than storing and reading back its factors. A matrix less
 * dominant than SS_TRI_MIN_DOMINANCE (codelets/tridiag_result.h) goes the general way.
 * starsolve_set_spike_psize does not apply here (the partitions are the kernels': tridiag_layout.h). */
/* gbtrs on an unchecked factorization (gbsv_spike's) that the task found not usable: gbsv_spike starts over
 * on the general path (B untouched) */
#define TRI_DECLINED (-1000000)

/* On CPU workers: a task per worker, each with at least TRI_CHUNK_ROWS rows' work (far above a task's cost); fewer
 * than 2 tasks: the one task. With CUDA workers as well, the matrix's last rows go to a GPU as a chunk of its own
 * (codelet_ztridiag.c, ztri_gpu_chunk_cuda) beside the CPU chunks, tri_gpu_share of the rows; a share of 1, or fewer
 * than 2 CPU tasks for the rest: the GPU's one task. The band is in host memory: the CPU chunks' sweeps read and write
 * ~104 bytes a row there at the host's memory bandwidth, a GPU moves ~48 bytes a row over PCIe, a bandwidth of its
 * own; but the GPU's chunk must have its rows up and solved before the reduced system, while the CPU chunks' back
 * sweeps come after it. On the H200 machine (n = 1e6, one gbsv call, best of 12, bench/NOTES.md, session 58), with 14
 * CPU workers: both 0.78-0.85 ms at a share of 0.2 (0.90-0.97 at 0.3, 1.0-1.1 at 0.45), the CPU chunks alone 0.87-0.96,
 * the GPU's one task 1.12-1.14 (cuSPARSE's gtsv2 with its copies 1.00-1.01); with 8 CPU workers both (share 0.3) 1.09,
 * the GPU's task 1.11; with 4 both (0.47) 1.59, the GPU's task 1.10. */
#define TRI_CHUNK_ROWS 16384
#define TRI_GPU_WEIGHT 3.5       /* the GPU's chunk against one CPU worker's, in rows: a share of 0.2 beside 14 workers */
#define TRI_GPU_LEAST_CPUS 10    /* fewer CPU workers: the GPU's one task */
#define TRI_GPU_MIN_ROWS 1024

/* The share of the rows for the GPU's chunk, with CUDA workers and ncpu CPU workers: STARSOLVE_SPIKE_TRI_GPU_SHARE (0 ..
 * 1) when set; else 1 below TRI_GPU_LEAST_CPUS workers; else TRI_GPU_WEIGHT / (TRI_GPU_WEIGHT + ncpu) when the band is
 * page-locked, 0 when it is not: from pageable memory a GPU copies through a staging buffer, and page-locking the band
 * costs more than the solve. */
static double tri_gpu_share(const void *band, int ncpu)
{
    const char *env = getenv("STARSOLVE_SPIKE_TRI_GPU_SHARE");
    if (env) {
        char *end;
        const double v = strtod(env, &end);
        if (end != env && *end == '\0' && v >= 0 && v <= 1)
            return v;
    }
    if (ncpu < TRI_GPU_LEAST_CPUS)
        return 1;
    return ss_host_pinned(band) ? TRI_GPU_WEIGHT / (TRI_GPU_WEIGHT + ncpu) : 0;
}

/* TRI_CHUNKS_PER_TASK chunks a task, of at least TRI_MIN_CHUNK_ROWS rows (4 sub-partitions of SS_TRI_SUB_ROWS): the
 * tasks take them in turn, so that the ones started first (the caller submits a task every ~9 us on the H200
 * machine) or running faster sweep more. */
#define TRI_CHUNKS_PER_TASK 4
#define TRI_MIN_CHUNK_ROWS (4 * SS_TRI_SUB_ROWS)
/* p CPU tasks over rows 0 .. n - g - 1, the last g rows (0: none) the GPU's chunk */
static void tri_chunks_setup(struct spike *s, int p, int g, int row0)   /* row0: the first row of AB the tasks read */
{
    const starsolve_complex64_t *AB = (const starsolve_complex64_t *)s->AB;
    const int n = s->n, m = n - g, q = ss_max(p, ss_min(TRI_CHUNKS_PER_TASK * p, m / TRI_MIN_CHUNK_ROWS)), all = q + (g > 0);
    s->tri_tasks = p;
    s->tri_chunks = all;
    s->tri_gpu = g > 0;
    s->tri_chunk = xcalloc(all, sizeof *s->tri_chunk);
    for (int c = 0; c < all; c++) {
        const int first = c < q ? ss_spike_part_first(c, m / q, m % q) : m, rows = c < q ? ss_spike_part_size(c, m / q, m % q) : g;
        const int col0 = ss_max(0, first - 1);   /* from a column before its rows where there is one */
        s->tri_chunk[c] = (struct ss_tri_chunk){ .n = n, .kl = s->kl, .ku = s->ku, .diag_row = s->tri_diag_row, .c = c, .nchunks = all,
                                                 .first = first, .rows = rows, .subs = c < q ? ss_tri_subs(rows) : 1, .col0 = col0,
                                                 .min_dominance = SS_TRI_MIN_DOMINANCE, .band = AB + row0, .ldband = (size_t)s->ldab };
    }
}

static void tri_setup(struct spike *s, int checked)
{
    starsolve_complex64_t *AB = (starsolve_complex64_t *)s->AB;
    const int whole = spike_band_whole(s->kl, s->ku, s->ldab, sizeof *AB), row0 = whole ? 0 : s->kl;
    s->tri = 1;
    s->tri_unchecked = !checked;
    s->tri_diag_row = s->kl + s->ku - row0;
    const int ncpu = (int)starpu_cpu_worker_get_count(), gpus = starpu_cuda_worker_get_count() > 0;
    const double share = gpus ? tri_gpu_share(AB, ncpu) : 0;
    int g = share >= 1 ? s->n : (int)(share * s->n);
    if (g < TRI_GPU_MIN_ROWS)
        g = 0;
    const int p = ss_min(ncpu, (s->n - g) / TRI_CHUNK_ROWS);
    if (p >= 2) {
        s->tri_worker = g > 0 ? chunk_worker(0) : -1;   /* the GPU's chunk: CUDA worker 0 */
        tri_chunks_setup(s, p, g, row0);
        return;
    }
    s->pinA = ss_pin_host(AB, (size_t)s->ldab * s->n * sizeof *AB);
    s->tri_band = ss_register_matrix(AB + row0, s->ldab, whole ? s->ldab : s->kl + s->ku + 1, s->n, sizeof *AB);
    s->tri_work_bytes = ss_ztri_work_bytes(s->n);
    s->tri_work = ss_work_reused(s->tri_work_bytes);   /* the previous call's, still allocated where it ran */
    s->tri_worker = starpu_cuda_worker_get_count() > 0 ? chunk_worker(0) : -1;   /* the GPU when there is one */
}

/* The chunks' tasks for one solve (nrhs 0: the check, reduce and the reduced system only), waited for; *usable from
 * the reduced system, stat (SS_TRI_STAT_COUNT(nrhs) per chunk) from the back sweeps. The tasks take the call's
 * arrays as pointers (struct ss_tri_chunk) and meet between their stages at sync (codelets/tridiag_sync.c). */
static void tri_chunks_run(struct spike *s, starsolve_complex64_t *B, int ldb, int nrhs, starsolve_complex64_t *save, int *usable,
                           starsolve_complex64_t *stat)
{
    const int q = s->tri_chunks, p = s->tri_tasks, gpu = s->tri_gpu;
    int maxsubs = 0;
    for (int c = 0; c < q; c++)
        maxsubs = ss_max(maxsubs, s->tri_chunk[c].subs);
    /* every chunk's red and sol the size of the largest one's (the most sub-partitions) */
    const int R = SS_TRI_RED_COUNT(maxsubs, nrhs), S = SS_TRI_SOL_COUNT(maxsubs, nrhs);
    starsolve_complex64_t *red = xcalloc((size_t)q * R, sizeof *red), *sol = xcalloc((size_t)q * S, sizeof *sol);
    struct ss_tri_chunk *chunk = xcalloc(q, sizeof *chunk);
    for (int c = 0; c < q; c++) {
        chunk[c] = s->tri_chunk[c];
        chunk[c].nrhs = nrhs;
        chunk[c].B = nrhs > 0 ? B : NULL;
        chunk[c].ldb = (size_t)ldb;
        chunk[c].save = save;
        chunk[c].lds = (size_t)s->n;
        chunk[c].red = red;
        chunk[c].sol = sol;
        chunk[c].stat = stat;
        chunk[c].red_stride = R;
        chunk[c].sol_stride = S;
    }
    /* the CPU tasks take the CPU chunks in turn; the GPU's task (first: its copies take longest) its own, the last */
    struct ss_tri_sync *sync = ss_tri_sync_create(p + gpu, q - gpu);
    /* the GPU's buffer: the previous call's, still on the GPU, when the size is the same; sized for a column at least,
     * so that gbtrf's check (no column) and the one-column solves after it take the same one */
    struct ss_tri_chunk sized = chunk[q - 1];
    sized.nrhs = ss_max(nrhs, 1);
    const size_t work_bytes = gpu ? ss_ztri_gpu_chunk_work_bytes(&sized) : 0;
    starpu_data_handle_t work = gpu ? ss_work_reused(work_bytes) : NULL;
    if (gpu) {
        const struct ss_tri_task args = { .chunk = chunk, .ntasks = p + 1, .worker = s->tri_worker, .sync = sync };
        STARPU_CHECK_RETURN_VALUE(ss_task_submit_built(ss_ztri_gpu_chunk_task(&args, work)), "starpu_task_submit ztri_gpu_chunk");
    }
    for (int t = 0; t < p; t++) {   /* each submitted as soon as built: the first ones start while the rest are built */
        const struct ss_tri_task args = { .chunk = chunk, .ntasks = p + gpu, .worker = worker_of_kind(STARPU_CPU_WORKER, t), .sync = sync };
        STARPU_CHECK_RETURN_VALUE(ss_task_submit_built(ss_ztri_chunks_task(&args)), "starpu_task_submit ztri_chunks");
    }
    ss_tri_sync_wait_all(sync);   /* the tasks' own word that their sweeps are done, ahead of StarPU's end of them */
    ss_work_kept(work, work_bytes);   /* for the next call (a task that uses it waits for this one's end) */
    *usable = creal(sol[0]) != 0;
    s->tri_result.dominance = INFINITY;
    for (int c = 0; c < q; c++)
        s->tri_result.dominance = fmin(s->tri_result.dominance, creal(red[(size_t)c * R + SS_TRI_RED_DOM]));
    free(red); free(sol); free(chunk);
}

/* the chunks' solve: as tri_solve */
static int tri_chunks_solve(struct spike *s, starsolve_complex64_t *B, int ldb, int nrhs, double tol)
{
    const int n = s->n, T = SS_TRI_STAT_COUNT(nrhs);
    size_t save_bytes = (size_t)n * nrhs * sizeof *B;
    starsolve_complex64_t *save = ss_alloc_large_reused(save_bytes, 1), *stat = xcalloc((size_t)s->tri_chunks * T, sizeof *stat);
    STARPU_ASSERT_MSG(save, "starsolve: gbsv_spike: out of memory");
    int usable, solved = 0;
    tri_chunks_run(s, B, ldb, nrhs, save, &usable, stat);
    if (usable) {
        for (; solved < nrhs; solved++) {   /* a column is solved when its residual over all chunks meets the goal */
            double rmax = 0, bmax = 0;
            for (int c = 0; c < s->tri_chunks; c++) {
                rmax = fmax(rmax, creal(stat[(size_t)c * T + 2 * solved]));
                bmax = fmax(bmax, creal(stat[(size_t)c * T + 2 * solved + 1]));
            }
            if (!(isfinite(rmax) && rmax <= tol * (bmax > 0 ? bmax : 1)))
                break;
        }
        for (int j = solved; j < nrhs; j++)   /* b back where the goal was missed */
            memcpy(B + (size_t)j * ldb, save + (size_t)j * n, (size_t)n * sizeof *B);
    }
    ss_free_large_kept(save, save_bytes);
    free(stat);
    return usable ? solved : -1;
}

static struct ss_tridiag_args tri_args(struct spike *s, double tol)
{
    return (struct ss_tridiag_args){ .n = s->n, .kl = s->kl, .ku = s->ku, .diag_row = s->tri_diag_row,
                                     .min_dominance = SS_TRI_MIN_DOMINANCE, .tol = tol, .maxit = ss_ctx.spike_maxit,
                                     .result = &s->tri_result };
}

/* gbtrf's check: whether the band is dominant enough and its elimination meets no zero pivot */
static int tri_check(struct spike *s)
{
    if (s->tri_chunks > 0) {
        int usable;
        tri_chunks_run(s, NULL, 1, 0, NULL, &usable, NULL);
        return usable;
    }
    struct ss_tridiag_args a = tri_args(s, 0);
    insert_ztridiag(&a, s->tri_worker, s->tri_band, NULL, s->tri_work);
    starpu_task_wait_for_all();
    return s->tri_result.usable;
}

/* Solve B's columns; returns how many were solved (in order; the others keep b), or -1 if the task found
 * the matrix not usable (B untouched); *steps the most refinement steps a column took */
static int tri_solve(struct spike *s, starsolve_complex64_t *B, int ldb, int nrhs, double tol, int *steps)
{
    if (s->tri_chunks > 0) {   /* no refinement there: a column that misses goes to the banded LU */
        *steps = 0;
        return tri_chunks_solve(s, B, ldb, nrhs, tol);
    }
    size_t pinB = ss_pin_host(B, ((size_t)ldb * (nrhs - 1) + s->n) * sizeof *B);
    starpu_data_handle_t hb = ss_register_matrix(B, ldb, s->n, nrhs, sizeof *B);
    struct ss_tridiag_args a = tri_args(s, tol);
    insert_ztridiag(&a, s->tri_worker, s->tri_band, hb, s->tri_work);
    starpu_data_unregister(hb);   /* waits for the task; X comes home */
    ss_unpin_host(B, pinB);
    *steps = s->tri_result.steps;
    return s->tri_result.usable ? s->tri_result.solved : -1;
}

/* Let go of SPIKE's data and the band's page-locking (the fallback's LU needs neither) */
static void spike_drop(struct spike *s)
{
    const int chunks = s->tri && s->tri_chunks > 0;   /* their tasks all waited for already (tri_chunks_run) */
    if (s->registered || (s->tri && !chunks))
        starpu_task_wait_for_all();
    if (chunks) {
        free(s->tri_chunk);
        s->tri_chunk = NULL;
        s->tri_chunks = s->tri_tasks = s->tri_gpu = 0;
        s->tri = 0;
    } else if (s->tri) {
        starpu_data_unregister(s->tri_band);
        ss_work_kept(s->tri_work, s->tri_work_bytes);
        s->tri = 0;
    }
    spike_release(s);
    ss_unpin_host((void *)s->AB, s->pinA);
    s->pinA = 0;
}

static void spike_destroy(struct starsolve_spike *head)
{
    struct spike *s = (struct spike *)head;
    spike_drop(s);
    free(s->lu); free(s->lupiv);
    free(s);
}

/* SPIKE not used: with the fallback off, n + 1 (the factorization freed); else LAPACK's banded LU
 * with partial pivoting on a copy of the band, which every solve uses and says so (*iters -2); `why`
 * goes in the verbose line. Returns gbtrf's info (the factorization is freed unless it is 0) or a
 * negative argument index. */
static int factor_without_spike(struct spike *s, const char *me, const char *why, starsolve_spike_t **factors)
{
    if (!ss_ctx.spike_fallback) {
        int not_solved = s->n + 1;
        spike_destroy(&s->head);
        return not_solved;
    }
    s->method = -2;
    int info = spike_lu(s);
    if (ss_ctx.verbose)
        fprintf(stderr, "starsolve: %s: %s; banded LU with partial pivoting instead (gbtrf info %d)\n", me, why, info);
    if (info != 0) {
        spike_destroy(&s->head);
        return info < 0 ? ss_arg_error(me, info) : info;
    }
    *factors = &s->head;
    return 0;
}

/* tri: 0 the general path only; 1 the tridiagonal path when kl, ku <= 1 and the check task accepts the
 * band; 2 the tridiagonal path unchecked (gbsv_spike: its solve checks, TRI_DECLINED otherwise) */
static int zgbtrf_spike(int n, int kl, int ku, const starsolve_complex64_t *AB, int ldab, starsolve_spike_t **factors, int tri)
{
    const char *me = "starsolve_zgbtrf_spike";
    if (factors)
        *factors = NULL;
    if (n < 0) return ss_arg_error(me, -1);
    if (kl < 0) return ss_arg_error(me, -2);
    if (ku < 0) return ss_arg_error(me, -3);
    if (!AB && n > 0) return ss_arg_error(me, -4);
    if (ldab < 2 * kl + ku + 1) return ss_arg_error(me, -5);
    if (!factors) return ss_arg_error(me, -6);
    struct spike *s = calloc(1, sizeof *s);
    if (!s) return ss_arg_error(me, -1000);
    *s = (struct spike){ .head = { .prec = STARSOLVE_Z, .destroy = spike_destroy },
                         .n = n, .kl = kl, .ku = ku, .K = ss_max(1, ss_max(kl, ku)), .AB = AB, .ldab = ldab };
    if (n == 0) {   /* nothing to factor; its solves solve nothing */
        *factors = &s->head;
        return 0;
    }
    if (ss_ensure_init()) {
        free(s);
        return -1000;
    }
#if defined(STARSOLVE_PRECISION_Z) || defined(STARSOLVE_PRECISION_D)
    s->mixed = ss_ctx.spike_mixed > 0;   /* -1, the default, is double: see "starsolve_set_spike_mixed(-1)" above */
#endif
    /* A partition needs 2K rows (its spike tips are K x K blocks at both ends); a smaller matrix has
     * no partition at all (n = 1 with K = 3 read past the band). A diagonal band (K = 0, taken as 1
     * above) has no tips to reach past. */
    if (n < 2 * ss_max(kl, ku))
        return factor_without_spike(s, me, "fewer rows than twice the half-bandwidth", factors);
    if (tri && kl <= 1 && ku <= 1) {
        tri_setup(s, tri == 1);
        if (tri == 2 || tri_check(s)) {
            /* bench/spike.sh reads this line: on a GPU the partition method's level 0, on CPUs the chunks or one sweep */
            const int gpu = s->tri_chunks == 0 && s->tri_worker >= 0 && n > SS_TRI_DIRECT, tasks = ss_max(1, s->tri_tasks + s->tri_gpu);
            int parts = gpu ? n / SS_TRI_PART : 1, least = n / parts, most = least + (n % parts > 0);
            if (s->tri_chunks > 0) {   /* the CPU chunks' sub-partitions (codelets/tridiag_result.h), the GPU's rows apart */
                parts = 0, least = n, most = 0;
                for (int c = 0; c < s->tri_chunks - s->tri_gpu; c++) {
                    const int rows = s->tri_chunk[c].rows, subs = s->tri_chunk[c].subs;
                    parts += subs;
                    least = ss_min(least, rows / subs);
                    most = ss_max(most, rows / subs + (rows % subs > 0));
                }
            }
            if (ss_ctx.verbose) {
                char gpu_rows[64] = "";
                if (s->tri_gpu)
                    snprintf(gpu_rows, sizeof gpu_rows, ", and the GPU's of rows %d..%d", s->tri_chunk[s->tri_chunks - 1].first, n - 1);
                fprintf(stderr, "starsolve: %s: tridiagonal path, %d task%s on %s: %d partitions of %d..%d rows in %d chunks%s\n", me,
                        tasks, tasks > 1 ? "s" : "", s->tri_gpu ? "CPUs and a GPU" : s->tri_chunks > 0 ? "CPUs" : s->tri_worker >= 0 ? "a GPU" : "a CPU",
                        parts, least, most, ss_max(1, s->tri_chunks - s->tri_gpu), gpu_rows);
            }
            *factors = &s->head;
            return 0;
        }
        if (ss_ctx.verbose)
            fprintf(stderr, "starsolve: %s: tridiagonal, smallest row dominance %.3g or a zero pivot: the general path\n", me,
                    s->tri_result.dominance);
        spike_drop(s);
    }
    partition_count(n, s->K, &s->p, &s->nc);
    if (ss_ctx.verbose)   /* bench/spike.sh reads this line */
        fprintf(stderr, "starsolve: %s: %d partitions of %d..%d rows in %d chunks\n", me, s->p, n / s->p, n / s->p + (n % s->p > 0),
                s->nc);
    /* With CUDA workers the band (0.5 GB at n = 1e6, K = 32 in double) goes to the GPU once, at the
     * factorization: from pageable memory StarPU's copy is a staged 2D copy that holds the CUDA driver
     * thread (no task of that GPU is started or finished meanwhile). Page-locked until the
     * factorization is freed (StarPU may read it again if it evicts its copy), as the LAPACK-layout
     * routines do for a call (starsolve_config_t.pin_lapack, ss_pin_host); memory that is page-locked
     * already (starsolve_malloc) is left as it is. Pinning cost 0.3 s per call at n = 1e6, K = 32 on
     * an H100 (starpu_spike -nopin, bench/NOTES.md), so a caller that factors repeatedly should
     * allocate with starsolve_malloc. */
    s->pinA = ss_pin_host((void *)AB, (size_t)ldab * n * sizeof *AB);
    spike_setup(s);
    double dominance;
    int usable = spike_factor(s, &dominance);
    if (usable == 0) {
        *factors = &s->head;
        return 0;
    }
    spike_drop(s);
    /* far from diagonal dominance or a singular partition */
    char why[96];
    snprintf(why, sizeof why, "%s (smallest row dominance %.3g)", usable == 2 ? "not diagonally dominant" : "a singular partition",
             dominance);
    return factor_without_spike(s, me, why, factors);
}

int starsolve_zgbtrf_spike(int n, int kl, int ku, const starsolve_complex64_t *AB, int ldab, starsolve_spike_t **factors)
{
    SS_PUBLIC_CALL;
    return zgbtrf_spike(n, kl, ku, AB, ldab, factors, 1);
}

/* Whether every entry of B's first n rows and nrhs columns is finite (real and imaginary parts) */
static int columns_finite(int n, int nrhs, const starsolve_complex64_t *B, int ldb)
{
    for (int j = 0; j < nrhs; j++)
        for (int i = 0; i < n; i++) {
            starsolve_complex64_t x = B[i + (size_t)j * ldb];
            if (!isfinite(creal(x)) || !isfinite(cimag(x)))
                return 0;
        }
    return 1;
}

int starsolve_zgbtrs_spike(starsolve_spike_t *factors, int nrhs, starsolve_complex64_t *B, int ldb, int *iters)
{
    SS_PUBLIC_CALL;
    const char *me = "starsolve_zgbtrs_spike";
    struct spike *s = (struct spike *)factors;
    if (!factors || factors->prec != STARSOLVE_Z) return ss_arg_error(me, -1);
    if (nrhs < 0) return ss_arg_error(me, -2);
    if (!B && s->n > 0 && nrhs > 0) return ss_arg_error(me, -3);
    if (ldb < ss_max(1, s->n)) return ss_arg_error(me, -4);
    if (iters)
        *iters = 0;
    const int n = s->n;
    if (n == 0 || nrhs == 0) return 0;
    int solved = 0, info = 0;
    /* the goal of both paths (see the comment in the general path below); STARSOLVE_SPIKE_TOL replaces it, for the
     * tests and benchmarks of the refinement and the fallback (a goal no solve reaches sends every column there) */
    const char *goal_env = getenv("STARSOLVE_SPIKE_TOL");
    const double tol = goal_env && atof(goal_env) > 0 ? atof(goal_env) : fmax(100 * DBL_EPSILON, fmin(1e-12, 10.0 * n * DBL_EPSILON));
    const char *missed = "BiCGStab did not converge";   /* the verbose line's reason for the banded LU below */
    if (s->method == 0 && s->tri) {
        int steps;
        solved = tri_solve(s, B, ldb, nrhs, tol, &steps);
        if (solved < 0 && s->tri_unchecked)
            return TRI_DECLINED;
        if (iters)
            *iters = steps;
        if (solved == nrhs)
            return 0;
        /* a column whose residual stayed above the goal: this and later solves by banded LU with partial
         * pivoting (solved < 0, a checked factorization the solve found not usable, is not expected: both
         * measure the same band on the same worker; it goes the same way) */
        solved = ss_max(solved, 0);
        missed = "the tridiagonal solve's residual missed its goal";
        spike_drop(s);
        s->method = -1;
    } else if (s->method == 0) {
        /* B's rows go up per chunk as the tasks need them (page-locked for the call unless they are) */
        size_t pinB = ss_pin_host(B, ((size_t)ldb * (nrhs - 1) + n) * sizeof *B);
        spike_rhs_register(s, B, ldb, nrhs);
        /* 1e-12 (100 eps in single) keeps large systems from refining further than their checks
         * ask. A small system must go further: LAPACK-style, ||b - Ax|| / (||A|| ||x|| n eps) above
         * 30 fails a check, and n = 17 (K = 1, psize 2) stopped at 6.2e-13 relative was 40.7. So at
         * most 10 n eps, which binds below n ~ 450 in double. */
        int worst = 0;
        for (; solved < nrhs; solved++) {
            int it = bicgstab(s, solved, tol);
            if (it < 0) {
                if (ss_ctx.spike_fallback)
                    break;   /* this column and the rest go to the banded LU */
                info = n + 1;
            }
            worst = ss_max(worst, it < 0 ? ss_ctx.spike_maxit : it);
        }
        starpu_task_wait_for_all();
        spike_rhs_unregister(s);
        ss_unpin_host(B, pinB);
        if (iters)
            *iters = worst;
        if (solved == nrhs)
            return info;
        /* BiCGStab did not converge: from now on this factorization solves by banded LU with
         * partial pivoting (SPIKE's data is dropped) */
        spike_drop(s);
        s->method = -1;
    }
    if (iters)
        *iters = s->method;
    if (!s->lu) {   /* computed once, by the first solve that needs it (or again after running out of memory) */
        int luinfo = spike_lu(s);
        if (ss_ctx.verbose)
            fprintf(stderr, "starsolve: %s: %s; columns %d .. %d and later solves by banded LU with pivoting (gbtrf info %d)\n", me,
                    missed, solved + 1, nrhs, luinfo);
        if (luinfo < 0)
            return ss_arg_error(me, luinfo);
    }
    if (s->luinfo > 0)   /* U exactly singular: as LAPACK's gbsv, nothing solved */
        return s->luinfo;
    LAPACKE_zgbtrs_work(LAPACK_COL_MAJOR, 'N', n, s->kl, s->ku, nrhs - solved, s->lu, s->ldab, s->lupiv,
                        B + (size_t)solved * ldb, ldb);
    /* BiCGStab's answers passed a residual test; the banded LU's did not. A NaN or Inf in A or B
     * (or an overflow) leaves gbtrs's X non-finite with gbtrf's info 0: say so rather than
     * return 0, as the BiCGStab path does (n + 1; bench/NOTES.md, session 33) */
    if (!columns_finite(n, nrhs - solved, B + (size_t)solved * ldb, ldb)) {
        if (ss_ctx.verbose)
            fprintf(stderr, "starsolve: %s: the banded LU's solution has a NaN or Inf (one in A or B, or an overflow)\n", me);
        return n + 1;
    }
    return 0;
}

/* One copy for the four precisions: each factorization carries its own destroy */
#if defined(STARSOLVE_PRECISION_Z)
void starsolve_spike_free(starsolve_spike_t *factors)
{
    SS_PUBLIC_CALL;
    if (factors)
        factors->destroy(factors);
}
#endif

int starsolve_zgbsv_spike(int n, int kl, int ku, int nrhs, starsolve_complex64_t *AB, int ldab, starsolve_complex64_t *B,
                          int ldb, int *iters)
{
    SS_PUBLIC_CALL;
    const char *me = "starsolve_zgbsv_spike";
    if (n < 0) return ss_arg_error(me, -1);
    if (kl < 0) return ss_arg_error(me, -2);
    if (ku < 0) return ss_arg_error(me, -3);
    if (nrhs < 0) return ss_arg_error(me, -4);
    if (!AB && n > 0) return ss_arg_error(me, -5);
    if (ldab < 2 * kl + ku + 1) return ss_arg_error(me, -6);
    if (!B && n > 0 && nrhs > 0) return ss_arg_error(me, -7);
    if (ldb < ss_max(1, n)) return ss_arg_error(me, -8);
    if (iters)
        *iters = 0;
    if (n == 0 || nrhs == 0) return 0;
    starsolve_spike_t *factors;
    /* the tridiagonal path without gbtrf's check task: its solve checks, and declines before touching B */
    int info = zgbtrf_spike(n, kl, ku, AB, ldab, &factors, 2);
    if (info == 0 && kl <= 1 && ku <= 1) {
        info = starsolve_zgbtrs_spike(factors, nrhs, B, ldb, iters);
        starsolve_spike_free(factors);
        if (info != TRI_DECLINED)
            return info;
        info = zgbtrf_spike(n, kl, ku, AB, ldab, &factors, 0);
    }
    if (info != 0) {
        /* 1 .. n only from the fallback's LU (U exactly singular: B left as it was, as gbsv does);
         * n + 1: not usable and the fallback off; < 0: StarPU did not start */
        if (iters && info > 0 && info <= n)
            *iters = -2;
        return info;
    }
    info = starsolve_zgbtrs_spike(factors, nrhs, B, ldb, iters);
    starsolve_spike_free(factors);
    return info;
}
