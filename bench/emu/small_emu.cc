// Host emulation of the small-size batched kernels (codelets/cuda/batched_small.cuh)
// for a machine without a GPU: the kernels' own text, compiled by the host C++
// compiler, each CUDA thread a pthread, each warp a barrier; __shfl_*_sync and
// __syncwarp go through that barrier (a lane that skipped one deadlocks the
// emulation: a check that every lane reaches every shuffle). Shared memory is the
// kernels' static arrays (blocks run one after the other). Defines the
// ss_cuda_?batch_*_small entry points on host memory (the stream is ignored), so
// that bench/emu/zsmall_emu_test.c runs the same calls as bench/batched_gpu.
// Not a GPU: memory ordering, real timing, registers and launch limits are not checked.
#include <cuda_runtime_api.h>
#include <cuComplex.h>
#include <vector_functions.h>
#include <cmath>
#include <math.h>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <pthread.h>
#include <vector>
#include <functional>

#undef __global__
#undef __device__
#undef __shared__
#undef __launch_bounds__
#undef __host__
#undef __noinline__
#define __host__
#define __global__
#define __device__
#define __shared__ static
#define __launch_bounds__(...)
#define __noinline__

struct emu_dim { unsigned x, y, z; };
static thread_local emu_dim threadIdx, blockIdx;
static emu_dim blockDim;

static pthread_barrier_t emu_block_bar;
static void __syncthreads() { pthread_barrier_wait(&emu_block_bar); }

struct emu_warp {
    pthread_barrier_t bar;
    unsigned char buf[32][16];
};
static thread_local emu_warp *my_warp;
static thread_local int my_lane;

static void __syncwarp(unsigned = 0xffffffffu) { pthread_barrier_wait(&my_warp->bar); }

template <typename V> static V emu_exchange(V v, int src)
{
    __syncwarp();
    memcpy(my_warp->buf[my_lane], &v, sizeof v);
    __syncwarp();
    V r;
    memcpy(&r, my_warp->buf[src], sizeof r);
    return r;
}
// every lane's v, in lane order (the warp's barrier on both sides: buf is then free again)
template <typename V> static void emu_all_lanes(V v, V *all)
{
    __syncwarp();
    memcpy(my_warp->buf[my_lane], &v, sizeof v);
    __syncwarp();
    for (int l = 0; l < 32; l++)
        memcpy(&all[l], my_warp->buf[l], sizeof v);
    __syncwarp();
}
static unsigned __reduce_max_sync(unsigned, unsigned v)
{
    unsigned all[32], r = 0;
    emu_all_lanes(v, all);
    for (int l = 0; l < 32; l++)
        r = all[l] > r ? all[l] : r;
    return r;
}
static unsigned __reduce_min_sync(unsigned, unsigned v)
{
    unsigned all[32], r = ~0u;
    emu_all_lanes(v, all);
    for (int l = 0; l < 32; l++)
        r = all[l] < r ? all[l] : r;
    return r;
}
static int __reduce_min_sync(unsigned, int v)
{
    int all[32], r = 0x7fffffff;
    emu_all_lanes(v, all);
    for (int l = 0; l < 32; l++)
        r = all[l] < r ? all[l] : r;
    return r;
}
static int atomicAdd(int *a, int v) { return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); }
// a kernel's dynamic shared memory: one buffer, the blocks run one after the other
static unsigned char *emu_dynamic_smem;
#define SS_DYNAMIC_SHARED(name) unsigned char *name = emu_dynamic_smem
static unsigned __ballot_sync(unsigned, int pred)
{
    int all[32];
    unsigned r = 0;
    emu_all_lanes(pred ? 1 : 0, all);
    for (int l = 0; l < 32; l++)
        r |= (unsigned)all[l] << l;
    return r;
}
static int __popc(unsigned x) { return __builtin_popcount(x); }
static long long __double_as_longlong(double x)
{
    long long r;
    memcpy(&r, &x, sizeof r);
    return r;
}
static unsigned __float_as_uint(float x)
{
    unsigned r;
    memcpy(&r, &x, sizeof r);
    return r;
}
template <typename V> static V __shfl_xor_sync(unsigned, V v, int off, int w = 32)
{
    (void)w;   // off < w: the partner stays in the segment
    return emu_exchange(v, my_lane ^ off);
}
template <typename V> static V __shfl_sync(unsigned, V v, int src, int w = 32)
{
    return emu_exchange(v, (my_lane & ~(w - 1)) + (src & (w - 1)));
}

