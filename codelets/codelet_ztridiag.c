/* The tridiagonal path of gbsv_spike (kl, ku <= 1): on a GPU beside few CPU workers, or on a single CPU worker, one
 * task solves every column of B (this part); on several CPU workers, chunks of rows with three stages in a task per
 * worker, and with CUDA workers a GPU's chunk beside them (the parts further below). One task's buffers: 0 the band (R: a matrix handle over the caller's gbsv array, the diagonal in row
 * args->diag_row), 1 B (RW, n x nrhs; absent in the check task), 2 work (ss_ztri_work_bytes; W, not
 * SCRATCH: the factorization keeps it, so that its solves find it allocated where they run).
 * The task reports through args->result (codelets/tridiag_result.h), in the caller's memory.
 *
 * The CPU variant eliminates without pivoting, row after row (Thomas); LAPACK's gttrf and gttrs, which
 * pivot, took 18 of the task's 40 ms at n = 1e6 on one core (bench/NOTES.md, session 36). The CUDA
 * variant (codelets/cuda/tridiag.cu) runs the partition method, also without pivoting. Both accept the
 * matrix only when every row's dominance |a_ii| / (|a_i,i-1| + |a_i,i+1|) reaches
 * args->min_dominance (where elimination without pivoting is stable, so either variant gives a
 * backward-stable answer), both check each column's residual max |b - A x| <= tol max |b| and
 * refine on it, and both leave b in place for a column they could not solve. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "codelets.h"
#include "tridiag_layout.h"
#include "tridiag_result.h"

/* the band's three diagonals: row i is sub(i) x[i-1] + dia(i) x[i] + sup(i) x[i+1]; dg points at the diagonal
 * of column col0 (0, or a chunk's first column: the handle then covers columns col0 .. of the whole band) */
struct ztri_band { const starsolve_complex64_t *dg; size_t ld; int n, kl, ku, col0; };
static inline starsolve_complex64_t ztri_sub(const struct ztri_band *A, int i)
{
    return A->kl && i > 0 ? A->dg[(size_t)(i - 1 - A->col0) * A->ld + 1] : 0;
}
static inline starsolve_complex64_t ztri_dia(const struct ztri_band *A, int i) { return A->dg[(size_t)(i - A->col0) * A->ld]; }
static inline starsolve_complex64_t ztri_sup(const struct ztri_band *A, int i)
{
    return A->ku && i < A->n - 1 ? A->dg[(size_t)(i + 1 - A->col0) * A->ld - 1] : 0;
}

/* r = b - A x (r NULL: not stored); returns max |r_i|, NaN counted as infinite */
static double ztri_residual(const struct ztri_band *A, const starsolve_complex64_t *b, const starsolve_complex64_t *x,
                            starsolve_complex64_t *r)
{
    double most = 0;
    for (int i = 0; i < A->n; i++) {
        starsolve_complex64_t v = b[i] - ztri_dia(A, i) * x[i];
        if (i > 0) v -= ztri_sub(A, i) * x[i - 1];
        if (i < A->n - 1) v -= ztri_sup(A, i) * x[i + 1];
        if (r) r[i] = v;
        double m = cabs(v);
        most = isnan(m) ? INFINITY : fmax(most, m);
    }
    return most;
}

static double ztri_max_abs(int n, const starsolve_complex64_t *b)
{
    double most = 0;
    for (int i = 0; i < n; i++) {
        double m = cabs(b[i]);
        most = isnan(m) ? INFINITY : fmax(most, m);
    }
    return most;
}

/* x = A^-1 x by the elimination that ztridiag_cpu factored (inv: 1 / the pivots; up: c_i / pivot_i) */
static void ztri_apply(const struct ztri_band *A, const starsolve_complex64_t *inv, const starsolve_complex64_t *up, starsolve_complex64_t *x)
{
    starsolve_complex64_t prev = 0;
    for (int i = 0; i < A->n; i++)
        x[i] = prev = (x[i] - ztri_sub(A, i) * prev) * inv[i];
    for (int i = A->n - 2; i >= 0; i--)
        x[i] -= up[i] * x[i + 1];
}

static void ztridiag_cpu(void *buffers[], void *cl_arg, int has_b)
{
    const struct ss_tridiag_args *a = cl_arg;
    struct ss_tridiag_result *res = a->result;
    const int n = a->n;
    const struct ztri_band A = { (const starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[0]) + a->diag_row,
                                 STARPU_MATRIX_GET_LD(buffers[0]), n, a->kl, a->ku, 0 };
    starsolve_complex64_t *save = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[has_b ? 2 : 1]);
    starsolve_complex64_t *r = save + n, *inv = r + n, *up = inv + n;
    *res = (struct ss_tridiag_result){ .usable = 1 };
    /* the elimination without pivoting (Thomas), the rows' dominance beside it */
    double dominance = INFINITY;
    int finite = 1, zero_pivot = 0;
    starsolve_complex64_t prev_up = 0;
    for (int i = 0; i < n; i++) {
        starsolve_complex64_t lo = ztri_sub(&A, i), di = ztri_dia(&A, i), hi = ztri_sup(&A, i);
        double off = cabs(lo) + cabs(hi), diag = cabs(di);
        finite &= isfinite(off + diag);
        if (off > 0) dominance = fmin(dominance, diag / off);
        starsolve_complex64_t pivot = di - lo * prev_up;
        zero_pivot |= pivot == 0;
        inv[i] = 1 / pivot;
        up[i] = prev_up = hi * inv[i];
    }
    res->dominance = dominance;
    if (!finite || zero_pivot || !(dominance >= a->min_dominance)) {
        res->usable = 0;
        return;
    }
    if (!has_b)
        return;
    starsolve_complex64_t *B = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[1]);
    const size_t ldb = STARPU_MATRIX_GET_LD(buffers[1]);
    const int nrhs = (int)STARPU_MATRIX_GET_NY(buffers[1]);
    for (int col = 0; col < nrhs; col++) {
        starsolve_complex64_t *x = B + (size_t)col * ldb;
        memcpy(save, x, (size_t)n * sizeof *x);
        ztri_apply(&A, inv, up, x);
        const double bnorm = ztri_max_abs(n, save), goal = a->tol * (bnorm > 0 ? bnorm : 1);
        double rnorm = ztri_residual(&A, save, x, NULL);
        int steps = 0;
        /* refinement on the true residual, while it shrinks at least twofold a step */
        while (!(rnorm <= goal) && steps < a->maxit && isfinite(rnorm)) {
            ztri_residual(&A, save, x, r);
            ztri_apply(&A, inv, up, r);
            for (int i = 0; i < n; i++)
                x[i] += r[i];
            double next = ztri_residual(&A, save, x, NULL);
            steps++;
            int slow = !(next <= 0.5 * rnorm);
            rnorm = next;
            if (slow)
                break;
        }
        res->steps = ss_max(res->steps, steps);
        if (!(isfinite(rnorm) && rnorm <= goal)) {   /* not solved (an Inf in b too): b back for the caller's fallback */
            memcpy(x, save, (size_t)n * sizeof *x);
            return;
        }
        res->solved = col + 1;
    }
}

static void ztridiag_solve_cpu(void *buffers[], void *cl_arg) { ztridiag_cpu(buffers, cl_arg, 1); }
static void ztridiag_check_cpu(void *buffers[], void *cl_arg) { ztridiag_cpu(buffers, cl_arg, 0); }

