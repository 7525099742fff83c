// The SPIKE banded solver's GPU kernels (codelets/codelet_zspike.c calls them through the
// plain C entry points at the end). A task works on a chunk of partitions (spike_layout.h) and
// runs ONE THREAD BLOCK PER PARTITION (per interface for the reduced systems), as the seed's
// SPIKE::GPU does: a partition's band LU and band solves are sequences of dependent steps
// (LAPACK's gbtf2 and gbtrs, step by step, each step's independent updates spread over the
// block's threads, the same layout, pivots and info as LAPACK, so that CPU and GPU tasks can
// share factors), and only many partitions at once fill the GPU. Elementwise work and
// reductions are grid-wide.
//
// Precisions are named by LAPACK's letter: 's' float, 'd' double, 'c' cuFloatComplex,
// 'z' cuDoubleComplex; working precision TA, the partition factors' TF (mixed: s for d, c for z).
#include <cuda_runtime.h>
#include "cuda_check.cuh"
#include <stdlib.h>
#include <cuComplex.h>
#include "batched_scalar.cuh"

// bytes rounded up so that consecutive pieces of one scratch buffer stay aligned (as ss_align)
__host__ __device__ inline size_t ss_align_dev(size_t bytes) { return (bytes + 255) & ~(size_t)255; }

// ---- arithmetic on the four types: add, sub, mul, div_, conj_ from the batched kernels' header
// |x| (norms); LAPACK's |re| + |im| (i?amax, the pivot search) is the header's abs1
__device__ inline double absv(float a) { return fabsf(a); }
__device__ inline double absv(double a) { return fabs(a); }
__device__ inline double absv(cuFloatComplex a) { return cuCabsf(a); }
__device__ inline double absv(cuDoubleComplex a) { return cuCabs(a); }
// conversions between the working precision and the factor's
template <typename T> __device__ inline T from_real(double x);
template <> __device__ inline float from_real<float>(double x) { return (float)x; }
template <> __device__ inline double from_real<double>(double x) { return x; }
template <> __device__ inline cuFloatComplex from_real<cuFloatComplex>(double x) { return make_cuFloatComplex((float)x, 0); }
template <> __device__ inline cuDoubleComplex from_real<cuDoubleComplex>(double x) { return make_cuDoubleComplex(x, 0); }
template <typename TO> __device__ inline TO cvt(float a) { return (TO)a; }
template <typename TO> __device__ inline TO cvt(double a) { return (TO)a; }
template <typename TO> __device__ inline TO cvt(cuFloatComplex a);
template <typename TO> __device__ inline TO cvt(cuDoubleComplex a);
template <> __device__ inline cuFloatComplex cvt<cuFloatComplex>(cuFloatComplex a) { return a; }
template <> __device__ inline cuDoubleComplex cvt<cuDoubleComplex>(cuFloatComplex a) { return cuComplexFloatToDouble(a); }
template <> __device__ inline cuFloatComplex cvt<cuFloatComplex>(cuDoubleComplex a) { return cuComplexDoubleToFloat(a); }
template <> __device__ inline cuDoubleComplex cvt<cuDoubleComplex>(cuDoubleComplex a) { return a; }

#include "../spike_layout.h"

// every kernel below runs blocks of this many threads (tips_prep_block's shared array is this long)
#define SPIKE_THREADS 256
#define SPIKE_FACTOR_MAX_THREADS 1024   // the factor kernel's blocks: see factor_threads

// ---- block-level pieces (all threads of the block call them; they end synchronised) -----------

// F (ldf = 2 kl + ku + 1, m columns) = the band's entries with both indices in [0, m), converted;
// zero elsewhere, so gbtf2's fill-in rows start zero (LAPACK's gbtf2 zeroes them itself).
// flip: F holds J T J instead (J reverses the order of rows and columns; T the leading m x m
// block), whose bandwidths are swapped: ldf = 2 ku + kl + 1; its LU is T's UL (see the factor kernel).
template <typename TA, typename TF>
__device__ void band_to_lu_block(int m, int kl, int ku, const TA *band, size_t ldb, TF *F, int ldf, bool flip = false)
{
    const int fl = flip ? ku : kl, fu = flip ? kl : ku;   // F's bandwidths
    size_t total = (size_t)ldf * m;
    for (size_t e = threadIdx.x; e < total; e += blockDim.x) {
        int row = (int)(e % ldf), c = (int)(e / ldf);
        int r = row - fl - fu + c;   // the row of F(row, c)
        bool in = row >= fl && r >= 0 && r < m;
        int tr = flip ? m - 1 - r : r, tc = flip ? m - 1 - c : c;   // T's entry
        F[e] = in ? cvt<TF>(band[(size_t)(ku + tr - tc) + (size_t)tc * ldb]) : from_real<TF>(0);
    }
    __syncthreads();
}

// x[dst(e)] -= prod(e) for e = 0 .. count - 1 (distinct dst, and no x[dst] among what prod reads),
// spread over the block. Each thread issues the loads of SS_UPDATE_BATCH entries before any of their
// stores: the compiler cannot move a load above a store to the same array, so a plain loop waits one
// memory latency per entry, and these steps are bound by that latency (bench/NOTES.md, session 16).
#define SS_UPDATE_BATCH 4
template <typename T, typename F>
__device__ inline void update_batched(int count, F entry, T *x)
{
    for (int e0 = threadIdx.x; e0 < count; e0 += SS_UPDATE_BATCH * blockDim.x) {
        int dst[SS_UPDATE_BATCH];
        T old[SS_UPDATE_BATCH], prod[SS_UPDATE_BATCH];
#pragma unroll
        for (int u = 0; u < SS_UPDATE_BATCH; u++) {
            int e = e0 + u * blockDim.x;
            if (e < count) { entry(e, dst[u], prod[u]); old[u] = x[dst[u]]; }
        }
#pragma unroll
        for (int u = 0; u < SS_UPDATE_BATCH; u++)
            if (e0 + u * (int)blockDim.x < count) x[dst[u]] = sub(old[u], prod[u]);
    }
}

// ---- the band LU of the narrowest bands (kl + ku <= 2: K = 1, and K = 2 one-sided) by one thread ----
// A band step there is a few flops: a block's barriers (gbtf2_block) cost several times the step, and a
// thread stepping on global memory (session 22's gbtf2 by one thread) waits a memory round trip per
// step. So the columns a step touches stay in registers (the bandwidths are template arguments, so the
// window's arrays are registers), each column is read and written once, and the next NARROW_PF columns
// are loaded together ahead of their steps. H100, K = 1, 2048 partitions of 488 rows (bench/spike_kernels,
// bench/NOTES.md session 29): the factor kernel 0.35 ms against 0.80 ms with gbtf2_block.
// The same one-thread form of the solves (gbtrs) was slower than the warp kernels below at these
// partition lengths: a thread per partition reads its own rows, 32 sectors per load of a warp.
#define NARROW_PF 8

// LAPACK's gbtf2 on ab (ldab >= 2 KL + KU + 1, m columns, m >= 1) by the calling thread: the same
// pivots (the first entry of largest |re| + |im|), factors and info as gbtf2_block. Column j + c is
// w[c] while steps j - KV .. j touch it; no entry beyond column m - 1 is read or written (the next
// partition's factors follow there).
template <typename T, int KL, int KU>
__device__ int gbtf2_narrow(int m, T *ab, int ldab, int *ipiv)
{
    constexpr int KV = KL + KU, LD = 2 * KL + KU + 1, W = KV + 1;
    T w[W][LD];
    auto load = [&](int col, T(&dst)[LD]) {
#pragma unroll
        for (int r = 0; r < LD; r++)
            dst[r] = col < m ? ab[r + (size_t)col * ldab] : from_real<T>(0);
    };
#pragma unroll
    for (int c = 0; c < W; c++)
        load(c, w[c]);
    int ju = 0, info = 0;
    for (int j0 = 0; j0 < m; j0 += NARROW_PF) {
        T next[NARROW_PF][LD];   // columns j0 + W .. : loaded before the steps that wait on the window
#pragma unroll
        for (int u = 0; u < NARROW_PF; u++)
            load(j0 + W + u, next[u]);
#pragma unroll
        for (int u = 0; u < NARROW_PF; u++) {
            const int j = j0 + u;
            if (j >= m) break;
            const int km = min(KL, m - 1 - j);
            int jp = 0;
            double best = abs1(w[0][KV]);
#pragma unroll
            for (int i = 1; i <= KL; i++)
                if (i <= km && abs1(w[0][KV + i]) > best) { best = abs1(w[0][KV + i]); jp = i; }
            ipiv[j] = jp + j + 1;
            T pivot = w[0][KV];
#pragma unroll
            for (int i = 1; i <= KL; i++)
                if (jp == i) pivot = w[0][KV + i];
            if (is_zero(pivot)) {
                if (info == 0) info = j + 1;
            } else {
                ju = max(ju, min(j + KU + jp, m - 1));
                const int cmax = ju - j;   // <= KV
#pragma unroll
                for (int c = 0; c <= KV; c++)   // swap rows j and j + jp over columns j .. ju
#pragma unroll
                    for (int p = 1; p <= KL; p++)
                        if (c <= cmax && jp == p) { const T t = w[c][KV + p - c]; w[c][KV + p - c] = w[c][KV - c]; w[c][KV - c] = t; }
                if (km > 0) {
#pragma unroll
                    for (int i = 1; i <= KL; i++)
                        if (i <= km) w[0][KV + i] = div_(w[0][KV + i], w[0][KV]);
#pragma unroll
                    for (int c = 1; c <= KV; c++)
                        if (c <= cmax) {
                            const T u = w[c][KV - c];
#pragma unroll
                            for (int i = 1; i <= KL; i++)
                                if (i <= km) w[c][KV - c + i] = sub(w[c][KV - c + i], mul(w[0][KV + i], u));
                        }
                }
            }
#pragma unroll
            for (int r = 0; r < LD; r++)   // column j is final
                ab[r + (size_t)j * ldab] = w[0][r];
#pragma unroll
            for (int c = 0; c + 1 < W; c++)
#pragma unroll
                for (int r = 0; r < LD; r++)
                    w[c][r] = w[c + 1][r];
#pragma unroll
            for (int r = 0; r < LD; r++)
                w[W - 1][r] = next[u][r];
        }
    }
    return info;
}

// gbtf2_narrow for the bandwidths at run time (kl + ku <= 2)
template <typename T>
__device__ int gbtf2_narrow_any(int m, int kl, int ku, T *ab, int ldab, int *ipiv)
{
    switch (kl * 3 + ku) {
    case 0: return gbtf2_narrow<T, 0, 0>(m, ab, ldab, ipiv);
    case 1: return gbtf2_narrow<T, 0, 1>(m, ab, ldab, ipiv);
    case 2: return gbtf2_narrow<T, 0, 2>(m, ab, ldab, ipiv);
    case 3: return gbtf2_narrow<T, 1, 0>(m, ab, ldab, ipiv);
    case 4: return gbtf2_narrow<T, 1, 1>(m, ab, ldab, ipiv);
    default: return gbtf2_narrow<T, 2, 0>(m, ab, ldab, ipiv);
    }
}

