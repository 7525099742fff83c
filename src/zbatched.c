/* Batched factorizations and solves of many small matrices, fixed size, strided
 * (matrix k at A + k strideA, LAPACK layout). The batch is cut into chunks of
 * consecutive matrices, one task each (codelets/codelet_zbatched.c), so CPU and
 * GPU workers share the batch. Chunk size: starsolve_set_batch_chunk, else about
 * 20 MFLOP per task, with at least 4 tasks per worker when the batch allows.
 * Return 0 or a negative argument index; each matrix's LAPACK info goes to info[k]. */
#include <stdlib.h>
#include "algorithms.h"
#include "codelets.h"

/* matrices per task for matrices of `flops` (real count) each */
static int chunk_size(double flops, int batch)
{
    if (ss_ctx.batch_chunk > 0)
        return ss_min(ss_ctx.batch_chunk, batch);
    double per_task = 2e7 / (flops > 1 ? flops : 1);
    int chunk = per_task >= batch ? batch : (int)per_task;
    int workers = (int)starpu_worker_get_count(), spread = (batch + 4 * workers - 1) / (4 * workers);
    return ss_max(1, ss_min(chunk, spread));
}

/* elements from the first matrix of a chunk to the end of its last one */
static size_t span(int count, long stride, int ld, int rows, int cols)
{
    return (size_t)(count - 1) * (size_t)stride + (size_t)ld * (size_t)(cols - 1) + (size_t)rows;
}

static starpu_data_handle_t chunk_handle(void *base, size_t first, size_t count, size_t elemsize)
{
    return ss_register_vector((char *)base + first * elemsize, count, elemsize);
}

/* With GPUs, page-lock the caller's arrays for the call (as the tile routines do). */
static size_t pin(void *p, size_t bytes)
{
    if (!ss_ctx.pin_lapack || starpu_cuda_worker_get_count() == 0 || !bytes)
        return 0;
    return starpu_memory_pin(p, bytes) == 0 ? bytes : 0;
}
static void unpin(void *p, size_t bytes)
{
    if (bytes)
        starpu_memory_unpin(p, bytes);
}

int starsolve_zgetrf_batched(int m, int n, starsolve_complex64_t *A, int lda, long strideA, int *ipiv, long strideIpiv,
                             int *info, int batch)
{
    const char *me = "starsolve_zgetrf_batched";
    int k = ss_min(m, n);
    if (m < 0) return ss_arg_error(me, -1);
    if (n < 0) return ss_arg_error(me, -2);
    if (!A && batch > 0 && k > 0) return ss_arg_error(me, -3);
    if (lda < ss_max(1, m)) return ss_arg_error(me, -4);
    if (strideA < (long)lda * n) return ss_arg_error(me, -5);
    if (!ipiv && batch > 0 && k > 0) return ss_arg_error(me, -6);
    if (strideIpiv < k) return ss_arg_error(me, -7);
    if (!info && batch > 0) return ss_arg_error(me, -8);
    if (batch < 0) return ss_arg_error(me, -9);
    for (int b = 0; b < batch; b++)
        info[b] = 0;
    if (batch == 0 || k == 0) return 0;
    if (ss_ensure_init()) return -1000;
    double mn = m, nn = n, kk = k;
    int chunk = chunk_size(mn * nn * kk - (mn + nn) * kk * kk / 2 + kk * kk * kk / 3, batch);
    size_t pinned = pin(A, span(batch, strideA, lda, m, n) * sizeof *A);
    int nchunks = (batch + chunk - 1) / chunk;
    starpu_data_handle_t *h = malloc((size_t)3 * nchunks * sizeof *h);
    for (int c = 0; c < nchunks; c++) {
        int first = c * chunk, count = ss_min(chunk, batch - first);
        h[3 * c] = chunk_handle(A, (size_t)first * strideA, span(count, strideA, lda, m, n), sizeof *A);
        h[3 * c + 1] = chunk_handle(ipiv, (size_t)first * strideIpiv, (size_t)(count - 1) * strideIpiv + k, sizeof *ipiv);
        h[3 * c + 2] = chunk_handle(info, first, count, sizeof *info);
        insert_zgetrf_batch(m, n, lda, strideA, strideIpiv, count, h[3 * c], h[3 * c + 1], h[3 * c + 2]);
    }
    for (int i = 0; i < 3 * nchunks; i++)
        starpu_data_unregister(h[i]);   /* waits for the chunk's task, brings the results home */
    free(h);
    unpin(A, pinned);
    return 0;
}

