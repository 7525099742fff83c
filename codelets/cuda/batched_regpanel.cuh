// Panels of the batched LU and Cholesky in registers: one thread block per matrix,
// thread r holds row j0 + r of the panel (rows j0..m-1, columns j0..j0+jb-1) in NC
// registers, jb <= NC, and the block has one thread per row, at most REGPANEL_THREADS.
// Same contract as getrf_panel and potrf_panel in batched.cu (which launches whichever
// applies), the getrf_small and potrf_small structure over many warps: each column
// costs one block barrier, where the shared-memory panel kernels take four (LU) and
// three (Cholesky) and read and write the whole panel in shared memory for every
// column (H100, bench/NOTES.md session 21: the LU panel of 128 rows took 5.6 of the
// LU of 128's 7.2 ms). Included by batched.cu; kept apart so that bench/emu's host
// emulation compiles the same text.
//   getrf: each warp elects its pivot candidate with the warp reductions and puts its
//     row in shared memory; after the barrier every warp picks the best of those
//     candidates the same way (LAPACK's choice: the first position of largest
//     |re| + |im|). Rows do not move while the panel is factored: each thread keeps
//     its row's position in LAPACK's order and stores the row there at the end. Then
//     the panel's row moves on every other column, all at once, and inv(L11) for the
//     TRSM-as-GEMM that follows.
//   potrf: left-looking in lower terms (uplo U reads and writes A^H); the diagonal
//     block arrives with D = L10 L10^H to subtract; column c of the diagonal block
//     goes to shared memory, every row below scales and updates itself.
#ifndef STARSOLVE_BATCHED_REGPANEL_CUH
#define STARSOLVE_BATCHED_REGPANEL_CUH
#include "batched_scalar.cuh"
#include "batched_small.cuh"   // pivot_rank, warp_pivot_key, make_chol_root
#include "batched_laswp.cuh"   // apply_row_moves

// rows a register panel holds, one per thread: a thread of a 512-thread block may have 128
// registers, enough for a row of 32 doubles (64 registers; ptxas gives the LU 104, no spill)
#define REGPANEL_THREADS 512
#define REGPANEL_WARPS (REGPANEL_THREADS / 32)

