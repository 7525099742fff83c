/* Batched LU, Cholesky and QR of `count` strided matrices in GPU memory, with
 * our panel kernels (codelets/cuda/batched.cu: LU and Cholesky panels of up to
 * 512 rows in registers, batched_regpanel.cuh) and cuBLAS strided-batched GEMMs
 * for the updates: Haidar et al.'s batched approach. Everything is queued on
 * `stream` (cuBLAS's handle must be bound to it); nothing waits for the GPU.
 * Called by the CUDA variants of codelet_zbatched.c (the worker's stream and
 * handle), by codelet_zvbatched.c's front (a lane's) and by bench/batched_gpu.c
 * (its own). When one panel holds the whole
 * matrix (small sizes), the panel kernel is the whole factorization.
 *   getrf: nested (see getrf_nest below): outer blocks of a few panels factored by
 *          halves, each panel (pivots, its swaps on its outer block's columns at once,
 *          inv(L11)) followed by U12 = inv(L11) A12 as a GEMM (into W, copied back) and
 *          A22 -= L21 U12; the outer block's pivots then reach the columns right of it at
 *          once, and its trailing update is one GEMM of the block's depth;
 *   potrf: left-looking, so that no GEMM writes the triangle LAPACK leaves alone:
 *          D = L10 L10^H and A21 -= L20 L10^H (uplo U: the conjugate transposes),
 *          then the panel kernel (diagonal block minus D, factored, and L21);
 *   geqrf: panel (reflectors, tau, explicit V and T), then A2 -= V (T^H (V^H A2)) in
 *          three GEMMs; from 256 columns nested (see ss_zbatch_geqrf_cuda): the panels of an
 *          outer block update its columns, their T merged into the block's by GEMMs, and the
 *          block's trailing update is one such product of the block's depth.
 * info[k] is LAPACK's for matrix k: zeroed here, set by the panel kernels.
 * Middle sizes (from 33: LU up to 128 in s, d, 64 in c, z; Cholesky up to 1024): the tiled
 * kernels (codelets/cuda/batched_tiled.cuh, register tiles, one block per matrix): the LU in one
 * launch; the Cholesky in one launch up to about 128 (d), else left-looking panels of 64 columns
 * (z 32): W = L(j0:n, 0:j0) L(j0:j0+jb, 0:j0)^H by one GEMM, then the tiled kernel on the panel
 * minus W (its rows below the diagonal block spread over several blocks). By default only the
 * Cholesky above order 512 in d, c, z where the panel path would narrow its panels takes them
 * (561 on; there in panels of 32 columns: 1.03-1.9x the panel path on an H200, bench/NOTES.md
 * session 51); the others ran slower than the paths below (z's Cholesky of order 33..64, the
 * default until session 51, too); STARSOLVE_BATCH_TILED_* (batched_tiled.cuh) turns them on where
 * the small-size kernel does not apply.
 * Small sizes (max(m, n) <= 32, or to 64 in s's LU and s and d's Cholesky: small_most_order in
 * codelets/cuda/batched_small.cuh; potrf square): one launch of the small-size kernel (a few
 * lanes of a warp per matrix, registers)
 * does everything, info included; for the Cholesky it comes before the tiled kernel (session 21:
 * 3.2x the vendor's at order 64 in d, where the tiled kernel gave 1.38x).
 * nb (every entry point): 0 = automatic: the small-size kernel where it applies,
 * else panel kernels of the automatic width; nb > 0 forces the panel kernels with
 * panels of nb columns, not nested unless STARSOLVE_BATCH_GETRF_NEST asks for it
 * (nb >= min(m, n): the whole matrix as one panel, the path
 * small sizes took before the small-size kernels), e.g. to compare both in one run
 * (bench/batched_gpu prints that as the "panel" column). plan_batch below makes these choices
 * once, for the workspace size and for the factorization. */
#include "codelets.h"

#ifdef STARSOLVE_USE_CUDA