#include "../../codelets/cuda/batched_small.cuh"
#include "../../codelets/cuda/batched_tiled.cuh"
#include "../../codelets/cuda/batched_regpanel.cuh"

static void emu_fail(const char *what)
{
    fprintf(stderr, "small_emu: %s\n", what);
    exit(1);
}

struct emu_thread_arg {
    unsigned tid, bid, bidy;
    emu_warp *warp;
    const std::function<void()> *body;
};

static void *emu_thread(void *p)
{
    emu_thread_arg *a = (emu_thread_arg *)p;
    threadIdx = { a->tid, 0, 0 };
    blockIdx = { a->bid, a->bidy, 0 };
    my_warp = a->warp;
    my_lane = (int)(a->tid % 32);
    (*a->body)();
    return nullptr;
}

static void emu_launch(unsigned grid, unsigned block, const std::function<void()> &body, unsigned grid_y = 1)
{
    if (block % 32)
        emu_fail("block not a multiple of 32");
    blockDim = { block, 1, 1 };
    std::vector<emu_warp> warps(block / 32);
    std::vector<pthread_t> th(block);
    std::vector<emu_thread_arg> args(block);
    for (unsigned bb = 0; bb < grid * grid_y; bb++) {
        const unsigned b = bb % grid, by = bb / grid;
        for (auto &w : warps)
            pthread_barrier_init(&w.bar, nullptr, 32);
        pthread_barrier_init(&emu_block_bar, nullptr, block);
        for (unsigned t = 0; t < block; t++) {
            args[t] = { t, b, by, &warps[t / 32], &body };
            if (pthread_create(&th[t], nullptr, emu_thread, &args[t]))
                emu_fail("pthread_create");
        }
        for (unsigned t = 0; t < block; t++)
            pthread_join(th[t], nullptr);
        for (auto &w : warps)
            pthread_barrier_destroy(&w.bar);
        pthread_barrier_destroy(&emu_block_bar);
    }
}

// where the small kernels are used, and so which 64-lane kernels exist: batched_small.cuh's small_most_order
extern "C" int ss_cuda_batch_small_taken(int op, int m, int n, size_t es, int complex_arith)
{
    return small_taken(op, m, n, (int)es, complex_arith);
}
// batched_small.cuh's small_nc_launch, as batched.cu's launchers call it
template <typename T, int OP, typename F> static void emu_dispatch(int m, int n, F launch)
{
    if (!small_nc_launch<T, OP>(small_nc(m, n), launch))
        emu_fail("a 64-lane kernel the library does not build");
}

template <typename T>
static void getrf(int m, int n, void *A, int lda, long long sA, int *ipiv, long long sP, int *info, int count)
{
    emu_dispatch<T, OP_GETRF>(m, n, [&](auto w) {
        constexpr int NC = decltype(w)::value;
        small_nw_launch<NC>(small_nw(NC, n), [&](auto r) {
            constexpr int NW = decltype(r)::value;
            emu_launch((count + SMALL_MPB(NC) - 1) / SMALL_MPB(NC), SMALL_MPB(NC) * NC,
                       [&] { getrf_small<T, NC, NW>(m, n, (T *)A, lda, sA, ipiv, sP, info, count); });
        });
    });
}
template <typename T>
static void potrf(int n, int upper, void *A, int lda, long long sA, int *info, int count)
{
    emu_dispatch<T, OP_POTRF>(n, n, [&](auto w) {
        constexpr int NC = decltype(w)::value;
        emu_launch((count + SMALL_MPB(NC) - 1) / SMALL_MPB(NC), SMALL_MPB(NC) * NC, [&] {
            if (upper)
                potrf_small<T, NC, true>(n, (T *)A, lda, sA, info, count);
            else
                potrf_small<T, NC, false>(n, (T *)A, lda, sA, info, count);
        });
    });
}
template <typename T>
static void geqrf(int m, int n, void *A, int lda, long long sA, void *tau, long long sT, int *info, int count)
{
    emu_dispatch<T, OP_GEQRF>(m, n, [&](auto w) {
        constexpr int NC = decltype(w)::value;
        small_nw_launch<NC>(small_nw(NC, m), [&](auto r) {
            constexpr int NW = decltype(r)::value;
            emu_launch((count + SMALL_MPB(NC) - 1) / SMALL_MPB(NC), SMALL_MPB(NC) * NC,
                       [&] { geqrf_small<T, NC, NW>(m, n, (T *)A, lda, sA, (T *)tau, sT, info, count); });
        });
    });
}

