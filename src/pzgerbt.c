/* Random butterfly transformation of a tiled matrix and of right-hand sides
 * (Baboulin, Khabou, Remy). A recursive butterfly of depth d applies, at level
 * l = 0 .. d-1, one butterfly to each block of order N / 2^l; the two halves of
 * a block are whole tiles (the caller picks N and nb so), so each butterfly
 * is a set of tasks on tile quadruples (matrix) or tile pairs (right-hand
 * sides). u[l] and v[l]: level l's packed diagonals (codelets/codelet_zgerbt.c).
 * Deep levels whose blocks are smaller than a tile (F of 2^L tiles a side, L < depth:
 * ss_rbt_tile_levels) act inside each tile instead (insert_zgerbt_local): the tile
 * size then need not shrink with the depth.
 *
 * U = W_0 W_1 ... W_{d-1} (level 0: the whole matrix), and likewise V, so
 *     U^T A V   applies level 0 first, then level 1, ...;
 *     U^T b     the same order;
 *     V y       the last level first. */
#include "algorithms.h"
#include "codelets.h"

/* The butterflies of level l that touch tile class (r, g) (see pzgerbt_copy):
 * the tile quadruples whose top row ti and left column tj, within their block, are
 * r and g mod k */
static void butterflies_of_class(starsolve_desc_t *A, int l, int r, int g, int k, starpu_data_handle_t *u,
                                 starpu_data_handle_t *v, int prio)
{
    int nb = A->nb;
    int h = (A->m >> l) / 2, ht = h / nb, nblocks = 1 << l;
    for (int bj = 0; bj < nblocks; bj++)
        for (int tj = g; tj < ht; tj += k)
            for (int bi = 0; bi < nblocks; bi++)
                for (int ti = r; ti < ht; ti += k) {
                    int i = bi * 2 * ht + ti, j = bj * 2 * ht + tj;
                    insert_zgerbt(ss_tile(A, i, j), ss_tile(A, i, j + ht), ss_tile(A, i + ht, j),
                                  ss_tile(A, i + ht, j + ht), u[l], v[l], i * nb, j * nb, h, prio);
                }
}

/* Levels l and l+1 at once (insert_zgerbt2) where they touch tile class (r, g): the 16-tile
 * sets of a level-l block whose first tile row ti and column tj, within the block, are r and
 * g mod k. The offsets q (level l+1's half in tiles) and ht (level l's) are multiples of k,
 * so all 16 tiles are of class (r, g). */
static void fused_butterflies_of_class(starsolve_desc_t *A, int l, int r, int g, int k, starpu_data_handle_t *u,
                                       starpu_data_handle_t *v, int prio)
{
    int nb = A->nb;
    int h = (A->m >> l) / 2, ht = h / nb, q = ht / 2, nblocks = 1 << l;
    const int off[4] = { 0, q, ht, ht + q };
    for (int bj = 0; bj < nblocks; bj++)
        for (int tj = g; tj < q; tj += k)
            for (int bi = 0; bi < nblocks; bi++)
                for (int ti = r; ti < q; ti += k) {
                    int i = bi * 2 * ht + ti, j = bj * 2 * ht + tj;
                    starpu_data_handle_t tiles[16];
                    for (int a = 0; a < 4; a++)
                        for (int b = 0; b < 4; b++)
                            tiles[4 * a + b] = ss_tile(A, i + off[a], j + off[b]);
                    insert_zgerbt2(tiles, u[l], v[l], u[l + 1], v[l + 1], i * nb, j * nb, h, prio);
                }
}

/* Tile (i, j) of F = diag(A, I): tile (i, j) of A where there is one, with the identity's
 * diagonal where F's global diagonal index reaches A's order. As tasks: the copy runs on
 * every core, and on a GPU the task uploads A's tile from main memory itself
 * (lacpy_pad_upload). */
static void copy_tile_augmented(const starsolve_desc_t *A, starsolve_desc_t *F, int i, int j, int prio)
{
    int nb = F->nb;
    /* first local diagonal index of this tile at or beyond A's order, if it is a diagonal tile */
    int pad_from = i == j ? ss_max(0, A->n - i * nb) : -1;
    if (i < A->mt && j < A->nt)
        insert_zlacpy_pad_upload(ss_tile(A, i, j), ss_tile(F, i, j), pad_from, prio);
    else
        insert_zlaset(0.0, i == j ? 1.0 : 0.0, ss_tile(F, i, j), prio);
}

/* F is built by classes of tiles. Every butterfly pairs tile rows i and i + h/nb, and
 * columns j and j + h/nb, and h/nb is a multiple of k = F->nt / 2^L (the smallest whole-tile
 * butterfly's half, L = ss_rbt_tile_levels; deeper levels stay inside tiles), so tile (i, j)
 * of the result mixes only the tiles (i', j') of A with i' = i and j' = j (mod k): class
 * (r, g) = (i mod k, j mod k) can be copied and randomized on its own. The classes go
 * column group by column group, and within group g row class by row class, class
 * c = g k + r with priority -1 - c: below the factorization's (>= 0), so that a ready
 * update runs before a later class's copy, and decreasing with c, so that A's tiles are
 * fetched class by class. The factorization's first column can then start once a k-th of
 * A has arrived (on a GPU: uploaded) and randomized, instead of after all of it
 * (bench/NOTES.md, session 13), and its first panel once a k^2-th has; the updates of F's
 * rows of class 0 in the next column group start before that group's other rows are up
 * (session 34). Classes touch disjoint tiles, so submitting every copy before any
 * butterfly gives the same task graph as interleaving them.
 * With CUDA workers the classes' tasks rank above the factorization's instead (its highest is
 * ss_prio_panel(nt, 0)), still decreasing with c: the uploads run on one CUDA worker per GPU
 * (ss_cuda_worker_uploads), and that worker took a ready update between two of them, so
 * the bus stood still while the update ran (n = 40000 on an H200: the last class's uploads
 * waited 33 ms, then the GPU 34 ms for them). Ahead of the updates, the uploads keep the bus busy
 * until all of A is up: at 40000 the call 11-13 ms shorter, at 20000 within its spread (two A/B
 * runs on H200s, bench/NOTES.md, session 76). */
