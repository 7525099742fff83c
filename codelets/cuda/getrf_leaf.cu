// LU with partial pivoting of one narrow leaf of a tall GPU panel, in one kernel.
//
// Why: cuSOLVER's getrf on a 40000 x 1024 panel takes 8.1 ms on an H100 (5 TF/s), about 8 us a
// column: each column is a pivot search, a swap, a scaling and an update, several kernels one after
// the other, each waiting for the last. At n = 16384 LU's panels ran 92 of a 184 ms factorization,
// 43 ms of it with nothing else on the GPU (bench/NOTES.md, session 18). Here a leaf of at most
// SS_LEAF_MAX_COLS columns is one cooperative kernel: its rows are split among the blocks, each
// block keeps its rows of the leaf in shared memory from start to end, and a column costs one
// grid-wide barrier:
//   1. each block finds its pivot candidate among its rows not yet pivoted (largest |a|, LAPACK's
//      cabs1 for complex, the first row on ties, as i?amax) and publishes it with the whole row;
//      the block that holds the diagonal row publishes that row too;
//   2. grid barrier;
//   3. every block reads the same candidates and picks the same pivot, swaps the two rows where
//      it holds them, divides its part of the column below the diagonal by the pivot and updates
//      its part of the leaf's trailing columns.
// Publications alternate between two slots: a block may publish column j + 1 while a slower one
// still reads column j; it cannot publish column j + 2 before every block has passed barrier j + 1.
// The leaf's swaps also reach every other column of the panel (left and right of the leaf, in
// global memory) at the kernel's end, as one composed permutation, so the recursion around the
// leaves (codelet_zgetrf_panel.c) has no row-interchange pass of its own, and the pivots it writes
// are panel rows from the start. One source for all precisions (batched_scalar.cuh).
// Measured on an H100 (bench/panel_cost -ours, bench/NOTES.md session 18): ~5.5 us a column
// whatever the height (the barrier, the candidates then the winner's row read back through L2),
// as fast as cuSOLVER on 40000-row panels and slower on shorter ones: an option, not the default.
#include <climits>
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include "batched_scalar.cuh"
#include "cuda_check.cuh"

namespace cg = cooperative_groups;

#define SS_LEAF_MAX_COLS 64     // widest leaf: the published rows and the shared pivot rows are this long
#define SS_LEAF_MAX_BLOCKS 256  // the grid: at most one block per SM, and this many (the workspace's size)
#define SS_LEAF_THREADS 256
#define SS_LEAF_MIN_ROWS 64     // rows per block at least (short leaves use fewer blocks)
static_assert(SS_LEAF_MAX_BLOCKS <= SS_LEAF_THREADS, "a block reads every block's candidate, one a thread");
#define SS_LEAF_MAX_SHARED (160 * 1024)   // a block's rows of the leaf, at most

// The published candidates, two slots each (workspace in GPU memory, ss_cuda_getrf_leaf_work_bytes).
template <typename T> struct leaf_board {
    typedef typename real_of<T>::type R;
    R *value;       // [2][blocks]: |candidate|, -1 where a block has no row left
    int *row;       // [2][blocks]: the candidate's leaf row, INT_MAX where none
    T *rows;        // [2][blocks][SS_LEAF_MAX_COLS]: the candidates' rows
    T *diagonal;    // [2][SS_LEAF_MAX_COLS]: the diagonal row before the swap
};

template <typename T> struct leaf_args {
    T *panel;            // the whole panel, column-major
    int ld, m, ncols;    // its leading dimension, rows and columns
    int c0, nl;          // the leaf: columns c0 .. c0 + nl - 1, rows c0 .. m - 1
    int rows_per_block;
    int *ipiv;           // the panel's pivots (1-based panel rows): the leaf writes ipiv[c0 .. c0 + nl - 1]
    int *info;           // the panel's info (first zero pivot, 1-based panel column): set if still 0
    leaf_board<T> board;
};

// the larger |a|; on ties the smaller row (LAPACK's i?amax takes the first)
template <typename R> __device__ inline bool better(R v, int r, R bv, int br)
{
    return v > bv || (v == bv && r < br);
}

