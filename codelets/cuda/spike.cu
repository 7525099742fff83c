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
#include <cuComplex.h>
#include "batched_scalar.cuh"

extern "C" void ss_cuda_fail(const char *what, int status, const char *file, int line);

// bytes rounded up so that consecutive pieces of one scratch buffer stay aligned (as ss_align)
__host__ __device__ inline size_t ss_align_dev(size_t bytes) { return (bytes + 255) & ~(size_t)255; }

static void check_launch(const char *what)
{
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        ss_cuda_fail(what, (int)err, __FILE__, __LINE__);
}

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

// ---- block-level pieces (all threads of the block call them; they end synchronised) -----------

// F (ldf = 2 kl + ku + 1, m columns) = the band's entries with both indices in [0, m), converted;
// zero elsewhere, so gbtf2's fill-in rows start zero (LAPACK's gbtf2 zeroes them itself).
template <typename TA, typename TF>
__device__ void band_to_lu_block(int m, int kl, int ku, const TA *band, size_t ldb, TF *F, int ldf)
{
    size_t total = (size_t)ldf * m;
    for (size_t e = threadIdx.x; e < total; e += blockDim.x) {
        int row = (int)(e % ldf), c = (int)(e / ldf);
        int r = row - kl - ku + c;   // the matrix row of F(row, c)
        bool in = row >= kl && r >= 0 && r < m;
        F[e] = in ? cvt<TF>(band[(size_t)(ku + r - c) + (size_t)c * ldb]) : from_real<TF>(0);
    }
    __syncthreads();
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
        if (threadIdx.x == 0) {   // i?amax: the first entry of largest |re| + |im|
            int jp = 0;
            double best = abs1(ab[kv + (size_t)j * ldab]);
            for (int i = 1; i <= km; i++) {
                double v = abs1(ab[kv + i + (size_t)j * ldab]);
                if (v > best) { best = v; jp = i; }
            }
            ipiv[j] = jp + j + 1;
            s_jp = jp;
            s_ok = !is_zero(ab[kv + jp + (size_t)j * ldab]);
            if (s_ok) s_ju = max(s_ju, min(j + ku + jp, n - 1));
            else if (s_info == 0) s_info = j + 1;
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
                // rank-1 update of rows j+1 .. j+km, columns j+1 .. ju (row j, the pivot row, is only read)
                int cols = ju - j;
                for (int e = threadIdx.x; e < km * cols; e += blockDim.x) {
                    int i = 1 + e % km, c = 1 + e / km;
                    size_t dst = (size_t)(kv - c + i) + (size_t)(j + c) * ldab;
                    ab[dst] = sub(ab[dst], mul(ab[kv + i + (size_t)j * ldab], ab[(size_t)(kv - c) + (size_t)(j + c) * ldab]));
                }
            }
        }
        __syncthreads();
    }
    int info = s_info;
    __syncthreads();   // every thread has read s_info before a next call resets it
    return info;
}

