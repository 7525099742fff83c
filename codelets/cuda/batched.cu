// Panel kernels of the batched LU, Cholesky and QR on the GPU (the loops that
// call them, with cuBLAS strided-batched GEMMs for the updates, are in
// codelets/codelet_zbatched_cuda.c). One thread block per matrix: the panel,
// rows j0..m-1 and columns j0..j0+jb-1 of each matrix, sits in shared memory
// while the block factors it. When the whole matrix fits (jb = n), the panel
// kernel is the whole factorization and no GEMM follows: that is the
// small-size path; larger matrices take panels of jb columns (Haidar et al.,
// "Towards batched linear solvers on accelerated hardware platforms").
//   getrf: partial pivoting inside the panel (LAPACK's pivot: the first row of
//     largest |re| + |im|), then, still in the kernel, all the panel's swaps on
//     the columns outside the panel, and the inverse of the unit L11 for the
//     TRSM-as-GEMM that follows;
//   potrf: left-looking, in "lower" terms: uplo U is read and written through
//     the conjugate transpose, so one kernel serves both; the panel's diagonal
//     block arrives with its GEMM update D = L10 L10^H in a workspace (a GEMM
//     into the matrix would overwrite the triangle LAPACK leaves alone);
//   geqrf: Householder as LAPACK's geqr2/larfg (same tau and V), then the T
//     factor of larft (forward, columnwise) and V with its unit diagonal and
//     zeros made explicit, for the GEMM-based block update.
// Each matrix's info is LAPACK's: a zero pivot or a failing minor is recorded
// in its own info and touches no other matrix. One source for all precisions.
#include <cuda_runtime.h>
#include <type_traits>
#include "cuda_check.cuh"
#include <cuComplex.h>

#include "batched_scalar.cuh"
#include "batched_small.cuh"
#include "batched_tiled.cuh"
#include "batched_regpanel.cuh"

// sum over a warp, every lane gets it
__device__ inline float warp_sum(float v)
{
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}
__device__ inline double warp_sum(double v)
{
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}
__device__ inline float2 warp_sum(float2 v) { return make_float2(warp_sum(v.x), warp_sum(v.y)); }
__device__ inline double2 warp_sum(double2 v) { return make_double2(warp_sum(v.x), warp_sum(v.y)); }

// the largest (max) or the sum of one real per thread over the block; every thread gets it.
// red: shared scratch of 33 reals. Ends with the block synchronized.
template <typename R>
__device__ R block_reduce(R v, bool max, R *red)
{
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32, nw = blockDim.x / 32;
    for (int off = 16; off > 0; off >>= 1) {
        R o = __shfl_xor_sync(0xffffffffu, v, off);
        v = max ? fmax(v, o) : v + o;
    }
    if (lane == 0)
        red[warp] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        R r = red[0];
        for (int w = 1; w < nw; w++)
            r = max ? fmax(r, red[w]) : r + red[w];
        red[32] = r;
    }
    __syncthreads();
    R r = red[32];
    __syncthreads();   // red may be reused right after
    return r;
}

// The panel of one matrix, rows j0..j0+mr-1 of columns j0..j0+jb-1, to and from S
// (ld mr); transposed: element (r, q) of the panel is conj(A(j0+q, j0+r)) (Cholesky's
// uplo U); lower_only: only r >= q. Consecutive threads take consecutive elements
// of A (down a column of the panel, or with `transposed` along the jb rows of A).
template <typename T>
__device__ void load_panel(const T *A, int lda, int j0, int mr, int jb, T *S, bool transposed, bool lower_only)
{
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32, nw = blockDim.x / 32;
    if (transposed) {
        for (int e = threadIdx.x; e < mr * jb; e += blockDim.x) {
            int q = e % jb, r = e / jb;
            if (!lower_only || r >= q)
                S[r + (size_t)q * mr] = conj_(A[(j0 + q) + (size_t)(j0 + r) * lda]);
        }
        return;
    }
    for (int q = warp; q < jb; q += nw)
        for (int r = (lower_only ? q : 0) + lane; r < mr; r += 32)
            S[r + (size_t)q * mr] = A[(j0 + r) + (size_t)(j0 + q) * lda];
}

template <typename T>
__device__ void store_panel(T *A, int lda, int j0, int mr, int jb, const T *S, bool transposed, bool lower_only)
{
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32, nw = blockDim.x / 32;
    if (transposed) {
        for (int e = threadIdx.x; e < mr * jb; e += blockDim.x) {
            int q = e % jb, r = e / jb;
            if (!lower_only || r >= q)
                A[(j0 + q) + (size_t)(j0 + r) * lda] = conj_(S[r + (size_t)q * mr]);
        }
        return;
    }
    for (int q = warp; q < jb; q += nw)
        for (int r = (lower_only ? q : 0) + lane; r < mr; r += 32)
            A[(j0 + r) + (size_t)(j0 + q) * lda] = S[r + (size_t)q * mr];
}