/* ---- on CPU workers: chunks of rows, one task each (the partition method at chunk size) ------------------
 * One task on one core solved n = 1e6 in 50 ms on the H100 machine's cores against 86 ms for LAPACK's dgbsv
 * (bench/NOTES.md, session 36); chunks on every CPU worker go through three stages: reduce (per chunk, each of its
 * sub-partitions' first and last rows coupled only to each other and to the neighbouring sub-partitions' last
 * and first, as tridiag.cu's forward kernel does per partition), reduced (once: the 2 rows of every sub-partition
 * by Thomas), back (per chunk: the interior rows, the residual of every row, b saved before x overwrites it). One
 * task per CPU worker runs all three, taking chunks in turn (ztri_chunks_cpu). The sweeps run ZTRI_LANES
 * sub-partitions at a time, as the lanes of vectors (below). */

/* the chunk's band: columns col0 .. first + rows of the matrix's (one past its rows on each side where there is one) */
static struct ztri_band ztri_chunk_band(const struct ss_tri_chunk *a)
{
    return (struct ztri_band){ (const starsolve_complex64_t *)a->band + (size_t)a->col0 * a->ldband + a->diag_row, a->ldband,
                               a->n, a->kl, a->ku, a->col0 };
}

/* A group's sweeps run its sub-partitions as the lanes of vectors (GCC's vector extension): every row of a sweep waits
 * on the previous row's division, and ZTRI_LANES sub-partitions share that wait, in one register each quantity. Real
 * precisions take 4 lanes: the sweeps have an AVX2 clone, which the CPU picks at run time where it has AVX2
 * (ZTRI_VECTOR_TASK); elsewhere GCC runs a 4-double vector as two SSE2 halves. A complex sub-partition runs alone
 * (ZTRI_LANES 1: its division is a library call anyway). Kept as 4 sets of scalars, the state spilled to the stack
 * every row: on 2 cores (AMD EPYC, in cache, bench/NOTES.md session 56) the reduce task took 11-15 ns a row and the
 * back task 14-16; as AVX2 lanes 2-3 and 6-7 (the SSE2 clone: 7 and 18-21). Each lane walks its own rows; in a group
 * whose sub-partitions differ by one row, the longer ones take their last step alone (the step of every lane, the
 * others' undone or never read). */
#if defined(STARSOLVE_PRECISION_Z) || defined(STARSOLVE_PRECISION_C)
#define ZTRI_LANES 1
typedef starsolve_complex64_t ztri_lanes;   /* a value of each lane */
typedef double ztri_rlanes;                 /* a real value of each lane */
#else
#define ZTRI_LANES 4
/* the helpers below pass 32-byte vectors by value: all inlined, so the ABI note GCC gives without AVX does not apply */
#pragma GCC diagnostic ignored "-Wpsabi"
/* aligned as its element: the back task's scratch holds them, whose alignment StarPU does not promise */
typedef starsolve_complex64_t ztri_lanes __attribute__((vector_size(ZTRI_LANES * sizeof(starsolve_complex64_t)), aligned(sizeof(starsolve_complex64_t))));
typedef ztri_lanes ztri_rlanes;
typedef __typeof__((ztri_rlanes){ 0 } < (ztri_rlanes){ 0 }) ztri_mask;   /* a comparison's lanes: all bits set where true */
#endif
#define ZTRI_VECTOR_TASK SS_SIMD_CLONES_AVX2 static void   /* codelets.h */
/* the sweeps, inlined in each clone of the tasks; lo_on, hi_on, has_b are constants where the tasks call them for the
 * common case (a sub- and a superdiagonal, a right-hand side), so that the compiler drops the tests there */
#define ZTRI_SWEEP static inline __attribute__((always_inline)) void

/* lane kk of a vector of lanes, to read or to assign (with one lane, the value itself) */
#if ZTRI_LANES > 1
#define ZTRI_LANE(v, kk) ((v)[kk])
#else
#define ZTRI_LANE(v, kk) (*((void)(kk), &(v)))
#endif
static inline ztri_lanes ztri_splat(starsolve_complex64_t x)
{
    ztri_lanes v;
    for (int kk = 0; kk < ZTRI_LANES; kk++)
        ZTRI_LANE(v, kk) = x;
    return v;
}
/* lane kk's value at p[kk][o] */
static inline ztri_lanes ztri_gather(const starsolve_complex64_t *const p[], ptrdiff_t o)
{
    ztri_lanes v;
    for (int kk = 0; kk < ZTRI_LANES; kk++)
        ZTRI_LANE(v, kk) = p[kk][o];
    return v;
}
/* lane kk's value at p[kk][o[kk]] */
static inline ztri_lanes ztri_gather_at(const starsolve_complex64_t *const p[], const ptrdiff_t o[])
{
    ztri_lanes v;
    for (int kk = 0; kk < ZTRI_LANES; kk++)
        ZTRI_LANE(v, kk) = p[kk][o[kk]];
    return v;
}
static inline ztri_rlanes ztri_abs(ztri_lanes v)
{
#if ZTRI_LANES > 1
    return (ztri_rlanes)((ztri_mask)v & ~(ztri_mask)(-(ztri_rlanes){ 0 }));   /* the sign bit cleared */
#else
    return cabs(v);
#endif
}
/* 1 in the lanes where a < b, else 0 */
static inline ztri_rlanes ztri_less(ztri_rlanes a, ztri_rlanes b)
{
#if ZTRI_LANES > 1
    return (ztri_rlanes)((a < b) & (ztri_mask)((ztri_rlanes){ 0 } + 1));
#else
    return a < b;
#endif
}
/* the larger of a and b in each lane (b where a is NaN) */
static inline ztri_rlanes ztri_max(ztri_rlanes a, ztri_rlanes b)
{
#if ZTRI_LANES > 1
    const ztri_mask m = a > b;
    return (ztri_rlanes)((m & (ztri_mask)a) | (~m & (ztri_mask)b));
#else
    return a > b ? a : b;
#endif
}

/* The group of ZTRI_LANES sub-partitions of a chunk from sub-partition k0 on (ss_tri_subs makes a multiple of 4 of
 * them): their first rows s[] and row counts m[] (m and m + 1 rows: mmin and mmax) */
struct ztri_group { int mmin, mmax, s[ZTRI_LANES], m[ZTRI_LANES]; };
static struct ztri_group ztri_group_at(const struct ss_tri_chunk *a, int subs, int k0)
{
    struct ztri_group g = { .mmin = a->rows };
    for (int kk = 0; kk < ZTRI_LANES; kk++) {
        g.s[kk] = a->first + ss_spike_part_first(k0 + kk, a->rows / subs, a->rows % subs);
        g.m[kk] = ss_spike_part_size(k0 + kk, a->rows / subs, a->rows % subs);
        g.mmin = ss_min(g.mmin, g.m[kk]);
        g.mmax = ss_max(g.mmax, g.m[kk]);
    }
    return g;
}

/* the row's dominance |a_ii| / (|a_i,i-1| + |a_i,i+1|) into *dominance (divided only when it may be the smallest;
 * off = 0 gives NaN against an infinite *dominance, which compares false) and *nonfinite NaN when an entry is not finite */
static inline void ztri_row_check(starsolve_complex64_t lo, starsolve_complex64_t di, starsolve_complex64_t hi, double *dominance,
                                  double *nonfinite)
{
    const double off = cabs(lo) + cabs(hi), diag = cabs(di);
    *nonfinite += 0 * (off + diag);
    if (diag < *dominance * off)
        *dominance = diag / off;
}

