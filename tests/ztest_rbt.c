/* RBT solver tests of one precision (generic source, see scripts/genprec.sh).
 *
 * gesv_rbt on random matrices (depths 1 to 7, sizes that 2^depth and nb do not
 * divide, n = 1, nb > n, nrhs > 1, lda and ldb > n) must meet the solve
 * residual bound of checks/ (<= 30) with at most max_refine refinement steps,
 * leave A and the padding rows untouched. A matrix with a zero leading block
 * breaks LU without pivoting (depth 0: info 1, B untouched) but not RBT; a
 * padded Fiedler matrix is solved, the same way at 2^20 times its size; Ris and
 * Kahan, where classical refinement stalls, are solved by the GMRES corrections, and
 * where those stall too (Ris at n = 1000) refinement stops before max_refine; a
 * NaN in A gives info n+1 (no convergence); bad arguments give LAPACK's negative info. Deep butterflies
 * (depths 4-7) with levels inside the tiles solve random matrices, and Ris at n = 1000 at depth 5. */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "../tests/testing.h"

static void rbt_random(int n, int nrhs, int nb, int depth, int pad, unsigned seed)
{
    int lda = n + pad, ldb = n + pad + 1, iters = -1, max_refine = 10;
    starsolve_complex64_t *A0 = test_znew_matrix(lda, n), *A = test_znew_matrix(lda, n);
    starsolve_complex64_t *B0 = test_znew_matrix(ldb, nrhs), *X = test_znew_matrix(ldb, nrhs);
    gen_zmatrix(n, n, A0, lda, seed);
    gen_zmatrix(n, nrhs, B0, ldb, seed + 1);
    test_zcopy_matrix(n, n, A0, lda, A, lda);
    test_zcopy_matrix(n, nrhs, B0, ldb, X, ldb);
    testing_set_nb(nb);
    int info = starsolve_zgesv_rbt(n, nrhs, A, lda, X, ldb, depth, max_refine, &iters);
    double r = check_zsolve('N', n, nrhs, A0, lda, X, ldb, B0, ldb);
    TEST_CHECK(info == 0 && check_passes(r) && iters >= 0 && iters <= max_refine,
               "starsolve_zgesv_rbt n=%d nrhs=%d nb=%d depth=%d lda=%d: info = %d, iters = %d, "
               "||b-Ax||/(||A|| ||x|| n eps) = %.3g", n, nrhs, nb, depth, lda, info, iters, r);
    TEST_CHECK(test_zsame_matrix(lda, n, A, lda, A0, lda) && test_zpad_intact(n, nrhs, X, ldb),
               "starsolve_zgesv_rbt n=%d depth=%d: changed A, or rows n..ldb-1 of B", n, depth);
    free(A0); free(A); free(B0); free(X);
}

/* ||b - Ax|| / (||A|| ||x|| n eps) of RBT of depth `depth` without refinement (max_refine 0: B gets
 * the first solution) with update_tiles tiles per update task */
static double rbt_unrefined(int n, int nb, int depth, int update_tiles, unsigned seed)
{
    starsolve_complex64_t *A = test_znew_matrix(n, n), *B0 = test_znew_matrix(n, 1), *X = test_znew_matrix(n, 1);
    gen_zmatrix(n, n, A, n, seed);
    gen_zmatrix(n, 1, B0, n, seed + 1);
    test_zcopy_matrix(n, 1, B0, n, X, n);
    testing_set_nb(nb);
    starsolve_set_update_tiles(update_tiles);
    int iters = -1, info = starsolve_zgesv_rbt(n, 1, A, n, X, n, depth, 0, &iters);
    double r = check_zsolve('N', n, 1, A, n, X, n, B0, n);
    TEST_CHECK((info == 0 || info == n + 1) && iters == 0, "starsolve_zgesv_rbt n=%d max_refine=0: info = %d, iters = %d",
               n, info, iters);
    free(A); free(B0); free(X);
    return r;
}