// LAPACK's gbtrs, no transpose, with gbtf2's factors; the pivots are ipiv[j] - shift (1-based):
// shift j0 runs it on the trailing rows j0 .. of a factorization (see the factor kernel)
template <typename T>
__device__ void gbtrs_block(int n, int kl, int ku, int nrhs, const T *ab, int ldab, const int *ipiv, int shift, T *B, int ldb)
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
            for (int e = threadIdx.x; e < lm * nrhs; e += blockDim.x) {
                int i = 1 + e % lm, r = e / lm;
                size_t d = (size_t)(j + i) + (size_t)r * ldb;
                B[d] = sub(B[d], mul(ab[kv + i + (size_t)j * ldab], B[j + (size_t)r * ldb]));
            }
            __syncthreads();
        }
    // U: upper triangular with kl + ku superdiagonals (tbsv, column by column from the bottom)
    for (int j = n - 1; j >= 0; j--) {
        for (int r = threadIdx.x; r < nrhs; r += blockDim.x)
            B[j + (size_t)r * ldb] = div_(B[j + (size_t)r * ldb], ab[kv + (size_t)j * ldab]);
        __syncthreads();
        int top = max(0, j - kv), cnt = j - top;
        for (int e = threadIdx.x; e < cnt * nrhs; e += blockDim.x) {
            int i = top + e % cnt, r = e / cnt;
            size_t d = (size_t)i + (size_t)r * ldb;
            B[d] = sub(B[d], mul(ab[(size_t)(kv + i - j) + (size_t)j * ldab], B[j + (size_t)r * ldb]));
        }
        __syncthreads();
    }
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
    __shared__ double smin[SPIKE_THREADS];
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
    smin[threadIdx.x] = m;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h /= 2) {
        if (threadIdx.x < h && smin[threadIdx.x + h] < smin[threadIdx.x]) smin[threadIdx.x] = smin[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        tips[SS_TIP_DOM(K)] = from_real<T>(smin[0]);
    __syncthreads();
}

// The factor kernel's scratch per partition: Z for Vb ((K + kl) x K, factor precision), then T
// (the leading 4K columns in gbtrf layout), Z for Wt (4K x K) and T's pivots, in working
// precision. o[0..2]: the offsets of T, Z, the pivots; returns the bytes per partition.
template <typename TA, typename TF>
__host__ __device__ size_t factor_offsets(int kl, int ku, int K, size_t o[3])
{
    const size_t ldf = 2 * (size_t)kl + ku + 1, mw = 4 * (size_t)K;
    o[0] = ss_align_dev(((size_t)K + kl) * K * sizeof(TF));
    o[1] = o[0] + ss_align_dev(ldf * mw * sizeof(TA));
    o[2] = o[1] + ss_align_dev(mw * K * sizeof(TA));
    return o[2] + ss_align_dev(mw * sizeof(int));
}

// ---- kernels, one block per partition of a chunk --------------------------------------------

// The factor task, as zspike_factor_cpu: per partition (block) the tips' couplings and dominance,
// the diagonal block in gbtrf layout and its LU, then Vb by gbtrs on the trailing rows and Wt
// from the leading block's LU. bp / bn: the neighbour chunks' bands (used by the first / last
// partition only, when the chunk has such a neighbour); sp: bp's columns.
template <typename TA, typename TF>
__global__ void __launch_bounds__(SPIKE_THREADS) factor_chunk_kernel(struct ss_spike_chunk c, const TA *bp, int ldp, int sp,
                                                                     const TA *bi, int ldi, const TA *bn, int ldn, TF *F,
                                                                     int *ipiv, TA *tips, char *work, size_t wstride)
{
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
    int info = gbtf2_block(s, kl, ku, Fi, ldf, pi);
    if (info != 0) {   // the same in every thread: the whole block leaves
        if (threadIdx.x == 0) t[SS_TIP_STATUS(K)] = from_real<TA>(info);
        return;
    }
    size_t o[3];
    factor_offsets<TA, TF>(kl, ku, K, o);
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
        gbtrs_block(m, kl, ku, K, Fi + (size_t)j0 * ldf, ldf, pi + j0, j0, Z, m);
        for (size_t e = threadIdx.x; e < (size_t)K * K; e += blockDim.x)
            t[SS_TIP_VB(K) + e] = cvt<TA>(Z[(m - K + (int)(e % K)) + (e / K) * (size_t)m]);
        __syncthreads();
    }
    if (Bp) {   // Wt: the leading m x m block, in working precision
        const int m = min(s, 4 * K);
        TA *T = (TA *)(w + o[0]), *Z = (TA *)(w + o[1]);
        int *piv = (int *)(w + o[2]);
        band_to_lu_block(m, kl, ku, Bi, ldi, T, ldf);
        if (gbtf2_block(m, kl, ku, T, ldf, piv) != 0) {
            if (threadIdx.x == 0) t[SS_TIP_STATUS(K)] = from_real<TA>(1);
            return;
        }
        const TA *Cc = t + SS_TIP_CC(K);
        for (size_t e = threadIdx.x; e < (size_t)m * K; e += blockDim.x) {
            int r = (int)(e % m), cc = (int)(e / m);
            Z[e] = r < K ? Cc[r + (size_t)cc * K] : from_real<TA>(0);
        }
        __syncthreads();
        gbtrs_block(m, kl, ku, K, T, ldf, piv, 0, Z, m);
        for (size_t e = threadIdx.x; e < (size_t)K * K; e += blockDim.x)
            t[SS_TIP_WT(K) + e] = Z[(int)(e % K) + (e / K) * (size_t)m];
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
// scratch), gt_i = [top K; bottom K] of it
template <typename TA, typename TF>
__global__ void __launch_bounds__(SPIKE_THREADS) tipsolve_chunk_kernel(struct ss_spike_chunk c, const TF *F, const int *ipiv,
                                                                       const TA *f, TF *w, TA *gt)
{
    const int i = blockIdx.x, K = c.K, ldf = 2 * c.kl + c.ku + 1;
    const int off = ss_spike_chunk_off(&c, i), s = ss_spike_chunk_psize(&c, i);
    TF *wi = w + off;
    for (int r = threadIdx.x; r < s; r += blockDim.x)
        wi[r] = cvt<TF>(f[off + r]);
    __syncthreads();
    gbtrs_block(s, c.kl, c.ku, 1, F + (size_t)off * ldf, ldf, ipiv + off, 0, wi, s);
    for (int r = threadIdx.x; r < K; r += blockDim.x) {
        gt[2 * (size_t)K * i + r] = cvt<TA>(wi[r]);
        gt[2 * (size_t)K * i + K + r] = cvt<TA>(wi[s - K + r]);
    }
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
    for (int r = threadIdx.x; r < s; r += blockDim.x) {
        TA v = f[off + r];
        if (yp && r < K)
            for (int cc = 0; cc < K; cc++) v = sub(v, mul(Cc[r + (size_t)cc * K], yp[cc]));
        if (yn && r >= s - K)
            for (int cc = 0; cc < K; cc++) v = sub(v, mul(Bc[(r - (s - K)) + (size_t)cc * K], yn[K + cc]));
        wi[r] = cvt<TF>(v);
    }
    __syncthreads();
    gbtrs_block(s, c.kl, c.ku, 1, F + (size_t)off * ldf, ldf, ipiv + off, 0, wi, s);
    for (int r = threadIdx.x; r < s; r += blockDim.x)
        x[off + r] = cvt<TA>(wi[r]);
}

// ---- reductions: each block's share into out[blockIdx.x] (kind 0 max |x_i| as a real, kind 1
// sum conj(x_i) y_i, kind 2 sum x_i); a second one-block pass combines the shares (fixed order:
// the same result on every run)
template <typename T>
__global__ void __launch_bounds__(SPIKE_THREADS) reduce_kernel(int kind, int n, const T *x, const T *y, T *out)
{
    __shared__ double smax[SPIKE_THREADS];
    __shared__ T ssum[SPIKE_THREADS];
    double m = 0;
    T s = from_real<T>(0);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        if (kind == 0) { double v = absv(x[i]); if (v > m || v != v) m = v; }
        else if (kind == 1) s = add(s, mul(conj_(x[i]), y[i]));
        else s = add(s, x[i]);
    }
    smax[threadIdx.x] = m;
    ssum[threadIdx.x] = s;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h /= 2) {
        if (threadIdx.x < h) {
            double o = smax[threadIdx.x + h];
            if (o > smax[threadIdx.x] || o != o) smax[threadIdx.x] = o;
            ssum[threadIdx.x] = add(ssum[threadIdx.x], ssum[threadIdx.x + h]);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] = kind == 0 ? from_real<T>(smax[0]) : ssum[0];
}
#define SPIKE_REDUCE_BLOCKS 264   // 2 per SM of an H100

// ---- BiCGStab's vector updates (scalars read on the GPU: sc[0..] as enum SS_SCAL_*) -------
// op 1: p = r + beta (p - omega v)   op 2: s = r - alpha v   op 3: x += alpha ph + omega sh; r = s - omega t
template <typename T>
__global__ void update_kernel(int op, int n, const T *sc, T *v0, T *v1, T *v2, T *v3, T *v4, T *v5)
{
    const T alpha = sc[1], omega = sc[2], beta = sc[3];   // SS_SCAL_ALPHA, _OMEGA, _BETA
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        if (op == 1)        // v0 r, v1 v, v2 p
            v2[i] = add(v0[i], mul(beta, sub(v2[i], mul(omega, v1[i]))));
        else if (op == 2)   // v0 r, v1 v, v2 s
            v2[i] = sub(v0[i], mul(alpha, v1[i]));
        else {              // v0 ph, v1 sh, v2 s, v3 t, v4 x, v5 r
            v4[i] = add(v4[i], add(mul(alpha, v0[i]), mul(omega, v1[i])));
            v5[i] = sub(v2[i], mul(omega, v3[i]));
        }
    }
}


