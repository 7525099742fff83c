/* The algorithm layer: tile loops only, no data registration and no BLAS. */
#ifndef STARSOLVE_ALGORITHMS_H
#define STARSOLVE_ALGORITHMS_H
#include "internal.h"
#include "algorithms_s.h"
#include "algorithms_d.h"
#include "algorithms_c.h"
#include "algorithms_z.h"
#endif
