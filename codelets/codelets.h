/* What the algorithm layer sees of the codelets: insert helpers per precision,
 * plus the CUDA plumbing shared by codelet files. */
#ifndef STARSOLVE_CODELETS_H
#define STARSOLVE_CODELETS_H

#include <cblas.h>
#include <lapacke.h>
#include "internal.h"
#include "tridiag_result.h"
#ifdef STARSOLVE_USE_MPI
#include <starpu_mpi.h>
#endif

/* Every insert helper submits its task through this. Started with StarPU-MPI
 * (starsolve_config_t.mpi), starpu_mpi_task_insert runs the task on the
 * process that owns the data it writes (the others only send or receive the
 * tiles it needs); under heteroprio the task is built, given its bucket, then
 * submitted (ss_task_submit_built); otherwise plain starpu_task_insert. Same
 * arguments. */
#define ss_task_insert_local(cl, ...) \
    (ss_ctx.heteroprio ? ss_task_submit_built(starpu_task_build((cl), __VA_ARGS__)) : starpu_task_insert((cl), __VA_ARGS__))
#ifdef STARSOLVE_USE_MPI
#define ss_task_insert(cl, ...) \
    (ss_ctx.mpi ? starpu_mpi_task_insert(MPI_COMM_WORLD, (cl), __VA_ARGS__) : ss_task_insert_local((cl), __VA_ARGS__))
#else
#define ss_task_insert(cl, ...) ss_task_insert_local((cl), __VA_ARGS__)
#endif

/* Plain C kernels that the compiler vectorizes (`#pragma omp simd`, built with -fopenmp-simd: configure.ac; or GCC's
 * vector extension, codelet_ztridiag.c): with GCC on x86-64, clones for AVX-512 and AVX2 beside the baseline one,
 * picked at load time by the CPU (ifunc). SS_SIMD_CLONES_AVX2 leaves AVX-512 out, for loops too short to fill its
 * vectors. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SS_SIMD_CLONES_AVX512 __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#define SS_SIMD_CLONES_AVX2 __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define SS_SIMD_CLONES_AVX512
#define SS_SIMD_CLONES_AVX2
#endif

#ifdef STARSOLVE_USE_CUDA
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cusolverDn.h>
#include <starpu_cublas_v2.h>

/* One cuSOLVER handle per CUDA worker, bound to the worker's stream. */
void ss_cusolver_init(void);
void ss_cusolver_shutdown(void);
cusolverDnHandle_t ss_cusolver_handle(void);
cusolverDnParams_t ss_cusolver_params(void);
/* The worker's stream and cuBLAS handle for codelets: StarPU's, or inside an
 * urgent section the urgent ones (ss_cusolver_handle follows too). */
cudaStream_t ss_cuda_stream(void);
cublasHandle_t ss_cublas_handle(void);
/* Critical-path work (LU panels, diagonal factorizations, the TRSMs of a
 * Cholesky panel) between begin and end runs on a stream of the device's
 * highest priority, in order with the rest of the task. With two streams per
 * GPU, kernels of a panel queued behind a whole batched GEMM of the other
 * stream ran 4x slower than alone (bench/NOTES.md); the priority lets the
 * panel's thread blocks go before the GEMM's blocks that wait for an SM. */
void ss_cuda_urgent_begin(void);
void ss_cuda_urgent_end(void);
/* cuSOLVER's workspace sizes need a handle: the submitting side has one for
 * sizing StarPU scratch buffers (STARPU_SCRATCH: StarPU allocates one per
 * worker, on the worker's memory node). begin returns NULL when there is no
 * CUDA worker (no workspace to size), else the handle, locked until end, and
 * a device pointer to hand the size queries as their matrix. */
cusolverDnHandle_t ss_cusolver_query_begin(void **dummy);
void ss_cusolver_query_end(void);
/* Pinned host memory for an asynchronous codelet's small results: a ring of
 * SS_STAGING_SLOTS slots per worker. A codelet takes a slot, queues its copies
 * and host functions, then releases it (an event on the stream); the slot is
 * taken again SS_STAGING_SLOTS calls later, after waiting for that event. */
#define SS_STAGING_SLOTS 8
/* device: as many bytes of GPU memory, where results are copied in stream
 * order before they go to the host on the side stream (ss_cuda_side_stream) */
struct ss_staging { void *host, *device; size_t bytes; cudaEvent_t done; };
struct ss_staging *ss_cuda_staging(size_t bytes);
void ss_cuda_staging_release(struct ss_staging *s, cudaStream_t stream);
/* The worker's side stream, after the work queued so far on `after`: for
 * small results on their way to the host (a copy, then a host function). On
 * the working stream such a copy waited in the copy engine's queue behind the
 * tiles StarPU was moving (up to 200 ms for the pivots of an early LU panel at
 * n = 40000 on an H100), and a host function holds its stream until it has run.
 * The side stream carries no work the task's end depends on: a request's
 * results are complete after ss_cuda_side_sync (starsolve_request_wait). */
cudaStream_t ss_cuda_side_stream(cudaStream_t after);
void ss_cuda_side_sync(void);
/* count ints at dsrc (GPU memory, written by work queued on `after`) into host_dst
 * (inside the staging slot s's host memory), then fn(s->host) on the host: on the
 * side stream, without holding up `after`. Releases s. */
void ss_cuda_ints_to_host_async(struct ss_staging *s, int *host_dst, const int *dsrc, int count, cudaHostFn_t fn,
                                cudaStream_t after);
/* Report a factorization's info (an int in GPU memory, written by work already
 * on the stream `after`) to req as offset + info when it is positive, without
 * stopping the worker: a copy and a host function on the side stream. */