/* C = alpha op(A) op(B) + beta C on every matrix; cuBLAS's strided-batched GEMM
 * in groups of at most 65535 matrices (the grid limit some of its kernels keep) */
static void gemm_batch(cublasHandle_t h, char ta, char tb, int m, int n, int k, const starsolve_complex64_t *alpha,
                        const cuDoubleComplex *A, int lda, long long sA, const cuDoubleComplex *B, int ldb,
                        long long sB, const starsolve_complex64_t *beta, cuDoubleComplex *C, int ldc, long long sC,
                        int count)
{
    if (m <= 0 || n <= 0)
        return;
    for (int first = 0; first < count; first += 65535) {
        int group = count - first < 65535 ? count - first : 65535;
        SS_CUBLAS(cublasZgemmStridedBatched(h, ss_cublas_op(ta), ss_cublas_op(tb), m, n, k,
                                            (const cuDoubleComplex *)alpha, A + (size_t)first * sA, lda, sA,
                                            B + (size_t)first * sB, ldb, sB, (const cuDoubleComplex *)beta,
                                            C + (size_t)first * sC, ldc, sC, group));
    }
}

/* pieces of the workspace, each aligned */
static void *piece(void **cursor, size_t bytes)
{
    void *p = *cursor;
    *cursor = (char *)*cursor + ss_align(bytes);
    return p;
}

/* The kernels that factor a batch of m x n matrices (nb as the entry points take it), decided
 * here once for the workspace size and for the factorization itself. */
enum batch_path { BATCH_SMALL, BATCH_TILED, BATCH_PANELS };
struct batch_plan {
    enum batch_path path;
    int jb;   /* BATCH_PANELS: the panel width (0: too wide for a block); tiled Cholesky: its panel width */
    int ch;   /* tiled Cholesky: rows of a chunk below the diagonal block */
    int nbo;  /* BATCH_PANELS, getrf and geqrf: the nested outer blocks' width (0: not nested) */
};

/* The nested LU's outer block for k columns in panels of jb: none below 96 columns, 64 up to
 * k = 128, 128 up to 512, else 256, rounded down to whole panels (0: not nested). H100, double,
 * 1 GiB (bench/NOTES.md session 23; ratio to cuBLAS, outer widths 0 / 64 / 128 / 256): k = 128
 * 2.42 / 2.48 / 2.26 / 1.86, 256 3.2 / 3.61 / 3.82 / 3.35, 512 2.58 / 3.23 / 3.74 / 3.64, 1024
 * (panels of 16) 1.56 / 2.58 / - / 3.58. Below 96, one outer block (and a sliver) factored by
 * halves only added launches: H200, session 52, not nested / nested by 64: d 64 / 72 / 80 2.76 /
 * 1.69 / 1.95 against 2.55 / 1.52 / 1.78, c 40 / 64 / 72 2.11 / 1.98 / 1.57 against 1.56 / 1.87 /
 * 1.29 (z alike); from 96 nesting gains (c 96 / 128 1.70 / 1.92 against 1.57 / 1.59).
 * STARSOLVE_BATCH_GETRF_NEST=N asks for N columns (0: not nested). */
static int getrf_nest_width(int k, int jb)
{
    const char *env = getenv("STARSOLVE_BATCH_GETRF_NEST");
    int nbo = env ? atoi(env) : k < 96 ? 0 : k <= 128 ? 64 : k <= 512 ? 128 : 256;
    nbo = nbo / jb * jb;
    return nbo > jb ? nbo : 0;
}

/* The nested QR's outer block for k columns in panels of jb: none up to k = 128, 64 columns up
 * to 256, else 128, rounded down to whole panels (0: not nested). H100, double, 1 GiB (bench/NOTES.md
 * session 23; ratio to cuBLAS, outer widths 0 / 64 / 128 / 256): k = 64 3.28 / 3.05, 128 4.54 / 4.30 /
 * 4.27, 256 9.71 / 9.98 / 9.71 / 9.18, 512 35.0 / 39.9 / 41.7 / 37.5, 1024 98 / 193 / 201 / 169.
 * STARSOLVE_BATCH_GEQRF_NEST=N asks for N columns (0: not nested). */
