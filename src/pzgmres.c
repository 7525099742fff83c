/* One GMRES correction of the RBT solver's iterative refinement (GMRES-IR: Carson and Higham,
 * SIAM J. Sci. Comput. 39 (2017) and 40 (2018)).
 *
 * Why: a classical step, d = M^-1 r with M^-1 = V (L U)^-1 U^T the randomized factors, shrinks the
 * error by about ||I - M^-1 A|| a step. Where LU without pivoting of the randomized matrix grew its
 * entries, that factor is near 1 or above, and classical refinement stalls: Orthog at n = 8192 stays at
 * a backward error of 1e-2 step after step, Kahan at n = 97 wanders around 1e-14, Ris at n = 300 at 0.2.
 * GMRES on A d = r, preconditioned on the right by the same factors, still converges there in a few tens
 * of steps, each one solve with the factors and one product with A (bench/NOTES.md, session 72).
 *
 * Every column of R has its own Krylov space. The columns go through the same tasks (a solve with F
 * and a product with A per step for all of them) and differ only in their scalars, which the host
 * keeps: the Hessenberg matrix of each column, rotated into triangular form by Givens rotations as it
 * grows, and its rotated right-hand side g, whose last entry's modulus is the 2-norm of the column's
 * residual. Arnoldi orthogonalizes by classical Gram-Schmidt twice: two rounds of dot products a step,
 * each round one wait for all of them, where modified Gram-Schmidt would wait once per basis vector.
 * A column stops at its target, at a breakdown (an exact solution in the space, or a NaN), or after
 * max_inner steps; a finished column's new basis vectors are zero (scaled by 0).
 *
 * The update is X += Z y with the vectors Z[k] = M^-1 V[k] kept (flexible GMRES), not M^-1 applied
 * once to V y: with factors grown by 1e15, M^-1 in floating point is far from linear, and that way
 * GMRES's estimate fell to 4e-14 while the true residual stayed at 7.7e-6 (Ris, n = 256). */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include "algorithms.h"
#include "codelets.h"

/* sums[i nrhs + c] = X_i(:, c)^H Y_i(:, c) for i < count, from the partial vectors of pzdotc_columns (parts,
 * values: pzcolumn_parts_register's layout over R's tile columns), added over the processes */
static void combine_dots(const starsolve_desc_t *R, int count, starpu_data_handle_t *parts,
                         const starsolve_complex64_t *values, starsolve_complex64_t *sums)
{
    const int width = (int)(sizeof(starsolve_complex64_t) / sizeof(double));   /* a complex entry adds as 2 reals */
    pzcolumn_parts_combine(R, count, parts, (const double *)values, width, 0, (double *)sums);
    if (R->P * R->Q > 1)   /* every process the same sums, so the same decisions */
        ss_mpi_sum_reals(sums, count * R->n * width, sizeof(double));
}

/* The plane rotation [cs s; -conj(s) cs] (cs real) that takes (a, b) to (r, 0); returns r */
static starsolve_complex64_t rotation(starsolve_complex64_t a, starsolve_complex64_t b, double *cs,
                                      starsolve_complex64_t *s)
{
    double abs_a = cabs(a), norm = hypot(abs_a, cabs(b));
    if (abs_a == 0) {
        *cs = 0;
        *s = 1;
        return b;
    }
    *cs = abs_a / norm;
    *s = (a / abs_a) * conj(b) / norm;
    return (a / abs_a) * norm;
}