int starsolve_zpotrf_batched(char uplo, int n, starsolve_complex64_t *A, int lda, long strideA, int *info, int batch)
{
    const char *me = "starsolve_zpotrf_batched";
    uplo = ss_upper(uplo);
    if (uplo != 'L' && uplo != 'U') return ss_arg_error(me, -1);
    if (n < 0) return ss_arg_error(me, -2);
    if (!A && batch > 0 && n > 0) return ss_arg_error(me, -3);
    if (lda < ss_max(1, n)) return ss_arg_error(me, -4);
    if (strideA < (long)lda * n) return ss_arg_error(me, -5);
    if (!info && batch > 0) return ss_arg_error(me, -6);
    if (batch < 0) return ss_arg_error(me, -7);
    for (int b = 0; b < batch; b++)
        info[b] = 0;
    if (batch == 0 || n == 0) return 0;
    if (ss_ensure_init()) return -1000;
    double nn = n;
    int chunk = chunk_size(nn * nn * nn / 3, batch), nchunks = (batch + chunk - 1) / chunk;
    size_t pinned = pin(A, span(batch, strideA, lda, n, n) * sizeof *A);
    starpu_data_handle_t *h = malloc((size_t)2 * nchunks * sizeof *h);
    for (int c = 0; c < nchunks; c++) {
        int first = c * chunk, count = ss_min(chunk, batch - first);
        h[2 * c] = chunk_handle(A, (size_t)first * strideA, span(count, strideA, lda, n, n), sizeof *A);
        h[2 * c + 1] = chunk_handle(info, first, count, sizeof *info);
        insert_zpotrf_batch(uplo, n, lda, strideA, count, h[2 * c], h[2 * c + 1]);
    }
    for (int i = 0; i < 2 * nchunks; i++)
        starpu_data_unregister(h[i]);
    free(h);
    unpin(A, pinned);
    return 0;
}

int starsolve_zgeqrf_batched(int m, int n, starsolve_complex64_t *A, int lda, long strideA, starsolve_complex64_t *tau,
                             long strideTau, int *info, int batch)
{
    const char *me = "starsolve_zgeqrf_batched";
    int k = ss_min(m, n);
    if (m < 0) return ss_arg_error(me, -1);
    if (n < 0) return ss_arg_error(me, -2);
    if (!A && batch > 0 && k > 0) return ss_arg_error(me, -3);
    if (lda < ss_max(1, m)) return ss_arg_error(me, -4);
    if (strideA < (long)lda * n) return ss_arg_error(me, -5);
    if (!tau && batch > 0 && k > 0) return ss_arg_error(me, -6);
    if (strideTau < k) return ss_arg_error(me, -7);
    if (!info && batch > 0) return ss_arg_error(me, -8);
    if (batch < 0) return ss_arg_error(me, -9);
    for (int b = 0; b < batch; b++)
        info[b] = 0;
    if (batch == 0 || k == 0) return 0;
    if (ss_ensure_init()) return -1000;
    double big = ss_max(m, n), small = k;
    int chunk = chunk_size(2 * big * small * small - 2 * small * small * small / 3, batch);
    int nchunks = (batch + chunk - 1) / chunk;
    size_t pinned = pin(A, span(batch, strideA, lda, m, n) * sizeof *A);
    starpu_data_handle_t *h = malloc((size_t)3 * nchunks * sizeof *h);
    for (int c = 0; c < nchunks; c++) {
        int first = c * chunk, count = ss_min(chunk, batch - first);
        h[3 * c] = chunk_handle(A, (size_t)first * strideA, span(count, strideA, lda, m, n), sizeof *A);
        h[3 * c + 1] = chunk_handle(tau, (size_t)first * strideTau, (size_t)(count - 1) * strideTau + k, sizeof *tau);
        h[3 * c + 2] = chunk_handle(info, first, count, sizeof *info);
        insert_zgeqrf_batch(m, n, lda, strideA, strideTau, count, h[3 * c], h[3 * c + 1], h[3 * c + 2]);
    }
    for (int i = 0; i < 3 * nchunks; i++)
        starpu_data_unregister(h[i]);
    free(h);
    unpin(A, pinned);
    return 0;
}

