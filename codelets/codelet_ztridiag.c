/* The tridiagonal path of gbsv_spike (kl, ku <= 1): with CUDA workers, or a single CPU worker, one task solves
 * every column of B (this part); on several CPU workers alone, chunks of rows with three stages of tasks (the
 * part further below). One task's buffers: 0 the band (R: a matrix handle over the caller's gbsv array, the diagonal in row
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

/* ---- on CPU workers alone: chunks of rows, one task each (the partition method at chunk size) -------------
 * One task on one core solved n = 1e6 in 50 ms on the H100 machine's cores against 86 ms for LAPACK's dgbsv
 * (bench/NOTES.md, session 36); the chunks' three stages use them all: reduce (per chunk, each of its
 * sub-partitions' first and last rows coupled only to each other and to the neighbouring sub-partitions' last
 * and first, as tridiag.cu's forward kernel does per partition), reduced (one task: the 2 rows of every
 * sub-partition by Thomas), back (per chunk: the interior rows, the residual of every row, b saved before x
 * overwrites it). The sweeps run SS_TRI_SUB_GROUP sub-partitions at a time, interleaved (tridiag_result.h). */

/* the chunk's band: its handle covers columns col0 .. first + rows (one past its rows on each side where there is one) */
static struct ztri_band ztri_chunk_band(const struct ss_tri_chunk *a, void *buffer)
{
    return (struct ztri_band){ (const starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffer) + a->diag_row, STARPU_MATRIX_GET_LD(buffer),
                               a->n, a->kl, a->ku, a->col0 };
}

/* A group of up to SS_TRI_SUB_GROUP sub-partitions of a chunk, from sub-partition k0 on: their first rows s[] and
 * row counts m[] (m and m + 1: their sweeps run in step, the longer ones one row more) */
