/* The SPIKE solver's band matrix-vector product and vector updates alone on one GPU, outside
 * StarPU (codelets/cuda/spike.cu: ss_cuda_spike_matvec, ss_cuda_spike_update):
 *   spike_gpu -test
 *       against a host reference in the four precisions, on bands of several widths and leading
 *       dimensions, with and without the couplings to neighbour chunks, the entries LAPACK does not
 *       reference (the band's corners) set to NaN: exit 1 on a failure;
 *   spike_gpu [-n 500000] [-k 32] [-niter 20] [-prec d]
 *       one chunk of n rows, kl = ku = k, packed band (ld = 2k + 1, as StarPU allocates it on the
 *       GPU): our matvec (with its fused dot product) against cuBLAS gbmv (product alone), best of
 *       niter each, and the updates; GB/s over the band's and the vectors' bytes. */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include "codelets.h"

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "spike_gpu: %s: %s\n", #call, cudaGetErrorString(e_)); exit(1); } } while (0)

static size_t esize(char p) { return p == 's' ? 4 : p == 'z' ? 16 : 8; }
static int is_complex(char p) { return p == 'c' || p == 'z'; }

/* host master values (double complex) <-> the precision's layout */
static void to_prec(char p, const double complex *src, void *dst, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        switch (p) {
        case 's': ((float *)dst)[i] = (float)creal(src[i]); break;
        case 'd': ((double *)dst)[i] = creal(src[i]); break;
        case 'c': ((float *)dst)[2 * i] = (float)creal(src[i]); ((float *)dst)[2 * i + 1] = (float)cimag(src[i]); break;
        default: ((double *)dst)[2 * i] = creal(src[i]); ((double *)dst)[2 * i + 1] = cimag(src[i]); break;
        }
    }
}
static void from_prec(char p, const void *src, double complex *dst, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        switch (p) {
        case 's': dst[i] = ((const float *)src)[i]; break;
        case 'd': dst[i] = ((const double *)src)[i]; break;
        case 'c': dst[i] = ((const float *)src)[2 * i] + I * ((const float *)src)[2 * i + 1]; break;
        default: dst[i] = ((const double *)src)[2 * i] + I * ((const double *)src)[2 * i + 1]; break;
        }
    }
}
/* what the precision rounds v to: the reference computes on the rounded inputs */
static double complex rounded(char p, double complex v)
{
    unsigned char buf[16];
    double complex r;
    to_prec(p, &v, buf, 1);
    from_prec(p, buf, &r, 1);
    return r;
}

static unsigned long long rng = 88172645463325252ull;
static double urand(void)   /* xorshift64, in (-1, 1) */
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (double)(rng >> 11) / (double)(1ull << 52) - 1.0;
}
static double complex crand(char p) { return rounded(p, urand() + (is_complex(p) ? I * urand() : 0)); }

static void *upload(char p, const double complex *h, size_t n)
{
    void *d, *tmp = malloc(n * esize(p) + 16);
    to_prec(p, h, tmp, n);
    CHECK(cudaMalloc(&d, n * esize(p) + 16));
    CHECK(cudaMemcpy(d, tmp, n * esize(p), cudaMemcpyHostToDevice));
    free(tmp);
    return d;
}
static void download(char p, const void *d, double complex *h, size_t n)
{
    void *tmp = malloc(n * esize(p) + 16);
    CHECK(cudaMemcpy(tmp, d, n * esize(p), cudaMemcpyDeviceToHost));
    from_prec(p, tmp, h, n);
    free(tmp);
}

static int failures = 0;
static void expect(const char *what, char p, double got_err, double scale)
{
    double tol = (p == 's' || p == 'c' ? 1e-5 : 1e-13) * 50;
    double rel = got_err / (scale > 0 ? scale : 1);
    if (!(rel <= tol)) {   /* NaN fails */
        printf("FAIL %c %s: relative error %.3e (tolerance %.1e)\n", p, what, rel, tol);
        failures++;
    }
}