// i?amax by the block's first warp (each of its lanes calls it): the index of the first of col[0 .. km]
// of largest |re| + |im|, in lane 0 (ties to the smaller index, as a serial scan)
template <typename T>
__device__ inline int warp_iamax(const T *col, int km)
{
    int jp = -1;
    double best = 0;
    for (int i = threadIdx.x; i <= km; i += 32) {
        const double v = abs1(col[i]);
        if (jp < 0 || v > best) { best = v; jp = i; }
    }
    for (int o = 16; o > 0; o /= 2) {
        const double bv = __shfl_down_sync(0xffffffffu, best, o);
        const int bj = __shfl_down_sync(0xffffffffu, jp, o);
        if (bj >= 0 && (jp < 0 || bv > best || (bv == best && bj < jp))) { best = bv; jp = bj; }
    }
    return jp;
}

// LAPACK's gbtf2 (unblocked band LU with partial pivoting): 0-based transcription of dgbtf2 (kv =
// kl + ku; column j's diagonal at ab[kv + j ldab]); ipiv 1-based; returns the first zero pivot
// (1-based) or 0, the same in every thread.
template <typename T>
__device__ int gbtf2_block(int m, int kl, int ku, T *ab, int ldab, int *ipiv)
{
    const int kv = ku + kl, n = m;
    __shared__ int s_jp, s_ju, s_ok, s_info;
    if (threadIdx.x == 0) { s_info = 0; s_ju = 0; }
    __syncthreads();
    for (int j = 0; j < n; j++) {
        int km = min(kl, m - 1 - j);
        if (threadIdx.x < 32) {   // the pivot search by the first warp
            const int jp = warp_iamax(ab + kv + (size_t)j * ldab, km);
            if (threadIdx.x == 0) {
                ipiv[j] = jp + j + 1;
                s_jp = jp;
                s_ok = !is_zero(ab[kv + jp + (size_t)j * ldab]);
                if (s_ok) s_ju = max(s_ju, min(j + ku + jp, n - 1));
                else if (s_info == 0) s_info = j + 1;
            }
        }
        __syncthreads();
        const int jp = s_jp, ju = s_ju;
        if (s_ok) {   // the same in every thread: the barriers inside are reached by all
            if (jp != 0)   // swap rows j and j + jp over columns j .. ju (stride ldab - 1)
                for (int c = threadIdx.x; c <= ju - j; c += blockDim.x) {
                    size_t a = (size_t)(kv + jp - c) + (size_t)(j + c) * ldab, b = (size_t)(kv - c) + (size_t)(j + c) * ldab;
                    T t = ab[a]; ab[a] = ab[b]; ab[b] = t;
                }
            __syncthreads();
            if (km > 0) {
                T piv = ab[kv + (size_t)j * ldab];
                for (int i = 1 + threadIdx.x; i <= km; i += blockDim.x)
                    ab[kv + i + (size_t)j * ldab] = div_(ab[kv + i + (size_t)j * ldab], piv);
                __syncthreads();
                // rank-1 update of rows j+1 .. j+km, columns j+1 .. ju (row j, the pivot row, and
                // column j, the multipliers, are only read): entry e = (i - 1) + (c - 1) km
                const int cols = ju - j;
                T *abj = ab + (size_t)j * ldab;   // column j: int offsets from it stay small
                update_batched(km * cols, [&](int e, int &dst, T &prod) {
                    int i = 1 + e % km, c = 1 + e / km;
                    dst = (kv - c + i) + c * ldab;
                    prod = mul(abj[kv + i], abj[(kv - c) + c * ldab]);
                }, abj);
            }
        }
        __syncthreads();
    }
    int info = s_info;
    __syncthreads();   // every thread has read s_info before a next call resets it
    return info;
}

// The blocked LU's and solves' L' (see gbtrf_blocked): in the panel P (ldp rows, jb columns), each column
// p's multipliers get the row swaps of the later steps q > p, row q with row q + jp[q]; a column per thread.
// Ends synchronised.
template <typename T>
__device__ void apply_later_swaps(T *P, int ldp, int jb, const int *jp)
{
    for (int p = threadIdx.x; p < jb - 1; p += blockDim.x)
        for (int q = p + 1; q < jb; q++) {
            const int l = q + jp[q];
            if (l != q) { const T t = P[q + (size_t)p * ldp]; P[q + (size_t)p * ldp] = P[l + (size_t)p * ldp]; P[l + (size_t)p * ldp] = t; }
        }
    __syncthreads();
}

// x = L^-1 x by one thread, L unit lower jb x jb (L(q, p) = L[q + p ldl]), x[p] at x[p incx], column by column
template <typename T>
__device__ inline void unit_lower_solve(int jb, const T *L, int ldl, T *x, int incx)
{
    for (int p = 0; p < jb; p++) {
        const T xp = x[(size_t)p * incx];
        for (int q = p + 1; q < jb; q++)
            x[(size_t)q * incx] = sub(x[(size_t)q * incx], mul(L[q + (size_t)p * ldl], xp));
    }
}

// D(i, c) -= sum over p of L(i, p) X(p, c) for i < rows, c < cols, p < depth (descending p where reverse),
// L(i, p) = L[i + p ldl], X(p, c) = X[p ldx + c] in shared memory, D by dst(i, c) (a reference): the
// blocked band LU's and solves' updates under (or above) a panel. Each thread keeps SS_GEMM_ROWS entries
// of one column in registers across the products, so every entry takes its updates in the same order as
// the step-by-step code, and is read and written once; the rows are strided, so that a warp reads L
// without bank conflicts. Ends synchronised.
#define SS_GEMM_ROWS 4
template <typename T, typename Dst>
__device__ void sub_products(int rows, int cols, int depth, bool reverse, const T *L, int ldl, const T *X, int ldx, Dst dst)
{
    const int G = (rows + SS_GEMM_ROWS - 1) / SS_GEMM_ROWS;
    for (int e = threadIdx.x; e < G * cols; e += blockDim.x) {
        const int g = e % G, c = e / G;
        T acc[SS_GEMM_ROWS];
#pragma unroll
        for (int q = 0; q < SS_GEMM_ROWS; q++)
            acc[q] = g + q * G < rows ? dst(g + q * G, c) : from_real<T>(0);
        for (int k = 0; k < depth; k++) {
            const int p = reverse ? depth - 1 - k : k;
            const T x = X[(size_t)p * ldx + c];
            const T *Lp = L + (size_t)p * ldl + g;
#pragma unroll
            for (int q = 0; q < SS_GEMM_ROWS; q++)
                if (g + q * G < rows) acc[q] = sub(acc[q], mul(Lp[q * G], x));
        }
#pragma unroll
        for (int q = 0; q < SS_GEMM_ROWS; q++)
            if (g + q * G < rows) dst(g + q * G, c) = acc[q];
    }
    __syncthreads();
}

// gbtf2 blocked: the same pivots, layout and info as gbtf2_block, and its factors to rounding (every entry
// takes the same updates in the same order; bit for bit in a C model without fused multiply-adds, while
// nvcc fuses the two forms differently: H100, 1e-13 relative at most), with the band's window read and written once per
// SS_BAND_NB steps instead of once per step. gbtf2_block's steps are bound by that traffic through L2 at
// K >= 64: a step re-reads and re-writes a kl x (kl + ku) window (bench/NOTES.md, sessions 16 and 26).
// Per panel of jb <= SS_BAND_NB columns:
//  1. the panel's rows j0 .. j0 + jb - 1 + kl into shared memory (P, R x jb) and gbtf2's steps on it;
//  2. P back to the band, then L' = P's multipliers with the panel's later row swaps applied: gbtf2
//     keeps L unswapped, but the trailing update below applies all swaps first, which is right for
//     swapped multipliers (as getrf's laswp on the left columns);
//  3. each trailing column (j0 + jb .. ju, a thread each): the panel's swaps, then U12 = L11'^-1 A12
//     into shared memory (U, jb x kv);
//  4. A22 -= L21' U12 on the rows under the panel, each entry in registers across the jb products.
// A swap of step p touches a trailing column only up to that step's ju, as in gbtf2 (beyond it both rows
// are zero, and beyond j + kv the band has no storage). Shared memory: band_lu_smem.
// Panels of 8: on one H100 as fast as 16 from K = 64 on and faster below (less shared memory, more
// blocks per SM); 32 slower everywhere (bench/NOTES.md, session 26).
#define SS_BAND_NB 8
template <typename T>
__device__ int gbtrf_blocked(int m, int kl, int ku, T *ab, int ldab, int *ipiv, T *P, T *U)
{
    const int kv = kl + ku;
    __shared__ int s_jp, s_ok, s_ju, s_info, s_jus[SS_BAND_NB], s_jps[SS_BAND_NB];
    if (threadIdx.x == 0) { s_info = 0; s_ju = 0; }
    __syncthreads();
    auto at = [&](int r, int c) -> T & { return ab[(size_t)(kv + r - c) + (size_t)c * ldab]; };
    for (int j0 = 0; j0 < m; j0 += SS_BAND_NB) {
        const int jb = min(SS_BAND_NB, m - j0), R = min(jb + kl, m - j0);
        for (int e = threadIdx.x; e < R * jb; e += blockDim.x) {   // 1. the panel (zero outside the band)
            const int i = e % R, p = e / R, r = j0 + i, c = j0 + p;
            P[e] = (r - c <= kl && c - r <= kv) ? at(r, c) : from_real<T>(0);
        }
        __syncthreads();
        for (int p = 0; p < jb; p++) {   // gbtf2's steps on the panel's columns p .. jb - 1
            const int jj = j0 + p, km = min(kl, m - 1 - jj);
            T *Pp = P + (size_t)p * R;
            if (threadIdx.x < 32) {   // the pivot search by the first warp, as gbtf2_block
                const int jp = warp_iamax(Pp + p, km);
                if (threadIdx.x == 0) {
                    ipiv[jj] = jp + jj + 1;
                    s_jp = jp;
                    s_jps[p] = jp;
                    s_ok = !is_zero(Pp[p + jp]);
                    if (s_ok) s_ju = max(s_ju, min(jj + ku + jp, m - 1));
                    else if (s_info == 0) s_info = jj + 1;
                    s_jus[p] = s_ju;
                }
            }
            __syncthreads();
            const int jp = s_jp, cend = min(jb - 1, s_ju - j0);
            if (s_ok) {
                if (jp != 0)
                    for (int c = p + threadIdx.x; c <= cend; c += blockDim.x) {
                        const T t = P[p + (size_t)c * R];
                        P[p + (size_t)c * R] = P[p + jp + (size_t)c * R];
                        P[p + jp + (size_t)c * R] = t;
                    }
                __syncthreads();
                if (km > 0) {
                    const T piv = Pp[p];
                    for (int i = 1 + threadIdx.x; i <= km; i += blockDim.x)
                        Pp[p + i] = div_(Pp[p + i], piv);
                    __syncthreads();
                    if (cend > p)
                        update_batched(km * (cend - p), [&](int e, int &dst, T &prod) {
                            const int i = p + 1 + e % km, c = p + 1 + e / km;
                            dst = i + c * R;
                            prod = mul(Pp[i], P[p + (size_t)c * R]);
                        }, P);
                }
            }
            __syncthreads();
        }
        for (int e = threadIdx.x; e < R * jb; e += blockDim.x) {   // 2. the panel back, as gbtf2 leaves it
            const int i = e % R, p = e / R, r = j0 + i, c = j0 + p;
            if (r - c <= kl && c - r <= kv) at(r, c) = P[e];
        }
        __syncthreads();
        apply_later_swaps(P, R, jb, s_jps);   // L'
        const int jl = j0 + jb, nc = s_ju - jl + 1;
        for (int col = threadIdx.x; col < nc; col += blockDim.x) {   // 3. a trailing column each
            const int c = jl + col;
            for (int p = 0; p < jb; p++)
                U[(size_t)p * kv + col] = c - (j0 + p) <= kv ? at(j0 + p, c) : from_real<T>(0);
            for (int p = 0; p < jb; p++) {
                const int q = p + s_jps[p];   // the panel row swapped with row p
                if (q == p || c > s_jus[p]) continue;
                T &u = U[(size_t)p * kv + col];
                if (q < jb) { T &v = U[(size_t)q * kv + col]; const T t = u; u = v; v = t; }
                else { T &v = at(j0 + q, c); const T t = u; u = v; v = t; }
            }
            unit_lower_solve(jb, P, R, U + col, kv);
            for (int p = 0; p < jb; p++)
                if (c - (j0 + p) <= kv) at(j0 + p, c) = U[(size_t)p * kv + col];
        }
        __syncthreads();
        if (nc > 0)   // 4. A22 -= L21' U12
            sub_products(R - jb, nc, jb, false, P + jb, R, U, kv, [&](int i, int col) -> T & { return at(j0 + jb + i, jl + col); });
    }
    const int info = s_info;
    __syncthreads();   // every thread has read s_info before a next call resets it
    return info;
}

