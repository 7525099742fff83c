/* Residual checks and test matrices shared by the tests and the drivers. */
#ifndef STARSOLVE_CHECK_H
#define STARSOLVE_CHECK_H
#include "starsolve.h"
/* cblas takes complex scalars by address; scripts/genprec.sh turns CBLAS_SADDR(x) into (x) for s and d. */
#define CBLAS_SADDR(x) (&(x))
/* How a test matrix was generated, for the checks that regenerate it instead of
 * keeping a copy (a run that fills host memory has no room for one):
 * MATGEN_RANDOM: gen_<p>matrix(m, n, seed) plus `shift` on the diagonal;
 * MATGEN_HPD: gen_<p>hpd(n, seed) (m = n, shift unused). */
enum { MATGEN_RANDOM, MATGEN_HPD };
struct matgen {
    int kind, m, n;
    unsigned seed;
    double shift;
};
#include "check_s.h"
#include "check_d.h"
#include "check_c.h"
#include "check_z.h"
/* The kinds gen_<p>gallery knows, NULL-terminated (checks/zgallery.c says what each is). */
static const char *const gallery_kinds[] = {
    "rand", "randn", "cond1e8", "cond1e12", "zerodiag", "zeroblock", "fiedler", "lotkin",
    "chebspec", "ris", "orthog", "kahan", "wilkinson", NULL,
};

/* LAPACK's threshold on scaled residuals (DESIGN.md): above it, or NaN, fails. */
#define CHECK_THRESHOLD 30.0
static inline int check_passes(double r) { return r <= CHECK_THRESHOLD; }   /* false for NaN */
#endif