static int geqrf_nest_width(int k, int jb)
{
    const char *env = getenv("STARSOLVE_BATCH_GEQRF_NEST");
    int nbo = env ? atoi(env) : k <= 128 ? 0 : k <= 256 ? 64 : 128;
    nbo = nbo / jb * jb;
    return nbo > jb ? nbo : 0;
}

static struct batch_plan plan_batch(int op, int m, int n, int nb)
{
    const size_t es = sizeof(cuDoubleComplex);
    struct batch_plan p = { BATCH_PANELS, 0, 0, 0 };
    if (nb == 0 && op == SS_BATCH_GETRF && ss_cuda_zbatch_getrf_tiled_fits(m, n)) {
        p.path = BATCH_TILED;   /* the whole LU in one launch */
        return p;
    }
    if (nb == 0 && ss_cuda_batch_small_taken(op, m, n, es, SS_COMPLEX_ARITH)) {
        p.path = BATCH_SMALL;
        return p;
    }
    if (nb == 0 && op == SS_BATCH_POTRF && m == n) {
        /* above 512, where the panels below would narrow to fit their rows (d, c, z from 561), the
         * tiled kernel's panels of 32 columns instead (batched_tiled.cuh, tiled_potrf_plan) */
        const int large = n > 512 && ss_cuda_batch_panel_width(op, n, n, es, SS_COMPLEX_ARITH, 0) < ss_cuda_batch_panel_width(op, 512, 512, es, SS_COMPLEX_ARITH, 0);
        p.jb = ss_cuda_zbatch_potrf_tiled_plan(n, large, &p.ch);
        if (p.jb > 0) {
            p.path = BATCH_TILED;
            return p;
        }
    }
    p.jb = ss_cuda_batch_panel_width(op, m, n, es, SS_COMPLEX_ARITH, nb);
    /* nb > 0 (a width asked for) is not nested unless STARSOLVE_BATCH_GETRF_NEST asks for it too */
    if (op == SS_BATCH_GETRF && (nb == 0 || getenv("STARSOLVE_BATCH_GETRF_NEST")) && p.jb > 0 && ss_min(m, n) > p.jb && ss_cuda_batch_laswp_fits(m, es))
        p.nbo = getrf_nest_width(ss_min(m, n), p.jb);
    if (op == SS_BATCH_GEQRF && nb == 0 && p.jb > 0 && ss_min(m, n) > p.jb)
        p.nbo = geqrf_nest_width(ss_min(m, n), p.jb);
    return p;
}

size_t ss_zbatch_cuda_work_bytes(int op, int m, int n, int count, int nb)
{
    size_t es = sizeof(cuDoubleComplex), c = (size_t)count;
    struct batch_plan plan = plan_batch(op, m, n, nb);
    size_t jb = (size_t)plan.jb;
    if (plan.path == BATCH_SMALL || (plan.path == BATCH_TILED && op == SS_BATCH_GETRF))
        return 0;   /* one launch, no workspace */
    if (plan.path == BATCH_TILED)   /* W: L(j0:n, 0:j0) L(j0:j0+jb, 0:j0)^H of a panel; two L11 */
        return jb >= (size_t)n ? 0 : ss_align(c * (size_t)n * jb * es) + 2 * ss_align(c * jb * jb * es);
    if (jb >= (size_t)n)
        return 0;   /* one panel holds every column: no update, no workspace */
    switch (op) {
    case SS_BATCH_GETRF:   /* Linv and W (nbo x nbo, nbo x n), nested X (nbo x nbo) */
        if (plan.nbo > 0)
            return 2 * ss_align(c * plan.nbo * plan.nbo * es) + ss_align(c * plan.nbo * (size_t)n * es);
        return ss_align(c * jb * jb * es) + ss_align(c * jb * (size_t)n * es);
    case SS_BATCH_POTRF: return ss_align(c * jb * jb * es);
    case SS_BATCH_GEQRF:   /* V, T, W, W2 of the outer block (nbo = jb: not nested) */
        jb = plan.nbo > 0 ? (size_t)plan.nbo : jb;
        return ss_align(c * (size_t)m * jb * es) + ss_align(c * jb * jb * es) + 2 * ss_align(c * jb * (size_t)n * es);
    default: return 0;
    }
}

