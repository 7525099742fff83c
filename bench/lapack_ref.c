/* lapack_ref: time the reference, OpenBLAS's own dgetrf / dpotrf / dgeqrf, on the
 * same matrices as starpu_lu / starpu_cholesky / starpu_qr, and print the same result lines.
 *   lapack_ref -op getrf|potrf|geqrf [-n N] [-niter K] [-seed S] [-check] [--csv]
 * OpenBLAS runs its own threads over all cores (OPENBLAS_NUM_THREADS to change). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include <lapacke.h>
#include "check.h"
#include "../examples/driver.h"

struct ref_opts {
    const char *op;   /* "getrf", "potrf" or "geqrf" */
    int n, niter, seed, check, csv;
};

static int usage(const char *what, const char *value)
{
    fprintf(stderr, "lapack_ref: %s%s (see --help)\n", what, value);
    return DRIVER_USAGE;
}

/* Returns DRIVER_OK, DRIVER_USAGE, or -1 after --help. */
static int parse(int argc, char **argv, struct ref_opts *o)
{
    *o = (struct ref_opts){ .op = "getrf", .n = 4096, .niter = 1, .seed = 1 };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: lapack_ref -op getrf|potrf|geqrf [-n N] [-niter K] [-seed S] [-check] [--csv]\n"
                   "Times OpenBLAS's LAPACKE_dgetrf / dpotrf (lower) / dgeqrf on the matrices of starpu_lu /\n"
                   "starpu_cholesky / starpu_qr (same generators, same seed), each run on a fresh copy, every run\n"
                   "printed. Threads: OpenBLAS's (OPENBLAS_NUM_THREADS). Output as the drivers'.\n");
            return -1;
        }
        if (!strcmp(a, "-check")) { o->check = 1; continue; }
        if (!strcmp(a, "--csv")) { o->csv = 1; continue; }
        int *dst = !strcmp(a, "-n") ? &o->n : !strcmp(a, "-niter") ? &o->niter : !strcmp(a, "-seed") ? &o->seed : NULL;
        if (!dst && strcmp(a, "-op"))
            return usage("unknown flag ", a);
        if (!v)
            return usage(a, " needs a value");
        i++;
        if (!dst) {
            if (strcmp(v, "getrf") && strcmp(v, "potrf") && strcmp(v, "geqrf"))
                return usage("-op needs getrf, potrf or geqrf, not ", v);
            o->op = v;
        } else if (driver_parse_int(v, dst == &o->seed ? 0 : 1, dst)) {
            return usage(a, dst == &o->seed ? " needs an integer >= 0" : " needs an integer >= 1");
        }
    }
    return DRIVER_OK;
}

int main(int argc, char **argv)
{
    struct ref_opts o;
    int ret = parse(argc, argv, &o);
    if (ret != DRIVER_OK)
        return ret < 0 ? DRIVER_OK : ret;
    const int n = o.n, lu = !strcmp(o.op, "getrf"), qr = !strcmp(o.op, "geqrf");
    const size_t size = (size_t)n * n;
    double *A = malloc(size * sizeof *A), *A0 = o.check ? malloc(size * sizeof *A0) : NULL;
    int *ipiv = malloc((size_t)n * sizeof *ipiv);
    /* geqrf: tau, and LAPACK's own choice of workspace (asked once, as a user does) */
    double *tau = malloc((size_t)n * sizeof *tau), lwork_query = 0;
    LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, n, n, A, n, tau, &lwork_query, -1);
    int lwork = (int)lwork_query > 1 ? (int)lwork_query : 1;
    double *work = malloc((size_t)lwork * sizeof *work);
    if (!A || !ipiv || !tau || !work || (o.check && !A0)) {
        fprintf(stderr, "lapack_ref: not enough memory for n = %d\n", n);
        return DRIVER_FAILED;
    }
    /* the same matrices as the drivers */
    if (o.check) {
        if (lu || qr) gen_dmatrix(n, n, A0, n, (unsigned)o.seed); else gen_dhpd(n, A0, n, (unsigned)o.seed);
    }
    const double nd = n, flops = lu ? 2.0 / 3.0 * nd * nd * nd : qr ? 4.0 / 3.0 * nd * nd * nd : nd * nd * nd / 3.0;
    char driver[32];
    snprintf(driver, sizeof driver, "openblas_%s", o.op);
    if (o.csv)
        driver_print_csv_header();

    int status = DRIVER_OK;
    for (int run = 1; run <= o.niter; run++) {
        /* a fresh matrix, written (so touched: first-touch page faults stay out of the timing) */
        if (o.check)
            memcpy(A, A0, size * sizeof *A);
        else if (lu || qr)
            gen_dmatrix(n, n, A, n, (unsigned)o.seed);
        else
            gen_dhpd(n, A, n, (unsigned)o.seed);
        memset(ipiv, 0, (size_t)n * sizeof *ipiv);

        /* the _work variants: the plain LAPACKE ones first scan A for NaNs, which is not LAPACK's work */
        driver_time_t t0 = driver_now();
        int info = lu   ? LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, A, n, ipiv)
                   : qr ? LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, n, n, A, n, tau, work, lwork)
                        : LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, A, n);
        driver_time_t seconds = driver_now() - t0;

        int exact = n <= 4096, checked = o.check && info == 0 && (!qr || exact);
        double berr = -1;
        if (checked && qr) {
            /* Q from dorgqr on a copy of the factors, then ||A - QR|| as for starpu_qr */
            double *Q = malloc(size * sizeof *Q), orth;
            memcpy(Q, A, size * sizeof *Q);
            LAPACKE_dorgqr(LAPACK_COL_MAJOR, n, n, n, Q, n, tau);
            berr = check_dgeqrf(n, n, A0, n, A, n, Q, n, &orth);
            free(Q);
        } else if (checked) {
            berr = lu ? check_dgetrf(n, n, A0, n, A, n, ipiv, exact) : check_dpotrf('L', n, A0, n, A, n, exact);
        }
        struct driver_row w = {
            .driver = driver, .prec = 'd', .m = n, .n = n, .nb = -1, .nrhs = 0,
            .ncpus = openblas_get_num_threads(), .ngpus = 0, .sched = "-",
            .seconds = seconds, .gflops = seconds > 0 ? flops / seconds * 1e-9 : 0, .solve_seconds = -1,
            .berr = berr, .berr_kind = checked ? (exact ? "exact" : "estimate") : "-", .resid = -1, .info = info,
        };
        int ok = info == 0 && (!checked || check_passes(berr));
        FILE *h = o.csv ? stderr : stdout;
        fprintf(h, "%s d n=%d threads=%d core=%s run %d/%d: %.3f s %.2f GF/s", driver, n, w.ncpus,
                openblas_get_corename(), run, o.niter, seconds, w.gflops);
        if (checked)
            fprintf(h, ", berr %.2e (%s)", berr, w.berr_kind);
        fprintf(h, ", info %d%s\n", info, ok ? "" : "  FAILED");
        fflush(h);
        if (o.csv)
            driver_print_csv_row(&w);
        if (!ok)
            status = DRIVER_FAILED;
    }
    free(A); free(A0); free(ipiv); free(tau); free(work);
    return status;
}
