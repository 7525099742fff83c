/* StarPU-MPI: start and stop, the owner process and tag of every handle,
 * scatter and gather of distributed descriptors, a request's info across the
 * processes. The messages are StarPU-MPI's: starpu_mpi_task_insert (codelets.h,
 * ss_task_insert) runs each task on the process that owns the data it writes
 * and moves the tiles it reads. Built without StarPU-MPI (configure found
 * none), there is one process: registration does nothing and the distributed
 * API reports that it is missing. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#ifdef STARSOLVE_USE_MPI
#include <starpu_mpi.h>
#endif

int starsolve_mpi_rank(void) { return ss_ctx.mpi ? ss_ctx.mpi_rank : 0; }
int starsolve_mpi_size(void) { return ss_ctx.mpi ? ss_ctx.mpi_size : 1; }

#ifdef STARSOLVE_USE_MPI
int ss_mpi_start(struct starpu_conf *conf)
{
    int initialized = 0;
    MPI_Initialized(&initialized);
    /* Our own MPI calls (the Allreduces that agree on infos and arguments) run on
     * the calling thread while StarPU-MPI's thread polls: that needs
     * MPI_THREAD_MULTIPLE. StarPU-MPI asks for MPI_THREAD_SERIALIZED when it starts
     * MPI itself, so we start it (unless the caller did: then the caller finalizes it,
     * and should have asked for MPI_THREAD_MULTIPLE). */
    if (!initialized) {
        int provided = 0;
        if (MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
            return -1;
        ss_ctx.mpi_started_mpi = 1;
        if (provided < MPI_THREAD_MULTIPLE)
            fprintf(stderr, "starsolve: this MPI does not provide MPI_THREAD_MULTIPLE (level %d)\n", provided);
    }
    /* starts StarPU too */
    int ret = starpu_mpi_init_conf(NULL, NULL, 0, MPI_COMM_WORLD, conf);
    if (ret != 0) {
        if (ss_ctx.mpi_started_mpi)
            MPI_Finalize();
        ss_ctx.mpi_started_mpi = 0;
        return ret;
    }
    starpu_mpi_comm_rank(MPI_COMM_WORLD, &ss_ctx.mpi_rank);
    starpu_mpi_comm_size(MPI_COMM_WORLD, &ss_ctx.mpi_size);
    ss_ctx.mpi = 1;
    ss_ctx.mpi_next_tag = 0;
    return 0;
}

void ss_mpi_stop(void)
{
    if (!ss_ctx.mpi)
        return;
    starpu_mpi_shutdown();
    ss_ctx.mpi = 0;
    if (ss_ctx.mpi_started_mpi)
        MPI_Finalize();
    ss_ctx.mpi_started_mpi = 0;
}

void ss_mpi_register(starpu_data_handle_t h, int owner)
{
    if (!ss_ctx.mpi)
        return;
    /* Distributed data takes the next tag of the sequence every process follows in
     * step. Per-process data never travels, and a process may register some alone
     * (a LAPACK-layout call of its own): its tags come from a range of their own, so
     * that the shared sequence stays in step. */
    static starpu_mpi_tag_t next_private = (starpu_mpi_tag_t)1 << 40;
    starpu_mpi_tag_t tag = owner == STARPU_MPI_PER_NODE ? next_private++ : (starpu_mpi_tag_t)ss_ctx.mpi_next_tag++;
    starpu_mpi_data_register(h, tag, owner);
}

int ss_mpi_local_owner(void) { return ss_ctx.mpi ? STARPU_MPI_PER_NODE : 0; }

int ss_mpi_owns(int owner) { return !ss_ctx.mpi || owner == STARPU_MPI_PER_NODE || owner == ss_ctx.mpi_rank; }

void ss_mpi_wait_for_all(void)
{
    if (!ss_ctx.mpi) {
        starpu_task_wait_for_all();
        return;
    }
    /* StarPU-MPI 1.3's barrier (inside starpu_mpi_wait_for_all) runs MPI_Barrier on
     * StarPU-MPI's thread, which meanwhile matches no incoming message. It waits for
     * the requests not yet handed to MPI, not for a receive still waiting for its
     * message. A tile written by a task that runs on another process (QR's tpqrt and
     * tpmqrt write a tile of row k and one of row i, two process rows when P > 1)
     * goes back to its owner by such a receive, and no task of the owner waits for
     * it: the owner's task count drops to zero and its StarPU-MPI thread blocks in
     * MPI_Barrier. Past MPI's eager limit the writer's send completes only once the
     * owner posts the receive, and until then the send holds the tile, so the
     * writer's starpu_task_wait_for_all never returns and it never reaches the barrier.
     * So every process first finishes its tasks, the sends they hold included, and
     * the processes meet in a barrier on this thread, while StarPU-MPI's thread keeps
     * matching messages; StarPU-MPI's own barrier has nothing left to stall. MPI calls
     * from this thread need MPI_THREAD_MULTIPLE, as ss_mpi_reduce_info's (ss_mpi_start). */
    starpu_task_wait_for_all();
    MPI_Barrier(MPI_COMM_WORLD);
    starpu_mpi_wait_for_all(MPI_COMM_WORLD);
}