int ss_zbatch_cuda_applies(int op, int m, int n, int nb)
{
    return ss_cuda_batch_panel_width(op, m, n, sizeof(cuDoubleComplex), SS_COMPLEX_ARITH, nb) > 0;
}

/* ---- the LU by panels, nested (Haidar et al.'s recursive nested blocking): outer blocks of
 * nbo columns, each factored by halves down to the panel kernels. A panel's row moves stay
 * inside its outer block; the block's pivots reach the columns right of it at once
 * (batch_laswp) before its trailing update, a GEMM of depth nbo; every block's L columns take
 * the later blocks' pivots in one pass at the end. Each update is a TRSM through the inverted
 * diagonal block: U12 = inv(L11) A12 by a GEMM. The inverses of a block's pieces are assembled
 * from the panels' inv(L11) by GEMMs, [A 0; L21 B]^-1 = [inv(A) 0; -inv(B) L21 inv(A), inv(B)],
 * in an nbo x nbo array per matrix whose strict upper part stays zero.
 * Without nesting (nbo = 0: nb asked, or STARSOLVE_BATCH_GETRF_NEST=0) every panel is an outer
 * block of its own: its moves on every column at once, an update of depth jb. */
struct getrf_nest {
    cublasHandle_t h;
    cudaStream_t s;
    int m, n, jb, count;
    cuDoubleComplex *A;
    int lda;
    long long sA;
    int *ipiv;
    long long sP;
    int *info;
    int ob0;                /* the outer block's first column: Linv's origin */
    int c0, c1;             /* the columns the panels' row moves go to (the outer block's, nested) */
    int nbo;                /* Linv's order */
    cuDoubleComplex *Linv;  /* nbo x nbo per matrix; inv of the piece from column j0 at (j0 - ob0)(1 + nbo) */
    cuDoubleComplex *W;     /* U12 of an update, up to nbo x n per matrix */
    cuDoubleComplex *X;     /* L21 inv(A) of an assembly, up to nbo x nbo per matrix */
};

static cuDoubleComplex *nest_inv(const struct getrf_nest *g, int j0)
{
    return g->Linv + (size_t)(j0 - g->ob0) * (1 + g->nbo);
}

/* columns c..c+nc-1 after the piece j0..j0+w-1: U12 = inv(L11) A12 (through W: a GEMM cannot
 * write its input), then A22 -= L21 U12 on the rows below the piece */
static void nest_update(const struct getrf_nest *g, int j0, int w, int c, int nc)
{
    SS_CUBLAS_SCALAR const starsolve_complex64_t one = 1.0, zero = 0.0, mone = -1.0;
    const long long sL = (long long)g->nbo * g->nbo, sW = (long long)w * nc;
    cuDoubleComplex *A12 = g->A + j0 + (size_t)c * g->lda;
    gemm_batch(g->h, 'N', 'N', w, nc, w, &one, nest_inv(g, j0), g->nbo, sL, A12, g->lda, g->sA, &zero, g->W, w, sW,
               g->count);
    ss_cuda_batch_copy(sizeof *g->A, w, nc, g->W, w, sW, A12, g->lda, g->sA, g->count, g->s);
    gemm_batch(g->h, 'N', 'N', g->m - j0 - w, nc, w, &mone, g->A + (j0 + w) + (size_t)j0 * g->lda, g->lda, g->sA, g->W,
               w, sW, &one, g->A + (j0 + w) + (size_t)c * g->lda, g->lda, g->sA, g->count);
}

/* LU of columns j0..j0+w-1 (rows j0..m-1): a panel kernel, or the left half, the right half's
 * update, the right half; with need_inv, the piece's inverse in Linv */
