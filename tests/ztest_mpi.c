/* Distributed factorizations and solves (StarPU-MPI, 2D block-cyclic tiles) of
 * one precision. Generic source, turned into s, d, c, z by scripts/genprec.sh.
 * Every process runs the same calls (tests/test_mpi.sh starts 4 under mpirun);
 * process 0 generates the matrix, scatters it, gathers the factors and judges
 * them with the same scaled residuals as the one-process tests (<= 30):
 * Cholesky, LU without and with pivoting, their solves, QR, and the RBT solver. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <lapacke.h>
/* gen/tests/ has no testing.h: found as $(srcdir)/include/../tests/testing.h */
#include "../tests/testing.h"

enum { ROOT = 0 };

/* 'P' Cholesky (HPD matrix), 'N' LU without pivoting (diagonally dominant), 'G' LU with partial pivoting */
static void generate(char op, int n, starsolve_complex64_t *A, int lda, unsigned seed)
{
    if (op == 'P') {
        gen_zhpd(n, A, lda, seed);
        return;
    }
    gen_zmatrix(n, n, A, lda, seed);
    if (op == 'N')
        for (int j = 0; j < n; j++)
            A[j + (size_t)j * lda] += n;
}

static int factor(char op, starsolve_desc_t *A, starsolve_pivots_t *piv, starsolve_request_t *req)
{
    switch (op) {
    case 'P': return starsolve_zpotrf_tile_async('L', A, req);
    case 'N': return starsolve_zgetrf_nopiv_tile_async(A, req);
    default: return starsolve_zgetrf_tile_async(A, piv, req);
    }
}

static int solve(char op, starsolve_desc_t *A, starsolve_pivots_t *piv, starsolve_desc_t *B, starsolve_request_t *req)
{
    /* getrs without pivots is the solve of LU without pivoting: identity pivots */
    return op == 'P' ? starsolve_zpotrs_tile_async('L', A, B, req) : starsolve_zgetrs_tile_async('N', A, piv, B, req);
}

/* One factorization and solve of an n x n matrix in nb tiles over a P x Q grid. */
static void dist_case(char op, int n, int nrhs, int nb, int P, int Q, unsigned seed)
{
    int me = starsolve_mpi_rank(), lda = n + 2, ldb = n + 1;
    starsolve_complex64_t *A0 = NULL, *F = NULL, *B0 = NULL, *X = NULL;
    int *ipiv = testing_alloc((size_t)n * sizeof *ipiv);
    if (me == ROOT) {
        A0 = test_znew_matrix(lda, n);
        F = test_znew_matrix(lda, n);
        B0 = test_znew_matrix(ldb, nrhs);
        X = test_znew_matrix(ldb, nrhs);
        generate(op, n, A0, lda, seed);
        gen_zmatrix(n, nrhs, B0, ldb, seed + 1);
    }
    starsolve_desc_t *A = NULL, *B = NULL;
    starsolve_pivots_t *piv = NULL;
    int info = starsolve_desc_create_dist(&A, STARSOLVE_Z, n, n, nb, P, Q);
    info = info ? info : starsolve_desc_create_dist(&B, STARSOLVE_Z, n, nrhs, nb, P, Q);
    info = info ? info : starsolve_pivots_create(&piv, A);
    if (!TEST_CHECK(info == 0, "%c n=%d nb=%d grid %dx%d: descriptors: %d", op, n, nb, P, Q, info))
        goto out;
    if (op == 'N') {   /* getrs of an unpivoted LU: identity pivots, set by every process on its copy */
        for (int k = 0; k < n; k++)
            ipiv[k] = k + 1;
        starsolve_pivots_from_lapack(piv, ipiv);
    }
    starsolve_desc_scatter(A, A0, lda, ROOT);
    starsolve_desc_scatter(B, B0, ldb, ROOT);
    starsolve_request_t *req = starsolve_request_create();
    int submitted = factor(op, A, piv, req);
    /* wait in between, as the drivers do: every message of the factorization must
     * complete on its own (LU's deferred swaps of L once left one waiting forever) */
    int finfo = starsolve_request_wait(req);
    submitted = submitted ? submitted : solve(op, A, piv, B, req);
    info = starsolve_request_wait(req);
    info = finfo ? finfo : info;
    starsolve_request_destroy(req);
    starsolve_desc_gather(A, F, lda, ROOT);
    starsolve_desc_gather(B, X, ldb, ROOT);
    if (op == 'G')
        starsolve_pivots_gather(piv, ipiv, ROOT);
    if (me == ROOT) {
        double rf = op == 'P' ? check_zpotrf('L', n, A0, lda, F, lda, 1)
                              : check_zgetrf(n, n, A0, lda, F, lda, op == 'G' ? ipiv : NULL, 1);
        double rs = check_zsolve('N', n, nrhs, A0, lda, X, ldb, B0, ldb);
        TEST_CHECK(submitted == 0 && info == 0 && check_passes(rf) && check_passes(rs),
                   "%c n=%d nrhs=%d nb=%d grid %dx%d: submit %d, info %d, factor %.3g, solve %.3g", op, n, nrhs, nb,
                   P, Q, submitted, info, rf, rs);
    }
out:
    starsolve_pivots_destroy(piv);
    starsolve_desc_destroy(B);
    starsolve_desc_destroy(A);
    free(A0); free(F); free(B0); free(X); free(ipiv);
}