// ---- LU panel with partial pivoting; its row moves go to columns c0..c1-1 (outside the
// panel); Linv (ld ldl, stride sL per matrix, or null when not wanted) gets inv(L11)
template <typename T, int NC>
__global__ void __launch_bounds__(REGPANEL_THREADS)
    getrf_regpanel(int m, int c0, int c1, int j0, int jb, T *Aall, int lda, long long sA, int *ipiv_all, long long sP,
                   int *info, T *Linv, int ldl, long long sL)
{
    typedef typename real_of<T>::type R;
    __shared__ T cand_row[2][REGPANEL_WARPS][NC];   // each warp's candidate pivot row, double buffered
    __shared__ unsigned long long cand_rank[2][REGPANEL_WARPS];
    __shared__ int cand_key[2][REGPANEL_WARPS];
    __shared__ int perm[REGPANEL_THREADS], moved[2 * NC], warp_moves[REGPANEL_WARPS];
    __shared__ T L11[NC * NC];
    const int mr = m - j0, tid = threadIdx.x, lane = tid % 32, warp = tid / 32, nw = blockDim.x / 32;
    T *A = Aall + (size_t)blockIdx.x * sA;
    T a[NC];
#pragma unroll
    for (int q = 0; q < NC; q++)
        a[q] = tid < mr && q < jb ? A[(j0 + tid) + (size_t)(j0 + q) * lda] : make<T>(0, 0);
    // pos: the row's position in LAPACK's order; keys order candidates by it (ties: the first
    // position wins) and name the thread that holds them
    int pos = tid, my_piv = 0, zero_col = -1;
#pragma unroll
    for (int c = 0; c < NC; c++) {
        if (c >= jb)
            break;
        R v = -2;   // candidates: positions c..mr-1; a NaN never wins (-1), other rows never (-2)
        if (pos >= c && pos < mr) {
            R x = abs1(a[c]);
            v = x == x ? x : -1;
        }
        unsigned long long rank;
        int key = warp_pivot_key(pivot_rank(v), pos * REGPANEL_THREADS + tid, &rank);
        const int buf = c & 1;
        if (tid == key % REGPANEL_THREADS) {   // this warp's candidate
            cand_rank[buf][warp] = rank;
            cand_key[buf][warp] = key;
#pragma unroll
            for (int q = c; q < NC; q++)
                cand_row[buf][warp][q] = a[q];
        }
        __syncthreads();
        // the best of the warps' candidates (a position c..mr-1 always is one: rank >= 1)
        unsigned long long best;
        key = warp_pivot_key(lane < nw ? cand_rank[buf][lane] : 0ull, lane < nw ? cand_key[buf][lane] : 0x7fffffff,
                             &best);
        const int p = key / REGPANEL_THREADS, w = key % REGPANEL_THREADS;   // the pivot's position and thread
        const T *b = cand_row[buf][w / 32];
        if (tid == c)
            my_piv = p;
        if (tid == w)
            pos = c;
        else if (pos == c)
            pos = p;
        const T d = b[c];
        const bool nonzero = !is_zero(d);
        if (!nonzero && zero_col < 0)   // LAPACK goes on without scaling; the column below is zero anyway
            zero_col = c;
        if (pos > c && nonzero) {
            const T l = div_(a[c], d);
            a[c] = l;
#pragma unroll
            for (int q = c + 1; q < NC; q++)
                a[q] = sub(a[q], mul(l, b[q]));
        }
    }
    if (tid < mr) {
#pragma unroll
        for (int q = 0; q < NC; q++)
            if (q < jb)
                A[(j0 + pos) + (size_t)(j0 + q) * lda] = a[q];
        perm[pos] = tid;
    }
    if (tid < jb)
        ipiv_all[(size_t)blockIdx.x * sP + j0 + tid] = j0 + my_piv + 1;
    if (tid == 0 && zero_col >= 0 && info[blockIdx.x] == 0)   // an earlier panel's zero pivot comes first
        info[blockIdx.x] = j0 + zero_col + 1;
    if (!Linv && c0 >= j0 && c1 <= j0 + jb)   // no other column
        return;
    __syncthreads();
    // the positions whose row came from elsewhere, in order: a ballot per warp, then the
    // counts of the warps before
    const bool moves = tid < mr && perm[tid] != tid;
    const unsigned mask = __ballot_sync(0xffffffffu, moves);
    if (lane == 0)
        warp_moves[warp] = __popc(mask);
    if (Linv && pos < jb) {   // L11's strict lower part, column-major with ld NC
#pragma unroll
        for (int q = 0; q < NC; q++)
            if (q < pos)
                L11[pos + q * NC] = a[q];
    }
    __syncthreads();
    int before = 0, nmoved = 0;
    for (int i = 0; i < nw; i++) {
        before += i < warp ? warp_moves[i] : 0;
        nmoved += warp_moves[i];
    }
    if (moves)
        moved[before + __popc(mask & ((1u << lane) - 1))] = tid;
    __syncthreads();
    apply_row_moves(A, lda, c0, c1, j0, jb, perm, moved, nmoved);
    if (!Linv)
        return;
    // column tid of inv(L11), unit lower triangular: x(r) = [r == tid] - sum over l in
    // tid..r-1 of L11(r, l) x(l), zero above the diagonal
    T x[NC];
    if (tid < jb) {
#pragma unroll
        for (int r = 0; r < NC; r++) {
            T s = make<T>(r == tid ? 1 : 0, 0);
#pragma unroll
            for (int l = 0; l < r; l++)
                if (l >= tid)
                    s = sub(s, mul(L11[r + l * NC], x[l]));
            x[r] = r >= tid ? s : make<T>(0, 0);
        }
    }
    __syncthreads();   // L11 read by all: it takes inv(L11), then leaves for memory coalesced
    if (tid < jb) {
#pragma unroll
        for (int r = 0; r < NC; r++)
            if (r < jb)
                L11[r + tid * NC] = x[r];
    }
    __syncthreads();
    T *Li = Linv + (size_t)blockIdx.x * sL;
    for (int e = tid; e < jb * jb; e += blockDim.x)
        Li[e % jb + (size_t)(e / jb) * ldl] = L11[e % jb + (e / jb) * NC];
}

