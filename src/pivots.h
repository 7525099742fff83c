/* One LU panel's pivots as the tasks see them: a vector of ints holding
 *   [0] npiv, [1] nmoved, then ipiv[npiv] (global 1-based rows, LAPACK's),
 *   then moved[2*npiv] and from[2*npiv].
 * moved/from are the panel's interchanges composed into one permutation of the
 * rows they touch (at most 2*npiv): after the swaps, row moved[j] holds what row
 * from[j] held (rows counted from the panel's first row). A GPU applies that as
 * a parallel gather and scatter; a chain of npiv dependent swaps per column
 * runs at memory latency instead (1 ms for a 1024-wide panel). */
#ifndef STARSOLVE_PIVOTS_H
#define STARSOLVE_PIVOTS_H

static inline size_t ss_piv_ints(int npiv) { return 2 + 5 * (size_t)npiv; }
static inline int *ss_piv_ipiv(int *v) { return v + 2; }
static inline int *ss_piv_moved(int *v) { return v + 2 + v[0]; }
static inline int *ss_piv_from(int *v) { return v + 2 + 3 * (size_t)v[0]; }

/* Fill nmoved, moved and from from ipiv; offset = the panel's first global row. */
void ss_piv_compose(int *v, int offset);
/* After a panel's getrf left npiv panel-local pivots in ss_piv_ipiv(v): set the
 * count, make the pivots global (add offset) and compose them. */
void ss_piv_finish_panel(int *v, int npiv, int offset);

#endif
