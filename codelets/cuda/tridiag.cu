// The tridiagonal path of gbsv_spike on the GPU (kl, ku <= 1): the partition method without pivoting
// (the caller checks diagonal dominance, which these kernels measure), all levels in one task.
//
// Why not the general SPIKE kernels at K = 1: there a solve is ~13 dependent tasks and truncated-SPIKE
// iterations, ~2.5 ms a call at n = 1e6 against cuSPARSE gtsv2's ~1 ms with its copies (bench/NOTES.md,
// sessions 14-29). Here a call is one task: the band and b go up, a handful of kernels run, x comes
// down. The method (tridiag_layout.h: the levels): each partition of ~32 rows eliminates its subdiagonal
// downwards and its superdiagonal upwards, which leaves its first and last rows coupled only to each
// other and to the neighbouring partitions' last and first rows: a tridiagonal system of 2 rows per
// partition, solved the same way, down to a level that fits one block's shared memory (a few thousand rows),
// solved there by parallel cyclic reduction (tri_tail). Back up, each partition's interior rows follow from
// its first and last unknowns.
//
// A block loads a run of consecutive partitions into shared memory (coalesced, every row read once),
// then one thread per partition runs the sweeps on shared memory. At level 0 the back-substitution
// also computes the residual b - A x of every row from the rows it holds, so checking the answer costs
// no extra pass over the band.
//
// Precisions by LAPACK's letter: 's' float, 'd' double, 'c' cuFloatComplex, 'z' cuDoubleComplex.
#include <cuda_runtime.h>
#include <cuComplex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cuda_check.cuh"
#include "batched_scalar.cuh"
#include "../tridiag_layout.h"
#include "../tridiag_result.h"

namespace {

template <typename T> __device__ inline T zero() { return make<T>(0, 0); }
template <typename T> __device__ inline T neg(T a) { return sub(zero<T>(), a); }
__device__ inline double mag(float a) { return fabs((double)a); }
__device__ inline double mag(double a) { return fabs(a); }
__device__ inline double mag(cuFloatComplex a) { return hypot((double)a.x, (double)a.y); }
__device__ inline double mag(cuDoubleComplex a) { return hypot(a.x, a.y); }

// 1 / b for the sweeps: each step of a partition's sweep waits for the previous step's reciprocal, and
// IEEE double division is a long sequence (~0.3 us a step under ncu, session 36); a float estimate
// refined by two Newton steps (error 1e-7, then 1e-14, then below double's rounding) takes a few FMAs.
// Outside float's range (and for 0, Inf, NaN) the exact division.
__device__ inline float rcp(float b) { return __frcp_rn(b); }
__device__ inline double rcp(double b)
{
    const float f = (float)b;
    if (!(fabsf(f) >= 1e-36f && fabsf(f) <= 1e36f)) return 1.0 / b;
    double r = (double)__frcp_rn(f);
    r = fma(r, fma(-b, r, 1.0), r);
    return fma(r, fma(-b, r, 1.0), r);
}
__device__ inline cuFloatComplex rcp(cuFloatComplex b) { return div_(make_cuFloatComplex(1, 0), b); }
__device__ inline cuDoubleComplex rcp(cuDoubleComplex b) { return div_(make_cuDoubleComplex(1, 0), b); }

// one diagonal of a level: value(i) = p[i s + o], p NULL for a diagonal that is zero
template <typename T> struct Diagonal { const T *p; long s, o; };

// a level's tridiagonal matrix: the caller's band at level 0, the scratch arrays above
template <typename T> struct Level {
    Diagonal<T> a, b, c;   // sub-, main and superdiagonal: row i is a(i) x[i-1] + b(i) x[i] + c(i) x[i+1]
    long N;
    __device__ T sub_(long i) const { return a.p && i > 0 ? a.p[i * a.s + a.o] : zero<T>(); }
    __device__ T dia(long i) const { return b.p[i * b.s + b.o]; }
    __device__ T sup(long i) const { return c.p && i < N - 1 ? c.p[i * c.s + c.o] : zero<T>(); }
};

// flags (tridiag_layout.h): [0] the smallest row dominance |b| / (|a| + |c|), [1] a zero pivot or a
// non-finite entry met, [2] max |b - A x|, [3] max |b|; doubles >= 0 as their bits (ordered as integers)
enum { F_DOMINANCE, F_BAD, F_RESID, F_RHS };

__device__ inline void flag_min(unsigned long long *f, double v) { atomicMin(f, (unsigned long long)__double_as_longlong(v)); }
__device__ inline void flag_max(unsigned long long *f, double v) { atomicMax(f, (unsigned long long)__double_as_longlong(v)); }

// the block's min or max of v (every thread calls it); thread 0 gets the result
template <bool MAX> __device__ double block_reduce(double v)
{
    __shared__ double part[32];
    for (int o = 16; o > 0; o >>= 1) {
        double w = __shfl_down_sync(0xffffffffu, v, o);
        v = MAX ? fmax(v, w) : fmin(v, w);
    }
    __syncthreads();   // part may still be read by a previous call
    if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x == 0)
        for (int w = 1; w < (int)(blockDim.x + 31) / 32; w++) v = MAX ? fmax(v, part[w]) : fmin(v, part[w]);
    return v;
}