// The factor kernel's shared memory for the blocked LUs and solves: P, a panel of up to SS_BAND_NB +
// kl + ku rows (gbtrs_blocked's U panels reach kl + ku rows above a block; the LUs' panels max(kl, ku)
// below, the flipped block's bandwidths being swapped), then U (gbtrf_blocked) or X (gbtrs_blocked, K
// right-hand sides, K <= kl + ku), SS_BAND_NB x (kl + ku).
__host__ __device__ inline size_t band_panel_entries(int kl, int ku) { return (size_t)(SS_BAND_NB + kl + ku) * SS_BAND_NB; }
template <typename T>
__host__ __device__ inline size_t band_lu_smem(int kl, int ku)
{
    return (band_panel_entries(kl, ku) + (size_t)SS_BAND_NB * (kl + ku)) * sizeof(T);
}

// gbtf2_narrow_any by the block's thread 0, the others waiting at one barrier; info in every thread
template <typename T>
__device__ int band_lu_narrow_block(int m, int kl, int ku, T *ab, int ldab, int *ipiv)
{
    __shared__ int s_info;
    if (threadIdx.x == 0)
        s_info = gbtf2_narrow_any(m, kl, ku, ab, ldab, ipiv);
    __syncthreads();
    const int info = s_info;
    __syncthreads();   // every thread has read s_info before a next call sets it
    return info;
}

// the band LU of the factor kernel: by one thread where NARROW (kl + ku <= 2), else blocked where the
// kernel got shared memory for it (smem non-null), else step by step
template <bool NARROW, typename T>
__device__ int band_lu_block(int m, int kl, int ku, T *ab, int ldab, int *ipiv, unsigned char *smem)
{
    if constexpr (NARROW) return band_lu_narrow_block(m, kl, ku, ab, ldab, ipiv);
    if (!smem) return gbtf2_block(m, kl, ku, ab, ldab, ipiv);
    T *P = (T *)smem;
    return gbtrf_blocked(m, kl, ku, ab, ldab, ipiv, P, P + band_panel_entries(kl, ku));
}

// LAPACK's gbtrs, no transpose, with gbtf2's factors; the pivots are ipiv[j] - shift (1-based):
// shift j0 runs it on the trailing rows j0 .. of a factorization (see the factor kernel). Only the
// last `keep` rows of the solution are wanted (n: all of it): U is upper triangular, so the backward
// sweep stops there and updates those rows only (the tips need K of n = K + kl rows).
template <typename T>
__device__ void gbtrs_block(int n, int kl, int ku, int nrhs, const T *ab, int ldab, const int *ipiv, int shift, T *B, int ldb,
                            int keep)
{
    const int kv = kl + ku;
    if (kl > 0)   // L: the row interchanges and multipliers in the order gbtrf made them
        for (int j = 0; j < n - 1; j++) {
            int lm = min(kl, n - 1 - j), l = ipiv[j] - 1 - shift;
            if (l != j)
                for (int r = threadIdx.x; r < nrhs; r += blockDim.x) {
                    T t = B[l + (size_t)r * ldb]; B[l + (size_t)r * ldb] = B[j + (size_t)r * ldb]; B[j + (size_t)r * ldb] = t;
                }
            __syncthreads();
            update_batched(lm * nrhs, [&](int e, int &d, T &prod) {
                int i = 1 + e % lm, r = e / lm;
                d = (j + i) + r * ldb;
                prod = mul(ab[kv + i + (size_t)j * ldab], B[j + (size_t)r * ldb]);
            }, B);
            __syncthreads();
        }
    // U: upper triangular with kl + ku superdiagonals (tbsv, column by column from the bottom)
    for (int j = n - 1; j >= n - keep; j--) {
        for (int r = threadIdx.x; r < nrhs; r += blockDim.x)
            B[j + (size_t)r * ldb] = div_(B[j + (size_t)r * ldb], ab[kv + (size_t)j * ldab]);
        __syncthreads();
        int top = max(n - keep, j - kv), cnt = j - top;
        update_batched(cnt * nrhs, [&](int e, int &d, T &prod) {
            int i = top + e % cnt, r = e / cnt;
            d = i + r * ldb;
            prod = mul(ab[(size_t)(kv + i - j) + (size_t)j * ldab], B[j + (size_t)r * ldb]);
        }, B);
        __syncthreads();
    }
}

// gbtrs_block blocked as gbtrf_blocked (same arguments, the same results to rounding), for the factor
// kernel's solves with K right-hand sides, whose steps each re-read and re-wrote lm x K entries of B:
//  - L, per block of jb <= SS_BAND_NB steps: the multipliers into P with the block's later swaps applied
//    (L'), then per right-hand side (a thread each) the block's swaps and the unit lower jb x jb solve
//    into X, then B's kl rows under the block -= L' X;
//  - U, per block of rows from the bottom (of the `keep` wanted): U's columns there into P (rows up to kl + ku
//    above), the upper jb x jb solve into X, then B's rows above -= U X in gbtrs's descending order.
template <typename T>
__device__ void gbtrs_blocked(int n, int kl, int ku, int nrhs, const T *ab, int ldab, const int *ipiv, int shift, T *B, int ldb,
                              int keep, T *P, T *X)
{
    const int kv = kl + ku;
    __shared__ int s_jp[SS_BAND_NB];
    if (kl > 0)
        for (int j0 = 0; j0 < n - 1; j0 += SS_BAND_NB) {
            const int jb = min(SS_BAND_NB, n - 1 - j0), R = min(jb + kl, n - j0);
            for (int e = threadIdx.x; e < R * jb; e += blockDim.x) {
                const int i = e % R, p = e / R, lm = min(kl, n - 1 - (j0 + p));
                P[e] = i - p >= 1 && i - p <= lm ? ab[(size_t)(kv + i - p) + (size_t)(j0 + p) * ldab] : from_real<T>(0);
            }
            for (int p = threadIdx.x; p < jb; p += blockDim.x)
                s_jp[p] = ipiv[j0 + p] - 1 - shift - (j0 + p);   // row p is swapped with row p + s_jp[p]
            __syncthreads();
            apply_later_swaps(P, R, jb, s_jp);   // L'
            for (int r = threadIdx.x; r < nrhs; r += blockDim.x) {   // a right-hand side each
                T *b = B + (size_t)r * ldb + j0;
                for (int p = 0; p < jb; p++) {
                    const int l = p + s_jp[p];
                    if (l != p) { const T t = b[l]; b[l] = b[p]; b[p] = t; }
                }
                for (int p = 0; p < jb; p++)
                    X[(size_t)p * nrhs + r] = b[p];
                unit_lower_solve(jb, P, R, X + r, nrhs);
                for (int p = 0; p < jb; p++)
                    b[p] = X[(size_t)p * nrhs + r];
            }
            __syncthreads();
            sub_products(R - jb, nrhs, jb, false, P + jb, R, X, nrhs,
                         [&](int i, int r) -> T & { return B[(size_t)(j0 + jb + i) + (size_t)r * ldb]; });
        }
    for (int jhi = n - 1; jhi >= n - keep; jhi -= SS_BAND_NB) {
        const int jb = min(SS_BAND_NB, jhi - (n - keep) + 1), jlo = jhi - jb + 1, rlo = max(n - keep, jlo - kv);
        const int Rr = jhi - rlo + 1, o = jlo - rlo;   // P's rows: rlo .. jhi; the block's from row o
        for (int e = threadIdx.x; e < Rr * jb; e += blockDim.x) {
            const int r = rlo + e % Rr, j = jlo + e / Rr;
            P[e] = r <= j && j - r <= kv ? ab[(size_t)(kv + r - j) + (size_t)j * ldab] : from_real<T>(0);
        }
        __syncthreads();
        for (int r = threadIdx.x; r < nrhs; r += blockDim.x) {
            T *b = B + (size_t)r * ldb + jlo;
            for (int p = 0; p < jb; p++)
                X[(size_t)p * nrhs + r] = b[p];
            for (int p = jb - 1; p >= 0; p--) {
                const T xp = div_(X[(size_t)p * nrhs + r], P[o + p + (size_t)p * Rr]);
                X[(size_t)p * nrhs + r] = xp;
                for (int q = 0; q < p; q++)
                    X[(size_t)q * nrhs + r] = sub(X[(size_t)q * nrhs + r], mul(P[o + q + (size_t)p * Rr], xp));
            }
            for (int p = 0; p < jb; p++)
                b[p] = X[(size_t)p * nrhs + r];
        }
        __syncthreads();
        sub_products(o, nrhs, jb, true, P, Rr, X, nrhs, [&](int i, int r) -> T & { return B[(size_t)(rlo + i) + (size_t)r * ldb]; });
    }
}

// the factor kernel's solves for the tips: blocked where the kernel got shared memory (smem non-null)
template <typename T>
__device__ void band_trs_block(int n, int kl, int ku, int nrhs, const T *ab, int ldab, const int *ipiv, int shift, T *B, int ldb,
                               int keep, unsigned char *smem)
{
    if (!smem) { gbtrs_block(n, kl, ku, nrhs, ab, ldab, ipiv, shift, B, ldb, keep); return; }
    T *P = (T *)smem;
    gbtrs_blocked(n, kl, ku, nrhs, ab, ldab, ipiv, shift, B, ldb, keep, P, P + band_panel_entries(kl, ku));
}