// ---- Cholesky panel in lower terms (upper: through the conjugate transpose). Rows
// j0..n-1, columns j0..j0+jb-1 of L; the rows below the diagonal block come already
// updated by the GEMM A21 -= L20 L10^H; D (jb x jb per matrix, or null at j0 = 0)
// holds L10 L10^H for the diagonal block. The right-looking steps that factor L11 give
// L21 = A21 L11^-H on the rows below. A matrix whose info is set is left alone.
template <typename T, int NC>
__global__ void __launch_bounds__(REGPANEL_THREADS)
    potrf_regpanel(int n, int j0, int jb, int upper, T *Aall, int lda, long long sA, const T *D, int *info)
{
    typedef typename real_of<T>::type R;
    __shared__ T col[2][NC];   // column c of the diagonal block, double buffered
    if (info[blockIdx.x] != 0)
        return;
    const int mr = n - j0, tid = threadIdx.x;
    T *A = Aall + (size_t)blockIdx.x * sA;
    T a[NC];   // row tid of the panel: q < jb, and q <= tid in the diagonal block (the rest is scratch)
#pragma unroll
    for (int q = 0; q < NC; q++) {
        const bool mine = tid < mr && q < jb && (tid >= jb || q <= tid);
        // uplo U: U(j0+q, j0+tid), a load per thread down a row of A (L1 serves its neighbours)
        a[q] = !mine ? make<T>(0, 0)
               : upper ? conj_(A[(j0 + q) + (size_t)(j0 + tid) * lda])
                       : A[(j0 + tid) + (size_t)(j0 + q) * lda];
    }
    if (D && tid < jb) {
        const T *Dk = D + (size_t)blockIdx.x * jb * jb;
#pragma unroll
        for (int q = 0; q < NC; q++)
            if (q <= tid)
                a[q] = sub(a[q], Dk[tid + (size_t)q * jb]);
    }
    int failed = -1;
#pragma unroll
    for (int c = 0; c < NC; c++) {
        if (c >= jb)
            break;
        T *b = col[c & 1];
        if (tid < jb)
            b[tid] = a[c];
        __syncthreads();
        const R d = re(b[c]);   // LAPACK reads the real part of the diagonal
        if (!(d > 0)) {         // not positive, or NaN: leading minor j0+c+1 fails; all threads leave
            failed = c;
            break;
        }
        const chol_root<R> root = make_chol_root(d);
        if (tid == c) {
            a[c] = make<T>(root.root, 0);
        } else if (tid > c && tid < mr) {
            a[c] = scale(a[c], root.inv);
            const T t = scale(a[c], root.inv);   // A(r, c) / d: L(r, c) conj(L(q, c)) = A(r, c) conj(A(q, c)) / d
#pragma unroll
            for (int q = c + 1; q < NC; q++)
                if (q < jb)
                    a[q] = sub(a[q], mul(t, conj_(b[q])));
        }
    }
#pragma unroll
    for (int q = 0; q < NC; q++) {
        if (tid < mr && q < jb && (tid >= jb || q <= tid)) {
            if (upper)
                A[(j0 + q) + (size_t)(j0 + tid) * lda] = conj_(a[q]);
            else
                A[(j0 + tid) + (size_t)(j0 + q) * lda] = a[q];
        }
    }
    if (tid == 0 && failed >= 0)
        info[blockIdx.x] = j0 + failed + 1;
}

// Registers a row (NC) of the register kernels for a panel of mr rows and jb columns of
// es-byte elements; 0: they do not take it. Rows of 32 complex doubles would take 128
// registers and spill (batched.cu also keeps complex float's Cholesky off the 32-column one).
inline int regpanel_nc(int mr, int jb, size_t es)
{
    if (mr < 1 || mr > REGPANEL_THREADS || jb < 1)
        return 0;
    return jb <= 16 ? 16 : jb <= 32 && es <= 8 ? 32 : 0;
}

#endif
