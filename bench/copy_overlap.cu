// Does a copy inside GPU memory wait for the uploads in flight? A StarPU CUDA task that copies
// one tile into another with cudaMemcpy2DAsync(..., cudaMemcpyDeviceToDevice) runs on its own
// stream, while StarPU uploads other tiles on its transfer streams. If the driver gives the
// device-to-device copy to a copy engine that also serves the uploads, the copy queues behind
// every upload issued before it; a kernel that copies runs on the SMs instead. And do the
// uploads slow down while the host's cores read main memory (RBT computes ||A|| on the cores
// while A goes up)?
//   bench/copy_overlap [-nb 2500] [-ld 20000] [-uploads 20] [-readers T | -alloc 1]
// Issues `uploads` pitched nb x nb uploads (page-locked host memory, leading dimension ld, as
// StarPU copies a tile of a borrowed LAPACK array) on one stream, then, on a second stream, one
// nb x nb device-to-device copy, by cudaMemcpy2DAsync and then by a kernel (in separate rounds),
// and prints how long after its issue each copy completed, beside the uploads' total time.
// With -readers T, T host threads also sum a 256 MB array each (one pass per round), started
// with the uploads; their read rate is printed beside the uploads'.
// With -alloc instead: is StarPU's way of getting a tile's GPU buffer (cudaMemGetInfo, then cudaMalloc, by the
// thread that then issues the tile's upload: driver_cuda.c of StarPU 1.3) what holds its uploads to one tile at a
// time? Two rounds of: the uploads' buffers allocated that way (timed alone), the uploads queued into them, then
// freed and, for each tile in turn, allocated and its upload issued.
// Double precision elements. Exit 1 on a CUDA error.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <thread>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "copy_overlap: %s: %s\n", #call, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void copy_kernel(int m, int n, const double *A, int lda, double *B, int ldb)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < m && j < n)
        B[i + (size_t)j * ldb] = A[i + (size_t)j * lda];
}

enum copy_kind { NO_COPY, MEMCPY_D2D, KERNEL_COPY };

enum { READER_DOUBLES = 32 << 20 };   // 256 MB per reader thread

// One pass over each reader's array on its own thread; returns the readers' combined GB/s
static double read_pass(std::vector<std::thread> &threads, std::vector<double *> &arrays, std::vector<double> &sums)
{
    auto start = std::chrono::steady_clock::now();
    for (size_t t = 0; t < arrays.size(); t++)
        threads[t] = std::thread([&, t] {
            double s = 0;
            for (size_t i = 0; i < READER_DOUBLES; i++)
                s += arrays[t][i];
            sums[t] = s;
        });
    for (auto &th : threads)
        th.join();
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return arrays.size() * (double)READER_DOUBLES * sizeof(double) / secs / 1e9;
}

