// Register-tiled batched LU and Cholesky for the middle sizes (LU: max(m, n) 33..128 in s, d,
// to 64 in c, z; Cholesky: 33..1024), one thread block per matrix (per chunk of a Cholesky
// panel's rows), each thread holding a tile of the matrix (or of the panel) in registers for the
// whole factorization, a runtime loop over the columns (unrolled by the tile width, so that the
// column inside a tile is a compile-time index), and only the column (and LU's pivot row) of each
// step going through shared memory. Included by batched.cu (launchers there) and by the host
// emulation in bench/emu.
//
// Why: the small kernels (batched_small.cuh) unroll every column of a 64-wide matrix (~10k
// instructions, more than the instruction caches hold) and update with one shared-memory read
// per FMA; the panel kernels (batched.cu) read and write shared memory ~3 times per FMA. Here a
// step costs a thread TR + TC shared reads for TR * TC FMAs from registers.
//
//   potrf_tiled: tiles of TR x 4 (8 x 4; z 4 x 4) over the lower trapezoid of the block's rows,
//     numbered column by column; lower terms (uplo U reads and writes A^H). The whole matrix
//     (up to ~140 in d: at most 320 tiles) in one block; beyond, left-looking panels of jb = 64
//     columns (z 32): W = L(j0:n, 0:j0) L(j0:j0+jb, 0:j0)^H from one GEMM (zbatched_cuda.c),
//     subtracted on load, and the panel's rows below its diagonal block spread over blocks of
//     CH rows (each block factors the diagonal block again, chunk 0 keeps it; L11 goes through
//     a workspace so that no block overwrites what another still reads). Right-looking inside:
//     step c, the owners of column c write it to shared memory (double buffered: one
//     __syncthreads per column), the owner of the diagonal checks it (LAPACK: real part > 0,
//     NaN fails) and publishes sqrt(d) and 1/d; every tile right of column c does
//     A(r, q) -= A(r, c) conj(A(q, c)) / d, the owners scale column c by 1/sqrt(d).
//     info: j0 = 0 writes it (0 or the failing minor); j0 > 0 skips a matrix whose info is set.
//   getrf_tiled: the whole m x n matrix, TB x TB tiles (8: s, d; 4: c, z), tile (I, J) with
//     I = t % NRP, J = t / NRP (NRP = tile rows rounded up to a power of two <= 32: the tiles of
//     one tile column are one aligned segment of a warp). Partial pivoting without moving rows
//     (as getrf_small): each row keeps its position in LAPACK's order; step c: the warp holding
//     tile column c finds the pivot by shuffles within the segment (first position of largest
//     |re| + |im|; NaN never wins), its owner publishes it; barrier; the owners of column c
//     scale it (1/pivot, or a division where the pivot is below the safe minimum, as zgetf2),
//     the owners of the pivot row publish it; barrier; every row after c updates its tile.
//     Rows are stored at their final positions at the end.
// Shared-memory vectors are kept "tile-transposed" (element r at (r % TR) * stride + r / TR) so
// that the lanes of a warp, which hold consecutive tile rows, read consecutive words.
#ifndef STARSOLVE_BATCHED_TILED_CUH
#define STARSOLVE_BATCHED_TILED_CUH
#include <float.h>
#include <stdlib.h>
#include "batched_scalar.cuh"

// largest order of a tiled Cholesky (panels beyond the whole-matrix size) and of a tiled LU
#define TILED_POTRF_MAXN 1024
#define TILED_GETRF_MAXN 128
// potrf's tiles: TR rows x 4 columns: 8 x 4 (s, d, c), 4 x 4 (z: registers)
#define TILED_POTRF_TC 4
#define TILED_POTRF_TR(T) (sizeof(T) > 8 ? 4 : 8)
// threads of a potrf block: at most 512 (at most 128 registers a thread), 256 for double complex
#define TILED_POTRF_THREADS(T) (sizeof(T) > 8 ? 256 : 512)
#define TILED_POTRF_MAXR 256   // rows a block holds (TR * tile rows): whole matrices to ~180, jb + CH
template <typename T> inline int tiled_potrf_threads() { return TILED_POTRF_THREADS(T); }
#define TILED_GETRF_THREADS 256

