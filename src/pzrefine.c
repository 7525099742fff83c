/* Tile loops of iterative refinement: residuals and corrections as tasks, so
 * they run where the tiles are, and the norms of its stopping test: row sums
 * behind ||A||_inf and column maxima, as partial results per process of a
 * distributed descriptor (the caller combines them); and the column-wise dot
 * products, axpys and scalings of the GMRES corrections (pzgmres.c). */
#include <stdlib.h>
#include "algorithms.h"
#include "codelets.h"

/* R = R - A X. A's tiles use the first rows of X's (X may have more rows:
 * an augmented system), so X must have A's nb. */
void pzresidual(const starsolve_desc_t *A, const starsolve_desc_t *X, starsolve_desc_t *R)
{
    const starsolve_complex64_t one = 1.0, mone = -1.0;
    /* with whole-column updates (GPUs, one process): R(:, j) -= A(:, l) X(l, j) as one
     * task per update_tiles tiles of A's column l, as pztrsm's GEMMs */
    starpu_data_handle_t *Acol = ss_column_tasks() ? malloc(2 * (size_t)R->mt * sizeof *Acol) : NULL;
    for (int j = 0; j < R->nt; j++) {
        if (Acol) {
            starpu_data_handle_t *Rcol = Acol + R->mt;
            for (int i = 0; i < R->mt; i++)
                Rcol[i] = ss_tile(R, i, j);
            for (int l = 0; l < A->nt; l++) {
                for (int i = 0; i < R->mt; i++)
                    Acol[i] = ss_tile(A, i, l);
                insert_zgemm_tiles('N', 'N', mone, ss_tile(X, l, j), 0, R->mt, Acol, one, Rcol, 0);
            }
            continue;
        }
        for (int i = 0; i < R->mt; i++)
            for (int l = 0; l < A->nt; l++)
                insert_zgemm('N', 'N', mone, ss_tile(A, i, l), ss_tile(X, l, j), one, ss_tile(R, i, j), 0);
    }
    free(Acol);
}

/* B = alpha A + B, same tiling */
void pzgeadd(starsolve_complex64_t alpha, const starsolve_desc_t *A, starsolve_desc_t *B)
{
    for (int j = 0; j < B->nt; j++)
        for (int i = 0; i < B->mt; i++)
            insert_zgeadd(alpha, ss_tile(A, i, j), ss_tile(B, i, j), 0);
}

/* One task per part of a tile row (split of them, ss_rowsum_parts) and process column: each
 * reads its rows of the tiles of its row that one process holds (columns j = q, q + Q, ...), so
 * it runs there and moves no tile; the caller adds the Q partial sums of a row. */
void pzlange_rowsums(const starsolve_desc_t *A, int split, starpu_data_handle_t *sums)
{
    starpu_data_handle_t *row = malloc(((size_t)A->nt + 1) * sizeof *row);
    for (int q = 0; q < A->Q; q++)
        for (int i = 0; i < A->mt; i++) {
            int ntiles = 0;
            for (int j = q; j < A->nt; j += A->Q)
                row[ntiles++] = ss_tile(A, i, j);
            /* no tile here (Q > nt): the task still writes zeros, so every vector has a value */
            const int rows = ss_tile_rows(A, i), parts = ss_rowsum_parts(rows, split);
            for (int s = 0; s < parts; s++)
                insert_zlange_rowsums(ntiles, row, ss_rowsum_part_start(rows, parts, s),
                                      sums[((size_t)i + (size_t)q * A->mt) * split + s], 0);
        }
    free(row);
}

/* *anorm = ||A||_inf from pzlange_rowsums' vectors of one process (one process column):
 * a chain of small tasks on *anorm, each taking its vector's maximum in as the vector is
 * done (*anorm starts at 0) */
void pzlange_rowsums_max(const starsolve_desc_t *A, int split, starpu_data_handle_t *sums, starpu_data_handle_t anorm)
{
    for (int i = 0; i < A->mt; i++)
        for (int s = 0; s < ss_rowsum_parts(ss_tile_rows(A, i), split); s++)
            insert_zlange_rowsums_max(sums[(size_t)i * split + s], anorm, 0);
}

/* One task per tile column and process row, on the tiles of the first nrows rows
 * that one process holds (tile rows i = p, p + P, ...). The codelet clips its
 * tiles as if they were consecutive from the first one's row 0, to nrows: handed
 * the local count L - 1 before the last tile (global tile row r), nrows - r nb + (L - 1) nb
 * clips that last tile at global row nrows, and no other. */
void pzlange_colmax(const starsolve_desc_t *A, int nrows, starpu_data_handle_t *out)
{
    int rowtiles = ss_min(A->mt, (nrows + A->nb - 1) / A->nb);
    starpu_data_handle_t *col = malloc(((size_t)rowtiles + 1) * sizeof *col);
    for (int j = 0; j < A->nt; j++)
        for (int p = 0; p < A->P; p++) {
            int ntiles = 0, last = 0;
            for (int i = p; i < rowtiles; i += A->P) {
                col[ntiles++] = ss_tile(A, i, j);
                last = i;
            }
            int clip = ntiles ? nrows - (last - (ntiles - 1)) * A->nb : 0;
            /* no tile here (P > tile rows): the task still writes zeros */
            insert_zlange_colmax(ntiles, 1, A->nb, clip, col, out[p + (size_t)j * A->P], 0);
        }
    free(col);
}

