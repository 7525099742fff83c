// The SPIKE banded solver's GPU kernels (codelets/codelet_zspike.c calls them through the
// plain C entry points at the end). Deliberately simple, one thread block per call where the
// work is a sequence of dependent steps (band LU and band solves: LAPACK's gbtf2 and gbtrs,
// step by step, each step's independent updates spread over the block's threads, the same
// layout, pivots and info as LAPACK, so CPU and GPU tasks can share factors), grid-wide for
// elementwise work. Not tuned: the seed's sliding-window LU is the next step, after these
// have been checked on a GPU against the CPU functions.
//
// Precisions are named by LAPACK's letter: 's' float, 'd' double, 'c' cuFloatComplex,
// 'z' cuDoubleComplex.
#include <cuda_runtime.h>
#include <cuComplex.h>

extern "C" void ss_cuda_fail(const char *what, int status, const char *file, int line);

static void check_launch(const char *what)
{
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        ss_cuda_fail(what, (int)err, __FILE__, __LINE__);
}

// ---- arithmetic on the four types
__device__ inline float mul(float a, float b) { return a * b; }
__device__ inline double mul(double a, double b) { return a * b; }
__device__ inline cuFloatComplex mul(cuFloatComplex a, cuFloatComplex b) { return cuCmulf(a, b); }
__device__ inline cuDoubleComplex mul(cuDoubleComplex a, cuDoubleComplex b) { return cuCmul(a, b); }
__device__ inline float sub(float a, float b) { return a - b; }
__device__ inline double sub(double a, double b) { return a - b; }
__device__ inline cuFloatComplex sub(cuFloatComplex a, cuFloatComplex b) { return cuCsubf(a, b); }
__device__ inline cuDoubleComplex sub(cuDoubleComplex a, cuDoubleComplex b) { return cuCsub(a, b); }
__device__ inline float add(float a, float b) { return a + b; }
__device__ inline double add(double a, double b) { return a + b; }
__device__ inline cuFloatComplex add(cuFloatComplex a, cuFloatComplex b) { return cuCaddf(a, b); }
__device__ inline cuDoubleComplex add(cuDoubleComplex a, cuDoubleComplex b) { return cuCadd(a, b); }
__device__ inline float dvd(float a, float b) { return a / b; }
__device__ inline double dvd(double a, double b) { return a / b; }
__device__ inline cuFloatComplex dvd(cuFloatComplex a, cuFloatComplex b) { return cuCdivf(a, b); }
__device__ inline cuDoubleComplex dvd(cuDoubleComplex a, cuDoubleComplex b) { return cuCdiv(a, b); }
__device__ inline float cj(float a) { return a; }
__device__ inline double cj(double a) { return a; }
__device__ inline cuFloatComplex cj(cuFloatComplex a) { return cuConjf(a); }
__device__ inline cuDoubleComplex cj(cuDoubleComplex a) { return cuConj(a); }
// |x| (norms) and LAPACK's |re| + |im| (i?amax, the pivot search)
__device__ inline double absv(float a) { return fabsf(a); }
__device__ inline double absv(double a) { return fabs(a); }
__device__ inline double absv(cuFloatComplex a) { return cuCabsf(a); }
__device__ inline double absv(cuDoubleComplex a) { return cuCabs(a); }
__device__ inline double abs1(float a) { return fabsf(a); }
__device__ inline double abs1(double a) { return fabs(a); }
__device__ inline double abs1(cuFloatComplex a) { return fabsf(cuCrealf(a)) + fabsf(cuCimagf(a)); }
__device__ inline double abs1(cuDoubleComplex a) { return fabs(cuCreal(a)) + fabs(cuCimag(a)); }
__device__ inline bool iszero(float a) { return a == 0; }
__device__ inline bool iszero(double a) { return a == 0; }
__device__ inline bool iszero(cuFloatComplex a) { return cuCrealf(a) == 0 && cuCimagf(a) == 0; }
__device__ inline bool iszero(cuDoubleComplex a) { return cuCreal(a) == 0 && cuCimag(a) == 0; }
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

// ---- the diagonal block of a partition in gbtrf layout ----------------------------
// F (ldf = 2 kl + ku + 1, m columns) = the band's entries with both indices in [0, m), converted;
// zero elsewhere, so gbtf2's fill-in rows start zero (LAPACK's gbtf2 zeroes them itself).
template <typename TA, typename TF>
__global__ void band_to_lu_kernel(int m, int kl, int ku, const TA *band, int ldb, TF *F, int ldf)
{
    size_t total = (size_t)ldf * m;
    for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < total; e += (size_t)gridDim.x * blockDim.x) {
        int row = (int)(e % ldf), c = (int)(e / ldf);
        int r = row - kl - ku + c;   // the matrix row of F(row, c)
        bool in = row >= kl && r >= 0 && r < m;
        F[e] = in ? cvt<TF>(band[(size_t)(ku + r - c) + (size_t)c * ldb]) : from_real<TF>(0);
    }
}