int pzgmres_correction(const starsolve_desc_t *A, const starsolve_desc_t *F, int depth, starpu_data_handle_t *u,
                       starpu_data_handle_t *v, starsolve_desc_t *R, starsolve_desc_t *X,
                       const double *target, int max_inner)
{
    const int nrhs = R->n, m = max_inner;
    const size_t P = R->P, per_vector = P * R->nt, hsize = (size_t)(m + 1) * m;
    /* host: per column its Hessenberg matrix H ((m + 1) x m), g (m + 1), rotations (m); the scalars of a
     * round (dots: (m + 1) x nrhs, coef: nrhs), y (m x nrhs), and the partial dot vectors' values */
    starsolve_complex64_t *H = malloc((size_t)nrhs * hsize * sizeof *H), *g = malloc((size_t)nrhs * (m + 1) * sizeof *g);
    starsolve_complex64_t *sn = malloc((size_t)nrhs * m * sizeof *sn), *dots = malloc((size_t)(m + 1) * nrhs * sizeof *dots);
    starsolve_complex64_t *coef = malloc((size_t)nrhs * sizeof *coef), *y = malloc((size_t)m * nrhs * sizeof *y);
    starsolve_complex64_t *values = malloc((size_t)(m + 1) * P * nrhs * sizeof *values);
    double *cs = malloc((size_t)nrhs * m * sizeof *cs);
    int *steps = calloc((size_t)nrhs, sizeof *steps), *active = calloc((size_t)nrhs, sizeof *active);
    starpu_data_handle_t *hdot = malloc((size_t)(m + 1) * per_vector * sizeof *hdot);
    /* the basis: V[0] is R itself, scaled; the others are made as the iteration needs them, as are the
     * preconditioned vectors Z[k] = M^-1 V[k] (X's rows) */
    starsolve_desc_t **V = calloc(2 * (size_t)m + 1, sizeof *V), **Z = V + m + 1;
    if (!H || !g || !sn || !dots || !coef || !y || !values || !cs || !steps || !active || !hdot || !V) {
        free(H); free(g); free(sn); free(dots); free(coef); free(y); free(values); free(cs); free(steps);
        free(active); free(hdot); free(V);
        return -1000;
    }
    /* each partial vector lives with the tiles it is computed from (pzdotc_columns); vector i's parts are
     * registered when step i first needs them (most corrections stop well before m steps) */
    int info = 0, any = 0, registered = 1;
    pzcolumn_parts_register(R, 1, values, sizeof *values, hdot);
    V[0] = R;
    pzdotc_columns(R, R, hdot);
    combine_dots(R, 1, hdot, values, dots);
    for (int c = 0; c < nrhs; c++) {
        double beta = sqrt(fabs(creal(dots[c])));
        active[c] = isfinite(beta) && beta > target[c];
        g[(size_t)c * (m + 1)] = beta;
        coef[c] = active[c] ? 1 / beta : 0;
        any |= active[c];
    }
    pzscal_columns(coef, R);

    for (int k = 0; k < m && any; k++) {
        /* Z[k] = M^-1 V[k], V[k + 1] = -A Z[k]: the sign goes into the scalars below */
        if (ss_desc_create_workspace(&V[k + 1], R, R->m, nrhs) || ss_desc_create_workspace(&Z[k], X, X->m, nrhs)) {
            info = -1000;
            break;
        }
        if (k + 1 > registered) {
            pzcolumn_parts_register(R, 1, values + (size_t)k * P * nrhs, sizeof *values, hdot + k * per_vector);
            registered = k + 1;
        }
        pzlacpy_pad_rows(V[k], Z[k]);
        pzgerbt_solve(F, Z[k], depth, u, v);
        pzlaset_zero(V[k + 1]);
        pzresidual(A, Z[k], V[k + 1]);
        for (int c = 0; c < nrhs; c++)
            for (int i = 0; i <= k + 1; i++)
                H[c * hsize + i + (size_t)k * (m + 1)] = 0;
        /* h(i, k) = V[i]^H A M^-1 V[k] = -(V[i]^H V[k + 1]), removed from V[k + 1], twice */
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i <= k; i++)
                pzdotc_columns(V[i], V[k + 1], hdot + i * per_vector);
            combine_dots(R, k + 1, hdot, values, dots);
            for (int i = 0; i <= k; i++) {
                for (int c = 0; c < nrhs; c++) {
                    starsolve_complex64_t d = active[c] ? dots[(size_t)i * nrhs + c] : 0;
                    H[c * hsize + i + (size_t)k * (m + 1)] -= d;
                    coef[c] = -d;
                }
                pzaxpy_columns(coef, V[i], V[k + 1]);
            }
        }
        pzdotc_columns(V[k + 1], V[k + 1], hdot);
        combine_dots(R, 1, hdot, values, dots);
        any = 0;
        for (int c = 0; c < nrhs; c++) {
            double norm = sqrt(fabs(creal(dots[c])));
            coef[c] = active[c] && norm > 0 && isfinite(norm) ? -1 / norm : 0;
            if (!active[c])
                continue;
            starsolve_complex64_t *h = H + c * hsize + (size_t)k * (m + 1), *gc = g + (size_t)c * (m + 1);
            h[k + 1] = norm;
            for (int i = 0; i < k; i++) {   /* the earlier rotations on the new column */
                starsolve_complex64_t a = h[i], b = h[i + 1], s = sn[(size_t)c * m + i];
                double co = cs[(size_t)c * m + i];
                h[i] = co * a + s * b;
                h[i + 1] = -conj(s) * a + co * b;
            }
            h[k] = rotation(h[k], h[k + 1], &cs[(size_t)c * m + k], &sn[(size_t)c * m + k]);
            h[k + 1] = 0;
            gc[k + 1] = -conj(sn[(size_t)c * m + k]) * gc[k];
            gc[k] = cs[(size_t)c * m + k] * gc[k];
            int usable = isfinite(cabs(h[k])) && cabs(h[k]) > 0 && isfinite(cabs(gc[k + 1]));
            steps[c] = usable ? k + 1 : k;
            active[c] = usable && norm > 0 && cabs(gc[k + 1]) > target[c];
            any |= active[c];
        }
        pzscal_columns(coef, V[k + 1]);
    }

    /* y = H^-1 g on each column's triangle, then X += Z y */
    int most = 0;
    for (int c = 0; c < nrhs; c++) {
        const starsolve_complex64_t *h = H + c * hsize, *gc = g + (size_t)c * (m + 1);
        for (int i = m - 1; i >= 0; i--) {
            starsolve_complex64_t sum = 0;
            if (i < steps[c]) {
                sum = gc[i];
                for (int j = i + 1; j < steps[c]; j++)
                    sum -= h[i + (size_t)j * (m + 1)] * y[(size_t)j * nrhs + c];
                sum /= h[i + (size_t)i * (m + 1)];
            }
            y[(size_t)i * nrhs + c] = sum;
        }
        most = ss_max(most, steps[c]);
    }
    if (info == 0)
        for (int i = 0; i < most; i++)
            pzaxpy_columns(y + (size_t)i * nrhs, Z[i], X);
    pzcolumn_parts_unregister(R, registered, hdot);
    for (int i = 1; i <= 2 * m; i++)
        ss_desc_discard(V[i]);
    free(H); free(g); free(sn); free(dots); free(coef); free(y); free(values); free(cs); free(steps);
    free(active); free(hdot); free(V);
    return info ? info : most;
}