void ss_cuda_report_info_async(const int *dinfo, int offset, starsolve_request_t *req, cudaStream_t after);
/* Per-worker scratch that grows on demand and lives until shutdown, for the
 * QR and batched codelets: dwork is device memory, hwork pinned host memory. */
void *ss_cuda_dwork(size_t bytes);
/* A second device scratch, for data a codelet keeps across a call that uses ss_cuda_dwork. */
void *ss_cuda_dwork2(size_t bytes);
void *ss_cuda_hwork(size_t bytes);
/* The same, NULL where there is no room (the caller then does without) instead of ending the process. */
void *ss_cuda_dwork2_try(size_t bytes);
void *ss_cuda_hwork_try(size_t bytes);
/* The calling CUDA worker's lanes 0 .. SS_CUDA_LANES - 1: streams beside StarPU's (not ordered with it), each
 * with its own cuBLAS handle on it and device scratch that grows on demand (after the lane's stream is idle), made
 * on first use and kept until shutdown. For a codelet that keeps several independent pieces of work in flight,
 * whose kernels then run at once; it must wait for its lanes before it returns. */
#define SS_CUDA_LANES 8
cudaStream_t ss_cuda_lane_stream(int lane);
cublasHandle_t ss_cuda_lane_blas(int lane);
/* Lanes 0 .. count - 1 made now where they were not; 0 where the GPU had no room for one (nothing ends). */
int ss_cuda_lanes_try(int count);
/* A lane's scratch of at least `bytes`; NULL (its smaller scratch kept) where growing it would leave the GPU
 * fewer than keep_free bytes free or finds no room. */
void *ss_cuda_lane_dwork_try(int lane, size_t bytes, size_t keep_free);
/* The calling worker's GPU's free memory now (cudaMemGetInfo). */
size_t ss_cuda_free_bytes(void);
/* The count pointers at host, copied in stream order to a per-worker device
 * array (valid for work queued next on that stream), for batched cuBLAS calls. */
void *const *ss_cuda_pointer_array(void *const *host, int count, cudaStream_t stream);
/* Row interchanges of npanels consecutive panels on a column of tiles in GPU
 * memory (codelets/cuda/laswp.cu): piv[p] is panel p's pivot vector (pivots.h)
 * in GPU memory, npiv[p] its pivot count; the arrays themselves in host memory.
 * work: GPU memory for 2 * max(npiv) * ncols elements. */
void ss_cuda_laswp(size_t elemsize, int ncols, int ntiles, void *const *tiles, const int *ld, int nb,
                   int npanels, const int *const *piv, const int *npiv, int forward, void *work,
                   cudaStream_t stream);
/* LAPACK's lacpy and laset on a tile in GPU memory (codelets/cuda/lacpy.cu):
 * uplo 'U' or 'L' picks a triangle, anything else the whole tile; laset puts
 * *diag on the diagonal and *offdiag elsewhere in the part (values of elemsize bytes). */
void ss_cuda_lacpy(char uplo, size_t elemsize, int m, int n, const void *A, int lda, void *B, int ldb,
                   cudaStream_t stream);
void ss_cuda_laset(char uplo, size_t elemsize, int m, int n, const void *offdiag, const void *diag,
                   void *A, int lda, cudaStream_t stream);
/* *flag (device int, zeroed by the caller) becomes 1 if one of count reals of
 * realsize bytes at x is a NaN (codelets/cuda/nan.cu). */
void ss_cuda_find_nan(size_t realsize, size_t count, const void *x, int *flag, cudaStream_t stream);
/* The RBT norms' pieces on a GPU (codelets/cuda/lange.cu): A m x n, realsize-byte reals (two an entry when
 * complex_entries), leading dimension ld entries; sums and out reals of that size. rowsums_add:
 * sums[i] += sum_j |A(i, j)|; colmax_join: out[c] = max(out[c], max_i |A(i, c)|), a NaN kept once met. */
void ss_cuda_abs_rowsums_add(size_t realsize, int complex_entries, int m, int n, const void *A, size_t ld, void *sums,
                             cudaStream_t stream);
void ss_cuda_abs_colmax_join(size_t realsize, int complex_entries, int m, int n, const void *A, size_t ld, void *out,
                             cudaStream_t stream);
/* count ints from src to dst (GPU memory) in stream order, by a kernel */
void ss_cuda_copy_ints(int *dst, const int *src, int count, cudaStream_t stream);
/* The GPU side of ss_piv_finish_panel (src/pivots.h): from a panel's npiv
 * panel-local 1-based pivots dpiv, fill the pivot vector v (GPU memory) with
 * the count, the global pivots (offset added) and their composed permutation.
 * rowslot: GPU scratch of m ints (m: the panel's rows). One thread block. */
void ss_cuda_finish_panel_pivots(int *v, const int *dpiv, int npiv, int offset, int *rowslot, cudaStream_t stream);
/* One leaf of the LU panel (codelets/cuda/getrf_leaf.cu): columns c0 .. c0 + nl - 1 of the m x ncols
 * panel (GPU memory, leading dimension ld) from row c0 down, factored with partial pivoting by one
 * cooperative kernel, its row interchanges applied to the panel's other columns; ipiv[c0 ..] gets
 * 1-based panel rows, *info (device, zeroed before the first leaf) the first zero pivot's column.
 * work: ss_cuda_getrf_leaf_work_bytes(elemsize) of GPU memory, 16-byte aligned. */
size_t ss_cuda_getrf_leaf_work_bytes(size_t elemsize);
/* the widest leaf (at most want columns) for a panel of m rows on grids of at most max_blocks
 * blocks (0: one per SM); 0: none fits (use cuSOLVER) */