template <typename R> struct tiled_lim;
template <> struct tiled_lim<float> {
    static __device__ inline float sfmin() { return FLT_MIN; }
};
template <> struct tiled_lim<double> {
    static __device__ inline double sfmin() { return DBL_MIN; }
};

__device__ inline int tiled_shfl_xor(int v, int off, int w) { return __shfl_xor_sync(0xffffffffu, v, off, w); }
__device__ inline float tiled_shfl_xor(float v, int off, int w) { return __shfl_xor_sync(0xffffffffu, v, off, w); }
__device__ inline double tiled_shfl_xor(double v, int off, int w) { return __shfl_xor_sync(0xffffffffu, v, off, w); }

// the first tile row of tile column J that holds an element on or below the diagonal
__host__ __device__ inline int tiled_first_row(int J, int TR, int TC) { return TC * J / TR; }
// tiles of the lower trapezoid of an ml x jb block, tiles TR x TC
__host__ __device__ inline int tiled_potrf_tiles(int ml, int jb, int TR, int TC)
{
    int NR = (ml + TR - 1) / TR, NC = (jb + TC - 1) / TC, t = 0;
    for (int J = 0; J < NC; J++)
        t += NR - tiled_first_row(J, TR, TC);
    return t;
}

// ---- Cholesky panel (or whole matrix), lower terms. Block b: matrix b / nchunks, and
// chunk b % nchunks of the rows below the diagonal block (CH rows each): the block holds
// the jb x jb diagonal block (every chunk factors it again; chunk 0 stores it) and its
// chunk's rows ("local" rows 0..jb-1 and jb..jb+CH-1). The whole matrix or the last
// panel: jb = mr, one chunk, no rows below.
// The chunks of one panel read its diagonal block from A while chunk 0 factors it: so when rows
// lie below the block (mr > jb), chunk 0 writes L11 to Lout (jb x jb per matrix, lower part) and
// the next launch's chunk 0 copies it into A first (Lin, the previous panel's jin, jbin).
template <typename T, int TR, int TC, int MAXR>
__global__ void __launch_bounds__(TILED_POTRF_THREADS(T)) potrf_tiled(int n, int j0, int jb, int CH, int upper,
                                                                      T *Aall, int lda, long long sA, const T *Wall,
                                                                      T *Lout, const T *Lin, int jin, int jbin,
                                                                      int *info_all)
{
    typedef typename real_of<T>::type R;
    __shared__ T colb[2][MAXR];   // column c by local rows, tile-transposed: l at (l % TR) * NR + l / TR
    __shared__ R diag[2][2];       // sqrt(d), 1/d; 0 and 0 when the minor fails
    const int mr = n - j0, nchunks = mr > jb ? (mr - jb + CH - 1) / CH : 1;
    const long long mat = blockIdx.x / nchunks;
    const int chunk = blockIdx.x % nchunks;
    const int rest = mr - jb - chunk * CH, below = mr > jb ? (rest < CH ? rest : CH) : 0, ml = jb + below;
    const int NR = (ml + TR - 1) / TR, NC = (jb + TC - 1) / TC;
    if (j0 > 0 && info_all[mat] != 0)
        return;   // an earlier panel failed: this matrix stops (the whole block leaves together)
    T *A = Aall + mat * sA;
    const T *W = Wall ? Wall + mat * (long long)mr * jb : nullptr;
    if (Lin && chunk == 0) {   // the previous panel's L11 into A (nobody reads it in this launch)
        const T *L = Lin + mat * (long long)jbin * jbin;
        for (int e = threadIdx.x; e < jbin * jbin; e += blockDim.x) {
            const int r = e % jbin, q = e / jbin;
            if (r >= q) {
                if (upper)
                    A[(jin + q) + (size_t)(jin + r) * lda] = conj_(L[e]);
                else
                    A[(jin + r) + (size_t)(jin + q) * lda] = L[e];
            }
        }
    }
    // this thread's tile: (I, J) of the local lower trapezoid, numbered column by column
    int I = -1, J = 0;
    {
        int t = threadIdx.x;
        while (J < NC && t >= NR - tiled_first_row(J, TR, TC)) {
            t -= NR - tiled_first_row(J, TR, TC);
            J++;
        }
        if (J < NC)
            I = tiled_first_row(J, TR, TC) + t;
    }
    const bool has = I >= 0;
    const int l0 = TR * I, q0 = TC * J;
    // the panel row of local row l0 + i: p0 + i (jb is a multiple of TR when rows lie below
    // the diagonal block, so that no tile straddles the two); rows at or past ml are not there
    const int p0 = l0 < jb ? l0 : jb + chunk * CH + (l0 - jb);
    T a[TR][TC];
#pragma unroll
    for (int i = 0; i < TR; i++)
#pragma unroll
        for (int j = 0; j < TC; j++) {
            const int r = p0 + i, q = q0 + j;
            T v = make<T>(0, 0);
            if (has && l0 + i < ml && q < jb && r >= q) {
                v = upper ? conj_(A[(j0 + q) + (size_t)(j0 + r) * lda]) : A[(j0 + r) + (size_t)(j0 + q) * lda];
                if (W)
                    v = sub(v, W[r + (size_t)q * mr]);
            }
            a[i][j] = v;
        }
    int failed = -1;
    for (int cb = 0; cb < jb && failed < 0; cb += TC) {
        const int Jc = cb / TC;
#pragma unroll
        for (int jj = 0; jj < TC; jj++) {
            const int c = cb + jj;
            if (c >= jb)
                break;   // uniform: every thread has the same c
            T *b = colb[c & 1];
            if (has && J == Jc) {   // owners of column c publish it (rows >= c); the diagonal's owner checks it
#pragma unroll
                for (int i = 0; i < TR; i++) {
                    const int l = l0 + i;
                    if (l >= c && l < ml)
                        b[i * NR + I] = a[i][jj];
                    if (l == c) {
                        const R d = re(a[i][jj]);   // LAPACK reads the real part of the diagonal
                        const bool ok = d > 0;      // not positive, or NaN: leading minor j0 + c + 1 fails
                        diag[c & 1][0] = ok ? sqrt(d) : 0;
                        diag[c & 1][1] = ok ? 1 / d : 0;
                    }
                }
            }
            __syncthreads();
            const R sq = diag[c & 1][0], invd = diag[c & 1][1];
            if (!(sq > 0)) {   // every thread reads the same value: all stop together
                failed = c;
                break;
            }
            if (has && J >= Jc) {
                T t[TR], u[TC];
#pragma unroll
                for (int i = 0; i < TR; i++)
                    t[i] = scale(b[i * NR + I], invd);   // A(r, c) / d
#pragma unroll
                for (int j = 0; j < TC; j++) {            // conj(A(q, c)): local row q (q < jb)
                    const int q = q0 + j;
                    u[j] = conj_(b[(q % TR) * NR + q / TR]);
                }
#pragma unroll
                for (int j = 0; j < TC; j++)
                    if (J > Jc || j > jj)
#pragma unroll
                        for (int i = 0; i < TR; i++)
                            a[i][j] = sub(a[i][j], mul(t[i], u[j]));
                if (J == Jc) {   // column c becomes L's: A(r, c) / sqrt(d), the diagonal sqrt(d)
                    const R rs = sq * invd;
#pragma unroll
                    for (int i = 0; i < TR; i++) {
                        if (l0 + i > c)
                            a[i][jj] = scale(a[i][jj], rs);
                        else if (l0 + i == c)
                            a[i][jj] = make<T>(sq, 0);
                    }
                }
            }
        }
    }
#pragma unroll
    for (int i = 0; i < TR; i++)
#pragma unroll
        for (int j = 0; j < TC; j++) {
            const int r = p0 + i, q = q0 + j;
            if (has && l0 + i < ml && q < jb && r >= q && (chunk == 0 || r >= jb)) {
                if (Lout && r < jb)
                    Lout[mat * (long long)jb * jb + r + (size_t)q * jb] = a[i][j];
                else if (upper)
                    A[(j0 + q) + (size_t)(j0 + r) * lda] = conj_(a[i][j]);
                else
                    A[(j0 + r) + (size_t)(j0 + q) * lda] = a[i][j];
            }
        }
    if (threadIdx.x == 0 && chunk == 0 && (j0 == 0 || failed >= 0))
        info_all[mat] = failed >= 0 ? j0 + failed + 1 : 0;
}