// ---- LAPACK's gbtf2 (unblocked band LU with partial pivoting), one thread block --------
// 0-based transcription of dgbtf2 (kv = kl + ku; column j's diagonal at F[kv + j ldf]);
// ipiv 1-based, *info the first zero pivot (1-based) or 0.
template <typename T>
__global__ void gbtf2_kernel(int m, int kl, int ku, T *ab, int ldab, int *ipiv, int *info)
{
    const int kv = ku + kl, n = m;
    __shared__ int s_jp, s_ju, s_ok;
    if (threadIdx.x == 0) { *info = 0; s_ju = 0; }
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
            s_ok = !iszero(ab[kv + jp + (size_t)j * ldab]);
            if (s_ok) s_ju = max(s_ju, min(j + ku + jp, n - 1));
            else if (*info == 0) *info = j + 1;
        }
        __syncthreads();
        const int jp = s_jp, ju = s_ju;
        if (s_ok) {
            if (jp != 0)   // swap rows j and j + jp over columns j .. ju (stride ldab - 1)
                for (int c = threadIdx.x; c <= ju - j; c += blockDim.x) {
                    size_t a = (size_t)(kv + jp - c) + (size_t)(j + c) * ldab, b = (size_t)(kv - c) + (size_t)(j + c) * ldab;
                    T t = ab[a]; ab[a] = ab[b]; ab[b] = t;
                }
            __syncthreads();
            if (km > 0) {
                T piv = ab[kv + (size_t)j * ldab];
                for (int i = 1 + threadIdx.x; i <= km; i += blockDim.x)
                    ab[kv + i + (size_t)j * ldab] = dvd(ab[kv + i + (size_t)j * ldab], piv);
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
}

// ---- LAPACK's gbtrs, no transpose, one thread block -----------------------------------
template <typename T>
__global__ void gbtrs_kernel(int n, int kl, int ku, int nrhs, const T *ab, int ldab, const int *ipiv, T *B, int ldb)
{
    const int kv = kl + ku;
    if (kl > 0)   // L: the row interchanges and multipliers in the order gbtrf made them
        for (int j = 0; j < n - 1; j++) {
            int lm = min(kl, n - 1 - j), l = ipiv[j] - 1;
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
            B[j + (size_t)r * ldb] = dvd(B[j + (size_t)r * ldb], ab[kv + (size_t)j * ldab]);
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

template <typename TO, typename TI>
__global__ void convert_kernel(size_t count, const TI *x, TO *y)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
        y[i] = cvt<TO>(x[i]);
}

// ---- reductions into one slot: kind 0 max |x_i| (as a real in the slot), kind 1 sum conj(x_i) y_i
template <typename T>
__global__ void reduce_kernel(int kind, int n, const T *x, const T *y, T *out)
{
    __shared__ double smax[256];
    __shared__ T ssum[256];
    double m = 0;
    T s = from_real<T>(0);
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        if (kind == 0) { double v = absv(x[i]); if (v > m || v != v) m = v; }
        else s = add(s, mul(cj(x[i]), y[i]));
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
        *out = kind == 0 ? from_real<T>(smax[0]) : ssum[0];
}

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

// ---- the factor task's small pieces ----------------------------------------------------
// Couplings Bc, Cc (K x K) from the neighbours' bands, the partition's smallest dominance ratio
// (tips[4K^2]) and a zero status (tips[4K^2 + 1]); everything else of tips zeroed. One block.
template <typename T>
__global__ void tips_prep_kernel(int s, int kl, int ku, int K, int has_prev, int has_next, const T *bp, int ldp, int sp,
                                 const T *bi, int ldi, const T *bn, int ldn, T *tips)
{
    const size_t KK = (size_t)K * K;
    T *Bc = tips + 2 * KK, *Cc = tips + 3 * KK;
    for (size_t e = threadIdx.x; e < 4 * KK + 2; e += blockDim.x)
        tips[e] = from_real<T>(0);
    __syncthreads();
    for (size_t e = threadIdx.x; e < KK; e += blockDim.x) {
        int r = (int)(e % K), c = (int)(e / K), dn = r - K - c, dp = K + r - c;
        if (has_next && dn >= -ku) Bc[e] = bn[(size_t)(ku + dn) + (size_t)c * ldn];
        if (has_prev && dp <= kl) Cc[e] = bp[(size_t)(ku + dp) + (size_t)(sp - K + c) * ldp];
    }
    __syncthreads();
    __shared__ double smin[256];
    double m = 1.0 / 0.0;
    for (int r = threadIdx.x; r < s; r += blockDim.x) {
        double dia = 0, off = 0;
        for (int c = max(0, r - kl); c <= min(s - 1, r + ku); c++) {
            double v = absv(bi[(size_t)(ku + r - c) + (size_t)c * ldi]);
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
        tips[4 * KK] = from_real<T>(smin[0]);
}

// ipiv_out[j] = ipiv_in[j0 + j] - j0 (the pivots of a trailing part, see the factor codelet)
__global__ void shift_pivots_kernel(int m, int j0, const int *in, int *out)
{
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < m; j += gridDim.x * blockDim.x)
        out[j] = in[j0 + j] - j0;
}

// Z (m x K, ld m) = 0 except the K x K block src (ld K) at row `at`, converted
template <typename TZ, typename TS>
__global__ void place_block_kernel(int m, int K, int at, const TS *src, TZ *Z)
{
    for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < (size_t)m * K; e += (size_t)gridDim.x * blockDim.x) {
        int r = (int)(e % m), c = (int)(e / m);
        Z[e] = r >= at && r < at + K ? cvt<TZ>(src[(r - at) + (size_t)c * K]) : from_real<TZ>(0);
    }
}

// dst (K x K, ld K) = rows at .. at+K-1 of Z (ld m), converted
template <typename TD, typename TZ>
__global__ void take_block_kernel(int m, int K, int at, const TZ *Z, TD *dst)
{
    for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < (size_t)K * K; e += (size_t)gridDim.x * blockDim.x)
        dst[e] = cvt<TD>(Z[(at + (int)(e % K)) + (e / K) * (size_t)m]);
}

// a nonzero info becomes the partition's status (tips[4K^2 + 1])
template <typename T>
__global__ void status_kernel(const int *info, T *status)
{
    if (*info != 0)
        *status = from_real<T>(*info);
}

// ---- entry points ------------------------------------------------------------------------
static unsigned grid_for(size_t count)
{
    size_t b = (count + 255) / 256;
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

// working precision a, factor precision f: (s, s), (d, d), (d, s), (c, c), (z, z), (z, c)
extern "C" void ss_cuda_spike_band_to_lu(char a, char f, int m, int kl, int ku, const void *band, int ldb, void *F, int ldf,
                                         cudaStream_t st)
{
    unsigned g = grid_for((size_t)ldf * m);
    if (a == f) {
        SS_SPIKE_DISPATCH(a, (band_to_lu_kernel<T, T><<<g, 256, 0, st>>>(m, kl, ku, (const T *)band, ldb, (T *)F, ldf)));
    } else if (a == 'd' && f == 's') {
        band_to_lu_kernel<double, float><<<g, 256, 0, st>>>(m, kl, ku, (const double *)band, ldb, (float *)F, ldf);
    } else if (a == 'z' && f == 'c') {
        band_to_lu_kernel<cuDoubleComplex, cuFloatComplex><<<g, 256, 0, st>>>(m, kl, ku, (const cuDoubleComplex *)band, ldb,
                                                                           (cuFloatComplex *)F, ldf);
    } else {
        ss_cuda_fail("ss_cuda_spike_band_to_lu: precisions", a * 256 + f, __FILE__, __LINE__);
    }
    check_launch("band_to_lu_kernel");
}

extern "C" void ss_cuda_spike_gbtf2(char f, int m, int kl, int ku, void *F, int ldf, int *ipiv, int *info, cudaStream_t st)
{
    SS_SPIKE_DISPATCH(f, (gbtf2_kernel<T><<<1, 256, 0, st>>>(m, kl, ku, (T *)F, ldf, ipiv, info)));
    check_launch("gbtf2_kernel");
}

extern "C" void ss_cuda_spike_gbtrs(char f, int m, int kl, int ku, int nrhs, const void *F, int ldf, const int *ipiv, void *B,
                                    int ldb, cudaStream_t st)
{
    SS_SPIKE_DISPATCH(f, (gbtrs_kernel<T><<<1, 256, 0, st>>>(m, kl, ku, nrhs, (const T *)F, ldf, ipiv, (T *)B, ldb)));
    check_launch("gbtrs_kernel");
}

extern "C" void ss_cuda_spike_convert(char to, char from, size_t count, const void *x, void *y, cudaStream_t st)
{
    unsigned g = grid_for(count);
    if (to == from)
        SS_SPIKE_DISPATCH(to, (convert_kernel<T, T><<<g, 256, 0, st>>>(count, (const T *)x, (T *)y)))
    else if (to == 's' && from == 'd')
        convert_kernel<float, double><<<g, 256, 0, st>>>(count, (const double *)x, (float *)y);
    else if (to == 'd' && from == 's')
        convert_kernel<double, float><<<g, 256, 0, st>>>(count, (const float *)x, (double *)y);
    else if (to == 'c' && from == 'z')
        convert_kernel<cuFloatComplex, cuDoubleComplex><<<g, 256, 0, st>>>(count, (const cuDoubleComplex *)x, (cuFloatComplex *)y);
    else if (to == 'z' && from == 'c')
        convert_kernel<cuDoubleComplex, cuFloatComplex><<<g, 256, 0, st>>>(count, (const cuFloatComplex *)x, (cuDoubleComplex *)y);
    else
        ss_cuda_fail("ss_cuda_spike_convert: precisions", to * 256 + from, __FILE__, __LINE__);
    check_launch("convert_kernel");
}

extern "C" void ss_cuda_spike_reduce(char p, int kind, int n, const void *x, const void *y, void *out, cudaStream_t st)
{
    SS_SPIKE_DISPATCH(p, (reduce_kernel<T><<<1, 256, 0, st>>>(kind, n, (const T *)x, (const T *)y, (T *)out)));
    check_launch("reduce_kernel");
}

extern "C" void ss_cuda_spike_update(char p, int op, int n, const void *sc, void *const *v, cudaStream_t st)
{
    unsigned g = grid_for((size_t)n);
    SS_SPIKE_DISPATCH(p, (update_kernel<T><<<g, 256, 0, st>>>(op, n, (const T *)sc, (T *)v[0], (T *)v[1], (T *)v[2], (T *)v[3],
                                                               (T *)v[4], (T *)v[5])));
    check_launch("update_kernel");
}

extern "C" void ss_cuda_spike_tips_prep(char p, int s, int kl, int ku, int K, int has_prev, int has_next, const void *bp,
                                        int ldp, int sp, const void *bi, int ldi, const void *bn, int ldn, void *tips,
                                        cudaStream_t st)
{
    SS_SPIKE_DISPATCH(p, (tips_prep_kernel<T><<<1, 256, 0, st>>>(s, kl, ku, K, has_prev, has_next, (const T *)bp, ldp, sp,
                                                                  (const T *)bi, ldi, (const T *)bn, ldn, (T *)tips)));
    check_launch("tips_prep_kernel");
}

extern "C" void ss_cuda_spike_shift_pivots(int m, int j0, const int *in, int *out, cudaStream_t st)
{
    shift_pivots_kernel<<<grid_for((size_t)m), 256, 0, st>>>(m, j0, in, out);
    check_launch("shift_pivots_kernel");
}

// Z in the factor's precision f, src in the working precision a
extern "C" void ss_cuda_spike_place_block(char a, char f, int m, int K, int at, const void *src, void *Z, cudaStream_t st)
{
    unsigned g = grid_for((size_t)m * K);
    if (a == f)
        SS_SPIKE_DISPATCH(a, (place_block_kernel<T, T><<<g, 256, 0, st>>>(m, K, at, (const T *)src, (T *)Z)))
    else if (a == 'd' && f == 's')
        place_block_kernel<float, double><<<g, 256, 0, st>>>(m, K, at, (const double *)src, (float *)Z);
    else if (a == 'z' && f == 'c')
        place_block_kernel<cuFloatComplex, cuDoubleComplex><<<g, 256, 0, st>>>(m, K, at, (const cuDoubleComplex *)src,
                                                                              (cuFloatComplex *)Z);
    else
        ss_cuda_fail("ss_cuda_spike_place_block: precisions", a * 256 + f, __FILE__, __LINE__);
    check_launch("place_block_kernel");
}

extern "C" void ss_cuda_spike_take_block(char a, char f, int m, int K, int at, const void *Z, void *dst, cudaStream_t st)
{
    unsigned g = grid_for((size_t)K * K);
    if (a == f)
        SS_SPIKE_DISPATCH(a, (take_block_kernel<T, T><<<g, 256, 0, st>>>(m, K, at, (const T *)Z, (T *)dst)))
    else if (a == 'd' && f == 's')
        take_block_kernel<double, float><<<g, 256, 0, st>>>(m, K, at, (const float *)Z, (double *)dst);
    else if (a == 'z' && f == 'c')
        take_block_kernel<cuDoubleComplex, cuFloatComplex><<<g, 256, 0, st>>>(m, K, at, (const cuFloatComplex *)Z,
                                                                             (cuDoubleComplex *)dst);
    else
        ss_cuda_fail("ss_cuda_spike_take_block: precisions", a * 256 + f, __FILE__, __LINE__);
    check_launch("take_block_kernel");
}

extern "C" void ss_cuda_spike_status(char a, const int *info, void *status, cudaStream_t st)
{
    SS_SPIKE_DISPATCH(a, (status_kernel<T><<<1, 1, 0, st>>>(info, (T *)status)));
    check_launch("status_kernel");
}
