/* Right-looking tile LU without pivoting: the textbook tile loop (the GEMMs of
 * a tile column in one task or several: starsolve_config_t.update_tiles).
 * With whole-column updates (GPUs) the TRSM of U(k,j) and the GEMMs below it
 * are one task (codelet_zgetrf_update.c), and the TRSMs of the tiles below the
 * diagonal are one task as well (codelet_ztrsm_column.c), but for the tiles
 * that the next diagonal tile's factorization waits for (look-ahead, below):
 * L(k+1,k)'s solve, U(k,k+1)'s solve and tile (k+1,k+1)'s GEMM, a task each.
 * With row classes (RBT, whose randomized matrix arrives class by class: tile
 * rows i = c mod K together, src/pzgerbt.c), those column tasks are cut into
 * one per class, so the first step's rows of class 0 are solved and updated
 * while the other classes are still uploading (bench/NOTES.md, session 34).
 *
 * Every TRSM solves with the diagonal tile's triangles themselves, not with their inverses as the LU with
 * partial pivoting and Cholesky do on GPUs: without pivoting nothing bounds
 * L(k,k) or U(k,k), and multiplying by their inverses cost accuracy. Measured
 * (bench/NOTES.md, session 24): RBT at n = 8000, nb = 1000 on 2 cores,
 * ||b - Ax|| / (||x|| ||A|| eps sqrt(n)) before refinement 5.6e5 with the
 * inverses, 29 with TRSMs (3.2e3 even with inverses of 64-wide diagonal
 * blocks); on an H100 at n = 40000, 9.1e6 against 339, and 5 refinement steps
 * against 1. */
#include <stdlib.h>
#include "algorithms.h"
#include "codelets.h"

/* The tiles of rows from, from + 1, .. < A->mt in row class c (row mod classes == c), for tile
 * column j, into out; their count */
static int rows_of_class(const starsolve_desc_t *A, int j, int from, int c, int classes, starpu_data_handle_t *out)
{
    int n = 0;
    for (int i = from; i < A->mt; i++)
        if (i % classes == c)
            out[n++] = ss_tile(A, i, j);
    return n;
}

/* A(i,j) -= L(i,k) U(k,j) for the rows i >= from of class c, in one task (none if there are no
 * such rows); lrows and rows: room for A->mt handles */
static void update_rows_of_class(starsolve_desc_t *A, int k, int j, int from, int c, int classes,
                                 starpu_data_handle_t *lrows, starpu_data_handle_t *rows, int prio)
{
    const starsolve_complex64_t one = 1.0, mone = -1.0;
    int n = rows_of_class(A, j, from, c, classes, rows);
    rows_of_class(A, k, from, c, classes, lrows);
    if (n > 0)
        insert_zgemm_tiles('N', 'N', mone, ss_tile(A, k, j), 0, n, lrows, one, rows, prio);
}