static void nest_factor(const struct getrf_nest *g, int j0, int w, int need_inv)
{
    SS_CUBLAS_SCALAR const starsolve_complex64_t one = 1.0, zero = 0.0, mone = -1.0;
    const long long sL = (long long)g->nbo * g->nbo;
    if (w <= g->jb) {
        ss_cuda_zbatch_getrf_panel(g->m, j0, w, g->c0, g->c1, g->A, g->lda, g->sA, g->ipiv, g->sP, g->info,
                                   need_inv ? nest_inv(g, j0) : NULL, g->nbo, sL, g->count, g->s);
        return;
    }
    const int w1 = (w / 2 + g->jb - 1) / g->jb * g->jb, w2 = w - w1;   /* whole panels on the left */
    nest_factor(g, j0, w1, 1);
    nest_update(g, j0, w1, j0 + w1, w2);
    nest_factor(g, j0 + w1, w2, need_inv);
    if (!need_inv)
        return;
    /* the lower left block of the inverse: -inv(B) (L21 inv(A)), L21 rows j0+w1.. of columns j0.. */
    const long long sX = (long long)w2 * w1;
    gemm_batch(g->h, 'N', 'N', w2, w1, w1, &one, g->A + (j0 + w1) + (size_t)j0 * g->lda, g->lda, g->sA,
               nest_inv(g, j0), g->nbo, sL, &zero, g->X, w2, sX, g->count);
    gemm_batch(g->h, 'N', 'N', w2, w1, w2, &mone, nest_inv(g, j0 + w1), g->nbo, sL, g->X, w2, sX, &zero,
               nest_inv(g, j0) + w1, g->nbo, sL, g->count);
}

void ss_zbatch_getrf_cuda(cublasHandle_t h, cudaStream_t s, int m, int n, cuDoubleComplex *A, int lda, long long sA,
                          int *ipiv, long long sP, int *info, int count, int nb, void *work)
{
    struct batch_plan plan = plan_batch(SS_BATCH_GETRF, m, n, nb);
    const int k = ss_min(m, n);
    if (plan.path == BATCH_TILED) {
        ss_cuda_zbatch_getrf_tiled(m, n, A, lda, sA, ipiv, sP, info, count, s);
        return;
    }
    if (plan.path == BATCH_SMALL) {
        ss_cuda_zbatch_getrf_small(m, n, A, lda, sA, ipiv, sP, info, count, s);
        return;
    }
    STARPU_ASSERT_MSG(plan.jb > 0, "batched getrf on the GPU: %d rows do not fit in shared memory", m);
    const int nested = plan.nbo > 0, nbo = nested ? plan.nbo : plan.jb;
    void *cursor = work;
    struct getrf_nest g = { h, s, m, n, plan.jb, count, A, lda, sA, ipiv, sP, info, 0, 0, 0, nbo, NULL, NULL, NULL };
    g.Linv = piece(&cursor, (size_t)count * nbo * nbo * sizeof *A);
    g.W = piece(&cursor, (size_t)count * nbo * n * sizeof *A);
    g.X = nested ? piece(&cursor, (size_t)count * nbo * nbo * sizeof *A) : NULL;
    SS_CUDA(cudaMemsetAsync(info, 0, (size_t)count * sizeof *info, s));
    if (nested && k > plan.jb)   /* the inverses' strict upper parts */
        SS_CUDA(cudaMemsetAsync(g.Linv, 0, (size_t)count * nbo * nbo * sizeof *A, s));
    for (int ob0 = 0; ob0 < k; ob0 += nbo) {
        const int w = ss_min(nbo, k - ob0), right = n - ob0 - w;
        g.ob0 = ob0;
        g.c0 = nested ? ob0 : 0;       /* not nested: one panel, its moves on every column */
        g.c1 = nested ? ob0 + w : n;
        nest_factor(&g, ob0, w, right > 0);
        if (right <= 0)
            continue;
        if (nested)   /* the block's pivots on the columns right of it */
            ss_cuda_zbatch_laswp(m, ob0 + w, ob0, 0, ob0 + w, right, n, 1, A, lda, sA, ipiv, sP, count, s);
        nest_update(&g, ob0, w, ob0 + w, right);
    }
    if (nested && k > nbo)   /* block y's L columns take the pivots from block y + 1 on */
        ss_cuda_zbatch_laswp(m, k, nbo, nbo, 0, nbo, k, (k - 1) / nbo, A, lda, sA, ipiv, sP, count, s);
}