/* The whole-column tasks that GPUs run (starsolve_config_t.update_tiles) must factor as
 * accurately as the tile tasks: LU without pivoting solves with its diagonal tiles'
 * triangles there too, not with their inverses, which nothing bounds without pivoting
 * (src/pzgetrf_nopiv.c; at n = 1000, nb = 250 the inverses left residuals 47-800x larger).
 * Compared over six matrices (geometric means), not one: an unrefined residual of LU without
 * pivoting swings with the rounding, and with CUDA workers the tasks land on CPU or GPU kernels by
 * the scheduler's choice, so one matrix's two runs differed by up to 100x either way on two H200s
 * (single, n = 1200; 0.01-25x over 192 pairs), while the means of six stayed within 4x (bench/NOTES.md,
 * session 49). On CPU workers alone the two runs agree to the last bit. */
static void rbt_column_tasks_accuracy(int n, int nb)
{
    enum { MATRICES = 6 };
    double log_tiles = 0, log_columns = 0;
    for (unsigned m = 0; m < MATRICES; m++) {
        log_tiles += log(fmax(rbt_unrefined(n, nb, 2, 1, 700 + 2 * m), 1e-300));   /* an exact 0 would be -inf */
        log_columns += log(fmax(rbt_unrefined(n, nb, 2, 1000, 700 + 2 * m), 1e-300));
    }
    double tiles = exp(log_tiles / MATRICES), columns = exp(log_columns / MATRICES);
    TEST_CHECK(columns <= 10 * tiles, "starsolve_zgesv_rbt n=%d nb=%d, no refinement, %d matrices: geometric mean "
               "residual %.3g with whole-column tasks against %.3g with tile tasks", n, nb, MATRICES, columns, tiles);
    starsolve_set_update_tiles(0);
}

/* Butterfly levels inside the tiles must randomize as the levels on whole tiles do: the same order
 * N = n = 256 at depth 4 with tiles of 16 rows (every level on tiles) and of 64 (levels 2 and 3 inside
 * them), no refinement (which hides a wrong transformation: with the deep levels' right-hand-side
 * entries swapped, test_rbt passed with refinement), geometric means over four matrices within 10x. */
static void rbt_deep_levels_unrefined(void)
{
    enum { MATRICES = 4, N = 256, DEPTH = 4, NB_TILES = 16, NB_INSIDE = 64 };
    TEST_CHECK(starsolve_rbt_order(N, DEPTH, NB_TILES) == N && starsolve_rbt_order(N, DEPTH, NB_INSIDE) == N,
               "starsolve_rbt_order(%d, %d, %d / %d) = %ld / %ld (want %d)", N, DEPTH, NB_TILES, NB_INSIDE,
               starsolve_rbt_order(N, DEPTH, NB_TILES), starsolve_rbt_order(N, DEPTH, NB_INSIDE), N);
    double log_tiles = 0, log_inside = 0;
    for (unsigned m = 0; m < MATRICES; m++) {
        log_tiles += log(fmax(rbt_unrefined(N, NB_TILES, DEPTH, 0, 720 + 2 * m), 1e-300));
        log_inside += log(fmax(rbt_unrefined(N, NB_INSIDE, DEPTH, 0, 720 + 2 * m), 1e-300));
    }
    double tiles = exp(log_tiles / MATRICES), inside = exp(log_inside / MATRICES);
    TEST_CHECK(inside <= 10 * tiles && tiles <= 10 * inside,
               "starsolve_zgesv_rbt n=%d depth %d, no refinement, %d matrices: geometric mean residual %.3g with "
               "levels inside %d-row tiles against %.3g on %d-row tiles", N, DEPTH, MATRICES, inside, NB_INSIDE,
               tiles, NB_TILES);
}