// A block's partitions k0 .. k1 - 1 of a level of N rows cut into P partitions of q or q + 1 rows (the
// first r of q + 1). Rows are loaded and stored partition by partition, a warp per partition and a lane
// per row (a partition is about a warp long): coalesced, and no division per row (a 64-bit division per
// row made the level-0 kernels instruction-bound, session 36). 32-bit indices: n < 2^31.
struct Blocking {
    int N, P, q, r, k0, k1;
    __device__ Blocking(long N_, long P_, int ppb)
        : N((int)N_), P((int)P_), q((int)(N_ / P_)), r((int)(N_ % P_)), k0((int)blockIdx.x * ppb), k1(min((int)P_, k0 + ppb)) {}
    __device__ int first(int k) const { return k * q + min(k, r); }
    __device__ int rows(int k) const { return q + (k < r); }
};
// Load the block's rows of a level (and of d, NULL: zero) into shared memory, arr[j pitch + t]; with
// `dominance`, the rows' smallest dominance and any non-finite entry. Each warp loads 4 partitions' rows
// before it stores any: the loads of a warp are then 4 memory latencies apart no more, one.
template <typename T>
__device__ inline void load_block(const Blocking &B, const Level<T> &L, const T *d, T *sa, T *sb, T *sc, T *sd, int pitch,
                                  bool dominance, double *mindom, bool *bad)
{
    const int lane = threadIdx.x & 31, warps = blockDim.x >> 5;
    for (int k = B.k0 + (int)(threadIdx.x >> 5); k < B.k1; k += 4 * warps)
        for (int j = lane; j < B.q + 1; j += 32) {   // a partition has at most 2 SS_TRI_PART - 1 rows: 1 or 2 passes
            T va[4], vb[4], vc[4], vd[4];
#pragma unroll
            for (int u = 0; u < 4; u++) {
                const int kk = k + u * warps;
                if (kk < B.k1 && j < B.rows(kk)) {
                    const int g = B.first(kk) + j;
                    va[u] = L.sub_(g); vb[u] = L.dia(g); vc[u] = L.sup(g); vd[u] = d ? d[g] : zero<T>();
                }
            }
#pragma unroll
            for (int u = 0; u < 4; u++) {
                const int kk = k + u * warps;
                if (kk < B.k1 && j < B.rows(kk)) {
                    const int at = j * pitch + kk - B.k0;
                    sa[at] = va[u]; sb[at] = vb[u]; sc[at] = vc[u]; sd[at] = vd[u];
                    if (dominance) {
                        double off = mag(va[u]) + mag(vc[u]), diag = mag(vb[u]);
                        if (!isfinite(off + diag)) *bad = true;
                        else if (off > 0) *mindom = fmin(*mindom, diag * rcp(off));
                    }
                }
            }
        }
}

// every (partition t of the block, row j of it, global row g) once: f(t, j, g)
template <typename F> __device__ inline void for_block_rows(const Blocking &B, F f)
{
    const int lane = threadIdx.x & 31, warps = blockDim.x >> 5;
    for (int k = B.k0 + (int)(threadIdx.x >> 5); k < B.k1; k += warps) {
        const int g0 = B.first(k), m = B.rows(k);
        for (int j = lane; j < m; j += 32) f(k - B.k0, j, g0 + j);
    }
}

// Forward: every partition's reduced first and last rows into the next level (rows 2k, 2k + 1), with
// their right-hand side (d NULL: zero). Shared memory: a, b, c, d, rows j of partition t at j pitch + t.
template <typename T>
__global__ void tri_forward(Level<T> L, const T *d, long P, int ppb, T *na, T *nb, T *nc, T *nd, unsigned long long *flags,
                            bool dominance)
{
    extern __shared__ double2 smem_forward[];
    const Blocking B(L.N, P, ppb);
    const int pitch = ppb + 1, span = (B.q + 1) * pitch;
    T *sa = (T *)smem_forward, *sb = sa + span, *sc = sb + span, *sd = sc + span;
    double mindom = INFINITY;
    bool bad = false;
    load_block(B, L, d, sa, sb, sc, sd, pitch, dominance, &mindom, &bad);
    __syncthreads();
    // the two sweeps of a partition in two different warps (the first threads of the first and of the
    // second half of the block), so that no warp runs both one after the other
    const int half = blockDim.x / 2, t = threadIdx.x % half;
    const int k = B.k0 + t;
    if (t < ppb && k < B.k1) {
        const int m = B.rows(k);
#define S(arr, j) arr[(j) * pitch + t]
        if (threadIdx.x < half) {   // downward: the last row, coupled to the first
            T al = S(sa, 1), be = S(sb, 1), de = S(sd, 1);
            for (int j = 2; j < m; j++) {
                if (is_zero(be)) bad = true;
                T l = mul(S(sa, j), rcp(be));
                al = neg(mul(l, al));
                be = sub(S(sb, j), mul(l, S(sc, j - 1)));
                de = sub(S(sd, j), mul(l, de));
            }
            na[2 * k + 1] = al; nb[2 * k + 1] = be; nc[2 * k + 1] = S(sc, m - 1);
            if (nd) nd[2 * k + 1] = de;
        } else {                   // upward: the first row, coupled to the last
            T bs = S(sb, 0), cs = S(sc, 0), ds = S(sd, 0);
            if (m >= 3) {
                T bu = S(sb, m - 2), ga = S(sc, m - 2), du = S(sd, m - 2);
                for (int j = m - 3; j >= 0; j--) {
                    if (is_zero(bu)) bad = true;
                    T f = mul(S(sc, j), rcp(bu));
                    T nbu = sub(S(sb, j), mul(f, S(sa, j + 1)));
                    ga = neg(mul(f, ga));
                    du = sub(S(sd, j), mul(f, du));
                    bu = nbu;
                }
                bs = bu; cs = ga; ds = du;
            }
            na[2 * k] = S(sa, 0); nb[2 * k] = bs; nc[2 * k] = cs;
            if (nd) nd[2 * k] = ds;
        }
#undef S
    }
    if (dominance) {
        double v = block_reduce<false>(mindom);
        if (threadIdx.x == 0) flag_min(&flags[F_DOMINANCE], v);
    }
    if (bad) atomicOr(&flags[F_BAD], 1ull);
}

