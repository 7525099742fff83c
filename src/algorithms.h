/* The algorithm layer: tile loops only, no data registration and no BLAS. */
#ifndef STARSOLVE_ALGORITHMS_H
#define STARSOLVE_ALGORITHMS_H
#include "internal.h"

/* Task priorities of the right-looking factorizations (LU, LU without
 * pivoting, Cholesky), by tile column: the updates of column j, then its
 * panel, come before anything on column j+1. The left-most unfinished panel is
 * always first (lookahead of one column falls out), and while the matrix is
 * still on its way to a GPU, the columns that have arrived go on through later
 * steps instead of waiting for the whole first step's columns: ordered by step,
 * an H100 spent the first 0.3 s of an LU of order 40000 mostly waiting for
 * copies (bench/NOTES.md). */
static inline int ss_prio_panel(int ncols, int k) { return 2 * (ncols - k) + 1; }
static inline int ss_prio_update(int ncols, int j) { return 2 * (ncols - j); }
/* With whole-column updates (GPUs), the TRSMs below a diagonal tile (Cholesky, LU
 * without pivoting) are one task of GEMMs with the tile's inverse
 * (codelet_ztrsm_column.c); not under StarPU-MPI, where a column task would
 * gather tiles of several processes. */
static inline int ss_column_tasks(void) { return ss_ctx.update_tiles > 1 && !ss_ctx.mpi; }
static inline int ss_panel_trsm_by_inverse(void) { return ss_column_tasks(); }
#include "algorithms_s.h"
#include "algorithms_d.h"
#include "algorithms_c.h"
#include "algorithms_z.h"
#endif
