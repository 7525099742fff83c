// SPIKE's GPU factor kernel and its parts, alone on synthetic partitions (double; bench/NOTES.md, session 26):
//
//   make bench/spike_kernels && bench/spike_kernels [K [psize [partitions]]]   (defaults 128, 16 K, 1e6 / psize)
//
// A diagonally dominant band of half-bandwidth K (kl = ku = K) cut into partitions as the library cuts it on a
// GPU. Times (best of 3, CUDA events) the whole factor kernel with the step-by-step band LU and solves
// (gbtf2_block, gbtrs_block) and with the blocked ones (gbtrf_blocked, gbtrs_blocked); then the band's copy into
// the LU layout alone, copy + LU each way, and a Vb-like solve (the trailing K + kl rows, K right-hand sides) each
// way. Then checks the blocked forms against the step-by-step ones on the same band, and again on a band without
// dominance (rows swapped): pivots must agree exactly, factors and solves to rounding. Exit 1 if a pivot differs.
// At K = 1 also the factor kernel with the one-thread band LU (gbtf2_narrow, the library's there) and its parts
// (copy, copy + LU, tips_prep_block) timed in its one-warp blocks, and that LU checked against gbtf2_block's.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cmath>
// the kernels themselves, not the library: this program times their device functions one by one
#include "cuda/spike.cu"
extern "C" void ss_cuda_fail(const char *w, int s, const char *f, int l) { fprintf(stderr, "FAIL %s %d %s:%d\n", w, s, f, l); exit(1); }

template <typename T> __global__ void __launch_bounds__(1024) part_kernel(int what, int s, int kl, int ku, const T *band, int ldb, T *F, int ldf, int *ipiv, T *Z, int blocked)
{
    extern __shared__ __align__(16) unsigned char sm[];
    const T *Bi = band + (size_t)blockIdx.x * s * ldb;
    T *Fi = F + (size_t)blockIdx.x * s * ldf; int *pi = ipiv + (size_t)blockIdx.x * s;
    if (what == 0) { band_to_lu_block(s, kl, ku, Bi, ldb, Fi, ldf); return; }
    if (what == 1) { band_to_lu_block(s, kl, ku, Bi, ldb, Fi, ldf); band_lu_block<false>(s, kl, ku, Fi, ldf, pi, blocked ? sm : nullptr); return; }
    if (what == 3) { band_to_lu_block(s, kl, ku, Bi, ldb, Fi, ldf); band_lu_block<true>(s, kl, ku, Fi, ldf, pi, nullptr); return; }
    // what 2: Vb-like solve on the trailing K + kl rows with K right-hand sides (factors already in F)
    const int K = kl, m = K + kl, j0 = s - m;
    T *Zi = Z + (size_t)blockIdx.x * m * K;
    for (int e = threadIdx.x; e < m * K; e += blockDim.x) Zi[e] = (e % m) >= m - K ? from_real<T>(1) : from_real<T>(0);
    __syncthreads();
    band_trs_block(m, kl, ku, K, Fi + (size_t)j0 * ldf, ldf, pi + j0, j0, Zi, m, K, blocked ? sm : nullptr);
}

// the narrow factor kernel's parts alone, in its one-warp blocks: 0 the band's copy into the LU layout, 1 the copy and
// the one-thread LU, 2 the tips' couplings and dominance (tips_prep_block)
template <typename T> __global__ void __launch_bounds__(32) narrow_part_kernel(int what, int s, int kl, int ku, const T *band, int ldb, T *F,
                                                                                int ldf, int *ipiv, T *tips)
{
    const int K = kl > ku ? kl : ku, last = blockIdx.x + 1 == gridDim.x;
    const T *Bi = band + (size_t)blockIdx.x * s * ldb;
    T *Fi = F + (size_t)blockIdx.x * s * ldf; int *pi = ipiv + (size_t)blockIdx.x * s;
    if (what < 2) band_to_lu_block(s, kl, ku, Bi, ldb, Fi, ldf);
    if (what == 1) band_lu_block<true>(s, kl, ku, Fi, ldf, pi, nullptr);
    if (what == 2)
        tips_prep_block(s, kl, ku, K, blockIdx.x ? Bi - (size_t)K * ldb : nullptr, ldb, Bi, ldb, last ? nullptr : Bi + (size_t)s * ldb, ldb,
                        tips + SS_TIPS(K) * blockIdx.x);
}