/* The chunk's smallest row dominance and whether an entry is not finite, row by row: the reduce task's own check
 * only flags (ztri_reduce_step), this measures, once a flag is up */
static void ztri_chunk_check(const struct ss_tri_chunk *a, const struct ztri_band *A, double *dominance, double *nonfinite)
{
    *dominance = INFINITY;
    *nonfinite = 0;
    for (int i = a->first; i < a->first + a->rows; i++)
        ztri_row_check(ztri_sub(A, i), ztri_dia(A, i), ztri_sup(A, i), dominance, nonfinite);
}

/* One sub-partition's interior rows s + 1 .. e - 1 eliminated downward (Thomas, no pivoting), its first and last
 * unknowns x_s, x_e left as unknowns: row i becomes x_i + u x_{i+1} + v x_s = y (v: the fill from x_s; at row e - 1,
 * x_{i+1} is x_e). Back substitution would give x_{s+1} = Y - V x_s - W x_e with Y = sum_k pi_k y_k, V = sum_k pi_k v_k,
 * W = pi_{e-1} u_{e-1}, pi_{s+1} = 1, pi_{k+1} = -u_k pi_k: the sweep sums them as it goes, so that one pass yields the
 * first row's and the last row's equations in x_{s-1}, x_s, x_e, x_{e+1} (the reduced system's). It starts from
 * u = 0, v = -1, pi = 1, V = y = Y = 0, so that the first row takes the same step as the others, and ends with pi = pi_e
 * (W = -pi). bad stays 0 while every row is finite, reaches min_dominance and leaves a nonzero pivot. */
struct ztri_reduce_lanes { ztri_lanes u, v, pi, V, y, Y; ztri_rlanes bad; };

/* a step of every lane, at rows with entries lo, di, hi and right-hand sides bi */
static inline void ztri_reduce_step(struct ztri_reduce_lanes *c, ztri_lanes lo, ztri_lanes di, ztri_lanes hi, ztri_lanes bi,
                                    double min_dominance)
{
    const ztri_rlanes off = ztri_abs(lo) + ztri_abs(hi), diag = ztri_abs(di);
    const ztri_lanes inv = 1 / (di - lo * c->u);
    /* 0 x is NaN for an infinite or NaN x: an entry not finite, or a zero pivot's inverse */
    c->bad += 0 * (off + diag + creal(inv)) + ztri_less(diag, min_dominance * off);
    c->u = hi * inv;
    c->v = -lo * c->v * inv;
    c->y = (bi - lo * c->y) * inv;
    c->V += c->pi * c->v;
    c->Y += c->pi * c->y;
    c->pi = -c->u * c->pi;
}

/* Each lane's pointers at its sub-partition's first interior row s + 1: its diagonal entry and, b not NULL, b */
static inline void ztri_lane_rows(const struct ztri_band *A, starsolve_complex64_t *b, const struct ztri_group *g,
                                  const starsolve_complex64_t *col[], starsolve_complex64_t *bp[])
{
    for (int kk = 0; kk < ZTRI_LANES; kk++) {
        const int i = g->s[kk] + 1;
        col[kk] = A->dg + (ptrdiff_t)(i - A->col0) * (ptrdiff_t)A->ld;
        bp[kk] = b ? b + i : NULL;
    }
}

/* The offsets that take the longer sub-partitions' lanes t rows further and leave the others at their first row */
static inline void ztri_longer_rows(const struct ztri_group *g, int t, ptrdiff_t ld, int longer[], ptrdiff_t off[], ptrdiff_t boff[])
{
    for (int kk = 0; kk < ZTRI_LANES; kk++) {
        longer[kk] = g->m[kk] > g->mmin;
        off[kk] = longer[kk] ? t * ld : 0;
        boff[kk] = longer[kk] ? t : 0;
    }
}

/* The group's interior rows; b[row] the column's right-hand side (has_b 0: zero) */
ZTRI_SWEEP ztri_reduce_sweep(const struct ztri_band *A, const starsolve_complex64_t *b, const struct ztri_group *g,
                             struct ztri_reduce_lanes *c, double min_dominance, const int lo_on, const int hi_on, const int has_b)
{
    const ptrdiff_t ld = (ptrdiff_t)A->ld;
    const starsolve_complex64_t *col[ZTRI_LANES];
    starsolve_complex64_t *bp[ZTRI_LANES];   /* read only here */
    ztri_lane_rows(A, has_b ? (starsolve_complex64_t *)b : NULL, g, col, bp);
    const starsolve_complex64_t *const *bq = (const starsolve_complex64_t *const *)bp;
    const ztri_lanes zero = ztri_splat(0);
    for (int t = 0; t < g->mmin - 2; t++) {
        const ptrdiff_t o = t * ld;
        ztri_reduce_step(c, lo_on ? ztri_gather(col, o + 1 - ld) : zero, ztri_gather(col, o), hi_on ? ztri_gather(col, o + ld - 1) : zero,
                         has_b ? ztri_gather(bq, t) : zero, min_dominance);
    }
    if (g->mmax > g->mmin) {   /* the longer sub-partitions' last row; the other lanes step at their first row, undone */
        int longer[ZTRI_LANES];
        ptrdiff_t o[ZTRI_LANES], ob[ZTRI_LANES], olo[ZTRI_LANES], ohi[ZTRI_LANES];
        ztri_longer_rows(g, g->mmin - 2, ld, longer, o, ob);
        for (int kk = 0; kk < ZTRI_LANES; kk++) {
            olo[kk] = o[kk] + 1 - ld;
            ohi[kk] = o[kk] + ld - 1;
        }
        const struct ztri_reduce_lanes before = *c;
        ztri_reduce_step(c, lo_on ? ztri_gather_at(col, olo) : zero, ztri_gather_at(col, o), hi_on ? ztri_gather_at(col, ohi) : zero,
                         has_b ? ztri_gather_at(bq, ob) : zero, min_dominance);
        for (int kk = 0; kk < ZTRI_LANES; kk++)
            if (!longer[kk]) {
                ZTRI_LANE(c->u, kk) = ZTRI_LANE(before.u, kk);
                ZTRI_LANE(c->v, kk) = ZTRI_LANE(before.v, kk);
                ZTRI_LANE(c->pi, kk) = ZTRI_LANE(before.pi, kk);
                ZTRI_LANE(c->V, kk) = ZTRI_LANE(before.V, kk);
                ZTRI_LANE(c->y, kk) = ZTRI_LANE(before.y, kk);
                ZTRI_LANE(c->Y, kk) = ZTRI_LANE(before.Y, kk);
                ZTRI_LANE(c->bad, kk) = ZTRI_LANE(before.bad, kk);
            }
    }
}

/* The reduce stage of a chunk: reads its band and its rows of B, writes its red (SS_TRI_RED_COUNT entries).
 * Per group and column (none for the check: a zero right-hand side) one sweep of its sub-partitions in step;
 * with several columns the matrix's part is swept again for each (its coefficients come out the same). */
