// Small-size batched LU, Cholesky and QR: max(m, n) <= 32 (to 64 where small_most_order says), the
// whole factorization of a matrix in the registers of NC = 1, 2, .., 32 lanes of
// one warp (a "segment"), several matrices per thread block, or for NC = 64 of the
// two warps of a 64-thread block, one matrix per block (Haidar et al.,
// "Towards batched linear solvers on accelerated hardware platforms"; MAGMA's
// small-size batched kernels). Included by batched.cu (launchers there); kept
// apart so that a host emulation of warps can compile the same text.
//   getrf: lane r owns row r (NW registers, small_nw). Partial pivoting without moving
//     data: each lane keeps its row's position in LAPACK's row order; the pivot
//     search is a reduction over the candidate rows (LAPACK's choice: first
//     position of largest |re| + |im|; whole warps with the warp-reduce
//     instructions, segments by shuffles), the pivot row goes to the segment
//     through shared memory (double buffered: one __syncwarp per column), each
//     row below scales and updates itself. Rows are stored at their final
//     positions at the end; ipiv(c) = the position the pivot had at step c.
//   potrf: lane r owns row r of L (lower terms; uplo U reads and writes A^H
//     through a shared-memory transpose so that global accesses stay coalesced).
//     Right-looking: column c goes to the segment through shared memory (one
//     store per lane), row r updates itself: A(r, q) -= A(r, c) conj(A(q, c)) / d.
//   geqrf: lane q owns column q (NW registers; loaded and stored through a shared-memory
//     transpose). Lane c builds reflector c (LAPACK's larfg: the norm scaled by a
//     power of two only when the plain sum of squares under- or overflows; divisions
//     as multiplications by one reciprocal, see below) and puts v and tau in shared
//     memory; every lane q > c applies H^H to its own column.
// NC <= 32: no __syncthreads, segments never talk to each other (seg_sync is
// __syncwarp); NC = 64: seg_sync is the block's barrier (two warps, one matrix),
// once per column, and getrf's pivot search ends with the two warps' best rows
// compared after that barrier. Loops over columns are
// unrolled (register arrays need compile-time indices); rows and columns past
// m, n hold zeros that the algorithms keep zero, and are never stored.
#ifndef STARSOLVE_BATCHED_SMALL_CUH
#define STARSOLVE_BATCHED_SMALL_CUH
#include <float.h>
#include <type_traits>
#include "batched_scalar.cuh"

// matrices per block (threads per block = SMALL_MPB * NC: 64 or 128)
#define SMALL_MPB(NC) ((NC) == 64 ? 1 : (NC) == 32 ? 2 : 128 / (NC))

enum { OP_GETRF = 0, OP_POTRF = 1, OP_GEQRF = 2 };   // codelets.h's SS_BATCH_GETRF, _POTRF, _GEQRF