// ---- LU with partial pivoting, the whole m x n matrix; NRP: tile rows rounded up to a power of two
template <typename T, int TB>
__global__ void __launch_bounds__(TILED_GETRF_THREADS) getrf_tiled(int m, int n, int NRP, T *Aall, int lda,
                                                                   long long sA, int *ipiv_all, long long sP,
                                                                   int *info_all)
{
    typedef typename real_of<T>::type R;
    __shared__ T colb[TILED_GETRF_MAXN];   // L's column c, tile-transposed by tile rows (stride NRP)
    __shared__ T urow[TILED_GETRF_MAXN];   // U's row c, tile-transposed by tile columns (stride NC)
    __shared__ int pkey;                    // the pivot: position * 1024 + physical row
    __shared__ T pval;
    const int NR = (m + TB - 1) / TB, NC = (n + TB - 1) / TB, k = m < n ? m : n;
    const int I = threadIdx.x % NRP, J = threadIdx.x / NRP, r0 = TB * I, q0 = TB * J;
    const bool has = I < NR && J < NC;
    const int warp = threadIdx.x / 32;
    const long long mat = blockIdx.x;
    T *A = Aall + mat * sA;
    T a[TB][TB];
    int pos[TB];   // each row's position in LAPACK's row order (rows past m: never candidates)
#pragma unroll
    for (int i = 0; i < TB; i++) {
        pos[i] = r0 + i;
#pragma unroll
        for (int j = 0; j < TB; j++) {
            const int r = r0 + i, q = q0 + j;
            a[i][j] = has && r < m && q < n ? A[r + (size_t)q * lda] : make<T>(0, 0);
        }
    }
    int info = 0;
    for (int cb = 0; cb < k; cb += TB) {
        const int Jc = cb / TB;
        const bool owner_warp = (Jc * NRP) / 32 == warp;   // the warp that holds tile column Jc
#pragma unroll
        for (int jj = 0; jj < TB; jj++) {
            const int c = cb + jj;
            if (c >= k)
                break;
            if (owner_warp) {   // the pivot: shuffles within the NRP lanes of tile column Jc
                R v = -2;       // candidates: positions c..m-1; NaN -1, others -2 (never win)
                int key = 0x7fffffff;
                if (has && J == Jc) {
#pragma unroll
                    for (int i = 0; i < TB; i++)
                        if (r0 + i < m && pos[i] >= c) {
                            const R x = abs1(a[i][jj]);
                            const R xv = x == x ? x : -1;
                            const int kk = pos[i] * 1024 + r0 + i;
                            if (xv > v || (xv == v && kk < key)) {
                                v = xv;
                                key = kk;
                            }
                        }
                }
                for (int off = NRP / 2; off > 0; off >>= 1) {
                    const R ov = tiled_shfl_xor(v, off, NRP);
                    const int okey = tiled_shfl_xor(key, off, NRP);
                    if (ov > v || (ov == v && okey < key)) {
                        v = ov;
                        key = okey;
                    }
                }
                if (has && J == Jc) {
#pragma unroll
                    for (int i = 0; i < TB; i++)
                        if (r0 + i == key % 1024) {
                            pkey = key;
                            pval = a[i][jj];
                        }
                }
            }
            __syncthreads();
            const int key = pkey, prow = key % 1024, ppos = key / 1024;
            const T d = pval;
            const bool nonzero = !is_zero(d);
#pragma unroll
            for (int i = 0; i < TB; i++) {
                if (r0 + i == prow)
                    pos[i] = c;
                else if (pos[i] == c)
                    pos[i] = ppos;
            }
            if (has && J == Jc && nonzero) {   // L's column c
                const bool recip = abs1(d) >= 2 * tiled_lim<R>::sfmin();
                const T dinv = div_(make<T>(1, 0), d);
#pragma unroll
                for (int i = 0; i < TB; i++)
                    if (r0 + i < m && pos[i] > c) {
                        a[i][jj] = recip ? mul(a[i][jj], dinv) : div_(a[i][jj], d);
                        colb[i * NRP + I] = a[i][jj];
                    }
            }
            if (has && J >= Jc && r0 <= prow && prow < r0 + TB) {   // U's row c, columns after c
#pragma unroll
                for (int i = 0; i < TB; i++)
                    if (r0 + i == prow) {
#pragma unroll
                        for (int j = 0; j < TB; j++)
                            if ((J > Jc || j > jj) && q0 + j < n)
                                urow[j * NC + J] = a[i][j];
                    }
            }
            if (threadIdx.x == 0) {
                ipiv_all[mat * sP + c] = ppos + 1;
                if (!nonzero && info == 0)   // LAPACK goes on; the column below is zero anyway
                    info = c + 1;
            }
            __syncthreads();
            if (has && J >= Jc && nonzero) {
                T u[TB];
#pragma unroll
                for (int j = 0; j < TB; j++)
                    u[j] = urow[j * NC + J];
#pragma unroll
                for (int i = 0; i < TB; i++)
                    if (r0 + i < m && pos[i] > c) {
                        const T l = colb[i * NRP + I];
#pragma unroll
                        for (int j = 0; j < TB; j++)
                            if (J > Jc || j > jj)
                                a[i][j] = sub(a[i][j], mul(l, u[j]));
                    }
            }
        }
    }
    if (has) {
#pragma unroll
        for (int i = 0; i < TB; i++)
            if (r0 + i < m)
#pragma unroll
                for (int j = 0; j < TB; j++)
                    if (q0 + j < n)
                        A[pos[i] + (size_t)(q0 + j) * lda] = a[i][j];
    }
    if (threadIdx.x == 0)
        info_all[mat] = info;
}