/* one matvec case: s rows, band kl, ku in ld >= kl + ku + 1, couplings K x K above / below */
static void test_matvec(char p, int s, int kl, int ku, int pad, int prev, int next)
{
    const int nu = kl + ku + 1, ld = nu + pad, K = kl > ku ? kl : ku;
    double complex *band = malloc((size_t)ld * s * sizeof *band), *x = malloc((size_t)s * sizeof *x);
    double complex *aux = malloc((size_t)s * sizeof *aux), *y = malloc((size_t)s * sizeof *y), *ref = malloc((size_t)s * sizeof *ref);
    double complex *Cc = malloc((size_t)K * K * sizeof *Cc + 16), *Bc = malloc((size_t)K * K * sizeof *Bc + 16);
    double complex *xp = malloc((size_t)K * sizeof *xp + 16), *xn = malloc((size_t)K * sizeof *xn + 16);
    for (int c = 0; c < s; c++)
        for (int k = 0; k < ld; k++) {
            int r = c + k - ku;   /* the row of band row k in column c */
            band[k + (size_t)c * ld] = k < nu && r >= 0 && r < s ? crand(p) : NAN;   /* not referenced: NaN */
        }
    for (int i = 0; i < s; i++) { x[i] = crand(p); aux[i] = crand(p); }
    for (int i = 0; i < K * K; i++) { Cc[i] = crand(p); Bc[i] = crand(p); }
    for (int i = 0; i < K; i++) { xp[i] = crand(p); xn[i] = crand(p); }
    void *dband = upload(p, band, (size_t)ld * s), *dx = upload(p, x, s), *daux = upload(p, aux, s);
    void *dCc = upload(p, Cc, (size_t)K * K), *dBc = upload(p, Bc, (size_t)K * K), *dxp = upload(p, xp, K), *dxn = upload(p, xn, K);
    void *dy, *dout, *dwork;
    CHECK(cudaMalloc(&dy, (size_t)s * esize(p)));
    CHECK(cudaMalloc(&dout, 3 * esize(p)));
    CHECK(cudaMalloc(&dwork, ss_cuda_spike_work(p, s)));
    /* the reference: A x with the couplings, and |A| |x| for the tolerance's scale */
    double scale = 0;
    for (int r = 0; r < s; r++) {
        double complex v = 0;
        double mag = 0;
        for (int c = r - kl; c <= r + ku; c++)
            if (c >= 0 && c < s) { v += band[ku + r - c + (size_t)c * ld] * x[c]; mag += cabs(band[ku + r - c + (size_t)c * ld] * x[c]); }
        if (prev && r < K)
            for (int c = 0; c < K; c++) { v += Cc[r + (size_t)c * K] * xp[c]; mag += cabs(Cc[r + (size_t)c * K] * xp[c]); }
        if (next && r >= s - K)
            for (int c = 0; c < K; c++) { v += Bc[r - (s - K) + (size_t)c * K] * xn[c]; mag += cabs(Bc[r - (s - K) + (size_t)c * K] * xn[c]); }
        ref[r] = v;
        scale = fmax(scale, mag + 1);
    }
    struct ss_spike_chunk ch = { .first = 0, .size = s, .part0 = 0, .np = 1, .pq = s, .pr = 0, .kl = kl, .ku = ku, .K = K,
                                 .has_prev = prev, .has_next = next };
    char what[128];
    for (int kind = 0; kind < 3; kind++) {
        CHECK(cudaMemset(dout, 0, 3 * esize(p)));
        char *o = dout;
        ss_cuda_spike_matvec(p, kind, &ch, dband, ld, prev ? dCc : NULL, prev ? dxp : NULL, next ? dBc : NULL,
                             next ? dxn : NULL, dx, daux, dy, kind == 0 ? o : NULL, kind >= 1 ? o + esize(p) : NULL,
                             kind == 2 ? o + 2 * esize(p) : NULL, dwork, 0);
        CHECK(cudaDeviceSynchronize());
        download(p, dy, y, s);
        double complex out[3];
        download(p, dout, out, 3);
        double err = 0, m = 0;
        double complex d1 = 0, d2 = 0;
        for (int r = 0; r < s; r++) {
            double complex want = kind == 0 ? aux[r] - ref[r] : ref[r];
            err = fmax(err, cabs(y[r] - want));
            if (isnan(creal(y[r])) || isnan(cimag(y[r]))) err = NAN;
            m = fmax(m, cabs(want));
            if (kind == 1) d1 += conj(aux[r]) * want;
            if (kind == 2) { d1 += conj(want) * aux[r]; d2 += conj(want) * want; }
        }
        snprintf(what, sizeof what, "matvec kind %d s %d kl %d ku %d ld %d prev %d next %d: y", kind, s, kl, ku, ld, prev, next);
        expect(what, p, err, scale);
        snprintf(what, sizeof what, "matvec kind %d s %d kl %d ku %d ld %d prev %d next %d: reduction", kind, s, kl, ku, ld, prev, next);
        if (kind == 0) expect(what, p, fabs(creal(out[0]) - m), scale);
        if (kind >= 1) expect(what, p, cabs(out[1] - d1), scale * scale * s);
        if (kind == 2) expect(what, p, cabs(out[2] - d2), scale * scale * s);
    }
    cudaFree(dband); cudaFree(dx); cudaFree(daux); cudaFree(dCc); cudaFree(dBc); cudaFree(dxp); cudaFree(dxn);
    cudaFree(dy); cudaFree(dout); cudaFree(dwork);
    free(band); free(x); free(aux); free(y); free(ref); free(Cc); free(Bc); free(xp); free(xn);
}