// The largest order the small-size kernels are used for, the one place that says it: the
// launchers' guard, which 64-lane kernels are built at all, zbatched_cuda.c's plan, the
// emulation and bench/batched_gpu all ask small_taken below. The kernels could take 64 wherever a
// lane's 64 registers hold a row (not z: 256 registers a lane, 66 KB of tile), but panels beat
// them from 33 (H200, 1 GiB of matrices, ratio to the vendor's at orders 40 / 48 / 64;
// bench/NOTES.md sessions 51-52): c's Cholesky 0.71 / 0.67 / 0.98x against 1.42 / 1.33 / 1.36x
// with panels of 32, c's LU 1.09 / 1.23 / 1.28x against 2.10 / 2.36 / 1.99x with panels of 16,
// d's LU 1.93 / 2.12 / 2.23x against 2.13 / 2.41 / 2.76x with the panels' best width. s's LU and
// Cholesky and d's Cholesky (d 56 / 64: 3.39 / 3.19x against 3.16 / 2.99x) keep them to 64. QR
// stops at 32: from 33 its column stays in local memory, and on an H100 (session 12, double)
// the small kernel took 4.3x (m = 48) and 1.7x (m = 64) the time of the panel path.
// es: bytes an element; complex_arith: c or z.
__host__ __device__ constexpr int small_most_order(int op, int es, int complex_arith)
{
    return op == OP_GEQRF || complex_arith ? 32 : op == OP_POTRF || es == 4 ? 64 : 32;
}
// 1 when the small-size kernel of op takes an m x n matrix (potrf: square)
__host__ __device__ constexpr int small_taken(int op, int m, int n, int es, int complex_arith)
{
    const int most = small_most_order(op, es, complex_arith);
    return m >= 1 && n >= 1 && m <= most && n <= most && (op != OP_POTRF || m == n);
}
// the segment width (lanes per matrix): the smallest power of two that holds every row and column.
// Below 8 lanes since session 53: with 8 lanes, most of them idle and a block reading 16 matrices,
// d's LU of order 1 / 2 / 3 / 4 ran at 0.07 / 0.15 / 0.53 / 0.57x cuBLAS's speed on an H200, with
// 1, 2, 4 lanes at 1.10 / 0.94 / 1.22 / 1.35x (QR 0.24 / 0.31 / 0.58 / 1.02x to 3.73 / 2.17 / 1.39 /
// 2.48x; bench/NOTES.md session 53).
__host__ __device__ constexpr int small_nc(int m, int n)
{
    const int big = m > n ? m : n;
    return big <= 1 ? 1 : big <= 2 ? 2 : big <= 4 ? 4 : big <= 8 ? 8 : big <= 16 ? 16 : big <= 32 ? 32 : 64;
}
// NW, the registers a lane of the LU (columns) or QR (rows) holds: NC, but with 32 lanes the
// columns (LU) / rows (QR) the matrix has, rounded up to 20, 24 or 28, and with 16 lanes 12 for
// at most 12 (fewer registers a lane, no work on the zero columns past n). On an H200 (1 GiB of
// matrices, ratio to cuBLAS with NC registers and with these, bench/NOTES.md session 53): z LU at
// 17 / 20 / 24 / 28 0.54 / 0.60 / 0.80 / 1.13x against 1.13 / 1.27 / 1.42 / 1.79x, c QR 0.60 /
// 0.79 / 1.19 / 1.84x against 1.46 / 1.95 / 2.18 / 2.20x, d LU 0.99 / 1.06 / 1.21 / 1.38x against
// 1.41 / 1.52 / 1.47 / 1.51x; at 9 / 12 c QR 0.94 / 1.50x against 1.25 / 2.09x, z LU 1.57 / 1.82x
// against 2.16 / 2.53x. need: n (LU) or m (QR).
__host__ __device__ constexpr int small_nw(int nc, int need)
{
    return nc == 32 ? (need <= 20 ? 20 : need <= 24 ? 24 : need <= 28 ? 28 : 32) : nc == 16 && need <= 12 ? 12 : nc;
}
// a compile-time width (lanes, registers) for the launchers' generic lambdas
template <int V> struct small_width { enum { value = V }; };
// launch(small_width<NW>()) for nw registers a lane (small_nw's 12, 20, 24, 28, else NC)
template <int NC, typename F> inline void small_nw_launch(int nw, F launch)
{
    if constexpr (NC == 16) {
        if (nw == 12) {
            launch(small_width<12>());
            return;
        }
    }
    if constexpr (NC == 32) {
        switch (nw) {
        case 20: launch(small_width<20>()); return;
        case 24: launch(small_width<24>()); return;
        case 28: launch(small_width<28>()); return;
        default: break;
        }
    }
    launch(small_width<NC>());
}
// T is c or z (float2, double2)
template <typename T> constexpr int small_complex() { return !std::is_same<typename real_of<T>::type, T>::value; }
// 1 when op's 64-lane kernel in T is used, hence built
template <typename T> constexpr int small_nc64_built(int op)
{
    return small_most_order(op, (int)sizeof(T), small_complex<T>()) > 32;
}
// launch(small_width<NC>()) for the segment width nc (small_nc's): the one switch of the launchers
// (batched.cu) and the host emulation; 0, nothing launched, for 64 lanes where op's 64-lane kernel in
// T is not built (small_taken keeps such shapes away)
template <typename T, int OP, typename F> inline int small_nc_launch(int nc, F launch)
{
    switch (nc) {
    case 1: launch(small_width<1>()); return 1;
    case 2: launch(small_width<2>()); return 1;
    case 4: launch(small_width<4>()); return 1;
    case 8: launch(small_width<8>()); return 1;
    case 16: launch(small_width<16>()); return 1;
    case 32: launch(small_width<32>()); return 1;
    default:
        if constexpr (small_nc64_built<T>(OP)) {
            launch(small_width<64>());
            return 1;
        }
        return 0;
    }
}