int main(int argc, char **argv)
{
    int K = argc > 1 ? atoi(argv[1]) : 128, s = argc > 2 ? atoi(argv[2]) : 16 * K, np = argc > 3 ? atoi(argv[3]) : 1000000 / s;
    typedef double T;
    const int kl = K, ku = K, ldb = kl + ku + 1, ldf = 2 * kl + ku + 1;
    size_t n = (size_t)np * s;
    std::vector<T> hb((size_t)ldb * n);
    srand(1);
    for (size_t c = 0; c < n; c++) for (int r = 0; r < ldb; r++) hb[r + c * ldb] = (r == ku) ? 2.0 * (kl + ku) : rand() / (double)RAND_MAX - 0.5;
    T *band, *F, *Z, *tips; int *ipiv; char *work;
    SS_CUDA_CHECK(cudaMalloc(&band, hb.size() * sizeof(T)));
    SS_CUDA_CHECK(cudaMemcpy(band, hb.data(), hb.size() * sizeof(T), cudaMemcpyHostToDevice));
    SS_CUDA_CHECK(cudaMalloc(&F, (size_t)ldf * n * sizeof(T)));
    SS_CUDA_CHECK(cudaMalloc(&ipiv, n * sizeof(int)));
    SS_CUDA_CHECK(cudaMalloc(&Z, (size_t)np * 2 * K * K * sizeof(T)));
    struct ss_spike_chunk c = {0, (int)n, 0, np, s, 0, kl, ku, K, 0, 0, 0};
    size_t o[3], stride = factor_offsets<T, T>(c, o);
    SS_CUDA_CHECK(cudaMalloc(&work, stride * np));
    SS_CUDA_CHECK(cudaMalloc(&tips, SS_TIPS(K) * np * sizeof(T)));
    const int thr = factor_threads(kl, ku);
    const bool narrow = kl + ku <= 2;   // K = 1: the library runs gbtf2_narrow (checked below against gbtf2_block)
    const size_t smem = band_lu_smem<T>(kl, ku);
    SS_CUDA_CHECK(cudaFuncSetAttribute(factor_chunk_kernel<T, T, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    SS_CUDA_CHECK(cudaFuncSetAttribute(part_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    auto timeit = [&](const char *name, auto launch) {
        float best = 1e30f;
        for (int rep = 0; rep < 3; rep++) {
            cudaEventRecord(e0); launch(); SS_CHECK_LAUNCH(name); cudaEventRecord(e1); SS_CUDA_CHECK(cudaEventSynchronize(e1));
            float ms; cudaEventElapsedTime(&ms, e0, e1); if (ms < best) best = ms;
        }
        printf("K=%d s=%d np=%d thr=%d smem=%zu NB=%d  %-28s %8.3f ms\n", K, s, np, thr, smem, SS_BAND_NB, name, best);
    };
    for (int b = 0; b < 2; b++) {
        char nm[64];
        snprintf(nm, 64, "factor_chunk_kernel blocked=%d", b);
        timeit(nm, [&] { factor_chunk_kernel<T, T, false><<<np, thr, b ? smem : 0>>>(c, band, ldb, s, band, ldb, band, ldb, F, ipiv, tips, work, stride, b != 0); });
    }
    if (narrow) {
        timeit("factor_chunk_kernel narrow", [&] { factor_chunk_kernel<T, T, true><<<np, 32>>>(c, band, ldb, s, band, ldb, band, ldb, F, ipiv, tips, work, stride, false); });
        timeit("narrow: copy", [&] { narrow_part_kernel<T><<<np, 32>>>(0, s, kl, ku, band, ldb, F, ldf, ipiv, tips); });
        timeit("narrow: copy+LU", [&] { narrow_part_kernel<T><<<np, 32>>>(1, s, kl, ku, band, ldb, F, ldf, ipiv, tips); });
        timeit("narrow: tips_prep_block", [&] { narrow_part_kernel<T><<<np, 32>>>(2, s, kl, ku, band, ldb, F, ldf, ipiv, tips); });
    }
    timeit("copy only", [&] { part_kernel<T><<<np, thr, smem>>>(0, s, kl, ku, band, ldb, F, ldf, ipiv, Z, 0); });
    timeit("copy+LU gbtf2_block", [&] { part_kernel<T><<<np, thr, smem>>>(1, s, kl, ku, band, ldb, F, ldf, ipiv, Z, 0); });
    timeit("copy+LU blocked", [&] { part_kernel<T><<<np, thr, smem>>>(1, s, kl, ku, band, ldb, F, ldf, ipiv, Z, 1); });
    timeit("Vb solve gbtrs_block", [&] { part_kernel<T><<<np, thr, smem>>>(2, s, kl, ku, band, ldb, F, ldf, ipiv, Z, 0); });
    timeit("Vb solve blocked", [&] { part_kernel<T><<<np, thr, smem>>>(2, s, kl, ku, band, ldb, F, ldf, ipiv, Z, 1); });
    // the blocked forms against the step-by-step ones: LU factors, then the solves on the same factors
    auto fetch = [&](T *d, size_t cnt) { std::vector<T> h(cnt); SS_CUDA_CHECK(cudaMemcpy(h.data(), d, cnt * sizeof(T), cudaMemcpyDeviceToHost)); return h; };
    auto cmp = [&](const char *what, const std::vector<T> &a, const std::vector<T> &b) {
        double md = 0, mx = 0; size_t nd = 0;
        for (size_t e = 0; e < a.size(); e++) { double d = fabs(a[e] - b[e]); if (d > md) md = d; if (fabs(a[e]) > mx) mx = fabs(a[e]); nd += a[e] != b[e]; }
        printf("K=%d check %s: max diff %.3e (max entry %.3e), %zu of %zu entries differ\n", K, what, md, mx, nd, a.size());
    };
    // K = 1: gbtf2_narrow's LU (the library's there) against gbtf2_block's (F0, p0)
    auto check_narrow = [&](int piv, const std::vector<T> &F0, const std::vector<int> &p0) {
        part_kernel<T><<<np, thr, smem>>>(3, s, kl, ku, band, ldb, F, ldf, ipiv, Z, 0); SS_CHECK_LAUNCH("lu narrow");
        auto F2 = fetch(F, (size_t)ldf * n); std::vector<int> p2(n); SS_CUDA_CHECK(cudaMemcpy(p2.data(), ipiv, n * sizeof(int), cudaMemcpyDeviceToHost));
        size_t pd = 0; for (size_t e = 0; e < n; e++) pd += p0[e] != p2[e];
        printf("K=%d piv=%d: gbtf2_narrow against gbtf2_block, %zu pivots differ\n", K, piv, pd);
        cmp("LU factors gbtf2_narrow", F0, F2);
        return pd != 0;
    };
    int bad = 0;
    for (int piv = 0; piv < 2; piv++) {   // piv 1: a band with no diagonal dominance, so that rows are swapped
        if (piv) {
            for (size_t c = 0; c < n; c++) hb[ku + c * ldb] = rand() / (double)RAND_MAX - 0.5;
            SS_CUDA_CHECK(cudaMemcpy(band, hb.data(), hb.size() * sizeof(T), cudaMemcpyHostToDevice));
        }
        part_kernel<T><<<np, thr, smem>>>(1, s, kl, ku, band, ldb, F, ldf, ipiv, Z, 0); SS_CHECK_LAUNCH("lu0");
        auto F0 = fetch(F, (size_t)ldf * n); std::vector<int> p0(n); SS_CUDA_CHECK(cudaMemcpy(p0.data(), ipiv, n * sizeof(int), cudaMemcpyDeviceToHost));
        part_kernel<T><<<np, thr, smem>>>(2, s, kl, ku, band, ldb, F, ldf, ipiv, Z, 0); SS_CHECK_LAUNCH("trs0");
        auto Z0 = fetch(Z, (size_t)np * 2 * K * K);
        part_kernel<T><<<np, thr, smem>>>(2, s, kl, ku, band, ldb, F, ldf, ipiv, Z, 1); SS_CHECK_LAUNCH("trs1");
        auto Z1 = fetch(Z, (size_t)np * 2 * K * K);
        part_kernel<T><<<np, thr, smem>>>(1, s, kl, ku, band, ldb, F, ldf, ipiv, Z, 1); SS_CHECK_LAUNCH("lu1");
        auto F1 = fetch(F, (size_t)ldf * n); std::vector<int> p1(n); SS_CUDA_CHECK(cudaMemcpy(p1.data(), ipiv, n * sizeof(int), cudaMemcpyDeviceToHost));
        size_t pd = 0, sw = 0; for (size_t e = 0; e < n; e++) { pd += p0[e] != p1[e]; sw += p0[e] != (int)(e % s) + 1; }
        printf("K=%d piv=%d: %zu row swaps, %zu pivots differ\n", K, piv, sw, pd);
        if (pd) bad = 1;
        cmp(piv ? "LU factors (swaps)" : "LU factors", F0, F1);
        cmp(piv ? "Vb solves (swaps)" : "Vb solves", Z0, Z1);
        if (narrow) bad |= check_narrow(piv, F0, p0);
    }
    return bad;
}