/* the updates that reduce (ops 3, 4, 5) and the two that do not (1, 2), on n entries */
static void test_update(char p, int n)
{
    enum { NV = 7 };
    double complex *h[NV], *g = malloc((size_t)n * sizeof *g), sc[4];
    void *d[NV], *dsc, *dout, *dwork;
    for (int k = 0; k < 4; k++) sc[k] = crand(p);
    dsc = upload(p, sc, 4);
    CHECK(cudaMalloc(&dout, 2 * esize(p)));
    CHECK(cudaMalloc(&dwork, ss_cuda_spike_work(p, n)));
    const double complex alpha = sc[1], omega = sc[2], beta = sc[3];
    char what[64];
    for (int op = 1; op <= 5; op++) {
        for (int k = 0; k < NV; k++) {
            h[k] = malloc((size_t)n * sizeof *h[k]);
            for (int i = 0; i < n; i++) h[k][i] = crand(p);
            d[k] = upload(p, h[k], n);
        }
        CHECK(cudaMemset(dout, 0, 2 * esize(p)));
        char *o = dout;
        ss_cuda_spike_update(p, op, n, dsc, d, o, o + esize(p), dwork, 0);
        CHECK(cudaDeviceSynchronize());
        double complex out[2];
        download(p, dout, out, 2);
        double err = 0, m = 0;
        double complex s1 = 0;
        int check[NV] = { 0 };
        double complex *want[NV] = { 0 };
        for (int k = 0; k < NV; k++) want[k] = malloc((size_t)n * sizeof *want[k]), memcpy(want[k], h[k], (size_t)n * sizeof *h[k]);
        for (int i = 0; i < n; i++) {
            if (op == 1) { want[2][i] = h[0][i] + beta * (h[2][i] - omega * h[1][i]); check[2] = 1; }
            else if (op == 2) { want[2][i] = h[0][i] - alpha * h[1][i]; check[2] = 1; }
            else if (op == 3) {
                want[4][i] = h[4][i] + alpha * h[0][i] + omega * h[1][i];
                want[5][i] = h[2][i] - omega * h[3][i];
                m = fmax(m, cabs(want[5][i]));
                s1 += conj(h[6][i]) * want[5][i];
                check[4] = check[5] = 1;
            } else if (op == 4) {
                want[1][i] = h[0][i]; want[2][i] = 0; want[3][i] = 0;
                s1 += conj(h[0][i]) * h[0][i];
                check[1] = check[2] = check[3] = 1;
            } else {
                want[1][i] = h[0][i];
                m = fmax(m, cabs(h[0][i]));
                check[1] = 1;
            }
        }
        for (int k = 0; k < NV; k++) {
            if (!check[k]) continue;
            download(p, d[k], g, n);
            for (int i = 0; i < n; i++) err = fmax(err, cabs(g[i] - want[k][i]));
        }
        snprintf(what, sizeof what, "update op %d n %d: vectors", op, n);
        expect(what, p, err, 4);
        snprintf(what, sizeof what, "update op %d n %d: reduction", op, n);
        if (op == 3 || op == 5) expect(what, p, fabs(creal(out[0]) - m), 4);
        if (op == 3 || op == 4) expect(what, p, cabs(out[1] - s1), 4.0 * n);
        for (int k = 0; k < NV; k++) { cudaFree(d[k]); free(h[k]); free(want[k]); }
    }
    cudaFree(dsc); cudaFree(dout); cudaFree(dwork); free(g);
}