/* LU with partial pivoting of an n x n matrix over a P x Q grid against LAPACK's getrf on the same
 * matrix: the same pivots (the search spans every process of a tile column: pzgetrf.c) and, with
 * column zero_col zeroed (-1: none), the same info (the first zero pivot), the factorization still
 * completing as LAPACK's does. */
static void dist_pivots(int n, int nb, int zero_col, int P, int Q, unsigned seed)
{
    int me = starsolve_mpi_rank(), lda = n + 1;
    starsolve_complex64_t *A0 = NULL, *F = NULL, *L = NULL;
    int *ipiv = testing_alloc((size_t)n * sizeof *ipiv), *lpiv = testing_alloc((size_t)n * sizeof *lpiv);
    if (me == ROOT) {
        A0 = test_znew_matrix(lda, n);
        F = test_znew_matrix(lda, n);
        L = test_znew_matrix(lda, n);
        gen_zmatrix(n, n, A0, lda, seed);
        for (int i = 0; i < n && zero_col >= 0; i++)
            A0[i + (size_t)zero_col * lda] = 0;
    }
    starsolve_desc_t *A = NULL;
    starsolve_pivots_t *piv = NULL;
    int info = starsolve_desc_create_dist(&A, STARSOLVE_Z, n, n, nb, P, Q);
    info = info ? info : starsolve_pivots_create(&piv, A);
    if (!TEST_CHECK(info == 0, "pivots n=%d nb=%d grid %dx%d: descriptors: %d", n, nb, P, Q, info))
        goto out;
    starsolve_desc_scatter(A, A0, lda, ROOT);
    starsolve_request_t *req = starsolve_request_create();
    int submitted = starsolve_zgetrf_tile_async(A, piv, req);
    info = starsolve_request_wait(req);
    starsolve_request_destroy(req);
    starsolve_desc_gather(A, F, lda, ROOT);
    starsolve_pivots_gather(piv, ipiv, ROOT);
    if (me == ROOT) {
        memcpy(L, A0, (size_t)lda * n * sizeof *L);
        int linfo = LAPACKE_zgetrf_work(LAPACK_COL_MAJOR, n, n, L, lda, lpiv);
        int first_diff = -1;
        for (int i = 0; i < n && first_diff < 0; i++)
            if (ipiv[i] != lpiv[i])
                first_diff = i;
        double rf = check_zgetrf(n, n, A0, lda, F, lda, ipiv, 1);
        TEST_CHECK(submitted == 0 && info == linfo && info == zero_col + 1 && first_diff < 0 && check_passes(rf),
                   "getrf n=%d nb=%d grid %dx%d, column %d zero: info %d (LAPACK %d), first pivot unlike LAPACK's %d "
                   "(-1: none), factor %.3g", n, nb, P, Q, zero_col, info, linfo, first_diff, rf);
    }
out:
    starsolve_pivots_destroy(piv);
    starsolve_desc_destroy(A);
    free(A0); free(F); free(L); free(ipiv); free(lpiv);
}