// Back: the level's solution x from the next level's (xr: partition k's first and last unknowns at 2k,
// 2k + 1); x may be d. With `check` (level 0): max |d - A x| and max |d| into the flags, and d into
// save (unless NULL) before x overwrites it. Shared memory: a, b, c, d, then the upward sweep's
// pivot, fill and right-hand side (u, g, h), h overwritten by x.
template <typename T>
__global__ void tri_back(Level<T> L, const T *d, const T *xr, long P, int ppb, T *x, T *save, unsigned long long *flags, bool check)
{
    extern __shared__ double2 smem_back[];
    const Blocking B(L.N, P, ppb);
    const int pitch = ppb + 1, span = (B.q + 1) * pitch;
    T *sa = (T *)smem_back, *sb = sa + span, *sc = sb + span, *sd = sc + span, *su = sd + span, *sg = su + span, *sh = sg + span;
    double unused_dom = 0;
    bool unused_bad = false;
    load_block(B, L, d, sa, sb, sc, sd, pitch, false, &unused_dom, &unused_bad);
    __syncthreads();
#define S(arr, j) arr[(j) * pitch + t]
    if (threadIdx.x < ppb && B.k0 + (int)threadIdx.x < B.k1) {
        const int t = threadIdx.x;
        const int k = B.k0 + t;
        const int m = B.rows(k);
        const T xs = xr[2 * k], xe = xr[2 * k + 1];
        if (m >= 3) {   // su keeps 1 / the pivots, so that the substitution's chain has no division
            T inv = rcp(S(sb, m - 2)), ga = S(sc, m - 2), du = S(sd, m - 2);
            S(su, m - 2) = inv; S(sg, m - 2) = ga; S(sh, m - 2) = du;
            for (int j = m - 3; j >= 1; j--) {
                T f = mul(S(sc, j), inv);
                inv = rcp(sub(S(sb, j), mul(f, S(sa, j + 1))));
                ga = neg(mul(f, ga));
                du = sub(S(sd, j), mul(f, du));
                S(su, j) = inv; S(sg, j) = ga; S(sh, j) = du;
            }
            T xp = xs;
            for (int j = 1; j <= m - 2; j++) {
                xp = mul(sub(sub(S(sh, j), mul(S(sa, j), xp)), mul(S(sg, j), xe)), S(su, j));
                S(sh, j) = xp;
            }
        }
        S(sh, 0) = xs; S(sh, m - 1) = xe;
    }
    __syncthreads();
    double rmax = 0, bmax = 0;
    for_block_rows(B, [&](int t, int j, int g) {
        const int k = B.k0 + t, m = B.rows(k);
        const T xg = S(sh, j);
        if (check) {
            const T xm = j > 0 ? S(sh, j - 1) : g > 0 ? xr[2 * k - 1] : zero<T>();
            const T xn = j < m - 1 ? S(sh, j + 1) : g < B.N - 1 ? xr[2 * k + 2] : zero<T>();
            const T res = sub(sub(sub(S(sd, j), mul(S(sa, j), xm)), mul(S(sb, j), xg)), mul(S(sc, j), xn));
            double v = mag(res), w = mag(S(sd, j));
            rmax = fmax(rmax, isnan(v) ? INFINITY : v);
            bmax = fmax(bmax, isnan(w) ? INFINITY : w);
            if (save) save[g] = S(sd, j);
        }
        x[g] = xg;
    });
#undef S
    if (check) {
        double v = block_reduce<true>(rmax), w = block_reduce<true>(bmax);
        if (threadIdx.x == 0) { flag_max(&flags[F_RESID], v); flag_max(&flags[F_RHS], w); }
    }
}

// The last level, at most TAIL_THREADS rows: parallel cyclic reduction in one block's shared memory (each
// of ceil(log2 N) steps eliminates every row's couplings at distance s with its neighbours' rows, doubling
// s; all rows at once, the new values held in registers across the barrier), then x = d / b. Below a
// thousand rows a grid level (a launch and a 32-step chain per partition) costs more than this; on 3906
// rows (n = 1e6's level 2) it took 46 us against ~20 for one more grid level and a tail of 244 rows
// (bench/NOTES.md, session 36). d NULL: zero (the pivots only); x may be d. With `dominance`, the rows'
// dominance into the flags (level 0 this small).
#define TAIL_THREADS 1024
#define TAIL_ROWS_PER_THREAD 1
#define TAIL_SMEM (4 * TAIL_THREADS * TAIL_ROWS_PER_THREAD * sizeof(cuDoubleComplex))
template <typename T>
__global__ void __launch_bounds__(TAIL_THREADS) tri_tail(Level<T> L, const T *d, T *x, unsigned long long *flags, bool dominance)
{
    extern __shared__ double2 smem_tail[];
    const int N = (int)L.N;
    T *sa = (T *)smem_tail, *sb = sa + N, *sc = sb + N, *sd = sc + N;
    bool bad = false;
    double mindom = INFINITY;
    for (int i = threadIdx.x; i < N; i += blockDim.x) {
        T a = L.sub_(i), b = L.dia(i), c = L.sup(i);
        sa[i] = a; sb[i] = b; sc[i] = c; sd[i] = d ? d[i] : zero<T>();
        if (dominance) {
            double off = mag(a) + mag(c), diag = mag(b);
            if (!isfinite(off + diag)) bad = true;
            else if (off > 0) mindom = fmin(mindom, diag * rcp(off));
        }
    }
    __syncthreads();
    for (int s = 1; s < N; s *= 2) {
        T na[TAIL_ROWS_PER_THREAD], nb[TAIL_ROWS_PER_THREAD], nc[TAIL_ROWS_PER_THREAD], nd[TAIL_ROWS_PER_THREAD];
#pragma unroll
        for (int r = 0; r < TAIL_ROWS_PER_THREAD; r++) {
            const int i = threadIdx.x + r * TAIL_THREADS;
            if (i >= N) break;
            T a = zero<T>(), b = sb[i], c = zero<T>(), dd = sd[i];
            if (i >= s) {
                if (is_zero(sb[i - s])) bad = true;
                T k = mul(sa[i], rcp(sb[i - s]));
                b = sub(b, mul(k, sc[i - s])); dd = sub(dd, mul(k, sd[i - s])); a = neg(mul(k, sa[i - s]));
            }
            if (i + s < N) {
                if (is_zero(sb[i + s])) bad = true;
                T k = mul(sc[i], rcp(sb[i + s]));
                b = sub(b, mul(k, sa[i + s])); dd = sub(dd, mul(k, sd[i + s])); c = neg(mul(k, sc[i + s]));
            }
            na[r] = a; nb[r] = b; nc[r] = c; nd[r] = dd;
        }
        __syncthreads();
#pragma unroll
        for (int r = 0; r < TAIL_ROWS_PER_THREAD; r++) {
            const int i = threadIdx.x + r * TAIL_THREADS;
            if (i >= N) break;
            sa[i] = na[r]; sb[i] = nb[r]; sc[i] = nc[r]; sd[i] = nd[r];
        }
        __syncthreads();
    }
    for (int i = threadIdx.x; i < N; i += blockDim.x) {
        if (is_zero(sb[i])) bad = true;
        if (x) x[i] = mul(sd[i], rcp(sb[i]));
    }
    if (dominance) {
        double v = block_reduce<false>(mindom);
        if (threadIdx.x == 0) flag_min(&flags[F_DOMINANCE], v);
    }
    if (bad) atomicOr(&flags[F_BAD], 1ull);
}