// One partition's tips before its LU: all zero, then the couplings Bc(r, c) = A(row s-K+r, next
// partition's column c) from Bn (pointing at column s), Cc(r, c) = A(row r, previous partition's
// column c - K) from Bp (pointing at column -K); NULL: no such neighbour. Then the partition's
// smallest row dominance ratio into tips[SS_TIP_DOM]. As zspike_factor_cpu's first pass.
template <typename T>
__device__ void tips_prep_block(int s, int kl, int ku, int K, const T *Bp, size_t ldp, const T *Bi, size_t ldi, const T *Bn,
                                size_t ldn, T *tips)
{
    const size_t KK = (size_t)K * K;
    T *Bc = tips + SS_TIP_BC(K), *Cc = tips + SS_TIP_CC(K);
    for (size_t e = threadIdx.x; e < SS_TIPS(K); e += blockDim.x)
        tips[e] = from_real<T>(0);
    __syncthreads();
    for (size_t e = threadIdx.x; e < KK; e += blockDim.x) {
        int r = (int)(e % K), c = (int)(e / K), dn = r - K - c, dp = K + r - c;
        if (Bn && dn >= -ku) Bc[e] = Bn[(size_t)(ku + dn) + (size_t)c * ldn];
        if (Bp && dp <= kl) Cc[e] = Bp[(size_t)(ku + dp) + (size_t)c * ldp];
    }
    __syncthreads();
    // the block's minimum: by warp shuffles, then the warps' minima (a 32-entry array, so that the factor
    // kernel's small blocks at small K keep their shared memory for more blocks per SM)
    __shared__ double smin[SPIKE_FACTOR_MAX_THREADS / 32];
    double m = 1.0 / 0.0;
    for (int r = threadIdx.x; r < s; r += blockDim.x) {
        double dia = 0, off = 0;
        for (int c = max(0, r - kl); c <= min(s - 1, r + ku); c++) {
            double v = absv(Bi[(size_t)(ku + r - c) + (size_t)c * ldi]);
            if (c == r) dia = v; else off += v;
        }
        for (int c = 0; c < K; c++) {
            if (r < K) off += absv(Cc[r + (size_t)c * K]);
            if (r >= s - K) off += absv(Bc[(r - (s - K)) + (size_t)c * K]);
        }
        double ratio = off > 0 ? dia / off : (dia > 0 ? 1.0 / 0.0 : 0);
        if (ratio < m) m = ratio;
    }
    for (int o = 16; o > 0; o /= 2)
        m = fmin(m, __shfl_down_sync(0xffffffffu, m, o));
    if (threadIdx.x % 32 == 0) smin[threadIdx.x / 32] = m;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < (int)blockDim.x / 32; w++) m = fmin(m, smin[w]);
        tips[SS_TIP_DOM(K)] = from_real<T>(m);
    }
    __syncthreads();
}

// The factor kernel's scratch per partition, all in the factors' precision: Z for Vb ((K + kl) x K),
// then T (the flipped leading ss_spike_wt_rows columns in gbtrf layout, bandwidths swapped, for the
// chunk's longest partition), Z for Wt ((K + ku) x K) and T's pivots. o[0..2]: the offsets of T, Z, the
// pivots; returns the bytes per partition.
template <typename TA, typename TF>
__host__ __device__ size_t factor_offsets(const struct ss_spike_chunk &c, size_t o[3])
{
    const int kl = c.kl, ku = c.ku, K = c.K;
    const size_t ldw = 2 * (size_t)ku + kl + 1, mw = (size_t)ss_spike_wt_rows(K, c.pq + (c.pr > 0));
    o[0] = ss_align_dev(((size_t)K + kl) * K * sizeof(TF));
    o[1] = o[0] + ss_align_dev(ldw * mw * sizeof(TF));
    o[2] = o[1] + ss_align_dev(((size_t)K + ku) * K * sizeof(TF));
    return o[2] + ss_align_dev(mw * sizeof(int));
}

// ---- kernels, one block per partition of a chunk --------------------------------------------

// The factor task, as zspike_factor_cpu: per partition (block) the tips' couplings and dominance,
// the diagonal block in gbtrf layout and its LU, then Vb by gbtrs on the trailing rows and Wt
// from the leading block's UL. bp / bn: the neighbour chunks' bands (used by the first / last
// partition only, when the chunk has such a neighbour); sp: bp's columns. NARROW (kl + ku <= 2): the
// band LUs by one thread in registers (gbtf2_narrow), in blocks of one warp, which leave it 255 registers.
template <typename TA, typename TF, bool NARROW>
__global__ void __launch_bounds__(NARROW ? 32 : SPIKE_FACTOR_MAX_THREADS) factor_chunk_kernel(struct ss_spike_chunk c, const TA *bp, int ldp, int sp,
                                                                     const TA *bi, int ldi, const TA *bn, int ldn, TF *F,
                                                                     int *ipiv, TA *tips, char *work, size_t wstride, bool blocked)
{
    extern __shared__ __align__(16) unsigned char factor_smem[];   // band_lu_smem bytes where blocked
    unsigned char *lu_smem = blocked ? factor_smem : nullptr;
    const int i = blockIdx.x, K = c.K, kl = c.kl, ku = c.ku, ldf = 2 * kl + ku + 1;
    const int off = ss_spike_chunk_off(&c, i), s = ss_spike_chunk_psize(&c, i);
    const TA *Bi = bi + (size_t)off * ldi;
    const TA *Bp = i > 0 ? Bi - (size_t)K * ldi : c.has_prev ? bp + (size_t)(sp - K) * ldp : nullptr;
    const TA *Bn = i + 1 < c.np ? Bi + (size_t)s * ldi : c.has_next ? bn : nullptr;
    TA *t = tips + SS_TIPS(K) * i;
    TF *Fi = F + (size_t)off * ldf;
    int *pi = ipiv + off;
    tips_prep_block(s, kl, ku, K, Bp, i > 0 ? (size_t)ldi : (size_t)ldp, Bi, ldi, Bn, i + 1 < c.np ? (size_t)ldi : (size_t)ldn, t);
    band_to_lu_block(s, kl, ku, Bi, ldi, Fi, ldf);
    int info = band_lu_block<NARROW>(s, kl, ku, Fi, ldf, pi, lu_smem);
    if (info != 0) {   // the same in every thread: the whole block leaves
        if (threadIdx.x == 0) t[SS_TIP_STATUS(K)] = from_real<TA>(info);
        return;
    }
    size_t o[3];
    factor_offsets<TA, TF>(c, o);
    char *w = work + wstride * i;
    if (Bn) {   // Vb: see zspike_factor_cpu
        const int j0 = max(0, s - K - kl), m = s - j0;
        TF *Z = (TF *)w;
        const TA *Bc = t + SS_TIP_BC(K);
        for (size_t e = threadIdx.x; e < (size_t)m * K; e += blockDim.x) {
            int r = (int)(e % m), cc = (int)(e / m);
            Z[e] = r >= m - K ? cvt<TF>(Bc[(r - (m - K)) + (size_t)cc * K]) : from_real<TF>(0);
        }
        __syncthreads();
        band_trs_block(m, kl, ku, K, Fi + (size_t)j0 * ldf, ldf, pi + j0, j0, Z, m, K, lu_smem);
        for (size_t e = threadIdx.x; e < (size_t)K * K; e += blockDim.x)
            t[SS_TIP_VB(K) + e] = cvt<TA>(Z[(m - K + (int)(e % K)) + (e / K) * (size_t)m]);
        __syncthreads();
    }
    if (Bp) {   // Wt: the leading m x m block's UL as the LU of its flip, as Vb in the factors' precision (see zspike_factor_cpu)
        const int m = ss_spike_wt_rows(K, s), fl = ku, fu = kl, ldw = 2 * fl + fu + 1;
        TF *T = (TF *)(w + o[0]), *Z = (TF *)(w + o[1]);
        int *piv = (int *)(w + o[2]);
        band_to_lu_block(m, kl, ku, Bi, ldi, T, ldw, true);
        if (band_lu_block<NARROW>(m, fl, fu, T, ldw, piv, lu_smem) != 0) {
            if (threadIdx.x == 0) t[SS_TIP_STATUS(K)] = from_real<TA>(1);
            return;
        }
        // the flipped right-hand side J [Cc; 0] is zero above row m - K: its trailing rows j0 .. suffice
        const int j0 = max(0, m - K - fl), mm = m - j0;
        const TA *Cc = t + SS_TIP_CC(K);
        for (size_t e = threadIdx.x; e < (size_t)mm * K; e += blockDim.x) {
            int r = m - 1 - j0 - (int)(e % mm), cc = (int)(e / mm);   // T's row of Z(e)
            Z[e] = r < K ? cvt<TF>(Cc[r + (size_t)cc * K]) : from_real<TF>(0);
        }
        __syncthreads();
        band_trs_block(mm, fl, fu, K, T + (size_t)j0 * ldw, ldw, piv + j0, j0, Z, mm, K, lu_smem);
        for (size_t e = threadIdx.x; e < (size_t)K * K; e += blockDim.x)
            t[SS_TIP_WT(K) + e] = cvt<TA>(Z[(m - 1 - j0 - (int)(e % K)) + (e / K) * (size_t)mm]);
    }
}

// Reduced systems, one block per interface j: S_j = [I Vb; Wt I] (Vb = vb + j vbs, Wt = wt + j wts)
// LU-factored with partial pivoting as LAPACK's getf2 (1-based pivots), then its status (the first
// zero pivot or 0) after the 2K x 2K LU (SS_RSYS(K) per interface).
template <typename T>
__global__ void __launch_bounds__(SPIKE_THREADS) reduced_factor_kernel(int K, const T *vb, size_t vbs, const T *wt, size_t wts,
                                                                       T *S, int *ipivS)
{
    const int j = blockIdx.x, l = 2 * K;
    const T *Vb = vb + vbs * j, *Wt = wt + wts * j;
    T *A = S + SS_RSYS(K) * j;
    int *piv = ipivS + (size_t)l * j;
    for (size_t e = threadIdx.x; e < (size_t)l * l; e += blockDim.x) {
        int r = (int)(e % l), c = (int)(e / l);
        T v = from_real<T>(r == c ? 1 : 0);
        if (r < K && c >= K) v = Vb[r + (size_t)(c - K) * K];
        if (r >= K && c < K) v = Wt[(r - K) + (size_t)c * K];
        A[e] = v;
    }
    __shared__ int s_p, s_info;
    if (threadIdx.x == 0) s_info = 0;
    __syncthreads();
    for (int k = 0; k < l; k++) {
        if (threadIdx.x == 0) {
            int p = k;
            double best = abs1(A[k + (size_t)k * l]);
            for (int r = k + 1; r < l; r++) {
                double v = abs1(A[r + (size_t)k * l]);
                if (v > best) { best = v; p = r; }
            }
            piv[k] = p + 1;
            s_p = p;
            if (is_zero(A[p + (size_t)k * l]) && s_info == 0) s_info = k + 1;
        }
        __syncthreads();
        const int p = s_p;
        if (p != k)
            for (int c = threadIdx.x; c < l; c += blockDim.x) {
                T t = A[k + (size_t)c * l]; A[k + (size_t)c * l] = A[p + (size_t)c * l]; A[p + (size_t)c * l] = t;
            }
        __syncthreads();
        const T d = A[k + (size_t)k * l];
        if (!is_zero(d))
            for (int r = k + 1 + threadIdx.x; r < l; r += blockDim.x)
                A[r + (size_t)k * l] = div_(A[r + (size_t)k * l], d);
        __syncthreads();
        const int rest = l - k - 1;
        for (int e = threadIdx.x; e < rest * rest; e += blockDim.x) {
            int r = k + 1 + e % rest, c = k + 1 + e / rest;
            A[r + (size_t)c * l] = sub(A[r + (size_t)c * l], mul(A[r + (size_t)k * l], A[k + (size_t)c * l]));
        }
        __syncthreads();
    }
    if (threadIdx.x == 0)
        A[(size_t)l * l] = from_real<T>(s_info);
}