ZTRI_VECTOR_TASK ztri_chunk_reduce(const struct ss_tri_chunk *a)
{
    const struct ztri_band A = ztri_chunk_band(a);
    const int nrhs = a->nrhs;
    const starsolve_complex64_t *B = nrhs ? (const starsolve_complex64_t *)a->B : NULL;   /* B[row]: the whole matrix's rows */
    const size_t ldb = a->ldb;
    starsolve_complex64_t *red = (starsolve_complex64_t *)a->red + (size_t)a->c * a->red_stride;
    const int subs = a->subs;
    double bad = 0, dominance = INFINITY, nonfinite = 0;   /* the end rows' check: row by row */
    for (int k0 = 0; k0 < subs; k0 += ZTRI_LANES) {
        const struct ztri_group g = ztri_group_at(a, subs, k0);
        for (int j = 0; j < ss_max(nrhs, 1); j++) {
            const starsolve_complex64_t *b = nrhs ? B + (size_t)j * ldb : NULL;
            struct ztri_reduce_lanes c = { .u = ztri_splat(0), .v = ztri_splat(-1), .pi = ztri_splat(1), .V = ztri_splat(0),
                                           .y = ztri_splat(0), .Y = ztri_splat(0), .bad = ztri_splat(0) };
            if (A.kl && A.ku && b)
                ztri_reduce_sweep(&A, b, &g, &c, a->min_dominance, 1, 1, 1);
            else
                ztri_reduce_sweep(&A, b, &g, &c, a->min_dominance, A.kl, A.ku, b != NULL);
            for (int kk = 0; kk < ZTRI_LANES; kk++) {
                bad += ZTRI_LANE(c.bad, kk);
                starsolve_complex64_t *r = red + SS_TRI_RED_SUB(k0 + kk, nrhs);
                const int s = g.s[kk], e = s + g.m[kk] - 1;
                const starsolve_complex64_t as = ztri_sub(&A, s), ds = ztri_dia(&A, s), cs = ztri_sup(&A, s);
                const starsolve_complex64_t ae = ztri_sub(&A, e), de = ztri_dia(&A, e), ce = ztri_sup(&A, e);
                /* row s with x_{s+1} = Y - V x_s - W x_e, row e with x_{e-1} = y - v x_s - u x_e */
                if (j == 0) {
                    ztri_row_check(as, ds, cs, &dominance, &nonfinite);
                    ztri_row_check(ae, de, ce, &dominance, &nonfinite);
                    r[SS_TRI_RED_A] = as;
                    r[SS_TRI_RED_B] = ds - cs * ZTRI_LANE(c.V, kk);
                    r[SS_TRI_RED_C] = cs * ZTRI_LANE(c.pi, kk);
                    r[SS_TRI_RED_AL] = -ae * ZTRI_LANE(c.v, kk);
                    r[SS_TRI_RED_BE] = de - ae * ZTRI_LANE(c.u, kk);
                    r[SS_TRI_RED_CE] = ce;
                }
                if (b) {
                    r[SS_TRI_RED_RHS + 2 * j] = b[s] - cs * ZTRI_LANE(c.Y, kk);
                    r[SS_TRI_RED_RHS + 2 * j + 1] = b[e] - ae * ZTRI_LANE(c.y, kk);
                }
            }
        }
    }
    /* a flag from the sweeps: measure every row (the smallest dominance goes in gbtrf's message); a zero pivot in a
     * dominant chunk stays bad */
    if (bad != 0)
        ztri_chunk_check(a, &A, &dominance, &nonfinite);
    red[SS_TRI_RED_DOM] = dominance;
    red[SS_TRI_RED_BAD] = bad != 0 || nonfinite != 0;
}

/* reads every chunk's red, writes every chunk's sol: the reduced system (every sub-partition's first and last rows,
 * in order) by Thomas, per column */
static void ztri_reduced(const struct ss_tri_chunk *a)   /* a: the call's chunks, all of them */
{
    const int p = a->nchunks, nrhs = a->nrhs;
    int N = 0;
    for (int c = 0; c < p; c++)
        N += 2 * a[c].subs;
    /* per row r of the reduced system: its sub-partition's entries (row r / 2's), and the elimination */
    const starsolve_complex64_t **ent = malloc((size_t)N / 2 * sizeof *ent);
    starsolve_complex64_t *up = malloc((size_t)N * sizeof *up), *inv = malloc((size_t)N * sizeof *inv), *y = malloc((size_t)N * sizeof *y);
    STARPU_ASSERT_MSG(ent && up && inv && y, "starsolve: tridiagonal reduced system: out of memory");
    int usable = 1;
    for (int c = 0, q = 0; c < p; c++) {
        const starsolve_complex64_t *red = (const starsolve_complex64_t *)a->red + (size_t)c * a->red_stride;
        usable &= creal(red[SS_TRI_RED_BAD]) == 0 && creal(red[SS_TRI_RED_DOM]) >= a->min_dominance;
        for (int k = 0; k < a[c].subs; k++)
            ent[q++] = red + SS_TRI_RED_SUB(k, nrhs);
    }
    /* row 2q: sub-partition q's first row (sub-, main, superdiagonal: A, B, C), 2q + 1 its last (AL, BE, CE) */
#define RED(r, k) (ent[(r) / 2][(r) % 2 ? SS_TRI_RED_AL + (k) : SS_TRI_RED_A + (k)])
    starsolve_complex64_t prev_up = 0;
    for (int r = 0; r < N; r++) {
        starsolve_complex64_t pivot = RED(r, 1) - RED(r, 0) * prev_up;
        usable &= pivot != 0;
        inv[r] = pivot != 0 ? 1 / pivot : 0;
        up[r] = prev_up = RED(r, 2) * inv[r];
    }
    for (int j = 0; j < nrhs; j++) {
        starsolve_complex64_t prev = 0;
        for (int r = 0; r < N; r++)
            y[r] = prev = (ent[r / 2][SS_TRI_RED_RHS + 2 * j + r % 2] - RED(r, 0) * prev) * inv[r];
        for (int r = N - 2; r >= 0; r--)
            y[r] -= up[r] * y[r + 1];
        for (int c = 0, r = 0; c < p; c++) {
            starsolve_complex64_t *sol = (starsolve_complex64_t *)a->sol + (size_t)c * a->sol_stride;
            for (int k = 0; k < a[c].subs; k++, r += 2) {
                sol[SS_TRI_SOL_FIRST(k, j, nrhs)] = y[r];
                sol[SS_TRI_SOL_FIRST(k, j, nrhs) + 1] = y[r + 1];
            }
        }
    }
#undef RED
    for (int c = 0; c < p; c++)
        ((starsolve_complex64_t *)a->sol)[(size_t)c * a->sol_stride] = usable;
    free(ent); free(up); free(inv); free(y);
}

/* The back task's lanes (as the reduce task's): the downward sweep from x_s, whose eliminated rows x_i + U x_{i+1} = Y go
 * to the scratch, then upward x_i = Y - U x_{i+1} from x_e with each row's residual as soon as its neighbours are known
 * (x, x1, x2: x_i, x_{i+1}, x_{i+2}), b saved and x stored; per lane the largest |b - A x| and |b| of the column,
 * nonfinite NaN when either is not finite */
struct ztri_back_lanes { ztri_lanes u, y, x1, x2; ztri_rlanes rmax, bmax, nonfinite; };

static inline void ztri_back_down_step(struct ztri_back_lanes *c, ztri_lanes lo, ztri_lanes di, ztri_lanes hi, ztri_lanes bi,
                                       ztri_lanes *UY)
{
    const ztri_lanes inv = 1 / (di - lo * c->u);
    UY[0] = c->u = hi * inv;
    UY[1] = c->y = (bi - lo * c->y) * inv;
}