struct ztri_group { int w, mmax, s[SS_TRI_SUB_GROUP], m[SS_TRI_SUB_GROUP]; };
static struct ztri_group ztri_group_at(const struct ss_tri_chunk *a, int subs, int k0)
{
    struct ztri_group g = { .w = ss_min(SS_TRI_SUB_GROUP, subs - k0) };
    for (int kk = 0; kk < g.w; kk++) {
        g.s[kk] = a->first + ss_spike_part_first(k0 + kk, a->rows / subs, a->rows % subs);
        g.m[kk] = ss_spike_part_size(k0 + kk, a->rows / subs, a->rows % subs);
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

/* row i's three entries, i an interior row of the matrix (0 < i < n - 1: no end to test) */
static inline void ztri_row_entries(const struct ztri_band *A, int i, starsolve_complex64_t *lo, starsolve_complex64_t *di,
                                    starsolve_complex64_t *hi)
{
    const starsolve_complex64_t *col = A->dg + (size_t)(i - A->col0) * A->ld;
    *di = col[0];
    *lo = A->kl ? col[1 - (ptrdiff_t)A->ld] : 0;
    *hi = A->ku ? col[A->ld - 1] : 0;
}

/* One sub-partition's interior rows s + 1 .. e - 1 eliminated downward (Thomas, no pivoting), its first and last
 * unknowns x_s, x_e left as unknowns: row i becomes x_i + u x_{i+1} + v x_s = y (v: the fill from x_s; at row e - 1,
 * x_{i+1} is x_e). Back substitution would give x_{s+1} = Y - V x_s - W x_e with Y = sum_k pi_k y_k, V = sum_k pi_k v_k,
 * W = pi_{e-1} u_{e-1}, pi_{s+1} = 1, pi_{k+1} = -u_k pi_k: the sweep sums them as it goes, so that one pass yields the
 * first row's and the last row's equations in x_{s-1}, x_s, x_e, x_{e+1} (the reduced system's). It starts from
 * u = 0, v = -1, pi = 1, V = y = Y = 0, so that the first row takes the same step as the others, and ends with pi = pi_e
 * (W = -pi). */
struct ztri_chain { starsolve_complex64_t u, v, pi, V, y, Y; };
static const struct ztri_chain ztri_chain_start = { .u = 0, .v = -1, .pi = 1, .V = 0, .y = 0, .Y = 0 };

/* the sweep at interior row i, right-hand side bi; the row's check, *zero counts zero pivots */
static inline void ztri_reduce_row(const struct ztri_band *A, struct ztri_chain *c, int i, starsolve_complex64_t bi, double *dominance,
                                   double *nonfinite, int *zero)
{
    starsolve_complex64_t lo, di, hi;
    ztri_row_entries(A, i, &lo, &di, &hi);
    ztri_row_check(lo, di, hi, dominance, nonfinite);
    const starsolve_complex64_t pivot = di - lo * c->u;
    *zero += pivot == 0;
    const starsolve_complex64_t inv = 1 / pivot;
    c->u = hi * inv;
    c->v = -lo * c->v * inv;
    c->y = (bi - lo * c->y) * inv;
    c->V += c->pi * c->v;
    c->Y += c->pi * c->y;
    c->pi = -c->u * c->pi;
}

/* buffers: 0 the chunk's band (R), 1 its rows of B (R; absent when nrhs is 0), then red (W, SS_TRI_RED_COUNT).
 * Per group and column (none for the check task: a zero right-hand side) one sweep of its sub-partitions in step;
 * with several columns the matrix's part is swept again for each (its coefficients come out the same). */
static void ztri_reduce_cpu(void *buffers[], void *cl_arg)
{
    const struct ss_tri_chunk *a = cl_arg;
    const struct ztri_band A = ztri_chunk_band(a, buffers[0]);
    const int nrhs = a->nrhs, first = a->first;
    const starsolve_complex64_t *B = nrhs ? (const starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[1]) : NULL;
    const size_t ldb = nrhs ? STARPU_MATRIX_GET_LD(buffers[1]) : 0;
    starsolve_complex64_t *red = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[nrhs ? 2 : 1]);
    const int subs = ss_tri_subs(a->rows);
    double dominance = INFINITY, nonfinite = 0;
    int zero = 0;
    for (int k0 = 0; k0 < subs; k0 += SS_TRI_SUB_GROUP) {
        const struct ztri_group g = ztri_group_at(a, subs, k0);
        for (int j = 0; j < ss_max(nrhs, 1); j++) {
            const starsolve_complex64_t *b = nrhs ? B - first + (size_t)j * ldb : NULL;   /* b[row]: B holds rows first.. */
            struct ztri_chain c[SS_TRI_SUB_GROUP];
            for (int kk = 0; kk < SS_TRI_SUB_GROUP; kk++)
                c[kk] = ztri_chain_start;
            for (int t = 1; t < g.mmax - 1; t++)   /* interior row s + t of each sub-partition */
SS_TRI_SUB_GROUP_UNROLL
                for (int kk = 0; kk < SS_TRI_SUB_GROUP; kk++)
                    if (kk < g.w && t < g.m[kk] - 1) {
                        const int i = g.s[kk] + t;
                        ztri_reduce_row(&A, &c[kk], i, b ? b[i] : 0, &dominance, &nonfinite, &zero);
                    }
            for (int kk = 0; kk < g.w; kk++) {
                starsolve_complex64_t *r = red + SS_TRI_RED_SUB(k0 + kk, nrhs);
                const int s = g.s[kk], e = s + g.m[kk] - 1;
                const starsolve_complex64_t as = ztri_sub(&A, s), ds = ztri_dia(&A, s), cs = ztri_sup(&A, s);
                const starsolve_complex64_t ae = ztri_sub(&A, e), de = ztri_dia(&A, e), ce = ztri_sup(&A, e);
                /* row s with x_{s+1} = Y - V x_s - W x_e, row e with x_{e-1} = y - v x_s - u x_e */
                if (j == 0) {
                    ztri_row_check(as, ds, cs, &dominance, &nonfinite);
                    ztri_row_check(ae, de, ce, &dominance, &nonfinite);
                    r[SS_TRI_RED_A] = as; r[SS_TRI_RED_B] = ds - cs * c[kk].V; r[SS_TRI_RED_C] = cs * c[kk].pi;
                    r[SS_TRI_RED_AL] = -ae * c[kk].v; r[SS_TRI_RED_BE] = de - ae * c[kk].u; r[SS_TRI_RED_CE] = ce;
                }
                if (b) {
                    r[SS_TRI_RED_RHS + 2 * j] = b[s] - cs * c[kk].Y;
                    r[SS_TRI_RED_RHS + 2 * j + 1] = b[e] - ae * c[kk].y;
                }
            }
        }
    }
    red[SS_TRI_RED_DOM] = dominance;
    red[SS_TRI_RED_BAD] = zero > 0 || nonfinite != 0;
}

/* buffers: red_0 .. red_{p-1} (R), then sol_0 .. sol_{p-1} (W): the reduced system (every sub-partition's first
 * and last rows, in order) by Thomas, per column */
static void ztri_reduced_cpu(void *buffers[], void *cl_arg)
{
    const struct ss_tri_chunk *a = cl_arg;
    const int p = a->nchunks, nrhs = a->nrhs;
    int N = 0;
    for (int c = 0; c < p; c++)
        N += 2 * ss_tri_subs(ss_spike_part_size(c, a->n / p, a->n % p));
    /* per row r of the reduced system: its sub-partition's entries (row r / 2's), and the elimination */
    const starsolve_complex64_t **ent = malloc((size_t)N / 2 * sizeof *ent);
    starsolve_complex64_t *up = malloc((size_t)N * sizeof *up), *inv = malloc((size_t)N * sizeof *inv), *y = malloc((size_t)N * sizeof *y);
    STARPU_ASSERT_MSG(ent && up && inv && y, "starsolve: tridiagonal reduced system: out of memory");
    int usable = 1;
    for (int c = 0, q = 0; c < p; c++) {
        const starsolve_complex64_t *red = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[c]);
        usable &= creal(red[SS_TRI_RED_BAD]) == 0 && creal(red[SS_TRI_RED_DOM]) >= a->min_dominance;
        for (int k = 0; k < ss_tri_subs(ss_spike_part_size(c, a->n / p, a->n % p)); k++)
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
            starsolve_complex64_t *sol = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[p + c]);
            for (int k = 0; k < ss_tri_subs(ss_spike_part_size(c, a->n / p, a->n % p)); k++, r += 2) {
                sol[SS_TRI_SOL_FIRST(k, j, nrhs)] = y[r];
                sol[SS_TRI_SOL_FIRST(k, j, nrhs) + 1] = y[r + 1];
            }
        }
    }