// the rows the tail kernel takes for elements of es bytes
static long tail_rows(size_t es)
{
    long rows = (long)(TAIL_SMEM / (4 * es));
    return rows < (long)TAIL_THREADS * TAIL_ROWS_PER_THREAD ? rows : (long)TAIL_THREADS * TAIL_ROWS_PER_THREAD;
}

// r = b - A x (r NULL: not stored), max |r| and max |b| into the flags
template <typename T>
__global__ void tri_residual(Level<T> L, const T *b, const T *x, T *r, unsigned long long *flags)
{
    double rmax = 0, bmax = 0;
    for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < L.N; i += (long)gridDim.x * blockDim.x) {
        T v = sub(b[i], mul(L.dia(i), x[i]));
        if (i > 0) v = sub(v, mul(L.sub_(i), x[i - 1]));
        if (i < L.N - 1) v = sub(v, mul(L.sup(i), x[i + 1]));
        if (r) r[i] = v;
        double m = mag(v), w = mag(b[i]);
        rmax = fmax(rmax, isnan(m) ? INFINITY : m);
        bmax = fmax(bmax, isnan(w) ? INFINITY : w);
    }
    double v = block_reduce<true>(rmax), w = block_reduce<true>(bmax);
    if (threadIdx.x == 0) { flag_max(&flags[F_RESID], v); flag_max(&flags[F_RHS], w); }
}

template <typename T> __global__ void tri_add(long n, T *x, const T *dx)
{
    for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) x[i] = add(x[i], dx[i]);
}

// flags to their neutral values: dominance +inf, the rest 0
__global__ void tri_flags_init(unsigned long long *flags)
{
    flags[F_DOMINANCE] = (unsigned long long)__double_as_longlong(INFINITY);
    flags[F_BAD] = flags[F_RESID] = flags[F_RHS] = 0;
}

#define TRI_THREADS 128
#define TRI_SMEM_TARGET (32 * 1024)   // a block's shared memory: 7 blocks of the back kernel on an H100 SM, so that some load while others sweep

// partitions per block for a level: as many as keep the back kernel's 7 arrays under TRI_SMEM_TARGET (at most
// TRI_THREADS / 2: the forward kernel's two sweeps of a partition run in the two halves of the block), and its
// shared memory in bytes
static int partitions_per_block(long N, long P, size_t es, int arrays, size_t *bytes)
{
    const long q = N / P;
    int ppb = TRI_THREADS / 2;
    while (ppb > 1 && (size_t)7 * (q + 1) * (ppb + 1) * es > TRI_SMEM_TARGET) ppb /= 2;
    *bytes = (size_t)arrays * (q + 1) * (ppb + 1) * es;
    return ppb;
}