/* the residuals b - lo xm - di x - hi xn into the lanes' sizes */
static inline void ztri_back_residual(struct ztri_back_lanes *c, ztri_lanes lo, ztri_lanes di, ztri_lanes hi, ztri_lanes bi,
                                      ztri_lanes xm, ztri_lanes x, ztri_lanes xn)
{
    const ztri_rlanes rm = ztri_abs(bi - lo * xm - di * x - hi * xn), bm = ztri_abs(bi);
    c->nonfinite += 0 * (rm + bm);
    c->rmax = ztri_max(rm, c->rmax);
    c->bmax = ztri_max(bm, c->bmax);
}

/* every lane's step up at interior row i = s + 1 + t: x_i, then row i + 1's residual (its entries lo, di, hi and b_{i+1}),
 * b_{i+1} saved and x_{i+1} stored */
static inline void ztri_back_up_step(struct ztri_back_lanes *c, const ztri_lanes *UY, int t, ztri_lanes lo, ztri_lanes di, ztri_lanes hi,
                                     ztri_lanes bi, starsolve_complex64_t *const bp[], starsolve_complex64_t *const svp[])
{
    const ztri_lanes x = UY[2 * t + 1] - UY[2 * t] * c->x1;
    ztri_back_residual(c, lo, di, hi, bi, x, c->x1, c->x2);
    for (int kk = 0; kk < ZTRI_LANES; kk++) {
        svp[kk][t + 1] = ZTRI_LANE(bi, kk);
        bp[kk][t + 1] = ZTRI_LANE(c->x1, kk);
    }
    c->x2 = c->x1;
    c->x1 = x;
}

/* lane kk's superdiagonal entry of its row at col[kk] + o[kk] (row[kk]), zero at the matrix's last row, whose
 * superdiagonal lies past the band */
static inline ztri_lanes ztri_gather_hi(const struct ztri_band *A, const starsolve_complex64_t *const col[], const ptrdiff_t o[],
                                        const int row[])
{
    ztri_lanes v;
    for (int kk = 0; kk < ZTRI_LANES; kk++)
        ZTRI_LANE(v, kk) = A->ku && row[kk] < A->n - 1 ? col[kk][o[kk] + (ptrdiff_t)A->ld - 1] : 0;
    return v;
}

/* The group's interior rows for one column (b[row], sv[row]); UY: [2 t] U and [2 t + 1] Y of the lanes' interior rows
 * s + 1 + t. Takes x1 = x_e, x2 = x_{e+1}; ends with x1 = x_{s+1}, x2 = x_{s+2} and every row's residual but rows s
 * and s + 1. */
ZTRI_SWEEP ztri_back_sweep(const struct ztri_band *A, starsolve_complex64_t *b, starsolve_complex64_t *sv, const struct ztri_group *g,
                           struct ztri_back_lanes *c, ztri_lanes *UY, const int lo_on, const int hi_on)
{
    const ptrdiff_t ld = (ptrdiff_t)A->ld;
    const starsolve_complex64_t *col[ZTRI_LANES];
    starsolve_complex64_t *bp[ZTRI_LANES], *svp[ZTRI_LANES];   /* each lane's b and save at its row s + 1 */
    ztri_lane_rows(A, b, g, col, bp);
    const starsolve_complex64_t *const *bq = (const starsolve_complex64_t *const *)bp;
    for (int kk = 0; kk < ZTRI_LANES; kk++)
        svp[kk] = sv + g->s[kk] + 1;
    const ztri_lanes zero = ztri_splat(0);
    int longer[ZTRI_LANES] = { 0 }, row[ZTRI_LANES];
    ptrdiff_t o[ZTRI_LANES] = { 0 }, ob[ZTRI_LANES] = { 0 }, olo[ZTRI_LANES];
    const int tail = g->mmax > g->mmin;   /* the longer sub-partitions' last interior row, t = mmin - 2 */
    for (int t = 0; t < g->mmin - 2; t++) {
        const ptrdiff_t ot = t * ld;
        ztri_back_down_step(c, lo_on ? ztri_gather(col, ot + 1 - ld) : zero, ztri_gather(col, ot), hi_on ? ztri_gather(col, ot + ld - 1) : zero,
                            ztri_gather(bq, t), UY + 2 * t);
    }
    if (tail) {   /* the other lanes step at their first row: their slot at mmin - 2 is never read */
        ztri_longer_rows(g, g->mmin - 2, ld, longer, o, ob);
        for (int kk = 0; kk < ZTRI_LANES; kk++) {
            olo[kk] = o[kk] + 1 - ld;
            row[kk] = g->s[kk] + 1 + (longer[kk] ? g->mmin - 2 : 0);
        }
        ztri_back_down_step(c, lo_on ? ztri_gather_at(col, olo) : zero, ztri_gather_at(col, o), hi_on ? ztri_gather_hi(A, col, o, row) : zero,
                            ztri_gather_at(bq, ob), UY + 2 * (g->mmin - 2));
    }
    /* upward: the longer lanes' row e - 1 (and row e's residual) first, then every lane from t = mmin - 3 down, row i + 1's
     * residual at row i = s + 1 + t; a row e may be the matrix's last */
    if (tail) {
        const struct ztri_back_lanes before = *c;
        const int t = g->mmin - 2;
        for (int kk = 0; kk < ZTRI_LANES; kk++) {   /* row i + 1 = e of the longer lanes */
            o[kk] += ld;
            olo[kk] += ld;
            ob[kk] += longer[kk];
            row[kk]++;
        }
        const ztri_lanes x = UY[2 * t + 1] - UY[2 * t] * c->x1, bi = ztri_gather_at(bq, ob);
        ztri_back_residual(c, lo_on ? ztri_gather_at(col, olo) : zero, ztri_gather_at(col, o), hi_on ? ztri_gather_hi(A, col, o, row) : zero, bi,
                           x, c->x1, c->x2);
        for (int kk = 0; kk < ZTRI_LANES; kk++)
            if (longer[kk]) {
                svp[kk][t + 1] = ZTRI_LANE(bi, kk);
                bp[kk][t + 1] = ZTRI_LANE(c->x1, kk);
                ZTRI_LANE(c->x2, kk) = ZTRI_LANE(c->x1, kk);
                ZTRI_LANE(c->x1, kk) = ZTRI_LANE(x, kk);
            } else {
                ZTRI_LANE(c->rmax, kk) = ZTRI_LANE(before.rmax, kk);
                ZTRI_LANE(c->bmax, kk) = ZTRI_LANE(before.bmax, kk);
                ZTRI_LANE(c->nonfinite, kk) = ZTRI_LANE(before.nonfinite, kk);
            }
    }
    int t = g->mmin - 3;
    if (t >= 0) {   /* row i + 1 = e of the shorter lanes */
        for (int kk = 0; kk < ZTRI_LANES; kk++) {
            o[kk] = (t + 1) * ld;
            row[kk] = g->s[kk] + 2 + t;
        }
        ztri_back_up_step(c, UY, t, lo_on ? ztri_gather(col, o[0] + 1 - ld) : zero, ztri_gather(col, o[0]),
                          hi_on ? ztri_gather_hi(A, col, o, row) : zero, ztri_gather(bq, t + 1), bp, svp);
    }
    for (t--; t >= 0; t--) {
        const ptrdiff_t ot = (t + 1) * ld;   /* row i + 1 */
        ztri_back_up_step(c, UY, t, lo_on ? ztri_gather(col, ot + 1 - ld) : zero, ztri_gather(col, ot),
                          hi_on ? ztri_gather(col, ot + ld - 1) : zero, ztri_gather(bq, t + 1), bp, svp);
    }
}