#define ENTRIES(p, T) \
extern "C" void ss_cuda_##p##batch_getrf_small(int m, int n, void *A, int lda, long long sA, int *ipiv, \
        long long sP, int *info, int count, cudaStream_t) { getrf<T>(m, n, A, lda, sA, ipiv, sP, info, count); } \
extern "C" void ss_cuda_##p##batch_potrf_small(int n, int upper, void *A, int lda, long long sA, int *info, \
        int count, cudaStream_t) { potrf<T>(n, upper, A, lda, sA, info, count); } \
extern "C" void ss_cuda_##p##batch_geqrf_small(int m, int n, void *A, int lda, long long sA, void *tau, \
        long long sT, int *info, int count, cudaStream_t) { geqrf<T>(m, n, A, lda, sA, tau, sT, info, count); }
ENTRIES(s, float)
ENTRIES(d, double)
ENTRIES(c, float2)
ENTRIES(z, double2)

// ---- the tiled kernels (batched_tiled.cuh) with batched.cu's launch geometry, and the
// left-looking Cholesky loop of zbatched_cuda.c with its GEMM done here on the host (blocks run
// one after the other here, in an order that would expose chunk 0 storing L11 before the other
// chunks read it)
template <typename T>
static void getrf_tiled_emu(int m, int n, void *A, int lda, long long sA, int *ipiv, long long sP, int *info, int count)
{
    const int TB = tiled_getrf_tile(m, n, tiled_tb<T>::value);
    if (TB == 0)
        emu_fail("getrf tiled: shape not taken");
    const int NRP = tiled_pow2((m + TB - 1) / TB), NC = (n + TB - 1) / TB, threads = (NRP * NC + 31) / 32 * 32;
    if constexpr (tiled_tb<T>::value == 8) {
        if (TB == 8) {
            emu_launch(count, threads, [&] { getrf_tiled<T, 8>(m, n, NRP, (T *)A, lda, sA, ipiv, sP, info); });
            return;
        }
    }
    emu_launch(count, threads, [&] { getrf_tiled<T, 4>(m, n, NRP, (T *)A, lda, sA, ipiv, sP, info); });
}

template <typename T>
static void potrf_tiled_emu(int n, int upper, void *Av, int lda, long long sA, int *info, int count)
{
    constexpr int TR = TILED_POTRF_TR(T), TC = TILED_POTRF_TC;
    int ch, tjb = tiled_potrf_plan(n, 0, TR, tiled_potrf_threads<T>(), &ch);
    if (tjb == 0)
        emu_fail("potrf tiled: order not taken");
    T *A = (T *)Av;
    std::vector<T> Wv((size_t)count * n * tjb), L0((size_t)count * tjb * tjb), L1((size_t)count * tjb * tjb);
    T *Ls[2] = { L0.data(), L1.data() };
    for (int j0 = 0, p = 0, jb; j0 < n; j0 += jb, p++) {
        const int mr = n - j0;
        jb = tiled_potrf_width(n, j0, tjb);
        T *W = j0 > 0 ? Wv.data() : nullptr;
        for (int b = 0; W && b < count; b++)   // W = L(j0:n, 0:j0) L(j0:j0+jb, 0:j0)^H (lower terms)
            for (int q = 0; q < jb; q++)
                for (int r = 0; r < mr; r++) {
                    T s = make<T>(0, 0);
                    for (int k = 0; k < j0; k++) {
                        const T *M = A + b * sA;
                        T x = upper ? conj_(M[k + (size_t)(j0 + r) * lda]) : M[(j0 + r) + (size_t)k * lda];
                        T y = upper ? conj_(M[k + (size_t)(j0 + q) * lda]) : M[(j0 + q) + (size_t)k * lda];
                        s = add(s, mul(x, conj_(y)));
                    }
                    W[(size_t)b * mr * jb + r + (size_t)q * mr] = s;
                }
        const int nchunks = mr > jb ? (mr - jb + ch - 1) / ch : 1, ml = mr > jb ? jb + ch : jb;
        const int threads = (tiled_potrf_tiles(ml, jb, TR, TC) + 31) / 32 * 32;
        if (threads > tiled_potrf_threads<T>() || TR * ((ml + TR - 1) / TR) > TILED_POTRF_MAXR ||
            (mr > jb && jb % TR != 0))
            emu_fail("potrf tiled: block too large");
        emu_launch(count * nchunks, threads, [&] {
            potrf_tiled<T, TR, TC, TILED_POTRF_MAXR>(n, j0, jb, ch, upper, A, lda, sA, W, mr > jb ? Ls[p % 2] : nullptr,
                                                     j0 > 0 ? Ls[(p + 1) % 2] : nullptr, j0 - tjb, tjb, info);
        });
    }
}