// One round: the uploads on `up`, then (after the first upload has started) the copy on `work`.
// Returns the copy's completion time after its issue in ms (0 without a copy); *uploads_ms gets
// the uploads' total time.
static float round_trip(copy_kind kind, int nb, int ld, int uploads, const double *host, double *dev_tiles,
                        const double *dev_src, double *dev_dst, cudaStream_t up, cudaStream_t work,
                        float *uploads_ms)
{
    cudaEvent_t up_start, up_end, copy_start, copy_end;
    CHECK(cudaEventCreate(&up_start));
    CHECK(cudaEventCreate(&up_end));
    CHECK(cudaEventCreate(&copy_start));
    CHECK(cudaEventCreate(&copy_end));
    CHECK(cudaDeviceSynchronize());
    size_t tile = (size_t)nb * nb;
    int tiles_per_col = ld / nb;
    CHECK(cudaEventRecord(up_start, up));
    for (int t = 0; t < uploads; t++) {
        const double *h = host + (size_t)(t % tiles_per_col) * nb + (size_t)(t / tiles_per_col) * nb * ld;
        CHECK(cudaMemcpy2DAsync(dev_tiles + (size_t)t * tile, (size_t)nb * sizeof(double), h, (size_t)ld * sizeof(double),
                                (size_t)nb * sizeof(double), nb, cudaMemcpyHostToDevice, up));
    }
    CHECK(cudaEventRecord(up_end, up));
    float copy_ms = 0;
    if (kind != NO_COPY) {
        CHECK(cudaEventRecord(copy_start, work));
        if (kind == MEMCPY_D2D) {
            CHECK(cudaMemcpy2DAsync(dev_dst, (size_t)nb * sizeof(double), dev_src, (size_t)nb * sizeof(double),
                                    (size_t)nb * sizeof(double), nb, cudaMemcpyDeviceToDevice, work));
        } else {
            dim3 block(32, 8), grid((nb + 31) / 32, (nb + 7) / 8);
            copy_kernel<<<grid, block, 0, work>>>(nb, nb, dev_src, nb, dev_dst, nb);
            CHECK(cudaGetLastError());
        }
        CHECK(cudaEventRecord(copy_end, work));
    }
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaEventElapsedTime(uploads_ms, up_start, up_end));
    if (kind != NO_COPY)
        CHECK(cudaEventElapsedTime(&copy_ms, copy_start, copy_end));
    CHECK(cudaEventDestroy(up_start));
    CHECK(cudaEventDestroy(up_end));
    CHECK(cudaEventDestroy(copy_start));
    CHECK(cudaEventDestroy(copy_end));
    return copy_ms;
}