// ---- LU panel. Shared memory: S (mr x jb), then ints: jb panel pivots, the
// composed permutation of the panel's rows (mr), the rows it moves (<= 2 jb).
// The row moves go to columns c0..c1-1 (outside the panel); Linv (ld ldl, stride sL per
// matrix, or null when not wanted): inv(L11).
template <typename T>
__global__ void __launch_bounds__(256) getrf_panel(int m, int c0, int c1, int j0, int jb, T *Aall, int lda, long long sA,
                                                   int *ipiv_all, long long sP, int *info, T *Linv, int ldl, long long sL)
{
    typedef typename real_of<T>::type R;
    extern __shared__ __align__(16) unsigned char smem[];
    const int mr = m - j0, tid = threadIdx.x, nt = blockDim.x, lane = tid % 32, warp = tid / 32, nw = nt / 32;
    T *A = Aall + (size_t)blockIdx.x * sA, *S = (T *)smem;
    int *piv = (int *)(S + (size_t)mr * jb), *perm = piv + jb, *moved = perm + mr;
    __shared__ int pivot_row, nmoved;
    // the first zero pivot: in a register of every thread (all read the same d); a shared
    // variable that thread 0 sets raced with the others' speculative reads (racecheck, H100)
    int zero_col = -1;
    load_panel(A, lda, j0, mr, jb, S, false, false);
    __syncthreads();
    for (int c = 0; c < jb; c++) {
        if (warp == 0) {   // the pivot: the first row of largest |re| + |im| (izamax), NaNs never win
            R best = -1;
            int at = mr;
            for (int r = c + lane; r < mr; r += 32) {
                R v = abs1(S[r + (size_t)c * mr]);
                if (v > best) { best = v; at = r; }
            }
            for (int off = 16; off > 0; off >>= 1) {
                R ob = __shfl_xor_sync(0xffffffffu, best, off);
                int oa = __shfl_xor_sync(0xffffffffu, at, off);
                if (ob > best || (ob == best && oa < at)) { best = ob; at = oa; }
            }
            if (lane == 0) {
                pivot_row = at < mr ? at : c;
                piv[c] = pivot_row;
            }
        }
        __syncthreads();
        int p = pivot_row;
        if (p != c)
            for (int q = tid; q < jb; q += nt) {
                T t = S[c + (size_t)q * mr];
                S[c + (size_t)q * mr] = S[p + (size_t)q * mr];
                S[p + (size_t)q * mr] = t;
            }
        __syncthreads();
        T d = S[c + (size_t)c * mr];
        if (is_zero(d)) {   // LAPACK goes on without scaling; the column below is zero anyway
            if (zero_col < 0)
                zero_col = c;
        } else {
            for (int r = c + 1 + tid; r < mr; r += nt)
                S[r + (size_t)c * mr] = div_(S[r + (size_t)c * mr], d);
        }
        __syncthreads();
        for (int q = c + 1 + warp; q < jb; q += nw) {   // rank-1 update of the panel's remaining columns
            T u = S[c + (size_t)q * mr];
            for (int r = c + 1 + lane; r < mr; r += 32)
                S[r + (size_t)q * mr] = sub(S[r + (size_t)q * mr], mul(S[r + (size_t)c * mr], u));
        }
        __syncthreads();
    }
    store_panel(A, lda, j0, mr, jb, S, false, false);
    int *ipiv = ipiv_all + (size_t)blockIdx.x * sP;
    for (int c = tid; c < jb; c += nt)
        ipiv[j0 + c] = j0 + piv[c] + 1;
    if (tid == 0 && zero_col >= 0 && info[blockIdx.x] == 0)   // an earlier panel's zero pivot comes first
        info[blockIdx.x] = j0 + zero_col + 1;
    // The panel's swaps on the other columns asked for, all at once: composed into one
    // permutation (row r of the result is row perm[r] before the swaps), which
    // moves at most 2 jb rows (apply_row_moves, batched_laswp.cuh).
    for (int r = tid; r < mr; r += nt)
        perm[r] = r;
    __syncthreads();
    if (tid == 0) {
        for (int c = 0; c < jb; c++) {
            int p = piv[c], t = perm[c];
            perm[c] = perm[p];
            perm[p] = t;
        }
        int count = 0;
        for (int c = 0; c < jb; c++)   // the rows that can move: 0..jb-1 and the pivot rows below
            if (perm[c] != c)
                moved[count++] = c;
        for (int c = 0; c < jb; c++) {
            int p = piv[c], seen = 0;
            if (p < jb || perm[p] == p)
                continue;
            for (int i = 0; i < count; i++)
                seen |= moved[i] == p;
            if (!seen)
                moved[count++] = p;
        }
        nmoved = count;
    }
    __syncthreads();
    // At most 128 rows move whenever columns lie outside the panel: panels of <= 64
    // columns move <= 2 jb rows, and a whole wide matrix (m < n, in 64 KB: m < 128)
    // as one panel moves only its m rows.
    apply_row_moves(A, lda, c0, c1, j0, jb, perm, moved, nmoved);
    if (Linv) {   // inv(L11), unit lower triangular: column q solves L11 x = e_q
        T *Li = Linv + (size_t)blockIdx.x * sL;
        for (int q = tid; q < jb; q += nt) {
            for (int r = 0; r < jb; r++) {
                T x = make<T>(r == q ? 1 : 0, 0);
                for (int l = q; l < r; l++)
                    x = sub(x, mul(S[r + (size_t)l * mr], Li[l + (size_t)q * ldl]));
                Li[r + (size_t)q * ldl] = x;
            }
        }
    }
}