template <typename T> struct Solver {
    Level<T> level0;      // the caller's band
    char *work;           // the task's scratch (tridiag_layout.h)
    long n;
    unsigned long long *flags;
    cudaStream_t st;

    Level<T> level(int l) const
    {
        if (l == 0) return level0;
        T *base = (T *)(work + ss_tri_off_level(n, l, sizeof(T)));
        const long N = ss_tri_level_rows(n, l);
        const size_t stride = ss_tri_align((size_t)N * sizeof(T)) / sizeof(T);
        Level<T> L = { { base, 1, 0 }, { base + stride, 1, 0 }, { base + 2 * stride, 1, 0 }, N };
        return L;
    }
    T *rhs(int l) const   // level l >= 1's right-hand side (then solution)
    {
        const long N = ss_tri_level_rows(n, l);
        return (T *)(work + ss_tri_off_level(n, l, sizeof(T))) + 3 * (ss_tri_align((size_t)N * sizeof(T)) / sizeof(T));
    }
    T *save() const { return (T *)(work + ss_tri_off_save()); }
    T *resid() const { return (T *)(work + ss_tri_off_resid(n, sizeof(T))); }

    // x = A^-1 d at level 0 (d NULL: the pivots only). check: save d and the residual's norms (x = d then).
    void solve(const T *d, T *x, bool dominance, bool check) const
    {
        if (n <= SS_TRI_DIRECT) {   // level 0 alone, in the tail kernel; its residual apart
            if (check) SS_CUDA_CHECK(cudaMemcpyAsync(save(), d, (size_t)n * sizeof(T), cudaMemcpyDeviceToDevice, st));
            ss_cuda_require_smem(tri_tail<T>, 4 * n * sizeof(T), "tri_tail: shared memory beyond the device's limit");
            tri_tail<T><<<1, TAIL_THREADS, 4 * n * sizeof(T), st>>>(level0, d, x, flags, dominance);
            SS_CHECK_LAUNCH("tri_tail");
            if (check && x) {
                tri_residual<T><<<1, TRI_THREADS, 0, st>>>(level0, save(), x, (T *)NULL, flags);
                SS_CHECK_LAUNCH("tri_residual");
            }
            return;
        }
        // partitioned levels 0 .. levels - 1 on the grid, then level `levels` in the tail kernel
        int levels = 1;
        while (ss_tri_level_rows(n, levels) > tail_rows(sizeof(T)) && levels < ss_tri_levels(n)) levels++;
        for (int l = 0; l < levels; l++) {
            const Level<T> L = level(l), next = level(l + 1);
            const long P = L.N / SS_TRI_PART;
            size_t bytes;
            const int ppb = partitions_per_block(L.N, P, sizeof(T), 4, &bytes);
            tri_forward<T><<<(unsigned)((P + ppb - 1) / ppb), TRI_THREADS, bytes, st>>>(
                L, l == 0 ? d : d ? rhs(l) : (const T *)NULL, P, ppb, (T *)next.a.p, (T *)next.b.p, (T *)next.c.p, d ? rhs(l + 1) : (T *)NULL, flags,
                dominance && l == 0);
            SS_CHECK_LAUNCH("tri_forward");
        }
        const Level<T> last = level(levels);
        // The tail's rows in shared memory: up to TAIL_SMEM (64 KB in complex double), past the 48 KB a launch
        // gets without asking. Asked before each launch, on the calling worker's device: asking once for the
        // whole process (before session 50) left a second GPU at 48 KB. The grid levels' kernels stay under
        // TRI_SMEM_TARGET (partitions_per_block) plus 256 static bytes and need not ask.
        ss_cuda_require_smem(tri_tail<T>, 4 * last.N * sizeof(T), "tri_tail: shared memory beyond the device's limit");
        tri_tail<T><<<1, TAIL_THREADS, 4 * last.N * sizeof(T), st>>>(last, d ? rhs(levels) : (T *)NULL, d ? rhs(levels) : (T *)NULL,
                                                                   flags, false);
        SS_CHECK_LAUNCH("tri_tail");
        if (!d) return;
        for (int l = levels - 1; l >= 0; l--) {
            const Level<T> L = level(l);
            const long P = L.N / SS_TRI_PART;
            size_t bytes;
            const int ppb = partitions_per_block(L.N, P, sizeof(T), 7, &bytes);
            tri_back<T><<<(unsigned)((P + ppb - 1) / ppb), TRI_THREADS, bytes, st>>>(
                L, l == 0 ? d : rhs(l), rhs(l + 1), P, ppb, l == 0 ? x : rhs(l), l == 0 && check ? save() : (T *)NULL, flags,
                l == 0 && check);
            SS_CHECK_LAUNCH("tri_back");
        }
    }

    void flags_init() const { tri_flags_init<<<1, 1, 0, st>>>(flags); SS_CHECK_LAUNCH("tri_flags_init"); }
    void flags_read(double out[SS_TRI_FLAGS]) const
    {
        unsigned long long h[SS_TRI_FLAGS];
        SS_CUDA_CHECK(cudaMemcpyAsync(h, flags, sizeof h, cudaMemcpyDeviceToHost, st));
        SS_CUDA_CHECK(cudaStreamSynchronize(st));
        for (int i = 0; i < SS_TRI_FLAGS; i++) out[i] = i == F_BAD ? (double)h[i] : host_double(h[i]);
    }
    static double host_double(unsigned long long b) { double v; memcpy(&v, &b, sizeof v); return v; }
};