void ss_zbatch_potrf_cuda(cublasHandle_t h, cudaStream_t s, char uplo, int n, cuDoubleComplex *A, int lda,
                          long long sA, int *info, int count, int nb, void *work)
{
    SS_CUBLAS_SCALAR const starsolve_complex64_t one = 1.0, zero = 0.0, mone = -1.0;
    struct batch_plan plan = plan_batch(SS_BATCH_POTRF, n, n, nb);
    int upper = uplo == 'U';
    if (plan.path == BATCH_TILED) {   /* the tiled kernel: the whole matrix, or left-looking panels with one GEMM each */
        const int tjb = plan.jb, ch = plan.ch;
        void *cursor = work;
        cuDoubleComplex *W = NULL, *Ls[2] = { NULL, NULL };
        if (tjb < n) {
            W = piece(&cursor, (size_t)count * n * tjb * sizeof *A);
            Ls[0] = piece(&cursor, (size_t)count * tjb * tjb * sizeof *A);
            Ls[1] = piece(&cursor, (size_t)count * tjb * tjb * sizeof *A);
        }
        /* a panel with rows below its diagonal block leaves L11 in Ls[p % 2]; the next launch copies it in */
        for (int j0 = 0, p = 0, jb; j0 < n; j0 += jb, p++) {
            const int mr = n - j0;
            jb = ss_cuda_batch_potrf_tiled_width(n, j0, tjb);   /* the last one may be wider, never a sliver */
            long long sW = (long long)mr * jb;
            if (j0 > 0 && !upper)   /* W = L(j0:n, 0:j0) L(j0:j0+jb, 0:j0)^H */
                gemm_batch(h, 'N', 'C', mr, jb, j0, &one, A + j0, lda, sA, A + j0, lda, sA, &zero, W, mr, sW, count);
            else if (j0 > 0)        /* W = U(0:j0, j0:n)^H U(0:j0, j0:j0+jb) */
                gemm_batch(h, 'C', 'N', mr, jb, j0, &one, A + (size_t)j0 * lda, lda, sA, A + (size_t)j0 * lda, lda,
                           sA, &zero, W, mr, sW, count);
            ss_cuda_zbatch_potrf_tiled(n, j0, jb, ch, upper, A, lda, sA, j0 > 0 ? W : NULL, mr > jb ? Ls[p % 2] : NULL,
                                       j0 > 0 ? Ls[(p + 1) % 2] : NULL, j0 - tjb, tjb, info, count, s);
        }
        return;
    }
    if (plan.path == BATCH_SMALL) {
        ss_cuda_zbatch_potrf_small(n, upper, A, lda, sA, info, count, s);
        return;
    }
    const int jbmax = plan.jb;
    STARPU_ASSERT_MSG(jbmax > 0, "batched potrf on the GPU: order %d does not fit in shared memory", n);
    cuDoubleComplex *D = work;
    SS_CUDA(cudaMemsetAsync(info, 0, (size_t)count * sizeof *info, s));
    for (int j0 = 0, jb; j0 < n; j0 += jb) {
        /* no one-column last panel: its D, cuBLAS's batched GEMM of one row and one column, was
         * slow (H200, session 52: order 33 in z with panels of 16 0.96x cuSOLVER, 34 2.70x): the
         * panel before it takes a column less */
        jb = ss_min(jbmax, n - j0);
        if (n - j0 - jb == 1 && jb > 1)
            jb--;
        int rest = n - j0 - jb;
        long long sD = (long long)jb * jb;
        if (j0 > 0 && !upper) {        /* L10 = A(j0:j0+jb, 0:j0), L20 = A(j0+jb:n, 0:j0) */
            gemm_batch(h, 'N', 'C', jb, jb, j0, &one, A + j0, lda, sA, A + j0, lda, sA, &zero, D, jb, sD, count);
            gemm_batch(h, 'N', 'C', rest, jb, j0, &mone, A + j0 + jb, lda, sA, A + j0, lda, sA, &one,
                        A + (j0 + jb) + (size_t)j0 * lda, lda, sA, count);
        } else if (j0 > 0) {           /* U01 = A(0:j0, j0:j0+jb), U02 = A(0:j0, j0+jb:n) */
            gemm_batch(h, 'C', 'N', jb, jb, j0, &one, A + (size_t)j0 * lda, lda, sA, A + (size_t)j0 * lda, lda, sA,
                        &zero, D, jb, sD, count);
            gemm_batch(h, 'C', 'N', jb, rest, j0, &mone, A + (size_t)j0 * lda, lda, sA, A + (size_t)(j0 + jb) * lda,
                        lda, sA, &one, A + j0 + (size_t)(j0 + jb) * lda, lda, sA, count);
        }
        ss_cuda_zbatch_potrf_panel(n, j0, jb, upper, A, lda, sA, j0 > 0 ? D : NULL, info, count, s);
    }
}