template <typename R> __device__ inline void warp_argmax(R &v, int &r, int &w)
{
    for (int d = 16; d > 0; d /= 2) {
        R ov = __shfl_down_sync(0xffffffffu, v, d);
        int orow = __shfl_down_sync(0xffffffffu, r, d), ow = __shfl_down_sync(0xffffffffu, w, d);
        if (better(ov, orow, v, r)) {
            v = ov;
            r = orow;
            w = ow;
        }
    }
}

// The block's argmax of (v, r, w) over its threads; the result in *out_* (shared), after a barrier.
template <typename R>
__device__ inline void block_argmax(R v, int r, int w, R *warp_v, int *warp_r, int *warp_w, R *out_v, int *out_r,
                                    int *out_w)
{
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    warp_argmax(v, r, w);
    if (lane == 0) {
        warp_v[warp] = v;
        warp_r[warp] = r;
        warp_w[warp] = w;
    }
    __syncthreads();
    if (warp == 0) {
        const int nwarps = blockDim.x / 32;
        v = lane < nwarps ? warp_v[lane] : (R)-1;
        r = lane < nwarps ? warp_r[lane] : INT_MAX;
        w = lane < nwarps ? warp_w[lane] : -1;
        warp_argmax(v, r, w);
        if (lane == 0) {
            *out_v = v;
            *out_r = r;
            *out_w = w;
        }
    }
    __syncthreads();
}

// The leaf's interchanges composed into one permutation of the rows they touch, by one warp (as
// src/pivots.c's ss_piv_compose): afterwards row moved[s] must receive what row from[s] held, for
// s < *count. Rows 0 .. nl - 1 take slots 0 .. nl - 1; a pivot row below them takes the next slot
// the first time it is named (a ballot over the slots so far finds it again).
__device__ inline void compose_leaf_swaps(const int *piv, int nl, int *moved, int *from, int *count)
{
    const int lane = threadIdx.x % 32;
    for (int s = lane; s < nl; s += 32) {
        moved[s] = s;
        from[s] = s;
    }
    int n = nl;
    __syncwarp();
    for (int j = 0; j < nl; j++) {
        const int p = piv[j];
        if (p == j)
            continue;
        int slot = p;
        if (p >= nl) {
            slot = -1;
            for (int base = nl; base < n && slot < 0; base += 32) {
                unsigned hit = __ballot_sync(0xffffffffu, base + lane < n && moved[base + lane] == p);
                if (hit)
                    slot = base + __ffs(hit) - 1;
            }
            if (slot < 0) {
                slot = n++;
                if (lane == 0) {
                    moved[slot] = p;
                    from[slot] = p;
                }
            }
        }
        __syncwarp();
        if (lane == 0) {
            int t = from[j];
            from[j] = from[slot];
            from[slot] = t;
        }
        __syncwarp();
    }
    if (lane == 0)
        *count = n;
}