// ---- Cholesky panel, in lower terms (upper: through the conjugate transpose).
// Rows j0..n-1, columns j0..j0+jb-1 of L; the rows below the diagonal block come
// already updated by the GEMM A21 -= L20 L10^H; D (jb x jb per matrix, or null
// at j0 = 0) holds L10 L10^H for the diagonal block. The same right-looking
// steps that factor L11 give L21 = A21 L11^-H on the rows below. A matrix whose
// info is already set (an earlier panel failed) is left alone.
template <typename T>
__global__ void __launch_bounds__(256) potrf_panel(int n, int j0, int jb, int upper, T *Aall, int lda, long long sA,
                                                   const T *D, int *info)
{
    typedef typename real_of<T>::type R;
    extern __shared__ __align__(16) unsigned char smem[];
    if (info[blockIdx.x] != 0)
        return;
    const int mr = n - j0, tid = threadIdx.x, nt = blockDim.x, lane = tid % 32, warp = tid / 32, nw = nt / 32;
    T *A = Aall + (size_t)blockIdx.x * sA, *S = (T *)smem;
    __shared__ int failed;
    if (tid == 0)
        failed = -1;
    load_panel(A, lda, j0, mr, jb, S, upper != 0, true);
    __syncthreads();
    if (D) {
        const T *Dk = D + (size_t)blockIdx.x * jb * jb;
        for (int q = warp; q < jb; q += nw)
            for (int r = q + lane; r < jb; r += 32)
                S[r + (size_t)q * mr] = sub(S[r + (size_t)q * mr], Dk[r + (size_t)q * jb]);
        __syncthreads();
    }
    for (int c = 0; c < jb; c++) {
        R d = re(S[c + (size_t)c * mr]);   // LAPACK reads the real part of the diagonal
        if (!(d > 0)) {                     // not positive, or NaN: leading minor j0+c+1 fails
            if (tid == 0)
                failed = c;
            break;                          // every thread read the same d: all leave together
        }
        d = sqrt(d);
        R inv = 1 / d;
        __syncthreads();                    // everybody has read the diagonal before it changes
        if (tid == 0)
            S[c + (size_t)c * mr] = make<T>(d, 0);
        for (int r = c + 1 + tid; r < mr; r += nt)
            S[r + (size_t)c * mr] = scale(S[r + (size_t)c * mr], inv);
        __syncthreads();
        for (int q = c + 1 + warp; q < jb; q += nw) {   // S(q:, q) -= S(q:, c) S(q, c)^H
            T u = conj_(S[q + (size_t)c * mr]);
            for (int r = q + lane; r < mr; r += 32)
                S[r + (size_t)q * mr] = sub(S[r + (size_t)q * mr], mul(S[r + (size_t)c * mr], u));
        }
        __syncthreads();
    }
    __syncthreads();
    store_panel(A, lda, j0, mr, jb, S, upper != 0, true);
    if (tid == 0 && failed >= 0)
        info[blockIdx.x] = j0 + failed + 1;
}

// ---- QR panel: LAPACK's geqr2 on rows j0..m-1 of columns j0..j0+jb-1, tau of
// each reflector as zlarfg makes it (without its rescaling loop for
// |beta| < safmin, which only subnormal columns reach). With V and Tm non-null
// (columns follow the panel): V (mr x jb, ld ldv, stride sV per matrix) gets the
// reflectors with the unit diagonal and the zeros above it, Tm (jb x jb, ld ldt, stride
// sTm) larft's T (upper triangular, zeros below).
// Shared memory: S (mr x jb), tau (jb), w (jb), T (jb x jb), 33 reals.
template <typename T>
__global__ void __launch_bounds__(256) geqrf_panel(int m, int j0, int jb, T *Aall, int lda, long long sA,
                                                   T *tau_all, long long sT, T *V, int ldv, long long sV, T *Tm,
                                                   int ldt, long long sTm)
{
    typedef typename real_of<T>::type R;
    extern __shared__ __align__(16) unsigned char smem[];
    const int mr = m - j0, tid = threadIdx.x, nt = blockDim.x, lane = tid % 32, warp = tid / 32, nw = nt / 32;
    T *A = Aall + (size_t)blockIdx.x * sA, *S = (T *)smem;
    T *tau = S + (size_t)mr * jb, *w = tau + jb, *Ts = w + jb;
    R *red = (R *)(Ts + (size_t)jb * jb);
    load_panel(A, lda, j0, mr, jb, S, false, false);
    __syncthreads();
    for (int c = 0; c < jb; c++) {
        T *x = S + (size_t)c * mr;   // column c; alpha = x[c], the vector below it
        // ||x(c+1:)|| without overflow: the largest component first
        R big = 0;
        for (int r = c + 1 + tid; r < mr; r += nt)
            big = fmax(big, fmax(fabs(re(x[r])), fabs(im(x[r]))));
        big = block_reduce(big, true, red);
        R ssq = 0;
        if (big > 0)
            for (int r = c + 1 + tid; r < mr; r += nt) {
                R a = re(x[r]) / big, b = im(x[r]) / big;
                ssq += a * a + b * b;
            }
        ssq = block_reduce(ssq, false, red);
        R xnorm = big * sqrt(ssq);
        T alpha = x[c];
        R ar = re(alpha), ai = im(alpha);
        T t = make<T>(0, 0);
        if (!(xnorm == 0 && ai == 0)) {
            R top = fmax(fabs(ar), fmax(fabs(ai), xnorm));   // dlapy3
            R a = ar / top, b = ai / top, e = xnorm / top;
            R beta = -copysign(top * sqrt(a * a + b * b + e * e), ar);
            t = make<T>((beta - ar) / beta, -ai / beta);
            T s = div_(make<T>(1, 0), sub(alpha, make<T>(beta, 0)));
            for (int r = c + 1 + tid; r < mr; r += nt)
                x[r] = mul(x[r], s);
            __syncthreads();   // every thread has read alpha
            if (tid == 0)
                x[c] = make<T>(beta, 0);
        }
        if (tid == 0)
            tau[c] = t;
        __syncthreads();
        if (!is_zero(t))   // H^H = I - conj(t) v v^H on the panel's next columns, a warp per column
            for (int q = c + 1 + warp; q < jb; q += nw) {
                T *y = S + (size_t)q * mr;
                T s = lane == 0 ? y[c] : make<T>(0, 0);   // v(c) = 1
                for (int r = c + 1 + lane; r < mr; r += 32)
                    s = add(s, mul(conj_(x[r]), y[r]));
                s = mul(conj_(t), warp_sum(s));
                if (lane == 0)
                    y[c] = sub(y[c], s);
                for (int r = c + 1 + lane; r < mr; r += 32)
                    y[r] = sub(y[r], mul(x[r], s));
            }
        __syncthreads();
    }
    store_panel(A, lda, j0, mr, jb, S, false, false);
    T *tk = tau_all + (size_t)blockIdx.x * sT + j0;
    for (int c = tid; c < jb; c += nt)
        tk[c] = tau[c];
    if (!V)
        return;
    T *Vk = V + (size_t)blockIdx.x * sV;
    for (int q = warp; q < jb; q += nw)
        for (int r = lane; r < mr; r += 32)
            Vk[r + (size_t)q * ldv] = r < q ? make<T>(0, 0) : r == q ? make<T>(1, 0) : S[r + (size_t)q * mr];
    // larft, forward columnwise: T(0:i, i) = -tau(i) T(0:i, 0:i) V(:, 0:i)^H v_i, T(i, i) = tau(i)
    for (int i = 0; i < jb; i++) {
        for (int l = warp; l < i; l += nw) {   // w(l) = v_l^H v_i over rows i.. (v_i(i) = 1, zero above)
            T s = lane == 0 ? conj_(S[i + (size_t)l * mr]) : make<T>(0, 0);
            for (int r = i + 1 + lane; r < mr; r += 32)
                s = add(s, mul(conj_(S[r + (size_t)l * mr]), S[r + (size_t)i * mr]));
            s = warp_sum(s);
            if (lane == 0)
                w[l] = s;
        }
        __syncthreads();
        for (int l = tid; l < jb; l += nt) {
            T v = make<T>(0, 0);
            if (l < i) {
                for (int p = l; p < i; p++)
                    v = add(v, mul(Ts[l + (size_t)p * jb], w[p]));
                v = sub(make<T>(0, 0), mul(tau[i], v));
            } else if (l == i) {
                v = tau[i];
            }
            Ts[l + (size_t)i * jb] = v;
        }
        __syncthreads();
    }
    T *Tk = Tm + (size_t)blockIdx.x * sTm;
    for (int e = tid; e < jb * jb; e += nt)
        Tk[e % jb + (size_t)(e / jb) * ldt] = Ts[e];
}