// ---- host-side choices (launchers in batched.cu, and the host emulation)
// getrf's tile: 8 x 8 for real elements, 4 x 4 for complex ones (registers).
template <typename T> struct tiled_tb {
    enum { value = sizeof(T) == sizeof(typename real_of<T>::type) ? 8 : 4 };
};
// Knobs, read once from the environment, to compare variants in one run:
//   STARSOLVE_BATCH_TILED=0       the tiled kernels off (the small and panel paths as before);
//   STARSOLVE_BATCH_TILED_FROM=N  the smallest max(m, n) they take (default 33: the small
//                                 register kernels keep 1..32);
//   STARSOLVE_BATCH_TILE=4|8      getrf's tile for real elements (default 8);
//   STARSOLVE_BATCH_POTRF_NB=W    potrf's panel width (64, 32, 16, 8; default: the whole
//                                 matrix where it fits, else 64, z 32; above order 512, 32);
//   STARSOLVE_BATCH_POTRF_CH=R    potrf's rows below the diagonal block per thread block
//                                 (a multiple of 8, at most 192; default: automatic);
//   STARSOLVE_BATCH_TILED_POTRF_MAX=N  the largest order potrf's tiled kernel takes (default none
//                                 but the orders above 512 below);
//   STARSOLVE_BATCH_TILED_POTRF_LARGE=0  not the orders above 512 either (see tiled_potrf_plan);
//   STARSOLVE_BATCH_TILED_GETRF=1 getrf's tiled kernel on (default off).
// The defaults follow the H100 measurement (double, 1 GiB, ratio to the vendor's, bench/NOTES.md
// session 13): the tiled potrf won at 64 (1.38 against 1.29) and lost from 128 on (0.55 against
// 1.19 at 128, 0.97 against 1.23 at 256); the tiled getrf lost at 64 (0.88 against 1.39) and
// 128 (0.58 against 1.45). Session 21: with its divisions and square roots out of line, the
// small-size Cholesky (batched_small.cuh) won at 64 (3.21 against 1.38) and 48 (2.18); it now
// comes first wherever it applies (s, d, c to 64), so the tiled Cholesky's default share is
// z's orders 33..64. Session 51 (H200): the panel path with panels of 16 columns beat it there
// (z 40, 48, 64: 2.44, 2.20, 2.27 against 2.19, 1.02, 0.72), so none by default; but the tiled
// Cholesky with panels of 32 columns beat the panel path from order 561 in d, c and z, where that
// path's panels narrow (see tiled_potrf_plan).
struct tiled_env { int on, from, tile, potrf_nb, potrf_ch, potrf_max, potrf_large, getrf; };
static inline tiled_env tiled_settings()
{
    static tiled_env e = [] {
        tiled_env v = { 1, 33, 8, 0, 0, 0, 1, 0 };
        const char *s = getenv("STARSOLVE_BATCH_TILED");
        if (s && *s)
            v.on = atoi(s) != 0;
        s = getenv("STARSOLVE_BATCH_TILED_POTRF_LARGE");
        if (s && *s)
            v.potrf_large = atoi(s) != 0;
        s = getenv("STARSOLVE_BATCH_TILED_POTRF_MAX");
        if (s && atoi(s) > 0)
            v.potrf_max = atoi(s);
        s = getenv("STARSOLVE_BATCH_TILED_GETRF");
        if (s && *s)
            v.getrf = atoi(s) != 0;
        s = getenv("STARSOLVE_BATCH_TILED_FROM");
        if (s && atoi(s) > 0)
            v.from = atoi(s);
        s = getenv("STARSOLVE_BATCH_TILE");
        if (s && (atoi(s) == 4 || atoi(s) == 8))
            v.tile = atoi(s);
        s = getenv("STARSOLVE_BATCH_POTRF_NB");
        if (s && (atoi(s) == 8 || atoi(s) == 16 || atoi(s) == 32 || atoi(s) == 64))
            v.potrf_nb = atoi(s);
        s = getenv("STARSOLVE_BATCH_POTRF_CH");
        if (s && atoi(s) > 0 && atoi(s) <= 192)
            v.potrf_ch = atoi(s);
        return v;
    }();
    return e;
}
// tiles of the lower trapezoid of an mr x jb panel (tile (I, J), I >= J)
static inline int tiled_potrf_tiles(int mr, int jb, int TB)
{
    int NR = (mr + TB - 1) / TB, NC = (jb + TB - 1) / TB;
    return NC * (NC + 1) / 2 + (NR - NC) * NC;
}
// potrf's plan for order n: the panel width jb, n for the whole matrix in one block (when its
// lower triangle takes at most min(most_threads, 320) tiles), else 64 (z: 32) or what
// STARSOLVE_BATCH_POTRF_NB asks; *ch, the rows below the diagonal block per block: the most of
// 128, 64, .. that keeps a block at 256 tiles (two blocks an SM at 128 registers a thread), or
// STARSOLVE_BATCH_POTRF_CH; 0: not taken (off, below `from`, above TILED_POTRF_MAXN, above
// potrf_max unless `large`).
// large: the caller's choice for orders above 512 where the panel path must narrow its panels to
// fit their rows in shared memory (d, c: 16 columns from 561 rows, z: 8; s keeps 32 to 1024).
// There panels of 32 columns: on an H200 (1 GiB of matrices, seconds ours / cuSOLVER potrfBatched,
// bench/NOTES.md session 51) the panel path took d 576 0.0037, 768 0.0044, 1024 0.0058; z 0.0076,
// 0.0089, 0.0119 (0.69x cuSOLVER at 1024); these panels d 0.0036, 0.0040, 0.0045; z 0.0051, 0.0055,
// 0.0062 (1.33x); c 0.0078, 0.0091, 0.0118 against 0.0055, 0.0063, 0.0075 (0.90-0.98x cuSOLVER,
// which stays ahead in c from 560); the tiled default width (d 64) 0.0047 / 0.0051 at d 768 / 1024,
// c 64 or 16 columns, or 32 rows a block below the diagonal one, slower than these.
static inline int tiled_potrf_plan(int n, int large, int TR, int most_threads, int *ch)
{
    const int TC = TILED_POTRF_TC;
    tiled_env e = tiled_settings();
    *ch = 0;
    large = large && e.potrf_large;
    if (!e.on || n < e.from || n > TILED_POTRF_MAXN || (n > e.potrf_max && !large))
        return 0;
    int jb = e.potrf_nb > 0 ? e.potrf_nb : large ? 32 : TR == 8 ? 64 : 32;
    const int whole_most = most_threads < 320 ? most_threads : 320;
    if ((e.potrf_nb == 0 || jb >= n) && tiled_potrf_tiles(n, n, TR, TC) <= whole_most)
        return n;
    for (; jb >= 8; jb /= 2) {
        if (jb >= n || jb % TR != 0)
            continue;
        if (e.potrf_ch > 0 && e.potrf_ch % TR == 0 && tiled_potrf_tiles(jb + e.potrf_ch, jb, TR, TC) <= most_threads) {
            *ch = e.potrf_ch;
            return jb;
        }
        for (int c = 128; c >= TR; c /= 2)
            if (tiled_potrf_tiles(jb + c, jb, TR, TC) <= (most_threads < 256 ? most_threads : 256)) {
                *ch = c;
                return jb;
            }
    }
    return 0;
}
// The width of the panel at column j0 in panels of tjb (tiled_potrf_plan's): tjb, but the rest
// of the matrix when at most 8 columns would be left after it, so that the factorization does
// not end on a sliver (a one-column panel is a 1 x 1 batched GEMM and a launch; cuBLAS's is slow,
// see zbatched_cuda.c's panel loop). That last panel has no rows below its diagonal block, so its
// width need not be a multiple of TR, and at tjb + 8 columns it is still one block (at most 90
// tiles, tjb = 64 in d). Not where its W (rest x rest) would outgrow the n x tjb the caller's
// workspace holds a matrix (tjb = 8 at order 24, say: only with STARSOLVE_BATCH_POTRF_NB).
static inline int tiled_potrf_width(int n, int j0, int tjb)
{
    const int rest = n - j0;
    return rest - tjb <= 8 && (long long)rest * rest <= (long long)n * tjb ? rest : tjb;
}
static inline int tiled_pow2(int x)
{
    int p = 1;
    while (p < x)
        p *= 2;
    return p;
}
// getrf: the tile (4 or 8) for an m x n LU, 0: not taken
static inline int tiled_getrf_tile(int m, int n, int TBtype)
{
    tiled_env e = tiled_settings();
    int big = m > n ? m : n;
    if (!e.on || !e.getrf || m < 1 || n < 1 || big < e.from || big > TILED_GETRF_MAXN)
        return 0;
    int TB = TBtype == 8 ? e.tile : 4;
    int NR = (m + TB - 1) / TB, NRP = tiled_pow2(NR), NC = (n + TB - 1) / TB;
    if (NRP > 32 || NRP * NC > TILED_GETRF_THREADS || TB * NRP > TILED_GETRF_MAXN || TB * NC > TILED_GETRF_MAXN)
        return 0;
    return TB;
}

#endif