// the lanes of one matrix wait for each other (and see each other's shared-memory writes)
template <int NC> __device__ inline void seg_sync()
{
    if (NC > 32)
        __syncthreads();
    else
        __syncwarp();
}

// shuffles within segments of width w (srcLane relative to the segment)
__device__ inline int shfl_xor_w(int v, int off, int w) { return __shfl_xor_sync(0xffffffffu, v, off, w); }
__device__ inline float shfl_xor_w(float v, int off, int w) { return __shfl_xor_sync(0xffffffffu, v, off, w); }
__device__ inline double shfl_xor_w(double v, int off, int w) { return __shfl_xor_sync(0xffffffffu, v, off, w); }

// LU's pivot search over whole warps (NC >= 32) with the warp reductions of sm_80+ (three
// instructions where a shuffle tree takes five rounds of three shuffles and a compare):
// rank: an unsigned order equal to the search's, candidates by |pivot| (the bits of a
// non-negative float grow with its value), above a NaN candidate (1), above rows that are
// not candidates (0); the winner is the largest rank, ties to the smallest key.
__device__ inline unsigned long long pivot_rank(double v)
{
    return v >= 0 ? (unsigned long long)__double_as_longlong(v) + 2 : v == -1 ? 1 : 0;
}
__device__ inline unsigned long long pivot_rank(float v)
{
    return v >= 0 ? (unsigned long long)__float_as_uint(v) + 2 : v == -1 ? 1 : 0;
}
// the warp's winning key; *best: its rank
__device__ inline int warp_pivot_key(unsigned long long rank, int key, unsigned long long *best)
{
    const unsigned hi = (unsigned)(rank >> 32), lo = (unsigned)rank;
    const unsigned top_hi = __reduce_max_sync(0xffffffffu, hi);
    const unsigned top_lo = __reduce_max_sync(0xffffffffu, hi == top_hi ? lo : 0u);
    *best = (unsigned long long)top_hi << 32 | top_lo;
    return __reduce_min_sync(0xffffffffu, hi == top_hi && lo == top_lo ? key : 0x7fffffff);
}

template <typename R> struct small_lim;
template <> struct small_lim<float> {
    // a sum of squares in [lo, hi] lost nothing to under- or overflow (lo = tiny / eps^2)
    static __device__ inline float lo() { return FLT_MIN / (FLT_EPSILON * FLT_EPSILON); }
    static __device__ inline float hi() { return FLT_MAX; }
    // powers of two (exact scalings) that bring the squares of a column whose sum over- (down)
    // or underflowed (up) back into range: |x| <= FLT_MAX gives (x down)^2 <= 1e17, and
    // |x| < sqrt(lo) ~ 1e-12 gives (x up)^2 <= 1e36; subnormals come up to normal squares
    static __device__ inline float down() { return 0x1p-100f; }
    static __device__ inline float up() { return 0x1p100f; }
};
template <> struct small_lim<double> {
    static __device__ inline double lo() { return DBL_MIN / (DBL_EPSILON * DBL_EPSILON); }
    static __device__ inline double hi() { return DBL_MAX; }
    static __device__ inline double down() { return 0x1p-600; }
    static __device__ inline double up() { return 0x1p600; }
};