// ---- a strided batch of m x n copies (the TRSM result back into the matrices),
// a block per matrix (gridDim.y would cap the batch at 65535)
template <typename T>
__global__ void batch_copy(int m, int n, const T *src, int lds, long long ss, T *dst, int ldd, long long sd)
{
    const T *s = src + (size_t)blockIdx.x * ss;
    T *d = dst + (size_t)blockIdx.x * sd;
    for (int e = threadIdx.x; e < m * n; e += blockDim.x)
        d[e % m + (size_t)(e / m) * ldd] = s[e % m + (size_t)(e / m) * lds];
}

// ---- launch sizes and shared memory
// Shared memory a panel of mr rows and jb columns needs, per op
static size_t panel_bytes(int op, int mr, int jb, size_t es)
{
    size_t b = (size_t)mr * jb * es;
    if (op == OP_GETRF)
        b += ((size_t)3 * jb + mr) * sizeof(int);
    else if (op == OP_GEQRF)
        b += ((size_t)2 * jb + (size_t)jb * jb) * es + 33 * (es == 16 || es == 8 ? 8 : 4);
    return b;
}
// The whole matrix as one panel while it takes at most WHOLE_BYTES (several
// blocks then share an SM) and has at most 32 columns (QR), 36 (LU), or 4 more than the
// Cholesky's widest panel (where panels would leave a sliver): one block stepping through a
// whole matrix of more columns is slow. H200, bench/NOTES.md sessions 51-52: the Cholesky of
// order 72..128 in s, 72 in d and c, 48..64 in z ran at 0.26-0.75x cuSOLVER's potrfBatched,
// where panels of 32 columns, z 16, gave 1.5-2.9x; the LU at 72 / 80 in d at 0.93 / 0.74x
// cuBLAS against 1.69 / 1.95x with panels of 32. But just past a panel width the whole
// matrix won: the LU at 33 in d, c, z 2.59, 2.82, 2.92x against 2.38, 2.45, 2.25x with
// panels of 16 (z to 36: 2.22x against 2.10x); c's Cholesky at 34 / 36 1.71 / 1.57x against
// 1.44 / 1.44x with panels of 32 (z's at 34 / 36: 2.17 / 1.88x against 2.70 / 2.60x with
// its panels of 16: not past 20 there). Otherwise the widest of 32,
// 16, 8, 4 columns (QR up to 64 columns, complex double Cholesky up to order 256, and the
// complex LU (c and z): from 16) within PANEL_BYTES; MAX_BYTES, the limit for a width asked for explicitly,
// stays below what a block may take on sm_90 (227 KB), the kernels' static variables
// included. The complex LU in panels of 16 (H200, session 52): c 128 / 256 / 512 1.91 /
// 2.38 / 3.09x cuBLAS where 32 gave 1.48 / 1.96 / 2.71x, z 128 / 256 1.95 / 2.61x against
// 1.24 / 1.95x (z's 32-column panel leaves the registers for shared memory; why c, whose
// 32-column panel stays in registers, gains too was not looked into). In s and d, 32 stays
// ahead (d 256: 3.85x against 3.32x).
// From widths swept on an H100 (double, 1 GiB, bench/NOTES.md sessions 21
// and 22, ratio to the vendor): LU of 512 with 32 columns 2.15 where 16 gave 1.55
// (PANEL_BYTES was 96 KB); QR of 64 with 16 columns 3.30 where the whole matrix gave
// 2.15 (48: 2.38 against 0.89). Cholesky with the register panel (up to 32 columns
// but 16 in complex double): 32 columns 2.02, 1.75, 1.63 at orders 128, 256, 512
// where 16 gave 1.64, 1.40, 1.22; with the shared-memory panel (session 21, before
// it) 16 had won up to 256 (128: 1.34 against 1.19 with 32). QR of 512 with 32 columns
// (137 KB) 0.0148 s where 16 gave 0.0184 (session 23): PANEL_BYTES was 136 KB.
static const size_t WHOLE_BYTES = 64 << 10, PANEL_BYTES = 140 << 10, MAX_BYTES = 224 << 10;

static int threads_for(int mr)
{
    int t = (mr + 31) / 32 * 32;
    return t < 64 ? 64 : t > 256 ? 256 : t;
}