/* QR by outer blocks of nbo columns (Haidar et al.'s nested blocking): inside a block, each
 * panel (reflectors into the block's V, its larft T on the block's T diagonal) updates the
 * block's later columns with A2 -= V T^H V^H A2; the block's T is then assembled from the
 * panels' by recursive halves (larft_merge), and the block's trailing update is one such
 * product of depth nbo. nbo = jb: one panel a block. */
static void geqrf_apply(cublasHandle_t h, int mr, int w, int c, int nc, cuDoubleComplex *A, int lda, long long sA,
                        const cuDoubleComplex *V, int ldv, long long sV, const cuDoubleComplex *T, int ldt, long long sT,
                        cuDoubleComplex *W, cuDoubleComplex *W2, int j0, int count)
{
    SS_CUBLAS_SCALAR const starsolve_complex64_t one = 1.0, zero = 0.0, mone = -1.0;
    cuDoubleComplex *A2 = A + j0 + (size_t)c * lda;   /* rows j0.., columns c..c+nc-1: Q^H A2 = (I - V T^H V^H) A2 */
    const long long sW = (long long)w * nc;
    gemm_batch(h, 'C', 'N', w, nc, mr, &one, V, ldv, sV, A2, lda, sA, &zero, W, w, sW, count);
    gemm_batch(h, 'C', 'N', w, nc, w, &one, T, ldt, sT, W, w, sW, &zero, W2, w, sW, count);
    gemm_batch(h, 'N', 'N', mr, nc, w, &mone, V, ldv, sV, W2, w, sW, &one, A2, lda, sA, count);
}

/* larft by recursive halves, from the panels' T already on the diagonal of T (ld ldt): the
 * block's columns p..p+w-1 take T12 = -T11 (V1^H V2) T22 for their halves V1, V2 (three GEMMs;
 * V2 is zero above its first row, so the product runs over the rows from there). W, W2: scratch. */