/* the back task's U and Y (ztri_back_sweep), one column at a time: a group's longest sub-partition */
static size_t ztri_chunk_scratch_bytes(int rows)
{
    return 2 * (size_t)ZTRI_LANES * (rows / ss_tri_subs(rows) + 1) * sizeof(starsolve_complex64_t);
}

/* The back stage of a chunk: reads its band and the sol of the chunk and its neighbours, overwrites its rows of B
 * with x after saving b in save, writes its stat: each sub-partition's interior
 * rows by Thomas from its first and last unknowns (the reduced system's), the residual of every row as x comes back
 * up; nothing written when the reduced system found the matrix not usable */
ZTRI_VECTOR_TASK ztri_chunk_back(const struct ss_tri_chunk *a)
{
    const struct ztri_band A = ztri_chunk_band(a);
    starsolve_complex64_t *B = (starsolve_complex64_t *)a->B, *save = (starsolve_complex64_t *)a->save;   /* [row]: the whole matrix's rows */
    const size_t ldb = a->ldb, lds = a->lds;
    const starsolve_complex64_t *sol = (const starsolve_complex64_t *)a->sol + (size_t)a->c * a->sol_stride;
    const starsolve_complex64_t *prev = a->c > 0 ? sol - a->sol_stride : sol, *next = a->c + 1 < a->nchunks ? sol + a->sol_stride : sol;
    starsolve_complex64_t *stat = (starsolve_complex64_t *)a->stat + (size_t)a->c * SS_TRI_STAT_COUNT(a->nrhs);
    const int nrhs = a->nrhs, subs = a->subs;
    if (creal(sol[0]) == 0)
        return;
    /* the sweep's U and Y of each interior row of a group: per worker thread, malloc reuses the freed block (glibc
     * raises its mmap threshold to a freed mapping's size), so no page faults after a worker's first call */
    ztri_lanes *UY = malloc(ztri_chunk_scratch_bytes(a->rows));
    /* the unknowns across the chunk's ends: the previous chunk's last row, the next chunk's first */
    const int prev_subs = a->c > 0 ? a[-1].subs : 0;   /* a points into the call's array of chunks */
    /* per column its largest |b - A x| and |b| (stat), and NaN when either is not finite */
    double *nonfinite = calloc((size_t)nrhs, sizeof *nonfinite);
    STARPU_ASSERT_MSG(nonfinite && UY, "starsolve: tridiagonal chunks: out of memory");
    for (int j = 0; j < 2 * nrhs; j++)
        stat[j] = 0;
    /* the groups from the chunk's end: its reduce sweeps read them last, so that they may still be in a cache (the
     * core's, when the same task swept it); every column of a group while its rows are */
    for (int k0 = subs - ZTRI_LANES; k0 >= 0; k0 -= ZTRI_LANES) {
        const struct ztri_group g = ztri_group_at(a, subs, k0);
        for (int j = 0; j < nrhs; j++) {
            starsolve_complex64_t *b = B + (size_t)j * ldb, *sv = save + (size_t)j * lds;
            struct ztri_back_lanes c = { .u = ztri_splat(0), .y = ztri_splat(0), .x1 = ztri_splat(0), .x2 = ztri_splat(0),
                                         .rmax = ztri_splat(0), .bmax = ztri_splat(0), .nonfinite = ztri_splat(0) };
            for (int kk = 0; kk < ZTRI_LANES; kk++) {
                const int k = k0 + kk;
                ZTRI_LANE(c.y, kk) = sol[SS_TRI_SOL_FIRST(k, j, nrhs)];   /* x_s: row s + 1's right-hand side less a x_s */
                ZTRI_LANE(c.x1, kk) = sol[SS_TRI_SOL_FIRST(k, j, nrhs) + 1];   /* x_e */
                ZTRI_LANE(c.x2, kk) = k + 1 < subs ? sol[SS_TRI_SOL_FIRST(k + 1, j, nrhs)]   /* x_{e+1} */
                                      : a->c + 1 < a->nchunks ? next[SS_TRI_SOL_FIRST(0, j, nrhs)] : 0;
            }
            const ztri_lanes xs = c.y;
            if (A.kl && A.ku)
                ztri_back_sweep(&A, b, sv, &g, &c, UY, 1, 1);
            else
                ztri_back_sweep(&A, b, sv, &g, &c, UY, A.kl, A.ku);
            double rmax = creal(stat[2 * j]), bmax = creal(stat[2 * j + 1]);
            for (int kk = 0; kk < ZTRI_LANES; kk++) {   /* rows s + 1 and s */
                const int k = k0 + kk, s = g.s[kk];
                const starsolve_complex64_t before = k > 0 ? sol[SS_TRI_SOL_FIRST(k - 1, j, nrhs) + 1]
                                                   : a->c > 0 ? prev[SS_TRI_SOL_FIRST(prev_subs - 1, j, nrhs) + 1] : 0;
                const starsolve_complex64_t x0 = ZTRI_LANE(xs, kk), x1 = ZTRI_LANE(c.x1, kk), x2 = ZTRI_LANE(c.x2, kk);
                double r1 = cabs(b[s + 1] - ztri_sub(&A, s + 1) * x0 - ztri_dia(&A, s + 1) * x1 - ztri_sup(&A, s + 1) * x2);
                double r0 = cabs(b[s] - ztri_sub(&A, s) * before - ztri_dia(&A, s) * x0 - ztri_sup(&A, s) * x1);
                const double b1 = cabs(b[s + 1]), b0 = cabs(b[s]);
                nonfinite[j] += ZTRI_LANE(c.nonfinite, kk) + 0 * (r0 + r1 + b0 + b1);
                rmax = fmax(rmax, fmax(ZTRI_LANE(c.rmax, kk), fmax(r0, r1)));
                bmax = fmax(bmax, fmax(ZTRI_LANE(c.bmax, kk), fmax(b0, b1)));
                sv[s + 1] = b[s + 1];
                b[s + 1] = x1;
                sv[s] = b[s];
                b[s] = x0;
            }
            stat[2 * j] = rmax;
            stat[2 * j + 1] = bmax;
        }
    }
    for (int j = 0; j < nrhs; j++)
        if (nonfinite[j] != 0)
            stat[2 * j] = stat[2 * j + 1] = INFINITY;
    free(nonfinite);
    free(UY);
}

#ifdef STARSOLVE_USE_CUDA
#if defined(STARSOLVE_PRECISION_Z)
static const char prec_tri = 'z';
#elif defined(STARSOLVE_PRECISION_D)
static const char prec_tri = 'd';
#elif defined(STARSOLVE_PRECISION_C)
static const char prec_tri = 'c';
#else
static const char prec_tri = 's';
#endif
/* the kernels' flags, read inside the task, decide on refinement; the stream is idle when it returns (StarPU's
 * completion of an asynchronous codelet, an event polled, cost ~30 us more a call: bench/NOTES.md, session 36) */
