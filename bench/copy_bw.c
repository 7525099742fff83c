/* Host <-> GPU bandwidth for the copies a factorization makes: nb x nb tiles of
 * an n x n LAPACK-layout array in page-locked memory (2D copies with a pitch of
 * n elements, what StarPU does for a tile of a borrowed matrix) against the same
 * bytes as contiguous tiles, on 1 and 4 streams, and both directions at once.
 *   bench/copy_bw [-n 40000] [-nb 1024] [-tiles 64]
 * Prints GB/s per case. Double precision elements.
 *   bench/copy_bw -band N
 * instead: a band of N columns in LAPACK's gbsv layout (ldab = 3K + 1 rows, kl = ku = K) goes up as
 * SPIKE's band handles can take it: its 2K + 1 band rows as a 2D copy (one piece of (2K + 1) x 8 bytes
 * per column) or whole columns as one contiguous copy (K more rows per column); for K = 1 .. 128,
 * milliseconds and GB/s of the band's own bytes (src/zgbsv_spike.c, spike_band_whole). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "copy_bw: %s: %s\n", #call, cudaGetErrorString(e_)); exit(1); } } while (0)

enum { MAX_STREAMS = 4 };

/* tiles copies of nb x nb doubles, tile t at host column block t (pitched or packed), spread over nstreams */
static double run(int h2d, int d2h, int pitched, int nstreams, int tiles, size_t n, size_t nb,
                  double *host, double *dev_in, double *dev_out, cudaStream_t *streams)
{
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaEventRecord(start, 0));
    size_t tile_bytes = nb * nb * sizeof(double);
    for (int t = 0; t < tiles; t++) {
        cudaStream_t s = streams[t % nstreams];
        /* tile t: rows (t % (n/nb)) * nb, columns (t / (n/nb)) * nb of the n x n array */
        size_t i0 = (size_t)(t % (int)(n / nb)) * nb, j0 = (size_t)(t / (int)(n / nb)) * nb;
        double *h = pitched ? host + i0 + j0 * n : host + (size_t)t * nb * nb;
        double *din = dev_in + (size_t)t * nb * nb, *dout = dev_out + (size_t)t * nb * nb;
        if (h2d) {
            if (pitched)
                CHECK(cudaMemcpy2DAsync(din, nb * sizeof(double), h, n * sizeof(double), nb * sizeof(double), nb,
                                        cudaMemcpyHostToDevice, s));
            else
                CHECK(cudaMemcpyAsync(din, h, tile_bytes, cudaMemcpyHostToDevice, s));
        }
        if (d2h) {
            /* write back to a different tile than the one read, so both directions run at once */
            size_t i1 = (size_t)((t + 1) % (int)(n / nb)) * nb;
            double *hw = pitched ? host + i1 + j0 * n : host + (size_t)((t + tiles) % (2 * tiles)) * nb * nb;
            if (pitched)
                CHECK(cudaMemcpy2DAsync(hw, n * sizeof(double), dout, nb * sizeof(double), nb * sizeof(double), nb,
                                        cudaMemcpyDeviceToHost, s));
            else
                CHECK(cudaMemcpyAsync(hw, dout, tile_bytes, cudaMemcpyDeviceToHost, s));
        }
    }
    for (int k = 0; k < nstreams; k++)
        CHECK(cudaStreamSynchronize(streams[k]));
    CHECK(cudaEventRecord(stop, 0));
    CHECK(cudaEventSynchronize(stop));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    double bytes = (double)tiles * tile_bytes * (h2d + d2h);
    return bytes / (ms * 1e-3) / 1e9;
}

/* milliseconds of one upload of the band (2D pieces or whole columns), best of 3 after a warm-up */
static double band_upload_ms(const double *host, double *dev, size_t n, int K, int whole, cudaStream_t s)
{
    const size_t ldab = 3 * (size_t)K + 1, rows = 2 * (size_t)K + 1;
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    double best = 1e30;
    for (int r = 0; r < 4; r++) {
        CHECK(cudaEventRecord(start, s));
        if (whole)
            CHECK(cudaMemcpyAsync(dev, host, ldab * n * sizeof(double), cudaMemcpyHostToDevice, s));
        else
            CHECK(cudaMemcpy2DAsync(dev, rows * sizeof(double), host + K, ldab * sizeof(double), rows * sizeof(double), n,
                                    cudaMemcpyHostToDevice, s));
        CHECK(cudaEventRecord(stop, s));
        CHECK(cudaEventSynchronize(stop));
        float ms;
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        if (r > 0 && ms < best)
            best = ms;
    }
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    return best;
}