template <typename T>
__global__ void __launch_bounds__(SS_LEAF_THREADS) getrf_leaf_kernel(leaf_args<T> a)
{
    typedef typename real_of<T>::type R;
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    T *tile = (T *)shared_bytes;                       // this block's rows of the leaf, ld rb
    __shared__ T pivot_row[SS_LEAF_MAX_COLS], old_diagonal[SS_LEAF_MAX_COLS];
    __shared__ R warp_v[SS_LEAF_THREADS / 32];
    __shared__ int warp_r[SS_LEAF_THREADS / 32], warp_w[SS_LEAF_THREADS / 32];
    __shared__ R s_value;
    __shared__ int s_row, s_winner;
    __shared__ int piv[SS_LEAF_MAX_COLS], moved[2 * SS_LEAF_MAX_COLS], from[2 * SS_LEAF_MAX_COLS], nmoved;
    cg::grid_group grid = cg::this_grid();
    const int G = gridDim.x, b = blockIdx.x, tid = threadIdx.x, nt = blockDim.x;
    const int mm = a.m - a.c0, nl = a.nl, rb = a.rows_per_block;
    const int r0 = b * rb, nr = max(0, min(rb, mm - r0));   // this block's leaf rows r0 .. r0 + nr - 1
    T *leaf = a.panel + a.c0 + (size_t)a.c0 * a.ld;
    const leaf_board<T> &bd = a.board;

    for (int e = tid; e < nr * nl; e += nt)
        tile[e % nr + (e / nr) * rb] = leaf[r0 + e % nr + (size_t)(e / nr) * a.ld];
    int first_zero = 0;
    __syncthreads();

    // Each thread keeps its rows (tid, tid + nt, ...) from one step to the next: it updates them and
    // searches them, so a step needs barriers only around what the block shares.
    for (int j = 0; j < nl; j++) {
        const int slot = j & 1;
        // 1. this block's candidate among its rows >= j; the diagonal row published by its thread
        R best = -1;
        int best_row = INT_MAX;
        for (int r = tid; r < nr; r += nt) {
            if (r0 + r >= j) {
                R v = abs1(tile[r + j * rb]);
                if (v > best) {   // rows rise within a thread: the first of equals stays
                    best = v;
                    best_row = r0 + r;
                }
            }
            if (r0 + r == j)
                for (int c = 0; c < nl; c++)
                    bd.diagonal[slot * SS_LEAF_MAX_COLS + c] = tile[r + c * rb];
        }
        block_argmax(best, best_row, 0, warp_v, warp_r, warp_w, &s_value, &s_row, &s_winner);
        if (tid == 0) {
            bd.value[slot * G + b] = s_value;
            bd.row[slot * G + b] = s_row;
        }
        if (s_row != INT_MAX)
            for (int c = tid; c < nl; c += nt)
                bd.rows[((size_t)slot * G + b) * SS_LEAF_MAX_COLS + c] = tile[s_row - r0 + c * rb];
        __threadfence();
        grid.sync();

        // 2. the pivot: the same choice in every block, from all candidates read at once
        {
            R v = tid < G ? bd.value[slot * G + tid] : (R)-1;
            int r = tid < G ? bd.row[slot * G + tid] : INT_MAX;
            block_argmax(v, r, tid < G ? tid : -1, warp_v, warp_r, warp_w, &s_value, &s_row, &s_winner);
        }
        // s_winner < 0: every candidate left is NaN (never larger than anything); the panel's NaN
        // check (codelet_zgetrf_panel.c) makes it all NaN afterwards, so it counts as a zero column
        const bool zero = s_winner < 0 || !(s_value > 0);
        const int p = zero ? j : s_row;   // the block holding row j has a candidate: p >= j
        for (int c = tid; c < nl && !zero; c += nt) {
            pivot_row[c] = bd.rows[((size_t)slot * G + s_winner) * SS_LEAF_MAX_COLS + c];
            old_diagonal[c] = bd.diagonal[slot * SS_LEAF_MAX_COLS + c];
        }
        if (tid == 0)
            piv[j] = p;
        if (zero && first_zero == 0)
            first_zero = j + 1;
        __syncthreads();
        if (zero)
            continue;   // LAPACK's getf2: no swap, no scaling, and the update would be by zeros
        // 3. swap, scale, update: each thread its own rows
        const T pivot = pivot_row[j];
        for (int r = tid; r < nr; r += nt) {
            const int row = r0 + r;
            if (row == j && p != j)
                for (int c = 0; c < nl; c++)
                    tile[r + c * rb] = pivot_row[c];
            if (row == p && p != j)
                for (int c = 0; c < nl; c++)
                    tile[r + c * rb] = old_diagonal[c];
            if (row > j) {
                const T l = div_(tile[r + j * rb], pivot);
                tile[r + j * rb] = l;
                for (int c = j + 1; c < nl; c++)
                    tile[r + c * rb] = sub(tile[r + c * rb], mul(l, pivot_row[c]));
            }
        }
        // the next step's search reads the same rows by the same threads; pivot_row and
        // old_diagonal are rewritten only after the next step's barriers
    }
    __syncthreads();
    for (int e = tid; e < nr * nl; e += nt)
        leaf[r0 + e % nr + (size_t)(e / nr) * a.ld] = tile[e % nr + (e / nr) * rb];

    // The panel's other columns (left and right of the leaf) get the leaf's interchanges as one
    // permutation: a warp a column, a lane a moved row, all reads before all writes.
    if (tid < 32)
        compose_leaf_swaps(piv, nl, moved, from, &nmoved);
    __syncthreads();
    const int lane = tid % 32, warps = nt / 32;
    for (int k = b * warps + tid / 32; k < a.ncols - nl; k += G * warps) {
        T *x = a.panel + (size_t)(k < a.c0 ? k : k + nl) * a.ld + a.c0;
        T v[2 * SS_LEAF_MAX_COLS / 32];
#pragma unroll
        for (int q = 0; q < 2 * SS_LEAF_MAX_COLS / 32; q++)
            if (lane + 32 * q < nmoved)
                v[q] = x[from[lane + 32 * q]];
        __syncwarp();
#pragma unroll
        for (int q = 0; q < 2 * SS_LEAF_MAX_COLS / 32; q++)
            if (lane + 32 * q < nmoved)
                x[moved[lane + 32 * q]] = v[q];
    }
    if (b == 0)
        for (int jj = tid; jj < nl; jj += nt)
            a.ipiv[a.c0 + jj] = a.c0 + piv[jj] + 1;
    // leaves run in column order on one stream: the first zero pivot of the panel wins
    if (b == 0 && tid == 0 && first_zero && *a.info == 0)
        *a.info = a.c0 + first_zero;
}