template <typename T>
void tri_solve_columns(const struct ss_tridiag_args *a, const void *band, int ldband, int nrhs, void *B, int ldb, void *work, cudaStream_t st,
               struct ss_tridiag_result *res)
{
    const T *dg = (const T *)band + a->diag_row;
    Solver<T> s;
    s.level0.a = { a->kl > 0 ? dg : (const T *)NULL, ldband, 1 - (long)ldband };
    s.level0.b = { dg, ldband, 0 };
    s.level0.c = { a->ku > 0 ? dg : (const T *)NULL, ldband, (long)ldband - 1 };
    s.level0.N = a->n;
    s.work = (char *)work;
    s.n = a->n;
    s.flags = (unsigned long long *)work;
    s.st = st;
    *res = (struct ss_tridiag_result){ 1, 0, 0, 0 };
    double f[SS_TRI_FLAGS];
    if (nrhs == 0) {   // the pivots and the dominance only
        s.flags_init();
        s.solve(NULL, NULL, true, false);
        s.flags_read(f);
        res->dominance = f[F_DOMINANCE];
        res->usable = f[F_BAD] == 0 && f[F_DOMINANCE] >= a->min_dominance;
        return;
    }
    for (int col = 0; col < nrhs; col++) {
        T *x = (T *)B + (size_t)col * ldb;
        s.flags_init();
        s.solve(x, x, col == 0, true);   // x = A^-1 b in place; b kept in save
        s.flags_read(f);
        if (col == 0) {
            res->dominance = f[F_DOMINANCE];
            if (f[F_BAD] != 0 || !(f[F_DOMINANCE] >= a->min_dominance)) {
                SS_CUDA_CHECK(cudaMemcpyAsync(x, s.save(), (size_t)a->n * sizeof(T), cudaMemcpyDeviceToDevice, st));
                res->usable = 0;
                return;
            }
        }
        const double goal = a->tol * (f[F_RHS] > 0 ? f[F_RHS] : 1);
        double rnorm = f[F_RESID];
        int steps = 0;
        // refinement on the true residual b - A x, while it shrinks at least twofold a step
        while (!(rnorm <= goal) && steps < a->maxit && isfinite(rnorm)) {
            s.flags_init();
            tri_residual<T><<<264, 256, 0, st>>>(s.level0, s.save(), x, s.resid(), s.flags);
            SS_CHECK_LAUNCH("tri_residual");
            s.solve(s.resid(), s.resid(), false, false);
            tri_add<T><<<264, 256, 0, st>>>(a->n, x, s.resid());
            SS_CHECK_LAUNCH("tri_add");
            s.flags_init();
            tri_residual<T><<<264, 256, 0, st>>>(s.level0, s.save(), x, (T *)NULL, s.flags);
            SS_CHECK_LAUNCH("tri_residual");
            s.flags_read(f);
            steps++;
            if (!(f[F_RESID] <= 0.5 * rnorm)) { rnorm = f[F_RESID]; break; }
            rnorm = f[F_RESID];
        }
        res->steps = steps > res->steps ? steps : res->steps;
        if (!(isfinite(rnorm) && rnorm <= goal)) {   // not solved (an Inf in b too): b back for the caller's fallback
            SS_CUDA_CHECK(cudaMemcpyAsync(x, s.save(), (size_t)a->n * sizeof(T), cudaMemcpyDeviceToDevice, st));
            return;
        }
        res->solved = col + 1;
    }
}

// the task is synchronous (codelets/codelet_ztridiag.c): nothing of it may still run on the stream when it returns
template <typename T>
void tri_solve(const struct ss_tridiag_args *a, const void *band, int ldband, int nrhs, void *B, int ldb, void *work, cudaStream_t st,
               struct ss_tridiag_result *res)
{
    tri_solve_columns<T>(a, band, ldband, nrhs, B, ldb, work, st, res);
    SS_CUDA_CHECK(cudaStreamSynchronize(st));
}

// ---- the GPU's chunk of a call of tridiagonal chunks (codelets/codelet_ztridiag.c: ztri_gpu_chunk_cuda) ----
// The chunk is the matrix's last rows, first .. n - 1 (g of them). The GPU solves its own block A_g (those rows and
// columns) for z = A_g^-1 e_0 and y_j = A_g^-1 b_j, so that the chunk's solution is x = y - z s, with
// s = a x_{first-1} (a: the chunk's first row's subdiagonal, x_{first-1}: the previous chunk's last unknown). The
// chunk's first and last unknowns then satisfy two equations (the C side writes them as the chunk's one
// sub-partition of the reduced system); once the reduced system is solved, x follows in one pass.
// z and the y_j come from one solve of the block-diagonal system diag(A_g, A_g, ...) (1 + nrhs copies of the band, the
// couplings between copies zero): the solver's levels are a chain of latency-bound kernels, run once instead of once a
// column (bench/NOTES.md, session 58).
// The work buffer: the solver's scratch (tridiag_layout.h), the band's copies, d = [e_0; b_1; ...] (B's rows, then x),
// [z; y_1; ...], the ends (z_0, z_{g-1}, then y_j's first and last entries, then the solver's flags: one copy back) and
// two flags per column (max |r|, max |b|).
struct ChunkLayout {
    size_t band, d, x, ends, cflags, total, band_elems, copy_elems;
    ChunkLayout(size_t es, long g, int nrhs, size_t ld, int diag_row)
    {
        const size_t cols = 1 + (size_t)nrhs;
        band_elems = (size_t)(g - 1) * ld + (size_t)diag_row + 1;   // through the diagonal of the chunk's last column
        copy_elems = (size_t)g * ld;
        band = ss_tri_gpu_bytes((long)cols * g, es);
        d = band + ss_tri_align(cols * copy_elems * es);
        x = d + ss_tri_align(cols * (size_t)g * es);
        ends = x + ss_tri_align(cols * (size_t)g * es);
        cflags = ends + ss_tri_align((size_t)(2 + 2 * nrhs) * es + SS_TRI_FLAGS * 8);
        total = cflags + ss_tri_align((size_t)(2 * nrhs + 1) * 8);
    }
};

template <typename T> __global__ void tri_unit(long n, T *z)
{
    for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
        z[i] = i == 0 ? make<T>(1, 0) : zero<T>();
}

template <typename T> __global__ void tri_chunk_ends(long g, int nrhs, const T *z, const T *y, const unsigned long long *flags, T *ends)
{
    for (int j = threadIdx.x; j < nrhs + 1; j += blockDim.x) {
        const T *v = j == 0 ? z : y + (size_t)(j - 1) * g;
        ends[2 * j] = v[0];
        ends[2 * j + 1] = v[g - 1];
    }
    unsigned long long *f = (unsigned long long *)(ends + 2 + 2 * nrhs);   // 8-byte aligned: T is 4, 8 or 16 bytes, 2 + 2 nrhs even
    if (threadIdx.x < SS_TRI_FLAGS) f[threadIdx.x] = flags[threadIdx.x];
}