// Divisions and square roots, out of line. The kernels below unroll their column loops,
// and each inline division or square root is a dozen instructions or more: their copies
// made the Cholesky's and the QR's speed a matter of instruction fetch (H100, bench/NOTES.md
// session 21). So each column computes one reciprocal, through these, and multiplies.
// Cholesky's diagonal d > 0: sqrt(d) and its reciprocal
template <typename R> struct chol_root {
    R root, inv;
};
template <typename R> __device__ __noinline__ chol_root<R> make_chol_root(R d)
{
    const R root = sqrt(d);
    chol_root<R> c = { root, 1 / root };
    return c;
}

// ---- LU with partial pivoting, m x n, max(m, n) <= NC
// Register-bound occupancy, for rows of doubles (bench/NOTES.md, session 21, one H100):
// rows of 32 take 98 registers a lane, 16 warps an SM; asked for 10 blocks (96 registers, a
// 16-byte spill) it runs 20, and the LU of 32 x 32 took 0.91x the time (12 blocks spill 256
// bytes and ran slower). Rows of 64 take 176, 8 warps; asked for 6 blocks (168 registers, a
// 4-byte spill) it runs 12, and the LU of 64 x 64 took 0.77x the time (48 x 48: 0.89x).
// Single complex, also 8 bytes, would spill 140 bytes at 10 and was not measured.
#define SMALL_GETRF_MIN_BLOCKS(T, NC)                                                                          \
    (sizeof(T) != 8 || sizeof(typename real_of<T>::type) != 8 ? 0 : (NC) == 32 ? 10 : (NC) == 64 ? 6 : 0)