static double best_ms(cudaEvent_t a, cudaEvent_t b, double best)
{
    float ms;
    CHECK(cudaEventSynchronize(b));
    CHECK(cudaEventElapsedTime(&ms, a, b));
    return best < 0 || ms < best ? ms : best;
}

static int timing(char p, int n, int k, int niter)
{
    const int kl = k, ku = k, ld = kl + ku + 1, K = k;
    const size_t es = esize(p), bandbytes = (size_t)ld * n * es;
    void *band, *x, *aux, *y, *out, *work, *v[7];
    CHECK(cudaMalloc(&band, bandbytes));
    CHECK(cudaMalloc(&x, n * es)); CHECK(cudaMalloc(&aux, n * es)); CHECK(cudaMalloc(&y, n * es));
    CHECK(cudaMalloc(&out, 4 * es)); CHECK(cudaMalloc(&work, ss_cuda_spike_work(p, n)));
    CHECK(cudaMemset(band, 0, bandbytes)); CHECK(cudaMemset(x, 0, n * es)); CHECK(cudaMemset(aux, 0, n * es));
    CHECK(cudaMemset(out, 0, 4 * es));
    for (int i = 0; i < 7; i++) { CHECK(cudaMalloc(&v[i], n * es)); CHECK(cudaMemset(v[i], 0, n * es)); }
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) { fprintf(stderr, "spike_gpu: cublasCreate failed\n"); return 1; }
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a)); CHECK(cudaEventCreate(&b));
    struct ss_spike_chunk ch = { .size = n, .np = 1, .pq = n, .kl = kl, .ku = ku, .K = K };
    double ours[3] = { -1, -1, -1 }, vendor = -1, up[6] = { -1, -1, -1, -1, -1, -1 };
    char *o = out;
    for (int it = 0; it <= niter; it++) {   /* the first round untimed */
        for (int kind = 0; kind < 3; kind++) {
            CHECK(cudaEventRecord(a, 0));
            ss_cuda_spike_matvec(p, kind, &ch, band, ld, NULL, NULL, NULL, NULL, x, aux, y, kind == 0 ? o : NULL,
                                 kind ? o + es : NULL, kind == 2 ? o + 2 * es : NULL, work, 0);
            CHECK(cudaEventRecord(b, 0));
            if (it) ours[kind] = best_ms(a, b, ours[kind]);
        }
        const double one[2] = { 1, 0 }, zero[2] = { 0, 0 };
        const float onef[2] = { 1, 0 }, zerof[2] = { 0, 0 };
        cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
        CHECK(cudaEventRecord(a, 0));
        switch (p) {
        case 's': st = cublasSgbmv(h, CUBLAS_OP_N, n, n, kl, ku, onef, band, ld, x, 1, zerof, y, 1); break;
        case 'd': st = cublasDgbmv(h, CUBLAS_OP_N, n, n, kl, ku, one, band, ld, x, 1, zero, y, 1); break;
        case 'c': st = cublasCgbmv(h, CUBLAS_OP_N, n, n, kl, ku, (const cuComplex *)onef, band, ld, x, 1, (const cuComplex *)zerof, y, 1); break;
        default: st = cublasZgbmv(h, CUBLAS_OP_N, n, n, kl, ku, (const cuDoubleComplex *)one, band, ld, x, 1, (const cuDoubleComplex *)zero, y, 1); break;
        }
        CHECK(cudaEventRecord(b, 0));
        if (st != CUBLAS_STATUS_SUCCESS) { fprintf(stderr, "spike_gpu: cuBLAS gbmv failed (%d)\n", (int)st); return 1; }
        if (it) vendor = best_ms(a, b, vendor);
        for (int op = 1; op <= 5; op++) {
            CHECK(cudaEventRecord(a, 0));
            ss_cuda_spike_update(p, op, n, out, v, o, o + es, work, 0);
            CHECK(cudaEventRecord(b, 0));
            if (it) up[op] = best_ms(a, b, up[op]);
        }
    }
    CHECK(cudaDeviceSynchronize());
    printf("# %c n = %d, kl = ku = %d, packed band (ld %d): %.1f MB; best of %d\n", p, n, k, ld, bandbytes / 1e6, niter);
    printf("%-34s %10s %10s\n", "kernel", "ms", "GB/s");
    const char *names[3] = { "ours, r = b - A x, max |r|", "ours, v = A p, rh^H v", "ours, t = A s, t^H s, t^H t" };
    for (int kind = 0; kind < 3; kind++)
        printf("%-34s %10.4f %10.1f\n", names[kind], ours[kind], (bandbytes + 3 * (size_t)n * es) / ours[kind] / 1e6);
    printf("%-34s %10.4f %10.1f\n", "cuBLAS gbmv (product alone)", vendor, (bandbytes + 2 * n * es) / vendor / 1e6);
    printf("%-34s %10.2f\n", "speedup ours (v = A p) / cuBLAS", vendor / ours[1]);
    const char *unames[6] = { "", "update p (3 vectors read, 1 written)", "update s (2 read, 1 written)",
                              "update x, r + max |r|, rh^H r (6, 2)", "update start rh, p, v + r^H r (1, 3)",
                              "copy b + max |b| (1, 1)" };
    const int moved[6] = { 0, 4, 3, 9, 4, 2 };
    for (int op = 1; op <= 5; op++)
        printf("%-34s %10.4f %10.1f\n", unames[op], up[op], moved[op] * (double)n * es / up[op] / 1e6);
    cublasDestroy(h);
    cudaFree(band); cudaFree(x); cudaFree(aux); cudaFree(y); cudaFree(out); cudaFree(work);
    for (int i = 0; i < 7; i++) cudaFree(v[i]);
    return 0;
}