/* QR of an m x n matrix over a P x Q grid: geqrf, then Q formed by ungqr (both
 * distributed like A, T too), judged by ||A - QR|| and ||I - Q^H Q||. */
static void dist_qr(int m, int n, int nb, int P, int Q, unsigned seed)
{
    int me = starsolve_mpi_rank(), lda = m + 1, k = m < n ? m : n;
    starsolve_complex64_t *A0 = NULL, *F = NULL, *Qm = NULL;
    if (me == ROOT) {
        A0 = test_znew_matrix(lda, n);
        F = test_znew_matrix(lda, n);
        Qm = test_znew_matrix(lda, k);
        gen_zmatrix(m, n, A0, lda, seed);
    }
    starsolve_desc_t *A = NULL, *T = NULL, *Qd = NULL;
    int info = starsolve_desc_create_dist(&A, STARSOLVE_Z, m, n, nb, P, Q);
    info = info ? info : starsolve_qr_workspace_create(&T, A);
    info = info ? info : starsolve_desc_create_dist(&Qd, STARSOLVE_Z, m, k, nb, P, Q);
    if (TEST_CHECK(info == 0, "QR m=%d n=%d nb=%d grid %dx%d: descriptors: %d", m, n, nb, P, Q, info)) {
        starsolve_desc_scatter(A, A0, lda, ROOT);
        starsolve_request_t *req = starsolve_request_create();
        int submitted = starsolve_zgeqrf_tile_async(A, T, req);
        /* wait in between, as the drivers do: the factorization's last messages (tiles
         * written on another process going home) must complete with no ungqr task behind them */
        int finfo = starsolve_request_wait(req);
        submitted = submitted ? submitted : starsolve_zungqr_tile_async(A, T, Qd, req);
        info = starsolve_request_wait(req);
        info = finfo ? finfo : info;
        starsolve_request_destroy(req);
        starsolve_desc_gather(A, F, lda, ROOT);
        starsolve_desc_gather(Qd, Qm, lda, ROOT);
        if (me == ROOT) {
            double orth, r = check_zgeqrf(m, n, A0, lda, F, lda, Qm, lda, &orth);
            TEST_CHECK(submitted == 0 && info == 0 && check_passes(r) && check_passes(orth),
                       "QR m=%d n=%d nb=%d grid %dx%d: submit %d, info %d, ||A-QR|| %.3g, ||I-Q^H Q|| %.3g", m, n, nb,
                       P, Q, submitted, info, r, orth);
        }
    }
    starsolve_desc_destroy(Qd);
    starsolve_desc_destroy(T);
    starsolve_desc_destroy(A);
    free(A0); free(F); free(Qm);
}

/* The RBT solver over a P x Q grid, A and B distributed alike: the solve residual
 * of the one-process tests (<= 30) within max_refine steps, A as it was. With a NaN
 * in A (nan_at >= 0: its column-major index) no iterate meets the criterion: info
 * n + 1 after max_refine steps, the same on every process (the stopping test reads
 * norms combined over the processes; a process deciding otherwise would hang). */