// What the leaves may use of the GPU this thread drives (a StarPU worker thread drives one)
struct leaf_device { int sms, shared, cooperative; };
static const leaf_device &this_device()
{
    static thread_local leaf_device d = { 0, 0, 0 };
    if (d.sms == 0) {
        int dev = 0, optin = 0;
        SS_CUDA_CHECK(cudaGetDevice(&dev));
        SS_CUDA_CHECK(cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, dev));
        SS_CUDA_CHECK(cudaDeviceGetAttribute(&d.cooperative, cudaDevAttrCooperativeLaunch, dev));
        SS_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
        // leave the kernel's static shared arrays (~2 KB) their room
        d.shared = optin - 4096 < SS_LEAF_MAX_SHARED ? optin - 4096 : SS_LEAF_MAX_SHARED;
    }
    return d;
}

// Blocks of the grid for a leaf of mm rows: one per SM at most (and max_blocks if > 0), each with at least
// SS_LEAF_MIN_ROWS rows.
static int leaf_blocks(int mm, int max_blocks, int *rows_per_block)
{
    int G = (mm + SS_LEAF_MIN_ROWS - 1) / SS_LEAF_MIN_ROWS, sms = this_device().sms;
    G = G < 1 ? 1 : G > sms ? sms : G > SS_LEAF_MAX_BLOCKS ? SS_LEAF_MAX_BLOCKS : G;
    G = max_blocks > 0 && G > max_blocks ? max_blocks : G;
    *rows_per_block = (mm + G - 1) / G;
    return G;
}

extern "C" size_t ss_cuda_getrf_leaf_work_bytes(size_t elemsize)
{
    size_t values = 2 * SS_LEAF_MAX_BLOCKS * (sizeof(double) + sizeof(int));
    return values + 2 * (SS_LEAF_MAX_BLOCKS + 1) * SS_LEAF_MAX_COLS * elemsize + 64;
}

// The widest leaf (a power of two, at most SS_LEAF_MAX_COLS and at most `want`) whose rows fit a block's
// shared memory for a panel of m rows; 0 if none of at least 8 columns does, or the GPU has no
// cooperative launches (the caller uses cuSOLVER).
extern "C" int ss_cuda_getrf_leaf_width(size_t elemsize, int m, int want, int max_blocks)
{
    const leaf_device &d = this_device();
    if (!d.cooperative)
        return 0;
    int nl = SS_LEAF_MAX_COLS;
    while (nl > want && nl > 8)
        nl /= 2;
    int rb = 0;
    leaf_blocks(m, max_blocks, &rb);
    while (nl >= 8 && (size_t)rb * nl * elemsize > (size_t)d.shared)
        nl /= 2;
    return nl >= 8 ? nl : 0;
}