/* A(1:k, 1:k) = 0: the first pivot of LU without pivoting is exactly zero */
static void rbt_zero_block(int n, int nb)
{
    int k = n / 4 > 1 ? n / 4 : 1, iters;
    starsolve_complex64_t *A0 = test_znew_matrix(n, n), *A = test_znew_matrix(n, n);
    starsolve_complex64_t *B0 = test_znew_matrix(n, 2), *X = test_znew_matrix(n, 2);
    gen_zmatrix(n, n, A0, n, 41);
    for (int j = 0; j < k; j++)
        for (int i = 0; i < k; i++)
            A0[i + (size_t)j * n] = 0;
    gen_zmatrix(n, 2, B0, n, 42);
    testing_set_nb(nb);
    test_zcopy_matrix(n, n, A0, n, A, n);
    test_zcopy_matrix(n, 2, B0, n, X, n);
    int info = starsolve_zgesv_rbt(n, 2, A, n, X, n, 0, 5, &iters);
    TEST_CHECK(info == 1 && test_zsame_matrix(n, 2, X, n, B0, n),
               "starsolve_zgesv_rbt depth 0 (no randomization), n=%d, zero leading %d x %d block: info = %d (want 1), "
               "B %s", n, k, k, info, test_zsame_matrix(n, 2, X, n, B0, n) ? "untouched" : "changed");
    info = starsolve_zgesv_rbt(n, 2, A, n, X, n, 2, 10, &iters);
    double r = check_zsolve('N', n, 2, A0, n, X, n, B0, n);
    TEST_CHECK(info == 0 && check_passes(r),
               "starsolve_zgesv_rbt depth 2, n=%d, zero leading block: info = %d, iters = %d, resid = %.3g",
               n, info, iters, r);
    free(A0); free(A); free(B0); free(X);
}

/* Where F is padded (n = 126, depth 2, nb 32: N = 128), diag(A, alpha I) with alpha from
 * ||A||_inf (src/zgesv_rbt.c):
 *  - the Fiedler matrix |i - j| must be solved: with ones (alpha = 1) it was not, at every
 *    n = 2 mod 4 (info n + 1, backward error ~1e-10; bench/NOTES.md, session 70);
 *  - 2^20 A must give 2^-20 times A's solution, bit for bit on CPU workers (every operation
 *    scales exactly; with ones it did not). With GPUs the tasks land on CPU or GPU kernels by
 *    the scheduler's choice, so only the residuals are checked there. */
static void rbt_padded_scale(int n, int nb)
{
    const double scale = 0x1.0p20;
    starsolve_complex64_t *A0 = test_znew_matrix(n, n), *A = test_znew_matrix(n, n), *B0 = test_znew_matrix(n, 1);
    starsolve_complex64_t *X = test_znew_matrix(n, 1), *Xscaled = test_znew_matrix(n, 1);
    TEST_CHECK(gen_zgallery("fiedler", n, A0, n, 1) == 0, "gen_zgallery fiedler");
    gen_zmatrix(n, 1, B0, n, 71);
    testing_set_nb(nb);
    int iters;
    test_zcopy_matrix(n, 1, B0, n, X, n);
    int info = starsolve_zgesv_rbt(n, 1, A0, n, X, n, 2, 5, &iters);
    double r = check_zsolve('N', n, 1, A0, n, X, n, B0, n);
    TEST_CHECK(info == 0 && check_passes(r), "starsolve_zgesv_rbt Fiedler n=%d nb=%d depth 2 (padded): info = %d, "
               "iters = %d, ||b-Ax||/(||A|| ||x|| n eps) = %.3g", n, nb, info, iters, r);
    for (size_t i = 0; i < (size_t)n * n; i++)
        A[i] = scale * A0[i];
    test_zcopy_matrix(n, 1, B0, n, Xscaled, n);
    int info_scaled = starsolve_zgesv_rbt(n, 1, A, n, Xscaled, n, 2, 5, &iters);
    double r_scaled = check_zsolve('N', n, 1, A, n, Xscaled, n, B0, n);
    TEST_CHECK(info_scaled == 0 && check_passes(r_scaled), "starsolve_zgesv_rbt 2^20 Fiedler n=%d: info = %d, resid = %.3g",
               n, info_scaled, r_scaled);
    if (starsolve_ngpus() == 0) {
        int same = 1;
        for (int i = 0; i < n; i++)
            same &= scale * Xscaled[i] == X[i];
        TEST_CHECK(same, "starsolve_zgesv_rbt n=%d padded: the solution for 2^20 A is not 2^-20 times A's", n);
    }
    free(A0); free(A); free(B0); free(X); free(Xscaled);
}