static void dist_rbt(int n, int nrhs, int nb, int depth, int max_refine, int P, int Q, long nan_at, unsigned seed)
{
    int me = starsolve_mpi_rank(), lda = n + 1, ldb = n + 2, iters = -1;
    starsolve_complex64_t *A0 = NULL, *Aback = NULL, *B0 = NULL, *X = NULL;
    if (me == ROOT) {
        A0 = test_znew_matrix(lda, n);
        Aback = test_znew_matrix(lda, n);
        B0 = test_znew_matrix(ldb, nrhs);
        X = test_znew_matrix(ldb, nrhs);
        gen_zmatrix(n, n, A0, lda, seed);
        gen_zmatrix(n, nrhs, B0, ldb, seed + 1);
        if (nan_at >= 0)
            A0[nan_at % n + nan_at / n * lda] = NAN;
    }
    starsolve_desc_t *A = NULL, *B = NULL;
    int info = starsolve_desc_create_dist(&A, STARSOLVE_Z, n, n, nb, P, Q);
    info = info ? info : starsolve_desc_create_dist(&B, STARSOLVE_Z, n, nrhs, nb, P, Q);
    if (TEST_CHECK(info == 0, "RBT n=%d nb=%d grid %dx%d: descriptors: %d", n, nb, P, Q, info)) {
        starsolve_desc_scatter(A, A0, lda, ROOT);
        starsolve_desc_scatter(B, B0, ldb, ROOT);
        info = starsolve_zgesv_rbt_tile(A, B, depth, max_refine, &iters, NULL);
        starsolve_desc_gather(A, Aback, lda, ROOT);
        starsolve_desc_gather(B, X, ldb, ROOT);
        if (me == ROOT && nan_at >= 0) {
            TEST_CHECK(info == n + 1 && iters == max_refine,
                       "RBT n=%d nb=%d depth=%d grid %dx%d, a NaN in A: info %d (want n+1 = %d), iters %d (want %d)", n,
                       nb, depth, P, Q, info, n + 1, iters, max_refine);
        } else if (me == ROOT) {
            double r = check_zsolve('N', n, nrhs, A0, lda, X, ldb, B0, ldb);
            TEST_CHECK(info == 0 && check_passes(r) && iters >= 0 && iters <= max_refine
                           && test_zsame_matrix(n, n, Aback, lda, A0, lda),
                       "RBT n=%d nrhs=%d nb=%d depth=%d grid %dx%d: info %d, iters %d, ||b-Ax||/(||A|| ||x|| n eps) %.3g, "
                       "A %s", n, nrhs, nb, depth, P, Q, info, iters, r,
                       test_zsame_matrix(n, n, Aback, lda, A0, lda) ? "unchanged" : "changed");
        }
    }
    starsolve_desc_destroy(B);
    starsolve_desc_destroy(A);
    free(A0); free(Aback); free(B0); free(X);
}

/* The RBT solver's bad arguments, the same on every process */
static void rbt_bad_arguments(int P, int Q)
{
    starsolve_desc_t *A = NULL, *B = NULL, *Bnb = NULL;
    int info = starsolve_desc_create_dist(&A, STARSOLVE_Z, 20, 20, 8, P, Q);
    info = info ? info : starsolve_desc_create_dist(&B, STARSOLVE_Z, 20, 2, 8, P, Q);
    info = info ? info : starsolve_desc_create_dist(&Bnb, STARSOLVE_Z, 20, 2, 4, P, Q);
    if (TEST_CHECK(info == 0, "RBT arguments, grid %dx%d: descriptors: %d", P, Q, info)) {
        int wide = starsolve_zgesv_rbt_tile(B, B, 2, 5, NULL, NULL);
        int other_nb = starsolve_zgesv_rbt_tile(A, Bnb, 2, 5, NULL, NULL);
        int depth = starsolve_zgesv_rbt_tile(A, B, 5, 5, NULL, NULL);   /* 2^5 > n = 20 */
        int refine = starsolve_zgesv_rbt_tile(A, B, 2, -1, NULL, NULL);
        TEST_CHECK(wide == -1 && other_nb == -2 && depth == -3 && refine == -4,
                   "gesv_rbt_tile grid %dx%d: A not square %d (want -1), B of another nb %d (-2), depth 5 %d (-3), "
                   "max_refine -1 %d (-4)", P, Q, wide, other_nb, depth, refine);
    }
    starsolve_desc_destroy(Bnb);
    starsolve_desc_destroy(B);
    starsolve_desc_destroy(A);
}

/* A grid that does not match the processes is a bad argument, on every process. */
static void bad_grid(void)
{
    starsolve_desc_t *A = NULL;
    int size = starsolve_mpi_size();
    int info = starsolve_desc_create_dist(&A, STARSOLVE_Z, 10, 10, 4, size + 1, 1);
    TEST_CHECK(info == -6 && !A, "desc_create_dist with a %dx1 grid on %d processes: %d", size + 1, size, info);
    info = starsolve_desc_create_dist(&A, STARSOLVE_Z, 10, 10, 4, 0, size);
    TEST_CHECK(info == -6 && !A, "desc_create_dist with P = 0: %d", info);
    info = starsolve_desc_create_dist(&A, STARSOLVE_Z, 10, 10, 0, 1, size);
    TEST_CHECK(info == -5 && !A, "desc_create_dist with nb = 0: %d", info);
    /* a bad argument that root alone can see fails on every process, with no hang */
    starsolve_complex64_t X[10 * 10] = { 0 };
    info = starsolve_desc_create_dist(&A, STARSOLVE_Z, 10, 10, 4, size, 1);
    if (TEST_CHECK(info == 0, "desc_create_dist 10 x 10: %d", info)) {
        int small_lda = starsolve_desc_scatter(A, starsolve_mpi_rank() == ROOT ? X : NULL, 5, ROOT);
        int bad_root = starsolve_desc_gather(A, X, 10, size);
        TEST_CHECK(small_lda == -3 && bad_root == -4, "scatter with lda 5 < m: %d; gather to process %d: %d", small_lda,
                   size, bad_root);
    }
    starsolve_desc_destroy(A);
}