// The panel width for op on m x n matrices of es-byte elements (k = min(m, n)
// columns to factor): asked (> 0) if its panel fits in a block, else automatic;
// 0 when even 4 columns of m rows do not fit (the CPU variant takes the chunk).
extern "C" int ss_cuda_batch_panel_width(int op, int m, int n, size_t es, int complex_arith, int asked)
{
    int k = m < n ? m : n;
    if (k <= 0)
        return 1;
    if (asked > 0) {   // at most 64: the LU swaps hold 2 jb rows per warp in registers
        int jb = asked < k ? asked : k;
        jb = jb < 64 ? jb : 64;
        // the first panel has the most rows: if the register kernels take it, they take them all
        const bool in_registers = op != OP_GEQRF && regpanel_nc(m, jb, es) > 0;
        return in_registers || panel_bytes(op, m, jb, es) <= MAX_BYTES ? jb : 0;
    }
    const int widest = (op == OP_GEQRF && k <= 64) || (op == OP_POTRF && k <= 256 && es > 8) ||
                       (op == OP_GETRF && complex_arith) ? 16 : 32;
    const int whole_most = op == OP_GEQRF ? 32 : op == OP_GETRF ? 36 : widest + 4;
    if (panel_bytes(op, m, k, es) <= WHOLE_BYTES && k <= whole_most)
        return k;
    if (op == OP_GEQRF && k > 32 && widest == 16 && panel_bytes(op, m, 16, es) <= PANEL_BYTES) {
        // the QR of 33..64 columns in even panels of at most 16 (33: 11, 11, 11 rather than 16, 16,
        // 1). H200, bench/NOTES.md session 52, ratio to cuBLAS at 33 / 36 / 52: d 1.06 / 1.21 / 2.37x
        // against 0.96 / 1.07 / 2.28x with panels of 16; s 1.04 / 1.17 / 1.88x against 0.90 / 0.96 /
        // 1.67x; z 1.71 / 1.91 / 2.68x against 1.42 / 1.63 / 2.36x; no order of 33..64 slower
        const int panels = (k + 15) / 16;
        return (k + panels - 1) / panels;
    }
    for (int jb = widest; jb >= 4; jb /= 2)
        if (jb < k && panel_bytes(op, m, jb, es) <= PANEL_BYTES)
            return jb;
    return 0;
}

// 1 when batch_laswp's shared memory (rows from 0 of an m-row matrix) fits in a block
extern "C" int ss_cuda_batch_laswp_fits(int m, size_t es)
{
    return m >= 1 && batch_laswp_bytes(m, es) <= MAX_BYTES;
}

// The register panels (batched_regpanel.cuh) wherever they apply: up to 512 rows and
// 32 columns (complex double: 16), one thread a row; else the shared-memory panels.
// launch(small_width<NC>()) for the register panel of mr rows and jb columns of T, one
// thread a row (WIDE false: not the 32-column one); false when none takes the panel.
template <typename T, bool WIDE, typename F>
static bool regpanel_dispatch(int mr, int jb, F launch)
{
    switch (regpanel_nc(mr, jb, sizeof(T))) {
    case 16:
        launch(small_width<16>());
        return true;
    case 32:
        if constexpr (sizeof(T) <= 8 && WIDE) {
            launch(small_width<32>());
            return true;
        }
        return false;
    default:
        return false;
    }
}
static int regpanel_threads(int mr) { return (mr + 31) / 32 * 32; }

template <typename T>
static void getrf_panel_launch(int m, int j0, int jb, int c0, int c1, void *A, int lda, long long sA, int *ipiv,
                               long long sP, int *info, void *Linv, int ldl, long long sL, int count,
                               cudaStream_t stream)
{
    if (regpanel_dispatch<T, true>(m - j0, jb, [&](auto w) {
            getrf_regpanel<T, decltype(w)::value><<<count, regpanel_threads(m - j0), 0, stream>>>(
                m, c0, c1, j0, jb, (T *)A, lda, sA, ipiv, sP, info, (T *)Linv, ldl, sL);
        })) {
        SS_CHECK_LAUNCH("batched getrf register panel kernel launch");
        return;
    }
    size_t bytes = panel_bytes(OP_GETRF, m - j0, jb, sizeof(T));
    ss_cuda_require_smem(getrf_panel<T>, bytes, "batched getrf panel: shared memory beyond the device's limit");
    getrf_panel<T><<<count, threads_for(m - j0), bytes, stream>>>(m, c0, c1, j0, jb, (T *)A, lda, sA, ipiv, sP,
                                                                  info, (T *)Linv, ldl, sL);
    SS_CHECK_LAUNCH("batched getrf panel kernel launch");
}

// batch_laswp (batched_laswp.cuh) over ny column blocks of every matrix
template <typename T>
static void laswp_launch(int m, int k, int p0, int pstep, int c0, int cw, int c1, int ny, void *A, int lda,
                         long long sA, const int *ipiv, long long sP, int count, cudaStream_t stream)
{
    if (ny <= 0 || count <= 0 || p0 >= k)
        return;
    if (ny > 65535)
        ss_cuda_fail("batched laswp: too many column blocks", ny, __FILE__, __LINE__);
    const size_t bytes = batch_laswp_bytes(m - p0, sizeof(T));
    ss_cuda_require_smem(batch_laswp<T>, bytes, "batched laswp: shared memory beyond the device's limit");
    batch_laswp<T><<<dim3((unsigned)count, (unsigned)ny), LASWP_THREADS, bytes, stream>>>(m, k, p0, pstep, c0, cw, c1,
                                                                                        (T *)A, lda, sA, ipiv, sP);
    SS_CHECK_LAUNCH("batched laswp kernel launch");
}