// The chunk's summary for the caller: stat[0] the smallest dominance ratio of its partitions,
// stat[1] the largest status of its partitions and inner reduced systems. One block.
template <typename T>
__global__ void __launch_bounds__(SPIKE_THREADS) summary_kernel(int np, int K, const T *tips, const T *S, T *stat)
{
    __shared__ double smin[SPIKE_THREADS], smax[SPIKE_THREADS];
    double m = 1.0 / 0.0, x = 0;
    for (int i = threadIdx.x; i < np; i += blockDim.x) {
        m = fmin(m, absv(tips[SS_TIPS(K) * i + SS_TIP_DOM(K)]));
        x = fmax(x, absv(tips[SS_TIPS(K) * i + SS_TIP_STATUS(K)]));
        if (i + 1 < np) x = fmax(x, absv(S[SS_RSYS(K) * i + 4 * (size_t)K * K]));
    }
    smin[threadIdx.x] = m;
    smax[threadIdx.x] = x;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h /= 2) {
        if (threadIdx.x < h) {
            smin[threadIdx.x] = fmin(smin[threadIdx.x], smin[threadIdx.x + h]);
            smax[threadIdx.x] = fmax(smax[threadIdx.x], smax[threadIdx.x + h]);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        stat[0] = from_real<T>(smin[0]);
        stat[1] = from_real<T>(smax[0]);
    }
}

// Tip solve, one block per partition: w_i = A_i^-1 f_i (in the factor's precision, w the chunk's
// scratch), gt_i = [top K; bottom K] of it, and all of it into g where g is given (working-precision
// factors: codelet_zspike.c's retrieval on a CPU starts from it)
template <typename TA, typename TF>
__global__ void __launch_bounds__(SPIKE_THREADS) tipsolve_chunk_kernel(struct ss_spike_chunk c, const TF *F, const int *ipiv,
                                                                       const TA *f, TF *w, TA *gt, TA *g)
{
    const int i = blockIdx.x, K = c.K, ldf = 2 * c.kl + c.ku + 1;
    const int off = ss_spike_chunk_off(&c, i), s = ss_spike_chunk_psize(&c, i);
    TF *wi = w + off;
    for (int r = threadIdx.x; r < s; r += blockDim.x)
        wi[r] = cvt<TF>(f[off + r]);
    __syncthreads();
    gbtrs_block(s, c.kl, c.ku, 1, F + (size_t)off * ldf, ldf, ipiv + off, 0, wi, s, s);
    for (int r = threadIdx.x; r < K; r += blockDim.x) {
        gt[2 * (size_t)K * i + r] = cvt<TA>(wi[r]);
        gt[2 * (size_t)K * i + K + r] = cvt<TA>(wi[s - K + r]);
    }
    if (g)
        for (int r = threadIdx.x; r < s; r += blockDim.x)
            g[off + r] = cvt<TA>(wi[r]);
}

// Reduced solves, one block per interface j: y_j = S_j^-1 [gb_j; gtop_j] (gb = gb0 + j gbs, the
// upper partition's bottom K of A^-1 f; gtop = gtop0 + j gts, the lower one's top K), y_j at y + 2K j.
// getrs: the interchanges in order, then L (unit) and U.
template <typename T>
__global__ void __launch_bounds__(SPIKE_THREADS) reduced_solve_kernel(int K, const T *S, const int *ipivS, const T *gb0, size_t gbs,
                                                                      const T *gtop0, size_t gts, T *y)
{
    const int j = blockIdx.x, l = 2 * K;
    const T *A = S + SS_RSYS(K) * j, *gb = gb0 + gbs * j, *gtop = gtop0 + gts * j;
    const int *piv = ipivS + (size_t)l * j;
    T *yj = y + (size_t)l * j;
    for (int r = threadIdx.x; r < K; r += blockDim.x) {
        yj[r] = gb[r];
        yj[K + r] = gtop[r];
    }
    __syncthreads();
    if (threadIdx.x == 0)
        for (int k = 0; k < l; k++) {
            int p = piv[k] - 1;
            if (p != k) { T t = yj[k]; yj[k] = yj[p]; yj[p] = t; }
        }
    __syncthreads();
    for (int k = 0; k < l; k++) {
        for (int r = k + 1 + threadIdx.x; r < l; r += blockDim.x)
            yj[r] = sub(yj[r], mul(A[r + (size_t)k * l], yj[k]));
        __syncthreads();
    }
    for (int k = l - 1; k >= 0; k--) {
        if (threadIdx.x == 0)
            yj[k] = div_(yj[k], A[k + (size_t)k * l]);
        __syncthreads();
        for (int r = threadIdx.x; r < k; r += blockDim.x)
            yj[r] = sub(yj[r], mul(A[r + (size_t)k * l], yj[k]));
        __syncthreads();
    }
}

// The retrieval's right-hand side f_i - Cc x_{i-1}^b - Bc x_{i+1}^t into w (the factor's precision), the
// rows spread over the block's threads; yp / yn NULL: no such neighbour. The caller synchronises after.
template <typename TA, typename TF>
__device__ void purify_rows(int s, int K, const TA *fi, const TA *Cc, const TA *Bc, const TA *yp, const TA *yn, TF *w)
{
    for (int r = threadIdx.x; r < s; r += blockDim.x) {
        TA v = fi[r];
        if (yp && r < K)
            for (int cc = 0; cc < K; cc++) v = sub(v, mul(Cc[r + (size_t)cc * K], yp[cc]));
        if (yn && r >= s - K)
            for (int cc = 0; cc < K; cc++) v = sub(v, mul(Bc[(r - (s - K)) + (size_t)cc * K], yn[K + cc]));
        w[r] = cvt<TF>(v);
    }
}

// Retrieval, one block per partition: x_i = A_i^-1 (f_i - Cc x_{i-1}^b - Bc x_{i+1}^t), the
// couplings' solutions from the inner interfaces' y or, for the chunk's first / last partition,
// from yup / ydown (NULL: no neighbour chunk). Partitions have >= 2K rows whenever they have a
// neighbour, so the top and bottom corrections touch different rows.
template <typename TA, typename TF>
__global__ void __launch_bounds__(SPIKE_THREADS) retrieve_chunk_kernel(struct ss_spike_chunk c, const TF *F, const int *ipiv,
                                                                       const TA *f, const TA *tips, const TA *y, const TA *yup,
                                                                       const TA *ydown, TA *x, TF *w)
{
    const int i = blockIdx.x, K = c.K, ldf = 2 * c.kl + c.ku + 1;
    const int off = ss_spike_chunk_off(&c, i), s = ss_spike_chunk_psize(&c, i);
    const TA *t = tips + SS_TIPS(K) * i, *Bc = t + SS_TIP_BC(K), *Cc = t + SS_TIP_CC(K);
    const TA *yp = i > 0 ? y + 2 * (size_t)K * (i - 1) : yup;      // x_{i-1}^b = yp[0 .. K)
    const TA *yn = i + 1 < c.np ? y + 2 * (size_t)K * i : ydown;   // x_{i+1}^t = yn[K .. 2K)
    TF *wi = w + off;
    purify_rows(s, K, f + off, Cc, Bc, yp, yn, wi);
    __syncthreads();
    gbtrs_block(s, c.kl, c.ku, 1, F + (size_t)off * ldf, ldf, ipiv + off, 0, wi, s, s);
    for (int r = threadIdx.x; r < s; r += blockDim.x)
        x[off + r] = cvt<TA>(wi[r]);
}

// ---- one right-hand side, one warp per partition: the tip solves and retrievals -----------------
// gbtrs_block spends four barriers of a 256-thread block per row, on global memory: a solve of one
// right-hand side was latency-bound (bench/NOTES.md, session 15: 1.7 ms for the tip solves of 1e6 rows,
// K = 32, 2048 partitions, about 1 us per row, where reading the factors once takes ~0.15 ms). Here a
// partition is one warp: its x in shared memory, the factors staged SLAB columns at a time with
// coalesced loads that do not depend on each other (many in flight), then the row steps read shared
// memory only, with __syncwarp between them. Same arithmetic, order and pivots as gbtrs_block.
#define SPIKE_SLAB 32
#define SPIKE_WARP_SMEM (48 * 1024)   // what a block gets without asking
// A GPU's chunks should run in one wave, so a warp gets at most the GPU's shared memory over its
// warps: the two chunks of the GPU's two CUDA workers run at once (the library's default), so 2 np
// warps. At 2048 partitions on an H100 that is 14.7 KB a warp (a 32-column slab at K = 64 in float made
// 18.5 KB, 12 warps an SM, two waves); with fewer, longer partitions (16 K rows each from session 15 on)
// more, and each slab's column saves a staging round (~1 us) per 32 rows. Never below 12 KB, and at least
// 8 columns, so that a slab's loads still have many in flight.
#define SPIKE_WARP_SMEM_FLOOR (12 * 1024)
#define SPIKE_SLAB_MIN 8

// gbtrs (no transpose, one right-hand side x in shared memory) by the 32 lanes of a warp; slab: room
// for (kl + ku + 1) x sc factor entries (U's columns; L's kl rows fit in it), spiv for sc pivots (shared)
template <typename T>
__device__ void gbtrs1_warp(int n, int kl, int ku, const T *ab, int ldab, const int *ipiv, T *x, T *slab, int *spiv, int sc)
{
    const int kv = kl + ku, lane = threadIdx.x;
    if (kl > 0)   // L: interchange, then column j's multipliers (F rows kv + 1 .. kv + kl)
        for (int j0 = 0; j0 < n - 1; j0 += sc) {
            const int nc = min(sc, n - 1 - j0);
            __syncwarp();
            for (int e = lane; e < kl * nc; e += 32)
                slab[e] = ab[(size_t)(kv + 1 + e % kl) + (size_t)(j0 + e / kl) * ldab];
            for (int c = lane; c < nc; c += 32)
                spiv[c] = ipiv[j0 + c] - 1;
            __syncwarp();
            for (int c = 0; c < nc; c++) {
                const int j = j0 + c, lm = min(kl, n - 1 - j), l = spiv[c];
                const T a = x[j], b = x[l];   // every lane reads both before anyone writes
                __syncwarp();
                if (lane == 0) x[j] = b;
                for (int i = 1 + lane; i <= lm; i += 32) {
                    const int r = j + i;
                    x[r] = sub(r == l ? a : x[r], mul(slab[(i - 1) + c * kl], b));
                }
                __syncwarp();
            }
        }
    const int rows = kv + 1;   // U: F rows 0 .. kv of each column, from the last column up
    for (int j1 = n - 1; j1 >= 0; j1 -= sc) {
        const int nc = min(sc, j1 + 1), jb = j1 - nc + 1;
        __syncwarp();
        for (int e = lane; e < rows * nc; e += 32)
            slab[e] = ab[(size_t)(e % rows) + (size_t)(jb + e / rows) * ldab];
        __syncwarp();
        for (int c = nc - 1; c >= 0; c--) {
            const int j = jb + c;
            const T xj = div_(x[j], slab[kv + c * rows]);
            __syncwarp();
            if (lane == 0) x[j] = xj;
            for (int i = max(0, j - kv) + lane; i < j; i += 32)
                x[i] = sub(x[i], mul(slab[(kv + i - j) + c * rows], xj));
            __syncwarp();
        }
    }
}

