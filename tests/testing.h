/* Helpers shared by the starsolve tests (make check).
 *
 * Every test program counts its checks through TEST_CHECK and ends with
 * testing_summary(), which prints "N passed, M failed" and gives the exit
 * status automake's test driver expects (0 pass, 1 fail, 77 skip, 99 hard error).
 * The generic tests (tests/ztest_*.c, generated into s, d, c, z) include this
 * file too: it is not generated, so it holds no precision-specific names except
 * the explicit prototypes at the end. */
#ifndef STARSOLVE_TESTING_H
#define STARSOLVE_TESTING_H

#include <execinfo.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "starsolve.h"
#include "check.h"

/* automake's parallel test driver: 77 means skipped, 99 a hard error (not a test failure) */
#define TESTING_SKIP 77
#define TESTING_HARD_ERROR 99

/* The checks of the whole program, all precisions together. Each test program's
 * main defines it once: `struct testing_counts testing_counts;`. */
struct testing_counts {
    long passed, failed;
};
extern struct testing_counts testing_counts;

/* Set STARSOLVE_TEST_VERBOSE=1 to see every check that passes as well. */
static inline int testing_verbose(void)
{
    const char *v = getenv("STARSOLVE_TEST_VERBOSE");
    return v && *v && strcmp(v, "0") != 0;
}

/* Count one check; on failure print where it is, the condition and the details.
 * Returns ok, so that a caller can skip the checks that depend on this one. */