template <typename T, int NC, int NW>
__global__ void __launch_bounds__(SMALL_MPB(NC) * NC, SMALL_GETRF_MIN_BLOCKS(T, NC))
    getrf_small(int m, int n, T *Aall, int lda, long long sA, int *ipiv_all, long long sP, int *info_all, int count)
{
    typedef typename real_of<T>::type R;
    enum { MPB = SMALL_MPB(NC) };
    __shared__ T bc[MPB][2][2][NC];   // the pivot row (NC 64: each warp's best), double buffered
    __shared__ unsigned long long best_rank[2][2];   // NC 64: each warp's best pivot_rank and key
    __shared__ int best_key[2][2];
    const int lane = threadIdx.x % NC, seg = threadIdx.x / NC, k = m < n ? m : n;
    const long long mat = (long long)blockIdx.x * MPB + seg;
    const bool live = mat < count;
    T *A = Aall + (live ? mat : 0) * sA;
    T a[NW];   // row `lane`, columns 0..NW-1 (NW >= n)
#pragma unroll
    for (int q = 0; q < NW; q++)
        a[q] = live && lane < m && q < n ? A[lane + (size_t)q * lda] : make<T>(0, 0);
    int pos = lane, my_ipiv = 0, info = 0;   // pos: the row's position in LAPACK's row order
#pragma unroll
    for (int c = 0; c < NW; c++) {
        if (c >= k)
            break;
        // candidates: rows at positions c..m-1; NaN never wins (-1), others never (-2)
        R v = -2;
        if (pos >= c && pos < m) {
            R x = abs1(a[c]);
            v = x == x ? x : -1;
        }
        int key = pos * NC + lane;   // ties: the first position wins
        unsigned long long rank = 0;
        if (NC >= 32) {   // whole warps: the warp reductions
            key = warp_pivot_key(pivot_rank(v), key, &rank);
        } else {          // segments of a warp: a shuffle tree within each
#pragma unroll
            for (int off = NC / 2; off > 0; off >>= 1) {
                R ov = shfl_xor_w(v, off, NC);
                int okey = shfl_xor_w(key, off, NC);
                if (ov > v || (ov == v && okey < key)) {
                    v = ov;
                    key = okey;
                }
            }
        }
        T *b;
        if (NC > 32) {   // each warp's best row to shared memory, one barrier, the better of the two
            const int half = (threadIdx.x / 32) & 1;
            if (lane == key % NC) {
                best_rank[c & 1][half] = rank;
                best_key[c & 1][half] = key;
#pragma unroll
                for (int q = c; q < NW; q++)
                    bc[0][c & 1][half][q] = a[q];
            }
            __syncthreads();
            const unsigned long long r0 = best_rank[c & 1][0], r1 = best_rank[c & 1][1];
            const int k0 = best_key[c & 1][0], k1 = best_key[c & 1][1];
            const bool second = r1 > r0 || (r1 == r0 && k1 < k0);
            key = second ? k1 : k0;
            b = bc[0][c & 1][second ? 1 : 0];
        } else {
            b = bc[seg][c & 1][0];
            if (lane == key % NC) {
#pragma unroll
                for (int q = c; q < NW; q++)
                    b[q] = a[q];
            }
            __syncwarp();
        }
        const int p = key / NC, w = key % NC;   // the pivot's position and lane
        if (lane == c)
            my_ipiv = p + 1;
        if (lane == w)
            pos = c;
        else if (pos == c)
            pos = p;
        const T d = b[c];
        const bool nonzero = !is_zero(d);
        if (!nonzero && info == 0)   // LAPACK goes on; the column below is zero anyway
            info = c + 1;
        if (pos > c && nonzero) {   // (inline: out of line, with the call, it ran slower at 16 and 32)
            T l = div_(a[c], d);
            a[c] = l;
#pragma unroll
            for (int q = c + 1; q < NW; q++)
                a[q] = sub(a[q], mul(l, b[q]));
        }
    }
    if (!live)
        return;
    if (lane < m && m > 1) {   // a 1 x n LU leaves A as it is (U = A): no store (z 1 x 1: 0.83 -> 1.21x cuBLAS)
#pragma unroll
        for (int q = 0; q < NW; q++)
            if (q < n)
                A[pos + (size_t)q * lda] = a[q];
    }
    if (lane < k)
        ipiv_all[mat * sP + lane] = my_ipiv;
    if (lane == 0)
        info_all[mat] = info;
}