/* B = the first B->m rows of A: zeros, then B += A (the codelets take B's rows); a
 * copy codelet would copy A's whole tile, longer than B's last one */
void pzlacpy_head(const starsolve_desc_t *A, starsolve_desc_t *B)
{
    for (int j = 0; j < B->nt; j++)
        for (int i = 0; i < B->mt; i++) {
            insert_zlaset(0.0, 0.0, ss_tile(B, i, j), 0);
            insert_zgeadd(1.0, ss_tile(A, i, j), ss_tile(B, i, j), 0);
        }
}

void pzlacpy_pad_rows(const starsolve_desc_t *A, starsolve_desc_t *B)
{
    for (int j = 0; j < B->nt; j++)
        for (int i = 0; i < B->mt; i++) {
            if (i < A->mt)
                insert_zlacpy_pad(ss_tile(A, i, j), ss_tile(B, i, j), -1, 0);
            else
                insert_zlaset(0.0, 0.0, ss_tile(B, i, j), 0);
        }
}

void pzlaset_zero(starsolve_desc_t *Y)
{
    for (int j = 0; j < Y->nt; j++)
        for (int i = 0; i < Y->mt; i++)
            insert_zlaset(0.0, 0.0, ss_tile(Y, i, j), 0);
}

/* Partial column vectors (pzlange_colmax, pzdotc_columns): one per process row p and tile column j of M,
 * ss_tile_cols(M, j) entries each, living with the tiles they come from. count such vectors: vector i's
 * part (p, j) at handle parts[i P nt + p + j P] over values + ((i P + p) nrhs + j nb) elemsize bytes. */
void pzcolumn_parts_register(const starsolve_desc_t *M, int count, void *values, size_t elemsize,
                             starpu_data_handle_t *parts)
{
    const size_t P = M->P, nrhs = M->n;
    for (size_t i = 0; i < (size_t)count; i++)
        for (int j = 0; j < M->nt; j++)
            for (size_t p = 0; p < P; p++)
                parts[(i * M->nt + j) * P + p] =
                    ss_register_vector_owned((char *)values + ((i * P + p) * nrhs + (size_t)j * M->nb) * elemsize,
                                             ss_tile_cols(M, j), elemsize, M->owner(M, (int)p, j));
}

void pzcolumn_parts_unregister(const starsolve_desc_t *M, int count, starpu_data_handle_t *parts)
{
    for (size_t h = 0; h < (size_t)count * M->P * M->nt; h++)
        starpu_data_unregister(parts[h]);
}

/* out[i nrhs + c] (width reals each) from the parts of vector i < count this process owns: their sum, or
 * their largest entry (NaN wins, as lange's). Entries of width reals (a complex dot product: 2) add
 * componentwise; the largest takes width 1. */
void pzcolumn_parts_combine(const starsolve_desc_t *M, int count, starpu_data_handle_t *parts, const double *values,
                            int width, int largest, double *out)
{
    const size_t P = M->P, nrhs = M->n, w = width;
    for (size_t e = 0; e < (size_t)count * nrhs * w; e++)
        out[e] = 0;
    for (size_t i = 0; i < (size_t)count; i++)
        for (int j = 0; j < M->nt; j++)
            for (size_t p = 0; p < P; p++) {
                if (!ss_mpi_owns(M->owner(M, (int)p, j)))
                    continue;
                starpu_data_handle_t h = parts[(i * M->nt + j) * P + p];
                starpu_data_acquire(h, STARPU_R);
                const double *v = values + ((i * P + p) * nrhs + (size_t)j * M->nb) * w;
                double *o = out + (i * nrhs + (size_t)j * M->nb) * w;
                for (size_t e = 0; e < (size_t)ss_tile_cols(M, j) * w; e++)
                    o[e] = largest ? ss_max_nan(o[e], v[e]) : o[e] + v[e];
                starpu_data_release(h);
            }
}

/* One task per tile column and process row, as pzlange_colmax: the tiles of one process */
void pzdotc_columns(const starsolve_desc_t *X, const starsolve_desc_t *Y, starpu_data_handle_t *out)
{
    starpu_data_handle_t *xs = malloc(2 * ((size_t)X->mt + 1) * sizeof *xs), *ys = xs + X->mt + 1;
    for (int j = 0; j < X->nt; j++)
        for (int p = 0; p < X->P; p++) {
            int ntiles = 0;
            for (int i = p; i < X->mt; i += X->P) {
                xs[ntiles] = ss_tile(X, i, j);
                ys[ntiles++] = ss_tile(Y, i, j);
            }
            /* no tile here (P > tile rows): the task still writes zeros */
            insert_zdotc_columns(ntiles, xs, ys, out[p + (size_t)j * X->P], 0);
        }
    free(xs);
}

void pzaxpy_columns(const starsolve_complex64_t *alpha, const starsolve_desc_t *X, starsolve_desc_t *Y)
{
    for (int j = 0; j < X->nt; j++)
        for (int i = 0; i < X->mt; i++)
            insert_zaxpy_columns(ss_tile_cols(X, j), alpha + (size_t)j * X->nb, ss_tile(X, i, j), ss_tile(Y, i, j), 0);
}

void pzscal_columns(const starsolve_complex64_t *alpha, starsolve_desc_t *Y)
{
    for (int j = 0; j < Y->nt; j++)
        for (int i = 0; i < Y->mt; i++)
            insert_zscal_columns(ss_tile_cols(Y, j), alpha + (size_t)j * Y->nb, ss_tile(Y, i, j), 0);
}