#undef RED
    for (int c = 0; c < p; c++)
        ((starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[p + c]))[0] = usable;
    free(ent); free(up); free(inv); free(y);
}

/* row i's residual b_i - a_i,i-1 xm - a_ii x - a_i,i+1 xn (entries lo, di, hi), its size into *rmax and |b_i| into
 * *bmax (*nonfinite NaN when either is not finite) */
static inline void ztri_residual_of(starsolve_complex64_t lo, starsolve_complex64_t di, starsolve_complex64_t hi, starsolve_complex64_t bi,
                                    starsolve_complex64_t xm, starsolve_complex64_t x, starsolve_complex64_t xn, double *rmax,
                                    double *bmax, double *nonfinite)
{
    const double rm = cabs(bi - lo * xm - di * x - hi * xn), bm = cabs(bi);
    *nonfinite += 0 * (rm + bm);
    *rmax = rm > *rmax ? rm : *rmax;
    *bmax = bm > *bmax ? bm : *bmax;
}

/* buffers: 0 the chunk's band (R), 1 its rows of B (RW), 2 sol of the previous chunk (R; its own for chunk 0),
 * 3 its sol (R), 4 sol of the next chunk (R; its own for the last), 5 its rows of save (W: b), 6 stat (W),
 * 7 scratch (ss_ztri_chunk_scratch_bytes): each sub-partition's interior rows by Thomas from its first and last
 * unknowns (the reduced system's), the residual of every row as x comes back up; nothing written to B when the
 * reduced task found the matrix not usable */