template <typename T>
static void launch_leaf(T *panel, int ld, int m, int ncols, int c0, int nl, int *ipiv, int *info, void *work,
                        int max_blocks, cudaStream_t stream)
{
    if (nl < 1 || nl > SS_LEAF_MAX_COLS || c0 + nl > m)
        ss_cuda_fail("ss_cuda_getrf_leaf: leaf width", nl, __FILE__, __LINE__);
    leaf_args<T> a;
    int rb = 0, G = leaf_blocks(m - c0, max_blocks, &rb);
    size_t shared = (size_t)rb * nl * sizeof(T);
    if (shared > (size_t)this_device().shared)
        ss_cuda_fail("ss_cuda_getrf_leaf: the leaf's rows do not fit a block's shared memory", (int)shared, __FILE__,
                     __LINE__);
    // above 48 KB a kernel must ask for its shared memory (per device: each worker thread drives one)
    static thread_local int opted_in = 0;
    if (!opted_in) {
        SS_CUDA_CHECK(cudaFuncSetAttribute(getrf_leaf_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           this_device().shared));
        opted_in = 1;
    }
    a.panel = panel;
    a.ld = ld;
    a.m = m;
    a.ncols = ncols;
    a.c0 = c0;
    a.nl = nl;
    a.rows_per_block = rb;
    a.ipiv = ipiv;
    a.info = info;
    char *w = (char *)work;
    a.board.value = (typename real_of<T>::type *)w;
    w += 2 * SS_LEAF_MAX_BLOCKS * sizeof(double);
    a.board.row = (int *)w;
    w += 2 * SS_LEAF_MAX_BLOCKS * sizeof(int);
    w = (char *)(((size_t)w + 15) & ~(size_t)15);
    a.board.rows = (T *)w;
    a.board.diagonal = a.board.rows + 2 * (size_t)SS_LEAF_MAX_BLOCKS * SS_LEAF_MAX_COLS;
    void *args[] = { &a };
    SS_CUDA_CHECK(cudaLaunchCooperativeKernel((const void *)getrf_leaf_kernel<T>, dim3(G), dim3(SS_LEAF_THREADS), args,
                                              shared, stream));
}

// info must be zeroed before the panel's first leaf; work: ss_cuda_getrf_leaf_work_bytes, 16-byte aligned
extern "C" void ss_cuda_sgetrf_leaf(void *panel, int ld, int m, int ncols, int c0, int nl, int *ipiv, int *info,
                                    void *work, int max_blocks, cudaStream_t stream)
{
    launch_leaf((float *)panel, ld, m, ncols, c0, nl, ipiv, info, work, max_blocks, stream);
}
extern "C" void ss_cuda_dgetrf_leaf(void *panel, int ld, int m, int ncols, int c0, int nl, int *ipiv, int *info,
                                    void *work, int max_blocks, cudaStream_t stream)
{
    launch_leaf((double *)panel, ld, m, ncols, c0, nl, ipiv, info, work, max_blocks, stream);
}
extern "C" void ss_cuda_cgetrf_leaf(void *panel, int ld, int m, int ncols, int c0, int nl, int *ipiv, int *info,
                                    void *work, int max_blocks, cudaStream_t stream)
{
    launch_leaf((float2 *)panel, ld, m, ncols, c0, nl, ipiv, info, work, max_blocks, stream);
}
extern "C" void ss_cuda_zgetrf_leaf(void *panel, int ld, int m, int ncols, int c0, int nl, int *ipiv, int *info,
                                    void *work, int max_blocks, cudaStream_t stream)
{
    launch_leaf((double2 *)panel, ld, m, ncols, c0, nl, ipiv, info, work, max_blocks, stream);
}
