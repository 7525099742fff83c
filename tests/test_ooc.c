/* make check: out-of-core factorizations on CPU workers. StarPU may keep only
 * HOST_MB MiB of tiles in host memory (starsolve_config_t.host_memory_mb, i.e.
 * STARPU_LIMIT_CPU_MEM) and swaps the rest to a disk directory through its disk
 * backend (disk_swap, STARPU_DISK_SWAP); each matrix is about 4x that limit.
 * Cholesky (both triangles), LU with partial pivoting and LU without pivoting
 * run on out-of-core descriptors (starsolve_desc_create_ooc) through the tile
 * API; their backward errors must stay under 30 like everywhere else, and StarPU's
 * bus counters must show at least the part that does not fit written to disk
 * (the disk path really ran).
 * Not generic: the storage is untyped, double covers it. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <starpu.h>   /* starpu_profiling_status_set: the traffic counters */
#include "testing.h"
#include "check.h"

struct testing_counts testing_counts;

enum { HOST_MB = 4, N = 1400, NB = 100 };   /* 1400^2 doubles: 15.7 MB, about 4x HOST_MB */

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        char path[4096];
        for (struct dirent *e; (e = readdir(d));)
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
                unlink(path);
            }
        closedir(d);
    }
    rmdir(dir);
}

enum kind { CHOL_L, CHOL_U, LU, LU_NOPIV };
static const char *kind_name[] = { "potrf L", "potrf U", "getrf", "getrf_nopiv" };

/* an m x n matrix (LU also wide and tall: its out-of-core order works by slabs of columns) */
static void factor_out_of_core(enum kind kind, int m, int n)
{
    size_t count = (size_t)m * n;
    double *A0 = testing_alloc(count * sizeof *A0), *F = testing_alloc(count * sizeof *F);
    int *ipiv = testing_alloc((size_t)(m < n ? m : n) * sizeof *ipiv);
    if (kind == CHOL_L || kind == CHOL_U)
        gen_dhpd(n, A0, m, 11);
    else
        gen_dmatrix(m, n, A0, m, 12);
    if (kind == LU_NOPIV)   /* diagonally dominant: stable without pivoting */
        for (int i = 0; i < m && i < n; i++)
            A0[i + (size_t)i * m] += n;

    starsolve_desc_t *A = NULL;
    starsolve_pivots_t *piv = NULL;
    starsolve_request_t *req = starsolve_request_create();
    double read, written;
    starsolve_ooc_traffic(&read, &written);   /* from zero */
    int ret = starsolve_desc_create_ooc(&A, STARSOLVE_D, m, n, NB);
    if (!TEST_CHECK(ret == 0 && A, "%s: starsolve_desc_create_ooc = %d", kind_name[kind], ret))
        goto out;
    TEST_CHECK(starsolve_desc_from_lapack(A, A0, m) == 0, "%s: from_lapack", kind_name[kind]);
    switch (kind) {
    case CHOL_L: ret = starsolve_dpotrf_tile_async('L', A, req); break;
    case CHOL_U: ret = starsolve_dpotrf_tile_async('U', A, req); break;
    case LU:
        starsolve_pivots_create(&piv, A);
        ret = starsolve_dgetrf_tile_async(A, piv, req);
        break;
    case LU_NOPIV: ret = starsolve_dgetrf_nopiv_tile_async(A, req); break;
    }
    int info = starsolve_request_wait(req);
    TEST_CHECK(ret == 0 && info == 0, "%s out of core: submit %d, info %d", kind_name[kind], ret, info);
    /* Filling the descriptor alone writes out what does not fit (matrix - limit), and the
     * factorization evicts tiles again after updating them: at least the matrix's size in all
     * (20 to 59 MB were seen; without the limit StarPU wrote 8.4 MB, its idle write-backs). */
    starsolve_ooc_traffic(&read, &written);
    double must = (double)count * sizeof(double);
    TEST_CHECK(written >= must, "%s: %.0f bytes written to the disk swap, expected at least %.0f", kind_name[kind],
               written, must);
    TEST_CHECK(starsolve_desc_to_lapack(A, F, m) == 0, "%s: to_lapack", kind_name[kind]);
    double berr;
    if (kind == LU) {
        starsolve_pivots_to_lapack(piv, ipiv);
        berr = check_dgetrf(m, n, A0, m, F, m, ipiv, 1);
    } else if (kind == LU_NOPIV) {
        berr = check_dgetrf(m, n, A0, m, F, m, NULL, 1);
    } else {
        berr = check_dpotrf(kind == CHOL_L ? 'L' : 'U', n, A0, m, F, m, 1);
    }
    TEST_CHECK(check_passes(berr), "%s out of core (%d x %d, nb=%d, %d MiB of host memory): backward error %.2e",
               kind_name[kind], m, n, NB, HOST_MB, berr);
out:
    starsolve_pivots_destroy(piv);
    starsolve_desc_destroy(A);
    starsolve_request_destroy(req);
    free(A0); free(F); free(ipiv);
}

int main(void)
{
    testing_start_watchdog();
    const char *tmp = getenv("TMPDIR");
    char swap_dir[4096];
    snprintf(swap_dir, sizeof swap_dir, "%s/starsolve-ooc-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(swap_dir)) {
        fprintf(stderr, "test_ooc: cannot create a swap directory under %s\n", tmp && *tmp ? tmp : "/tmp");
        return TESTING_HARD_ERROR;
    }
    starsolve_config_t cfg;
    starsolve_config_init(&cfg);
    cfg.nb = NB;
    cfg.disk_swap = swap_dir;
    cfg.host_memory_mb = HOST_MB;
    /* out of core runs on CPU workers only: GPUs asked for are refused before StarPU starts */
    cfg.ngpus = 1;
    cfg.verbose = 0;
    TEST_CHECK(starsolve_init(&cfg) != 0, "init with disk_swap and ngpus = 1 must fail");
    cfg.ngpus = 0;
    if (starsolve_init(&cfg) != 0) {
        fprintf(stderr, "test_ooc: starsolve_init failed\n");
        remove_dir(swap_dir);
        return TESTING_HARD_ERROR;
    }
    starpu_profiling_status_set(STARPU_PROFILING_ENABLE);   /* counts the bytes each bus moved */
    for (int k = CHOL_L; k <= LU_NOPIV; k++)
        factor_out_of_core((enum kind)k, N, N);
    factor_out_of_core(LU, 950, N);   /* wide, partial tiles */
    factor_out_of_core(LU, N, 950);   /* tall */
    /* bad arguments, like starsolve_desc_create's */
    starsolve_desc_t *bad = NULL;
    TEST_CHECK(starsolve_desc_create_ooc(NULL, STARSOLVE_D, 10, 10, 4) == -1, "create_ooc(NULL) must fail");
    TEST_CHECK(starsolve_desc_create_ooc(&bad, STARSOLVE_D, -1, 10, 4) < 0 && !bad, "create_ooc with m = -1 must fail");
    TEST_CHECK(starsolve_desc_create_ooc(&bad, STARSOLVE_D, 10, 10, 0) < 0 && !bad, "create_ooc with nb = 0 must fail");
    starsolve_finalize();
    remove_dir(swap_dir);
    return testing_summary();
}