int ss_cuda_getrf_leaf_width(size_t elemsize, int m, int want, int max_blocks);
void ss_cuda_sgetrf_leaf(void *panel, int ld, int m, int ncols, int c0, int nl, int *ipiv, int *info, void *work,
                         int max_blocks, cudaStream_t stream);
void ss_cuda_dgetrf_leaf(void *panel, int ld, int m, int ncols, int c0, int nl, int *ipiv, int *info, void *work,
                         int max_blocks, cudaStream_t stream);
void ss_cuda_cgetrf_leaf(void *panel, int ld, int m, int ncols, int c0, int nl, int *ipiv, int *info, void *work,
                         int max_blocks, cudaStream_t stream);
void ss_cuda_zgetrf_leaf(void *panel, int ld, int m, int ncols, int c0, int nl, int *ipiv, int *info, void *work,
                         int max_blocks, cudaStream_t stream);
/* The leaves of cuda_ztrsm_recursive (codelets/cuda/trsm_leaf.cu): side 'R', X U = B with U n x n
 * upper, n <= SS_TRSM_LEAF_R, B m x n; side 'L', L X = B with L m x m lower, m <= SS_TRSM_LEAF_L,
 * B m x n; diag 'U': unit. Asynchronous on stream. */
#include "cuda/trsm_leaf.h"
void ss_cuda_strsm_leaf(char side, char diag, int m, int n, const void *T, int ldt, void *B, int ldb, cudaStream_t st);
void ss_cuda_dtrsm_leaf(char side, char diag, int m, int n, const void *T, int ldt, void *B, int ldb, cudaStream_t st);
void ss_cuda_ctrsm_leaf(char side, char diag, int m, int n, const void *T, int ldt, void *B, int ldb, cudaStream_t st);
void ss_cuda_ztrsm_leaf(char side, char diag, int m, int n, const void *T, int ldt, void *B, int ldb, cudaStream_t st);
/* If *flag (device int) is nonzero, the count reals at x become NaN. */
void ss_cuda_fill_nan_if(size_t realsize, size_t count, void *x, const int *flag, cudaStream_t stream);
/* Random butterflies on tiles in GPU memory (codelets/cuda/rbt.cu; formulas in codelet_zgerbt.c). */
void ss_cuda_sgerbt(int m, int n, void *A11, void *A12, void *A21, void *A22, int lda, const void *u,
                    const void *v, int row0, int col0, int h, cudaStream_t stream);
void ss_cuda_dgerbt(int m, int n, void *A11, void *A12, void *A21, void *A22, int lda, const void *u,
                    const void *v, int row0, int col0, int h, cudaStream_t stream);
void ss_cuda_cgerbt(int m, int n, void *A11, void *A12, void *A21, void *A22, int lda, const void *u,
                    const void *v, int row0, int col0, int h, cudaStream_t stream);
void ss_cuda_zgerbt(int m, int n, void *A11, void *A12, void *A21, void *A22, int lda, const void *u,
                    const void *v, int row0, int col0, int h, cudaStream_t stream);
/* Two consecutive levels l, l+1 at once on the 16 tiles A16[4 a + b] at rows row0 + off(a) and
 * columns col0 + off(b), off = 0, h/2, h, h + h/2 (h: level l's half); u0, v0 level l's
 * diagonals, u1, v1 level l+1's. */
void ss_cuda_sgerbt2(int m, int n, void *const *A16, int lda, const void *u0, const void *v0, const void *u1,
                     const void *v1, int row0, int col0, int h, cudaStream_t stream);
void ss_cuda_dgerbt2(int m, int n, void *const *A16, int lda, const void *u0, const void *v0, const void *u1,
                     const void *v1, int row0, int col0, int h, cudaStream_t stream);
void ss_cuda_cgerbt2(int m, int n, void *const *A16, int lda, const void *u0, const void *v0, const void *u1,
                     const void *v1, int row0, int col0, int h, cudaStream_t stream);
void ss_cuda_zgerbt2(int m, int n, void *const *A16, int lda, const void *u0, const void *v0, const void *u1,
                     const void *v1, int row0, int col0, int h, cudaStream_t stream);
void ss_cuda_sgerbt_rhs(int m, int n, void *B1, void *B2, int ldb, const void *u, int row0, int h,
                        int transposed, cudaStream_t stream);
void ss_cuda_dgerbt_rhs(int m, int n, void *B1, void *B2, int ldb, const void *u, int row0, int h,
                        int transposed, cudaStream_t stream);
void ss_cuda_cgerbt_rhs(int m, int n, void *B1, void *B2, int ldb, const void *u, int row0, int h,
                        int transposed, cudaStream_t stream);
void ss_cuda_zgerbt_rhs(int m, int n, void *B1, void *B2, int ldb, const void *u, int row0, int h,
                        int transposed, cudaStream_t stream);
/* A level whose blocks (of order 2h) lie inside one m x n tile (or m-row tile of right-hand sides); row0, col0:
 * the tile's first row and column in the level's packed entries */
void ss_cuda_sgerbt_local(int m, int n, void *A, int lda, const void *u, const void *v, int row0, int col0, int h,
                          cudaStream_t stream);
void ss_cuda_dgerbt_local(int m, int n, void *A, int lda, const void *u, const void *v, int row0, int col0, int h,
                          cudaStream_t stream);
void ss_cuda_cgerbt_local(int m, int n, void *A, int lda, const void *u, const void *v, int row0, int col0, int h,
                          cudaStream_t stream);