int ss_mpi_reduce_info(int info)
{
    if (!ss_ctx.mpi)
        return info;
    /* the process that ran a failing task alone knows its info: the first failure over all */
    int mine = info > 0 ? info : INT_MAX, first;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return first == INT_MAX ? 0 : first;
}

/* The reals of v (float or double) go through doubles: a float becomes a double
 * exactly, and a sum of floats comes back rounded once. */
static double real_at(const void *v, size_t realsize, int i)
{
    return realsize == sizeof(float) ? (double)((const float *)v)[i] : ((const double *)v)[i];
}

static void real_set(void *v, size_t realsize, int i, double x)
{
    if (realsize == sizeof(float))
        ((float *)v)[i] = (float)x;
    else
        ((double *)v)[i] = x;
}

void ss_mpi_sum_reals(void *v, int count, size_t realsize)
{
    if (!ss_ctx.mpi || count <= 0)
        return;
    double *sum = malloc((size_t)count * sizeof *sum);
    STARPU_ASSERT_MSG(sum, "ss_mpi_sum_reals: out of memory");
    for (int i = 0; i < count; i++)
        sum[i] = real_at(v, realsize, i);
    MPI_Allreduce(MPI_IN_PLACE, sum, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < count; i++)
        real_set(v, realsize, i, sum[i]);
    free(sum);
}