/* A NaN in A: no iterate can meet the criterion, so info = n + 1, never 0
 * (a nearly singular matrix is no such test: a backward-stable x of huge norm
 * meets the criterion, as with LAPACK's gesv) */
static void rbt_nan(int n, int nb)
{
    int iters;
    starsolve_complex64_t *A = test_znew_matrix(n, n), *X = test_znew_matrix(n, 1);
    gen_zmatrix(n, n, A, n, 51);
    gen_zmatrix(n, 1, X, n, 52);
    A[3 + (size_t)5 * n] = NAN;
    testing_set_nb(nb);
    int info = starsolve_zgesv_rbt(n, 1, A, n, X, n, 2, 3, &iters);
    TEST_CHECK(info == n + 1 && iters == 3, "starsolve_zgesv_rbt n=%d with a NaN in A: info = %d (want n+1 = %d), iters = %d (want 3)",
               n, info, n + 1, iters);
    free(A); free(X);
}

/* Where classical refinement stalls, the GMRES corrections (src/pzgmres.c) must meet the criterion within
 * max_refine steps: Ris at n = 200 (depth 2: LU without pivoting of the randomized matrix still grows by
 * ~1e15, classical refinement stayed at backward errors ~0.2 and the first solution is poor, so the first
 * correction is GMRES; 3 steps: single precision took 3, double 1), Kahan at n = 97 in N = 100 (a classical
 * step, then GMRES; classical refinement took 3 steps). B's columns: random, zero (x = 0 is exact from the start and must stay out of GMRES: it
 * must come back exactly 0 with info 0), random.
 * must_converge 0: where the factors keep no correct digit (Ris's growth of 1e15 in single precision, eps 6e-8),
 * GMRES preconditioned by them converges or stalls as the rounding goes (3 steps with one CPU's BLAS kernels, a
 * stall after 2 with an AVX-512 CPU's): then it must do one or the other, a stall reported as info n + 1 before
 * max_refine steps, the zero column still exactly 0. */
static void rbt_gmres(const char *kind, int n, int nb, int max_refine, int must_converge)
{
    enum { NRHS = 3 };
    int iters = -1;
    starsolve_complex64_t *A0 = test_znew_matrix(n, n), *A = test_znew_matrix(n, n);
    starsolve_complex64_t *B0 = test_znew_matrix(n, NRHS), *X = test_znew_matrix(n, NRHS);
    TEST_CHECK(gen_zgallery(kind, n, A0, n, 1) == 0, "gen_zgallery %s", kind);
    gen_zmatrix(n, NRHS, B0, n, 81);
    for (int i = 0; i < n; i++)
        B0[i + (size_t)n] = 0;
    test_zcopy_matrix(n, n, A0, n, A, n);
    test_zcopy_matrix(n, NRHS, B0, n, X, n);
    testing_set_nb(nb);
    int info = starsolve_zgesv_rbt(n, NRHS, A, n, X, n, 2, max_refine, &iters);
    /* the residual ratio of each nonzero column (the zero one's would be 0 / 0) */
    double r = fmax(check_zsolve('N', n, 1, A0, n, X, n, B0, n),
                    check_zsolve('N', n, 1, A0, n, X + 2 * (size_t)n, n, B0 + 2 * (size_t)n, n));
    int zero = 1;
    for (int i = 0; i < n; i++)
        zero &= X[i + (size_t)n] == 0;
    int converged = info == 0 && check_passes(r) && iters <= max_refine;
    int stalled = info == n + 1 && iters < max_refine;
    TEST_CHECK(zero && (converged || (!must_converge && stalled)),
               "starsolve_zgesv_rbt %s n=%d nb=%d depth 2, max_refine %d: info = %d, iters = %d, "
               "||b-Ax||/(||A|| ||x|| n eps) = %.3g, the zero column's x %s (want info 0 and a residual that passes%s)",
               kind, n, nb, max_refine, info, iters, r, zero ? "zero" : "not zero",
               must_converge ? "" : ", or info n+1 with fewer than max_refine steps");
    free(A0); free(A); free(B0); free(X);
}