int test_zmpi(void)
{
    long failed_before = testing_counts.failed;
    int size = starsolve_mpi_size();
    bad_grid();
    TEST_CHECK(starsolve_set_mpi_gather_panel(2) == -1 && starsolve_get_mpi_gather_panel() == 0,
               "starsolve_set_mpi_gather_panel(2) refused, the default (0) kept");
    /* every factorization on a row, a square and a column of processes, with
     * orders that nb divides and ones it does not (partial last tiles) */
    int grids[3][2] = { { 1, size }, { 0, 0 }, { size, 1 } };
    for (int p = 2; p * p <= size; p++)
        if (size % p == 0) {
            grids[1][0] = p;
            grids[1][1] = size / p;
        }
    for (int g = 0; g < 3; g++) {
        int P = grids[g][0], Q = grids[g][1];
        if (P == 0)
            continue;
        /* The LU solves with the panel gathered on one process: the distributed panel (the default) takes
         * four message hops per column, and with four processes sharing two cores (and make check running
         * another test beside) each hop waits for the kernel to schedule a spinning thread (bench/NOTES.md,
         * session 16): the pivot checks below give it every grid and precision, on fewer columns. */
        starsolve_set_mpi_gather_panel(1);
        for (const char *op = "PNG"; *op; op++) {
            dist_case(*op, 100, 3, 32, P, Q, 11);
            dist_case(*op, 64, 1, 16, P, Q, 12);
            dist_case(*op, 7, 2, 16, P, Q, 13);   /* one tile: nb > n */
        }
        starsolve_set_mpi_gather_panel(0);
        dist_pivots(50, 16, -1, P, Q, 21);   /* partial last tile */
        dist_pivots(50, 16, 37, P, Q, 22);   /* a zero pivot inside a panel */
        dist_pivots(40, 16, 0, P, Q, 23);    /* at the very first column */
        starsolve_set_mpi_gather_panel(1);
        dist_pivots(70, 16, 37, P, Q, 24);   /* the gathered panel: the same pivots */
        dist_qr(100, 60, 16, P, Q, 14);   /* tall, partial tiles */
        dist_qr(40, 40, 16, P, Q, 15);
        /* full tiles above OpenMPI's shared-memory eager limit (4 KB; 6.4 KB in single
         * precision at nb = 40): a tile that tpqrt or tpmqrt writes on another process goes
         * home by a message whose receive must be posted before it completes (issue 10: the
         * hang on grids of several process rows) */
        dist_qr(170, 130, 48, P, Q, 16);   /* last tile column 34 wide: its tpqrt moves 6.5 KB and more */
        dist_qr(90, 150, 40, P, Q, 17);    /* wide */
        /* RBT: orders that neither nb nor 2^depth divides (the augmented matrix pads them),
         * nrhs > 1, tiles above the eager limit (nb 40: 12.8 KB in double, 6.4 KB in single);
         * the butterflies' tile pairs and quadruples span process rows and columns */
        dist_rbt(150, 3, 40, 2, 10, P, Q, -1, 18);    /* N = 160: 4 x 4 tiles */
        dist_rbt(203, 2, 40, 1, 10, P, Q, -1, 19);    /* N = 240: 6 x 6 tiles, 3 per butterfly half */
        dist_rbt(90, 1, 32, 2, 3, P, Q, 3 + 5 * 90, 20);   /* a NaN in A: no convergence, everywhere */
        rbt_bad_arguments(P, Q);
    }
    starsolve_set_mpi_gather_panel(0);
    return (int)(testing_counts.failed - failed_before);
}