// A second stream and an event of the calling thread on its device (a CUDA worker's thread), made once: B's rows go up
// on it, behind the band on the copy engine, while the worker's stream copies the band on the GPU.
struct AuxStream { cudaStream_t st; cudaEvent_t ev; };
static AuxStream aux_stream()
{
    static thread_local AuxStream aux[64];
    int dev;
    SS_CUDA_CHECK(cudaGetDevice(&dev));
    AuxStream &a = aux[dev % 64];
    if (!a.st) {
        SS_CUDA_CHECK(cudaStreamCreateWithFlags(&a.st, cudaStreamNonBlocking));
        SS_CUDA_CHECK(cudaEventCreateWithFlags(&a.ev, cudaEventDisableTiming));
    }
    return a;
}

// x = y - z s (s = a xprev) into b's place, each row's residual b - A x (row 0's with a xprev) on the way: max |r| and
// max |b| into f[0] and f[1]. A thread reads its neighbours' y and z, and writes only its own row of b.
template <typename T>
__global__ void tri_chunk_finish(Level<T> L, T *b, const T *y, const T *z, T a, T xprev, unsigned long long *f)
{
    const T s = mul(a, xprev);
    double rmax = 0, bmax = 0;
    for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < L.N; i += (long)gridDim.x * blockDim.x) {
        const T xi = sub(y[i], mul(z[i], s)), bi = b[i];
        T v = sub(bi, mul(L.dia(i), xi));
        v = sub(v, i > 0 ? mul(L.sub_(i), sub(y[i - 1], mul(z[i - 1], s))) : mul(a, xprev));
        if (i < L.N - 1) v = sub(v, mul(L.sup(i), sub(y[i + 1], mul(z[i + 1], s))));
        double m = mag(v), w = mag(bi);
        rmax = fmax(rmax, isnan(m) ? INFINITY : m);
        bmax = fmax(bmax, isnan(w) ? INFINITY : w);
        b[i] = xi;
    }
    double v = block_reduce<true>(rmax), w = block_reduce<true>(bmax);
    if (threadIdx.x == 0) { flag_max(&f[0], v); flag_max(&f[1], w); }
}

// the solver over N rows of the band's copies in the work buffer (the chunk's block: N = its rows)
template <typename T> Solver<T> chunk_solver(const struct ss_tri_chunk *a, char *work, const ChunkLayout &lay, long N, cudaStream_t st)
{
    const T *dg = (const T *)(work + lay.band) + a->diag_row;
    const long ld = (long)a->ldband;
    Solver<T> s;
    s.level0.a = { a->kl > 0 ? dg : (const T *)NULL, ld, 1 - ld };
    s.level0.b = { dg, ld, 0 };
    s.level0.c = { a->ku > 0 ? dg : (const T *)NULL, ld, ld - 1 };
    s.level0.N = N;
    s.work = work;
    s.n = N;
    s.flags = (unsigned long long *)work;
    s.st = st;
    return s;
}

template <typename T> void chunk_reduce_start(const struct ss_tri_chunk *a, void *work, cudaStream_t st)
{
    const long g = a->rows;
    const int nrhs = a->nrhs, cols = 1 + nrhs;
    const ChunkLayout lay(sizeof(T), g, nrhs, a->ldband, a->diag_row);
    char *w = (char *)work;
    T *band = (T *)(w + lay.band), *d = (T *)(w + lay.d), *x = (T *)(w + lay.x);
    SS_CUDA_CHECK(cudaMemcpyAsync(band, (const T *)a->band + (size_t)a->first * a->ldband, lay.band_elems * sizeof(T),
                                  cudaMemcpyHostToDevice, st));
    const AuxStream aux = aux_stream();
    if (nrhs > 0) {   // behind the band on the copy engine, beside the band's copies
        SS_CUDA_CHECK(cudaMemcpy2DAsync(d + g, (size_t)g * sizeof(T), (const T *)a->B + a->first, a->ldb * sizeof(T), (size_t)g * sizeof(T),
                                        (size_t)nrhs, cudaMemcpyHostToDevice, aux.st));
        SS_CUDA_CHECK(cudaEventRecord(aux.ev, aux.st));
    }
    for (int k = 1; k < cols; k++)
        SS_CUDA_CHECK(cudaMemcpyAsync(band + k * lay.copy_elems, band, lay.band_elems * sizeof(T), cudaMemcpyDeviceToDevice, st));
    for (int k = 1; k < cols; k++) {   // no coupling between copies: the subdiagonal below one, the superdiagonal above the next
        if (a->kl > 0)
            SS_CUDA_CHECK(cudaMemsetAsync(band + k * lay.copy_elems - a->ldband + a->diag_row + 1, 0, sizeof(T), st));
        if (a->ku > 0)
            SS_CUDA_CHECK(cudaMemsetAsync(band + k * lay.copy_elems + a->diag_row - 1, 0, sizeof(T), st));
    }
    const Solver<T> s = chunk_solver<T>(a, w, lay, cols * g, st);
    s.flags_init();
    tri_unit<T><<<264, 256, 0, st>>>(g, d);
    SS_CHECK_LAUNCH("tri_unit");
    if (nrhs > 0)
        SS_CUDA_CHECK(cudaStreamWaitEvent(st, aux.ev, 0));
    s.solve(d, x, true, false);   // the pivots' and the rows' check with it
    tri_chunk_ends<T><<<1, 32, 0, st>>>(g, nrhs, x, x + g, s.flags, (T *)(w + lay.ends));
    SS_CHECK_LAUNCH("tri_chunk_ends");
}

template <typename T> void chunk_reduce_end(const struct ss_tri_chunk *a, void *work, cudaStream_t st, void *ends, struct ss_tri_gpu_flags *out)
{
    const ChunkLayout lay(sizeof(T), a->rows, a->nrhs, a->ldband, a->diag_row);
    const size_t bytes = (size_t)(2 + 2 * a->nrhs) * sizeof(T);
    unsigned long long f[SS_TRI_FLAGS];
    char *h = (char *)malloc(bytes + sizeof f);   // the ends, then the flags: one copy
    if (!h) ss_cuda_fail("tri_chunk: out of host memory", 0, __FILE__, __LINE__);
    SS_CUDA_CHECK(cudaMemcpyAsync(h, (char *)work + lay.ends, bytes + sizeof f, cudaMemcpyDeviceToHost, st));
    SS_CUDA_CHECK(cudaStreamSynchronize(st));
    memcpy(ends, h, bytes);
    memcpy(f, h + bytes, sizeof f);
    free(h);
    out->dominance = Solver<T>::host_double(f[F_DOMINANCE]);
    out->bad = f[F_BAD] != 0;
}