static void ztri_back_cpu(void *buffers[], void *cl_arg)
{
    const struct ss_tri_chunk *a = cl_arg;
    const struct ztri_band A = ztri_chunk_band(a, buffers[0]);
    starsolve_complex64_t *B = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[1]);
    const size_t ldb = STARPU_MATRIX_GET_LD(buffers[1]);
    const starsolve_complex64_t *prev = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[2]);
    const starsolve_complex64_t *sol = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[3]);
    const starsolve_complex64_t *next = (const starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[4]);
    starsolve_complex64_t *save = (starsolve_complex64_t *)STARPU_MATRIX_GET_PTR(buffers[5]);
    const size_t lds = STARPU_MATRIX_GET_LD(buffers[5]);
    starsolve_complex64_t *stat = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[6]);
    const int nrhs = a->nrhs, subs = ss_tri_subs(a->rows), M = a->rows / subs + 1, first = a->first;
    /* [kk * M + t] for interior row s + 1 + t of the group's sub-partition kk: the eliminated row x_i + U x_{i+1} = Y */
    starsolve_complex64_t *U = (starsolve_complex64_t *)STARPU_VECTOR_GET_PTR(buffers[7]), *Y = U + (size_t)SS_TRI_SUB_GROUP * M;
    if (creal(sol[0]) == 0)
        return;
    /* the unknowns across the chunk's ends: the previous chunk's last row, the next chunk's first */
    const int prev_subs = a->c > 0 ? ss_tri_subs(ss_spike_part_size(a->c - 1, a->n / a->nchunks, a->n % a->nchunks)) : 0;
    for (int j = 0; j < nrhs; j++) {
        starsolve_complex64_t *b = B - first + (size_t)j * ldb, *sv = save - first + (size_t)j * lds;   /* b[row], sv[row] */
        double rmax = 0, bmax = 0, nonfinite = 0;
        for (int k0 = 0; k0 < subs; k0 += SS_TRI_SUB_GROUP) {
            const struct ztri_group g = ztri_group_at(a, subs, k0);
            starsolve_complex64_t u[SS_TRI_SUB_GROUP], y[SS_TRI_SUB_GROUP], xs[SS_TRI_SUB_GROUP], xe[SS_TRI_SUB_GROUP];
            for (int kk = 0; kk < g.w; kk++) {
                u[kk] = 0;
                y[kk] = xs[kk] = sol[SS_TRI_SOL_FIRST(k0 + kk, j, nrhs)];
                xe[kk] = sol[SS_TRI_SOL_FIRST(k0 + kk, j, nrhs) + 1];
            }
            /* downward over the interior rows from x_s (row s + 1's right-hand side less a x_s) */
            for (int t = 0; t < g.mmax - 2; t++)
SS_TRI_SUB_GROUP_UNROLL
                for (int kk = 0; kk < SS_TRI_SUB_GROUP; kk++)
                    if (kk < g.w && t < g.m[kk] - 2) {
                        const int i = g.s[kk] + 1 + t;
                        starsolve_complex64_t lo, di, hi;
                        ztri_row_entries(&A, i, &lo, &di, &hi);
                        const starsolve_complex64_t inv = 1 / (di - lo * u[kk]);
                        u[kk] = hi * inv;
                        y[kk] = (b[i] - lo * y[kk]) * inv;
                        U[kk * M + t] = u[kk];
                        Y[kk * M + t] = y[kk];
                    }
            /* upward: x_i = Y - U x_{i+1} from x_e, and row i + 1's residual once x_i is known (x1, x2: x_{i+1}, x_{i+2}),
             * b saved and x stored; row e's (its superdiagonal may lie past the matrix) and the first rows' apart */
            starsolve_complex64_t x1[SS_TRI_SUB_GROUP], x2[SS_TRI_SUB_GROUP];
            for (int kk = 0; kk < g.w; kk++) {
                const int k = k0 + kk, e = g.s[kk] + g.m[kk] - 1;
                const starsolve_complex64_t after = k + 1 < subs ? sol[SS_TRI_SOL_FIRST(k + 1, j, nrhs)]
                                                  : a->c + 1 < a->nchunks ? next[SS_TRI_SOL_FIRST(0, j, nrhs)] : 0;
                const starsolve_complex64_t x = Y[kk * M + g.m[kk] - 3] - U[kk * M + g.m[kk] - 3] * xe[kk];   /* row e - 1 */
                ztri_residual_of(ztri_sub(&A, e), ztri_dia(&A, e), ztri_sup(&A, e), b[e], x, xe[kk], after, &rmax, &bmax, &nonfinite);
                sv[e] = b[e];
                b[e] = xe[kk];
                x1[kk] = x;
                x2[kk] = xe[kk];
            }
            for (int r = 1; r < g.mmax - 2; r++)   /* interior row t = m - 3 - r */
SS_TRI_SUB_GROUP_UNROLL
                for (int kk = 0; kk < SS_TRI_SUB_GROUP; kk++)
                    if (kk < g.w && r < g.m[kk] - 2) {
                        const int t = g.m[kk] - 3 - r, i = g.s[kk] + 1 + t;
                        const starsolve_complex64_t x = Y[kk * M + t] - U[kk * M + t] * x1[kk];
                        starsolve_complex64_t lo, di, hi;
                        ztri_row_entries(&A, i + 1, &lo, &di, &hi);
                        ztri_residual_of(lo, di, hi, b[i + 1], x, x1[kk], x2[kk], &rmax, &bmax, &nonfinite);
                        sv[i + 1] = b[i + 1];
                        b[i + 1] = x1[kk];
                        x2[kk] = x1[kk];
                        x1[kk] = x;
                    }
            for (int kk = 0; kk < g.w; kk++) {   /* rows s + 1 and s */
                const int k = k0 + kk, s = g.s[kk];
                const starsolve_complex64_t before = k > 0 ? sol[SS_TRI_SOL_FIRST(k - 1, j, nrhs) + 1]
                                                   : a->c > 0 ? prev[SS_TRI_SOL_FIRST(prev_subs - 1, j, nrhs) + 1] : 0;
                starsolve_complex64_t lo, di, hi;
                ztri_row_entries(&A, s + 1, &lo, &di, &hi);
                ztri_residual_of(lo, di, hi, b[s + 1], xs[kk], x1[kk], x2[kk], &rmax, &bmax, &nonfinite);
                ztri_residual_of(ztri_sub(&A, s), ztri_dia(&A, s), ztri_sup(&A, s), b[s], before, xs[kk], x1[kk], &rmax, &bmax, &nonfinite);
                sv[s + 1] = b[s + 1];
                b[s + 1] = x1[kk];
                sv[s] = b[s];
                b[s] = xs[kk];
            }
        }
        stat[2 * j] = nonfinite != 0 ? INFINITY : rmax;
        stat[2 * j + 1] = nonfinite != 0 ? INFINITY : bmax;
    }
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