// the warp kernels' shared memory: the slab ((kl + ku + 1) x sc), x (the largest partition),
// the slab's pivots; sc by the warp's share (above), at most SPIKE_SLAB; 0: does not fit in 48 KB
template <typename TF>
static int warp_slab(const struct ss_spike_chunk *c, size_t *bytes)
{
    const size_t rows = (size_t)c->kl + c->ku + 1, xb = (size_t)(c->pq + (c->pr > 0)) * sizeof(TF);
    if (xb >= SPIKE_WARP_SMEM)
        return 0;
    int dev = 0, sms = 1, per_sm = 0;
    SS_CUDA_CHECK(cudaGetDevice(&dev));
    SS_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    SS_CUDA_CHECK(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
    size_t share = (size_t)sms * (size_t)per_sm / (2 * (size_t)(c->np > 0 ? c->np : 1));
    share = share < SPIKE_WARP_SMEM_FLOOR ? SPIKE_WARP_SMEM_FLOOR : share > SPIKE_WARP_SMEM ? SPIKE_WARP_SMEM : share;
    const size_t per_column = rows * sizeof(TF) + sizeof(int);
    size_t sc = share > xb ? (share - xb) / per_column : 0;
    if (sc < SPIKE_SLAB_MIN)
        sc = SPIKE_SLAB_MIN;
    if (xb + sc * per_column > SPIKE_WARP_SMEM)   // large K: as many columns as the 48 KB hold
        sc = (SPIKE_WARP_SMEM - xb) / per_column;
    sc = sc > SPIKE_SLAB ? SPIKE_SLAB : sc;
    *bytes = rows * sc * sizeof(TF) + xb + sc * sizeof(int);
    return (int)sc;
}

template <typename TF>
__device__ void warp_smem(const struct ss_spike_chunk &c, int sc, unsigned char *smem, TF **slab, TF **x, int **spiv)
{
    const int rows = c.kl + c.ku + 1;
    *slab = (TF *)smem;
    *x = *slab + (size_t)rows * sc;
    *spiv = (int *)(*x + (c.pq + (c.pr > 0)));
}

// tipsolve_chunk_kernel's results (gt_i, and g_i where g is given) by one warp per partition
template <typename TA, typename TF>
__global__ void __launch_bounds__(32) tipsolve_warp_kernel(struct ss_spike_chunk c, const TF *F, const int *ipiv, const TA *f, TA *gt,
                                                           TA *g, int sc)
{
    extern __shared__ __align__(16) unsigned char smem[];
    const int i = blockIdx.x, K = c.K, ldf = 2 * c.kl + c.ku + 1;
    const int off = ss_spike_chunk_off(&c, i), s = ss_spike_chunk_psize(&c, i);
    TF *slab, *x;
    int *spiv;
    warp_smem(c, sc, smem, &slab, &x, &spiv);
    for (int r = threadIdx.x; r < s; r += 32)
        x[r] = cvt<TF>(f[off + r]);
    __syncwarp();
    gbtrs1_warp(s, c.kl, c.ku, F + (size_t)off * ldf, ldf, ipiv + off, x, slab, spiv, sc);
    for (int r = threadIdx.x; r < K; r += 32) {
        gt[2 * (size_t)K * i + r] = cvt<TA>(x[r]);
        gt[2 * (size_t)K * i + K + r] = cvt<TA>(x[s - K + r]);
    }
    if (g)
        for (int r = threadIdx.x; r < s; r += 32)
            g[off + r] = cvt<TA>(x[r]);
}

// retrieve_chunk_kernel's result (x_i) by one warp per partition
template <typename TA, typename TF>
__global__ void __launch_bounds__(32) retrieve_warp_kernel(struct ss_spike_chunk c, const TF *F, const int *ipiv, const TA *f,
                                                           const TA *tips, const TA *y, const TA *yup, const TA *ydown, TA *xo, int sc)
{
    extern __shared__ __align__(16) unsigned char smem[];
    const int i = blockIdx.x, K = c.K, ldf = 2 * c.kl + c.ku + 1;
    const int off = ss_spike_chunk_off(&c, i), s = ss_spike_chunk_psize(&c, i);
    const TA *t = tips + SS_TIPS(K) * i, *Bc = t + SS_TIP_BC(K), *Cc = t + SS_TIP_CC(K);
    const TA *yp = i > 0 ? y + 2 * (size_t)K * (i - 1) : yup;
    const TA *yn = i + 1 < c.np ? y + 2 * (size_t)K * i : ydown;
    TF *slab, *x;
    int *spiv;
    warp_smem(c, sc, smem, &slab, &x, &spiv);
    purify_rows(s, K, f + off, Cc, Bc, yp, yn, x);
    __syncwarp();
    gbtrs1_warp(s, c.kl, c.ku, F + (size_t)off * ldf, ldf, ipiv + off, x, slab, spiv, sc);
    for (int r = threadIdx.x; r < s; r += 32)
        xo[off + r] = cvt<TA>(x[r]);
}

// ---- block reductions: one max |.| (kept as a double, NaN wins) and two sums per thread, combined
// over the block in a fixed order (the same result on every run); thread 0 gets the totals
template <typename T>
__device__ void block_reduce3(double &m, T &s1, T &s2)
{
    __shared__ double rm[SPIKE_THREADS];
    __shared__ T r1[SPIKE_THREADS], r2[SPIKE_THREADS];
    const int t = threadIdx.x;
    rm[t] = m; r1[t] = s1; r2[t] = s2;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h /= 2) {
        if (t < h) {
            double o = rm[t + h];
            if (o > rm[t] || o != o) rm[t] = o;
            r1[t] = add(r1[t], r1[t + h]);
            r2[t] = add(r2[t], r2[t + h]);
        }
        __syncthreads();
    }
    m = rm[0]; s1 = r1[0]; s2 = r2[0];
}
__device__ inline void max_nan(double &m, double v) { if (v > m || v != v) m = v; }

// The second pass of every fused reduction below: one block combines the nb per-block results
// (work[0 .. nb) the maxima, work[nb .. 2 nb) and work[2 nb .. 3 nb) the two sums) in block
// order and writes them where asked (NULL: not wanted).
template <typename T>
__global__ void __launch_bounds__(SPIKE_THREADS) finish_kernel(int nb, const T *work, T *om, T *o1, T *o2)
{
    double m = 0;
    T s1 = from_real<T>(0), s2 = from_real<T>(0);
    for (int b = threadIdx.x; b < nb; b += blockDim.x) {
        max_nan(m, re(work[b]));
        s1 = add(s1, work[nb + b]);
        s2 = add(s2, work[2 * (size_t)nb + b]);
    }
    block_reduce3(m, s1, s2);
    if (threadIdx.x == 0) {
        if (om) *om = from_real<T>(m);
        if (o1) *o1 = s1;
        if (o2) *o2 = s2;
    }
}

// ---- the band matrix-vector product with its reduction fused --------------------------------
// y = A x (kind 1, 2) or y = aux - A x (kind 0) on a chunk's s rows: A's band on the chunk's
// columns in gbmv layout (A(r, c) at band[ku + r - c + c ld]), plus, on the first K rows, Cc x_prev
// (Cc K x K, xp the previous chunk's last K entries; NULL: no such chunk) and, on the last K rows,
// Bc x_next (xn its first K). Then per block: kind 0 max |y_i|; kind 1 sum conj(aux_i) y_i;
// kind 2 sum conj(y_i) aux_i and sum conj(y_i) y_i, into work (see finish_kernel).
//
// One thread per row, blockDim.x rows per block. Band storage keeps columns contiguous, so a row
// is a strided walk (what cuBLAS gbmv does: neighbouring threads read ld elements apart). Here a
// block stages the band in shared memory with coalesced loads, a slab of D band rows (diagonals)
// at a time: band rows k0 .. k0 + D - 1 of the columns its rows need, c = i0 + ku - (k0 + D - 1) ..
// i0 + RB - 1 + ku - k0 (RB + D - 1 columns, D contiguous elements each), so the halo is only
// D - 1 columns per slab whatever the band's width. Thread t then reads band row k0 + j of
// column t + D - 1 - j (shared, stride lds = D | 1, odd: no bank conflicts for 4, 8 or 16-byte
// elements). Shared memory: (RB + D - 1) (lds + 1) elements (mv_slab picks D).
template <typename T>
__global__ void __launch_bounds__(SPIKE_THREADS) band_mv_kernel(int kind, int s, int kl, int ku, int K, const T *band, int ld,
                                                                int D, const T *Cc, const T *xp, const T *Bc, const T *xn,
                                                                const T *x, const T *aux, T *y, T *work)
{
    extern __shared__ double2 mv_smem[];   // 16-byte aligned: enough for every T
    T *As = reinterpret_cast<T *>(mv_smem);
    const int nu = kl + ku + 1, RB = blockDim.x, t = threadIdx.x, i0 = blockIdx.x * RB, r = i0 + t, lds = D | 1;
    T *xs = As + (size_t)(RB + D - 1) * lds;
    const T zero = from_real<T>(0);
    T acc = zero;
    for (int k0 = 0; k0 < nu; k0 += D) {
        const int Dk = min(D, nu - k0), ncol = RB + Dk - 1, cA = i0 + ku - (k0 + Dk - 1);
        __syncthreads();   // the previous slab's reads are over
        for (int e = t; e < ncol * Dk; e += RB) {
            const int lc = e / Dk, j = e - lc * Dk, c = cA + lc;
            As[lc * lds + j] = c >= 0 && c < s ? band[(size_t)c * ld + k0 + j] : zero;
        }
        for (int lc = t; lc < ncol; lc += RB) {
            const int c = cA + lc;
            xs[lc] = c >= 0 && c < s ? x[c] : zero;
        }
        __syncthreads();
        // column outside [0, s): zero above; a row >= s computes garbage-free zeros and is not stored
        for (int j = 0; j < Dk; j++)
            acc = add(acc, mul(As[(t + Dk - 1 - j) * lds + j], xs[t + Dk - 1 - j]));
    }
    double m = 0;
    T s1 = zero, s2 = zero;
    if (r < s) {
        if (xp && r < K)
            for (int c = 0; c < K; c++) acc = add(acc, mul(Cc[r + (size_t)c * K], xp[c]));
        if (xn && r >= s - K)
            for (int c = 0; c < K; c++) acc = add(acc, mul(Bc[(r - (s - K)) + (size_t)c * K], xn[c]));
        const T v = kind == 0 ? sub(aux[r], acc) : acc;
        y[r] = v;
        if (kind == 0) m = absv(v);
        else if (kind == 1) s1 = mul(conj_(aux[r]), v);
        else { s1 = mul(conj_(v), aux[r]); s2 = mul(conj_(v), v); }
    }
    block_reduce3(m, s1, s2);
    if (t == 0) {
        const int nb = gridDim.x;
        work[blockIdx.x] = from_real<T>(m);
        work[nb + blockIdx.x] = s1;
        work[2 * (size_t)nb + blockIdx.x] = s2;
    }
}

