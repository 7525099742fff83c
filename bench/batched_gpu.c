/* Our batched GPU factorizations alone on one GPU, outside StarPU (bench/zbatched_gpu.c):
 *   batched_gpu -test [-prec sdcz]
 *       kernel tests in each precision given (default all four): exit 1 on a failure;
 *   batched_gpu [-ops "getrf potrf geqrf"] [-sizes "16 32 64 128 256 512"] [-mib 1024] [-niter 3] [-nb NB] [-prec d]
 *       for each op and size, about MIB MiB of m x m matrices in GPU memory: ours against
 *       cuBLAS getrfBatched / cuSOLVER potrfBatched / cuBLAS geqrfBatched, best of
 *       niter timed runs each (after one untimed), factorization alone, no host copies
 *       (as BASELINES.md's vendor numbers); -nb: panel width (0: automatic).
 *       A table: op, m, batch, our seconds and TF/s, the vendor's, ratio = vendor time / ours,
 *       then, where the small-size kernels could run (nb 0, m <= 64 in s, d, c, 32 in z), our panel kernel on the whole
 *       matrix (the path before them, nb = m) and panel time / ours ("-" elsewhere). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "batched_gpu.h"

static int (*const tests[4])(void) = { test_sbatched_gpu, test_dbatched_gpu, test_cbatched_gpu, test_zbatched_gpu };
static int (*const runs[4])(const char *, int, int, int, int) = { run_sbatched_gpu, run_dbatched_gpu,
                                                                      run_cbatched_gpu, run_zbatched_gpu };

int main(int argc, char **argv)
{
    const char *ops = "getrf potrf geqrf", *sizes = "16 32 64 128 256 512", *prec = NULL;
    int mib = 1024;
    int niter = 3, nb = 0, test = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-test")) test = 1;
        else if (!strcmp(argv[i], "-ops") && i + 1 < argc) ops = argv[++i];
        else if (!strcmp(argv[i], "-sizes") && i + 1 < argc) sizes = argv[++i];
        else if (!strcmp(argv[i], "-prec") && i + 1 < argc) prec = argv[++i];
        else if (!strcmp(argv[i], "-mib") && i + 1 < argc) mib = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-niter") && i + 1 < argc) niter = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-nb") && i + 1 < argc) nb = atoi(argv[++i]);
        else { fprintf(stderr, "batched_gpu: unknown argument %s (see bench/batched_gpu.c)\n", argv[i]); return 2; }
    }
    if (!prec)
        prec = test ? "sdcz" : "d";
    if (niter < 1 || mib <= 0 || nb < 0 || strspn(prec, "sdcz") != strlen(prec)) {
        fprintf(stderr, "batched_gpu: bad -niter, -mib, -nb or -prec\n");
        return 2;
    }
    int failed = 0;
    for (const char *p = prec; *p; p++) {
        int which = (int)(strchr("sdcz", *p) - "sdcz");
        if (test) {
            int f = tests[which]();
            printf("batched_gpu -test, precision %c: %d failed\n", *p, f);
            failed += f;
            continue;
        }
        printf("precision %c, about %d MiB of matrices, best of %d; ratio = vendor time / ours\n", *p, mib, niter);
        printf("%-6s %5s %7s %10s %8s %10s %8s %7s %10s %8s\n", "op", "m", "batch", "ours s", "TF/s", "vendor s", "TF/s",
               "ratio", "panel s", "vs panel");
        char *list = strdup(ops), *save = NULL;
        for (char *op = strtok_r(list, " ,", &save); op; op = strtok_r(NULL, " ,", &save)) {
            if (strcmp(op, "getrf") && strcmp(op, "potrf") && strcmp(op, "geqrf")) {
                fprintf(stderr, "batched_gpu: -ops takes getrf, potrf, geqrf, not %s\n", op);
                return 2;
            }
            char *sl = strdup(sizes), *save2 = NULL;
            for (char *m = strtok_r(sl, " ,", &save2); m; m = strtok_r(NULL, " ,", &save2))
                if (atoi(m) > 0)
                    failed += runs[which](op, atoi(m), mib, niter, nb);
            free(sl);
        }
        free(list);
    }
    return failed ? 1 : 0;
}
