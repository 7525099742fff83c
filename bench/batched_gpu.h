/* bench/batched_gpu: the per-precision halves (generic bench/zbatched_gpu.c), written out. */
#ifndef STARSOLVE_BATCHED_GPU_H
#define STARSOLVE_BATCHED_GPU_H
/* the kernel tests of one precision: the number of failed checks */
int test_sbatched_gpu(void);
int test_dbatched_gpu(void);
int test_cbatched_gpu(void);
int test_zbatched_gpu(void);
/* one line of the table for op on m x m matrices, about mib MiB of them: the number of failed checks */
int run_sbatched_gpu(const char *op, int m, int mib, int niter, int nb);
int run_dbatched_gpu(const char *op, int m, int mib, int niter, int nb);
int run_cbatched_gpu(const char *op, int m, int mib, int niter, int nb);
int run_zbatched_gpu(const char *op, int m, int mib, int niter, int nb);
#endif