// ---- BiCGStab's vector updates, with the reductions that read their results fused -----------
// (scalars read on the GPU: sc[1], sc[2], sc[3] = SS_SCAL_ALPHA, _OMEGA, _BETA)
//   op 1: p = r + beta (p - omega v)          v0 r, v1 v, v2 p
//   op 2: s = r - alpha v                     v0 r, v1 v, v2 s
//   op 3: x += alpha ph + omega sh; r = s - omega t;  max |r|, sum conj(rh) r
//                                             v0 ph, v1 sh, v2 s, v3 t, v4 x, v5 r, v6 rh
//   op 4: rh = r, p = v = 0;  sum conj(r) r   v0 r, v1 rh, v2 p, v3 v
//   op 5: v1 = v0;  max |v1|                  v0 source, v1 destination
//   op 6: x += z (a refinement step)          v0 z, v1 x
// Grid-stride; ops 3-5 leave per-block results in work (see finish_kernel).
template <typename T>
__global__ void __launch_bounds__(SPIKE_THREADS) update_kernel(int op, int n, const T *sc, T *v0, T *v1, T *v2, T *v3, T *v4,
                                                               T *v5, const T *v6, T *work)
{
    const T zero = from_real<T>(0);
    T alpha = zero, omega = zero, beta = zero;
    if (op <= 3) { alpha = sc[1]; omega = sc[2]; beta = sc[3]; }
    double m = 0;
    T s1 = zero, s2 = zero;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        if (op == 1) {
            v2[i] = add(v0[i], mul(beta, sub(v2[i], mul(omega, v1[i]))));
        } else if (op == 2) {
            v2[i] = sub(v0[i], mul(alpha, v1[i]));
        } else if (op == 3) {
            v4[i] = add(v4[i], add(mul(alpha, v0[i]), mul(omega, v1[i])));
            const T ri = sub(v2[i], mul(omega, v3[i]));
            v5[i] = ri;
            max_nan(m, absv(ri));
            s1 = add(s1, mul(conj_(v6[i]), ri));
        } else if (op == 6) {
            v1[i] = add(v1[i], v0[i]);
        } else if (op == 4) {
            const T ri = v0[i];
            v1[i] = ri; v2[i] = zero; v3[i] = zero;
            s1 = add(s1, mul(conj_(ri), ri));
        } else {
            const T bi = v0[i];
            v1[i] = bi;
            max_nan(m, absv(bi));
        }
    }
    if (op <= 2 || op == 6)
        return;   // the same in the whole block: no barrier is skipped by some threads only
    block_reduce3(m, s1, s2);
    if (threadIdx.x == 0) {
        const int nb = gridDim.x;
        work[blockIdx.x] = from_real<T>(m);
        work[nb + blockIdx.x] = s1;
        work[2 * (size_t)nb + blockIdx.x] = s2;
    }
}
#define SPIKE_UPDATE_BLOCKS 1056   // 8 per SM of an H100: each thread a few elements, the second pass short

// ---- entry points ------------------------------------------------------------------------
// The factor kernel's threads per block: 32 to 64 entries of a band step's update window (kl x
// (kl + ku)) per thread, at least one warp, at most 1024. Measured on one H100 (bench/NOTES.md, sessions
// 16 and 17): K = 128 factor 193 / 138 / 137 ms with 256 / 512 / 1024 threads, K = 64 37 / 40 / 49 ms;
// at K = 1 (a window of 2 entries) gbtrf_spike 1.9-2.0 ms with 32 threads against 3.2-3.6 ms with 256
// (each band step's barriers are a single warp's), K = 8 and 32 the same within the runs' spread.
static int factor_threads(int kl, int ku)
{
    long window = (long)kl * (kl + ku);
    int t = 32;
    while (t < SPIKE_FACTOR_MAX_THREADS && 32L * 2 * t <= window)
        t *= 2;
    return t;
}

// The factor kernel's band LUs blocked (gbtrf_blocked) where their shared memory fits beside the kernel's
// static arrays and the band is wider than gbtf2_narrow's, unless STARSOLVE_SPIKE_BLOCKED_LU=0 (gbtf2_block
// step by step, kept for comparing the two in one command: bench/NOTES.md, session 26)
static bool spike_blocked_lu(int kl, int ku, size_t smem)
{
    // function-local statics: initialised once, thread-safely, by whichever CUDA worker comes first (the
    // GPUs of one machine are taken to be of one kind)
    static const bool on = [] { const char *e = getenv("STARSOLVE_SPIKE_BLOCKED_LU"); return !(e && e[0] == '0'); }();
    static const int optin = [] {
        int dev = 0, bytes = 0;
        SS_CUDA_CHECK(cudaGetDevice(&dev));
        SS_CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
        return bytes;
    }();
    const size_t static_smem = 4 * 1024;   // the kernel's static shared arrays (under 1 KB), with room to spare
    return on && kl + ku > 2 && smem + static_smem <= (size_t)optin;
}

// The one-warp solves (gbtrs1_warp) unless STARSOLVE_SPIKE_WARP_SOLVES=0 (the 256-thread kernels, kept
// for partitions too large for shared memory and for comparing the two in one command: bench/NOTES.md)
static bool spike_warp_solves()
{
    // read once, thread-safely (two CUDA workers may ask first at the same time), as spike_blocked_lu
    static const bool on = [] { const char *e = getenv("STARSOLVE_SPIKE_WARP_SOLVES"); return !(e && e[0] == '0'); }();
    return on;
}

static unsigned grid_for(size_t count)
{
    size_t b = (count + SPIKE_THREADS - 1) / SPIKE_THREADS;
    return b < 1 ? 1u : b > 4096 ? 4096u : (unsigned)b;
}

#define SS_SPIKE_DISPATCH(prec, CALL)                                              \
    switch (prec) {                                                                \
    case 's': { typedef float T; CALL; break; }                                    \
    case 'd': { typedef double T; CALL; break; }                                   \
    case 'c': { typedef cuFloatComplex T; CALL; break; }                           \
    case 'z': { typedef cuDoubleComplex T; CALL; break; }                          \
    default: ss_cuda_fail("spike.cu: precision", (int)(prec), __FILE__, __LINE__); \
    }
// working precision a, factor precision f: (s, s), (d, d), (d, s), (c, c), (z, z), (z, c);
// FN a template <TA, TF> host function, ARGS its parenthesised arguments
#define SS_SPIKE_DISPATCH2(a, f, FN, ARGS)                                                     \
    do {                                                                                       \
        if ((a) == 's' && (f) == 's') FN<float, float> ARGS;                                   \
        else if ((a) == 'd' && (f) == 'd') FN<double, double> ARGS;                            \
        else if ((a) == 'd' && (f) == 's') FN<double, float> ARGS;                             \
        else if ((a) == 'c' && (f) == 'c') FN<cuFloatComplex, cuFloatComplex> ARGS;            \
        else if ((a) == 'z' && (f) == 'z') FN<cuDoubleComplex, cuDoubleComplex> ARGS;          \
        else if ((a) == 'z' && (f) == 'c') FN<cuDoubleComplex, cuFloatComplex> ARGS;           \
        else ss_cuda_fail("spike.cu: precisions", (a) * 256 + (f), __FILE__, __LINE__);       \
    } while (0)

template <typename TA, typename TF>
static void factor_work(const struct ss_spike_chunk *c, size_t *bytes)
{
    size_t o[3];
    *bytes = factor_offsets<TA, TF>(*c, o) * (size_t)c->np;
}

extern "C" size_t ss_cuda_spike_factor_work(char a, char f, const struct ss_spike_chunk *c)
{
    size_t bytes = 0;
    SS_SPIKE_DISPATCH2(a, f, factor_work, (c, &bytes));
    return bytes;
}

extern "C" void ss_cuda_spike_reduced_factor(char a, int K, int count, const void *vb, size_t vbs, const void *wt, size_t wts,
                                             void *S, int *ipivS, cudaStream_t st)
{
    if (count <= 0) return;
    SS_SPIKE_DISPATCH(a, (reduced_factor_kernel<T><<<count, SPIKE_THREADS, 0, st>>>(K, (const T *)vb, vbs, (const T *)wt, wts,
                                                                                     (T *)S, ipivS)));
    SS_CHECK_LAUNCH("reduced_factor_kernel");
}

template <typename TA, typename TF>
static void factor_chunk(const struct ss_spike_chunk *c, const void *bp, int ldp, int sp, const void *bi, int ldi, const void *bn,
                         int ldn, void *F, int *ipiv, void *tips, void *S, int *ipivS, void *stat, void *work, cudaStream_t st)
{
    size_t o[3], stride = factor_offsets<TA, TF>(*c, o);
    const int K = c->K;
    const size_t smem = band_lu_smem<TF>(c->kl, c->ku);
    const bool blocked = spike_blocked_lu(c->kl, c->ku, smem);
    if (c->kl + c->ku <= 2)   // factor_threads gives these bands one warp
        factor_chunk_kernel<TA, TF, true><<<c->np, 32, 0, st>>>(*c, (const TA *)bp, ldp, sp, (const TA *)bi, ldi, (const TA *)bn, ldn,
                                                                (TF *)F, ipiv, (TA *)tips, (char *)work, stride, false);
    else {
        // spike_blocked_lu kept smem within what a block may ask for (static arrays and 4 KB to spare)
        if (blocked && !ss_cuda_allow_smem(factor_chunk_kernel<TA, TF, false>, smem))
            ss_cuda_fail("factor_chunk: band LU's shared memory", (int)smem, __FILE__, __LINE__);
        factor_chunk_kernel<TA, TF, false><<<c->np, factor_threads(c->kl, c->ku), blocked ? smem : 0, st>>>(
            *c, (const TA *)bp, ldp, sp, (const TA *)bi, ldi, (const TA *)bn, ldn, (TF *)F, ipiv, (TA *)tips, (char *)work, stride,
            blocked);
    }
    SS_CHECK_LAUNCH("factor_chunk_kernel");
    if (c->np > 1) {   // the inner interfaces: Vb of partition j, Wt of partition j + 1
        reduced_factor_kernel<TA><<<c->np - 1, SPIKE_THREADS, 0, st>>>(K, (const TA *)tips + SS_TIP_VB(K), SS_TIPS(K),
                                                                       (const TA *)tips + SS_TIPS(K) + SS_TIP_WT(K), SS_TIPS(K),
                                                                       (TA *)S, ipivS);
        SS_CHECK_LAUNCH("reduced_factor_kernel");
    }
    summary_kernel<TA><<<1, SPIKE_THREADS, 0, st>>>(c->np, K, (const TA *)tips, (const TA *)S, (TA *)stat);
    SS_CHECK_LAUNCH("summary_kernel");
}

extern "C" void ss_cuda_spike_factor_chunk(char a, char f, const struct ss_spike_chunk *c, const void *bp, int ldp, int sp,
                                           const void *bi, int ldi, const void *bn, int ldn, void *F, int *ipiv, void *tips,
                                           void *S, int *ipivS, void *stat, void *work, cudaStream_t st)
{
    SS_SPIKE_DISPATCH2(a, f, factor_chunk, (c, bp, ldp, sp, bi, ldi, bn, ldn, F, ipiv, tips, S, ipivS, stat, work, st));
}

extern "C" void ss_cuda_spike_reduced_solve(char a, int K, int count, const void *S, const int *ipivS, const void *gb, size_t gbs,
                                            const void *gtop, size_t gts, void *y, cudaStream_t st)
{
    if (count <= 0) return;
    SS_SPIKE_DISPATCH(a, (reduced_solve_kernel<T><<<count, SPIKE_THREADS, 0, st>>>(K, (const T *)S, ipivS, (const T *)gb, gbs,
                                                                                    (const T *)gtop, gts, (T *)y)));
    SS_CHECK_LAUNCH("reduced_solve_kernel");
}