template <typename T>
static void potrf_panel_launch(int n, int j0, int jb, int upper, void *A, int lda, long long sA, const void *D,
                               int *info, int count, cudaStream_t stream)
{
    // 32 columns for real types only: rows of 32 complex floats spill (280 bytes), and on an H100
    // that panel ran slower than the shared-memory one (c, 32 columns, 512 MiB: 0.98 / 0.93 / 0.92
    // against 1.11 / 1.11 / 1.07x cuSOLVER at orders 128 / 256 / 512; bench/NOTES.md session 22)
    constexpr bool wide = std::is_same<T, typename real_of<T>::type>::value;
    if (regpanel_dispatch<T, wide>(n - j0, jb, [&](auto w) {
            potrf_regpanel<T, decltype(w)::value><<<count, regpanel_threads(n - j0), 0, stream>>>(
                n, j0, jb, upper, (T *)A, lda, sA, (const T *)D, info);
        })) {
        SS_CHECK_LAUNCH("batched potrf register panel kernel launch");
        return;
    }
    size_t bytes = panel_bytes(OP_POTRF, n - j0, jb, sizeof(T));
    ss_cuda_require_smem(potrf_panel<T>, bytes, "batched potrf panel: shared memory beyond the device's limit");
    potrf_panel<T><<<count, threads_for(n - j0), bytes, stream>>>(n, j0, jb, upper, (T *)A, lda, sA, (const T *)D,
                                                                  info);
    SS_CHECK_LAUNCH("batched potrf panel kernel launch");
}

template <typename T>
static void geqrf_panel_launch(int m, int j0, int jb, void *A, int lda, long long sA, void *tau, long long sT,
                               void *V, int ldv, long long sV, void *Tm, int ldt, long long sTm, int count,
                               cudaStream_t stream)
{
    size_t bytes = panel_bytes(OP_GEQRF, m - j0, jb, sizeof(T));
    ss_cuda_require_smem(geqrf_panel<T>, bytes, "batched geqrf panel: shared memory beyond the device's limit");
    geqrf_panel<T><<<count, threads_for(m - j0), bytes, stream>>>(m, j0, jb, (T *)A, lda, sA, (T *)tau, sT, (T *)V,
                                                                  ldv, sV, (T *)Tm, ldt, sTm);
    SS_CHECK_LAUNCH("batched geqrf panel kernel launch");
}

extern "C" void ss_cuda_batch_copy(size_t es, int m, int n, const void *src, int lds, long long ss, void *dst,
                                   int ldd, long long sd, int count, cudaStream_t stream)
{
    if (m <= 0 || n <= 0 || count <= 0)
        return;
    int grid = count;
    switch (es) {
    case 4: batch_copy<float><<<grid, 256, 0, stream>>>(m, n, (const float *)src, lds, ss, (float *)dst, ldd, sd); break;
    case 8: batch_copy<double><<<grid, 256, 0, stream>>>(m, n, (const double *)src, lds, ss, (double *)dst, ldd, sd); break;
    case 16: batch_copy<double2><<<grid, 256, 0, stream>>>(m, n, (const double2 *)src, lds, ss, (double2 *)dst, ldd, sd); break;
    default: ss_cuda_fail("ss_cuda_batch_copy: element size", (int)es, __FILE__, __LINE__);
    }
    SS_CHECK_LAUNCH("batched copy kernel launch");
}

// ---- small sizes (batched_small.cuh; where they are used: small_most_order there)
extern "C" int ss_cuda_batch_small_taken(int op, int m, int n, size_t es, int complex_arith)
{
    return small_taken(op, m, n, (int)es, complex_arith);
}

static unsigned small_blocks(int count, int nc)
{
    int mpb = SMALL_MPB(nc);
    return (unsigned)((count + mpb - 1) / mpb);
}

// launch(small_width<NC>()) with the segment width m x n needs (small_nc_launch), or fail: a shape
// small_taken let through must have its kernel
template <typename T, int OP, typename F>
static void small_dispatch(int m, int n, F launch)
{
    if (!small_nc_launch<T, OP>(small_nc(m, n), launch))
        ss_cuda_fail("batched small kernel: no kernel of this segment width", small_nc(m, n), __FILE__, __LINE__);
}

// launch(small_width<NW>()) for small_nw(NC, need), the registers a lane holds; STARSOLVE_BATCH_SMALL_NW=0:
// NC (the kernels before session 53, to measure against)
template <int NC, typename F>
static void small_nw_dispatch(int need, F launch)
{
    static int narrow = -1;
    if (narrow < 0) {
        const char *e = getenv("STARSOLVE_BATCH_SMALL_NW");
        narrow = e ? atoi(e) != 0 : 1;
    }
    small_nw_launch<NC>(narrow ? small_nw(NC, need) : NC, launch);
}

template <typename T>
static void getrf_small_launch(int m, int n, void *A, int lda, long long sA, int *ipiv, long long sP, int *info,
                               int count, cudaStream_t stream)
{
    if (count <= 0)
        return;
    if (!small_taken(OP_GETRF, m, n, (int)sizeof(T), small_complex<T>()))
        ss_cuda_fail("batched getrf small kernel: shape too large", m > n ? m : n, __FILE__, __LINE__);
    small_dispatch<T, OP_GETRF>(m, n, [&](auto w) {
        constexpr int NC = decltype(w)::value;
        small_nw_dispatch<NC>(n, [&](auto r) {
            constexpr int NW = decltype(r)::value;
            getrf_small<T, NC, NW><<<small_blocks(count, NC), SMALL_MPB(NC) * NC, 0, stream>>>(m, n, (T *)A, lda, sA,
                                                                                             ipiv, sP, info, count);
        });
    });
    SS_CHECK_LAUNCH("batched getrf small kernel launch");
}

template <typename T>
static void potrf_small_launch(int n, int upper, void *A, int lda, long long sA, int *info, int count,
                               cudaStream_t stream)
{
    if (count <= 0)
        return;
    if (!small_taken(OP_POTRF, n, n, (int)sizeof(T), small_complex<T>()))
        ss_cuda_fail("batched potrf small kernel: order too large", n, __FILE__, __LINE__);
    small_dispatch<T, OP_POTRF>(n, n, [&](auto w) {
        constexpr int NC = decltype(w)::value;
        if (upper)
            potrf_small<T, NC, true><<<small_blocks(count, NC), SMALL_MPB(NC) * NC, 0, stream>>>(n, (T *)A, lda, sA,
                                                                                               info, count);
        else
            potrf_small<T, NC, false><<<small_blocks(count, NC), SMALL_MPB(NC) * NC, 0, stream>>>(n, (T *)A, lda, sA,
                                                                                                info, count);
    });
    SS_CHECK_LAUNCH("batched potrf small kernel launch");
}