void ss_cuda_zgerbt_local(int m, int n, void *A, int lda, const void *u, const void *v, int row0, int col0, int h,
                          cudaStream_t stream);
void ss_cuda_sgerbt_rhs_local(int m, int n, void *B, int ldb, const void *u, int row0, int h, int transposed,
                              cudaStream_t stream);
void ss_cuda_dgerbt_rhs_local(int m, int n, void *B, int ldb, const void *u, int row0, int h, int transposed,
                              cudaStream_t stream);
void ss_cuda_cgerbt_rhs_local(int m, int n, void *B, int ldb, const void *u, int row0, int h, int transposed,
                              cudaStream_t stream);
void ss_cuda_zgerbt_rhs_local(int m, int n, void *B, int ldb, const void *u, int row0, int h, int transposed,
                              cudaStream_t stream);

/* Panel kernels of the batched factorizations (codelets/cuda/batched.cu; the loops
 * around them in zbatched_cuda.c): one thread block per matrix of a strided batch,
 * the panel (rows j0.., columns j0..j0+jb-1) in registers or shared memory.
 * getrf: pivots to ipiv (1-based, global), the swaps on the columns c0..c1-1 outside the
 *        panel, info if a pivot is zero; Linv (ld ldl, stride sL per matrix) gets inv(L11)
 *        unless NULL;
 * laswp: the interchanges ipiv[first..k-1] composed and applied at once, on ny column blocks
 *        of every matrix: block y has columns c0 + y cw .. min(c0 + (y + 1) cw, c1) - 1 and
 *        first = p0 + y pstep (batched_laswp.cuh); ss_cuda_batch_laswp_fits: 1 when m rows of
 *        es-byte elements fit its block;
 * potrf: uplo U through the conjugate transpose (upper = 1); D (jb x jb per matrix,
 *        NULL at j0 = 0) is subtracted from the diagonal block; a matrix whose info
 *        is set is skipped;
 * geqrf: tau (stride sT), and unless NULL, V (mr x jb, mr = m - j0, unit diagonal and
 *        zeros explicit; ld ldv, stride sV per matrix) and larft's T (jb x jb, zeros below;
 *        ld ldt, stride sTm). */
void ss_cuda_sbatch_getrf_panel(int m, int j0, int jb, int c0, int c1, void *A, int lda, long long sA, int *ipiv,
                                long long sP, int *info, void *Linv, int ldl, long long sL, int count,
                                cudaStream_t stream);
void ss_cuda_dbatch_getrf_panel(int m, int j0, int jb, int c0, int c1, void *A, int lda, long long sA, int *ipiv,
                                long long sP, int *info, void *Linv, int ldl, long long sL, int count,
                                cudaStream_t stream);
void ss_cuda_cbatch_getrf_panel(int m, int j0, int jb, int c0, int c1, void *A, int lda, long long sA, int *ipiv,
                                long long sP, int *info, void *Linv, int ldl, long long sL, int count,
                                cudaStream_t stream);
void ss_cuda_zbatch_getrf_panel(int m, int j0, int jb, int c0, int c1, void *A, int lda, long long sA, int *ipiv,
                                long long sP, int *info, void *Linv, int ldl, long long sL, int count,
                                cudaStream_t stream);
void ss_cuda_sbatch_laswp(int m, int k, int p0, int pstep, int c0, int cw, int c1, int ny, void *A, int lda,
                          long long sA, const int *ipiv, long long sP, int count, cudaStream_t stream);
void ss_cuda_dbatch_laswp(int m, int k, int p0, int pstep, int c0, int cw, int c1, int ny, void *A, int lda,
                          long long sA, const int *ipiv, long long sP, int count, cudaStream_t stream);
void ss_cuda_cbatch_laswp(int m, int k, int p0, int pstep, int c0, int cw, int c1, int ny, void *A, int lda,
                          long long sA, const int *ipiv, long long sP, int count, cudaStream_t stream);
void ss_cuda_zbatch_laswp(int m, int k, int p0, int pstep, int c0, int cw, int c1, int ny, void *A, int lda,
                          long long sA, const int *ipiv, long long sP, int count, cudaStream_t stream);
int ss_cuda_batch_laswp_fits(int m, size_t es);
void ss_cuda_sbatch_potrf_panel(int n, int j0, int jb, int upper, void *A, int lda, long long sA, const void *D,
                                int *info, int count, cudaStream_t stream);
void ss_cuda_dbatch_potrf_panel(int n, int j0, int jb, int upper, void *A, int lda, long long sA, const void *D,
                                int *info, int count, cudaStream_t stream);
void ss_cuda_cbatch_potrf_panel(int n, int j0, int jb, int upper, void *A, int lda, long long sA, const void *D,
                                int *info, int count, cudaStream_t stream);
void ss_cuda_zbatch_potrf_panel(int n, int j0, int jb, int upper, void *A, int lda, long long sA, const void *D,
                                int *info, int count, cudaStream_t stream);
void ss_cuda_sbatch_geqrf_panel(int m, int j0, int jb, void *A, int lda, long long sA, void *tau, long long sT,
                                void *V, int ldv, long long sV, void *Tm, int ldt, long long sTm, int count,
                                cudaStream_t stream);
void ss_cuda_dbatch_geqrf_panel(int m, int j0, int jb, void *A, int lda, long long sA, void *tau, long long sT,
                                void *V, int ldv, long long sV, void *Tm, int ldt, long long sTm, int count,
                                cudaStream_t stream);
void ss_cuda_cbatch_geqrf_panel(int m, int j0, int jb, void *A, int lda, long long sA, void *tau, long long sT,
                                void *V, int ldv, long long sV, void *Tm, int ldt, long long sTm, int count,
                                cudaStream_t stream);