static int class_priority(const starsolve_desc_t *F, int g, int r, int k)
{
    const int c = g * k + r;
    return starpu_cuda_worker_get_count() > 0 ? ss_prio_panel(F->nt, 0) + 1 + (k * k - 1 - c) : -1 - c;
}

void pzgerbt_copy(const starsolve_desc_t *A, starsolve_desc_t *F, int depth)
{
    int k = ss_rbt_tile_classes(F->nt, depth);
    for (int g = 0; g < k; g++)
        for (int r = 0; r < k; r++)
            for (int j = g; j < F->nt; j += k)
                for (int i = r; i < F->mt; i += k)
                    copy_tile_augmented(A, F, i, j, class_priority(F, g, r, k));
}

/* F's padded diagonal (the identity of pzgerbt_copy) becomes alpha I (from ||A||_inf in anorm) */
void pzgerbt_pad_diagonal(const starsolve_desc_t *A, starsolve_desc_t *F, int depth, starpu_data_handle_t anorm)
{
    int nb = F->nb, k = ss_rbt_tile_classes(F->nt, depth);
    for (int i = A->n / nb; i < F->mt; i++)
        insert_zlaset_pad_diagonal(ss_tile(F, i, i), ss_max(0, A->n - i * nb), anorm, A->n,
                                   class_priority(F, i % k, i % k, k));
}

/* F = U^T F V, class by class (pzgerbt_copy), levels two at a time: half the passes over the tiles.
 * A itself goes to the GPU (for the refinement's residuals) once F's last class is done. */
void pzgerbt_butterflies(const starsolve_desc_t *A, starsolve_desc_t *F, int depth, starpu_data_handle_t *u,
                         starpu_data_handle_t *v)
{
    const int levels = ss_rbt_tile_levels(F->nt, depth), k = F->nt >> levels;   /* ss_rbt_tile_classes */
    for (int g = 0; g < k; g++)
        for (int r = 0; r < k; r++)
            for (int l = 0; l < levels; l += 2) {
                if (l + 1 < levels)
                    fused_butterflies_of_class(F, l, r, g, k, u, v, class_priority(F, g, r, k));
                else
                    butterflies_of_class(F, l, r, g, k, u, v, class_priority(F, g, r, k));
            }
    /* the deeper levels, tile by tile (one class: k = 1) */
    for (int j = 0; j < F->nt; j++)
        for (int i = 0; i < F->mt; i++)
            for (int l = levels; l < depth; l++)
                insert_zgerbt_local(ss_tile(F, i, j), u[l], v[l], i * F->nb, j * F->nb, (F->m >> l) / 2,
                                    class_priority(F, 0, 0, k));
    /* F's last tile: of the last class, after all its butterflies */
    ss_desc_prefetch_gpu_after(A, ss_tile(F, F->mt - 1, F->nt - 1), 2);
}

/* Level l of the butterflies on B's rows: on tile pairs, or inside each tile where its blocks are smaller */
static void rhs_level(int transposed, starsolve_desc_t *B, int l, int tile_level, starpu_data_handle_t u)
{
    int nb = B->nb, h = (B->m >> l) / 2;
    if (!tile_level) {
        for (int i = 0; i < B->mt; i++)
            for (int j = 0; j < B->nt; j++)
                insert_zgerbt_rhs_local(ss_tile(B, i, j), u, i * nb, h, transposed, 0);
        return;
    }
    int ht = h / nb, nblocks = 1 << l;
    for (int bi = 0; bi < nblocks; bi++)
        for (int ti = 0; ti < ht; ti++)
            for (int j = 0; j < B->nt; j++) {
                int i = bi * 2 * ht + ti;
                insert_zgerbt_rhs(ss_tile(B, i, j), ss_tile(B, i + ht, j), u, i * nb, h, transposed, 0);
            }
}

void pzgerbt_rhs(int transposed, starsolve_desc_t *B, int depth, starpu_data_handle_t *u)
{
    const int levels = ss_rbt_tile_levels(B->mt, depth);
    for (int s = 0; s < depth; s++) {
        int l = transposed ? s : depth - 1 - s;
        rhs_level(transposed, B, l, l < levels, u[l]);
    }
}

/* B = V (L U)^-1 U^T B, L U = F from pzgetrf_nopiv: the solve with the randomized matrix, and the
 * refinement's preconditioner */
void pzgerbt_solve(const starsolve_desc_t *F, starsolve_desc_t *B, int depth, starpu_data_handle_t *u,
                   starpu_data_handle_t *v)
{
    pzgerbt_rhs(1, B, depth, u);
    pztrsm('L', 'N', 'U', F, B);
    pztrsm('U', 'N', 'N', F, B);
    pzgerbt_rhs(0, B, depth, v);
}