/* ---- the chunk tasks (CPU workers alone) ---- */
static uint32_t footprint_tri_chunk(struct starpu_task *task)
{
    const struct ss_tri_chunk *a = task->cl_arg;
    return starpu_hash_crc32c_be((uint32_t)a->rows, starpu_hash_crc32c_be((uint32_t)a->nrhs, starpu_hash_crc32c_be((uint32_t)a->nchunks, 0)));
}
static struct starpu_perfmodel model_ztri_reduce = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_ztri_reduce",
                                                     .footprint = footprint_tri_chunk };
static struct starpu_perfmodel model_ztri_reduced = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_ztri_reduced",
                                                      .footprint = footprint_tri_chunk };
static struct starpu_perfmodel model_ztri_back = { .type = STARPU_HISTORY_BASED, .symbol = "starsolve_ztri_back",
                                                   .footprint = footprint_tri_chunk };
/* CPU only: with CUDA workers the tridiagonal path is one task (above) */
static struct starpu_codelet cl_ztri_reduce = { .where = STARPU_CPU, .cpu_funcs = { ztri_reduce_cpu }, .nbuffers = STARPU_VARIABLE_NBUFFERS,
                                                .model = &model_ztri_reduce, .name = "ztri_reduce", .callback_func = ss_trace_task_done };