// ---- Cholesky, n <= NC, in lower terms (UPPER: A^H through shared memory)
template <typename T, int NC, bool UPPER>
__global__ void __launch_bounds__(SMALL_MPB(NC) * NC) potrf_small(int n, T *Aall, int lda, long long sA,
                                                                  int *info_all, int count)
{
    typedef typename real_of<T>::type R;
    enum { MPB = SMALL_MPB(NC), LDT = NC + 1 };
    __shared__ T bc[MPB][2][NC];                     // column c, double buffered
    __shared__ T tile_all[UPPER ? MPB * NC * LDT : 1];   // uplo U: the transpose
    const int lane = threadIdx.x % NC, seg = threadIdx.x / NC;
    const long long mat = (long long)blockIdx.x * MPB + seg;
    const bool live = mat < count;
    T *A = Aall + (live ? mat : 0) * sA, *tile = tile_all + (UPPER ? seg * NC * LDT : 0);
    T a[NC];   // row `lane` of L: a[q], q <= lane (the rest is scratch)
    if (UPPER) {   // lane r reads row r of U (coalesced), the tile turns it into column r
#pragma unroll
        for (int q = 0; q < NC; q++)
            if (live && lane < n && q < n && q >= lane)
                tile[q * LDT + lane] = A[lane + (size_t)q * lda];   // tile(r, q) = A(r, q)
        seg_sync<NC>();
#pragma unroll
        for (int q = 0; q < NC; q++)
            a[q] = live && lane < n && q < n && q <= lane ? conj_(tile[lane * LDT + q]) : make<T>(0, 0);
    } else {
#pragma unroll
        for (int q = 0; q < NC; q++)
            a[q] = live && lane < n && q < n && q <= lane ? A[lane + (size_t)q * lda] : make<T>(0, 0);
    }
    int info = 0;
#pragma unroll
    for (int c = 0; c < NC; c++) {
        if (c >= n)
            break;
        T *b = bc[seg][c & 1];
        b[lane] = a[c];   // column c of the updated matrix
        seg_sync<NC>();
        const R d = re(b[c]);   // LAPACK reads the real part of the diagonal
        if (info == 0 && !(d > 0))   // not positive, or NaN: leading minor c+1 fails, the matrix stops
            info = c + 1;
        if (info == 0) {
            const chol_root<R> root = make_chol_root(d);
            if (lane == c) {
                a[c] = make<T>(root.root, 0);
            } else if (lane > c) {
                a[c] = scale(a[c], root.inv);
                const T t = scale(a[c], root.inv);   // A(r, c) / d: L(r, c) conj(L(q, c)) = A(r, c) conj(A(q, c)) / d
#pragma unroll
                for (int q = c + 1; q < NC; q++)
                    a[q] = sub(a[q], mul(t, conj_(b[q])));
            }
        }
    }
    if (UPPER) {
        seg_sync<NC>();   // every lane is done reading the tile
#pragma unroll
        for (int q = 0; q < NC; q++)
            if (q <= lane)
                tile[lane * LDT + q] = conj_(a[q]);   // tile(q, r) = U(q, r) = conj(L(r, q))
        seg_sync<NC>();
        if (live && lane < n) {
#pragma unroll
            for (int q = 0; q < NC; q++)
                if (q < n && q >= lane)
                    A[lane + (size_t)q * lda] = tile[q * LDT + lane];
        }
    } else if (live && lane < n) {
#pragma unroll
        for (int q = 0; q < NC; q++)
            if (q <= lane)
                A[lane + (size_t)q * lda] = a[q];
    }
    if (live && lane == 0)
        info_all[mat] = info;
}

// larfg's scalars from alpha and the norm of the rest, (sqrt(ssq) unf): tau, beta and the
// scale of v; reflect false where H = I (tau 0). Out of line, and with its divisions as
// multiplications by one reciprocal, for the reason given above make_chol_root.
template <typename T> struct larfg_scalars {
    T tau, scale;
    typename real_of<T>::type beta;
    bool reflect;
};
template <typename T>
__device__ __noinline__ larfg_scalars<T> make_larfg_scalars(T alpha, typename real_of<T>::type ssq,
                                                            typename real_of<T>::type unf)
{
    typedef typename real_of<T>::type R;
    larfg_scalars<T> h = { make<T>(0, 0), make<T>(0, 0), 0, false };
    const R xnorm = sqrt(ssq) * unf, ar = re(alpha), ai = im(alpha);
    if (xnorm == 0 && ai == 0)
        return h;
    const R top = fmax(fabs(ar), fmax(fabs(ai), xnorm)), rtop = 1 / top;   // dlapy3
    const R x = ar * rtop, y = ai * rtop, z = xnorm * rtop;
    h.beta = -copysign(top * sqrt(x * x + y * y + z * z), ar);
    const R rbeta = 1 / h.beta;
    h.tau = make<T>((h.beta - ar) * rbeta, -ai * rbeta);
    h.scale = div_(make<T>(1, 0), sub(alpha, make<T>(h.beta, 0)));
    h.reflect = true;
    return h;
}

