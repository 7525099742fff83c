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

/* A chunk: the partitions part0 .. part0 + np - 1, rows first .. first + size - 1; has_prev /
 * has_next: a neighbour chunk above / below (the couplings of the first / last partition) */
struct ss_spike_chunk {
    int first, size, part0, np;
    int pq, pr;                 /* every partition's size: n / p, plus one for the first n % p */
    int kl, ku, K;              /* the band; K = max(kl, ku) */
    int has_prev, has_next;
};

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