void ss_cuda_zbatch_geqrf_panel(int m, int j0, int jb, void *A, int lda, long long sA, void *tau, long long sT,
                                void *V, int ldv, long long sV, void *Tm, int ldt, long long sTm, int count,
                                cudaStream_t stream);
/* Small-size kernels of the batched factorizations (codelets/cuda/batched_small.cuh):
 * max(m, n) <= 32, or <= 64 in s's LU and s and d's Cholesky (potrf: square), a segment of
 * 1, 2, 4, .. 32 lanes of a warp (64: two warps) per matrix holding it in registers,
 * several matrices per block; the whole factorization in one launch, info written
 * for every matrix (no memset needed).
 * ss_cuda_batch_small_taken: 1 when op's small kernel is used for m x n of es-byte elements,
 * complex_arith (SS_COMPLEX_ARITH) in c and z; why there and not beyond: batched_small.cuh's
 * small_most_order. */
int ss_cuda_batch_small_taken(int op, int m, int n, size_t es, int complex_arith);
void ss_cuda_sbatch_getrf_small(int m, int n, void *A, int lda, long long sA, int *ipiv, long long sP, int *info,
                                int count, cudaStream_t stream);
void ss_cuda_dbatch_getrf_small(int m, int n, void *A, int lda, long long sA, int *ipiv, long long sP, int *info,
                                int count, cudaStream_t stream);
void ss_cuda_cbatch_getrf_small(int m, int n, void *A, int lda, long long sA, int *ipiv, long long sP, int *info,
                                int count, cudaStream_t stream);
void ss_cuda_zbatch_getrf_small(int m, int n, void *A, int lda, long long sA, int *ipiv, long long sP, int *info,
                                int count, cudaStream_t stream);
void ss_cuda_sbatch_potrf_small(int n, int upper, void *A, int lda, long long sA, int *info, int count,
                                cudaStream_t stream);
void ss_cuda_dbatch_potrf_small(int n, int upper, void *A, int lda, long long sA, int *info, int count,
                                cudaStream_t stream);
void ss_cuda_cbatch_potrf_small(int n, int upper, void *A, int lda, long long sA, int *info, int count,
                                cudaStream_t stream);
void ss_cuda_zbatch_potrf_small(int n, int upper, void *A, int lda, long long sA, int *info, int count,
                                cudaStream_t stream);
void ss_cuda_sbatch_geqrf_small(int m, int n, void *A, int lda, long long sA, void *tau, long long sT, int *info,
                                int count, cudaStream_t stream);
void ss_cuda_dbatch_geqrf_small(int m, int n, void *A, int lda, long long sA, void *tau, long long sT, int *info,
                                int count, cudaStream_t stream);
void ss_cuda_cbatch_geqrf_small(int m, int n, void *A, int lda, long long sA, void *tau, long long sT, int *info,
                                int count, cudaStream_t stream);
void ss_cuda_zbatch_geqrf_small(int m, int n, void *A, int lda, long long sA, void *tau, long long sT, int *info,
                                int count, cudaStream_t stream);
/* Middle-size kernels of the batched LU and Cholesky (codelets/cuda/batched_tiled.cuh): one
 * thread block per matrix (per chunk of a Cholesky panel's rows), register tiles.
 * getrf_tiled: the whole m x n LU (pivots, info) in one launch, where getrf_tiled_fits says;
 * potrf_tiled_plan: the panel width for order n (n: the whole matrix in one launch; 0: not
 *   taken) and in *ch the rows below the diagonal block per block; large: the caller's choice of
 *   these kernels for an order above 512 (panels of 32 columns);
 * potrf_tiled: columns j0..j0+jb-1, rows j0..n-1 of L (uplo U through A^H), W (n-j0 x jb per
 *   matrix, or NULL at j0 = 0) subtracted first; info written at j0 = 0, a matrix whose info is
 *   set skipped after. With rows below the diagonal block (n - j0 > jb) L11 goes to Lout (jb x jb
 *   per matrix) instead of A, and the next panel's launch copies it in (Lin, jin, jbin; NULL: none). Environment knobs (STARSOLVE_BATCH_TILED ...): batched_tiled.cuh. */
void ss_cuda_sbatch_getrf_tiled(int m, int n, void *A, int lda, long long sA, int *ipiv, long long sP, int *info,
                                int count, cudaStream_t stream);
void ss_cuda_sbatch_potrf_tiled(int n, int j0, int jb, int ch, int upper, void *A, int lda, long long sA,
                                const void *W, void *Lout, const void *Lin, int jin, int jbin, int *info,
                                int count, cudaStream_t stream);
int ss_cuda_sbatch_getrf_tiled_fits(int m, int n);
int ss_cuda_sbatch_potrf_tiled_plan(int n, int large, int *ch);
void ss_cuda_dbatch_getrf_tiled(int m, int n, void *A, int lda, long long sA, int *ipiv, long long sP, int *info,
                                int count, cudaStream_t stream);
void ss_cuda_dbatch_potrf_tiled(int n, int j0, int jb, int ch, int upper, void *A, int lda, long long sA,
                                const void *W, void *Lout, const void *Lin, int jin, int jbin, int *info,
                                int count, cudaStream_t stream);
int ss_cuda_dbatch_getrf_tiled_fits(int m, int n);
int ss_cuda_dbatch_potrf_tiled_plan(int n, int large, int *ch);
void ss_cuda_cbatch_getrf_tiled(int m, int n, void *A, int lda, long long sA, int *ipiv, long long sP, int *info,
                                int count, cudaStream_t stream);