#define TILED_ENTRIES(p, T) \
extern "C" int ss_cuda_##p##batch_getrf_tiled_fits(int m, int n) { return tiled_getrf_tile(m, n, tiled_tb<T>::value) > 0; } \
extern "C" int ss_cuda_##p##batch_potrf_tiled_plan(int n, int large, int *ch) { \
    return tiled_potrf_plan(n, large, TILED_POTRF_TR(T), tiled_potrf_threads<T>(), ch); } \
extern "C" void ss_cuda_##p##batch_getrf_tiled(int m, int n, void *A, int lda, long long sA, int *ipiv, \
        long long sP, int *info, int count, cudaStream_t) { getrf_tiled_emu<T>(m, n, A, lda, sA, ipiv, sP, info, count); } \
extern "C" void ss_cuda_##p##batch_potrf_tiled_all(int n, int upper, void *A, int lda, long long sA, int *info, \
        int count) { potrf_tiled_emu<T>(n, upper, A, lda, sA, info, count); }
TILED_ENTRIES(s, float)
TILED_ENTRIES(d, double)
TILED_ENTRIES(c, float2)
TILED_ENTRIES(z, double2)

// ---- the register panels (batched_regpanel.cuh) in zbatched_cuda.c's loops over panels of nb
// columns, their GEMMs done here on the host; 0 when a panel does not take the register kernel
template <typename T, typename K>
static int regpanel_launch(int mr, int jb, unsigned count, K launch)
{
    const unsigned threads = (unsigned)(mr + 31) / 32 * 32;
    switch (regpanel_nc(mr, jb, sizeof(T))) {
    case 16: emu_launch(count, threads, [&] { launch(small_width<16>()); }); return 1;
    case 32:
        if constexpr (sizeof(T) <= 8) {
            emu_launch(count, threads, [&] { launch(small_width<32>()); });
            return 1;
        }
        return 0;
    default: return 0;
    }
}
// The LU's row moves as the nested LU in zbatched_cuda.c defers them: outer blocks of two panels,
// a panel's moves on the columns from its outer block's first on (so both sides of a panel are
// exercised), and at the end batch_laswp gives every outer block's columns the later pivots.
template <typename T>
static int getrf_regpanel_emu(int m, int n, int nb, void *Av, int lda, long long sA, int *ipiv, long long sP,
                              int *info, int count)
{
    const int k = m < n ? m : n, nbo = 2 * nb;
    for (int j0 = 0; j0 < k; j0 += nb)   // every panel must take the register kernel
        if (!regpanel_nc(m - j0, nb < k - j0 ? nb : k - j0, sizeof(T)))
            return 0;
    T *A = (T *)Av;
    std::vector<T> Linv((size_t)count * nb * nb), U((size_t)nb * n);
    memset(info, 0, sizeof *info * count);
    for (int j0 = 0; j0 < k; j0 += nb) {
        const int jb = nb < k - j0 ? nb : k - j0, n2 = n - j0 - jb, m2 = m - j0 - jb;
        regpanel_launch<T>(m - j0, jb, count, [&](auto w) {
            getrf_regpanel<T, decltype(w)::value>(m, j0 / nbo * nbo, n, j0, jb, A, lda, sA, ipiv, sP, info,
                                                  n2 > 0 ? Linv.data() : nullptr, jb, (long long)jb * jb);
        });
        for (int b = 0; b < count && n2 > 0; b++) {   // U12 = inv(L11) A12, A22 -= L21 U12
            T *M = A + b * sA, *Li = Linv.data() + (size_t)b * jb * jb;   // stride jb * jb, as asked
            for (int q = 0; q < n2; q++)
                for (int r = 0; r < jb; r++) {
                    T s = make<T>(0, 0);
                    for (int l = 0; l < jb; l++)
                        s = add(s, mul(Li[r + (size_t)l * jb], M[(j0 + l) + (size_t)(j0 + jb + q) * lda]));
                    U[r + (size_t)q * jb] = s;
                }
            for (int q = 0; q < n2; q++) {
                for (int r = 0; r < jb; r++)
                    M[(j0 + r) + (size_t)(j0 + jb + q) * lda] = U[r + (size_t)q * jb];
                for (int r = 0; r < m2; r++) {
                    T s = M[(j0 + jb + r) + (size_t)(j0 + jb + q) * lda];
                    for (int l = 0; l < jb; l++)
                        s = sub(s, mul(M[(j0 + jb + r) + (size_t)(j0 + l) * lda], U[l + (size_t)q * jb]));
                    M[(j0 + jb + r) + (size_t)(j0 + jb + q) * lda] = s;
                }
            }
        }
    }
    const int ny = (k - 1) / nbo;   // outer block y's columns take the pivots from block y + 1 on
    if (ny > 0) {
        std::vector<unsigned char> smem(batch_laswp_bytes(m - nbo, sizeof(T)));
        emu_dynamic_smem = smem.data();
        emu_launch(count, LASWP_THREADS, [&] {
            batch_laswp<T>(m, k, nbo, nbo, 0, nbo, k, A, lda, sA, ipiv, sP);
        }, ny);
        emu_dynamic_smem = nullptr;
    }
    return 1;
}