/* Where GMRES stalls too (Ris at n = 1000, nb 64, depth 2 on CPU workers: backward errors ~1e-11 however
 * many steps), a GMRES correction that does not halve the residual ends the refinement with info n + 1 (as
 * LAPACK's xGERFS stops), before max_refine: each correction is up to 50 solves and products with A. Where
 * the rounding lets it converge instead (other tile sizes did, and GPU kernels round otherwise), the solution
 * must be good; where the rounding breaks LU without pivoting down instead (single precision with an AVX-512
 * CPU's BLAS kernels: U(64,64) exactly 0), info says where, before any correction: so either way, never
 * max_refine corrections that gain nothing. */
static void rbt_gmres_stall(int n, int nb)
{
    const int max_refine = 12;
    int iters = -1;
    starsolve_complex64_t *A = test_znew_matrix(n, n), *B = test_znew_matrix(n, 1), *X = test_znew_matrix(n, 1);
    TEST_CHECK(gen_zgallery("ris", n, A, n, 1) == 0, "gen_zgallery ris");
    gen_zmatrix(n, 1, B, n, 91);
    test_zcopy_matrix(n, 1, B, n, X, n);
    testing_set_nb(nb);
    int info = starsolve_zgesv_rbt(n, 1, A, n, X, n, 2, max_refine, &iters);
    double r = info == 0 ? check_zsolve('N', n, 1, A, n, X, n, B, n) : 0;
    TEST_CHECK((info == n + 1 && iters < max_refine) || (info == 0 && check_passes(r)) ||
               (info >= 1 && info <= n && iters == 0),
               "starsolve_zgesv_rbt ris n=%d nb=%d depth 2, max_refine %d: info = %d, iters = %d (want info n+1 with "
               "fewer than max_refine steps, info 0 and a residual that passes: %.3g, or a zero pivot before any "
               "step)", n, nb, max_refine, info, iters, r);
    free(A); free(B); free(X);
}

/* Ris at n = 1000 fails at depth 2 (rbt_gmres_stall) but not at depth 5, with tiles of 256 rows and levels
 * 2-4 inside them (when every butterfly half had to be whole tiles, depth 5 meant tiles of 32 rows: twice
 * as long on 2 cores at n = 4096, depth 6): at most 2 refinement steps (single precision took 2, the others 1). */
static void rbt_deep_ris(int n, int nb, int depth)
{
    enum { NRHS = 2 };
    const int max_refine = 2;
    int iters = -1;
    starsolve_complex64_t *A = test_znew_matrix(n, n), *B = test_znew_matrix(n, NRHS), *X = test_znew_matrix(n, NRHS);
    TEST_CHECK(gen_zgallery("ris", n, A, n, 1) == 0, "gen_zgallery ris");
    gen_zmatrix(n, NRHS, B, n, 95);
    test_zcopy_matrix(n, NRHS, B, n, X, n);
    testing_set_nb(nb);
    const int tile = starsolve_get_nb_rbt(n, depth);
    int info = starsolve_zgesv_rbt(n, NRHS, A, n, X, n, depth, max_refine, &iters);
    double r = check_zsolve('N', n, NRHS, A, n, X, n, B, n);
    TEST_CHECK(info == 0 && check_passes(r) && starsolve_rbt_order(n, depth, tile) / tile < (1L << depth),
               "starsolve_zgesv_rbt ris n=%d depth %d, tiles of %d (order %ld), max_refine %d: info = %d, iters = %d, "
               "||b-Ax||/(||A|| ||x|| n eps) = %.3g", n, depth, tile, starsolve_rbt_order(n, depth, tile), max_refine,
               info, iters, r);
    free(A); free(B); free(X);
}