int starsolve_zgetrs_batched(char trans, int n, int nrhs, const starsolve_complex64_t *A, int lda, long strideA,
                             const int *ipiv, long strideIpiv, starsolve_complex64_t *B, int ldb, long strideB, int batch)
{
    const char *me = "starsolve_zgetrs_batched";
    trans = ss_upper(trans);
    if (trans != 'N' && trans != 'T' && trans != 'C') return ss_arg_error(me, -1);
    if (n < 0) return ss_arg_error(me, -2);
    if (nrhs < 0) return ss_arg_error(me, -3);
    if (!A && batch > 0 && n > 0) return ss_arg_error(me, -4);
    if (lda < ss_max(1, n)) return ss_arg_error(me, -5);
    if (strideA < (long)lda * n) return ss_arg_error(me, -6);
    if (!ipiv && batch > 0 && n > 0) return ss_arg_error(me, -7);
    if (strideIpiv < n) return ss_arg_error(me, -8);
    if (!B && batch > 0 && n > 0 && nrhs > 0) return ss_arg_error(me, -9);
    if (ldb < ss_max(1, n)) return ss_arg_error(me, -10);
    if (strideB < (long)ldb * nrhs) return ss_arg_error(me, -11);
    if (batch < 0) return ss_arg_error(me, -12);
    if (batch == 0 || n == 0 || nrhs == 0) return 0;
    if (ss_ensure_init()) return -1000;
    int chunk = chunk_size(2.0 * n * n * nrhs + 2.0 * n * n * n / 3, batch), nchunks = (batch + chunk - 1) / chunk;
    size_t pinned = pin(B, span(batch, strideB, ldb, n, nrhs) * sizeof *B);
    starpu_data_handle_t *h = malloc((size_t)3 * nchunks * sizeof *h);
    for (int c = 0; c < nchunks; c++) {
        int first = c * chunk, count = ss_min(chunk, batch - first);
        /* A and ipiv are only read: a read-only registration of the caller's const arrays */
        h[3 * c] = chunk_handle((void *)A, (size_t)first * strideA, span(count, strideA, lda, n, n), sizeof *A);
        h[3 * c + 1] = chunk_handle((void *)ipiv, (size_t)first * strideIpiv, (size_t)(count - 1) * strideIpiv + n,
                                    sizeof *ipiv);
        h[3 * c + 2] = chunk_handle(B, (size_t)first * strideB, span(count, strideB, ldb, n, nrhs), sizeof *B);
        insert_zgetrs_batch(trans, n, nrhs, lda, strideA, strideIpiv, ldb, strideB, count, h[3 * c], h[3 * c + 1],
                            h[3 * c + 2]);
    }
    for (int i = 0; i < 3 * nchunks; i++)
        starpu_data_unregister(h[i]);
    free(h);
    unpin(B, pinned);
    return 0;
}