static void ztridiag_solve_cuda(void *buffers[], void *cl_arg)
{
    const struct ss_tridiag_args *a = cl_arg;
    ss_cuda_tridiag_solve(prec_tri, a, (const void *)STARPU_MATRIX_GET_PTR(buffers[0]), (int)STARPU_MATRIX_GET_LD(buffers[0]),
                          (int)STARPU_MATRIX_GET_NY(buffers[1]), (void *)STARPU_MATRIX_GET_PTR(buffers[1]),
                          (int)STARPU_MATRIX_GET_LD(buffers[1]), (void *)STARPU_VECTOR_GET_PTR(buffers[2]), ss_cuda_stream(), a->result);
}
static void ztridiag_check_cuda(void *buffers[], void *cl_arg)
{
    const struct ss_tridiag_args *a = cl_arg;
    ss_cuda_tridiag_solve(prec_tri, a, (const void *)STARPU_MATRIX_GET_PTR(buffers[0]), (int)STARPU_MATRIX_GET_LD(buffers[0]), 0, NULL, 1,
                          (void *)STARPU_VECTOR_GET_PTR(buffers[1]), ss_cuda_stream(), a->result);
}
#endif

size_t ss_ztri_work_bytes(int n)
{
    const size_t es = sizeof(starsolve_complex64_t);
    size_t cpu = 4 * (size_t)n * es;   /* save, r, inv, up */
#ifdef STARSOLVE_USE_CUDA
    size_t gpu = ss_cuda_tridiag_work(es, n);
    return gpu > cpu ? gpu : cpu;
#else
    return cpu;
#endif
}

/* the work grows with n and the columns */
static uint32_t footprint_tri(struct starpu_task *task)
{
    const struct ss_tridiag_args *a = task->cl_arg;
    uint32_t nrhs = task->cl->nbuffers == 3 ? starpu_matrix_get_ny(STARPU_TASK_GET_HANDLE(task, 1)) : 0;
    return starpu_hash_crc32c_be((uint32_t)a->n, starpu_hash_crc32c_be(nrhs, 0));
}
static struct starpu_perfmodel model_ztridiag_solve = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_ztridiag_solve",
                                                        .footprint = footprint_tri };
static struct starpu_perfmodel model_ztridiag_check = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_ztridiag_check",
                                                        .footprint = footprint_tri };