static inline int testing_report(int ok, const char *file, int line, const char *cond, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static inline int testing_report(int ok, const char *file, int line, const char *cond, const char *fmt, ...)
{
    va_list ap;
    if (ok)
        testing_counts.passed++;
    else
        testing_counts.failed++;
    if (ok && !testing_verbose())
        return ok;
    printf("%s %s:%d: ", ok ? "ok  " : "FAIL", file, line);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    if (!ok)
        printf("  [%s]", cond);
    printf("\n");
    fflush(stdout);   /* FAIL lines interleave correctly with StarPU's own output in the log */
    return ok;
}

/* TEST_CHECK(cond, fmt, ...): cond must hold; fmt and its arguments say what was
 * tested and with which values, so that a FAIL line alone is enough to reproduce. */
#define TEST_CHECK(cond, ...) testing_report((cond) ? 1 : 0, __FILE__, __LINE__, #cond, __VA_ARGS__)

/* A part of a test that cannot run here: say so, it counts as neither pass nor fail. */
static inline void testing_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void testing_skip(const char *fmt, ...)
{
    va_list ap;
    printf("SKIP ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
}

/* Memory for a test: a failed allocation is the machine's problem, not a failed check. */
static inline void *testing_alloc(size_t bytes)
{
    void *p = calloc(bytes ? bytes : 1, 1);
    if (!p) {
        fprintf(stderr, "testing: out of memory for %zu bytes\n", bytes);
        exit(TESTING_HARD_ERROR);
    }
    return p;
}

/* A hang (a task graph that never completes, a lost wakeup) must fail the test,
 * not stall make check: after STARSOLVE_TEST_TIMEOUT seconds (default 600, far
 * above the normal run time: this is a guard, not a timing check) the program
 * stops with status 1. */
static inline void testing_watchdog_fired(int sig)
{
    static const char msg[] = "FAIL: the test did not finish in STARSOLVE_TEST_TIMEOUT seconds (hang?)\n";
    (void)sig;
    (void)!write(STDOUT_FILENO, msg, sizeof msg - 1);   /* async-signal-safe, unlike printf */
    _exit(1);
}

/* A crash (SIGSEGV, SIGBUS, SIGABRT, SIGFPE) prints the signal and the stack to
 * stderr before dying as it would have: a crash on CI then says where it was.
 * backtrace_symbols_fd writes with no malloc, so it is safe in the handler
 * (backtrace() is called once up front to load libgcc outside the handler). */
static void testing_crash_report(int sig)
{
    static const char msg[] = "testing: fatal signal, stack:\n";
    (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
    void *frames[64];
    int n = backtrace(frames, 64);
    backtrace_symbols_fd(frames, n, STDERR_FILENO);
    signal(sig, SIG_DFL);
    raise(sig);
}

static inline void testing_start_watchdog(void)
{
    void *warm[1];
    backtrace(warm, 1);
    static const int fatal[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE };
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
        signal(fatal[i], testing_crash_report);
    setvbuf(stdout, NULL, _IOLBF, 0);   /* what was printed before a crash reaches the log */

    const char *env = getenv("STARSOLVE_TEST_TIMEOUT");
    unsigned seconds = env && *env ? (unsigned)strtoul(env, NULL, 10) : 600;
    if (seconds == 0)
        return;   /* 0: no watchdog (under a debugger) */
    signal(SIGALRM, testing_watchdog_fired);
    alarm(seconds);
}

/* Start the library with CPU workers only (make check must run on any machine;
 * STARPU_NCUDA=0 in the test environment says the same) and tile size nb.
 * STARSOLVE_TEST_GPUS=G runs the same tests with G CUDA workers as well (on a
 * GPU machine, with STARPU_NCUDA unset): the CUDA codelets then take their share.
 * STARSOLVE_TEST_CPUS=C sets the CPU workers (0 with GPUs: every task must have a
 * CUDA variant or a way around, as in `starpu_lu -ncpus 0 -ngpus 1`).
 * STARSOLVE_TEST_PANEL_LEAF=W sets starsolve_config_t.gpu_panel_leaf.
 * Returns 0, or nonzero when the runtime did not start. */
static inline int testing_init(int nb)
{
    testing_start_watchdog();
    starsolve_config_t cfg;
    starsolve_config_init(&cfg);
    const char *gpus = getenv("STARSOLVE_TEST_GPUS");
    cfg.ngpus = gpus ? atoi(gpus) : 0;
    const char *cpus = getenv("STARSOLVE_TEST_CPUS");
    if (cpus)
        cfg.ncpus = atoi(cpus);
    /* STARSOLVE_TEST_PANEL_LEAF=W: the GPU LU panel is ours with leaves of width W, so
     * that the tests exercise it too */
    const char *leaf = getenv("STARSOLVE_TEST_PANEL_LEAF");
    if (leaf)
        cfg.gpu_panel_leaf = atoi(leaf);
    cfg.nb = nb;
    cfg.verbose = 0;   /* bad-argument tests must not flood the log */
    int ret = starsolve_init(&cfg);
    if (ret != 0) {
        fprintf(stderr, "testing: starsolve_init failed (%d)\n", ret);
        return ret;
    }
    if (cpus)
        TEST_CHECK(starsolve_ncpus() == cfg.ncpus, "starsolve_init with ncpus = %d: %d CPU workers", cfg.ncpus,
                   starsolve_ncpus());
    else
        TEST_CHECK(starsolve_ncpus() >= 1, "starsolve_init: %d CPU workers", starsolve_ncpus());
    TEST_CHECK(starsolve_ngpus() == cfg.ngpus, "starsolve_init with ngpus = %d: %d GPU workers", cfg.ngpus,
               starsolve_ngpus());
    TEST_CHECK(starsolve_get_nb() == nb, "starsolve_init with cfg.nb = %d: starsolve_get_nb() = %d", nb,
               starsolve_get_nb());
    return 0;
}

/* Tile size of the LAPACK-layout routines for the next calls. */
static inline void testing_set_nb(int nb)
{
    int ret = starsolve_set_nb(nb);
    TEST_CHECK(ret == 0 && starsolve_get_nb() == nb, "starsolve_set_nb(%d) = %d, then get_nb() = %d", nb, ret,
               starsolve_get_nb());
}

/* Print the summary line, exactly "N passed, M failed", and return the exit status. */
static inline int testing_summary(void)
{
    printf("%ld passed, %ld failed\n", testing_counts.passed, testing_counts.failed);
    fflush(stdout);
    return testing_counts.failed ? 1 : 0;
}

/* The main of a test program made of one generic test in its four precisions:
 * start the library (tile size 32; each test then sets its own with
 * starsolve_set_nb), run s, d, c, z in that order, print the failures by
 * precision and the summary line, and return the exit status. */
static inline int testing_run_precisions(int (*const by_precision[4])(void))
{
    if (testing_init(32) != 0)
        return TESTING_HARD_ERROR;
    int failed[4];
    for (int p = 0; p < 4; p++)
        failed[p] = by_precision[p]();
    printf("failures by precision: s %d, d %d, c %d, z %d\n", failed[0], failed[1], failed[2], failed[3]);
    starsolve_finalize();
    return testing_summary();
}

/* The generated per-precision tests; each returns its number of failed checks.
 * Written out for s, d, c, z: a grep for test_dlu must find this line. */
int test_smpi(void);
int test_dmpi(void);
int test_cmpi(void);
int test_zmpi(void);

int test_slu(void);
int test_dlu(void);
int test_clu(void);
int test_zlu(void);

int test_scholesky(void);
int test_dcholesky(void);
int test_ccholesky(void);
int test_zcholesky(void);

int test_sqr(void);
int test_dqr(void);
int test_cqr(void);
int test_zqr(void);

int test_srbt(void);
int test_drbt(void);
int test_crbt(void);
int test_zrbt(void);

int test_sbatched(void);
int test_dbatched(void);
int test_cbatched(void);
int test_zbatched(void);

int test_sspike(void);
int test_dspike(void);
int test_cspike(void);
int test_zspike(void);

int test_sargs(void);
int test_dargs(void);
int test_cargs(void);
int test_zargs(void);

/* Rows lda > m of the tests' matrices hold this value; no routine may change it. */
#define PAD_VALUE (-777.0)
#include "smatrix_util.h"
#include "dmatrix_util.h"
#include "cmatrix_util.h"
#include "zmatrix_util.h"

#endif