// ---- QR (LAPACK's geqr2 and larfg), m x n, max(m, n) <= NC; a QR does not fail: info = 0
template <typename T, int NC, int NW>
__global__ void __launch_bounds__(SMALL_MPB(NC) * NC) geqrf_small(int m, int n, T *Aall, int lda, long long sA,
                                                                  T *tau_all, long long sT, int *info_all, int count)
{
    typedef typename real_of<T>::type R;
    enum { MPB = SMALL_MPB(NC), LDT = NC + 1 };
    __shared__ T bc[MPB][2][NC];          // v below the diagonal, tau in v's unit slot; double buffered
    __shared__ T tile_all[MPB * NC * LDT];   // the transposes
    const int lane = threadIdx.x % NC, seg = threadIdx.x / NC, k = m < n ? m : n;
    const long long mat = (long long)blockIdx.x * MPB + seg;
    const bool live = mat < count;
    T *A = Aall + (live ? mat : 0) * sA, *tile = tile_all + seg * NC * LDT;
#pragma unroll
    for (int q = 0; q < NC; q++)   // lane r reads row r (coalesced): tile(r, q) = A(r, q)
        tile[q * LDT + lane] = live && lane < m && q < n ? A[lane + (size_t)q * lda] : make<T>(0, 0);
    seg_sync<NC>();
    T a[NW];   // column `lane`, rows 0..NW-1 (NW >= m)
#pragma unroll
    for (int r = 0; r < NW; r++)
        a[r] = tile[lane * LDT + r];
    T my_tau = make<T>(0, 0);
#pragma unroll
    for (int c = 0; c < NW; c++) {
        if (c >= k)
            break;
        T *b = bc[seg][c & 1];
        if (lane == c) {   // larfg on a(c:)
            R part[4] = { 0, 0, 0, 0 };   // four chains: the other lanes wait for this one
#pragma unroll
            for (int r = c + 1; r < NW; r++)
                part[r % 4] += re(a[r]) * re(a[r]) + im(a[r]) * im(a[r]);
            R ssq = (part[0] + part[1]) + (part[2] + part[3]), unf = 1;
            if (ssq > 0 && !(ssq >= small_lim<R>::lo() && ssq <= small_lim<R>::hi())) {   // scaled by 2^k
                const R f = ssq > 1 ? small_lim<R>::down() : small_lim<R>::up();
                unf = ssq > 1 ? small_lim<R>::up() : small_lim<R>::down();   // 1 / f
                ssq = 0;
#pragma unroll
                for (int r = c + 1; r < NW; r++) {
                    R x = re(a[r]) * f, y = im(a[r]) * f;
                    ssq += x * x + y * y;
                }
            }
            const T alpha = a[c];
            const larfg_scalars<T> h = make_larfg_scalars(alpha, ssq, unf);
            my_tau = h.tau;
            if (h.reflect) {
                const T s = h.scale;
#pragma unroll
                for (int r = c + 1; r < NW; r++)
                    a[r] = mul(a[r], s);
                a[c] = make<T>(h.beta, 0);
            }
            b[c] = my_tau;
#pragma unroll
            for (int r = c + 1; r < NW; r++)
                b[r] = a[r];
        }
        seg_sync<NC>();
        if (lane > c) {   // H^H = I - conj(tau) v v^H on column `lane`, v(c) = 1
            T part[4] = { a[c], make<T>(0, 0), make<T>(0, 0), make<T>(0, 0) };   // four chains, as larfg's
#pragma unroll
            for (int r = c + 1; r < NW; r++)
                part[r % 4] = add(part[r % 4], mul(conj_(b[r]), a[r]));
            T s = add(add(part[0], part[1]), add(part[2], part[3]));
            s = mul(conj_(b[c]), s);
            a[c] = sub(a[c], s);
#pragma unroll
            for (int r = c + 1; r < NW; r++)
                a[r] = sub(a[r], mul(b[r], s));
        }
    }
    seg_sync<NC>();   // every lane is done with the tile
#pragma unroll
    for (int r = 0; r < NW; r++)
        tile[lane * LDT + r] = a[r];
    seg_sync<NC>();
    if (!live)
        return;
    if (lane < m) {
#pragma unroll
        for (int q = 0; q < NC; q++)
            if (q < n)
                A[lane + (size_t)q * lda] = tile[q * LDT + lane];
    }
    if (lane < k)
        tau_all[mat * sT + lane] = my_tau;
    if (lane == 0)
        info_all[mat] = 0;
}

#endif