void ss_cuda_cbatch_potrf_tiled(int n, int j0, int jb, int ch, int upper, void *A, int lda, long long sA,
                                const void *W, void *Lout, const void *Lin, int jin, int jbin, int *info,
                                int count, cudaStream_t stream);
int ss_cuda_cbatch_getrf_tiled_fits(int m, int n);
int ss_cuda_cbatch_potrf_tiled_plan(int n, int large, int *ch);
void ss_cuda_zbatch_getrf_tiled(int m, int n, void *A, int lda, long long sA, int *ipiv, long long sP, int *info,
                                int count, cudaStream_t stream);
void ss_cuda_zbatch_potrf_tiled(int n, int j0, int jb, int ch, int upper, void *A, int lda, long long sA,
                                const void *W, void *Lout, const void *Lin, int jin, int jbin, int *info,
                                int count, cudaStream_t stream);
int ss_cuda_zbatch_getrf_tiled_fits(int m, int n);
int ss_cuda_zbatch_potrf_tiled_plan(int n, int large, int *ch);
/* The width of the tiled Cholesky's panel at column j0 of order n in panels of tjb (potrf_tiled_plan's):
 * tjb, or the rest of the matrix where a full panel would leave at most 8 columns. */
int ss_cuda_batch_potrf_tiled_width(int n, int j0, int tjb);
/* The panel width for op (SS_BATCH_GETRF, _POTRF, _GEQRF) on m x n matrices of es-byte
 * elements (complex_arith: c or z): `asked` (at most 64) if > 0 and its panel fits, else min(m, n)
 * when the whole matrix fits in 64 KB of shared memory and has at most 36 columns (QR: 32; Cholesky:
 * its widest panel + 4), else the widest of 32, 16, 8, 4 columns (the complex LU from 16; the QR
 * of 33..64 columns in even panels of at most 16) whose m-row panel fits in 140 KB of shared
 * memory; 0 when none fits. */
int ss_cuda_batch_panel_width(int op, int m, int n, size_t es, int complex_arith, int asked);
/* count strided m x n copies src -> dst (GPU memory) of es-byte elements */
void ss_cuda_batch_copy(size_t es, int m, int n, const void *src, int lds, long long ss, void *dst, int ldd,
                        long long sd, int count, cudaStream_t stream);
/* The SPIKE solver's kernels (codelets/cuda/spike.cu; precisions by LAPACK letter, 'a' the
 * working precision, 'f' the partition factors'). A chunk's task (spike_layout.h) runs one thread
 * block per partition (per inner interface for the reduced systems), LAPACK's layouts, pivots and
 * infos, so that CPU and GPU tasks share every buffer. factor_chunk: work of factor_work bytes;
 * reduced_factor / reduced_solve: `count` interfaces, the j-th reading vb + j vbs, wt + j wts
 * (gb + j gbs, gtop + j gts: element strides); tipsolve / retrieve: w the chunk's rows in the
 * factor's precision; retrieve: yup / ydown NULL without a neighbour chunk. matvec: the chunk's
 * band product (kind 0: y = aux - A x and max |y_i| into *om; 1: y = A x and sum conj(aux_i) y_i
 * into *o1; 2: y = A x, sum conj(y_i) aux_i into *o1 and sum conj(y_i) y_i into *o2), Cc / xp and
 * Bc / xn the couplings with the previous / next chunk (NULL: none); update: BiCGStab's vector
 * updates (op 1: p, 2: s, 3: x and r with max |r| into *om and rh^H r into *o1, 4: the start, r^H r
 * into *o1, 5: a copy with its max |.| into *om; v[0..6] as in the kernel); both through
 * ss_cuda_spike_work(p, n) bytes of scratch for n rows. */
struct ss_spike_chunk;
size_t ss_cuda_spike_factor_work(char a, char f, const struct ss_spike_chunk *c);
void ss_cuda_spike_factor_chunk(char a, char f, const struct ss_spike_chunk *c, const void *bp, int ldp, int sp,
                                const void *bi, int ldi, const void *bn, int ldn, void *F, int *ipiv, void *tips,
                                void *S, int *ipivS, void *stat, void *work, cudaStream_t st);
void ss_cuda_spike_reduced_factor(char a, int K, int count, const void *vb, size_t vbs, const void *wt, size_t wts,
                                  void *S, int *ipivS, cudaStream_t st);
void ss_cuda_spike_tipsolve_chunk(char a, char f, const struct ss_spike_chunk *c, const void *F, const int *ipiv,
                                  const void *fv, const void *S, const int *ipivS, void *gt, void *y, void *w, void *g,
                                  cudaStream_t st);
void ss_cuda_spike_reduced_solve(char a, int K, int count, const void *S, const int *ipivS, const void *gb, size_t gbs,
                                 const void *gtop, size_t gts, void *y, cudaStream_t st);
void ss_cuda_spike_retrieve_chunk(char a, char f, const struct ss_spike_chunk *c, const void *F, const int *ipiv,
                                  const void *fv, const void *tips, const void *y, const void *yup, const void *ydown,
                                  void *x, void *w, cudaStream_t st);
size_t ss_cuda_spike_work(char p, int n);
void ss_cuda_spike_matvec(char p, int kind, const struct ss_spike_chunk *c, const void *band, int ld, const void *Cc,
                          const void *xp, const void *Bc, const void *xn, const void *x, const void *aux, void *y,
                          void *om, void *o1, void *o2, void *work, cudaStream_t st);
void ss_cuda_spike_update(char p, int op, int n, const void *sc, void *const *v, void *om, void *o1, void *work,
                          cudaStream_t st);