int starsolve_zpotrs_batched(char uplo, int n, int nrhs, const starsolve_complex64_t *A, int lda, long strideA,
                             starsolve_complex64_t *B, int ldb, long strideB, int batch)
{
    const char *me = "starsolve_zpotrs_batched";
    uplo = ss_upper(uplo);
    if (uplo != 'L' && uplo != 'U') return ss_arg_error(me, -1);
    if (n < 0) return ss_arg_error(me, -2);
    if (nrhs < 0) return ss_arg_error(me, -3);
    if (!A && batch > 0 && n > 0) return ss_arg_error(me, -4);
    if (lda < ss_max(1, n)) return ss_arg_error(me, -5);
    if (strideA < (long)lda * n) return ss_arg_error(me, -6);
    if (!B && batch > 0 && n > 0 && nrhs > 0) return ss_arg_error(me, -7);
    if (ldb < ss_max(1, n)) return ss_arg_error(me, -8);
    if (strideB < (long)ldb * nrhs) return ss_arg_error(me, -9);
    if (batch < 0) return ss_arg_error(me, -10);
    if (batch == 0 || n == 0 || nrhs == 0) return 0;
    if (ss_ensure_init()) return -1000;
    int chunk = chunk_size(2.0 * n * n * nrhs + 1.0 * n * n * n / 3, batch), nchunks = (batch + chunk - 1) / chunk;
    size_t pinned = pin(B, span(batch, strideB, ldb, n, nrhs) * sizeof *B);
    starpu_data_handle_t *h = malloc((size_t)2 * nchunks * sizeof *h);
    for (int c = 0; c < nchunks; c++) {
        int first = c * chunk, count = ss_min(chunk, batch - first);
        h[2 * c] = chunk_handle((void *)A, (size_t)first * strideA, span(count, strideA, lda, n, n), sizeof *A);
        h[2 * c + 1] = chunk_handle(B, (size_t)first * strideB, span(count, strideB, ldb, n, nrhs), sizeof *B);
        insert_zpotrs_batch(uplo, n, nrhs, lda, strideA, ldb, strideB, count, h[2 * c], h[2 * c + 1]);
    }
    for (int i = 0; i < 2 * nchunks; i++)
        starpu_data_unregister(h[i]);
    free(h);
    unpin(B, pinned);
    return 0;
}

int starsolve_zgeqrs_batched(int m, int n, int nrhs, const starsolve_complex64_t *A, int lda, long strideA,
                             const starsolve_complex64_t *tau, long strideTau, starsolve_complex64_t *B, int ldb,
                             long strideB, int batch)
{
    const char *me = "starsolve_zgeqrs_batched";
    if (m < 0) return ss_arg_error(me, -1);
    if (n < 0 || n > m) return ss_arg_error(me, -2);
    if (nrhs < 0) return ss_arg_error(me, -3);
    if (!A && batch > 0 && n > 0) return ss_arg_error(me, -4);
    if (lda < ss_max(1, m)) return ss_arg_error(me, -5);
    if (strideA < (long)lda * n) return ss_arg_error(me, -6);
    if (!tau && batch > 0 && n > 0) return ss_arg_error(me, -7);
    if (strideTau < n) return ss_arg_error(me, -8);
    if (!B && batch > 0 && m > 0 && nrhs > 0) return ss_arg_error(me, -9);
    if (ldb < ss_max(1, m)) return ss_arg_error(me, -10);
    if (strideB < (long)ldb * nrhs) return ss_arg_error(me, -11);
    if (batch < 0) return ss_arg_error(me, -12);
    if (batch == 0 || n == 0 || nrhs == 0) return 0;
    if (ss_ensure_init()) return -1000;
    int chunk = chunk_size(4.0 * m * n * nrhs + 2.0 * m * n * n, batch), nchunks = (batch + chunk - 1) / chunk;
    starpu_data_handle_t *h = malloc((size_t)3 * nchunks * sizeof *h);
    for (int c = 0; c < nchunks; c++) {
        int first = c * chunk, count = ss_min(chunk, batch - first);
        h[3 * c] = chunk_handle((void *)A, (size_t)first * strideA, span(count, strideA, lda, m, n), sizeof *A);
        h[3 * c + 1] = chunk_handle((void *)tau, (size_t)first * strideTau, (size_t)(count - 1) * strideTau + n,
                                    sizeof *tau);
        h[3 * c + 2] = chunk_handle(B, (size_t)first * strideB, span(count, strideB, ldb, m, nrhs), sizeof *B);
        insert_zgeqrs_batch(m, n, nrhs, lda, strideA, strideTau, ldb, strideB, count, h[3 * c], h[3 * c + 1],
                            h[3 * c + 2]);
    }
    for (int i = 0; i < 3 * nchunks; i++)
        starpu_data_unregister(h[i]);
    free(h);
    return 0;
}