static struct starpu_codelet cl_ztridiag_solve = {
    .where = SS_WHERE_CPU_CUDA, .cpu_funcs = { ztridiag_solve_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { ztridiag_solve_cuda },   /* synchronous: the task has waited for its flags anyway */
#endif
    .nbuffers = 3, .modes = { STARPU_R, STARPU_RW, STARPU_W },
    .model = &model_ztridiag_solve, .name = "ztridiag_solve", .callback_func = ss_trace_task_done,
};
static struct starpu_codelet cl_ztridiag_check = {
    .where = SS_WHERE_CPU_CUDA, .cpu_funcs = { ztridiag_check_cpu },
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { ztridiag_check_cuda },
#endif
    .nbuffers = 2, .modes = { STARPU_R, STARPU_W },
    .model = &model_ztridiag_check, .name = "ztridiag_check", .callback_func = ss_trace_task_done,
};

void insert_ztridiag(const struct ss_tridiag_args *args, int worker, starpu_data_handle_t band, starpu_data_handle_t B,
                     starpu_data_handle_t scratch)
{
    struct starpu_codelet *cl = B ? &cl_ztridiag_solve : &cl_ztridiag_check;
    struct starpu_data_descr d[3] = { { band, STARPU_R }, { B, STARPU_RW }, { scratch, STARPU_W } };
    if (!B)
        d[1] = d[2];
    double rhs = B ? starpu_matrix_get_ny(B) : 0;
    struct ss_tridiag_args *a = malloc(sizeof *a);   /* StarPU frees it with the task (STARPU_CL_ARGS) */
    STARPU_ASSERT_MSG(a, "starsolve: tridiagonal solve: out of memory");
    *a = *args;
    int ret = ss_task_insert(cl, STARPU_CL_ARGS, a, sizeof *a, STARPU_DATA_MODE_ARRAY, d, B ? 3 : 2,
                             STARPU_EXECUTE_ON_WORKER, worker, STARPU_NAME, cl->name,
                             STARPU_FLOPS, SS_FLOP_SCALE * 16.0 * args->n * (rhs + 1), 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert %s", cl->name);
}

/* ---- the chunk tasks (CPU workers) ---- */
static uint32_t footprint_tri_chunks(struct starpu_task *task)
{
    const struct ss_tri_task *t = task->cl_arg;
    const struct ss_tri_chunk *a = t->chunk;
    return starpu_hash_crc32c_be((uint32_t)a->n, starpu_hash_crc32c_be((uint32_t)a->nrhs,
                                 starpu_hash_crc32c_be((uint32_t)a->nchunks, starpu_hash_crc32c_be((uint32_t)t->ntasks, 0))));
}
static struct starpu_perfmodel model_ztri_chunks = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_ztri_chunks",
                                                     .footprint = footprint_tri_chunks };

/* between a call's two stages (every task of it, the GPU's too): the last task to finish its reduce sweeps solves the
 * reduced system, the others wait for it */
static void ztri_chunks_meet(const struct ss_tri_task *t)
{
    if (ss_tri_sync_arrive(t->sync)) {
        ztri_reduced(t->chunk);
        ss_tri_sync_reduced(t->sync);
    } else {
        ss_tri_sync_wait_reduced(t->sync);
    }
}

/* no buffers: the three stages, chunks taken in turn (struct ss_tri_sync: every task of the call runs at once, each
 * on its CPU worker): reduce sweeps; then the reduced system, solved by the last task to finish its sweeps while the
 * others wait for it; then back sweeps (none for the check) */
static void ztri_chunks_cpu(void *buffers[], void *cl_arg)
{
    const struct ss_tri_task *t = cl_arg;
    (void)buffers;
    for (int c; (c = ss_tri_sync_next(t->sync, 0)) >= 0;)
        ztri_chunk_reduce(&t->chunk[c]);
    ztri_chunks_meet(t);
    for (int c; t->chunk->nrhs > 0 && (c = ss_tri_sync_next(t->sync, 1)) >= 0;)
        ztri_chunk_back(&t->chunk[c]);
    ss_tri_sync_chunk_done(t->sync);
}
static struct starpu_codelet cl_ztri_chunks = { .where = STARPU_CPU, .cpu_funcs = { ztri_chunks_cpu }, .nbuffers = 0,
                                                .model = &model_ztri_chunks, .name = "ztri_chunks", .callback_func = ss_trace_task_done };

/* one of the call's chunk tasks (no data handles: they read and write the call's arrays through the pointers of
 * struct ss_tri_chunk), to submit with the others after ss_tri_sync_create */
struct starpu_task *ss_ztri_chunks_task(const struct ss_tri_task *args)
{
    struct ss_tri_task *t = malloc(sizeof *t);   /* StarPU frees it with the task (STARPU_CL_ARGS) */
    STARPU_ASSERT_MSG(t, "starsolve: tridiagonal chunks: out of memory");
    *t = *args;
    const struct ss_tri_chunk *a = t->chunk;
    const double flops = (8.0 * (a->nrhs + 1) + 20.0 * a->nrhs) * a->n / t->ntasks;
    struct starpu_task *task = starpu_task_build(&cl_ztri_chunks, STARPU_CL_ARGS, t, sizeof *t, STARPU_EXECUTE_ON_WORKER, t->worker,
                                                 STARPU_NAME, cl_ztri_chunks.name, STARPU_FLOPS, SS_FLOP_SCALE * flops, 0);
    STARPU_ASSERT_MSG(task, "starsolve: tridiagonal chunks: starpu_task_build failed");
    return task;
}

/* ---- the GPU's chunk (with CUDA workers: the call's last chunk, the matrix's last rows) ----
 * The band is in host memory. The CPU chunks read and write it there at the host's memory bandwidth (~104 bytes a row);
 * the GPU takes its rows over PCIe (~48 bytes a row), a bandwidth of its own, so the two together beat either alone
 * (bench/NOTES.md, session 58). The GPU's chunk is one task beside the CPU chunks' ones, meeting them at the same
 * point (struct ss_tri_sync): it solves its own block for z = A_g^-1 e_0 and y = A_g^-1 b (tridiag.cu), so that its
 * rows' solution is x = y - z a x_p, a being its first row's subdiagonal and x_p the previous chunk's last unknown;
 * its first and last unknowns then satisfy two equations, which go into the reduced system as the chunk's one
 * sub-partition: x_f + a z_0 x_p = y_0 and x_l - (z_l / z_0) x_f = y_l - (z_l / z_0) y_0. */
#ifdef STARSOLVE_USE_CUDA
/* the chunk's entries of the reduced system (SS_TRI_RED_*) from the GPU's ends: z_0, z_l, then per column y_0, y_l;
 * sub_first: its first row's subdiagonal */
static void ztri_gpu_chunk_red(const struct ss_tri_chunk *a, const struct ztri_band *A, starsolve_complex64_t sub_first,
                               const starsolve_complex64_t *ends, const struct ss_tri_gpu_flags *gpu)
{
    starsolve_complex64_t *red = (starsolve_complex64_t *)a->red + (size_t)a->c * a->red_stride;
    starsolve_complex64_t *r = red + SS_TRI_RED_SUB(0, a->nrhs);
    const int f = a->first;
    const starsolve_complex64_t z0 = ends[0], zl = ends[1];
    const starsolve_complex64_t ratio = z0 != 0 ? zl / z0 : 0;
    /* the GPU measured its first row without the subdiagonal, which couples it to the previous chunk */
    double dominance = gpu->dominance, nonfinite = 0 * cabs(ratio) + 0 * cabs(sub_first * z0);
    ztri_row_check(sub_first, ztri_dia(A, f), ztri_sup(A, f), &dominance, &nonfinite);
    r[SS_TRI_RED_A] = sub_first * z0;
    r[SS_TRI_RED_B] = 1;
    r[SS_TRI_RED_C] = 0;
    r[SS_TRI_RED_AL] = -ratio;
    r[SS_TRI_RED_BE] = 1;
    r[SS_TRI_RED_CE] = 0;   /* the matrix's last row */
    for (int j = 0; j < a->nrhs; j++) {
        r[SS_TRI_RED_RHS + 2 * j] = ends[2 + 2 * j];
        r[SS_TRI_RED_RHS + 2 * j + 1] = ends[3 + 2 * j] - ratio * ends[2 + 2 * j];
    }
    red[SS_TRI_RED_DOM] = dominance;
    red[SS_TRI_RED_BAD] = gpu->bad || nonfinite != 0 || z0 == 0;
}

static void ztri_gpu_chunk_cuda(void *buffers[], void *cl_arg)
{
    const struct ss_tri_task *t = cl_arg;
    const struct ss_tri_chunk *a = &t->chunk[t->chunk->nchunks - 1];
    void *work = (void *)STARPU_VECTOR_GET_PTR(buffers[0]);
    const cudaStream_t st = ss_cuda_stream();
    const int nrhs = a->nrhs;
    const struct ztri_band A = ztri_chunk_band(a);
    const starsolve_complex64_t sub_first = ztri_sub(&A, a->first);   /* couples the chunk to the previous one */
    starsolve_complex64_t *ends = malloc((2 + 2 * (size_t)nrhs) * sizeof *ends), *xprev = malloc(((size_t)nrhs + 1) * sizeof *xprev);
    STARPU_ASSERT_MSG(ends && xprev, "starsolve: tridiagonal GPU chunk: out of memory");
    ss_cuda_tri_chunk_reduce_start(prec_tri, a, work, st);
    /* b saved for the caller (a column that misses its goal gets b back), on this thread while the GPU works */
    for (int j = 0; j < nrhs; j++)
        memcpy((starsolve_complex64_t *)a->save + (size_t)j * a->lds + a->first, (const starsolve_complex64_t *)a->B + (size_t)j * a->ldb + a->first,
               (size_t)a->rows * sizeof(starsolve_complex64_t));
    struct ss_tri_gpu_flags flags;
    ss_cuda_tri_chunk_reduce_end(prec_tri, a, work, st, ends, &flags);
    ztri_gpu_chunk_red(a, &A, sub_first, ends, &flags);
    ztri_chunks_meet(t);
    const starsolve_complex64_t *sol = (const starsolve_complex64_t *)a->sol + (size_t)a->c * a->sol_stride;
    if (nrhs > 0 && creal(sol[0]) != 0) {
        const starsolve_complex64_t *prev = sol - a->sol_stride;   /* the GPU's chunk follows at least one CPU chunk */
        for (int j = 0; j < nrhs; j++)
            xprev[j] = prev[SS_TRI_SOL_FIRST(a[-1].subs - 1, j, nrhs) + 1];
        ss_cuda_tri_chunk_back(prec_tri, a, work, st, &sub_first, xprev, (starsolve_complex64_t *)a->stat + (size_t)a->c * SS_TRI_STAT_COUNT(nrhs));
    }
    free(ends); free(xprev);
    ss_tri_sync_chunk_done(t->sync);
}
#endif

size_t ss_ztri_gpu_chunk_work_bytes(const struct ss_tri_chunk *a)
{
#ifdef STARSOLVE_USE_CUDA
    return ss_cuda_tri_chunk_work(sizeof(starsolve_complex64_t), a);
#else
    (void)a;
    return 0;
#endif
}

static struct starpu_perfmodel model_ztri_gpu_chunk = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_ztri_gpu_chunk",
                                                        .footprint = footprint_tri_chunks };
static struct starpu_codelet cl_ztri_gpu_chunk = {
    .where = STARPU_CUDA,
#ifdef STARSOLVE_USE_CUDA
    .cuda_funcs = { ztri_gpu_chunk_cuda },   /* synchronous: it meets the CPU chunks' tasks inside */
#endif
    .nbuffers = 1, .modes = { STARPU_W }, .model = &model_ztri_gpu_chunk, .name = "ztri_gpu_chunk", .callback_func = ss_trace_task_done };

struct starpu_task *ss_ztri_gpu_chunk_task(const struct ss_tri_task *args, starpu_data_handle_t work)
{
    struct ss_tri_task *t = malloc(sizeof *t);   /* StarPU frees it with the task (STARPU_CL_ARGS) */
    STARPU_ASSERT_MSG(t, "starsolve: tridiagonal GPU chunk: out of memory");
    *t = *args;
    const struct ss_tri_chunk *a = &t->chunk[t->chunk->nchunks - 1];
    const double flops = 8.0 * (2.0 * a->nrhs + 1) * a->rows;
    /* the highest priority: the CPU chunks' tasks wait for it between their stages */
    struct starpu_task *task = starpu_task_build(&cl_ztri_gpu_chunk, STARPU_CL_ARGS, t, sizeof *t, STARPU_W, work, STARPU_EXECUTE_ON_WORKER,
                                                 t->worker, STARPU_PRIORITY, STARPU_MAX_PRIO, STARPU_NAME, cl_ztri_gpu_chunk.name,
                                                 STARPU_FLOPS, SS_FLOP_SCALE * flops, 0);
    STARPU_ASSERT_MSG(task, "starsolve: tridiagonal GPU chunk: starpu_task_build failed");
    return task;
}