template <typename T>
static void geqrf_small_launch(int m, int n, void *A, int lda, long long sA, void *tau, long long sT, int *info,
                               int count, cudaStream_t stream)
{
    if (count <= 0)
        return;
    if (!small_taken(OP_GEQRF, m, n, (int)sizeof(T), small_complex<T>()))
        ss_cuda_fail("batched geqrf small kernel: shape too large", m > n ? m : n, __FILE__, __LINE__);
    small_dispatch<T, OP_GEQRF>(m, n, [&](auto w) {
        constexpr int NC = decltype(w)::value;
        small_nw_dispatch<NC>(m, [&](auto r) {
            constexpr int NW = decltype(r)::value;
            geqrf_small<T, NC, NW><<<small_blocks(count, NC), SMALL_MPB(NC) * NC, 0, stream>>>(m, n, (T *)A, lda, sA,
                                                                                             (T *)tau, sT, info, count);
        });
    });
    SS_CHECK_LAUNCH("batched geqrf small kernel launch");
}

// The entry points of one precision, as the codelets name them: one body for the four
// precisions, each name written out where the precision's set is made (a grep finds them).
#define SS_BATCH_ENTRY_POINTS(T, GETRF_PANEL, LASWP, POTRF_PANEL, GEQRF_PANEL, GETRF_SMALL, POTRF_SMALL,         \
                              GEQRF_SMALL)                                                                          \
    extern "C" void GETRF_PANEL(int m, int j0, int jb, int c0, int c1, void *A, int lda, long long sA, int *ipiv,  \
                                long long sP, int *info, void *Linv, int ldl, long long sL, int count,              \
                                cudaStream_t stream)                                                                \
    {                                                                                                               \
        getrf_panel_launch<T>(m, j0, jb, c0, c1, A, lda, sA, ipiv, sP, info, Linv, ldl, sL, count, stream);         \
    }                                                                                                               \
    extern "C" void LASWP(int m, int k, int p0, int pstep, int c0, int cw, int c1, int ny, void *A, int lda,        \
                          long long sA, const int *ipiv, long long sP, int count, cudaStream_t stream)              \
    {                                                                                                               \
        laswp_launch<T>(m, k, p0, pstep, c0, cw, c1, ny, A, lda, sA, ipiv, sP, count, stream);                      \
    }                                                                                                               \
    extern "C" void POTRF_PANEL(int n, int j0, int jb, int upper, void *A, int lda, long long sA, const void *D,    \
                                int *info, int count, cudaStream_t stream)                                          \
    {                                                                                                               \
        potrf_panel_launch<T>(n, j0, jb, upper, A, lda, sA, D, info, count, stream);                                \
    }                                                                                                               \
    extern "C" void GEQRF_PANEL(int m, int j0, int jb, void *A, int lda, long long sA, void *tau, long long sT,      \
                                void *V, int ldv, long long sV, void *Tm, int ldt, long long sTm, int count,        \
                                cudaStream_t stream)                                                                \
    {                                                                                                               \
        geqrf_panel_launch<T>(m, j0, jb, A, lda, sA, tau, sT, V, ldv, sV, Tm, ldt, sTm, count, stream);             \
    }                                                                                                               \
    extern "C" void GETRF_SMALL(int m, int n, void *A, int lda, long long sA, int *ipiv, long long sP, int *info,    \
                                int count, cudaStream_t stream)                                                     \
    {                                                                                                               \
        getrf_small_launch<T>(m, n, A, lda, sA, ipiv, sP, info, count, stream);                                     \
    }                                                                                                               \
    extern "C" void POTRF_SMALL(int n, int upper, void *A, int lda, long long sA, int *info, int count,             \
                                cudaStream_t stream)                                                                \
    {                                                                                                               \
        potrf_small_launch<T>(n, upper, A, lda, sA, info, count, stream);                                           \
    }                                                                                                               \
    extern "C" void GEQRF_SMALL(int m, int n, void *A, int lda, long long sA, void *tau, long long sT, int *info,    \
                                int count, cudaStream_t stream)                                                     \
    {                                                                                                               \
        geqrf_small_launch<T>(m, n, A, lda, sA, tau, sT, info, count, stream);                                      \
    }

SS_BATCH_ENTRY_POINTS(float, ss_cuda_sbatch_getrf_panel, ss_cuda_sbatch_laswp, ss_cuda_sbatch_potrf_panel,
                      ss_cuda_sbatch_geqrf_panel, ss_cuda_sbatch_getrf_small, ss_cuda_sbatch_potrf_small, ss_cuda_sbatch_geqrf_small)
SS_BATCH_ENTRY_POINTS(double, ss_cuda_dbatch_getrf_panel, ss_cuda_dbatch_laswp, ss_cuda_dbatch_potrf_panel,
                      ss_cuda_dbatch_geqrf_panel, ss_cuda_dbatch_getrf_small, ss_cuda_dbatch_potrf_small, ss_cuda_dbatch_geqrf_small)
SS_BATCH_ENTRY_POINTS(float2, ss_cuda_cbatch_getrf_panel, ss_cuda_cbatch_laswp, ss_cuda_cbatch_potrf_panel,
                      ss_cuda_cbatch_geqrf_panel, ss_cuda_cbatch_getrf_small, ss_cuda_cbatch_potrf_small, ss_cuda_cbatch_geqrf_small)
