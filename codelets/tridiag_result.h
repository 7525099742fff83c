/* The tridiagonal path of gbsv_spike: what its task is asked (the task's cl_arg) and what it reports
 * back, shared by the C codelet (codelets/codelet_ztridiag.c) and the CUDA one (codelets/cuda/tridiag.cu). */
#ifndef STARSOLVE_TRIDIAG_RESULT_H
#define STARSOLVE_TRIDIAG_RESULT_H

/* Filled by the task, in the caller's memory (the codelets run on the host thread of their worker): */
struct ss_tridiag_result {
    int usable;        /* 0: a row's dominance below min_dominance, a zero pivot or a non-finite entry: nothing solved */
    int solved;        /* the columns of B solved (in order); the first one not solved keeps b */
    int steps;         /* the most refinement steps a column took */
    double dominance;  /* the smallest row dominance |a_ii| / (|a_i,i-1| + |a_i,i+1|) */
};

struct ss_tridiag_args {
    int n, kl, ku;           /* kl, ku <= 1 */
    int diag_row;            /* the row of the band handle that holds the diagonal */
    double min_dominance;    /* below it the matrix is not solved without pivoting */
    double tol;              /* a column is solved when max |b - A x| <= tol max |b| */
    int maxit;               /* refinement steps at most */
    struct ss_tridiag_result *result;
};

#endif