int main(int argc, char **argv)
{
    int n = 500000, k = 32, niter = 20, test = 0;
    const char *prec = "d";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-test")) test = 1;
        else if (!strcmp(argv[i], "-n") && i + 1 < argc) n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-k") && i + 1 < argc) k = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-niter") && i + 1 < argc) niter = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-prec") && i + 1 < argc) prec = argv[++i];
        else { fprintf(stderr, "spike_gpu: unknown argument %s (see bench/spike_gpu.c)\n", argv[i]); return 2; }
    }
    if (n < 1 || k < 0 || niter < 1 || strspn(prec, "sdcz") != strlen(prec) || !*prec) {
        fprintf(stderr, "spike_gpu: bad -n, -k, -niter or -prec\n");
        return 2;
    }
    CHECK(cudaSetDevice(0));
    if (test) {
        const char *all = "sdcz";
        for (const char *p = all; *p; p++) {
            int before = failures;
            const int cases[][4] = { { 1000, 32, 32, 0 }, { 1000, 32, 32, 32 }, { 777, 3, 5, 3 }, { 300, 0, 4, 0 },
                                     { 300, 4, 0, 1 }, { 5000, 64, 64, 0 }, { 3000, 128, 100, 5 }, { 100, 1, 1, 0 },
                                     { 1, 0, 0, 0 }, { 257, 2, 2, 0 } };
            for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
                int s = cases[c][0], kl = cases[c][1], ku = cases[c][2], pad = cases[c][3], K = kl > ku ? kl : ku;
                test_matvec(*p, s, kl, ku, pad, 0, 0);
                if (K > 0 && s >= 2 * K)
                    for (int pn = 1; pn < 4; pn++)
                        test_matvec(*p, s, kl, ku, pad, pn & 1, pn >> 1);
            }
            test_update(*p, 1);
            test_update(*p, 1000);
            test_update(*p, 300001);
            printf("spike_gpu -test %c: %s\n", *p, failures == before ? "ok" : "FAILED");
        }
        return failures ? 1 : 0;
    }
    int status = 0;
    for (const char *p = prec; *p; p++)
        status |= timing(*p, n, k, niter);
    return status;
}