// -alloc: see the head of this file; `uploads` tiles of nb x nb from host (leading dimension ld)
static void allocation_rounds(int nb, int ld, int uploads, const double *host, cudaStream_t up)
{
    const size_t bytes = (size_t)nb * nb * sizeof(double);
    const int tiles_per_col = ld / nb;
    std::vector<double *> bufs(uploads);
    auto upload = [&](int t) {
        const double *h = host + (size_t)(t % tiles_per_col) * nb + (size_t)(t / tiles_per_col) * nb * ld;
        CHECK(cudaMemcpy2DAsync(bufs[t], (size_t)nb * sizeof(double), h, (size_t)ld * sizeof(double), (size_t)nb * sizeof(double), nb,
                                cudaMemcpyHostToDevice, up));
    };
    auto allocate = [&](int t) {   // as StarPU 1.3's _starpu_cuda_malloc_on_node
        size_t free_bytes, total;
        CHECK(cudaMemGetInfo(&free_bytes, &total));
        CHECK(cudaMalloc(&bufs[t], bytes));
    };
    auto secs = [](std::chrono::steady_clock::time_point t0) {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    for (int round = 0; round < 2; round++) {
        auto t0 = std::chrono::steady_clock::now();
        for (int t = 0; t < uploads; t++)
            allocate(t);
        const double alloc_s = secs(t0);
        t0 = std::chrono::steady_clock::now();
        for (int t = 0; t < uploads; t++)
            upload(t);
        CHECK(cudaStreamSynchronize(up));
        const double queued_s = secs(t0);
        for (int t = 0; t < uploads; t++)
            CHECK(cudaFree(bufs[t]));
        t0 = std::chrono::steady_clock::now();
        for (int t = 0; t < uploads; t++) {
            allocate(t);
            upload(t);
        }
        CHECK(cudaStreamSynchronize(up));
        const double turn_s = secs(t0);
        for (int t = 0; t < uploads; t++)
            CHECK(cudaFree(bufs[t]));
        printf("round %d  allocations %.1f us a tile;  uploads queued %.1f GB/s;  each tile allocated then uploaded in turn %.1f GB/s\n",
               round, alloc_s / uploads * 1e6, uploads * bytes / queued_s / 1e9, uploads * bytes / turn_s / 1e9);
    }
}

int main(int argc, char **argv)
{
    int nb = 2500, ld = 20000, uploads = 20, readers = 0, alloc = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-nb")) nb = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-ld")) ld = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-uploads")) uploads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-readers")) readers = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-alloc")) alloc = atoi(argv[i + 1]);
        else { fprintf(stderr, "usage: copy_overlap [-nb NB] [-ld LD] [-uploads K] [-readers T | -alloc 1]\n"); return 2; }
    }
    if (nb < 1 || ld < nb || uploads < 1 || (size_t)uploads > (size_t)(ld / nb) * (ld / nb) || readers < 0) {
        fprintf(stderr, "copy_overlap: need 1 <= nb <= ld, 1 <= uploads <= (ld / nb)^2 and readers >= 0\n");
        return 2;
    }
    size_t tile = (size_t)nb * nb;
    double *host, *dev_tiles, *dev_src, *dev_dst;
    CHECK(cudaMallocHost(&host, (size_t)ld * ld * sizeof(double)));
    memset(host, 0, (size_t)ld * ld * sizeof(double));
    cudaStream_t up, work;
    CHECK(cudaStreamCreateWithFlags(&up, cudaStreamNonBlocking));
    if (alloc) {   // fresh device memory: before anything else is allocated
        printf("nb %d, ld %d, %d uploads of %.1f MB each, buffers allocated as StarPU does\n", nb, ld, uploads, tile * sizeof(double) / 1e6);
        allocation_rounds(nb, ld, uploads, host, up);
        CHECK(cudaStreamDestroy(up));
        CHECK(cudaFreeHost(host));
        return 0;
    }
    CHECK(cudaMalloc(&dev_tiles, (size_t)uploads * tile * sizeof(double)));
    CHECK(cudaMalloc(&dev_src, tile * sizeof(double)));
    CHECK(cudaMalloc(&dev_dst, tile * sizeof(double)));
    CHECK(cudaStreamCreateWithFlags(&work, cudaStreamNonBlocking));
    std::vector<double *> arrays(readers);
    std::vector<std::thread> threads(readers);
    std::vector<double> sums(readers);
    for (auto &a : arrays) {
        a = (double *)malloc(READER_DOUBLES * sizeof(double));
        if (!a) { fprintf(stderr, "copy_overlap: out of host memory\n"); return 1; }
        for (size_t i = 0; i < READER_DOUBLES; i++)
            a[i] = 1.0;
    }
    const char *names[] = { "uploads alone", "memcpy D2D", "kernel copy" };
    printf("nb %d, ld %d, %d uploads of %.1f MB each, %d reader threads\n", nb, ld, uploads, tile * sizeof(double) / 1e6,
           readers);
    for (int rep = 0; rep < 3; rep++)
        for (int k = NO_COPY; k <= KERNEL_COPY; k++) {
            float uploads_ms;
            double read_gbs = 0;
            std::thread reading;
            if (readers)
                reading = std::thread([&] { read_gbs = read_pass(threads, arrays, sums); });
            float copy_ms = round_trip((copy_kind)k, nb, ld, uploads, host, dev_tiles, dev_src, dev_dst, up, work,
                                       &uploads_ms);
            if (readers)
                reading.join();
            printf("round %d  %-14s uploads %7.2f ms (%5.1f GB/s)", rep, names[k], uploads_ms,
                   uploads * tile * sizeof(double) / (uploads_ms * 1e6));
            if (readers)
                printf("   readers %5.1f GB/s", read_gbs);
            if (k != NO_COPY)
                printf("   the copy done %7.3f ms after its issue", copy_ms);
            printf("\n");
        }
    for (auto a : arrays)
        free(a);
    CHECK(cudaStreamDestroy(up));
    CHECK(cudaStreamDestroy(work));
    CHECK(cudaFree(dev_tiles));
    CHECK(cudaFree(dev_src));
    CHECK(cudaFree(dev_dst));
    CHECK(cudaFreeHost(host));
    return 0;
}