static struct starpu_codelet cl_ztri_reduced = { .where = STARPU_CPU, .cpu_funcs = { ztri_reduced_cpu }, .nbuffers = STARPU_VARIABLE_NBUFFERS,
                                                 .model = &model_ztri_reduced, .name = "ztri_reduced", .callback_func = ss_trace_task_done };
static struct starpu_codelet cl_ztri_back = { .where = STARPU_CPU, .cpu_funcs = { ztri_back_cpu }, .nbuffers = STARPU_VARIABLE_NBUFFERS,
                                              .model = &model_ztri_back, .name = "ztri_back", .callback_func = ss_trace_task_done };

static void insert_chunk_task(struct starpu_codelet *cl, const struct ss_tri_chunk *args, struct starpu_data_descr *d, int nd, double flops)
{
    struct ss_tri_chunk *a = malloc(sizeof *a);   /* StarPU frees it with the task (STARPU_CL_ARGS) */
    STARPU_ASSERT_MSG(a, "starsolve: tridiagonal chunks: out of memory");
    *a = *args;
    int ret = ss_task_insert(cl, STARPU_CL_ARGS, a, sizeof *a, STARPU_DATA_MODE_ARRAY, d, nd, STARPU_EXECUTE_ON_WORKER, a->worker,
                             STARPU_NAME, cl->name, STARPU_FLOPS, SS_FLOP_SCALE * flops, 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert %s", cl->name);
}

void insert_ztri_reduce(const struct ss_tri_chunk *a, starpu_data_handle_t band, starpu_data_handle_t B, starpu_data_handle_t red)
{
    struct starpu_data_descr d[3] = { { band, STARPU_R }, { B, STARPU_R }, { red, STARPU_W } };
    if (!B)
        d[1] = d[2];
    insert_chunk_task(&cl_ztri_reduce, a, d, B ? 3 : 2, 8.0 * a->rows * (a->nrhs + 1));
}

size_t ss_ztri_chunk_scratch_bytes(int rows)   /* the back task sweeps one column at a time */
{
    return 2 * (size_t)SS_TRI_SUB_GROUP * (rows / ss_tri_subs(rows) + 1) * sizeof(starsolve_complex64_t);
}

void insert_ztri_reduced(const struct ss_tri_chunk *a, const starpu_data_handle_t *red, const starpu_data_handle_t *sol)
{
    struct starpu_data_descr *d = malloc(2 * (size_t)a->nchunks * sizeof *d);
    STARPU_ASSERT_MSG(d, "starsolve: tridiagonal chunks: out of memory");
    for (int c = 0; c < a->nchunks; c++) {
        d[c] = (struct starpu_data_descr){ red[c], STARPU_R };
        d[a->nchunks + c] = (struct starpu_data_descr){ sol[c], STARPU_W };
    }
    insert_chunk_task(&cl_ztri_reduced, a, d, 2 * a->nchunks, 16.0 * a->nchunks * (a->nrhs + 1));
    free(d);
}

void insert_ztri_back(const struct ss_tri_chunk *a, starpu_data_handle_t band, starpu_data_handle_t B, starpu_data_handle_t sol_prev,
                      starpu_data_handle_t sol, starpu_data_handle_t sol_next, starpu_data_handle_t save, starpu_data_handle_t stat,
                      starpu_data_handle_t scratch)
{
    struct starpu_data_descr d[8] = { { band, STARPU_R }, { B, STARPU_RW }, { sol_prev, STARPU_R }, { sol, STARPU_R }, { sol_next, STARPU_R },
                                      { save, STARPU_W }, { stat, STARPU_W }, { scratch, STARPU_SCRATCH } };
    insert_chunk_task(&cl_ztri_back, a, d, 8, 20.0 * a->rows * a->nrhs);
}