void ss_mpi_max_reals(void *v, int count, size_t realsize)
{
    if (!ss_ctx.mpi || count <= 0)
        return;
    /* the values with their NaNs as -inf, then one flag per value: 1 where some process had a NaN */
    double *both = malloc(2 * (size_t)count * sizeof *both);
    STARPU_ASSERT_MSG(both, "ss_mpi_max_reals: out of memory");
    for (int i = 0; i < count; i++) {
        double x = real_at(v, realsize, i);
        both[i] = isnan(x) ? -INFINITY : x;
        both[count + i] = isnan(x) ? 1.0 : 0.0;
    }
    MPI_Allreduce(MPI_IN_PLACE, both, 2 * count, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    for (int i = 0; i < count; i++)
        real_set(v, realsize, i, both[count + i] > 0 ? NAN : both[i]);
    free(both);
}

/* The arguments of a collective copy, judged the same on every process: root alone
 * sees its array, and a process that returned early would leave the others blocked
 * in their sends and receives. So each process's verdict (0 or a negative info)
 * becomes the smallest over all of them. */
static int agree_on_arguments(int info)
{
    if (ss_ctx.mpi)
        MPI_Allreduce(MPI_IN_PLACE, &info, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return info;
}

static int check_dist(const starsolve_desc_t *A, const void *lapack, int lda, int root)
{
    int info = 0;
    if (!A || A->P * A->Q != ss_ctx.mpi_size || !ss_ctx.mpi) info = -1;
    else if (root < 0 || root >= ss_ctx.mpi_size) info = -4;
    else if (ss_ctx.mpi_rank == root && !lapack && A->m > 0 && A->n > 0) info = -2;
    else if (ss_ctx.mpi_rank == root && lda < ss_max(1, A->m)) info = -3;
    return agree_on_arguments(info);
}

static int scatter_dist(starsolve_desc_t *A, const void *lapack, int lda, int root)
{
    int info = check_dist(A, lapack, lda, root);
    if (info)
        return info;
    ss_mpi_wait_for_all();
    /* root sends the tiles in one order and every owner receives its own in the
     * same order, so the blocking calls pair up without a deadlock */
    for (int j = 0; j < A->nt; j++)
        for (int i = 0; i < A->mt; i++) {
            int owner = A->owner(A, i, j);
            starpu_data_handle_t h = ss_tile(A, i, j);
            starpu_mpi_tag_t tag = starpu_mpi_data_get_tag(h);
            if (ss_ctx.mpi_rank == root) {
                char *block = ss_lapack_tile(A, (char *)lapack, (size_t)lda, i, j);
                if (owner == root) {
                    ss_tile_copy_lapack(A, i, j, (char *)lapack, (size_t)lda, 0);
                    continue;
                }
                /* a view of the block in root's array, sent as a tile (StarPU-MPI packs strided matrices) */
                starpu_data_handle_t view;
                starpu_matrix_data_register(&view, STARPU_MAIN_RAM, (uintptr_t)block, (uint32_t)lda, ss_tile_rows(A, i),
                                            ss_tile_cols(A, j), A->elemsize);
                starpu_mpi_send(view, owner, tag, MPI_COMM_WORLD);
                starpu_data_unregister(view);
            } else if (ss_ctx.mpi_rank == owner) {
                starpu_mpi_recv(h, root, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
        }
    return 0;
}

static int gather_dist(const starsolve_desc_t *A, void *lapack, int lda, int root)
{
    int info = check_dist(A, lapack, lda, root);
    if (info)
        return info;
    ss_mpi_wait_for_all();
    for (int j = 0; j < A->nt; j++)
        for (int i = 0; i < A->mt; i++) {
            starpu_data_handle_t h = ss_tile(A, i, j);
            starpu_mpi_get_data_on_node(MPI_COMM_WORLD, h, root);   /* every process calls it; the owner sends */
            if (ss_ctx.mpi_rank == root)
                ss_tile_copy_lapack(A, i, j, lapack, (size_t)lda, 1);
        }
    /* root's copies of the others' tiles go stale at their owners' next write */
    starpu_mpi_cache_flush_all_data(MPI_COMM_WORLD);
    return 0;
}

double starsolve_mpi_sent_bytes(void)
{
    const char *stats = getenv("STARPU_COMM_STATS");
    if (!ss_ctx.mpi || !stats || atoi(stats) <= 0)
        return -1;
    size_t amounts[ss_ctx.mpi_size];
    memset(amounts, 0, sizeof amounts);
    starpu_mpi_comm_amounts_retrieve(amounts);   /* what this process sent to each of the others */
    double total = 0;
    for (int p = 0; p < ss_ctx.mpi_size; p++)
        total += (double)amounts[p];
    return total;
}

static int pivots_gather_dist(starsolve_pivots_t *piv, int *ipiv, int root)
{
    int info = 0;
    if (!piv || !ss_ctx.mpi) info = -1;
    else if (root < 0 || root >= ss_ctx.mpi_size) info = -3;
    else if (ss_ctx.mpi_rank == root && !ipiv && piv->minmn > 0) info = -2;
    info = agree_on_arguments(info);
    if (info)
        return info;
    ss_mpi_wait_for_all();
    for (int k = 0; k < piv->npanels; k++)
        starpu_mpi_get_data_on_node(MPI_COMM_WORLD, piv->panels[k], root);
    if (ss_ctx.mpi_rank == root)
        starsolve_pivots_to_lapack(piv, ipiv);
    starpu_mpi_cache_flush_all_data(MPI_COMM_WORLD);
    return 0;
}
#else
int ss_mpi_start(struct starpu_conf *conf)
{
    (void)conf;
    return -1;
}
void ss_mpi_stop(void) {}
void ss_mpi_register(starpu_data_handle_t h, int owner) { (void)h; (void)owner; }
int ss_mpi_local_owner(void) { return 0; }
int ss_mpi_owns(int owner) { (void)owner; return 1; }
void ss_mpi_wait_for_all(void) { starpu_task_wait_for_all(); }
int ss_mpi_reduce_info(int info) { return info; }
void ss_mpi_sum_reals(void *v, int count, size_t realsize) { (void)v; (void)count; (void)realsize; }
void ss_mpi_max_reals(void *v, int count, size_t realsize) { (void)v; (void)count; (void)realsize; }

static int scatter_dist(starsolve_desc_t *A, const void *lapack, int lda, int root)
{
    (void)A; (void)lapack; (void)lda; (void)root;
    return -1;
}
static int gather_dist(const starsolve_desc_t *A, void *lapack, int lda, int root)
{
    (void)A; (void)lapack; (void)lda; (void)root;
    return -1;
}
static int pivots_gather_dist(starsolve_pivots_t *piv, int *ipiv, int root)
{
    (void)piv; (void)ipiv; (void)root;
    return -1;
}
double starsolve_mpi_sent_bytes(void) { return -1; }
#endif

int starsolve_mpi_available(void)
{
#ifdef STARSOLVE_USE_MPI
    return 1;
#else
    return 0;
#endif
}

/* One process (a 1 x 1 grid, or no MPI): the plain copies. */
int starsolve_desc_scatter(starsolve_desc_t *A, const void *lapack, int lda, int root)
{
    SS_PUBLIC_CALL;
    if (A && A->P * A->Q == 1 && starsolve_mpi_size() == 1)
        return root == 0 ? starsolve_desc_from_lapack(A, lapack, lda) : -4;
    return scatter_dist(A, lapack, lda, root);
}

int starsolve_desc_gather(const starsolve_desc_t *A, void *lapack, int lda, int root)
{
    SS_PUBLIC_CALL;
    if (A && A->P * A->Q == 1 && starsolve_mpi_size() == 1)
        return root == 0 ? starsolve_desc_to_lapack(A, lapack, lda) : -4;
    return gather_dist(A, lapack, lda, root);
}

int starsolve_pivots_gather(starsolve_pivots_t *piv, int *ipiv, int root)
{
    SS_PUBLIC_CALL;
    if (starsolve_mpi_size() == 1) {
        if (!piv) return -1;
        if (!ipiv && piv->minmn > 0) return -2;
        if (root != 0) return -3;
        starsolve_pivots_to_lapack(piv, ipiv);
        return 0;
    }
    return pivots_gather_dist(piv, ipiv, root);
}