template <typename TA, typename TF>
static void tipsolve_chunk(const struct ss_spike_chunk *c, const void *F, const int *ipiv, const void *f, const void *S,
                           const int *ipivS, void *gt, void *y, void *w, void *g, cudaStream_t st)
{
    const int K = c->K;
    size_t smem;
    int sc = spike_warp_solves() ? warp_slab<TF>(c, &smem) : 0;
    if (sc > 0) {
        tipsolve_warp_kernel<TA, TF><<<c->np, 32, smem, st>>>(*c, (const TF *)F, ipiv, (const TA *)f, (TA *)gt, (TA *)g, sc);
        SS_CHECK_LAUNCH("tipsolve_warp_kernel");
    } else {
        tipsolve_chunk_kernel<TA, TF><<<c->np, SPIKE_THREADS, 0, st>>>(*c, (const TF *)F, ipiv, (const TA *)f, (TF *)w, (TA *)gt,
                                                                       (TA *)g);
        SS_CHECK_LAUNCH("tipsolve_chunk_kernel");
    }
    if (c->np > 1) {   // the inner interfaces: bottom of partition j's g, top of partition j + 1's
        reduced_solve_kernel<TA><<<c->np - 1, SPIKE_THREADS, 0, st>>>(K, (const TA *)S, ipivS, (const TA *)gt + K, 2 * (size_t)K,
                                                                      (const TA *)gt + 2 * (size_t)K, 2 * (size_t)K, (TA *)y);
        SS_CHECK_LAUNCH("reduced_solve_kernel");
    }
}

extern "C" void ss_cuda_spike_tipsolve_chunk(char a, char f, const struct ss_spike_chunk *c, const void *F, const int *ipiv,
                                             const void *fv, const void *S, const int *ipivS, void *gt, void *y, void *w,
                                             void *g, cudaStream_t st)
{
    SS_SPIKE_DISPATCH2(a, f, tipsolve_chunk, (c, F, ipiv, fv, S, ipivS, gt, y, w, g, st));
}

template <typename TA, typename TF>
static void retrieve_chunk(const struct ss_spike_chunk *c, const void *F, const int *ipiv, const void *f, const void *tips,
                           const void *y, const void *yup, const void *ydown, void *x, void *w, cudaStream_t st)
{
    size_t smem;
    int sc = spike_warp_solves() ? warp_slab<TF>(c, &smem) : 0;
    if (sc > 0) {
        retrieve_warp_kernel<TA, TF><<<c->np, 32, smem, st>>>(*c, (const TF *)F, ipiv, (const TA *)f, (const TA *)tips, (const TA *)y,
                                                              (const TA *)yup, (const TA *)ydown, (TA *)x, sc);
        SS_CHECK_LAUNCH("retrieve_warp_kernel");
        return;
    }
    retrieve_chunk_kernel<TA, TF><<<c->np, SPIKE_THREADS, 0, st>>>(*c, (const TF *)F, ipiv, (const TA *)f, (const TA *)tips,
                                                                     (const TA *)y, (const TA *)yup, (const TA *)ydown, (TA *)x,
                                                                     (TF *)w);
    SS_CHECK_LAUNCH("retrieve_chunk_kernel");
}

extern "C" void ss_cuda_spike_retrieve_chunk(char a, char f, const struct ss_spike_chunk *c, const void *F, const int *ipiv,
                                             const void *fv, const void *tips, const void *y, const void *yup, const void *ydown,
                                             void *x, void *w, cudaStream_t st)
{
    SS_SPIKE_DISPATCH2(a, f, retrieve_chunk, (c, F, ipiv, fv, tips, y, yup, ydown, x, w, st));
}

// zspike_reduce_cpu on the GPU, one thread (a few dozen numbers): the partial sums of BiCGStab's
// chunks are on the GPU already, and the scalars are read there next; on a CPU worker the reduction
// cost two small copies each way, waited for by the CUDA driver thread (bench/NOTES.md, session 15:
// 1-3 ms per reduction of a solve at n = 1e6). Same operations in the same order as the CPU's.
struct spike_partials { const void *p[SS_SPIKE_MAX_PARTIALS]; };

template <typename T>
__global__ void reduce_kernel(int op, int np, struct spike_partials parts, T *sc)
{
    const T zero = from_real<T>(0), one = from_real<T>(1);
    double norm = 0;
    T sum[SS_PART_COUNT];
    for (int k = 0; k < SS_PART_COUNT; k++)
        sum[k] = zero;
    for (int i = 0; i < np; i++) {   // in chunk order, as the CPU
        const T *part = (const T *)parts.p[i];
        double e = (double)re(part[SS_PART_NORM]);
        if (e > norm || isnan(e)) norm = e;
        for (int k = 1; k < SS_PART_COUNT; k++)
            sum[k] = add(sum[k], part[k]);
    }
    switch (op) {
    case SS_RED_BNORM:
        sc[SS_SCAL_BNORM] = from_real<T>(norm);
        break;
    case SS_RED_START:
        sc[SS_SCAL_RNORM] = from_real<T>(norm);
        sc[SS_SCAL_RHO] = sum[SS_PART_RHO];
        sc[SS_SCAL_ALPHA] = sc[SS_SCAL_OMEGA] = one;
        sc[SS_SCAL_BETA] = zero;
        sc[SS_SCAL_BREAK] = is_zero(sum[SS_PART_RHO]) ? one : zero;
        break;
    case SS_RED_RESID:
        sc[SS_SCAL_RNORM] = from_real<T>(norm);
        break;
    case SS_RED_ALPHA:
        if (is_zero(sum[SS_PART_RV])) {
            sc[SS_SCAL_ALPHA] = zero;
            sc[SS_SCAL_BREAK] = one;
        } else {
            sc[SS_SCAL_ALPHA] = div_(sc[SS_SCAL_RHO], sum[SS_PART_RV]);
        }
        break;
    case SS_RED_OMEGA:
        sc[SS_SCAL_OMEGA] = re(sum[SS_PART_TT]) > 0 ? div_(sum[SS_PART_TS], sum[SS_PART_TT]) : zero;
        break;
    default:   // SS_RED_END
        sc[SS_SCAL_RNORM] = from_real<T>(norm);
        if (is_zero(sum[SS_PART_RHO]) || is_zero(sc[SS_SCAL_OMEGA]) || is_zero(sc[SS_SCAL_RHO])) {
            sc[SS_SCAL_BREAK] = one;
            sc[SS_SCAL_BETA] = zero;
        } else {
            sc[SS_SCAL_BETA] = mul(div_(sum[SS_PART_RHO], sc[SS_SCAL_RHO]), div_(sc[SS_SCAL_ALPHA], sc[SS_SCAL_OMEGA]));
        }
        sc[SS_SCAL_RHO] = sum[SS_PART_RHO];
        break;
    }
}

extern "C" void ss_cuda_spike_reduce(char p, int op, int np, const void *const *partials, void *scalars, cudaStream_t st)
{
    if (np > SS_SPIKE_MAX_PARTIALS)
        ss_cuda_fail("spike.cu: reduce: too many partial sums", np, __FILE__, __LINE__);
    struct spike_partials parts = {};
    for (int i = 0; i < np; i++)
        parts.p[i] = partials[i];
    SS_SPIKE_DISPATCH(p, (reduce_kernel<T><<<1, 1, 0, st>>>(op, np, parts, (T *)scalars)));
    SS_CHECK_LAUNCH("reduce_kernel");
}

// the blocks of the matvec on n rows and of the updates on n entries
static unsigned mv_blocks(int n) { return (unsigned)((n + SPIKE_THREADS - 1) / SPIKE_THREADS) + (n <= 0); }
static unsigned update_blocks(int n)
{
    unsigned g = grid_for((size_t)n);
    return g > SPIKE_UPDATE_BLOCKS ? SPIKE_UPDATE_BLOCKS : g;
}

// The matvec's slab of band rows (band_mv_kernel): nu band rows in equal slabs of D, as few as keep
// the shared memory, (RB + D - 1) (lds + 1) elements, within SPIKE_MV_SMEM (under the 48 KB a block
// gets without asking, beside block_reduce3's 10 KB at most). Returns D; *bytes the shared memory.
#define SPIKE_MV_SMEM (36 * 1024)
static int mv_slab(int nu, size_t es, size_t *bytes)
{
    for (int nslabs = 1;; nslabs++) {
        int D = (nu + nslabs - 1) / nslabs;
        *bytes = (size_t)(SPIKE_THREADS + D - 1) * ((size_t)(D | 1) + 1) * es;
        if (*bytes <= SPIKE_MV_SMEM || D == 1)
            return D;
    }
}

extern "C" size_t ss_cuda_spike_work(char p, int n)
{
    size_t bytes = 0, blocks = mv_blocks(n) > update_blocks(n) ? mv_blocks(n) : update_blocks(n);
    SS_SPIKE_DISPATCH(p, (bytes = 3 * blocks * sizeof(T)));
    return bytes;
}

template <typename T>
static void matvec(int kind, const struct ss_spike_chunk *c, const void *band, int ld, const void *Cc, const void *xp,
                   const void *Bc, const void *xn, const void *x, const void *aux, void *y, void *om, void *o1, void *o2,
                   void *work, cudaStream_t st)
{
    size_t smem;
    const int D = mv_slab(c->kl + c->ku + 1, sizeof(T), &smem);
    const unsigned nb = mv_blocks(c->size);
    band_mv_kernel<T><<<nb, SPIKE_THREADS, smem, st>>>(kind, c->size, c->kl, c->ku, c->K, (const T *)band, ld, D, (const T *)Cc,
                                                       (const T *)xp, (const T *)Bc, (const T *)xn, (const T *)x, (const T *)aux,
                                                       (T *)y, (T *)work);
    SS_CHECK_LAUNCH("band_mv_kernel");
    finish_kernel<T><<<1, SPIKE_THREADS, 0, st>>>((int)nb, (const T *)work, (T *)om, (T *)o1, (T *)o2);
    SS_CHECK_LAUNCH("finish_kernel");
}

extern "C" void ss_cuda_spike_matvec(char p, int kind, const struct ss_spike_chunk *c, const void *band, int ld, const void *Cc,
                                     const void *xp, const void *Bc, const void *xn, const void *x, const void *aux, void *y,
                                     void *om, void *o1, void *o2, void *work, cudaStream_t st)
{
    SS_SPIKE_DISPATCH(p, matvec<T>(kind, c, band, ld, Cc, xp, Bc, xn, x, aux, y, om, o1, o2, work, st));
}

extern "C" void ss_cuda_spike_update(char p, int op, int n, const void *sc, void *const *v, void *om, void *o1, void *work,
                                     cudaStream_t st)
{
    const unsigned g = update_blocks(n);
    SS_SPIKE_DISPATCH(p, (update_kernel<T><<<g, SPIKE_THREADS, 0, st>>>(op, n, (const T *)sc, (T *)v[0], (T *)v[1], (T *)v[2],
                                                                         (T *)v[3], (T *)v[4], (T *)v[5], (const T *)v[6],
                                                                         (T *)work)));
    SS_CHECK_LAUNCH("update_kernel");
    if (op >= 3 && op <= 5) {
        SS_SPIKE_DISPATCH(p, (finish_kernel<T><<<1, SPIKE_THREADS, 0, st>>>((int)g, (const T *)work, (T *)om, (T *)o1, nullptr)));
        SS_CHECK_LAUNCH("finish_kernel");
    }
}