/* The tridiagonal path's whole solve (codelets/cuda/tridiag.cu): every column of B (nrhs 0: the check
 * only) on the stream, synchronised inside (the flags decide on refinement) and at the end; work of
 * ss_cuda_tridiag_work(element bytes, n) bytes; the report in *res */
size_t ss_cuda_tridiag_work(size_t es, long n);
void ss_cuda_tridiag_solve(char p, const struct ss_tridiag_args *a, const void *band, int ldband, int nrhs, void *B, int ldb,
                           void *work, cudaStream_t st, struct ss_tridiag_result *res);
/* The GPU's chunk of a call of tridiagonal chunks (struct ss_tri_chunk: the matrix's last rows; tridiag.cu), on the
 * stream, in work of ss_cuda_tri_chunk_work(element bytes, a) bytes: reduce_start uploads its band and B's rows and
 * solves its block for z = A_g^-1 e_0 and each y_j = A_g^-1 b_j; reduce_end waits and returns z_0, z_{g-1}, then
 * y_j's first and last entries (ends: 2 + 2 nrhs elements) and its flags; back writes x = y - z a xprev_j into B's rows
 * (a = *sub_first: the first row's subdiagonal; xprev: the previous chunk's last unknowns) and per column max |b - A x|
 * and max |b| into stat (2 nrhs elements), synchronised. Elements of the precision p. */
size_t ss_cuda_tri_chunk_work(size_t es, const struct ss_tri_chunk *a);
void ss_cuda_tri_chunk_reduce_start(char p, const struct ss_tri_chunk *a, void *work, cudaStream_t st);
void ss_cuda_tri_chunk_reduce_end(char p, const struct ss_tri_chunk *a, void *work, cudaStream_t st, void *ends,
                                  struct ss_tri_gpu_flags *out);
void ss_cuda_tri_chunk_back(char p, const struct ss_tri_chunk *a, void *work, cudaStream_t st, const void *sub_first, const void *xprev,
                            void *stat);
/* zspike_reduce_cpu's step on the GPU: np <= SS_SPIKE_MAX_PARTIALS partial sums (device pointers) into the scalars */
void ss_cuda_spike_reduce(char p, int op, int np, const void *const *partials, void *scalars, cudaStream_t st);
/* Bytes rounded up so that consecutive pieces of one scratch buffer stay aligned. */
static inline size_t ss_align(size_t bytes) { return (bytes + 255) & ~(size_t)255; }

/* A failed CUDA / cuBLAS / cuSOLVER call inside a task cannot be reported
 * through info: the task graph is already running. Stop with the location. */
