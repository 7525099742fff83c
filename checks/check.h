/* Residual checks and test matrices shared by the tests and the drivers. */
#ifndef STARSOLVE_CHECK_H
#define STARSOLVE_CHECK_H
#include "starsolve.h"
/* cblas takes complex scalars by address; scripts/genprec.sh turns CBLAS_SADDR(x) into (x) for s and d. */
#define CBLAS_SADDR(x) (&(x))
#include "check_s.h"
#include "check_d.h"
#include "check_c.h"
#include "check_z.h"
/* LAPACK's threshold on scaled residuals (DESIGN.md): above it, or NaN, fails. */
#define CHECK_THRESHOLD 30.0
static inline int check_passes(double r) { return r <= CHECK_THRESHOLD; }   /* false for NaN */
#endif