static void rbt_bad_arguments(void)
{
    starsolve_complex64_t A[4] = { 1, 0, 0, 1 }, B[2] = { 1, 1 };
    int iters;
    struct { int n, nrhs, lda, ldb, depth, refine, want; } c[] = {
        { -1, 1, 2, 2, 2, 1, -1 }, { 2, -1, 2, 2, 2, 1, -2 }, { 2, 1, 1, 2, 2, 1, -4 },
        { 2, 1, 2, 1, 2, 1, -6 }, { 2, 1, 2, 2, -1, 1, -7 }, { 2, 1, 2, 2, 2, -1, -8 },
        /* depths past starsolve_rbt_depth_valid: 2^3 > n = 2, and 8 > STARSOLVE_RBT_MAX_DEPTH */
        { 2, 1, 2, 2, 3, 1, -7 }, { 2, 1, 2, 2, 8, 1, -7 },
    };
    for (size_t t = 0; t < sizeof c / sizeof c[0]; t++) {
        int info = starsolve_zgesv_rbt(c[t].n, c[t].nrhs, A, c[t].lda, B, c[t].ldb, c[t].depth, c[t].refine, &iters);
        TEST_CHECK(info == c[t].want, "starsolve_zgesv_rbt(n=%d nrhs=%d lda=%d ldb=%d depth=%d max_refine=%d) = %d, want %d",
                   c[t].n, c[t].nrhs, c[t].lda, c[t].ldb, c[t].depth, c[t].refine, info, c[t].want);
    }
    TEST_CHECK(starsolve_zgesv_rbt(2, 1, NULL, 2, B, 2, 2, 1, &iters) == -3, "starsolve_zgesv_rbt with A = NULL: -3");
    TEST_CHECK(starsolve_zgesv_rbt(2, 1, A, 2, NULL, 2, 2, 1, &iters) == -5, "starsolve_zgesv_rbt with B = NULL: -5");
    TEST_CHECK(starsolve_zgesv_rbt(0, 1, A, 1, B, 1, 2, 1, NULL) == 0, "starsolve_zgesv_rbt n = 0, iters NULL: 0");
    /* the depth rule at its edges: 2 for any order, more while 2^depth <= n, never past the maximum */
    TEST_CHECK(starsolve_rbt_depth_valid(1, 2) && starsolve_rbt_depth_valid(8, 3) && !starsolve_rbt_depth_valid(7, 3)
                   && starsolve_rbt_depth_valid(1 << 20, STARSOLVE_RBT_MAX_DEPTH)
                   && !starsolve_rbt_depth_valid(1 << 20, STARSOLVE_RBT_MAX_DEPTH + 1) && !starsolve_rbt_depth_valid(100, -1),
               "starsolve_rbt_depth_valid: (1,2) (8,3) valid; (7,3), (2^20, max + 1), (100, -1) not");
}

/* starsolve_get_nb_rbt's padding: N = starsolve_rbt_order covers n. With every butterfly half k
 * whole tiles (N = 2^depth k nb), by less than 2^depth (k + 1) rows (4 times that with CUDA workers,
 * whose tiles are a multiple of 4 rows: odd ones made cuBLAS's GEMMs a third slower); with the deep
 * levels inside the tiles (N = 2^L nb, depth > 2 only), by less than two of the tiles' steps (the
 * deeper blocks' 2^(depth - L) rows, or 4) a tile, nb a multiple of that step and at most the library's
 * tile size (plus a step where that would pad by one). With butterflies (depth >= 1) never by exactly
 * one (a pad of one lined them up with the sine transform's period, n + 1: orthog failed for every
 * draw; src/context.c) */