// ---- entry points ------------------------------------------------------------------------
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
    *bytes = factor_offsets<TA, TF>(c->kl, c->ku, c->K, o) * (size_t)c->np;
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
    check_launch("reduced_factor_kernel");
}

template <typename TA, typename TF>
static void factor_chunk(const struct ss_spike_chunk *c, const void *bp, int ldp, int sp, const void *bi, int ldi, const void *bn,
                         int ldn, void *F, int *ipiv, void *tips, void *S, int *ipivS, void *stat, void *work, cudaStream_t st)
{
    size_t o[3], stride = factor_offsets<TA, TF>(c->kl, c->ku, c->K, o);
    const int K = c->K;
    factor_chunk_kernel<TA, TF><<<c->np, SPIKE_THREADS, 0, st>>>(*c, (const TA *)bp, ldp, sp, (const TA *)bi, ldi, (const TA *)bn,
                                                                   ldn, (TF *)F, ipiv, (TA *)tips, (char *)work, stride);
    check_launch("factor_chunk_kernel");
    if (c->np > 1) {   // the inner interfaces: Vb of partition j, Wt of partition j + 1
        reduced_factor_kernel<TA><<<c->np - 1, SPIKE_THREADS, 0, st>>>(K, (const TA *)tips + SS_TIP_VB(K), SS_TIPS(K),
                                                                       (const TA *)tips + SS_TIPS(K) + SS_TIP_WT(K), SS_TIPS(K),
                                                                       (TA *)S, ipivS);
        check_launch("reduced_factor_kernel");
    }
    summary_kernel<TA><<<1, SPIKE_THREADS, 0, st>>>(c->np, K, (const TA *)tips, (const TA *)S, (TA *)stat);
    check_launch("summary_kernel");
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
    check_launch("reduced_solve_kernel");
}