// a real value into an element of the precision (host side)
static void put_real(float *p, double v) { *p = (float)v; }
static void put_real(double *p, double v) { *p = v; }
static void put_real(cuFloatComplex *p, double v) { *p = make_cuFloatComplex((float)v, 0); }
static void put_real(cuDoubleComplex *p, double v) { *p = make_cuDoubleComplex(v, 0); }

template <typename T> void chunk_back(const struct ss_tri_chunk *a, void *work, cudaStream_t st, const void *sub_first, const void *xprev, void *stat)
{
    const long g = a->rows;
    const int nrhs = a->nrhs;
    const ChunkLayout lay(sizeof(T), g, nrhs, a->ldband, a->diag_row);
    char *w = (char *)work;
    T *z = (T *)(w + lay.x), *y = z + g, *b = (T *)(w + lay.d) + g;
    unsigned long long *f = (unsigned long long *)(w + lay.cflags);
    const Solver<T> s = chunk_solver<T>(a, w, lay, g, st);
    SS_CUDA_CHECK(cudaMemsetAsync(f, 0, (size_t)2 * nrhs * sizeof *f, st));
    for (int j = 0; j < nrhs; j++) {
        tri_chunk_finish<T><<<264, 256, 0, st>>>(s.level0, b + (size_t)j * g, y + (size_t)j * g, z, *(const T *)sub_first,
                                                 ((const T *)xprev)[j], f + 2 * j);
        SS_CHECK_LAUNCH("tri_chunk_finish");
    }
    SS_CUDA_CHECK(cudaMemcpy2DAsync((T *)a->B + a->first, a->ldb * sizeof(T), b, (size_t)g * sizeof(T), (size_t)g * sizeof(T),
                                    (size_t)nrhs, cudaMemcpyDeviceToHost, st));
    unsigned long long *h = (unsigned long long *)malloc((size_t)2 * nrhs * sizeof *h);
    if (!h) ss_cuda_fail("tri_chunk: out of host memory", 0, __FILE__, __LINE__);
    SS_CUDA_CHECK(cudaMemcpyAsync(h, f, (size_t)2 * nrhs * sizeof *h, cudaMemcpyDeviceToHost, st));
    SS_CUDA_CHECK(cudaStreamSynchronize(st));
    for (int j = 0; j < 2 * nrhs; j++) put_real((T *)stat + j, Solver<T>::host_double(h[j]));
    free(h);
}

} // namespace

extern "C" size_t ss_cuda_tridiag_work(size_t es, long n) { return ss_tri_gpu_bytes(n, es); }

extern "C" void ss_cuda_tridiag_solve(char p, const struct ss_tridiag_args *a, const void *band, int ldband, int nrhs, void *B, int ldb,
                                      void *work, cudaStream_t st, struct ss_tridiag_result *res)
{
    switch (p) {
    case 's': tri_solve<float>(a, band, ldband, nrhs, B, ldb, work, st, res); break;
    case 'd': tri_solve<double>(a, band, ldband, nrhs, B, ldb, work, st, res); break;
    case 'c': tri_solve<cuFloatComplex>(a, band, ldband, nrhs, B, ldb, work, st, res); break;
    default: tri_solve<cuDoubleComplex>(a, band, ldband, nrhs, B, ldb, work, st, res); break;
    }
}

extern "C" size_t ss_cuda_tri_chunk_work(size_t es, const struct ss_tri_chunk *a)
{
    return ChunkLayout(es, a->rows, a->nrhs, a->ldband, a->diag_row).total;
}

extern "C" void ss_cuda_tri_chunk_reduce_start(char p, const struct ss_tri_chunk *a, void *work, cudaStream_t st)
{
    switch (p) {
    case 's': chunk_reduce_start<float>(a, work, st); break;
    case 'd': chunk_reduce_start<double>(a, work, st); break;
    case 'c': chunk_reduce_start<cuFloatComplex>(a, work, st); break;
    default: chunk_reduce_start<cuDoubleComplex>(a, work, st); break;
    }
}

extern "C" void ss_cuda_tri_chunk_reduce_end(char p, const struct ss_tri_chunk *a, void *work, cudaStream_t st, void *ends,
                                             struct ss_tri_gpu_flags *out)
{
    switch (p) {
    case 's': chunk_reduce_end<float>(a, work, st, ends, out); break;
    case 'd': chunk_reduce_end<double>(a, work, st, ends, out); break;
    case 'c': chunk_reduce_end<cuFloatComplex>(a, work, st, ends, out); break;
    default: chunk_reduce_end<cuDoubleComplex>(a, work, st, ends, out); break;
    }
}

extern "C" void ss_cuda_tri_chunk_back(char p, const struct ss_tri_chunk *a, void *work, cudaStream_t st, const void *sub_first, const void *xprev,
                                       void *stat)
{
    switch (p) {
    case 's': chunk_back<float>(a, work, st, sub_first, xprev, stat); break;
    case 'd': chunk_back<double>(a, work, st, sub_first, xprev, stat); break;
    case 'c': chunk_back<cuFloatComplex>(a, work, st, sub_first, xprev, stat); break;
    default: chunk_back<cuDoubleComplex>(a, work, st, sub_first, xprev, stat); break;
    }
}