static void rbt_tile_size_padding(void)
{
    const long align = starsolve_ngpus() > 0 ? 4 : 1;
    int bad = 0;
    for (int n = 1; n <= 3000 && bad < 3; n++)
        for (int depth = 0; starsolve_rbt_depth_valid(n, depth); depth++) {
            long parts = 1L << depth, nb = starsolve_get_nb_rbt(n, depth), q = (n + parts - 1) / parts;
            long k = (q + nb - 1) / nb, N = starsolve_rbt_order(n, depth, (int)nb), tiles = N / nb;
            int wrong;
            if (N == parts * k * nb) {
                wrong = N - n >= align * parts * (k + 1) || (nb % align != 0 && nb + align <= starsolve_get_nb());
            } else {
                long step = parts / tiles > align ? parts / tiles : align;
                wrong = depth <= 2 || N % nb != 0 || tiles >= parts || nb % step != 0 || N - n >= 2 * step * tiles
                        || nb > starsolve_get_nb_for(STARSOLVE_GETRF_NOPIV, n) + step;
            }
            if (wrong || N < n || (depth >= 1 && N == n + 1L)) {
                TEST_CHECK(0, "starsolve_get_nb_rbt(%d, %d) = %ld: order %ld (pad %ld, %ld tiles a side)", n, depth, nb,
                           N, N - n, tiles);
                bad++;
            }
        }
    TEST_CHECK(bad == 0, "starsolve_get_nb_rbt's padding over n = 1 .. 3000");
}

int test_zrbt(void)
{
    long before = testing_counts.failed;
    static const struct { int n, nrhs, nb, depth, pad; } c[] = {
        { 1, 1, 32, 2, 0 }, { 7, 2, 32, 2, 1 }, { 100, 1, 16, 1, 0 }, { 100, 3, 16, 2, 2 },
        { 257, 2, 32, 2, 0 }, { 257, 1, 32, 3, 1 }, { 300, 4, 64, 2, 0 }, { 64, 1, 128, 2, 0 },
        /* deep levels inside the tiles (starsolve_rbt_order): N = 304 in 38-row tiles, level 3 inside them
         * (halves of 19 rows); N = 320 in 80-row tiles, levels 2-5 inside; one 128-row tile, all 5 levels
         * inside; 1000 in 4 tiles, levels 2-6 inside */
        { 300, 2, 64, 4, 1 }, { 257, 2, 128, 6, 0 }, { 100, 3, 256, 5, 2 }, { 1000, 1, 256, 7, 0 },
    };
    for (size_t t = 0; t < sizeof c / sizeof c[0]; t++)
        rbt_random(c[t].n, c[t].nrhs, c[t].nb, c[t].depth, c[t].pad, 500 + (unsigned)t);
    /* the GPU's whole-column tasks on CPU workers (the solves' and residuals' GEMMs by
     * tile columns, starsolve_config_t.update_tiles), then the automatic choice again */
    static const int update_tiles[] = { 3, 1000 };
    for (size_t u = 0; u < sizeof update_tiles / sizeof update_tiles[0]; u++) {
        TEST_CHECK(starsolve_set_update_tiles(update_tiles[u]) == 0, "starsolve_set_update_tiles(%d)", update_tiles[u]);
        /* F's row classes (tile row mod nt / 2^depth, src/pzgetrf_nopiv.c): 2 at depth 2 here, 3, 6 at depth 1,
         * 2 at depth 3 */
        rbt_random(100, 3, 16, 2, 2, 600 + 10 * (unsigned)u);
        rbt_random(257, 2, 32, 2, 0, 601 + 10 * (unsigned)u);
        rbt_random(300, 2, 25, 1, 1, 602 + 10 * (unsigned)u);
        rbt_random(257, 1, 32, 3, 0, 603 + 10 * (unsigned)u);
        rbt_random(300, 2, 64, 4, 1, 604 + 10 * (unsigned)u);   /* a level inside the tiles */
    }
    TEST_CHECK(starsolve_set_update_tiles(0) == 0, "starsolve_set_update_tiles(0)");
    rbt_column_tasks_accuracy(1200, 300);
    rbt_column_tasks_accuracy(1200, 150);   /* 8 tiles a side, 2 row classes */
    rbt_zero_block(120, 32);
    rbt_padded_scale(126, 32);
    rbt_nan(90, 32);
    rbt_gmres("ris", 200, 32, 3, 1e15 * DBL_EPSILON < 1);   /* growth 1e15 (rbt_gmres) */
    rbt_gmres("kahan", 97, 32, 2, 1);
    rbt_gmres_stall(1000, 64);
    rbt_deep_ris(1000, 256, 5);
    rbt_deep_levels_unrefined();
    rbt_bad_arguments();
    rbt_tile_size_padding();
    return (int)(testing_counts.failed - before);
}