void ss_cuda_fail(const char *what, int status, const char *file, int line);
#define SS_CUDA(call) do { cudaError_t s_ = (call); \
    if (s_ != cudaSuccess) ss_cuda_fail(#call, (int)s_, __FILE__, __LINE__); } while (0)
#define SS_CUBLAS(call) do { cublasStatus_t s_ = (call); \
    if (s_ != CUBLAS_STATUS_SUCCESS) ss_cuda_fail(#call, (int)s_, __FILE__, __LINE__); } while (0)
#define SS_CUSOLVER(call) do { cusolverStatus_t s_ = (call); \
    if (s_ != CUSOLVER_STATUS_SUCCESS) ss_cuda_fail(#call, (int)s_, __FILE__, __LINE__); } while (0)

static inline cublasOperation_t ss_cublas_op(char t)
{
    return t == 'N' ? CUBLAS_OP_N : t == 'T' ? CUBLAS_OP_T : CUBLAS_OP_C;
}
static inline cublasFillMode_t ss_cublas_uplo(char u)
{
    return u == 'L' ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
}
#endif

/* Scalars handed to cuBLAS by address. cuDoubleComplex is a 16-byte-aligned
 * double2 and cuBLASLt reads host scalars with aligned loads, while a
 * double _Complex is only 8-byte aligned in structs and on the stack: z
 * crashed inside cublasZgemm on an alpha at offset 8 of its cl_arg. */
#define SS_CUBLAS_SCALAR _Alignas(16)

/* cblas takes complex scalars by address and real ones by value; the
 * precision generator turns CBLAS_SADDR(x) into (x) for s and d. */
#define CBLAS_SADDR(x) (&(x))

static inline CBLAS_TRANSPOSE ss_cblas_trans(char t)
{
    return t == 'N' ? CblasNoTrans : t == 'T' ? CblasTrans : CblasConjTrans;
}
static inline CBLAS_UPLO ss_cblas_uplo(char u) { return u == 'L' ? CblasLower : CblasUpper; }
static inline CBLAS_SIDE ss_cblas_side(char s) { return s == 'L' ? CblasLeft : CblasRight; }
static inline CBLAS_DIAG ss_cblas_diag(char d) { return d == 'U' ? CblasUnit : CblasNonUnit; }

/* Complex flops count 4x real ones (LAWN 41: 6 per multiply, 2 per add). */
#if defined(STARSOLVE_PRECISION_Z) || defined(STARSOLVE_PRECISION_C)
#define SS_FLOP_SCALE 4.0
#else
#define SS_FLOP_SCALE 1.0
#endif

/* 1 in c and z, 0 in s and d (for the batched GPU plans, whose choices differ in complex arithmetic) */
#if defined(STARSOLVE_PRECISION_Z) || defined(STARSOLVE_PRECISION_C)
#define SS_COMPLEX_ARITH 1
#else
#define SS_COMPLEX_ARITH 0
#endif

/* LAPACK's real routines take 'T' where the complex ones take 'C' (conjugate transpose). */
#if defined(STARSOLVE_PRECISION_Z) || defined(STARSOLVE_PRECISION_C)
static inline char ss_lapack_trans(char t) { return t; }
#else
static inline char ss_lapack_trans(char t) { return t == 'C' ? 'T' : t; }
#endif

/* Batched routines (codelet_zbatched.c, codelet_zvbatched.c): the operation and its sizes, shared by
 * every chunk of a batch (count: the chunk's matrices, set per chunk). */
enum { SS_BATCH_GETRF, SS_BATCH_POTRF, SS_BATCH_GEQRF, SS_BATCH_GETRS, SS_BATCH_POTRS, SS_BATCH_GEQRS };
/* vendor: the CUDA variant calls cuBLAS/cuSOLVER's batched routines instead of our
 * kernels (starsolve_set_batch_vendor, for comparisons); getrs/potrs always do. */
struct ss_batch_args {
    int op, m, n, nrhs, lda, ldb, count, vendor;
    long strideA, strideB, strideIpiv, strideTau;
    char uplo, trans;
};
/* LAPACK's (real) flop count of an m x n LU: additions and multiplications, 2/3 n^3 for a square matrix, as
 * the dense drivers count. Until session 30 the batched getrf and the getrf panel codelets counted the
 * multiplications alone, half of this: earlier batched tables' getrf GF/s and TF/s are half the true rates
 * (their ratios, times against times, hold). */
static inline double ss_getrf_flops(double m, double n)
{
    double k = m < n ? m : n;
    return 2 * (m * n * k - (m + n) * k * k / 2 + k * k * k / 3);
}
/* LAPACK's (real) flop count of one matrix of the batch (getrf 2/3 n^3, potrf n^3/3, geqrf 4/3 n^3 square) */
static inline double ss_batch_flops(const struct ss_batch_args *a)
{
    double m = a->m, n = a->n, r = a->nrhs, k = m < n ? m : n, big = m > n ? m : n;
    switch (a->op) {
    case SS_BATCH_GETRF: return ss_getrf_flops(m, n);
    case SS_BATCH_POTRF: return n * n * n / 3;
    case SS_BATCH_GEQRF: return 2 * big * k * k - 2 * k * k * k / 3;
    case SS_BATCH_GEQRS: return 4 * m * n * r;
    default:             return 2 * n * n * r;   /* getrs, potrs */
    }
}

/* What the batched codelets of every precision share (batch_workers.c). ss_prefetch_matrix: the m x n matrix at
 * A (elements of elemsize bytes, leading dimension lda) asked into cache for writing, if it is small;
 * ss_batch_prefetches: whether the CPU variants of op prefetch the next matrix (not Cholesky).
 * ss_submit_on_worker: one task of cl (cl_arg arg) pinned to worker id, submitted, not waited for.
 * ss_run_on_cpu_workers: one task of cl (cl_arg arg, shared) on each CPU worker, on `most` of them at most (none
 * if most <= 0), whatever the scheduler's models say; returns when all have run. With no CPU worker, cl's CPU
 * function on the calling thread. */
void ss_prefetch_matrix(const void *A, size_t elemsize, int m, int n, int lda);
int ss_batch_prefetches(int op);
struct starpu_task *ss_submit_on_worker(struct starpu_codelet *cl, void *arg, int id);
void ss_run_on_cpu_workers(struct starpu_codelet *cl, void *arg, long most);

/* SPIKE (codelet_zspike.c): one chunk's description, the cl_arg of every SPIKE task. A chunk is
 * a contiguous range of partitions (spike_layout.h), the unit of a task: rows first .. first +
 * size - 1, partitions part0 .. part0 + np - 1 of the p partitions of sizes pq or pq + 1 (the
 * first pr of them). op: the operation of the matvec, update and reduce codelets. */
#include "spike_layout.h"
struct ss_spike_part {
    struct ss_spike_chunk c;  /* the chunk (spike_layout.h) */
    int maxpart;              /* the largest partition's rows */
    int mixed;                /* the partition factors are in single precision (d: float, z: complex float) */
    int nparts;               /* reduce: the number of partial sums (the chunks) */
    int op, col;              /* operation; update's column of B */
    int worker;               /* the worker that runs the chunk's tasks, or -1: the scheduler's choice */
};
enum { SS_MV_RES, SS_MV_V, SS_MV_T };                /* matvec: r = b - A x; v = A ph, rh^H v; t = A sh, t^H s, t^H t */
/* BiCGStab's vector updates, and x += z of the refinement steps before it */
enum { SS_UP_INIT, SS_UP_P, SS_UP_S, SS_UP_XR, SS_UP_COPYIN, SS_UP_COPYOUT, SS_UP_ADD };
/* the reductions (SS_RED_*), partial sums (SS_PART_*) and scalars (SS_SCAL_*): spike_layout.h */

/* Tile dimensions from a StarPU matrix interface (column-major: nx = rows). */
#define SS_ROWS(buf) ((int)STARPU_MATRIX_GET_NX(buf))
#define SS_COLS(buf) ((int)STARPU_MATRIX_GET_NY(buf))
#define SS_LD(buf)   ((int)STARPU_MATRIX_GET_LD(buf))

/* Workers that may run a codelet: CPU always, CUDA when built with it. */
#ifdef STARSOLVE_USE_CUDA
#define SS_WHERE_CPU_CUDA (STARPU_CPU | STARPU_CUDA)
#else
#define SS_WHERE_CPU_CUDA STARPU_CPU
#endif

#include "codelets_s.h"
#include "codelets_d.h"
#include "codelets_c.h"
#include "codelets_z.h"

#endif