template <typename T>
static int potrf_regpanel_emu(int n, int nb, int upper, void *Av, int lda, long long sA, int *info, int count)
{
    for (int j0 = 0; j0 < n; j0 += nb)
        if (!regpanel_nc(n - j0, nb < n - j0 ? nb : n - j0, sizeof(T)))
            return 0;
    T *A = (T *)Av;
    std::vector<T> D((size_t)count * nb * nb);
    memset(info, 0, sizeof *info * count);
    for (int j0 = 0; j0 < n; j0 += nb) {
        const int jb = nb < n - j0 ? nb : n - j0, rest = n - j0 - jb;
        for (int b = 0; b < count && j0 > 0; b++) {   // D = L10 L10^H, A21 -= L20 L10^H
            T *M = A + b * sA;
            auto L = [&](int i, int c) { return upper ? conj_(M[c + (size_t)i * lda]) : M[i + (size_t)c * lda]; };
            auto dot = [&](int i, int c) {   // row i of L(:, 0:j0) times row j0 + c's conjugate
                T s = make<T>(0, 0);
                for (int l = 0; l < j0; l++)
                    s = add(s, mul(L(i, l), conj_(L(j0 + c, l))));
                return s;
            };
            for (int q = 0; q < jb; q++) {
                for (int r = 0; r < jb; r++)
                    D[(size_t)b * jb * jb + r + (size_t)q * jb] = dot(j0 + r, q);
                for (int r = 0; r < rest; r++) {
                    const int i = j0 + jb + r;
                    const T v = sub(L(i, j0 + q), dot(i, q));
                    if (upper)
                        M[(j0 + q) + (size_t)i * lda] = conj_(v);
                    else
                        M[i + (size_t)(j0 + q) * lda] = v;
                }
            }
        }
        regpanel_launch<T>(n - j0, jb, count, [&](auto w) {
            potrf_regpanel<T, decltype(w)::value>(n, j0, jb, upper, A, lda, sA, j0 > 0 ? D.data() : nullptr, info);
        });
    }
    return 1;
}

#define REGPANEL_ENTRIES(p, T) \
extern "C" int ss_cuda_##p##batch_getrf_regpanel_all(int m, int n, int nb, void *A, int lda, long long sA, \
        int *ipiv, long long sP, int *info, int count) { \
    return getrf_regpanel_emu<T>(m, n, nb, A, lda, sA, ipiv, sP, info, count); } \
extern "C" int ss_cuda_##p##batch_potrf_regpanel_all(int n, int nb, int upper, void *A, int lda, long long sA, \
        int *info, int count) { return potrf_regpanel_emu<T>(n, nb, upper, A, lda, sA, info, count); }
REGPANEL_ENTRIES(s, float)
REGPANEL_ENTRIES(d, double)
REGPANEL_ENTRIES(c, float2)
REGPANEL_ENTRIES(z, double2)