SS_BATCH_ENTRY_POINTS(double2, ss_cuda_zbatch_getrf_panel, ss_cuda_zbatch_laswp, ss_cuda_zbatch_potrf_panel,
                      ss_cuda_zbatch_geqrf_panel, ss_cuda_zbatch_getrf_small, ss_cuda_zbatch_potrf_small, ss_cuda_zbatch_geqrf_small)

// ---- middle sizes (batched_tiled.cuh): one block per matrix, register tiles
template <typename T>
static void potrf_tiled_launch(int n, int j0, int jb, int ch, int upper, void *A, int lda, long long sA,
                               const void *W, void *Lout, const void *Lin, int jin, int jbin, int *info, int count,
                               cudaStream_t stream)
{
    constexpr int TR = TILED_POTRF_TR(T), TC = TILED_POTRF_TC;
    if (count <= 0)
        return;
    const int mr = n - j0, nchunks = mr > jb ? (mr - jb + ch - 1) / ch : 1, ml = mr > jb ? jb + ch : jb;
    const int threads = (tiled_potrf_tiles(ml, jb, TR, TC) + 31) / 32 * 32;
    if (n > TILED_POTRF_MAXN || jb < 1 || jb > mr || (mr > jb && (ch < 1 || jb % TR != 0)) || threads > tiled_potrf_threads<T>() ||
        TR * ((ml + TR - 1) / TR) > TILED_POTRF_MAXR || (long long)count * nchunks > 0x7fffffffLL ||
        (mr > jb && !Lout))
        ss_cuda_fail("batched potrf tiled kernel: panel too large", n, __FILE__, __LINE__);
    potrf_tiled<T, TR, TC, TILED_POTRF_MAXR><<<(unsigned)(count * nchunks), threads, 0, stream>>>(
        n, j0, jb, ch, upper, (T *)A, lda, sA, (const T *)W, (T *)Lout, (const T *)Lin, jin, jbin, info);
    SS_CHECK_LAUNCH("batched potrf tiled kernel launch");
}

template <typename T>
static void getrf_tiled_launch(int m, int n, void *A, int lda, long long sA, int *ipiv, long long sP, int *info,
                               int count, cudaStream_t stream)
{
    if (count <= 0)
        return;
    const int TB = tiled_getrf_tile(m, n, tiled_tb<T>::value);
    if (TB == 0)
        ss_cuda_fail("batched getrf tiled kernel: shape not taken", m > n ? m : n, __FILE__, __LINE__);
    const int NRP = tiled_pow2((m + TB - 1) / TB), NC = (n + TB - 1) / TB, threads = (NRP * NC + 31) / 32 * 32;
    if constexpr (tiled_tb<T>::value == 8) {   // real elements: 8 x 8 tiles, or 4 x 4 on request
        if (TB == 8) {
            getrf_tiled<T, 8><<<count, threads, 0, stream>>>(m, n, NRP, (T *)A, lda, sA, ipiv, sP, info);
            SS_CHECK_LAUNCH("batched getrf tiled kernel launch");
            return;
        }
    }
    getrf_tiled<T, 4><<<count, threads, 0, stream>>>(m, n, NRP, (T *)A, lda, sA, ipiv, sP, info);
    SS_CHECK_LAUNCH("batched getrf tiled kernel launch");
}

// Entry points of the tiled kernels, one precision (names written out at each use)
#define SS_BATCH_TILED_ENTRY_POINTS(T, GETRF_TILED, POTRF_TILED, GETRF_TILED_FITS, POTRF_TILED_PLAN)               \
    extern "C" void GETRF_TILED(int m, int n, void *A, int lda, long long sA, int *ipiv, long long sP, int *info,    \
                                int count, cudaStream_t stream)                                                     \
    {                                                                                                               \
        getrf_tiled_launch<T>(m, n, A, lda, sA, ipiv, sP, info, count, stream);                                     \
    }                                                                                                               \
    extern "C" void POTRF_TILED(int n, int j0, int jb, int ch, int upper, void *A, int lda, long long sA,            \
                                const void *W, void *Lout, const void *Lin, int jin, int jbin, int *info,           \
                                int count, cudaStream_t stream)                                                     \
    {                                                                                                               \
        potrf_tiled_launch<T>(n, j0, jb, ch, upper, A, lda, sA, W, Lout, Lin, jin, jbin, info, count, stream);      \
    }                                                                                                               \
    extern "C" int GETRF_TILED_FITS(int m, int n) { return tiled_getrf_tile(m, n, tiled_tb<T>::value) > 0; }        \
    extern "C" int POTRF_TILED_PLAN(int n, int large, int *ch)                                                      \
    {                                                                                                               \
        return tiled_potrf_plan(n, large, TILED_POTRF_TR(T), tiled_potrf_threads<T>(), ch);                         \
    }

extern "C" int ss_cuda_batch_potrf_tiled_width(int n, int j0, int tjb) { return tiled_potrf_width(n, j0, tjb); }

SS_BATCH_TILED_ENTRY_POINTS(float, ss_cuda_sbatch_getrf_tiled, ss_cuda_sbatch_potrf_tiled,
                            ss_cuda_sbatch_getrf_tiled_fits, ss_cuda_sbatch_potrf_tiled_plan)
SS_BATCH_TILED_ENTRY_POINTS(double, ss_cuda_dbatch_getrf_tiled, ss_cuda_dbatch_potrf_tiled,
                            ss_cuda_dbatch_getrf_tiled_fits, ss_cuda_dbatch_potrf_tiled_plan)
SS_BATCH_TILED_ENTRY_POINTS(float2, ss_cuda_cbatch_getrf_tiled, ss_cuda_cbatch_potrf_tiled,
                            ss_cuda_cbatch_getrf_tiled_fits, ss_cuda_cbatch_potrf_tiled_plan)
SS_BATCH_TILED_ENTRY_POINTS(double2, ss_cuda_zbatch_getrf_tiled, ss_cuda_zbatch_potrf_tiled,
                            ss_cuda_zbatch_getrf_tiled_fits, ss_cuda_zbatch_potrf_tiled_plan)