template <typename TA, typename TF>
static void tipsolve_chunk(const struct ss_spike_chunk *c, const void *F, const int *ipiv, const void *f, const void *S,
                           const int *ipivS, void *gt, void *y, void *w, cudaStream_t st)
{
    const int K = c->K;
    tipsolve_chunk_kernel<TA, TF><<<c->np, SPIKE_THREADS, 0, st>>>(*c, (const TF *)F, ipiv, (const TA *)f, (TF *)w, (TA *)gt);
    check_launch("tipsolve_chunk_kernel");
    if (c->np > 1) {   // the inner interfaces: bottom of partition j's g, top of partition j + 1's
        reduced_solve_kernel<TA><<<c->np - 1, SPIKE_THREADS, 0, st>>>(K, (const TA *)S, ipivS, (const TA *)gt + K, 2 * (size_t)K,
                                                                      (const TA *)gt + 2 * (size_t)K, 2 * (size_t)K, (TA *)y);
        check_launch("reduced_solve_kernel");
    }
}

extern "C" void ss_cuda_spike_tipsolve_chunk(char a, char f, const struct ss_spike_chunk *c, const void *F, const int *ipiv,
                                             const void *fv, const void *S, const int *ipivS, void *gt, void *y, void *w,
                                             cudaStream_t st)
{
    SS_SPIKE_DISPATCH2(a, f, tipsolve_chunk, (c, F, ipiv, fv, S, ipivS, gt, y, w, st));
}

template <typename TA, typename TF>
static void retrieve_chunk(const struct ss_spike_chunk *c, const void *F, const int *ipiv, const void *f, const void *tips,
                           const void *y, const void *yup, const void *ydown, void *x, void *w, cudaStream_t st)
{
    retrieve_chunk_kernel<TA, TF><<<c->np, SPIKE_THREADS, 0, st>>>(*c, (const TF *)F, ipiv, (const TA *)f, (const TA *)tips,
                                                                     (const TA *)y, (const TA *)yup, (const TA *)ydown, (TA *)x,
                                                                     (TF *)w);
    check_launch("retrieve_chunk_kernel");
}

extern "C" void ss_cuda_spike_retrieve_chunk(char a, char f, const struct ss_spike_chunk *c, const void *F, const int *ipiv,
                                             const void *fv, const void *tips, const void *y, const void *yup, const void *ydown,
                                             void *x, void *w, cudaStream_t st)
{
    SS_SPIKE_DISPATCH2(a, f, retrieve_chunk, (c, F, ipiv, fv, tips, y, yup, ydown, x, w, st));
}

extern "C" size_t ss_cuda_spike_reduce_work(char p)
{
    size_t bytes = 0;
    SS_SPIKE_DISPATCH(p, (bytes = SPIKE_REDUCE_BLOCKS * sizeof(T)));
    return bytes;
}

extern "C" void ss_cuda_spike_reduce(char p, int kind, int n, const void *x, const void *y, void *out, void *work,
                                     cudaStream_t st)
{
    unsigned g = grid_for((size_t)n);
    if (g > SPIKE_REDUCE_BLOCKS) g = SPIKE_REDUCE_BLOCKS;
    SS_SPIKE_DISPATCH(p, (reduce_kernel<T><<<g, SPIKE_THREADS, 0, st>>>(kind, n, (const T *)x, (const T *)y, (T *)work)));
    check_launch("reduce_kernel");
    SS_SPIKE_DISPATCH(p, (reduce_kernel<T><<<1, SPIKE_THREADS, 0, st>>>(kind == 0 ? 0 : 2, (int)g, (const T *)work,
                                                                         (const T *)work, (T *)out)));
    check_launch("reduce_kernel");
}

extern "C" void ss_cuda_spike_update(char p, int op, int n, const void *sc, void *const *v, cudaStream_t st)
{
    unsigned g = grid_for((size_t)n);
    SS_SPIKE_DISPATCH(p, (update_kernel<T><<<g, SPIKE_THREADS, 0, st>>>(op, n, (const T *)sc, (T *)v[0], (T *)v[1], (T *)v[2],
                                                                         (T *)v[3], (T *)v[4], (T *)v[5])));
    check_launch("update_kernel");
}