static void larft_merge(cublasHandle_t h, const cuDoubleComplex *V, int ldv, long long sV, cuDoubleComplex *T, int ldt,
                        long long sT, cuDoubleComplex *W, cuDoubleComplex *W2, int p, int w, int jb, int count)
{
    SS_CUBLAS_SCALAR const starsolve_complex64_t one = 1.0, zero = 0.0, mone = -1.0;
    if (w <= jb)
        return;
    const int w1 = (w / 2 + jb - 1) / jb * jb, w2 = w - w1, q = p + w1;   /* whole panels on the left */
    larft_merge(h, V, ldv, sV, T, ldt, sT, W, W2, p, w1, jb, count);
    larft_merge(h, V, ldv, sV, T, ldt, sT, W, W2, q, w2, jb, count);
    const long long sG = (long long)w1 * w2;
    gemm_batch(h, 'C', 'N', w1, w2, ldv - q, &one, V + q + (size_t)p * ldv, ldv, sV, V + q + (size_t)q * ldv, ldv, sV,
               &zero, W, w1, sG, count);
    gemm_batch(h, 'N', 'N', w1, w2, w1, &one, T + p + (size_t)p * ldt, ldt, sT, W, w1, sG, &zero, W2, w1, sG, count);
    gemm_batch(h, 'N', 'N', w1, w2, w2, &mone, W2, w1, sG, T + q + (size_t)q * ldt, ldt, sT, &zero,
               T + p + (size_t)q * ldt, ldt, sT, count);
}

void ss_zbatch_geqrf_cuda(cublasHandle_t h, cudaStream_t s, int m, int n, cuDoubleComplex *A, int lda, long long sA,
                          cuDoubleComplex *tau, long long sT, int *info, int count, int nb, void *work)
{
    struct batch_plan plan = plan_batch(SS_BATCH_GEQRF, m, n, nb);
    const int k = ss_min(m, n), jb = plan.jb, nbo = plan.nbo > 0 ? plan.nbo : plan.jb;
    if (plan.path == BATCH_SMALL) {
        ss_cuda_zbatch_geqrf_small(m, n, A, lda, sA, tau, sT, info, count, s);
        return;
    }
    STARPU_ASSERT_MSG(jb > 0, "batched geqrf on the GPU: %d rows do not fit in shared memory", m);
    void *cursor = work;
    cuDoubleComplex *V = piece(&cursor, (size_t)count * m * nbo * sizeof *A);
    cuDoubleComplex *T = piece(&cursor, (size_t)count * nbo * nbo * sizeof *A);
    cuDoubleComplex *W = piece(&cursor, (size_t)count * nbo * n * sizeof *A);
    cuDoubleComplex *W2 = piece(&cursor, (size_t)count * nbo * n * sizeof *A);
    SS_CUDA(cudaMemsetAsync(info, 0, (size_t)count * sizeof *info, s));   /* a QR does not fail */
    for (int ob0 = 0; ob0 < k; ob0 += nbo) {
        const int w = ss_min(nbo, k - ob0), mo = m - ob0, right = n - ob0 - w;
        const long long sV = (long long)mo * w, sTm = (long long)w * w;
        if (w > jb) {   /* V's zeros above a later panel's rows, T's below its diagonal */
            SS_CUDA(cudaMemsetAsync(V, 0, (size_t)count * sV * sizeof *A, s));
            SS_CUDA(cudaMemsetAsync(T, 0, (size_t)count * sTm * sizeof *A, s));
        }
        for (int j0 = ob0; j0 < ob0 + w; j0 += jb) {
            const int b = ss_min(jb, ob0 + w - j0), p = j0 - ob0, inner = ob0 + w - j0 - b;
            cuDoubleComplex *Vj = V + p + (size_t)p * mo, *Tj = T + p + (size_t)p * w;
            const int want = inner > 0 || right > 0;
            ss_cuda_zbatch_geqrf_panel(m, j0, b, A, lda, sA, tau, sT, want ? Vj : NULL, mo, sV, want ? Tj : NULL, w,
                                       sTm, count, s);
            if (inner > 0)   /* the block's later columns */
                geqrf_apply(h, m - j0, b, j0 + b, inner, A, lda, sA, Vj, mo, sV, Tj, w, sTm, W, W2, j0, count);
        }
        if (right > 0) {   /* the block's T from its panels', then its trailing update of depth w */
            larft_merge(h, V, mo, sV, T, w, sTm, W, W2, 0, w, jb, count);
            geqrf_apply(h, mo, w, ob0 + w, right, A, lda, sA, V, mo, sV, T, w, sTm, W, W2, ob0, count);
        }
    }
}

#endif
