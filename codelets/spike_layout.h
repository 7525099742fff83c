/* The SPIKE solver's layout, shared by the C codelets (codelet_zspike.c) and the CUDA kernels
 * (cuda/spike.cu), so that both compute the same partition bounds and the same offsets.
 *
 * A is cut into p partitions, partition g owning rows (and columns) first .. first + size - 1,
 * sizes q = n / p or q + 1 (the first r = n % p partitions one row more: no straggler). Tasks
 * work on chunks: contiguous ranges of partitions (src/zgbsv_spike.c). Per partition of a chunk:
 *   tips   SS_TIPS(K) elements: Vb, Wt, Bc, Cc (K x K each), the smallest row dominance, a status
 *   S      SS_RSYS(K) elements: the LU of the reduced system of the interface below the
 *          partition, [I Vb_g; Wt_{g+1} I] (2K x 2K), then its status (0, or > 0 singular);
 *          ipivS 2K pivots
 *   gt     2K: the top and bottom K rows of A_g^-1 f_g;  y 2K: [x_g bottom; x_{g+1} top]
 * In working precision, as all of the tips and reduced systems. */
#ifndef STARSOLVE_SPIKE_LAYOUT_H
#define STARSOLVE_SPIKE_LAYOUT_H
#include <stddef.h>

#ifdef __CUDACC__
#define SS_SPIKE_HD __host__ __device__
#else
#define SS_SPIKE_HD
#endif

#define SS_TIPS(K) (4 * (size_t)(K) * (K) + 2)
#define SS_RSYS(K) (4 * (size_t)(K) * (K) + 1)
/* offsets inside a partition's tips */
#define SS_TIP_VB(K) ((size_t)0)
#define SS_TIP_WT(K) ((size_t)(K) * (K))
#define SS_TIP_BC(K) (2 * (size_t)(K) * (K))
#define SS_TIP_CC(K) (3 * (size_t)(K) * (K))
#define SS_TIP_DOM(K) (4 * (size_t)(K) * (K))
#define SS_TIP_STATUS(K) (4 * (size_t)(K) * (K) + 1)

/* Wt (the top tip) is taken from the leading block of this many rows of a partition of s rows (see
 * zspike_factor_cpu), at least 64, because at small K a few K rows are too few (K = 1, d = 1, 488-row
 * partitions: 4 rows left the truncated-SPIKE residual at 5e-2, 16 rows 1.3e-9, 64 rows 3.9e-14;
 * bench/NOTES.md, session 15). The seed's 2K, and the 4K used until session 25, are not enough either
 * (n = 1e6, d = 1, double factors, relative residual of the truncated-SPIKE solution alone):
 *   16 partitions of 62500 rows, K = 32: 4K rows 2.6e-12 (one BiCGStab step to reach the 1e-12 goal),
 *     5K 3.2e-15, 6K and more 2.5e-15 (LAPACK's gbsv: 2.5e-15);
 *   a GPU's partitions of 16K rows, K = 16 / 32 / 64: 4K rows 3.8e-10 / 4.5e-12 / 9.9e-14, 6K 1.3e-14 /
 *     2.4e-15 / 3.5e-15, 8K 2.2e-15 / 2.4e-15 / 3.5e-15.
 * So 8K where that costs little: where 8K rows are at most an eighth of the partition (CPU workers'
 * partitions, tens of thousands of rows); 6K on shorter ones (a GPU's, src/zgbsv_spike.c), where the
 * tips are a large part of the factor: on an H200 at K = 32, 6K rows made the factor 16 -> 19 ms and
 * took the BiCGStab step away, the further solve 5.6 -> 3.1 ms. */
static inline SS_SPIKE_HD int ss_spike_wt_rows(int K, int s)
{
    int m = s >= 64 * K ? 8 * K : 6 * K;
    m = m > 64 ? m : 64;
    return m < s ? m : s;
}

/* A chunk: the partitions part0 .. part0 + np - 1, rows first .. first + size - 1; has_prev /
 * has_next: a neighbour chunk above / below (the couplings of the first / last partition) */
struct ss_spike_chunk {
    int first, size, part0, np;
    int pq, pr;                 /* every partition's size: n / p, plus one for the first n % p */
    int kl, ku, K;              /* the band; K = max(kl, ku) */
    int has_prev, has_next;
    int band_row0;              /* the band handles' gbmv layout starts this many rows below their pointer:
                                 * 0, or kl where they hold whole columns of LAPACK's gbsv array
                                 * (src/zgbsv_spike.c, spike_band_whole) */
};

/* BiCGStab (src/zgbsv_spike.c): its reductions, each chunk's partial sums (SS_PART_NORM a max, the
 * others sums) and the scalars the reductions leave (SS_SCAL_BREAK: 1 after a breakdown); a reduction
 * runs on a GPU when there are at most SS_SPIKE_MAX_PARTIALS chunks */
enum { SS_RED_BNORM, SS_RED_START, SS_RED_RESID, SS_RED_ALPHA, SS_RED_OMEGA, SS_RED_END };
enum { SS_PART_NORM, SS_PART_RHO, SS_PART_RV, SS_PART_TS, SS_PART_TT, SS_PART_COUNT };
enum { SS_SCAL_RHO, SS_SCAL_ALPHA, SS_SCAL_OMEGA, SS_SCAL_BETA, SS_SCAL_RNORM, SS_SCAL_BNORM, SS_SCAL_BREAK, SS_SCAL_COUNT };
#define SS_SPIKE_MAX_PARTIALS 32

static inline SS_SPIKE_HD int ss_spike_part_first(int g, int q, int r) { return g * q + (g < r ? g : r); }
static inline SS_SPIKE_HD int ss_spike_part_size(int g, int q, int r) { return q + (g < r ? 1 : 0); }

/* partition i of chunk c (0 <= i < c->np): its first row relative to the chunk's, its size */
static inline SS_SPIKE_HD int ss_spike_chunk_off(const struct ss_spike_chunk *c, int i)
{
    return ss_spike_part_first(c->part0 + i, c->pq, c->pr) - c->first;
}
static inline SS_SPIKE_HD int ss_spike_chunk_psize(const struct ss_spike_chunk *c, int i)
{
    return ss_spike_part_size(c->part0 + i, c->pq, c->pr);
}

#endif