void pzgetrf_nopiv(starsolve_desc_t *A, int row_classes, starsolve_request_t *req)
{
    const starsolve_complex64_t one = 1.0, mone = -1.0;
    int kt = ss_min(A->mt, A->nt);
    ss_desc_prefetch_gpu(A, 'A');
    starpu_data_handle_t scratch = ss_scratch_buffer(ss_zgetrf_nopiv_scratch_bytes(A->nb));
    starpu_data_handle_t *lcolumn = malloc((size_t)A->mt * sizeof *lcolumn);
    starpu_data_handle_t *column = malloc((size_t)A->mt * sizeof *column);
    /* one class's L(i,k) and A(i,j) tiles (whole-column tasks split by row class) */
    starpu_data_handle_t *lclass = malloc((size_t)A->mt * sizeof *lclass);
    starpu_data_handle_t *cclass = malloc((size_t)(A->mt + 1) * sizeof *cclass);
    const int classes = row_classes > 1 ? row_classes : 1;
    int fused = ss_ctx.update_tiles > 1, panel_task = ss_column_tasks();
    for (int k = 0; k < kt; k++) {
        int panel_prio = ss_prio_panel(A->nt, k);
        starpu_data_handle_t Akk = ss_tile(A, k, k);
        insert_zgetrf_nopiv(Akk, scratch, k * A->nb, req, panel_prio);
        /* A(i,k) = A(i,k) U(k,k)^-1 for i > k */
        for (int i = k + 1; i < A->mt; i++) {
            if (!panel_task)
                insert_ztrsm_panel('R', 'U', 'N', 'N', one, Akk, ss_tile(A, i, k), panel_prio);
            lcolumn[i - k - 1] = ss_tile(A, i, k);
        }
        /* Look-ahead: tile (k+1, k+1)'s chain (its L(k+1,k) solve, U(k,k+1), its GEMM) in tasks of its
         * own, at the next panel's priority, so that the next diagonal factorization waits for them
         * alone and not for the whole column's solve and update */
        int next_prio = ss_prio_panel(A->nt, k + 1);
        if (panel_task && k + 1 < A->mt) {
            insert_ztrsm_column_solve('R', 'N', 1, lcolumn, Akk, panel_prio);
            for (int c = 0; c < classes; c++) {   /* the rest, a stacked solve per row class */
                int n = rows_of_class(A, k, k + 2, (k + c) % classes, classes, lclass);
                if (n > 0)
                    insert_ztrsm_column_solve('R', 'N', n, lclass, Akk, panel_prio);
            }
        }
        for (int j = k + 1; j < A->nt; j++) {
            int prio = ss_prio_update(A->nt, j), lookahead = j == k + 1 && k + 1 < A->mt;
            if (fused && !lookahead && classes > 1) {
                /* U(k,j) with the rows of its own class, then the other classes' GEMMs */
                cclass[0] = ss_tile(A, k, j);
                int n = rows_of_class(A, j, k + 1, k % classes, classes, cclass + 1);
                rows_of_class(A, k, k + 1, k % classes, classes, lclass);
                insert_zgetrf_update(n + 1, cclass, lclass, Akk, 0, NULL, NULL, prio);
                for (int c = 1; c < classes; c++)
                    update_rows_of_class(A, k, j, k + 1, (k + c) % classes, classes, lclass, cclass, prio);
                continue;
            }
            for (int i = k; i < A->mt; i++)
                column[i - k] = ss_tile(A, i, j);
            /* rows k .. first - 1 of the column with U(k,j), the rest after */
            int first = lookahead ? k + 2 : A->mt;
            if (fused && !lookahead) {
                insert_zgetrf_update(first - k, column, lcolumn, Akk, 0, NULL, NULL, prio);
            } else {
                /* U(k,j) = L(k,k)^-1 A(k,j). The look-ahead's, with whole-column tasks (GPUs), by the
                 * column solve's codelet (our TRSM, on the urgent stream) in a task of its own: it needs
                 * only the factored diagonal tile, so it runs beside L(k+1,k)'s solve instead of after it
                 * in one task with the GEMM below (bench/NOTES.md, session 77) */
                if (fused)
                    insert_ztrsm_column_solve('L', 'U', 1, column, Akk, next_prio);
                else
                    insert_ztrsm('L', 'L', 'N', 'U', one, Akk, ss_tile(A, k, j), lookahead ? next_prio : prio);
                /* A(i,j) -= L(i,k) U(k,j) for k < i < first */
                insert_zgemm_tiles('N', 'N', mone, ss_tile(A, k, j), 0, first - k - 1, lcolumn, one, column + 1,
                                   lookahead ? next_prio : prio);
            }
            /* A(i,j) -= L(i,k) U(k,j) for i >= first, a task per row class */
            for (int c = 0; c < classes; c++)
                update_rows_of_class(A, k, j, first, (k + c) % classes, classes, lclass, cclass, prio);
        }
        for (int i = k + 1; i < A->mt; i++)
            starpu_data_wont_use(ss_tile(A, i, k));
        /* row k of U and column k of L are final */
        for (int j = k; j < A->nt; j++)
            ss_tile_send_home(A, k, j);
        for (int i = k + 1; i < A->mt; i++)
            ss_tile_send_home(A, i, k);
    }
    ss_workspace_release(scratch);
    free(lcolumn);
    free(column);
    free(lclass);
    free(cclass);
}