/* ---- variable sizes: matrix k is m[k] x n[k] at A[k] with leading dimension lda[k].
 * Each matrix is its own handle; chunks of consecutive matrices of about 20 MFLOP
 * (at least 4 per worker) are one task each, on CPU workers. */
static double one_flops(int op, int m, int n)
{
    double mm = m, nn = n, k = ss_min(m, n), big = ss_max(m, n);
    if (op == SS_BATCH_POTRF)
        return nn * nn * nn / 3;
    if (op == SS_BATCH_GEQRF)
        return 2 * big * k * k - 2 * k * k * k / 3;
    return mm * nn * k - (mm + nn) * k * k / 2 + k * k * k / 3;
}

static void vbatched_run(int op, char uplo, const int *m, const int *n, starsolve_complex64_t *const *A, const int *lda,
                         void *const *aux, size_t aux_elemsize, int *info, int batch)
{
    /* the non-empty matrices, in order; their infos land in tmp, then in info[] */
    int *idx = malloc((size_t)batch * sizeof *idx), nonempty = 0;
    double total = 0;
    for (int b = 0; b < batch; b++) {
        info[b] = 0;
        if (ss_min(m[b], n[b]) > 0) {
            idx[nonempty++] = b;
            total += one_flops(op, m[b], n[b]);
        }
    }
    int *tmp = calloc((size_t)nonempty + 1, sizeof *tmp);
    starpu_data_handle_t *hA = malloc(((size_t)nonempty + 1) * sizeof *hA);
    starpu_data_handle_t *hX = malloc(((size_t)nonempty + 1) * sizeof *hX);
    starpu_data_handle_t *hI = malloc(((size_t)nonempty + 1) * sizeof *hI);
    int workers = (int)starpu_worker_get_count(), nchunks = 0;
    double target = ss_min(2e7, total / (4.0 * workers));
    for (int p = 0; p < nonempty; p++) {
        int b = idx[p];
        hA[p] = ss_register_matrix(A[b], lda[b], m[b], n[b], sizeof **A);
        if (aux)
            hX[p] = ss_register_vector(aux[b], (size_t)ss_min(m[b], n[b]), aux_elemsize);
    }
    for (int first = 0; first < nonempty;) {
        /* a chunk: consecutive matrices up to the target flops, or the fixed chunk size */
        int last = first;
        double flops = 0;
        do {
            flops += one_flops(op, m[idx[last]], n[idx[last]]);
            last++;
        } while (last < nonempty && (ss_ctx.batch_chunk > 0 ? last - first < ss_ctx.batch_chunk : flops < target));
        hI[nchunks] = ss_register_vector(tmp + first, (size_t)(last - first), sizeof *tmp);
        insert_zvbatch(op, uplo, last - first, hA + first, aux ? hX + first : NULL, hI[nchunks], flops);
        nchunks++;
        first = last;
    }
    for (int p = 0; p < nonempty; p++) {
        starpu_data_unregister(hA[p]);   /* waits for the chunk's task */
        if (aux)
            starpu_data_unregister(hX[p]);
    }
    for (int c = 0; c < nchunks; c++)
        starpu_data_unregister(hI[c]);
    for (int p = 0; p < nonempty; p++)
        info[idx[p]] = tmp[p];
    free(idx); free(tmp); free(hA); free(hX); free(hI);
}