static int band_table(size_t n)
{
    static const int ks[] = { 1, 2, 4, 8, 16, 32, 64, 128 };
    const size_t most = (3 * 128 + 1) * n * sizeof(double);
    double *host, *dev;
    cudaStream_t s;
    CHECK(cudaMallocHost((void **)&host, most));
    memset(host, 0, most);
    CHECK(cudaMalloc((void **)&dev, most));
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    printf("copy_bw -band: n = %zu columns, page-locked host memory, H2D; GB/s of the band's (2K + 1) n x 8 bytes\n", n);
    printf("%5s %12s %10s %10s %10s %10s\n", "K", "piece_bytes", "2D_ms", "2D_GB/s", "whole_ms", "whole_GB/s");
    for (size_t i = 0; i < sizeof ks / sizeof *ks; i++) {
        const int K = ks[i];
        const double band_gb = (2.0 * K + 1) * n * sizeof(double) / 1e9;
        double t2 = band_upload_ms(host, dev, n, K, 0, s), tw = band_upload_ms(host, dev, n, K, 1, s);
        printf("%5d %12zu %10.3f %10.1f %10.3f %10.1f\n", K, (2 * (size_t)K + 1) * sizeof(double), t2, band_gb / (t2 * 1e-3), tw,
               band_gb / (tw * 1e-3));
    }
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(dev));
    CHECK(cudaFreeHost(host));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "-band"))
        return band_table(strtoul(argv[2], NULL, 10));
    size_t n = 40000, nb = 1024;
    int tiles = 64;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-n")) n = strtoul(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "-nb")) nb = strtoul(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "-tiles")) tiles = atoi(argv[i + 1]);
        else { fprintf(stderr, "usage: copy_bw [-n N] [-nb NB] [-tiles T] | -band N\n"); return 2; }
    }
    if (nb == 0 || n < nb || tiles < 1 || (size_t)tiles > (n / nb) * (n / nb)) {
        fprintf(stderr, "copy_bw: need 1 <= nb <= n and 1 <= tiles <= (n/nb)^2\n");
        return 2;
    }
    /* the pitched array is n x n; the packed tiles (2 * tiles of them) fit in it too */
    size_t host_bytes = n * n * sizeof(double);
    if (2 * (size_t)tiles * nb * nb > n * n) {
        fprintf(stderr, "copy_bw: 2 * tiles tiles must fit in the n x n array\n");
        return 2;
    }
    double *host, *dev_in, *dev_out;
    CHECK(cudaMallocHost((void **)&host, host_bytes));
    memset(host, 0, host_bytes);   /* touch every page before timing */
    CHECK(cudaMalloc((void **)&dev_in, (size_t)tiles * nb * nb * sizeof(double)));
    CHECK(cudaMalloc((void **)&dev_out, (size_t)tiles * nb * nb * sizeof(double)));
    cudaStream_t streams[MAX_STREAMS];
    for (int k = 0; k < MAX_STREAMS; k++)
        CHECK(cudaStreamCreateWithFlags(&streams[k], cudaStreamNonBlocking));
    printf("copy_bw: n = %zu, nb = %zu, %d tiles of %.1f MB, page-locked host memory\n", n, nb, tiles,
           nb * nb * sizeof(double) / 1e6);
    printf("%-10s %-8s %8s %10s\n", "direction", "layout", "streams", "GB/s");
    static const char *dir_name[] = { "H2D", "D2H", "both" };
    for (int dir = 0; dir < 3; dir++)
        for (int pitched = 1; pitched >= 0; pitched--)
            for (int ns = 1; ns <= MAX_STREAMS; ns *= 4) {
                int h2d = dir != 1, d2h = dir != 0;
                run(h2d, d2h, pitched, ns, tiles, n, nb, host, dev_in, dev_out, streams);   /* warm-up */
                double best = 0;
                for (int r = 0; r < 3; r++) {
                    double gbs = run(h2d, d2h, pitched, ns, tiles, n, nb, host, dev_in, dev_out, streams);
                    best = gbs > best ? gbs : best;
                }
                printf("%-10s %-8s %8d %10.1f\n", dir_name[dir], pitched ? "pitched" : "packed", ns, best);
            }
    for (int k = 0; k < MAX_STREAMS; k++)
        CHECK(cudaStreamDestroy(streams[k]));
    CHECK(cudaFree(dev_in));
    CHECK(cudaFree(dev_out));
    CHECK(cudaFreeHost(host));
    return 0;
}