/* checks shared by the variable-size routines: returns 0 or the negative index of the bad argument */
static int vbatched_check(const int *m, const int *n, starsolve_complex64_t *const *A, const int *lda,
                          int has_aux, void *const *aux, const int *info, int batch, int first_arg)
{
    /* argument positions from first_arg: m, n, A, lda, [aux,] info, batch */
    if (batch < 0) return -(first_arg + 5 + has_aux);
    if (batch == 0) return 0;
    if (!m) return -first_arg;
    if (!n) return -(first_arg + 1);
    for (int b = 0; b < batch; b++) {
        if (m[b] < 0) return -first_arg;
        if (n[b] < 0) return -(first_arg + 1);
    }
    if (!A) return -(first_arg + 2);
    if (!lda) return -(first_arg + 3);
    for (int b = 0; b < batch; b++) {
        if (!A[b] && ss_min(m[b], n[b]) > 0) return -(first_arg + 2);
        if (lda[b] < ss_max(1, m[b])) return -(first_arg + 3);
    }
    if (has_aux) {
        if (!aux) return -(first_arg + 4);
        for (int b = 0; b < batch; b++)
            if (!aux[b] && ss_min(m[b], n[b]) > 0) return -(first_arg + 4);
    }
    if (!info) return -(first_arg + 4 + has_aux);
    return 0;
}

int starsolve_zgetrf_vbatched(const int *m, const int *n, starsolve_complex64_t *const *A, const int *lda,
                              int *const *ipiv, int *info, int batch)
{
    int bad = vbatched_check(m, n, A, lda, 1, (void *const *)ipiv, info, batch, 1);
    if (bad) return ss_arg_error("starsolve_zgetrf_vbatched", bad);
    if (batch == 0) return 0;
    if (ss_ensure_init()) return -1000;
    vbatched_run(SS_BATCH_GETRF, 'L', m, n, A, lda, (void *const *)ipiv, sizeof(int), info, batch);
    return 0;
}

int starsolve_zpotrf_vbatched(char uplo, const int *n, starsolve_complex64_t *const *A, const int *lda, int *info,
                              int batch)
{
    uplo = ss_upper(uplo);
    if (uplo != 'L' && uplo != 'U') return ss_arg_error("starsolve_zpotrf_vbatched", -1);
    /* n is both the rows and the columns (m = n for the checks); uplo takes m's place, so
     * A, lda, info, batch keep their positions 3, 4, 5, 6 */
    int bad = vbatched_check(n, n, A, lda, 0, NULL, info, batch, 1);
    if (bad) return ss_arg_error("starsolve_zpotrf_vbatched", bad >= -2 ? -2 : bad);
    if (batch == 0) return 0;
    if (ss_ensure_init()) return -1000;
    vbatched_run(SS_BATCH_POTRF, uplo, n, n, A, lda, NULL, 0, info, batch);
    return 0;
}

int starsolve_zgeqrf_vbatched(const int *m, const int *n, starsolve_complex64_t *const *A, const int *lda,
                              starsolve_complex64_t *const *tau, int *info, int batch)
{
    int bad = vbatched_check(m, n, A, lda, 1, (void *const *)tau, info, batch, 1);
    if (bad) return ss_arg_error("starsolve_zgeqrf_vbatched", bad);
    if (batch == 0) return 0;
    if (ss_ensure_init()) return -1000;
    vbatched_run(SS_BATCH_GEQRF, 'L', m, n, A, lda, (void *const *)tau, sizeof **tau, info, batch);
    return 0;
}
